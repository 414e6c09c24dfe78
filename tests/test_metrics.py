"""Metrics over episode records: bootstrap intervals, pass^k and per-agent summaries."""

from __future__ import annotations

import math
from statistics import fmean

import numpy as np
import pytest
from record_factory import rec

from inbox_triage.evaluation.metrics import (
    bootstrap_ci,
    pass_hat_curve,
    pass_hat_k,
    summarise_agent,
    summarise_runs,
)
from inbox_triage.evaluation.records import EpisodeRecord


def trials(grades: list[float], seed: int = 0, **kw: object) -> list[EpisodeRecord]:
    """The same scenario repeated, one record per grade."""
    return [rec(g, seed=seed, trial=i, **kw) for i, g in enumerate(grades)]  # type: ignore[arg-type]


# bootstrap_ci


def test_bootstrap_empty_raises() -> None:
    with pytest.raises(ValueError, match="at least one value"):
        bootstrap_ci([])


def test_bootstrap_single_and_constant_values() -> None:
    assert bootstrap_ci([0.4]) == (0.4, 0.4)
    assert bootstrap_ci([0.1] * 50) == (0.1, 0.1)


def test_bootstrap_contains_mean_and_is_deterministic() -> None:
    values = list(np.random.default_rng(7).uniform(0, 1, 40))
    low, high = bootstrap_ci(values)
    assert low < fmean(values) < high
    assert low >= 0.0 and high <= 1.0
    assert bootstrap_ci(values) == (low, high)
    assert bootstrap_ci(values, seed=1) != (low, high)


def test_bootstrap_narrows_as_n_grows() -> None:
    rng = np.random.default_rng(3)
    widths = []
    for n in (10, 100, 1000):
        low, high = bootstrap_ci(list(rng.uniform(0, 1, n)))
        widths.append(high - low)
    assert widths[0] > widths[1] > widths[2]
    # The width of a mean's interval falls like 1/sqrt(n): 0.95 CI of U(0,1) at n=1000 ~ 0.036.
    assert widths[2] == pytest.approx(2 * 1.96 * math.sqrt(1 / 12 / 1000), rel=0.2)


def test_bootstrap_higher_confidence_is_wider() -> None:
    values = [0.0, 0.2, 0.5, 0.9, 1.0, 0.3, 0.7]
    low90, high90 = bootstrap_ci(values, confidence=0.9)
    low99, high99 = bootstrap_ci(values, confidence=0.99)
    assert low99 <= low90 and high90 <= high99


def test_bootstrap_chunking_matches_resample_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunked resampling draws the same numbers as one big draw."""
    values = [0.1, 0.5, 0.9, 0.3]
    whole = bootstrap_ci(values, resamples=500)
    monkeypatch.setattr("inbox_triage.evaluation.metrics._CHUNK_VALUES", 7)
    assert bootstrap_ci(values, resamples=500) == pytest.approx(whole)


def test_bootstrap_rejects_bad_confidence() -> None:
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_ci([0.1, 0.2], confidence=1.5)


# pass^k


def test_pass_hat_hand_computed() -> None:
    records = trials([1.0, 1.0, 0.0, 0.0])  # n=4, c=2
    assert pass_hat_k(records, 1, 0.9) == pytest.approx(0.5)
    assert pass_hat_k(records, 2, 0.9) == pytest.approx(1 / 6)  # C(2,2)/C(4,2)
    assert pass_hat_k(records, 3, 0.9) == 0.0
    assert pass_hat_k(records, 5, 0.9) is None


def test_pass_hat_threshold_is_inclusive() -> None:
    records = trials([0.9, 0.89])
    assert pass_hat_k(records, 1, 0.9) == pytest.approx(0.5)


def test_pass_hat_averages_over_scenarios() -> None:
    records = trials([1, 1, 1], seed=0) + trials([1, 0, 0], seed=1)
    # k=2: seed 0 gives 1, seed 1 gives C(1,2)/C(3,2) = 0.
    assert pass_hat_k(records, 2, 0.9) == pytest.approx(0.5)
    # k=1: (1 + 1/3) / 2
    assert pass_hat_k(records, 1, 0.9) == pytest.approx(2 / 3)


def test_pass_hat_groups_by_split_difficulty_and_agent() -> None:
    """Same seed under another split, difficulty or agent is a different scenario."""
    records = [
        rec(1.0, seed=0, split="train"),
        rec(0.0, seed=0, split="test"),
        rec(1.0, seed=0, difficulty="hard"),
        rec(1.0, seed=0, agent="other"),
    ]
    assert pass_hat_k(records, 2, 0.9) is None
    assert pass_hat_curve(records, 0.9) == {1: pytest.approx(0.75)}


def test_pass_hat_skips_scenarios_with_fewer_trials() -> None:
    records = trials([1.0, 1.0], seed=0) + trials([0.0], seed=1)
    assert pass_hat_k(records, 2, 0.9) == 1.0  # seed 1 has one trial: not counted
    assert pass_hat_k(records, 1, 0.9) == pytest.approx(0.5)


def test_pass_hat_rejects_k_below_one() -> None:
    with pytest.raises(ValueError, match="k must be"):
        pass_hat_k(trials([1.0]), 0, 0.9)


def test_pass_hat_curve_is_non_increasing_with_equal_trials() -> None:
    rng = np.random.default_rng(11)
    records = [
        rec(float(g), seed=seed, trial=t)
        for seed in range(12)
        for t, g in enumerate(rng.uniform(0.5, 1.0, 6))
    ]
    curve = pass_hat_curve(records, 0.8)
    assert list(curve) == [1, 2, 3, 4, 5, 6]
    values = list(curve.values())
    assert all(a >= b for a, b in zip(values, values[1:], strict=False))
    assert all(0.0 <= v <= 1.0 for v in values)


def test_pass_hat_curve_empty() -> None:
    assert pass_hat_curve([], 0.9) == {}
    assert pass_hat_k([], 1, 0.9) is None


# summaries


def test_summary_numbers() -> None:
    records = [
        rec(1.0, task="triage/easy", split=None, difficulty=None, steps=8, invalid_actions=1,
            sla_breaches=0, components={"routing": 1.0, "priority": 0.5}, duration_s=2.0),
        rec(0.5, task="ticket/easy_password_reset", split=None, difficulty=None, steps=12,
            invalid_actions=3, sla_breaches=2, components={"routing": 0.0}, duration_s=4.0),
        rec(0.0, task="ticket/easy_password_reset", split=None, difficulty=None, seed=1,
            steps=0, invalid_actions=0, sla_breaches=1, components={}, duration_s=0.0),
    ]  # fmt: skip
    s = summarise_agent("run-a", "oracle", records)
    assert s.episodes == 3
    assert s.mean_grade == pytest.approx(0.5)
    assert s.ci_low <= 0.5 <= s.ci_high
    assert s.std == pytest.approx(math.sqrt(1 / 6))
    assert s.per_mode == {"ticket": pytest.approx(0.25), "triage": 1.0}
    assert s.per_task == {"ticket/easy_password_reset": 0.25, "triage/easy": 1.0}
    # A component is averaged over the episodes that have it.
    assert s.per_component == {"priority": 0.5, "routing": 0.5}
    assert s.invalid_action_rate == pytest.approx(4 / 20)
    assert s.sla_breaches_per_episode == pytest.approx(1.0)
    assert s.tokens_per_episode is None
    assert s.mean_duration_s == pytest.approx(2.0)
    assert s.pass_hat == {1: pytest.approx(1 / 3)}


def test_invalid_action_rate_with_no_steps_is_zero() -> None:
    s = summarise_agent("r", "a", [rec(steps=0, invalid_actions=0)])
    assert s.invalid_action_rate == 0.0


def test_tokens_use_total_or_prompt_plus_completion() -> None:
    records = [
        rec(tokens={"prompt": 100, "completion": 20, "total": 120}),
        rec(tokens={"prompt": 50, "completion": 30}, seed=1),
        rec(tokens=None, seed=2),  # not counted: the agent did not know
    ]
    assert summarise_agent("r", "a", records).tokens_per_episode == pytest.approx(100.0)


def test_summarise_runs_splits_by_run_and_agent() -> None:
    run_a = [rec(1.0, agent="zeta"), rec(0.0, agent="alpha"), rec(0.5, agent="alpha", seed=1)]
    run_b = [rec(0.25, agent="alpha")]
    out = summarise_runs([("b", run_b), ("a", run_a)], threshold=0.5)
    assert [(s.run, s.agent, s.episodes) for s in out] == [
        ("b", "alpha", 1),
        ("a", "alpha", 2),
        ("a", "zeta", 1),
    ]
    assert out[1].mean_grade == pytest.approx(0.25)
    assert out[1].pass_hat == {1: pytest.approx(0.5)}  # threshold 0.5 is inclusive
    assert all(s.threshold == 0.5 for s in out)


def test_summary_is_frozen() -> None:
    s = summarise_agent("r", "a", [rec()])
    with pytest.raises(AttributeError):
        s.mean_grade = 0.0  # type: ignore[misc]


def test_interval_resamples_scenarios_so_repeated_trials_add_no_false_precision() -> None:
    once = [rec(g, seed=i) for i, g in enumerate([0.1, 0.5, 0.9, 0.3, 0.7])]
    copies = [rec(r.grade, seed=r.seed, trial=t) for r in once for t in range(5)]
    first = summarise_agent("r", "a", once)
    repeated = summarise_agent("r", "a", copies)
    assert (repeated.ci_low, repeated.ci_high) == (first.ci_low, first.ci_high)
    assert repeated.mean_grade == pytest.approx(first.mean_grade)
