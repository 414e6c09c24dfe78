"""The oracle reads the truth and plays it perfectly. It exists to prove every task is winnable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inbox_triage.agents.base import ActionDict, Observation, compose_reply
from inbox_triage.agents.planning import Item, PlanningAgent, by_policy
from inbox_triage.domain import Engine, Scenario, Truth
from inbox_triage.domain.clock import worsened


def truth_reply(first_name: str, truth: Truth) -> str | None:
    spec = truth.reply
    if spec is None:
        return None
    if truth.reference is not None and truth.reference.reply is not None:
        return truth.reference.reply
    # the customer's problem in its own words first (what a reply must acknowledge), then
    # every point it must make
    problem = [f"About the {group[0]} you wrote to us about" for group in truth.summary_facts[:1]]
    points = [f"On {group[0]}, our team has the details" for group in spec.required_facts]
    return compose_reply(first_name, [*problem, *points])


def truth_summary(truth: Truth) -> str:
    """The summary written for this email; else the key points in their first phrasing, and
    without any, the decision."""
    if truth.reference is not None:
        return truth.reference.summary
    facts = [group[0] for group in truth.summary_facts]
    if facts:
        return "Summary: " + "; ".join(facts) + "."
    decision = [v.replace("_", " ") for v in (truth.category, truth.queue) if v]
    return "Summary: no action needed; " + ", ".join(decision) + "."


def info_request(truth: Truth) -> str:
    if truth.reference is not None and truth.reference.request is not None:
        return truth.reference.request
    wanted = " and the ".join(truth.info_keywords[:2]) or "details of the problem"
    return f"Could you send us the {wanted} so that the team can act on this?"


def truth_plan(mode: str, ticket_id: str, first_name: str, truth: Truth) -> list[ActionDict]:
    """The perfect actions for one ticket in one mode."""
    ask: list[ActionDict] = []
    if truth.needs_info:
        field = "email_id" if mode == "triage" else "ticket_id"
        ask = [{"action_type": "request_info", field: ticket_id, "value": info_request(truth)}]
        if mode == "ticket":
            ask = [{"action_type": "request_info", "value": info_request(truth)}]
    if mode == "triage":
        decision: ActionDict = {
            "email_id": ticket_id,
            "priority": truth.priority,
            "category": truth.category,
            "route_to": truth.queue,
            "summary": truth_summary(truth),
            "flag_review": truth.flag_review,
        }
        reply = truth_reply(first_name, truth)
        if reply is not None:
            decision["reply_draft"] = reply
        return [*ask, decision]
    if mode == "ticket":  # ask first: the answer comes while the rest is done
        return [
            *ask,
            {"action_type": "set_priority", "value": truth.priority},
            {"action_type": "route_team", "value": truth.queue},
            *({"action_type": "add_tag", "value": tag} for tag in truth.tags),
            {"action_type": "draft_reply", "value": truth_reply(first_name, truth)},
            {"action_type": "close_ticket"},
        ]
    classify: ActionDict = {
        "action_type": "classify_ticket",
        "ticket_id": ticket_id,
        "priority": truth.priority,
        "queue": truth.queue,
    }
    if truth.sentiment:
        classify["sentiment"] = truth.sentiment
    plan = [*ask, classify]
    if truth.template:
        plan.append(
            {
                "action_type": "respond_ticket",
                "ticket_id": ticket_id,
                "response_template": truth.template,
            }
        )
    if truth.escalate_to:
        plan.append(
            {
                "action_type": "escalate_ticket",
                "ticket_id": ticket_id,
                "escalate_to": truth.escalate_to,
                "reason": "owned by specialists",
            }
        )
    elif truth.resolution:
        plan.append(
            {
                "action_type": "resolve_ticket",
                "ticket_id": ticket_id,
                "resolution_code": truth.resolution,
            }
        )
    return plan


class TruthPlayer(PlanningAgent):
    """Plays the truth of every ticket it can look up; ``lookup`` says where the truth comes
    from (the scenario for the oracle; a memory of seen emails for a memorising agent)."""

    def __init__(self, lookup: Callable[[Item], Truth | None] | None = None) -> None:
        super().__init__()
        self.lookup = lookup
        self._deadlines: dict[str, int] = {}

    def truth_of(self, item: Item) -> Truth | None:
        return self.lookup(item) if self.lookup else None

    def plan_for(self, item: Item, obs: Observation) -> list[ActionDict]:
        truth = self.truth_of(item)
        if truth is None or item["done"] and obs["mode"] == "triage":
            return []
        first = (item["name"] or "").split(" ")[0]
        if truth.sentiment is not None:  # kept waiting or let down, the customer sours
            soured = sum(1 for m in item["messages"] if m["kind"] in ("follow_up", "reopen"))
            truth = truth.model_copy(update={"sentiment": worsened(truth.sentiment, soured)})
        plan = truth_plan(obs["mode"], item["id"], first, truth)
        plan = by_policy(plan, obs, routed=item["queue"])
        answered = any(m["kind"] == "reply" for m in item["messages"])
        if obs["mode"] == "ticket" and truth.needs_info and not answered:
            # A ticket is closed only with the evidence in hand: wait for the answer.
            plan = [*plan[:-1], {"action_type": "noop"}]
        return plan

    def urgency(self, item: Item, obs: Observation) -> tuple[Any, ...]:
        deadline = self._deadlines.get(item["id"])
        return (deadline is None, deadline or 0, item["id"])


class OracleAgent(TruthPlayer):
    """Reads the scenario's truth. Needs the scenario, so it runs in-process only."""

    name = "oracle"
    needs_truth = True

    def reset(self, observation: Observation, *, scenario: Scenario | None, seed: int) -> None:
        super().reset(observation, scenario=scenario, seed=seed)
        if scenario is None:
            raise ValueError("the oracle needs the scenario (it reads the truth)")
        tickets = {t.id: t for t in scenario.tickets}
        self.lookup = lambda item: tickets[item["id"]].truth
        self._deadlines = true_deadlines(scenario)


def true_deadlines(scenario: Scenario) -> dict[str, int]:
    """Each ticket's deadline by its true priority (tickets without an SLA are left out)."""
    engine = Engine(scenario)
    out: dict[str, int] = {}
    for ticket in scenario.tickets:
        deadline = engine.deadline(ticket, ticket.truth.priority)
        if deadline is not None:
            out[ticket.id] = deadline
    return out
