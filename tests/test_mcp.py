"""``/mcp``: the episode's actions as MCP tools over HTTP and WebSocket, played by OpenEnv's own
``MCPToolClient`` against a real server, and by hand-written JSON-RPC in process."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from live_server import free_port, running_server
from openenv.core.mcp_client import MCPToolClient

from inbox_triage.agents import make_agent
from inbox_triage.env import InboxTriageEnv
from inbox_triage.scenarios.pack_library import PackLibrary
from inbox_triage.server.app import build_app
from inbox_triage.server.mcp import METHODS

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
PACKS = "tests/data/packs"
SECRET = "zq-secret-7781"


def rpc(method: str, params: dict[str, Any] | None = None, id_: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params or {}}


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(build_app(max_sessions=32, packs=PackLibrary.from_folders([PACKS])))


def open_session(client: TestClient, **reset: Any) -> str:
    answer = client.post("/mcp", json=rpc("initialize", {"protocolVersion": "2025-06-18"}))
    session = answer.headers["mcp-session-id"]
    assert answer.json()["result"]["protocolVersion"] == "2025-06-18"
    assert answer.json()["result"]["capabilities"]["tools"] == {"listChanged": False}
    if reset:
        started = client.post("/mcp", json=rpc("reset", reset), headers={"Mcp-Session-Id": session})
        assert "result" in started.json(), started.json()
    return session


def call(
    client: TestClient, session: str, method: str, status: int = 200, **params: Any
) -> dict[str, Any]:
    answer = client.post("/mcp", json=rpc(method, params), headers={"Mcp-Session-Id": session})
    assert answer.status_code == status
    return answer.json()


def oracle_calls(task: str, seed: int) -> Iterator[tuple[dict[str, Any], InboxTriageEnv]]:
    """The oracle's actions on the episode, each already played in process (for comparing)."""
    env = InboxTriageEnv()
    observation = env.reset(task=task, split="test", seed=seed, observation="full").model_dump()
    oracle = make_agent("oracle")
    oracle.reset(observation, scenario=env.scenario, seed=seed)
    while not env.done:
        action = oracle.act(observation)
        observation = env.step(action).model_dump()
        yield action, env


def as_call(action: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    rest = {k: v for k, v in action.items() if k != "action_type" and v is not None}
    return action.get("action_type", "triage_email"), rest  # the seed: triage by default


@pytest.mark.parametrize(
    ("mode", "key", "field", "tool"),
    [
        ("triage", "categories", "category", "triage_email"),
        ("ticket", "tags", "value", "add_tag"),
        ("inbox", "templates", "response_template", "respond_ticket"),
    ],
)
def test_tools_list_offers_each_action_with_the_episodes_vocabulary_as_enums(
    client, mode, key, field, tool
):
    session = open_session(client, mode=mode, split="test", seed=2)
    tools = call(client, session, "tools/list")["result"]["tools"]
    vocabulary = InboxTriageEnv().reset(mode=mode, split="test", seed=2).vocabulary
    expected = InboxTriageEnv().reset(mode=mode, split="test", seed=2).allowed_actions
    assert [t["name"] for t in tools] == expected
    schema = next(t for t in tools if t["name"] == tool)["inputSchema"]
    assert schema["properties"][field]["enum"] == list(vocabulary[key])
    assert schema["additionalProperties"] is False
    assert all(t["description"] for t in tools)


def test_a_packs_tools_offer_the_packs_own_vocabulary(client):
    session = open_session(client, task="triage/pack:acme")
    tools = call(client, session, "tools/list")["result"]["tools"]
    triage = next(t for t in tools if t["name"] == "triage_email")["inputSchema"]
    assert triage["properties"]["priority"]["enum"] == ["P1", "P2", "P3", "P4"]
    assert triage["properties"]["route_to"]["enum"] == [
        "field_service",
        "platform",
        "finance",
        "safety",
    ]
    # Before any reset, a mode's generated vocabulary is offered.
    fresh = client.post("/mcp", json=rpc("tools/list", {"mode": "ticket"})).json()["result"]
    assert [t["name"] for t in fresh["tools"]][:2] == ["set_priority", "route_team"]


def test_tools_call_plays_the_oracle_to_its_grade_with_the_same_rewards_as_in_process(client):
    session = open_session(client, task="inbox/generated", split="test", seed=4)
    data: dict[str, Any] = {}
    for action, local in oracle_calls("inbox/generated", 4):
        name, arguments = as_call(action)
        answer = call(client, session, "tools/call", name=name, arguments=arguments)["result"]
        data = answer["structuredContent"]
        assert answer["isError"] is False and answer["data"] == data
        assert answer["content"][0]["text"] == data["text"]
        assert data["done"] == local.done
    assert data["grade"]["value"] == pytest.approx(1.0)
    assert data["total_reward"] == pytest.approx(local.total_reward)
    grader = client.get("/grader", headers={"X-Session-Id": session}).json()
    assert grader["score"] == pytest.approx(1.0) and grader["done"] is True
    ended = call(client, session, "tools/call", name="finish")["result"]
    assert ended["isError"] and ended["data"]["error"]["field"] == "episode"
    assert ended["data"]["done"] is True and ended["data"]["reward"] == 0.0


def test_a_refused_call_names_the_field_and_the_allowed_values_and_costs_a_step(client):
    session = open_session(client, task="ticket/generated", split="test", seed=1)
    wrong = call(client, session, "tools/call", name="set_priority", arguments={"value": SECRET})
    result = wrong["result"]
    assert result["isError"] is True
    assert result["data"]["error"] == {
        "field": "value",
        "message": "is not an allowed value",
        "allowed": ["low", "medium", "high", "urgent"],
    }
    assert "allowed: low, medium, high, urgent" in result["content"][0]["text"]
    assert result["data"]["reward"] < 0 and SECRET not in str(wrong)
    no_tool = call(client, session, "tools/call", name="teleport", arguments={})["result"]
    assert no_tool["data"]["error"]["field"] == "name"
    assert "set_priority" in no_tool["data"]["error"]["allowed"]
    extra = call(client, session, "tools/call", name="add_tag", arguments={SECRET: 1})["result"]
    assert extra["data"]["error"]["allowed"] == ["value"] and SECRET not in str(extra)
    # A tool with no arguments, given one, is refused and not played.
    closing = call(client, session, "tools/call", name="close_ticket", arguments={"x": 1})
    assert closing["result"]["isError"] and closing["result"]["data"]["done"] is False
    state = client.get("/state", headers={"X-Session-Id": session}).json()
    assert state["step_count"] == 4


def test_protocol_errors_are_json_rpc_errors_that_repeat_nothing(client):
    bad_json = client.post("/mcp", content=b"{" + SECRET.encode())
    assert bad_json.status_code == 200 and bad_json.json()["error"]["code"] == -32700
    unknown = client.post("/mcp", json=rpc(SECRET)).json()["error"]
    assert unknown["code"] == -32601 and "tools/call" in unknown["data"]["allowed"]
    no_session = client.post("/mcp", json=rpc("tools/call", {"name": "finish"})).json()["error"]
    assert no_session["data"]["field"] == "session_id"
    stranger = client.post("/mcp", json=rpc("tools/call", {"session_id": "s-" + SECRET}))
    assert stranger.json()["error"]["data"]["field"] == "session_id"
    bad_reset = client.post("/mcp", json=rpc("reset", {"colour": SECRET}))
    assert bad_reset.json()["error"]["data"]["field"] == "session_id"  # no session named
    session = open_session(client)
    bad_reset = call(client, session, "reset", colour=SECRET)["error"]
    assert bad_reset["data"]["field"] == "colour" and bad_reset["message"] == "is not a reset field"
    assert "task" in bad_reset["data"]["allowed"]
    for answer in (bad_json, unknown, no_session, stranger.json(), bad_reset):
        assert SECRET not in str(answer)
    note = client.post("/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert note.status_code == 202 and note.content == b""
    closed = call(client, session, "openenv/session/close", session_id=session)
    assert closed["result"]["closed"] is True
    # MCP's streamable HTTP: a session that is gone is a 404, so that the client starts over.
    assert call(client, session, "tools/list", 404)["error"]["data"]["field"] == "session_id"


def test_sessions_are_bounded_like_every_other_session():
    small = TestClient(build_app(max_sessions=1))
    assert small.post("/mcp", json=rpc("openenv/session/create")).json()["result"]["session_id"]
    full = small.post("/mcp", json=rpc("initialize")).json()["error"]
    assert full["code"] == -32000 and "full" in full["message"]


def test_mcp_over_websockets_plays_the_sockets_own_episode(client):
    with client.websocket_connect("/mcp") as socket:
        socket.send_json(rpc("reset", {"task": "ticket/generated", "split": "test", "seed": 3}))
        assert socket.receive_json()["result"]["data"]["mode"] == "ticket"
        data: dict[str, Any] = {}
        for action, _ in oracle_calls("ticket/generated", 3):
            name, arguments = as_call(action)
            socket.send_json(rpc("tools/call", {"name": name, "arguments": arguments}))
            data = socket.receive_json()["result"]["data"]
        assert data["done"] and data["grade"]["value"] == pytest.approx(1.0)
        socket.send_text("{" + SECRET)
        parse_error = socket.receive_json()
        assert parse_error["error"]["code"] == -32700 and SECRET not in str(parse_error)
    with client.websocket_connect("/ws") as socket:
        socket.send_json({"type": "reset", "data": {"mode": "inbox", "seed": 1}})
        socket.receive_json()
        socket.send_json({"type": "mcp", "data": rpc("tools/list")})
        frame = socket.receive_json()
        assert frame["type"] == "mcp"
        assert frame["data"]["result"]["tools"][0]["name"] == "classify_ticket"


@contextlib.contextmanager
def in_process_server() -> Iterator[str]:
    """The app served by uvicorn in a thread of this process."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(build_app(), port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=10)


async def play_with_mcp_tool_client(url: str, task: str, seed: int) -> dict[str, Any]:
    """OpenEnv's MCPToolClient as its docs show it: reset over the socket, tools over /mcp."""
    async with MCPToolClient(base_url=url) as env:
        await env.reset(task=task, split="test", seed=seed)
        tools = {t.name: t for t in await env.list_tools()}
        data: dict[str, Any] = {}
        for action, local in oracle_calls(task, seed):
            name, arguments = as_call(action)
            assert name in tools
            data = await env.call_tool(name, **arguments)
            assert data["done"] == local.done and "error" not in data
        after = await env.list_tools(use_cache=False)
        return {"data": data, "tools": tools, "after": after}


@pytest.mark.parametrize("task", ["triage/generated", "ticket/generated", "inbox/generated"])
def test_openenvs_mcp_tool_client_plays_to_the_oracles_grade_in_process(task):
    with in_process_server() as url:
        played = asyncio.run(play_with_mcp_tool_client(url, task, 6))
    assert played["data"]["grade"]["value"] == pytest.approx(1.0)
    assert all(t.input_schema["type"] == "object" for t in played["tools"].values())
    assert played["after"] == []  # an ended episode offers nothing more to do


async def play_with_fastmcp(url: str, task: str, seed: int) -> dict[str, Any]:
    """A plain MCP client (FastMCP's, over streamable HTTP) that knows nothing of reset: the
    URL names the episode."""
    from fastmcp import Client

    async with Client(f"{url}/mcp?task={task}&split=test&seed={seed}") as mcp:
        tools = {t.name: t.inputSchema for t in await mcp.list_tools()}
        data: dict[str, Any] = {}
        for action, _ in oracle_calls(task, seed):
            name, arguments = as_call(action)
            result = await mcp.call_tool(name, arguments, raise_on_error=False)
            assert not result.is_error
            data = result.structured_content or {}
        wrong = await mcp.call_tool("finish", {}, raise_on_error=False)
        return {"tools": tools, "data": data, "after_end": wrong}


def test_openenvs_mcp_tool_client_against_a_real_server():
    with running_server("--packs", PACKS) as url:
        fast = asyncio.run(play_with_fastmcp(url, "inbox/generated", 9))
        assert fast["data"]["grade"]["value"] == pytest.approx(1.0)
        assert fast["tools"]["resolve_ticket"]["properties"]["resolution_code"]["enum"]
        assert fast["after_end"].is_error
        played = asyncio.run(play_with_mcp_tool_client(url, "ticket/generated", 8))
        assert played["data"]["grade"]["value"] == pytest.approx(1.0)
        priority = played["tools"]["set_priority"].input_schema["properties"]["value"]
        assert priority["enum"] == ["low", "medium", "high", "urgent"]
        # Over plain HTTP too: the pack's own vocabulary, then a whole episode to the grade.
        with httpx.Client(base_url=url, timeout=10) as http:
            session = http.post("/mcp", json=rpc("initialize")).headers["mcp-session-id"]
            headers = {"Mcp-Session-Id": session}
            http.post("/mcp", json=rpc("reset", {"task": "inbox/pack:acme"}), headers=headers)
            tools = http.post("/mcp", json=rpc("tools/list"), headers=headers).json()
            classify = tools["result"]["tools"][0]["inputSchema"]["properties"]
            assert classify["priority"]["enum"] == ["P1", "P2", "P3", "P4"]
            wrong = http.post(
                "/mcp",
                json=rpc("tools/call", {"name": "classify_ticket", "arguments": {"x": SECRET}}),
                headers=headers,
            )
            assert wrong.status_code == 200 and SECRET not in wrong.text
            assert wrong.json()["result"]["isError"] is True


def test_sessions_close_as_mcp_clients_close_them_and_none_is_opened_for_nobody():
    app = build_app(max_sessions=8)
    client = TestClient(app)
    sessions = app.state.sessions
    before = len(sessions)
    session = open_session(client)
    assert len(sessions) == before + 1
    assert client.delete("/mcp", headers={"Mcp-Session-Id": session}).status_code == 204
    assert len(sessions) == before
    assert client.delete("/mcp", headers={"Mcp-Session-Id": session}).status_code == 404
    assert client.delete("/mcp", headers={"Mcp-Session-Id": "default"}).status_code == 404
    for method in ("initialize", "openenv/session/create"):  # as notifications: no id
        note = client.post("/mcp", json={"jsonrpc": "2.0", "method": method})
        assert note.status_code == 202
    assert len(sessions) == before
    # A failed episode named in the URL leaves no session behind, and says what is allowed.
    refused = client.post("/mcp?colour=red", json=rpc("initialize")).json()["error"]
    assert refused["data"]["field"] == "colour" and "seed" in refused["data"]["allowed"]
    refused = client.post("/mcp?task=ticket/nope", json=rpc("initialize")).json()["error"]
    assert refused["data"]["field"] == "task"
    assert len(sessions) == before


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    body=st.recursive(
        st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
        max_leaves=12,
    )
    | st.fixed_dictionaries(
        {"jsonrpc": st.just("2.0"), "method": st.sampled_from(METHODS + ["x"])},
        optional={
            "id": st.integers() | st.floats() | st.text(max_size=5) | st.none() | st.booleans(),
            "params": st.dictionaries(
                st.sampled_from(["name", "arguments", "session_id", "task", "seed", "mode"]),
                st.none() | st.text(max_size=10) | st.integers() | st.floats() | st.lists(
                    st.integers(), max_size=2),
            ),
        },
    ),
    query=st.dictionaries(
        st.sampled_from(["task", "seed", "size", "mode", "split", "colour"]),
        st.text(max_size=12) | st.sampled_from(["1e400", "nan", "-inf", "[" * 1200, "3"]),
        max_size=3,
    ),
)
def test_any_request_to_mcp_gets_an_answer_never_a_500(client, body, query):
    from urllib.parse import urlencode

    raw = json.dumps(body, allow_nan=True)
    answer = client.post("/mcp?" + urlencode(query), content=raw.encode())
    assert answer.status_code in (200, 202, 404), (body, query, answer.text[:200])
    if answer.status_code != 202:
        data = answer.json()
        assert data["jsonrpc"] == "2.0" and ("result" in data or "error" in data)
        assert data["id"] is None or isinstance(data["id"], str | int | float)
    if answer.headers.get("mcp-session-id"):  # close what was opened
        client.delete("/mcp", headers={"Mcp-Session-Id": answer.headers["mcp-session-id"]})


def test_a_joined_socket_keeps_its_session_alive_and_alone():
    app = build_app(max_sessions=8, idle_timeout_s=1.0)
    client = TestClient(app)
    session = open_session(client, task="ticket/generated", split="test", seed=3)
    with client.websocket_connect(f"/ws?session_id={session}") as socket:
        with client.websocket_connect(f"/ws?session_id={session}") as second:
            refused = second.receive_json()
            assert refused["type"] == "error" and refused["data"]["code"] == "SESSION_ERROR"
        for _ in range(3):  # longer than the idle timeout, talking all along
            time.sleep(0.5)
            socket.send_json({"type": "state"})
            assert socket.receive_json()["type"] == "state"
        assert client.get("/grader", headers={"X-Session-Id": session}).status_code == 200
        # Closed over HTTP while the socket plays it: it goes when the socket does.
        closed = call(client, session, "openenv/session/close", session_id=session)
        assert closed["result"]["closed"] is True
        assert client.get("/grader", headers={"X-Session-Id": session}).status_code == 409
        socket.send_json({"type": "step", "data": {"action_type": "noop"}})
        assert socket.receive_json()["type"] == "observation"
    assert client.get("/grader", headers={"X-Session-Id": session}).status_code == 404


def test_lean_and_full_episodes_read_the_same_over_mcp(client):
    texts = {}
    for style in ("lean", "full"):
        session = open_session(client, task="inbox/generated", split="test", seed=5,
                               observation=style)
        texts[style] = []
        for action, _ in oracle_calls("inbox/generated", 5):
            name, arguments = as_call(action)
            answer = call(client, session, "tools/call", name=name, arguments=arguments)
            texts[style].append(answer["result"]["content"][0]["text"])
    assert texts["lean"] == texts["full"]
    assert any("The customer answered" in t for t in texts["lean"])


async def read_briefing_with_fastmcp(url: str) -> dict[str, Any]:
    """FastMCP's client, unmodified: the briefing before the first call, as a resource and as
    a prompt, for an episode named in the URL."""
    from fastmcp import Client

    async with Client(f"{url}/mcp?task=triage/generated&split=test&seed=4") as mcp:
        resources = [str(r.uri) for r in await mcp.list_resources()]
        episode = await mcp.read_resource("inbox-triage://episode")
        policy = await mcp.read_resource("inbox-triage://policy")
        prompts = [p.name for p in await mcp.list_prompts()]
        prompt = await mcp.get_prompt("work_the_inbox")
        instructions = mcp.initialize_result.instructions
        return {
            "resources": resources,
            "episode": episode[0].text,
            "policy": policy[0].text,
            "prompts": prompts,
            "prompt": prompt.messages[0].content.text,
            "instructions": instructions,
        }


async def read_briefing_with_the_mcp_sdk(url: str) -> dict[str, Any]:
    """The official `mcp` SDK, unmodified, over streamable HTTP."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client

    async with (
        streamablehttp_client(f"{url}/mcp?task=ticket/generated&split=test&seed=2") as (r, w, _),
        ClientSession(r, w) as session,
    ):
        init = await session.initialize()
        episode = await session.read_resource("inbox-triage://episode")
        prompt = await session.get_prompt("work_the_inbox")
        return {
            "capabilities": init.capabilities,
            "episode": episode.contents[0].text,
            "prompt": prompt.messages[0].content.text,
        }


def test_a_plain_mcp_client_reads_the_policy_and_the_mail_before_its_first_call():
    """Issue 31: an agent that names its episode in the URL starts with what HTTP's /reset
    shows (objective, policy, choices, the mail), through standard MCP only."""
    env = InboxTriageEnv()
    first = env.reset(task="triage/generated", split="test", seed=4).model_dump()
    with in_process_server() as url:
        fast = asyncio.run(read_briefing_with_fastmcp(url))
        sdk = asyncio.run(read_briefing_with_the_mcp_sdk(url))
    assert fast["resources"] == ["inbox-triage://episode", "inbox-triage://policy"]
    assert fast["policy"] == first["policy"]
    assert first["policy"] in fast["episode"] and first["objective"] in fast["episode"]
    assert first["current_email"]["subject"] in fast["episode"]
    assert fast["prompt"] == fast["episode"]
    assert "inbox-triage://episode" in fast["instructions"]
    assert sdk["capabilities"].resources is not None and sdk["capabilities"].prompts is not None
    assert "Policy" in sdk["episode"] and len(sdk["episode"]) > 4000
    assert sdk["prompt"] == sdk["episode"]


def test_the_briefing_before_an_episode_or_of_an_unknown_resource_is_a_clear_error(client):
    session = open_session(client)
    early = call(client, session, "resources/read", uri="inbox-triage://episode")
    assert early["error"]["data"]["field"] == "episode"
    unknown = call(client, session, "resources/read", uri="file:///etc/passwd")
    assert unknown["error"]["data"] == {
        "field": "uri",
        "allowed": ["inbox-triage://episode", "inbox-triage://policy"],
    }
    assert "passwd" not in json.dumps(unknown)
    prompt = call(client, session, "prompts/get", name="nope")
    assert prompt["error"]["data"]["allowed"] == ["work_the_inbox"]
