"""What every command shares: the app, the console, and reading task and agent choices."""

from __future__ import annotations

import difflib
import sys

import typer
from rich.console import Console

from inbox_triage.domain import MODES
from inbox_triage.scenarios import fixed_task_ids, load_task
from inbox_triage.scenarios.sources import (
    all_task_ids,
    generated_task_ids,
    generator_version,
    is_generated,
)

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="inbox-triage: an OpenEnv environment for support-inbox triage agents.",
)
# Piped output (CI logs, files) gets a wide table instead of rich's 80-column default.
console = Console() if sys.stdout.isatty() else Console(width=160)


def split_values(values: list[str] | None) -> list[str]:
    """Accepts repeated options and comma-separated lists alike."""
    return [v.strip() for value in values or [] for v in value.split(",") if v.strip()]


def select_tasks(selectors: list[str] | None) -> list[str]:
    """Task ids from selectors: a full id (fixed or MODE/generated), a mode name (all its fixed
    tasks), or a unique bare name."""
    chosen = split_values(selectors)
    if not chosen:
        return fixed_task_ids()
    out: list[str] = []
    for selector in chosen:
        if selector in MODES:
            out.extend(fixed_task_ids(selector))
            continue
        matches = [t for t in fixed_task_ids() if t == selector or t.split("/", 1)[1] == selector]
        if selector in generated_task_ids() or "/pack:" in selector:
            matches = [selector]
        elif selector.partition("/")[0] in MODES and is_generated(selector):
            generator_version(selector)  # MODE/generated@vN: a known version, or a clear error
            matches = [selector]
        if len(matches) != 1 and "@" in selector:
            load_task(selector)  # a pinned version: validates or raises a clear error
            matches = [selector]
        if len(matches) > 1:
            raise typer.BadParameter(
                f"{selector!r} is ambiguous: {' or '.join(matches)}", param_hint="--tasks"
            )
        if not matches:
            known = [*MODES, *all_task_ids()]
            close = difflib.get_close_matches(selector, known, n=3)
            hint = f"did you mean {' or '.join(close)}? " if close else ""
            raise typer.BadParameter(
                f"{selector!r} is not a task; {hint}choose from: {', '.join(known)} "
                "(or MODE/pack:PATH for your own tickets)",
                param_hint="--tasks",
            )
        out.extend(matches)
    return list(dict.fromkeys(out))


def check_choice(option: str, value: str, allowed: object) -> None:
    choices = list(allowed)  # type: ignore[call-overload]
    if value not in choices:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(choices)}", param_hint=option)


def select_agents(names: list[str] | None) -> list[str]:
    """The agents asked for; by default the built-in ones that need no model server."""
    from inbox_triage.agents import AGENTS, is_agent_name

    chosen = split_values(names) or [name for name in AGENTS if name != "llm"]
    for name in chosen:
        if not is_agent_name(name):
            known = ", ".join([*AGENTS, "learned", "hf:PATH"])
            raise typer.BadParameter(
                f"{name!r} is not an agent; choose from: {known}", param_hint="--agent"
            )
    return chosen
