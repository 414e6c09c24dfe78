"""`inbox-triage check` passes on every task, and fails when a rule is broken on purpose."""

from __future__ import annotations

import itertools

import pytest
from typer.testing import CliRunner

import inbox_triage.env
from inbox_triage.agents import make_agent
from inbox_triage.cli import app
from inbox_triage.evaluation import Rules, check_environment, check_task
from inbox_triage.scenarios import fixed_task_ids
from inbox_triage.scenarios.generator import SPLITS
from inbox_triage.scenarios.sources import generated_task_ids

runner = CliRunner()


def test_every_fixed_task_keeps_every_rule():
    results = check_environment(fixed_task_ids())
    assert [r.task for r in results] == fixed_task_ids()
    assert len(results) == 9
    for r in results:
        assert r.ok, (r.task, r.failures)
        assert r.oracle >= 0.99 and r.noop <= 0.10 and r.random_mean <= 0.35
        assert r.random_mean < r.heuristic < r.oracle


def test_generated_tasks_keep_every_rule_in_every_mode_and_split():
    results = check_environment(generated_task_ids(), Rules(generated_seeds=9))
    assert [r.task for r in results] == [
        f"{task} [{split}]" for task in generated_task_ids() for split in SPLITS
    ]
    for r in results:
        assert r.ok, (r.task, r.failures)
        assert r.oracle >= 0.99  # the minimum over nine scenarios, easy to hard


def test_check_command_prints_a_table_and_exits_zero():
    result = runner.invoke(app, ["check", "--random-episodes", "5", "--seeds", "3"])
    assert result.exit_code == 0, result.output
    for task in fixed_task_ids():
        assert task in result.output
    assert "inbox/generated [test]" in result.output
    assert "all 18 tasks keep every rule" in result.output
    assert "stuff_every_keyword" in result.output


def test_a_weak_oracle_fails_the_check():
    def factory(name: str):
        return make_agent("heuristic" if name == "oracle" else name)

    result = check_task("inbox/hard_incident_security_queue", Rules(random_episodes=3), factory)
    assert not result.ok
    assert any("oracle scored" in f for f in result.failures)


def test_a_reward_that_leaks_free_points_fails_the_check(monkeypatch):
    original = inbox_triage.env.step_reward
    monkeypatch.setattr(inbox_triage.env, "step_reward",
                        lambda before, after, penalty: original(before, after, penalty) + 0.01)
    result = check_task("ticket/easy_password_reset", Rules(random_episodes=3))
    assert any("rewards differ" in f for f in result.failures)


FRESH_SEEDS = itertools.count(1000)


class UnseededRandom:
    """Ignores the seed it is given (takes a new one each episode): the determinism rule must
    catch it."""

    name = "random"

    def __init__(self) -> None:
        self.inner = make_agent("random")

    def reset(self, observation, *, scenario, seed):
        self.inner.reset(observation, scenario=scenario, seed=next(FRESH_SEEDS))

    def act(self, observation):
        return self.inner.act(observation)


def test_nondeterminism_fails_the_check():
    def factory(name: str):
        return UnseededRandom() if name == "random" else make_agent(name)

    result = check_task("triage/hard", Rules(random_episodes=3), factory)
    assert not result.deterministic
    assert "two identical runs differed" in result.failures


def test_check_command_exits_non_zero_when_a_rule_breaks(monkeypatch):
    monkeypatch.setattr(inbox_triage.env, "step_reward",
                        lambda before, after, penalty: after - before - penalty + 0.05)
    result = runner.invoke(app, ["check", "--tasks", "inbox/easy_password_reset",
                                 "--random-episodes", "2"])
    assert result.exit_code == 1
    assert "FAIL" in result.output


@pytest.mark.parametrize("rules", [Rules(noop_max=-0.01), Rules(random_max=0.0)])
def test_tightened_floors_fail(rules):
    result = check_task("triage/easy", rules)
    assert not result.ok
