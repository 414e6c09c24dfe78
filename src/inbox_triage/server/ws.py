"""``/ws``: OpenEnv's WebSocket protocol, served lean.

The same messages and answers as OpenEnv's own ``/ws`` (``reset``, ``step``, ``state``,
``close`` and ``mcp``; ``observation``, ``state``, ``error`` and ``mcp`` frames with OpenEnv's
error codes), so ``EnvClient``, ``GenericEnvClient`` and ``InboxTriageClient`` work unchanged.
What differs is the cost. An episode's reset or step takes a fraction of a millisecond, so it
runs on the event loop: no thread per session and no hand-over to one per message (OpenEnv
gives each session a thread of its own). Frames are written with orjson straight from the
observation's fields, without pydantic building a response model first. A session that stays
silent for the idle timeout is closed, so abandoned connections give their place back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import orjson
from fastapi import WebSocket, WebSocketDisconnect
from openenv.core.env_server.mcp_types import JsonRpcErrorCode
from openenv.core.env_server.types import (
    WSCloseMessage,
    WSErrorCode,
    WSResetMessage,
    WSStateMessage,
    WSStepMessage,
)
from pydantic import ValidationError

from inbox_triage.env import InboxTriageEnv
from inbox_triage.models import TriageObservation, validation_message
from inbox_triage.server.mcp import RpcError, answer, dispatch_bound
from inbox_triage.server.sessions import SessionStore

_ENVELOPE = frozenset({"type", "data"})
_NOT_SENT = frozenset({"reward", "done"})


class SocketSessions:
    """The open ``/ws`` sessions, against the server's limit; one sweeper closes those idle
    for longer than the timeout (cheaper than a timer per message)."""

    def __init__(self, limit: int, idle_timeout_s: float | None) -> None:
        self.limit = limit
        self.idle_timeout_s = idle_timeout_s
        self.last_seen: dict[WebSocket, float] = {}
        self._sweeper: asyncio.Task[None] | None = None

    @property
    def open(self) -> int:
        return len(self.last_seen)

    def opened(self, websocket: WebSocket) -> None:
        self.last_seen[websocket] = time.monotonic()
        if self.idle_timeout_s and (self._sweeper is None or self._sweeper.done()):
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    def closed(self, websocket: WebSocket) -> None:
        self.last_seen.pop(websocket, None)

    async def _sweep(self) -> None:
        assert self.idle_timeout_s
        every = min(30.0, self.idle_timeout_s / 2)
        while self.last_seen:
            await asyncio.sleep(every)
            cutoff = time.monotonic() - self.idle_timeout_s
            for websocket, seen in list(self.last_seen.items()):
                if seen < cutoff:
                    self.closed(websocket)
                    await _close_quietly(websocket)


def observation_frame(observation: TriageObservation) -> str:
    """An observation as OpenEnv's ``serialize_observation`` shapes it, as JSON text."""
    fields = observation.__dict__
    data: dict[str, Any] = {
        "observation": {k: v for k, v in fields.items() if k not in _NOT_SENT},
        "reward": fields["reward"],
        "done": fields["done"],
    }
    if fields.get("metadata"):
        data["metadata"] = fields["metadata"]
    return orjson.dumps({"type": "observation", "data": data}).decode()


def _error(message: str, code: WSErrorCode, **extra: Any) -> str:
    return orjson.dumps(
        {"type": "error", "data": {"message": message, "code": code.value, **extra}}
    ).decode()


def _validation_error(exc: ValidationError) -> str:
    errors = [{"loc": list(e.get("loc", ())), "msg": validation_message(e)} for e in exc.errors()]
    return _error("Invalid message", WSErrorCode.VALIDATION_ERROR, errors=errors)


def _mcp(data: Any, env: InboxTriageEnv, session_id: str) -> str | None:
    """A ``{"type": "mcp"}`` frame: JSON-RPC on the socket's own episode (``server/mcp.py``)."""
    body = dispatch_bound(data, env, session_id)
    return None if body is None else orjson.dumps({"type": "mcp", "data": body}).decode()


# What a socket does with one message: the frame to answer (None: none) and whether to go on.
Speaker = Callable[[InboxTriageEnv, Any, str], tuple[str | None, bool]]


def _answer(env: InboxTriageEnv, message: Any, session_id: str) -> tuple[str | None, bool]:
    """OpenEnv's protocol: the frame that answers one message; a message that is not a JSON
    object, or ``close``, ends the session."""
    if not isinstance(message, dict):
        return _error("a message must be a JSON object", WSErrorCode.SESSION_ERROR), False
    kind = message.get("type", "")
    data = message.get("data")
    plain = message.keys() <= _ENVELOPE
    try:
        if kind == "step":
            if not (plain and type(data) is dict):
                WSStepMessage(**message)  # raises OpenEnv's own validation error
            # Whatever the object of fields, the episode answers it (a refusal at a step's
            # cost, as over HTTP and in-process).
            return observation_frame(env.step(data)), True
        if kind == "reset":
            if not plain or ("data" in message and type(data) is not dict):
                WSResetMessage(**message)
            return observation_frame(env.reset(**(data or {}))), True
        if kind == "state":
            WSStateMessage(**message)
            return orjson.dumps({"type": "state", "data": env.state.model_dump()}).decode(), True
        if kind == "close":
            WSCloseMessage(**message)
            return None, False
        if kind == "mcp":
            return _mcp(data, env, session_id), True
    except ValidationError as exc:
        return _validation_error(exc), True
    except Exception as exc:  # noqa: BLE001 - as OpenEnv: the message fails, the session stays
        return _error(str(exc), WSErrorCode.EXECUTION_ERROR), True
    return _error(f"Unknown message type: {kind}", WSErrorCode.UNKNOWN_TYPE), True


def speak_mcp(env: InboxTriageEnv, message: Any, session_id: str) -> tuple[str | None, bool]:
    """``/mcp`` over a WebSocket: every frame one JSON-RPC request, answered in kind."""
    body = dispatch_bound(message, env, session_id)
    return (None if body is None else orjson.dumps(body).decode()), True


def mcp_bad_json(why: str) -> str:
    """A frame that is not JSON, answered as JSON-RPC's parse error."""
    return orjson.dumps(answer(None, error=RpcError(JsonRpcErrorCode.PARSE_ERROR, why))).decode()


async def serve_socket(
    websocket: WebSocket,
    sessions: SocketSessions,
    factory: Callable[[], InboxTriageEnv],
    joins: SessionStore | None = None,
    speak: Speaker = _answer,
    bad_json: Callable[[str], str] = lambda why: _error(why, WSErrorCode.INVALID_JSON),
) -> None:
    """One connection, one environment, until the client closes it, goes silent for the idle
    timeout, or sends something that is not a JSON object (answered, then closed, as OpenEnv
    does). ``?session_id=`` joins one of the HTTP sessions instead (as OpenEnv's
    ``MCPToolClient`` does with the session ``/mcp`` opened for it): the socket and
    ``POST /mcp`` then play the same episode, and the session outlives the socket."""
    await websocket.accept()
    joined = websocket.query_params.get("session_id")
    shared = joins.join(joined) if joined and joins is not None else None
    if joined and shared is None:  # unknown, the default, or played by another socket
        await _close_with(websocket, _error("Unknown session_id", WSErrorCode.SESSION_ERROR))
        return
    if sessions.open >= sessions.limit:
        if shared is not None and joins is not None:
            joins.leave(joined or "")
        await _close_with(
            websocket,
            _error(
                f"Server at capacity ({sessions.open}/{sessions.limit} sessions)",
                WSErrorCode.CAPACITY_REACHED,
                active_sessions=sessions.open,
                max_sessions=sessions.limit,
            ),
        )
        return
    sessions.opened(websocket)
    session_id = joined or str(uuid.uuid4())
    last_seen = sessions.last_seen
    try:
        env = shared.env if shared is not None else factory()
        while True:
            raw = await websocket.receive_text()
            if websocket not in last_seen:  # the sweeper closed it meanwhile
                return
            last_seen[websocket] = time.monotonic()
            if shared is not None and joins is not None:
                joins.touch(shared)
            try:
                message = orjson.loads(raw)
            except orjson.JSONDecodeError:
                try:  # what Python reads and orjson does not (NaN, huge integers), as OpenEnv
                    message = json.loads(raw)
                except json.JSONDecodeError as exc:
                    await websocket.send_text(bad_json(f"Invalid JSON: {exc}"))
                    continue
            frame, go_on = speak(env, message, session_id)
            if frame is not None:
                await websocket.send_text(frame)
            if not go_on:
                break
    except WebSocketDisconnect:
        return
    except Exception:  # noqa: BLE001 - a binary frame, a frame too large...: answer and close
        await _close_with(websocket, _error("the session failed", WSErrorCode.SESSION_ERROR))
        return
    finally:
        sessions.closed(websocket)
        if shared is not None and joins is not None:
            joins.leave(session_id)
    await _close_quietly(websocket)


async def _close_with(websocket: WebSocket, frame: str) -> None:
    try:
        await websocket.send_text(frame)
    except (RuntimeError, WebSocketDisconnect):
        return
    await _close_quietly(websocket)


async def _close_quietly(websocket: WebSocket) -> None:
    with contextlib.suppress(RuntimeError, WebSocketDisconnect):
        await websocket.close()
