"""The environment checker: the rules every task must keep, run on demand and by the tests.

For each task (and each generated task in every split, over many seeds): the oracle scores 1.0,
doing nothing scores near 0, random play stays low, the heuristic lands strictly between random
and the oracle, identical runs are identical, and the rewards of every episode sum to its grade
less its penalties.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import mean

from inbox_triage.agents import Agent, make_agent
from inbox_triage.evaluation.runner import Episode, run_episode
from inbox_triage.scenarios import fixed_task_ids
from inbox_triage.scenarios.generator import SPLITS
from inbox_triage.scenarios.sources import generated_task_ids, is_generated


@dataclass(frozen=True, slots=True)
class Rules:
    oracle_min: float = 0.99
    noop_max: float = 0.10
    random_max: float = 0.35
    random_episodes: int = 20
    generated_seeds: int = 12
    reward_tolerance: float = 1e-6


@dataclass(slots=True)
class TaskCheck:
    task: str
    oracle: float
    noop: float
    random_mean: float
    heuristic: float
    deterministic: bool
    max_reward_gap: float
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def _same(a: Episode, b: Episode) -> bool:
    return (a.rewards, a.actions, a.observations, a.grade) == (
        b.rewards,
        b.actions,
        b.observations,
        b.grade,
    )


DIFFICULTIES = ("easy", "medium", "hard")


def _runner(task: str, split: str | None) -> Callable[..., Episode]:
    """Runs episodes of a task; a generated task's seed picks the scenario (and its
    difficulty cycles easy, medium, hard), a fixed task's seed only feeds random agents."""
    generated = is_generated(task)

    def run(agent: Agent, seed: int, keep_observations: bool = False) -> Episode:
        if generated:
            return run_episode(
                task,
                agent,
                seed,
                keep_observations,
                split=split or "train",
                difficulty=DIFFICULTIES[seed % 3],
            )
        return run_episode(task, agent, seed, keep_observations)

    return run


def check_task(
    task: str,
    rules: Rules = Rules(),
    agent_factory: Callable[[str], Agent] = make_agent,
    split: str | None = None,
) -> TaskCheck:
    """Checks one task. A generated task is checked over ``rules.generated_seeds`` scenarios:
    the oracle must score 1.0 on each, the other floors hold on average."""
    run = _runner(task, split)
    seeds = range(rules.generated_seeds) if is_generated(task) else range(1)
    oracles = [run(agent_factory("oracle"), seed) for seed in seeds]
    noops = [run(agent_factory("noop"), seed) for seed in seeds]
    heuristics = [run(agent_factory("heuristic"), seed) for seed in seeds]
    random_seeds = range(max(rules.random_episodes, len(seeds)))
    randoms = [run(agent_factory("random"), seed) for seed in random_seeds]
    heuristic_a = run(agent_factory("heuristic"), 1, keep_observations=True)
    heuristic_b = run(agent_factory("heuristic"), 1, keep_observations=True)
    random_a = run(agent_factory("random"), 7, keep_observations=True)
    random_b = run(agent_factory("random"), 7, keep_observations=True)
    deterministic = _same(heuristic_a, heuristic_b) and _same(random_a, random_b)
    everything = [
        *oracles,
        *noops,
        *heuristics,
        *randoms,
        heuristic_a,
        heuristic_b,
        random_a,
        random_b,
    ]
    gap = max(e.reward_gap for e in everything)
    oracle = min(e.grade for e in oracles)
    noop = mean(e.grade for e in noops)
    heuristic = mean(e.grade for e in heuristics)
    random_mean = mean(e.grade for e in randoms)
    label = f"{task} [{split}]" if split else task
    result = TaskCheck(label, oracle, noop, random_mean, heuristic, deterministic, gap)
    if oracle < rules.oracle_min:
        result.failures.append(f"oracle scored {oracle:.3f} < {rules.oracle_min}")
    if noop > rules.noop_max:
        result.failures.append(f"noop scored {noop:.3f} > {rules.noop_max}")
    if random_mean > rules.random_max:
        result.failures.append(f"random averaged {random_mean:.3f} > {rules.random_max}")
    if not random_mean < heuristic < oracle:
        result.failures.append(
            f"heuristic {heuristic:.3f} is not strictly between random "
            f"{random_mean:.3f} and oracle {oracle:.3f}"
        )
    if not deterministic:
        result.failures.append("two identical runs differed")
    if gap > rules.reward_tolerance:
        result.failures.append(f"rewards differ from grade less penalties by {gap:.2e}")
    return result


def default_targets() -> list[tuple[str, str | None]]:
    """Every fixed task, and each mode's generated task in every split."""
    fixed = [(t, None) for t in fixed_task_ids()]
    return fixed + [(t, split) for t in generated_task_ids() for split in SPLITS]


def check_environment(
    tasks: list[str] | None = None,
    rules: Rules = Rules(),
    agent_factory: Callable[[str], Agent] = make_agent,
    splits: list[str] | None = None,
) -> list[TaskCheck]:
    """Checks the given tasks (a generated one in each of ``splits``, all by default), or
    every fixed task and every generated task in every split."""
    if tasks is None:
        targets = default_targets()
    else:
        targets = [
            (t, split)
            for t in tasks
            for split in ((splits or list(SPLITS)) if is_generated(t) else [None])
        ]
    return [check_task(t, rules, agent_factory, split) for t, split in targets]
