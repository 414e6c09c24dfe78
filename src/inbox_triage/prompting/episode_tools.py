"""What every mode's TRL tools share: the episode (in-process or against a server), the
rendering of its first observation, refusals raised as ``ValueError`` with the allowed values,
and the reward. The mode classes (``tools.py``) add the actions and how they show the inbox.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from functools import cache
from typing import Any

from inbox_triage.action_tools import refusal_text, step_text
from inbox_triage.env import InboxTriageEnv
from inbox_triage.observations import ObservationMemory
from inbox_triage.prompting.decisions import POLICY_POINTS, routing_guide
from inbox_triage.scenarios.generator import KNOBS
from inbox_triage.scenarios.sources import EPISODE_FIELDS

ENV_URL = "INBOX_TRIAGE_ENV_URL"
# What reset takes from a row: the episode and the generator's knobs (a dataset's other columns,
# such as a row id, are ignored).
RESET_FIELDS = EPISODE_FIELDS | KNOBS


def reset_args(row: Mapping[str, Any]) -> dict[str, Any]:
    """What ``env.reset`` takes for a row: its episode fields and knobs, no prompt or labels."""
    skip = {"mode", "prompt", "completion", "messages", "email_id", "trial"}
    args = {k: v for k, v in row.items() if k not in skip and v is not None}
    if "seed" in args:
        args["seed"] = int(args["seed"])
    return args


@cache
def _warn_unknown(columns: tuple[str, ...]) -> None:
    """Says once per set of columns that they are not the episode's."""
    if columns:
        known = ", ".join(sorted(RESET_FIELDS))
        warnings.warn(
            f"reset ignores dataset column(s) {', '.join(columns)} (it reads: {known})",
            stacklevel=3,
        )


class EpisodeTools:
    """What every mode's tools share: the episode, rendering, refusals and the reward."""

    mode = ""
    env_url: str | None = None

    def __init__(self, env_url: str | None = None, penalised: bool = False) -> None:
        url = env_url or self.env_url or os.environ.get(ENV_URL)
        self.penalised = penalised
        self._client: Any = None
        self._env: InboxTriageEnv | None = None
        if url:
            from inbox_triage.client import InboxTriageClient

            self._client = InboxTriageClient(base_url=url).sync()
            self._client.connect()
        else:
            self._env = InboxTriageEnv()
        self.observation: dict[str, Any] = {}
        self._memory = ObservationMemory()  # lean observations made whole (local play)
        self.calls = 0
        self.refusals = 0
        self.total_reward = 0.0
        self._answers_seen = 0

    # ----------------------------------------------------------------- what TRL calls
    def reset(self, **row: Any) -> str:
        """Starts the row's episode and returns its first observation as text."""
        given = reset_args(row)
        args = {k: v for k, v in given.items() if k in RESET_FIELDS}
        _warn_unknown(tuple(sorted(set(given) - RESET_FIELDS)))
        if "task" not in args and "mode" not in row:
            args["mode"] = self.mode
        elif "task" not in args:
            args["mode"] = row["mode"]
        if self._client is not None:
            result = self._client.reset(**args)
            self.observation = result.observation.model_dump()
        else:
            assert self._env is not None
            self.observation = self._memory.update(self._env.reset(**args).model_dump())
        self.calls = self.refusals = self._answers_seen = 0
        self.total_reward = 0.0
        guide = routing_guide(self.observation.get("policy"))
        return "\n\n".join(p for p in (guide, POLICY_POINTS, self._render()) if p)

    def get_reward(self) -> float:
        """The episode's grade so far (its final grade once it has ended); made with
        ``penalised=True``, the sum of its step rewards (the grade less penalties and step
        costs)."""
        metadata = self.observation.get("metadata") or {}
        if self.penalised:  # the step rewards' sum: the grade less the penalties
            return float(metadata.get("total_reward", self.total_reward))
        grade = metadata.get("grade")
        if grade is not None:
            return float(grade["value"])
        return float(self.observation.get("progress_score") or 0.0)

    # ---------------------------------------------------------------------- internals
    def _act(self, action: dict[str, Any]) -> str:
        self.calls += 1
        if self.observation.get("done"):
            return "The episode has ended: there is nothing more to do."
        if self._client is not None:
            result = self._client.step(action)
            observation = result.observation.model_dump()
            observation["reward"], observation["done"] = result.reward, result.done
        else:
            assert self._env is not None
            observation = self._memory.update(self._env.step(action).model_dump())
        self.observation = observation
        self.total_reward += float(observation.get("reward") or 0.0)
        error = observation.get("last_action_error")
        if error:
            self.refusals += 1
            raise ValueError(refusal_text(error))
        text = step_text(self.mode, observation, self._answers_seen)
        self._answers_seen = len(observation.get("customer_messages") or [])
        return text

    def _render(self) -> str:
        raise NotImplementedError
