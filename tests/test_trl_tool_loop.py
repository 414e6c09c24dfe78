"""TRL's own tool loop on our tool classes: a real ``GRPOTrainer`` step (``inbox-triage train
grpo --mode ticket``'s path) in which the model's generations are scripted ``<tool_call>`` texts.
TRL parses them with its chat template's parser, dispatches them to the instances it made from
``environment_factory``, feeds the answers back and scores each rollout with ``get_reward``.
No model is downloaded: a tiny random model with a byte-level tokenizer only carries the text.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from inbox_triage.training.tiny import tiny_text_checkpoint

pytest.importorskip("trl", reason="the train extra is not installed: pip install -e '.[train]'")

from inbox_triage.agents import make_agent  # noqa: E402
from inbox_triage.env import InboxTriageEnv  # noqa: E402
from inbox_triage.prompting.tools import TicketTools  # noqa: E402
from inbox_triage.training import trainers  # noqa: E402
from inbox_triage.training.config import TrainConfig  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")
SEEDS = (11, 12)
SPLIT, DIFFICULTY = "train", "easy"
WRONG = {"action_type": "set_priority", "value": "whenever"}  # refused: not a priority


def oracle_actions(seed: int) -> tuple[str, list[dict[str, Any]]]:
    """The episode's ticket id and the oracle's actions on it."""
    env = InboxTriageEnv()
    task = "ticket/generated"
    observation = env.reset(
        task=task, split=SPLIT, difficulty=DIFFICULTY, seed=seed, observation="full"
    ).model_dump()
    oracle = make_agent("oracle")
    oracle.reset(observation, scenario=env.scenario, seed=seed)
    ticket, actions = observation["ticket_id"], []
    while not env.done:
        actions.append(oracle.act(observation))
        observation = env.step(actions[-1]).model_dump()
    return ticket, actions


def grade_of(seed: int, actions: list[dict[str, Any]]) -> float:
    """What the same actions earn in process (the reward TRL should be given)."""
    env = InboxTriageEnv()
    env.reset(task="ticket/generated", split=SPLIT, difficulty=DIFFICULTY, seed=seed)
    for action in actions:
        env.step(action)
    return env.grade().value


def as_text(action: dict[str, Any]) -> str:
    arguments = {k: v for k, v in action.items() if k != "action_type"}
    call = json.dumps({"name": action["action_type"], "arguments": arguments})
    return f"<tool_call>\n{call}\n</tool_call>"


@pytest.fixture(scope="module")
def scripts() -> dict[str, tuple[int, list[dict[str, Any]]]]:
    """Per ticket id: its seed and what the model will "write": the oracle's calls, and for
    the second episode a refused call first and the ticket sent to the wrong team."""
    out = {}
    for i, seed in enumerate(SEEDS):
        ticket, actions = oracle_actions(seed)
        if i == 1:
            actions = [WRONG] + [
                {**a, "value": "shipping" if a["value"] != "shipping" else "billing"}
                if a["action_type"] == "route_team"
                else a
                for a in actions
            ]
        out[ticket] = (seed, actions)
    return out


@pytest.fixture(scope="module")
def model(tmp_path_factory, scripts) -> Path:
    corpus = [as_text(a) for _, actions in scripts.values() for a in actions]
    corpus += [
        TicketTools().reset(task="ticket/generated", split=SPLIT, difficulty=DIFFICULTY, seed=seed)
        for seed in SEEDS
    ]
    return tiny_text_checkpoint(tmp_path_factory.mktemp("text-model"), corpus)


def test_a_grpo_step_plays_scripted_tool_calls_through_trls_loop(
    model, scripts, tmp_path, monkeypatch
):
    import trl

    from inbox_triage.prompting.checkpoint import load

    _, tokenizer = load(model)
    prompts_seen: list[str] = []

    def scripted(self, prompt_ids, images, multimodal_fields, num_generations, **_):
        """The model's turn: the next call of the episode's script (its ticket id is in the
        prompt, and the number of assistant turns so far says which call), then plain text."""
        completions = []
        for ids in prompt_ids:
            text = tokenizer.decode(ids, skip_special_tokens=False)
            prompts_seen.append(text)
            ticket = next(t for t in scripts if f"Ticket {t} " in text)
            turn = text.count("<|im_start|>assistant") - 1
            script = scripts[ticket][1]
            answer = as_text(script[turn]) if turn < len(script) else "That is all."
            completions.append(tokenizer.encode(answer + "<|im_end|>", add_special_tokens=False))
        return completions, None

    monkeypatch.setattr(trl.GRPOTrainer, "_generate_single_turn", scripted)
    calls: dict[int, list[list[str]]] = {}  # instance -> the rollouts it played -> its calls
    rewards: list[float] = []
    reset, act, get_reward = TicketTools.reset, TicketTools._act, TicketTools.get_reward

    def spy_reset(self, **row):
        calls.setdefault(id(self), []).append([])
        return reset(self, **row)

    def spy_act(self, action):
        calls[id(self)][-1].append(json.dumps(action, sort_keys=True))
        return act(self, action)

    def spy_reward(self):
        rewards.append(get_reward(self))
        return rewards[-1]

    monkeypatch.setattr(TicketTools, "reset", spy_reset)
    monkeypatch.setattr(TicketTools, "_act", spy_act)
    monkeypatch.setattr(TicketTools, "get_reward", spy_reward)
    config = TrainConfig(
        model=str(model),
        out=str(tmp_path / "grpo"),
        mode="ticket",
        split=SPLIT,
        difficulty=DIFFICULTY,
        examples=len(SEEDS),
        steps=1,
        batch=4,
        generations=2,
        completion_length=16000,
        lora=False,
        first_seed=SEEDS[0],
        save_every=10,
    )
    trainers.run_grpo(config, say=lambda _: None)

    # Each rollout's reward is what its calls earn in process: the oracle's 1.0, and less for
    # the episode whose ticket went to the wrong team.
    expected = sorted(grade_of(s, actions) for s, actions in scripts.values() for _ in range(2))
    assert sorted(rewards) == pytest.approx(expected)
    assert expected[0] < expected[-1] == pytest.approx(1.0)
    logged = list(csv.DictReader((tmp_path / "grpo" / "metrics.csv").open()))
    assert float(logged[0]["reward"]) == pytest.approx(sum(expected) / 4, abs=1e-4)

    # Each instance made exactly the calls it was given (TRL reuses instances through reset;
    # TRL's probe instance made none), and every episode ran to its end.
    played = sorted(tuple(r) for rollouts in calls.values() for r in rollouts if r)
    given = sorted(
        tuple(json.dumps(a, sort_keys=True) for a in script)
        for _, script in scripts.values()
        for _ in range(2)
    )
    assert played == given

    # The refusal reached the model as TRL's tool error, naming the field and allowed values.
    refused = [p for p in prompts_seen if "is not an allowed value" in p]
    assert refused and all("allowed: low, medium, high, urgent" in p for p in refused)


def test_smollm2_takes_the_tool_template_the_docs_apply():
    """The README's GRPO snippet on the project's own model: SmolLM2's template cannot render
    tools (TRL refuses it), and after ensure_tool_template TRL accepts it and the prompt shows
    every tool of the mode and how to call one."""
    from transformers import AutoTokenizer
    from trl.chat_template_utils import supports_tool_calling

    from inbox_triage.prompting.checkpoint import ensure_tool_template
    from inbox_triage.prompting.tools import tool_names, tool_schemas
    from inbox_triage.training.model import gguf_path

    try:
        source = gguf_path()
    except FileNotFoundError as missing:
        pytest.skip(str(missing))
    tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
    assert not supports_tool_calling(tokenizer)
    assert ensure_tool_template(tokenizer)
    assert supports_tool_calling(tokenizer)
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Ticket T-1"}], tools=tool_schemas("ticket"), tokenize=False
    )
    assert "<tool_call>" in prompt
    assert all(f'"{name}"' in prompt for name in tool_names("ticket"))
