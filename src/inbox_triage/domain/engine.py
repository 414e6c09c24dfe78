"""The one triage engine every mode drives.

It owns the rules of the world: vocabularies, queue capacities, the escalation budget, the
clock and SLA deadlines, and the event log. It knows nothing of modes' payloads, rewards or HTTP.
Every operation validates first and changes nothing when it refuses.
Incidents (refusals, loops, policy breaches) are recorded as facts; what they cost is the
grader's business.
"""

from __future__ import annotations

from collections.abc import Iterable

from inbox_triage.domain.clock import Clock
from inbox_triage.domain.models import Scenario, Ticket
from inbox_triage.domain.state import InboxState, TicketWork


class ActionError(ValueError):
    """A refused action. Names the offending field and, where it helps, the allowed values."""

    def __init__(self, field: str, message: str, allowed: Iterable[str] | None = None) -> None:
        self.field = field
        self.message = message
        self.allowed = list(allowed) if allowed is not None else None
        text = f"{field}: {message}"
        if self.allowed is not None:
            text += f" (allowed: {', '.join(self.allowed) if self.allowed else 'none'})"
        super().__init__(text)

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"field": self.field, "message": self.message}
        if self.allowed is not None:
            out["allowed"] = self.allowed
        return out


class Engine(Clock):
    """Applies triage operations to an :class:`InboxState` under a scenario's rules."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.org = scenario.org
        self.policy = scenario.policy
        self._tickets: dict[str, Ticket] = {t.id: t for t in scenario.tickets}
        capacity = {
            q: n
            for q, n in scenario.settings.queue_capacity.items()
            if q not in scenario.org.unlimited_queues
        }
        self.state = InboxState(
            work={
                t.id: TicketWork(ticket_id=t.id, mood=t.truth.sentiment) for t in scenario.tickets
            },
            queue_remaining=dict(capacity),
            escalation_budget=scenario.settings.escalation_budget,
            capacity=dict(capacity),
        )
        self._sequence = 0
        self._deadlines: dict[tuple[str, str | None], int | None] = {}
        self._deliver_arrivals()
        if not self.state.arrived and scenario.tickets:  # nothing yet: start when mail comes
            self.state.now = min(t.arrives_at for t in scenario.tickets)
            self._deliver_arrivals()
        self.log("episode_started", None, f"{len(self.state.arrived)} tickets in the inbox")
        self._update_sla()

    # ----------------------------------------------------------------- lookups
    @property
    def tickets(self) -> dict[str, Ticket]:
        return self._tickets

    def ticket(self, ticket_id: str | None, field: str = "ticket_id") -> Ticket:
        """A ticket that has arrived; one still to come is as unknown as a made-up id."""
        visible = self.visible_ids()
        if not ticket_id:
            raise ActionError(field, "is required", visible)
        if ticket_id not in self.state.arrived:
            raise ActionError(field, "is not the id of a ticket that has arrived", visible)
        return self._tickets[ticket_id]

    def visible_ids(self) -> list[str]:
        """Arrived tickets, in the scenario's order."""
        arrived = self.state.arrived
        return [t.id for t in self.scenario.tickets if t.id in arrived]

    def visible(self) -> list[Ticket]:
        arrived = self.state.arrived
        return [t for t in self.scenario.tickets if t.id in arrived]

    def next_arrival(self) -> int | None:
        """When the next ticket still to come arrives, if any."""
        pending = [t.arrives_at for t in self.scenario.tickets if t.id not in self.state.arrived]
        return min(pending) if pending else None

    def work(self, ticket_id: str) -> TicketWork:
        return self.state.work[ticket_id]

    @staticmethod
    def check_choice(field: str, value: str | None, allowed: Iterable[str]) -> str:
        allowed = tuple(allowed)
        if value is None or value == "":
            raise ActionError(field, "is required", allowed)
        if value not in allowed:
            raise ActionError(field, "is not an allowed value", allowed)
        return value

    def received_at(self, ticket: Ticket) -> int:
        return ticket.arrives_at - ticket.received_minutes_ago

    def deadline(self, ticket: Ticket, priority: str | None) -> int | None:
        key = (ticket.id, priority)
        if key not in self._deadlines:
            minutes = self.policy.sla_for(priority, ticket.customer.tier)
            self._deadlines[key] = None if minutes is None else self.received_at(ticket) + minutes
        return self._deadlines[key]

    def visible_deadline(self, ticket_id: str) -> int | None:
        """The deadline the agent can see: by the priority it assigned, or the default."""
        return self.deadline(self._tickets[ticket_id], self.state.work[ticket_id].priority)

    # ----------------------------------------------------------------- checks
    def check_route(self, ticket_id: str, queue: str | None, field: str) -> str:
        queue = self.check_choice(field, queue, self.org.queues)
        current = self.state.work[ticket_id].queue
        remaining = self.state.queue_remaining
        if queue != current and queue in remaining and remaining[queue] <= 0:
            open_queues = [q for q in self.org.queues if remaining.get(q, 1) > 0]
            raise ActionError(field, f"queue {queue!r} is at capacity", open_queues)
        return queue

    def check_budget(self, field: str) -> None:
        if self.state.escalation_budget <= 0:
            raise ActionError(field, "the escalation budget is spent")

    def check_text(self, field: str, text: str | None, max_chars: int | None = None) -> str:
        if text is None or not text.strip():
            raise ActionError(field, "must be non-empty text")
        if max_chars is not None and len(text) > max_chars:
            # The same words as every length refusal (inbox_triage.models.too_long).
            raise ActionError(field, f"may be at most {max_chars} characters (it has {len(text)})")
        return text

    # ----------------------------------------------------------------- mutations
    def _touch(self, work: TicketWork) -> None:
        work.touched = True
        work.revision += 1

    def _decide(self, work: TicketWork, attribute: str, value: str) -> None:
        """Sets a decision. Changing one already made is recorded (loops cost reward), unless
        the customer has written since: acting on new information is the job."""
        old = getattr(work, attribute)
        news = self._news(work, attribute)
        informed = work.decided_at.get(attribute, -1) < news
        if old is not None and old != value and not informed:
            work.changes[attribute] = work.changes.get(attribute, 0) + 1
            self.incident("revision", f"{work.ticket_id} {attribute} changed")
        work.decided_at[attribute] = news
        setattr(work, attribute, value)

    @staticmethod
    def _news(work: TicketWork, attribute: str) -> int:
        """How many customer messages bear on a decision: an answer to a request bears on
        everything; a follow-up or a reopening only on the customer's mood."""
        return sum(1 for m in work.messages if m.kind == "reply" or (attribute == "sentiment"))

    def _handle(self, work: TicketWork, counts: bool = True) -> None:
        """The first response to a ticket stops its SLA clock as the agent and the customer
        see it; the SLA is met by the first response that ``counts`` (a request for
        information the case did not need does not)."""
        if work.handled_at is None:
            work.handled_at = self.state.now
        if counts and work.answered_at is None:
            work.answered_at = self.state.now

    def set_priority(self, ticket_id: str, value: str | None, field: str = "priority") -> None:
        value = self.check_choice(field, value, self.org.priorities)
        work = self.work(ticket_id)
        self._decide(work, "priority", value)
        self._touch(work)
        self.log("priority_set", ticket_id, value)

    def set_category(self, ticket_id: str, value: str | None, field: str = "category") -> None:
        value = self.check_choice(field, value, self.org.categories)
        work = self.work(ticket_id)
        self._decide(work, "category", value)
        self._touch(work)
        self.log("category_set", ticket_id, value)

    def set_sentiment(self, ticket_id: str, value: str | None, field: str = "sentiment") -> None:
        value = self.check_choice(field, value, self.org.sentiments)
        work = self.work(ticket_id)
        self._decide(work, "sentiment", value)
        self._touch(work)

    def route(self, ticket_id: str, queue: str | None, field: str = "queue") -> None:
        queue = self.check_route(ticket_id, queue, field)
        work = self.work(ticket_id)
        remaining = self.state.queue_remaining
        if work.queue != queue:
            work.full_when_routed = tuple(q for q, left in remaining.items() if left <= 0)
            if work.queue in remaining:  # a drain may already have freed its place
                remaining[work.queue] = min(
                    self.state.capacity[work.queue], remaining[work.queue] + 1
                )
            if queue in remaining:
                remaining[queue] -= 1
            self._decide(work, "queue", queue)
        self._touch(work)
        self.log("routed", ticket_id, queue)

    def add_tag(self, ticket_id: str, tag: str | None, field: str = "value") -> bool:
        """Adds a tag; returns False when the ticket already had it."""
        tag = self.check_choice(field, tag, self.org.tags)
        work = self.work(ticket_id)
        if tag in work.tags:
            return False
        work.tags.append(tag)
        self._touch(work)
        self.log("tagged", ticket_id, tag)
        return True

    def set_summary(self, ticket_id: str, text: str | None, field: str = "summary") -> None:
        text = self.check_text(field, text, self.policy.summary_max_chars)
        work = self.work(ticket_id)
        work.summary = text
        self._touch(work)

    def write_reply(self, ticket_id: str, text: str | None, field: str = "reply_draft") -> None:
        text = self.check_text(field, text)
        work = self.work(ticket_id)
        work.reply = text
        self._touch(work)
        self._screen(ticket_id, field, text)
        self.log("reply_drafted", ticket_id, f"{len(text)} characters")

    def send_template(
        self,
        ticket_id: str,
        template: str | None,
        text: str | None,
        field: str = "response_template",
    ) -> None:
        template = self.check_choice(field, template, self.org.templates)
        work = self.work(ticket_id)
        work.templates_sent.append(template)
        if text:
            work.reply = text
            self._screen(ticket_id, "response_text", text)
        self._touch(work)
        self._handle(work)
        self.log("response_sent", ticket_id, template)

    def request_info(self, ticket_id: str, text: str | None, field: str = "value") -> None:
        text = self.check_text(field, text)
        work = self.work(ticket_id)
        first_request = work.info_request is None
        work.info_request = text
        self._touch(work)
        # A needless request costs what the grade says; nothing visible tells it apart.
        self._handle(work, counts=self._tickets[ticket_id].truth.needs_info)
        asked_for_secret = self._screen(ticket_id, field, text)
        self.log("info_requested", ticket_id, text[:80])
        if first_request or asked_for_secret:
            reply = self._tickets[ticket_id].customer_reply
            delay = reply.delay_minutes if reply else 20
            kind = "secret" if asked_for_secret else "reply"
            self._schedule(self.state.now + delay, kind, ticket_id)

    def flag_review(self, ticket_id: str, field: str = "flag_review") -> None:
        """Sends a ticket for human review; flagging it twice is harmless and free."""
        work = self.work(ticket_id)
        if work.flagged:
            return
        self.check_budget(field)
        self.state.escalation_budget -= 1
        work.flagged = True
        self._touch(work)
        self.log("flagged_for_review", ticket_id, "sent for human review")

    def escalate(
        self, ticket_id: str, target: str | None, reason: str | None, field: str = "escalate_to"
    ) -> None:
        target = self.check_choice(field, target, self.org.escalation_targets)
        work = self.work(ticket_id)
        if work.escalated_to is None:
            self.check_budget(field)
            self.state.escalation_budget -= 1
        self._decide(work, "escalated_to", target)  # a new target is a changed decision
        work.escalation_reason = reason
        self._touch(work)
        self._handle(work)
        self.log("escalated", ticket_id, target)

    def resolve(self, ticket_id: str, code: str | None, field: str = "resolution_code") -> None:
        code = self.check_choice(field, code, self.org.resolution_codes)
        work = self.work(ticket_id)
        work.resolution = code
        self._touch(work)
        self._handle(work)
        self.log("resolved", ticket_id, code)
        truth = self._tickets[ticket_id].truth
        answered = truth.template is None or truth.template in work.templates_sent
        if not answered or work.violations:  # a bad answer brings the customer back
            self._schedule(
                self.state.now + self.scenario.settings.reopen_after_minutes, "reopen", ticket_id
            )

    def close(self, ticket_id: str) -> None:
        work = self.work(ticket_id)
        work.closed = True
        self._touch(work)
        self._handle(work)
        self.log("closed", ticket_id, "ticket closed")

    def mark_processed(self, ticket_id: str) -> None:
        work = self.work(ticket_id)
        work.processed = True
        self._touch(work)
        self._handle(work)
        self.log("processed", ticket_id, "decision recorded")

    def _screen(self, ticket_id: str, field: str, text: str) -> bool:
        """Records a policy violation for text that asks for secrets or promises too much;
        returns whether it asked for secrets (a customer may naively comply)."""
        found = self.policy.screen(text)
        asked, promised = found.asks, found.promises
        work = self.state.work[ticket_id]
        if asked:
            work.violations += 1
            self.incident("policy_violation", f"{ticket_id} {field} asks for sensitive data")
        if promised:
            work.violations += 1
            self.incident(
                "policy_violation", f"{ticket_id} {field} makes a promise the policy forbids"
            )
        return bool(asked)
