"""What every mode shares: the action-shape check and the contract a mode fulfils.

A mode is a view over the one engine: which actions it takes (with the seed's field names),
what they do to the engine, when the episode ends, what the agent sees and how the grade is
weighted. It holds no state of its own.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from inbox_triage.domain import ActionError, Engine, Mode, Ticket, TicketWork

# Ticket id -> [revision, view, lean view or None]: an episode's views, kept by the
# environment between steps.
ViewCache = dict[str, list[Any]]
# Ticket id -> how many customer messages it had when its whole view was last sent (lean style).
SentViews = dict[str, int]

# Fields every action may carry whatever its type.
ALWAYS_ALLOWED = frozenset({"action_type", "metadata"})


class ModeView(ABC):
    """One interaction mode over the engine."""

    name: ClassVar[Mode]
    # action_type -> (required fields, optional fields)
    actions: ClassVar[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]]
    default_action: ClassVar[str | None] = None
    weights: ClassVar[dict[str, float]]
    step_cost: ClassVar[float] = 0.0

    @property
    def action_types(self) -> list[str]:
        return list(self.actions)

    def action_type(self, action: Mapping[str, Any]) -> str:
        """Checks the payload's shape and returns its action type (or raises ActionError)."""
        kind = action.get("action_type") or self.default_action
        if kind is None:
            raise ActionError("action_type", "is required", self.actions)
        if kind not in self.actions:
            raise ActionError("action_type", f"is not an action of {self.name} mode", self.actions)
        required, optional = self.actions[kind]
        for field in required:
            value = action.get(field)
            if value is None or (isinstance(value, str) and not value.strip()):
                raise ActionError(field, f"is required for {kind}")
        allowed = set(required) | set(optional) | ALWAYS_ALLOWED
        for field, value in action.items():
            if value is not None and field not in allowed:
                raise ActionError(
                    field,
                    f"is not a field of {kind} in {self.name} mode",
                    [*required, *optional],
                )
        return kind

    def schema(self) -> dict[str, dict[str, list[str]]]:
        """The action shapes, for task listings and prompts."""
        return {
            kind: {"required": list(req), "optional": list(opt)}
            for kind, (req, opt) in self.actions.items()
        }

    @abstractmethod
    def apply(self, engine: Engine, kind: str, action: Mapping[str, Any]) -> str:
        """Performs a checked action; returns neutral feedback. Raises ActionError unchanged."""

    @abstractmethod
    def is_done(self, engine: Engine) -> bool:
        """Whether the mode's own end condition holds (the step budget is checked elsewhere)."""

    @abstractmethod
    def observe(
        self, engine: Engine, views: ViewCache, sent: SentViews | None = None
    ) -> dict[str, Any]:
        """The mode-specific observation fields (``views`` keeps ticket views between steps;
        with ``sent``, lean: a listed ticket already sent whole comes without its texts)."""

    @staticmethod
    def finish(engine: Engine) -> str:
        """Ends the episode at the agent's request, unless more mail is still to come: then the
        clock skips to it and the episode goes on (finishing means the whole shift is done)."""
        if engine.advance_to_next_arrival():
            return "New mail arrived; the episode goes on."
        engine.state.finished = True
        engine.log("finished", None, "agent finished the episode")
        return "Episode finished."

    def after_step(self, engine: Engine) -> None:  # noqa: B027 - a hook, empty by default
        """Called after every accepted action (a mode may skip idle time)."""

    def vocabulary(self, engine: Engine) -> dict[str, Any]:
        """Every value the agent may choose from in this mode."""
        return engine.org.vocabulary()


def ticket_id_of(engine: Engine, action: Mapping[str, Any], field: str) -> str:
    return engine.ticket(action.get(field), field).id


def sender_fields(ticket: Ticket) -> dict[str, str]:
    """Who wrote, as far as the inbox knows before reading: what its records say of the
    sender (``sender_known_as``); generator v2's scenarios showed the sender's role instead
    (``sender_role``, which gives answers away: kept so that v2 plays as published)."""
    customer = ticket.customer
    if customer.known_as is not None:
        return {"sender_known_as": customer.known_as}
    if customer.role is not None:
        return {"sender_role": customer.role}
    return {}


def messages_view(work: TicketWork) -> list[dict[str, Any]]:
    """What the customer wrote during the episode (answers, follow-ups, reopenings)."""
    return [{"minute": m.minute, "kind": m.kind, "body": m.body} for m in work.messages]


def cached_view(
    engine: Engine,
    views: ViewCache,
    ticket: Ticket,
    build: Callable[[Engine, Ticket], dict[str, Any]],
    sent: SentViews | None = None,
    heavy: tuple[str, ...] = (),
    lean: bool = False,
) -> dict[str, Any]:
    """A ticket's view, rebuilt only when the ticket's revision moves (one entry per ticket),
    returned as a copy; nested lists are shared, so observations are read-only.

    With ``sent`` (the lean style), the view is recorded as sent whole, with its number of
    customer messages; with ``lean`` too, a ticket sent whole before with as many customer
    messages as now comes without its ``heavy`` keys."""
    work = engine.work(ticket.id)
    cached = views.get(ticket.id)
    if cached is None or cached[0] != work.revision:
        cached = views[ticket.id] = [work.revision, build(engine, ticket), None]
    if sent is None:
        return dict(cached[1])
    count = len(work.messages)
    if not lean or sent.get(ticket.id) != count:
        sent[ticket.id] = count
        return dict(cached[1])
    if cached[2] is None:
        cached[2] = {k: v for k, v in cached[1].items() if k not in heavy}
    return dict(cached[2])
