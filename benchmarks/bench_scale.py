"""Episodes per second of the evaluation runner on each backend, in one run.

Run: python benchmarks/bench_scale.py            (about 2 minutes on 2 cores)
     python benchmarks/bench_scale.py --episodes 500 --skip-ray

The heuristic agent on the three generated tasks (``triage/generated``, ``ticket/generated``,
``inbox/generated``, split train, difficulty medium), with trajectories kept, written to a
run folder as ``inbox-triage eval`` does. Each backend plays the same plan:

1. threads: today's runner (one thread; ``--workers 1`` on the command line plays so too);
2. one worker process (``RunConfig(backend="processes", workers=1)``), and ``--workers 2``;
3. ``--backend ray`` with 2 workers: a local Ray instance started for the run (its start-up
   counted), when ``ray`` is installed.

It prints episodes per second, the speed-up over the thread runner, and checks that every
backend wrote the same records (durations aside). Target on a 2-core machine: 10,000
episodes in under 60 s with ``--workers 2``: the last line plays exactly that.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from inbox_triage.evaluation.runs import RunConfig, run

TASKS = ["triage/generated", "ticket/generated", "inbox/generated"]
TARGET_EPISODES = 10_000
TARGET_S = 60.0


def digest(folder: Path) -> str:
    """The run's records without their durations: equal digests, equal records."""
    lines = []
    for line in (folder / "episodes.jsonl").read_text().splitlines():
        record = json.loads(line)
        record.pop("duration_s")
        lines.append(json.dumps(record, sort_keys=True))
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:12]


def timed(config: RunConfig, folder: Path) -> tuple[float, int]:
    started = time.perf_counter()
    result = run(config, folder)
    return time.perf_counter() - started, len(result.records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=600, help="seeds per task (x3 tasks)")
    parser.add_argument("--skip-ray", action="store_true")
    parser.add_argument("--skip-target", action="store_true", help="skip the 10,000 run")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    base = {"agents": ["heuristic"], "tasks": TASKS, "episodes": args.episodes}
    rows = [
        ("threads (= --workers 1)", RunConfig(**base)),
        ("1 worker process", RunConfig(**base, backend="processes", workers=1)),
        ("--workers 2", RunConfig(**base, backend="processes", workers=2)),
    ]
    if not args.skip_ray and importlib.util.find_spec("ray"):
        rows.append(("--backend ray, 2 workers", RunConfig(**base, backend="ray", workers=2)))
    total = args.episodes * len(TASKS)
    print(f"{total} heuristic episodes on {', '.join(TASKS)}; {os.cpu_count()} cores")
    print(f"{'backend':28} {'seconds':>8} {'episodes/s':>11} {'speed-up':>9}  records")
    first_rate = None
    digests = set()
    for n, (label, config) in enumerate(rows):
        seconds, played = timed(config, root / f"run{n}")
        rate = played / seconds
        first_rate = first_rate or rate
        records = digest(root / f"run{n}")
        digests.add(records)
        print(f"{label:28} {seconds:8.2f} {rate:11.0f} {rate / first_rate:8.2f}x  {records}")
    print("every backend wrote the same records" if len(digests) == 1 else "RECORDS DIFFER")
    if not args.skip_target:
        episodes = TARGET_EPISODES // len(TASKS) + 1
        config = RunConfig(**{**base, "episodes": episodes}, backend="processes", workers=2)
        seconds, played = timed(config, root / "target")
        verdict = "met" if seconds < TARGET_S else "MISSED"
        print(
            f"{played} episodes with --workers 2: {seconds:.1f} s ({played / seconds:.0f}/s); "
            f"target {TARGET_EPISODES:,} in < {TARGET_S:.0f} s: {verdict}"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
