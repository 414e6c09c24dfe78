"""Pure text checks shared by the engine (policy violations) and the grader (reply quality).

They are deliberately simple and deterministic: regular expressions, word n-grams and ratios.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
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


def words(text: str) -> list[str]:
    """Lower-cased word tokens, keeping ids such as INV-2024-0042 whole."""
    return _WORD.findall(text.lower())


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_SPLIT.split(text) if s.strip()]


@lru_cache(maxsize=4096)
def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    return re.compile(r"(?<![a-z0-9])" + re.escape(phrase.lower()))


def contains_phrase(text_lower: str, phrase: str) -> bool:
    """Whether ``phrase`` starts a word in already lower-cased text ("lock" finds "locked")."""
    return _phrase_pattern(phrase).search(text_lower) is not None


def matched_groups(text: str, groups: Iterable[Iterable[str]]) -> tuple[int, int]:
    """How many fact groups (any phrasing of a group counts) occur in ``text``, of how many."""
    lowered = text.lower()
    total = hit = 0
    for group in groups:
        total += 1
        if any(contains_phrase(lowered, phrase) for phrase in group):
            hit += 1
    return hit, total


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def requests_sensitive_data(text: str, sensitive_patterns: Iterable[str]) -> list[str]:
    """Sentences that ask the customer for something the policy forbids asking for.

    A warning ("never share your password") is not a request: a cue counts only when no
    negation stands just before it. A question about sensitive data counts as a request.
    """
    found: list[str] = []
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
    return found


def makes_forbidden_promise(text: str, promise_patterns: Iterable[str]) -> list[str]:
    """Sentences that make a commitment the policy does not allow ("we cannot guarantee" is
    not one: a negation just before the commitment lifts it)."""
    found: list[str] = []
    patterns = [_compiled(p) for p in promise_patterns]
    for sentence in sentences(text):
        lowered = sentence.lower()
        for pattern in patterns:
            if any(not _negated(lowered, m.start()) for m in pattern.finditer(lowered)):
                found.append(sentence)
                break
    return found


def ngrams(tokens: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def copied_ngrams(text: str, source: str, n: int = 3) -> tuple[int, int]:
    """How many of the text's distinct word n-grams also occur in ``source``, of how many."""
    mine = ngrams(words(text), n)
    return len(mine & ngrams(words(source), n)), len(mine)


def copied_fraction(text: str, source: str, n: int = 3) -> float:
    """Share of the text's word n-grams that also occur in ``source`` (1.0 = pasted)."""
    copied, total = copied_ngrams(text, source, n)
    return copied / total if total else 0.0


def shares_ngram(text: str, source: str, n: int = 5) -> bool:
    """Whether the text repeats any run of ``n`` words from ``source`` (used for internal notes)."""
    return bool(ngrams(words(text), n) & ngrams(words(source), n))


def word_coverage(text: str, source: str) -> float:
    """Share of the text's content words (not function words) that occur in ``source``."""
    mine = [w for w in words(text) if w not in FUNCTION_WORDS]
    if not mine:
        return 0.0
    theirs = set(words(source))
    return sum(1 for w in mine if w in theirs) / len(mine)


def function_word_ratio(text: str) -> float:
    tokens = words(text)
    if not tokens:
        return 0.0
    return sum(1 for t in tokens if t in FUNCTION_WORDS) / len(tokens)
