"""Reply and summary grading on content, the way a careful support lead reads them.

A text scores by the points it states (matched by stem, in any close order, so that a person's
own wording counts), then a reply by addressing the customer and a sensible length. It scores
zero when it breaks policy (asks for secrets, promises what the policy forbids, quotes internal
notes), pastes the customer's message back, reads as a list of terms, fishes with many
phrasings of one point, names many teams at once, or is stuffed with things that belong to
other emails. Everything the agent was shown for the email, and the decision vocabulary, is
fair to mention: only what comes from elsewhere is stuffing. Every zero says why, and quotes
the words that caused it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from inbox_triage.domain import OrgProfile, Policy, Ticket
from inbox_triage.domain.screen import screen
from inbox_triage.domain.text import (
    FUNCTION_WORDS,
    contains_phrase,
    matched_groups,
    shares_ngram,
    word_coverage,
    words,
)
from inbox_triage.grading.context import Seen, seen_for, spelled
from inbox_triage.grading.lexicon import Indexed, index, phrase, stated_groups, states
from inbox_triage.grading.memo import ObjectMemo
from inbox_triage.grading.shortcuts import shortcut
from inbox_triage.grading.stuffing import StuffingTerms, is_distinctive

MIN_FUNCTION_WORD_RATIO = 0.2
DETAILS = 3  # the email's concrete details a text names to count as specific
NO_FACT_DETAILS = 2  # ... where the email has no key points of its own
ENGAGED_DETAILS = 2  # a reply naming fewer of the email's details, and none of its points ...
GENERIC_CREDIT = 0.5  # ... keeps this share of its score: it could go to any customer
ACKNOWLEDGED_CREDIT = 0.5  # of a reply's points, for naming the customer's problem alone ...
NO_POINT_CREDIT = 0.5
ECHO_LIMIT = 0.75  # ... in words mostly its own (not this share of the customer's)


@dataclass(frozen=True, slots=True)
class TextScore:
    """A text's score, why, and for a zero a short reason code that reports count by."""

    score: float
    note: str
    reason: str = ""


def _clip(sentence: str, limit: int = 60) -> str:
    sentence = " ".join(sentence.split())
    return sentence if len(sentence) <= limit else sentence[: limit - 3].rstrip() + "..."


def policy_breaches(text: str, ticket: Ticket, policy: Policy) -> list[str]:
    """Why a text must not go to this customer, if it must not."""
    reasons: list[str] = []
    found = screen(text, policy.sensitive_data, policy.forbidden_promises)
    if found.asks:
        reasons.append(f"asks for data the policy forbids requesting ('{_clip(found.asks[0])}')")
    if found.promises:
        reasons.append(f"makes a promise the policy forbids ('{_clip(found.promises[0])}')")
    if any(shares_ngram(text, note) for note in ticket.internal_notes):
        reasons.append("quotes internal notes")
    lowered = text.lower()
    if ticket.truth.reply and any(
        p.lower() in lowered for p in ticket.truth.reply.forbidden_phrases
    ):
        reasons.append("contains content that must not reach this customer")
    return reasons


_GREETING = re.compile(
    r"^\W*(?i:hi|hello|hey|dear|good (?:morning|afternoon|evening)|morning|afternoon|evening)"
    r"\s+(?:(?i:mr|mrs|ms|miss|mx|dr|prof)\.?\s+)?([A-Z][\w'-]*)(?=\s*(?:[,!.:;\n]|$|[A-Z]))"
)
# Words a greeting names that are not a person ("Dear Customer", "Hi Team").
_NOT_A_NAME = frozenset(
    """team there all everyone folks sir madam colleague colleagues friend friends customer
    customers valued user users member members client clients support again""".split()
)


def greeted_name(text: str) -> str | None:
    """The name a reply's greeting uses ("Hi Maria," "Dear Ms Pierce"), if it opens with one."""
    match = _GREETING.match(text)
    if not match:
        return None
    name = match.group(1)
    return None if name.lower() in _NOT_A_NAME else name


def _name_parts(ticket: Ticket) -> set[str]:
    parts = re.split(r"[\s.\-]+", ticket.customer.name.lower())
    return {n for n in parts if len(n) >= 2} | {ticket.customer.first_name.lower()}


def _greets_someone_else(greeted: str, ticket: Ticket) -> bool:
    """Whether a greeted name is not the customer's ("Maria-Lopez" is Maria Lopez)."""
    parts = _name_parts(ticket) - {""}
    return bool(parts) and not any(p in parts for p in re.split(r"[\-]", greeted.lower()) if p)


def addresses_customer(text: str, ticket: Ticket) -> bool:
    """Whether the opening names the customer (first name, or surname as in "Dear Ms Pierce")."""
    opening = index(text[:80])
    names = ticket.customer.name.lower().replace(".", " ").split()
    candidates = [n for n in (names[:1] + names[-1:]) if len(n) >= 2]
    return any(f" {n} " in opening.plain for n in candidates)


def _context(
    ticket: Ticket, messages: tuple[str, ...], org: OrgProfile | None, context: Seen | None
) -> Seen:
    return context if context is not None else seen_for(ticket, messages, org)


def grade_reply(
    text: str | None,
    ticket: Ticket,
    policy: Policy,
    stuffing_terms: StuffingTerms,
    messages: tuple[str, ...] = (),
    org: OrgProfile | None = None,
    context: Seen | None = None,
) -> TextScore:
    """Scores one reply (or the absence of one) against the ticket's reply spec; ``messages``
    are the customer's messages that arrived during the episode (fair to mention)."""
    spec = ticket.truth.reply
    if spec is None:
        if text is None:
            return TextScore(1.0, "no reply was due and none was sent")
        return TextScore(0.0, "a reply went to a message that should get none", "not due")
    if text is None:
        return TextScore(0.0, "no reply", "none")
    if not text.strip():
        return TextScore(0.0, "the reply is empty", "empty")
    breaches = policy_breaches(text, ticket, policy)
    if breaches:
        return TextScore(0.0, "; ".join(breaches), "policy")
    seen = _context(ticket, messages, org, context)
    greeted = greeted_name(text)
    if greeted and _greets_someone_else(greeted, ticket):
        note = f"greets '{greeted}', who is not the customer ({ticket.customer.name})"
        return TextScore(0.0, note, "wrong name")
    tokens = words(text)
    spread = index(text).tokens  # "a-b-c-d" is four words here
    function_share = sum(1 for t in spread if t in FUNCTION_WORDS) / max(1, len(spread))
    if len(spread) >= 8 and function_share < MIN_FUNCTION_WORD_RATIO:
        return TextScore(0.0, "reads as a keyword list, not a reply", "keyword list")
    why = shortcut(text, ticket, stuffing_terms, seen, "reply")
    if why:
        return TextScore(0.0, why[1], why[0])
    indexed = index(text)
    stated = stated_groups(indexed, spec.required_facts)
    hit, total = sum(stated), len(stated)
    # A reply that names this email's own details has answered this email: one point put in
    # words the fact list does not know is then no reason to mark it down.
    details = seen.details_in(indexed)
    specific = len(details) >= DETAILS
    facts = min(1.0, (hit + specific) / total) if total else 1.0
    if not hit:  # details without a single point: half marks at most
        facts = min(facts, NO_POINT_CREDIT)
    # The policy asks a reply to acknowledge the customer's specific problem and say what
    # happens next: naming the problem's points earns part of the credit on its own.
    problem = stated_groups(indexed, _distinctive_groups(ticket))
    if problem and word_coverage(text, seen.customer) < ECHO_LIMIT:
        facts = max(facts, ACKNOWLEDGED_CREDIT * sum(problem) / len(problem))
    # A reply that could go to any customer ("your request has been passed on") says nothing
    # of this one: none of its details, and of its points only the ways to say what is next.
    generic = (
        len(details) < ENGAGED_DETAILS
        and not any(stated_groups(indexed, _distinctive_required(ticket)))
        and not any(problem)
    )
    if generic:
        facts *= GENERIC_CREDIT
    addressed = addresses_customer(text, ticket)
    length_ok = policy.reply_min_words <= len(tokens) <= policy.reply_max_words
    score = facts * (0.5 + 0.25 * addressed + 0.25 * length_ok)
    parts = [f"{hit}/{total} required points" + (", specific" if specific and hit < total else "")]
    if generic:
        parts.append("nothing specific to this email")
    if not addressed:
        parts.append("does not address the customer by name")
    if not length_ok:
        parts.append(
            f"{len(tokens)} words, outside {policy.reply_min_words}-{policy.reply_max_words}"
        )
    return TextScore(score, ", ".join(parts), "" if score else "no points")


def _distinctive_required_of(ticket: Ticket) -> tuple[tuple[str, ...], ...]:
    spec = ticket.truth.reply
    groups = spec.required_facts if spec else ()
    return tuple(tuple(p for p in g if is_distinctive(p)) for g in groups)  # generic: none


_distinctive_required = ObjectMemo(_distinctive_required_of)


def _names_decision(text: Indexed, ticket: Ticket, context: Seen) -> bool:
    """Whether a text names the email's right category or team ("a newsletter, archive")."""
    truth = ticket.truth
    right = {spelled(v) for v in (truth.category, truth.queue) if v}
    named = {c for c in context.choices if states(text, phrase(c))}
    # naming the right one among others ("account, billing or security") is hedging
    return bool(named & right) and named <= right


def _distinctive_groups_of(ticket: Ticket) -> tuple[tuple[str, ...], ...]:
    """A summary's points in the phrasings that name something ("request" or "issue" alone says
    nothing about the email)."""
    return tuple(_named(g) for g in ticket.truth.summary_facts)


def _named(group: tuple[str, ...]) -> tuple[str, ...]:
    """A group's phrasings that name something, or all of them when none does (a point such as
    "how to" is generic by nature)."""
    named = tuple(p for p in group if is_distinctive(p))
    return named or group


_distinctive_groups = ObjectMemo(_distinctive_groups_of)


def grade_summary(
    text: str | None,
    ticket: Ticket,
    stuffing_terms: StuffingTerms | None = None,
    messages: tuple[str, ...] = (),
    org: OrgProfile | None = None,
    context: Seen | None = None,
) -> TextScore:
    """A summary scores by the key points it states, in words that are not pasted or stuffed."""
    if text is None:
        return TextScore(0.0, "no summary", "none")
    if not text.strip():
        return TextScore(0.0, "the summary is empty", "empty")
    seen = _context(ticket, messages, org, context)
    why = shortcut(text, ticket, stuffing_terms, seen, "summary")
    if why:
        return TextScore(0.0, why[1], why[0])
    indexed = index(text)
    stated = stated_groups(indexed, ticket.truth.summary_facts)
    hit, total = sum(stated), len(stated)
    specific_details = seen.details_in(indexed)
    if not total:  # nothing in particular to state: it must still be about this email
        if len(specific_details) >= NO_FACT_DETAILS or _names_decision(indexed, ticket, seen):
            return TextScore(1.0, "about this email")
        return TextScore(0.0, "nothing specific to this email", "generic")
    # The email's own concrete details (ids, amounts, products, what happened) in a summary
    # that is not pasted stand for one point put in words the fact list does not know.
    specific = len(specific_details) >= DETAILS
    score = min(1.0, (hit + specific) / total)
    if not hit:  # details without a single point: half marks at most
        score = min(score, NO_POINT_CREDIT)
    if not specific_details and hit < total:
        score *= GENERIC_CREDIT
    note = f"{hit}/{total} key points" + (", specific" if specific and hit < total else "")
    if not hit and not specific:
        note += " (nothing specific to this email)"
    return TextScore(score, note, "" if score else "no points")


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
        return TextScore(0.0, "no information requested", "none")
    if screen(text, policy.sensitive_data, policy.forbidden_promises):
        return TextScore(0.0, "asks for data or promises what the policy forbids", "policy")
    if len(_evidence_named(text)) >= EVIDENCE_LIMIT:
        return TextScore(0.5, "asks for every kind of evidence at once")
    keywords = ticket.truth.info_keywords
    if not keywords:
        return TextScore(1.0, "information requested")
    hit, _ = matched_groups(text, [keywords])
    if hit:
        return TextScore(1.0, "asks for the evidence the case needs")
    return TextScore(0.5, "asks for information, but not the evidence the case needs")
