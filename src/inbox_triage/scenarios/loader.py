"""Loads the fixed scenario packs (tasks, org profiles, policies) shipped as data files.

Files are versioned (``name.vN.yaml``); a task id such as ``triage/easy`` takes the newest version
and ``triage/easy@v1`` pins one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from inbox_triage.domain import MODES, Mode, OrgProfile, Policy, Scenario, Settings, Ticket
from inbox_triage.domain.text import sentences

_VERSIONED = re.compile(r"^(?P<name>[a-z0-9_]+)\.v(?P<version>\d+)\.yaml$")


class ScenarioError(ValueError):
    """A task id that does not exist, a reset field it cannot use, or a data file that does
    not validate; ``field`` and ``allowed`` say which field and what it may be, where known."""

    def __init__(
        self, message: str, field: str | None = None, allowed: list[str] | None = None
    ) -> None:
        super().__init__(message)
        self.field = field
        self.message = message
        self.allowed = allowed


class TaskFile(BaseModel):
    """The on-disk shape of a task: a scenario whose org and policy are named, not inlined."""

    model_config = ConfigDict(extra="forbid")

    id: str
    version: int
    mode: Mode
    title: str
    difficulty: str
    objective: str
    org: str
    policy: str
    settings: Settings
    tickets: tuple[Ticket, ...]


@dataclass(frozen=True, slots=True)
class TaskInfo:
    """What a task listing shows: never the truth."""

    id: str
    mode: str
    title: str
    difficulty: str
    tickets: int
    version: int


def data_root() -> Traversable:
    return resources.files("inbox_triage.scenarios") / "data"


def versions_in(folder: Traversable) -> dict[str, dict[int, Traversable]]:
    found: dict[str, dict[int, Traversable]] = {}
    for entry in folder.iterdir():
        match = _VERSIONED.match(entry.name)
        if match:
            found.setdefault(match["name"], {})[int(match["version"])] = entry
    return found


def _pick(folder: Traversable, name: str, version: int | None, kind: str) -> Traversable:
    versions = versions_in(folder).get(name)
    if not versions:
        known = sorted(versions_in(folder))
        raise ScenarioError(f"unknown {kind} {name!r} (known: {', '.join(known)})")
    if version is None:
        return versions[max(versions)]
    if version not in versions:
        raise ScenarioError(f"{kind} {name!r} has no version {version} (has {sorted(versions)})")
    return versions[version]


# libyaml's safe loader where PyYAML has it (about ten times faster on the generator's data,
# which every first reset and server start reads); the pure-Python one otherwise.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(entry: Traversable) -> dict:
    data = yaml.load(entry.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)  # noqa: S506
    if not isinstance(data, dict):
        raise ScenarioError(f"{entry.name}: expected a mapping at the top level")
    return data


@cache
def load_policy(name: str = "support_policy", version: int | None = None) -> Policy:
    """The policy's rules (YAML) with its text (the markdown file of the same name)."""
    entry = _pick(data_root() / "policies", name, version, "policy")
    text_entry = data_root() / "policies" / entry.name.replace(".yaml", ".md")
    return Policy(
        **read_yaml(entry),
        text=text_entry.read_text(encoding="utf-8"),
        screen_examples=screen_examples(),
    )


SCREEN_SETS = ("tuning", "unseen", "fresh", "final", "plain")
_SLOT = re.compile(r"\{(\w+)\}")
_SLOT_FILL = {"first_name": "Alex", "full_name": "Alex Morgan", "agent": "Sam"}


def ordinary_sentences() -> list[str]:
    """Sentences of the replies and requests support leads wrote, blind, for generator v4's
    mail, with their placeholders filled: what a reply that breaks nothing says (a snapshot of
    every eighth, screen/ordinary.yaml, teaches the screen; the rest check it)."""
    out: list[str] = []
    for entry in sorted((data_root() / "generator" / "mail").iterdir(), key=lambda e: e.name):
        for email in read_yaml(entry)["emails"]:
            ref = email.get("reference") or {}
            for text in (ref.get("reply"), ref.get("request")):
                if text:
                    out += [
                        _SLOT.sub(lambda m: _SLOT_FILL.get(m[1], "ACC-1042"), s)
                        for s in sentences(text)
                    ]
    return out


@cache
def screen_examples() -> tuple[tuple[str, str], ...]:
    """The hand-written breaches and look-alikes the policy screen learns from (each set written
    by someone who never saw the screen; a sixth, in the tests, is never learned from), and
    ordinary reply sentences (``ordinary.yaml``)."""
    import inbox_triage.scenarios.screen_cache  # noqa: F401  (fitted halves kept per machine)

    examples: list[tuple[str, str]] = []
    for name in SCREEN_SETS:
        data = read_yaml(data_root() / "policies" / "screen" / f"{name}.yaml")
        examples += [(b["kind"], b["text"]) for b in data["breaches"]]
        examples += [("fine", a["text"]) for a in data["lookalikes"]]
    examples += [("fine", s) for s in ordinary_snapshot()]
    return tuple(examples)


def ordinary_snapshot() -> list[str]:
    """The ordinary reply sentences the screen learns from (screen/ordinary.yaml)."""
    return list(read_yaml(data_root() / "policies" / "screen" / "ordinary.yaml")["sentences"])


@cache
def load_org(name: str, version: int | None = None) -> OrgProfile:
    entry = _pick(data_root() / "orgs", name, version, "org profile")
    data = read_yaml(entry)
    data.pop("version", None)
    return OrgProfile(**data)


def _split_id(task_id: str) -> tuple[str, str, int | None]:
    base, _, pinned = task_id.partition("@v")
    mode, sep, name = base.partition("/")
    if not sep or mode not in MODES or not name:
        raise ScenarioError(
            f"task id {task_id!r} must look like MODE/NAME with MODE one of {', '.join(MODES)}"
        )
    if pinned and not pinned.isdigit():
        raise ScenarioError(f"task id {task_id!r}: version must be a number, as in {base}@v1")
    return mode, name, int(pinned) if pinned else None


def _named(ref: str) -> tuple[str, int | None]:
    """``support_policy@v2`` -> (support_policy, 2); a bare name takes the newest version."""
    name, _, pinned = ref.partition("@v")
    if pinned and not pinned.isdigit():
        raise ScenarioError(f"{ref!r}: a version must be a number, as in {name}@v1")
    return name, int(pinned) if pinned else None


@cache
def load_task(task_id: str) -> Scenario:
    """Parses and validates one fixed task into a :class:`Scenario`."""
    mode, name, version = _split_id(task_id)
    entry = _pick(data_root() / "tasks" / mode, name, version, f"{mode} task")
    try:
        task = TaskFile(**read_yaml(entry))
        return Scenario(
            id=task.id,
            version=task.version,
            mode=task.mode,
            title=task.title,
            difficulty=task.difficulty,
            objective=task.objective,
            org=load_org(*_named(task.org)),
            policy=load_policy(*_named(task.policy)),
            settings=task.settings,
            tickets=task.tickets,
        )
    except ValidationError as exc:
        raise ScenarioError(f"{mode}/{entry.name} does not validate:\n{exc}") from exc


def fixed_task_ids(mode: str | None = None) -> list[str]:
    """Every fixed task id (newest versions), in mode order then file order."""
    ids: list[str] = []
    for each in MODES:
        if mode is not None and each != mode:
            continue
        names = versions_in(data_root() / "tasks" / each)
        ids.extend(f"{each}/{name}" for name in sorted(names, key=_difficulty_order))
    return ids


def _difficulty_order(name: str) -> tuple[int, str]:
    for rank, prefix in enumerate(("easy", "medium", "hard")):
        if name.startswith(prefix):
            return rank, name
    return 3, name


def task_info(task_id: str) -> TaskInfo:
    scenario = load_task(task_id)
    return TaskInfo(
        id=scenario.id,
        mode=scenario.mode,
        title=scenario.title,
        difficulty=scenario.difficulty,
        tickets=len(scenario.tickets),
        version=scenario.version,
    )
