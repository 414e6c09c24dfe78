"""The generator's knobs: splits, difficulty presets and the checked configuration of one
episode."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from inbox_triage.scenarios.loader import ScenarioError

SPLITS = ("train", "validation", "test")
# Position of each split's share in a list cut by index mod 3, and its family indexes.
SPLIT_INDEX = {"test": 0, "validation": 1, "train": 2}
MAX_SIZE = 200
MINUTES_PER_STEP = {"triage": 10, "ticket": 5, "inbox": 5}


@dataclass(frozen=True, slots=True)
class GenConfig:
    """Difficulty knobs. Rates are probabilities in [0, 1]."""

    size: int = 10
    ambiguity: float = 0.15
    adversarial_rate: float = 0.1
    sla_tightness: float = 0.5
    capacity_pressure: float = 0.5
    arrival_rate: float = 0.2
    texture_rate: float = 0.3
    duplicate_rate: float = 0.05

    def __post_init__(self) -> None:
        size = self.size
        if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_SIZE:
            raise ScenarioError(
                f"size must be a whole number from 1 to {MAX_SIZE}, not {size!r}", "size"
            )
        for f in fields(self):
            if f.name != "size":
                value = getattr(self, f.name)
                ok = isinstance(value, int | float) and not isinstance(value, bool)
                if not ok or not 0.0 <= value <= 1.0:
                    raise ScenarioError(
                        f"{f.name} must be a number from 0 to 1, not {value!r}", f.name
                    )
                object.__setattr__(self, f.name, float(value))

    def with_overrides(self, **overrides: Any) -> GenConfig:
        known = {f.name for f in fields(self)}
        unknown = set(overrides) - known
        if unknown:
            raise ScenarioError(
                f"unknown difficulty knob(s) {sorted(unknown)} (known: {', '.join(sorted(known))})"
            )
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})


# Generator v1 and v2's presets: the harder, the more ambiguous and adversarial mail, so that
# the difficulty alone tells much of the answer (half of a hard inbox's customers were urgent).
PRESETS_V1: dict[str, GenConfig] = {
    "medium": GenConfig(),
    "easy": GenConfig(
        size=5,
        ambiguity=0.0,
        adversarial_rate=0.0,
        sla_tightness=0.2,
        capacity_pressure=0.0,
        arrival_rate=0.0,
        texture_rate=0.15,
        duplicate_rate=0.0,
    ),
    "hard": GenConfig(
        size=16,
        ambiguity=0.3,
        adversarial_rate=0.25,
        sla_tightness=0.85,
        capacity_pressure=0.9,
        arrival_rate=0.4,
        texture_rate=0.45,
        duplicate_rate=0.1,
    ),
}
# From generator v3 on, every difficulty draws from the same mix of mail: difficulty is volume,
# pace, time and capacity pressure, noise and duplicates, never what the mail is about.
SAME_MIX = {"ambiguity": 0.15, "adversarial_rate": 0.12}
PRESETS: dict[str, GenConfig] = {
    name: replace(config, **SAME_MIX) for name, config in PRESETS_V1.items()
}
PRESETS_BY_VERSION = {1: PRESETS_V1, 2: PRESETS_V1, 3: PRESETS, 4: PRESETS}

# Inbox-mode episodes take several actions per ticket, so their presets hold fewer tickets.
INBOX_SIZES = {"easy": 3, "medium": 5, "hard": 8}

OBJECTIVES = {
    "triage": "Triage each email: priority, category, route_to, a summary in your own words, "
    "flag_review where policy requires, and a reply where one is due. Ask the sender for "
    "information (request_info) when you cannot decide without it. New mail may arrive.",
    "ticket": "Work this ticket with the tools: priority, owning team, every tag that applies, "
    "the evidence the team needs (the customer answers), a reply, then close it.",
    "inbox": "Work the queue: classify each ticket, respond with the right template, escalate "
    "what a specialist must own, resolve only what you can, ask for information when needed, "
    "and call finish when the whole shift is done. New tickets may arrive.",
}


def config_for(mode: str, difficulty: str, version: int = 3, **overrides: Any) -> GenConfig:
    """One episode's knobs: the generator version's preset for the difficulty, with
    overrides."""
    presets = PRESETS_BY_VERSION[version]
    if difficulty not in presets:
        raise ScenarioError(
            f"difficulty {difficulty!r} is not one of {', '.join(presets)}",
            "difficulty",
            list(presets),
        )
    config = presets[difficulty]
    if mode == "inbox":
        config = replace(config, size=INBOX_SIZES[difficulty])
    if mode == "ticket":
        config = replace(config, size=1)
    config = config.with_overrides(**overrides)
    if mode == "ticket" and config.size != 1:
        raise ScenarioError("ticket mode episodes hold exactly one ticket (size must be 1)")
    return config


# The knobs a reset may set (``size=40``): every field of GenConfig.
KNOBS = frozenset(f.name for f in fields(GenConfig))
