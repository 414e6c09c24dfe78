"""bench_soak.py's report: the server's time series, the totals and latencies of the load, the
server's memory, threads and descriptors, and whether the load left anything behind."""

from __future__ import annotations

import os
import statistics
from collections import Counter
from dataclasses import dataclass
from typing import Any

from _children import pct
from _drive import DROP_KINDS
from _live import Sample
from _soak_load import Load


@dataclass
class Soak:
    """What one run measured, for the report."""

    load: Load
    samples: list[Sample]  # during the load, then after the disconnects and after the probe
    end: Sample  # the end of the load
    drained: Sample  # after the disconnects and the grace
    after_probe: Sample  # after the capacity probe and the grace
    warmup: float  # seconds before RSS counts
    client_cpu: float  # this process's CPU seconds
    health_start: tuple[bool, float, Any]  # before the load: ok, ms, body
    health_drained: tuple[bool, float, Any]  # after the disconnects
    probe: dict[str, Any]  # capacity_probe's answer
    problems: list[str]  # the server log's lines worth a look
    excerpt: list[str]  # the server log from the first of them on
    alive: bool  # the server still ran at the end
    log_path: str | None  # the server log, when it is kept


def mib(b: float) -> str:
    return f"{b / 2**20:.1f} MiB"


def slope_mib_per_min(points: list[Sample]) -> float:
    if len(points) < 3:
        return float("nan")
    xs = [p.t / 60 for p in points]
    ys = [p.rss / 2**20 for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else 0.0


def print_series(samples: list[Sample]) -> None:
    print("\ntime series (server process; steps/s and conns from the client side)")
    print(
        f"  {'t (s)':>7s}  {'RSS MiB':>8s}  {'threads':>7s}  {'fds':>5s}  {'CPU %':>6s}  "
        f"{'steps/s':>8s}  {'conns':>5s}  {'healthz ms':>10s}  note"
    )
    prev = None
    for s in samples:
        cpu, rate = f"{'-':>6s}", f"{'-':>8s}"
        if prev is not None and s.t > prev.t:
            cpu = f"{(s.cpu_s - prev.cpu_s) / (s.t - prev.t) * 100:6.0f}"
            if not s.label.startswith("after"):
                rate = f"{(s.steps - prev.steps) / (s.t - prev.t):8.1f}"
        hz = f"{s.healthz_ms:10.1f}" if s.healthz_ok else f"{'FAILED':>10s}"
        print(
            f"  {s.t:7.1f}  {s.rss / 2**20:8.1f}  {s.threads:7d}  {s.fds:5d}  {cpu}  {rate}  "
            f"{s.conns:5d}  {hz}  {s.label}"
        )
        if not s.label.startswith("after"):
            prev = s


def report(run: Soak) -> bool:
    """Prints the report; True when the run failed (errors, or something left behind)."""
    print_series(run.samples)
    n_errors = print_results(run)
    leftovers = print_left_behind(run)
    print_log(run)
    return bool(n_errors or leftovers)


def print_results(run: Soak) -> int:
    """Totals, latencies and the server's resources; the number of errors."""
    load, end, drained, after_probe = run.load, run.end, run.drained, run.after_probe
    start = run.samples[0]
    load_samples = [s for s in run.samples if not s.label.startswith("after")]
    warm = next((s for s in load_samples if s.t >= run.warmup), end)
    post = [s for s in load_samples if s.t >= warm.t]
    growth = end.rss - warm.rss
    wall = load.wall_s
    steady_steps = end.steps - warm.steps
    steady_s = max(1e-9, end.t - warm.t)
    n_errors = sum(load.errors.values())
    server_cpu = end.cpu_s - start.cpu_s
    client_cpu = run.client_cpu

    print("\nresults")
    print(
        f"  steps              {load.steps:9d}   {load.steps / wall:8.1f} steps/s "
        f"(after warm-up {steady_steps / steady_s:.1f} steps/s)"
    )
    mean_len = statistics.fmean(load.episode_steps) if load.episode_steps else float("nan")
    print(
        f"  episodes           {load.episodes:9d}   {load.episodes / wall:8.1f} episodes/s "
        f"(completed; {mean_len:.1f} steps each on average; {load.resets} resets, "
        f"{load.unfinished} cut short by the deadline)"
    )
    print(f"  episodes by mode   {dict(sorted(load.modes.items()))}")
    print(
        f"  step latency       p50 {pct(load.step_lat, 0.5) * 1e3:.1f} ms   "
        f"p90 {pct(load.step_lat, 0.9) * 1e3:.1f} ms   p99 {pct(load.step_lat, 0.99) * 1e3:.1f} ms"
        f"   max {max(load.step_lat, default=float('nan')) * 1e3:.1f} ms"
    )
    print(
        f"  reset latency      p50 {pct(load.reset_lat, 0.5) * 1e3:.1f} ms   "
        f"p99 {pct(load.reset_lat, 0.99) * 1e3:.1f} ms"
    )
    by_kind = ", ".join(f"{k} {load.drops[k]}" for k in DROP_KINDS)
    print(
        f"  connections cut    {sum(load.drops.values()):9d}   ({by_kind}); "
        f"{load.reconnects} reconnects; peak {load.peak_conns} open connections"
    )
    breakdown = ", ".join(f"{k} {v}" for k, v in sorted(load.errors.items())) or "none"
    print(f"  errors             {n_errors:9d}   ({breakdown})   must be 0")
    for line in load.first_errors:
        print(f"      {line}")
    print(
        f"  refused actions    {load.refused:9d}   (observation.last_action_error: the agent's "
        "invalid actions, not server errors)"
    )
    print(
        f"  server RSS         start {mib(start.rss)}, after warm-up (t={warm.t:.0f} s) "
        f"{mib(warm.rss)}, end {mib(end.rss)}, peak {mib(max(s.rss for s in load_samples))}"
    )
    print(
        f"                     growth after warm-up {growth / 2**20:+.1f} MiB "
        f"({growth / warm.rss * 100:+.1f}%), trend {slope_mib_per_min(post):+.2f} MiB/min; "
        f"after the disconnects {mib(drained.rss)}, after the probe {mib(after_probe.rss)}"
    )
    print(
        f"  server threads     start {start.threads}, peak "
        f"{max(s.threads for s in load_samples)}, end of load {end.threads}, after the "
        f"disconnects {drained.threads}, after the probe {after_probe.threads}"
    )
    print(
        f"  server fds         start {start.fds}, peak {max(s.fds for s in load_samples)}, "
        f"after the disconnects {drained.fds}, after the probe {after_probe.fds}"
    )
    print(
        f"  CPU                server {server_cpu:.0f} s ({server_cpu / wall * 100:.0f}% of one "
        f"core), this client {client_cpu:.0f} s ({client_cpu / wall * 100:.0f}% of one core), "
        f"{os.cpu_count()} cores; server CPU per step "
        f"{server_cpu / max(1, load.steps) * 1e3:.2f} ms"
    )
    asgi = sum("Exception in ASGI application" in ln for ln in run.problems)
    print(
        f"  server log         {len(run.problems)} problem lines, {asgi} unhandled exceptions "
        f"(Exception in ASGI application){'; details below' if run.problems else ''}"
    )
    hz = [s.healthz_ms for s in load_samples[1:] if s.healthz_ok]
    if hz:
        print(f"  /healthz under load  median {statistics.median(hz):.1f} ms, max {max(hz):.1f} ms")
    return n_errors


def print_left_behind(run: Soak) -> list[str]:
    """Whether the load left sessions, threads or descriptors behind; what it left."""
    drained, after_probe, probe = run.drained, run.after_probe, run.probe
    start = run.samples[0]
    h0_ok, _, h0 = run.health_start
    h_ok, h_ms, h_body = run.health_drained

    print("\nleft behind?")
    leftovers: list[str] = []
    h0_sessions = h0.get("http_sessions") if isinstance(h0, dict) else None
    h_sessions = h_body.get("http_sessions") if isinstance(h_body, dict) else None
    print(
        f"  /healthz after the disconnects: {'healthy' if h_ok else 'FAILED'} "
        f"({h_ms:.1f} ms; http_sessions {h_sessions}, at the start {h0_sessions})"
    )
    if not (h_ok and h0_ok and h_sessions == h0_sessions):
        leftovers.append("/healthz")
    print(
        f"  capacity probe: {probe['opened']}/{probe['n']} new sessions opened and reset at once; "
        f"one more: {probe['extra']} (expected: refused with CAPACITY_REACHED)"
    )
    for line in probe["failures"][:5]:
        print(f"      {line[:300]}")
    if probe["opened"] != probe["n"] or probe["extra"] != "refused":
        leftovers.append("sessions (capacity probe)")
    tol = 2
    thread_diff = drained.threads - start.threads
    fd_diff = drained.fds - start.fds
    print(
        f"  threads after the disconnects vs start: {drained.threads} vs {start.threads} "
        f"({thread_diff:+d}); after the probe {after_probe.threads} "
        f"({after_probe.threads - start.threads:+d})"
    )
    print(
        f"  fds after the disconnects vs start: {drained.fds} vs {start.fds} ({fd_diff:+d}); "
        f"after the probe {after_probe.fds} ({after_probe.fds - start.fds:+d})"
    )
    if max(thread_diff, after_probe.threads - start.threads) > tol:
        leftovers.append("threads")
    if max(fd_diff, after_probe.fds - start.fds) > tol:
        leftovers.append("file descriptors")
    if not run.alive:
        leftovers.append("server died")
    verdict = "nothing" if not leftovers else "LEFT BEHIND: " + ", ".join(leftovers)
    cut = sum(run.load.drops.values())
    print(f"  dropped clients ({cut} cut connections) left behind: {verdict}")
    return leftovers


def print_log(run: Soak) -> None:
    """The server log's lines worth a look, by text, and an excerpt from the first one on."""
    problems = run.problems
    if problems:
        kinds = Counter(ln.strip()[:120] for ln in problems)
        print(f"\nserver log: {len(problems)} lines worth a look; by text:")
        for text, count in kinds.most_common(10):
            print(f"  {count:6d} x {text}")
        print("  from the first one on:")
        for ln in run.excerpt:
            print(f"    | {ln[:300]}")
        if run.log_path:
            print(f"  full log: {run.log_path}")
    else:
        print("\nserver log: clean")
