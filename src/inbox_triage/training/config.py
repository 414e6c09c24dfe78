"""Every setting of ``inbox-triage train sft|grpo``, with CPU-safe defaults, from flags or a
config file (YAML or TOML; flags win).

``mode`` picks the path: ``triage-decision`` (one email, one JSON decision: the fast path) or
``triage``, ``ticket``, ``inbox`` (whole episodes through the tools adapters).
"""

from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

MODES = ("triage-decision", "triage", "ticket", "inbox")


@dataclass(slots=True)
class TrainConfig:
    """Defaults fit a 2-core CPU and SmolLM2-135M; the LoRA is the Email Triage seed's."""

    model: str = ""  # empty: SmolLM2-135M prepared by `inbox-triage train prepare-model`
    out: str = "runs/train"
    mode: str = "triage-decision"
    split: str = "train"
    difficulty: str = "easy"
    examples: int = 200  # SFT demonstrations, or GRPO prompts
    first_seed: int = 1000  # rows use seeds first_seed .. first_seed + examples - 1
    steps: int = 50
    batch: int = 4
    learning_rate: float = 1e-4
    lora: bool = True
    lora_r: int = 4
    lora_alpha: int = 8
    lora_targets: list[str] = field(default_factory=lambda: ["q_proj", "v_proj"])
    max_length: int = 1024  # SFT: prompt + answer tokens
    generations: int = 4  # GRPO: completions per prompt
    completion_length: int = 160  # GRPO: tokens per completion (per turn with tools)
    temperature: float = 1.0
    beta: float = 0.0  # GRPO: KL coefficient (0: no reference model, half the memory)
    tool_iterations: int = 0  # GRPO with tools: 0 means the episode's step budget
    threads: int = 1  # torch threads; 1 is often fastest on a shared 2-core machine
    seed: int = 0
    save_every: int = 25  # steps between checkpoints (for --resume)
    log_every: int = 1

    def merged(self, overrides: dict[str, Any]) -> TrainConfig:
        """This config with the given (non-None) values replaced, checked."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise ValueError(
                f"unknown setting(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})"
            )
        values = {**asdict(self), **{k: v for k, v in overrides.items() if v is not None}}
        config = TrainConfig(**values)
        config.check()
        return config

    def check(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        for name in ("examples", "steps", "batch", "generations", "completion_length", "threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")

    @classmethod
    def from_file(cls, path: Path) -> TrainConfig:
        """A YAML or TOML file of settings (the same names as the flags, with underscores)."""
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text) if path.suffix == ".toml" else yaml.safe_load(text)
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a mapping of settings")
        return cls().merged({k.replace("-", "_"): v for k, v in data.items()})
