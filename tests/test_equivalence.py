"""The lean engine and wire answer exactly what the code before them answered.

``tests/data/golden_episodes.json`` was recorded (``python tests/golden_episodes.py``) before
observations were made lean and the engine faster, and recorded again, with full observations,
when grader 2 changed what texts earn, and again when generator v3 and grader 3 (issue 29) drew
what an agent sees apart from the truth (generator v1 and v2's scenarios unchanged, now both
pinned here): episodes over every mode, fixed and generated tasks, the built-in agents and one
that makes refused actions. Each is replayed here
and compared field by field: every observation field over the episode, the agent's actions,
the rewards, the final grade with its explanations and the state.
"""

from __future__ import annotations

import json

import pytest
from golden_episodes import FIELDS, GOLDEN, play

from inbox_triage.env import InboxTriageEnv
from inbox_triage.observations import ObservationMemory
from inbox_triage.scenarios import ScenarioError

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


def _key(recorded: dict) -> dict:
    return {k: recorded[k] for k in ("agent", "task", "seed", "reset")}


@pytest.mark.parametrize("recorded", EPISODES, ids=_name)
def test_full_observations_rewards_and_grades_are_unchanged(recorded):
    assert _differences(recorded, play(_key(recorded), "full")) == []


@pytest.mark.parametrize("recorded", EPISODES, ids=_name)
def test_lean_observations_made_whole_are_the_full_ones(recorded):
    """What a lean episode sends, rebuilt by the memory every driver uses, is exactly the
    full observation: the agent acts the same and earns the same."""
    memory = ObservationMemory()
    assert _differences(recorded, play(_key(recorded), "lean", memory.update)) == []


def test_lean_steps_leave_out_what_was_sent_and_keep_what_changed():
    lean, full = InboxTriageEnv(), InboxTriageEnv()
    first = lean.reset(task="triage/generated", size=12, seed=3).model_dump()
    full.reset(task="triage/generated", size=12, seed=3, observation="full")
    vocabulary = first["vocabulary"]
    assert vocabulary and first["policy"] and all("body" in e for e in first["inbox"])
    target = first["current_email"]["email_id"]
    action = {
        "email_id": target,
        "priority": "low",
        "category": vocabulary["categories"][0],
        "route_to": vocabulary["queues"][0],
    }
    step, whole = lean.step(action).model_dump(), full.step(action).model_dump()
    assert step["vocabulary"] is None and step["objective"] == "" and step["policy"] is None
    assert whole["vocabulary"] == vocabulary and whole["objective"] == first["objective"]
    listed = {e["email_id"]: e for e in step["inbox"]}
    assert "body" not in listed[target] and listed[target]["processed"] is True
    current = step["current_email"]["email_id"]
    assert "body" in step["current_email"] and "body" not in listed[current]
    # Mail still to triage comes whole: an agent that keeps nothing can still act on it.
    assert all("body" in e for i, e in listed.items() if i not in (target, current))
    assert len(json.dumps(step)) < len(json.dumps(whole)) - 1500


def test_an_unknown_observation_style_is_refused_and_names_the_styles():
    env = InboxTriageEnv()
    with pytest.raises(ScenarioError, match="observation must be one of lean, full"):
        env.reset(task="triage/easy", observation="everything")
