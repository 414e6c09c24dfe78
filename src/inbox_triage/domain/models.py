"""The static world of an episode: tickets, their hidden truth, the org profile and the scenario.

These are immutable, validated values. Scenario files are parsed into them by ``scenarios``;
the generator builds them directly. Nothing here reads files or knows about HTTP.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from inbox_triage.domain.policy import Policy

Mode = Literal["triage", "ticket", "inbox"]
KnownAs = Literal["customer", "colleague", "vendor", "unknown"]
MODES: tuple[Mode, ...] = ("triage", "ticket", "inbox")


class Frozen(BaseModel):
    """Base for immutable domain values: unknown fields are errors, values never change."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Customer(Frozen):
    name: str
    email: str
    tier: str = "standard"
    account_id: str | None = None
    company: str | None = None
    # Who wrote (customer, colleague, vendor, press, ...): None where the source does not say
    # (fixed tasks, packs, generator v1). Only customers' tiers are theirs; others run on the
    # standard clock. Shown to the agent only by generator v2's scenarios (which leak it).
    role: str | None = None
    # What the inbox's records say of the sender, all a real inbox knows before reading:
    # "customer" (in the customer records: name, tier, account, company), "colleague" (our own
    # domain), "vendor" (in the vendor records) or "unknown". None where the source does not
    # say (fixed tasks, packs, generator v1 and v2).
    known_as: KnownAs | None = None

    @property
    def first_name(self) -> str:
        return self.name.split()[0] if self.name.strip() else ""


class ThreadMessage(Frozen):
    """An earlier message in the conversation, oldest first."""

    sender: str
    body: str
    minutes_ago: int = 0


class ReplySpec(Frozen):
    """What a good reply to this ticket must contain and must avoid.

    ``required_facts`` is a list of fact groups; a group is satisfied when any of its phrasings
    appears in the reply (case-insensitive, on word boundaries).
    """

    required_facts: tuple[tuple[str, ...], ...] = ()
    forbidden_phrases: tuple[str, ...] = ()


class Reference(Frozen):
    """How a good agent writes about one email (the oracle's texts): written per situation by
    hand and filled from the email's own details by the generator, each kind as every pattern
    that fits the email, most preferred first."""

    summaries: tuple[str, ...]
    replies: tuple[str, ...] = ()
    requests: tuple[str, ...] = ()

    @property
    def summary(self) -> str:
        return self.summaries[0]

    @property
    def reply(self) -> str | None:
        return self.replies[0] if self.replies else None

    @property
    def request(self) -> str | None:
        return self.requests[0] if self.requests else None


class Truth(Frozen):
    """The hidden gold handling of a ticket. It never leaves the server."""

    priority: str
    category: str | None = None
    queue: str
    tags: tuple[str, ...] = ()
    sentiment: str | None = None
    needs_info: bool = False
    info_keywords: tuple[str, ...] = ()
    reply: ReplySpec | None = None
    template: str | None = None
    summary_facts: tuple[tuple[str, ...], ...] = ()
    flag_review: bool = False
    escalate_to: str | None = None
    resolution: str | None = None
    # Whether the first response could be on time at all: an inbox can hold mail that has
    # waited past its deadline, or more urgent mail than anyone could answer in time. The
    # SLA component grades only deadlines the reference schedule (answering arrived mail in
    # deadline order) meets.
    sla_feasible: bool = True
    # What the oracle writes (None where nobody wrote it: fixed tasks, packs, generator v1, v2).
    reference: Reference | None = None


class CustomerReply(Frozen):
    """What the customer answers to an information request, and how long they take."""

    body: str
    delay_minutes: int = Field(default=20, ge=1)


class Ticket(Frozen):
    """One email or ticket as the customer sent it, plus its truth.

    ``arrives_at`` > 0 makes it arrive during the episode (minutes after the start); until then
    it does not exist for the agent.
    """

    id: str
    sender: str
    customer: Customer
    subject: str
    body: str
    received_minutes_ago: int = Field(default=0, ge=0)
    arrives_at: int = Field(default=0, ge=0)
    thread: tuple[ThreadMessage, ...] = ()
    internal_notes: tuple[str, ...] = ()
    customer_reply: CustomerReply | None = None
    follow_up: str | None = None
    # Minutes after it was received when this customer chases an unanswered message (None:
    # they wait), where the scenario's ``follow_ups`` setting is "patience".
    chase_after: int | None = Field(default=None, ge=1)
    truth: Truth


class CustomerLines(Frozen):
    """Generic things customers write, for tickets that bring no lines of their own."""

    reveals: tuple[str, ...] = (
        "Sure, here are the details you asked for: the screenshot and the reference number are "
        "attached.",
    )
    follow_ups: tuple[str, ...] = ("Hello? It has been a while and I still have no answer.",)
    secret_compliance: tuple[str, ...] = (
        "OK, if you really need it: my password is Summer2024! Please hurry.",
    )
    reopen: tuple[str, ...] = ("This does not answer my question at all. Please look again.",)


class OrgProfile(Frozen):
    """A company's vocabulary: everything an agent may choose from."""

    id: str
    name: str
    guide: str = ""
    priorities: tuple[str, ...]
    categories: tuple[str, ...] = ()
    queues: tuple[str, ...]
    tags: tuple[str, ...] = ()
    sentiments: tuple[str, ...] = ()
    templates: dict[str, str] = Field(default_factory=dict)
    resolution_codes: tuple[str, ...] = ()
    escalation_targets: tuple[str, ...] = ()
    unlimited_queues: tuple[str, ...] = ()
    # Where the policy sends work whose team's queue is full (an uncapped queue), if anywhere.
    overflow_queue: str | None = None
    # Each capped team's places per ten messages of a shift: the generator sizes queues from
    # these and the difficulty, never from where an episode's mail really goes.
    queue_places: dict[str, float] = Field(default_factory=dict)
    tiers: tuple[str, ...] = ("standard", "premium", "vip", "enterprise")

    @model_validator(mode="after")
    def _queues_known(self) -> OrgProfile:
        if self.overflow_queue is not None and self.overflow_queue not in self.unlimited_queues:
            raise ValueError(
                f"overflow_queue {self.overflow_queue!r} must be one of the unlimited_queues "
                f"{list(self.unlimited_queues)}"
            )
        for queue in (*self.unlimited_queues, *self.queue_places):
            if queue not in self.queues:
                raise ValueError(f"queue {queue!r} is not one of {list(self.queues)}")
        return self

    def vocabulary(self) -> dict[str, Any]:
        """Every value an agent may choose from on this org (what observations offer)."""
        overflow = {"overflow_queue": self.overflow_queue} if self.overflow_queue else {}
        return {
            "priorities": list(self.priorities),
            "categories": list(self.categories),
            "queues": list(self.queues),
            "tags": list(self.tags),
            "sentiments": list(self.sentiments),
            "templates": dict(self.templates),
            "resolution_codes": list(self.resolution_codes),
            "escalation_targets": list(self.escalation_targets),
            **overflow,
        }


class Settings(Frozen):
    """The knobs of one episode: budgets, capacities and the clock."""

    max_steps: int = Field(gt=0)
    minutes_per_step: int = Field(default=5, ge=0)
    escalation_budget: int = Field(default=0, ge=0)
    queue_capacity: dict[str, int] = Field(default_factory=dict)
    queue_drain_minutes: int | None = Field(
        default=None, gt=0, description="each capped queue frees one place this often"
    )
    reopen_after_minutes: int = Field(default=30, ge=1)
    # When customers chase an unanswered message: "true_deadline" (urgent and high mail, at its
    # true deadline: the published scenarios' rule, which tells an agent the priority) or
    # "patience" (each ticket's own ``chase_after``, whatever its priority).
    follow_ups: Literal["true_deadline", "patience"] = "true_deadline"


class Scenario(Frozen):
    """A playable task: one mode, one org, one policy, a set of tickets."""

    id: str
    version: int = 1
    mode: Mode
    title: str
    difficulty: str
    objective: str
    org: OrgProfile
    policy: Policy
    settings: Settings
    tickets: tuple[Ticket, ...]
    customer_lines: CustomerLines = CustomerLines()
    split: str | None = None
    seed: int | None = None

    @model_validator(mode="after")
    def _truth_uses_the_vocabulary(self) -> Scenario:
        org = self.org
        seen: set[str] = set()
        for ticket in self.tickets:
            if ticket.id in seen:
                raise ValueError(f"duplicate ticket id {ticket.id!r}")
            seen.add(ticket.id)
            t = ticket.truth
            checks: list[tuple[str, object, tuple[str, ...]]] = [
                ("priority", t.priority, org.priorities),
                ("queue", t.queue, org.queues),
                ("tier", ticket.customer.tier, org.tiers),
            ]
            if t.category is not None:
                checks.append(("category", t.category, org.categories))
            if t.sentiment is not None:
                checks.append(("sentiment", t.sentiment, org.sentiments))
            if t.template is not None:
                checks.append(("template", t.template, tuple(org.templates)))
            if t.escalate_to is not None:
                checks.append(("escalate_to", t.escalate_to, org.escalation_targets))
            if t.resolution is not None and self.mode == "inbox":
                checks.append(("resolution", t.resolution, org.resolution_codes))
            checks.extend(("tags", tag, org.tags) for tag in t.tags)
            for field, value, allowed in checks:
                if value not in allowed:
                    raise ValueError(
                        f"ticket {ticket.id}: truth {field} {value!r} is not one of {list(allowed)}"
                    )
        for queue in self.settings.queue_capacity:
            if queue not in org.queues:
                raise ValueError(f"queue_capacity names unknown queue {queue!r}")
        return self

    def ticket(self, ticket_id: str) -> Ticket:
        for ticket in self.tickets:
            if ticket.id == ticket_id:
                return ticket
        raise KeyError(ticket_id)
