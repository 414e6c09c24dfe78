"""A scripted OpenAI-compatible chat-completions server (stdlib only), standing in for a model.

It answers each ``POST .../chat/completions`` with the next action of a JSON script, as the
assistant's text: the k-th answer is ``actions[k]``, where k is the number of assistant
messages already in the request. Counting the history, not the calls, makes a retried request
get the same answer. verifiers 0.4.0's chat harness always asks for ``stream=True``, so
streaming (SSE) is served; plain JSON is served too. Once the script runs out, the answer is
empty, which makes the OpenEnv taskset stop the episode (``empty_action``).

Usage: python scripted_model.py SCRIPT.json [--port 8012] [--log requests.jsonl]
(SCRIPT.json holds ``{"actions": [{...}, ...]}``, as ``dump_oracle.py`` writes it.)
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TextIO

USAGE = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}


class ScriptedHandler(BaseHTTPRequestHandler):
    """Serves ``GET .../models`` and ``POST .../chat/completions`` from the server's script."""

    server: ScriptedServer

    def do_GET(self) -> None:  # the name http.server dispatches to
        if self.path.rstrip("/").endswith("/models"):
            self._send_json(
                200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]}
            )
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        length = int(self.headers.get("Content-Length", 0))
        request = json.loads(self.rfile.read(length) or b"{}")
        messages = request.get("messages", [])
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        actions = self.server.actions
        text = json.dumps(actions[turn]) if turn < len(actions) else ""
        self.server.log_request(turn, request, text)
        reply_id = f"chatcmpl-scripted-{turn}"
        model = request.get("model", "scripted")
        if request.get("stream"):
            self._stream(reply_id, model, text)
        else:
            self._send_json(
                200,
                {
                    "id": reply_id,
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "usage": USAGE,
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": text},
                        }
                    ],
                },
            )

    def _send_json(self, code: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, reply_id: str, model: str, text: str) -> None:
        """The whole answer in one content chunk, then the stop chunk, a usage chunk and
        ``[DONE]``; the connection closes after it, so no Content-Length is needed."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        created = int(time.time())

        def event(choices: list[dict[str, Any]], **extra: Any) -> None:
            chunk = {
                "id": reply_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": choices,
                **extra,
            }
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")

        event(
            [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}]
        )
        event([{"index": 0, "delta": {}, "finish_reason": "stop"}])
        event([], usage=USAGE)
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:  # the base class names it so
        """Quiet: the request log (``--log``) says more than the access log would."""


class ScriptedServer(ThreadingHTTPServer):
    """A threading HTTP server holding the script and an optional request log."""

    daemon_threads = True

    def __init__(self, port: int, actions: list[dict[str, Any]], log: TextIO | None) -> None:
        super().__init__(("127.0.0.1", port), ScriptedHandler)
        self.actions = actions
        self._log = log
        self._log_lock = threading.Lock()

    def log_request(self, turn: int, request: dict[str, Any], answer: str) -> None:
        """One JSON line per request: what a check needs to see the model was offered
        (the system prompt, the tools, streaming) and what it answered."""
        if self._log is None:
            return
        messages = request.get("messages", [])
        system = next((m.get("content") for m in messages if m.get("role") == "system"), None)
        tools = [t.get("function", {}).get("name") for t in request.get("tools") or []]
        line = {
            "turn": turn,
            "stream": bool(request.get("stream")),
            "n_messages": len(messages),
            "tools": tools,
            "system": system,
            "answer": answer,
        }
        with self._log_lock:
            self._log.write(json.dumps(line) + "\n")
            self._log.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("script", type=Path, help='JSON file with {"actions": [...]}')
    parser.add_argument("--port", type=int, default=8012, help="port on 127.0.0.1")
    parser.add_argument("--log", type=Path, help="append one JSON line per request here")
    args = parser.parse_args()
    actions = json.loads(args.script.read_text())["actions"]
    log = args.log.open("a") if args.log else None
    server = ScriptedServer(args.port, actions, log)
    print(f"scripted model: {len(actions)} actions on http://127.0.0.1:{args.port}/v1", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        if log is not None:
            log.close()


if __name__ == "__main__":
    main()
