"""Does anything an agent sees, besides the mail itself, give the answers away?

``inbox-triage check --leaks`` runs both halves for every mode:

- the audit (``audit.py``): classifiers on everything but the message texts, fit on train
  episodes and scored on test, beside classifiers that see only what a real inbox knows before
  reading (the sender's tier, whether the sender is in the records);
- the ``no_reading`` policy (``no_reading.py``): the best of those classifiers playing whole
  episodes with stock texts, per difficulty on the test split, against its ceiling and the
  heuristic that reads.

Needs scikit-learn (the ``learned`` or ``train`` extra).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from statistics import mean

from inbox_triage.evaluation.leaks.audit import (
    FULL,
    MAX_GAP,
    SMALL,
    AuditSize,
    FieldAudit,
    audit_mode,
)
from inbox_triage.evaluation.leaks.probe import DIFFICULTIES

NO_READING_CEILING = 0.30
# Episodes per mode and difficulty that the no_reading policy and the heuristic play on test.
POLICY_EPISODES = {"full": 100, "small": 20}
SIZES = {"full": FULL, "small": SMALL}


@dataclass(frozen=True, slots=True)
class PolicyCell:
    """The no_reading policy beside the heuristic on one mode and difficulty."""

    mode: str
    difficulty: str
    no_reading: float
    heuristic: float

    @property
    def ok(self) -> bool:
        return self.no_reading <= NO_READING_CEILING and self.no_reading < self.heuristic


@dataclass(frozen=True, slots=True)
class LeakReport:
    audits: list[FieldAudit]
    cells: list[PolicyCell]

    @property
    def ok(self) -> bool:
        return all(a.ok for a in self.audits) and all(c.ok for c in self.cells)


def policy_cells(mode: str, episodes: int, fit: int | None = None) -> list[PolicyCell]:
    """The no_reading policy (fit on ``fit`` train episodes per difficulty) and the heuristic
    on the same test-split episodes."""
    from inbox_triage.agents import make_agent
    from inbox_triage.evaluation.leaks.no_reading import NoReadingAgent
    from inbox_triage.evaluation.runner import run_episode

    cells = []
    for difficulty in DIFFICULTIES:
        grades: dict[str, list[float]] = {"no_reading": [], "heuristic": []}
        for seed in range(episodes):
            for name in grades:
                agent = NoReadingAgent(episodes=fit) if name == "no_reading" else make_agent(name)
                episode = run_episode(
                    f"{mode}/generated", agent, seed, split="test", difficulty=difficulty
                )
                grades[name].append(episode.grade)
        cells.append(
            PolicyCell(mode, difficulty, mean(grades["no_reading"]), mean(grades["heuristic"]))
        )
    return cells


def check_leaks(
    modes: tuple[str, ...] = ("triage", "ticket", "inbox"),
    size: str = "full",
    progress: Callable[[str], None] | None = None,
) -> LeakReport:
    """The audit and the no_reading policy for every mode, at ``size`` (full or small)."""
    say = progress or (lambda _: None)
    audits: list[FieldAudit] = []
    cells: list[PolicyCell] = []
    for mode in modes:
        say(f"{mode}: probing and fitting the audit's classifiers")
        audits += audit_mode(mode, SIZES[size])
        say(f"{mode}: the no_reading policy and the heuristic on test episodes")
        cells += policy_cells(mode, POLICY_EPISODES[size], SIZES[size].train[mode])
    return LeakReport(audits, cells)


__all__ = [
    "FULL",
    "MAX_GAP",
    "NO_READING_CEILING",
    "SIZES",
    "SMALL",
    "AuditSize",
    "FieldAudit",
    "LeakReport",
    "PolicyCell",
    "check_leaks",
]
