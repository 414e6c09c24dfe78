"""The engine's clock: time moves, mail arrives, customers answer, follow up or come back,
queues drain, SLA deadlines pass, and everything that happens is logged.

A part of :class:`~inbox_triage.domain.engine.Engine` (its base), kept apart because it is
what happens between the agent's operations rather than an operation.
"""

from __future__ import annotations

import heapq
import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from inbox_triage.domain.models import Scenario, Ticket
from inbox_triage.domain.state import Event, InboxState, Incident, Message, TicketWork


class Clock:
    """Time and the log, over the engine's state (the engine sets these up)."""

    scenario: Scenario
    state: InboxState
    _tickets: dict[str, Ticket]
    _sequence: int

    if TYPE_CHECKING:  # the engine's own lookups, which the clock reads

        def deadline(self, ticket: Ticket, priority: str | None) -> int | None: ...
        def visible_deadline(self, ticket_id: str) -> int | None: ...
        def visible_ids(self) -> list[str]: ...
        def next_arrival(self) -> int | None: ...

    def advance(self, minutes: int) -> None:
        """Moves the simulated clock forward: mail arrives, customers answer or come back,
        queues drain, SLA deadlines pass."""
        self.state.now += minutes
        self._deliver_arrivals()
        self._run_scheduled()
        self._drain_queues()
        self._update_sla()

    def advance_to_next_arrival(self) -> bool:
        """Skips idle time to the next arrival; False when nothing more is coming."""
        minute = self.next_arrival()
        if minute is None:
            return False
        self.advance(max(0, minute - self.state.now))
        return True

    def _deliver_arrivals(self) -> None:
        now, arrived = self.state.now, self.state.arrived
        for ticket in self.scenario.tickets:
            if ticket.id not in arrived and ticket.arrives_at <= now:
                arrived.add(ticket.id)
                if ticket.arrives_at > 0:
                    self.log("arrived", ticket.id, ticket.subject[:80])

    def _schedule(self, minute: int, kind: str, ticket_id: str) -> None:
        self._sequence += 1
        heapq.heappush(self.state.scheduled, (minute, self._sequence, kind, ticket_id))

    def _run_scheduled(self) -> None:
        scheduled = self.state.scheduled
        while scheduled and scheduled[0][0] <= self.state.now:
            minute, _, kind, ticket_id = heapq.heappop(scheduled)
            ticket, work = self._tickets[ticket_id], self.state.work[ticket_id]
            lines = self.scenario.customer_lines
            if kind == "reply":
                body = (
                    ticket.customer_reply.body
                    if ticket.customer_reply
                    else _pick(lines.reveals, ticket_id)
                )
                self._customer_writes(work, minute, "reply", body)
            elif kind == "secret":
                self._customer_writes(
                    work, minute, "reply", _pick(lines.secret_compliance, ticket_id)
                )
            elif kind == "reopen" and work.resolution is not None:
                work.resolution = None
                work.reopened += 1
                work.revision += 1
                self._customer_writes(work, minute, "reopen", _pick(lines.reopen, ticket_id))
                self._worsen_mood(work)
                self.log("reopened", ticket_id, "the customer came back")

    def _customer_writes(self, work: TicketWork, minute: int, kind: str, body: str) -> None:
        work.messages.append(Message(minute, kind, body))
        work.revision += 1
        self.log("customer_" + ("replied" if kind == "reply" else kind), work.ticket_id, body[:80])

    def _worsen_mood(self, work: TicketWork) -> None:
        work.mood = worsened(work.mood)

    def _chases(self, ticket: Ticket, work: TicketWork) -> bool:
        """Whether the customer chases now: by their own patience (whatever the priority), or,
        in the published scenarios, when urgent or high mail passes its true deadline."""
        if work.followed_up or work.handled_at is not None:
            return False
        now = self.state.now
        if self.scenario.settings.follow_ups == "patience":
            due = ticket.chase_after
            return due is not None and now > ticket.arrives_at - ticket.received_minutes_ago + due
        if ticket.truth.priority not in ("urgent", "high"):
            return False
        true_deadline = self.deadline(ticket, ticket.truth.priority)
        return true_deadline is not None and now > true_deadline

    def _follow_up(self, ticket_id: str) -> None:
        """An impatient customer writes again, once."""
        ticket, work = self._tickets[ticket_id], self.state.work[ticket_id]
        work.followed_up = True
        body = ticket.follow_up or _pick(self.scenario.customer_lines.follow_ups, ticket_id)
        self._customer_writes(work, self.state.now, "follow_up", body)
        self._worsen_mood(work)

    def _drain_queues(self) -> None:
        every = self.scenario.settings.queue_drain_minutes
        if not every:
            return
        due = self.state.now // every
        while self.state.drains_done < due:
            self.state.drains_done += 1
            for queue, capacity in self.state.capacity.items():
                if self.state.queue_remaining[queue] < capacity:
                    self.state.queue_remaining[queue] += 1

    def _update_sla(self) -> None:
        """Records breaches of the deadlines the agent can see; the customer chases by their
        own clock (a wrong label does not stop a follow-up)."""
        now = self.state.now
        for ticket_id in self.visible_ids():
            work = self.state.work[ticket_id]
            handled = work.handled_at
            deadline = self.visible_deadline(ticket_id)
            late = deadline is not None and (
                (handled is None and now > deadline) or (handled is not None and handled > deadline)
            )
            if late and ticket_id not in self.state.breached:
                self.state.breached.add(ticket_id)
                self.log("sla_breached", ticket_id, f"first response due at minute {deadline}")
            if self._chases(self._tickets[ticket_id], work):
                self._follow_up(ticket_id)

    def sla_warnings(self) -> list[str]:
        """Unhandled tickets whose visible deadline is near or past."""
        now = self.state.now
        window = self.policy.sla_warning_minutes
        out = []
        for ticket_id in self.visible_ids():
            work = self.state.work[ticket_id]
            if work.handled_at is not None:
                continue
            deadline = self.visible_deadline(ticket_id)
            if deadline is not None and deadline - now <= window:
                out.append(ticket_id)
        return out

    def log(self, kind: str, ticket_id: str | None, detail: str) -> None:
        self.state.events.append(Event(self.state.now, kind, ticket_id, detail))

    def incident(self, kind: str, detail: str) -> None:
        self.state.incidents.append(Incident(self.state.step_count, kind, detail))
        self.log(kind, None, detail)


MOODS = ("positive", "neutral", "frustrated", "angry")


def worsened(mood: str | None, times: int = 1) -> str | None:
    """A customer's mood after being kept waiting or let down ``times`` times."""
    for _ in range(times):
        if mood in MOODS and mood != MOODS[-1]:
            mood = MOODS[MOODS.index(mood) + 1]
    return mood


def _pick(options: Sequence[str], key: str) -> str:
    """A stable choice by key (no global randomness: episodes must replay exactly)."""
    return options[zlib.crc32(key.encode()) % len(options)]
