"""Runs agents on tasks in-process and aggregates their grades."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import mean, pstdev
from typing import Any

from inbox_triage.agents import Agent, make_agent
from inbox_triage.env import InboxTriageEnv
from inbox_triage.evaluation.records import EpisodeRecord
from inbox_triage.observations import ObservationMemory
from inbox_triage.scenarios.sources import is_generated


@dataclass(slots=True)
class Episode:
    """One finished episode: its grade, its rewards and everything needed to replay it."""

    task: str
    agent: str
    seed: int
    grade: float
    components: dict[str, float]
    total_reward: float
    penalties: float
    steps: int
    invalid_actions: int
    rewards: list[float] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    observations: list[str] = field(default_factory=list)

    @property
    def reward_gap(self) -> float:
        """How far the summed rewards are from grade less penalties (the shaping rule: 0)."""
        return abs(sum(self.rewards) - (self.grade - self.penalties))


def run_episode(
    task: str, agent: Agent, seed: int = 0, keep_observations: bool = False, **reset_args: Any
) -> Episode:
    env = InboxTriageEnv()
    obs = env.reset(task=task, seed=seed, **reset_args)
    memory = ObservationMemory()  # the agent sees whole observations, lean or not
    # Only an agent that declares it reads the truth (the oracle) is handed the scenario.
    scenario = env.scenario if getattr(agent, "needs_truth", False) else None
    agent.reset(memory.update(obs.model_dump()), scenario=scenario, seed=seed)
    rewards: list[float] = []
    actions: list[dict[str, Any]] = []
    observations: list[str] = []
    if keep_observations:
        observations.append(obs.model_dump_json())
    while not obs.done:
        action = agent.act(memory.update(obs.model_dump()))
        actions.append(action)
        obs = env.step(action)
        rewards.append(float(obs.reward or 0.0))
        if keep_observations:
            observations.append(obs.model_dump_json())
    grade = env.grade()
    state = env.state
    return Episode(
        task=task,
        agent=agent.name,
        seed=seed,
        grade=grade.value,
        components={c.name: c.score for c in grade.components},
        total_reward=env.total_reward,
        penalties=env.penalties,
        steps=state.step_count,
        invalid_actions=state.invalid_actions,
        rewards=rewards,
        actions=actions,
        observations=observations,
    )


@dataclass(frozen=True, slots=True)
class Summary:
    task: str
    agent: str
    episodes: int
    mean_grade: float
    std_grade: float
    min_grade: float
    max_grade: float
    mean_reward: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "agent": self.agent,
            "episodes": self.episodes,
            "mean_grade": round(self.mean_grade, 6),
            "std_grade": round(self.std_grade, 6),
            "min_grade": round(self.min_grade, 6),
            "max_grade": round(self.max_grade, 6),
            "mean_reward": round(self.mean_reward, 6),
        }


def summarise(episodes: Sequence[Episode | EpisodeRecord]) -> Summary:
    """Mean, spread and reward of one (task, agent)'s episodes, in memory or from a run."""
    grades = [e.grade for e in episodes]
    return Summary(
        task=episodes[0].task,
        agent=episodes[0].agent,
        episodes=len(episodes),
        mean_grade=mean(grades),
        std_grade=pstdev(grades),
        min_grade=min(grades),
        max_grade=max(grades),
        mean_reward=mean(e.total_reward for e in episodes),
    )


def summaries_from_records(records: list[EpisodeRecord]) -> list[Summary]:
    """The per-(task, agent) summary of a run's records, in the order they first appear."""
    groups: dict[tuple[str, str], list[EpisodeRecord]] = {}
    for record in records:
        groups.setdefault((record.task, record.agent), []).append(record)
    return [summarise(group) for group in groups.values()]


def evaluate(
    agents: list[str],
    tasks: list[str],
    episodes: int = 1,
    seed: int = 0,
    split: str | None = None,
    difficulty: str | None = None,
) -> list[Summary]:
    """Mean grade per (task, agent); episode i runs with seed ``seed + i``. ``split`` and
    ``difficulty`` apply to generated tasks (each episode is then a different scenario)."""
    out: list[Summary] = []
    for task in tasks:
        extra: dict[str, Any] = {}
        if is_generated(task):
            extra = {"split": split or "train", "difficulty": difficulty or "medium"}
        for name in agents:
            runs = [run_episode(task, make_agent(name), seed + i, **extra) for i in range(episodes)]
            out.append(summarise(runs))
    return out


def write_json(path: str, summaries: list[Summary]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump([s.as_dict() for s in summaries], fh, indent=2)
        fh.write("\n")
