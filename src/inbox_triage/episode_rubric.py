"""``env.rubric``, made on first use: OpenEnv's rubrics package imports its LLM judge and with
it ``openai`` (0.5 s), which ``import inbox_triage.env`` should not pay."""

from __future__ import annotations

from typing import Any


class EpisodeRubric:
    """A descriptor: the episode's grade as OpenEnv's rubric (``rubrics.GradeRubric``), one
    named child per component of the mode's weights, built after a reset when first read."""

    def __get__(self, env: Any, owner: type | None = None) -> Any:
        if env is None:
            return self
        if env.__dict__.get("_rubric") is None and getattr(env, "_mode", None) is not None:
            from inbox_triage.rubrics import GradeRubric

            env._rubric = GradeRubric(env, list(env._mode.weights))
        return env.__dict__.get("_rubric")

    def __set__(self, env: Any, value: Any) -> None:
        env._rubric = value
