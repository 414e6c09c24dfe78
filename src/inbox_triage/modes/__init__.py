"""The three interaction modes, each a view over the one engine."""

from inbox_triage.modes.base import ModeView
from inbox_triage.modes.inbox import InboxMode
from inbox_triage.modes.ticket import TicketMode
from inbox_triage.modes.triage import TriageMode

MODE_VIEWS: dict[str, ModeView] = {m.name: m for m in (TriageMode(), TicketMode(), InboxMode())}

__all__ = ["MODE_VIEWS", "InboxMode", "ModeView", "TicketMode", "TriageMode"]
