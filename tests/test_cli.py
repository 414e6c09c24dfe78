"""`inbox-triage eval` and `tasks` as a user runs them."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from inbox_triage.cli import app
from inbox_triage.scenarios import fixed_task_ids

runner = CliRunner()


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    """`eval` writes its run folder under ./runs: keep it out of the checkout."""
    monkeypatch.chdir(tmp_path)


def flat(output: str) -> str:
    """Output with rich's panel borders and line wrapping removed."""
    return " ".join(output.replace("│", " ").split())


def test_eval_on_defaults_shows_every_agent_on_every_fixed_task(tmp_path):
    out = tmp_path / "results.json"
    result = runner.invoke(app, ["eval", "--episodes", "2", "--json", str(out)])
    assert result.exit_code == 0, result.output
    for name in ("noop", "random", "heuristic", "oracle"):
        assert name in result.output
    for task in fixed_task_ids():
        assert task in result.output
    rows = json.loads(out.read_text())
    assert len(rows) == 9 * 4
    by = {(r["task"], r["agent"]): r for r in rows}
    for task in fixed_task_ids():
        assert by[(task, "oracle")]["mean_grade"] == 1.0
        assert by[(task, "noop")]["mean_grade"] <= 0.1
        assert by[(task, "heuristic")]["mean_grade"] > by[(task, "random")]["mean_grade"] + 0.3
        assert by[(task, "random")]["episodes"] == 2
    assert {"task", "agent", "episodes", "mean_grade"} <= set(rows[0])


def test_tasks_can_be_given_space_separated_comma_separated_or_as_a_mode(tmp_path):
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["eval", "--agent", "oracle", "--tasks", "triage/easy",
                                 "hard_account_takeover", "inbox", "--episodes", "1",
                                 "--json", str(out)])
    assert result.exit_code == 0, result.output
    tasks = [r["task"] for r in json.loads(out.read_text())]
    assert tasks == ["triage/easy", "ticket/hard_account_takeover",
                     *fixed_task_ids("inbox")]


def test_eval_is_reproducible_with_a_seed(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path in (a, b):
        result = runner.invoke(app, ["eval", "-a", "random", "-t", "triage", "--episodes", "3",
                                     "--seed", "11", "--json", str(path)])
        assert result.exit_code == 0
    assert a.read_text() == b.read_text()


def test_unknown_agent_or_task_is_a_clear_usage_error():
    result = runner.invoke(app, ["eval", "--agent", "gpt"])
    assert result.exit_code == 2
    assert "noop, random, heuristic, oracle" in flat(result.output)
    result = runner.invoke(app, ["eval", "--tasks", "triage/impossible"])
    assert result.exit_code == 2
    assert "'triage/impossible' is not a task" in flat(result.output)
    assert "triage/easy" in flat(result.output)


def test_tasks_lists_the_nine_fixed_tasks():
    result = runner.invoke(app, ["tasks"])
    assert result.exit_code == 0
    for task in fixed_task_ids():
        assert task in result.output
