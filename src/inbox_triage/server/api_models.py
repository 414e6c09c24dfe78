"""What the hand-read HTTP routes take and answer, as pydantic models for ``/openapi.json``
(``server/api_docs.py`` writes them in).

The session routes, ``/baseline`` and the console's ``/web/api/*`` read their JSON by hand (one
body limit, one error shape, the seeds' bare actions), so FastAPI sees no model on them. The
models here are made from what already says each fact: the wire types (``models.py``), each
mode's action table (``ModeView.actions``) and its tools' descriptions, the reset's signature
and the generator's knobs, the baseline's request, the run records and replays. They document;
no route validates with them. The tests hold the server's real answers to them.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable, Mapping
from dataclasses import fields
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.fields import FieldInfo

from inbox_triage.action_tools import BOOLEAN, SPECS
from inbox_triage.domain import MODES
from inbox_triage.env import InboxTriageEnv
from inbox_triage.evaluation.records import EpisodeRecord
from inbox_triage.evaluation.replay import RECORD_FIELDS, ReplayStep
from inbox_triage.evaluation.runner import Summary
from inbox_triage.models import TriageAction, TriageObservation
from inbox_triage.modes import MODE_VIEWS
from inbox_triage.modes.base import ALWAYS_ALLOWED
from inbox_triage.observations import OBSERVATION_STYLES, REWARD_MODES
from inbox_triage.scenarios import fixed_task_ids
from inbox_triage.scenarios.generator import PRESETS, SPLITS, GenConfig
from inbox_triage.scenarios.generator.config import MAX_SIZE
from inbox_triage.scenarios.sources import EPISODE_FIELDS, generated_task_ids
from inbox_triage.server.baseline import BASELINE_AGENTS, MAX_EPISODES_PER_TASK, BaselineRequest
from inbox_triage.server.sessions import SESSION_ID


def _model(name: str, doc: str, fields_: Mapping[str, Any], forbid: bool = True) -> type[BaseModel]:
    config = ConfigDict(extra="forbid" if forbid else "allow")
    model = create_model(name, __config__=config, __doc__=doc, **fields_)  # type: ignore[call-overload]
    return model


def _open_model(name: str, doc: str, fields_: Mapping[str, Any]) -> type[BaseModel]:
    return _model(name, doc, fields_, forbid=False)


def _without_none(annotation: Any) -> Any:
    """``str | None`` -> ``str``: a field a mode requires is given."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    return args[0] if len(args) == 1 else annotation


def _subset(model: type[BaseModel], names: Iterable[str]) -> dict[str, Any]:
    """Some of ``model``'s fields, as they are there (type, default, description)."""
    return {n: (model.model_fields[n].annotation, model.model_fields[n]) for n in names}


def _described(info: FieldInfo, description: str | None) -> FieldInfo:
    return FieldInfo.merge_field_infos(info, description=description or info.description)


@cache
def action_models() -> dict[tuple[str, str], type[BaseModel]]:
    """One model per mode and action type: the mode's own table (``ModeView.actions``) says
    which of :class:`TriageAction`'s fields the action takes and which it needs; the fields
    keep the wire model's types and limits; descriptions are the tools' (``action_tools``)."""
    out: dict[tuple[str, str], type[BaseModel]] = {}
    for mode in MODES:
        view = MODE_VIEWS[mode]
        for kind, (required, optional) in view.actions.items():
            described, specs = SPECS[mode].get(kind, ("", {}))
            body: dict[str, Any] = {}
            default = kind if view.default_action == kind else ...
            body["action_type"] = (
                Literal[kind],  # type: ignore[valid-type]
                Field(default, description=f"{kind} (in {mode} mode)"),
            )
            for name in (*required, *optional, *sorted(ALWAYS_ALLOWED - {"action_type"})):
                info = TriageAction.model_fields[name]
                spec = specs.get(name)
                text = None
                if spec is not None:
                    text = spec[0]
                    if spec[1] not in (None, BOOLEAN):
                        text += f" One of the episode's vocabulary.{spec[1]}."
                if name in required:  # the wire model's type and limits, given
                    given = Annotated[(_without_none(info.annotation), *info.metadata)]  # type: ignore[valid-type]
                    body[name] = (given, Field(description=text or info.description))
                else:
                    body[name] = (info.annotation, _described(info, text))
            title = "".join(p.title() for p in (mode, *kind.split("_")))
            out[mode, kind] = _model(title, f"{mode} mode: {described}".strip(), body)
    return out


@cache
def step_action() -> Any:
    """An action of any mode (which one the episode's mode takes is in its observation's
    ``allowed_actions`` and ``action_schema``)."""
    return typing.Union[tuple(action_models().values())]  # noqa: UP007 - built at run time


# What a reset's fields take, where the reset's signature says only "a string".
RESET_CHOICES: dict[str, tuple[str, ...]] = {
    "mode": tuple(MODES),
    "split": tuple(SPLITS),
    "difficulty": tuple(PRESETS),
    "observation": tuple(OBSERVATION_STYLES),
    "reward_mode": tuple(REWARD_MODES),
}
RESET_TEXT = {
    "task": "A fixed task (or its bare name), MODE/generated, or a pack the server plays.",
    "task_id": "The seeds' name for task.",
    "mode": "A mode alone: its generated task.",
    "split": "Generated tasks: the split the scenario is drawn from.",
    "difficulty": "Generated tasks: the preset of the knobs.",
    "seed": "The scenario seed (the same seed is the same scenario).",
    "episode_id": "Your own id for the episode (GET /state repeats it).",
    "observation": "lean (steps leave out what was sent already) or full.",
    "reward_mode": "dense (a reward every step) or final (at the end only).",
}
SESSION_TEXT = "The HTTP session (else the X-Session-Id header, else the shared default one)."


@cache
def reset_model() -> type[BaseModel]:
    """``POST /reset``'s body: the reset's own parameters (``InboxTriageEnv.reset``), the
    generator's knobs (:class:`GenConfig`), and the session."""
    hints = typing.get_type_hints(InboxTriageEnv.reset)
    body: dict[str, Any] = {}
    for name in sorted(EPISODE_FIELDS):
        kind: Any = hints[name]
        if name in RESET_CHOICES:
            kind = Literal[RESET_CHOICES[name]] | None  # type: ignore[valid-type]
        extra: dict[str, Any] = {"ge": 0} if name == "seed" else {}
        if name == "task":
            extra["examples"] = [*fixed_task_ids()[:2], generated_task_ids()[-1]]
        body[name] = (kind, Field(None, description=RESET_TEXT.get(name), **extra))
    knob_hints = typing.get_type_hints(GenConfig)
    for knob in fields(GenConfig):
        low_high = {"ge": 1, "le": MAX_SIZE} if knob_hints[knob.name] is int else {"ge": 0, "le": 1}
        text = f"Generated tasks: a knob of the generator (default {knob.default})."
        body[knob.name] = (knob_hints[knob.name] | None, Field(None, description=text, **low_high))
    body["session_id"] = (
        str | None,
        Field(None, pattern=SESSION_ID.pattern, description=SESSION_TEXT),
    )
    return _model("ResetRequest", "Starts an episode; every field may be left out.", body)


@cache
def step_model() -> type[BaseModel]:
    return _model(
        "StepRequest",
        "OpenEnv's shape: the action under `action` (the bare action object works too).",
        {
            "action": (step_action(), Field(description="The action, in the episode's mode.")),
            "session_id": (
                str | None,
                Field(None, pattern=SESSION_ID.pattern, description=SESSION_TEXT),
            ),
        },
    )


@cache
def observation_model() -> type[BaseModel]:
    """What ``observation`` holds: :class:`TriageObservation` less the reward and ``done``,
    which the answer carries beside it."""
    names = [n for n in TriageObservation.model_fields if n not in ("reward", "done")]
    return _model("Observation", TriageObservation.__doc__ or "", _subset(TriageObservation, names))


@cache
def step_answer_model() -> type[BaseModel]:
    return _model(
        "StepAnswer",
        "What /reset and /step answer.",
        {
            "observation": (observation_model(), ...),
            "reward": (float | None, Field(description="The step's reward (none on a reset).")),
            "done": (bool, ...),
            "metadata": (dict[str, Any] | None, ...),
            "session_id": (str, ...),
        },
    )


@cache
def error_model() -> type[BaseModel]:
    detail = _model(
        "ErrorDetail",
        "The field at fault, why, and (where there is a list) what it allows.",
        {"field": (str, ...), "message": (str, ...), "allowed": (Any, None)},
    )
    return _model(
        "ErrorAnswer",
        "Every refusal: `{error: {field, message[, allowed]}}`.",
        {"error": (detail, ...)},
    )


@cache
def baseline_model() -> type[BaseModel]:
    """``POST /baseline``'s body: :class:`BaselineRequest`'s fields, with their choices."""
    choices: dict[str, Any] = {
        "agent": Literal[tuple(BASELINE_AGENTS)],  # type: ignore[valid-type]
        "tasks": list[str],
        "episodes": Annotated[int, Field(ge=1, le=MAX_EPISODES_PER_TASK)],
        "seed": Annotated[int, Field(ge=0)],
        "split": Literal[tuple(SPLITS)],  # type: ignore[valid-type]
        "difficulty": Literal[tuple(PRESETS)],  # type: ignore[valid-type]
    }
    text = {
        "agent": "A built-in agent (llm only where the server allows it).",
        "tasks": "Fixed task ids or bare names, modes, MODE/generated or packs; default: "
        "every fixed task.",
        "episodes": "Episodes per task.",
    }
    body = {
        f.name: (
            choices[f.name],
            Field(None if f.name == "tasks" else f.default, description=text.get(f.name)),
        )
        for f in fields(BaselineRequest)
    }
    return _model("BaselineRequest", "Every field may be left out (also as ?agent=...).", body)


@cache
def baseline_answer_model() -> type[BaseModel]:
    return _model(
        "BaselineAnswer",
        "What `inbox-triage eval --json` writes: one summary per task.",
        {
            "agent": (str, ...),
            "results": (list[Summary], ...),
            "mean_grade": (float | None, ...),
            "episodes": (int, ...),
            "episodes_planned": (int, ...),
            "complete": (bool, ...),
            "seconds": (float, ...),
            "message": (str | None, Field(None, description="Why it stopped early.")),
        },
    )


# The console's answers (server/console.py): what the page reads of them; more may come.
@cache
def console_models() -> dict[str, type[BaseModel]]:
    resume = _open_model(
        "ResumeAnswer",
        "The whole current observation, for a reloaded tab.",
        {"observation": (observation_model(), ...), "done": (bool, ...), "session_id": (str, ...)},
    )
    limits = _open_model(
        "LimitsAnswer",
        "The lengths the episode's policy, the wire model and the server set.",
        {
            name: (int, ...)
            for name in (
                "summary_max_chars",
                "reply_min_words",
                "reply_max_words",
                "text_max_chars",
                "body_max_bytes",
            )
        },
    )
    setup_task = _open_model(
        "SetupTask",
        "A task the console offers.",
        {
            "task_id": (str, ...),
            "mode": (str, ...),
            "title": (str, ...),
            "difficulty": (str, ...),
            "tickets": (int | None, ...),
            "kind": (Literal["fixed", "generated", "pack"], ...),
        },
    )
    knob = _open_model(
        "SetupKnob",
        "A knob of the generator and its bounds.",
        {"name": (str, ...), "integer": (bool, ...), "min": (float, ...), "max": (float, ...)},
    )
    setup = _open_model(
        "SetupAnswer",
        "What the console's setup form offers.",
        {
            "default_task": (str, ...),
            "sealed": (bool, ...),
            "tasks": (list[setup_task], ...),  # type: ignore[valid-type]
            "splits": (list[str], ...),
            "difficulties": (list[str], ...),
            "presets": (dict[str, GenConfig], ...),
            "knobs": (list[knob], ...),  # type: ignore[valid-type]
            "field_vocabulary": (dict[str, str], ...),
            "value_vocabulary": (dict[str, str], ...),
            "text_fields": (list[str], ...),
            "runs": (list[str], ...),
            "idle_timeout_s": (float | None, ...),
            "leave_grace_s": (
                float | None,
                Field(None, description="How long a closed tab's session waits for a reload."),
            ),
        },
    )
    listed = sorted(RECORD_FIELDS - {"components", "total_reward"})
    row = _open_model(
        "EpisodeRow",
        "An episode of a served run.",
        {
            "run": (str, ...),
            **_subset(EpisodeRecord, listed),
            "replayable": (bool, ...),
        },
    )
    episodes = _open_model(
        "EpisodesAnswer",
        "The served runs' episodes that match (at most 500 listed; `total` counts all).",
        {
            "runs": (list[str], ...),
            "agents": (list[str], ...),
            "tasks": (list[str], ...),
            "total": (int, ...),
            "episodes": (list[row], ...),  # type: ignore[valid-type]
        },
    )
    step = _open_model(
        "ReplayStep",
        ReplayStep.__doc__ or "",
        {
            **{
                f.name: (typing.get_type_hints(ReplayStep)[f.name], ...) for f in fields(ReplayStep)
            },
            "reproduced": (bool, ...),
        },
    )
    record = _open_model(
        "ReplayRecord",
        "What a replay repeats of its record.",
        _subset(EpisodeRecord, sorted(RECORD_FIELDS)),
    )
    replay = _open_model(
        "ReplayAnswer",
        "An episode re-simulated step by step beside its record.",
        {
            "run": (str, ...),
            "record": (record, ...),
            "episode": (dict[str, Any], ...),
            "start": (dict[str, Any], ...),
            "start_grade": (dict[str, Any], ...),
            "steps": (list[step], ...),  # type: ignore[valid-type]
            "final_grade": (float | None, ...),
            "reproduced": (bool, ...),
            "first_mismatch": (int | None, ...),
            "problem": (str | None, ...),
        },
    )
    compare = _open_model(
        "CompareAnswer",
        "Two episodes of one scenario, and the first step at which they differ.",
        {"a": (replay, ...), "b": (replay, ...), "first_difference": (int | None, ...)},
    )
    return {
        "resume": resume,
        "limits": limits,
        "setup": setup,
        "episodes": episodes,
        "replay": replay,
        "compare": compare,
    }
