"""In-process speed of the engine and grader: reset + step pairs, a triage step, and memory.

Run: python benchmarks/bench_engine.py            (about 30 s)

1. Reset + one step on ``inbox/medium_billing_bug_mix`` (a classify_ticket), pairs per second
   and the median pair. Target: median <= 0.15 ms.
2. Reset + one step on a 12-email generated triage inbox (``triage/generated``, size=12), the
   step a full decision with a summary and a reply draft.
3. A triage step that carries a reply and a summary: the median of the first six decisions of
   each episode of (2), timed alone. Target: median <= 0.1 ms.
4. Memory per idle session: K environments each reset on its own 12-email generated inbox,
   measured with tracemalloc in a fresh process. Target: <= 100 KB.

Every figure is from one run of this script; pairs are timed one by one and the median taken,
after a warm-up. ``--observation full`` times the full observation style instead of the lean
default. ``--profile`` prints a cProfile of (3).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

from inbox_triage.env import InboxTriageEnv

INBOX_TASK = "inbox/medium_billing_bug_mix"
INBOX_ACTION = {"action_type": "classify_ticket", "ticket_id": "T-210", "priority": "high"}
PAIR_TARGET_MS = 0.15
STEP_TARGET_MS = 0.10
MEMORY_TARGET_KB = 100.0
SUMMARY = "Customer reports a problem with the latest invoice and asks for a correction."
REPLY = (
    "Hi {name}, thank you for writing. We are looking into the invoice you mention and will "
    "send you an update as soon as we know more. Kind regards, the support team"
)


def decisions(observation: dict[str, Any], n: int = 6) -> list[dict[str, Any]]:
    """Six full decisions (with a summary and a reply) on the inbox's first emails."""
    vocabulary = observation["vocabulary"]
    return [
        {
            "email_id": email["email_id"],
            "priority": vocabulary["priorities"][i % len(vocabulary["priorities"])],
            "category": vocabulary["categories"][i % len(vocabulary["categories"])],
            "route_to": vocabulary["queues"][i % len(vocabulary["queues"])],
            "summary": SUMMARY,
            "reply_draft": REPLY.format(name=email["customer_name"].split()[0]),
        }
        for i, email in enumerate(observation["inbox"][:n])
    ]


def timed(fn: Any, n: int, warmup: int = 200) -> list[float]:
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def inbox_pairs(n: int, style: str) -> list[float]:
    env = InboxTriageEnv()

    def pair() -> None:
        env.reset(task=INBOX_TASK, observation=style)
        env.step(INBOX_ACTION)

    return timed(pair, n)


def triage_runs(episodes: int, style: str) -> tuple[list[float], list[float]]:
    """(reset + first decision pairs, every decision step timed alone)."""
    seeds = range(8)
    plans = {
        s: decisions(InboxTriageEnv().reset(task="triage/generated", size=12, seed=s).model_dump())
        for s in seeds
    }
    env = InboxTriageEnv()
    pairs: list[float] = []
    steps: list[float] = []
    for i in range(episodes + 20):
        seed = i % len(plans)
        t = time.perf_counter()
        env.reset(task="triage/generated", size=12, seed=seed, observation=style)
        t_reset = time.perf_counter()
        for j, action in enumerate(plans[seed]):
            s = time.perf_counter()
            obs = env.step(action)
            took = time.perf_counter() - s
            assert obs.last_action_error is None, obs.last_action_error
            if i >= 20:  # warm-up episodes are not counted
                steps.append(took)
                if j == 0:
                    pairs.append(t_reset - t + took)
    return pairs, steps


def idle_memory(k: int) -> dict[str, Any]:
    """In a fresh process: what ``k`` idle sessions hold (tracemalloc)."""
    import tracemalloc

    for seed in range(10_000_000, 10_000_003):  # warm imports and caches outside the range
        InboxTriageEnv().reset(task="triage/generated", size=12, seed=seed)
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    envs = [InboxTriageEnv() for _ in range(k)]
    for seed, env in enumerate(envs):
        env.reset(task="triage/generated", size=12, seed=seed)
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    return {"k": k, "per_session_kb": held / k / 1024}


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=5000, help="timed inbox reset+step pairs")
    parser.add_argument("--episodes", type=int, default=600, help="timed triage episodes")
    parser.add_argument("--sessions", type=int, default=300, help="idle sessions for memory")
    parser.add_argument("--observation", choices=("lean", "full"), default="lean")
    parser.add_argument("--profile", action="store_true", help="cProfile the triage steps")
    parser.add_argument("--idle-memory", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.idle_memory:
        print(json.dumps(idle_memory(args.idle_memory)))
        return 0

    print(
        f"inbox-triage engine benchmark (python {sys.version.split()[0]}, "
        f"{os.cpu_count()} CPUs, observation={args.observation})"
    )
    pairs = inbox_pairs(args.pairs, args.observation)
    median = statistics.median(pairs)
    print(
        f"\n1. reset + classify step on {INBOX_TASK}: median {ms(median)}, "
        f"{1 / statistics.mean(pairs):,.0f} pairs/s over {len(pairs)} "
        f"(target <= {PAIR_TARGET_MS} ms: {'met' if median * 1e3 <= PAIR_TARGET_MS else 'MISSED'})"
    )
    tpairs, steps = triage_runs(args.episodes, args.observation)
    print(
        f"2. reset + decision step on a 12-email generated triage inbox: median "
        f"{ms(statistics.median(tpairs))}, {1 / statistics.mean(tpairs):,.0f} pairs/s "
        f"over {len(tpairs)}"
    )
    step = statistics.median(steps)
    print(
        f"3. triage step with a reply and a summary: median {ms(step)}, p90 "
        f"{ms(sorted(steps)[int(len(steps) * 0.9)])} over {len(steps)} "
        f"(target <= {STEP_TARGET_MS} ms: {'met' if step * 1e3 <= STEP_TARGET_MS else 'MISSED'})"
    )
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--idle-memory", str(args.sessions)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    memory = json.loads(out.stdout.strip().splitlines()[-1])
    kb = memory["per_session_kb"]
    print(
        f"4. memory per idle session (12-email generated inbox, K={memory['k']}, tracemalloc): "
        f"{kb:.1f} KB (target <= {MEMORY_TARGET_KB:.0f} KB: "
        f"{'met' if kb <= MEMORY_TARGET_KB else 'MISSED'})"
    )
    if args.profile:
        import cProfile
        import pstats

        profile = cProfile.Profile()
        profile.enable()
        triage_runs(200, args.observation)
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(20)
    return 0


if __name__ == "__main__":
    sys.exit(main())
