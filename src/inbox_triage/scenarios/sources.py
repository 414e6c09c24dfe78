"""One door to every scenario source: fixed tasks, the generator and imported packs.

A task id is ``MODE/NAME``: a fixed task (``triage/easy``, ``triage/easy@v1``),
``MODE/generated`` (which takes a split, a difficulty preset, a seed and knob overrides; the
newest generator data, or an older one pinned as ``MODE/generated@v1``) or ``MODE/pack:PATH``
(your own tickets; takes a seed and a size).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from inbox_triage.domain import MODES, Scenario
from inbox_triage.scenarios.generator import SPLITS, generate
from inbox_triage.scenarios.generator.data import GENERATOR_VERSIONS
from inbox_triage.scenarios.loader import ScenarioError, fixed_task_ids, load_task
from inbox_triage.scenarios.packs import pack_scenario

if TYPE_CHECKING:
    from inbox_triage.scenarios.pack_library import PackLibrary

DEFAULT_TASK = "triage/easy"
# What a reset takes besides the generator's knobs (generator.KNOBS): every route reads these.
EPISODE_FIELDS = frozenset(
    {
        "task",
        "task_id",
        "mode",
        "split",
        "difficulty",
        "seed",
        "episode_id",
        "observation",
        "reward_mode",
    }
)
GENERATED = "generated"
PACK_PREFIX = "pack:"


def generated_task_ids() -> list[str]:
    return [f"{mode}/{GENERATED}" for mode in MODES]


def all_task_ids() -> list[str]:
    """Fixed tasks, then one generated task per mode."""
    return [*fixed_task_ids(), *generated_task_ids()]


def is_generated(task_id: str) -> bool:
    """``MODE/generated`` or a pinned ``MODE/generated@vN``."""
    return task_id.split("/", 1)[-1].partition("@v")[0] == GENERATED


def generator_version(task_id: str) -> int | None:
    """The generator version a generated task id pins (None: the newest)."""
    _, _, pinned = task_id.partition("@v")
    if not pinned:
        return None
    if not pinned.isdigit() or int(pinned) not in GENERATOR_VERSIONS:
        known = ", ".join(f"@v{v}" for v in GENERATOR_VERSIONS)
        raise ScenarioError(f"task {task_id!r}: the generator has versions {known}")
    return int(pinned)


def resolve_task_id(task: str | None = None, mode: str | None = None) -> str:
    """What a user typed, as a task id: a full id, a unique bare name, or a mode alone
    (which means that mode's generated task)."""
    for name, value in (("task", task), ("mode", mode)):
        if value is not None and not isinstance(value, str):
            raise ScenarioError(f"{name} must be a string, not {type(value).__name__}", name)
    if mode is not None and mode not in MODES:
        raise ScenarioError(f"mode {mode!r} is not one of {', '.join(MODES)}")
    if task is None:
        return f"{mode}/{GENERATED}" if mode else DEFAULT_TASK
    if task.startswith(PACK_PREFIX):
        if mode is None:
            raise ScenarioError(
                f"a pack plays in a mode: say triage/{task}, ticket/{task} or inbox/{task}"
            )
        return f"{mode}/{task}"
    if "/" in task:
        if mode is not None and not task.startswith(mode + "/"):
            raise ScenarioError(f"task {task!r} is not a {mode} task")
        return task
    known = [t for t in all_task_ids() if mode is None or t.startswith(mode + "/")]
    candidates = [t for t in known if t.split("/", 1)[1] == task]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise ScenarioError(f"unknown task {task!r} (known: {', '.join(known)})")
    raise ScenarioError(f"task {task!r} is ambiguous: one of {', '.join(candidates)}")


def make_scenario(
    task: str | None = None,
    mode: str | None = None,
    split: str | None = None,
    difficulty: str | None = None,
    seed: int | None = None,
    packs: PackLibrary | None = None,
    **knobs: Any,
) -> Scenario:
    """The scenario a reset asks for. With ``packs`` (a server's), a ``pack:`` task names one
    of those packs and nothing is read from disk; without, it is a path (in-process use).
    """
    for name, value in (("split", split), ("difficulty", difficulty)):
        if value is not None and not isinstance(value, str):
            raise ScenarioError(f"{name} must be a string, not {type(value).__name__}", name)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ScenarioError(f"seed must be a non-negative integer, not {seed!r}", "seed")
    if packs is not None and isinstance(task, str) and PACK_PREFIX in task:
        head, _, name = task.partition(PACK_PREFIX)
        pack_mode = head[:-1] if head.endswith("/") else (mode if not head else None)
        if head and mode is not None and pack_mode != mode:
            pack_mode = None
        packs.check(pack_mode, name)
        _reject_extras(split, difficulty, knobs)
        return packs.scenario(pack_mode, name, 0 if seed is None else seed, knobs.get("size"))
    task_id = resolve_task_id(task, mode)
    task_mode, _, name = task_id.partition("/")
    if name.startswith(PACK_PREFIX):
        if task_mode not in MODES:
            raise ScenarioError(f"mode {task_mode!r} is not one of {', '.join(MODES)}")
        _reject_extras(split, difficulty, knobs)
        return pack_scenario(
            task_mode,
            name[len(PACK_PREFIX) :],
            0 if seed is None else seed,  # type: ignore[arg-type]
            knobs.get("size"),
        )
    if is_generated(task_id):
        generated_mode = task_id.split("/", 1)[0]
        if generated_mode not in MODES:
            raise ScenarioError(f"mode {generated_mode!r} is not one of {', '.join(MODES)}")
        return generate(
            generated_mode,  # type: ignore[arg-type]
            split=split or "train",
            difficulty=difficulty or "medium",
            seed=0 if seed is None else seed,
            version=generator_version(task_id),
            **knobs,
        )
    extras = {"split": split, "difficulty": difficulty, **knobs}
    given = sorted(k for k, v in extras.items() if v is not None)
    if given:
        generated = ", ".join(generated_task_ids())
        raise ScenarioError(
            f"{', '.join(given)} only apply to generated tasks ({generated}); "
            f"{task_id} is a fixed task"
        )
    return load_task(task_id)


def _reject_extras(split: str | None, difficulty: str | None, knobs: dict[str, Any]) -> None:
    extras = {
        "split": split,
        "difficulty": difficulty,
        **{k: v for k, v in knobs.items() if k != "size"},
    }
    given = sorted(k for k, v in extras.items() if v is not None)
    if given:
        raise ScenarioError(f"{', '.join(given)} do not apply to packs (size and seed do)")


__all__ = [
    "DEFAULT_TASK",
    "SPLITS",
    "all_task_ids",
    "generated_task_ids",
    "generator_version",
    "is_generated",
    "make_scenario",
    "resolve_task_id",
]
