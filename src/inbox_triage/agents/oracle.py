"""The oracle reads the truth and plays it perfectly. It exists to prove every task is winnable."""

from __future__ import annotations

from collections import deque

from inbox_triage.agents.base import ActionDict, Observation, compose_reply
from inbox_triage.domain import Engine, Scenario, Ticket


def truth_order(scenario: Scenario) -> list[Ticket]:
    """Earliest true deadline first; tickets without an SLA last."""
    engine = Engine(scenario)
    far = 10**9

    def key(ticket: Ticket) -> tuple[int, str]:
        deadline = engine.deadline(ticket, ticket.truth.priority)
        return (far if deadline is None else deadline, ticket.id)

    return sorted(scenario.tickets, key=key)


def truth_reply(ticket: Ticket) -> str | None:
    spec = ticket.truth.reply
    if spec is None:
        return None
    points = [f"On {group[0]}, our team has the details" for group in spec.required_facts]
    return compose_reply(ticket.customer.first_name, points)


def truth_summary(ticket: Ticket) -> str:
    facts = [group[0] for group in ticket.truth.summary_facts]
    return ("Summary: " + "; ".join(facts) + ".") if facts else "Summary: no action needed."


def info_request(ticket: Ticket) -> str:
    wanted = " and the ".join(ticket.truth.info_keywords[:2]) or "details of the problem"
    return f"Could you send us the {wanted} so that the team can act on this?"


def plan(scenario: Scenario) -> list[ActionDict]:
    """The perfect action sequence for a scenario, from its truth."""
    actions: list[ActionDict] = []
    if scenario.mode == "triage":
        for t in truth_order(scenario):
            actions.append(
                {
                    "email_id": t.id,
                    "priority": t.truth.priority,
                    "category": t.truth.category,
                    "route_to": t.truth.queue,
                    "summary": truth_summary(t),
                    "flag_review": t.truth.flag_review,
                    "reply_draft": truth_reply(t),
                }
            )
        return actions
    if scenario.mode == "ticket":
        t = scenario.tickets[0]
        actions += [
            {"action_type": "set_priority", "value": t.truth.priority},
            {"action_type": "route_team", "value": t.truth.queue},
        ]
        actions += [{"action_type": "add_tag", "value": tag} for tag in t.truth.tags]
        if t.truth.needs_info:
            actions.append({"action_type": "request_info", "value": info_request(t)})
        actions.append({"action_type": "draft_reply", "value": truth_reply(t)})
        actions.append({"action_type": "close_ticket"})
        return actions
    for t in truth_order(scenario):
        truth = t.truth
        classify: ActionDict = {
            "action_type": "classify_ticket",
            "ticket_id": t.id,
            "priority": truth.priority,
            "queue": truth.queue,
        }
        if truth.sentiment:
            classify["sentiment"] = truth.sentiment
        actions.append(classify)
        if truth.template:
            actions.append(
                {
                    "action_type": "respond_ticket",
                    "ticket_id": t.id,
                    "response_template": truth.template,
                }
            )
        if truth.escalate_to:
            actions.append(
                {
                    "action_type": "escalate_ticket",
                    "ticket_id": t.id,
                    "escalate_to": truth.escalate_to,
                    "reason": "owned by specialists",
                }
            )
        elif truth.resolution:
            actions.append(
                {
                    "action_type": "resolve_ticket",
                    "ticket_id": t.id,
                    "resolution_code": truth.resolution,
                }
            )
    actions.append({"action_type": "finish"})
    return actions


class OracleAgent:
    """Plays :func:`plan`. Needs the scenario, so it runs in-process only."""

    name = "oracle"
    needs_truth = True

    def __init__(self) -> None:
        self._actions: deque[ActionDict] = deque()

    def reset(self, observation: Observation, *, scenario: Scenario | None, seed: int) -> None:
        if scenario is None:
            raise ValueError("the oracle needs the scenario (it reads the truth)")
        self._actions = deque(plan(scenario))

    def act(self, observation: Observation) -> ActionDict:
        if self._actions:
            return self._actions.popleft()
        if "finish" in observation["allowed_actions"]:
            return {"action_type": "finish"}
        return {"action_type": "noop"}
