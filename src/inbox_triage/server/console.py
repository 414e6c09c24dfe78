"""The web console at ``/web``: play any task by hand, replay and compare evaluated episodes.

The page is plain files shipped in the package (``server/web/``: HTML, CSS and ES modules, one
per view), read once at import and served by name from a fixed set, so the console needs no
build step, no CDN and nothing a request could point at. Playing goes through the server's own
HTTP session routes, one session per browser tab (``POST /sessions`` mints its id; the tab
closes it when it goes, the idle timeout otherwise), so visitors never share an episode.
Replays re-simulate recorded actions (``evaluation/replay.py``) from the runs the operator
named (``serve --runs``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import fields
from importlib.resources import files
from typing import Any

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, RedirectResponse, Response

from inbox_triage.domain import Policy
from inbox_triage.evaluation.replay import (
    RECORD_FIELDS,
    Replay,
    first_difference,
    replay_record,
)
from inbox_triage.models import MAX_TEXT
from inbox_triage.scenarios.generator import PRESETS, SPLITS, GenConfig
from inbox_triage.scenarios.generator.config import MAX_SIZE
from inbox_triage.seal import SEALED_SPLIT
from inbox_triage.server.catalog import pack_catalog, task_catalog
from inbox_triage.server.errors import error_response
from inbox_triage.server.run_library import RunLibrary
from inbox_triage.server.sessions import SESSION_ID, SessionError, SessionStore

WEB = files("inbox_triage.server") / "web"
# The fixed set, made once at import: the page, its style sheet and every ES module beside them.
ASSET_TYPES = {
    "index.html": "text/html; charset=utf-8",
    "console.css": "text/css; charset=utf-8",
    **{
        entry.name: "text/javascript; charset=utf-8"
        for entry in sorted(WEB.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".js")
    },
}
ASSETS: dict[str, bytes] = {name: (WEB / name).read_bytes() for name in ASSET_TYPES}
# Which vocabulary list offers the values of each action field (for the action form).
FIELD_VOCABULARY = {
    "priority": "priorities",
    "category": "categories",
    "route_to": "queues",
    "queue": "queues",
    "sentiment": "sentiments",
    "response_template": "templates",
    "escalate_to": "escalation_targets",
    "resolution_code": "resolution_codes",
}
# The ticket mode's one ``value`` field takes its values from the action type's list.
VALUE_VOCABULARY = {"set_priority": "priorities", "route_team": "queues", "add_tag": "tags"}
TEXT_FIELDS = ("summary", "reply_draft", "value", "response_text", "reason")
# The console API's own parameter names: a refusal may name them whatever the request said.
CONSOLE_WORDS = frozenset(
    {"run", "agent", "task", "key", "min_grade", "max_grade", "a_run", "a_key", "b_run", "b_key"}
)
LIST_LIMIT = 500
REPLAY_CACHE = 16
NO_STORE = {"cache-control": "no-store"}
# A tab that went away keeps its session this long: time for a reload to come back to it.
LEAVE_GRACE_S = 5.0


def _setup(library: Any, runs: RunLibrary, sealed: bool = False) -> dict[str, Any]:
    """What the setup form offers: on a sealed server, no seed and no fixed task."""
    catalog = task_catalog()
    tasks = [
        {
            "task_id": t["task_id"],
            "mode": t["mode"],
            "title": t["title"],
            "difficulty": t["difficulty"],
            "tickets": t["tickets"],
            "kind": "generated"
            if t["task_id"].endswith("/generated")
            else ("pack" if "/pack:" in t["task_id"] else "fixed"),
        }
        for t in [*catalog["tasks"], *pack_catalog(library)]
    ]
    if sealed:  # the newest generator's tasks on the test split, at the presets
        tasks = [t for t in tasks if t["kind"] == "generated"]
    knobs = [
        {
            "name": f.name,
            "integer": f.name == "size",
            "min": 1 if f.name == "size" else 0.0,
            "max": MAX_SIZE if f.name == "size" else 1.0,
        }
        for f in fields(GenConfig)
    ]
    presets = {
        name: {f.name: getattr(config, f.name) for f in fields(GenConfig)}
        for name, config in PRESETS.items()
    }
    return {
        "default_task": tasks[0]["task_id"] if sealed else catalog["default_task"],
        "sealed": sealed,
        "tasks": tasks,
        "splits": [SEALED_SPLIT] if sealed else list(SPLITS),
        "difficulties": list(PRESETS),
        "presets": presets,
        "knobs": [] if sealed else knobs,
        "field_vocabulary": FIELD_VOCABULARY,
        "value_vocabulary": VALUE_VOCABULARY,
        "text_fields": list(TEXT_FIELDS),
        "runs": runs.names(),
    }


class _Replays:
    """Re-simulations, the last few kept: stepping back and forth asks for the same one."""

    def __init__(self, factory: Any) -> None:
        self.factory = factory
        self._cache: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, run: str, record: Any) -> dict[str, Any]:
        cache_key = (run, record.key, record.grade, record.duration_s, len(record.trajectory))
        with self._lock:
            if cache_key in self._cache:
                self._cache.move_to_end(cache_key)
                return self._cache[cache_key]
        replay: Replay = replay_record(record, self.factory)
        answer = {"run": run, **replay.as_dict()}
        with self._lock:
            self._cache[cache_key] = answer
            while len(self._cache) > REPLAY_CACHE:
                self._cache.popitem(last=False)
        return answer


def _grade_bound(query: dict[str, str], name: str, default: float) -> float:
    raw = query.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise _Refused(name, "must be a number from 0 to 1") from None
    if not 0.0 <= value <= 1.0:
        raise _Refused(name, "must be a number from 0 to 1")
    return value


class _Refused(Exception):
    def __init__(self, field: str, message: str, allowed: Any = None) -> None:
        super().__init__(message)
        self.field, self.message, self.allowed = field, message, allowed


def policy_limits(policy: Policy, max_body: int) -> dict[str, int]:
    """The lengths a player is held to, from the episode's policy, the wire model and the
    server's request limit."""
    return {
        "summary_max_chars": policy.summary_max_chars,
        "reply_min_words": policy.reply_min_words,
        "reply_max_words": policy.reply_max_words,
        "text_max_chars": MAX_TEXT,
        "body_max_bytes": max_body,
    }


def _summary(run: str, record: Any) -> dict[str, Any]:
    listed = record.model_dump(include=RECORD_FIELDS - {"components", "total_reward"})
    return {"run": run, **listed, "replayable": bool(record.trajectory)}


def add_console(app: FastAPI, library: Any, runs: RunLibrary, factory: Any) -> None:
    """Mounts ``/`` (a redirect), ``/web`` and its JSON API on ``app``."""
    replays = _Replays(factory)

    @app.exception_handler(_Refused)
    async def _refused(_: Request, exc: _Refused) -> JSONResponse:
        return error_response(422, exc.field, exc.message, exc.allowed)

    @app.get("/", include_in_schema=False)
    async def root() -> RedirectResponse:
        return RedirectResponse("/web/", status_code=307)

    @app.get("/web", include_in_schema=False)
    @app.get("/web/", include_in_schema=False)
    async def page() -> Response:
        return Response(ASSETS["index.html"], media_type=ASSET_TYPES["index.html"])

    @app.get("/web/assets/{name}", include_in_schema=False)
    async def asset(name: str) -> Response:
        if name not in ASSETS or name == "index.html":
            return error_response(
                404, "asset", "no such file", sorted(set(ASSETS) - {"index.html"})
            )
        return Response(ASSETS[name], media_type=ASSET_TYPES[name])

    @app.post("/web/api/leave", tags=["Console"], summary="The tab went away (closed or reloaded)")
    async def leave(request: Request) -> Response:
        """Closes the tab's session after a grace period, unless a reload comes back first."""
        session_id = request.headers.get("x-session-id") or ""
        if not SESSION_ID.match(session_id) or not app.state.sessions.leave_soon(
            session_id, LEAVE_GRACE_S
        ):
            return error_response(404, "session_id", "is not an open session")
        return Response(status_code=204)

    def tab_episode(request: Request, back: bool = False) -> tuple[str, Any]:
        """The id and environment of the tab's session (``X-Session-Id``), once an episode has
        started there; ``back`` undoes a pending leave. A ``SessionError`` otherwise, which
        the app answers with its status and field."""
        session_id = SessionStore.check_id(request.headers.get("x-session-id") or "")
        store = app.state.sessions
        env = (store.come_back(session_id) if back else store.get(session_id, create=False)).env
        if env.scenario is None:
            raise SessionError(409, "episode", "has not started in this session")
        return session_id, env

    @app.get("/web/api/resume", tags=["Console"], summary="The session's episode, to come back to")
    async def resume(request: Request) -> JSONResponse:
        """What a reloaded tab needs to go on where it was: the whole current observation."""
        session_id, env = tab_episode(request, back=True)
        observation = env.full_view("Welcome back: the episode goes on where you left it.")
        data = observation.model_dump(exclude={"reward", "done"})
        return JSONResponse({"observation": data, "done": env.done, "session_id": session_id})

    @app.get("/web/api/limits", tags=["Console"], summary="The lengths the episode's policy sets")
    async def limits(request: Request) -> JSONResponse:
        """What the action form counts against: the summary and reply lengths of the episode's
        own policy (the page assumes none of its own), and what any text field or request may
        hold."""
        _, env = tab_episode(request)
        limits = policy_limits(env.scenario.policy, app.state.max_body)
        return JSONResponse(limits, headers=NO_STORE)

    @app.get("/web/api/setup", tags=["Console"], summary="What the console offers to play")
    async def setup() -> JSONResponse:
        idle = app.state.sessions.idle_timeout_s  # the page says when a session has gone
        sealed = app.state.seal is not None
        grace = LEAVE_GRACE_S  # and why: a closed tab's session goes this long after it
        return JSONResponse(
            {**_setup(library, runs, sealed), "idle_timeout_s": idle, "leave_grace_s": grace}
        )

    @app.get("/web/api/episodes", tags=["Console"], summary="The served runs' episodes")
    async def episodes(request: Request) -> JSONResponse:
        query = dict(request.query_params)
        names = runs.names()
        wanted_run = query.get("run") or None
        if wanted_run is not None and wanted_run not in names:
            raise _Refused("run", "is not a run this server shows", names)
        low = _grade_bound(query, "min_grade", 0.0)
        high = _grade_bound(query, "max_grade", 1.0)
        if low > high:  # an empty range is a mistake to say, not 0 matches to show
            raise _Refused("min_grade", "must be at most max_grade")
        agent, task = query.get("agent") or None, query.get("task") or None
        rows: list[dict[str, Any]] = []
        agents: set[str] = set()
        tasks: set[str] = set()
        for name in names if wanted_run is None else [wanted_run]:
            for record in runs.records(name):
                agents.add(record.agent)
                tasks.add(record.task)
                if agent is not None and record.agent != agent:
                    continue
                if task is not None and record.task != task:
                    continue
                if not low <= record.grade <= high:
                    continue
                rows.append(_summary(name, record))
        return JSONResponse(
            {
                "runs": names,
                "agents": sorted(agents),
                "tasks": sorted(tasks),
                "total": len(rows),
                "episodes": rows[:LIST_LIMIT],
            },
            headers=NO_STORE,
        )

    def _record(query: dict[str, str], prefix: str = "") -> tuple[str, Any]:
        run, key = query.get(f"{prefix}run"), query.get(f"{prefix}key")
        if not run or run not in runs.names():
            raise _Refused(f"{prefix}run", "is not a run this server shows", runs.names())
        record = runs.episode(run, key or "")
        if record is None:
            raise _Refused(f"{prefix}key", "is not an episode of that run")
        return run, record

    @app.get("/web/api/replay", tags=["Console"], summary="An episode re-simulated step by step")
    async def replay(request: Request) -> JSONResponse:
        run, record = _record(dict(request.query_params))
        return JSONResponse(await run_in_threadpool(replays.get, run, record))

    @app.get("/web/api/compare", tags=["Console"], summary="Two episodes of one scenario")
    async def compare(request: Request) -> JSONResponse:
        query = dict(request.query_params)
        run_a, a = _record(query, "a_")
        run_b, b = _record(query, "b_")
        for field, record in (("a_key", a), ("b_key", b)):
            if record.episode_id is not None:
                raise _Refused(field, "is a sealed server's episode, which is not re-simulated")
        if (a.task, a.split, a.difficulty, a.seed) != (b.task, b.split, b.difficulty, b.seed):
            raise _Refused("b_key", "must be an episode of the same task and seed as a_key")
        for field, record in (("a_key", a), ("b_key", b)):
            if not record.trajectory:
                raise _Refused(field, "is an episode its run kept no trajectory for")
        left = await run_in_threadpool(replays.get, run_a, a)
        right = await run_in_threadpool(replays.get, run_b, b)
        differs = first_difference(
            [s.action for s in a.trajectory], [s.action for s in b.trajectory]
        )
        return JSONResponse({"a": left, "b": right, "first_difference": differs})
