"""The ``/mcp`` routes: ``POST`` (JSON-RPC against the HTTP sessions), ``DELETE`` (how MCP's
streamable HTTP clients close their session) and the WebSocket. The protocol is in ``mcp.py``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import JSONResponse, Response
from openenv.core.env_server.mcp_types import JsonRpcErrorCode

from inbox_triage.env import InboxTriageEnv
from inbox_triage.scenarios.sources import EPISODE_FIELDS
from inbox_triage.server.mcp import (
    SESSION_HEADER,
    UNKNOWN_SESSION,
    RpcError,
    answer,
    episode_method,
    initialize,
    parse,
    valid_id,
)
from inbox_triage.server.mcp import (
    Request as RpcRequest,
)
from inbox_triage.server.sessions import (
    DEFAULT_SESSION,
    SessionError,
    SessionStore,
    check_reset_fields,
    start_episode,
)
from inbox_triage.server.ws import SocketSessions, mcp_bad_json, serve_socket, speak_mcp

# The words of MCP's envelope, which an error may say whatever the request sent.
MCP_WORDS = frozenset(
    {"jsonrpc", "id", "method", "params", "name", "arguments", "session_id", "reset", "mode"}
    | {"initialize", "tools/list", "tools/call", "ping", "URL", "task", "episode", "socket"}
    | {"uri", "resources/list", "resources/read", "prompts/list", "prompts/get", "policy"}
    | {"inbox-triage://episode", "inbox-triage://policy", "work_the_inbox"}
)


def query_episode(query: Mapping[str, str]) -> dict[str, Any]:
    """Reset fields from a URL's query (``?task=ticket/generated&seed=3``): numbers where the
    field is one (seeds, knobs), text otherwise (a wrong value is refused by the field's own
    check, by name)."""
    out: dict[str, Any] = {}
    for key, value in query.items():
        if key in EPISODE_FIELDS and key != "seed":
            out[key] = value
            continue
        try:
            number = float(value)
        except ValueError:
            out[key] = value
            continue
        out[key] = int(number) if number.is_integer() and "." not in value else number
        if not math.isfinite(number):
            out[key] = value
    return out


class HttpMcp:
    """``POST /mcp`` against the server's HTTP sessions."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store

    def handle(
        self, body: Any, named: str | None, episode: dict[str, Any]
    ) -> tuple[dict[str, Any] | None, str | None]:
        """The answer (None for a notification) and the session to name in the
        ``Mcp-Session-Id`` header. ``episode`` (the URL's query) is started in a session that
        ``initialize`` or ``openenv/session/create`` opens: an MCP client that knows nothing
        of ``reset`` plays the episode its URL names."""
        try:
            request = parse(body)
        except RpcError as exc:
            return answer(valid_id(body), error=exc), None
        if request.notification:  # nothing to answer, and nothing opened for nobody
            return None, None
        try:
            result, session_id = self._method(request, named, episode)
        except RpcError as exc:
            return answer(request.id, error=exc), None
        except SessionError as exc:
            code = JsonRpcErrorCode.SERVER_ERROR if exc.status == 503 else None
            message = exc.message if exc.status != 404 else UNKNOWN_SESSION
            error = RpcError(code or JsonRpcErrorCode.INVALID_PARAMS, message, exc.field)
            error.allowed = exc.allowed
            return answer(request.id, error=error), None
        return answer(request.id, result), session_id

    def _method(
        self, request: RpcRequest, named: str | None, episode: dict[str, Any]
    ) -> tuple[Any, str | None]:
        method, params = request.method, request.params
        named = params.get("session_id", named)
        if named is not None and not isinstance(named, str):
            raise RpcError(JsonRpcErrorCode.INVALID_PARAMS, "must be a string", "session_id")
        if method in ("initialize", "openenv/session/create"):
            if named is not None:
                self.store.get(named, create=False)  # an unknown one is refused
                session_id = named
            else:
                session_id = self._open(episode)
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
            return episode_method(request, None), None
        session = self.store.get(named, create=False)
        with session.lock:
            return episode_method(request, session.env), named

    def _open(self, episode: dict[str, Any]) -> str:
        if episode:
            check_reset_fields(episode)  # before a session is made for it
        session_id = self.store.new_id()
        session = self.store.get(session_id, create=True)
        if episode:
            try:
                start_episode(session.env, episode)
            except SessionError:
                self.store.close(session_id)
                raise
        return session_id


def add_mcp(
    app: FastAPI,
    store: SessionStore,
    sockets: SocketSessions,
    factory: Callable[[], InboxTriageEnv],
) -> None:
    """Mounts ``/mcp`` (POST, DELETE and the WebSocket) on the app."""
    mcp = HttpMcp(store)

    @app.post("/mcp", tags=["MCP"], summary="MCP: initialize, reset, tools/list, tools/call")
    async def mcp_http(request: Request) -> Response:
        try:
            body = json.loads(await request.body())
        except (ValueError, RecursionError):
            error = RpcError(JsonRpcErrorCode.PARSE_ERROR, "the body is not valid JSON")
            return JSONResponse(answer(None, error=error))
        header = request.headers.get(SESSION_HEADER)
        named = header or request.headers.get("x-session-id")
        result, session_id = mcp.handle(body, named, query_episode(request.query_params))
        if result is None:
            return Response(status_code=202)
        # MCP's streamable HTTP: an unknown Mcp-Session-Id is a 404, so the client starts over.
        gone = header is not None and "error" in result and not _known(store, header)
        headers = {"Mcp-Session-Id": session_id} if session_id else None
        return JSONResponse(result, status_code=404 if gone else 200, headers=headers)

    @app.delete("/mcp", tags=["MCP"], summary="Close the MCP session named by Mcp-Session-Id")
    async def mcp_close(request: Request) -> Response:
        named = request.headers.get(SESSION_HEADER)
        if not named or named == DEFAULT_SESSION or not _known(store, named):
            return JSONResponse(
                {"error": {"field": "Mcp-Session-Id", "message": "is not open"}}, status_code=404
            )
        store.close(named)
        return Response(status_code=204)

    @app.websocket("/mcp")
    async def mcp_socket(socket: WebSocket) -> None:
        await serve_socket(socket, sockets, factory, store, speak_mcp, mcp_bad_json)


def _known(store: SessionStore, session_id: str) -> bool:
    try:
        store.get(session_id, create=False)
    except SessionError:
        return False
    return True
