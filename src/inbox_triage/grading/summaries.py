"""Summaries graded as a colleague reads them: the email's key points, stated (not denied), in
words of the writer's own that are about this email and not any email of its kind.
"""

from __future__ import annotations

from inbox_triage.domain import OrgProfile, Ticket
from inbox_triage.grading.context import Seen, spelled
from inbox_triage.grading.lexicon import Indexed, index, phrase, polarity, states
from inbox_triage.grading.shortcuts import (
    as_written,
    foreign_terms,
    quote,
    reorders_subject,
    shortcut,
    without_subject,
)
from inbox_triage.grading.stuffing import StuffingTerms
from inbox_triage.grading.texts import (
    DETAILS,
    GENERIC_CREDIT,
    NO_POINT_CREDIT,
    STOCK_CAP,
    TextScore,
    context_of,
    contradiction,
    contradicts,
)

NO_FACT_DETAILS = 2  # details that make a summary about this email where it has no key points
CLAIMS_LIMIT = 2  # terms of other emails that make a summary stock


def _names_decision(text: Indexed, ticket: Ticket, context: Seen) -> bool:
    """Whether a text names the email's right category or team ("a newsletter, archive")."""
    truth = ticket.truth
    right = {spelled(v) for v in (truth.category, truth.queue) if v}
    named = {c for c in context.choices if states(text, phrase(c))}
    # naming the right one among others ("account, billing or security") is hedging
    return bool(named & right) and named <= right


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
    seen = context_of(ticket, messages, org, context)
    why = shortcut(text, ticket, stuffing_terms, seen, "summary")
    if why:
        return TextScore(0.0, why[1], why[0])
    if reorders_subject(text, ticket):
        return TextScore(
            0.0, "summary is the subject's words reordered, not a sentence", "reordered"
        )
    indexed = index(without_subject(text, ticket))
    stated, denied = polarity(indexed, ticket.truth.summary_facts, seen.seen, False)
    if contradicts(stated, denied):
        return contradiction(indexed, ticket.truth.summary_facts, denied, "summary")
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
    if hit < total and not specific and not {d for d in specific_details if d in seen.specific}:
        score = min(score, STOCK_CAP)  # part of the points, and nothing only this email says
    claims = foreign_terms(indexed, stuffing_terms, seen) if stuffing_terms else set()
    own = {d for d in specific_details if d in seen.specific}
    if len(claims) >= CLAIMS_LIMIT and not own and score > STOCK_CAP:
        # a stock text claims what emails of its kind often say, this one included or not
        shown = quote({as_written(indexed, t) for t in claims}, text)
        return TextScore(
            STOCK_CAP, f"{hit}/{total} key points, but says what this email does not ({shown})"
        )
    note = f"{hit}/{total} key points" + (", specific" if specific and hit < total else "")
    if not hit and not specific:
        note += " (nothing specific to this email)"
    return TextScore(score, note, "" if score else "no points")
