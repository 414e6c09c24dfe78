"""``trial_and_error``: reads no mail and finds each decision by watching the dense reward.

It sets a value, looks at ``progress_score``, and tries the next value until the score rises,
then follows the routing guide from the team it found: the team's usual tag and a stock reply
in ticket mode; the queue's template and its escalation or resolution in inbox mode (triage
mode decides each email once, so there is nothing to try). A ticket handled this way earns a
quarter of its credit (``grading/components.py``), so the policy is a degenerate one with a
ceiling (``evaluation/degenerate.py``).
"""

from __future__ import annotations

from typing import Any

from inbox_triage.agents.base import ActionDict, Observation, compose_reply
from inbox_triage.domain import Scenario

# What the routing guides say follows from a team or queue (ticket and inbox mode, v3 orgs).
TICKET_TAG = {
    "shipping": "shipping-delay",
    "trust_safety": "security",
    "billing": "invoice",
    "technical": "bug",
    "account": "login",
}
INBOX_NEXT = {
    "billing": ("billing_review", "escalate_ticket", "billing_ops"),
    "account": ("password_reset_steps", "resolve_ticket", "password_reset_completed"),
    "technical": ("bug_acknowledged", "escalate_ticket", "engineering"),
    "security": ("security_lockdown", "escalate_ticket", "security"),
    "shipping": ("shipping_update", "resolve_ticket", "shipping_update_provided"),
    "legal": ("legal_request_received", "escalate_ticket", "legal"),
    "incidents": ("incident_acknowledged", "escalate_ticket", "incident_response"),
    "product": ("feature_request_logged", "resolve_ticket", "feature_request_logged"),
}
STOCK = ["We have your message", "The right team is looking into it and will update you"]


class TrialAndError:
    """One decision at a time, each value tried until the grade so far rises."""

    name = "trial_and_error"

    def reset(self, observation: Observation, *, scenario: Scenario | None, seed: int) -> None:
        self.found: dict[tuple[str, str], str] = {}
        self.trying: tuple[str, str, list[str]] | None = None  # ticket, field, values left
        self.score = float(observation.get("progress_score") or 0.0)
        self.done: set[tuple[str, ...]] = set()

    def _try(self, ticket: str, field: str, values: list[str], obs: Observation) -> str | None:
        """The value to play now for ``field``, or None once one is found."""
        if (ticket, field) in self.found:
            return None
        rose = float(obs.get("progress_score") or 0.0) > self.score + 1e-9
        if self.trying and self.trying[:2] == (ticket, field):
            _, _, left = self.trying
            if rose or not left:
                self.found[ticket, field] = self.last
                self.trying = None
                return None
            self.last = left.pop(0)
        else:
            self.trying = (ticket, field, list(values[1:]))
            self.last = values[0]
        return self.last

    def act(self, observation: Observation) -> ActionDict:
        action = self._act(observation)
        self.score = float(observation.get("progress_score") or 0.0)
        return action

    def _act(self, obs: Observation) -> ActionDict:
        vocabulary, mode = obs["vocabulary"], obs["mode"]
        if mode == "ticket":
            return self._ticket(obs, vocabulary)
        if mode == "inbox":
            return self._inbox(obs, vocabulary)
        email = obs.get("current_email")
        if email is None:
            return {"action_type": "finish"}
        return {
            "email_id": email["email_id"],
            "priority": "medium",
            "category": "general_inquiry",
            "route_to": "support_tier1",
        }

    def _once(self, key: tuple[str, ...], action: ActionDict) -> ActionDict | None:
        if key in self.done:
            return None
        self.done.add(key)
        return action

    def _ticket(self, obs: Observation, vocabulary: dict[str, Any]) -> ActionDict:
        tid = obs["ticket_id"]
        for kind, field, values in (
            ("set_priority", "priority", vocabulary["priorities"]),
            ("route_team", "team", vocabulary["queues"]),
        ):
            value = self._try(tid, field, list(values), obs)
            if value is not None:
                return {"action_type": kind, "value": value}
        team = self.found[tid, "team"]
        first = (obs.get("customer_name") or "").split(" ")[0]
        for key, action in (
            (("tag",), {"action_type": "add_tag", "value": TICKET_TAG.get(team, "bug")}),
            (("reply",), {"action_type": "draft_reply", "value": compose_reply(first, STOCK)}),
        ):
            once = self._once(key, action)
            if once is not None:
                return once
        return {"action_type": "close_ticket"}

    def _inbox(self, obs: Observation, vocabulary: dict[str, Any]) -> ActionDict:
        for ticket in obs.get("tickets") or []:
            tid = ticket["ticket_id"]
            if ticket["status"] in ("resolved", "escalated"):
                continue
            for field, values in (
                ("queue", vocabulary["queues"]),
                ("priority", vocabulary["priorities"]),
            ):
                value = self._try(tid, field, list(values), obs)
                if value is not None:
                    return {"action_type": "classify_ticket", "ticket_id": tid, field: value}
            template, kind, target = INBOX_NEXT.get(self.found[tid, "queue"], INBOX_NEXT["account"])
            respond = {
                "action_type": "respond_ticket",
                "ticket_id": tid,
                "response_template": template,
            }
            once = self._once((tid, "respond"), respond)
            if once is not None:
                return once
            field = "escalate_to" if kind == "escalate_ticket" else "resolution_code"
            once = self._once((tid, "end"), {"action_type": kind, "ticket_id": tid, field: target})
            if once is not None:
                return once
        return {"action_type": "finish"}
