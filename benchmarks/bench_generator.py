"""Generator and step speed, and seed uniqueness. Run: python benchmarks/bench_generator.py

Targets (issue 3): a 12-email inbox in under 2 ms median, an in-process step in under 100 us
median. Figures are medians of repeated timings measured in this one run.
"""

from __future__ import annotations

import argparse
import statistics
import time

from inbox_triage.agents import make_agent
from inbox_triage.env import InboxTriageEnv
from inbox_triage.observations import ObservationMemory
from inbox_triage.scenarios.generator import generate


def timed(fn, repeats: int) -> list[float]:
    out = []
    for i in range(repeats):
        start = time.perf_counter()
        fn(i)
        out.append(time.perf_counter() - start)
    return out


def step_times(task: str, agent_name: str, episodes: int, **reset_args) -> list[float]:
    """Wall time of env.step alone (the agent's thinking is not counted)."""
    times = []
    env = InboxTriageEnv()
    for seed in range(episodes):
        obs = env.reset(task=task, seed=seed, **reset_args)
        agent, memory = make_agent(agent_name), ObservationMemory()
        agent.reset(memory.update(obs.model_dump()), scenario=env.scenario, seed=seed)
        while not obs.done:
            action = agent.act(memory.update(obs.model_dump()))
            start = time.perf_counter()
            obs = env.step(action)
            times.append(time.perf_counter() - start)
    return times


def verdict(value_us: float, target_us: float) -> str:
    return "met" if value_us < target_us else "MISSED"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=2000)
    parser.add_argument("--unique-seeds", type=int, default=100_000)
    args = parser.parse_args()
    us = 1e6

    one = timed(lambda i: generate("ticket", "train", "medium", i), args.repeats)
    inbox12 = timed(lambda i: generate("triage", "train", "medium", i, size=12), args.repeats)
    print(f"generate one ticket (ticket mode):  median {statistics.median(one) * us:8.1f} us")
    median12 = statistics.median(inbox12) * us
    print(f"generate a 12-email inbox (triage): median {median12:8.1f} us"
          f"   (target < 2000 us: {verdict(median12, 2000)})")
    for task, agent, extra in (
        ("triage/generated", "heuristic", {"size": 12}),
        ("inbox/generated", "heuristic", {}),
        ("ticket/generated", "heuristic", {}),
        ("triage/hard", "oracle", {}),
    ):
        times = step_times(task, agent, 200 if "generated" in task else 500, **extra)
        median = statistics.median(times) * us
        print(f"step {task:18s} ({agent:9s}): median {median:8.1f} us, "
              f"p90 {sorted(times)[int(len(times) * 0.9)] * us:8.1f} us over {len(times)} steps"
              f"   (target median < 100 us: {verdict(median, 100)})")

    start = time.perf_counter()
    seen = set()
    for seed in range(args.unique_seeds):
        scenario = generate("triage", "train", "medium", seed)
        seen.add(tuple((t.subject, t.body, t.customer.name, t.received_minutes_ago)
                       for t in scenario.tickets))
    elapsed = time.perf_counter() - start
    print(f"unique inboxes over {args.unique_seeds} seeds (triage, train, medium): "
          f"{len(seen)} ({elapsed:.1f} s)")


if __name__ == "__main__":
    main()
