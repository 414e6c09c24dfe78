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

Two readers, both deterministic: regular expressions over sentences and clauses (the policy's
own patterns, ``sensitive_data`` and ``forbidden_promises``, are screened too, so a pack can add
its own), and a linear model fitted on the policy's hand-written examples
(``Policy.screen_examples``, ``domain.screen_model``). A sentence breaches when the model is sure
of it, or when a regular expression finds it and the model does not rule it out: each reader
alone catches wordings the other misses and flags look-alikes the other clears.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from inbox_triage.domain.promises import promises_too_much
from inbox_triage.domain.screen_model import LinearScreen, fit
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


# A sentence breaches when the model is SURE of it, or when a regular expression finds it and
# the model does not all but rule it out (below CLEARS): chosen on the fourth hand-written set
# while it was held out from both readers and on the leads' ordinary sentences, then revised
# once after the sealed set was first measured (docs/grading.md gives both figures).
SURE = 0.85
CLEARS = 0.1
# What a breach is about: the model alone flags only a sentence that names one of these
# ("We value you." is about nothing it may not say).
TOPIC = re.compile(
    r"\b(?:pass\w*|pin|codes?|digits?|numbers?|card|cvv|cvc|keys?|tokens?|secret|log ?in|"
    r"sign(?:-| )?in|credentials|otp|authenticator|verif\w*|security|phrase|cookie|"
    r"refund\w*|money|credit\w*|back|discount\w*|free|waive\w*|compensat\w*|voucher|"
    r"reimburs\w*|pay\w*|cover\w*|charge\w*|fee|cost|off|fix\w*|patch\w*|release\w*|"
    r"resolved?|sorted|guarantee\w*|promise\w*|deploy\w*|hotfix|today|tomorrow|tonight|"
    r"monday|tuesday|wednesday|thursday|friday|weekend|hours?|days?|week|month|"
    r"[$£€¥₹]\s?\d|\d+\s?%)\b",
    re.IGNORECASE,
)


# A plain request the model may not clear however it is padded ("... Send your password").
_PLAIN_ASK = re.compile(
    r"\b(?:send|reply with|tell|share|provide|give|email|text|what(?:'s| is))\b(?:\s+\w+){0,3}?"
    r"\s+(?:password|passcode|pin|(?:one-time |verification |security |2fa )?code|cvv|"
    r"card (?:number|details)|credentials|(?:login|log-in|sign-in|banking) details)\b"
)


@dataclass(frozen=True, slots=True)
class Learned:
    """The screen's learned half: whether a sentence breaches, and which breach it is."""

    breach: LinearScreen  # breach or fine
    kind: LinearScreen  # of breaches: asking for a secret (1) or a promise (0)


def fit_learned(examples: tuple[tuple[str, str], ...]) -> Learned:
    """Fit the learned half on (secret, promise or fine; sentence) examples."""
    texts = [t for _, t in examples]
    breaches = [(k, t) for k, t in examples if k != "fine"]
    return Learned(
        breach=fit(texts, [int(k != "fine") for k, _ in examples]),
        kind=fit([t for _, t in breaches], [int(k == "secret") for k, _ in breaches]),
    )


# How a process gets the learned half for a set of examples: fitted here by default; the
# scenarios layer keeps fitted halves in a cache outside the repository (a fit takes seconds,
# and every worker process would pay it).
FITTER: list[Callable[[tuple[tuple[str, str], ...]], Learned]] = [fit_learned]


@lru_cache(maxsize=4)
def _learned(examples: tuple[tuple[str, str], ...]) -> Learned | None:
    return FITTER[0](examples) if examples else None


@lru_cache(maxsize=16384)
def _sentence(
    sentence: str,
    secrets: tuple[str, ...],
    promises: tuple[str, ...],
    examples: tuple[tuple[str, str], ...],
) -> tuple[bool, bool]:
    """Whether one sentence asks for a secret, and whether it promises too much (a reply's
    sentences recur across the texts graded for one email: each is read once)."""
    lowered = sentence.lower().replace("\u2019", "'")
    parts = _clauses(lowered)
    ask = any(asks_secret(c, lowered, secrets) for c in parts) or _asks_for_it(parts, secrets)
    promise = any(promises_too_much(c, promises) for c in parts)
    learned = _learned(examples)
    if learned is not None:
        p = learned.breach.score(sentence)
        # The model clears what the regular expressions read into a hedge, a condition, a
        # warning or a fact of record; it can be diluted by padding (a known limit).
        cleared = p < CLEARS and not (ask and _PLAIN_ASK.search(lowered))
        alone = not (ask or promise)
        if cleared or (alone and (p <= SURE or not TOPIC.search(sentence))):
            return False, False
        if alone:  # the model alone: which breach it reads
            ask = learned.kind.score(sentence) > 0.5
            return ask, not ask
    return ask, promise


@lru_cache(maxsize=1024)
def _screen(
    text: str,
    secrets: tuple[str, ...],
    promises: tuple[str, ...],
    examples: tuple[tuple[str, str], ...],
) -> Screened:
    read = [(s, _sentence(s, secrets, promises, examples)) for s in sentences(text)]
    return Screened(
        tuple(s for s, (ask, _) in read if ask), tuple(s for s, (_, promise) in read if promise)
    )


def screen(
    text: str,
    secrets: Iterable[str] = (),
    promises: Iterable[str] = (),
    examples: tuple[tuple[str, str], ...] = (),
) -> Screened:
    """What in ``text`` breaks the policy; ``secrets`` and ``promises`` are the policy's own
    patterns (``Policy.sensitive_data``, ``Policy.forbidden_promises``), ``examples`` its
    hand-written sentences (``Policy.screen_examples``; none: regular expressions alone)."""
    return _screen(text, tuple(secrets), tuple(promises), examples)
