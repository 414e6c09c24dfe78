"""One episode, played in-process or over WebSocket into a record: the same record either way."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from inbox_triage.agents import Agent
from inbox_triage.env import InboxTriageEnv
from inbox_triage.evaluation.plan import EpisodeSpec, RunInterrupted
from inbox_triage.evaluation.records import (
    EpisodeRecord,
    Step,
)
from inbox_triage.observations import ObservationMemory

StepHook = Callable[[EpisodeSpec, int, dict[str, Any], dict[str, Any]], None]


def play(
    spec: EpisodeSpec,
    agent: Agent,
    env_url: str | None = None,
    stop: threading.Event | None = None,
    keep_trajectory: bool = True,
    on_step: StepHook | None = None,
    env_factory: Callable[[], InboxTriageEnv] = InboxTriageEnv,
) -> EpisodeRecord:
    """Plays one episode in-process (in an environment ``env_factory`` makes: a server's own,
    for ``/baseline``), or over WebSocket when ``env_url`` is given."""
    started = time.perf_counter()
    with _session(spec, env_url, env_factory) as session:
        observation, truth = session.reset(needs_truth=getattr(agent, "needs_truth", False))
        agent.reset(observation, scenario=truth, seed=spec.agent_seed)
        steps: list[Step] = []
        while not observation.get("done"):
            if stop is not None and stop.is_set():
                raise RunInterrupted
            action = agent.act(observation)
            observation = session.step(action)
            if on_step is not None:
                on_step(spec, len(steps) + 1, action, observation)
            steps.append(
                Step(
                    action=action,
                    reward=round(float(observation.get("reward") or 0.0), 6),
                    error=observation.get("last_action_error"),
                )
            )
        grade, state = session.finish(observation)
    usage = getattr(agent, "usage", None)
    tokens = usage.tokens() if usage is not None else None
    stats = usage.stats() if usage is not None else None
    return EpisodeRecord(
        key=spec.key,
        agent=spec.agent,
        task=spec.task,
        mode=state["mode"],
        split=spec.split,
        difficulty=spec.difficulty,
        seed=spec.seed,
        trial=spec.trial,
        grade=round(grade["value"], 6),
        components={n: round(c["score"], 6) for n, c in grade["components"].items()},
        texts=grade.get("texts") or {},
        total_reward=round(state["total_reward"], 6),
        penalties=round(state["penalties"], 6),
        steps=state["step_count"],
        invalid_actions=state["invalid_actions"],
        sla_breaches=state["sla_breaches"],
        tokens=tokens,
        agent_stats=stats,
        duration_s=round(time.perf_counter() - started, 4),
        trajectory=steps if keep_trajectory else [],
        episode_id=state.get("episode_id") if spec.sealed else None,
    )


class _LocalSession:
    def __init__(self, spec: EpisodeSpec, env_factory: Callable[[], InboxTriageEnv]) -> None:
        self.spec = spec
        self.env = env_factory()
        self.memory = ObservationMemory()

    def reset(self, needs_truth: bool) -> tuple[dict[str, Any], Any]:
        observation = self.memory.update(self.env.reset(**self.spec.reset_args()).model_dump())
        return observation, self.env.scenario if needs_truth else None

    def step(self, action: dict[str, Any]) -> dict[str, Any]:
        return self.memory.update(self.env.step(action).model_dump())

    def finish(self, observation: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        return self.env.grade().as_dict(), self.env.state.model_dump()

    def close(self) -> None:
        self.env.close()


class RemoteSession:
    """One WebSocket session; the truth, for an oracle, is built locally from the same spec."""

    def __init__(self, spec: EpisodeSpec, url: str) -> None:
        from inbox_triage.client import InboxTriageClient

        self.spec = spec
        self.client = InboxTriageClient(base_url=url).sync()
        self.client.connect()

    def reset(self, needs_truth: bool) -> tuple[dict[str, Any], Any]:
        if needs_truth and self.spec.sealed:
            raise ValueError("an agent that reads the truth cannot play a sealed server's episodes")
        result = self.client.reset(**self.spec.reset_args())
        if not needs_truth:
            return self._observation(result), None
        local = InboxTriageEnv()  # only an oracle needs it: built here, never sent
        local.reset(**self.spec.reset_args())
        return self._observation(result), local.scenario

    def step(self, action: dict[str, Any]) -> dict[str, Any]:
        return self._observation(self.client.step(action))

    def finish(self, observation: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        grade = (observation.get("metadata") or {}).get("grade")
        if grade is None:
            raise RuntimeError("the server sent no grade with the last observation")
        return grade, self.client.state().model_dump()

    def close(self) -> None:
        self.client.close()

    @staticmethod
    def _observation(result: Any) -> dict[str, Any]:
        observation = result.observation.model_dump()
        observation["reward"], observation["done"] = result.reward, result.done
        return observation


class _session:  # noqa: N801 - used as a context manager, like a function
    def __init__(
        self, spec: EpisodeSpec, env_url: str | None, env_factory: Callable[[], InboxTriageEnv]
    ) -> None:
        self.inner = RemoteSession(spec, env_url) if env_url else _LocalSession(spec, env_factory)

    def __enter__(self) -> _LocalSession | RemoteSession:
        return self.inner

    def __exit__(self, *exc: object) -> None:
        self.inner.close()
