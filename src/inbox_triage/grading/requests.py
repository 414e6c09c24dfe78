"""Information requests graded by what they ask for: the evidence this case needs, and nothing
it does not.

A request names kinds of evidence ("a screenshot", "the receipt", "the tracking number"). It
earns its credit by asking for a kind the case needs, and loses a share of it for each kind the
case does not call for, so that a net thrown over every possible case (the receipt, the
tracking number, a screenshot, the serial number ...) earns nothing, whatever its words. A
request that only says what it does not need ("no need to send the receipt") asks for nothing.
"""

from __future__ import annotations

import re

from inbox_triage.domain import Policy, Ticket
from inbox_triage.domain.text import contains_phrase, sentences
from inbox_triage.grading.lexicon import index, polarity
from inbox_triage.grading.texts import TextScore

# Kinds of evidence a support team asks for, each in the ways people name it.
EVIDENCE: dict[str, tuple[str, ...]] = {
    "screenshot": ("screenshot", "screen shot", "screen capture"),
    "receipt": ("receipt",),
    "transaction id": ("transaction",),
    "invoice": ("invoice number", "invoice id", "invoice"),
    "statement": ("bank statement", "statement"),
    "date or time": ("date", "time", "since when", "when it started", "when did"),
    "card digits": ("last four", "last 4"),
    "amount": ("amount",),
    "order number": ("order number", "order id", "order reference"),
    "tracking": ("tracking",),
    "photo": ("photo", "picture", "image"),
    "packaging": ("packaging", "packing slip", "shipping label", "box"),
    "serial number": ("serial number", "serial"),
    "error message": ("error message", "error text", "error code", "wording of the error"),
    "browser": ("browser",),
    "device": ("device", "phone model", "operating system"),
    "steps": ("steps",),
    "version": ("version", "firmware"),
    "logs": ("logs", "log file", "console"),
    "account email": ("email address", "account email", "username", "login email"),
    "links": ("profile link", "message link", "link to the", "links to"),
    "job id": ("job id",),
    "examples": ("examples", "list of missing", "missing items", "missing records"),
    "recovery details": ("recovery",),
    "sign-in": ("last sign-in", "last signed in", "login alert", "sign-in alert"),
    "network": ("network",),
    "reference number": ("reference number", "case number", "docket"),
    "deadline": ("deadline",),
}
# Each kind the case does not call for, beyond one (people add one in passing: "a screenshot of
# your bank statement"), takes this share of the credit.
UNNEEDED_COST = 0.34
UNNEEDED_FREE = 1


def _needed(keywords: tuple[str, ...]) -> set[str]:
    """The kinds of evidence the case's keywords name."""
    return {
        kind
        for kind, names in EVIDENCE.items()
        if any(contains_phrase(k, n) or contains_phrase(n, k) for k in keywords for n in names)
    }


# Kinds that fit nearly any case: naming them alone is not asking for what this one needs.
GENERIC_KINDS = frozenset({"date or time", "amount"})
_PREFIX = re.compile(r"^(?:(?:re|fwd?|aw|wg)\s*:\s*)+", re.IGNORECASE)


def _kinds(text: str) -> tuple[set[str], set[str]]:
    """The kinds of evidence a request asks for, and those it only says it does not need (a
    sentence with a negation asks for none of what it names)."""
    asked: set[str] = set()
    refused: set[str] = set()
    kinds = tuple(EVIDENCE)
    for sentence in sentences(text):
        indexed = index(sentence)
        named, _ = polarity(indexed, tuple(EVIDENCE[k] for k in kinds))
        found = {k for k, said in zip(kinds, named, strict=True) if said}
        (refused if any(indexed.denied) else asked).update(found)
    return asked, refused - asked


def grade_info_request(text: str | None, ticket: Ticket, policy: Policy) -> TextScore:
    """An information request scores when it asks for evidence the case needs, less a share for
    each kind it does not need, and zero when it asks for anything forbidden."""
    if text is None:
        return TextScore(0.0, "no information requested", "none")
    if policy.screen(text):
        return TextScore(0.0, "asks for data or promises what the policy forbids", "policy")
    keywords = ticket.truth.info_keywords
    if not keywords:
        return TextScore(1.0, "information requested")
    # "more about <the subject>" asks for nothing: the subject's words are not a request
    subject = _PREFIX.sub("", ticket.subject).strip().lower()
    own = text.lower().replace(subject, " ") if len(subject) > 3 else text.lower()
    asked, refused = _kinds(own)
    needed = _needed(keywords)
    if refused and len(refused) >= len(asked):
        return TextScore(0.0, "says the evidence the case needs is not needed", "contradicts")
    if not (asked & needed) - GENERIC_KINDS:
        return TextScore(0.0, "asks for nothing this case needs", "not needed")
    extra = sorted(asked - needed - GENERIC_KINDS)
    score = max(0.0, 1.0 - UNNEEDED_COST * max(0, len(extra) - UNNEEDED_FREE))
    if len(extra) <= UNNEEDED_FREE:
        return TextScore(score, "asks for the evidence the case needs")
    note = f"also asks for {len(extra)} kinds of evidence the case does not need"
    return TextScore(score, f"{note} ({', '.join(extra[:4])})", "" if score else "net")
