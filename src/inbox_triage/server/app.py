"""The OpenEnv app: WebSocket sessions from OpenEnv, plus session-aware HTTP for scripts.

- ``/ws`` (OpenEnv's protocol, served by ``server/ws.py``): one episode per connection; what
  ``InboxTriageClient`` and training use.
- ``POST /reset``, ``POST /step``, ``GET /state``, ``GET /grader`` act on an HTTP session named
  by the ``X-Session-Id`` header or a ``session_id`` field; without one they share a default
  session, so the seeds' curl and ``requests`` snippets work as written.
- ``GET /tasks`` lists every task with its mode's action schema and vocabulary, and the packs
  the operator named (``serve --packs DIR``); ``/healthz`` answers like ``/health``.
- ``POST /baseline`` runs a built-in agent over the fixed tasks (``server/baseline.py``).

Nothing a request says opens a file or a URL: packs are loaded at start-up and played by name,
and every error that leaves is a field and a short message, never an echo (``server/errors.py``).
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI, HTTPException, Request, WebSocket
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from openenv.core.env_server.http_server import create_fastapi_app
from openenv.core.env_server.types import ConcurrencyConfig

from inbox_triage.env import InboxTriageEnv
from inbox_triage.models import TriageAction, TriageObservation, TriageState, too_long
from inbox_triage.scenarios.pack_library import PACKS_ENV, PackLibrary
from inbox_triage.seal import Seal
from inbox_triage.server.api_docs import add_api_docs
from inbox_triage.server.baseline import Baseline, agent_factory_for
from inbox_triage.server.catalog import known_words, pack_catalog, task_catalog
from inbox_triage.server.console import CONSOLE_WORDS, add_console
from inbox_triage.server.errors import (
    ScrubErrors,
    error_response,
    first_error_field,
)
from inbox_triage.server.mcp_routes import MCP_WORDS, add_mcp
from inbox_triage.server.memory import start_memory_trimmer
from inbox_triage.server.run_library import RUNS_ENV, RunLibrary
from inbox_triage.server.sessions import (
    DEFAULT_SESSION,
    SessionError,
    SessionStore,
    check_reset_fields,
    start_episode,
)
from inbox_triage.server.ws import SocketSessions, serve_socket

DEFAULT_PORT = 8000
DEFAULT_MAX_SESSIONS = 64
DEFAULT_IDLE_TIMEOUT_S = 900.0
MAX_BODY_BYTES = 64 * 1024
MAX_WS_FRAME_BYTES = 2 * 1024 * 1024  # a larger frame closes the connection (uvicorn: 16 MiB)


_error = error_response


async def _json_object(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        raise SessionError(413, "body", too_long(MAX_BODY_BYTES, "bytes", len(raw)))
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # bad JSON, bad UTF-8, 4,300+ digits, depth
        raise SessionError(400, "body", f"is not valid JSON ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise SessionError(400, "body", "must be a JSON object")
    return data


def _session_id(request: Request, body: dict[str, Any]) -> str:
    given = (
        body.pop("session_id", None)
        or request.headers.get("x-session-id")
        or (request.query_params.get("session_id"))
    )
    if given is None:
        return DEFAULT_SESSION
    if not isinstance(given, str):
        raise SessionError(400, "session_id", "must be a string")
    return SessionStore.check_id(given)


def _payload(observation: TriageObservation, session_id: str) -> dict[str, Any]:
    data = observation.model_dump(exclude={"reward", "done"})
    return {
        "observation": data,
        "reward": observation.reward,
        "done": observation.done,
        "metadata": observation.metadata or None,
        "session_id": session_id,
    }


def build_app(
    max_sessions: int = DEFAULT_MAX_SESSIONS,
    idle_timeout_s: float | None = DEFAULT_IDLE_TIMEOUT_S,
    packs: PackLibrary | None = None,
    allow_llm_baseline: bool = False,
    runs: RunLibrary | None = None,
    seal: Seal | None = None,
) -> FastAPI:
    """The whole server: OpenEnv's app with our session-aware routes in place of its
    stateless ``/reset``, ``/step`` and ``/state``. Every environment it makes plays packs
    from ``packs`` only (none when not given); the console at ``/web`` replays the episodes
    of ``runs``.

    OpenEnv's Gradio page is never mounted, whatever ``ENABLE_WEB_INTERFACE`` says: it shares
    one environment among all visitors and shows pydantic's full error text. Our console
    (``server/console.py``) is there instead, one session per browser tab. With ``seal``,
    every episode is drawn from the server's secret key (``seal.py``)."""
    library = packs if packs is not None else PackLibrary()
    factory = functools.partial(InboxTriageEnv, packs=library, seal=seal)
    app = create_fastapi_app(
        factory,
        TriageAction,
        TriageObservation,
        env_name="inbox_triage",
        concurrency_config=ConcurrencyConfig(
            max_concurrent_envs=max_sessions, session_timeout=idle_timeout_s
        ),
        state_cls=TriageState,
    )
    replaced = {("/reset", "POST"), ("/step", "POST"), ("/state", "GET"), ("/mcp", "POST")}
    app.router.routes = [
        r
        for r in app.router.routes
        # ours: the same protocol, lean (server/ws.py); MCP with tools (server/mcp.py)
        if getattr(r, "path", None) not in ("/ws", "/mcp") or getattr(r, "methods", None)
        if not any(
            getattr(r, "path", None) == p and m in getattr(r, "methods", set()) for p, m in replaced
        )
    ]
    sockets = app.state.sockets = SocketSessions(max_sessions, idle_timeout_s)

    store = SessionStore(factory, max_sessions, idle_timeout_s)
    app.state.sessions = store

    @app.websocket("/ws")
    async def websocket(socket: WebSocket) -> None:
        await serve_socket(socket, sockets, factory, joins=store)

    add_mcp(app, store, sockets, factory)

    app.state.seal = seal
    # The baseline plays the public fixed tasks, sealed or not.
    unsealed = functools.partial(InboxTriageEnv, packs=library)
    baseline = app.state.baseline = Baseline(unsealed, allow_llm=allow_llm_baseline)
    app.router.on_startup.append(start_memory_trimmer)

    @app.exception_handler(SessionError)
    async def _session_error(_: Request, exc: SessionError) -> JSONResponse:
        return _error(exc.status, exc.field, exc.message, exc.allowed)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        field, message = first_error_field(list(exc.errors()))
        return _error(422, field, message)

    @app.exception_handler(HTTPException)
    async def _http_error(_: Request, exc: HTTPException) -> JSONResponse:
        """OpenEnv's own routes keep their ``detail`` shape, without any echo."""
        detail = exc.detail if isinstance(exc.detail, str) else "is not a valid request"
        return JSONResponse({"detail": detail}, status_code=exc.status_code, headers=exc.headers)

    @app.post("/reset", tags=["Sessions"], summary="Start an episode in an HTTP session")
    async def reset(request: Request) -> JSONResponse:
        body = await _json_object(request)
        session_id = _session_id(request, body)
        check_reset_fields(body)
        session = store.get(session_id, create=True)
        with session.lock:
            observation = start_episode(session.env, body)
        return JSONResponse(_payload(observation, session_id))

    @app.post("/step", tags=["Sessions"], summary="Take an action in an HTTP session")
    async def step(request: Request) -> JSONResponse:
        body = await _json_object(request)
        session_id = _session_id(request, body)
        # OpenEnv's shape {"action": {...}} or the seeds' bare action object.
        action = body["action"] if isinstance(body.get("action"), dict) else body
        session = store.get(session_id, create=False)
        with session.lock:
            env = session.env
            if env.scenario is None:
                return _error(409, "episode", "call /reset before /step")
            if env.done:
                return _error(409, "episode", "the episode has ended; call /reset")
            # A refused action is the episode's answer, at a step's cost, as on every route.
            observation = env.step(action)
        return JSONResponse(_payload(observation, session_id))

    @app.get("/state", tags=["Sessions"], summary="The session's state (its decisions and budgets)")
    async def state(request: Request) -> JSONResponse:
        session = store.get(_session_id(request, {}), create=False)
        return JSONResponse(session.env.state.model_dump())

    @app.get("/grader", tags=["Sessions"], summary="The session's current grade")
    async def grader(request: Request) -> JSONResponse:
        session_id = _session_id(request, {})
        env = store.get(session_id, create=False).env
        if env.scenario is None:
            return _error(409, "episode", "call /reset first")
        if env.withheld:
            return _error(409, "episode", "with reward_mode final the grade comes at the end")
        grade = env.grade()
        return JSONResponse(
            {
                "session_id": session_id,
                "task_id": env.scenario.id,
                "grader_version": grade.version,
                "score": round(grade.value, 6),
                "done": env.done,
                "penalties": round(env.penalties, 6),
                "total_reward": round(env.total_reward, 6),
                "components": grade.as_dict()["components"],
                "texts": grade.texts,
            }
        )

    @app.post("/sessions", tags=["Sessions"], summary="Open a new HTTP session")
    async def open_session() -> JSONResponse:
        session_id = store.new_id()
        store.get(session_id, create=True)
        return JSONResponse({"session_id": session_id}, status_code=201)

    @app.delete("/sessions/{session_id}", tags=["Sessions"], summary="Close an HTTP session")
    async def close_session(session_id: str) -> JSONResponse:
        SessionStore.check_id(session_id)
        if not store.close(session_id):
            return _error(404, "session_id", "is not an open session")
        return JSONResponse({"closed": session_id})

    @app.get("/tasks", tags=["Tasks"], summary="Every task with its action schema and vocabulary")
    async def tasks() -> JSONResponse:
        catalog = task_catalog()
        return JSONResponse({**catalog, "tasks": [*catalog["tasks"], *pack_catalog(library)]})

    @app.post("/baseline", tags=["Tasks"], summary="A built-in agent's grades on the fixed tasks")
    async def run_baseline(request: Request) -> JSONResponse:
        body = await _json_object(request)
        wanted = baseline.parse(body, dict(request.query_params))
        if not baseline.lock.acquire(blocking=False):
            return _error(409, "baseline", "a baseline is running; retry when it has finished")
        try:
            agents = await run_in_threadpool(agent_factory_for, wanted)
            answer = await run_in_threadpool(baseline.run, wanted, agents)
        finally:
            baseline.lock.release()
        return JSONResponse(answer)

    @app.get("/healthz", tags=["Health"], summary="Health check (as /health)")
    async def healthz() -> JSONResponse:
        return JSONResponse(
            {"status": "healthy", "http_sessions": len(store), "sealed": seal is not None}
        )

    app.state.max_body = MAX_BODY_BYTES
    # Replays re-simulate recorded episodes, which a seal would refuse to choose.
    add_console(app, library, runs if runs is not None else RunLibrary(), unsealed)
    add_api_docs(app)

    # Last, so that it knows every route's words: an error may repeat those.
    routes = {part for r in app.router.routes for part in getattr(r, "path", "").split("/")}
    app.add_middleware(
        ScrubErrors,
        max_body=MAX_BODY_BYTES,
        known=known_words(library) | routes | MCP_WORDS | CONSOLE_WORDS,
    )
    return app


def _announce(on_ready: Callable[[str], None], url: str) -> Callable[[], Awaitable[None]]:
    async def announce() -> None:
        on_ready(url)

    return announce


def _settings_from_env() -> tuple[int, float | None]:
    max_sessions = int(os.environ.get("INBOX_TRIAGE_MAX_SESSIONS", DEFAULT_MAX_SESSIONS))
    timeout = os.environ.get("INBOX_TRIAGE_IDLE_TIMEOUT_S", str(DEFAULT_IDLE_TIMEOUT_S))
    return max_sessions, (float(timeout) if float(timeout) > 0 else None)


ALLOW_LLM_BASELINE_ENV = "INBOX_TRIAGE_ALLOW_LLM_BASELINE"
log = logging.getLogger("inbox_triage.server")


def pack_folders_from_env() -> list[str]:
    """``$INBOX_TRIAGE_PACKS``: pack folders separated like ``$PATH`` (':' on Linux)."""
    return [p for p in os.environ.get(PACKS_ENV, "").split(os.pathsep) if p.strip()]


def load_packs(folders: Iterable[str | Path]) -> PackLibrary:
    """The operator's packs, loaded once; what is playable (or not, and why) goes to the log."""
    library = PackLibrary.from_folders(folders)
    if library.names():
        log.info("packs playable by name: %s", ", ".join(library.names()))
    return library


def _flag_from_env(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def run_folders_from_env() -> list[str]:
    """``$INBOX_TRIAGE_RUNS``: run folders (or folders of runs) separated like ``$PATH``."""
    return [p for p in os.environ.get(RUNS_ENV, "").split(os.pathsep) if p.strip()]


def app_from_env() -> FastAPI:
    """For ``uvicorn inbox_triage.server.app:app_from_env --factory``."""
    return build_app(
        *_settings_from_env(),
        packs=load_packs(pack_folders_from_env()),
        allow_llm_baseline=_flag_from_env(ALLOW_LLM_BASELINE_ENV),
        runs=RunLibrary.from_folders(run_folders_from_env()),
    )


def serve(
    host: str = "0.0.0.0",
    port: int | None = None,
    max_sessions: int | None = None,
    idle_timeout_s: float | None = None,
    pack_folders: list[str | Path] | None = None,
    allow_llm_baseline: bool | None = None,
    runs: RunLibrary | None = None,
    on_ready: Callable[[str], None] | None = None,
    seal: Seal | None = None,
) -> None:
    """Serves until stopped. ``pack_folders`` (or ``$INBOX_TRIAGE_PACKS``) name the folders
    whose packs are playable by name; ``allow_llm_baseline`` (or
    ``$INBOX_TRIAGE_ALLOW_LLM_BASELINE``) lets ``POST /baseline`` run the llm agent;
    ``runs`` (else the folders in ``$INBOX_TRIAGE_RUNS``) are the runs the console replays.
    ``on_ready`` is told the console's address as the server starts."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("inbox_triage").setLevel(logging.INFO)
    env_sessions, env_timeout = _settings_from_env()
    port = port or int(os.environ.get("PORT", DEFAULT_PORT))
    app = build_app(
        max_sessions or env_sessions,
        env_timeout if idle_timeout_s is None else (idle_timeout_s or None),
        packs=load_packs(pack_folders if pack_folders else pack_folders_from_env()),
        allow_llm_baseline=(
            _flag_from_env(ALLOW_LLM_BASELINE_ENV)
            if allow_llm_baseline is None
            else allow_llm_baseline
        ),
        runs=runs if runs is not None else RunLibrary.from_folders(run_folders_from_env()),
        seal=seal,
    )
    # Observations are a few KB of JSON: compressing every WebSocket frame cost more server
    # time than it saved on loopback and LAN links (benchmarks/bench_server.py).
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        ws_per_message_deflate=False,
        ws_max_size=MAX_WS_FRAME_BYTES,
    )
    server = uvicorn.Server(config)
    if on_ready is not None:
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        app.router.on_startup.append(_announce(on_ready, f"http://{shown}:{port}/web/"))
    server.run()


def main() -> None:
    """The ``server`` script (OpenEnv's convention): serve on $PORT (8000 by default)."""
    serve()


if __name__ == "__main__":
    main()
