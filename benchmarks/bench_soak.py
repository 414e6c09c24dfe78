"""Load and soak: many concurrent WebSocket sessions against a real server for minutes.

Run: python benchmarks/bench_soak.py [--sessions 256] [--duration 300] [--drop-every 10] ...

What it does:

1. Starts ``inbox-triage serve --host 127.0.0.1 --port <free> --max-sessions <sessions+16>`` as a
   subprocess (loopback only, its own process group, stopped at the end, also on Ctrl-C/SIGTERM,
   and killed by the kernel if this script dies: PR_SET_PDEATHSIG).
2. Runs ``--sessions`` concurrent WebSocket sessions (asyncio, one client object per connection:
   ``inbox_triage.InboxTriageClient`` by default, OpenEnv's ``GenericEnvClient`` with
   ``--client generic``) until ``--duration`` is over. Each plays full episodes back to back with
   the heuristic agent, cycling through every fixed task and the three generated tasks
   (``triage/generated``, ``inbox/generated``, ``ticket/generated``) with varying seeds, splits and
   difficulties. Every request has a timeout (``--request-timeout``); errors are counted by kind:
   exceptions, error frames, unexpected closes, timeouts, and answers that do not fit the request
   (a step counter or task id that does not match: a desynchronised connection).
3. Drops clients mid-episode: about 1 in ``--drop-every`` episodes ends with its connection cut
   without a close frame (TCP RST while idle, RST right after sending a step, or a bare FIN right
   after sending a step), and that session reconnects with a new connection.
4. Every ``--sample-every`` seconds reads the server's VmRSS and thread count (/proc/PID/status),
   open file descriptors, CPU time, and the latency of ``GET /healthz``; the time series is printed
   at the end.
5. At the deadline every client closes; after ``--grace`` seconds it checks that nothing was left
   behind: ``/healthz`` answers, threads and descriptors are back to their level before the load,
   and OpenEnv's session accounting (which no route exposes) is probed by opening
   ``--max-sessions`` new sessions at once, which must all succeed, and one more, which must be
   refused with CAPACITY_REACHED.

It prints totals, throughput, step latency percentiles, the error count (must be 0), RSS at the
start, after the warm-up and at the end with the growth after the warm-up, threads at the end vs
the start, and whether dropped clients left sessions behind. The exit status is 0 only when there
were no errors and nothing was left behind.

Client and server share the machine's cores: the throughput printed is that of the pair, and the
CPU each side used is printed alongside so that the bottleneck shows. RSS that keeps rising after
the warm-up is not by itself a leak: the C allocator keeps freed heap memory (a server whose
Python object count stays flat while glibc's free-but-kept bytes grow gives it back to
``malloc_trim(0)``), so a rise is worth a look, and a longer run shows whether it levels off.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import time
from typing import Any

import _children
from _children import HOST, on_sigterm, stop, stop_all
from _drive import DROP_KINDS, Interrupted
from _live import Sample, Server, serve_command, start_server
from _soak_load import capacity_probe, run_load
from _soak_report import Soak, report


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "?"


def start(max_sessions: int) -> Server:
    """``inbox-triage serve`` as a user runs it, in its own session: Ctrl-C reaches this script
    only, which stops the server itself."""
    return start_server(
        "inbox-triage",
        lambda port: [
            *serve_command(),
            "serve",
            "--host",
            HOST,
            "--port",
            str(port),
            "--max-sessions",
            str(max_sessions),
        ],
        log_prefix="bench_soak_server_",
        env=dict(os.environ, ENABLE_WEB_INTERFACE="false", PYTHONUNBUFFERED="1"),
        own_session=True,
    )


def settle(
    server: Server, grace_s: float, prev: Sample, label: str
) -> tuple[Sample, tuple[bool, float, Any]]:
    """Waits ``grace_s`` after ``prev``, then samples the server and asks its /healthz: what
    the last clients left, once the server has had a moment to clean up."""
    time.sleep(grace_s)
    sample = server.sample(prev.t + grace_s, label)
    health = server.health()
    sample.healthz_ok, sample.healthz_ms = health[0], health[1]
    return sample, health


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=256, help="concurrent WebSocket sessions")
    parser.add_argument("--duration", type=float, default=300.0, help="seconds of load")
    parser.add_argument(
        "--max-sessions",
        type=int,
        default=None,
        help="the server's --max-sessions (default: sessions + 16)",
    )
    parser.add_argument("--warmup", type=float, default=30.0, help="seconds before RSS counts")
    parser.add_argument("--sample-every", type=float, default=10.0, help="seconds between samples")
    parser.add_argument("--request-timeout", type=float, default=30.0, help="per request, seconds")
    parser.add_argument(
        "--drop-every",
        type=int,
        default=10,
        help="cut the connection mid-episode in about 1 in N episodes (0: never)",
    )
    parser.add_argument("--grace", type=float, default=5.0, help="seconds after the disconnects")
    parser.add_argument("--ramp", type=float, default=2.0, help="sessions start within this")
    parser.add_argument(
        "--client",
        choices=("typed", "generic"),
        default="typed",
        help="InboxTriageClient (typed) or OpenEnv's GenericEnvClient (raw dicts, cheaper)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--keep-log", action="store_true", help="keep the server's log file")
    args = parser.parse_args()
    if args.sessions < 1 or args.duration <= 0:
        parser.error("--sessions and --duration must be positive")
    _children.KEEP_LOGS = args.keep_log
    max_sessions = args.max_sessions or args.sessions + 16
    warmup = min(args.warmup, args.duration / 2)

    signal.signal(signal.SIGTERM, on_sigterm)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # also when started in the background
    t_start = time.perf_counter()
    cpu_start = os.times()
    print("inbox-triage soak benchmark")
    import uvicorn
    import websockets

    from inbox_triage import __version__

    print(
        f"  python {sys.version.split()[0]}, {os.cpu_count()} CPUs (client and server share "
        f"them), inbox-triage {__version__}, openenv {_version('openenv')}, uvicorn "
        f"{uvicorn.__version__}, websockets {websockets.__version__}"
    )
    server = start(max_sessions)
    print(f"  server: {' '.join([os.path.basename(server.cmd[0]), *server.cmd[1:]])}")
    print(f"          pid {server.proc.pid}, up in {server.started_s:.1f} s")
    client_name = "InboxTriageClient" if args.client == "typed" else "GenericEnvClient"
    print(
        f"  load:   {args.sessions} sessions x {args.duration:.0f} s ({client_name}, heuristic "
        f"agent, fixed and generated tasks in turn), request timeout {args.request_timeout:.0f} s,"
        f"\n          1 in {args.drop_every or 'no'} episodes cut mid-episode "
        f"({', '.join(DROP_KINDS)}), samples every {args.sample_every:.0f} s, "
        f"warm-up {warmup:.0f} s"
    )
    samples: list[Sample] = []
    try:
        health_start = server.health()
        load = asyncio.run(run_load(server, args, samples))
        client_cpu = sum(os.times()[:2]) - sum(cpu_start[:2])
        end = samples[-1]

        # Drain: every client has closed (politely or not); give the server a moment.
        drained, health_drained = settle(server, args.grace, end, "after disconnect + grace")
        samples.append(drained)
        probe = asyncio.run(capacity_probe(server, args.client, max_sessions, args.request_timeout))
        after_probe, _ = settle(server, args.grace, drained, "after capacity probe + grace")
        samples.append(after_probe)
        run = Soak(
            load=load,
            samples=samples,
            end=end,
            drained=drained,
            after_probe=after_probe,
            warmup=warmup,
            client_cpu=client_cpu,
            health_start=health_start,
            health_drained=health_drained,
            probe=probe,
            problems=server.log_problems(),
            excerpt=server.log_excerpt(),
            alive=server.proc.poll() is None,
            log_path=server.log_path if args.keep_log else None,
        )
    finally:
        stop(server.proc)

    failed = report(run)
    print(f"\ndone in {time.perf_counter() - t_start:.1f} s: {'FAILED' if failed else 'passed'}")
    stop_all()
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (KeyboardInterrupt, Interrupted):
        stop_all()
        print("\ninterrupted; the server this run started is stopped", file=sys.stderr)
        sys.exit(130)
