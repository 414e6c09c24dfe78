"""Shortcuts do not pay: every degenerate policy stays under its ceiling in every mode."""

from __future__ import annotations

import pytest

from inbox_triage.evaluation.degenerate import CEILINGS, POLICIES, check_degenerate


@pytest.fixture(scope="module")
def results():
    return {r.policy: r for r in check_degenerate(generated_seeds=6)}


def test_every_policy_the_issue_names_is_checked(results):
    assert set(results) == set(POLICIES) == {
        "noop", "finish_at_once", "random", "always_urgent", "always_most_common",
        "flag_or_escalate_everything", "close_or_resolve_everything", "paste_the_email",
        "stuff_every_keyword", "very_long_replies", "invalid_actions",
        # the bad kinds of the hand-written calibration set (issue 19)
        "generic_texts", "another_emails_texts", "wrong_customer_name", "promise_refund_and_fix",
        "ask_for_secrets", "list_the_vocabulary",
        # decides from everything but the mail's words, or by watching the reward (issue 29)
        "no_reading", "trial_and_error",
    }
    assert max(CEILINGS.values()) <= 0.30


def test_every_degenerate_policy_stays_under_its_ceiling_in_every_mode(results):
    for result in results.values():
        assert set(result.means) == {"triage", "ticket", "inbox"}
        assert result.ok, (result.policy, result.means, result.ceiling)


def test_doing_nothing_or_only_invalid_actions_scores_zero(results):
    for name in ("noop", "finish_at_once", "invalid_actions"):
        assert max(results[name].means.values()) == 0.0


def test_a_ceiling_set_below_what_a_policy_earns_fails():
    lowered = check_degenerate(generated_seeds=3, ceilings={"random": 0.01})
    assert not next(r for r in lowered if r.policy == "random").ok
