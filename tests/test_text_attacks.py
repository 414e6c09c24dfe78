"""The free-text grader pays (almost) nothing for texts that are not true, specific and within
policy: hand-written attacks (tests/text_attacks.py) over at least 100 emails per mode of the
test split, difficulties and seeds mixed. The reference texts on the same emails must still
score high, so a grader that pays nothing for anything fails too.

Figures: python benchmarks/bench_text_attacks.py
"""

from __future__ import annotations

import statistics
from functools import cache

import pytest
from text_attacks import (
    ATTACKS,
    KINDS_BY_MODE,
    MODES,
    attack_scores,
    attacks_for,
    reference_scores,
    sample_emails,
)

EMAILS = 100  # per mode, and at least this many due of each kind the mode grades
MAX_MEAN = 0.15
MAX_SHARE_ABOVE = 0.05
HIGH = 0.4
MIN_REFERENCE_MEAN = 0.9
MIN_APPLIED = 30  # an attack that applies to fewer emails than this proves nothing


@cache
def _sample(mode: str) -> list:
    return sample_emails(mode, EMAILS)


def test_sample_is_large_enough() -> None:
    for mode in MODES:
        sample = _sample(mode)
        assert len(sample) >= EMAILS, mode
        for kind in KINDS_BY_MODE[mode]:
            assert len(reference_scores(mode, kind, sample)) >= EMAILS, (mode, kind)


def test_every_attack_is_run_somewhere() -> None:
    run = {name for mode in MODES for name in attacks_for(mode)}
    assert run == set(ATTACKS)
    assert {kind for kind, _ in ATTACKS.values()} == {"summary", "reply", "request"}


@pytest.mark.parametrize(
    ("mode", "kind"), [(mode, kind) for mode in MODES for kind in KINDS_BY_MODE[mode]]
)
def test_reference_texts_score_high(mode: str, kind: str) -> None:
    scores = reference_scores(mode, kind, _sample(mode))
    assert len(scores) >= EMAILS
    mean = statistics.fmean(scores)
    assert mean >= MIN_REFERENCE_MEAN, f"the reference {kind} scores {mean:.3f} in {mode}"


@pytest.mark.parametrize(("mode", "name"), [(m, n) for m in MODES for n in attacks_for(m)])
def test_attack_earns_little(mode: str, name: str) -> None:
    scores = attack_scores(mode, name, _sample(mode))
    assert len(scores) >= MIN_APPLIED, f"{name} applied to only {len(scores)} emails in {mode}"
    mean = statistics.fmean(scores)
    above = sum(s > HIGH for s in scores) / len(scores)
    assert mean <= MAX_MEAN and above <= MAX_SHARE_ABOVE, (
        f"{name} in {mode}: mean {mean:.3f} (max {MAX_MEAN}), "
        f"{above:.0%} of {len(scores)} emails above {HIGH} (max {MAX_SHARE_ABOVE:.0%})"
    )
