"""What summary and reply grading share: a text's score, its context, and the reading of
denial (a text that denies the email's points says the opposite of the email).
"""

from __future__ import annotations

from dataclasses import dataclass

from inbox_triage.domain import OrgProfile, Ticket
from inbox_triage.grading.context import Seen, seen_for
from inbox_triage.grading.lexicon import Indexed
from inbox_triage.grading.memo import ObjectMemo
from inbox_triage.grading.shortcuts import as_written, quote
from inbox_triage.grading.stuffing import is_distinctive

STOCK_CAP = 0.3  # the most a text that could go to any email of its kind keeps
DETAILS = 3  # the email's concrete details a text names to count as specific
GENERIC_CREDIT = 0.5  # ... keeps this share of its score: it could go to any customer
NO_POINT_CREDIT = 0.5  # details without a single point: half marks at most


@dataclass(frozen=True, slots=True)
class TextScore:
    """A text's score, why, and for a zero a short reason code that reports count by."""

    score: float
    note: str
    reason: str = ""


def clip(sentence: str, limit: int = 60) -> str:
    sentence = " ".join(sentence.split())
    return sentence if len(sentence) <= limit else sentence[: limit - 3].rstrip() + "..."


def context_of(
    ticket: Ticket, messages: tuple[str, ...], org: OrgProfile | None, context: Seen | None
) -> Seen:
    return context if context is not None else seen_for(ticket, messages, org)


def contradicts(stated: list[bool], denied: list[bool]) -> bool:
    """A text that denies as many of the email's points as it states says the opposite of the
    email ("not about a double charge", "we will not review the charge")."""
    return any(denied) and sum(denied) >= sum(stated)


def contradiction(
    text: Indexed, groups: tuple[tuple[str, ...], ...], denied: list[bool], what: str
) -> TextScore:
    words = [
        as_written(text, p)
        for group, no in zip(groups, denied, strict=True)
        if no
        for p in group[:1]
    ]
    return TextScore(0.0, f"{what} denies what the email says ({quote(words)})", "contradicts")


def _distinctive_groups_of(ticket: Ticket) -> tuple[tuple[str, ...], ...]:
    """A summary's points in the phrasings that name something ("request" or "issue" alone says
    nothing about the email)."""
    return tuple(_named(g) for g in ticket.truth.summary_facts)


def _named(group: tuple[str, ...]) -> tuple[str, ...]:
    """A group's phrasings that name something, or all of them when none does (a point such as
    "how to" is generic by nature)."""
    named = tuple(p for p in group if is_distinctive(p))
    return named or group


distinctive_groups = ObjectMemo(_distinctive_groups_of)
