"""How long a newcomer waits before anything happens: `inbox-triage --help`, `import
inbox_triage.env`, and `inbox-triage serve` until /health answers (issue 31's targets: 0.5 s,
1 s, 2 s). Each is a fresh process; medians of several runs.
Run: python benchmarks/bench_startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

BIN = Path(sys.executable).parent
TARGETS = {"--help": 0.5, "import env": 1.0, "serve healthy": 2.0}


def _timed(cmd: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - started


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve_healthy() -> float:
    port = _free_port()
    started = time.perf_counter()
    cli = [str(BIN / "inbox-triage"), "serve", "--port", str(port), "--host", "127.0.0.1"]
    proc = subprocess.Popen(cli, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while time.perf_counter() - started < 60:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=0.5).status_code == 200:
                    return time.perf_counter() - started
            except httpx.HTTPError:
                time.sleep(0.02)
        raise RuntimeError("the server did not become healthy within 60 s")
    finally:
        proc.terminate()
        proc.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    cases = {
        "--help": lambda: _timed([str(BIN / "inbox-triage"), "--help"]),
        "import env": lambda: _timed([sys.executable, "-c", "import inbox_triage.env"]),
        "serve healthy": _serve_healthy,
    }
    print(f"{'what':<15} {'median s':>9} {'min s':>7} {'target s':>9}  met")
    for name, case in cases.items():
        case()  # a warm-up run: compiled bytecode, file cache
        times = [case() for _ in range(runs)]
        median = statistics.median(times)
        met = "yes" if median <= TARGETS[name] else "NO"
        print(f"{name:<15} {median:>9.2f} {min(times):>7.2f} {TARGETS[name]:>9.1f}  {met}")


if __name__ == "__main__":
    main()
