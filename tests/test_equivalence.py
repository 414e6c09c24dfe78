"""The lean engine and wire answer exactly what the code before them answered.

``tests/data/golden_episodes.json`` was recorded (``python tests/golden_episodes.py``) before
observations were made lean and the engine faster: 211 episodes over every mode, fixed and
generated tasks, the built-in agents and one that makes refused actions. Each is replayed here
and compared field by field: every observation field over the episode, the agent's actions,
the rewards, the final grade with its explanations and the state.
"""

from __future__ import annotations

import json

import pytest
from golden_episodes import FIELDS, GOLDEN, play

RECORDED = json.loads(GOLDEN.read_text())
EPISODES = RECORDED["episodes"]


def _name(record: dict) -> str:
    extra = ",".join(f"{k}={v}" for k, v in record["reset"].items())
    return f"{record['agent']}:{record['task']}:{record['seed']}{':' + extra if extra else ''}"


def _differences(recorded: dict, replayed: dict) -> list[str]:
    out = [
        f"observation field {name!r}"
        for name, old, new in zip(
            RECORDED["fields"], recorded["fields"], replayed["fields"], strict=True
        )
        if old != new
    ]
    keys = ("steps", "grade", "actions", "rewards", "final_grade", "state")
    out += [key for key in keys if recorded[key] != replayed[key]]
    return out


def test_the_recording_covers_every_mode_task_kind_and_agent():
    assert RECORDED["fields"] == FIELDS, "an observation field was added or removed: re-record"
    modes = {r["task"].split("/")[0] for r in EPISODES}
    assert modes == {"triage", "ticket", "inbox"}
    assert {r["agent"] for r in EPISODES} == {"noop", "random", "heuristic", "oracle", "garbling"}
    assert any(r["task"].endswith("/generated") for r in EPISODES)
    assert len(EPISODES) >= 200 and sum(r["steps"] for r in EPISODES) > 2000


@pytest.mark.parametrize("recorded", EPISODES, ids=_name)
def test_full_observations_rewards_and_grades_are_unchanged(recorded):
    key = {k: recorded[k] for k in ("agent", "task", "seed", "reset")}
    assert _differences(recorded, play(key)) == []
