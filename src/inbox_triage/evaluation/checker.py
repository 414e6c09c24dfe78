"""The environment checker: the rules every task must keep, run on demand and by the tests.

For each task: the oracle scores 1.0, doing nothing scores near 0, random play stays low, the
heuristic lands strictly between random and the oracle, identical runs are identical, and the
rewards of every episode sum to its grade less its penalties.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import mean

from inbox_triage.agents import Agent, make_agent
from inbox_triage.evaluation.runner import Episode, run_episode
from inbox_triage.scenarios import fixed_task_ids


@dataclass(frozen=True, slots=True)
class Rules:
    oracle_min: float = 0.99
    noop_max: float = 0.10
    random_max: float = 0.35
    random_episodes: int = 20
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


def check_task(
    task: str, rules: Rules = Rules(), agent_factory: Callable[[str], Agent] = make_agent
) -> TaskCheck:
    oracle = run_episode(task, agent_factory("oracle"))
    noop = run_episode(task, agent_factory("noop"))
    randoms = [
        run_episode(task, agent_factory("random"), seed) for seed in range(rules.random_episodes)
    ]
    heuristic = run_episode(task, agent_factory("heuristic"), keep_observations=True)
    heuristic_again = run_episode(task, agent_factory("heuristic"), keep_observations=True)
    random_a = run_episode(task, agent_factory("random"), 7, keep_observations=True)
    random_b = run_episode(task, agent_factory("random"), 7, keep_observations=True)
    deterministic = _same(heuristic, heuristic_again) and _same(random_a, random_b)
    everything = [oracle, noop, heuristic, heuristic_again, random_a, random_b, *randoms]
    gap = max(e.reward_gap for e in everything)
    random_mean = mean(e.grade for e in randoms)

    result = TaskCheck(
        task, oracle.grade, noop.grade, random_mean, heuristic.grade, deterministic, gap
    )
    if oracle.grade < rules.oracle_min:
        result.failures.append(f"oracle scored {oracle.grade:.3f} < {rules.oracle_min}")
    if noop.grade > rules.noop_max:
        result.failures.append(f"noop scored {noop.grade:.3f} > {rules.noop_max}")
    if random_mean > rules.random_max:
        result.failures.append(f"random averaged {random_mean:.3f} > {rules.random_max}")
    if not random_mean < heuristic.grade < oracle.grade:
        result.failures.append(
            f"heuristic {heuristic.grade:.3f} is not strictly between random "
            f"{random_mean:.3f} and oracle {oracle.grade:.3f}"
        )
    if not deterministic:
        result.failures.append("two identical runs differed")
    if gap > rules.reward_tolerance:
        result.failures.append(f"rewards differ from grade less penalties by {gap:.2e}")
    return result


def check_environment(
    tasks: list[str] | None = None,
    rules: Rules = Rules(),
    agent_factory: Callable[[str], Agent] = make_agent,
) -> list[TaskCheck]:
    """Checks every task (all fixed tasks by default)."""
    return [check_task(t, rules, agent_factory) for t in (tasks or fixed_task_ids())]
