"""An episode as text turns, framework-free: what the SkyRL and GEM envs share.

A turn is one ``<tool_call>`` (the first, if a model writes several), played as the action it
is: what does not parse is refused by the environment and counted, never guessed. The answer is
the next view, or the refusal with the field and the allowed values; the reward is the step's
dense reward, so an episode's rewards sum to its ``total_reward`` (the grade less penalties).
A cap on turns (``max_turns``) may end an episode before its step budget does (``truncated``).
"""

from __future__ import annotations

import warnings
from typing import Any

from inbox_triage import action_tools as tools
from inbox_triage.env import InboxTriageEnv
from inbox_triage.observations import ObservationMemory
from inbox_triage.prompting.decisions import POLICY_POINTS, routing_guide


class TextEpisode:
    """An episode as text turns, framework-free: what the SkyRL and GEM envs share."""

    CAP_HINT = "set max_turns"

    def _setup(self, reset_kwargs: dict[str, Any], cap: int | None) -> None:
        self.reset_kwargs, self.cap = reset_kwargs, cap
        self.inbox = InboxTriageEnv()
        self.observation: dict[str, Any] = {}
        self.mode = ""
        self.turns = self.max_turns = self.refusals = self._answers_seen = 0
        self.truncated = False
        self._memory = ObservationMemory()  # lean observations made whole

    def _begin(self, **override: Any) -> str:
        """Starts the episode (``override``: its seed, say); returns the first view."""
        reset = self.inbox.reset(**{**self.reset_kwargs, **override})
        self.observation = self._memory.update(reset.model_dump())
        self.mode = str(self.observation["mode"])
        self.turns = self.refusals = self._answers_seen = 0
        self.truncated = False
        steps = int(self.observation.get("max_steps") or 0)
        self.max_turns = min(steps, self.cap) if self.cap is not None else steps
        if self.cap is not None and self.cap < steps:
            cut = f"max_turns={self.cap} cuts inbox-triage episodes short of their {steps}-step"
            warnings.warn(f"{cut} budget ({self.CAP_HINT})", stacklevel=3)
        text = tools.render(self.mode, self.observation, self._answers_seen)
        self._seen()
        return text

    def _opening(self, shown: str) -> str:
        """The first user turn: the routing guide, the policy points, then the first view."""
        guide = routing_guide(self.observation.get("policy"))
        return "\n\n".join(p for p in (guide, POLICY_POINTS, shown) if p)

    def _play(self, action: str) -> tuple[str, float, bool, dict[str, Any]]:
        """Plays the turn's first tool call: (the answer, the step reward, done, metadata);
        refusals and unparseable answers are counted; done at the episode's end or the cap."""
        if not self.observation:
            raise RuntimeError("start the episode (reset) before step()")
        if self.observation.get("done") or self.truncated:
            return "The episode is over.", 0.0, True, self._summary()
        self.turns += 1
        played = tools.parse_tool_call(action)
        self.observation = observation = self._memory.update(self.inbox.step(played).model_dump())
        reward = float(observation.get("reward") or 0.0)
        error = observation.get("last_action_error")
        metadata: dict[str, Any] = {"action_type": played.get("action_type"), "error": error}
        if error:
            self.refusals += 1
            text = "Your call was refused: " + tools.refusal_text(error)
        else:
            text = tools.step_text(self.mode, observation, self._answers_seen)
            self._seen()
        if action.count("<tool_call>") > 1:
            text = "Only your first tool call was played: one per turn.\n\n" + text
        done = bool(observation.get("done"))
        if not done and self.turns >= self.max_turns:
            self.truncated = done = True
        return text, reward, done, {**metadata, **(self._summary() if done else {})}

    def _seen(self) -> None:
        """Ticket mode shows a customer's answers once: remember how many were shown."""
        self._answers_seen = len(self.observation.get("customer_messages") or [])

    def _total(self) -> float:
        metadata = self.observation.get("metadata") or {}
        return float(metadata.get("total_reward", self.inbox.total_reward))

    def _summary(self) -> dict[str, Any]:
        """The episode so far (its end, once done): the grade, the counts, the reward."""
        metadata = self.observation.get("metadata") or {}
        grade = metadata.get("grade") or self.inbox.grade().as_dict()
        return {
            "grade": {k: grade[k] for k in ("value", "components", "grader_version")},
            "steps": self.inbox.state.step_count,
            "refusals": self.refusals,
            "total_reward": self._total(),
            "penalties": float(metadata.get("penalties", self.inbox.penalties)),
            "truncated": self.truncated,
        }
