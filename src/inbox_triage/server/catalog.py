"""The task listing served at /tasks: ids, modes, action schemas and vocabularies, no truth."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from inbox_triage.domain import Engine
from inbox_triage.modes import MODE_VIEWS
from inbox_triage.observations import OBSERVATION_STYLES
from inbox_triage.scenarios import fixed_task_ids, load_task
from inbox_triage.scenarios.generator import PRESETS, SPLITS, generate
from inbox_triage.scenarios.sources import generated_task_ids

if TYPE_CHECKING:
    from inbox_triage.scenarios.pack_library import PackLibrary


@cache
def task_catalog() -> dict[str, Any]:
    tasks: list[dict[str, Any]] = []
    for task_id in [*fixed_task_ids(), *generated_task_ids()]:
        mode = task_id.split("/", 1)[0]
        generated = task_id.endswith("/generated")
        scenario = generate(mode, "train", "medium", 0) if generated else load_task(task_id)  # type: ignore[arg-type]
        view = MODE_VIEWS[mode]
        entry: dict[str, Any] = {
            "task_id": task_id,
            "mode": mode,
            "title": "Generated episodes" if generated else scenario.title,
            "difficulty": "any" if generated else scenario.difficulty,
            "objective": scenario.objective,
            "tickets": None if generated else len(scenario.tickets),
            "action_schema": view.schema(),
            "vocabulary": view.vocabulary(Engine(scenario)),
        }
        if generated:
            entry["reset_options"] = {
                "split": list(SPLITS),
                "difficulty": list(PRESETS),
                "seed": "any non-negative integer",
            }
        tasks.append(entry)
    return {"tasks": tasks, "default_task": "triage/easy"}


def pack_catalog(library: PackLibrary) -> list[dict[str, Any]]:
    """The operator's packs as tasks: one per mode, with the pack's own vocabulary."""
    entries: list[dict[str, Any]] = []
    for task_id in library.task_ids():
        mode, _, name = task_id.partition("/pack:")
        scenario = library.scenario(mode, name, 0, None)
        entries.append(
            {
                "task_id": task_id,
                "mode": mode,
                "title": f"{library.packs[name].name}: your own tickets",
                "difficulty": "pack",
                "objective": scenario.objective,
                "tickets": len(library.packs[name].tickets),
                "action_schema": MODE_VIEWS[mode].schema(),
                "vocabulary": MODE_VIEWS[mode].vocabulary(Engine(scenario)),
                "reset_options": {
                    "seed": "any non-negative integer",
                    "size": f"1 to {len(library.packs[name].tickets)} tickets",
                },
            }
        )
    return entries


def known_words(library: PackLibrary) -> frozenset[str]:
    """Every name the server offers (modes, tasks, splits, presets, knobs, fields, agents,
    vocabularies): an error may repeat these, though a request gave them too."""
    from dataclasses import fields

    from inbox_triage.agents import AGENTS
    from inbox_triage.models import TriageAction
    from inbox_triage.scenarios.generator import GenConfig

    words: set[str] = {*AGENTS, *SPLITS, *PRESETS, *TriageAction.model_fields, "generated"}
    words |= {f.name for f in fields(GenConfig)}
    words |= {"task", "task_id", "mode", "split", "difficulty", "seed", "episode_id", "size"}
    words |= {"observation", *OBSERVATION_STYLES}
    words |= {"agent", "tasks", "episodes", "action", "session_id", "pack", "data", "type"}

    def walk(value: Any) -> None:
        if isinstance(value, str):
            words.add(value)
            words.update(value.replace(":", "/").split("/"))
        elif isinstance(value, dict):
            for key, item in value.items():
                words.add(str(key))
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for entry in [*task_catalog()["tasks"], *pack_catalog(library)]:
        walk([entry["task_id"], entry["mode"], entry["vocabulary"], entry["action_schema"]])
    return frozenset(words)
