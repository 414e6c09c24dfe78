"""Reply and summary grading on content, built so that shortcuts do not pay.

A reply scores by the facts it states (gated: no facts, no score), then by addressing the customer
and a sensible length. It scores zero when it breaks policy (asks for secrets, promises what the
policy forbids, quotes internal notes or forbidden phrases), pastes the customer's message back,
reads as a list of keywords, or fishes with many phrasings of one point or with points that
belong to other tickets. Summaries get the same paste and stuffing checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from inbox_triage.domain import Policy, Ticket
from inbox_triage.domain.text import (
    FUNCTION_WORDS,
    contains_phrase,
    copied_ngrams,
    function_word_ratio,
    makes_forbidden_promise,
    matched_groups,
    needle,
    normalise,
    requests_sensitive_data,
    shares_ngram,
    word_coverage,
    words,
)
from inbox_triage.grading.memo import ObjectMemo

PASTE_THRESHOLD = 0.5
MIN_COPIED_RUNS = 4
COVERAGE_MIN_WORDS = 12
COVERAGE_LIMIT = 0.9
MIN_FUNCTION_WORD_RATIO = 0.2
FOREIGN_TERMS_LIMIT = 4
SUMMARY_FOREIGN_TERMS_LIMIT = 3
SYNONYM_LIMIT = 4


# Words any polite reply uses whatever the topic: a phrase made only of these (and function
# words) says nothing about which ticket it answers, so it never counts as stuffing.
GENERIC_WORDS = frozenset(
    """team teams check checking checked confirm confirmed follow following update updated
    updates review reviewed reviewing answer answered help helping look looking get back
    details detail case issue issues problem request requests support reply respond contact
    soon shortly today tomorrow thanks sorry customer customers message email mail let know
    asap right away able need needs sure send sent our us we you your arrange arranged set
    logged ticket raised open working work on""".split()
)


@lru_cache(maxsize=16384)
def is_distinctive(phrase: str) -> bool:
    """Whether a phrase names something specific (not only generic or function words)."""
    return any(w not in GENERIC_WORDS and w not in FUNCTION_WORDS for w in words(phrase))


@dataclass(frozen=True, slots=True)
class TextScore:
    score: float
    note: str


def policy_breaches(text: str, ticket: Ticket, policy: Policy) -> list[str]:
    """Why a text must not go to this customer, if it must not."""
    reasons: list[str] = []
    if requests_sensitive_data(text, policy.sensitive_data):
        reasons.append("asks for data the policy forbids requesting")
    if makes_forbidden_promise(text, policy.forbidden_promises):
        reasons.append("makes a promise the policy forbids")
    if any(shares_ngram(text, note) for note in ticket.internal_notes):
        reasons.append("quotes internal notes")
    lowered = text.lower()
    if ticket.truth.reply and any(
        p.lower() in lowered for p in ticket.truth.reply.forbidden_phrases
    ):
        reasons.append("contains content that must not reach this customer")
    return reasons


def customer_text(ticket: Ticket) -> str:
    """Everything the customer wrote: a reply or summary must not be made of it (one string
    per ticket, so that the caches keyed by it hash it once)."""
    return _customer_texts(ticket)


_customer_texts = ObjectMemo(lambda t: "\n".join([t.subject, t.body, *(m.body for m in t.thread)]))


def is_copied(text: str, ticket: Ticket) -> bool:
    """Pasted (most word triples appear in the customer's text) or lightly edited (nearly every
    content word of a longer text comes from it, as when every third word is dropped)."""
    source = customer_text(ticket)
    copied, total = copied_ngrams(text, source)
    # A short text may share a product name or two with the email; a copy shares many runs.
    if total and copied / total >= PASTE_THRESHOLD and copied >= MIN_COPIED_RUNS:
        return True
    return len(words(text)) >= COVERAGE_MIN_WORDS and word_coverage(text, source) >= COVERAGE_LIMIT


def _own_groups_of(ticket: Ticket) -> tuple[tuple[str, ...], ...]:
    spec = ticket.truth.reply
    return (*ticket.truth.summary_facts, *(spec.required_facts if spec else ()))


_own_groups = ObjectMemo(_own_groups_of)
_own_phrases = ObjectMemo(lambda t: frozenset(p.lower() for g in _own_groups(t) for p in g))


class StuffingTerms:
    """Phrases that belong to some ticket's facts, indexed by how their first word starts so
    that a text is only checked against the few phrases it could contain."""

    KEY = 3

    def __init__(self, terms: frozenset[str], base: StuffingTerms | None = None) -> None:
        """``base`` is a shared index (an org's, built once); ``terms`` are added on top."""
        self.base = base
        self.own = terms - base.terms if base else terms
        # first three letters -> (term, what to look for in a normalised text)
        self._by_key: dict[str, list[tuple[str, str]]] = {}
        for term in self.own:
            self._by_key.setdefault(term[: self.KEY], []).append((term, needle(term)))

    @property
    def terms(self) -> frozenset[str]:
        """Every indexed phrase (built on demand: sessions keep only their own)."""
        return self.own | self.base.terms if self.base else self.own

    def found_in(self, text: str) -> set[str]:
        """Every term that starts a word in the text."""
        keys = {w[: self.KEY] for w in words(text)}
        haystack = normalise(text)
        by_key = self._by_key
        found = {
            term
            for key in keys
            if key in by_key
            for term, look_for in by_key[key]
            if look_for in haystack
        }
        return found | self.base.found_in(text) if self.base else found


def _foreign_terms(text: str, ticket: Ticket, stuffing_terms: StuffingTerms) -> int:
    return len(stuffing_terms.found_in(text) - _own_phrases(ticket))


def _group_needles(ticket: Ticket) -> tuple[tuple[tuple[str, str], ...], ...]:
    """Each fact group's (phrasing, what to look for), for groups with enough distinct
    phrasings to be stuffed at all."""
    groups = (tuple((p.lower(), needle(p)) for p in group) for group in _own_groups(ticket))
    return tuple(g for g in groups if len({low for low, _ in g}) >= SYNONYM_LIMIT)


_stuffable_groups = ObjectMemo(_group_needles)


def _synonym_stuffed(text: str, ticket: Ticket) -> bool:
    """Four or more phrasings of one point ("hacked, compromised, takeover") is fishing."""
    haystack = normalise(text)
    for group in _stuffable_groups(ticket):
        distinct = {low for low, look_for in group if look_for in haystack}
        if len(distinct) < SYNONYM_LIMIT:
            continue
        # a phrasing found only inside a longer one ("lock" in "locked") is the same word
        roots = {p for p in distinct if not any(o != p and o.startswith(p) for o in distinct)}
        if len(roots) >= SYNONYM_LIMIT:
            return True
    return False


def addresses_customer(text: str, ticket: Ticket) -> bool:
    """Whether the opening names the customer (first name, or surname as in "Dear Ms Pierce")."""
    opening = text[:80]
    names = ticket.customer.name.lower().replace(".", " ").split()
    candidates = [n for n in (names[:1] + names[-1:]) if len(n) >= 2]
    return any(contains_phrase(opening, n) for n in candidates)


def grade_reply(
    text: str | None, ticket: Ticket, policy: Policy, stuffing_terms: StuffingTerms
) -> TextScore:
    """Scores one reply (or the absence of one) against the ticket's reply spec."""
    spec = ticket.truth.reply
    if spec is None:
        if text is None:
            return TextScore(1.0, "no reply was due and none was sent")
        return TextScore(0.0, "a reply went to a message that should get none")
    if text is None:
        return TextScore(0.0, "no reply")
    breaches = policy_breaches(text, ticket, policy)
    if breaches:
        return TextScore(0.0, "; ".join(breaches))
    if is_copied(text, ticket):
        return TextScore(0.0, "pastes the customer's message")
    tokens = words(text)
    if len(tokens) >= 8 and function_word_ratio(text) < MIN_FUNCTION_WORD_RATIO:
        return TextScore(0.0, "reads as a keyword list, not a reply")
    if _foreign_terms(text, ticket, stuffing_terms) >= FOREIGN_TERMS_LIMIT:
        return TextScore(0.0, "stuffed with terms unrelated to this ticket")
    if _synonym_stuffed(text, ticket):
        return TextScore(0.0, "lists many phrasings of the same point")
    hit, total = matched_groups(text, spec.required_facts)
    facts = hit / total if total else 1.0
    addressed = addresses_customer(text, ticket)
    length_ok = policy.reply_min_words <= len(tokens) <= policy.reply_max_words
    score = facts * (0.5 + 0.25 * addressed + 0.25 * length_ok)
    parts = [f"{hit}/{total} required points"]
    if not addressed:
        parts.append("does not address the customer by name")
    if not length_ok:
        parts.append(
            f"{len(tokens)} words, outside {policy.reply_min_words}-{policy.reply_max_words}"
        )
    return TextScore(score, ", ".join(parts))


def grade_summary(
    text: str | None, ticket: Ticket, stuffing_terms: StuffingTerms | None = None
) -> TextScore:
    """A summary scores by the key facts it names, in words that are not pasted or stuffed."""
    if text is None:
        return TextScore(0.0, "no summary")
    if is_copied(text, ticket):
        return TextScore(0.0, "summary copies the email instead of summarising it")
    if (
        stuffing_terms
        and _foreign_terms(text, ticket, stuffing_terms) >= SUMMARY_FOREIGN_TERMS_LIMIT
    ):
        return TextScore(0.0, "summary stuffed with terms unrelated to this email")
    if _synonym_stuffed(text, ticket):
        return TextScore(0.0, "summary lists many phrasings of the same point")
    hit, total = matched_groups(text, ticket.truth.summary_facts)
    return TextScore(hit / total if total else 1.0, f"{hit}/{total} key points")


# Kinds of evidence a support team asks for. One request naming most of them is a net thrown
# over every possible case, not a question about this one.
EVIDENCE_WORDS = (
    "screenshot",
    "receipt",
    "transaction",
    "invoice",
    "order number",
    "order id",
    "photo",
    "picture",
    "date",
    "time",
    "last four",
    "last 4",
    "bank statement",
    "statement",
    "browser",
    "steps",
    "error message",
    "username",
    "profile",
    "recovery",
    "device",
    "tracking",
    "account email",
    "email address",
)
EVIDENCE_LIMIT = 5


def _evidence_named(text: str) -> set[str]:
    return {word for word in EVIDENCE_WORDS if contains_phrase(text, word)}


def grade_info_request(text: str | None, ticket: Ticket, policy: Policy) -> TextScore:
    """An information request scores when it asks for useful evidence and nothing forbidden."""
    if text is None:
        return TextScore(0.0, "no information requested")
    if requests_sensitive_data(text, policy.sensitive_data):
        return TextScore(0.0, "asks for data the policy forbids requesting")
    if len(_evidence_named(text)) >= EVIDENCE_LIMIT:
        return TextScore(0.5, "asks for every kind of evidence at once")
    keywords = ticket.truth.info_keywords
    if not keywords:
        return TextScore(1.0, "information requested")
    hit, _ = matched_groups(text, [keywords])
    if hit:
        return TextScore(1.0, "asks for the evidence the case needs")
    return TextScore(0.5, "asks for information, but not the evidence the case needs")
