"""What a run is made of: its configuration and the spec of each episode, which the runner and
every backend share (the run plan is below both)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inbox_triage.agents import Agent
from inbox_triage.evaluation.records import episode_key
from inbox_triage.scenarios.sources import is_generated

AgentFactory = Callable[[str], Agent]


class RunInterrupted(Exception):
    """Raised inside an episode when the run is stopping; the episode is not recorded."""


class RunMismatch(ValueError):
    """``--resume`` was asked for a folder made with a different configuration."""


@dataclass(frozen=True, slots=True)
class EpisodeSpec:
    agent: str
    task: str
    split: str | None
    difficulty: str | None
    seed: int
    trial: int
    # Played on a sealed server: the server draws the episode; ``seed`` only numbers it.
    sealed: bool = False

    @property
    def key(self) -> str:
        return episode_key(
            self.agent, self.task, self.split, self.difficulty, self.seed, self.trial
        )

    @property
    def agent_seed(self) -> int:
        """Trial 0 plays with the scenario's seed; repeats get their own, so that a sampling
        agent (an LLM at temperature > 0, random) can answer differently."""
        return self.seed if self.trial == 0 else self.seed * 1009 + self.trial

    def reset_args(self) -> dict[str, Any]:
        """What the reset sends: a sealed server is told only the task and difficulty (it
        draws the episode and plays the test split)."""
        if self.sealed:
            return {"task": self.task, "difficulty": self.difficulty}
        args: dict[str, Any] = {"task": self.task, "seed": self.seed}
        if self.split is not None:
            args.update(split=self.split, difficulty=self.difficulty)
        return args


@dataclass(slots=True)
class RunConfig:
    """What to run. Episode i of a task uses seed ``seed + i``; ``trials`` repeats each.
    ``backend`` says where episodes play (``evaluation/backends``); it never changes a record."""

    agents: list[str]
    tasks: list[str]
    episodes: int = 5
    trials: int = 1
    seed: int = 0
    split: str = "train"
    difficulty: str = "medium"
    env_url: str | None = None
    concurrency: int = 1
    keep_trajectory: bool = True
    agent_settings: dict[str, Any] = field(default_factory=dict)
    backend: str = "threads"  # or "processes" (workers local processes) or "ray"
    workers: int = 1
    address: str | None = None  # the Ray cluster's, for backend "ray"
    sealed: bool = False  # env_url is a sealed server (it draws every episode)

    def plan(self) -> list[EpisodeSpec]:
        """Every episode once (an agent or task named twice is played once)."""
        specs = []
        for task in dict.fromkeys(self.tasks):
            generated = is_generated(task)
            for agent in dict.fromkeys(self.agents):
                for i in range(self.episodes):
                    for trial in range(self.trials):
                        specs.append(
                            EpisodeSpec(
                                agent=agent,
                                task=task,
                                split=self.split if generated else None,
                                difficulty=self.difficulty if generated else None,
                                seed=self.seed + i,
                                trial=trial,
                                sealed=self.sealed,
                            )
                        )
        return specs

    def identity(self) -> dict[str, Any]:
        """What must match for ``--resume`` to continue a run (concurrency, backend and
        workers may change)."""
        return {
            "agents": self.agents,
            "tasks": self.tasks,
            "episodes": self.episodes,
            "trials": self.trials,
            "seed": self.seed,
            "split": self.split,
            "difficulty": self.difficulty,
            "agent_settings": self.agent_settings,
        }
