"""Every limit answers with a clear error that names it: body size, reply and summary length,
actions per episode, sessions per server, inbox size."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from inbox_triage.env import InboxTriageEnv
from inbox_triage.models import MAX_TEXT
from inbox_triage.scenarios import ScenarioError
from inbox_triage.server.app import MAX_BODY_BYTES, build_app

DECISION = {"email_id": "e001", "priority": "urgent", "category": "customer_complaint",
            "route_to": "support_tier2"}


def test_request_body_size():
    client = TestClient(build_app(max_sessions=2))
    response = client.post("/step", content=b"{" + b" " * MAX_BODY_BYTES + b"}")
    assert response.status_code == 413
    assert str(MAX_BODY_BYTES) in response.json()["error"]["message"]


def test_reply_and_summary_length():
    env = InboxTriageEnv()
    env.reset(task="triage/easy")
    long_reply = env.step({**DECISION, "reply_draft": "x" * (MAX_TEXT + 1)})
    assert long_reply.last_action_error["field"] == "reply_draft"
    assert str(MAX_TEXT) in long_reply.last_action_error["message"]
    long_summary = env.step({**DECISION, "summary": "y" * 281})
    assert long_summary.last_action_error["field"] == "summary"
    assert "at most 280" in long_summary.last_action_error["message"]


def test_actions_per_episode():
    env = InboxTriageEnv()
    obs = env.reset(task="ticket/easy_password_reset")
    budget = obs.max_steps
    for _ in range(budget):
        obs = env.step({"action_type": "noop"})
    assert obs.done and obs.steps_remaining == 0
    assert "ended" in env.step({"action_type": "noop"}).last_feedback
    client = TestClient(build_app(max_sessions=2))
    client.post("/reset", json={"task": "ticket/easy_password_reset"})
    for _ in range(budget):
        client.post("/step", json={"action_type": "noop"})
    assert client.post("/step", json={"action_type": "noop"}).status_code == 409


def test_sessions_per_server():
    client = TestClient(build_app(max_sessions=1))
    assert client.post("/reset", json={"session_id": "a"}).status_code == 200
    full = client.post("/reset", json={"session_id": "b"})
    assert full.status_code == 503 and "1 sessions" in full.json()["error"]["message"]


def test_inbox_size():
    env = InboxTriageEnv()
    assert len(env.reset(mode="triage", size=200).inbox) <= 200
    with pytest.raises(ScenarioError, match="size must be a whole number from 1 to 200"):
        env.reset(mode="triage", size=201)
    client = TestClient(build_app(max_sessions=2))
    response = client.post("/reset", json={"mode": "triage", "size": 201})
    assert response.status_code == 422 and "1 to 200" in response.json()["error"]["message"]
