"""The policy screen: one reading of a text, shared by the engine (a violation and its penalty)
and the grader (a zero), for the two breaches a reply must never make.

1. **Asking for a secret**, in any words: a password or "the word you use to get in", a security
   answer, a one-time code or "the digits we just texted you", a card number or "the three digits
   on the back", a key, token or cookie. Advice, warnings, redaction and using a secret yourself
   are not requests ("never share your code", "blank out the card number", "sign in with your
   new password", "type the code into the login page").
2. **Promising what the owning team decides**: money back, credits, discounts or free time, a fix
   or release by a time, a guaranteed outcome, including as a fact ("the credit has been
   applied", "your money is on its way back"). Saying when we will write again, a condition or
   a hedge is not a promise ("we'll update you by Friday", "if the team approves it").

Deterministic regular expressions over sentences and clauses; the policy's own patterns
(``sensitive_data``, ``forbidden_promises``) are screened too, so a pack can add its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from inbox_triage.domain.promises import promises_too_much
from inbox_triage.domain.secrets import (
    IN_USE,
    SECRET_MENTION,
    WARNS,
    asks_secret,
    compiled,
)
from inbox_triage.domain.text import sentences


@dataclass(frozen=True, slots=True)
class Screened:
    """The sentences of a text that ask for a secret, and those that promise too much."""

    asks: tuple[str, ...]
    promises: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.asks or self.promises)


# Where a sentence's clauses part: a request or a promise is read within its clause.
_CLAUSE = re.compile(r"[;:]|\s[-–—]\s|,\s*(?=but\b|and (?:we|i|you)\b)|\bbut\b")


def _clauses(lowered: str) -> list[str]:
    return [c for c in _CLAUSE.split(lowered) if c and c.strip()]


_FOR_IT = re.compile(
    r"\b(?:forward|send|read|give|tell|share|paste|type|reply with|pass)\b[^.;!?]{0,15}?"
    r"\b(?:it|them|that|this)\b"
)


def _asks_for_it(parts: list[str], extra: tuple[str, ...]) -> bool:
    """A clause asking for "it" just after one that names a secret ("we've just texted you a
    code; read it back to us")."""
    for before, clause in zip(parts, parts[1:], strict=False):
        named = SECRET_MENTION.search(before) or any(compiled(p).search(before) for p in extra)
        if named and _FOR_IT.search(clause) and not WARNS.search(clause):
            return not IN_USE.search(clause)
    return False


@lru_cache(maxsize=1024)
def _screen(text: str, secrets: tuple[str, ...], promises: tuple[str, ...]) -> Screened:
    asks: list[str] = []
    promised: list[str] = []
    for sentence in sentences(text):
        lowered = sentence.lower().replace("\u2019", "'")
        parts = _clauses(lowered)
        if any(asks_secret(c, lowered, secrets) for c in parts) or _asks_for_it(parts, secrets):
            asks.append(sentence)
        if any(promises_too_much(c, promises) for c in parts):
            promised.append(sentence)
    return Screened(tuple(asks), tuple(promised))


def screen(text: str, secrets: Iterable[str] = (), promises: Iterable[str] = ()) -> Screened:
    """What in ``text`` breaks the policy; ``secrets`` and ``promises`` are the policy's own
    patterns (``Policy.sensitive_data``, ``Policy.forbidden_promises``)."""
    return _screen(text, tuple(secrets), tuple(promises))
