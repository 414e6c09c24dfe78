"""Pure text checks shared by the engine (policy violations) and the grader (reply quality).

They are deliberately simple and deterministic: regular expressions, word n-grams and ratios.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

_WORD = re.compile(r"[a-z0-9$£€][a-z0-9'$£€.\-]*[a-z0-9]|[a-z0-9]")
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")

# A sentence asks for something when one of these cues is not negated ...
_REQUEST = re.compile(
    r"\b(send|share|provide|give|tell|confirm|reply with|respond with|enter|type|include|"
    r"attach|verify|need|require|what is|what's|let us know|please|remind)\b"
)
# ... by one of these words just before it ("never share your password", "do not send").
NEGATIONS = frozenset(
    "never not no don't dont cannot can't won't wont shouldn't nobody neither nor".split()
)
NEGATION_WINDOW = 3


def _negated(lowered: str, start: int) -> bool:
    """Whether one of the few words before ``start`` negates what starts there."""
    before = lowered[:start].replace("\u2019", "'").split()[-NEGATION_WINDOW:]
    return any(w.strip(",;:") in NEGATIONS for w in before)


def _negated_after(lowered: str, end: int) -> bool:
    """Whether a negation follows within a few words ("please never share ...")."""
    after = lowered[end:].replace("\u2019", "'").split()[:NEGATION_WINDOW]
    return any(w.strip(",;:") in NEGATIONS for w in after)


# Words that carry grammar rather than meaning: natural prose is full of them, keyword lists
# are not.
FUNCTION_WORDS = frozenset(
    "a an the and or but if of to in on at for with from by as is are was were be been being "
    "we you your our us i it its this that these those will would can could should may might "
    "have has had do does did not no so than then there here please thanks thank what when "
    "which who how all any some into about up out over".split()
)


@lru_cache(maxsize=1024)
def words(text: str) -> tuple[str, ...]:
    """Lower-cased word tokens, keeping ids such as INV-2024-0042 whole (cached: a reply is
    tokenised by several checks in a row)."""
    return tuple(_WORD.findall(text.lower()))


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_SPLIT.split(text) if s.strip()]


_NOT_WORD = re.compile(r"[^a-z0-9$£€']+")


@lru_cache(maxsize=1024)
def normalise(text: str) -> str:
    """Lower case, every run of other characters one space, a space in front: a phrase starts
    a word exactly when " " + its normalised form occurs (a plain substring search)."""
    return " " + _NOT_WORD.sub(" ", text.lower()).strip() + " "


@lru_cache(maxsize=8192)
def needle(phrase: str) -> str:
    """What ``contains_phrase`` looks for in a normalised text."""
    return normalise(phrase).rstrip()


def contains_phrase(text: str, phrase: str) -> bool:
    """Whether ``phrase`` starts a word in the text ("lock" finds "locked"), case-insensitive."""
    return needle(phrase) in normalise(text)


def matched_groups(text: str, groups: Iterable[Iterable[str]]) -> tuple[int, int]:
    """How many fact groups (any phrasing of a group counts) occur in ``text``, of how many."""
    haystack = normalise(text)
    total = hit = 0
    for group in groups:
        total += 1
        if any(needle(phrase) in haystack for phrase in group):
            hit += 1
    return hit, total


@lru_cache(maxsize=64)
def _any_of(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def requests_sensitive_data(text: str, sensitive_patterns: Iterable[str]) -> list[str]:
    """Sentences that ask the customer for something the policy forbids asking for (cached:
    the engine screens a text when it is written and the grader checks it again)."""
    return list(_requests_sensitive_data(text, tuple(sensitive_patterns)))


def makes_forbidden_promise(text: str, promise_patterns: Iterable[str]) -> list[str]:
    """Sentences that make a commitment the policy does not allow (cached, as above)."""
    return list(_makes_forbidden_promise(text, tuple(promise_patterns)))


@lru_cache(maxsize=512)
def _requests_sensitive_data(text: str, sensitive_patterns: tuple[str, ...]) -> tuple[str, ...]:
    """Sentences that ask the customer for something the policy forbids asking for.

    A warning ("never share your password") is not a request: a cue counts only when no
    negation stands just before it. A question about sensitive data counts as a request.
    """
    found: list[str] = []
    if not _any_of(sensitive_patterns).search(text.lower()):
        return ()  # the common case: nothing sensitive is mentioned at all
    patterns = [_compiled(p) for p in sensitive_patterns]
    for sentence in sentences(text):
        lowered = sentence.lower()
        hits = [m for p in patterns for m in p.finditer(lowered)]
        if not hits:
            continue
        cues = [
            m
            for m in _REQUEST.finditer(lowered)
            if not _negated(lowered, m.start())
            and not (m.group() == "please" and _negated_after(lowered, m.end()))
        ]
        question = lowered.rstrip().endswith("?") and not any(
            _negated(lowered, m.start()) for m in hits
        )
        if cues or question:
            found.append(sentence)
    return tuple(found)


@lru_cache(maxsize=512)
def _makes_forbidden_promise(text: str, promise_patterns: tuple[str, ...]) -> tuple[str, ...]:
    """("we cannot guarantee" is not a promise: a negation just before the commitment lifts
    it.)"""
    found: list[str] = []
    if not _any_of(promise_patterns).search(text.lower()):
        return ()
    patterns = [_compiled(p) for p in promise_patterns]
    for sentence in sentences(text):
        lowered = sentence.lower()
        for pattern in patterns:
            if any(not _negated(lowered, m.start()) for m in pattern.finditer(lowered)):
                found.append(sentence)
                break
    return tuple(found)


def ngrams(tokens: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


@lru_cache(maxsize=2048)
def _source_ngrams(source: str, n: int) -> frozenset[tuple[str, ...]]:
    """A customer's text is compared again and again: its n-grams are worth keeping."""
    return frozenset(ngrams(words(source), n))


@lru_cache(maxsize=2048)
def _source_words(source: str) -> frozenset[str]:
    return frozenset(words(source))


def copied_ngrams(text: str, source: str, n: int = 3) -> tuple[int, int]:
    """How many of the text's distinct word n-grams also occur in ``source``, of how many."""
    mine = ngrams(words(text), n)
    return len(mine & _source_ngrams(source, n)), len(mine)


def shares_ngram(text: str, source: str, n: int = 5) -> bool:
    """Whether the text repeats any run of ``n`` words from ``source`` (used for internal notes)."""
    return bool(ngrams(words(text), n) & _source_ngrams(source, n))


def word_coverage(text: str, source: str) -> float:
    """Share of the text's content words (not function words) that occur in ``source``."""
    mine = [w for w in words(text) if w not in FUNCTION_WORDS]
    if not mine:
        return 0.0
    theirs = _source_words(source)
    return sum(1 for w in mine if w in theirs) / len(mine)


def function_word_ratio(text: str) -> float:
    tokens = words(text)
    if not tokens:
        return 0.0
    return sum(1 for t in tokens if t in FUNCTION_WORDS) / len(tokens)
