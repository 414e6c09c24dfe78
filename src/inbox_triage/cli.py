"""The `inbox-triage` command line: eval, check, tasks."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from inbox_triage.agents import AGENTS
from inbox_triage.domain import MODES
from inbox_triage.evaluation import Rules, check_environment, evaluate
from inbox_triage.evaluation.runner import write_json
from inbox_triage.scenarios import ScenarioError, fixed_task_ids, load_task, task_info

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
    """Task ids from selectors: a full id, a mode name (all its tasks), or a unique bare name."""
    chosen = _split(selectors)
    if not chosen:
        return fixed_task_ids()
    out: list[str] = []
    for selector in chosen:
        if selector in MODES:
            out.extend(fixed_task_ids(selector))
            continue
        matches = [t for t in fixed_task_ids() if t == selector or t.split("/", 1)[1] == selector]
        if len(matches) != 1 and "@" in selector:
            load_task(selector)  # a pinned version: validates or raises a clear error
            matches = [selector]
        if len(matches) != 1:
            known = ", ".join([*MODES, *fixed_task_ids()])
            what = "is ambiguous" if matches else "is not a task"
            raise typer.BadParameter(
                f"{selector!r} {what}; choose from: {known}", param_hint="--tasks"
            )
        out.extend(matches)
    return list(dict.fromkeys(out))


def select_agents(names: list[str] | None) -> list[str]:
    chosen = _split(names) or list(AGENTS)
    for name in chosen:
        if name not in AGENTS:
            raise typer.BadParameter(
                f"{name!r} is not an agent; choose from: {', '.join(AGENTS)}", param_hint="--agent"
            )
    return chosen


@app.command("eval")
def eval_command(
    agent: Annotated[
        list[str] | None,
        typer.Option("--agent", "-a", help="Agent name; repeat or comma-separate. Default: all."),
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
    episodes: Annotated[int, typer.Option(min=1, help="Episodes per task and agent.")] = 5,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the first episode.")] = 0,
    json_path: Annotated[
        str | None, typer.Option("--json", help="Also write the results as JSON here.")
    ] = None,
    more_tasks: Annotated[
        list[str] | None,
        typer.Argument(metavar="[TASK]...", help="More tasks, so that --tasks A B C works."),
    ] = None,
) -> None:
    """Evaluate agents on tasks and print the mean grade per task and agent."""
    try:
        task_ids = select_tasks([*(tasks or []), *(more_tasks or [])])
    except ScenarioError as exc:
        raise typer.BadParameter(str(exc), param_hint="--tasks") from None
    agents = select_agents(agent)
    summaries = evaluate(agents, task_ids, episodes=episodes, seed=seed)
    grid = {(s.task, s.agent): s for s in summaries}
    seeds = f"seed {seed}" if episodes == 1 else f"seeds {seed}..{seed + episodes - 1}"
    table = Table(title=f"Mean grade over {episodes} episode(s) per cell, {seeds}")
    table.add_column("task")
    for name in agents:
        table.add_column(name, justify="right")
    for task in task_ids:
        table.add_row(task, *(f"{grid[(task, name)].mean_grade:.3f}" for name in agents))
    table.add_section()
    table.add_row(
        "mean",
        *(
            f"{sum(grid[(t, name)].mean_grade for t in task_ids) / len(task_ids):.3f}"
            for name in agents
        ),
    )
    console.print(table)
    if json_path:
        write_json(json_path, summaries)
        console.print(f"wrote {json_path}")


@app.command("check")
def check_command(
    tasks: Annotated[
        list[str] | None,
        typer.Option("--tasks", "-t", help="Tasks to check (default: every fixed task)."),
    ] = None,
    random_episodes: Annotated[
        int, typer.Option(min=1, help="Episodes of random play averaged per task.")
    ] = 20,
) -> None:
    """Check the environment's rules on every task; exit 1 if any rule fails."""
    rules = Rules(random_episodes=random_episodes)
    results = check_environment(select_tasks(tasks), rules)
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
            r.task,
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
        f"sum(rewards) = grade - penalties (within {rules.reward_tolerance:g})"
    )
    failed = [r.task for r in results if not r.ok]
    if failed:
        console.print(f"[red]{len(failed)} of {len(results)} tasks broke a rule[/red]")
        raise typer.Exit(1)
    console.print(f"[green]all {len(results)} tasks keep every rule[/green]")


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


if __name__ == "__main__":
    app()
