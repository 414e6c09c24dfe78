"""The data the generator draws from: situations with phrasing families, and entity pools.

Situations live in ``data/generator/situations/*.v1.yaml``; entities in
``data/generator/entities.v1.yaml``. Both are validated against the org profiles the generated
scenarios use, so a typo in a data file fails at load time, not in an episode.
"""

from __future__ import annotations

import string
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from inbox_triage.domain import Mode

SenderKind = Literal["customer", "internal", "vendor", "external", "lookalike"]

# Every slot a template may use; the generator fills each from the episode's entities.
SLOTS = frozenset(
    """first_name last_name full_name company email product plan amount amount2 order_id
    invoice_id account_id tracking_id date weekday time city country seats feature
    colleague colleague_first our_company our_domain lookalike_domain sender_domain
    card_last4 case_number days""".split()
)


def template_slots(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


class Handling(BaseModel):
    """The right handling of a situation, in every mode's vocabulary."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    priority: str = Field(description="urgent|high|medium|low|spam")
    category: str = Field(description="triage category")
    triage_route: str
    flag_review: bool = False
    ticket_team: str | None = Field(default=None, description="ticket mode team")
    ticket_tags: tuple[str, ...] = ()
    inbox_queue: str | None = None
    sentiment: str | None = None
    template: str | None = None
    escalate_to: str | None = None
    resolution: str | None = None
    needs_info: bool = False
    info_keywords: tuple[str, ...] = ()
    reply_facts: tuple[tuple[str, ...], ...] | None = Field(
        default=None, description="fact groups a reply must state; None: no reply is due"
    )
    summary_facts: tuple[tuple[str, ...], ...] = ()


class Family(BaseModel):
    """One independent way of phrasing a situation: its own subjects and bodies."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    subjects: tuple[str, ...] = Field(min_length=1)
    bodies: tuple[str, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _known_slots(self) -> Family:
        for text in (*self.subjects, *self.bodies):
            unknown = template_slots(text) - SLOTS
            if unknown:
                raise ValueError(f"unknown slots {sorted(unknown)} in {text[:60]!r}")
        return self


class Reveal(BaseModel):
    """What the customer answers when asked for information (per family index, or shared)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    bodies: tuple[str, ...] = Field(min_length=1)
    delay_minutes: int = Field(default=20, ge=1)


class Situation(BaseModel):
    """A kind of email with its right handling and at least three phrasing families.

    Family 0 belongs to the test split, family 1 to validation, the rest to train, so a model
    that memorised train has never seen a test phrasing.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    modes: tuple[Mode, ...] = ("triage", "ticket", "inbox")
    sender: SenderKind = "customer"
    tiers: tuple[str, ...] = ("standard", "premium", "vip", "enterprise")
    ambiguous: bool = Field(
        default=False, description="reads like another situation until the customer answers"
    )
    looks_like: str | None = None
    handling: Handling
    families: tuple[Family, ...] = Field(min_length=3)
    reveal: Reveal | None = None
    follow_up: str | None = Field(
        default=None, description="what the customer writes when an urgent ticket is ignored"
    )

    @model_validator(mode="after")
    def _consistent(self) -> Situation:
        h = self.handling
        if self.ambiguous and (self.reveal is None or not h.needs_info):
            raise ValueError(f"{self.id}: an ambiguous situation needs needs_info and a reveal")
        if h.priority == "spam" and self.modes != ("triage",):
            raise ValueError(f"{self.id}: spam only makes sense in triage mode")
        if "ticket" in self.modes and (h.ticket_team is None or not h.ticket_tags):
            raise ValueError(f"{self.id}: ticket mode needs ticket_team and ticket_tags")
        if "inbox" in self.modes and (h.inbox_queue is None or h.template is None):
            raise ValueError(f"{self.id}: inbox mode needs inbox_queue and template")
        if "inbox" in self.modes and h.sentiment is None:
            raise ValueError(f"{self.id}: inbox mode needs a sentiment")
        if "inbox" in self.modes and (h.escalate_to is None) == (h.resolution is None):
            raise ValueError(f"{self.id}: inbox mode needs exactly one of escalate_to, resolution")
        if h.reply_facts is not None:
            for group in h.reply_facts:
                unknown = set().union(*(template_slots(p) for p in group)) - SLOTS
                if unknown:
                    raise ValueError(f"{self.id}: unknown slots {sorted(unknown)} in reply_facts")
        return self


class SituationFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    situations: tuple[Situation, ...]


class EntityPools(BaseModel):
    """Names and things to fill slots with. Each list is cut into three disjoint split pools."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    first_names: tuple[str, ...] = Field(min_length=30)
    last_names: tuple[str, ...] = Field(min_length=30)
    companies: tuple[str, ...] = Field(min_length=30)
    products: tuple[str, ...] = Field(min_length=6)
    plans: tuple[str, ...] = Field(min_length=3)
    cities: tuple[tuple[str, str], ...] = Field(min_length=12, description="(city, country)")
    features: tuple[str, ...] = Field(min_length=9)
    signatures: tuple[str, ...] = Field(min_length=3)
    injections: tuple[str, ...] = Field(min_length=3)
    follow_ups: tuple[str, ...] = Field(min_length=3)
    generic_reveals: tuple[str, ...] = Field(min_length=3)
    secret_compliance: tuple[str, ...] = Field(min_length=2)
    reopen_messages: tuple[str, ...] = Field(min_length=2)
    our_company: str
    our_domain: str
