"""The agent contract shared by the built-in agents and the evaluation runner.

Agents see observations as plain dicts (exactly what travels over the wire) and answer with
action dicts. Only the oracle is also handed the scenario, for checks.
"""

from __future__ import annotations

from typing import Any, Protocol

from inbox_triage.domain import Scenario

Observation = dict[str, Any]
ActionDict = dict[str, Any]


class Agent(Protocol):
    name: str

    def reset(self, observation: Observation, *, scenario: Scenario | None, seed: int) -> None:
        """Called with the first observation of each episode."""

    def act(self, observation: Observation) -> ActionDict:
        """The next action for the current observation."""


def compose_reply(first_name: str, points: list[str], closing: str | None = None) -> str:
    """A short, polite reply that states the given points in plain sentences."""
    greeting = f"Hi {first_name}," if first_name else "Hello,"
    body = " ".join(p.rstrip(".") + "." for p in points if p)
    closing = closing or (
        "We will keep you updated on this case as soon as there is more to share with you."
    )
    return (
        f"{greeting}\n\nThank you for writing to us, and sorry for the trouble this has caused. "
        f"{body} {closing}\n\nBest regards,\nThe support team"
    )
