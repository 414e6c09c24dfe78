"""Plays generated episodes with two probing behaviours and records, for every ticket, what an
agent could see of it besides the mail's words, beside the truth it should have found.

- ``ask``: asks every ticket for information at once (and every new arrival), then looks: what
  the events, the state and the customers' answers say after a request.
- ``wait``: works the tickets in id order with one fixed decision each and looks at each just
  before deciding it: how long it waited, whether its customer chased, the queue room, the
  budget and the steps left by then.

A third look is the inbox as it stands at reset. Each ticket's row holds all three (prefixed
``reset.``, ``ask.``, ``wait.``) and the prompt the tools render for it at its ``wait`` look with
every message text masked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from inbox_triage.domain import Scenario, Ticket
from inbox_triage.env import InboxTriageEnv
from inbox_triage.evaluation.leaks.features import (
    Features,
    items_of,
    masked_prompt,
    ticket_features,
)
from inbox_triage.observations import ObservationMemory
from inbox_triage.scenarios.generator import generate

DIFFICULTIES = ("easy", "medium", "hard")
# The decision fields each mode's grade turns on (what a classifier tries to predict).
DECISIONS: dict[str, tuple[str, ...]] = {
    "triage": ("priority", "category", "route", "flag_review", "needs_info"),
    "ticket": ("priority", "route", "tags", "needs_info"),
    "inbox": (
        "priority",
        "route",
        "sentiment",
        "template",
        "escalate_to",
        "resolution",
        "needs_info",
    ),
}
# The ticket mode's wait look comes after this many idle steps (its customer may chase).
TICKET_WAIT_STEPS = 12


def labels(mode: str, ticket: Ticket) -> dict[str, str]:
    """The truth of one ticket for each decision field, as class labels."""
    t = ticket.truth
    every = {
        "priority": t.priority,
        "category": t.category,
        "route": t.queue,
        "flag_review": t.flag_review,
        "needs_info": t.needs_info,
        "tags": "|".join(sorted(t.tags)),
        "sentiment": t.sentiment,
        "template": t.template,
        "escalate_to": t.escalate_to,
        "resolution": t.resolution,
    }
    return {name: str(every[name]) for name in DECISIONS[mode]}


@dataclass(slots=True)
class Row:
    """One ticket: what was seen of it, and its truth."""

    mode: str
    difficulty: str
    features: Features = field(default_factory=dict)
    prompt: str = ""
    labels: dict[str, str] = field(default_factory=dict)


class _Episode:
    """An environment with the whole event log and state an agent could read."""

    def __init__(self, scenario: Scenario) -> None:
        self.env = InboxTriageEnv()
        self.memory = ObservationMemory()
        self.events: list[dict[str, Any]] = []
        self.observation = self._take(self.env.reset_scenario(scenario, observation="lean"))

    def _take(self, obs: Any) -> dict[str, Any]:
        raw = obs.model_dump()
        self.events.extend(raw.get("recent_events") or [])
        return self.memory.update(raw)

    def step(self, action: dict[str, Any]) -> dict[str, Any]:
        self.observation = self._take(self.env.step(action))
        return self.observation

    @property
    def done(self) -> bool:
        return bool(self.observation.get("done"))

    def look(self, ticket_id: str) -> Features:
        incidents = self.env.state.incidents  # what GET /state answers
        return ticket_features(self.observation, ticket_id, self.events, incidents)


def _prefixed(prefix: str, features: Features) -> Features:
    return {f"{prefix}.{k}": v for k, v in features.items()}


def _ask(mode: str, ticket_id: str) -> dict[str, Any]:
    field_ = {"triage": "email_id", "inbox": "ticket_id", "ticket": "ticket_id"}[mode]
    return {
        "action_type": "request_info",
        field_: ticket_id,
        "value": "Could you send us the details we need to look into this, please?",
    }


def _decide(mode: str, ticket_id: str, observation: dict[str, Any]) -> dict[str, Any]:
    """One fixed decision, the same for every ticket."""
    vocabulary = observation["vocabulary"]
    if mode == "triage":
        room = observation.get("team_queue_remaining") or {}
        open_queues = [q for q in vocabulary["queues"] if room.get(q, 1) > 0]
        return {
            "email_id": ticket_id,
            "priority": vocabulary["priorities"][0],
            "category": vocabulary["categories"][0],
            "route_to": open_queues[-1],
        }
    if mode == "inbox":
        return {
            "action_type": "classify_ticket",
            "ticket_id": ticket_id,
            "priority": vocabulary["priorities"][0],
        }
    return {"action_type": "noop"}


def _probe_ask(scenario: Scenario, rows: dict[str, Row]) -> None:
    episode = _Episode(scenario)
    for ticket_id in items_of(episode.observation):
        rows[ticket_id].features.update(_prefixed("reset", episode.look(ticket_id)))
    asked: set[str] = set()
    while not episode.done:
        waiting = [t for t in sorted(items_of(episode.observation)) if t not in asked]
        if not waiting:
            break
        asked.add(waiting[0])
        episode.step(_ask(scenario.mode, waiting[0]))
    for ticket_id in items_of(episode.observation):
        rows[ticket_id].features.update(_prefixed("ask", episode.look(ticket_id)))


def _probe_wait(scenario: Scenario, rows: dict[str, Row]) -> None:
    episode = _Episode(scenario)
    mode = scenario.mode
    if mode == "ticket":
        steps = min(TICKET_WAIT_STEPS, int(episode.observation["steps_remaining"]) - 1)
        for _ in range(steps):
            episode.step({"action_type": "noop"})
    decided: set[str] = set()
    while not episode.done:
        waiting = [t for t in sorted(items_of(episode.observation)) if t not in decided]
        if not waiting:
            break
        ticket_id = waiting[0]
        decided.add(ticket_id)
        rows[ticket_id].features.update(_prefixed("wait", episode.look(ticket_id)))
        rows[ticket_id].prompt = masked_prompt(episode.observation, ticket_id)
        if mode == "ticket":
            break
        episode.step(_decide(mode, ticket_id, episode.observation))


def probe(scenario: Scenario) -> list[Row]:
    """Every ticket of a scenario, seen by both probes."""
    rows = {
        t.id: Row(scenario.mode, scenario.difficulty, labels=labels(scenario.mode, t))
        for t in scenario.tickets
    }
    _probe_ask(scenario, rows)
    _probe_wait(scenario, rows)
    return [row for row in rows.values() if row.features]


@cache
def collect(mode: str, split: str, episodes: int, version: int | None = None) -> tuple[Row, ...]:
    """Rows from ``episodes`` generated episodes per difficulty of one split (kept: the audit
    and the no_reading policy's fit read the same train episodes)."""
    rows: list[Row] = []
    for difficulty in DIFFICULTIES:
        for seed in range(episodes):
            scenario = generate(mode, split, difficulty, seed, version=version)  # type: ignore[arg-type]
            rows += probe(scenario)
    return tuple(rows)
