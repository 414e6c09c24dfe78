"""Lean observations and the memory that makes them whole again.

By default an episode's observations are lean: the first (the reset's) carries everything;
each step's leaves out what the agent was already told and cannot have changed: the
vocabulary and objective, events already told (``recent_events`` holds those since the last
observation), and, in the inbox and ticket lists, the texts (bodies, threads,
customer details, internal notes, customer messages) of mail already handled and sent whole,
unless the customer wrote since. Mail still to handle comes whole every step, and so does the
current email (which the inbox list then shows as a header), so an agent that keeps nothing
still has what it needs to act; every field the seeds document stays where it was.
``reset(observation="full")`` sends today's full observation every step instead.

:class:`ObservationMemory` rebuilds the full observation from the lean ones, exactly as the
full style would have sent it (key order included, so prompts rendered from it are the same).
The built-in drivers (the evaluation runner, the typed client, the training tools) use it, so
agents always see full observations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inbox_triage.models import TriageObservation

OBSERVATION_STYLES = ("lean", "full")
DEFAULT_STYLE = "lean"
# "dense": a reward every step; "final": every step's reward withheld until the episode ends,
# when the last step carries their sum (as a held-out evaluation needs: nothing mid-episode
# scores an action, not the progress, the penalties or the grader).
REWARD_MODES = ("dense", "final")
DEFAULT_REWARD_MODE = "dense"

# How many of the latest events an observation shows (lean: of those since the last one).
RECENT_EVENTS = 8
# Fields the full style repeats every step and the lean one sends only on reset.
STATIC_FIELDS = ("vocabulary", "objective")
# Lists of mail, and the key that names an item (what a lean item leaves out is the mode's
# business: ``modes/triage.py`` and ``modes/inbox.py``).
ITEM_LISTS = {"inbox": "email_id", "tickets": "ticket_id"}


class ObservationMemory:
    """Turns an episode's lean observations (dicts) back into full ones; a no-op on full ones.

    A reset observation (it carries the policy) starts a new episode's memory.
    """

    def __init__(self) -> None:
        self._static: dict[str, Any] = {}
        self._items: dict[str, dict[str, dict[str, Any]]] = {}
        self._events: list[dict[str, Any]] = []

    def update(self, observation: dict[str, Any]) -> dict[str, Any]:
        """The full observation for this one (a new dict; nested values are shared)."""
        if observation.get("policy") is not None:
            self._static, self._items, self._events = {}, {}, []
        out = dict(observation)
        if out.get("vocabulary") is not None:  # a full observation: nothing to fill in
            self._static = {name: out.get(name) for name in STATIC_FIELDS}
            self._events = list(out.get("recent_events") or [])
        elif self._static:
            out.update(self._static)
            self._events = [*self._events, *(out.get("recent_events") or [])][-RECENT_EVENTS:]
            out["recent_events"] = self._events
        current = out.get("current_email")
        if current:  # the inbox may list it as a header: its whole view is this one
            known = self._items.setdefault("inbox", {})
            ident = current.get("email_id")
            known[ident] = {**known[ident], **current} if ident in known else current
        for name, key in ITEM_LISTS.items():
            items = out.get(name)
            if not items:
                continue
            known = self._items.setdefault(name, {})
            merged = []
            for item in items:
                ident = item.get(key)
                whole = {**known[ident], **item} if ident in known else item
                known[ident] = whole
                merged.append(whole)
            out[name] = merged
        return out


# Immutable defaults only (None and plain values): a shared list or dict would leak between
# observations. Fields with mutable defaults are always given by _observe.
_OBSERVATION_DEFAULTS: dict[str, Any] = {
    name: info.default
    for name, info in TriageObservation.model_fields.items()
    if info.default_factory is None
}


_FIELD_NAMES = frozenset(TriageObservation.model_fields)
_new = object.__new__
_set = object.__setattr__


def built_observation(fields: dict[str, Any]) -> TriageObservation:
    """An observation from its fields (the others at their defaults), built from our own typed
    state: what ``model_construct`` does, less its per-field work (validating again would only
    cost time)."""
    observation = _new(TriageObservation)
    _set(observation, "__dict__", {**_OBSERVATION_DEFAULTS, **fields})
    _set(observation, "__pydantic_fields_set__", set(_FIELD_NAMES))
    _set(observation, "__pydantic_extra__", None)
    _set(observation, "__pydantic_private__", None)
    return observation


def describe_error(error: Mapping[str, Any]) -> str:
    """A refusal as one line: the field, why, and the allowed values."""
    text = f"{error['field']}: {error['message']}"
    if error.get("allowed") is not None:
        text += f" (allowed: {', '.join(map(str, error['allowed']))})"
    return text
