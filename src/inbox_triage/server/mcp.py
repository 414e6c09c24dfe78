"""``/mcp``: the episode's actions as MCP tools, over HTTP and over WebSocket.

JSON-RPC 2.0 as MCP speaks it: ``initialize``, ``ping``, ``tools/list`` and ``tools/call``,
``resources/list`` and ``resources/read`` (the episode's briefing: objective, policy, choices
and the mail as it stands, and the policy alone), ``prompts/list`` and ``prompts/get`` (the same
briefing as the user turn that starts the work: what a plain client that names its episode in
the URL reads before its first call); OpenEnv's ``openenv/session/create`` and
``openenv/session/close``; and ``reset``, which starts an episode in the session (the fields of
``POST /reset``). Over HTTP a session is one of the server's HTTP sessions, named by
``params.session_id``, the ``Mcp-Session-Id`` header (``initialize`` opens one and answers it
there, as MCP's streamable HTTP transport expects) or ``X-Session-Id``, so ``/reset``,
``/grader`` and ``/ws?session_id=`` (what OpenEnv's ``MCPToolClient`` connects to) see the same
episode. A plain MCP client, which knows nothing of ``reset``, names its episode in the URL:
``/mcp?task=ticket/generated&seed=3`` starts it in the session ``initialize`` opens. Over a
WebSocket (``/mcp``, or a ``{"type": "mcp"}`` frame on ``/ws``) the session is the socket's own.

The tools are the mode's actions with the episode's vocabulary as enums
(``inbox_triage.action_tools``); before a reset, ``tools/list`` shows those of
``params.mode`` (default triage). A call plays one step: its answer is the observation as text
(``content``) and, in ``structuredContent`` (and ``data``, which ``MCPToolClient`` returns),
the reward, ``done`` and, on the last step, the grade. A refused call is a step like any other
(it costs the invalid-action penalty, so an agent sending garbage still ends its episode): its
answer has ``isError`` and names the field and the allowed values.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from typing import Any

from openenv.core.env_server.mcp_types import JsonRpcErrorCode

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
    start_episode,
)
from inbox_triage.version import __version__

PROTOCOLS = ("2024-11-05", "2025-03-26", "2025-06-18")
SESSION_HEADER = "mcp-session-id"
DEFAULT_MODE = "triage"
ENDED = "has ended: there is nothing more to do (reset starts another)"
NO_EPISODE = "has not started: reset it first, or name the episode in the URL (/mcp?task=...)"
NO_SESSION = "is missing: open a session with openenv/session/create or initialize first"
SOCKET_SESSION = "is the socket's: it closes when the socket does"
UNKNOWN_SESSION = "is not an open session: open one with openenv/session/create or initialize"
INSTRUCTIONS = (
    "A company's shared support inbox. Read the resource inbox-triage://episode (or get the "
    "prompt work_the_inbox) first: it holds the objective, the written policy you must follow, "
    "the values you may choose and the mail. Then call the tools, one per step, until an answer "
    "says done. Name the episode in the URL (/mcp?task=triage/generated&seed=3) or start one "
    "with the JSON-RPC method reset (task, split, difficulty, seed)."
)
EPISODE_URI = "inbox-triage://episode"
POLICY_URI = "inbox-triage://policy"
PROMPT = "work_the_inbox"
RESOURCES = [
    {
        "uri": EPISODE_URI,
        "name": "episode",
        "title": "The episode: objective, policy, choices and the mail",
        "description": "Everything an agent reads before its first tool call, as it stands now.",
        "mimeType": "text/markdown",
    },
    {
        "uri": POLICY_URI,
        "name": "policy",
        "title": "The support policy",
        "description": "The written policy the episode is graded by, with its rule codes.",
        "mimeType": "text/markdown",
    },
]
PROMPTS = [
    {
        "name": PROMPT,
        "title": "Work the inbox",
        "description": "The episode's briefing as the user turn that starts the work.",
        "arguments": [],
    }
]


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


def valid_id(body: Any) -> Any:
    """The request's id if it is one JSON-RPC allows (a string or a finite number), else None:
    an error answer never repeats anything else the request sent as its id."""
    request_id = body.get("id") if isinstance(body, dict) else None
    if isinstance(request_id, bool) or not isinstance(request_id, str | int | float):
        return None
    if isinstance(request_id, float) and not math.isfinite(request_id):
        return None
    return request_id


def parse(body: Any) -> Request:
    """A JSON-RPC request, or :class:`RpcError` saying what is wrong with it."""
    if not isinstance(body, dict):
        raise RpcError(JsonRpcErrorCode.INVALID_REQUEST, "a request must be one JSON object")
    request_id = body.get("id")
    if body.get("jsonrpc") != "2.0":
        raise RpcError(JsonRpcErrorCode.INVALID_REQUEST, 'must be "2.0"', "jsonrpc")
    if request_id is not None and valid_id(body) is None:
        raise RpcError(JsonRpcErrorCode.INVALID_REQUEST, "must be a string or a number", "id")
    method = body.get("method")
    if not isinstance(method, str):
        raise RpcError(JsonRpcErrorCode.INVALID_REQUEST, "must be a string", "method")
    params = body.get("params")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RpcError(JsonRpcErrorCode.INVALID_PARAMS, "must be an object", "params")
    return Request(request_id, method, params, notification="id" not in body)


def initialize(params: dict[str, Any], session_id: str | None) -> dict[str, Any]:
    asked = params.get("protocolVersion")
    result: dict[str, Any] = {
        "protocolVersion": asked if asked in PROTOCOLS else PROTOCOLS[-1],
        "capabilities": {
            "tools": {"listChanged": False},
            "resources": {"listChanged": False, "subscribe": False},
            "prompts": {"listChanged": False},
        },
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


def briefing(env: InboxTriageEnv) -> str:
    """What an agent reads before acting: the objective, the policy, the values it may choose
    and the mail as it stands (HTTP's first observation, as text)."""
    view = env.full_view().model_dump()
    mode = view["mode"]
    choices = "\n".join(
        f"- {key}: {', '.join(map(str, values))}"
        for key, values in (view.get("vocabulary") or {}).items()
        if values and isinstance(values, list | dict)
    )
    return (
        f"# {view['title']}\n\n{view['objective']}\n\n"
        f"## The values you may choose\n\n{choices}\n\n"
        f"## The inbox now\n\n{render(mode, view, 0)}\n\n"
        f"## Policy\n\n{view['policy']}"
    )


def _started(env: InboxTriageEnv | None) -> InboxTriageEnv:
    if env is None:
        raise RpcError(JsonRpcErrorCode.INVALID_PARAMS, NO_SESSION, "session_id")
    if env.scenario is None:
        raise RpcError(JsonRpcErrorCode.INVALID_REQUEST, NO_EPISODE, "episode")
    return env


def read_resource(env: InboxTriageEnv | None, params: dict[str, Any]) -> dict[str, Any]:
    uri = params.get("uri")
    known = [r["uri"] for r in RESOURCES]
    if uri not in known:
        raise RpcError(JsonRpcErrorCode.INVALID_PARAMS, "is not a resource", "uri", known)
    env = _started(env)
    text = briefing(env) if uri == EPISODE_URI else env.full_view().policy or ""
    return {"contents": [{"uri": uri, "mimeType": "text/markdown", "text": text}]}


def get_prompt(env: InboxTriageEnv | None, params: dict[str, Any]) -> dict[str, Any]:
    if params.get("name") != PROMPT:
        raise RpcError(JsonRpcErrorCode.INVALID_PARAMS, "is not a prompt", "name", [PROMPT])
    text = briefing(_started(env))
    return {
        "description": PROMPTS[0]["description"],
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
    }


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
    return tool_result(data, render(mode, observation, _shown(env, observation)))


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
    else:  # rendered whole, whatever the episode's style: a lean step leaves texts out
        view = env.full_view(observation["last_feedback"]).model_dump()
        text = step_text(mode, {**view, "done": observation["done"]}, _shown(env, view))
    metadata = observation.get("metadata") or {}
    if observation["done"]:
        data.update(
            grade=metadata.get("grade"),
            total_reward=metadata.get("total_reward"),
            penalties=metadata.get("penalties"),
        )
    return tool_result(data, text)


# Per episode, how many customer answers its tool answers have shown (ticket mode shows each
# once, as the TRL, verifiers and SkyRL routes do).
_ANSWERS_SHOWN: weakref.WeakKeyDictionary[InboxTriageEnv, tuple[str, int]] = (
    weakref.WeakKeyDictionary()
)


def _shown(env: InboxTriageEnv, observation: dict[str, Any]) -> int:
    """The customer answers already shown in this episode; notes the ones shown now."""
    episode = str(env.state.episode_id)
    seen_episode, count = _ANSWERS_SHOWN.get(env, (episode, 0))
    before = count if seen_episode == episode else 0
    _ANSWERS_SHOWN[env] = (episode, len(observation.get("customer_messages") or []))
    return before


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
        return answer(valid_id(body), error=exc)
    if request.notification:  # nothing to answer; only notifications/* mean anything
        return None
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
        raise RpcError(JsonRpcErrorCode.INVALID_REQUEST, SOCKET_SESSION, "session_id")
    return episode_method(request, env)


def episode_method(request: Request, env: InboxTriageEnv | None) -> Any:
    """The methods that act on the session's episode (env None: no session was named)."""
    method, params = request.method, request.params
    if method == "ping" or method.startswith("notifications/"):
        return {}
    if method == "tools/list":
        return list_tools(env, params)
    if method == "resources/list":
        return {"resources": RESOURCES}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    if method == "prompts/list":
        return {"prompts": PROMPTS}
    if method == "resources/read":
        return read_resource(env, params)
    if method == "prompts/get":
        return get_prompt(env, params)
    if method not in ("tools/call", "reset"):
        raise RpcError(JsonRpcErrorCode.METHOD_NOT_FOUND, "is not a method", "method", METHODS)
    if env is None:
        raise RpcError(JsonRpcErrorCode.INVALID_PARAMS, NO_SESSION, "session_id")
    return reset(env, params) if method == "reset" else call_tool(env, params)


METHODS = [
    "initialize",
    "ping",
    "reset",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "openenv/session/create",
    "openenv/session/close",
]
