"""Replaying a recorded episode: re-simulate its actions from its task and seed, step by step.

A run keeps each episode's actions, rewards and errors, not its observations. The scenario,
seed and actions determine everything else, so a replay rebuilds the inbox as it was at each
step, with the running grade, and checks the rewards it gets against the recorded ones: a
record that does not reproduce (an older engine, a changed pack, a hand-edited file) is
reported as such, with the first step that differs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inbox_triage.env import InboxTriageEnv
from inbox_triage.evaluation.records import EpisodeRecord
from inbox_triage.scenarios import ScenarioError

# Fields an observation repeats every step unchanged: sent once, with the start.
EPISODE_FIELDS = (
    "mode",
    "task_id",
    "title",
    "difficulty",
    "objective",
    "policy",
    "vocabulary",
    "action_schema",
)
REWARD_TOLERANCE = 1e-6
# What a replay repeats of its record (the trajectory it replays is in its steps).
RECORD_FIELDS = {
    "key",
    "agent",
    "task",
    "mode",
    "split",
    "difficulty",
    "seed",
    "trial",
    "grade",
    "components",
    "total_reward",
    "steps",
}


@dataclass(slots=True)
class ReplayStep:
    """One re-simulated step beside what the record says happened."""

    step: int
    action: dict[str, Any]
    reward: float
    recorded_reward: float
    error: dict[str, Any] | None
    recorded_error: dict[str, Any] | None
    observation: dict[str, Any]
    grade: dict[str, Any]

    @property
    def reproduced(self) -> bool:
        same_error = (self.error or {}).get("field") == (self.recorded_error or {}).get("field")
        return abs(self.reward - self.recorded_reward) <= REWARD_TOLERANCE and same_error

    def as_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "action": self.action,
            "reward": self.reward,
            "recorded_reward": self.recorded_reward,
            "error": self.error,
            "recorded_error": self.recorded_error,
            "reproduced": self.reproduced,
            "observation": self.observation,
            "grade": self.grade,
        }


@dataclass(slots=True)
class Replay:
    """A whole re-simulated episode; ``problem`` says why it could not be replayed at all."""

    record: EpisodeRecord
    episode: dict[str, Any] = field(default_factory=dict)
    start: dict[str, Any] = field(default_factory=dict)
    start_grade: dict[str, Any] = field(default_factory=dict)
    steps: list[ReplayStep] = field(default_factory=list)
    final_grade: float | None = None
    problem: str | None = None

    @property
    def first_mismatch(self) -> int | None:
        """The first step whose reward or refusal differs from the record's."""
        return next((s.step for s in self.steps if not s.reproduced), None)

    @property
    def reproduced(self) -> bool:
        if self.problem is not None or self.final_grade is None:
            return False
        same_grade = abs(self.final_grade - self.record.grade) <= REWARD_TOLERANCE
        return self.first_mismatch is None and same_grade

    def as_dict(self) -> dict[str, Any]:
        return {
            "record": self.record.model_dump(include=RECORD_FIELDS),
            "episode": self.episode,
            "start": self.start,
            "start_grade": self.start_grade,
            "steps": [s.as_dict() for s in self.steps],
            "final_grade": self.final_grade,
            "reproduced": self.reproduced,
            "first_mismatch": self.first_mismatch,
            "problem": self.problem,
        }


def _reset_args(record: EpisodeRecord) -> dict[str, Any]:
    args: dict[str, Any] = {"task": record.task, "seed": record.seed, "observation": "full"}
    if record.split is not None:
        args.update(split=record.split, difficulty=record.difficulty)
    return args


def _split_observation(obs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    episode = {k: obs.pop(k) for k in EPISODE_FIELDS if k in obs}
    return episode, obs


def replay_record(
    record: EpisodeRecord, env_factory: Callable[[], InboxTriageEnv] = InboxTriageEnv
) -> Replay:
    """Re-simulates ``record`` in a fresh environment (one ``env_factory`` makes, so that a
    server's packs are playable) and sets each step beside the recorded one."""
    replay = Replay(record=record)
    if not record.trajectory:
        replay.problem = "the run kept no trajectory (it was made with --no-trajectories)"
        return replay
    if record.episode_id is not None:
        replay.problem = "a sealed server's episode: its scenario is the server's secret"
        return replay
    env = env_factory()
    try:
        first = env.reset(**_reset_args(record)).model_dump()
    except (ScenarioError, ValueError) as exc:  # a pack this server does not serve, say
        replay.problem = f"the task cannot be played here ({type(exc).__name__})"
        return replay
    replay.episode, replay.start = _split_observation(first)
    replay.start_grade = env.grade().as_dict()
    for number, recorded in enumerate(record.trajectory, 1):
        if env.done:
            replay.problem = f"the episode ended after step {number - 1}; the record has more"
            break
        obs = env.step(dict(recorded.action)).model_dump()
        _, obs = _split_observation(obs)
        replay.steps.append(
            ReplayStep(
                step=number,
                action=recorded.action,
                reward=round(float(obs.get("reward") or 0.0), 6),
                recorded_reward=recorded.reward,
                error=obs.get("last_action_error"),
                recorded_error=recorded.error,
                observation=obs,
                grade=env.grade().as_dict(),
            )
        )
    replay.final_grade = round(env.grade().value, 6)
    env.close()
    return replay


def first_difference(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]]) -> int | None:
    """The first step (from 1) at which two episodes of one scenario took different actions,
    or one had ended; ``None`` when they are the same throughout. Same scenario and same
    actions give the same everything else, so actions are what to compare."""
    for number, (x, y) in enumerate(zip(a, b, strict=False), 1):
        if x != y:
            return number
    if len(a) != len(b):
        return min(len(a), len(b)) + 1
    return None
