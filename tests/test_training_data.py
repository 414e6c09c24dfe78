"""The training path's environment side (no model needed): the decision prompt and its tolerant
parser, the reward function, the multi-turn tools adapters, exports and the learned baseline."""

from __future__ import annotations

import json

import pytest
from live_server import running_server
from typer.testing import CliRunner

from inbox_triage.agents import make_agent
from inbox_triage.cli import app
from inbox_triage.evaluation import run_episode
from inbox_triage.prompting.decisions import decision_json
from inbox_triage.prompting.tools import remote, tool_names, tool_schemas
from inbox_triage.training import (
    TOOLS,
    decision_row,
    environment_reward,
    grade_decision,
    parse_decision,
)
from inbox_triage.training.export import decision_demo, demo_rows, prompt_rows, read, write
from inbox_triage.training.rewards import prompt_for, start

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
ROW = decision_row("train", "easy", 1000)


def oracle_through_tools(tools, row: dict, reset: bool = True) -> float:
    if reset:
        tools.reset(**row)
    env = tools._env if tools._env is not None else start(row)[0]
    agent = make_agent("oracle")
    agent.reset(tools.observation, scenario=env.scenario, seed=int(row["seed"]))
    while not tools.observation.get("done"):
        action = dict(agent.act(tools.observation))
        name = action.pop("action_type", None) or "triage_email"
        if tools.mode == "ticket":
            action.pop("ticket_id", None)
        getattr(tools, name)(**action)
    return tools.get_reward()


def test_the_prompt_shows_the_vocabulary_the_policy_points_and_the_email():
    prompt = prompt_for(ROW)
    _, observation = start(ROW)
    user = prompt[1]["content"]
    assert prompt[0]["role"] == "system" and "ONE JSON object" in prompt[0]["content"]
    for value in observation.vocabulary["queues"]:
        assert value in user
    assert "flag_review is true for account compromise" in user
    assert observation.current_email["subject"] in user
    assert "Routing guide" not in user and "Routing guide" in prompt_for(ROW, True)[1]["content"]


@pytest.mark.parametrize("text, expected", [
    ('{"priority": "high", "category": "billing_inquiry", "route_to": "billing"}',
     {"priority": "high", "category": "billing_inquiry", "route_to": "billing"}),
    ('Sure! ```json\n{"Priority": "High", "queue": "billing", "flag_review": "yes",}\n```',
     {"priority": "high", "route_to": "billing", "flag_review": True}),
    ('{"action": {"priority": "low", "reply_draft": "null", "summary": "a {brace} inside"}}',
     {"priority": "low", "reply_draft": None, "summary": "a {brace} inside"}),
])
def test_the_parser_forgives_what_small_models_write(text, expected):
    assert parse_decision(text) == expected


@pytest.mark.parametrize("text", ["", "no json here", "{not: json}", "[1, 2]", '{"colour": 1}'])
def test_the_parser_answers_none_for_what_holds_no_decision(text):
    assert parse_decision(text) is None


def test_the_reward_is_the_environments_grade_of_the_decision():
    oracle = decision_demo(ROW)["completion"][0]["content"]
    assert grade_decision(ROW, oracle) == pytest.approx(1.0)
    decision = json.loads(oracle)
    wrong = decision_json({**decision, "route_to": "trash" if decision["route_to"] != "trash"
                           else "billing"})
    refused = decision_json({**decision, "priority": "whenever"})
    columns = {k: [v] * 5 for k, v in ROW.items()}
    rewards = environment_reward(
        prompts=[None] * 5,
        completions=[[{"role": "assistant", "content": c}]
                     for c in (oracle, wrong, refused, "garbage", "")],
        **columns,
    )
    assert rewards[0] == pytest.approx(1.0)
    assert 0.0 < rewards[1] < 1.0
    assert rewards[2:] == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("mode", ["triage", "ticket", "inbox"])
def test_the_oracle_through_every_modes_tools_scores_one(mode):
    for seed in range(4):
        for difficulty in ("easy", "hard"):
            row = {"task": f"{mode}/generated", "split": "train", "difficulty": difficulty,
                   "seed": seed}
            assert oracle_through_tools(TOOLS[mode](), row) == pytest.approx(1.0), row


def test_tools_are_what_trl_sees_with_the_allowed_values_as_enums():
    pytest.importorskip("transformers", reason="tool schemas are read by transformers")
    assert tool_names("ticket") == ["add_tag", "close_ticket", "draft_reply", "noop",
                                    "request_info", "route_team", "set_priority"]
    schema = {s["function"]["name"]: s["function"] for s in tool_schemas("inbox")}
    priority = schema["classify_ticket"]["parameters"]["properties"]["priority"]
    assert priority["enum"] == ["low", "medium", "high", "urgent"]
    assert "reset" not in schema and "get_reward" not in schema


def test_a_refused_tool_call_raises_with_the_field_and_the_allowed_values():
    tools = TOOLS["ticket"]()
    tools.reset(task="ticket/generated", split="train", difficulty="easy", seed=1)
    with pytest.raises(ValueError, match=r"value: is not an allowed value \(allowed: low"):
        tools.set_priority("whenever")
    assert tools.refusals == 1 and tools._env.state.invalid_actions == 1  # the env counts it


def test_tools_play_the_same_against_a_server():
    row = {"task": "inbox/generated", "split": "test", "difficulty": "medium", "seed": 3}
    with running_server() as url:
        served = oracle_through_tools(remote("inbox", url)(), row)
    assert served == pytest.approx(oracle_through_tools(TOOLS["inbox"](), row))


def test_exports_are_reproducible_and_round_trip_as_jsonl(tmp_path):
    rows = list(prompt_rows("triage-decision", "train", "easy", 3, 10))
    assert [r["seed"] for r in rows] == [10, 11, 12] and rows[0]["prompt"] == prompt_for(rows[0])
    tools = list(demo_rows("tools", "ticket", "train", "easy", 2, 0))
    assert all(r["grade"] == pytest.approx(1.0) for r in tools)
    call = tools[0]["messages"][2]["tool_calls"][0]["function"]
    assert call["name"] in tool_names("ticket") and isinstance(json.loads(call["arguments"]), dict)
    for kind_rows, name in ((rows, "p.jsonl"), (tools, "t.jsonl")):
        assert read(write(kind_rows, tmp_path / name, "jsonl")) == kind_rows
    runner = CliRunner()
    for attempt in ("a", "b"):
        result = runner.invoke(app, ["export", "demos", "--n", "4", "--seed", "7",
                                     "--out", str(tmp_path / f"{attempt}.jsonl")])
        assert result.exit_code == 0, result.output
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    bad = runner.invoke(app, ["export", "prompts", "--format", "csv", "--out", "x"])
    assert bad.exit_code == 2 and "jsonl, parquet, hf" in bad.output


def test_the_learned_agent_beats_the_heuristic_on_train_mail_it_was_not_fit_on(
    tmp_path, monkeypatch
):
    pytest.importorskip("sklearn", reason="the learned agent needs the learned or train extra")
    from inbox_triage.agents import learned

    monkeypatch.setenv("INBOX_TRIAGE_CACHE", str(tmp_path))
    monkeypatch.setattr(learned, "FIT_EPISODES", 60)  # seeds 0-59 per difficulty
    monkeypatch.setattr(learned, "_MODELS", {})
    seeds = range(5000, 5016)
    grades = {
        name: [run_episode("triage/generated", make_agent(name), s, split="train",
                           difficulty="medium").grade for s in seeds]
        for name in ("heuristic", "learned")
    }
    assert sum(grades["learned"]) > sum(grades["heuristic"]) + 0.05 * len(seeds), grades
    cached = list((tmp_path / "learned").glob("triage-*.pkl"))
    assert len(cached) == 1
    monkeypatch.setattr(learned, "_MODELS", {})  # from the cache, the same decisions
    again = [run_episode("triage/generated", make_agent("learned"), s, split="train",
                         difficulty="medium").grade for s in seeds]
    assert again == grades["learned"]


def test_a_tools_prompt_row_leaves_the_first_observation_to_reset():
    """TRL adds what reset returns to the row's last user turn: the row must not hold it too."""
    row = next(prompt_rows("inbox", "train", "easy", 1, 3))
    first = TOOLS["inbox"]().reset(**row)
    turn = row["prompt"][-1]["content"]
    assert first not in turn
    shown = turn + first  # what the model reads
    opening = first.strip().splitlines()[0]
    assert shown.count(opening) == first.count(opening)
    assert turn.endswith("\n\n")


def test_dataset_columns_that_are_not_the_episodes_are_ignored_with_a_warning():
    row = {"task": "ticket/generated", "split": "train", "difficulty": "easy", "seed": 2}
    plain = TOOLS["ticket"]().reset(**row)
    with pytest.warns(UserWarning, match="ignores dataset column.*row_id"):
        with_id = TOOLS["ticket"]().reset(**row, row_id=17, source="export-2026")
    assert with_id == plain


def test_a_remote_tools_factory_pickles_for_async_trainers():
    import pickle

    factory = pickle.loads(pickle.dumps(remote("inbox", "http://localhost:8000")))
    assert factory.func is TOOLS["inbox"]
    assert factory.keywords == {"env_url": "http://localhost:8000", "penalised": False}


def test_the_tools_reward_is_the_grade_or_if_asked_the_grade_less_penalties():
    row = {"task": "ticket/generated", "split": "test", "difficulty": "easy", "seed": 4}
    for penalised in (True, False):
        tools = TOOLS["ticket"](penalised=penalised)
        tools.reset(**row)
        with pytest.raises(ValueError, match="allowed"):
            tools.set_priority("whenever")  # refused: costs the invalid-action penalty
        grade = oracle_through_tools(tools, row, reset=False)
        env = tools._env
        assert env.grade().value == pytest.approx(1.0)
        if penalised:
            assert grade == pytest.approx(1.0 - env.penalties)
            assert grade == pytest.approx(tools.total_reward) and grade < 1.0
        else:
            assert grade == pytest.approx(1.0)
