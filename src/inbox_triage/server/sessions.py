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
from dataclasses import dataclass, field
from typing import Any

from inbox_triage.env import InboxTriageEnv
from inbox_triage.models import TriageObservation
from inbox_triage.scenarios import ScenarioError
from inbox_triage.scenarios.generator import KNOBS
from inbox_triage.scenarios.sources import EPISODE_FIELDS

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


RESET_FIELDS = EPISODE_FIELDS | KNOBS  # what a reset takes


def check_reset_fields(body: dict[str, Any]) -> None:
    """A 422 for a field no reset takes (before any session is made for it)."""
    unknown = set(body) - RESET_FIELDS
    if unknown:
        allowed = sorted(RESET_FIELDS)
        raise SessionError(422, sorted(unknown)[0], "is not a reset field", allowed)


def start_episode(env: InboxTriageEnv, body: dict[str, Any]) -> TriageObservation:
    """A reset from a request's fields (``POST /reset``, MCP's ``reset``): an unknown field, a
    task or pack that does not exist, or a value of the wrong type is a 422 naming the field."""
    check_reset_fields(body)
    try:
        return env.reset(**body)
    except ScenarioError as exc:
        if exc.field is not None:
            raise SessionError(422, exc.field, exc.message, exc.allowed) from None
        raise SessionError(422, "task", str(exc)) from None
    except TypeError:
        raise SessionError(422, "body", "a reset field has the wrong type") from None


@dataclass
class Session:
    env: InboxTriageEnv
    lock: threading.Lock = field(default_factory=threading.Lock)
    last_used: float = field(default_factory=time.monotonic)
    joined: bool = False  # a WebSocket plays it (``/ws?session_id=``)
    leaving: float | None = None  # its page went away: closed then, unless it comes back
    closing: bool = False  # closed while joined: it goes when the socket does


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
        now = self.clock()
        gone = [s for s, sess in self._sessions.items() if sess.leaving and sess.leaving < now]
        for sid in gone:
            del self._sessions[sid]
        if self.idle_timeout_s is None:
            return
        cutoff = now - self.idle_timeout_s
        idle = [s for s, sess in self._sessions.items() if sess.last_used < cutoff]
        for sid in idle:
            if not self._sessions[sid].joined:  # a socket's session lives as long as it does
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
            if session is not None and session.closing:  # closed while a socket plays it
                raise SessionError(409, "session_id", "is closing: its socket still plays it")
            if session is None:
                if not create:
                    raise SessionError(
                        404, "session_id", "is not an open session; call /reset first"
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

    def leave_soon(self, session_id: str, grace_s: float) -> bool:
        """The page playing the session went away (a closed tab, or a reload): it is closed
        ``grace_s`` from now unless it is used again before then."""
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None:
                return False
            session.leaving = self.clock() + grace_s
            return True

    def come_back(self, session_id: str) -> Session:
        """A reloaded page takes its session back: it stays (``leave_soon`` is undone)."""
        session = self.get(session_id, create=False)
        session.leaving = None
        return session

    def close(self, session_id: str) -> bool:
        """Closes a session (one a socket plays goes when the socket does)."""
        with self._lock:
            session = self._sessions.get(session_id)
            if session is not None and session.joined:
                session.closing = True
                return True
            return self._sessions.pop(session_id, None) is not None

    def join(self, session_id: str) -> Session | None:
        """The session a WebSocket may play (``/ws?session_id=``, as OpenEnv's
        ``MCPToolClient`` connects): one opened by name that no other socket plays, never the
        shared default."""
        if session_id == DEFAULT_SESSION or not SESSION_ID.match(session_id):
            return None
        with self._lock:
            self._reap()
            session = self._sessions.get(session_id)
            if session is None or session.joined or session.closing:
                return None
            session.joined = True
            session.last_used = self.clock()
            return session

    def touch(self, session: Session) -> None:
        """A joined session is in use: its socket spoke."""
        session.last_used = self.clock()

    def leave(self, session_id: str) -> None:
        """The socket has gone: the session stays for HTTP, or goes if it was closed."""
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None:
                return
            session.joined = False
            if session.closing:
                del self._sessions[session_id]
