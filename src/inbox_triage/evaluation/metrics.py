"""Numbers for comparing runs: bootstrap confidence intervals, pass^k and per-agent summaries.

Everything here is a pure function of episode records, so a report can be rebuilt from the
run folders at any time and two reports of the same runs are identical.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from statistics import fmean, pstdev

import numpy as np

from inbox_triage.evaluation.records import EpisodeRecord

# A scenario: the same (agent, task, split, difficulty, seed) is the same episode repeated.
ScenarioKey = tuple[str, str, str | None, str | None, int]

# Resampled means are computed in chunks of at most this many drawn values, so that a run with
# many episodes does not allocate resamples x episodes integers at once.
_CHUNK_VALUES = 1_000_000


def bootstrap_ci(
    values: Sequence[float], confidence: float = 0.95, resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean: no normality assumption, which matters for
    grades bunched near 0 or 1. Seeded, so a report is the same every time it is built."""
    if len(values) == 0:
        raise ValueError("bootstrap_ci needs at least one value, got none")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    data = np.asarray(values, dtype=float)
    if data.min() == data.max():  # one value, or all equal: no spread to resample
        return float(data[0]), float(data[0])
    rng = np.random.default_rng(seed)
    n = data.size
    chunk = max(1, _CHUNK_VALUES // n)
    means = np.concatenate(
        [
            data[rng.integers(0, n, size=(min(chunk, resamples - start), n))].mean(axis=1)
            for start in range(0, resamples, chunk)
        ]
    )
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return float(low), float(high)


def scenario_key(record: EpisodeRecord) -> ScenarioKey:
    return (record.agent, record.task, record.split, record.difficulty, record.seed)


def _trial_counts(records: Iterable[EpisodeRecord], threshold: float) -> list[tuple[int, int]]:
    """(trials, passing trials) per scenario."""
    groups: dict[ScenarioKey, list[int]] = defaultdict(lambda: [0, 0])
    for record in records:
        group = groups[scenario_key(record)]
        group[0] += 1
        group[1] += record.grade >= threshold
    return [(n, c) for n, c in groups.values()]


def _pass_hat(counts: list[tuple[int, int]], k: int) -> float | None:
    eligible = [math.comb(c, k) / math.comb(n, k) for n, c in counts if n >= k]
    return fmean(eligible) if eligible else None


def pass_hat_k(records: Sequence[EpisodeRecord], k: int, threshold: float) -> float | None:
    """tau-bench's pass^k: the chance that k independent tries of a scenario all pass,
    estimated without bias from n >= k trials as C(c, k) / C(n, k), averaged over scenarios.
    It shows reliability, which a mean grade hides. None when no scenario has k trials."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    return _pass_hat(_trial_counts(records, threshold), k)


def pass_hat_curve(records: Sequence[EpisodeRecord], threshold: float) -> dict[int, float]:
    """pass^k for k = 1 .. the most trials any scenario has. Each k averages over the scenarios
    with at least k trials, so the curve only falls monotonically when all have the same n."""
    counts = _trial_counts(records, threshold)
    most = max((n for n, _ in counts), default=0)
    curve: dict[int, float] = {}
    for k in range(1, most + 1):
        value = _pass_hat(counts, k)
        if value is not None:
            curve[k] = value
    return curve


@dataclass(frozen=True, slots=True)
class AgentSummary:
    """Everything a comparison table shows for one agent in one run."""

    run: str
    agent: str
    episodes: int
    mean_grade: float
    ci_low: float
    ci_high: float
    std: float
    per_mode: dict[str, float]
    per_task: dict[str, float]
    per_component: dict[str, float]
    invalid_action_rate: float
    sla_breaches_per_episode: float
    tokens_per_episode: float | None
    mean_duration_s: float
    pass_hat: dict[int, float]
    threshold: float
    text_zeros: dict[str, float] = field(default_factory=dict)


def _total_tokens(tokens: dict[str, int]) -> int:
    """The ``total`` count when the agent gave one, else prompt plus completion."""
    if "total" in tokens:
        return tokens["total"]
    return tokens.get("prompt", 0) + tokens.get("completion", 0)


def _mean_by(
    records: Sequence[EpisodeRecord], key: Callable[[EpisodeRecord], str]
) -> dict[str, float]:
    groups: dict[str, list[float]] = defaultdict(list)
    for record in records:
        groups[key(record)].append(record.grade)
    return {name: fmean(groups[name]) for name in sorted(groups)}


def text_zero_shares(records: Sequence[EpisodeRecord]) -> dict[str, float]:
    """Per "component: reason" (``summary: stuffed``), the share of that component's graded
    texts that scored 0 for that reason: which shortcut, or which gap, costs an agent most."""
    graded: dict[str, int] = defaultdict(int)
    zeros: dict[tuple[str, str], int] = defaultdict(int)
    for record in records:
        for component, counts in record.texts.items():
            graded[component] += int(counts.get("graded", 0))
            for reason, n in (counts.get("zeros") or {}).items():
                zeros[component, reason] += int(n)
    return {
        f"{component}: {reason}": n / graded[component]
        for (component, reason), n in sorted(zeros.items())
        if graded[component]
    }


def summarise_agent(
    run: str, agent: str, records: Sequence[EpisodeRecord], threshold: float = 0.9
) -> AgentSummary:
    """The summary of one agent's records (all of which must be that agent's)."""
    if not records:
        raise ValueError(f"no episodes for agent {agent!r} in run {run!r}")
    grades = [r.grade for r in records]
    # Trials of one scenario are not independent draws (at temperature 0 they are copies), so
    # the interval resamples scenarios, each by its mean grade.
    by_scenario: dict[ScenarioKey, list[float]] = defaultdict(list)
    for record in records:
        by_scenario[scenario_key(record)].append(record.grade)
    low, high = bootstrap_ci([fmean(g) for g in by_scenario.values()])
    components: dict[str, list[float]] = defaultdict(list)
    for record in records:
        for name, score in record.components.items():
            components[name].append(score)
    steps = sum(r.steps for r in records)
    tokens = [_total_tokens(r.tokens) for r in records if r.tokens is not None]
    return AgentSummary(
        run=run,
        agent=agent,
        episodes=len(records),
        mean_grade=fmean(grades),
        ci_low=low,
        ci_high=high,
        std=pstdev(grades),
        per_mode=_mean_by(records, lambda r: r.mode),
        per_task=_mean_by(records, lambda r: r.task),
        per_component={name: fmean(components[name]) for name in sorted(components)},
        invalid_action_rate=sum(r.invalid_actions for r in records) / steps if steps else 0.0,
        sla_breaches_per_episode=fmean(r.sla_breaches for r in records),
        tokens_per_episode=fmean(tokens) if tokens else None,
        mean_duration_s=fmean(r.duration_s for r in records),
        pass_hat=pass_hat_curve(records, threshold),
        threshold=threshold,
        text_zeros=text_zero_shares(records),
    )


def summarise_runs(
    runs: list[tuple[str, list[EpisodeRecord]]], threshold: float = 0.9
) -> list[AgentSummary]:
    """One summary per (run, agent), in run order then agent name order."""
    out: list[AgentSummary] = []
    for run, records in runs:
        by_agent: dict[str, list[EpisodeRecord]] = defaultdict(list)
        for record in records:
            by_agent[record.agent].append(record)
        out.extend(
            summarise_agent(run, agent, by_agent[agent], threshold) for agent in sorted(by_agent)
        )
    return out
