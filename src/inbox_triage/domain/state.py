"""Mutable working state of an episode: what the agent has done so far, the clock and the log."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True, frozen=True)
class Message:
    """Something the customer wrote during the episode."""

    minute: int
    kind: str  # reply | follow_up | reopen
    body: str


@dataclass(slots=True)
class TicketWork:
    """The agent's handling of one ticket, as it stands now."""

    ticket_id: str
    priority: str | None = None
    category: str | None = None
    queue: str | None = None
    tags: list[str] = field(default_factory=list)
    sentiment: str | None = None
    summary: str | None = None
    reply: str | None = None
    templates_sent: list[str] = field(default_factory=list)
    info_request: str | None = None
    flagged: bool = False
    escalated_to: str | None = None
    escalation_reason: str | None = None
    resolution: str | None = None
    closed: bool = False
    processed: bool = False
    # The first response of any kind (what the visible SLA clock and the customer go by).
    handled_at: int | None = None
    # The first response that counts for the SLA: an information request the case did not
    # need is no answer (the grader's clock).
    answered_at: int | None = None
    # The capped queues that were full when the ticket was last routed (the policy's overflow
    # queue is right for a ticket whose team was among them).
    full_when_routed: tuple[str, ...] = ()
    touched: bool = False
    revision: int = 0
    # How often a decision already made was changed without new information from the customer
    # (priority, category, queue, sentiment).
    changes: dict[str, int] = field(default_factory=dict)
    # Customer messages that arrived during the episode; each one is new information.
    messages: list[Message] = field(default_factory=list)
    decided_at: dict[str, int] = field(default_factory=dict)
    mood: str | None = None
    followed_up: bool = False
    reopened: int = 0
    violations: int = 0

    def decisions(self) -> dict[str, object]:
        """What the agent may see of its own work (the episode state's view of a ticket)."""
        return {
            "priority": self.priority,
            "category": self.category,
            "queue": self.queue,
            "tags": list(self.tags),
            "sentiment": self.sentiment,
            "status": self.status,
            "flagged": self.flagged,
            "escalated_to": self.escalated_to,
            "resolution": self.resolution,
            "templates_sent": list(self.templates_sent),
            "has_reply": self.reply is not None,
            "info_requested": self.info_request is not None,
        }

    @property
    def status(self) -> str:
        if self.resolution is not None:
            return "resolved"
        if self.closed:
            return "closed"
        if self.escalated_to is not None:
            return "escalated"
        if self.processed:
            return "processed"
        if self.info_request is not None:
            return "pending"
        return "open"


@dataclass(slots=True, frozen=True)
class Event:
    """Something that happened, in simulated minutes since the episode started."""

    minute: int
    kind: str
    ticket_id: str | None
    detail: str


@dataclass(slots=True, frozen=True)
class Incident:
    """A process fault the shaped reward charges for (invalid action, loop, unsafe closure...)."""

    step: int
    kind: str
    detail: str


@dataclass(slots=True)
class InboxState:
    """Everything that changes during an episode."""

    work: dict[str, TicketWork]
    queue_remaining: dict[str, int]
    escalation_budget: int
    now: int = 0
    step_count: int = 0
    finished: bool = False
    events: list[Event] = field(default_factory=list)
    incidents: list[Incident] = field(default_factory=list)
    breached: set[str] = field(default_factory=set)
    last_action_key: str | None = None
    arrived: set[str] = field(default_factory=set)
    # (minute, sequence, kind, ticket id): customer replies and reopenings still to come.
    scheduled: list[tuple[int, int, str, str]] = field(default_factory=list)
    capacity: dict[str, int] = field(default_factory=dict)
    drains_done: int = 0


def missing_for_close(work: TicketWork) -> list[str]:
    """The visible work still missing before a ticket may be closed. (Tags are not on the list:
    some tickets have none that apply; the tags component grades them.)"""
    missing = []
    if work.priority is None:
        missing.append("priority")
    if work.queue is None:
        missing.append("route")
    if work.reply is None:
        missing.append("reply")
    return missing
