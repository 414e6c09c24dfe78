"""bench_server.py's clients: rounds of reset + step for throughput (the same GenericEnvClient
against either server), idle sessions held open for memory, and many sessions playing an
episode each at once for scale."""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from _children import pct
from _drive import close_all, new_client, open_sessions
from _live import Server

OUR_TASK = "triage/easy"
OUR_ACTION = {
    "email_id": "e001",
    "priority": "urgent",
    "category": "customer_complaint",
    "route_to": "support_tier2",
}
ECHO_ACTION = {"message": "hi"}


@dataclass
class RunResult:
    name: str
    rounds: int
    wall_s: float
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    payload_bytes: int = 0  # reset + step observations as JSON, as the client parsed them
    step_bytes: int = 0  # the step's observation as compact JSON (what the server sends)
    server_cpu_s: float = 0.0  # CPU the server process used during the timed rounds

    @property
    def rps(self) -> float:
        return self.rounds / self.wall_s if self.wall_s else 0.0


def round_args(which: str) -> tuple[dict[str, Any], dict[str, Any]]:
    return ({"task": OUR_TASK}, OUR_ACTION) if which == "ours" else ({}, ECHO_ACTION)


async def drive(server: Server, clients: int, rounds: int, warmup: int, max_s: float) -> RunResult:
    """``clients`` concurrent GenericEnvClients, each ``rounds`` rounds of reset + step."""
    reset_kwargs, action = round_args(server.name)
    envs = [new_client(server.url, timeout_s=30.0) for _ in range(clients)]
    result = RunResult(server.name, 0, 0.0)
    try:
        await asyncio.gather(*(e.connect() for e in envs))

        async def one(env: Any) -> None:
            r = await env.reset(**reset_kwargs)
            s = await env.step(action)
            if s.observation.get("last_action_error"):
                result.errors.append(str(s.observation["last_action_error"]))
            if not result.payload_bytes:
                result.payload_bytes = len(json.dumps(r.observation)) + len(
                    json.dumps(s.observation)
                )
                result.step_bytes = len(json.dumps(s.observation, separators=(",", ":")))

        for _ in range(max(1, warmup)):
            await asyncio.gather(*(one(e) for e in envs))

        cpu0 = server.cpu_s()
        start = time.perf_counter()
        deadline = start + max_s

        async def loop(env: Any) -> None:
            for _ in range(rounds):
                if time.perf_counter() > deadline:
                    return
                t = time.perf_counter()
                await one(env)
                result.latencies.append(time.perf_counter() - t)

        await asyncio.gather(*(loop(e) for e in envs))
        result.wall_s = time.perf_counter() - start
        result.server_cpu_s = server.cpu_s() - cpu0
        result.rounds = len(result.latencies)
    finally:
        await close_all(envs)
    return result


def throughput(args: argparse.Namespace, servers: dict[str, Server]) -> dict[str, Any]:
    runs: dict[str, list[RunResult]] = {"ours": [], "echo": []}
    for i in range(args.runs):
        order = ("ours", "echo") if i % 2 == 0 else ("echo", "ours")  # ABBA: drift hits both
        for name in order:
            res = asyncio.run(
                drive(servers[name], args.clients, args.rounds, args.warmup, args.run_max_s)
            )
            runs[name].append(res)
            capped = " (stopped at --run-max-s)" if res.rounds < args.clients * args.rounds else ""
            print(
                f"  run {i + 1} {name:4s}: {res.rps:8.1f} round trips/s  "
                f"p50 {pct(res.latencies, 0.5) * 1e3:7.2f} ms  "
                f"p99 {pct(res.latencies, 0.99) * 1e3:7.2f} ms  "
                f"server CPU {res.server_cpu_s / max(1, res.rounds) * 1e6:6.0f} us/round trip  "
                f"({res.rounds} rounds in {res.wall_s:.2f} s){capped}",
                flush=True,
            )
            if res.errors:
                print(f"    {len(res.errors)} steps answered an error, first: {res.errors[0]}")
    summary: dict[str, Any] = {}
    for name, rs in runs.items():
        summary[name] = {
            "bytes": rs[0].payload_bytes,
            "step_bytes": rs[0].step_bytes,
            "cpu": statistics.median(r.server_cpu_s / max(1, r.rounds) for r in rs),
            "rps": statistics.median(r.rps for r in rs),
            "p50": statistics.median(pct(r.latencies, 0.5) for r in rs),
            "p99": statistics.median(pct(r.latencies, 0.99) for r in rs),
        }
    pair_ratios = [o.rps / e.rps for o, e in zip(runs["ours"], runs["echo"], strict=True) if e.rps]
    summary["ratio"] = summary["ours"]["rps"] / summary["echo"]["rps"]
    summary["pair_ratios"] = pair_ratios
    return summary


async def quiet_baseline(server: Server, reset_kwargs: dict[str, Any]) -> tuple[int, int]:
    """Warms the server up (imports, caches) with one session outside the measured range, lets
    it settle, and reads its RSS and thread count: what the sessions measured add to."""
    async with new_client(server.url) as warm:
        await warm.reset(**reset_kwargs)
    await asyncio.sleep(0.3)
    return server.rss_bytes(), server.threads()


async def hold_sessions(server: Server, k: int, batch: int, max_s: float) -> dict[str, Any]:
    """Opens ``k`` WebSocket sessions (reset, then idle) and reads the server's RSS."""

    def reset_kwargs(seed: int) -> dict[str, Any]:
        if server.name == "ours":
            return {"task": "triage/generated", "size": 12, "seed": seed}
        return {"seed": seed}

    rss0, threads0 = await quiet_baseline(server, reset_kwargs(10_000_000))
    envs = [new_client(server.url, timeout_s=30.0) for _ in range(k)]
    deadline = time.perf_counter() + max_s
    try:
        results = await open_sessions(
            envs, reset_kwargs, batch, go_on=lambda: time.perf_counter() <= deadline
        )
        for r in results:
            if isinstance(r, BaseException):
                raise r
        await asyncio.sleep(0.5)
        rss1, threads1 = server.rss_bytes(), server.threads()
    finally:
        await close_all(envs)
    await asyncio.sleep(0.5)
    return {
        "k": sum(1 for r in results if r is not None),
        "rss_delta": rss1 - rss0,
        "rss_after_close_delta": server.rss_bytes() - rss0,
        "threads": threads1 - threads0,
    }


async def play_many(server: Server, k: int, batch: int, max_s: float) -> dict[str, Any]:
    """Opens ``k`` sessions, resets each on its own inbox, then plays them all at once: one
    decision per email (the vocabulary's first values), then finish."""

    def reset_kwargs(seed: int) -> dict[str, Any]:
        return {"task": "triage/generated", "size": 12, "seed": seed}

    rss0, threads0 = await quiet_baseline(server, reset_kwargs(10_000_000))
    errors: list[str] = []
    envs = [new_client(server.url, timeout_s=60.0) for _ in range(k)]
    firsts: list[Any] = [None] * k
    deadline = time.perf_counter() + max_s

    async def play(i: int) -> int:
        result, steps = firsts[i], 0
        if result is None:
            return 0
        vocabulary = result.observation["vocabulary"]
        try:
            while not result.done and time.perf_counter() < deadline:
                email = result.observation.get("current_email")
                action = (
                    {"action_type": "finish"}
                    if email is None
                    else {
                        "email_id": email["email_id"],
                        "priority": vocabulary["priorities"][0],
                        "category": vocabulary["categories"][0],
                        "route_to": next(
                            q
                            for q in vocabulary["queues"]
                            if result.observation["team_queue_remaining"].get(q, 1) > 0
                        ),
                    }
                )
                result = await envs[i].step(action)
                steps += 1
            if not result.done:
                errors.append(f"session {i}: not finished in time")
        except Exception as exc:  # noqa: BLE001
            errors.append(f"session {i} step: {type(exc).__name__}: {exc}"[:200])
        return steps if result.done else -1

    try:
        results = await open_sessions(envs, reset_kwargs, batch)
        for i, r in enumerate(results):
            if isinstance(r, Exception):  # every failure is counted, none stops the run
                errors.append(f"session {i} open/reset: {type(r).__name__}: {r}"[:200])
            elif isinstance(r, BaseException):
                raise r
            else:
                firsts[i] = r
        opened = sum(1 for f in firsts if f is not None)
        await asyncio.sleep(0.5)
        rss_open = server.rss_bytes() - rss0
        t0 = time.perf_counter()
        played = await asyncio.gather(*(play(i) for i in range(k)))
        play_s = time.perf_counter() - t0
        rss_played, threads = server.rss_bytes() - rss0, server.threads() - threads0
    finally:
        await close_all(envs)
    return {
        "opened": opened,
        "finished": sum(1 for n in played if n > 0),
        "steps": sum(n for n in played if n > 0),
        "play_s": play_s,
        "rss_open": rss_open,
        "rss_played": rss_played,
        "threads": threads,
        "errors": errors,
    }
