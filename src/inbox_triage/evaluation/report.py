"""Comparison reports over run folders: markdown for READMEs and PRs, rich tables for the
terminal and PNG plots.

Matplotlib is imported inside ``write_plots`` only, so that importing this module (and the CLI
that uses it) stays cheap when no plot is asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from inbox_triage.evaluation.metrics import AgentSummary
from inbox_triage.evaluation.records import (
    EPISODES_FILE,
    EpisodeRecord,
    RunMeta,
    read_meta,
    read_records,
)

if TYPE_CHECKING:
    from rich.table import Table

DASH = "—"
SINGLE_TRIAL_NOTE = "Every scenario ran once: repeated trials (--trials) give pass^k for k > 1."
# (title, header, rows, how many leading text columns): one table, rendered either as markdown
# or for the terminal; the columns after the text ones hold numbers and are right-aligned.
TableData = tuple[str, list[str], list[list[str]], int]


def load_run(path: str | Path) -> tuple[str, RunMeta | None, list[EpisodeRecord]]:
    """A run's name, metadata and records, from its folder or its ``episodes.jsonl``."""
    given = Path(path)
    if given.is_dir():
        folder, file = given, given / EPISODES_FILE
    elif given.is_file() and given.suffix == ".jsonl":
        folder, file = given.parent, given
    elif given.exists():
        raise ValueError(f"{given}: not a run folder or an episodes .jsonl file")
    else:
        raise ValueError(f"{given}: no such run folder or file")
    if not file.is_file():
        raise ValueError(f"{given}: not a run folder (no {EPISODES_FILE})")
    meta: RunMeta | None = None
    if file.name == EPISODES_FILE:  # meta.json describes episodes.jsonl, not other files
        try:
            meta = read_meta(folder)
        except ValueError as exc:
            raise ValueError(f"{folder}: unreadable meta.json: {exc}") from None
    records = read_records(file)
    if not records:
        raise ValueError(f"{file}: no finished episodes")
    name = meta.name if meta else (folder.name if file.name == EPISODES_FILE else file.stem)
    return name, meta, records


def _label(summary: AgentSummary) -> str:
    return f"{summary.run}/{summary.agent}"


def _ordered(summaries: Sequence[AgentSummary]) -> list[AgentSummary]:
    if not summaries:
        raise ValueError("no runs to compare")
    thresholds = {s.threshold for s in summaries}
    if len(thresholds) > 1:
        raise ValueError(f"summaries use different pass thresholds: {sorted(thresholds)}")
    return sorted(summaries, key=lambda s: (s.run, s.agent))


def _num(value: float | None) -> str:
    return DASH if value is None else f"{value:.3f}"


def _percent(value: float | None) -> str:
    return DASH if value is None else f"{100 * value:.1f}%"


def _largest_k(summaries: Sequence[AgentSummary]) -> int:
    return max((max(s.pass_hat, default=1) for s in summaries), default=1)


def _tables(summaries: Sequence[AgentSummary]) -> list[TableData]:
    """The comparison tables as text cells, so markdown and terminal show the same."""
    ordered = _ordered(summaries)
    threshold = ordered[0].threshold
    k = _largest_k(ordered)
    header = ["Run", "Agent", "Episodes", "Mean grade [95% CI]", f"pass^1 (grade ≥ {threshold:g})"]
    if k > 1:
        header.append(f"pass^{k} (grade ≥ {threshold:g})")
    header += ["Invalid actions", "SLA breaches / ep", "Tokens / ep"]
    rows: list[list[str]] = []
    for s in ordered:
        row = [s.run, s.agent, str(s.episodes)]
        row.append(f"{s.mean_grade:.3f} [{s.ci_low:.2f}, {s.ci_high:.2f}]")
        row.append(_num(s.pass_hat.get(1)))
        if k > 1:
            row.append(_num(s.pass_hat.get(k)))
        row.append(f"{100 * s.invalid_action_rate:.1f}%")
        row.append(f"{s.sla_breaches_per_episode:.3f}")
        row.append(DASH if s.tokens_per_episode is None else f"{s.tokens_per_episode:.0f}")
        rows.append(row)
    labels = [_label(s) for s in ordered]
    tasks = sorted({t for s in ordered for t in s.per_task})
    modes = sorted({m for s in ordered for m in s.per_mode})
    components = sorted({c for s in ordered for c in s.per_component})
    reasons = sorted({r for s in ordered for r in s.text_zeros})
    zeros: list[TableData] = [
        (
            "Texts scoring 0, by reason (share of that component's texts)",
            ["Reason", *labels],
            [[r, *(_percent(s.text_zeros.get(r)) for s in ordered)] for r in reasons],
            1,
        )
    ]
    return [
        ("Overall", header, rows, 2),
        (
            "Mean grade per task",
            ["Task", *labels],
            [[t, *(_num(s.per_task.get(t)) for s in ordered)] for t in tasks],
            1,
        ),
        (
            "Mean grade per mode",
            ["Mode", *labels],
            [[m, *(_num(s.per_mode.get(m)) for s in ordered)] for m in modes],
            1,
        ),
        (
            "Mean score per grading component",
            ["Component", *labels],
            [[c, *(_num(s.per_component.get(c)) for s in ordered)] for c in components],
            1,
        ),
        *(zeros if reasons else []),
    ]


def grader_version(meta: RunMeta | None) -> str | None:
    """The grader version a run was graded with (runs before versions were recorded: 1)."""
    if meta is None:
        return None
    return meta.versions.get("grader", "1")


def mixed_graders(runs: Sequence[tuple[str, RunMeta | None]]) -> str | None:
    """Why runs graded by different grader versions cannot be compared, if they were."""
    known = {name: v for name, meta in runs if (v := grader_version(meta)) is not None}
    if len(set(known.values())) <= 1:
        return None
    listed = ", ".join(f"{name}: {v}" for name, v in known.items())
    return (
        f"these runs were graded by different grader versions ({listed}), so their grades do "
        "not compare; rerun the older ones, or pass --mixed-graders to compare anyway"
    )


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def comparison_markdown(summaries: Sequence[AgentSummary], title: str | None = None) -> str:
    """GitHub markdown: an overall table, then mean grade per task and per mode."""
    tables = _tables(summaries)
    lines: list[str] = [f"# {title}", ""] if title else []
    for name, header, rows, text in tables:
        lines += [f"## {name}", ""]
        lines.append("| " + " | ".join(_md_cell(h) for h in header) + " |")
        lines.append(
            "|" + "|".join("---" if i < text else "---:" for i in range(len(header))) + "|"
        )
        lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
        lines.append("")
    if _largest_k(summaries) == 1:
        lines += [SINGLE_TRIAL_NOTE.replace("--trials", "`--trials`"), ""]
    return "\n".join(lines)


def comparison_table(summaries: Sequence[AgentSummary]) -> list[Table]:
    """The same tables as ``comparison_markdown``, for printing with rich."""
    from rich.table import Table

    out: list[Table] = []
    for name, header, rows, text in _tables(summaries):
        table = Table(title=name)
        for i, column in enumerate(header):
            table.add_column(column, justify="left" if i < text else "right")
        for row in rows:
            table.add_row(*row)
        out.append(table)
    if _largest_k(summaries) == 1:
        out[0].caption = SINGLE_TRIAL_NOTE
    return out


def write_plots(
    runs: Sequence[tuple[str, Sequence[EpisodeRecord]]],
    summaries: Sequence[AgentSummary],
    out_dir: str | Path,
) -> list[Path]:
    """grade_distribution.png, components.png and pass_k.png in ``out_dir``. Uses the Agg
    canvas directly rather than pyplot, so no global backend or open figures are left behind."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    ordered = _ordered(summaries)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    labels = [_label(s) for s in ordered]
    by_run = {name: records for name, records in runs}
    threshold = ordered[0].threshold
    written: list[Path] = []

    def save(fig: Figure, name: str) -> None:
        FigureCanvasAgg(fig)
        fig.tight_layout()
        path = out / name
        fig.savefig(path, dpi=120)
        written.append(path)

    # Grade distribution: a box per run/agent with every episode as a jittered point.
    grades = [[r.grade for r in by_run.get(s.run, ()) if r.agent == s.agent] for s in ordered]
    fig = Figure(figsize=(8, 1.2 + 0.6 * len(ordered)))
    ax = fig.add_subplot()
    ax.boxplot(grades, orientation="horizontal", tick_labels=labels, showfliers=False)
    rng = np.random.default_rng(0)
    for i, values in enumerate(grades, 1):
        jitter = rng.uniform(-0.15, 0.15, len(values))
        ax.scatter(values, i + jitter, s=12, alpha=0.5, color="tab:blue")
    ax.set_xlim(-0.05, 1.05)
    ax.set_xlabel("episode grade")
    ax.set_title("Grade per episode (box: quartiles; dots: episodes)")
    ax.invert_yaxis()  # first run/agent on top, as in the tables
    save(fig, "grade_distribution.png")

    # Components: grouped bars, one group per grading component.
    components = sorted({c for s in ordered for c in s.per_component})
    fig = Figure(figsize=(max(8.0, 1.2 * len(components) + 4), 4.5))
    ax = fig.add_subplot()
    width = 0.8 / len(ordered)
    xs = np.arange(len(components))
    for i, s in enumerate(ordered):
        heights = [s.per_component.get(c, np.nan) for c in components]
        ax.bar(xs + (i - (len(ordered) - 1) / 2) * width, heights, width, label=labels[i])
    ax.set_xticks(xs, components, rotation=30, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("mean score")
    ax.set_title("Mean score per grading component")
    if components:
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    save(fig, "components.png")

    # pass^k: one line per run/agent.
    k_max = _largest_k(ordered)
    fig = Figure(figsize=(8.5, 4.5))
    ax = fig.add_subplot()
    for s, label in zip(ordered, labels, strict=True):
        ks = sorted(s.pass_hat)
        ax.plot(ks, [s.pass_hat[k] for k in ks], marker="o", label=label)
    ax.set_xticks(range(1, k_max + 1))
    ax.set_ylim(-0.03, 1.05)  # a pass^k of 0 stays visible above the axis
    ax.set_xlabel("k (tries that must all pass)")
    ax.set_ylabel(f"pass^k (grade ≥ {threshold:g})")
    title = f"pass^k: chance that k tries of a scenario all reach {threshold:g}"
    if k_max == 1:
        title = (
            f"pass^1 (grade ≥ {threshold:g}): one trial per scenario;\n"
            "more trials (--trials) give the pass^k curve"
        )
    ax.set_title(title)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    save(fig, "pass_k.png")
    return written
