"""TRL's ``environment_factory`` classes, one per mode, at the path the README and users import
(``from inbox_triage.training.tools import TicketTools, remote``). They live in
``prompting/tools.py``, below the agents, because the ``hf`` agent shows a model the same tool
schemas TRL shows it in training."""

from inbox_triage.prompting.tools import (
    TOOLS,
    InboxTools,
    TicketTools,
    TriageTools,
    remote,
    tool_names,
    tool_schemas,
)

__all__ = [
    "TOOLS",
    "InboxTools",
    "TicketTools",
    "TriageTools",
    "remote",
    "tool_names",
    "tool_schemas",
]
