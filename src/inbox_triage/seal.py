"""Sealed episodes, for benchmarks and held-out leaderboards (``inbox-triage serve --sealed``).

On a sealed server a client cannot choose or repeat an episode: every reset draws its scenario
from the server's secret key and an opaque episode id it hands out, so scratch sessions learn
nothing about anyone else's episode, and nothing shown (the title, the state) names the seed.
It plays the newest generator's tasks on the test split at the preset difficulties; fixed
tasks and packs (which repeat their tickets) and older generators are not played. By default
a sealed server also withholds the step rewards until the end (``reward_mode: final``). A
secret seed keeps an episode from being replayed, not its answers from a model that has
learned the generator's own test-split phrasings: hold those out of training.

The key comes from ``INBOX_TRIAGE_SEAL_KEY`` (so that an operator can re-create an episode
from its id for an audit, with :meth:`Seal.seed_for`), or is drawn at start and never shown.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Collection
from dataclasses import dataclass, field

from inbox_triage.domain import Scenario
from inbox_triage.observations import REWARD_MODES
from inbox_triage.scenarios.generator.data import LATEST
from inbox_triage.scenarios.loader import ScenarioError
from inbox_triage.scenarios.sources import (
    generated_task_ids,
    generator_version,
    is_generated,
    resolve_task_id,
)

KEY_VARIABLE = "INBOX_TRIAGE_SEAL_KEY"
# The split a sealed server plays: held out from training.
SEALED_SPLIT = "test"
MIN_KEY_CHARS = 16


@dataclass(frozen=True, slots=True)
class Seal:
    """A server's secret: what draws its episodes."""

    key: bytes = field(repr=False)
    reward_mode: str = "final"

    def __post_init__(self) -> None:
        if self.reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {', '.join(REWARD_MODES)}")

    @classmethod
    def from_environment(cls, reward_mode: str = "final") -> Seal:
        """The key in ``INBOX_TRIAGE_SEAL_KEY`` (at least 16 characters), else a fresh one."""
        given = os.environ.get(KEY_VARIABLE)
        if given is not None and len(given) < MIN_KEY_CHARS:
            raise ValueError(f"{KEY_VARIABLE} must be at least {MIN_KEY_CHARS} characters")
        key = given.encode() if given else secrets.token_bytes(32)
        return cls(key, reward_mode)

    def seed_for(self, episode_id: str) -> int:
        """The generator seed an episode id stands for (the operator's to know, nobody else's)."""
        digest = hmac.new(self.key, episode_id.encode(), hashlib.sha256).digest()
        return int.from_bytes(digest[:8], "big") >> 1

    def new_episode(self) -> tuple[str, int]:
        """An opaque episode id and the seed it stands for."""
        episode_id = "sealed-" + secrets.token_hex(12)
        return episode_id, self.seed_for(episode_id)

    def check(
        self,
        task: str | None,
        mode: str | None,
        seed: object,
        episode_id: object,
        reward_mode: str | None,
        split: object = None,
        knobs: Collection[str] = (),
    ) -> str:
        """Refuses what a sealed reset may not choose: a seed, an episode id, a task other
        than the newest generator's (a fixed task or a pack repeats its tickets, and an older
        generator gives answers away), another split than test, a knob; the reward mode the
        episode plays."""
        task_id = resolve_task_id(task, mode)
        if not is_generated(task_id) or generator_version(task_id) not in (None, LATEST):
            raise ScenarioError(
                f"task {task_id} is not played here: a sealed server plays the newest "
                "generator's tasks, whose episodes never repeat (a fixed task or a pack repeats "
                "its tickets)",
                "task",
                generated_task_ids(),
            )
        for name, value in (("seed", seed), ("episode_id", episode_id)):
            if value is not None:
                raise ScenarioError(f"{name} is drawn by this sealed server: leave it out", name)
        if split is not None and split != SEALED_SPLIT:
            raise ScenarioError(
                f"split is {SEALED_SPLIT} on a sealed server", "split", [SEALED_SPLIT]
            )
        if knobs:
            first = sorted(knobs)[0]
            raise ScenarioError(
                f"{first} is not set on a sealed server: it plays the presets", first
            )
        if reward_mode is not None and reward_mode != self.reward_mode:
            raise ScenarioError(
                "reward_mode is set by this sealed server", "reward_mode", [self.reward_mode]
            )
        return self.reward_mode

    @staticmethod
    def hide(scenario: Scenario) -> Scenario:
        """The scenario as a sealed episode shows it: its title and seed name no seed."""
        title = re.sub(r",? seed \d+", "", scenario.title)
        return scenario.model_copy(update={"title": title, "seed": None})
