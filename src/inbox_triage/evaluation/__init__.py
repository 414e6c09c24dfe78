"""Evaluation: run agents on tasks, aggregate grades, and check the environment's rules.

Names load on first use, so that a submodule (``evaluation.records``, ``evaluation.backends``)
does not import the environment and OpenEnv through this package (start-up, issue 31).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_LAZY = {
    "Rules": "inbox_triage.evaluation.checker",
    "TaskCheck": "inbox_triage.evaluation.checker",
    "check_environment": "inbox_triage.evaluation.checker",
    "check_task": "inbox_triage.evaluation.checker",
    "Episode": "inbox_triage.evaluation.runner",
    "Summary": "inbox_triage.evaluation.runner",
    "evaluate": "inbox_triage.evaluation.runner",
    "run_episode": "inbox_triage.evaluation.runner",
    "summarise": "inbox_triage.evaluation.runner",
}

if TYPE_CHECKING:
    from inbox_triage.evaluation.checker import Rules, TaskCheck, check_environment, check_task
    from inbox_triage.evaluation.runner import (
        Episode,
        Summary,
        evaluate,
        run_episode,
        summarise,
    )


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'inbox_triage.evaluation' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "Episode",
    "Rules",
    "Summary",
    "TaskCheck",
    "check_environment",
    "check_task",
    "evaluate",
    "run_episode",
    "summarise",
]
