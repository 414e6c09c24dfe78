"""What an error may say when it leaves the server: a field, a short message, no echo.

pydantic's messages quote the input they could not use (``input_value={...}``) and link to its
docs; echoed into an answer, a validation message is a way to read data out of the server. Every
error that leaves (our routes, FastAPI's validation, OpenEnv's WebSocket and MCP frames) goes
through :func:`public_message`, which keeps the words and drops the echo, within a length cap.
"""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_MESSAGE_CHARS = 300
_PYDANTIC_ECHO = re.compile(r"\s*\[type=[^\n]*")  # "[type=..., input_value=..., input_type=...]"
_DOCS_LINE = re.compile(r"^\s*For further information visit \S+\s*$", re.MULTILINE)
_ECHO_KEYS = {"input", "input_value", "ctx", "url"}


def public_message(text: object, limit: int = MAX_MESSAGE_CHARS) -> str:
    """The message without pydantic's echo of the input or its docs link, on one line,
    cut to ``limit`` characters."""
    message = _DOCS_LINE.sub("", _PYDANTIC_ECHO.sub("", str(text)))
    message = "; ".join(line.strip() for line in message.splitlines() if line.strip())
    return message if len(message) <= limit else message[: limit - 1] + "…"


def public_errors(errors: object) -> list[dict[str, Any]]:
    """pydantic's ``errors()`` list as location and message only (no ``input``, ``ctx``,
    ``url``)."""
    if not isinstance(errors, list):
        return []
    out = []
    for error in errors[:10]:
        if isinstance(error, dict):
            loc = error.get("loc", ())
            out.append(
                {
                    "loc": [str(p)[:64] for p in loc] if isinstance(loc, list | tuple) else [],
                    "msg": public_message(error.get("msg", "is invalid")),
                }
            )
    return out


def error_response(status: int, field: str, message: str, allowed: Any = None) -> JSONResponse:
    """The one shape of every error answer: ``{"error": {field, message[, allowed]}}``."""
    body: dict[str, Any] = {"field": public_message(field, 64), "message": public_message(message)}
    if allowed is not None:
        body["allowed"] = allowed
    return JSONResponse({"error": body}, status_code=status)


def first_error_field(errors: list[Any]) -> tuple[str, str]:
    """The field and message of pydantic's first error."""
    first = public_errors(errors[:1])
    if not first:
        return "body", "is invalid"
    return ".".join(first[0]["loc"]) or "body", first[0]["msg"]


def _scrub(value: Any) -> Any:
    """An error payload with every message made public and every echo dropped."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in _ECHO_KEYS:
                continue
            if key == "errors":
                out[key] = public_errors(item)
            elif key in ("message", "msg", "detail") and isinstance(item, str):
                out[key] = public_message(item)
            else:
                out[key] = _scrub(item)
        return out
    if isinstance(value, list):
        return [_scrub(item) for item in value]
    if isinstance(value, str):
        return public_message(value)
    return value


def scrub_frame(text: str) -> str:
    """An outgoing JSON frame with its error parts scrubbed; other frames are left as they are
    (an observation's own ``last_action_error`` is the same in-process and over the wire)."""
    head = text[:80]
    if '"error"' not in head and '"mcp"' not in head and '"jsonrpc"' not in head:
        return text
    try:
        frame = json.loads(text)
    except ValueError:
        return text
    if not isinstance(frame, dict):
        return text
    if frame.get("type") == "error":
        frame["data"] = _scrub(frame.get("data"))
    elif frame.get("type") == "mcp" and isinstance(frame.get("data"), dict):
        if "error" in frame["data"]:
            frame["data"]["error"] = _scrub(frame["data"]["error"])
    elif "jsonrpc" in frame and frame.get("error") is not None:
        frame["error"] = _scrub(frame["error"])
    else:
        return text
    return json.dumps(frame)


class ScrubErrors:
    """ASGI middleware: scrubs the error frames OpenEnv's WebSocket routes send and the
    JSON-RPC answers of ``POST /mcp``, whose messages embed pydantic's full text."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":

            async def send_scrubbed(message: Message) -> None:
                if message["type"] == "websocket.send" and message.get("text"):
                    message = {**message, "text": scrub_frame(message["text"])}
                await send(message)

            await self.app(scope, receive, send_scrubbed)
        elif scope["type"] == "http" and scope.get("path") == "/mcp":
            await self._buffered(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _buffered(self, scope: Scope, receive: Receive, send: Send) -> None:
        start: Message | None = None
        chunks: list[bytes] = []

        async def collect(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
                return
            if message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if message.get("more_body"):
                    return
                assert start is not None
                body = scrub_frame(b"".join(chunks).decode("utf-8", "replace")).encode()
                headers = [(k, v) for k, v in start.get("headers", []) if k != b"content-length"]
                headers.append((b"content-length", str(len(body)).encode()))
                await send({**start, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
            await send(message)

        await self.app(scope, receive, collect)
