"""Scenario sources: the fixed, versioned task packs shipped as data files."""

from inbox_triage.scenarios.loader import (
    ScenarioError,
    TaskInfo,
    fixed_task_ids,
    load_org,
    load_policy,
    load_task,
    task_info,
)

__all__ = [
    "ScenarioError",
    "TaskInfo",
    "fixed_task_ids",
    "load_org",
    "load_policy",
    "load_task",
    "task_info",
]
