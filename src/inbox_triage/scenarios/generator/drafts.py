"""A ticket being built (before its id and times are settled) and its truth: what the right
handling is, in the mode's vocabulary, for a situation of either generator version."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inbox_triage.domain import Mode, ReplySpec, Truth
from inbox_triage.scenarios.generator.schema import Situation
from inbox_triage.scenarios.generator.schema_v2 import SituationV2
from inbox_triage.scenarios.generator.texts import fill


def _bump(priority: str, tier: str) -> str:
    """Policy: a VIP or enterprise customer materially affected is at least high."""
    return "high" if tier in ("vip", "enterprise") and priority == "medium" else priority


def _facts(
    groups: tuple[tuple[str, ...], ...], slots: dict[str, str]
) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(fill(p, slots) if "{" in p else p for p in group) for group in groups)


AnySituation = Situation | SituationV2


def truth_for(
    mode: Mode, situation: AnySituation, tier: str, slots: dict[str, str], duplicate: bool
) -> Truth:
    h = situation.handling
    reply = None
    if h.reply_facts is not None:
        reply = ReplySpec(required_facts=_facts(h.reply_facts, slots))
    priority = _bump(h.priority, tier)
    common: dict[str, Any] = {
        "priority": priority,
        "needs_info": h.needs_info and not duplicate,
        "info_keywords": h.info_keywords,
        "reply": reply,
        "summary_facts": _facts(h.summary_facts, slots),
    }
    if mode == "triage":
        return Truth(
            **common,
            category=h.category,
            queue=h.triage_route,
            flag_review=h.flag_review and not duplicate,
        )
    if mode == "ticket":
        tags = (*h.ticket_tags, "vip") if tier == "vip" else h.ticket_tags
        return Truth(**common, queue=h.ticket_team, tags=tags, resolution="close")
    if duplicate:  # the original carries the escalation; the copy is closed as a duplicate
        return Truth(
            **common,
            queue=h.inbox_queue,
            sentiment=h.sentiment,
            template="generic_acknowledgement",
            resolution="duplicate",
        )
    return Truth(
        **common,
        queue=h.inbox_queue,
        sentiment=h.sentiment,
        template=h.template,
        escalate_to=h.escalate_to,
        resolution=h.resolution,
    )


@dataclass(slots=True)
class Draft:
    """A ticket being built, before times and ids are settled."""

    situation: AnySituation
    ticket: dict[str, Any]
    truth: Truth
    slots: dict[str, str]
    original: int | None = None
    family: int = 0  # the phrasing family (0 test, 1 validation, 2+ train)
    written: Any = None  # the whole-written email it came from (generator v4), if any
