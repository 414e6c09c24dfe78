"""The seeded scenario generator, its data and its difficulty knobs."""

from inbox_triage.scenarios.generator.config import KNOBS, PRESETS, SPLITS, GenConfig, config_for
from inbox_triage.scenarios.generator.generate import generate

__all__ = ["KNOBS", "PRESETS", "SPLITS", "GenConfig", "config_for", "generate"]
