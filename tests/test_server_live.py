"""Against a real server process on loopback: the typed client, the seeds' snippets, 64
concurrent sessions, bad WebSocket input, and a full server."""

from __future__ import annotations

import asyncio
import json

import pytest
import requests
from live_server import running_server
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from inbox_triage import InboxTriageClient, TriageAction
from inbox_triage.agents import make_agent
from inbox_triage.evaluation import run_episode
from inbox_triage.scenarios import load_task
from inbox_triage.scenarios.sources import make_scenario

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def server() -> str:
    with running_server("--max-sessions", "80") as url:
        yield url


def test_typed_client_plays_a_whole_episode_to_the_oracles_grade(server):
    scenario = load_task("triage/easy")
    oracle = make_agent("oracle")
    with InboxTriageClient(base_url=server).sync() as env:
        result = env.reset(task="triage/easy")
        assert result.observation.task_id == "triage/easy"
        oracle.reset(result.observation.model_dump(), scenario=scenario, seed=0)
        while not result.done:
            result = env.step(TriageAction(**oracle.act(result.observation.model_dump())))
        assert result.observation.metadata["grade"]["value"] == pytest.approx(1.0)
        assert env.state().step_count == len(scenario.tickets)


def test_async_client_and_generated_tasks_match_in_process(server):
    async def play() -> float:
        agent = make_agent("heuristic")
        async with InboxTriageClient(base_url=server) as env:
            result = await env.reset(task="inbox/generated", split="test", seed=5)
            agent.reset(result.observation.model_dump(), scenario=None, seed=5)
            while not result.done:
                result = await env.step(agent.act(result.observation.model_dump()))
            return result.observation.metadata["grade"]["value"]

    remote = asyncio.run(play())
    local = run_episode("inbox/generated", make_agent("heuristic"), 5, split="test").grade
    assert remote == pytest.approx(local, abs=1e-6)


def test_the_seed_snippets_work_against_the_server(server):
    obs = requests.post(f"{server}/reset", timeout=10).json()["observation"]
    assert obs["task_id"] == "triage/easy"
    action = {"email_id": "e001", "priority": "urgent", "category": "customer_complaint",
              "route_to": "support_tier2", "summary": "Account hacked, needs immediate lock.",
              "flag_review": True, "reply_draft": "We are securing your account immediately."}
    result = requests.post(f"{server}/step", json=action, timeout=10).json()
    assert result["reward"] > 0
    reset = requests.post(f"{server}/reset", json={"task_id": "medium_billing_bug_mix"},
                          timeout=10)
    assert reset.status_code == 200
    step = requests.post(f"{server}/step", json={"action_type": "classify_ticket",
                                                 "ticket_id": "T-210", "priority": "high",
                                                 "queue": "billing"}, timeout=10)
    assert step.status_code == 200
    assert requests.get(f"{server}/grader", timeout=10).json()["score"] > 0
    assert requests.get(f"{server}/tasks", timeout=10).status_code == 200
    assert requests.get(f"{server}/healthz", timeout=10).json()["status"] == "healthy"


def test_64_sessions_at_once_each_get_their_own_correct_grade(server):
    jobs = [("triage/generated", "train", seed) for seed in range(22)] + [
        ("inbox/generated", "test", seed) for seed in range(21)] + [
        ("ticket/generated", "validation", seed) for seed in range(21)]
    assert len(jobs) == 64

    async def play(task: str, split: str, seed: int) -> float:
        scenario = make_scenario(task, None, split, None, seed)
        agent = make_agent("oracle" if seed % 2 else "heuristic")
        async with InboxTriageClient(base_url=server) as env:
            result = await env.reset(task=task, split=split, seed=seed)
            agent.reset(result.observation.model_dump(), scenario=scenario, seed=seed)
            while not result.done:
                result = await env.step(agent.act(result.observation.model_dump()))
            return result.observation.metadata["grade"]["value"]

    async def all_at_once() -> list[float]:
        return await asyncio.gather(*(play(*job) for job in jobs))

    grades = asyncio.run(all_at_once())
    for (task, split, seed), grade in zip(jobs, grades, strict=True):
        agent = "oracle" if seed % 2 else "heuristic"
        expected = run_episode(task, make_agent(agent), seed, split=split).grade
        assert grade == pytest.approx(expected, abs=1e-6), (task, split, seed, agent)
        if agent == "oracle":
            assert grade == pytest.approx(1.0)


def test_bad_websocket_frames_get_errors_and_keep_the_connection(server):
    ws_url = server.replace("http", "ws") + "/ws"
    with connect(ws_url) as ws:
        def ask(frame: str) -> dict:
            ws.send(frame)
            return json.loads(ws.recv(timeout=10))

        assert ask("{not json")["type"] == "error"
        assert ask(json.dumps({"type": "teleport"}))["data"]["code"] == "UNKNOWN_TYPE"
        early = ask(json.dumps({"type": "step", "data": {"action_type": "finish"}}))
        assert early["type"] == "observation"  # before reset: answered, not crashed
        assert early["data"]["observation"]["last_action_error"]["field"] == "episode"
        shapeless = ask(json.dumps({"type": "step", "data": "finish"}))  # not OpenEnv's frame
        assert shapeless["type"] == "error" and shapeless["data"]["code"] == "VALIDATION_ERROR"
        bad_task = ask(json.dumps({"type": "reset", "data": {"task": "nope"}}))
        assert bad_task["type"] == "error" and "unknown task" in bad_task["data"]["message"]
        ok = ask(json.dumps({"type": "reset", "data": {"task": "inbox/easy_password_reset"}}))
        assert ok["type"] == "observation"
        refused = ask(json.dumps({"type": "step", "data": {
            "action_type": "classify_ticket", "ticket_id": "T-101", "priority": "mega"}}))
        error = refused["data"]["observation"]["last_action_error"]
        assert error["field"] == "priority" and "urgent" in error["allowed"]
        bad = ask(json.dumps({"type": "step", "data": {"colour": "red"}}))  # the episode's refusal
        assert bad["data"]["observation"]["last_action_error"]["field"] == "colour"
        assert bad["data"]["observation"]["step_count"] == 2 and bad["data"]["reward"] < 0
        done = ask(json.dumps({"type": "step", "data": {"action_type": "finish"}}))
        assert done["data"]["done"] is True


def _refusal(ws) -> dict | None:
    """A refused connection is told at once; an accepted one waits for us."""
    try:
        return json.loads(ws.recv(timeout=1.0))
    except TimeoutError:
        return None


def test_a_full_server_refuses_with_capacity_reached_and_recovers():
    with running_server("--max-sessions", "2") as url:
        ws_url = url.replace("http", "ws") + "/ws"
        first, second = connect(ws_url), connect(ws_url)
        for ws in (first, second):
            ws.send(json.dumps({"type": "reset", "data": {}}))
            assert json.loads(ws.recv(timeout=10))["type"] == "observation"
        with connect(ws_url) as third:
            refused = _refusal(third)
            assert refused is not None and refused["data"]["code"] == "CAPACITY_REACHED"
        first.close()
        answer = None
        for _ in range(20):  # the server frees the session once it sees the close
            with connect(ws_url) as fourth:
                if _refusal(fourth) is None:
                    fourth.send(json.dumps({"type": "reset", "data": {}}))
                    answer = json.loads(fourth.recv(timeout=10))
                    break
        assert answer is not None and answer["type"] == "observation"
        second.close()


def test_over_the_wire_lean_frames_are_made_whole_by_the_typed_client(server):
    """The raw frames of a step leave out what was sent; the typed client hands out exactly
    what the environment's full style gives in-process (determinism over the wire)."""
    from inbox_triage.env import InboxTriageEnv

    agent, local = make_agent("heuristic"), InboxTriageEnv()
    expected = local.reset(task="inbox/generated", split="test", seed=4, observation="full")
    with InboxTriageClient(base_url=server).sync() as env:
        result = env.reset(task="inbox/generated", split="test", seed=4)
        agent.reset(result.observation.model_dump(), scenario=None, seed=4)
        while True:
            got = result.observation.model_dump(exclude={"reward", "done", "metadata"})
            assert got == expected.model_dump(exclude={"reward", "done", "metadata"})
            assert result.reward == expected.reward
            if result.done:
                break
            action = agent.act(result.observation.model_dump())
            result, expected = env.step(action), local.step(action)
    with connect(server.replace("http", "ws") + "/ws") as ws:
        ws.send(json.dumps({"type": "reset", "data": {"task": "inbox/medium_billing_bug_mix"}}))
        first = json.loads(ws.recv(timeout=10))["data"]["observation"]
        ws.send(json.dumps({"type": "step", "data": {"action_type": "resolve_ticket",
                            "ticket_id": "T-212", "resolution_code": "shipping_update_provided"}}))
        step = json.loads(ws.recv(timeout=10))["data"]["observation"]
    assert first["vocabulary"] and step["vocabulary"] is None
    tickets = {t["ticket_id"]: t for t in step["tickets"]}
    assert "message" not in tickets["T-212"]  # handled: its text was sent already
    assert all("message" in t for i, t in tickets.items() if i != "T-212")


def test_a_silent_socket_is_closed_after_the_idle_timeout_and_frees_its_place():
    with running_server("--max-sessions", "1", "--idle-timeout", "1") as url:
        ws_url = url.replace("http", "ws") + "/ws"
        with connect(ws_url) as idle:
            idle.send(json.dumps({"type": "reset", "data": {}}))
            assert json.loads(idle.recv(timeout=10))["type"] == "observation"
            with pytest.raises(ConnectionClosed):  # closed by the server, not by a timeout
                idle.recv(timeout=5)
        with connect(ws_url) as fresh:  # its place is free again
            fresh.send(json.dumps({"type": "reset", "data": {}}))
            assert json.loads(fresh.recv(timeout=10))["type"] == "observation"
