"""Generated mail's variety and the generator's speed, v1 beside v2.
Run: python benchmarks/bench_variety.py [--emails 1000] [--repeats 300]

Targets (issue 20): at most 5% near-duplicate bodies among 1,000 emails of one split (5-word
shingles, Jaccard at least 0.5); at least 50 situations, every family with at least 6 distinct
bodies; a reset within 1.5x of generator v1's. Speeds are medians of this one run.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict

from inbox_triage.env import InboxTriageEnv
from inbox_triage.scenarios.generator import SPLITS
from inbox_triage.scenarios.generator.corpus import near_duplicates, sample
from inbox_triage.scenarios.generator.data import load_situations, load_situations_v2


def figures(version: int, split: str, emails: int) -> str:
    chosen = [e for _, batch in sample(version, split, emails) for e in batch]
    bodies = [e.ticket.body for e in chosen]
    per_family: dict[tuple[str, int], set[str]] = defaultdict(set)
    for e in chosen:
        per_family[(e.origin.situation, e.origin.family)].add(e.ticket.body)
    rate = len(near_duplicates(bodies)) / len(bodies)
    top = max(bodies.count(b) for b in set(bodies))
    return (
        f"v{version} {split:<10} {len(bodies):>5} emails {len(set(bodies)):>5} distinct bodies "
        f"(most repeated x{top}), near-duplicates {rate:6.1%}, "
        f"{len({e.origin.situation for e in chosen}):>3} situations, {len(per_family):>3} families"
    )


def reset_ms(task: str, repeats: int, **kwargs: object) -> float:
    env = InboxTriageEnv()
    times = []
    for seed in range(repeats):
        start = time.perf_counter()
        env.reset(task=task, seed=seed, **kwargs)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--emails", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=300)
    args = parser.parse_args()
    print(f"situations: v1 {len(load_situations())}, v2 {len(load_situations_v2())}")
    fams = [len(s.families) for s in load_situations_v2()]
    print(f"v2 families per situation: min {min(fams)}, total {sum(fams)}")
    for split in SPLITS:
        for version in (1, 2):
            print(figures(version, split, args.emails))
    print("reset (median ms, medium difficulty, train split):")
    for mode in ("triage", "ticket", "inbox"):
        v1 = reset_ms(f"{mode}/generated@v1", args.repeats)
        v2 = reset_ms(f"{mode}/generated", args.repeats)
        verdict = "met" if v2 <= 1.5 * v1 else "MISSED"
        ratio = f"ratio {v2 / v1:4.2f} (target <= 1.5: {verdict})"
        print(f"  {mode:<7} v1 {v1:6.2f}  v2 {v2:6.2f}  {ratio}")


if __name__ == "__main__":
    main()
