"""Matching phrases the way a reader does: by word stems, in any close order.

A fact phrasing ("email changed") is stated by a text that says it in other inflections or
order ("changed the email address", "replacement" for "replaced"). Matching stays
deterministic and cheap: a Snowball stem per word (cached), substring searches over a
normalised and a stemmed form of the text, and a short window for multi-word phrasings.
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

from inbox_triage.domain.text import FUNCTION_WORDS, normalise
from inbox_triage.grading.polarity import CUES, negation_flags

# A Snowball stemmer keeps the word it works on in itself: one per thread (the server and the
# threads backend grade in several at once; a shared one raised IndexError mid-word).
_LOCAL = threading.local()
# A multi-word phrasing may be spread over this many more words than it has ("charged me
# twice" for "charged twice"), in any order.
WINDOW_SLACK = 4


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball stem of one lower-case word, with a leading/trailing quote dropped."""
    stemmer = getattr(_LOCAL, "stemmer", None)
    if stemmer is None:
        stemmer = _LOCAL.stemmer = snowballstemmer.stemmer("english")
    return str(stemmer.stemWord(word.strip("'")))


@dataclass(frozen=True, slots=True, eq=False)
class Indexed:
    """A text as the matchers read it: its words, their stems, and both as searchable strings."""

    tokens: tuple[str, ...]
    stems: tuple[str, ...]
    plain: str  # " w1 w2 ... " (normalise)
    stemmed: str  # " s1 s2 ... "
    stem_at: dict[str, list[int]]  # where each stem occurs
    token_at: dict[str, list[int]]  # where each word occurs
    sorted_tokens: tuple[str, ...]  # the distinct words, sorted (for prefixes)
    denied: tuple[bool, ...] = ()  # whether a negation denies each word
    asked: tuple[bool, ...] = ()  # whether each word stands in a question

    def has(self, word: str, word_stem: str) -> bool:
        """Whether a word occurs, by stem or as the start of a longer word."""
        if word_stem in self.stem_at:
            return True
        at = bisect_left(self.sorted_tokens, word)
        return at < len(self.sorted_tokens) and self.sorted_tokens[at].startswith(word)

    def positions(self, word: str, word_stem: str) -> list[int]:
        """Where a word occurs: by stem, or as the start of a longer word ("investigat")."""
        found = list(self.stem_at.get(word_stem, ()))
        at = bisect_left(self.sorted_tokens, word)
        while at < len(self.sorted_tokens) and self.sorted_tokens[at].startswith(word):
            found.extend(self.token_at[self.sorted_tokens[at]])
            at += 1
        return found


@lru_cache(maxsize=4096)
def index(text: str) -> Indexed:
    """The text indexed once (cached: a text is matched against many phrasings in a row)."""
    plain = normalise(text)
    tokens = tuple(plain.split())
    stems = tuple(stem(t) for t in tokens)
    stem_at: dict[str, list[int]] = {}
    token_at: dict[str, list[int]] = {}
    for i, (t, s) in enumerate(zip(tokens, stems, strict=True)):
        stem_at.setdefault(s, []).append(i)
        token_at.setdefault(t, []).append(i)
    denied, asked = negation_flags(text)
    if len(denied) != len(tokens):  # a text the two tokenisers read apart: nothing denied
        denied = asked = (False,) * len(tokens)
    return Indexed(
        tokens,
        stems,
        plain,
        " " + " ".join(stems) + " ",
        stem_at,
        token_at,
        tuple(sorted(token_at)),
        denied,
        asked,
    )


@dataclass(frozen=True, slots=True)
class Phrase:
    """One phrasing, prepared: what to look for in the plain and the stemmed text, and its
    content words for the window match."""

    text: str
    plain: str
    stemmed: str
    content: tuple[tuple[str, str], ...]  # (word, stem) of each content word


@lru_cache(maxsize=16384)
def phrase(text: str) -> Phrase:
    plain = normalise(text).rstrip()
    words = plain.split()
    stems = [stem(w) for w in words]
    content = tuple((w, s) for w, s in zip(words, stems, strict=True) if w not in FUNCTION_WORDS)
    return Phrase(text, plain, " " + " ".join(stems), content)


def states(text: Indexed, p: Phrase) -> bool:
    """Whether the text states the phrasing: as written (a phrasing may end in a stem,
    "investigat"), in another inflection, or, for several content words, all of them within
    a few words of each other in any order."""
    if not p.plain:  # nothing to look for ("—", or letters normalising drops)
        return False
    if p.plain in text.plain or p.stemmed in text.stemmed:
        return True
    if len(p.content) < 2:
        return False
    hits: list[tuple[int, int]] = []  # (position in the text, which content word)
    for k, (word, word_stem) in enumerate(p.content):
        found = text.positions(word, word_stem)
        if not found:
            return False
        hits.extend((i, k) for i in set(found))
    return _within(sorted(hits), len(p.content), len(p.content) + WINDOW_SLACK)


def occurrences(text: Indexed, p: Phrase) -> list[int]:
    """Where the text states the phrasing (the position of a word of each match)."""
    if not p.plain:
        return []
    found: set[int] = set()
    for haystack, needle in ((text.plain, p.plain), (text.stemmed, p.stemmed)):
        at = haystack.find(needle)
        while at >= 0:
            found.add(haystack.count(" ", 0, at + 1) - 1)
            at = haystack.find(needle, at + 1)
    if not found and len(p.content) >= 2:
        hits: list[tuple[int, int]] = []
        for k, (word, word_stem) in enumerate(p.content):
            positions = text.positions(word, word_stem)
            if not positions:
                return []
            hits.extend((i, k) for i in set(positions))
        found.update(_completions(sorted(hits), len(p.content), len(p.content) + WINDOW_SLACK))
    return sorted(found)


def polarity(
    text: Indexed,
    groups: tuple[tuple[str, ...], ...],
    source: Indexed | None = None,
    questions_state: bool = True,
) -> tuple[list[bool], list[bool]]:
    """For each fact group, whether the text states it, and whether it only denies it.

    A phrasing under a negation is denied, unless the phrasing carries its own ("can't log
    in") or ``source`` (what the customer wrote) denies it too; in a question it states
    nothing unless ``questions_state`` (a reply's "could you send the receipt?" names the point
    it asks about)."""
    stated: list[bool] = []
    denied: list[bool] = []
    for group in groups:
        said = against = False
        for text_ in group:
            p = phrase(text_)
            for i in occurrences(text, p):
                if not questions_state and text.asked[i]:
                    continue
                if not text.denied[i] or _own_negation(p) or (source and _denies(source, p)):
                    said = True
                else:
                    against = True
        stated.append(said)
        denied.append(against and not said)
    return stated, denied


def _own_negation(p: Phrase) -> bool:
    return any(w in CUES for w in p.plain.split())


def _denies(source: Indexed, p: Phrase) -> bool:
    return any(source.denied[i] for i in occurrences(source, p))


def _completions(hits: list[tuple[int, int]], needed: int, span: int) -> list[int]:
    """Where a run of ``span`` words first holds every one of ``needed`` words."""
    out: list[int] = []
    counts: dict[int, int] = {}
    lo = 0
    for pos, k in hits:
        counts[k] = counts.get(k, 0) + 1
        while hits[lo][0] <= pos - span:
            gone = hits[lo][1]
            counts[gone] -= 1
            if not counts[gone]:
                del counts[gone]
            lo += 1
        if len(counts) == needed:
            out.append(pos)
    return out


def _within(hits: list[tuple[int, int]], needed: int, span: int) -> bool:
    """Whether some run of ``span`` consecutive words holds every one of ``needed`` words."""
    counts: dict[int, int] = {}
    lo = 0
    for pos, k in hits:
        counts[k] = counts.get(k, 0) + 1
        while hits[lo][0] <= pos - span:
            gone = hits[lo][1]
            counts[gone] -= 1
            if not counts[gone]:
                del counts[gone]
            lo += 1
        if len(counts) == needed:
            return True
    return False


def stated_groups(text: Indexed, groups: tuple[tuple[str, ...], ...]) -> list[bool]:
    """For each fact group, whether the text states any of its phrasings."""
    return [any(states(text, phrase(p)) for p in group) for group in groups]


def covered_by(p: Phrase, text: Indexed) -> bool:
    """Whether every content word of the phrasing occurs in a body of text (by stem, or as the
    start of one of its words, for phrasings that end in a stem)."""
    words = p.content or tuple((w, stem(w)) for w in p.plain.split())
    return all(text.has(w, s) for w, s in words)
