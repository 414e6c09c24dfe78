"""What the agent was shown for one email, as the text checks need it.

Everything an agent read about an email (subject, body, thread, the customer's later messages,
the customer's details) and the org's decision vocabulary is fair to write about: a summary
that repeats the body's "login from another country" or says "routing to billing" is specific,
not stuffed. Built once per ticket and per set of customer messages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from inbox_triage.domain import OrgProfile, Ticket
from inbox_triage.domain.text import FUNCTION_WORDS, needle
from inbox_triage.grading.lexicon import Indexed, covered_by, index, phrase
from inbox_triage.grading.memo import ObjectMemo
from inbox_triage.grading.stuffing import GENERIC_WORDS, fact_groups, is_rare_stem

# An id, an amount or a precise figure: at least three digits, or letters and digits joined.
_IDS = re.compile(r"[$£€]?\d[\d,.]*\d[\d,.]*\d|\b[A-Za-z]+-\d[\w-]*\d\b|\b\d[A-Za-z]\w*\d\b")
# A capitalised word inside a sentence: a name (a product, a place, a person, a company).
_PROPER = re.compile(r"(?<=[a-z0-9,;:] )[A-Z][a-z][\w'-]*")
# Where a message's own words end and its signature begins (a title, a company, a footer).
_SIGN_OFF = re.compile(
    r"\n\s*(?:kind |best |warm |many )?(?:regards|best|thanks|thank you|cheers|sincerely|"
    r"respectfully|yours(?: faithfully| sincerely| truly)?|all the best)[ ,.!]*\n",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"(?<=[a-z])(?=\d)")


@dataclass(frozen=True, slots=True)
class Seen:
    """The words an agent saw for one email, its own fact phrasings, and the vocabulary."""

    customer: str  # everything the customer wrote (a text must not be made of it)
    seen: Indexed  # ... and the customer's details
    own: Indexed  # the email's own fact phrasings
    vocabulary: Indexed  # every decision value and template text
    choices: tuple[str, ...]  # queue and category names, spelled as words
    details: frozenset[str]  # stems of the email's concrete details (ids, amounts, products)
    # ... those of them its body says and its subject and its key points do not: what sets this
    # email apart from others of its kind and with its subject
    specific: frozenset[str] = frozenset()
    specific_first: frozenset[str] = frozenset()  # ... of them, those the first message says

    def details_in(self, text: Indexed) -> set[str]:
        """The email's concrete details a text mentions."""
        return {s for s in text.stems if s in self.details}

    def alien_ids(self, text: str) -> set[str]:
        """The ids, amounts and figures a text names that this email never mentions
        ("ORD-87881", "$4,272.33", "1Z1087658959")."""
        return {
            m
            for m in _IDS.findall(text)
            if needle(m) not in self.seen.plain and needle(m) not in self.own.plain
        }

    def related(self, term: str) -> bool:
        """Whether a phrasing is accounted for by this email or the vocabulary."""
        p = phrase(term)
        return covered_by(p, self.own) or covered_by(p, self.seen) or covered_by(p, self.vocabulary)


def _is_detail(token: str, token_stem: str) -> bool:
    """A figure with two digits or more ("75352", "2025", "$739", "30") or a word few emails use
    ("authenticator", "subpoena"); not "4"."""
    if any(ch.isdigit() for ch in token):
        return sum(ch.isdigit() for ch in token) >= 2
    return len(token) >= 4 and is_rare_stem(token_stem)


def spelled(value: str) -> str:
    """A vocabulary value as people write it: "support_tier2" is "support tier 2"."""
    return _DIGITS.sub(" ", value.replace("_", " ").replace("-", " "))


def _vocabulary_of(org: OrgProfile | None) -> tuple[Indexed, tuple[str, ...]]:
    if org is None:
        return index(""), ()
    values = [
        *org.priorities,
        *org.categories,
        *org.queues,
        *org.tags,
        *org.sentiments,
        *org.templates,
        *org.templates.values(),
        *org.resolution_codes,
        *org.escalation_targets,
        *org.tiers,
        org.name,
    ]
    choices = tuple(dict.fromkeys(spelled(v) for v in (*org.queues, *org.categories)))
    return index("\n".join(spelled(v) for v in values)), choices


_vocabulary = ObjectMemo(_vocabulary_of)


def _build(ticket: Ticket, messages: tuple[str, ...], org: OrgProfile | None) -> Seen:
    c = ticket.customer
    customer = "\n".join([ticket.subject, ticket.body, *(m.body for m in ticket.thread), *messages])
    about = [ticket.sender, c.name, c.email, c.company or "", c.account_id or ""]
    seen = index("\n".join([customer, *about, *(m.sender for m in ticket.thread)]))
    # the email's key points, and the evidence it needs (what a summary may say is missing)
    own = index(
        "\n".join([*(p for g in fact_groups(ticket) for p in g), *ticket.truth.info_keywords])
    )
    vocabulary, choices = _vocabulary_of(None) if org is None else _vocabulary(org)
    who = index(" ".join([c.name, c.email, c.company or "", ticket.sender])).stem_at
    details = frozenset(
        s
        for t, s in zip(seen.tokens, seen.stems, strict=True)
        if t not in FUNCTION_WORDS
        and t not in GENERIC_WORDS
        and s not in vocabulary.stem_at
        and s not in who
        and _is_detail(t, s)
    )
    first = "\n".join(
        _SIGN_OFF.split(t, maxsplit=1)[0] for t in (ticket.body, *(m.body for m in ticket.thread))
    )
    specific = _specific(details, "\n".join([first, *messages]))
    # a reply written before the customer's later answers cannot name what they say
    return Seen(
        customer, seen, own, vocabulary, choices, details, specific, _specific(details, first)
    )


def _specific(details: frozenset[str], text: str) -> frozenset[str]:
    """The details a text names that set its email apart: figures, and names of things."""
    names = {index(n).stems[0] for n in _PROPER.findall(text) if n.lower() not in FUNCTION_WORDS}
    said = index(text).stem_at
    return frozenset(
        d for d in details if d in said and (any(ch.isdigit() for ch in d) or d in names)
    )


_per_ticket: ObjectMemo[Ticket, dict[tuple[object, ...], Seen]] = ObjectMemo(lambda t: {})


def seen_for(ticket: Ticket, messages: tuple[str, ...] = (), org: OrgProfile | None = None) -> Seen:
    """The context of one email given the customer messages that have arrived (cached)."""
    cache = _per_ticket(ticket)
    key = (id(org), *messages)  # the org lives as long as the scenario holding the ticket
    found = cache.get(key)
    if found is None:
        found = cache[key] = _build(ticket, messages, org)
    return found
