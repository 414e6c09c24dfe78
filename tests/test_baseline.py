"""``POST /baseline`` in-process: one at a time, bounded in time, the llm agent on the endpoint
and key of the server's environment only; and the error scrubbing every answer goes through."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient
from live_server import free_port
from pydantic import BaseModel, ValidationError

from inbox_triage.server.app import build_app
from inbox_triage.server.baseline import Baseline, BaselineRequest
from inbox_triage.server.errors import public_errors, public_message
from inbox_triage.server.sessions import SessionError

KEY = "sk-test-do-not-leak"


def test_one_baseline_at_a_time():
    app = build_app()
    client = TestClient(app)
    app.state.baseline.lock.acquire()
    try:
        busy = client.post("/baseline", json={"tasks": ["ticket/easy_password_reset"]})
        assert busy.status_code == 409 and busy.json()["error"]["field"] == "baseline"
    finally:
        app.state.baseline.lock.release()
    again = client.post("/baseline", json={"tasks": ["ticket/easy_password_reset"]})
    assert again.status_code == 200


def test_a_baseline_past_the_time_limit_answers_what_finished_and_says_so():
    from inbox_triage.agents import make_agent
    from inbox_triage.env import InboxTriageEnv

    baseline = Baseline(InboxTriageEnv, time_limit_s=0.0)
    answer = baseline.run(BaselineRequest(tasks=("triage/generated",), episodes=5), make_agent)
    assert answer["complete"] is False and answer["episodes"] < answer["episodes_planned"] == 5
    assert "time limit" in answer["message"]


def test_the_query_string_works_like_the_seeds_curl():
    client = TestClient(build_app())
    answer = client.post("/baseline?agent=random&tasks=ticket/easy_password_reset&episodes=2")
    assert answer.status_code == 200, answer.text
    assert answer.json()["agent"] == "random" and answer.json()["results"][0]["episodes"] == 2
    bad = Baseline(lambda: None)  # type: ignore[arg-type,return-value]
    with pytest.raises(SessionError) as caught:
        bad.parse({}, {"episodes": "lots"})
    assert caught.value.field == "episodes" and "1 to 20" in caught.value.message


@pytest.fixture
def fake_model() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """An OpenAI-compatible endpoint on loopback whose model always closes the ticket."""
    seen: list[dict[str, Any]] = []
    api = FastAPI()

    @api.get("/v1/models")
    async def models() -> dict:
        return {"object": "list", "data": [{"id": "fake", "object": "model", "owned_by": "me"}]}

    @api.post("/v1/chat/completions")
    async def chat(request: Request) -> dict:
        seen.append({"authorization": request.headers.get("authorization")})
        content = json.dumps({"action": {"action_type": "close_ticket"}})
        return {"id": "c1", "object": "chat.completion", "created": 0, "model": "fake",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(api, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/v1", seen
    server.should_exit = True
    thread.join(timeout=10)


def test_the_llm_baseline_uses_the_servers_endpoint_and_key_and_shows_neither(
    fake_model, monkeypatch
):
    url, seen = fake_model
    monkeypatch.setenv("API_BASE_URL", url)
    monkeypatch.setenv("MODEL_NAME", "fake")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    refused = TestClient(build_app()).post("/baseline", json={"agent": "llm"})
    assert refused.status_code == 403 and not seen
    client = TestClient(build_app(allow_llm_baseline=True))
    answer = client.post(
        "/baseline", json={"agent": "llm", "tasks": ["ticket/easy_password_reset"]}
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["results"][0]["agent"] == "llm" and answer.json()["episodes"] == 1
    assert seen and all(call["authorization"] == f"Bearer {KEY}" for call in seen)
    assert KEY not in answer.text and url not in answer.text


def test_an_llm_baseline_without_a_configured_model_is_a_clear_503(monkeypatch):
    monkeypatch.delenv("MODEL_NAME", raising=False)
    client = TestClient(build_app(allow_llm_baseline=True))
    answer = client.post("/baseline", json={"agent": "llm"})
    assert answer.status_code == 503 and answer.json()["error"]["field"] == "agent"


class Pack(BaseModel):
    name: str
    version: int


def test_public_messages_keep_the_words_and_drop_the_echo():
    with pytest.raises(ValidationError) as caught:
        Pack(**{"name": {"db_password": "hunter2"}, "version": "x" * 50})
    full = str(caught.value)
    assert "hunter2" in full and "errors.pydantic.dev" in full  # what pydantic says
    message = public_message(full)
    assert "hunter2" not in message and "pydantic.dev" not in message and "xxxx" not in message
    assert "Input should be a valid string" in message and "version" in message
    assert public_errors(caught.value.errors()) == [
        {"loc": ["name"], "msg": "Input should be a valid string"},
        {"loc": ["version"], "msg": "Input should be a valid integer, unable to parse string as "
                                    "an integer"},
    ]
    assert len(public_message("y" * 5000)) == 300
