"""Training on the environment: prompts, rewards and tools for TRL, exports, SFT and GRPO.

``prompts``, ``rewards``, ``tools`` and ``export`` need nothing beyond the environment; the
trainers (``sft``, ``grpo``, ``model``) need the ``train`` extra (``pip install -e ".[train]"``).
Names load on first use, so that ``inbox-triage --help`` does not import the environment.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_LAZY = {
    "decision_messages": "inbox_triage.prompting.decisions",
    "parse_decision": "inbox_triage.prompting.decisions",
    "render_email": "inbox_triage.prompting.decisions",
    "TOOLS": "inbox_triage.prompting.tools",
    "InboxTools": "inbox_triage.prompting.tools",
    "TicketTools": "inbox_triage.prompting.tools",
    "TriageTools": "inbox_triage.prompting.tools",
    "decision_row": "inbox_triage.training.rewards",
    "environment_reward": "inbox_triage.training.rewards",
    "grade_decision": "inbox_triage.training.rewards",
}

if TYPE_CHECKING:
    from inbox_triage.prompting.decisions import (
        decision_messages,
        parse_decision,
        render_email,
    )
    from inbox_triage.prompting.tools import TOOLS, InboxTools, TicketTools, TriageTools
    from inbox_triage.training.rewards import decision_row, environment_reward, grade_decision


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'inbox_triage.training' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "TOOLS",
    "InboxTools",
    "TicketTools",
    "TriageTools",
    "decision_messages",
    "decision_row",
    "environment_reward",
    "grade_decision",
    "parse_decision",
    "render_email",
]
