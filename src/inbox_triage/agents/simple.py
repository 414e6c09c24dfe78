"""Baselines that bound the grade from below: an agent that does nothing and a random one."""

from __future__ import annotations

import random

from inbox_triage.agents.base import ActionDict, Observation
from inbox_triage.domain import Scenario

_GENERIC_TEXT = (
    "Thanks for your message.",
    "We have received your email and will get back to you.",
    "Noted, thank you.",
    "Customer email about an issue.",
    "Please see the message below.",
)


class NoopAgent:
    """Does nothing: finishes at once where the mode allows it, otherwise waits."""

    name = "noop"

    def reset(self, observation: Observation, *, scenario: Scenario | None, seed: int) -> None:
        pass

    def act(self, observation: Observation) -> ActionDict:
        if "finish" in observation["allowed_actions"]:
            return {"action_type": "finish"}
        return {"action_type": "noop"}


class RandomAgent:
    """Valid random actions from the visible vocabulary, reproducible by seed."""

    name = "random"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def reset(self, observation: Observation, *, scenario: Scenario | None, seed: int) -> None:
        self.rng = random.Random(seed)

    def _text(self) -> str | None:
        return self.rng.choice((None, *_GENERIC_TEXT))

    def act(self, observation: Observation) -> ActionDict:
        rng, vocab, mode = self.rng, observation["vocabulary"], observation["mode"]
        if mode == "triage":
            pending = [e["email_id"] for e in observation["inbox"] if not e["processed"]]
            if not pending or rng.random() < 0.05:
                return {"action_type": "finish"}
            queues = observation["team_queue_remaining"]
            open_queues = [q for q in vocab["queues"] if queues.get(q, 1) > 0]
            return {
                "email_id": rng.choice(pending),
                "priority": rng.choice(vocab["priorities"]),
                "category": rng.choice(vocab["categories"]),
                "route_to": rng.choice(open_queues),
                "summary": self._text(),
                "flag_review": observation["escalation_budget_remaining"] > 0
                and rng.random() < 0.3,
                "reply_draft": self._text(),
            }
        kind = rng.choice(observation["allowed_actions"])
        if mode == "ticket":
            values = {
                "set_priority": vocab["priorities"],
                "route_team": vocab["queues"],
                "add_tag": vocab["tags"],
                "draft_reply": _GENERIC_TEXT,
                "request_info": _GENERIC_TEXT,
            }
            if kind in values:
                return {"action_type": kind, "value": rng.choice(values[kind])}
            return {"action_type": kind}
        ticket_id = rng.choice([t["ticket_id"] for t in observation["tickets"]])
        if kind == "classify_ticket":
            return {
                "action_type": kind,
                "ticket_id": ticket_id,
                "priority": rng.choice(vocab["priorities"]),
                "queue": rng.choice(vocab["queues"]),
                "sentiment": rng.choice(vocab["sentiments"]),
            }
        if kind == "respond_ticket":
            template = rng.choice(list(vocab["templates"]))
            return {"action_type": kind, "ticket_id": ticket_id, "response_template": template}
        if kind == "escalate_ticket":
            target = rng.choice(vocab["escalation_targets"])
            return {"action_type": kind, "ticket_id": ticket_id, "escalate_to": target}
        if kind == "resolve_ticket":
            code = rng.choice(vocab["resolution_codes"])
            return {"action_type": kind, "ticket_id": ticket_id, "resolution_code": code}
        return {"action_type": kind}
