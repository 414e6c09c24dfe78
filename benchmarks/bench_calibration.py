"""The grader against people: calibration scores per kind of text, and grading time per text.

Run: python benchmarks/bench_calibration.py        (about 10 s)

For the calibration set (tests/data/calibration) and its held-out part (written after the
grader was tuned, by other people), prints per field and kind of text the count, mean,
lowest and highest score and the zeros, beside the targets; then the grading time per text
(median and 90th percentile; each text graded once and new to the caches, as an agent's
are, while the email's context is built beforehand, as an episode builds it once) and the
one-off cost of building the shared stuffing index.
Targets: good >= 0.9 on average and none below 0.5, terse >= 0.6, every bad kind <= 0.15 on
average and none above 0.4.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from inbox_triage.evaluation.calibration import grade_set, load_set, summarise
from inbox_triage.grading.stuffing import _shared_index

ROOT = Path(__file__).resolve().parents[1] / "tests" / "data" / "calibration"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=ROOT, help="calibration folder")
    args = parser.parse_args()
    start = time.perf_counter()
    _shared_index()
    print(f"stuffing index built in {1000 * (time.perf_counter() - start):.0f} ms (once a process)")
    for folder in (args.set, args.set / "holdout"):
        if not folder.is_dir():
            continue
        results = grade_set(load_set(folder))  # each text new, as an agent's are
        print(f"\n{folder} ({len(results)} texts)")
        head = ("field", "kind", "n", "mean", "min", "max", "zeros")
        print("{:8} {:16} {:>4} {:>5} {:>5} {:>5} {:>5}  result".format(*head))
        for s in summarise(results):
            verdict = "; ".join(s.failures()) or "ok"
            print(
                f"{s.field:8} {s.kind:16} {s.count:4} {s.mean:5.2f} {s.low:5.2f} {s.high:5.2f} "
                f"{s.zeros:5}  {verdict}"
            )
        times = sorted(r.seconds * 1000 for r in results)
        p90 = times[int(0.9 * (len(times) - 1))]
        print(f"grading time per text: median {statistics.median(times):.3f} ms, p90 {p90:.3f} ms")


if __name__ == "__main__":
    main()
