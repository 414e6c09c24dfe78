"""``inbox-triage view RUN...``: the console on a free local port, showing those runs."""

from __future__ import annotations

import socket
import webbrowser
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from inbox_triage.server.run_library import RunFolderError, RunLibrary


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on now (the kernel picks it), as ``inspect view`` does."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def view_command(
    runs: Annotated[
        list[Path],
        typer.Argument(
            help="Run folders (runs/NAME) or folders of runs (runs/).", show_default=False
        ),
    ],
    port: Annotated[int | None, typer.Option(help="Port (default: a free one).")] = None,
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    open_browser: Annotated[
        bool, typer.Option("--open/--no-open", help="Open the console in a browser.")
    ] = False,
) -> None:
    """Browse, replay and compare the episodes of evaluation runs in the web console."""
    from inbox_triage.server.app import serve

    try:
        library = RunLibrary.from_folders(runs)
    except RunFolderError as exc:
        raise typer.BadParameter(str(exc), param_hint="RUNS") from None
    episodes = sum(len(library.records(name)) for name in library.names())
    chosen = port or free_port(host)
    console = Console()

    def ready(url: str) -> None:
        console.print(
            f"Showing {episodes} episodes of {len(library)} run(s): "
            f"[bold]{url}#/runs[/bold]  (Ctrl-C stops)",
            highlight=False,
        )
        if open_browser:
            webbrowser.open(f"{url}#/runs")

    serve(host=host, port=chosen, runs=library, on_ready=ready)  # records read once, here
