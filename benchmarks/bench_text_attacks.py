"""What the free-text grader pays for hand-written attacks (tests/text_attacks.py): texts that
try to earn summary, reply or request credit without being true, specific and within policy.
Run: python benchmarks/bench_text_attacks.py [--emails 100]

Per mode and attack: the emails it applied to (n), the mean score, the share above 0.4 and the
share at or above 0.5; then the reference texts' means on the same emails. The targets
(tests/test_text_attacks.py): an attack's mean at most 0.15 with at most 5% of emails above
0.4, the reference texts' mean at least 0.9.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from text_attacks import (  # noqa: E402
    ATTACKS,
    KINDS_BY_MODE,
    MODES,
    attack_scores,
    attacks_for,
    reference_scores,
    sample_emails,
)

MAX_MEAN, MAX_SHARE_ABOVE, HIGH = 0.15, 0.05, 0.4


def row(scores: list[float]) -> tuple[str, str, str, str, bool]:
    if not scores:
        return "0", "-", "-", "-", True
    mean = statistics.fmean(scores)
    above = sum(s > HIGH for s in scores) / len(scores)
    half = sum(s >= 0.5 for s in scores) / len(scores)
    ok = mean <= MAX_MEAN and above <= MAX_SHARE_ABOVE
    return str(len(scores)), f"{mean:.3f}", f"{above:.0%}", f"{half:.0%}", ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--emails", type=int, default=100, help="emails per mode (and per kind)")
    args = parser.parse_args()
    console = Console()
    start = time.perf_counter()
    table = Table(title=f"Text attacks on the grader (at least {args.emails} emails per mode)")
    for col in ("mode", "attack", "kind", "n", "mean", "> 0.4", ">= 0.5", "target"):
        table.add_column(
            col, justify="right" if col in ("n", "mean", "> 0.4", ">= 0.5") else "left"
        )
    refs = Table(title="Reference texts (oracle) on the same emails")
    for col in ("mode", "kind", "n", "mean", "> 0.4", ">= 0.5", "target"):
        refs.add_column(col, justify="left" if col in ("mode", "kind", "target") else "right")
    failed = 0
    for mode in MODES:
        sample = sample_emails(mode, args.emails)
        for name in attacks_for(mode):
            n, mean, above, half, ok = row(attack_scores(mode, name, sample))
            failed += not ok
            verdict = "met" if ok else "[red]MISSED[/red]"
            table.add_row(mode, name, ATTACKS[name][0], n, mean, above, half, verdict)
        for kind in KINDS_BY_MODE[mode]:
            scores = reference_scores(mode, kind, sample)
            n, mean, above, half, _ = row(scores)
            ok = bool(scores) and statistics.fmean(scores) >= 0.9
            refs.add_row(mode, kind, n, mean, above, half, "met" if ok else "[red]MISSED[/red]")
        table.add_section()
    console.print(table)
    console.print(refs)
    total = sum(len(attacks_for(m)) for m in MODES)
    console.print(
        f"{total - failed}/{total} attack rows meet the target; {time.perf_counter() - start:.1f} s"
    )


if __name__ == "__main__":
    main()
