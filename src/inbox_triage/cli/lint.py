"""`inbox-triage lint`: read generated mail as a support lead would, and count what gives it
away as machine-made."""

from __future__ import annotations

import time
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from inbox_triage.cli.common import app, check_choice, console, split_values
from inbox_triage.scenarios.generator import SPLITS
from inbox_triage.scenarios.generator.corpus import lint_corpus, variety
from inbox_triage.scenarios.generator.data import GENERATOR_VERSIONS, LATEST
from inbox_triage.scenarios.generator.lint import KINDS, summarise


@app.command("lint")
def lint_command(
    emails: Annotated[
        int, typer.Option(min=1, max=100_000, help="Emails to read per split (a third per mode).")
    ] = 10_000,
    splits: Annotated[
        list[str] | None, typer.Option("--splits", help="Splits to read (default: all three).")
    ] = None,
    version: Annotated[
        int, typer.Option(help=f"Generator version: {', '.join(map(str, GENERATOR_VERSIONS))}.")
    ] = LATEST,
    show: Annotated[int, typer.Option(min=0, help="Findings to list per kind.")] = 3,
    variety_emails: Annotated[
        int, typer.Option(min=0, help="Emails per split for the near-duplicate rate (0: skip).")
    ] = 1000,
) -> None:
    """Generate EMAILS per split across the three modes and lint every text an agent can see
    (subjects, bodies, threads, customer answers, follow-ups, scenario lines). Exits 1 on any
    finding, naming the situation, family and seed of each."""
    if version not in GENERATOR_VERSIONS:
        known = ", ".join(map(str, GENERATOR_VERSIONS))
        raise typer.BadParameter(f"{version} is not one of {known}", param_hint="--version")
    chosen = split_values(splits) or list(SPLITS)
    for split in chosen:
        check_choice("--splits", split, SPLITS)
    table = Table(title=f"Lint of generator v{version}: findings per {emails:,} emails")
    table.add_column("finding")
    for split in chosen:
        table.add_column(split, justify="right")
    counts, examples, total = {}, {}, 0
    started = time.perf_counter()
    for split in chosen:
        with console.status(f"generating and reading {emails:,} {split} emails"):
            read, findings = lint_corpus(version, split, emails)
        counts[split] = summarise(findings)
        total += len(findings)
        for finding in findings:
            examples.setdefault(finding.kind, []).append(finding)
        console.print(f"{split}: read {read:,} emails, {len(findings):,} findings")
    for kind in KINDS:
        table.add_row(kind, *(str(counts[s].get(kind, 0)) for s in chosen))
    console.print(table)
    for kind, found in examples.items():
        console.print(f"[bold]{kind}[/] ({len(found)}):")
        for finding in found[:show]:
            console.print("  " + escape(finding.line()))
    if variety_emails:
        for split in chosen:
            v = variety(version, split, variety_emails)
            console.print(
                f"{split}: {v.emails} emails, {v.distinct_bodies} distinct bodies, "
                f"near-duplicates {v.near_duplicate_rate:.1%} (target at most 5%), "
                f"{v.situations} situations, {v.families} families"
            )
    console.print(f"{total} findings in {time.perf_counter() - started:.0f} s")
    if total:
        raise typer.Exit(1)
