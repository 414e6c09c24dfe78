"""The grade of an episode: named components, each a score with a one-line explanation.

A mode chooses which components count and how much (its weights); a component that does not
apply to a scenario (no ticket needs escalation, say) drops out and the rest are renormalised.
Per-ticket scores are cached by the ticket's revision, so grading after every step stays cheap.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inbox_triage.domain import Engine, Scenario
from inbox_triage.grading.components import (
    CHANGED_DECISION_CREDIT,
    COMPONENTS,
    EXPLAIN,
    TICKET_COMPONENTS,
    by_trial,
    component_applies,
    discounted,
)
from inbox_triage.grading.memo import ObjectMemo
from inbox_triage.grading.stuffing import StuffingTerms, stuffing_terms_for
from inbox_triage.grading.texts import TextScore

WRAP_UP_THRESHOLD = 0.8
# Bumped whenever the same actions can earn a different grade: runs and reports record it, and
# grades of different versions are not compared unless asked. 1: keyword facts and stuffing
# against every fact phrasing; 2: stems and close word order, the email's own words and the
# vocabulary fair to use, negation and redaction in policy screening (calibrated against
# hand-written texts); 3: fair to what an agent can see (issue 29): review flags and escalations
# against what the budget allowed, the overflow queue right while the team's queue is full,
# SLA only where it could be met and only by a response that counts, a needless information
# request counts -1 in its component, closure with the owning team, any customer answer is
# news, a ticket handled by trial and error earns part of its credit; 4: one policy screen for
# the engine and the grader that reads secrets asked for and promises made in other words
# (issue 30); 5: the screen's learned half, fitted on the hand-written breaches, look-alikes
# and support leads' sentences, beside its regular expressions (issue 30).
GRADER_VERSION = 5


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
    texts: dict[str, dict[str, object]] = field(default_factory=dict)
    version: int = GRADER_VERSION

    def as_dict(self) -> dict[str, object]:
        return {
            "grader_version": self.version,
            "value": round(self.value, 6),
            "components": {
                c.name: {
                    "score": round(c.score, 6),
                    "weight": round(c.weight, 6),
                    "explanation": c.explanation,
                }
                for c in self.components
            },
            "texts": self.texts,
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
        self._reasons: dict[tuple[str, str], str] = {}

    def keep_reason(self, name: str, ticket_id: str, result: TextScore) -> tuple[float, str]:
        """A text's (score, note), its reason code kept for ``texts``."""
        self._reasons[name, ticket_id] = result.reason
        return result.score, result.note

    def texts(self) -> dict[str, dict[str, object]]:
        """Per free-text component: how many texts are graded and, of those scoring 0, how many
        for each reason ("pasted", "stuffed", "policy", "none" for a text never written)."""
        out: dict[str, dict[str, object]] = {}
        for name in TEXT_COMPONENTS:
            results = self._results.get(name)
            if not results:
                continue
            zeros: dict[str, int] = {}
            for ticket_id, (score, _) in results.items():
                if score == 0.0:
                    reason = self._reasons.get((name, ticket_id), "none") or "no points"
                    zeros[reason] = zeros.get(reason, 0) + 1
            out[name] = {"graded": len(results), "zeros": dict(sorted(zeros.items()))}
        return out

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
                result = discounted(w, TICKET_COMPONENTS[name](self, ticket, w))
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
        good = sum(1 for s in scores if s >= 0.999)
        text = f"{good} of {len(scores)} {EXPLAIN[name]}"
        if name in EXPLAINED:
            ids = [t for t in self._order if t in results]
            notes = ticket_notes(name, {t: results[t] for t in ids})
            if notes:
                text += f" (mean {mean:.2f}; " + "; ".join(notes) + ")"
        return ComponentScore(name, mean, self.weights[name], text)

    def _budgeted(
        self,
        name: str,
        needed: set[str],
        made: set[str],
        correct: set[str],
        noun: str,
        right: str = "made",
    ) -> ComponentScore | None:
        """Flags or escalations against what the budget allowed: the right ones made, up to
        the budget (an agent that spends all of it where policy requires has done all it
        could), times the share of those made that were right."""
        allowed = min(len(needed), self.scenario.settings.escalation_budget)
        if not made and not allowed:
            return None
        work = self.engine.state.work
        earned = sum(CHANGED_DECISION_CREDIT if by_trial(work[t]) else 1.0 for t in correct)
        recall = min(1.0, earned / allowed) if allowed else 1.0
        precision = len(correct) / len(made) if made else 1.0
        budget = "" if allowed == len(needed) else f" (the budget allowed {allowed})"
        return ComponentScore(
            name,
            recall * precision,
            self.weights[name],
            f"{len(correct)} of {len(needed)} required {noun} {right}{budget}; "
            f"{len(made) - len(correct)} other {noun}",
        )

    def _review_flag(self) -> ComponentScore | None:
        work = self.engine.state.work
        needed = {t.id for t in self.scenario.tickets if t.truth.flag_review}
        made = {tid for tid, w in work.items() if w.flagged}
        return self._budgeted("review_flag", needed, made, needed & made, "review flags")

    def _escalation(self) -> ComponentScore | None:
        work = self.engine.state.work
        needed = {t.id for t in self.scenario.tickets if t.truth.escalate_to is not None}
        made = {tid for tid, w in work.items() if w.escalated_to is not None}
        correct = {
            t.id
            for t in self.scenario.tickets
            if t.truth.escalate_to is not None
            and work[t.id].escalated_to == t.truth.escalate_to
            and work[t.id].resolution is None
        }
        return self._budgeted(
            "escalation", needed, made, correct, "escalations", "made right and left open"
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
            elif name == "review_flag":
                part = self._review_flag()
            else:
                continue
            if part is not None:
                parts.append(part)
        return parts

    def _combine(self, parts: list[ComponentScore]) -> tuple[float, float]:
        """The weighted mean (below 0 when needless requests outweigh the rest) and the total
        weight, with wrap_up appended to ``parts`` (the one place the arithmetic is done, for
        ``value`` and ``grade`` alike)."""
        total_weight = sum(p.weight for p in parts)
        base = sum(p.weight * p.score for p in parts) / total_weight if total_weight else 0.0
        if "wrap_up" in self.weights:
            parts.append(self._wrap_up(base))
            total_weight += self.weights["wrap_up"]
        value = sum(p.weight * p.score for p in parts) / total_weight if total_weight else 0.0
        return value, total_weight

    def potential(self) -> float:
        """The weighted mean of the components as it stands (what the dense reward is shaped
        from mid-episode), composed again only when a ticket or the end of the episode
        changed; it can fall below 0."""
        changed = self._refresh()
        finished = self.engine.state.finished
        if changed or self._value is None or finished != self._finished:
            self._finished = finished
            self._value = self._combine(self._parts(explain=False))[0]
        return self._value

    def value(self) -> float:
        """The grade's value alone: the potential held in [0, 1]."""
        return min(1.0, max(0.0, self.potential()))

    def grade(self) -> Grade:
        """The grade with every component's explanation."""
        self._refresh()
        parts = self._parts(explain=True)
        value, total_weight = self._combine(parts)
        value = min(1.0, max(0.0, value))
        normalised = tuple(
            ComponentScore(p.name, p.score, p.weight / total_weight, p.explanation) for p in parts
        )
        return Grade(value, normalised, self.texts())


_UNTOUCHED = (0.0, "untouched")
TEXT_COMPONENTS = ("summary", "reply", "info_request")
# Components whose explanation names the tickets that fell short, and why.
EXPLAINED = ("reply", "summary", "info_request", "response", "resolution")
NOTES_SHOWN = 3


def ticket_notes(name: str, results: dict[str, tuple[float, str]]) -> list[str]:
    """ "E673 summary 0: 4 terms from other emails ('subpoena', ...)" for the tickets that fell
    short, zeros first, a few at most (and how many more)."""
    short = [(score, tid, note) for tid, (score, note) in results.items() if score < 0.999]
    short.sort(key=lambda item: item[0] > 0)  # stable: zeros first, then in ticket order
    notes = [
        f"{tid} {name} {score:.2g}" + (f": {note}" if note else "")
        for score, tid, note in short[:NOTES_SHOWN]
    ]
    if len(short) > NOTES_SHOWN:
        notes.append(f"and {len(short) - NOTES_SHOWN} more")
    return notes


_WRAP_UP_NOT_YET = f"earned by calling finish once progress is at least {WRAP_UP_THRESHOLD}"


@dataclass(frozen=True, slots=True)
class _ScenarioFacts:
    """What grading needs of a scenario that never changes: shared by its sessions."""

    order: tuple[str, ...]
    applies: dict[str, tuple[str, ...]]


def _facts_of(scenario: Scenario) -> _ScenarioFacts:
    applies = {
        name: tuple(t.id for t in scenario.tickets if component_applies(name, t, scenario))
        for name in TICKET_COMPONENTS
    }
    return _ScenarioFacts(tuple(t.id for t in scenario.tickets), applies)


_facts_for = ObjectMemo(_facts_of)
