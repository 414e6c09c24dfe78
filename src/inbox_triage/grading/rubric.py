"""The grade of an episode: named components, each a score with a one-line explanation.

A mode chooses which components count and how much (its weights); a component that does not
apply to a scenario (no ticket needs escalation, say) drops out and the rest are renormalised.
Per-ticket scores are cached by the ticket's revision, so grading after every step stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

from inbox_triage.domain import (
    Engine,
    OrgProfile,
    Scenario,
    Ticket,
    TicketWork,
    missing_for_close,
)
from inbox_triage.grading.memo import ObjectMemo
from inbox_triage.grading.replies import (
    StuffingTerms,
    grade_info_request,
    grade_reply,
    grade_summary,
    is_distinctive,
    policy_breaches,
)
from inbox_triage.scenarios import org_fact_phrases

WRAP_UP_THRESHOLD = 0.8


@dataclass(frozen=True, slots=True)
class ComponentScore:
    name: str
    score: float
    weight: float
    explanation: str


@dataclass(frozen=True, slots=True)
class Grade:
    """A value in [0, 1] and the components it is made of."""

    value: float
    components: tuple[ComponentScore, ...]

    def as_dict(self) -> dict[str, object]:
        return {
            "value": round(self.value, 6),
            "components": {
                c.name: {
                    "score": round(c.score, 6),
                    "weight": round(c.weight, 6),
                    "explanation": c.explanation,
                }
                for c in self.components
            },
        }


# A per-ticket scorer returns (score, note) or None when it does not apply to the ticket.
TicketScorer = Callable[["Grader", Ticket, TicketWork], "tuple[float, str] | None"]


# A right decision reached by changing one already made earns half: trying every value in turn
# and watching the reward must not pay.
CHANGED_DECISION_CREDIT = 0.5


def _decision(w: TicketWork, attribute: str, truth: str | None) -> tuple[float, str]:
    if getattr(w, attribute) != truth:
        return 0.0, ""
    if w.changes.get(attribute):
        return CHANGED_DECISION_CREDIT, "right after a change"
    return 1.0, ""


def _priority(_: Grader, t: Ticket, w: TicketWork) -> tuple[float, str]:
    return _decision(w, "priority", t.truth.priority)


def _category(_: Grader, t: Ticket, w: TicketWork) -> tuple[float, str] | None:
    if t.truth.category is None:
        return None
    return _decision(w, "category", t.truth.category)


def _routing(_: Grader, t: Ticket, w: TicketWork) -> tuple[float, str]:
    return _decision(w, "queue", t.truth.queue)


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


def _summary(g: Grader, t: Ticket, w: TicketWork) -> tuple[float, str]:
    result = grade_summary(w.summary, t, g.stuffing_terms)
    return result.score, result.note


def _reply(g: Grader, t: Ticket, w: TicketWork) -> tuple[float, str]:
    result = grade_reply(w.reply, t, g.scenario.policy, g.stuffing_terms)
    return result.score, result.note


def _response(g: Grader, t: Ticket, w: TicketWork) -> tuple[float, str] | None:
    if t.truth.template is None:
        return None
    if t.truth.template not in w.templates_sent:
        return 0.0, "no suitable template sent"
    if w.reply and policy_breaches(w.reply, t, g.scenario.policy):
        return 0.0, "response text breaks policy"
    return 1.0 / len(set(w.templates_sent)), ""


def _info_request(g: Grader, t: Ticket, w: TicketWork) -> tuple[float, str] | None:
    if not t.truth.needs_info:
        return None
    result = grade_info_request(w.info_request, t, g.scenario.policy)
    return result.score, result.note


def _review_flag(_: Grader, t: Ticket, w: TicketWork) -> tuple[float, str]:
    return float(w.flagged == t.truth.flag_review), ""


def _resolution(_: Grader, t: Ticket, w: TicketWork) -> tuple[float, str] | None:
    """Over tickets that should be resolved and tickets the agent resolved: resolving a
    specialist's ticket counts against it."""
    if t.truth.resolution is None:
        if w.resolution is None:
            return None
        return 0.0, "resolved a ticket that was not ours to resolve"
    return float(w.resolution == t.truth.resolution), ""


def _closure(_: Grader, t: Ticket, w: TicketWork) -> tuple[float, str] | None:
    """A close counts once the visible work is done and the evidence that was needed asked for."""
    if t.truth.resolution != "close":
        return None
    if not w.closed:
        return 0.0, ""
    if missing_for_close(w):
        return 0.0, "closed before the work was done"
    if t.truth.needs_info and not any(m.kind == "reply" for m in w.messages):
        return 0.0, "closed before the evidence the case needed had arrived"
    return 1.0, ""


def _sla(g: Grader, t: Ticket, w: TicketWork) -> tuple[float, str] | None:
    deadline = g.engine.deadline(t, t.truth.priority)
    if deadline is None:
        return None
    on_time = w.handled_at is not None and w.handled_at <= deadline
    return float(on_time and w.queue == t.truth.queue), ""


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
    "review_flag": _review_flag,
    "resolution": _resolution,
    "closure": _closure,
    "sla": _sla,
}
EPISODE_COMPONENTS = ("escalation", "wrap_up")
COMPONENTS = (*TICKET_COMPONENTS, *EPISODE_COMPONENTS)

_EXPLAIN = {
    "priority": "tickets with the right priority",
    "category": "tickets in the right category",
    "routing": "tickets routed to the right team",
    "sentiment": "tickets with the right sentiment",
    "tags": "tag sets (F1 against the applicable tags)",
    "summary": "summaries stating the key points in own words",
    "reply": "replies with the right content and no policy breach",
    "response": "tickets answered with a suitable template",
    "info_request": "evidence requests asking for what the case needs",
    "review_flag": "review flags set where policy requires and only there",
    "resolution": "tickets resolved with the right code",
    "closure": "tickets closed once the work was done",
    "sla": "first responses within SLA, to the right team",
}


class Grader:
    """Grades the engine's current state under one mode's weights.

    Per-ticket results are recomputed only for tickets whose revision changed, a component's
    mean only when one of its results changed, and the value only after a change, so the
    potential after each step (``value``) costs little; ``grade`` adds the explanations. The
    arithmetic is the same as summing everything afresh, in the same order, so the value is
    the same to the last bit.
    """

    def __init__(self, engine: Engine, weights: dict[str, float]) -> None:
        unknown = set(weights) - set(COMPONENTS)
        if unknown:
            raise ValueError(f"unknown grade components: {sorted(unknown)}")
        self.engine = engine
        self.scenario: Scenario = engine.scenario
        self.weights = weights
        self._stuffing: StuffingTerms | None = None
        self._ticket_names = [n for n in weights if n in TICKET_COMPONENTS]
        facts = _facts_for(self.scenario)
        self._order = facts.order
        # Untouched tickets share one placeholder result: nothing to grade yet, only whether
        # the component applies.
        self._results: dict[str, dict[str, tuple[float, str]]] = {
            n: dict.fromkeys(facts.applies[n], _UNTOUCHED) for n in self._ticket_names
        }
        self._means: dict[str, ComponentScore | None] = {}
        self._seen: dict[str, int] = {}
        self._value: float | None = None
        self._finished = False

    @property
    def stuffing_terms(self) -> StuffingTerms:
        """Built on the first text graded: an idle session never needs it."""
        if self._stuffing is None:
            self._stuffing = stuffing_terms_for(self.scenario)
        return self._stuffing

    def _refresh(self) -> bool:
        """Regrades the tickets that changed; whether any did."""
        work = self.engine.state.work
        changed = False
        for ticket in self.scenario.tickets:
            w = work[ticket.id]
            if self._seen.get(ticket.id, 0) == w.revision:
                continue
            self._seen[ticket.id] = w.revision
            changed = True
            if not w.touched:
                continue  # a customer message before any decision: still untouched
            for name in self._ticket_names:
                result = TICKET_COMPONENTS[name](self, ticket, w)
                results = self._results[name]
                if results.get(ticket.id) == result:
                    continue
                if result is None:
                    del results[ticket.id]
                else:
                    results[ticket.id] = result
                self._means.pop(name, None)
        return changed

    def _per_ticket(self, name: str, explain: bool) -> ComponentScore | None:
        if not explain and name in self._means:
            return self._means[name]
        results = self._results[name]
        if not results:
            self._means[name] = None
            return None
        order = [results[t] for t in self._order if t in results]
        scores = [r[0] for r in order]
        mean = sum(scores) / len(scores)
        if not explain:
            part = self._means[name] = ComponentScore(name, mean, self.weights[name], "")
            return part
        notes: list[str] = []
        for _, note in order:
            if note and note not in notes:
                notes.append(note)
        good = sum(1 for s in scores if s >= 0.999)
        text = f"{good} of {len(scores)} {_EXPLAIN[name]}"
        if notes and name in ("reply", "summary", "info_request", "response", "resolution"):
            text += f" (mean {mean:.2f}; " + "; ".join(notes[:3]) + ")"
        return ComponentScore(name, mean, self.weights[name], text)

    def _escalation(self) -> ComponentScore | None:
        needed = [t for t in self.scenario.tickets if t.truth.escalate_to is not None]
        if not needed:
            return None
        work = self.engine.state.work
        correct = sum(
            1
            for t in needed
            if work[t.id].escalated_to == t.truth.escalate_to and work[t.id].resolution is None
        )
        made = sum(1 for w in work.values() if w.escalated_to is not None)
        precision = correct / made if made else 1.0
        score = correct / len(needed) * precision
        return ComponentScore(
            "escalation",
            score,
            self.weights["escalation"],
            f"{correct} of {len(needed)} required escalations made correctly and left open; "
            f"{made - correct} other escalations",
        )

    def _wrap_up(self, base: float) -> ComponentScore:
        done = self.engine.state.finished and base >= WRAP_UP_THRESHOLD
        return ComponentScore(
            "wrap_up",
            float(done),
            self.weights["wrap_up"],
            "finished after strong progress" if done else _WRAP_UP_NOT_YET,
        )

    def _parts(self, explain: bool) -> list[ComponentScore]:
        parts: list[ComponentScore] = []
        for name in self.weights:
            if name in TICKET_COMPONENTS:
                part = self._per_ticket(name, explain)
            elif name == "escalation":
                part = self._escalation()
            else:
                continue
            if part is not None:
                parts.append(part)
        return parts

    def _combine(self, parts: list[ComponentScore]) -> tuple[float, float]:
        """The value and the total weight, with wrap_up appended to ``parts`` (the one place
        the arithmetic is done, for ``value`` and ``grade`` alike)."""
        total_weight = sum(p.weight for p in parts)
        base = sum(p.weight * p.score for p in parts) / total_weight if total_weight else 0.0
        if "wrap_up" in self.weights:
            parts.append(self._wrap_up(base))
            total_weight += self.weights["wrap_up"]
        value = sum(p.weight * p.score for p in parts) / total_weight if total_weight else 0.0
        return min(1.0, max(0.0, value)), total_weight

    def value(self) -> float:
        """The grade's value alone (the potential the dense reward is shaped from), composed
        again only when a ticket or the end of the episode changed."""
        changed = self._refresh()
        finished = self.engine.state.finished
        if changed or self._value is None or finished != self._finished:
            self._finished = finished
            self._value = self._combine(self._parts(explain=False))[0]
        return self._value

    def grade(self) -> Grade:
        """The grade with every component's explanation."""
        self._refresh()
        parts = self._parts(explain=True)
        value, total_weight = self._combine(parts)
        normalised = tuple(
            ComponentScore(p.name, p.score, p.weight / total_weight, p.explanation) for p in parts
        )
        return Grade(value, normalised)


_UNTOUCHED = (0.0, "untouched")
_WRAP_UP_NOT_YET = f"earned by calling finish once progress is at least {WRAP_UP_THRESHOLD}"


@dataclass(frozen=True, slots=True)
class _ScenarioFacts:
    """What grading needs of a scenario that never changes: shared by its sessions."""

    order: tuple[str, ...]
    applies: dict[str, tuple[str, ...]]


def _facts_of(scenario: Scenario) -> _ScenarioFacts:
    applies = {
        name: tuple(t.id for t in scenario.tickets if _applies(name, t, scenario))
        for name in TICKET_COMPONENTS
    }
    return _ScenarioFacts(tuple(t.id for t in scenario.tickets), applies)


_facts_for = ObjectMemo(_facts_of)


def _applies(name: str, ticket: Ticket, scenario: Scenario) -> bool:
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
        return scenario.policy.sla_for(t.priority, ticket.customer.tier) is not None
    return True


def _phrases(groups: Iterable[Iterable[str]]) -> set[str]:
    return {p.lower() for group in groups for p in group if "{" not in p}


def _distinctive(terms: Iterable[str]) -> frozenset[str]:
    return frozenset(t for t in terms if len(t) > 3 and is_distinctive(t))


def org_stuffing_terms(org: OrgProfile) -> StuffingTerms:
    """The org-wide index, built once per org: every fact phrasing of its fixed tasks, and its
    queue and tag names."""
    return _org_terms(org.id, org.queues, org.tags)


@cache
def _org_terms(org_id: str, queues: tuple[str, ...], tags: tuple[str, ...]) -> StuffingTerms:
    terms = set(org_fact_phrases(org_id))
    terms.update(q.replace("_", " ") for q in queues)
    terms.update(t.replace("-", " ") for t in tags)
    return StuffingTerms(_distinctive(terms))


def stuffing_terms_for(scenario: Scenario) -> StuffingTerms:
    """Phrases that belong to some ticket's facts, in this scenario or anywhere in its org: a
    reply naming many that are not its own is stuffed. Only the scenario's own phrases are
    indexed per episode."""
    own: set[str] = set()
    for ticket in scenario.tickets:
        spec = ticket.truth.reply
        own |= _phrases((*ticket.truth.summary_facts, *(spec.required_facts if spec else ())))
    return StuffingTerms(_distinctive(own), base=org_stuffing_terms(scenario.org))
