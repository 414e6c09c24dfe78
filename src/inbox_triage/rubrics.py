"""The grade as OpenEnv rubrics (``openenv.core.rubrics``): ``env.rubric`` after a reset.

OpenEnv's tooling and tutorials read an environment's reward through ``env.rubric`` and
``named_rubrics()``. Here the rubric is the grade itself, not a second grader: its value is
``env.grade().value`` and each named child is one component of the mode's weights
(``priority``, ``routing``, ``summary``, ...) scoring what the grade says of it, so the two can
never disagree. Calling it grades the episode as it stands (the action and observation OpenEnv
passes are not needed: the grade reads the engine's state).
"""

from __future__ import annotations

import weakref
from typing import Any, Protocol

from openenv.core.rubrics import Rubric

from inbox_triage.grading import Grade


class Graded(Protocol):
    """What a rubric reads of the environment (``InboxTriageEnv``): its grade now."""

    def grade(self) -> Grade: ...


class ComponentRubric(Rubric):
    """One component of the grade: its score in [0, 1] (0.0 where the episode has nothing
    of that kind to grade)."""

    def __init__(self, env: Graded, name: str) -> None:
        super().__init__()
        self._env = weakref.ref(env)
        self.name = name

    def forward(self, action: Any = None, observation: Any = None) -> float:
        env = self._env()
        if env is None:
            raise RuntimeError("the environment this rubric grades is gone")
        for component in env.grade().components:
            if component.name == self.name:
                return float(component.score)
        return 0.0


class GradeRubric(Rubric):
    """The episode's grade in [0, 1], with one child per component of the mode's weights."""

    def __init__(self, env: Graded, components: list[str]) -> None:
        super().__init__()
        self._env = weakref.ref(env)
        for name in components:
            setattr(self, name, ComponentRubric(env, name))

    def forward(self, action: Any = None, observation: Any = None) -> float:
        env = self._env()
        if env is None:
            raise RuntimeError("the environment this rubric grades is gone")
        return float(env.grade().value)
