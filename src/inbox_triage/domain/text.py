"""Pure text checks shared by the engine (policy violations) and the grader (reply quality).

They are deliberately simple and deterministic: regular expressions, word n-grams and ratios.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

_WORD = re.compile(r"[a-z0-9$£€][a-z0-9'$£€.\-]*[a-z0-9]|[a-z0-9]")
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")

# ... by one of these words just before it ("never share your password", "do not send").
NEGATIONS = frozenset(
    """never not no don't dont cannot can't won't wont shouldn't nobody neither nor didn't
    doesn't isn't aren't wasn't haven't hasn't wouldn't couldn't mustn't""".split()
)
NEGATION_WINDOW = 3


# A negation that turns a request round ("don't forget to send ...") is not one.
_DOUBLE_NEGATIVE = frozenset("hesitate forget fail worry panic".split())
_CLAUSE = re.compile(r"[,;:]|\b(?:but|however|just|instead|though)\b")


def _clause_before(lowered: str, start: int) -> list[str]:
    """The words of the clause that ends where ``start`` begins."""
    head = _CLAUSE.split(lowered[:start].replace("\u2019", "'"))[-1]
    return head.split()


def _negated(lowered: str, start: int) -> bool:
    """Whether one of the few words before ``start``, in the same clause, negates what starts
    there ("do not send"; not "don't worry, just send", nor "don't hesitate to send")."""
    before = _clause_before(lowered, start)[-NEGATION_WINDOW:]
    return _negates(before)


def _negates(before: list[str]) -> bool:
    words_ = [w.strip(",;:()\"'") for w in before]
    return any(
        w in NEGATIONS and (i + 1 >= len(words_) or words_[i + 1] not in _DOUBLE_NEGATIVE)
        for i, w in enumerate(words_)
    )


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
