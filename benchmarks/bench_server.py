"""Server throughput against OpenEnv's echo environment, and memory per idle session.

Run: python benchmarks/bench_server.py            (about 1-2 minutes with the defaults)

1. Throughput. Two apps are served the same way, each by uvicorn in its own subprocess on a free
   127.0.0.1 port with the same uvicorn settings: ours, ``build_app(max_sessions=64)``, and an
   echo environment built with OpenEnv's own ``create_app``. The echo environment is defined in
   this file, after OpenEnv's ``openenv_env`` CLI template (the official echo env is not part of
   the pip package). Both are driven by the same client class, OpenEnv's ``GenericEnvClient``
   over WebSocket: N concurrent clients, each doing rounds of reset + one step. The two servers
   are measured in alternating runs (ABBA order), and the medians are reported.
   Target: ours/echo round trips per second >= 0.75, and at most 4 KB of observation per step
   (the step's observation as compact JSON, as the server sends it).
2. Memory per idle session (a 12-email generated inbox, ``reset(task="triage/generated",
   size=12, seed=i)``): in one fresh process with tracemalloc and, in another, by the RSS delta
   (/proc/self/statm); and through a running server, by its VmRSS before and after K open
   WebSocket sessions (the echo server's figure, OpenEnv's own cost per session, alongside).
   Target: <= 100 KB per idle session.

3. Scale: one server holding 1,000 WebSocket sessions open at once (``--concurrent``), each
   resetting its own 12-email generated inbox and playing it to the end (one decision per
   email, then finish): its RSS per session, and every error (an error frame, a refused
   connection, an exception). Target: 0 errors.

Everything runs on loopback, every run is bounded in rounds and in seconds, and every process
this script starts is stopped before it exits. ``--profile`` adds a cProfile of the server-side
work of one round trip (what OpenEnv's /ws handler does, run in-process in one thread).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
from typing import Any
from uuid import uuid4

from _children import HOST, on_sigterm, stop, stop_all
from _live import Server, start_server
from _server_inproc import inproc_memory, profile_round_trip, run_inproc_memory
from _server_load import hold_sessions, play_many, throughput
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

# As inbox_triage.server.app.serve runs it: uvicorn defaults (auto loop, http, ws), warnings only.
UVICORN_SETTINGS: dict[str, Any] = dict(
    host=HOST, log_level="warning", ws_per_message_deflate=False
)
MEMORY_TARGET_KB = 100.0
RATIO_TARGET = 0.75
STEP_BYTES_TARGET = 4096
# Server log lines worth a look (unlike bench_soak.py, not Python's "...Warning" lines).
LOG_KEYS = ("Traceback", "ERROR", "Error", "Exception", "WARNING")


# ----------------------------------------------------------------------------- echo environment
# A minimal echo environment after OpenEnv's CLI template (openenv/cli/templates/openenv_env):
# the official echo env ships in OpenEnv's repository, not in the pip package.
class EchoAction(Action):
    message: str = Field(..., description="Message to echo back")


class EchoObservation(Observation):
    echoed_message: str = Field(default="", description="The echoed message")
    message_length: int = Field(default=0, description="Length of the echoed message")


class EchoEnvironment(Environment):
    SUPPORTS_CONCURRENT_SESSIONS: bool = True

    def __init__(self) -> None:
        super().__init__()
        self._state = State(episode_id=str(uuid4()), step_count=0)

    def reset(
        self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any
    ) -> EchoObservation:
        self._state = State(episode_id=episode_id or str(uuid4()), step_count=0)
        return EchoObservation(
            echoed_message="Echo environment ready!", message_length=0, done=False, reward=0.0
        )

    def step(self, action: EchoAction) -> EchoObservation:  # type: ignore[override]
        self._state.step_count += 1
        message = action.message
        return EchoObservation(
            echoed_message=message,
            message_length=len(message),
            done=False,
            reward=min(len(message) * 0.1, 1.0),
            metadata={"original_message": message, "step": self._state.step_count},
        )

    @property
    def state(self) -> State:
        return self._state


def build_echo_app(max_sessions: int):
    from openenv.core.env_server.http_server import create_app

    return create_app(
        EchoEnvironment,
        EchoAction,
        EchoObservation,
        env_name="echo_env",
        max_concurrent_envs=max_sessions,
    )


def build_our_app(max_sessions: int):
    from inbox_triage.server.app import build_app

    return build_app(max_sessions=max_sessions)


APPS = {"ours": build_our_app, "echo": build_echo_app}


def serve(which: str, port: int, max_sessions: int) -> None:
    """The child process: one app under uvicorn, the same settings for both."""
    import uvicorn

    os.environ["ENABLE_WEB_INTERFACE"] = "false"  # plain FastAPI apps, for both alike
    uvicorn.run(APPS[which](max_sessions), port=port, **UVICORN_SETTINGS)


# ----------------------------------------------------------------------------- child processes
def start(which: str, max_sessions: int) -> Server:
    """Starts ``which`` app, served by this very script (``--serve``), in a child process."""
    return start_server(
        which,
        lambda port: [
            sys.executable,
            os.path.abspath(__file__),
            "--serve",
            which,
            "--port",
            str(port),
            "--max-sessions",
            str(max_sessions),
        ],
        log_prefix=f"bench_server_{which}_",
        health_path="/health",
        timeout_s=30.0,
        poll_s=0.05,
    )


def worth_a_look(srv: Server) -> list[str]:
    """The server's log lines worth a look, each marked with the server it came from."""
    return [f"{srv.name} server log: {ln}" for ln in srv.log_problems(LOG_KEYS)]


# ----------------------------------------------------------------------------- main
def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=8, help="concurrent WebSocket clients")
    parser.add_argument("--rounds", type=int, default=250, help="reset+step rounds per client")
    parser.add_argument("--warmup", type=int, default=3, help="untimed rounds per client")
    parser.add_argument("--runs", type=int, default=3, help="alternating runs per server")
    parser.add_argument("--run-max-s", type=float, default=20.0, help="cap on one timed run")
    parser.add_argument("--sessions", type=int, default=200, help="idle sessions for memory")
    parser.add_argument("--batch", type=int, default=25, help="sessions opened at once")
    parser.add_argument(
        "--concurrent",
        type=int,
        default=1000,
        help="sessions held open at once, each playing an episode (0: skip)",
    )
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="also cProfile N server-side round trips in-process",
    )
    # internal: the child processes
    parser.add_argument("--serve", choices=sorted(APPS), help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--max-sessions", type=int, default=64, help=argparse.SUPPRESS)
    parser.add_argument("--inproc-memory", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--tracemalloc", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.serve:
        serve(args.serve, args.port, args.max_sessions)
        return 0
    if args.inproc_memory:
        print(json.dumps(inproc_memory(args.inproc_memory, args.tracemalloc)))
        return 0

    signal.signal(signal.SIGTERM, on_sigterm)
    os.environ["ENABLE_WEB_INTERFACE"] = "false"
    t_start = time.perf_counter()
    print("inbox-triage server benchmark")
    import uvicorn

    print(
        f"  python {sys.version.split()[0]}, {os.cpu_count()} CPUs, uvicorn "
        f"{uvicorn.__version__}, log_level=warning and no per-message deflate (as our serve() runs "
        f"it), one process per app on {HOST}"
    )
    print(
        "  echo = a minimal echo Environment defined in this file after OpenEnv's "
        "openenv_env template\n         (the official echo env is not in the pip package), "
        "served by OpenEnv's create_app"
    )
    print("  client = openenv.core.generic_client.GenericEnvClient over WebSocket, for both")
    servers: dict[str, Server] = {}
    problems: list[str] = []
    try:
        if not args.skip_throughput:
            print(
                f"\n1. Throughput: {args.clients} clients x {args.rounds} rounds "
                f"(reset + step), {args.runs} alternating runs per server"
            )
            for name in ("ours", "echo"):
                servers[name] = start(name, max_sessions=64)
                print(
                    f"  {name} server up on port {servers[name].port} "
                    f"(pid {servers[name].proc.pid}, {servers[name].started_s:.1f} s to start)"
                )
            s = throughput(args, servers)
            for name in ("ours", "echo"):
                f = s[name]
                print(
                    f"  {name:4s} median: {f['rps']:8.1f} round trips/s   "
                    f"latency p50 {f['p50'] * 1e3:.2f} ms, p99 {f['p99'] * 1e3:.2f} ms   "
                    f"server CPU {f['cpu'] * 1e6:.0f} us/round trip, "
                    f"~{f['bytes'] / 1024:.1f} KB of observations per round trip"
                )
            step_kb = s["ours"]["step_bytes"] / 1024
            print(
                f"  ours: {s['ours']['step_bytes']} bytes ({step_kb:.1f} KB) of observation in "
                f"the step's frame (compact JSON)   target <= 4 KB: "
                f"{'met' if s['ours']['step_bytes'] <= STEP_BYTES_TARGET else 'MISSED'}"
            )
            verdict = "met" if s["ratio"] >= RATIO_TARGET else "MISSED"
            print(
                f"  ratio ours/echo: {s['ratio']:.3f} (per run pair: "
                f"{', '.join(f'{r:.3f}' for r in s['pair_ratios'])})   "
                f"target >= {RATIO_TARGET:.2f}: {verdict}"
            )
            for srv in servers.values():
                problems += worth_a_look(srv)
                stop(srv.proc)
            servers.clear()

        if not args.skip_memory:
            k = args.sessions
            print(
                f"\n2. Memory per idle session: K={k} sessions, "
                "reset(task='triage/generated', size=12, seed=i)"
            )
            tm = run_inproc_memory(os.path.abspath(__file__), k, True, timeout_s=60)
            rs = run_inproc_memory(os.path.abspath(__file__), k, False, timeout_s=60)
            per_tm = tm["traced_delta"] / k / 1024
            per_rss = rs["rss_delta"] / k / 1024
            print(
                f"  in-process, tracemalloc: {per_tm:7.1f} KB/session "
                f"({tm['traced_delta'] / 2**20:.2f} MiB for {k}; freed when the sessions close:"
                f" {tm['freed_on_close'] / k / 1024:.1f} KB/session; kept in module caches: "
                f"{tm['kept_after_close'] / k / 1024:.1f} KB/session)"
            )
            print(
                f"  in-process, RSS delta:   {per_rss:7.1f} KB/session "
                f"({rs['rss_delta'] / 2**20:.2f} MiB for {k}; {k} resets took "
                f"{rs['reset_s'] * 1e3:.0f} ms)"
            )
            print("  largest allocation sites (tracemalloc, by call stack):")
            for line in tm["top"]:
                print(f"    {line}")
            per_server: dict[str, float] = {}
            for name in ("ours", "echo"):
                srv = start(name, max_sessions=k + 8)
                servers[name] = srv
                try:
                    m = asyncio.run(hold_sessions(srv, k, args.batch, max_s=60.0))
                    m2 = asyncio.run(hold_sessions(srv, k, args.batch, max_s=60.0))
                finally:
                    problems += worth_a_look(srv)
                    stop(srv.proc)
                    servers.pop(name, None)
                per_server[name] = m["rss_delta"] / m["k"] / 1024
                per_server[name + "2"] = m2["rss_delta"] / m2["k"] / 1024
                print(
                    f"  server ({name:4s}), RSS delta, fresh server: "
                    f"{per_server[name]:7.1f} KB/session ({m['rss_delta'] / 2**20:.2f} MiB for "
                    f"{m['k']} open WebSocket sessions, +{m['threads']} threads; "
                    f"{m['rss_after_close_delta'] / 2**20:.2f} MiB not returned after close)"
                )
                print(
                    f"  server ({name:4s}), RSS delta, second batch:  "
                    f"{per_server[name + '2']:7.1f} KB/session ({m2['rss_delta'] / 2**20:.2f} "
                    f"MiB for {m2['k']}; not a cost per session: it reuses what the first batch "
                    f"freed; {m2['rss_after_close_delta'] / 2**20:.2f} MiB more kept after "
                    "close)"
                )
            print(
                "  server, fresh, ours minus echo (the environment's own share): "
                f"{per_server['ours'] - per_server['echo']:.1f} KB/session"
            )
            print(f"  target <= {MEMORY_TARGET_KB:.0f} KB per idle session:")
            for label, value in (
                ("in-process, tracemalloc", per_tm),
                ("in-process, RSS", per_rss),
                ("server, fresh, RSS", per_server["ours"]),
            ):
                verdict = "met" if value <= MEMORY_TARGET_KB else "MISSED"
                print(f"    {label:24s} {value:7.1f} KB: {verdict}")

        if args.concurrent:
            k = args.concurrent
            print(
                f"\n3. Scale: {k} WebSocket sessions open at once, each playing a 12-email "
                "generated inbox to the end"
            )
            srv = start("ours", max_sessions=k + 8)
            servers["ours"] = srv
            try:
                c = asyncio.run(play_many(srv, k, args.batch, max_s=240.0))
            finally:
                problems += worth_a_look(srv)
                stop(srv.proc)
                servers.pop("ours", None)
            print(
                f"  {c['opened']} sessions open at once, {c['finished']} episodes played to the "
                f"end, {c['steps']} steps in {c['play_s']:.1f} s ({c['steps'] / c['play_s']:.0f} "
                f"steps/s); server RSS +{c['rss_open'] / 2**20:.1f} MiB with all open and reset "
                f"({c['rss_open'] / max(1, c['opened']) / 1024:.1f} KB/session), "
                f"+{c['rss_played'] / 2**20:.1f} MiB at the end of play "
                f"({c['rss_played'] / max(1, c['opened']) / 1024:.1f} KB/session), "
                f"{c['threads']} more threads"
            )
            print(
                f"  errors: {len(c['errors'])}   target 0: "
                f"{'met' if not c['errors'] and c['finished'] == k else 'MISSED'}"
            )
            for e in c["errors"][:5]:
                print(f"    {e}")

        if args.profile:
            print(f"\n4. Profile: {args.profile} server-side round trips, in-process")
            profile_round_trip(args.profile, EchoEnvironment(), EchoAction)
    finally:
        for srv in list(servers.values()):
            stop(srv.proc)
        stop_all()
    if problems:
        print("\nserver log lines worth a look:")
        for ln in problems[:20]:
            print(f"  {ln}")
    print(f"\ndone in {time.perf_counter() - t_start:.1f} s")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        stop_all()
        print("\ninterrupted; every server this run started is stopped", file=sys.stderr)
        sys.exit(130)
