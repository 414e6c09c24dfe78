"""Training on the environment: prompts, rewards and tools for TRL, exports, SFT and GRPO.

``prompts``, ``rewards``, ``tools`` and ``export`` need nothing beyond the environment; the
trainers (``sft``, ``grpo``, ``model``) need the ``train`` extra (``pip install -e ".[train]"``).
"""

from inbox_triage.prompting.decisions import decision_messages, parse_decision, render_email
from inbox_triage.prompting.tools import TOOLS, InboxTools, TicketTools, TriageTools
from inbox_triage.training.rewards import decision_row, environment_reward, grade_decision

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
