"""A served environment reads nothing a request names: against real server processes, a secret
planted on the server's disk never comes out, and an existing path is answered exactly as a
missing one; packs play by name from the folders the operator named; ``POST /baseline`` runs
the heuristic as ``inbox-triage eval`` does and keeps the llm agent behind the operator's flag."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path

import httpx
import pytest
from live_server import running_server
from typer.testing import CliRunner
from websockets.sync.client import connect

from inbox_triage import InboxTriageClient
from inbox_triage.agents import make_agent
from inbox_triage.cli import app as cli
from inbox_triage.evaluation import run_episode
from inbox_triage.observations import ObservationMemory

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

PACKS = Path(__file__).parent / "data" / "packs"
ACME = PACKS / "acme"
SECRET = "hunter2-" + uuid.uuid4().hex


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> Path:
    """Files a caller must never read: a credentials file, a folder holding it as pack.yaml,
    and a valid pack outside the named folders whose org is named after the secret."""
    root = tmp_path_factory.mktemp("planted")
    (root / "secret.yaml").write_text(f"db_password: {SECRET}\nname: x\nversion: 1\n")
    (root / "folder").mkdir()
    shutil.copy(root / "secret.yaml", root / "folder" / "pack.yaml")
    (root / "realpack").mkdir()
    text = (ACME / "pack.yaml").read_text().replace("Acme Robotics support", SECRET)
    (root / "realpack" / "pack.yaml").write_text(text)
    return root


@pytest.fixture(scope="module")
def server(planted) -> str:
    with running_server("--packs", str(PACKS)) as url:
        yield url


def probes(planted: Path) -> list[str]:
    """Pack names that lead to files: absolute, relative (from the server's working folder),
    with '~', to existing files and folders and to missing ones."""
    here = Path.cwd()
    existing = [planted / "secret.yaml", planted / "folder", planted / "realpack"]
    missing = [planted / "missing", Path("/nonexistent") / uuid.uuid4().hex / "pack.yaml"]
    names = [str(p) for p in existing + missing]
    names += [os.path.relpath(p, here) for p in existing + missing]
    names += ["../" * 12 + str(existing[0]).lstrip("/"), "~/../../" + str(existing[2]).lstrip("/")]
    names += ["acme/../acme", "./acme", "acme/", "..", "/etc/passwd", "nope"]
    return names


def http_reset(url: str, body: dict) -> tuple[int, dict]:
    response = httpx.post(f"{url}/reset", json=body, timeout=10)
    return response.status_code, response.json()


def ws_reset(url: str, data: dict) -> dict:
    with connect(url.replace("http", "ws") + "/ws") as ws:
        ws.send(json.dumps({"type": "reset", "data": data}))
        return json.loads(ws.recv(timeout=10))


def test_no_path_a_request_names_is_read_and_every_refusal_is_the_same(server, planted):
    refusal = http_reset(server, {"task": "triage/pack:nope"})
    status, body = refusal
    assert status == 422 and body["error"]["field"] == "task"
    assert body["error"]["allowed"] == ["triage/pack:acme", "ticket/pack:acme", "inbox/pack:acme"]
    ws_refusal = ws_reset(server, {"task": "triage/pack:nope"})
    assert ws_refusal["type"] == "error"
    for name in probes(planted):
        for body in ({"task": f"triage/pack:{name}"}, {"task_id": f"inbox/pack:{name}"},
                     {"task": f"pack:{name}", "mode": "ticket"}):
            answer = http_reset(server, body)
            assert answer == refusal, (name, answer)
            assert SECRET not in json.dumps(answer)
        assert ws_reset(server, {"task": f"triage/pack:{name}"}) == ws_refusal, name
    answers = [httpx.get(f"{server}{route}", timeout=10).text for route in ("/tasks", "/state")]
    answers.append(httpx.get(f"{server}/grader", timeout=10).text)
    assert not any(SECRET in a for a in answers)


def test_a_baseline_naming_a_path_is_refused_the_same_way(server, planted):
    answers = set()
    for name in probes(planted):
        response = httpx.post(f"{server}/baseline", json={"tasks": [f"triage/pack:{name}"]},
                              timeout=30)
        assert response.status_code == 422 and SECRET not in response.text
        answers.add(response.text)
    assert len(answers) == 1


def test_errors_never_echo_what_they_could_not_use(server):
    long_value = SECRET * 40
    status, body = http_reset(server, {"task": long_value})
    assert status == 422 and SECRET not in json.dumps(body)
    assert len(body["error"]["message"]) <= 300
    status, body = http_reset(server, {"task": "triage/generated", "size": {"x": SECRET}})
    assert status == 422 and SECRET not in json.dumps(body)
    with connect(server.replace("http", "ws") + "/ws") as ws:
        frames = [
            {"type": "reset", "data": {"task": long_value}},
            {"type": "step", "data": {"colour": SECRET}},
            {"type": "step", "data": {"action_type": {"x": SECRET}}},
            {"type": "mcp", "data": {"jsonrpc": "2.0", "method": {"x": SECRET}}},
        ]
        for frame in frames:
            ws.send(json.dumps(frame))
            answer = ws.recv(timeout=10)
            assert SECRET not in answer and "input_value" not in answer, answer
    mcp = httpx.post(f"{server}/mcp", json={"jsonrpc": "2.0", "method": {"x": SECRET}},
                     timeout=10)
    assert mcp.status_code == 200 and mcp.json()["error"]["code"] == -32600
    assert SECRET not in mcp.text and "input_value" not in mcp.text
    openenv_route = httpx.post(f"{server}/inbox_triage/task", json={"index": SECRET}, timeout=10)
    assert openenv_route.status_code == 422
    assert SECRET not in openenv_route.text and openenv_route.json()["error"]["field"]


def test_no_route_repeats_a_long_value_it_refused(server):
    """What the adversarial review found: values repeated inside our messages, OpenEnv's own
    messages ('Method not found: ...', 'Unknown message type: ...'), paths and JSON-RPC ids."""
    mark = "Q" * 200
    answers = [
        httpx.post(f"{server}/reset", json=body, timeout=10)
        for body in ({"seed": mark}, {"seed": {"x": mark}}, {"task": f"triage/{mark}"},
                     {"task": f"triage/easy{mark}", "split": "train"})
    ]
    answers.append(httpx.post(f"{server}/step", json={"action_type": mark}, timeout=10))
    answers.append(httpx.get(f"{server}/{mark}/splits", timeout=10))
    answers.append(httpx.post(f"{server}/mcp", timeout=10,
                              json={"jsonrpc": "2.0", "method": mark, "id": mark}))
    answers.append(httpx.post(f"{server}/baseline", json={"tasks": [f"ticket/{mark}"]},
                              timeout=10))
    for answer in answers:
        assert 400 <= answer.status_code < 500 or "jsonrpc" in answer.text, answer.text
        assert "QQQQ" not in answer.text, answer.text
    with connect(server.replace("http", "ws") + f"/ws?x={mark}") as ws:
        for frame in ({"type": mark}, {"type": "reset", "data": {"task": "triage/generated",
                                                                  mark: 1}},
                      {"type": "reset", "data": {"seed": mark}},
                      {"type": "mcp", "data": {"jsonrpc": "2.0", "method": mark, "id": 1}}):
            ws.send(json.dumps(frame))
            answer = ws.recv(timeout=10)
            assert "QQQQ" not in answer, answer
        ws.send(json.dumps({"type": "reset", "data": {"task": "triage/easy"}}))
        assert json.loads(ws.recv(timeout=10))["type"] == "observation"  # still usable
    with connect(server.replace("http", "ws") + f"/ws?session_id={mark}") as ws:
        assert "QQQQ" not in ws.recv(timeout=10)


def test_odd_bodies_are_4xx_never_500(server):
    for raw in (b'{"seed": ' + b"1" * 5000 + b"}", b"[" * 40000, b"\xff\xfe"):
        for route in ("/reset", "/step", "/baseline"):
            answer = httpx.post(f"{server}{route}", content=raw, timeout=10,
                                headers={"content-type": "application/json"})
            assert answer.status_code == 400, (route, raw[:20], answer.text)

    def chunked():
        yield b'{"task": "'
        for _ in range(1024):  # 1 MiB with no Content-Length: refused once past 64 KiB
            yield b"A" * 1024
        yield b'"}'

    answer = httpx.post(f"{server}/reset", content=chunked(), timeout=30)
    assert answer.status_code == 413 and answer.json()["error"]["field"] == "body"
    assert httpx.post(f"{server}/reset", json={}, timeout=10).status_code == 200


def test_openenvs_shared_web_page_is_never_mounted(monkeypatch):
    monkeypatch.setenv("ENABLE_WEB_INTERFACE", "true")
    with running_server() as url:
        page = httpx.get(f"{url}/web", timeout=10)  # ours: a session per browser tab
        assert page.status_code == 200 and "inbox-triage console" in page.text
        assert "gradio" not in page.text.lower()
        for shared in ("/web/reset", "/web/step"):  # the Gradio page's one shared episode
            assert httpx.post(f"{url}{shared}", json={}, timeout=10).status_code in (404, 405)
        assert httpx.get(f"{url}/web/state", timeout=10).status_code == 404


def test_a_pack_that_does_not_load_is_logged_and_left_out(tmp_path):
    named = tmp_path / "named"
    shutil.copytree(ACME, named / "good")
    (named / "binary").mkdir()
    (named / "binary" / "pack.yaml").write_bytes(b"\xff\xfe\x00garbage")
    (named / "invalid").mkdir()
    (named / "invalid" / "pack.yaml").write_text(f"db_password: {SECRET}\n")
    with running_server("--packs", str(named)) as url:
        tasks = [t["task_id"] for t in httpx.get(f"{url}/tasks", timeout=10).json()["tasks"]]
        assert [t for t in tasks if "/pack:" in t] == [
            "triage/pack:good", "ticket/pack:good", "inbox/pack:good"]
        refusal = http_reset(url, {"task": "triage/pack:nope"})
        for name in ("binary", "invalid"):
            assert http_reset(url, {"task": f"triage/pack:{name}"}) == refusal


def test_a_named_pack_plays_by_name_over_http_and_websocket(server):
    local = run_episode(f"triage/pack:{ACME}", make_agent("heuristic"), 2)
    session = httpx.post(f"{server}/sessions", timeout=10).json()["session_id"]
    headers = {"X-Session-Id": session}
    agent = make_agent("heuristic")
    result = httpx.post(f"{server}/reset", json={"task": "triage/pack:acme", "seed": 2},
                        headers=headers, timeout=10).json()
    assert result["observation"]["task_id"] == "triage/pack:acme"
    memory = ObservationMemory()  # lean steps made whole, as every driver does
    agent.reset(memory.update(result["observation"]), scenario=None, seed=2)
    while not result["done"]:
        action = agent.act({**memory.update(result["observation"]), "done": result["done"]})
        result = httpx.post(f"{server}/step", json=action, headers=headers, timeout=10).json()
    grade = httpx.get(f"{server}/grader", headers=headers, timeout=10).json()["score"]
    assert grade == pytest.approx(local.grade, abs=1e-6)

    agent = make_agent("heuristic")
    with InboxTriageClient(base_url=server).sync() as env:
        step = env.reset(task="triage/pack:acme", seed=2)
        agent.reset(step.observation.model_dump(), scenario=None, seed=2)
        while not step.done:
            step = env.step(agent.act(step.observation.model_dump()))
        assert step.observation.metadata["grade"]["value"] == pytest.approx(local.grade, abs=1e-6)
    listed = {t["task_id"]: t for t in httpx.get(f"{server}/tasks", timeout=10).json()["tasks"]}
    assert listed["inbox/pack:acme"]["tickets"] == 5
    assert "P1" in listed["ticket/pack:acme"]["vocabulary"]["priorities"]


def test_a_pack_folder_that_leads_outside_by_a_symlink_is_not_playable(tmp_path, planted):
    named = tmp_path / "named"
    named.mkdir()
    shutil.copytree(ACME, named / "good")
    (named / "escape").symlink_to(planted / "realpack", target_is_directory=True)
    (named / "sneaky").mkdir()
    (named / "sneaky" / "pack.yaml").symlink_to(planted / "realpack" / "pack.yaml")
    with running_server("--packs", str(named)) as url:
        tasks = [t["task_id"] for t in httpx.get(f"{url}/tasks", timeout=10).json()["tasks"]]
        assert "triage/pack:good" in tasks
        assert not any("escape" in t or "sneaky" in t for t in tasks)
        refusal = http_reset(url, {"task": "triage/pack:nope"})
        for name in ("escape", "sneaky"):
            assert http_reset(url, {"task": f"triage/pack:{name}"}) == refusal
        assert http_reset(url, {"task": "triage/pack:good"})[0] == 200


def test_without_packs_a_served_pack_task_is_refused(planted):
    with running_server() as url:
        status, body = http_reset(url, {"task": f"triage/pack:{planted / 'realpack'}"})
        assert status == 422 and body["error"]["allowed"] == []
        assert SECRET not in json.dumps(body)


def test_baseline_answers_what_inbox_triage_eval_writes(server, tmp_path):
    tasks = ["ticket", "inbox/generated", "triage/pack:acme"]
    response = httpx.post(f"{server}/baseline", timeout=60, json={
        "tasks": tasks, "episodes": 2, "seed": 3, "split": "test"})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["agent"] == "heuristic" and answer["complete"] is True
    assert answer["episodes"] == 5 * 2
    out = tmp_path / "eval.json"
    result = CliRunner().invoke(cli, [
        "eval", "--agent", "heuristic", "--tasks", f"ticket,inbox/generated,triage/pack:{ACME}",
        "--episodes", "2", "--seed", "3", "--split", "test", "--json", str(out),
        "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    expected = json.loads(out.read_text())
    expected[-1]["task"] = "triage/pack:acme"  # named by path in-process, by name served
    assert answer["results"] == expected
    means = [row["mean_grade"] for row in expected]
    assert answer["mean_grade"] == pytest.approx(sum(means) / len(means), abs=1e-6)


def test_baseline_defaults_to_the_heuristic_on_every_fixed_task(server):
    answer = httpx.post(f"{server}/baseline", timeout=60).json()
    assert [row["task"] for row in answer["results"]][:3] == [
        "triage/easy", "triage/medium", "triage/hard"]
    assert len(answer["results"]) == 9 and 0.5 < answer["mean_grade"] < 1.0


@pytest.mark.parametrize("request_args", [
    {"json": {"agent": "oracle"}},
    {"json": {"episodes": 21}},
    {"json": {"tasks": ["ticket/generated"] * 1 + ["triage/generated", "inbox/generated"],
              "episodes": 20, "extra": 1}},
    {"json": {"agent": "heuristic", "tasks": "nope"}},
])
def test_baseline_refuses_what_it_cannot_run_by_name(server, request_args):
    response = httpx.post(f"{server}/baseline", timeout=10, **request_args)
    assert response.status_code == 422
    assert response.json()["error"]["field"] in ("agent", "episodes", "extra", "tasks")


def test_baseline_llm_needs_the_operators_flag_and_never_takes_a_url(server):
    refused = httpx.post(f"{server}/baseline", json={"agent": "llm"}, timeout=10)
    assert refused.status_code == 403 and refused.json()["error"]["field"] == "agent"
    assert "--allow-llm-baseline" in refused.json()["error"]["message"]
    for args in ({"json": {"agent": "llm", "base_url": "http://127.0.0.1:9/v1"}},
                 {"json": {"tasks": ["http://127.0.0.1:9/x"]}},
                 {"params": {"model": "gpt", "api_base": "https://example.invalid/v1"}}):
        response = httpx.post(f"{server}/baseline", timeout=10, **args)
        assert response.status_code == 422, args
        assert "URL" in response.json()["error"]["message"]
        assert "127.0.0.1:9" not in response.text and "example.invalid" not in response.text


def test_eval_against_a_server_plays_its_packs_by_name_and_is_told_of_a_path(server, tmp_path):
    def evaluate(task: str, out: str, *extra: str) -> tuple[int, str, list[dict]]:
        path = tmp_path / f"{out}.json"
        result = CliRunner().invoke(cli, [
            "eval", "--agent", "heuristic", "--tasks", task, "--episodes", "2", "--json",
            str(path), "--out", str(tmp_path / out), *extra])
        rows = json.loads(path.read_text()) if path.exists() else []
        return result.exit_code, result.output, rows

    code, output, served = evaluate("inbox/pack:acme", "served", "--env-url", server)
    assert code == 0, output
    code, output, local = evaluate(f"inbox/pack:{ACME}", "local")
    assert code == 0, output
    assert [{**r, "task": None} for r in served] == [{**r, "task": None} for r in local]
    code, output, _ = evaluate(f"inbox/pack:{ACME}", "by-path", "--env-url", server)
    flat = " ".join(output.replace("│", " ").split())
    assert code == 2 and "is not a pack this server plays" in flat
    assert not (tmp_path / "by-path").exists()
