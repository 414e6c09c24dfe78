"""The pure domain: tickets, truth, org profile, policy, state and the engine. No I/O, no HTTP."""

from inbox_triage.domain.engine import ActionError, Engine
from inbox_triage.domain.models import (
    MODES,
    Customer,
    CustomerLines,
    CustomerReply,
    Mode,
    OrgProfile,
    ReplySpec,
    Scenario,
    Settings,
    ThreadMessage,
    Ticket,
    Truth,
)
from inbox_triage.domain.policy import Policy
from inbox_triage.domain.state import Event, InboxState, Incident, TicketWork, missing_for_close

__all__ = [
    "MODES",
    "ActionError",
    "Customer",
    "CustomerLines",
    "CustomerReply",
    "Engine",
    "Event",
    "InboxState",
    "Incident",
    "Mode",
    "OrgProfile",
    "Policy",
    "ReplySpec",
    "Scenario",
    "Settings",
    "ThreadMessage",
    "Ticket",
    "TicketWork",
    "Truth",
    "missing_for_close",
]
