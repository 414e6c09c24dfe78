"""inbox-triage: an OpenEnv environment in which an LLM agent triages a shared support inbox.

The curated public API is listed in ``__all__``; a test locks it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from inbox_triage._fast_openenv import install as _defer_gradio
from inbox_triage.version import __version__

_defer_gradio()  # OpenEnv's web interface (Gradio, seconds) loads only when used

# Imported on first use, so that `import inbox_triage.domain` stays free of OpenEnv and servers.
_LAZY = {
    "AGENTS": "inbox_triage.agents",
    "make_agent": "inbox_triage.agents",
    "Scenario": "inbox_triage.domain",
    "InboxTriageEnv": "inbox_triage.env",
    "InboxTriageClient": "inbox_triage.client",
    "check_environment": "inbox_triage.evaluation",
    "evaluate": "inbox_triage.evaluation",
    "run_episode": "inbox_triage.evaluation",
    "ComponentScore": "inbox_triage.grading",
    "Grade": "inbox_triage.grading",
    "TriageAction": "inbox_triage.models",
    "TriageObservation": "inbox_triage.models",
    "TriageState": "inbox_triage.models",
    "fixed_task_ids": "inbox_triage.scenarios",
    "generate": "inbox_triage.scenarios.generator",
    "Curriculum": "inbox_triage.scenarios.curriculum",
    "load_task": "inbox_triage.scenarios",
    # Not public API (not in __all__): verifiers' `load_environment("inbox-triage")` imports
    # the module `inbox_triage` and reads this name (needs the `verifiers` extra).
    "load_environment": "inbox_triage.integrations.verifiers",
}

if TYPE_CHECKING:
    from inbox_triage.agents import AGENTS, make_agent
    from inbox_triage.client import InboxTriageClient
    from inbox_triage.domain import Scenario
    from inbox_triage.env import InboxTriageEnv
    from inbox_triage.evaluation import check_environment, evaluate, run_episode
    from inbox_triage.grading import ComponentScore, Grade
    from inbox_triage.models import TriageAction, TriageObservation, TriageState
    from inbox_triage.scenarios import fixed_task_ids, load_task
    from inbox_triage.scenarios.curriculum import Curriculum
    from inbox_triage.scenarios.generator import generate


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'inbox_triage' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "AGENTS",
    "ComponentScore",
    "Curriculum",
    "Grade",
    "InboxTriageClient",
    "InboxTriageEnv",
    "Scenario",
    "TriageAction",
    "TriageObservation",
    "TriageState",
    "__version__",
    "check_environment",
    "evaluate",
    "fixed_task_ids",
    "generate",
    "load_task",
    "make_agent",
    "run_episode",
]
