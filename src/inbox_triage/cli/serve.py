"""`inbox-triage serve`: the HTTP and WebSocket server, with the web console."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from inbox_triage.cli.common import (
    app,
)
from inbox_triage.scenarios import ScenarioError


@app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "0.0.0.0",
    port: Annotated[int | None, typer.Option(help="Port (default $PORT or 8000).")] = None,
    max_sessions: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Concurrent sessions, WebSocket and HTTP each (default "
            "$INBOX_TRIAGE_MAX_SESSIONS or 64).",
        ),
    ] = None,
    idle_timeout: Annotated[
        float | None,
        typer.Option(
            min=0,
            help="Close sessions idle this many seconds; 0 never (default "
            "$INBOX_TRIAGE_IDLE_TIMEOUT_S or 900).",
        ),
    ] = None,
    packs: Annotated[
        list[Path] | None,
        typer.Option(
            "--packs",
            help="A folder whose pack folders are playable by name (MODE/pack:NAME); repeat "
            "for more (default $INBOX_TRIAGE_PACKS). Without it, served pack tasks are refused.",
        ),
    ] = None,
    allow_llm_baseline: Annotated[
        bool | None,
        typer.Option(
            "--allow-llm-baseline/--no-llm-baseline",
            help="Let POST /baseline run the llm agent on this server's API endpoint and key "
            "(default $INBOX_TRIAGE_ALLOW_LLM_BASELINE, else no).",
        ),
    ] = None,
    runs: Annotated[
        list[Path] | None,
        typer.Option(
            "--runs",
            help="A run folder, or a folder of runs (runs/), whose episodes the console at /web "
            "lists and replays; repeat for more (default $INBOX_TRIAGE_RUNS).",
        ),
    ] = None,
    sealed: Annotated[
        bool,
        typer.Option(
            "--sealed",
            help="Secret episodes, for a held-out evaluation: clients cannot choose seeds or "
            "replay an episode (each reset is drawn from the key in $INBOX_TRIAGE_SEAL_KEY, "
            "else a key drawn at start) and play generated tasks and packs only.",
        ),
    ] = False,
    reward_mode: Annotated[
        str | None,
        typer.Option(
            help="With --sealed: final (the default: step rewards, progress and the grader "
            "withheld until the episode ends) or dense.",
        ),
    ] = None,
) -> None:
    """Serve the environment over HTTP and WebSocket (OpenEnv), with the console at /web."""
    from inbox_triage.observations import REWARD_MODES
    from inbox_triage.seal import Seal
    from inbox_triage.server.app import serve
    from inbox_triage.server.run_library import RunFolderError, RunLibrary

    seal = None
    if reward_mode is not None and not sealed:
        raise typer.BadParameter(
            "applies to a sealed server (a client asks for it with reward_mode in its reset)",
            param_hint="--reward-mode",
        )
    if reward_mode not in (None, *REWARD_MODES):
        raise typer.BadParameter(
            f"must be one of {', '.join(REWARD_MODES)}", param_hint="--reward-mode"
        )
    if sealed:
        try:
            seal = Seal.from_environment(reward_mode or "final")
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--sealed") from None
    try:
        serve(
            host=host,
            port=port,
            max_sessions=max_sessions,
            idle_timeout_s=idle_timeout,
            pack_folders=list(packs or []),
            allow_llm_baseline=allow_llm_baseline,
            runs=RunLibrary.from_folders(runs) if runs else None,
            seal=seal,
        )
    except ScenarioError as exc:
        raise typer.BadParameter(str(exc), param_hint="--packs") from None
    except RunFolderError as exc:
        raise typer.BadParameter(str(exc), param_hint="--runs") from None
