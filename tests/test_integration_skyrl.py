"""SkyRL-gym: episodes made by ``skyrl_gym.make`` as SkyRL's generator makes them, played as
``<tool_call>`` texts; refusals and garbage counted; the exported rows play."""

from __future__ import annotations

import pytest
from text_turns import call, oracle_turns

skyrl_gym = pytest.importorskip("skyrl_gym")

from omegaconf import DictConfig  # noqa: E402  (skyrl-gym's own dependency)
from typer.testing import CliRunner  # noqa: E402

from inbox_triage.cli import app  # noqa: E402
from inbox_triage.integrations.skyrl import ENV_ID, register  # noqa: E402
from inbox_triage.training.export import START_TURN, read  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
MODES = ("triage", "ticket", "inbox")


def make(mode: str, seed: int, env_config: dict | None = None, **extras):
    """An env as SkyRL's generator makes one: its env config as a ``DictConfig``, the row less
    prompt and env_class, and ``max_turns`` from its config."""
    register()
    episode = {
        "mode": mode,
        "task": f"{mode}/generated",
        "split": "test",
        "difficulty": "easy",
        "seed": seed,
    }
    extras = {
        "reward_spec": {"method": "rule", "ground_truth": None},
        "extra_info": episode,
        "max_turns": 50,
        **extras,
    }
    return skyrl_gym.make(ENV_ID, env_config=DictConfig(env_config or {}), extras=extras)


def play_out(env, seed: int) -> list[dict]:
    outputs = []
    for text in oracle_turns(env, seed):
        outputs.append(env.step(text))
        if outputs[-1]["done"]:
            return outputs
    raise AssertionError("unreachable")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("seed", [1, 2])
def test_the_oracle_wins_every_mode_and_the_step_rewards_sum_to_the_episode(mode, seed):
    env = make(mode, seed)
    chat, info = env.init([])
    assert info["mode"] == mode
    assert chat[0]["role"] == "system" and "<tool_call>" in chat[0]["content"]
    assert chat[-1]["role"] == "user" and "Policy points" in chat[-1]["content"]
    outputs = play_out(env, seed)
    assert [o["done"] for o in outputs] == [False] * (len(outputs) - 1) + [True]
    for o in outputs[:-1]:  # each turn answers with the next observation, as a user message
        assert [m["role"] for m in o["observations"]] == ["user"]
    assert outputs[-1]["observations"] == []
    final = outputs[-1]["metadata"]
    assert final["grade"]["value"] == pytest.approx(1.0)
    assert set(final["grade"]["components"]) and final["refusals"] == 0
    assert final["steps"] == len(outputs)
    total = sum(o["reward"] for o in outputs)
    assert total == pytest.approx(final["total_reward"], abs=1e-5)
    assert total == pytest.approx(final["grade"]["value"] - final["penalties"], abs=1e-5)
    assert env.get_metrics()["grade"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    "mode, name, arguments, field",
    [
        ("triage", "triage_email", {"priority": "whenever"}, "priority"),
        ("ticket", "set_priority", {"value": "whenever"}, "value"),
    ],
)
def test_a_wrong_value_comes_back_with_the_field_and_the_allowed_values(
    mode, name, arguments, field
):
    env = make(mode, 1)
    env.init([])
    allowed = env.observation["vocabulary"]["priorities"]
    if mode == "triage":  # a whole decision, with one value wrong
        vocabulary = env.observation["vocabulary"]
        arguments = {
            "email_id": env.observation["current_email"]["email_id"],
            "category": vocabulary["categories"][0],
            "route_to": vocabulary["queues"][0],
            "summary": "A customer wrote.",
            **arguments,
        }
    out = env.step(call(name, **arguments))
    text = out["observations"][0]["content"]
    assert out["done"] is False and out["reward"] < 0
    assert f"{field}: is not an allowed value" in text
    assert all(value in text for value in allowed)
    assert out["metadata"]["error"]["field"] == field
    outputs = [out, *play_out(env, 1)]  # nothing changed: the oracle still wins
    final = outputs[-1]["metadata"]
    assert final["refusals"] == 1 and final["grade"]["value"] == pytest.approx(1.0)
    assert sum(o["reward"] for o in outputs) == pytest.approx(final["total_reward"], abs=1e-5)
    assert final["total_reward"] < 1.0 - 1e-6


def test_garbage_is_an_invalid_action_counted_never_a_guessed_one():
    env = make("inbox", 1)
    env.init([])
    before = env.observation["progress_score"]
    out = env.step("I would classify the first ticket as urgent and send it to billing.")
    text = out["observations"][0]["content"]
    assert "refused" in text and "action_type" in text and "classify_ticket" in text
    assert out["reward"] < 0 and env.observation["progress_score"] == before
    assert env.get_metrics()["refusals"] == 1
    assert play_out(env, 1)[-1]["metadata"]["refusals"] == 1


def test_one_call_per_turn_the_first_is_played_and_the_model_is_told():
    env = make("ticket", 1)
    env.init([])
    out = env.step(call("set_priority", value="low") + call("route_team", value="billing"))
    assert "Only your first tool call was played" in out["observations"][0]["content"]
    assert env.inbox.state.tickets[env.observation["ticket_id"]]["priority"] == "low"
    assert env.inbox.state.tickets[env.observation["ticket_id"]]["queue"] is None


def test_the_generators_max_turns_ends_the_episode_and_says_so():
    env = make("inbox", 1, max_turns=2)
    with pytest.warns(UserWarning, match="max_turns=2 cuts"):
        env.init([])
    turns = oracle_turns(env, 1)
    outputs = [env.step(next(turns)), env.step(next(turns))]
    assert [o["done"] for o in outputs] == [False, True]
    final = outputs[-1]["metadata"]
    assert final["truncated"] is True and final["grade"]["value"] < 1.0
    assert sum(o["reward"] for o in outputs) == pytest.approx(final["total_reward"], abs=1e-5)
    assert env.step(next(turns))["done"] is True  # nothing more is played
    assert env.get_metrics()["steps"] == 2


def test_episode_rewards_put_the_whole_sum_on_the_last_step():
    env = make("triage", 1, env_config={"reward": "episode"})
    env.init([])
    outputs = play_out(env, 1)
    assert all(o["reward"] == 0.0 for o in outputs[:-1])
    assert outputs[-1]["reward"] == pytest.approx(outputs[-1]["metadata"]["total_reward"])


def test_unknown_extra_info_keys_are_ignored_with_a_warning():
    register()
    with pytest.warns(UserWarning, match="ignores extra_info key.*colour"):
        env = skyrl_gym.make(
            ENV_ID,
            env_config={},
            extras={"extra_info": {"mode": "ticket", "seed": 3, "colour": "blue"}},
        )
    env.init([])
    assert env.mode == "ticket" and env.inbox.state.seed == 3


def test_register_is_idempotent_and_will_not_take_anothers_id():
    assert register() == register() == ENV_ID
    skyrl_gym.register(id="inbox-triage-taken", entry_point="skyrl_gym.envs.gsm8k.env:GSM8kEnv")
    try:
        with pytest.raises(ValueError, match="already registered"):
            register("inbox-triage-taken")
    finally:
        skyrl_gym.envs.registration.deregister("inbox-triage-taken")


@pytest.mark.parametrize("mode", ["triage-decision", *MODES])
def test_exported_skyrl_rows_make_envs_that_play(tmp_path, mode):
    out = tmp_path / "rows.jsonl"
    export_skyrl(mode, out)
    rows = read(out)
    assert len(rows) == 2
    register()
    for row in rows:
        assert {"prompt", "env_class", "reward_spec", "extra_info", "data_source"} <= set(row)
        assert row["reward_spec"]["method"] in ("rule", "reward_model")
        extras = {k: v for k, v in row.items() if k not in ("prompt", "env_class")}
        env = skyrl_gym.make(row["env_class"], env_config={}, extras={**extras, "max_turns": 50})
        chat, _ = env.init(row["prompt"])
        # the env adds the first observation to the row's opening turn, once
        assert len(chat) == 2 and chat[1]["content"].startswith(START_TURN)
        assert len(chat[1]["content"]) > len(START_TURN)
        again, _ = env.init(chat)
        assert again == chat
        final = play_out(env, int(row["extra_info"]["seed"]))[-1]["metadata"]
        assert final["grade"]["value"] == pytest.approx(1.0)


def export_skyrl(mode: str, out) -> None:
    """``inbox-triage export prompts --format skyrl`` for two test-split episodes."""
    args = ["export", "prompts", "--format", "skyrl", "--mode", mode, "--split", "test"]
    result = CliRunner().invoke(app, [*args, "--n", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output


def test_parquet_rows_read_as_skyrl_reads_them_play(tmp_path):
    datasets = pytest.importorskip("datasets")
    out = tmp_path / "rows.parquet"
    export_skyrl("ticket", out)
    data = datasets.load_dataset("parquet", data_files=str(out), keep_in_memory=True)["train"]
    row = dict(data[1])
    prompt, env_class = row.pop("prompt"), row.pop("env_class")
    env = skyrl_gym.make(env_class, env_config={}, extras={**row, "max_turns": 50})
    env.init(prompt)
    assert env.mode == "ticket" and env.inbox.state.seed == 1
    assert play_out(env, 1)[-1]["metadata"]["grade"]["value"] == pytest.approx(1.0)


def test_demos_have_no_skyrl_format(tmp_path):
    result = CliRunner().invoke(
        app, ["export", "demos", "--format", "skyrl", "--out", str(tmp_path / "x.jsonl")]
    )
    assert result.exit_code != 0 and "skyrl is a format of prompts" in result.output
