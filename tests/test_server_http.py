"""Session-aware HTTP, in-process (ASGI): the seeds' flows, isolation, bad input, capacity."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from inbox_triage.agents import make_agent
from inbox_triage.observations import ObservationMemory
from inbox_triage.scenarios import fixed_task_ids
from inbox_triage.server.app import build_app

HACKED = {"email_id": "e001", "priority": "urgent", "category": "customer_complaint",
          "route_to": "support_tier2", "summary": "Account hacked, needs immediate lock.",
          "flag_review": True, "reply_draft": "We are securing your account immediately."}
TRUTH_MARKERS = ("truth", "required_facts", "summary_facts", "info_keywords", "needs_info")


@pytest.fixture
def client() -> TestClient:
    return TestClient(build_app(max_sessions=8))


def test_email_triage_seed_flow(client):
    obs = client.post("/reset").json()["observation"]  # requests.post(f"{BASE_URL}/reset")
    assert obs["task_id"] == "triage/easy"
    result = client.post("/step", json=HACKED).json()  # requests.post(..., json=action)
    assert result["reward"] > 0 and result["session_id"] == "default"


def test_support_inbox_ops_seed_curl_flow(client):
    reset = client.post("/reset", json={"task_id": "medium_billing_bug_mix"})
    assert reset.json()["observation"]["task_id"] == "inbox/medium_billing_bug_mix"
    step = client.post("/step", json={"action_type": "classify_ticket", "ticket_id": "T-210",
                                      "priority": "high", "queue": "billing"})
    assert step.status_code == 200
    grader = client.get("/grader").json()
    assert 0 < grader["score"] < 1 and "routing" in grader["components"]
    tasks = client.get("/tasks").json()["tasks"]
    inbox = next(t for t in tasks if t["task_id"] == "inbox/medium_billing_bug_mix")
    assert "classify_ticket" in inbox["action_schema"]
    assert "billing_review" in inbox["vocabulary"]["templates"]
    assert {t["task_id"] for t in tasks} >= set(fixed_task_ids())
    assert client.get("/healthz").json()["status"] == "healthy"


def test_openenv_shaped_step_and_ticket_mode(client):
    client.post("/reset", json={"task": "ticket/easy_password_reset"})
    result = client.post("/step", json={"action": {"action_type": "set_priority",
                                                   "value": "medium"}})
    assert result.status_code == 200
    assert result.json()["observation"]["priority"] == "medium"


def test_sessions_are_isolated(client):
    a = client.post("/reset", json={"session_id": "alice", "task": "triage/easy"}).json()
    b = client.post("/reset", headers={"X-Session-Id": "bob"},
                    json={"task": "inbox/easy_password_reset"}).json()
    assert (a["session_id"], b["session_id"]) == ("alice", "bob")
    client.post("/step", headers={"X-Session-Id": "alice"}, json=HACKED)
    alice = client.get("/state", headers={"X-Session-Id": "alice"}).json()
    bob = client.get("/state", params={"session_id": "bob"}).json()
    assert alice["step_count"] == 1 and alice["task_id"] == "triage/easy"
    assert bob["step_count"] == 0 and bob["task_id"] == "inbox/easy_password_reset"
    new = client.post("/sessions")
    assert new.status_code == 201 and new.json()["session_id"].startswith("s-")


BAD_STEPS = [
    ({"action_type": "teleport"}, "action_type", "triage_email"),
    ({"email_id": "e001", "priority": "urgent"}, "category", None),
    ({**HACKED, "flag_review": "maybe"}, "flag_review", None),
    ({**HACKED, "email_id": "e999"}, "email_id", "e001"),
    ({**HACKED, "priority": "critical"}, "priority", "urgent"),
    ({**HACKED, "reply_draft": "x" * 9000}, "reply_draft", None),
    ({**HACKED, "colour": "red"}, "colour", "email_id"),
]


@pytest.mark.parametrize(("action", "field", "allowed"), BAD_STEPS)
def test_bad_steps_are_refused_naming_the_field_at_a_steps_cost_and_change_nothing_else(
    client, action, field, allowed
):
    """A refused action is the episode's answer (200, as on the socket, over MCP and
    in-process): it names the field and the allowed values, uses a step and costs the
    invalid-action penalty, and changes nothing else."""
    client.post("/reset")
    before = client.get("/state").json()
    response = client.post("/step", json=action)
    assert response.status_code == 200
    error = response.json()["observation"]["last_action_error"]
    assert error["field"] == field
    if allowed:
        assert allowed in error["allowed"]
    assert response.json()["reward"] == pytest.approx(-0.05)
    after = client.get("/state").json()
    assert after["step_count"] == before["step_count"] + 1 and after["invalid_actions"] == 1
    unchanged = ("tickets", "queue_remaining", "escalation_budget_remaining", "now")
    assert {k: after[k] for k in unchanged} == {k: before[k] for k in unchanged}
    assert client.post("/step", json=HACKED).status_code == 200  # the episode goes on


def test_malformed_and_out_of_order_requests(client):
    assert client.post("/step", json=HACKED).status_code == 404  # no session yet: reset first
    assert client.post("/step", content=b"{not json").status_code == 400
    assert client.post("/step", content=b"[1, 2]").status_code == 400
    assert client.post("/step", content=b"x" * 70_000).status_code == 413
    assert client.post("/reset", json={"task": "nope"}).status_code == 422
    assert client.post("/reset", json={"colour": 1}).json()["error"]["field"] == "colour"
    assert client.post("/reset", json={"session_id": "bad id!"}).status_code == 400
    client.post("/reset", json={"task": "inbox/easy_password_reset"})
    client.post("/step", json={"action_type": "finish"})
    ended = client.post("/step", json={"action_type": "finish"})
    assert ended.status_code == 409 and "ended" in ended.json()["error"]["message"]
    assert client.get("/healthz").status_code == 200


def test_a_full_server_says_so_and_recovers():
    client = TestClient(build_app(max_sessions=2))
    assert client.post("/reset", json={"session_id": "one"}).status_code == 200
    assert client.post("/reset", json={"session_id": "two"}).status_code == 200
    full = client.post("/reset", json={"session_id": "three"})
    assert full.status_code == 503 and "full" in full.json()["error"]["message"]
    assert client.delete("/sessions/one").status_code == 200
    assert client.post("/reset", json={"session_id": "three"}).status_code == 200


@pytest.mark.parametrize("task", fixed_task_ids())
def test_no_response_carries_the_truth(client, task):
    blobs = [client.get("/tasks").text, client.get("/schema").text]
    reset = client.post("/reset", json={"task": task})
    blobs.append(reset.text)
    agent, memory = make_agent("heuristic"), ObservationMemory()  # lean steps made whole
    observation, done = memory.update(reset.json()["observation"]), False
    agent.reset(observation, scenario=None, seed=0)
    while not done:
        response = client.post("/step", json=agent.act(observation))
        blobs.append(response.text)
        if response.status_code != 200:
            break
        observation = memory.update(response.json()["observation"])
        done = response.json()["done"]
    blobs += [client.get("/state").text, client.get("/grader").text,
              client.post("/step", json={"action_type": "x"}).text]
    for blob in blobs:
        json.loads(blob)
        for marker in TRUTH_MARKERS:
            assert marker not in blob, (marker, blob[:200])


def test_metadata_names_the_environment(client):
    metadata = client.get("/metadata").json()
    assert metadata["name"] == "inbox_triage" and metadata["version"]


def test_a_refusal_keeps_its_own_words_whatever_the_request_repeated(client):
    """The scrubber hides what a request sent, not the server's words that a sentence in the
    request happens to share (issue 22, point 12)."""
    session = {"X-Session-Id": "scrub-words"}
    client.post("/reset", json={"task": "ticket/generated", "seed": 1}, headers=session)
    refused = client.post(
        "/step",
        json={"action_type": "set_priority", "value": "whatever value is allowed here"},
        headers=session,
    ).json()["observation"]["last_action_error"]
    assert refused == {
        "field": "value",
        "message": "is not an allowed value",
        "allowed": ["low", "medium", "high", "urgent"],
    }
    secret = client.post(
        "/step", json={"action_type": "set_priority", "value": "zq-secret-9"}, headers=session
    )
    assert "zq-secret-9" not in secret.text  # a value sent is still never repeated


def test_every_length_refusal_says_the_same_thing_and_names_its_field(client):
    """The policy's summary limit, the wire model's text limit and the request limit read
    alike: FIELD "may be at most N UNIT (it has M)"; nothing of the text comes back."""
    client.post("/reset")
    answers = {
        "summary": client.post("/step", json={**HACKED, "summary": "s" * 300}),
        "reply_draft": client.post("/step", json={**HACKED, "reply_draft": "r" * 9000}),
    }
    assert answers["summary"].json()["observation"]["last_action_error"] == {
        "field": "summary",
        "message": "may be at most 280 characters (it has 300)",
    }
    assert answers["reply_draft"].json()["observation"]["last_action_error"] == {
        "field": "reply_draft",
        "message": "may be at most 8000 characters (it has 9000)",
    }
    assert "rrrr" not in answers["reply_draft"].text and "ssss" not in answers["summary"].text
    too_big = client.post("/step", content=json.dumps({**HACKED, "summary": "b" * 70_000}))
    assert too_big.status_code == 413
    assert too_big.json()["error"]["field"] == "body"
    message = too_big.json()["error"]["message"]
    assert message.startswith("may be at most 65536 bytes (it has ") and "bbbb" not in message
    # the two the episode refused cost a step each; the body it never read costs nothing
    assert client.get("/state").json()["step_count"] == 2


def test_in_process_and_socket_refusals_use_the_same_length_wording():
    from inbox_triage.env import InboxTriageEnv

    env = InboxTriageEnv()
    env.reset(task="triage/easy")
    obs = env.step({**HACKED, "reply_draft": "r" * 8001})
    assert obs.last_action_error == {
        "field": "reply_draft",
        "message": "may be at most 8000 characters (it has 8001)",
    }
    with TestClient(build_app(max_sessions=2)).websocket_connect("/ws") as socket:
        socket.send_json({"type": "reset", "data": {"task": "triage/easy"}})
        socket.receive_json()
        socket.send_json({"type": "step", "data": {**HACKED, "summary": "s" * 8001}})
        frame = socket.receive_json()
    assert frame["type"] == "observation"  # the episode's refusal, as in-process
    assert frame["data"]["observation"]["last_action_error"] == {
        "field": "summary",
        "message": "may be at most 8000 characters (it has 8001)",
    }
