"""Evaluation: run agents on tasks, aggregate grades, and check the environment's rules."""

from inbox_triage.evaluation.checker import Rules, TaskCheck, check_environment, check_task
from inbox_triage.evaluation.runner import Episode, Summary, evaluate, run_episode, summarise

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
