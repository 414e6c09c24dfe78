"""HTTP sessions: many isolated episodes behind plain request/response routes.

OpenEnv's own HTTP routes build a fresh environment per request; scripts (and the seeds' curl
and ``requests`` flows) need an episode that lasts across calls. Each session id owns one
environment. Calls that name no session share one default session, as the seeds expect.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any

from inbox_triage.env import InboxTriageEnv
from inbox_triage.models import TriageObservation
from inbox_triage.scenarios import ScenarioError
from inbox_triage.scenarios.pack_library import PackRefused

DEFAULT_SESSION = "default"
SESSION_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


class SessionError(Exception):
    """A session problem with the HTTP status it deserves."""

    def __init__(
        self, status: int, field: str, message: str, allowed: list[str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.field = field
        self.message = message
        self.allowed = allowed


RESET_FIELDS = {
    "task",
    "task_id",
    "mode",
    "split",
    "difficulty",
    "seed",
    "episode_id",
    "observation",
}


@cache
def knob_names() -> frozenset[str]:
    """The generator's knobs, which a reset may set (``size=40``)."""
    from inbox_triage.scenarios.generator import GenConfig

    return frozenset(f.name for f in fields(GenConfig))


def check_reset_fields(body: dict[str, Any]) -> None:
    """A 422 for a field no reset takes (before any session is made for it)."""
    unknown = set(body) - RESET_FIELDS - knob_names()
    if unknown:
        allowed = sorted(RESET_FIELDS | knob_names())
        raise SessionError(422, sorted(unknown)[0], "is not a reset field", allowed)


def start_episode(env: InboxTriageEnv, body: dict[str, Any]) -> TriageObservation:
    """A reset from a request's fields (``POST /reset``, MCP's ``reset``): an unknown field, a
    task or pack that does not exist, or a value of the wrong type is a 422 naming the field."""
    check_reset_fields(body)
    try:
        return env.reset(**body)
    except PackRefused as exc:
        raise SessionError(422, exc.field, exc.message, exc.allowed) from None
    except ScenarioError as exc:
        raise SessionError(422, "task", str(exc)) from None
    except TypeError:
        raise SessionError(422, "body", "a reset field has the wrong type") from None


@dataclass
class Session:
    env: InboxTriageEnv
    lock: threading.Lock = field(default_factory=threading.Lock)
    last_used: float = field(default_factory=time.monotonic)


class SessionStore:
    """Sessions by id, bounded in number, closed after ``idle_timeout_s`` without use."""

    def __init__(
        self,
        factory: Callable[[], InboxTriageEnv],
        max_sessions: int,
        idle_timeout_s: float | None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.factory = factory
        self.max_sessions = max_sessions
        self.idle_timeout_s = idle_timeout_s
        self.clock = clock
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def _reap(self) -> None:
        if self.idle_timeout_s is None:
            return
        cutoff = self.clock() - self.idle_timeout_s
        for sid in [s for s, sess in self._sessions.items() if sess.last_used < cutoff]:
            del self._sessions[sid]

    @staticmethod
    def check_id(session_id: str) -> str:
        if not SESSION_ID.match(session_id):
            raise SessionError(400, "session_id", "must be 1-64 letters, digits, '.', '_' or '-'")
        return session_id

    def new_id(self) -> str:
        return "s-" + secrets.token_hex(16)  # 128 random bits: not guessable

    def get(self, session_id: str, create: bool) -> Session:
        """The session, created on reset when new (if there is room)."""
        self.check_id(session_id)
        with self._lock:
            self._reap()
            session = self._sessions.get(session_id)
            if session is None:
                if not create:
                    raise SessionError(
                        404, "session_id", f"unknown session {session_id!r}; call /reset first"
                    )
                if len(self._sessions) >= self.max_sessions:
                    raise SessionError(
                        503,
                        "session_id",
                        f"the server is full ({self.max_sessions} sessions); close one "
                        "(DELETE /sessions/ID) or retry later",
                    )
                session = self._sessions[session_id] = Session(self.factory())
            session.last_used = self.clock()
            return session

    def close(self, session_id: str) -> bool:
        with self._lock:
            return self._sessions.pop(session_id, None) is not None
