"""Drives the web console in headless Chromium (Debian's package) with Playwright.

Shared by the browser tests and by the README's screenshot command, which regenerates the
pictures in ``docs/``::

    .venv/bin/python tests/console_browser.py docs/
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
# Without the background-networking flags Chromium keeps dialling Google on this closed network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREEN = {"width": 1400, "height": 900}
BILLING = {"priority": "high", "category": "billing_inquiry", "route_to": "billing"}
TIER1 = {"priority": "medium", "category": "technical_support", "route_to": "support_tier1"}


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium browser (one per test module: starting one takes ~0.5 s)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def open_console(browser: Any, url: str, where: str = "#/play") -> Any:
    """A new tab on the console, once its script has loaded and its session is open. Given a
    browser context instead of a browser, the tab shares that context's storage."""
    if hasattr(browser, "new_context"):
        page = browser.new_page(viewport=SCREEN)
    else:  # a context: its viewport was set when it was made
        page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.console_errors = errors
    page.goto(f"{url}/web/{where}")
    page.wait_for_selector("body[data-ready='yes']")
    return page


def start_episode(page: Any, task: str, seed: int = 0, **setup: str) -> None:
    """Chooses the task in the setup form (keyboard and selects) and starts it, saying yes
    when the page asks before replacing an episode in progress."""
    mode = task.split("/", 1)[0]
    page.select_option("#setup-mode", mode)
    page.select_option("#setup-task", task)
    for name, value in setup.items():  # split, difficulty
        page.select_option(f"#setup-{name}", value)
    page.fill("#setup-seed", str(seed))
    answers = answers_seen(page)
    page.click("#start-button")
    wait_answer(page, answers)
    if page.is_visible("#replace-confirm"):
        answers = answers_seen(page)
        page.click("#replace-yes")
        wait_answer(page, answers)


def answers_seen(page: Any) -> int:
    return int(page.evaluate("Number(document.body.dataset.answers || 0)"))


def wait_answer(page: Any, before: int) -> None:
    page.wait_for_function(
        "n => Number(document.body.dataset.answers || 0) > n && !document.body.dataset.busy",
        arg=before,
    )


def session_id(page: Any) -> str:
    return page.inner_text("#session-id").strip()


def steps_taken(page: Any) -> int:
    return int(page.evaluate("state.obs.step_count"))


def act(page: Any, action_type: str | None = None, **fields: str) -> None:
    """Fills the action form (selects by value, text by typing) and submits it with Enter
    on the button, then waits for the step's answer."""
    before = answers_seen(page)
    if action_type is not None:
        page.select_option("#action-type", action_type)
    for name, value in fields.items():
        target = page.locator(f"#field-{name}")
        tag = target.evaluate("n => n.tagName")
        if tag == "SELECT":
            target.select_option(value)
        elif target.get_attribute("type") == "checkbox":
            target.set_checked(value == "true")
        else:
            target.fill(value)
    page.focus("#act-button")
    page.keyboard.press("Enter")
    wait_answer(page, before)


def play_triage_by_keys(page: Any, limit: int = 40) -> None:
    """Plays a triage inbox to its end: ``j`` and ``k`` through the list (the id field
    follows an open email, else stays on the current one), a decision from the form's own
    choices, submitted from the keyboard. A refused decision fails at once (no endless loop)."""
    for _ in range(limit):
        if page.evaluate("state.obs.done"):
            return
        page.focus("#mail-list")
        page.keyboard.press("j")
        page.keyboard.press("k")
        options = page.eval_on_selector_all(
            "#field-priority option:not([value='']), #field-category option:not([value='']),"
            " #field-route_to option:not([value='']):not([data-full])",
            "os => os.map(o => [o.parentElement.id, o.value])",
        )
        first: dict[str, str] = {}
        for field, value in options:
            first.setdefault(field.removeprefix("field-"), value)
        before = steps_taken(page)
        act(page, "triage_email", **first, summary="Customer asks for help; routed per the guide.")
        if steps_taken(page) != before + 1:
            raise AssertionError(f"a decision was refused: {page.inner_text('#step-result')}")
    raise AssertionError(f"the episode did not end in {limit} decisions")


def grade_shown(page: Any) -> dict[str, Any]:
    """The grade and components as the page shows them."""
    rows = page.eval_on_selector_all(
        "#grade-table tbody tr",
        "rs => rs.map(r => [r.dataset.component, ...[...r.cells].map(c => c.textContent)])",
    )
    return {
        "score": float(page.inner_text("#grade-value")),
        "components": {
            name: {"weight": float(w), "score": float(s), "explanation": e}
            for name, _, w, s, e in rows
        },
    }


def make_runs(folder: Path) -> list[Path]:
    """Two runs made by `inbox-triage eval`: two agents on one generated task and seeds."""
    out = []
    for name, agent in (("heuristic-run", "heuristic"), ("random-run", "random")):
        target = folder / name
        subprocess.run(
            [
                sys.executable,
                "-m",
                "inbox_triage.cli",
                "eval",
                "-a",
                agent,
                "-t",
                "triage/generated",
                "--episodes",
                "2",
                "--difficulty",
                "medium",
                "--out",
                str(target),
            ],
            check=True,
            capture_output=True,
        )
        out.append(target)
    return out


def _screenshot(page: Any, path: Path) -> None:
    """A PNG of the window, cut to 128 colours (Pillow comes with matplotlib): a third of
    the size, and the console's flat colours lose nothing."""
    from PIL import Image

    page.screenshot(path=str(path), full_page=False)
    with Image.open(path) as shot:
        small = shot.convert("RGB").quantize(colors=128)
    small.save(path, optimize=True)


def take_screenshots(url: str, out: Path, browser: Any) -> list[Path]:
    """The README's pictures: a generated inbox being played, its end with the final grade,
    a replay with its transcript and chart, and a side-by-side compare with its differences."""
    out.mkdir(parents=True, exist_ok=True)
    page = open_console(browser, url)
    start_episode(page, "triage/generated", seed=3, split="test", difficulty="hard")
    decisions = [
        (BILLING, "Asks about a charge on the statement; billing to review."),
        (TIER1, "Reports an error on the reports page; needs a fix."),
    ]
    for decision, summary in decisions:
        page.focus("#mail-list")
        page.keyboard.press("j")
        page.keyboard.press("k")
        act(page, "triage_email", **decision, summary=summary)
    page.focus("#mail-list")
    page.keyboard.press("j")
    play = out / "console-play.png"
    _screenshot(page, play)
    play_triage_by_keys(page)  # to the end: the final grade comes into view
    final = out / "console-final.png"
    _screenshot(page, final)
    page.goto(f"{url}/web/#/runs")
    page.wait_for_selector("#runs-table tbody tr")
    page.select_option("#filter-task", "triage/generated")
    page.click("#filter-button")
    boxes = page.locator("#runs-table tbody tr")
    seeds = [boxes.nth(i).locator("td").nth(4).inner_text() for i in range(boxes.count())]
    first = [i for i, s in enumerate(seeds) if s == seeds[0]][:2]
    for i in first:
        boxes.nth(i).locator(".tick").check()
    page.click("#compare-button")
    page.wait_for_selector("#first-difference")
    page.keyboard.press("ArrowRight")
    page.evaluate("document.querySelector('.pane .action-box.differs').scrollIntoView()")
    compare = out / "console-compare.png"
    _screenshot(page, compare)
    page.goto(f"{url}/web/#/runs")  # the first of the two, alone
    page.wait_for_selector("#runs-table tbody tr")
    href = boxes.nth(first[0]).locator("a").get_attribute("href")
    page.goto(f"{url}/web/{href}")
    page.wait_for_selector("#replay-transcripts tbody tr")
    page.keyboard.press("End")
    page.evaluate("document.querySelector('#replay-transcripts').scrollIntoView()")
    replay = out / "console-replay.png"
    _screenshot(page, replay)
    page.close()
    return [play, final, replay, compare]


def main(argv: list[str]) -> None:
    from live_server import running_server

    out = Path(argv[0] if argv else "docs")
    with tempfile.TemporaryDirectory() as tmp:
        runs = make_runs(Path(tmp))
        args = [a for r in runs for a in ("--runs", str(r))]
        with running_server(*args) as url, chromium() as browser:
            for path in take_screenshots(url, out, browser):
                print(f"wrote {path} ({path.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main(sys.argv[1:])
