"""Data sets from the environment, reproducible from their arguments: prompts for GRPO, and the
oracle's decisions as chat SFT data (single-turn decisions and tool-call conversations).

Rows name their episode (mode, task, split, difficulty, seed, knobs), so a reward function or an
environment adapter can replay them. ``jsonl`` needs nothing; ``parquet`` and ``hf`` (a
``datasets`` folder for ``load_from_disk``) need the ``train`` extra. ``skyrl`` writes prompts as
SkyRL's rows (JSON lines, or parquet for a ``.parquet`` path), played by
``inbox_triage.integrations.skyrl``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from inbox_triage.agents import make_agent
from inbox_triage.env import InboxTriageEnv
from inbox_triage.prompting.decisions import decision_json
from inbox_triage.prompting.episode_tools import reset_args
from inbox_triage.prompting.tools import SYSTEM_PROMPTS, TOOLS
from inbox_triage.training.rewards import decision_row, prompt_for

FORMATS = ("jsonl", "parquet", "hf", "skyrl")
# The id inbox_triage.integrations.skyrl.register() gives the env (the rows' env_class).
SKYRL_ENV_CLASS = "inbox-triage"
# The user turn of a tools prompt; TRL appends the first observation after it.
START_TURN = "Here is your shift. Work it with the tools.\n\n"
KINDS = ("decisions", "tools")


def episode_rows(
    mode: str, split: str, difficulty: str, n: int, seed: int = 0
) -> Iterator[dict[str, Any]]:
    """``n`` episodes of a mode's generated task with seeds ``seed`` ... ``seed + n - 1``:
    one-email triage episodes for the single-turn path, whole episodes otherwise."""
    for i in range(n):
        if mode == "triage-decision":
            yield decision_row(split, difficulty, seed + i)
        else:
            yield {
                "mode": mode,
                "task": f"{mode}/generated",
                "split": split,
                "difficulty": difficulty,
                "seed": seed + i,
            }


def prompt_rows(
    mode: str, split: str, difficulty: str, n: int, seed: int = 0
) -> Iterator[dict[str, Any]]:
    """Rows for GRPO: a one-email decision prompt (``triage-decision``), or a mode's system
    prompt and a short user turn for the tools adapter: TRL adds the episode's first
    observation (what ``reset`` returns) to that turn, so the row does not hold it too."""
    for row in episode_rows(mode, split, difficulty, n, seed):
        if mode == "triage-decision":
            yield {**row, "prompt": prompt_for(row)}
        else:
            yield {
                **row,
                "prompt": [
                    {"role": "system", "content": SYSTEM_PROMPTS[mode]},
                    {"role": "user", "content": START_TURN},
                ],
            }


def skyrl_rows(
    mode: str, split: str, difficulty: str, n: int, seed: int = 0
) -> Iterator[dict[str, Any]]:
    """Rows as SkyRL reads them: the mode's tools prompt (the env adds the first observation),
    ``env_class``, a ``reward_spec`` whose rule is the env itself (SkyRL's docs allow ``rule``
    or ``reward_model``), the episode as ``extra_info``, and ``data_source`` (SkyRL groups its
    eval metrics by it). ``triage-decision`` rows are one-email triage episodes."""
    for row in episode_rows(mode, split, difficulty, n, seed):
        yield {
            "data_source": f"inbox-triage/{row['mode']}",
            "prompt": [
                {"role": "system", "content": SYSTEM_PROMPTS[row["mode"]]},
                {"role": "user", "content": START_TURN},
            ],
            "env_class": SKYRL_ENV_CLASS,
            "reward_spec": {"method": "rule", "ground_truth": None},
            "extra_info": row,
        }


def _oracle(row: dict[str, Any]) -> tuple[InboxTriageEnv, Any, Any]:
    env = InboxTriageEnv()
    observation = env.reset(**reset_args(row), observation="full")
    agent = make_agent("oracle")
    agent.reset(observation.model_dump(), scenario=env.scenario, seed=int(row["seed"]))
    return env, observation, agent


def decision_demo(row: dict[str, Any]) -> dict[str, Any]:
    """The oracle's decision for a one-email row, as a prompt and a completion (SFT)."""
    env, observation, agent = _oracle(row)
    for _ in range(8):  # a request for evidence may come first: the decision is what counts
        action = agent.act(observation.model_dump())
        if action.get("action_type", "triage_email") == "triage_email" and "priority" in action:
            completion = [{"role": "assistant", "content": decision_json(action)}]
            return {**row, "prompt": prompt_for(row), "completion": completion}
        observation = env.step(action)
    raise RuntimeError(f"the oracle made no decision on {row}")


def tool_demo(row: dict[str, Any]) -> dict[str, Any]:
    """The oracle's episode through the mode's tools, as a chat with tool calls and results
    (tool arguments as JSON text, which every format keeps as it is)."""
    mode = row["mode"]
    tools = TOOLS[mode]()
    first = tools.reset(**row)
    assert tools._env is not None
    agent = make_agent("oracle")
    agent.reset(tools.observation, scenario=tools._env.scenario, seed=int(row["seed"]))
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM_PROMPTS[mode]},
        {"role": "user", "content": first},
    ]
    while not tools.observation.get("done"):
        action = dict(agent.act(tools.observation))
        name = action.pop("action_type", None) or "triage_email"
        if mode == "ticket":
            action.pop("ticket_id", None)
        result = getattr(tools, name)(**action)
        call = {"type": "function", "function": {"name": name, "arguments": json.dumps(action)}}
        messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
        messages.append({"role": "tool", "name": name, "content": result})
    return {**row, "messages": messages, "grade": tools.get_reward()}


def demo_rows(
    kind: str, mode: str, split: str, difficulty: str, n: int, seed: int = 0
) -> Iterator[dict[str, Any]]:
    if kind == "decisions":
        for row in episode_rows("triage-decision", split, difficulty, n, seed):
            yield decision_demo(row)
    else:
        for row in episode_rows(mode, split, difficulty, n, seed):
            yield tool_demo(row)


def write(rows: list[dict[str, Any]], out: Path, fmt: str) -> Path:
    """Writes rows as JSON lines, a parquet file or a ``datasets`` folder (``skyrl``: by the
    path's suffix, parquet or JSON lines)."""
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r} is not one of {', '.join(FORMATS)}")
    if fmt == "skyrl":  # SkyRL reads parquet and JSON lines
        fmt = "parquet" if out.suffix == ".parquet" else "jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "jsonl":
        with out.open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, sort_keys=True) + "\n")
        return out
    try:
        from datasets import Dataset
    except ImportError:
        raise ValueError(
            f"--format {fmt} needs the datasets package: pip install -e '.[train]'"
        ) from None
    data = Dataset.from_list(rows)
    if fmt == "parquet":
        data.to_parquet(str(out))
    else:
        data.save_to_disk(str(out))
    return out


def read(path: Path) -> list[dict[str, Any]]:
    """Rows back from any of the formats (by the path's shape: a folder is ``hf``)."""
    if path.is_dir():
        from datasets import load_from_disk

        return [_without_fill(r) for r in load_from_disk(str(path))]
    if path.suffix == ".parquet":
        from datasets import Dataset

        return [_without_fill(r) for r in Dataset.from_parquet(str(path))]
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _without_fill(row: dict[str, Any]) -> dict[str, Any]:
    """A row as written: columnar formats give every chat message every key (``None`` where
    that message had none)."""
    for key in ("messages", "prompt", "completion"):
        if isinstance(row.get(key), list):
            row[key] = [
                {k: v for k, v in m.items() if v is not None} if isinstance(m, dict) else m
                for m in row[key]
            ]
    return {k: v for k, v in row.items() if v is not None}
