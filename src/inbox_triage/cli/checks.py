"""`inbox-triage report` and `check`: compare runs, check the environment's rules, and grade
the calibration set."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from inbox_triage.cli.common import (
    app,
    console,
    select_tasks,
)
from inbox_triage.domain import MODES
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
from inbox_triage.evaluation.metrics import summarise_runs
from inbox_triage.evaluation.report import (
    comparison_markdown,
    comparison_table,
    load_run,
    mixed_graders,
    write_plots,
)


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


def _check_leaks(size: str) -> int:
    """The leak audit's table and the no_reading policy's, per mode; 1 if anything leaks."""
    from inbox_triage.evaluation.leaks import (
        MAX_GAP,
        NO_READING_CEILING,
        SIZES,
        check_leaks,
    )
    from inbox_triage.evaluation.leaks.audit import HEADER, table_rows

    if size not in SIZES:
        raise typer.BadParameter(f"must be one of {', '.join(SIZES)}", param_hint="--size")
    with console.status("auditing") as status:
        report = check_leaks(size=size, progress=lambda text: status.update(text))
    table = Table(title=f"leak audit ({size}): accuracy on the test split, per decision field")
    for i, column in enumerate(HEADER):
        table.add_column(column, justify="right" if 2 <= i <= 6 else "left")
    for row in table_rows(report.audits):
        style = "" if row[-1] == "ok" else "red"
        table.add_row(*(escape(c) for c in row), style=style)
    console.print(table)
    console.print(
        "legit: the sender's tier and whether the sender is in the records; metadata: every "
        "other field but the message texts; masked prompt: the rendered prompt with every "
        f"message text masked. A field leaks when the better of those beats legit by more "
        f"than {MAX_GAP}."
    )
    table = Table(title="no_reading policy against the heuristic (test split)")
    for column in ("mode", "difficulty", "no_reading", "heuristic", "result"):
        table.add_column(
            column, justify="right" if column in ("no_reading", "heuristic") else "left"
        )
    for c in report.cells:
        verdict = "ok" if c.ok else f"FAIL (ceiling {NO_READING_CEILING}, below the heuristic)"
        table.add_row(c.mode, c.difficulty, f"{c.no_reading:.3f}", f"{c.heuristic:.3f}", verdict)
    console.print(table)
    return 0 if report.ok else 1


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
    leaks: Annotated[
        bool,
        typer.Option(
            "--leaks",
            help="Audit what an agent sees besides the mail instead: classifiers on every other "
            "field against the signals a real inbox has, and the no_reading policy.",
        ),
    ] = False,
    size: Annotated[
        str,
        typer.Option(help="With --leaks: full (minutes) or small (a quick look)."),
    ] = "full",
) -> None:
    """Check the environment's rules on every fixed task and on each mode's generated task in
    every split; exit 1 if any rule fails. With --calibration, grade people's texts instead;
    with --leaks, audit what gives answers away without reading."""
    if calibration:
        raise typer.Exit(_check_calibration(calibration_set))
    if leaks:
        raise typer.Exit(_check_leaks(size))
    from inbox_triage.evaluation.checker import Rules, check_environment
    from inbox_triage.evaluation.degenerate import check_degenerate

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
