"""`ticket` mode (Support Triage OpenEnv): one ticket worked through tool actions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from inbox_triage.domain import ActionError, Engine, missing_for_close
from inbox_triage.modes.base import (
    ModeView,
    SentViews,
    ViewCache,
    messages_view,
    sender_fields,
)

_VALUE = (("value",), ("ticket_id",))


class TicketMode(ModeView):
    name = "ticket"
    actions: ClassVar[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
        "set_priority": _VALUE,
        "route_team": _VALUE,
        "add_tag": _VALUE,
        "draft_reply": _VALUE,
        "request_info": _VALUE,
        "close_ticket": ((), ("ticket_id",)),
        "noop": ((), ("ticket_id",)),
    }
    weights: ClassVar[dict[str, float]] = {
        "priority": 0.15,
        "routing": 0.20,
        "tags": 0.20,
        "info_request": 0.10,
        "reply": 0.20,
        "closure": 0.15,
    }
    step_cost = 0.01

    def _ticket_id(self, engine: Engine, action: Mapping[str, Any]) -> str:
        only = engine.scenario.tickets[0].id
        given = action.get("ticket_id")
        if given is not None and given != only:
            raise ActionError("ticket_id", "is not this ticket's id", [only])
        return only

    def apply(self, engine: Engine, kind: str, action: Mapping[str, Any]) -> str:
        tid = self._ticket_id(engine, action)
        value = action.get("value")
        work = engine.work(tid)
        if kind == "set_priority":
            engine.set_priority(tid, value, "value")
            return f"Priority set to {value}."
        if kind == "route_team":
            engine.route(tid, value, "value")
            return f"Ticket routed to {value}."
        if kind == "add_tag":
            if not engine.add_tag(tid, value, "value"):
                engine.incident("repeat", f"tag {value!r} was already on the ticket")
                return f"Tag {value} was already present."
            return f"Tag {value} added."
        if kind == "draft_reply":
            engine.write_reply(tid, value, "value")
            return "Reply drafted."
        if kind == "request_info":
            engine.request_info(tid, value, "value")
            return "Information requested from the customer."
        if kind == "close_ticket":
            missing = missing_for_close(work)
            if missing:
                engine.incident("premature_close", "ticket closed before its work was done")
            engine.close(tid)
            if missing:
                return "Ticket closed; it had no " + ", ".join(missing) + "."
            return "Ticket closed."
        engine.incident("noop", "no-op")
        return "No operation."

    def is_done(self, engine: Engine) -> bool:
        return any(w.closed for w in engine.state.work.values())

    def observe(
        self, engine: Engine, views: ViewCache, sent: SentViews | None = None
    ) -> dict[str, Any]:
        ticket = engine.scenario.tickets[0]
        work = engine.work(ticket.id)
        return {
            "ticket_id": ticket.id,
            "title": ticket.subject,
            "customer_tier": ticket.customer.tier,
            "customer_name": ticket.customer.name,
            "customer_account": ticket.customer.account_id,
            **sender_fields(ticket),
            "customer_message": ticket.body,
            "priority": work.priority,
            "routed_team": work.queue,
            "tags": list(work.tags),
            "draft_reply": work.reply,
            "info_requested": work.info_request is not None,
            "customer_messages": messages_view(work),
        }
