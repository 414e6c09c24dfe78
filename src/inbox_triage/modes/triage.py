"""`triage` mode (Email Triage OpenEnv): one decision per email."""

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

# What a lean observation's inbox leaves out of an email already triaged, or the current one,
# once sent whole (unless the customer wrote since): it cannot have changed.
EMAIL_TEXTS = (
    "customer_name",
    "customer_account",
    "customer_company",
    "body",
    "thread",
    "customer_messages",
)


def email_header(engine: Engine, ticket: Ticket) -> dict[str, Any]:
    """The short form of an email (used by listings)."""
    work = engine.work(ticket.id)
    header = {
        "email_id": ticket.id,
        "sender": ticket.sender,
        "subject": ticket.subject,
        "customer_tier": ticket.customer.tier,
        "received_at": engine.received_at(ticket),
        "sla_deadline": engine.visible_deadline(ticket.id),
        "processed": work.processed,
    }
    header.update(sender_fields(ticket))
    return header


def email_view(engine: Engine, ticket: Ticket) -> dict[str, Any]:
    """The full email as the agent sees it."""
    return {
        **email_header(engine, ticket),
        "customer_name": ticket.customer.name,
        "customer_account": ticket.customer.account_id,
        "customer_company": ticket.customer.company,
        "body": ticket.body,
        "thread": [m.model_dump() for m in ticket.thread],
        "customer_messages": messages_view(engine.work(ticket.id)),
    }


class TriageMode(ModeView):
    name = "triage"
    actions: ClassVar[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
        "triage_email": (
            ("email_id", "priority", "category", "route_to"),
            ("summary", "flag_review", "reply_draft"),
        ),
        "request_info": (("email_id", "value"), ()),
        "finish": ((), ()),
    }
    default_action = "triage_email"
    weights: ClassVar[dict[str, float]] = {
        "priority": 0.15,
        "category": 0.15,
        "routing": 0.20,
        "summary": 0.10,
        "reply": 0.15,
        "review_flag": 0.10,
        "sla": 0.15,
        "info_request": 0.10,
    }

    def apply(self, engine: Engine, kind: str, action: Mapping[str, Any]) -> str:
        if kind == "finish":
            return self.finish(engine)
        email_id = ticket_id_of(engine, action, "email_id")
        if kind == "request_info":
            engine.request_info(email_id, action["value"], "value")
            return f"Information requested from the sender of {email_id}."
        if engine.work(email_id).processed:
            pending = [t for t in engine.visible_ids() if not engine.work(t).processed]
            raise ActionError("email_id", f"{email_id!r} has already been triaged", pending)
        # Check everything before changing anything: a refused decision changes nothing.
        org = engine.org
        engine.check_choice("priority", action.get("priority"), org.priorities)
        engine.check_choice("category", action.get("category"), org.categories)
        engine.check_route(email_id, action.get("route_to"), "route_to")
        summary = action.get("summary")
        if summary is not None:
            engine.check_text("summary", summary, engine.policy.summary_max_chars)
        reply = action.get("reply_draft")
        if reply is not None and reply.strip():
            engine.check_text("reply_draft", reply)
        flag = bool(action.get("flag_review"))
        if flag:
            engine.check_budget("flag_review")

        engine.set_priority(email_id, action["priority"])
        engine.set_category(email_id, action["category"])
        engine.route(email_id, action["route_to"], "route_to")
        if summary is not None:
            engine.set_summary(email_id, summary)
        if reply is not None and reply.strip():
            engine.write_reply(email_id, reply, "reply_draft")
        if flag:
            engine.flag_review(email_id)
        engine.mark_processed(email_id)
        return f"Email {email_id} triaged to {action['route_to']}."

    def is_done(self, engine: Engine) -> bool:
        state = engine.state
        return state.finished or all(w.processed for w in state.work.values())

    def after_step(self, engine: Engine) -> None:
        """With every arrived email triaged, the clock skips to the next arrival."""
        if all(engine.work(t).processed for t in engine.visible_ids()):
            engine.advance_to_next_arrival()

    def current_email(self, engine: Engine) -> Ticket | None:
        """The unprocessed email whose visible deadline comes first."""
        pending = [t for t in engine.visible() if not engine.work(t.id).processed]
        if not pending:
            return None
        far = 10**9
        return min(pending, key=lambda t: (engine.visible_deadline(t.id) or far, t.id))

    def observe(
        self, engine: Engine, views: ViewCache, sent: SentViews | None = None
    ) -> dict[str, Any]:
        state = engine.state
        current = self.current_email(engine)
        capped = state.queue_remaining
        whole = cached_view(engine, views, current, email_view) if current else None
        # Lean: an email already triaged, or the current one (whole above), comes as a header.
        inbox = [
            cached_view(
                engine,
                views,
                t,
                email_view,
                sent,
                EMAIL_TEXTS,
                lean=t is current or state.work[t.id].processed,
            )
            for t in engine.visible()
        ]
        return {
            "current_email": whole,
            "inbox": inbox,
            "processed": [t for t in engine.visible_ids() if state.work[t].processed],
            "escalation_budget_remaining": state.escalation_budget,
            "team_queue_remaining": {q: capped[q] for q in engine.org.queues if q in capped},
            "active_sla_warnings": engine.sla_warnings(),
            "sla_breaches_so_far": len(state.breached),
        }
