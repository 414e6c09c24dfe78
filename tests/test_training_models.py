"""Real training steps and the hf agent, on a tiny random model (training/tiny.py): one SFT
step and one GRPO step move the weights, GRPO's rewards are the environment's grades, and the
hf agent's episode replays to the same rewards. No model is downloaded."""

from __future__ import annotations

import csv
import json
from dataclasses import fields
from pathlib import Path

import pytest
from typer.testing import CliRunner

from inbox_triage.training.tiny import tiny_checkpoint, weights

pytest.importorskip("trl", reason="the train extra is not installed: pip install -e '.[train]'")

from inbox_triage.cli import app  # noqa: E402
from inbox_triage.env import InboxTriageEnv  # noqa: E402
from inbox_triage.evaluation.runs import EpisodeSpec, play  # noqa: E402
from inbox_triage.prompting.decisions import decision_json  # noqa: E402
from inbox_triage.training import (  # noqa: E402
    decision_row,
    grade_decision,
    trainers,  # noqa: E402
)
from inbox_triage.training.config import TrainConfig  # noqa: E402
from inbox_triage.training.export import decision_demo, demo_rows, read, write  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")
SEED = 1000


def answers_for(row: dict) -> list[str]:
    """The oracle's decision for the row, two wrong ones and one refused, as tokens."""
    right = json.loads(decision_demo(row)["completion"][0]["content"])
    wrong_route = "trash" if right["route_to"] != "trash" else "billing"
    return [
        decision_json(right),
        decision_json({**right, "route_to": wrong_route}),
        decision_json({**right, "priority": "urgent" if right["priority"] != "urgent" else "low",
                       "flag_review": not right["flag_review"]}),
        decision_json({**right, "category": "not_a_category"}),
    ]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return tiny_checkpoint(tmp_path_factory.mktemp("tiny"), answers_for(decision_row(
        "train", "easy", SEED)))


def changed(before: dict, after: dict) -> bool:
    return any(not (before[k] == after[k]).all() for k in before if k in after)


def test_one_sft_step_moves_the_weights_and_writes_the_run_folder(tiny, tmp_path):
    config = TrainConfig(model=str(tiny), out=str(tmp_path / "sft"), examples=4, steps=1,
                         batch=2, lora=False, first_seed=SEED, save_every=1)
    final = trainers.run_sft(config, say=lambda _: None)
    assert changed(weights(tiny), weights(final))
    rows = list(csv.DictReader((tmp_path / "sft" / "metrics.csv").open()))
    assert rows and float(rows[0]["loss"]) > 0
    assert (tmp_path / "sft" / "curve.png").stat().st_size > 1000
    assert json.loads((tmp_path / "sft" / "config.json").read_text())["steps"] == 1
    assert (tmp_path / "sft" / "checkpoints" / "checkpoint-1").is_dir()  # for --resume
    said: list[str] = []
    longer = config.merged({"steps": 2})
    trainers.run_sft(longer, say=said.append, resume=True)
    steps = [int(r["step"]) for r in csv.DictReader((tmp_path / "sft" / "metrics.csv").open())]
    assert steps == [1, 2]  # step 1 was not trained again
    assert not any("nothing to resume" in line for line in said)


def test_one_grpo_step_is_rewarded_by_the_environment_and_moves_the_weights(
    tiny, tmp_path, monkeypatch
):
    seen: list[tuple[dict, str, float]] = []
    real = trainers.environment_reward

    def spy(prompts=None, completions=None, **columns):
        rewards = real(prompts, completions, **columns)
        for i, completion in enumerate(completions):
            row = {k: v[i] for k, v in columns.items() if k in decision_row("train", "easy", 0)}
            seen.append((row, completion[-1]["content"], rewards[i]))
        return rewards

    spy.__name__ = "environment_reward"
    monkeypatch.setattr(trainers, "environment_reward", spy)
    config = TrainConfig(model=str(tiny), out=str(tmp_path / "grpo"), examples=1, steps=1,
                         batch=8, generations=8, completion_length=4, lora=False,
                         first_seed=SEED, learning_rate=0.05, save_every=10)
    final = trainers.run_grpo(config, say=lambda _: None)
    assert len(seen) == 8
    for row, text, reward in seen:  # each reward is the grade a fresh environment gives
        assert reward == pytest.approx(grade_decision(row, text))
    assert len({round(r, 6) for _, _, r in seen}) > 1, seen  # something to learn from
    assert changed(weights(tiny), weights(final))
    logged = list(csv.DictReader((tmp_path / "grpo" / "metrics.csv").open()))
    assert float(logged[0]["reward"]) == pytest.approx(sum(r for *_, r in seen) / 8, abs=1e-4)


def test_grpo_with_tools_gives_trl_one_adapter_per_rollout_on_the_rows_episodes(
    tiny, tmp_path, monkeypatch
):
    from inbox_triage.prompting.tools import TicketTools

    started: list[dict] = []
    rewards: list[float] = []
    reset, get_reward = TicketTools.reset, TicketTools.get_reward

    def spy_reset(self, **row):
        started.append(row)
        return reset(self, **row)

    def spy_reward(self):
        rewards.append(get_reward(self))
        return rewards[-1]

    monkeypatch.setattr(TicketTools, "reset", spy_reset)
    monkeypatch.setattr(TicketTools, "get_reward", spy_reward)
    config = TrainConfig(model=str(tiny), out=str(tmp_path / "tools"), mode="ticket",
                         examples=2, steps=1, batch=4, generations=2, completion_length=8,
                         lora=False, first_seed=7, save_every=10)
    trainers.run_grpo(config, say=lambda _: None)
    played = [(r["task"], r["seed"]) for r in started if "task" in r]
    assert sorted(set(played)) == [("ticket/generated", 7), ("ticket/generated", 8)]
    assert len(rewards) == 4 and rewards == [0.0] * 4  # no tool call: an untouched ticket


@pytest.mark.parametrize("task", ["triage/generated", "ticket/generated"])
def test_the_hf_agent_plays_an_episode_whose_record_replays_to_the_same_rewards(tiny, task):
    spec = EpisodeSpec(agent=f"hf:{tiny}", task=task, split="train",
                       difficulty="easy", seed=SEED, trial=0)
    from inbox_triage.agents import make_agent

    record = play(spec, make_agent(spec.agent))
    assert record.steps >= 1 and record.tokens["completion"] > 0
    env = InboxTriageEnv()
    env.reset(**spec.reset_args())
    replayed = [round(float(env.step(step.action).reward or 0.0), 6) for step in record.trajectory]
    assert replayed == [step.reward for step in record.trajectory]
    assert round(env.grade().value, 6) == record.grade


def test_parquet_and_datasets_exports_round_trip(tmp_path):
    rows = list(demo_rows("tools", "inbox", "train", "easy", 2, 0))
    assert read(write(rows, tmp_path / "d.parquet", "parquet")) == rows
    assert read(write(rows, tmp_path / "d_hf", "hf")) == rows


def test_train_help_documents_every_setting():
    for method in ("sft", "grpo"):
        result = CliRunner().invoke(app, ["train", method, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0
        for f in fields(TrainConfig):
            assert f"--{f.name.replace('_', '-')}" in result.output, (method, f.name)
    bad = CliRunner().invoke(app, ["train", "grpo", "--mode", "chess", "--steps", "1"])
    assert bad.exit_code == 2 and "triage-decision" in bad.output
