"""The shape of generator data v2: senders with roles, products with kinds, and mail composed
from hand-written parts (tellings, details, asks) framed by the sender role's own greeting,
closing and one signature.

Situations live in ``data/generator/situations/*.v2.yaml``, entities in
``data/generator/entities.v2.yaml``. A part may vary its wording inline with ``[a|b|c]``.
"""

from __future__ import annotations

import re
import string
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from inbox_triage.domain import Mode
from inbox_triage.scenarios.generator.schema import Handling

Role = Literal[
    "customer",
    "prospect",
    "colleague",
    "vendor",
    "press",
    "lawyer",
    "public_body",
    "scammer",
    "notice",
]
ROLES: tuple[str, ...] = Role.__args__  # type: ignore[attr-defined]
ProductKind = Literal["web_app", "api", "device", "service"]
KINDS: tuple[str, ...] = ProductKind.__args__  # type: ignore[attr-defined]

SLOTS_V2 = frozenset(
    """first_name last_name full_name title company email sender_domain colleague
    colleague_first our_company our_domain product feature plan seats amount amount2 order_id
    invoice_id account_id tracking_id date weekday morning_time afternoon_time city country
    card_last4 case_number days vendor vendor_domain lookalike_domain""".split()
)
# Inline alternatives: "[noticed|spotted]" picks one; a bracket without a bar is plain text.
ALTERNATIVES = re.compile(r"\[([^\[\]]*\|[^\[\]]*)\]")
_SIGN_OFF = re.compile(
    r"^(thanks|thank you|regards|best|cheers|kind regards|best regards|many thanks|sincerely)"
    r"\b[^.!?]*,?\s*$",
    re.I,
)
# "Hi Sam," or "Dear team," opens a mail; "hey so my bank app..." is the matter itself.
_GREETING = re.compile(
    r"^\s*(hi|hello|hey|dear|good (morning|afternoon|evening))\b[^.!?\n]{0,30}[,!]\s*$", re.I | re.M
)


def slots_in(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _check_part(text: str, where: str) -> None:
    unknown = slots_in(ALTERNATIVES.sub("", text)) - SLOTS_V2
    for options in ALTERNATIVES.findall(text):
        unknown |= set().union(*(slots_in(o) for o in options.split("|"))) - SLOTS_V2
    if unknown:
        raise ValueError(f"{where}: unknown slots {sorted(unknown)} in {text[:60]!r}")
    lines = text.strip().splitlines()
    if (lines and _GREETING.match(lines[0])) or (lines and _SIGN_OFF.match(lines[-1].strip())):
        raise ValueError(f"{where}: parts carry no greeting or sign-off: {text[:60]!r}")


class FamilyV2(BaseModel):
    """One writer's voice for a situation: subjects and the parts a body is composed of."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    subjects: tuple[str, ...] = Field(min_length=3)
    tellings: tuple[str, ...] = Field(min_length=3)
    details: tuple[str, ...] = Field(min_length=3)
    asks: tuple[str, ...] = ()
    answers: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _parts(self) -> FamilyV2:
        for kind in ("subjects", "tellings", "details", "asks", "answers"):
            for text in getattr(self, kind):
                _check_part(text, kind)
        return self


class Clauses(BaseModel):
    """The policy rules that decide a situation (codes in the policy and the routing guides)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    priority: str
    triage: str
    review: str
    ticket: str | None = None
    inbox: str | None = None
    multi: str | None = None


class SituationV2(BaseModel):
    """A kind of email: who sends it, what it can be about, how policy decides it, and at least
    four families of hand-written parts (0 test, 1 validation, 2+ train)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    modes: tuple[Mode, ...] = ("triage", "ticket", "inbox")
    sender: Role = "customer"
    tiers: tuple[str, ...] = ("standard", "premium", "vip", "enterprise")
    products: tuple[ProductKind, ...] = ("web_app", "api", "service")
    imitates: Literal["vendor", "us"] | None = None
    writes_from: (
        Literal[
            "companies",
            "prospects",
            "vendors",
            "press",
            "law_firms",
            "public_bodies",
            "police",
            "regulators",
        ]
        | None
    ) = Field(
        default=None,
        description="another role's organisations (an auto-reply from a "
        "customer's mailbox is a notice from a customer company)",
    )
    ambiguous: bool = False
    looks_like: str | None = None
    clauses: Clauses
    handling: Handling
    follow_ups: tuple[str, ...] = ()
    families: tuple[FamilyV2, ...] = Field(min_length=4)

    @model_validator(mode="after")
    def _consistent(self) -> SituationV2:
        h = self.handling
        if self.sender != "customer" and self.modes != ("triage",):
            raise ValueError(f"{self.id}: only customers write to ticket and inbox modes")
        if self.ambiguous and not h.needs_info:
            raise ValueError(f"{self.id}: an ambiguous situation needs needs_info")
        if h.needs_info and any(len(f.answers) < 2 for f in self.families):
            raise ValueError(f"{self.id}: needs_info: every family needs two answers")
        urgent = self.sender == "customer" and h.priority in ("urgent", "high")
        if urgent and len(self.follow_ups) < 2:
            raise ValueError(f"{self.id}: an urgent or high customer needs two follow_ups")
        if h.priority == "spam" and self.modes != ("triage",):
            raise ValueError(f"{self.id}: spam only makes sense in triage mode")
        if "ticket" in self.modes and (h.ticket_team is None or not h.ticket_tags):
            raise ValueError(f"{self.id}: ticket mode needs ticket_team and ticket_tags")
        if "inbox" in self.modes:
            if h.inbox_queue is None or h.template is None or h.sentiment is None:
                raise ValueError(f"{self.id}: inbox mode needs inbox_queue, template, sentiment")
            if (h.escalate_to is None) == (h.resolution is None):
                raise ValueError(f"{self.id}: inbox needs exactly one of escalate_to, resolution")
        for text in self.follow_ups:
            _check_part(text, f"{self.id} follow_ups")
        return self


class SituationFileV2(BaseModel):
    model_config = ConfigDict(extra="forbid")

    situations: tuple[SituationV2, ...]


class Org(BaseModel):
    """An organisation with its whole domain."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    domain: str = Field(pattern=r"^[a-z0-9-]+(\.[a-z0-9-]+)+$")


class Product(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    kind: ProductKind
    features: tuple[str, ...] = Field(min_length=3)


PerRole = dict[Role, tuple[str, ...]]


class EntitiesV2(BaseModel):
    """People, organisations per role, products with kinds and each role's framing. Every list
    is cut into three disjoint split pools by position mod 3."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    our_company: str
    our_domain: str
    first_names: tuple[str, ...] = Field(min_length=90)
    last_names: tuple[str, ...] = Field(min_length=90)
    companies: tuple[Org, ...] = Field(min_length=60)
    prospects: tuple[Org, ...] = Field(min_length=15)
    vendors: tuple[Org, ...] = Field(min_length=15)
    press: tuple[Org, ...] = Field(min_length=15)
    law_firms: tuple[Org, ...] = Field(min_length=15)
    public_bodies: tuple[Org, ...] = Field(min_length=15)
    scam_senders: tuple[Org, ...] = Field(min_length=15)
    notice_senders: tuple[Org, ...] = Field(min_length=15)
    police: tuple[Org, ...] = Field(min_length=3, description="public bodies that are police")
    regulators: tuple[Org, ...] = Field(min_length=3, description="public bodies that regulate")
    pool_titles: dict[str, tuple[str, ...]] = Field(
        default_factory=dict, description="titles for a pool's staff, over the role's"
    )
    titles: PerRole
    products: tuple[Product, ...] = Field(min_length=9)
    plans: dict[str, tuple[str, ...]]
    seats: dict[str, tuple[int, ...]]
    cities: tuple[tuple[str, str], ...] = Field(min_length=15)
    greetings: PerRole
    closings: PerRole
    signatures: PerRole
    noise: PerRole
    support_acks: tuple[str, ...] = Field(min_length=3)
    earlier_notes: tuple[str, ...] = Field(min_length=3)
    forward_notes: tuple[str, ...] = Field(min_length=3)
    follow_ups: tuple[str, ...] = Field(min_length=3)
    unneeded_answers: tuple[str, ...] = Field(min_length=3)
    secret_compliance: tuple[str, ...] = Field(min_length=3)
    reopen_messages: tuple[str, ...] = Field(min_length=3)
    injections: tuple[str, ...] = Field(min_length=3)

    @model_validator(mode="after")
    def _whole(self) -> EntitiesV2:
        for name in ("titles", "greetings", "closings", "signatures"):
            # Automated notices have no person behind them, so no job title.
            missing = (
                set(ROLES) - set(getattr(self, name)) - ({"notice"} if name == "titles" else set())
            )
            if missing:
                raise ValueError(f"{name}: no lines for roles {sorted(missing)}")
        tiers = {"standard", "premium", "vip", "enterprise"}
        for name in ("plans", "seats"):
            if set(getattr(self, name)) != tiers:
                raise ValueError(f"{name} must have exactly the tiers {sorted(tiers)}")
        domains = [
            o.domain
            for pool in (
                self.companies,
                self.prospects,
                self.vendors,
                self.press,
                self.law_firms,
                self.public_bodies,
                self.scam_senders,
                self.notice_senders,
            )
            for o in pool
        ]
        shared = sorted({d for d in domains if domains.count(d) > 1})
        if shared:
            raise ValueError(f"organisations share domains: {shared[:5]}")
        kinds = {p.kind for p in self.products}
        if kinds != set(KINDS):
            raise ValueError(f"products must cover every kind {list(KINDS)}, not {sorted(kinds)}")
        return self
