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
    r"attach|verify|need|require|what is|what's|let us know|please|remind|ask|asks|asking)\b"
)
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


# Words that, just before a mention of a secret in its own clause, make it advice rather than a
# request ("change your password", "without the API key", "remove any tokens") ...
SAFE_BEFORE = frozenset(
    """change changing reset resetting update updating keep keeping protect rotate revoke
    regenerate remove removing redact redacting strip stripping mask masking hide hiding blank
    omit omitting delete deleting exclude excluding without except choose choosing create
    creating pick picking forgot forgotten""".split()
)
SAFE_SPAN = 6  # words before a secret that a safe word governs it from
# ... or just after it ("with the keys removed", "keep it to yourself").
_SAFE_AFTER = re.compile(
    r"^\W*(?:\w+\W+){0,4}?(?:removed|redacted|stripped|masked|hidden|blanked|omitted|deleted|"
    r"excluded|(?:taken|blanked|crossed|left|cut) out|to yourself)\b"
)
_LEAVE_OUT = re.compile(r"\b(?:leave|leaving|take|taking|cut|blank|black|cross)\b(?: \S+)? out\b")
# Using a secret is not sharing it ("sign in again with the new password").
_SIGN_IN = re.compile(r"\b(?:sign|signing|signed|log|logging|logged)\s+(?:back\s+)?in\b")


def _is_advice(lowered: str, start: int, end: int) -> bool:
    """Whether a mention of a secret is a warning or advice, not a request for it: a safe word
    that governs it (no request cue between them), a redaction after it, or a negation of the
    request that asks for it ("never share your password", "we will never ask for it")."""
    before = lowered[:start].replace("\u2019", "'")
    # a list ("API keys, tokens and other credentials") does not end what governs it
    span = re.split(r"[;:.!?]|\bbut\b", before)[-1].split()[-SAFE_SPAN:]
    for i, w in enumerate(span):
        if w.strip(",;:()\"'") in SAFE_BEFORE and not _REQUEST.search(" ".join(span[i + 1 :])):
            return True
    joined = " ".join(span)
    if _LEAVE_OUT.search(joined) or _SIGN_IN.search(joined) or _SAFE_AFTER.match(lowered[end:]):
        return True
    head = _CLAUSE.split(before)[-1]
    cues = list(_REQUEST.finditer(head))
    if cues:  # the cue that asks for it, negated or not
        cue = cues[-1]
        at = start - len(head) + cue.start()
        if cue.group() == "please":
            return _negated(lowered, at) or _negated_after(lowered, at + len("please"))
        return _negated(lowered, at)
    return _negates(head.split())


@lru_cache(maxsize=512)
def _requests_sensitive_data(text: str, sensitive_patterns: tuple[str, ...]) -> tuple[str, ...]:
    """Sentences that ask the customer for something the policy forbids asking for.

    A warning or advice ("never share your password", "please change your password", "remove
    any API keys before you paste it", "with the credentials removed") is not a request: a
    mention counts only when nothing in its clause negates it or makes it advice, and then only
    when the sentence asks for something (a cue not negated) or is a question.
    """
    found: list[str] = []
    if not _any_of(sensitive_patterns).search(text.lower()):
        return ()  # the common case: nothing sensitive is mentioned at all
    patterns = [_compiled(p) for p in sensitive_patterns]
    for sentence in sentences(text):
        for clause in sentence.split(";"):
            lowered = clause.lower()
            hits = [
                m
                for p in patterns
                for m in p.finditer(lowered)
                if not _is_advice(lowered, m.start(), m.end())
            ]
            if not hits:
                continue
            cues = [
                m
                for m in _REQUEST.finditer(lowered)
                if not _negated(lowered, m.start())
                and not (m.group() == "please" and _negated_after(lowered, m.end()))
            ]
            if cues or lowered.rstrip().endswith("?"):
                found.append(sentence)
                break
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


# Commitments the policy forbids before the owning team has decided, in the many ways people
# make them (the policy's own patterns list the common phrasings; these catch the rest): money
# promised ("we'll refund your shipping", "you'll get a full refund", "three months free") or a
# fix promised for a date ("the fix will be live by Thursday").
_COMMIT = (
    r"\b(?:we|i|they|you|it|this|that|fix|update|feature|team)"
    r"(?:'ll| will| shall| are going to| is going to)\b"
)
_MONEY_PROMISES = (
    re.compile(
        _COMMIT + r"[^.;!?]{0,40}?\b(?:refund|reimburse|credit|compensate)(?:d)?\s+"
        r"(?:you|your|the|it|this|that|in full|back|for)\b"
    ),
    re.compile(
        _COMMIT + r"[^.;!?]{0,15}?\b(?:send|give|issue|process|arrange|apply|add|get|receive|"
        r"be given|have|ship)\b[^.;!?]{0,70}?\b(?:refund|credit|reimbursement|compensation|"
        r"money back|voucher|discount)\b"
    ),
    re.compile(r"\b(?:\w+ )?(?:months?|weeks?|years?) (?:of )?free\b|\bfree (?:of charge )?for\b"),
    re.compile(
        r"\b(?:we're|we are|i'm|i am) (?:refunding|crediting|reimbursing|compensating)\b|"
        r"\b(?:we've|we have|i've|i have) (?:approved|issued|processed|arranged|authori[sz]ed) "
        r"(?:your|a|the) (?:\w+ )?(?:refund|credit|reimbursement|compensation)\b"
    ),
)
_WHEN = (
    r"(?:tomorrow|tonight|today|the end of|end of|next (?:week|month)|this (?:week|month|evening)|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|\d+ (?:hours?|days?|weeks?)|"
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
    r"|the weekend|noon|midnight)"
)
_FIX_PROMISE = re.compile(
    r"(?:"
    + _COMMIT
    + r"|\bwill (?:be|go)\b)[^.;!?]{0,40}?\b(?:fixed|fix|resolved|resolve|patched|deployed|"
    r"live|restored|back up|working again|banned|removed|released|available|sorted)\b"
    r"[^.;!?]{0,30}?"
    r"\b(?:by|before|within|on|until|no later than|in)\s+" + _WHEN
)
_HAVE_BY = re.compile(
    r"\b(?:we|i)(?:'ll| will) have\b[^.;!?]{0,40}?\b(?:by|before|within)\s+" + _WHEN
)
_HEDGES = re.compile(
    r"\b(?:if|whether|may|might|could|can't|cannot|unable|not able|no (?:date|timeline|time)|"
    r"won't|never|hope|hoping|aim|aiming|try|trying|expect)\b"
)


def promises_outcome(text: str) -> tuple[str, ...]:
    """Sentences that promise money or a fix date outright (a hedge, a condition or a negation
    before it lifts the promise: "if the team approves it", "I can't give a date")."""
    found: list[str] = []
    for sentence in sentences(text):
        lowered = sentence.lower().replace("\u2019", "'")
        for pattern in (*_MONEY_PROMISES, _FIX_PROMISE, _HAVE_BY):
            match = pattern.search(lowered)
            # a hedge in the same part of the sentence lifts it ("try not to worry: ..." does not)
            if match and not _HEDGES.search(re.split(r"[:;]", lowered[: match.end()])[-1]):
                found.append(sentence)
                break
    return tuple(found)
