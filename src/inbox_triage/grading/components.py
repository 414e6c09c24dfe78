"""The per-ticket components of a grade: one scorer each, and when each applies.

A scorer reads a ticket, the work done on it and the grader (for its stuffing index, scenario
and clock) and returns (score, note), or None when the component does not apply to the ticket.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from inbox_triage.domain import Engine, Scenario, Ticket, TicketWork, missing_for_close
from inbox_triage.grading.replies import grade_reply, policy_breaches
from inbox_triage.grading.requests import grade_info_request
from inbox_triage.grading.stuffing import StuffingTerms
from inbox_triage.grading.summaries import grade_summary
from inbox_triage.grading.texts import TextScore


class Grader(Protocol):
    """What a scorer reads of the grader (``rubric.Grader``), named here so that the
    components stand below the rubric that composes them."""

    engine: Engine
    scenario: Scenario

    @property
    def stuffing_terms(self) -> StuffingTerms: ...

    def keep_reason(self, name: str, ticket_id: str, result: TextScore) -> tuple[float, str]: ...


# A per-ticket scorer returns (score, note) or None when it does not apply to the ticket.
TicketScorer = Callable[[Grader, Ticket, TicketWork], "tuple[float, str] | None"]


# A ticket whose decisions were changed without new information from the customer earns this
# share of every component (its right decisions, and what follows from them: the close, the
# template, the escalation): trying every value and watching the reward must not pay.
CHANGED_DECISION_CREDIT = 0.25


def by_trial(w: TicketWork) -> bool:
    """Whether a decision on the ticket was changed with nothing new from the customer."""
    return any(w.changes.values())


def discounted(w: TicketWork, result: tuple[float, str] | None) -> tuple[float, str] | None:
    """A component's result for the ticket, at :data:`CHANGED_DECISION_CREDIT` where it was
    handled by trial and error (what is below 0 stays as it is: a cost is no credit)."""
    if result is None or result[0] <= 0 or not by_trial(w):
        return result
    note = "; ".join(p for p in (result[1], "decided by trial and error") if p)
    return result[0] * CHANGED_DECISION_CREDIT, note


def _decision(w: TicketWork, attribute: str, truth: str | None) -> tuple[float, str]:
    return float(getattr(w, attribute) == truth), ""


def _priority(_: Grader, t: Ticket, w: TicketWork) -> tuple[float, str]:
    return _decision(w, "priority", t.truth.priority)


def _category(_: Grader, t: Ticket, w: TicketWork) -> tuple[float, str] | None:
    if t.truth.category is None:
        return None
    return _decision(w, "category", t.truth.category)


def routed_right(t: Ticket, w: TicketWork, overflow: str | None) -> bool:
    """To the owning team, or, where the policy names an overflow queue, there while the
    owning team's queue was full."""
    if w.queue == t.truth.queue:
        return True
    return overflow is not None and w.queue == overflow and t.truth.queue in w.full_when_routed


def _routing(g: Grader, t: Ticket, w: TicketWork) -> tuple[float, str]:
    return float(routed_right(t, w, g.scenario.org.overflow_queue)), ""


def _sentiment(_: Grader, t: Ticket, w: TicketWork) -> tuple[float, str] | None:
    """Against the customer's mood as it is now: ignoring or failing them sours it."""
    if t.truth.sentiment is None:
        return None
    return _decision(w, "sentiment", w.mood or t.truth.sentiment)


def _tags(_: Grader, t: Ticket, w: TicketWork) -> tuple[float, str] | None:
    wanted = set(t.truth.tags)
    if not wanted:
        return None
    given = set(w.tags)
    hit = len(wanted & given)
    if not hit:
        return 0.0, "no applicable tag"
    precision, recall = hit / len(given), hit / len(wanted)
    return 2 * precision * recall / (precision + recall), ""


def _messages(w: TicketWork) -> tuple[str, ...]:
    return tuple(m.body for m in w.messages)


def _summary(g: Grader, t: Ticket, w: TicketWork) -> tuple[float, str]:
    result = grade_summary(w.summary, t, g.stuffing_terms, _messages(w), g.scenario.org)
    return g.keep_reason("summary", t.id, result)


def _reply(g: Grader, t: Ticket, w: TicketWork) -> tuple[float, str]:
    result = grade_reply(
        w.reply, t, g.scenario.policy, g.stuffing_terms, _messages(w), g.scenario.org
    )
    return g.keep_reason("reply", t.id, result)


def _response(g: Grader, t: Ticket, w: TicketWork) -> tuple[float, str] | None:
    if t.truth.template is None:
        return None
    if t.truth.template not in w.templates_sent:
        return 0.0, "no suitable template sent"
    if w.reply and policy_breaches(w.reply, t, g.scenario.policy):
        return 0.0, "response text breaks policy"
    return 1.0 / len(set(w.templates_sent)), ""


# A request the case did not need counts this much in the info_request component: it cancels
# a good request, so that asking everyone cannot pay (the one component that can fall below 0;
# the grade itself stays in [0, 1]).
NEEDLESS_REQUEST = -1.0


def _info_request(g: Grader, t: Ticket, w: TicketWork) -> tuple[float, str] | None:
    """A request the case needed, by what it asks for; one it did not need counts
    :data:`NEEDLESS_REQUEST`, with no note saying why."""
    if not t.truth.needs_info:
        return None if w.info_request is None else (NEEDLESS_REQUEST, "")
    result = grade_info_request(w.info_request, t, g.scenario.policy)
    return g.keep_reason("info_request", t.id, result)


def _resolution(_: Grader, t: Ticket, w: TicketWork) -> tuple[float, str] | None:
    """Over tickets that should be resolved and tickets the agent resolved: resolving a
    specialist's ticket counts against it, even once the customer has reopened it."""
    if t.truth.resolution is None:
        if w.resolution is None and not w.reopened:
            return None
        return 0.0, "resolved a ticket that was not ours to resolve"
    return float(w.resolution == t.truth.resolution), ""


def _closure(g: Grader, t: Ticket, w: TicketWork) -> tuple[float, str] | None:
    """A close counts once the visible work is done, with the owning team, and the evidence
    that was needed asked for (closing a ticket the wrong team holds helps nobody)."""
    if t.truth.resolution != "close":
        return None
    if not w.closed:
        return 0.0, ""
    if missing_for_close(w):
        return 0.0, "closed before the work was done"
    if not routed_right(t, w, g.scenario.org.overflow_queue):
        return 0.0, "closed while the wrong team held it"
    if t.truth.needs_info and not any(m.kind == "reply" for m in w.messages):
        return 0.0, "closed before the evidence the case needed had arrived"
    return 1.0, ""


def _sla(g: Grader, t: Ticket, w: TicketWork) -> tuple[float, str] | None:
    deadline = g.engine.deadline(t, t.truth.priority)
    if deadline is None or not t.truth.sla_feasible:
        return None
    on_time = w.answered_at is not None and w.answered_at <= deadline
    return float(on_time and routed_right(t, w, g.scenario.org.overflow_queue)), ""


TICKET_COMPONENTS: dict[str, TicketScorer] = {
    "priority": _priority,
    "category": _category,
    "routing": _routing,
    "sentiment": _sentiment,
    "tags": _tags,
    "summary": _summary,
    "reply": _reply,
    "response": _response,
    "info_request": _info_request,
    "resolution": _resolution,
    "closure": _closure,
    "sla": _sla,
}
EPISODE_COMPONENTS = ("review_flag", "escalation", "wrap_up")
COMPONENTS = (*TICKET_COMPONENTS, *EPISODE_COMPONENTS)

EXPLAIN = {
    "priority": "tickets with the right priority",
    "category": "tickets in the right category",
    "routing": "tickets routed to the right team",
    "sentiment": "tickets with the right sentiment",
    "tags": "tag sets (F1 against the applicable tags)",
    "summary": "summaries stating the key points in own words",
    "reply": "replies with the right content and no policy breach",
    "response": "tickets answered with a suitable template",
    "info_request": "evidence requests asking for what the case needs (a needless one -1)",
    "resolution": "tickets resolved with the right code",
    "closure": "tickets closed once the work was done, by the owning team",
    "sla": "first responses within SLA, to the right team",
}


def component_applies(name: str, ticket: Ticket, scenario: Scenario) -> bool:
    """Whether a per-ticket component counts for a ticket nobody has touched."""
    t = ticket.truth
    if name == "category":
        return t.category is not None
    if name == "sentiment":
        return t.sentiment is not None
    if name == "tags":
        return bool(t.tags)
    if name == "response":
        return t.template is not None
    if name == "info_request":
        return t.needs_info
    if name == "resolution":
        return t.resolution is not None
    if name == "closure":
        return t.resolution == "close"
    if name == "sla":  # a deadline applies (Engine.deadline, which counts from receipt)
        sla = scenario.policy.sla_for(t.priority, ticket.customer.tier)
        return sla is not None and t.sla_feasible
    return True
