"""`inbox-triage eval`: play agents on tasks into a resumable run folder, with a grade table."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from inbox_triage.cli.common import (
    app,
    check_choice,
    console,
    select_agents,
    select_tasks,
)
from inbox_triage.evaluation.backends import (
    BACKENDS,
    AgentMaker,
    BackendChoiceError,
    choose_backend,
)
from inbox_triage.evaluation.records import EpisodeRecord, read_records
from inbox_triage.scenarios import ScenarioError
from inbox_triage.scenarios.generator import PRESETS, SPLITS
from inbox_triage.scenarios.sources import is_generated

if TYPE_CHECKING:
    from inbox_triage.agents import LLMConfig
    from inbox_triage.evaluation.runner import Summary


def _llm_config(
    agents: list[str],
    model: str | None,
    base_url: str | None,
    protocol: str | None,
    temperature: float | None,
    max_tokens: int | None,
    timeout_s: float | None,
) -> LLMConfig | None:
    """The LLM agent's settings from the environment and the flags (flags win)."""
    if "llm" not in agents:
        return None
    from inbox_triage.agents import LLMConfig

    try:
        return LLMConfig.from_env(
            model=model,
            base_url=base_url,
            protocol=protocol,
            temperature=temperature,
            max_tokens=max_tokens,
            timeout_s=timeout_s,
        )
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--model") from None


class _RunProgress:
    """A rich progress bar with ETA and the running mean grade."""

    def __init__(self, total_label: str, resumed: list[EpisodeRecord]) -> None:
        self.bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("mean {task.fields[mean]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            transient=not console.is_terminal,
            # LLM episodes can take minutes each: estimate the ETA over the whole run.
            speed_estimate_period=7 * 24 * 3600,
        )
        # A resumed run starts the bar and the running mean from what is done, without
        # counting those episodes as speed (they took no time now).
        self.grades = [r.grade for r in resumed]
        mean = f"{sum(self.grades) / len(self.grades):.3f}" if self.grades else "-"
        self.task = self.bar.add_task(total_label, total=None, completed=len(resumed), mean=mean)

    def __call__(self, record: EpisodeRecord | None, done: int, planned: int) -> None:
        if record is None:
            self.bar.update(self.task, total=planned, completed=done)
            return
        self.grades.append(record.grade)
        mean = sum(self.grades) / len(self.grades)
        self.bar.update(self.task, completed=done, mean=f"{mean:.3f}")


def _new_run_folder() -> Path:
    """runs/eval-DATE-TIME, with a counter when two runs start in the same second."""
    base = Path("runs") / datetime.now().strftime("eval-%Y%m%d-%H%M%S")
    folder, n = base, 1
    while folder.exists():
        n += 1
        folder = base.with_name(f"{base.name}-{n}")
    return folder


@app.command("eval")
def eval_command(
    agent: Annotated[
        list[str] | None,
        typer.Option(
            "--agent",
            "-a",
            help="Agent name; repeat or comma-separate. Default: the built-in ones (not llm).",
        ),
    ] = None,
    tasks: Annotated[
        list[str] | None,
        typer.Option(
            "--tasks",
            "-t",
            help="Task ids, bare names or modes; repeat or "
            "comma-separate. Default: every fixed task.",
        ),
    ] = None,
    episodes: Annotated[int, typer.Option(min=1, help="Scenarios (seeds) per task and agent.")] = 5,
    trials: Annotated[int, typer.Option(min=1, help="Plays of each scenario, for pass^k.")] = 1,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the first episode.")] = 0,
    json_path: Annotated[
        str | None, typer.Option("--json", help="Also write the summary table as JSON here.")
    ] = None,
    split: Annotated[
        str, typer.Option(help=f"Split for generated tasks: {', '.join(SPLITS)}.")
    ] = "train",
    difficulty: Annotated[
        str, typer.Option(help=f"Preset for generated tasks: {', '.join(PRESETS)}.")
    ] = "medium",
    out: Annotated[
        Path | None,
        typer.Option(
            help="Run folder for episodes.jsonl and meta.json (default runs/eval-DATE-TIME)."
        ),
    ] = None,
    resume: Annotated[
        bool, typer.Option(help="Continue the run in --out, skipping finished episodes.")
    ] = False,
    concurrency: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Episodes at once (default 1 in-process, 4 with an LLM or --env-url, which "
            "wait on the network).",
        ),
    ] = None,
    env_url: Annotated[
        str | None,
        typer.Option(
            help="Play against this inbox-triage server (WebSocket) instead of "
            "in-process, e.g. http://localhost:8000."
        ),
    ] = None,
    trajectories: Annotated[
        bool, typer.Option(help="Keep every step's action and reward in the records.")
    ] = True,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Processes to spread in-process episodes over (default: one per core for "
            "CPU-bound agents, fewer for small runs; threads for llm and --env-url). With "
            "--backend ray: CPUs of the local Ray instance.",
        ),
    ] = None,
    backend: Annotated[
        str | None,
        typer.Option(
            help=f"Where episodes play: {', '.join(BACKENDS)} (default: chosen as --workers says)."
        ),
    ] = None,
    address: Annotated[
        str | None,
        typer.Option(
            help="--backend ray: the cluster to join (default $RAY_ADDRESS, else a local instance)."
        ),
    ] = None,
    model: Annotated[
        str | None, typer.Option(help="llm agent: model name (default $MODEL_NAME).")
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(help="llm agent: OpenAI-compatible endpoint (default $API_BASE_URL)."),
    ] = None,
    protocol: Annotated[
        str | None,
        typer.Option(help="llm agent: auto (tools, else JSON), tools or json."),
    ] = None,
    temperature: Annotated[
        float | None, typer.Option(min=0, help="llm agent: sampling temperature (default 0).")
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option(min=16, help="llm agent: tokens per answer (default 512).")
    ] = None,
    request_timeout: Annotated[
        float | None,
        typer.Option(min=1, help="llm agent: seconds per model call (default 120)."),
    ] = None,
    more_tasks: Annotated[
        list[str] | None,
        typer.Argument(metavar="[TASK]...", help="More tasks, so that --tasks A B C works."),
    ] = None,
) -> None:
    """Evaluate agents on tasks: episodes in parallel, one JSON line per episode in a run
    folder (resumable), and the mean grade per task and agent."""
    try:
        task_ids = select_tasks([*(tasks or []), *(more_tasks or [])])
    except ScenarioError as exc:
        raise typer.BadParameter(str(exc), param_hint="--tasks") from None
    # The runner imports the environment (and OpenEnv): only once a run is asked for.
    from inbox_triage.agents.llm import PROTOCOLS, check_endpoint
    from inbox_triage.evaluation.runner import summaries_from_records, write_json
    from inbox_triage.evaluation.runs import RunConfig, RunMismatch, check_server, run
    from inbox_triage.seal import SEALED_SPLIT

    agents = select_agents(agent)
    check_choice("--split", split, SPLITS)
    check_choice("--difficulty", difficulty, PRESETS)
    if protocol is not None:
        check_choice("--protocol", protocol, PROTOCOLS)
    if resume and out is None:
        raise typer.BadParameter("--resume needs the run folder to continue", param_hint="--out")
    sealed = False
    if env_url is not None:
        try:
            sealed = check_server(env_url)
        except ConnectionError as exc:
            raise typer.BadParameter(str(exc), param_hint="--env-url") from None
        if sealed and "oracle" in agents:
            raise typer.BadParameter(
                "the oracle reads the truth, which a sealed server keeps", param_hint="--agent"
            )
        if sealed and split != SEALED_SPLIT:
            console.print(f"[yellow]a sealed server plays the {SEALED_SPLIT} split[/yellow]")
            split = SEALED_SPLIT
    llm = _llm_config(agents, model, base_url, protocol, temperature, max_tokens, request_timeout)
    if llm is not None:
        try:
            check_endpoint(llm)
        except ConnectionError as exc:
            raise typer.BadParameter(str(exc), param_hint="--base-url") from None
    waits = llm is not None or env_url is not None
    planned = len(task_ids) * len(agents) * episodes * trials
    try:
        where, worker_count = choose_backend(
            backend, workers, address, concurrency, agents, env_url, planned
        )
    except BackendChoiceError as exc:
        raise typer.BadParameter(str(exc), param_hint=exc.option) from None
    config = RunConfig(
        agents=agents,
        tasks=task_ids,
        episodes=episodes,
        trials=trials,
        seed=seed,
        split=split,
        difficulty=difficulty,
        env_url=env_url,
        concurrency=concurrency or (4 if waits else 1),
        keep_trajectory=trajectories,
        agent_settings={"llm": llm.public()} if llm else {},
        backend=where,
        workers=worker_count,
        address=address,
        sealed=sealed,
    )
    folder = out or _new_run_folder()
    try:
        resumed = read_records(folder) if resume else []
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--out") from None
    progress = _RunProgress(f"{len(agents)} agent(s) x {len(task_ids)} task(s)", resumed)
    try:
        with progress.bar:
            result = run(
                config,
                folder,
                resume=resume,
                agent_factory=AgentMaker(llm),
                progress=progress,
                notice=console.print,
            )
    except (FileExistsError, RunMismatch) as exc:
        raise typer.BadParameter(str(exc), param_hint="--out") from None
    except ScenarioError as exc:
        raise typer.BadParameter(str(exc), param_hint="--tasks") from None
    except Exception as exc:
        console.print(
            f"[red]the run stopped: {escape(type(exc).__name__)}: {escape(str(exc))}[/red]"
        )
        console.print(
            f"finished episodes are kept in {folder}; continue with --out {folder} --resume"
        )
        raise typer.Exit(1) from None
    if result.skipped:
        console.print(f"resumed: {result.skipped} finished episode(s) in {folder} were kept")
    if len(result.commits) > 1:
        commits = ", ".join(str(c) for c in result.commits)
        console.print(
            f"[yellow]note: this run's sessions ran on different commits ({commits}); "
            "see meta.json[/yellow]"
        )
    summaries = summaries_from_records(result.records)
    _print_grade_table(
        summaries, agents, task_ids, episodes, trials, seed, split, difficulty, sealed
    )
    if json_path:
        write_json(json_path, summaries)
        console.print(f"wrote {json_path}")
    console.print(
        f"wrote {folder}/episodes.jsonl ({len(result.records)} episodes) and "
        f"meta.json; compare runs with: inbox-triage report {folder}"
    )
    if result.interrupted:
        console.print(
            f"[yellow]interrupted: {result.meta.episodes_done} of "
            f"{result.meta.episodes_planned} episodes done; continue with the same "
            f"command and --out {folder} --resume[/yellow]"
        )
        raise typer.Exit(130)


def _print_grade_table(
    summaries: list[Summary],
    agents: list[str],
    task_ids: list[str],
    episodes: int,
    trials: int,
    seed: int,
    split: str,
    difficulty: str,
    sealed: bool = False,
) -> None:
    grid = {(s.task, s.agent): s for s in summaries}
    seeds = f"seed {seed}" if episodes == 1 else f"seeds {seed}..{seed + episodes - 1}"
    if sealed:
        seeds = "episodes drawn by the sealed server"
    plays = f"{episodes} episode(s)" + (f" x {trials} trials" if trials > 1 else "")
    title = f"Mean grade (± standard deviation) over {plays} per cell, {seeds}"
    if any(is_generated(t) for t in task_ids):
        title += f"; generated tasks: {split} split, {difficulty}"
    planned = len(agents) * len(task_ids) * episodes * trials
    done = sum(s.episodes for s in summaries)
    if done < planned:
        title = f"PARTIAL ({done} of {planned} episodes done): " + title.replace(
            "over", "over up to", 1
        )
    console.print(title)
    table = Table()
    table.add_column("task")
    for name in agents:
        table.add_column(name, justify="right")

    def cell(summary: Summary | None) -> str:
        if summary is None:
            return "-"
        if summary.episodes == 1 or summary.std_grade == 0:
            return f"{summary.mean_grade:.3f}"
        return f"{summary.mean_grade:.3f} ± {summary.std_grade:.3f}"

    for task in task_ids:
        table.add_row(task, *(cell(grid.get((task, name))) for name in agents))
    table.add_section()
    means = []
    for name in agents:
        cells = [grid[(t, name)].mean_grade for t in task_ids if (t, name) in grid]
        means.append(f"{sum(cells) / len(cells):.3f}" if cells else "-")
    table.add_row("mean", *means)
    console.print(table)
