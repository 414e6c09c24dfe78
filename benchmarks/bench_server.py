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
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from typing import Any
from uuid import uuid4

from _children import (
    CHILDREN,
    HOST,
    LOGS,
    die_with_parent,
    free_port,
    on_sigterm,
    pct,
    stop,
    stop_all,
)
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

OUR_TASK = "triage/easy"
OUR_ACTION = {
    "email_id": "e001",
    "priority": "urgent",
    "category": "customer_complaint",
    "route_to": "support_tier2",
}
ECHO_ACTION = {"message": "hi"}
# As inbox_triage.server.app.serve runs it: uvicorn defaults (auto loop, http, ws), warnings only.
UVICORN_SETTINGS: dict[str, Any] = dict(
    host=HOST, log_level="warning", ws_per_message_deflate=False
)
MEMORY_TARGET_KB = 100.0
RATIO_TARGET = 0.75
STEP_BYTES_TARGET = 4096


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
@dataclass
class Server:
    name: str
    port: int
    proc: subprocess.Popen
    log_path: str
    started_s: float = 0.0

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def rss_bytes(self) -> int:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        raise RuntimeError("no VmRSS")

    def cpu_s(self) -> float:
        """User + system CPU seconds the server process has used so far."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def threads(self) -> int:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("Threads:"):
                    return int(line.split()[1])
        return -1

    def log_problems(self) -> list[str]:
        with open(self.log_path, errors="replace") as f:
            lines = f.read().splitlines()
        keys = ("Traceback", "ERROR", "Error", "Exception", "WARNING")
        return [ln for ln in lines if any(k in ln for k in keys)]


def start_server(which: str, max_sessions: int, timeout_s: float = 30.0) -> Server:
    """Starts ``which`` in a subprocess and waits until /health answers."""
    last_error: Exception | None = None
    for _attempt in range(3):  # a free port can be taken between the probe and the bind
        port = free_port()
        fd, log_path = tempfile.mkstemp(prefix=f"bench_server_{which}_", suffix=".log")
        LOGS.append(log_path)
        cmd = [
            sys.executable,
            os.path.abspath(__file__),
            "--serve",
            which,
            "--port",
            str(port),
            "--max-sessions",
            str(max_sessions),
        ]
        t0 = time.perf_counter()
        with os.fdopen(fd, "wb") as log:
            proc = subprocess.Popen(
                cmd,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                preexec_fn=die_with_parent,
            )
        CHILDREN.append(proc)
        server = Server(which, port, proc, log_path)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"{server.url}/health", timeout=1.0) as r:
                    if r.status == 200:
                        server.started_s = time.perf_counter() - t0
                        return server
            except OSError as exc:
                last_error = exc
            time.sleep(0.05)
        stop(proc)
        with open(log_path, errors="replace") as f:
            tail = f.read()[-2000:]
        last_error = RuntimeError(f"{which} server did not start on port {port}:\n{tail}")
    raise RuntimeError(str(last_error))


# ----------------------------------------------------------------------------- throughput
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
    from openenv.core.generic_client import GenericEnvClient

    reset_kwargs, action = round_args(server.name)
    envs = [GenericEnvClient(base_url=server.url, message_timeout_s=30.0) for _ in range(clients)]
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
        await asyncio.gather(*(e.close() for e in envs), return_exceptions=True)
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


# ----------------------------------------------------------------------------- memory
def _statm_rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def inproc_memory(k: int, use_tracemalloc: bool) -> dict[str, Any]:
    """In this (fresh) process: memory held by ``k`` idle sessions with a 12-email inbox."""
    import gc
    import tracemalloc

    from inbox_triage.env import InboxTriageEnv

    def reset(env: InboxTriageEnv, seed: int) -> None:
        env.reset(task="triage/generated", size=12, seed=seed)

    # Warm up imports, packs and compiled patterns, with seeds outside the measured range.
    for seed in range(10_000_000, 10_000_003):
        reset(InboxTriageEnv(), seed)
    gc.collect()
    if use_tracemalloc:
        tracemalloc.start(12)
        snap0 = tracemalloc.take_snapshot()
    base_traced = tracemalloc.get_traced_memory()[0] if use_tracemalloc else 0
    base_rss = _statm_rss()
    t0 = time.perf_counter()
    envs = [InboxTriageEnv() for _ in range(k)]
    for seed, env in enumerate(envs):
        reset(env, seed)
    elapsed = time.perf_counter() - t0
    gc.collect()
    out: dict[str, Any] = {"k": k, "reset_s": elapsed, "rss_delta": _statm_rss() - base_rss}
    if use_tracemalloc:
        held = tracemalloc.get_traced_memory()[0]
        snap1 = tracemalloc.take_snapshot()

        def where(frame: Any) -> str:
            name = frame.filename.split("site-packages/")[-1].split("/src/")[-1]
            return f"{name}:{frame.lineno}"

        out["top"] = []
        for stat in snap1.compare_to(snap0, "traceback")[:6]:
            frames = list(stat.traceback)  # oldest call first
            label = where(frames[-1])
            ours = [f for f in frames if "inbox_triage" in f.filename]
            if ours and ours[-1] is not frames[-1]:
                label += f" (from {where(ours[-1])})"
            out["top"].append(f"{stat.size_diff / k / 1024:6.1f} KB/session  {label}")
        del envs
        gc.collect()
        after_close = tracemalloc.get_traced_memory()[0]
        out["traced_delta"] = held - base_traced
        out["freed_on_close"] = held - after_close
        out["kept_after_close"] = after_close - base_traced
        tracemalloc.stop()
    return out


def run_inproc_memory(k: int, use_tracemalloc: bool, timeout_s: float) -> dict[str, Any]:
    cmd = [sys.executable, os.path.abspath(__file__), "--inproc-memory", str(k)]
    if use_tracemalloc:
        cmd.append("--tracemalloc")
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=die_with_parent,
    )
    CHILDREN.append(proc)
    try:
        out, err = proc.communicate(timeout=timeout_s)
    finally:
        stop(proc)
    if proc.returncode != 0:
        raise RuntimeError(f"in-process memory run failed:\n{err[-2000:]}")
    return json.loads(out.strip().splitlines()[-1])


async def hold_sessions(server: Server, k: int, batch: int, max_s: float) -> dict[str, Any]:
    """Opens ``k`` WebSocket sessions (reset, then idle) and reads the server's RSS."""
    from openenv.core.generic_client import GenericEnvClient

    def reset_kwargs(seed: int) -> dict[str, Any]:
        if server.name == "ours":
            return {"task": "triage/generated", "size": 12, "seed": seed}
        return {"seed": seed}

    # Warm the server up (imports, caches) with one session outside the measured range.
    async with GenericEnvClient(base_url=server.url) as warm:
        await warm.reset(**reset_kwargs(10_000_000))
    await asyncio.sleep(0.3)
    rss0, threads0 = server.rss_bytes(), server.threads()
    envs = [GenericEnvClient(base_url=server.url, message_timeout_s=30.0) for _ in range(k)]
    opened = 0
    deadline = time.perf_counter() + max_s
    try:
        for lo in range(0, k, batch):
            if time.perf_counter() > deadline:
                break
            group = envs[lo : lo + batch]
            await asyncio.gather(*(e.connect() for e in group))
            await asyncio.gather(*(e.reset(**reset_kwargs(lo + j)) for j, e in enumerate(group)))
            opened += len(group)
        await asyncio.sleep(0.5)
        rss1, threads1 = server.rss_bytes(), server.threads()
    finally:
        await asyncio.gather(*(e.close() for e in envs), return_exceptions=True)
    await asyncio.sleep(0.5)
    return {
        "k": opened,
        "rss_delta": rss1 - rss0,
        "rss_after_close_delta": server.rss_bytes() - rss0,
        "threads": threads1 - threads0,
    }


async def play_many(server: Server, k: int, batch: int, max_s: float) -> dict[str, Any]:
    """Opens ``k`` sessions, resets each on its own inbox, then plays them all at once: one
    decision per email (the vocabulary's first values), then finish."""
    from openenv.core.generic_client import GenericEnvClient

    async with GenericEnvClient(base_url=server.url) as warm:  # imports and caches
        await warm.reset(task="triage/generated", size=12, seed=10_000_000)
    await asyncio.sleep(0.3)
    rss0, threads0 = server.rss_bytes(), server.threads()
    errors: list[str] = []
    envs = [GenericEnvClient(base_url=server.url, message_timeout_s=60.0) for _ in range(k)]
    firsts: list[Any] = [None] * k
    deadline = time.perf_counter() + max_s

    async def open_one(i: int) -> None:
        try:
            await envs[i].connect()
            firsts[i] = await envs[i].reset(task="triage/generated", size=12, seed=i)
        except Exception as exc:  # noqa: BLE001 - every failure is counted, none stops the run
            errors.append(f"session {i} open/reset: {type(exc).__name__}: {exc}"[:200])

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

    opened = 0
    try:
        for lo in range(0, k, batch):
            await asyncio.gather(*(open_one(i) for i in range(lo, min(k, lo + batch))))
        opened = sum(1 for f in firsts if f is not None)
        await asyncio.sleep(0.5)
        rss_open = server.rss_bytes() - rss0
        t0 = time.perf_counter()
        played = await asyncio.gather(*(play(i) for i in range(k)))
        play_s = time.perf_counter() - t0
        rss_played, threads = server.rss_bytes() - rss0, server.threads() - threads0
    finally:
        await asyncio.gather(*(e.close() for e in envs), return_exceptions=True)
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


# ----------------------------------------------------------------------------- profile
def profile_round_trip(n: int) -> None:
    """The server-side work of a round trip as OpenEnv's /ws handler does it (message parse,
    env call, serialize_observation, response model, JSON), in one thread, for both apps."""
    import cProfile
    import inspect
    import io
    import pstats

    from openenv.core.env_server.serialization import deserialize_action, serialize_observation
    from openenv.core.env_server.types import WSObservationResponse, WSResetMessage, WSStepMessage

    from inbox_triage.env import InboxTriageEnv
    from inbox_triage.models import TriageAction

    def make(env: Any, action_cls: type, reset_kwargs: dict, action: dict):
        reset_msg = json.dumps({"type": "reset", "data": reset_kwargs})
        step_msg = json.dumps({"type": "step", "data": action})

        def trip() -> int:
            msg = WSResetMessage(**json.loads(reset_msg))
            sig = inspect.signature(env.reset)
            has_kw = any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
            kwargs = {k: v for k, v in msg.data.items() if k in sig.parameters or has_kw}
            obs = env.reset(**kwargs)
            a = WSObservationResponse(data=serialize_observation(obs)).model_dump_json()
            smsg = WSStepMessage(**json.loads(step_msg))
            obs = env.step(deserialize_action(smsg.data, action_cls))
            b = WSObservationResponse(data=serialize_observation(obs)).model_dump_json()
            return len(a) + len(b)

        return trip

    ours = make(InboxTriageEnv(), TriageAction, {"task": OUR_TASK}, OUR_ACTION)
    echo = make(EchoEnvironment(), EchoAction, {}, ECHO_ACTION)
    for name, trip in (("ours", ours), ("echo", echo)):
        for _ in range(20):
            nbytes = trip()
        t0 = time.perf_counter()
        for _ in range(n):
            trip()
        per = (time.perf_counter() - t0) / n
        print(f"  {name}: {per * 1e6:8.1f} us server-side per reset+step, {nbytes} bytes sent")

    # The parts of ours, separately.
    env = InboxTriageEnv()
    parts: dict[str, list[float]] = {"env.reset": [], "env.step": [], "serialize+dump": []}
    for _ in range(n):
        t = time.perf_counter()
        obs = env.reset(task=OUR_TASK)
        parts["env.reset"].append(time.perf_counter() - t)
        t = time.perf_counter()
        WSObservationResponse(data=serialize_observation(obs)).model_dump_json()
        parts["serialize+dump"].append(time.perf_counter() - t)
        t = time.perf_counter()
        obs = env.step(TriageAction.model_validate(OUR_ACTION))
        parts["env.step"].append(time.perf_counter() - t)
        t = time.perf_counter()
        WSObservationResponse(data=serialize_observation(obs)).model_dump_json()
        parts["serialize+dump"].append(time.perf_counter() - t)
    for name, ts in parts.items():
        total = sum(ts) / n
        print(
            f"  ours {name:15s} {total * 1e6:8.1f} us per round trip (median call "
            f"{statistics.median(ts) * 1e6:.1f} us)"
        )

    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        ours()
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(25)
    print(f"  cProfile of {n} server-side round trips of ours, by cumulative time:")
    for line in buf.getvalue().splitlines():
        if line.strip():
            print("    " + line.replace(sys.prefix, "<venv>"))


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
                servers[name] = start_server(name, max_sessions=64)
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
            for name, srv in servers.items():
                problems += [f"{name} server log: {ln}" for ln in srv.log_problems()]
                stop(srv.proc)
            servers.clear()

        if not args.skip_memory:
            k = args.sessions
            print(
                f"\n2. Memory per idle session: K={k} sessions, "
                "reset(task='triage/generated', size=12, seed=i)"
            )
            tm = run_inproc_memory(k, True, timeout_s=60)
            rs = run_inproc_memory(k, False, timeout_s=60)
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
                srv = start_server(name, max_sessions=k + 8)
                servers[name] = srv
                try:
                    m = asyncio.run(hold_sessions(srv, k, args.batch, max_s=60.0))
                    m2 = asyncio.run(hold_sessions(srv, k, args.batch, max_s=60.0))
                finally:
                    problems += [f"{name} server log: {ln}" for ln in srv.log_problems()]
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
            srv = start_server("ours", max_sessions=k + 8)
            servers["ours"] = srv
            try:
                c = asyncio.run(play_many(srv, k, args.batch, max_s=240.0))
            finally:
                problems += [f"ours server log: {ln}" for ln in srv.log_problems()]
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
            profile_round_trip(args.profile)
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
