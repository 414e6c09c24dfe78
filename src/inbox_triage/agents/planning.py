"""Agents that plan per ticket and act one step at a time on what they can see.

Every mode's observation is read into the same shape (an ``Item`` per visible ticket), so the
heuristic and the oracle only say how to handle one ticket. Planning again at every step lets
them react to mail that arrives and to customers who answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from inbox_triage.agents.base import ActionDict, Observation
from inbox_triage.domain import Scenario

Item = dict[str, Any]


def visible_items(obs: Observation) -> list[Item]:
    """The tickets an observation shows, in one shape whatever the mode."""
    mode = obs["mode"]
    if mode == "triage":
        return [
            {
                "id": e["email_id"],
                "subject": e["subject"],
                "body": e["body"],
                "sender": e["sender"],
                "tier": e["customer_tier"],
                "name": e["customer_name"],
                "received_at": e["received_at"],
                "sla_deadline": e["sla_deadline"],
                "messages": e["customer_messages"],
                "done": e["processed"],
                "queue": None,
            }
            for e in obs["inbox"] or []
        ]
    if mode == "inbox":
        return [
            {
                "id": t["ticket_id"],
                "subject": t["subject"],
                "body": t["message"],
                "sender": t["customer_name"],
                "tier": t["customer_tier"],
                "name": t["customer_name"],
                "received_at": 0,
                "sla_deadline": t["sla_deadline"],
                "messages": t["customer_messages"],
                "done": t["resolution_code"] is not None,
                "queue": t["queue"],
            }
            for t in obs["tickets"] or []
        ]
    if obs.get("ticket_id") is None:
        return []
    return [
        {
            "id": obs["ticket_id"],
            "subject": obs["title"],
            "body": obs["customer_message"],
            "sender": obs["customer_name"],
            "tier": obs["customer_tier"],
            "name": obs["customer_name"],
            "received_at": 0,
            "sla_deadline": None,
            "messages": obs["customer_messages"] or [],
            "done": False,
            "queue": obs.get("routed_team"),
        }
    ]


def by_policy(
    plan: list[ActionDict], obs: Observation, routed: str | None = None
) -> list[ActionDict]:
    """A plan as the policy's budget and queue rules have it now: work meant for a full queue
    (other than the one the ticket is in, ``routed``) goes to the overflow queue (Q1) where
    the inbox has one, and once the escalation budget is spent nothing is flagged or
    escalated (E1)."""
    room = obs.get("team_queue_remaining") or {}
    overflow = (obs.get("vocabulary") or {}).get("overflow_queue")
    budget = obs.get("escalation_budget_remaining")
    out: list[ActionDict] = []
    for action in plan:
        for field in ("route_to", "queue"):
            queue = action.get(field)
            if queue is None or not overflow:
                continue
            # Full, or the ticket already waits in the overflow queue: it stays there.
            if routed == overflow or (queue != routed and room.get(queue, 1) <= 0):
                action = {**action, field: overflow}
        if budget is not None and budget <= 0:
            if action.get("flag_review"):
                action = {**action, "flag_review": False}
            if action.get("action_type") == "escalate_ticket":
                continue
        out.append(action)
    return out


def item_text(item: Item) -> str:
    """Everything readable about a ticket, customer answers included."""
    answers = " ".join(m["body"] for m in item["messages"])
    return f"{item['subject']}\n{item['sender']}\n{item['body']}\n{answers}"


def action_key(action: ActionDict) -> str:
    return json.dumps(action, sort_keys=True)


class PlanningAgent:
    """Works the most urgent ticket that still has planned actions, one action per step.

    Subclasses give ``plan_for`` (the actions one ticket needs, from what is known now) and
    ``urgency`` (lower is sooner). A ticket is finished before the next is started.
    """

    name = "planning"

    def __init__(self) -> None:
        self._issued: set[str] = set()
        self._current: str | None = None

    def reset(self, observation: Observation, *, scenario: Scenario | None, seed: int) -> None:
        self._issued = set()
        self._current = None

    def plan_for(self, item: Item, obs: Observation) -> list[ActionDict]:
        raise NotImplementedError

    def urgency(self, item: Item, obs: Observation) -> tuple[Any, ...]:
        return (item["sla_deadline"] if item["sla_deadline"] is not None else 10**9, item["id"])

    def _next_for(self, item: Item, obs: Observation) -> ActionDict | None:
        for action in self.plan_for(item, obs):
            if action_key(action) not in self._issued:
                return action
        return None

    def _candidates(self, items: list[Item], obs: Observation) -> Iterable[Item]:
        current = [i for i in items if i["id"] == self._current]
        rest = sorted(
            (i for i in items if i["id"] != self._current), key=lambda i: self.urgency(i, obs)
        )
        return [*current, *rest]

    def act(self, observation: Observation) -> ActionDict:
        for item in self._candidates(visible_items(observation), observation):
            action = self._next_for(item, observation)
            if action is not None:
                if action.get("action_type") != "noop":  # waiting may take several steps
                    self._issued.add(action_key(action))
                self._current = item["id"]
                return action
        self._current = None
        if "finish" in observation["allowed_actions"]:
            return {"action_type": "finish"}
        return {"action_type": "noop"}
