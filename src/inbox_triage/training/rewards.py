"""The single-turn fast path: a row is a one-email triage episode, its prompt is that email, and
the reward of a completion is the environment's grade after stepping the decision it parsed to.

A row names its episode (``task``, ``split``, ``difficulty``, ``seed`` and any knobs), so the
reward replays it from nothing: the same row always gives the same prompt and the same grade.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inbox_triage.env import InboxTriageEnv
from inbox_triage.models import TriageObservation
from inbox_triage.prompting.decisions import decision_action, decision_messages, parse_decision
from inbox_triage.prompting.decisions import routing_guide as _guide
from inbox_triage.prompting.episode_tools import reset_args
from inbox_triage.scenarios.generator import KNOBS

ROW_FIELDS = ("mode", "task", "split", "difficulty", "seed", "size")
EPISODE_FIELDS = ("task", "split", "difficulty", "seed")


def decision_row(split: str, difficulty: str, seed: int, **knobs: Any) -> dict[str, Any]:
    """The row of one generated one-email triage episode."""
    return {
        "mode": "triage",
        "task": "triage/generated",
        "split": split,
        "difficulty": difficulty,
        "seed": int(seed),
        "size": 1,
        **knobs,
    }


def start(row: Mapping[str, Any]) -> tuple[InboxTriageEnv, TriageObservation]:
    env = InboxTriageEnv()
    return env, env.reset(**reset_args(row))


def prompt_for(row: Mapping[str, Any], with_guide: bool = False) -> list[dict[str, str]]:
    """The chat for the row's email (the first one of its episode). ``with_guide`` adds the
    inbox's routing guide (about 350 tokens: worth it for packs with their own teams; the
    generated inboxes of a mode share one org, which a model learns from examples)."""
    _, observation = start(row)
    email = observation.current_email
    if email is None:
        raise ValueError(f"row {dict(row)} is not a triage episode with an email to decide")
    guide = _guide(observation.policy) if with_guide else ""
    return decision_messages(email, observation.vocabulary, guide)


def completion_text(completion: Any) -> str:
    """A completion as text: TRL passes a string, or a list of chat messages."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion:
        last = completion[-1]
        if isinstance(last, Mapping):
            return str(last.get("content") or "")
    return ""


def grade_decision(row: Mapping[str, Any], text: str) -> float:
    """The grade of the row's episode after the decision in ``text``; 0 for what does not
    parse, and for a decision the environment refuses."""
    decision = parse_decision(text)
    if decision is None:
        return 0.0
    env, observation = start(row)
    email = observation.current_email
    if email is None:
        return 0.0
    after = env.step(decision_action(decision, email["email_id"]))
    if after.last_action_error is not None:
        return 0.0
    return float(env.grade().value)


def environment_reward(
    prompts: Sequence[Any] | None = None,
    completions: Sequence[Any] | None = None,
    **columns: Any,
) -> list[float]:
    """A TRL reward function (``GRPOTrainer(reward_funcs=environment_reward)``): for each
    completion, the environment's grade of its row's episode. TRL passes the dataset's other
    columns as lists, one value per completion."""
    completions = completions or []
    rewards = []
    for i, completion in enumerate(completions):
        row = {k: v[i] for k, v in columns.items() if k in ROW_FIELDS or _is_knob(k)}
        rewards.append(grade_decision(row, completion_text(completion)))
    return rewards


def _is_knob(name: str) -> bool:
    return name in KNOBS
