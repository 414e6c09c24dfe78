"""The web console's server side: its pages, its JSON API, the replays and the run library."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from importlib.resources import files
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from inbox_triage.evaluation.records import EPISODES_FILE, read_records
from inbox_triage.evaluation.replay import first_difference, replay_record
from inbox_triage.evaluation.runs import RunConfig, run
from inbox_triage.server.app import build_app
from inbox_triage.server.console import ASSETS
from inbox_triage.server.run_library import RunFolderError, RunLibrary


def edit_record(source: Path, target: Path, seed: int, step: int, **action: object) -> None:
    """Copies a run, changing one episode's action at ``step`` (its recorded rewards kept)."""
    target.mkdir(parents=True)
    lines = (source / EPISODES_FILE).read_text().splitlines()
    out = []
    for line in lines:
        data = json.loads(line)
        if data["seed"] == seed:
            data["trajectory"][step - 1]["action"].update(action)
        out.append(json.dumps(data))
    (target / EPISODES_FILE).write_text("\n".join(out) + "\n")


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    """A folder of runs: heuristic and random on a generated triage task and a fixed inbox
    task, a hand-edited copy, and one run kept without trajectories."""
    root = tmp_path_factory.mktemp("runs")
    tasks = ["triage/generated", "inbox/medium_billing_bug_mix"]
    run(RunConfig(agents=["heuristic", "random"], tasks=tasks, episodes=2), root / "both")
    run(
        RunConfig(agents=["heuristic"], tasks=tasks, episodes=1, keep_trajectory=False),
        root / "bare",
    )
    # a priority the inbox does not have: refused, whatever the episode's own was
    edit_record(root / "both", root / "edited", seed=0, step=3, priority="mega")
    return root


@pytest.fixture(scope="module")
def client(runs) -> TestClient:
    return TestClient(build_app(max_sessions=8, runs=RunLibrary.from_folders([runs])))


def key_of(client, run: str, agent: str, task: str, seed: int) -> str:
    rows = client.get("/web/api/episodes", params={"run": run, "agent": agent, "task": task})
    return next(r["key"] for r in rows.json()["episodes"] if r["seed"] == seed)


# ------------------------------------------------------------------ pages


def test_root_redirects_to_the_console_and_web_serves_it(client):
    answer = client.get("/", follow_redirects=False)
    assert answer.status_code == 307 and answer.headers["location"] == "/web/"
    for path in ("/web", "/web/"):
        page = client.get(path)
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        # The page loads one ES module; it imports the rest.
        scripts = re.findall(r"<script\b[^>]*>", page.text)
        assert scripts == ['<script type="module" src="/web/assets/main.js">']


def test_the_console_fetches_nothing_from_elsewhere():
    """Offline: every file is ours and names no other host (no CDN, no web fonts)."""
    for name, body in ASSETS.items():
        text = body.decode()
        assert not re.search(r"(src|href)\s*=\s*[\"'](https?:)?//", text), name
        assert "@import" not in text and 'fetch("http' not in text, name
        assert not re.search(r"url\(\s*[\"']?(https?:)?//", text), name
    # The script is ES modules importing one another by name only: each module imported is
    # served, each one served is reached from main.js, and none is loaded at run time.
    modules = {name: body.decode() for name, body in ASSETS.items() if name.endswith(".js")}
    reached, todo = set(), ["main.js"]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        assert not re.search(r"\bimport\s*\(", modules[name]), name
        imported = sibling_imports(modules[name])
        assert imported <= set(modules), (name, imported - set(modules))
        todo.extend(imported)
    assert reached == set(modules)


def sibling_imports(text: str) -> set[str]:
    """The modules a console module imports: each import is one line naming a sibling file."""
    lines = [line for line in text.splitlines() if re.match(r"\s*(import|export .* from)\b", line)]
    named = [re.fullmatch(r'import \{[\w$, ]+\} from "\./([\w-]+\.js)";', line) for line in lines]
    assert all(named), lines
    return {m.group(1) for m in named if m}


def test_assets_are_served_by_name_only(client):
    web = files("inbox_triage.server") / "web"
    shipped = sorted(f.name for f in web.iterdir() if f.is_file() and f.name != "index.html")
    assert shipped == sorted(set(ASSETS) - {"index.html"})  # each file shipped is served
    kinds = {".css": "text/css", ".js": "text/javascript"}  # a module needs a JS type
    for name in shipped:
        answer = client.get(f"/web/assets/{name}")
        assert answer.status_code == 200 and answer.content == (web / name).read_bytes(), name
        assert answer.headers["content-type"].startswith(kinds[Path(name).suffix]), name
    for bad in ("nope.js", "console.js", "index.html", "console.py", "__init__.py"):
        answer = client.get(f"/web/assets/{bad}")
        assert answer.status_code == 404, bad
        assert answer.json()["error"]["field"] == "asset"
        assert answer.json()["error"]["allowed"] == shipped
    for bad in ("..%2Fapp.py", "%2e%2e%2fconsole.py", "../app.py"):
        answer = client.get(f"/web/assets/{bad}")
        assert answer.status_code == 404 and b"import" not in answer.content, bad


def test_openenvs_shared_gradio_page_never_appears(monkeypatch):
    monkeypatch.setenv("ENABLE_WEB_INTERFACE", "true")
    page = TestClient(build_app()).get("/web/")
    assert page.status_code == 200 and "inbox-triage console" in page.text
    assert "gradio" not in page.text.lower()


# ------------------------------------------------------------------ setup


def test_setup_offers_every_task_split_difficulty_and_knob(client):
    setup = client.get("/web/api/setup").json()
    ids = {t["task_id"]: t for t in setup["tasks"]}
    assert ids["triage/generated"]["kind"] == "generated"
    assert ids["ticket/hard_account_takeover"]["kind"] == "fixed"
    assert setup["splits"] == ["train", "validation", "test"]
    assert set(setup["difficulties"]) == {"easy", "medium", "hard"}
    assert {k["name"] for k in setup["knobs"]} >= {"size", "ambiguity", "sla_tightness"}
    assert setup["presets"]["hard"]["size"] > setup["presets"]["easy"]["size"]
    assert setup["value_vocabulary"]["route_team"] == "queues"
    assert setup["runs"] == ["bare", "both", "edited"]


def test_setup_names_the_packs_the_server_plays(tmp_path):
    from inbox_triage.server.app import load_packs

    pack = Path(__file__).parent / "data" / "packs"
    if not pack.is_dir():
        pytest.skip("no pack folder among the test data")
    app = build_app(packs=load_packs([pack]))
    kinds = {t["kind"] for t in TestClient(app).get("/web/api/setup").json()["tasks"]}
    assert "pack" in kinds


# ------------------------------------------------------------------ episodes


def test_episodes_are_listed_with_agent_task_seed_and_grade(client):
    data = client.get("/web/api/episodes").json()
    assert data["runs"] == ["bare", "both", "edited"]
    assert data["agents"] == ["heuristic", "random"]
    assert data["total"] == 2 + 8 + 8
    row = data["episodes"][0]
    assert set(row) >= {"run", "key", "agent", "task", "seed", "grade", "steps", "replayable"}
    bare = [r for r in data["episodes"] if r["run"] == "bare"]
    assert bare and not any(r["replayable"] for r in bare)


def test_episodes_filter_by_run_agent_task_and_grade_range(client):
    rows = client.get(
        "/web/api/episodes", params={"run": "both", "agent": "random", "task": "triage/generated"}
    ).json()["episodes"]
    assert len(rows) == 2 and {r["agent"] for r in rows} == {"random"}
    every = client.get("/web/api/episodes", params={"run": "both"}).json()["episodes"]
    middle = sorted(r["grade"] for r in every)[len(every) // 2]
    high = client.get("/web/api/episodes", params={"run": "both", "min_grade": middle}).json()
    assert high["total"] == sum(r["grade"] >= middle for r in every) and high["total"] < len(every)
    assert all(r["grade"] >= middle for r in high["episodes"])


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"min_grade": "lots"}, "min_grade"),
        ({"max_grade": "2"}, "max_grade"),
        ({"run": "x/../y"}, "run"),
    ],
)
def test_bad_filters_name_the_field_and_change_nothing(client, params, field):
    answer = client.get("/web/api/episodes", params=params)
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["field"] == field
    assert list(params.values())[0] not in json.dumps(error)  # never quoted back
    if field == "run":
        assert error["allowed"] == ["bare", "both", "edited"]


# ------------------------------------------------------------------ replays


def test_a_replay_reproduces_the_recorded_rewards_and_grade(client, runs):
    record = next(r for r in read_records(runs / "both") if r.task == "triage/generated")
    replay = client.get("/web/api/replay", params={"run": "both", "key": record.key}).json()
    assert replay["reproduced"] is True and replay["first_mismatch"] is None
    assert len(replay["steps"]) == record.steps
    assert [s["reward"] for s in replay["steps"]] == [s.reward for s in record.trajectory]
    assert replay["final_grade"] == record.grade
    assert replay["steps"][-1]["grade"]["value"] == pytest.approx(record.grade, abs=1e-6)
    assert replay["start_grade"]["value"] == 0.0
    assert "policy" in replay["episode"] and "policy" not in replay["steps"][0]["observation"]
    assert replay["steps"][0]["observation"]["step_count"] == 1
    # The inbox as it was: the email acted on at step 1 is triaged from then on.
    acted = replay["steps"][0]["action"]["email_id"]
    assert acted not in [e["email_id"] for e in replay["start"]["inbox"] if e["processed"]]
    assert acted in replay["steps"][0]["observation"]["processed"]


def test_a_record_that_does_not_reproduce_is_shown_as_such(client, runs):
    key = key_of(client, "edited", "heuristic", "triage/generated", 0)
    replay = client.get("/web/api/replay", params={"run": "edited", "key": key}).json()
    assert replay["reproduced"] is False
    assert replay["first_mismatch"] == 3
    step = replay["steps"][2]
    assert step["reproduced"] is False and step["reward"] != step["recorded_reward"]
    assert all(s["reproduced"] for s in replay["steps"][:2])


def test_a_run_without_trajectories_cannot_be_replayed_and_says_why(client):
    key = client.get("/web/api/episodes", params={"run": "bare"}).json()["episodes"][0]["key"]
    replay = client.get("/web/api/replay", params={"run": "bare", "key": key}).json()
    assert replay["reproduced"] is False and "no trajectory" in replay["problem"]
    assert replay["steps"] == []


def test_replay_refuses_unknown_runs_and_keys_without_echo(client):
    answer = client.get("/web/api/replay", params={"run": "/etc", "key": "x"})
    assert answer.status_code == 422 and answer.json()["error"]["field"] == "run"
    answer = client.get("/web/api/replay", params={"run": "both", "key": "secret-key-value"})
    assert answer.status_code == 422 and answer.json()["error"]["field"] == "key"
    assert "secret-key-value" not in answer.text


def test_compare_marks_the_first_step_where_the_actions_differ(client):
    a = key_of(client, "both", "heuristic", "triage/generated", 0)
    b = key_of(client, "edited", "heuristic", "triage/generated", 0)
    data = client.get(
        "/web/api/compare", params={"a_run": "both", "a_key": a, "b_run": "edited", "b_key": b}
    ).json()
    assert data["first_difference"] == 3
    assert data["a"]["reproduced"] and not data["b"]["reproduced"]
    same = client.get(
        "/web/api/compare", params={"a_run": "both", "a_key": a, "b_run": "both", "b_key": a}
    ).json()
    assert same["first_difference"] is None


def test_compare_refuses_episodes_of_different_scenarios(client):
    a = key_of(client, "both", "heuristic", "triage/generated", 0)
    b = key_of(client, "both", "heuristic", "triage/generated", 1)
    answer = client.get(
        "/web/api/compare", params={"a_run": "both", "a_key": a, "b_run": "both", "b_key": b}
    )
    assert answer.status_code == 422 and answer.json()["error"]["field"] == "b_key"


def test_compare_refuses_an_episode_kept_without_trajectory(client):
    a = key_of(client, "both", "heuristic", "triage/generated", 0)
    b = key_of(client, "bare", "heuristic", "triage/generated", 0)
    answer = client.get(
        "/web/api/compare", params={"a_run": "both", "a_key": a, "b_run": "bare", "b_key": b}
    )
    assert answer.status_code == 422 and answer.json()["error"]["field"] == "b_key"
    assert "no trajectory" in answer.json()["error"]["message"]


def test_first_difference_counts_from_one_and_notices_an_early_end():
    x, y = {"action_type": "finish"}, {"email_id": "e1"}
    assert first_difference([y, y], [y, y]) is None
    assert first_difference([y, y], [y, x]) == 2
    assert first_difference([y], [y, y]) == 2


def test_replay_of_a_pack_the_server_does_not_play_says_so(runs):
    record = read_records(runs / "both")[0].model_copy(update={"task": "inbox/pack:absent"})
    replay = replay_record(record)
    assert replay.problem is not None and not replay.reproduced


# ------------------------------------------------------------------ the run library


def test_run_library_takes_run_folders_and_folders_of_runs(runs, tmp_path):
    both = RunLibrary.from_folders([runs / "both"])
    assert both.names() == ["both"] and len(both.records("both")) == 8
    every = RunLibrary.from_folders([runs])
    assert every.names() == ["bare", "both", "edited"]
    with pytest.raises(RunFolderError, match="no such folder"):
        RunLibrary.from_folders([tmp_path / "missing"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunFolderError, match="not a run folder"):
        RunLibrary.from_folders([tmp_path / "empty"])


def test_run_library_follows_a_run_that_grows(runs, tmp_path):
    folder = tmp_path / "growing"
    folder.mkdir()
    lines = (runs / "both" / EPISODES_FILE).read_text().splitlines()
    (folder / EPISODES_FILE).write_text(lines[0] + "\n")
    library = RunLibrary.from_folders([folder])
    assert len(library.records("growing")) == 1
    with (folder / EPISODES_FILE).open("a") as fh:
        fh.write(lines[1] + "\n")
    assert len(library.records("growing")) == 2


def test_serve_refuses_a_runs_folder_that_holds_no_run(tmp_path):
    answer = subprocess.run(
        [sys.executable, "-m", "inbox_triage.cli", "serve", "--runs", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "400"},
    )
    assert (
        answer.returncode == 2 and "--runs" in answer.stderr and "no such folder" in answer.stderr
    )


def test_view_serves_the_runs_on_a_free_port_and_prints_the_url(runs):
    process = subprocess.Popen(
        [sys.executable, "-m", "inbox_triage.cli", "view", str(runs / "both")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        line = process.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+/web/)#/runs", line)
        assert match and "8 episodes of 1 run" in line, line
        base = match.group(1).removesuffix("/web/")
        deadline = time.monotonic() + 20
        while True:
            try:
                data = httpx.get(f"{base}/web/api/episodes", timeout=2).json()
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert data["runs"] == ["both"] and data["total"] == 8
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_runs_added_while_the_server_runs_are_listed(runs, tmp_path):
    import shutil

    root = tmp_path / "runs"
    shutil.copytree(runs / "both", root / "both")
    library = RunLibrary.from_folders([root])
    library.rescan_s = 0.0
    client = TestClient(build_app(runs=library))
    assert client.get("/web/api/episodes").json()["runs"] == ["both"]
    shutil.copytree(runs / "edited", root / "later")
    listed = client.get("/web/api/episodes").json()
    assert listed["runs"] == ["both", "later"]
    assert any(e["run"] == "later" for e in listed["episodes"])
    key_of_later = next(e["key"] for e in listed["episodes"] if e["run"] == "later")
    assert client.get("/web/api/replay", params={"run": "later", "key": key_of_later}).is_success
    shutil.rmtree(root / "later")  # a run deleted meanwhile leaves the list, with no error
    listed = client.get("/web/api/episodes")
    assert listed.status_code == 200 and listed.json()["runs"] == ["both"]
    gone = client.get("/web/api/replay", params={"run": "later", "key": key_of_later})
    assert gone.status_code == 422 and gone.json()["error"]["field"] == "run"


def test_an_empty_grade_range_is_refused_not_shown_as_no_matches(client):
    answer = client.get("/web/api/episodes", params={"min_grade": "0.9", "max_grade": "0.1"})
    assert answer.status_code == 422
    assert answer.json()["error"] == {"field": "min_grade", "message": "must be at most max_grade"}
    same = client.get("/web/api/episodes", params={"min_grade": "0.5", "max_grade": "0.5"})
    assert same.status_code == 200  # one grade is a range


def test_limits_are_the_episodes_policy_and_setup_says_the_idle_timeout(runs):
    app = build_app(max_sessions=4, idle_timeout_s=120.0)
    client = TestClient(app)
    assert client.get("/web/api/setup").json()["idle_timeout_s"] == 120.0
    sid = client.post("/sessions").json()["session_id"]
    headers = {"X-Session-Id": sid}
    assert client.get("/web/api/limits", headers=headers).status_code == 409  # no episode yet
    client.post("/reset", headers=headers, json={"task": "triage/easy"})
    limits = client.get("/web/api/limits", headers=headers).json()
    assert limits == {
        "summary_max_chars": 280,
        "reply_min_words": 20,
        "reply_max_words": 220,
        "text_max_chars": 8000,
        "body_max_bytes": 65536,
    }
    # They are read from the episode's policy, not written into the page or the route.
    env = app.state.sessions.get(sid, create=False).env
    stricter = env.scenario.policy.model_copy(update={"summary_max_chars": 140})
    env._scenario = env.scenario.model_copy(update={"policy": stricter})
    assert client.get("/web/api/limits", headers=headers).json()["summary_max_chars"] == 140
    gone = client.get("/web/api/limits", headers={"X-Session-Id": "s-nobody"})
    assert gone.status_code == 404 and gone.json()["error"]["field"] == "session_id"
    assert "s-nobody" not in gone.text  # an id the server does not know is not repeated
