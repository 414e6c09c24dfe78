"""Rollouts for RL libraries: a batch of rows in, one trajectory per row out, here or on Ray.

A row names an episode the way ``env.reset`` takes it (``task``, ``split``, ``difficulty``,
``seed`` and any generator knob); a policy is a callable from an observation dict to an action
dict, or an :class:`~inbox_triage.agents.LLMConfig` for an OpenAI-compatible endpoint. Each
trajectory holds the observations as the policy saw them (whole, lean ones made full), its
actions, the step rewards, the final grade and its components, so that a trainer can
compute returns or advantages and replay any of them::

    from inbox_triage.evaluation.rollout import rollout

    rows = [{"task": "triage/generated", "split": "train", "seed": s} for s in range(8)]
    trajectories = rollout(rows, my_policy)               # or backend="ray"
    batch = [(t.observations[:-1], t.actions, t.rewards) for t in trajectories]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from inbox_triage.agents import Agent, LLMAgent, LLMConfig
from inbox_triage.env import InboxTriageEnv
from inbox_triage.observations import ObservationMemory

Policy = Callable[[dict[str, Any]], dict[str, Any]]
ROLLOUT_BACKENDS = ("local", "ray")


@dataclass(slots=True)
class Trajectory:
    """One episode: ``observations[i]`` is what the policy saw before ``actions[i]``, and the
    last one is the final observation; ``rewards[i]`` is the reward of ``actions[i]``."""

    row: dict[str, Any]
    observations: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    grade: float = 0.0
    components: dict[str, float] = field(default_factory=dict)
    penalties: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class _PolicyAgent:
    """A policy callable seen as an agent."""

    name = "policy"

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def reset(self, observation: dict[str, Any], *, scenario: Any, seed: int) -> None:
        reset = getattr(self.policy, "reset", None)
        if callable(reset):
            reset(observation)

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        return self.policy(observation)


def _agent(policy: Policy | LLMConfig) -> Agent:
    if isinstance(policy, LLMConfig):
        return LLMAgent(policy)
    if not callable(policy):
        raise TypeError("policy must be a callable (observation -> action) or an LLMConfig")
    return _PolicyAgent(policy)  # type: ignore[return-value]


def play_row(row: Mapping[str, Any], policy: Policy | LLMConfig) -> Trajectory:
    """Plays one row's episode in this process."""
    env = InboxTriageEnv()
    try:
        memory = ObservationMemory()
        agent = _agent(policy)
        seed = int(row.get("seed", 0))
        observation = memory.update(env.reset(**dict(row)).model_dump())
        agent.reset(observation, scenario=None, seed=seed)
        trajectory = Trajectory(row=dict(row), observations=[observation])
        while not observation.get("done"):
            action = agent.act(observation)
            observation = memory.update(env.step(action).model_dump())
            trajectory.actions.append(action)
            trajectory.rewards.append(float(observation.get("reward") or 0.0))
            trajectory.observations.append(observation)
        grade = env.grade()
        trajectory.grade = grade.value
        trajectory.components = {c.name: c.score for c in grade.components}
        trajectory.penalties = env.penalties
        return trajectory
    finally:
        env.close()


def _play_rows(rows: list[dict[str, Any]], policy: Policy | LLMConfig) -> list[Trajectory]:
    return [play_row(row, policy) for row in rows]


def rollout(
    rows: Iterable[Mapping[str, Any]],
    policy: Policy | LLMConfig,
    *,
    backend: str = "local",
    address: str | None = None,
    workers: int | None = None,
    rows_per_task: int = 4,
) -> list[Trajectory]:
    """One trajectory per row, in the rows' order. ``backend="ray"`` plays them as Ray tasks
    (on the cluster at ``address``, or a local instance of ``workers`` CPUs): the policy is
    shipped to the workers (cloudpickle), so it must not hold what cannot travel (an open
    socket); an LLMConfig's endpoint is then called from the workers."""
    batch = [dict(row) for row in rows]
    if backend not in ROLLOUT_BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(ROLLOUT_BACKENDS)}")
    if backend == "local":
        return _play_rows(batch, policy)
    import os

    from inbox_triage.evaluation.backends.ray_cluster import TASK_RETRIES, connect, ray_module

    connect(address, workers or (os.cpu_count() or 1))
    ray = ray_module()
    remote = ray.remote(num_cpus=1, max_retries=TASK_RETRIES, retry_exceptions=False)(_play_rows)
    policy_ref = ray.put(policy)
    size = max(1, rows_per_task)
    refs = [remote.remote(batch[i : i + size], policy_ref) for i in range(0, len(batch), size)]
    return [trajectory for part in ray.get(refs) for trajectory in part]
