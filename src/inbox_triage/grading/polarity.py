"""Which words of a text a negation denies, and which a question only asks about.

A point stated under negation is not stated: "not about a double charge", "there was no
outage", "we will not review the charge", "the outage is no longer an issue". A negation
reaches forward to the end of its clause (a list after a comma included: "nothing to do with
X, Y or Z"); a few turns of phrase deny what came before them ("X is no longer a problem");
and some negations deny nothing ("not only X but Y", "no later than Friday", "don't hesitate").
"""

from __future__ import annotations

import re

from inbox_triage.domain.text import FUNCTION_WORDS, NEGATIONS

CUES = NEGATIONS | frozenset({"nothing", "none", "nowhere", "no-one", "without"})
# What a negation before them turns into something else.
_NOT_A_DENIAL = {
    "not": frozenset({"only", "just", "sure", "yet"}),
    "no": frozenset({"doubt", "matter", "problem", "worries", "later", "sooner"}),
    "nothing": frozenset({"else"}),
}
_HARMLESS_AFTER = frozenset({"hesitate", "forget", "worry", "panic", "fail"})
_TERMINATORS = frozenset('.;:!?()[]"\n')
_STOPS = frozenset(
    "but however although though whereas because while yet unless except instead".split()
)
# Turns of phrase that deny what came before them in their clause ("X is no longer an issue"),
# and the clause before when they open one ("X: no longer a problem", "X, but not any more").
_DENIES_BEFORE = re.compile(
    r"\b(?:(?:is|was|are|were|be) )?(?:no longer|not any ?more|not) (?:an? )?(?:issue|problem|"
    r"concern|worry|relevant|the case|true|real|happening)\b|\bnot any ?more\b|"
    r"\bstopped being\b|\bceased to be\b|\bnever happened\b|\bdid(?:n't| not) happen\b|"
    r"\bnone of (?:it|that|this)\b|\buntrue\b"
)
_OPENERS = frozenset("but yet and it is was are were that this they".split())
# "nobody in the company can ...": the place a negative subject is in is not denied
_SCOPE_WORDS = frozenset({"in", "at", "from", "on", "across"})
_NEGATIVE_SUBJECTS = frozenset({"nobody", "no-one", "none", "nothing"})
LIST_ITEM_WORDS = 4
_SUBJECTS = frozenset("i we you they he she it our their his her this that the".split())
SCOPE = 6  # words a negation reaches (to the end of its clause at most)
_ITEM = re.compile(r"[a-z0-9$£€']+|\n|[^\sa-z0-9$£€']")


def _is_cue(words: list[str], i: int) -> bool:
    word = words[i]
    if word not in CUES:
        return False
    after = words[i + 1] if i + 1 < len(words) else ""
    before = words[i - 1] if i else ""
    if after in _NOT_A_DENIAL.get(word, ()) or after in _HARMLESS_AFTER:
        return False
    return not (word == "not" and before in ("or", "if"))  # "whether or not", "if not"


def negation_flags(text: str) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """For each word of ``text`` (as ``normalise`` splits it): whether a negation denies it,
    and whether it stands in a question."""
    items = [m.group() for m in _ITEM.finditer(text.lower().replace("\u2019", "'"))]
    words = [t for t in items if t[0].isalnum() or t[0] in "$£€'"]
    denied = [False] * len(words)
    asked = [False] * len(words)
    # forward: from a cue to the end of its clause
    k = -1  # index into words
    active = False
    reach = 0
    spared: set[int] = set()
    for j, item in enumerate(items):
        if not (item[0].isalnum() or item[0] in "$£€'"):
            if item in _TERMINATORS:
                active = False
            elif item == "," and active:
                active = _list_goes_on(items, j)
                reach = SCOPE  # each item of a denied list is denied
            continue
        k += 1
        if item in _STOPS:
            active = False
        if active and k not in spared:
            denied[k] = True
            reach -= 1
            active = reach > 0
        if _is_cue(words, k):
            active = True
            reach = SCOPE
            if item in _NEGATIVE_SUBJECTS and k + 1 < len(words) and words[k + 1] in _SCOPE_WORDS:
                spared.update(range(k + 1, min(k + 4, len(words))))
    # backward: a clause that goes on to deny what it said; and questions
    start = 0
    k = 0
    clause_start = previous_start = 0
    for item in [*items, "."]:
        if item[0].isalnum() or item[0] in "$£€'":
            if item in _STOPS:
                previous_start, clause_start = clause_start, k
            k += 1
            continue
        if item in _TERMINATORS or item == ",":
            _deny_back(words, denied, previous_start, clause_start, k)
            previous_start, clause_start = clause_start, k
        if item in ".!?\n":
            if item == "?":
                for i in range(start, k):
                    asked[i] = True
            start = previous_start = clause_start = k
    return tuple(denied), tuple(asked)


def _deny_back(words: list[str], denied: list[bool], previous: int, start: int, end: int) -> None:
    clause = " ".join(words[start:end])
    turn = _DENIES_BEFORE.search(clause)
    if not turn:
        return
    # opening its clause ("but is not any more"), it answers the clause before
    opening = all(w in _OPENERS for w in clause[: turn.start()].split())
    first = previous if opening else start
    upto = start + len(clause[: turn.end()].split())
    for i in range(first, upto):
        denied[i] = True


def _list_goes_on(items: list[str], comma: int) -> bool:
    """Whether the words after a comma continue a list the negation governs ("X, Y or Z")."""
    segment: list[str] = []
    for item in items[comma + 1 :]:
        if item[0].isalnum() or item[0] in "$£€'":
            segment.append(item)
        elif item == "," or item in _TERMINATORS:
            return _item_of_list(segment, item == ",")
    return _item_of_list(segment, False)


def _item_of_list(segment: list[str], comma_follows: bool) -> bool:
    """A list's items are short ("Y", "Y or Z"); a longer run is a clause of its own."""
    content = [w for w in segment if w not in FUNCTION_WORDS]
    joined = comma_follows or bool({"and", "or", "nor"} & set(segment))
    # "..., and our team is investigating" opens a clause of its own
    clause = len(segment) > 1 and segment[0] in ("and", "or") and segment[1] in _SUBJECTS
    return len(content) <= LIST_ITEM_WORDS and joined and not clause
