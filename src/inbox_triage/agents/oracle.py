"""The oracle reads the truth and plays it perfectly. It exists to prove every task is winnable."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from inbox_triage.agents.base import ActionDict, Observation, compose_reply
from inbox_triage.agents.planning import Item, PlanningAgent, by_policy
from inbox_triage.domain import Engine, Scenario, Ticket, Truth
from inbox_triage.domain.clock import worsened
from inbox_triage.domain.models import Reference
from inbox_triage.grading import grade_info_request, grade_reply, grade_summary
from inbox_triage.grading.stuffing import stuffing_terms_for


def truth_reply(
    first_name: str, truth: Truth, details: tuple[str, ...] = (), quoted: str = ""
) -> str | None:
    """The reply written for this email; else one made of its points. ``details``: ids and
    amounts the email names; ``quoted``: its first sentence."""
    spec = truth.reply
    if spec is None:
        return None
    if truth.reference is not None and truth.reference.reply is not None:
        return truth.reference.reply
    # Where nobody wrote one (a pack's mail): what the customer wrote, quoted, its problem and
    # details, then every point the reply must make.
    opening = f'You wrote: "{quoted}"' if quoted else ""
    problem = [g[0] for g in truth.summary_facts]
    if problem:
        opening += f" I'm sorry about the {' and the '.join(problem)}"
    if details:
        opening += f" (I have noted {', '.join(details[:2])})"
    points = "; ".join(g[0] for g in spec.required_facts)
    return compose_reply(first_name, [opening, f"I've passed it on, noting for the team: {points}"])


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


# Ids, amounts and reference numbers an email names ("INV-2024-0042", "$249.00").
_DETAILS = re.compile(r"[$£€]?\d[\d,.]*\d|\b[A-Za-z]+-\d[\w-]*\d\b")
_FIRST_SENTENCE = re.compile(r"[^\n]{12,160}?[.!?](?=\s|$)")


def details_of(text: str) -> tuple[str, ...]:
    """Ids and sums an email names; bare small numbers ("60, 15, 20") are not details a reply
    notes (readers saw "I've noted the details you gave us: 60, 15, 20")."""
    found = (m.rstrip(".,") for m in _DETAILS.findall(text))
    return tuple(dict.fromkeys(m for m in found if not (m.isdigit() and len(m) < 5)))


def first_sentence(text: str, words: int = 0) -> str:
    """The first real sentence of an email (after its greeting), and the next ones until the
    quote has ``words`` words."""
    rest = text.split("\n", 1)[-1] if "," in text[:20] else text
    quote = ""
    for found in _FIRST_SENTENCE.finditer(rest):
        quote = f"{quote} {found.group().strip()}".strip()
        if len(quote.split()) >= words:
            break
    return quote


def truth_plan(
    mode: str,
    ticket_id: str,
    first_name: str,
    truth: Truth,
    details: tuple[str, ...] = (),
    quoted: str = "",
) -> list[ActionDict]:
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
        reply = truth_reply(first_name, truth, details, quoted)
        if reply is not None:
            decision["reply_draft"] = reply
        return [*ask, decision]
    if mode == "ticket":  # ask first: the answer comes while the rest is done
        return [
            *ask,
            {"action_type": "set_priority", "value": truth.priority},
            {"action_type": "route_team", "value": truth.queue},
            *({"action_type": "add_tag", "value": tag} for tag in truth.tags),
            {
                "action_type": "draft_reply",
                "value": truth_reply(first_name, truth, details, quoted),
            },
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
        body = item["body"]
        plan = truth_plan(
            obs["mode"], item["id"], first, truth, details_of(body), first_sentence(body)
        )
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
        truths = {t.id: best_written(scenario, t) for t in scenario.tickets}
        self.lookup = lambda item: truths[item["id"]]
        self._deadlines = true_deadlines(scenario)


def best_written(scenario: Scenario, ticket: Ticket) -> Truth:
    """The ticket's truth with, of each kind of text written for it, the one the grader rates
    highest first: patterns are written for a kind of email, and the oracle, which reads the
    truth, writes as well as the patterns allow."""
    truth = ticket.truth
    ref = truth.reference
    if ref is None:
        return truth
    terms = stuffing_terms_for(scenario)
    org, policy = scenario.org, scenario.policy

    def best(texts: tuple[str, ...], grade: Callable[[str], float]) -> tuple[str, ...]:
        if len(texts) < 2:
            return texts
        top = max(texts, key=grade)  # the first of the best, in the patterns' order
        return (top, *(t for t in texts if t != top))

    # long details can stretch a summary past what the policy allows: those are not sent
    fits = tuple(x for x in ref.summaries if len(x) <= policy.summary_max_chars)
    better = Reference(
        summaries=best(
            fits or ref.summaries, lambda x: grade_summary(x, ticket, terms, org=org).score
        ),
        replies=best(
            _with_noted(ref.replies, ticket),
            lambda x: grade_reply(x, ticket, policy, terms, org=org).score,
        ),
        requests=best(ref.requests, lambda x: grade_info_request(x, ticket, policy).score),
    )
    return truth.model_copy(update={"reference": better})


QUOTED_WORDS = 15  # a short quote, not the customer's message pasted back


def _with_noted(replies: tuple[str, ...], ticket: Ticket) -> tuple[str, ...]:
    """The replies, then each with what the email says noted before its sign-off (the ids and
    amounts it names, or its opening quoted): where no pattern fits an email closely, the
    oracle still writes about this email."""
    details = details_of(ticket.body)
    words = first_sentence(ticket.body).split()
    quoted = " ".join(words[:QUOTED_WORDS]) + ("..." if len(words) > QUOTED_WORDS else "")
    if details:
        noted = f"I've noted the details you gave us: {', '.join(details[:3])}."
    elif quoted:
        noted = f'I\'ve noted what you wrote: "{quoted}"'
    else:
        return replies
    extra = []
    for reply in replies:
        body, sep, sign_off = reply.rpartition("\n\n")
        extra.append(f"{body}\n\n{noted}{sep}{sign_off}" if sep else f"{reply} {noted}")
    return (*replies, *extra)


def true_deadlines(scenario: Scenario) -> dict[str, int]:
    """Each ticket's deadline by its true priority (tickets without an SLA are left out)."""
    engine = Engine(scenario)
    out: dict[str, int] = {}
    for ticket in scenario.tickets:
        deadline = engine.deadline(ticket, ticket.truth.priority)
        if deadline is not None:
            out[ticket.id] = deadline
    return out
