"""The grader measured against people: hand-written summaries and replies with a judgement each.

A calibration set is a folder of JSON files (``tests/data/calibration`` in the repository):
each entry names a generated or fixed-task email (``ref``) and carries texts a person wrote for
it, each with its kind (good, terse, or a kind of bad) and the judgement a careful support lead
gives it. Each text is graded as the environment grades it: the email as the agent saw it,
the customer's answer to an information request where there is one, the scenario's stuffing
index and the org's vocabulary. The targets say how close the grader must come to the people.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from statistics import mean, median
from typing import Any

from inbox_triage.domain import Engine, Scenario, Ticket
from inbox_triage.grading.context import Seen, seen_for
from inbox_triage.grading.replies import grade_reply
from inbox_triage.grading.stuffing import stuffing_terms_for
from inbox_triage.grading.summaries import grade_summary
from inbox_triage.grading.texts import TextScore
from inbox_triage.scenarios.sources import make_scenario

DEFAULT_SET = Path("tests/data/calibration")
FIELDS = ("summary", "reply")
GOOD_MEAN, GOOD_MIN = 0.9, 0.5
TERSE_MEAN = 0.6
BAD_MEAN, BAD_MAX = 0.15, 0.4


class CalibrationError(ValueError):
    """A calibration file that cannot be read as a set."""


@dataclass(frozen=True, slots=True)
class Text:
    ref: tuple[tuple[str, Any], ...]
    field: str
    kind: str
    judgement: str
    why: str
    text: str

    @property
    def ticket_id(self) -> str:
        return str(dict(self.ref)["ticket"])


@dataclass(frozen=True, slots=True)
class Graded:
    text: Text
    score: float
    note: str
    reason: str
    seconds: float


def load_set(folder: Path = DEFAULT_SET) -> list[Text]:
    """Every text of every ``*.json`` file in the folder (``emails.json`` is the snapshot of
    what the writers saw, not texts)."""
    if not folder.is_dir():
        raise CalibrationError(f"no calibration set at {folder}")
    texts: list[Text] = []
    for path in sorted(folder.glob("batch_*.json")):
        try:
            texts.extend(_texts_of(json.loads(path.read_text(encoding="utf-8"))))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise CalibrationError(
                f"{path.name}: not a calibration batch (a list of entries with a ref and texts "
                f"of field, kind, judgement, why and text; {type(exc).__name__})"
            ) from None
    if not texts:
        raise CalibrationError(f"no batch_*.json texts in {folder}")
    return texts


def _texts_of(entries: list[dict[str, Any]]) -> list[Text]:
    out: list[Text] = []
    for entry in entries:
        ref = tuple(sorted(entry["ref"].items()))
        for t in entry["texts"]:
            if t["field"] not in FIELDS:
                raise ValueError(f"field {t['field']!r} is not one of {FIELDS}")
            out.append(Text(ref, t["field"], t["kind"], t["judgement"], t["why"], t["text"]))
    return out


@cache
def scenario_for(ref: tuple[tuple[str, Any], ...]) -> Scenario:
    r = {k: v for k, v in ref if k != "ticket"}
    return make_scenario(r.pop("task"), **r)


@cache
def context_for(ref: tuple[tuple[str, Any], ...]) -> tuple[Ticket, Seen]:
    """The email and what the agent had seen of it when it wrote: for a case that needs
    information, the customer's answer to a request has arrived."""
    scenario = scenario_for(ref)
    ticket = scenario.ticket(str(dict(ref)["ticket"]))
    return ticket, seen_for(ticket, answers(scenario, ticket), scenario.org)


def answers(scenario: Scenario, ticket: Ticket) -> tuple[str, ...]:
    """What the customer writes back to a plain information request."""
    if not ticket.truth.needs_info:
        return ()
    engine = Engine(scenario)
    if ticket.arrives_at:
        engine.advance(ticket.arrives_at)
    engine.request_info(ticket.id, "Could you send us the details we need to act on this?")
    engine.advance((ticket.customer_reply.delay_minutes if ticket.customer_reply else 20) + 1)
    return tuple(m.body for m in engine.work(ticket.id).messages)


def grade_text(t: Text) -> TextScore:
    scenario = scenario_for(t.ref)
    ticket, seen = context_for(t.ref)
    terms = stuffing_terms_for(scenario)
    if t.field == "summary":
        return grade_summary(t.text, ticket, terms, context=seen)
    return grade_reply(t.text, ticket, scenario.policy, terms, context=seen)


def grade_set(texts: Iterable[Text]) -> list[Graded]:
    """Every text graded, with the time its grading took (contexts are built first, so the
    time is the text's own)."""
    results: list[Graded] = []
    for t in texts:
        context_for(t.ref)
        start = time.perf_counter()
        score = grade_text(t)
        elapsed = time.perf_counter() - start
        results.append(Graded(t, score.score, score.note, score.reason, elapsed))
    return results


@dataclass(frozen=True, slots=True)
class KindSummary:
    field: str
    kind: str
    count: int
    mean: float
    low: float
    high: float
    zeros: int

    def failures(self) -> list[str]:
        """How this kind misses its target, if it does."""
        name = f"{self.kind} {self.field}s"
        if self.kind == "good":
            out = []
            if self.mean < GOOD_MEAN:
                out.append(f"{name} average {self.mean:.2f} < {GOOD_MEAN}")
            if self.low < GOOD_MIN:
                out.append(f"a {self.kind} {self.field} scores {self.low:.2f} < {GOOD_MIN}")
            return out
        if self.kind == "terse":
            return (
                [f"{name} average {self.mean:.2f} < {TERSE_MEAN}"] if self.mean < TERSE_MEAN else []
            )
        out = []
        if self.mean > BAD_MEAN:
            out.append(f"{name} average {self.mean:.2f} > {BAD_MEAN}")
        if self.high > BAD_MAX:
            out.append(f"a {self.kind} {self.field} scores {self.high:.2f} > {BAD_MAX}")
        return out


def summarise(results: list[Graded]) -> list[KindSummary]:
    groups: dict[tuple[str, str], list[float]] = {}
    for r in results:
        groups.setdefault((r.text.field, r.text.kind), []).append(r.score)
    order = {"good": 0, "terse": 1}
    return [
        KindSummary(f, k, len(s), mean(s), min(s), max(s), sum(1 for x in s if x == 0))
        for (f, k), s in sorted(
            groups.items(), key=lambda i: (i[0][0], order.get(i[0][1], 2), i[0][1])
        )
    ]


def median_ms(results: list[Graded]) -> float:
    return median(r.seconds for r in results) * 1000


def target_of(s: KindSummary) -> str:
    """The target a kind is held to, as a person reads it."""
    if s.kind == "good":
        return f"mean >= {GOOD_MEAN}, each >= {GOOD_MIN}"
    if s.kind == "terse":
        return f"mean >= {TERSE_MEAN}"
    return f"mean <= {BAD_MEAN}, each <= {BAD_MAX}"


def rows(summaries: list[KindSummary]) -> list[list[str]]:
    """One row per (field, kind): count, mean, lowest, highest, zeros, target, verdict."""
    return [
        [
            s.field,
            s.kind,
            str(s.count),
            f"{s.mean:.2f}",
            f"{s.low:.2f}",
            f"{s.high:.2f}",
            str(s.zeros),
            target_of(s),
            "; ".join(s.failures()) or "ok",
        ]
        for s in summaries
    ]


HEADER = ["field", "kind", "texts", "mean", "lowest", "highest", "zeros", "target", "result"]
