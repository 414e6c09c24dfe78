"""inbox-triage: an OpenEnv environment in which an LLM agent triages a shared support inbox.

The curated public API is listed in ``__all__``; a test locks it.
"""

from importlib.metadata import PackageNotFoundError, version

from inbox_triage.agents import AGENTS, make_agent
from inbox_triage.domain import Scenario
from inbox_triage.env import InboxTriageEnv
from inbox_triage.evaluation import check_environment, evaluate, run_episode
from inbox_triage.grading import ComponentScore, Grade
from inbox_triage.models import TriageAction, TriageObservation, TriageState
from inbox_triage.scenarios import fixed_task_ids, load_task

try:
    __version__ = version("inbox-triage")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0"

__all__ = [
    "AGENTS",
    "ComponentScore",
    "Grade",
    "InboxTriageEnv",
    "Scenario",
    "TriageAction",
    "TriageObservation",
    "TriageState",
    "__version__",
    "check_environment",
    "evaluate",
    "fixed_task_ids",
    "load_task",
    "make_agent",
    "run_episode",
]
