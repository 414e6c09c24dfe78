"""`inbox-triage import` and `tasks`: bring your own tickets, and list the fixed tasks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from inbox_triage.cli.common import (
    app,
    console,
)
from inbox_triage.domain import MODES
from inbox_triage.scenarios import ScenarioError, fixed_task_ids, task_info
from inbox_triage.scenarios.packs import import_tickets, load_pack


@app.command("import")
def import_command(
    source: Annotated[Path, typer.Argument(help="Labelled tickets: a .csv or .jsonl file.")],
    org: Annotated[Path, typer.Option(help="Your org profile (YAML): priorities, queues...")],
    out: Annotated[Path, typer.Option(help="Folder to write the pack to.")],
    name: Annotated[str | None, typer.Option(help="Pack name (default: the folder's).")] = None,
) -> None:
    """Turn labelled historical tickets and an org profile into a pack playable in every mode."""
    try:
        written = import_tickets(source, org, out, name)
    except ScenarioError as exc:
        console.print(f"[red]import failed:[/red] {escape(str(exc))}")
        console.print("nothing was written")
        raise typer.Exit(1) from None
    pack = load_pack(out)
    console.print(f"wrote {written}: {len(pack.tickets)} tickets for {escape(pack.org.name)}")
    for mode in MODES:
        console.print(f"  play it: inbox-triage eval --tasks {mode}/pack:{out}")


@app.command("tasks")
def tasks_command() -> None:
    """List the fixed tasks."""
    table = Table(title="Fixed tasks")
    for column in ("task", "mode", "difficulty", "tickets", "version", "title"):
        table.add_column(column)
    for task_id in fixed_task_ids():
        info = task_info(task_id)
        table.add_row(
            info.id, info.mode, info.difficulty, str(info.tickets), f"v{info.version}", info.title
        )
    console.print(table)
