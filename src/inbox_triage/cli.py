"""The `inbox-triage` command line: eval, report, check, tasks, import, serve."""

from __future__ import annotations

import difflib
import sys
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
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

from inbox_triage.agents import AGENTS, LLMConfig, is_agent_name
from inbox_triage.agents.llm import PROTOCOLS, check_endpoint
from inbox_triage.domain import MODES
from inbox_triage.evaluation import Rules, check_environment
from inbox_triage.evaluation.backends import (
    BACKENDS,
    AgentMaker,
    BackendChoiceError,
    choose_backend,
)
from inbox_triage.evaluation.calibration import (
    DEFAULT_SET,
    CalibrationError,
    grade_set,
    load_set,
    median_ms,
    summarise,
)
from inbox_triage.evaluation.calibration import HEADER as CALIBRATION_HEADER
from inbox_triage.evaluation.calibration import rows as calibration_rows
from inbox_triage.evaluation.degenerate import check_degenerate
from inbox_triage.evaluation.metrics import summarise_runs
from inbox_triage.evaluation.records import EpisodeRecord, read_records
from inbox_triage.evaluation.report import (
    comparison_markdown,
    comparison_table,
    load_run,
    mixed_graders,
    write_plots,
)
from inbox_triage.evaluation.runner import Summary, summaries_from_records, write_json
from inbox_triage.evaluation.runs import RunConfig, RunMismatch, check_server, run
from inbox_triage.scenarios import ScenarioError, fixed_task_ids, load_task, task_info
from inbox_triage.scenarios.generator import PRESETS, SPLITS
from inbox_triage.scenarios.packs import import_tickets, load_pack
from inbox_triage.scenarios.sources import all_task_ids, generated_task_ids

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="inbox-triage: an OpenEnv environment for support-inbox triage agents.",
)
# Piped output (CI logs, files) gets a wide table instead of rich's 80-column default.
console = Console() if sys.stdout.isatty() else Console(width=160)


def _split(values: list[str] | None) -> list[str]:
    """Accepts repeated options and comma-separated lists alike."""
    return [v.strip() for value in values or [] for v in value.split(",") if v.strip()]


def select_tasks(selectors: list[str] | None) -> list[str]:
    """Task ids from selectors: a full id (fixed or MODE/generated), a mode name (all its fixed
    tasks), or a unique bare name."""
    chosen = _split(selectors)
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


def _check_choice(option: str, value: str, allowed: object) -> None:
    choices = list(allowed)  # type: ignore[call-overload]
    if value not in choices:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(choices)}", param_hint=option)


def select_agents(names: list[str] | None) -> list[str]:
    """The agents asked for; by default the built-in ones that need no model server."""
    chosen = _split(names) or [name for name in AGENTS if name != "llm"]
    for name in chosen:
        if not is_agent_name(name):
            known = ", ".join([*AGENTS, "learned", "hf:PATH"])
            raise typer.BadParameter(
                f"{name!r} is not an agent; choose from: {known}", param_hint="--agent"
            )
    return chosen


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
    agents = select_agents(agent)
    _check_choice("--split", split, SPLITS)
    _check_choice("--difficulty", difficulty, PRESETS)
    if protocol is not None:
        _check_choice("--protocol", protocol, PROTOCOLS)
    if resume and out is None:
        raise typer.BadParameter("--resume needs the run folder to continue", param_hint="--out")
    if env_url is not None:
        try:
            check_server(env_url)
        except ConnectionError as exc:
            raise typer.BadParameter(str(exc), param_hint="--env-url") from None
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
    _print_grade_table(summaries, agents, task_ids, episodes, trials, seed, split, difficulty)
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
) -> None:
    grid = {(s.task, s.agent): s for s in summaries}
    seeds = f"seed {seed}" if episodes == 1 else f"seeds {seed}..{seed + episodes - 1}"
    plays = f"{episodes} episode(s)" + (f" x {trials} trials" if trials > 1 else "")
    title = f"Mean grade (± standard deviation) over {plays} per cell, {seeds}"
    if any(t in generated_task_ids() for t in task_ids):
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


@app.command("report")
def report_command(
    runs: Annotated[
        list[Path], typer.Argument(help="Run folders (or episodes.jsonl files) to compare.")
    ],
    markdown: Annotated[
        bool, typer.Option("--markdown", help="Print GitHub markdown instead of tables.")
    ] = False,
    plots: Annotated[
        Path | None, typer.Option(help="Write the PNG plots into this folder.")
    ] = None,
    threshold: Annotated[
        float, typer.Option(min=0, max=1, help="Grade that counts as a pass, for pass^k.")
    ] = 0.9,
    mixed_graders_ok: Annotated[
        bool,
        typer.Option("--mixed-graders", help="Compare runs graded by different grader versions."),
    ] = False,
) -> None:
    """Compare runs: mean grade with a 95% bootstrap interval, pass^k, invalid actions and
    SLA breaches per agent, then per task and mode, and why texts scored 0; optionally plots."""
    loaded = []
    metas = []
    for path in runs:
        try:
            name, meta, records = load_run(path)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="RUNS") from None
        loaded.append((name, records))
        metas.append((name, meta))
    mixed = mixed_graders(metas)
    if mixed and not mixed_graders_ok:
        raise typer.BadParameter(mixed, param_hint="RUNS")
    names = [name for name, _ in loaded]
    if len(set(names)) < len(names):  # two folders called run1: tell them apart by path
        loaded = [(str(path), records) for path, (_, records) in zip(runs, loaded, strict=True)]
    summaries = summarise_runs(loaded, threshold=threshold)
    if markdown:
        typer.echo(comparison_markdown(summaries))
    else:
        for table in comparison_table(summaries):
            console.print(table)
    if plots is not None:
        for written in write_plots(loaded, summaries, plots):
            console.print(f"wrote {written}")


def _check_calibration(folder: Path) -> int:
    """Scores per kind of text against the targets, and the grading time per text."""
    try:
        texts = load_set(folder)
    except CalibrationError as exc:
        raise typer.BadParameter(str(exc), param_hint="--calibration-set") from None
    results = grade_set(texts)
    summaries = summarise(results)
    table = Table(title=f"calibration: {len(texts)} texts in {folder}")
    for i, column in enumerate(CALIBRATION_HEADER):
        table.add_column(column, justify="right" if 2 <= i <= 6 else "left")
    for row in calibration_rows(summaries):
        table.add_row(*(escape(c) for c in row))
    console.print(table)
    console.print(f"grading time per text: median {median_ms(results):.2f} ms")
    return 1 if any(s.failures() for s in summaries) else 0


@app.command("check")
def check_command(
    tasks: Annotated[
        list[str] | None,
        typer.Option("--tasks", "-t", help="Tasks to check (default: every fixed task)."),
    ] = None,
    random_episodes: Annotated[
        int, typer.Option(min=1, help="Episodes of random play averaged per task.")
    ] = 20,
    seeds: Annotated[int, typer.Option(min=1, help="Scenarios per generated task and split.")] = 12,
    calibration: Annotated[
        bool,
        typer.Option(
            "--calibration",
            help="Grade the hand-written calibration texts instead, against their targets.",
        ),
    ] = False,
    calibration_set: Annotated[
        Path,
        typer.Option(help="The calibration set's folder (with --calibration)."),
    ] = DEFAULT_SET,
) -> None:
    """Check the environment's rules on every fixed task and on each mode's generated task in
    every split; exit 1 if any rule fails. With --calibration, grade people's texts instead."""
    if calibration:
        raise typer.Exit(_check_calibration(calibration_set))
    rules = Rules(random_episodes=random_episodes, generated_seeds=seeds)
    chosen = select_tasks(tasks) if tasks else None
    results = check_environment(chosen, rules)
    table = Table(title="inbox-triage check")
    for column in (
        "task",
        "oracle",
        "heuristic",
        f"random ({random_episodes})",
        "noop",
        "deterministic",
        "reward sum gap",
        "result",
    ):
        table.add_column(column, justify="left" if column in ("task", "result") else "right")
    for r in results:
        table.add_row(
            escape(r.task),
            f"{r.oracle:.3f}",
            f"{r.heuristic:.3f}",
            f"{r.random_mean:.3f}",
            f"{r.noop:.3f}",
            "yes" if r.deterministic else "NO",
            f"{r.max_reward_gap:.1e}",
            "[green]ok[/green]" if r.ok else "[red]FAIL: " + "; ".join(r.failures) + "[/red]",
        )
    console.print(table)
    console.print(
        f"rules: oracle >= {rules.oracle_min}, noop <= {rules.noop_max}, random mean <= "
        f"{rules.random_max}, random < heuristic < oracle, identical reruns, "
        f"sum(rewards) = grade - penalties (within {rules.reward_tolerance:g}); generated "
        f"tasks over {rules.generated_seeds} seeds (difficulty cycling easy/medium/hard): "
        "oracle is the minimum, the others are means"
    )
    failed = [r.task for r in results if not r.ok]
    degenerate = check_degenerate(generated_seeds=seeds)
    table = Table(title="degenerate policies: mean grade over each mode's tasks")
    for column in ("policy", *MODES, "ceiling", "result"):
        table.add_column(column, justify="left" if column in ("policy", "result") else "right")
    for d in degenerate:
        table.add_row(
            d.policy,
            *(f"{d.means[m]:.3f}" for m in MODES),
            f"{d.ceiling:.2f}",
            "[green]ok[/green]" if d.ok else "[red]FAIL: above its ceiling[/red]",
        )
    console.print(table)
    breached = [d.policy for d in degenerate if not d.ok]
    if failed or breached:
        if failed:
            console.print(f"[red]{len(failed)} of {len(results)} tasks broke a rule[/red]")
        if breached:
            console.print(
                f"[red]degenerate policies above their ceiling: {', '.join(breached)}[/red]"
            )
        raise typer.Exit(1)
    console.print(
        f"[green]all {len(results)} tasks keep every rule, and every degenerate "
        "policy stays under its ceiling[/green]"
    )


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


@app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "0.0.0.0",
    port: Annotated[
        int | None, typer.Option(help="Port (default $PORT or 8000; 7860 for HF Spaces).")
    ] = None,
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
) -> None:
    """Serve the environment over HTTP and WebSocket (OpenEnv), with the console at /web."""
    from inbox_triage.server.app import serve
    from inbox_triage.server.run_library import RunFolderError, RunLibrary

    try:
        serve(
            host=host,
            port=port,
            max_sessions=max_sessions,
            idle_timeout_s=idle_timeout,
            pack_folders=list(packs or []),
            allow_llm_baseline=allow_llm_baseline,
            runs=RunLibrary.from_folders(runs) if runs else None,
        )
    except ScenarioError as exc:
        raise typer.BadParameter(str(exc), param_hint="--packs") from None
    except RunFolderError as exc:
        raise typer.BadParameter(str(exc), param_hint="--runs") from None


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


from inbox_triage.server.view import view_command  # noqa: E402 - after the commands
from inbox_triage.training.cli import export_app, train_app  # noqa: E402

app.command("view")(view_command)

app.add_typer(train_app, name="train")
app.add_typer(export_app, name="export")

if __name__ == "__main__":
    app()
