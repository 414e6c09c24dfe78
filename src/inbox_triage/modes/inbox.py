"""`inbox` mode (Support Inbox Ops): a queue of tickets under a step budget."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from inbox_triage.domain import ActionError, Engine, Ticket
from inbox_triage.modes.base import (
    ModeView,
    SentViews,
    ViewCache,
    cached_view,
    messages_view,
    sender_fields,
    ticket_id_of,
)

# What a lean observation's ticket list leaves out of a ticket already handled (resolved or
# escalated) once sent whole (unless the customer wrote since): it cannot have changed.
TICKET_TEXTS = (
    "customer_name",
    "customer_account",
    "customer_company",
    "message",
    "thread",
    "internal_notes",
    "customer_messages",
)


def _handled(engine: Engine, ticket: Ticket) -> bool:
    work = engine.work(ticket.id)
    return work.resolution is not None or work.escalated_to is not None


def ticket_view(engine: Engine, ticket: Ticket) -> dict[str, Any]:
    """The ticket as the agent sees it."""
    work = engine.work(ticket.id)
    return {
        "ticket_id": ticket.id,
        "customer_name": ticket.customer.name,
        "customer_tier": ticket.customer.tier,
        "customer_account": ticket.customer.account_id,
        "customer_company": ticket.customer.company,
        **sender_fields(ticket),
        "subject": ticket.subject,
        "message": ticket.body,
        "thread": [m.model_dump() for m in ticket.thread],
        "customer_messages": messages_view(work),
        "priority": work.priority,
        "queue": work.queue,
        "status": work.status,
        "sentiment": work.sentiment,
        "tags": list(work.tags),
        "internal_notes": list(ticket.internal_notes),
        "responses_sent": list(work.templates_sent),
        "escalation_target": work.escalated_to,
        "resolution_code": work.resolution,
        "sla_deadline": engine.visible_deadline(ticket.id),
    }


class InboxMode(ModeView):
    name = "inbox"
    actions: ClassVar[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
        "classify_ticket": (("ticket_id",), ("priority", "queue", "sentiment")),
        "respond_ticket": (("ticket_id", "response_template"), ("response_text",)),
        "escalate_ticket": (("ticket_id", "escalate_to"), ("reason",)),
        "resolve_ticket": (("ticket_id", "resolution_code"), ()),
        "request_info": (("ticket_id", "value"), ()),
        "finish": ((), ()),
    }
    weights: ClassVar[dict[str, float]] = {
        "priority": 0.10,
        "routing": 0.10,
        "sentiment": 0.05,
        "response": 0.20,
        "escalation": 0.20,
        "resolution": 0.20,
        "info_request": 0.10,
        "wrap_up": 0.15,
    }
    step_cost = 0.005

    def apply(self, engine: Engine, kind: str, action: Mapping[str, Any]) -> str:
        if kind == "finish":
            return self.finish(engine)
        tid = ticket_id_of(engine, action, "ticket_id")
        work = engine.work(tid)
        if work.resolution is not None:
            raise ActionError("ticket_id", f"{tid!r} is already resolved")
        if kind == "classify_ticket":
            fields = ("priority", "queue", "sentiment")
            if all(action.get(f) is None for f in fields):
                raise ActionError("priority", "classify_ticket needs priority, queue or sentiment")
            org = engine.org
            if action.get("priority") is not None:
                engine.check_choice("priority", action["priority"], org.priorities)
            if action.get("queue") is not None:
                engine.check_route(tid, action["queue"], "queue")
            if action.get("sentiment") is not None:
                engine.check_choice("sentiment", action["sentiment"], org.sentiments)
            if action.get("priority") is not None:
                engine.set_priority(tid, action["priority"])
            if action.get("queue") is not None:
                engine.route(tid, action["queue"], "queue")
            if action.get("sentiment") is not None:
                engine.set_sentiment(tid, action["sentiment"])
            return f"Ticket {tid} classified."
        if kind == "respond_ticket":
            text = action.get("response_text")
            if text is not None:
                engine.check_text("response_text", text)
            engine.send_template(tid, action["response_template"], text)
            return f"Response {action['response_template']} sent on {tid}."
        if kind == "request_info":
            engine.request_info(tid, action["value"], "value")
            return f"Information requested from the customer on {tid}."
        if kind == "escalate_ticket":
            engine.escalate(tid, action["escalate_to"], action.get("reason"))
            return f"Ticket {tid} escalated to {action['escalate_to']}."
        engine.resolve(tid, action["resolution_code"])
        truth = engine.tickets[tid].truth
        if truth.resolution is None:
            engine.incident("unsafe_closure", f"{tid} resolved")
        return f"Ticket {tid} resolved as {action['resolution_code']}."

    def is_done(self, engine: Engine) -> bool:
        return engine.state.finished

    def observe(
        self, engine: Engine, views: ViewCache, sent: SentViews | None = None
    ) -> dict[str, Any]:
        capped = engine.state.queue_remaining
        return {
            "tickets": [
                cached_view(
                    engine, views, t, ticket_view, sent, TICKET_TEXTS, lean=_handled(engine, t)
                )
                for t in engine.visible()
            ],
            "escalation_budget_remaining": engine.state.escalation_budget,
            "team_queue_remaining": {q: capped[q] for q in engine.org.queues if q in capped},
        }
