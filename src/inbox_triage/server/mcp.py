"""``/mcp``: the episode's actions as MCP tools, over HTTP and over WebSocket.

JSON-RPC 2.0 as MCP speaks it: ``initialize``, ``ping``, ``tools/list`` and ``tools/call``;
OpenEnv's ``openenv/session/create`` and ``openenv/session/close``; and ``reset``, which starts
an episode in the session (the fields of ``POST /reset``). Over HTTP a session is one of the
server's HTTP sessions, named by ``params.session_id``, the ``Mcp-Session-Id`` header
(``initialize`` opens one and answers it there, as MCP's streamable HTTP transport expects) or
``X-Session-Id``, so ``/reset``, ``/grader`` and ``/ws?session_id=`` (what OpenEnv's
``MCPToolClient`` connects to) see the same episode. A plain MCP client, which knows nothing of
``reset``, names its episode in the URL: ``/mcp?task=ticket/generated&seed=3`` starts it in the
session ``initialize`` opens. Over a WebSocket (``/mcp``, or a ``{"type": "mcp"}`` frame on
``/ws``) the session is the socket's own.

The tools are the mode's actions with the episode's vocabulary as enums
(``inbox_triage.action_tools``); before a reset, ``tools/list`` shows those of
``params.mode`` (default triage). A call plays one step: its answer is the observation as text
(``content``) and, in ``structuredContent`` (and ``data``, which ``MCPToolClient`` returns),
the reward, ``done`` and, on the last step, the grade. A refused call is a step like any other
(it costs the invalid-action penalty, so an agent sending garbage still ends its episode): its
answer has ``isError`` and names the field and the allowed values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from openenv.core.env_server.mcp_types import JsonRpcErrorCode

from inbox_triage import __version__
from inbox_triage.action_tools import (
    MODES,
    ToolRefused,
    mcp_tools,
    refusal_text,
    render,
    step_text,
    to_action,
)
from inbox_triage.env import InboxTriageEnv
from inbox_triage.server.sessions import (
    SessionError,
    SessionStore,
    check_reset_fields,
    start_episode,
)

PROTOCOLS = ("2024-11-05", "2025-03-26", "2025-06-18")
SESSION_HEADER = "mcp-session-id"
DEFAULT_MODE = "triage"
ENDED = "has ended: there is nothing more to do (reset starts another)"
NO_EPISODE = "has not started: reset it first, or name the episode in the URL (/mcp?task=...)"
UNKNOWN_SESSION = "is not an open session: open one with openenv/session/create or initialize"
INSTRUCTIONS = (
    "A support inbox. Start an episode with `reset` (task, split, difficulty, seed), list the "
    "tools of its mode with tools/list, and call one tool per step until the answer says done."
)


class RpcError(Exception):
    """A JSON-RPC error: its code, a message in the server's own words, and the field and the
    allowed values where there are some."""

    def __init__(
        self,
        code: JsonRpcErrorCode,
        message: str,
        field: str | None = None,
        allowed: list[str] | None = None,
    ) -> None:
        super().__init__(message)
        self.code, self.message, self.field, self.allowed = code.value, message, field, allowed

    def data(self) -> dict[str, Any] | None:
        if self.field is None:
            return None
        return {"field": self.field, "allowed": self.allowed}


def answer(request_id: Any, result: Any = None, error: RpcError | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
    if error is None:
        body["result"] = result
    else:
        body["error"] = {"code": error.code, "message": error.message, "data": error.data()}
    return body


@dataclass
class Request:
    id: Any
    method: str
    params: dict[str, Any]
    notification: bool


def parse(body: Any) -> Request:
    """A JSON-RPC request, or :class:`RpcError` saying what is wrong with it."""
    if not isinstance(body, dict):
        raise RpcError(JsonRpcErrorCode.INVALID_REQUEST, "a request must be one JSON object")
    request_id = body.get("id")
    if body.get("jsonrpc") != "2.0":
        raise RpcError(JsonRpcErrorCode.INVALID_REQUEST, 'jsonrpc must be "2.0"', "jsonrpc")
    if request_id is not None and (
        isinstance(request_id, bool) or not isinstance(request_id, str | int)
    ):
        raise RpcError(JsonRpcErrorCode.INVALID_REQUEST, "id must be a string or a number", "id")
    method = body.get("method")
    if not isinstance(method, str):
        raise RpcError(JsonRpcErrorCode.INVALID_REQUEST, "method must be a string", "method")
    params = body.get("params")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RpcError(JsonRpcErrorCode.INVALID_PARAMS, "params must be an object", "params")
    return Request(request_id, method, params, notification="id" not in body)


def initialize(params: dict[str, Any], session_id: str | None) -> dict[str, Any]:
    asked = params.get("protocolVersion")
    result: dict[str, Any] = {
        "protocolVersion": asked if asked in PROTOCOLS else PROTOCOLS[-1],
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": "inbox-triage", "version": __version__},
        "instructions": INSTRUCTIONS,
    }
    if session_id is not None:
        result["_meta"] = {"session_id": session_id}
    return result


def list_tools(env: InboxTriageEnv | None, params: dict[str, Any]) -> dict[str, Any]:
    """The tools of the session's episode, or of ``params.mode`` before one has started."""
    if env is not None and env.scenario is not None:
        offer = env.offer()
        return {"tools": mcp_tools(offer["mode"], offer)}
    mode = params.get("mode", DEFAULT_MODE)
    if mode not in MODES:
        raise RpcError(JsonRpcErrorCode.INVALID_PARAMS, "is not a mode", "mode", list(MODES))
    return {"tools": mcp_tools(mode)}


def reset(env: InboxTriageEnv, params: dict[str, Any]) -> dict[str, Any]:
    fields = {k: v for k, v in params.items() if k not in ("session_id", "_meta")}
    try:
        observation = start_episode(env, fields).model_dump()
    except SessionError as exc:
        raise RpcError(
            JsonRpcErrorCode.INVALID_PARAMS, exc.message, exc.field, exc.allowed
        ) from None
    mode = observation["mode"]
    data = {"task_id": observation["task_id"], "mode": mode, "done": False}
    return tool_result(data, render(mode, observation))


def call_tool(env: InboxTriageEnv, params: dict[str, Any]) -> dict[str, Any]:
    """One step: the call as its action, played; the answer as MCP's ``CallToolResult``."""
    if env.scenario is None:
        raise RpcError(JsonRpcErrorCode.INVALID_REQUEST, NO_EPISODE, "episode")
    if env.done:  # the model's answer, as a refusal: it has nothing left to do
        error = {"field": "episode", "message": ENDED, "allowed": None}
        return tool_result({"reward": 0.0, "done": True, "error": error}, refusal_text(error))
    mode = env.scenario.mode
    name, arguments = params.get("name"), params.get("arguments")
    refused: dict[str, Any] | None = None
    try:
        action = to_action(mode, name, arguments)
    except ToolRefused as exc:  # still a step, refused by the environment and counted
        refused = exc.as_error()
        action = {"action_type": "refused_tool_call"}  # never the tool without its arguments
    observation = env.step(action).model_dump()
    error = refused or observation.get("last_action_error")
    data: dict[str, Any] = {
        "reward": observation["reward"],
        "done": observation["done"],
        "steps_remaining": observation.get("steps_remaining"),
    }
    if error:
        data["error"] = {k: error.get(k) for k in ("field", "message", "allowed")}
        text = refusal_text(error)
    else:
        text = step_text(mode, observation)
    metadata = observation.get("metadata") or {}
    if observation["done"]:
        data.update(
            grade=metadata.get("grade"),
            total_reward=metadata.get("total_reward"),
            penalties=metadata.get("penalties"),
        )
    return tool_result(data, text)


def tool_result(data: dict[str, Any], text: str) -> dict[str, Any]:
    """MCP's ``CallToolResult``: the text a model reads, the same as data (with ``data``, the
    key ``MCPToolClient.call_tool`` returns), and ``isError`` for a refusal."""
    data = {**data, "text": text}
    return {
        "content": [{"type": "text", "text": text}],
        "structuredContent": data,
        "isError": "error" in data,
        "data": data,
    }


def dispatch_bound(body: Any, env: InboxTriageEnv, session_id: str) -> dict[str, Any] | None:
    """A request on a WebSocket: its session is the socket's (None: a notification)."""
    try:
        request = parse(body)
    except RpcError as exc:
        return answer(body.get("id") if isinstance(body, dict) else None, error=exc)
    try:
        result = _bound(request, env, session_id)
    except RpcError as exc:
        return None if request.notification else answer(request.id, error=exc)
    return None if request.notification else answer(request.id, result)


def _bound(request: Request, env: InboxTriageEnv, session_id: str) -> Any:
    method, params = request.method, request.params
    if method == "initialize":
        return initialize(params, session_id)
    if method == "openenv/session/create":
        return {"session_id": session_id}
    if method == "openenv/session/close":
        raise RpcError(
            JsonRpcErrorCode.INVALID_REQUEST, "a socket's session closes with the socket"
        )
    return _episode_method(request, env)


def _episode_method(request: Request, env: InboxTriageEnv | None) -> Any:
    method, params = request.method, request.params
    if method == "ping" or method.startswith("notifications/"):
        return {}
    if method == "tools/list":
        return list_tools(env, params)
    if method not in ("tools/call", "reset"):
        raise RpcError(JsonRpcErrorCode.METHOD_NOT_FOUND, "is not a method", "method", METHODS)
    if env is None:
        raise RpcError(
            JsonRpcErrorCode.INVALID_PARAMS,
            "names no session: call openenv/session/create (or initialize), then reset",
            "session_id",
        )
    return reset(env, params) if method == "reset" else call_tool(env, params)


METHODS = [
    "initialize",
    "ping",
    "reset",
    "tools/list",
    "tools/call",
    "openenv/session/create",
    "openenv/session/close",
]


class HttpMcp:
    """``POST /mcp`` against the server's HTTP sessions."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store

    def handle(
        self, body: Any, header_session: str | None, episode: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any] | None, str | None]:
        """The answer (None for a notification) and the session to name in the
        ``Mcp-Session-Id`` header. ``episode`` (the URL's query) is started in a session that
        ``initialize`` or ``openenv/session/create`` opens: an MCP client that knows nothing
        of ``reset`` plays the episode its URL names."""
        self.episode = episode or {}
        try:
            request = parse(body)
        except RpcError as exc:
            return answer(body.get("id") if isinstance(body, dict) else None, error=exc), None
        try:
            result, session_id = self._method(request, header_session)
        except RpcError as exc:
            return (None if request.notification else answer(request.id, error=exc)), None
        except SessionError as exc:
            code = JsonRpcErrorCode.SERVER_ERROR if exc.status == 503 else None
            message = exc.message if exc.status != 404 else UNKNOWN_SESSION
            error = RpcError(code or JsonRpcErrorCode.INVALID_PARAMS, message, exc.field)
            return (None if request.notification else answer(request.id, error=error)), None
        return (None if request.notification else answer(request.id, result)), session_id

    def _method(self, request: Request, header_session: str | None) -> tuple[Any, str | None]:
        method, params = request.method, request.params
        named = params.get("session_id", header_session)
        if named is not None and not isinstance(named, str):
            raise RpcError(JsonRpcErrorCode.INVALID_PARAMS, "must be a string", "session_id")
        if method in ("initialize", "openenv/session/create"):
            if named is not None:
                self.store.get(named, create=False)  # an unknown one is refused
                session_id = named
            else:
                session_id = self._open()
            if method == "initialize":
                return initialize(params, session_id), session_id
            return {"session_id": session_id}, session_id
        if method == "openenv/session/close":
            if named is None:
                raise RpcError(JsonRpcErrorCode.INVALID_PARAMS, "is required", "session_id")
            SessionStore.check_id(named)
            if not self.store.close(named):
                raise RpcError(JsonRpcErrorCode.INVALID_PARAMS, UNKNOWN_SESSION, "session_id")
            return {"session_id": named, "closed": True}, None
        if named is None:
            return _episode_method(request, None), None
        session = self.store.get(named, create=False)
        with session.lock:
            return _episode_method(request, session.env), named

    def _open(self) -> str:
        if self.episode:
            check_reset_fields(self.episode)  # before a session is made for it
        session_id = self.store.new_id()
        session = self.store.get(session_id, create=True)
        if self.episode:
            try:
                start_episode(session.env, self.episode)
            except SessionError:
                self.store.close(session_id)
                raise
        return session_id


def query_episode(query: Mapping[str, str]) -> dict[str, Any]:
    """Reset fields from a URL's query (``?task=ticket/generated&seed=3``): numbers where the
    field is one (seeds, knobs), text otherwise."""
    out: dict[str, Any] = {}
    for key, value in query.items():
        if key in TEXT_FIELDS:
            out[key] = value
            continue
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value  # refused by the field's own check, by name
    return out


TEXT_FIELDS = frozenset(
    {"task", "task_id", "mode", "split", "difficulty", "episode_id", "observation"}
)
