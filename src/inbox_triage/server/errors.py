"""What an error may say when it leaves the server: a field, a short message, no echo.

pydantic's messages quote the input they could not use (``input_value={...}``) and link to its
docs, and many messages (ours, FastAPI's, OpenEnv's) repeat the value they refuse; echoed into
an answer, that is a way to read data out of the server or to reflect content through it. Every
error that leaves, on every route, passes :class:`ScrubErrors` on its way out, which keeps the
words and the field, shows what the request gave as '…', and cuts the message to length.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from inbox_triage.models import too_long, validation_message

MAX_MESSAGE_CHARS = 300
MIN_TOKEN_CHARS = 4
MAX_ID_CHARS = 64
_PYDANTIC_ECHO = re.compile(r"\s*\[type=[^\n]*")  # "[type=..., input_value=..., input_type=...]"
_DOCS_LINE = re.compile(r"^\s*For further information visit \S+\s*$", re.MULTILINE)
_ECHO_KEYS = {"input", "input_value", "ctx", "url"}
# A value is also cut at these (a path, a URL, a query), never at spaces: a sentence the request
# sent is one thing to hide, not a dozen words that the server's own message may also use.
_PARTS = re.compile(r"[/:@,;=&?#]+")
_WORD = r"[A-Za-z0-9_]"


def given_tokens(data: Any, known: frozenset[str] = frozenset()) -> set[str]:
    """What a request gave that an answer must not repeat: its strings (keys and values, at
    any depth, whole and in parts) and long numbers, less the names the server itself offers
    (modes, tasks, fields, vocabularies), so that a refusal still reads."""
    found: set[str] = set()

    def add(text: str) -> None:
        for piece in (text, *_PARTS.split(text)):
            if len(piece) >= MIN_TOKEN_CHARS and piece not in known:
                found.add(piece)
                found.add(repr(piece)[1:-1])  # as a quoting repr() writes it

    def walk(value: Any, depth: int = 0) -> None:
        if depth > 32:
            return
        if isinstance(value, str):
            add(value)
        elif isinstance(value, bool):
            return
        elif isinstance(value, int | float):
            if len(str(value)) > 12:
                add(str(value))
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(str(key), depth + 1)
                walk(item, depth + 1)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item, depth + 1)

    walk(data)
    return found


def public_message(text: object, tokens: Iterable[str] = (), limit: int = MAX_MESSAGE_CHARS) -> str:
    """The message without pydantic's echo of the input or its docs link, with what the
    request gave (``tokens``) shown as '…', on one line, cut to ``limit`` characters."""
    message = _DOCS_LINE.sub("", _PYDANTIC_ECHO.sub("", str(text)))
    for token in sorted(tokens, key=len, reverse=True):
        if token:  # where it stands alone: "erro" given is no reason to cut "error"
            message = re.sub(f"(?<!{_WORD}){re.escape(token)}(?!{_WORD})", "…", message)
    message = "; ".join(line.strip() for line in message.splitlines() if line.strip())
    return message if len(message) <= limit else message[: limit - 1] + "…"


def public_errors(errors: object, tokens: Iterable[str] = ()) -> list[dict[str, Any]]:
    """pydantic's ``errors()`` list as location and message only (no ``input``, ``ctx``,
    ``url``)."""
    if not isinstance(errors, list):
        return []
    out = []
    for error in errors[:10]:
        if isinstance(error, dict):
            loc = error.get("loc", ())
            parts = loc if isinstance(loc, list | tuple) else ()
            out.append(
                {
                    "loc": [public_message(p, limit=MAX_ID_CHARS) for p in parts],
                    "msg": public_message(validation_message(error), tokens),
                }
            )
    return out


def error_response(status: int, field: str, message: str, allowed: Any = None) -> JSONResponse:
    """The one shape of every error answer: ``{"error": {field, message[, allowed]}}``
    (what it repeats of the request is taken out on the way out, by :class:`ScrubErrors`)."""
    body: dict[str, Any] = {  # cut to length on the way out, once what it repeats is out
        "field": public_message(field, limit=MAX_ID_CHARS),
        "message": public_message(message, limit=1 << 20),
    }
    if allowed is not None:
        body["allowed"] = allowed
    return JSONResponse({"error": body}, status_code=status)


def first_error_field(errors: list[Any]) -> tuple[str, str]:
    """The field and message of pydantic's first error."""
    first = public_errors(errors[:1])
    if not first:
        return "body", "is invalid"
    return ".".join(first[0]["loc"]) or "body", first[0]["msg"]


def _scrub(value: Any, tokens: set[str], key: str = "") -> Any:
    """An error payload with every message made public and every echo dropped; the values
    the server offers (``allowed``) are kept as they are."""
    if isinstance(value, dict):
        out = {}
        for name, item in value.items():
            if name in _ECHO_KEYS:
                continue
            out[name] = (
                public_errors(item, tokens) if name == "errors" else _scrub(item, tokens, name)
            )
        return out
    if key in ("allowed", "type", "code"):  # the server's own values, the protocol's kinds
        return value
    if key == "field" and isinstance(value, str):  # a field is named, however it was spelt
        return public_message(value, limit=MAX_ID_CHARS)
    if isinstance(value, list):
        return [_scrub(item, tokens, key) for item in value]
    if isinstance(value, str):
        return public_message(value, tokens)
    return value


def scrub_frame(text: str, tokens: Callable[[], set[str]]) -> str:
    """An outgoing JSON frame or answer with its error parts scrubbed; other frames are left
    as they are (an observation's own ``last_action_error`` is the same in-process and over
    the wire). ``tokens`` is asked for only when there is an error to scrub."""
    head = text[:80]
    if not any(mark in head for mark in ('"error"', '"mcp"', '"jsonrpc"', '"detail"')):
        return text
    try:
        frame = json.loads(text)
    except ValueError:
        return text
    if not isinstance(frame, dict):
        return text
    if frame.get("type") == "error" or "detail" in frame:
        frame = _scrub(frame, tokens())
    elif frame.get("type") == "mcp" and isinstance(frame.get("data"), dict):
        if frame["data"].get("error") is None:
            return text
        frame["data"] = _scrub_rpc(frame["data"], tokens())
    elif "jsonrpc" in frame:
        if frame.get("error") is None:
            return text
        frame = _scrub_rpc(frame, tokens())
    elif isinstance(frame.get("error"), dict):
        frame["error"] = _scrub(frame["error"], tokens())
    else:
        return text
    return json.dumps(frame)


def _scrub_rpc(answer: dict[str, Any], tokens: set[str]) -> dict[str, Any]:
    """A JSON-RPC answer: its error scrubbed, and an id too long to be one dropped."""
    if answer.get("error") is not None:
        answer["error"] = _scrub(answer["error"], tokens)
        request_id = answer.get("id")
        if request_id is not None and len(str(request_id)) > MAX_ID_CHARS:
            answer["id"] = None
    return answer


class ScrubErrors:
    """ASGI middleware between the server and the network, for every route:

    - a request body may be at most ``max_body`` bytes, however it is sent (a chunked upload
      has no Content-Length to check first): it is read here, and 413 answered at once past
      that;
    - an error answer (HTTP status 400 and up, a JSON-RPC error from ``/mcp``, an error frame
      on a WebSocket) leaves with pydantic's echoes dropped and with nothing the request gave
      repeated: its strings, keys and long numbers are shown as '…', except the names the
      server offers itself (``known``).
    """

    def __init__(self, app: ASGIApp, max_body: int, known: frozenset[str]) -> None:
        self.app = app
        self.max_body = max_body
        self.known = known

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    def _query_tokens(self, scope: Scope) -> set[str]:
        from urllib.parse import parse_qsl

        query = scope.get("query_string", b"").decode("latin-1")
        segments = scope.get("path", "").split("/")
        return given_tokens(
            [*segments, *(v for pair in parse_qsl(query) for v in pair)], self.known
        )

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        last = ""  # the frame an error answers: read only if there is one

        async def receive_noting() -> Message:
            nonlocal last
            message = await receive()
            if message["type"] == "websocket.receive":
                last = message.get("text") or (message.get("bytes") or b"").decode(
                    "utf-8", "ignore"
                )
            return message

        def tokens() -> set[str]:
            return self._query_tokens(scope) | given_tokens(_loads(last), self.known)

        async def send_scrubbed(message: Message) -> None:
            if message["type"] == "websocket.send" and message.get("text"):
                message = {**message, "text": scrub_frame(message["text"], tokens)}
            await send(message)

        await self.app(scope, receive_noting, send_scrubbed)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Reads the whole body first (at most ``max_body`` bytes, else 413 at once), then
        runs the route on it."""
        declared = dict(scope.get("headers", [])).get(b"content-length", b"0")
        stated = int(declared) if declared.isdigit() and len(declared) <= 18 else None
        if stated is None or stated > self.max_body:
            await self._too_large(send, stated)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_body:
                await self._too_large(send)
                return
            more = message.get("more_body", False)
        request = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": request, "more_body": False}
            return await receive()

        start: Message | None = None
        held: list[bytes] = []
        mcp = scope.get("path") == "/mcp"

        async def send_scrubbed(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                if message["status"] < 400 and not mcp:
                    await send(message)
                    return
                start = message
                return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            held.append(message.get("body", b""))
            if message.get("more_body"):
                return
            body = self._scrubbed_body(scope, request, b"".join(held))
            headers = [(k, v) for k, v in start.get("headers", []) if k != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, replay, send_scrubbed)

    async def _too_large(self, send: Send, size: int | None = None) -> None:
        """413, in the words of every length refusal (a chunked upload has no size to say)."""
        body = json.dumps(
            {"error": {"field": "body", "message": too_long(self.max_body, "bytes", size)}}
        ).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _scrubbed_body(self, scope: Scope, request: bytes, answer: bytes) -> bytes:
        def tokens() -> set[str]:
            given = _loads(request.decode("utf-8", "ignore"))
            return self._query_tokens(scope) | given_tokens(given, self.known)

        return scrub_frame(answer.decode("utf-8", "replace"), tokens).encode()


def _loads(text: str) -> Any:
    """A request's JSON, or its text where it is not JSON (its words are still given)."""
    if not text.strip():
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text
