"""Hand-built episode records for the metrics and report tests."""

from __future__ import annotations

from inbox_triage.evaluation.records import EpisodeRecord, episode_key

_FROM_TASK = object()  # split and difficulty follow the task: set for generated tasks only


def rec(
    grade: float = 1.0,
    *,
    agent: str = "oracle",
    task: str = "inbox/generated",
    mode: str | None = None,
    split: object = _FROM_TASK,
    difficulty: object = _FROM_TASK,
    seed: int = 0,
    trial: int = 0,
    components: dict[str, float] | None = None,
    steps: int = 10,
    invalid_actions: int = 0,
    sla_breaches: int = 0,
    tokens: dict[str, int] | None = None,
    duration_s: float = 1.0,
) -> EpisodeRecord:
    generated = task.endswith("/generated")
    if split is _FROM_TASK:
        split = "test" if generated else None
    if difficulty is _FROM_TASK:
        difficulty = "easy" if generated else None
    return EpisodeRecord(
        key=episode_key(agent, task, split, difficulty, seed, trial),  # type: ignore[arg-type]
        agent=agent,
        task=task,
        mode=mode or task.split("/")[0],
        split=split,  # type: ignore[arg-type]
        difficulty=difficulty,  # type: ignore[arg-type]
        seed=seed,
        trial=trial,
        grade=grade,
        components=components if components is not None else {"routing": grade},
        total_reward=grade,
        penalties=0.0,
        steps=steps,
        invalid_actions=invalid_actions,
        sla_breaches=sla_breaches,
        tokens=tokens,
        duration_s=duration_s,
    )
