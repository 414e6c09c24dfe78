"""The web console in a real browser: headless Chromium plays, replays and compares episodes.

Needs Playwright's Python package (a dev dependency) and Debian's ``chromium``
(``apt-get install chromium``; ``.ci/run`` installs it). Outside CI they are skipped when
missing; on CI (``CI=true``) a missing browser fails the run instead.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from console_browser import (
    CHROMIUM,
    SCREEN,
    TIER1,
    act,
    answers_seen,
    chromium,
    grade_shown,
    make_runs,
    open_console,
    play_triage_by_keys,
    session_id,
    start_episode,
    steps_taken,
    take_screenshots,
    wait_answer,
)
from live_server import running_server
from test_console import edit_record

from inbox_triage.evaluation.records import EPISODES_FILE

_missing = [
    what
    for what, ok in (
        ("Playwright (pip install -e '.[dev]')", importlib.util.find_spec("playwright")),
        (f"Chromium at {CHROMIUM} (apt-get install chromium)", Path(CHROMIUM).exists()),
    )
    if not ok
]
if _missing:
    if os.environ.get("CI") == "true":
        pytest.fail(f"the browser tests need {' and '.join(_missing)}", pytrace=False)
    pytest.skip(f"the browser tests need {' and '.join(_missing)}", allow_module_level=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    """Runs made by `inbox-triage eval` (heuristic and random, one generated task and seeds),
    plus a hand-edited copy of the heuristic's whose third action differs."""
    root = tmp_path_factory.mktemp("browser-runs")
    heuristic, _ = make_runs(root)
    edit_record(heuristic, root / "edited-run", seed=0, step=3, priority="mega")  # refused
    bare = root / "zz-bare-run"  # kept without trajectories (listed last)
    bare.mkdir()
    lines = (heuristic / EPISODES_FILE).read_text().splitlines()
    stripped = [json.dumps({**json.loads(line), "trajectory": []}) for line in lines]
    (bare / EPISODES_FILE).write_text("\n".join(stripped) + "\n")
    return root


@pytest.fixture(scope="module")
def url(runs) -> str:
    with running_server("--runs", str(runs), "--max-sessions", "8") as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with chromium() as instance:
        yield instance


@pytest.fixture
def page(browser, url):
    tab = open_console(browser, url)
    tab.set_default_timeout(15_000)
    yield tab
    assert tab.console_errors == []  # the page's script threw nothing
    tab.close()


def grader(url: str, session: str) -> dict:
    return httpx.get(f"{url}/grader", headers={"X-Session-Id": session}).json()


def test_a_fixed_task_played_to_the_end_shows_the_grade_the_grader_gives(page, url):
    start_episode(page, "triage/easy")
    assert page.locator("#mail-list tbody tr").count() == 5
    assert "Routing guide" in page.inner_text("#policy-text")
    play_triage_by_keys(page)
    assert page.evaluate("state.obs.done") is True
    assert page.locator("#act-button").is_disabled()
    shown = grade_shown(page)
    truth = grader(url, session_id(page))
    assert truth["done"] is True
    assert shown["score"] == pytest.approx(truth["score"], abs=5e-4)
    assert set(shown["components"]) == set(truth["components"])
    for name, component in truth["components"].items():
        assert shown["components"][name]["weight"] == pytest.approx(component["weight"], abs=5e-3)
        assert shown["components"][name]["score"] == pytest.approx(component["score"], abs=5e-4)
        assert shown["components"][name]["explanation"] == component["explanation"]
    assert "Final grade" in page.inner_text("#grade-note")


def test_a_refused_action_shows_its_field_and_allowed_values_and_uses_a_step(page):
    """As on every route (issue 29): the episode refuses it at a step's cost, and the form
    keeps what was written with the refused field marked."""
    start_episode(page, "triage/easy")
    act(page, "triage_email", summary="Nothing chosen yet.")  # the selects start blank
    refusal = page.inner_text("#step-result")
    assert "Refused: priority is required" in refusal
    assert page.get_attribute("#field-priority", "aria-invalid") == "true"
    assert page.input_value("#field-summary") == "Nothing chosen yet."
    tier1 = {"priority": "medium", "category": "general_inquiry", "route_to": "support_tier1"}
    for _ in range(3):  # fill support_tier1 (room 3)
        act(page, "triage_email", **tier1, summary="Routine question; routed.")
    assert "support_tier1 (full)" in page.inner_text("#field-route_to")
    act(page, "triage_email", **tier1, summary="One more for tier one.")
    refusal = page.inner_text("#step-result")
    assert "Refused: route_to" in refusal and "allowed: support_tier2" in refusal
    assert "uses a step and costs the invalid-action penalty" in refusal
    assert steps_taken(page) == 5  # three decisions and the two refusals


def test_generated_inbox_mode_plays_with_the_forms_own_choices(page, url):
    page.select_option("#setup-mode", "inbox")
    page.select_option("#setup-task", "inbox/generated")
    assert (
        page.locator("#setup-split").is_visible() and page.locator("#setup-difficulty").is_visible()
    )
    page.locator("#setup-knobs summary").click()
    page.fill("#knob-size", "4")
    start_episode(page, "inbox/generated", seed=11, split="validation", difficulty="easy")
    assert page.locator("#mail-list tbody tr").count() == 4
    assert "Escalation budget" in page.inner_text("#status-bar")
    types = page.eval_on_selector_all("#action-type option", "os => os.map(o => o.value)")
    assert types[:4] == ["classify_ticket", "respond_ticket", "escalate_ticket", "resolve_ticket"]
    page.focus("#mail-list")
    page.keyboard.press("j")  # the second ticket, chosen from the keyboard
    second = page.locator("#mail-list tbody tr").nth(1).get_attribute("data-id")
    assert page.input_value("#field-ticket_id") == second
    act(page, "classify_ticket", priority="high")
    assert "classified" in page.inner_text("#last-feedback")
    truth = grader(url, session_id(page))
    assert (
        truth["task_id"].startswith("inbox/")
        and page.inner_text("#grade-value") == f"{truth['score']:.3f}"
    )


def test_two_tabs_play_two_tasks_at_once_without_seeing_each_other(browser, url):
    first, second = open_console(browser, url), open_console(browser, url)
    try:
        start_episode(first, "triage/easy")
        start_episode(second, "inbox/medium_billing_bug_mix")
        assert session_id(first) != session_id(second)
        act(
            first,
            "triage_email",
            priority="urgent",
            category="customer_complaint",
            route_to="support_tier2",
            summary="Account hacked; locked and routed to tier two.",
        )
        act(second, "classify_ticket", ticket_id="T-210", priority="high", queue="billing")
        act(second, "classify_ticket", ticket_id="T-211", priority="medium", queue="technical")
        assert steps_taken(first) == 1 and steps_taken(second) == 2
        ids_first = first.eval_on_selector_all(
            "#mail-list tbody tr", "rs => rs.map(r => r.dataset.id)"
        )
        ids_second = second.eval_on_selector_all(
            "#mail-list tbody tr", "rs => rs.map(r => r.dataset.id)"
        )
        assert ids_first[0].startswith("e") and "T-210" in ids_second
        assert not set(ids_first) & set(ids_second)
        assert grader(url, session_id(first))["task_id"] == "triage/easy"
        assert grader(url, session_id(second))["task_id"] == "inbox/medium_billing_bug_mix"
        before = httpx.get(f"{url}/healthz").json()["http_sessions"]
        gone = session_id(second)
    finally:
        second.close(run_before_unload=True)
    # The closed tab's session goes with it (after the few seconds a reload would have to come
    # back to it); the other one plays on.
    for _ in range(120):
        if httpx.get(f"{url}/grader", headers={"X-Session-Id": gone}).status_code == 404:
            break
        first.wait_for_timeout(100)
    assert httpx.get(f"{url}/grader", headers={"X-Session-Id": gone}).status_code == 404
    # (Sessions of tabs earlier tests closed have gone the same way meanwhile.)
    assert httpx.get(f"{url}/healthz").json()["http_sessions"] <= before - 1
    assert grader(url, session_id(first))["task_id"] == "triage/easy"
    act(
        first,
        "triage_email",
        priority="spam",
        category="spam_phishing",
        route_to="trash",
        summary="Prize scam; trash it.",
    )
    assert steps_taken(first) == 2
    first.close()


def heuristic_runs_listed(page) -> None:
    """The runs list, filtered to the heuristic's run (its two episodes)."""
    page.goto(page.url.split("#")[0] + "#/runs")
    page.wait_for_selector("#runs-table tbody tr")
    page.select_option("#filter-run", "heuristic-run")
    page.click("#filter-button")
    page.wait_for_function("document.querySelectorAll('#runs-table tbody tr').length === 2")


def test_replay_opens_an_eval_run_from_the_list_and_steps_to_its_recorded_grade(page, runs):
    from inbox_triage.evaluation.records import read_records

    heuristic_runs_listed(page)
    page.locator("#runs-table tbody tr").nth(1).locator("td").nth(3).click()  # seed 1's row
    assert page.locator("#runs-table tbody tr").nth(1).get_attribute("aria-selected") == "true"
    page.focus("#runs-table")
    page.keyboard.press("k")  # back to seed 0 and forward again, from the keyboard
    page.keyboard.press("j")
    page.keyboard.press("Enter")
    page.wait_for_selector("#replay-panes .pane")
    record = next(r for r in read_records(runs / "heuristic-run") if r.seed == 1)
    assert "reproduces its recorded rewards and grade" in page.inner_text("#replay-banner")
    assert page.inner_text("#replay-total") == str(record.steps)
    assert "Before the first step" in page.inner_text(".pane")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.input_value("#replay-step") == "2"
    assert page.inner_text(".replay-reward") == f"{record.trajectory[1].reward:.4f}"
    page.keyboard.press("ArrowLeft")
    assert page.input_value("#replay-step") == "1"
    page.fill("#replay-step", str(record.steps))  # jump to the end
    page.press("#replay-step", "Enter")
    page.wait_for_function(f"document.querySelector('#replay-slider').value === '{record.steps}'")
    assert page.inner_text(".replay-grade") == f"{record.grade:.3f}"


def heuristic_and_edited_seed0(page) -> list[int]:
    """The runs list's rows of seed 0 in the heuristic's run and its hand-edited copy."""
    page.goto(page.url.split("#")[0] + "#/runs")
    page.wait_for_selector("#runs-table tbody tr")
    rows = page.locator("#runs-table tbody tr")
    return [
        i
        for i in range(rows.count())
        if rows.nth(i).locator("td").nth(4).inner_text() == "0"
        and rows.nth(i).locator("td").nth(1).inner_text() in ("heuristic-run", "edited-run")
    ]


def test_side_by_side_marks_the_first_differing_step_and_the_unreproduced_record(page):
    chosen = heuristic_and_edited_seed0(page)
    rows = page.locator("#runs-table tbody tr")
    assert len(chosen) == 2
    for i in chosen:
        rows.nth(i).locator(".tick").check()
    page.click("#compare-button")
    page.wait_for_selector("#first-difference")
    assert "first differ at step 3" in page.inner_text("#first-difference")
    assert page.input_value("#replay-step") == "2"  # opened just before the difference
    page.keyboard.press("ArrowRight")
    assert page.locator(".pane .action-box.differs").count() == 2
    assert page.locator("#replay-strip .cell.differs").get_attribute("data-step") == "3"
    banner = page.inner_text("#replay-banner")
    assert "heuristic-run) reproduces" in banner
    assert "edited-run) does NOT reproduce: at step 3" in banner
    assert page.locator("#replay-strip .cell.mismatch").count() >= 1


def test_every_control_has_a_label_and_is_reachable_by_keyboard(page):
    start_episode(page, "ticket/hard_account_takeover")
    unlabeled = page.evaluate(
        """() => [...document.querySelectorAll('input, select, textarea, button, [tabindex]')]
        .filter(n => n.offsetParent !== null)
        .filter(n => !((n.labels && n.labels.length) || n.getAttribute('aria-label')
                       || n.textContent.trim()))
        .map(n => n.id || n.outerHTML.slice(0, 60))"""
    )
    assert unlabeled == []
    unreachable = page.evaluate(
        """() => [...document.querySelectorAll('input, select, textarea, button, a[href]')]
        .filter(n => n.offsetParent !== null && n.tabIndex < 0).map(n => n.id)"""
    )
    assert unreachable == []
    # Tabbing from the top reaches the action form and its submit button.
    page.focus("#setup-mode")
    seen = set()
    for _ in range(60):
        page.keyboard.press("Tab")
        seen.add(page.evaluate("document.activeElement.id"))
    assert {"setup-task", "setup-seed", "start-button", "action-type", "act-button"} <= seen


def test_the_readme_screenshots_are_taken_by_this_code(browser, url, tmp_path):
    pictures = take_screenshots(url, tmp_path, browser)
    assert [p.name for p in pictures] == [
        "console-play.png",
        "console-final.png",
        "console-replay.png",
        "console-compare.png",
    ]
    for picture in pictures:
        data = picture.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and 20_000 < len(data) < 600_000


def test_a_reload_mid_episode_comes_back_to_the_same_session_steps_and_draft(page, url):
    start_episode(page, "inbox/medium_billing_bug_mix")
    act(page, "classify_ticket", ticket_id="T-210", priority="high", queue="billing")
    act(page, "classify_ticket", ticket_id="T-211", priority="medium", queue="technical")
    session = session_id(page)
    page.select_option("#action-type", "respond_ticket")
    page.fill("#field-response_text", "Half-written: we are looking at the double charge")
    page.reload()
    page.wait_for_selector("body[data-ready='yes']")
    page.wait_for_function("state.obs !== null")
    assert session_id(page) == session and steps_taken(page) == 2
    assert page.input_value("#action-type") == "respond_ticket"
    assert page.input_value("#field-response_text").startswith("Half-written: we are")
    assert page.is_enabled("#act-button")
    assert grader(url, session)["done"] is False  # the reload did not end or replace it
    before = grader(url, session)
    # Where it cannot come back (the session is gone), the page says why and replays the
    # episode's setup and actions into a new session: the same state, the draft still there.
    assert httpx.delete(f"{url}/sessions/{session}").status_code == 200
    page.reload()
    page.wait_for_selector("body[data-ready='yes']")
    page.wait_for_selector("#notice:not([hidden])")
    said = page.inner_text("#notice")
    assert said.startswith("Episode recovered.") and "no longer has this tab's session" in said
    assert "idle" not in said and "closed or left" not in said  # neither is what happened
    again = session_id(page)
    assert again not in (session, "none yet") and steps_taken(page) == 2
    after = grader(url, again)
    assert after["score"] == before["score"] and after["components"] == before["components"]
    assert page.locator("#transcript-table tbody tr").count() == 2
    assert page.input_value("#field-response_text").startswith("Half-written: we are")


def test_the_end_of_an_episode_is_announced_in_view_with_the_form_closed(page, url):
    start_episode(page, "inbox/easy_password_reset")
    act(page, "finish")
    over = page.locator("#episode-over")
    assert over.is_visible() and "The episode is over" in over.inner_text()
    assert page.is_disabled("#act-button") and page.is_disabled("#action-type")
    assert page.inner_text("#side-grade-label").startswith("Final grade")
    top = page.locator("#grade-panel").bounding_box()["y"]
    assert 0 <= top < page.viewport_size["height"]  # brought into view
    final = grader(url, session_id(page))
    assert final["done"] and f"{final['score']:.3f}" in over.inner_text()


def test_the_api_page_opens_beside_the_console_and_asks_nothing_of_another_host(page, browser, url):
    with page.context.expect_page() as opened:
        page.click("a[href='/docs']")
    beside = opened.value
    beside.wait_for_load_state()
    assert page.url.startswith(f"{url}/web/") and "/docs" in beside.url  # the console stays
    beside.close()
    docs = browser.new_page()
    asked: list[str] = []
    docs.on("request", lambda request: asked.append(request.url))
    docs.goto(f"{url}/docs")
    docs.wait_for_selector(".swagger-ui .info .title")
    assert "API" in docs.inner_text(".swagger-ui .info .title")
    assert docs.locator(".opblock-summary-path[data-path='/mcp']").count() >= 1
    assert asked and all(u.startswith(url) or u.startswith("data:") for u in asked), asked
    asked.clear()
    docs.goto(f"{url}/redoc")  # ReDoc would fetch its logo from a CDN: it leads to /docs
    docs.wait_for_selector(".swagger-ui .info .title")
    assert docs.url == f"{url}/docs"
    assert all(u.startswith(url) or u.startswith("data:") for u in asked), asked
    docs.close()


@pytest.mark.parametrize("width", [390, 800])
def test_no_view_scrolls_sideways_on_a_phone_or_a_small_window(browser, url, width):
    tab = browser.new_page(viewport={"width": width, "height": 844})
    tab.set_default_timeout(15_000)
    tab.goto(f"{url}/web/#/play")
    tab.wait_for_selector("body[data-ready='yes']")

    def fits(view: str) -> None:
        scroll, inner = tab.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert scroll <= inner, f"{view} is {scroll} px wide at {inner} px"

    fits("play")
    start_episode(tab, "inbox/medium_billing_bug_mix")
    fits("play, mid-episode")
    # The inbox keeps the columns that matter: subject, SLA and state stay in sight.
    headers = tab.eval_on_selector_all(
        "#mail-list th", "hs => hs.filter(h => h.offsetParent !== null).map(h => h.textContent)"
    )
    assert {"Subject", "SLA", "State"} <= set(headers)
    tab.goto(f"{url}/web/#/runs")
    tab.wait_for_selector("#runs-table tbody tr")
    fits("runs")
    rows = tab.locator("#runs-table tbody tr")
    seed0 = [i for i in range(rows.count()) if rows.nth(i).locator("td").nth(4).inner_text() == "0"]
    for i in seed0[:2]:
        rows.nth(i).locator(".tick").check()
    tab.click("#compare-button")
    tab.wait_for_selector("#replay-panes .pane >> nth=1")
    fits("compare")
    tab.close()


def test_the_form_counts_against_the_policy_and_shows_templates_and_titles(page):
    start_episode(page, "ticket/generated")
    title = page.evaluate("state.obs.title")
    assert page.locator("#mail-list tbody tr td").nth(1).inner_text() == title  # not "Hi,"
    page.select_option("#action-type", "draft_reply")
    page.fill("#field-value", "Thanks for writing in.")
    assert page.inner_text("#field-value-count") == "4 words: under the policy's 20"
    start_episode(page, "triage/easy")
    page.fill("#field-summary", "x" * 300)
    assert page.inner_text("#field-summary-count").startswith("300 of 280 characters: over")
    start_episode(page, "inbox/medium_billing_bug_mix")
    page.select_option("#action-type", "respond_ticket")
    templates = page.evaluate("state.obs.vocabulary.templates")
    first = next(iter(templates))
    option = page.locator(f"#field-response_template option[value='{first}']").inner_text()
    assert option.startswith(f"{first}: {templates[first][:20]}")
    page.select_option("#field-response_template", first)
    assert page.inner_text("#template-preview") == templates[first]


def test_handled_mail_shows_what_was_decided_and_runs_links_say_which_episode(page):
    start_episode(page, "inbox/medium_billing_bug_mix")
    act(page, "classify_ticket", ticket_id="T-210", priority="high", queue="billing")
    page.locator("#mail-list tbody tr[data-id='T-210']").click()
    decided = page.locator("#reading-pane .decision")
    assert "Priority" in decided.inner_text() and "high" in decided.inner_text()
    assert "billing" in decided.inner_text()
    page.goto(page.url.split("#")[0] + "#/runs")
    page.wait_for_selector("#runs-table tbody tr")
    names = page.eval_on_selector_all(
        "#runs-table a", "links => links.map(a => a.getAttribute('aria-label'))"
    )
    assert len(names) > 1 and len(set(names)) == len(names)
    assert all(n.startswith("Replay ") and " seed " in n for n in names)


def test_play_keeps_a_transcript_and_chart_and_marks_a_refused_field(page, url):
    start_episode(page, "inbox/medium_billing_bug_mix")
    act(page, "classify_ticket", ticket_id="T-210", priority="high", queue="billing")
    act(page, "classify_ticket", ticket_id="T-211", priority="medium", queue="technical")
    rows = page.eval_on_selector_all(
        "#transcript-table tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent))"
    )
    assert [r[0] for r in rows] == ["1", "2"] and "priority=high" in rows[0][1]
    assert page.locator("#transcript-chart svg rect").count() == 2
    assert page.locator("#transcript-chart svg polyline").count() == 1
    truth = grader(url, session_id(page))
    assert float(rows[-1][4]) == pytest.approx(truth["score"], abs=1e-3)
    # Each step's penalty is shown: together they are the grader's penalties.
    assert sum(float(r[3]) for r in rows) == pytest.approx(truth["penalties"], abs=1e-3)
    assert truth["penalties"] > 0
    page.reload()  # the transcript comes back with the episode
    page.wait_for_selector("body[data-ready='yes']")
    page.wait_for_function("document.querySelectorAll('#transcript-table tbody tr').length === 2")
    # A refused action (a full queue is offered no more; an unknown id is typed by hand).
    page.select_option("#action-type", "classify_ticket")
    page.evaluate("""() => { const s = document.querySelector('#field-ticket_id');
        s.append(new Option('T-999', 'T-999')); s.value = 'T-999'; }""")
    page.select_option("#field-priority", "low")
    page.focus("#act-button")
    page.keyboard.press("Enter")
    page.wait_for_selector("#field-ticket_id[aria-invalid='true']")
    assert page.evaluate("document.activeElement.id") == "field-ticket_id"


def test_compare_marks_each_differing_field_and_the_grade_delta_per_component(page):
    chosen = heuristic_and_edited_seed0(page)
    rows = page.locator("#runs-table tbody tr")
    for i in chosen:
        rows.nth(i).locator(".tick").check()
    page.click("#compare-button")
    page.wait_for_selector("#first-difference")
    page.keyboard.press("ArrowRight")  # step 3: the edited record's priority differs
    for pane in range(2):
        marked = page.locator(".pane").nth(pane).locator("dd.field-differs")
        shown = marked.inner_text()
        assert marked.count() == 1 and shown in ("mega", "low", "urgent", "high", "medium")
    deltas = page.locator(".pane").nth(0).locator(".grade-table td.delta")
    assert deltas.count() >= 3
    texts = deltas.all_inner_texts()
    assert all(t == "=" or t[0] in "+−" for t in texts)
    mine = page.locator(".pane").nth(0).locator(".replay-grade").inner_text()
    theirs = page.locator(".pane").nth(1).locator(".replay-grade").inner_text()
    shown = page.locator(".pane").nth(0).locator("h4 .delta").inner_text()
    expected = float(mine) - float(theirs)
    if "=" in shown:
        assert abs(expected) < 0.0015
    else:  # the difference of the grades, each shown to three places
        number = float(shown.split("(")[1].split()[0].replace("−", "-").lstrip("+"))
        assert number == pytest.approx(expected, abs=0.0011)


def test_the_runs_list_sorts_by_any_column(page):
    page.goto(page.url.split("#")[0] + "#/runs")
    page.wait_for_selector("#runs-table tbody tr")

    def column(i: int) -> list[str]:
        return page.eval_on_selector_all(
            "#runs-table tbody tr", f"rs => rs.map(r => r.cells[{i}].textContent)"
        )

    page.click("#runs-table th[data-sort='grade'] button")
    grades = [float(g) for g in column(6)]
    assert grades == sorted(grades)
    assert page.get_attribute("#runs-table th[data-sort='grade']", "aria-sort") == "ascending"
    page.click("#runs-table th[data-sort='grade'] button")
    assert [float(g) for g in column(6)] == sorted(grades, reverse=True)
    page.click("#runs-table th[data-sort='agent'] button")
    assert column(2) == sorted(column(2))


def test_keys_act_and_moves_are_announced(page):
    start_episode(page, "ticket/generated")
    page.focus("#mail-list")
    page.keyboard.press("j")
    assert page.inner_text("#announce").startswith("Mail 1 of 1:")
    page.keyboard.press("r")
    assert page.input_value("#action-type") == "draft_reply"
    assert page.evaluate("document.activeElement.id") == "field-value"
    page.keyboard.type("r")  # typing in the reply is typing, not a key to act
    assert page.input_value("#field-value") == "r"
    page.focus("#mail-list")
    page.keyboard.press("e")
    assert page.evaluate("document.activeElement.id") == "action-type"


def test_the_inbox_sorts_by_sla_deadline(page):
    start_episode(page, "inbox/medium_billing_bug_mix")
    page.click("#sort-sla")
    left = page.eval_on_selector_all(
        "#mail-list tbody tr", "rs => rs.map(r => r.cells[3].dataset.minutes)"
    )
    minutes = [int(t) for t in left if t is not None]
    assert minutes and minutes == sorted(minutes)
    assert page.get_attribute("#sort-sla", "aria-pressed") == "true"
    chosen = page.get_attribute("#mail-list tbody tr.selected", "data-id")
    act(page, "classify_ticket", ticket_id=chosen, priority="high", queue="billing")
    assert steps_taken(page) == 1  # the id fields still follow the sorted selection


def test_starting_another_episode_mid_episode_asks_first(page, url):
    start_episode(page, "inbox/medium_billing_bug_mix")
    act(page, "classify_ticket", ticket_id="T-210", priority="high", queue="billing")
    session = session_id(page)
    page.select_option("#setup-mode", "triage")
    page.select_option("#setup-task", "triage/easy")
    page.click("#start-button")
    page.wait_for_selector("#replace-confirm:not([hidden])")
    assert "step 1 of" in page.inner_text("#replace-text")
    page.click("#replace-no")  # keep playing: nothing was replaced
    assert page.is_hidden("#replace-confirm")
    assert grader(url, session)["task_id"] == "inbox/medium_billing_bug_mix"
    assert steps_taken(page) == 1
    start_episode(page, "triage/easy")  # says yes this time
    assert grader(url, session)["task_id"] == "triage/easy" and steps_taken(page) == 0
    first = page.evaluate("state.obs.task_id + state.obs.title")
    before = answers_seen(page)
    page.select_option("#setup-mode", "inbox")
    page.select_option("#setup-task", "inbox/easy_password_reset")
    page.click("#start-button")  # nothing played yet: nothing to lose, nothing asked
    wait_answer(page, before)
    assert page.is_hidden("#replace-confirm")
    assert grader(url, session)["task_id"] == "inbox/easy_password_reset"
    assert page.evaluate("state.obs.task_id + state.obs.title") != first


def test_typing_keeps_the_session_and_an_idle_one_is_said_truthfully_and_recovered(browser):
    with running_server("--idle-timeout", "3") as short:
        tab = open_console(browser, short)
        try:
            start_episode(tab, "ticket/generated")
            status = tab.locator("#status-bar")
            assert "closes after 3 s with nothing done, typed or read" in status.inner_text()
            act(tab, "set_priority", value="high")
            session = session_id(tab)
            # Writing a reply is using the session: typing for longer than the idle timeout
            # keeps it open (the page tells the server while the player is active).
            tab.select_option("#action-type", "draft_reply")
            tab.focus("#field-value")
            for _ in range(18):  # 3.6 s
                tab.keyboard.type("w ")
                tab.wait_for_timeout(200)
            alive = httpx.get(f"{short}/state", headers={"X-Session-Id": session})
            assert alive.status_code == 200 and "closed" not in status.inner_text()
            # Left alone, it is warned of, then closed: said with why, the episode offered back.
            tab.wait_for_function(
                "document.querySelector('#status-bar').textContent.includes('closes in')"
            )
            tab.wait_for_function(
                "document.querySelector('#status-bar').textContent.includes('closed')",
                timeout=15_000,
            )
            assert tab.is_disabled("#act-button") and tab.is_disabled("#action-type")
            assert tab.is_visible("#action-closed")
            said = tab.inner_text("#notice")
            assert "session was closed" in said and "past the server's idle timeout of 3 s" in said
            assert session_id(tab) == "none yet" and tab.is_visible("#recover-offer")
            before = answers_seen(tab)
            tab.click("#recover-yes")
            wait_answer(tab, before)
            assert tab.inner_text("#notice").startswith("Episode recovered.")
            assert session_id(tab) not in (session, "none yet") and steps_taken(tab) == 1
            assert tab.is_enabled("#act-button") and tab.is_hidden("#recover-offer")
            assert tab.input_value("#field-value").startswith("w w w")  # the draft is kept
            assert tab.console_errors == []
        finally:
            tab.close()


def test_a_bad_replay_address_clears_the_last_replay(page, runs):
    page.goto(page.url.split("#")[0] + "#/runs")
    page.wait_for_selector("#runs-table tbody tr")
    page.locator("#runs-table tbody a").first.click()
    page.wait_for_selector("#replay-panes .pane")
    assert page.locator("#replay-strip .cell").count() > 0
    page.evaluate("location.hash = '#/replay/no-such-run/nothing'")
    page.wait_for_selector("#replay-panes .refused")
    assert "Cannot replay: the run is not a run this server shows" in page.inner_text(
        "#replay-panes"
    )
    assert page.inner_text("#replay-banner").strip() == ""
    assert page.locator("#replay-strip .cell").count() == 0
    assert page.locator("#replay-transcripts tr").count() == 0
    assert page.is_disabled("#replay-forward") and page.inner_text("#replay-total") == "0"


def test_replay_has_the_whole_transcript_with_penalties_and_a_chart(page, runs):
    from inbox_triage.evaluation.records import read_records

    heuristic_runs_listed(page)
    seed = int(page.locator("#runs-table tbody tr").first.locator("td").nth(4).inner_text())
    page.locator("#runs-table tbody a").first.click()
    page.wait_for_selector("#replay-transcripts tbody tr")
    record = next(r for r in read_records(runs / "heuristic-run") if r.seed == seed)
    rows = page.eval_on_selector_all(
        "#replay-transcripts tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent))"
    )
    assert len(rows) == record.steps
    assert [float(r[2]) for r in rows] == pytest.approx(
        [s.reward for s in record.trajectory], abs=1e-4
    )
    assert float(rows[-1][4]) == pytest.approx(record.grade, abs=1e-3)
    # rewards add up to the grade less the penalties, so the penalty column is what is left
    assert sum(float(r[3]) for r in rows) == pytest.approx(
        record.grade - record.total_reward, abs=2e-3
    )
    assert page.locator("#replay-transcripts svg rect").count() == record.steps
    assert page.locator("#replay-transcripts svg polyline").count() == 1
    # The status bar's step budget and the replay's step count no longer read alike.
    assert "used of" in page.inner_text(".pane .status-bar")
    page.locator("#replay-transcripts tbody tr").nth(2).locator("button").click()
    assert page.input_value("#replay-step") == "3"
    assert page.locator("#replay-transcripts tr.here").get_attribute("data-step") == "3"


def test_an_empty_grade_range_is_refused_with_the_field_marked(page):
    page.goto(page.url.split("#")[0] + "#/runs")
    page.wait_for_selector("#runs-table tbody tr")
    page.fill("#filter-min", "0.9")
    page.fill("#filter-max", "0.1")
    page.click("#filter-button")
    page.wait_for_selector("#filter-min[aria-invalid='true']")
    assert "“Grade from” must be at most “Grade to”" in page.inner_text("#notice")
    assert page.evaluate("document.activeElement.id") == "filter-min"
    assert page.locator("#runs-table tbody tr").count() == 0
    assert "refused" in page.inner_text("#runs-count")


@pytest.mark.parametrize("width", [390, 1400])
def test_status_bar_labels_stay_beside_their_values(browser, url, width):
    tab = browser.new_page(viewport={"width": width, "height": 844})
    tab.goto(f"{url}/web/#/play")
    tab.wait_for_selector("body[data-ready='yes']")
    start_episode(tab, "inbox/medium_billing_bug_mix")
    pairs = tab.eval_on_selector_all(
        "#status-bar dt",
        """dts => dts.map(dt => {
            const dd = dt.nextElementSibling.getBoundingClientRect();
            const box = dt.getBoundingClientRect();
            return [dt.textContent, box.top, dd.top, box.right <= dd.left]; })""",
    )
    assert len(pairs) >= 5
    for label, dt_top, dd_top, before in pairs:
        assert abs(dt_top - dd_top) < 4 and before, f"{label} is apart from its value"
    tab.close()


def test_slash_searches_the_inbox_and_escape_brings_every_mail_back(page):
    start_episode(page, "inbox/medium_billing_bug_mix")
    subjects = page.eval_on_selector_all(
        "#mail-list tbody tr", "rs => rs.map(r => r.cells[1].textContent)"
    )
    word = subjects[1].split()[0]
    page.focus("#mail-list")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "mail-search"
    page.keyboard.type(word)
    shown = page.eval_on_selector_all(
        "#mail-list tbody tr", "rs => rs.map(r => r.cells[1].textContent)"
    )
    assert shown and len(shown) < len(subjects)
    assert "mails match" in page.inner_text("#announce")
    # the id field still offers every open ticket, whatever the list shows
    page.select_option("#action-type", "classify_ticket")
    offered = page.eval_on_selector_all(
        "#field-ticket_id option:not([value=''])", "os => os.map(o => o.value)"
    )
    assert len(offered) == len(subjects)
    page.fill("#mail-search", "zzzz-no-such-words")
    assert "No mail matches" in page.inner_text("#mail-list tbody")
    page.focus("#mail-search")
    page.keyboard.press("Escape")
    assert page.locator("#mail-list tbody tr").count() == len(subjects)
    assert page.evaluate("document.activeElement.id") == "mail-list"


def test_length_refusals_read_alike_name_the_field_and_labels_follow_the_policy(page):
    start_episode(page, "triage/easy")
    assert page.inner_text("label:has(#field-summary)").startswith(
        "summary (graded: the policy asks for one)"
    )
    decision = {"priority": "medium", "category": "general_inquiry", "route_to": "support_tier1"}
    act(page, "triage_email", **decision, summary="s" * 300)  # the policy's 280: the server
    assert "Refused: summary may be at most 280 characters (it has 300)" in page.inner_text(
        "#step-result"
    )
    assert page.evaluate("document.activeElement.id") == "field-summary"
    assert page.get_attribute("#field-summary", "aria-invalid") == "true"
    act(page, "triage_email", **decision, summary="Fine.", reply_draft="r" * 8001)  # the page
    assert "Refused: reply_draft may be at most 8000 characters (it has 8001)" in page.inner_text(
        "#step-result"
    )
    assert page.evaluate("document.activeElement.id") == "field-reply_draft"
    # the server's refusal used a step (as on every route); the page's own, before sending, none
    assert steps_taken(page) == 1


def filter_once(page) -> None:
    """Presses Filter and waits until the list's answer is shown."""
    before = answers_seen(page)
    page.click("#filter-button")
    wait_answer(page, before)


def test_a_run_added_while_the_server_runs_appears_in_the_list(page, runs):
    import shutil

    page.goto(page.url.split("#")[0] + "#/runs")
    page.wait_for_selector("#runs-table tbody tr")
    assert "late-run" not in page.inner_text("#filter-run")
    shutil.copytree(runs / "heuristic-run", runs / "late-run")
    try:
        for _ in range(50):  # the server looks at its folder again every 2 s at most
            filter_once(page)
            if "late-run" in page.inner_text("#filter-run"):
                break
            page.wait_for_timeout(200)
        assert "late-run" in page.inner_text("#filter-run")
        page.select_option("#filter-run", "late-run")
        page.click("#filter-button")
        page.wait_for_function(
            "[...document.querySelectorAll('#runs-table tbody tr')]"
            ".every(r => r.cells[1].textContent === 'late-run')"
        )
        assert page.locator("#runs-table tbody tr").count() == 2
    finally:
        shutil.rmtree(runs / "late-run")
    for _ in range(50):  # one that goes away leaves the list, even while it is the filter
        page.wait_for_timeout(200)
        filter_once(page)
        if "late-run" not in page.inner_text("#filter-run"):
            break
    assert "late-run" not in page.inner_text("#filter-run")
    assert "run is not a run this server shows" in page.inner_text("#notice")


def test_a_replay_answer_that_comes_late_or_a_malformed_address_leaves_no_stale_view(page):
    heuristic_runs_listed(page)
    href = page.locator("#runs-table tbody a").first.get_attribute("href")
    # Asked for, then left at once for an address that names no episode: the late answer
    # must not draw its panes under the new address.
    page.evaluate(f"location.hash = '{href}'; setTimeout(() => location.hash = '#/replay/x', 0)")
    page.wait_for_selector("#replay-panes .refused")
    page.wait_for_load_state("networkidle")
    assert page.locator("#replay-panes .pane").count() == 0
    assert page.locator("#replay-strip .cell").count() == 0
    assert "names no episode" in page.inner_text("#replay-panes")
    page.goto(page.url.split("#")[0] + href)  # a real one, then one that does not decode
    page.wait_for_selector("#replay-panes .pane")
    page.evaluate("location.hash = '#/replay/%E0%A4/x'")
    page.wait_for_selector("#replay-panes .refused")
    assert "not a well-formed address" in page.inner_text("#replay-panes")
    assert page.locator("#replay-strip .cell").count() == 0  # (and nothing was thrown)


def test_counts_are_in_characters_and_browsing_runs_does_not_hide_an_idle_session(page):
    start_episode(page, "triage/easy")
    page.fill("#field-summary", "Café ✓ 😀😀")  # two characters the page once counted as four
    assert page.inner_text("#field-summary-count").startswith("9 of 280 characters")
    used = page.evaluate("state.lastUsed")
    page.goto(page.url.split("#")[0] + "#/runs")
    page.wait_for_selector("#runs-table tbody tr")
    filter_once(page)
    # Browsing the runs does not touch the session on the server, so it must not restart the
    # page's idle count either (else a gone session would look open on coming back).
    assert page.evaluate("state.lastUsed") == used


def test_the_inbox_says_what_the_records_know_of_each_sender(page):
    """Generator v3 shows no sender's role: a customer's tier, a colleague, a known vendor, or
    "not in our records" (issue 29)."""
    start_episode(page, "triage/generated", seed=3, difficulty="hard")
    tiers = page.eval_on_selector_all(
        "#mail-list tbody tr", "rs => rs.map(r => r.innerText.toLowerCase())"
    )
    assert any("not in our records" in row for row in tiers)
    for word in ("scammer", "press", "lawyer", "prospect", "public body"):
        assert not any(word in row for row in tiers), (word, tiers)


def test_a_sealed_server_offers_no_seed_and_withholds_the_grade_until_the_end(browser):
    with running_server("--sealed", "--max-sessions", "4") as sealed:
        page = open_console(browser, sealed)
        page.set_default_timeout(15_000)
        assert not page.is_visible("#setup-seed")
        tasks = page.eval_on_selector_all("#setup-task option", "os => os.map(o => o.value)")
        assert tasks and all(t.endswith("/generated") for t in tasks)  # no public fixed task
        page.select_option("#setup-mode", "ticket")
        answers = answers_seen(page)
        page.click("#start-button")
        wait_answer(page, answers)
        act(page, "set_priority", value="high")
        assert page.inner_text("#grade-value").strip() == "—"
        assert "withheld until it ends" in page.inner_text("#grade-note")
        assert page.console_errors == []
        page.close()


# ---- issue 31, item 6: a console that never loses work ----


def server_steps(url: str, session: str) -> int:
    return httpx.get(f"{url}/state", headers={"X-Session-Id": session}).json()["step_count"]


def test_a_double_click_takes_one_step_and_ctrl_enter_sends_the_form(page, url):
    start_episode(page, "inbox/medium_billing_bug_mix")
    page.select_option("#action-type", "classify_ticket")
    page.select_option("#field-ticket_id", "T-210")
    page.select_option("#field-priority", "high")
    before = answers_seen(page)
    page.dblclick("#act-button")
    wait_answer(page, before)
    page.wait_for_load_state("networkidle")  # a second step, had one been sent, is answered
    assert server_steps(url, session_id(page)) == 1 and steps_taken(page) == 1
    assert page.locator("#transcript-table tbody tr").count() == 1
    assert page.is_enabled("#act-button")  # unlocked once the answer is in
    assert "Ctrl+Enter" in page.get_attribute("#act-button", "title")
    page.select_option("#field-ticket_id", "T-211")
    page.select_option("#field-priority", "medium")
    before = answers_seen(page)
    page.focus("#field-priority")
    page.keyboard.press("Control+Enter")
    wait_answer(page, before)
    assert server_steps(url, session_id(page)) == 2
    rows = page.eval_on_selector_all(
        "#transcript-table tbody tr", "rs => rs.map(r => r.cells[0].textContent)"
    )
    assert rows == ["1", "2"]


def test_a_closed_tabs_episode_is_offered_back_in_a_new_tab_with_the_same_state(browser, url):
    context = browser.new_context(viewport=SCREEN)
    try:
        first = open_console(context, url)
        start_episode(first, "inbox/medium_billing_bug_mix", seed=2)
        act(first, "classify_ticket", ticket_id="T-210", priority="high", queue="billing")
        act(first, "classify_ticket", ticket_id="T-210", priority="high", queue="billing")
        gone = session_id(first)
        before = grader(url, gone)
        first.close(run_before_unload=True)
        second = open_console(context, url)
        offer = second.locator("#recover-offer")
        assert offer.is_visible()
        assert "closed or left" in offer.inner_text() and "2 actions" in offer.inner_text()
        assert "seed 2" in offer.inner_text()
        answers = answers_seen(second)
        second.click("#recover-yes")
        wait_answer(second, answers)
        assert second.inner_text("#notice").startswith("Episode recovered.")
        again = session_id(second)
        assert again != gone and steps_taken(second) == 2
        after = grader(url, again)
        assert after["task_id"] == before["task_id"] and after["score"] == before["score"]
        assert after["penalties"] == before["penalties"] > 0  # the repeat's penalty, too
        assert second.locator("#transcript-table tbody tr").count() == 2
        assert second.input_value("#setup-task") == "inbox/medium_billing_bug_mix"
        assert second.input_value("#setup-seed") == "2"
        second.reload()  # taken back: nothing is offered again
        second.wait_for_selector("body[data-ready='yes']")
        assert second.is_hidden("#recover-offer") and session_id(second) == again
        assert first.console_errors == [] and second.console_errors == []
    finally:
        context.close()


def test_after_a_step_the_reading_pane_opens_the_mail_marked_current(page):
    start_episode(page, "triage/easy")
    assert page.evaluate("state.obs.current_email.email_id") == "e004"  # not first in the list
    act(page, "triage_email", email_id="e004", **TIER1, summary="Routine; routed to tier one.")
    current = page.evaluate("state.obs.current_email.email_id")
    first_waiting = page.eval_on_selector_all(
        "#mail-list tbody tr.state-waiting", "rs => rs.map(r => r.dataset.id)"
    )[0]
    assert current != first_waiting  # (else this would prove nothing)
    chosen = page.locator("#mail-list tbody tr.selected")
    assert chosen.get_attribute("data-id") == current
    assert "state-current" in chosen.get_attribute("class")
    subject = page.evaluate("state.obs.current_email.subject")
    assert page.inner_text("#reading-pane h4") == subject


def test_unread_and_new_reply_markers_and_your_own_requests_shown_whole(page):
    start_episode(page, "inbox/medium_billing_bug_mix")
    row = page.locator("#mail-list tbody tr[data-id='T-211']")
    assert "unread" in row.get_attribute("class") and "unread" in row.inner_text()
    assert "unread" not in page.locator("#mail-list tbody tr.selected").get_attribute("class")
    row.click()  # opened: read
    page.locator("#mail-list tbody tr[data-id='T-212']").click()
    assert "unread" not in row.get_attribute("class")
    ask = (
        "Which browser and version do you use, and could you send a screenshot of the export "
        "dialog with the report name visible? That tells us which exporter drops the row."
    )
    act(page, "request_info", ticket_id="T-211", value=ask)
    for _ in range(8):  # the customer answers a few minutes later
        if page.evaluate(
            "state.obs.tickets.find(t => t.ticket_id === 'T-211').customer_messages.length"
        ):
            break
        act(page, "classify_ticket", ticket_id="T-212", priority="low")
    assert "new-reply" in row.get_attribute("class") and "new reply" in row.inner_text()
    row.click()
    pane = page.inner_text("#reading-pane")
    assert "The customer's answers" in pane and "new-reply" not in row.get_attribute("class")
    assert ask in pane and "Information requested" in pane  # whole, not cut at 60 characters


def test_a_negative_reward_says_why_beside_it_and_in_the_transcript(page):
    start_episode(page, "inbox/medium_billing_bug_mix")
    for _ in range(2):  # the same action twice: the second is a repeat, penalised
        act(page, "classify_ticket", ticket_id="T-210", priority="high", queue="billing")
    assert float(page.inner_text("#last-reward")) < 0
    assert "repeat" in page.inner_text("#last-why") and "same arguments" in page.inner_text(
        "#last-why"
    )
    why = page.eval_on_selector_all(
        "#transcript-table tbody tr td.why", "ts => ts.map(t => t.textContent)"
    )
    assert why[0] == "" and why[1].startswith("repeat: classify_ticket repeated")
    act(page, "request_info", ticket_id="T-210", value="Could you send the two invoice numbers?")
    assert float(page.inner_text("#last-reward")) < 0  # a needless request: the grade falls
    last = page.locator("#transcript-table tbody tr td.why").nth(2).inner_text()
    assert "the grade's info_request fell from 0.00 to -1.00" in last, last
    assert "Why" in page.inner_text("#transcript-table thead")


def test_the_replay_step_is_in_the_address_and_a_step_that_is_none_is_said(page):
    heuristic_runs_listed(page)
    href = page.locator("#runs-table tbody a").first.get_attribute("href")
    base = page.url.split("#")[0]
    page.goto(f"{base}{href}?step=2")
    page.wait_for_selector("#replay-panes .pane")
    assert page.input_value("#replay-step") == "2" and "Step 2" in page.inner_text(".pane h4")
    page.keyboard.press("ArrowRight")
    assert page.url.endswith("?step=3")
    page.reload()  # the address brings it back to step 3
    page.wait_for_selector("#replay-panes .pane")
    assert page.input_value("#replay-step") == "3" and "Step 3" in page.inner_text(".pane h4")
    page.fill("#replay-step", "2.5")
    page.press("#replay-step", "Enter")
    error = page.locator("#replay-step-error")
    assert error.is_visible() and "a step is a whole number from 0 to" in error.inner_text()
    assert "Step 3" in page.inner_text(".pane h4")  # it stays where it was
    page.fill("#replay-step", "1")
    page.press("#replay-step", "Enter")
    assert error.is_hidden() and page.url.endswith("?step=1")
    page.goto(f"{base}{href}?step=999")
    page.wait_for_selector("#replay-step-error:not([hidden])")
    assert 'The address asks for step "999"' in page.inner_text("#replay-step-error")
    assert "Before the first step" in page.inner_text(".pane")
    # A disabled button looks disabled (the outlined kind too), beside an enabled one.
    style = "n => [getComputedStyle(n).color, getComputedStyle(n).cursor]"
    first, forward = (page.eval_on_selector(f"#replay-{b}", style) for b in ("first", "forward"))
    assert page.is_disabled("#replay-first") and page.is_enabled("#replay-forward")
    assert first[1] == "not-allowed" and forward[1] == "pointer" and first[0] != forward[0]


def test_a_replay_of_a_record_without_trajectory_says_so_plainly(page, url):
    episodes = httpx.get(f"{url}/web/api/episodes", params={"run": "zz-bare-run"}).json()
    key = quote(episodes["episodes"][0]["key"], safe="")
    page.goto(page.url.split("#")[0] + f"#/replay/zz-bare-run/{key}")
    page.wait_for_selector("#replay-panes .refused")
    said = page.inner_text("#replay-panes")
    assert "cannot be replayed: the run kept no trajectory" in said and "undefined" not in said
    assert page.locator("#replay-panes .pane").count() == 0 and page.is_disabled("#replay-forward")


def test_the_inbox_sort_of_play_stays_out_of_replay(page):
    start_episode(page, "triage/easy")
    page.click("#sort-sla")  # play's inbox sorted by SLA
    heuristic_runs_listed(page)
    page.locator("#runs-table tbody a").first.click()
    page.wait_for_selector("#replay-panes .pane")
    shown = page.eval_on_selector_all(
        ".pane .mail-list tbody tr", "rs => rs.map(r => r.dataset.id)"
    )
    inbox = page.evaluate("state.replay.a.start.inbox")
    arrival = [m["email_id"] for m in inbox]
    by_sla = [m["email_id"] for m in sorted(inbox, key=lambda m: m["sla_deadline"])]
    assert arrival != by_sla  # (else this would prove nothing)
    assert shown == arrival
    page.goto(page.url.split("#")[0] + "#/play")  # play keeps its own order
    assert page.get_attribute("#sort-sla", "aria-pressed") == "true"


def test_after_a_reload_the_setup_form_shows_the_task_played(page):
    default = page.input_value("#setup-task")
    start_episode(page, "triage/generated", seed=3, split="test", difficulty="hard")
    assert default != "triage/generated"  # (else this would prove nothing)
    page.reload()
    page.wait_for_selector("body[data-ready='yes']")
    assert page.input_value("#setup-mode") == "triage"
    assert page.input_value("#setup-task") == "triage/generated"
    assert page.input_value("#setup-split") == "test"
    assert page.input_value("#setup-difficulty") == "hard"
    assert page.input_value("#setup-seed") == "3" and page.is_visible("#setup-split")


def test_long_spans_of_time_read_as_days_and_hours(page):
    start_episode(page, "triage/hard")
    page.locator("#mail-list tbody tr[data-id='e210']").click()
    pane = page.inner_text("#reading-pane")
    assert "30 d before" in pane and "4 h before" in pane and "1 h 50 min before" in pane
    assert "43200" not in pane
    slas = page.eval_on_selector_all(
        "#mail-list tbody td[data-minutes]",
        "ts => ts.map(t => [+t.dataset.minutes, t.textContent])",
    )
    long = [(m, text) for m, text in slas if m >= 60]
    assert long and all(text.startswith(f"{m // 60} h") for m, text in long), slas


def test_refusals_name_fields_as_the_page_shows_them_in_plain_words(page, url):
    rows = httpx.get(f"{url}/web/api/episodes", params={"run": "heuristic-run"}).json()
    seed0, seed1 = (quote(r["key"], safe="") for r in rows["episodes"][:2])
    page.goto(page.url.split("#")[0] + f"#/compare/heuristic-run/{seed0}/heuristic-run/{seed1}")
    page.wait_for_selector("#replay-panes .refused")
    said = page.inner_text("#replay-panes .refused")
    assert said == (
        "Cannot compare: the second episode must be an episode of the same task and seed as "
        "the first episode"
    )
    words = page.evaluate(
        """async () => { const { humanError } = await import('/web/assets/state.js');
        return [humanError({field: 'flag_review',
                            message: 'Input should be a valid boolean, unable to interpret input'}),
                humanError({field: 'seed', message: 'seed must be a non-negative integer, not -1'}),
                humanError({field: 'size', message: 'size must be a whole number from 1 to 200'}),
                humanError({field: 'priority', message: 'is not an allowed value',
                            allowed: ['high', 'low']})]; }"""
    )
    assert words == [
        "flag_review must be true or false",
        "“Seed” must be a non-negative integer, not -1",
        "the knob “size” must be a whole number from 1 to 200",
        "priority is not an allowed value (allowed: high, low)",
    ]
