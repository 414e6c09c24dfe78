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
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import _children
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

DROP_KINDS = ("rst-idle", "rst-inflight", "fin-inflight")
GENERATED = ("triage/generated", "inbox/generated", "ticket/generated")
MAX_EPISODE_STEPS = 1000  # a runaway episode (never done) counts as an error
LOG_KEYS = ("Traceback", "ERROR", "Error", "Exception", "WARNING", "Warning")


# ----------------------------------------------------------------------------- the server process
def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "?"


def serve_command() -> list[str]:
    """The ``inbox-triage`` console script next to this interpreter, else the one on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "inbox-triage")
    if os.access(here, os.X_OK):
        return [here]
    found = shutil.which("inbox-triage")
    if found:
        return [found]
    raise SystemExit("inbox-triage is not installed (pip install -e . in the project)")


@dataclass
class Sample:
    t: float  # seconds since the load started (negative: before it)
    rss: int  # bytes
    threads: int
    fds: int
    cpu_s: float  # server user + system CPU seconds so far
    steps: int = 0  # client-side steps completed so far
    conns: int = 0  # client connections open
    healthz_ms: float = float("nan")
    healthz_ok: bool = True
    label: str = ""


@dataclass
class Server:
    port: int
    proc: subprocess.Popen
    log_path: str
    cmd: list[str]
    started_s: float = 0.0

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def _status(self) -> dict[str, str]:
        out: dict[str, str] = {}
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                out[key] = value.strip()
        return out

    def cpu_s(self) -> float:
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def sample(self, t: float, label: str = "") -> Sample:
        st = self._status()
        return Sample(
            t=t,
            rss=int(st["VmRSS"].split()[0]) * 1024,
            threads=int(st["Threads"]),
            fds=len(os.listdir(f"/proc/{self.proc.pid}/fd")),
            cpu_s=self.cpu_s(),
            label=label,
        )

    def healthz(self, timeout_s: float = 10.0) -> tuple[bool, float, dict[str, Any] | str]:
        t0 = time.perf_counter()
        try:
            with urllib.request.urlopen(f"{self.url}/healthz", timeout=timeout_s) as r:
                body = json.loads(r.read())
                ok = r.status == 200 and body.get("status") == "healthy"
        except (OSError, ValueError) as exc:
            return False, (time.perf_counter() - t0) * 1e3, f"{type(exc).__name__}: {exc}"
        return ok, (time.perf_counter() - t0) * 1e3, body

    def log_problems(self) -> list[str]:
        with open(self.log_path, errors="replace") as f:
            lines = f.read().splitlines()
        return [ln for ln in lines if any(k in ln for k in LOG_KEYS)]

    def log_excerpt(self, n: int = 40) -> list[str]:
        """The log from its first problem line on, ``n`` lines at most."""
        with open(self.log_path, errors="replace") as f:
            lines = f.read().splitlines()
        for i, ln in enumerate(lines):
            if any(k in ln for k in LOG_KEYS):
                return lines[i : i + n]
        return []

    def log_tail(self, n: int = 40) -> list[str]:
        with open(self.log_path, errors="replace") as f:
            return f.read().splitlines()[-n:]


def start_server(max_sessions: int, timeout_s: float = 60.0) -> Server:
    """Starts ``inbox-triage serve`` on a free loopback port and waits until /healthz answers."""
    last_error = ""
    for _attempt in range(3):  # a free port can be taken between the probe and the bind
        port = free_port()
        fd, log_path = tempfile.mkstemp(prefix="bench_soak_server_", suffix=".log")
        LOGS.append(log_path)
        cmd = [
            *serve_command(),
            "serve",
            "--host",
            HOST,
            "--port",
            str(port),
            "--max-sessions",
            str(max_sessions),
        ]
        env = dict(os.environ, ENABLE_WEB_INTERFACE="false", PYTHONUNBUFFERED="1")
        t0 = time.perf_counter()
        with os.fdopen(fd, "wb") as log:
            proc = subprocess.Popen(
                cmd,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                start_new_session=True,  # Ctrl-C reaches us only; we stop it ourselves
                preexec_fn=die_with_parent,
            )
        CHILDREN.append(proc)
        server = Server(port, proc, log_path, cmd)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and proc.poll() is None:
            ok, _, _ = server.healthz(timeout_s=1.0)
            if ok:
                server.started_s = time.perf_counter() - t0
                return server
            time.sleep(0.1)
        stop(proc)
        last_error = "\n".join(server.log_tail())
    raise RuntimeError(f"the server did not start:\n{last_error}")


# ----------------------------------------------------------------------------- the load
class Desync(Exception):
    """An answer that does not fit the request (wrong step counter or task)."""


class Runaway(Exception):
    """An episode that never ends."""


def task_spec(n: int) -> dict[str, Any]:
    """The n-th episode's reset arguments: fixed and generated tasks alternately, with seeds,
    splits and difficulties varying."""
    from inbox_triage.scenarios import fixed_task_ids
    from inbox_triage.scenarios.generator import PRESETS, SPLITS

    if n % 2 == 0:
        fixed = fixed_task_ids()
        return {"task": fixed[(n // 2) % len(fixed)], "seed": n}
    k = n // 2
    return {
        "task": GENERATED[k % 3],
        "split": list(SPLITS)[(k // 3) % len(SPLITS)],
        "difficulty": list(PRESETS)[(k // 9) % len(PRESETS)],
        "seed": 1000 + n,
    }


async def _aw(x: Any) -> Any:  # the clients' calls return awaitables, not always coroutines
    return await x


@dataclass
class Load:
    url: str
    client_kind: str
    request_timeout_s: float
    drop_every: int
    ramp_s: float
    seed: int
    wall_s: float = 0.0  # seconds of load, as measured
    deadline: float = 0.0  # time.monotonic()
    episode_no: int = 0
    steps: int = 0
    resets: int = 0
    episodes: int = 0
    unfinished: int = 0  # episodes cut by the deadline
    refused: int = 0  # steps answered with observation.last_action_error
    reconnects: int = 0
    conns: int = 0
    peak_conns: int = 0
    drops: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)
    first_errors: list[str] = field(default_factory=list)
    step_lat: list[float] = field(default_factory=list)
    reset_lat: list[float] = field(default_factory=list)
    episode_steps: list[int] = field(default_factory=list)
    modes: Counter = field(default_factory=Counter)

    def new_client(self) -> Any:
        kwargs = dict(
            base_url=self.url,
            connect_timeout_s=self.request_timeout_s,
            message_timeout_s=self.request_timeout_s,
        )
        if self.client_kind == "typed":
            from inbox_triage import InboxTriageClient

            return InboxTriageClient(**kwargs)
        from openenv.core.generic_client import GenericEnvClient

        return GenericEnvClient(**kwargs)

    async def call(self, awaitable: Any) -> Any:
        # The client's own message timeout covers the wait for the answer; this one bounds the
        # whole call (send included), a little later.
        return await asyncio.wait_for(_aw(awaitable), self.request_timeout_s + 5.0)

    def error(self, kind: str, exc: BaseException | str) -> None:
        self.errors[kind] += 1
        if len(self.first_errors) < 10:
            text = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
            self.first_errors.append(f"{kind}: {str(text)[:300]}")

    def opened(self) -> None:
        self.conns += 1
        self.peak_conns = max(self.peak_conns, self.conns)

    def observation(self, result: Any) -> dict[str, Any]:
        obs = result.observation
        if self.client_kind == "typed":
            return obs.model_dump()
        return obs


def classify(exc: BaseException) -> str:
    from websockets.exceptions import ConnectionClosed

    if isinstance(exc, asyncio.TimeoutError | TimeoutError):
        return "timeout"
    if isinstance(exc, ConnectionClosed | ConnectionError | EOFError):
        return "unexpected close"
    if isinstance(exc, RuntimeError) and str(exc).startswith("Server error"):
        return "error frame"
    if isinstance(exc, Desync):
        return "desync"
    if isinstance(exc, Runaway):
        return "runaway episode"
    return "exception"


async def cut(client: Any, kind: str, action: dict[str, Any], rng: random.Random) -> None:
    """Ends a connection without a close frame. Reaches into the client's socket (``_ws``):
    the public API only closes politely."""
    ws = client._ws
    if kind.endswith("inflight"):
        await ws.send(json.dumps({"type": "step", "data": client._step_payload(action)}))
        await asyncio.sleep(rng.random() * 0.02)  # let the server start on it
    transport = ws.transport
    if kind.startswith("rst"):
        sock = transport.get_extra_info("socket")
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()  # close(2) with linger 0: a TCP RST, nothing else
    else:
        transport.close()  # a FIN after the buffered data, no WebSocket close frame
    client._ws = None  # forget the socket; the client object is dropped by the caller


async def play_episode(client: Any, agent: Any, rng: random.Random, load: Load) -> bool:
    """One episode on an open connection; True when it ended by cutting the connection."""
    from inbox_triage.observations import ObservationMemory

    n = load.episode_no
    load.episode_no += 1
    spec = task_spec(n)
    drop_after: int | None = None
    drop_kind = ""
    if load.drop_every and rng.random() < 1.0 / load.drop_every:
        drop_after = rng.randint(0, 3)  # after the reset or after 1-3 steps, mid-episode
        drop_kind = rng.choice(DROP_KINDS)

    t = time.perf_counter()
    result = await load.call(client.reset(**spec))
    load.reset_lat.append(time.perf_counter() - t)
    load.resets += 1
    memory = ObservationMemory()  # the generic client hands out lean observations
    obs = memory.update(load.observation(result))
    expected = spec["task"].split("/")[0]
    if obs.get("mode") != expected or obs.get("step_count") != 0 or result.done:
        raise Desync(
            f"reset({spec}) answered mode={obs.get('mode')!r} task_id={obs.get('task_id')!r} "
            f"step_count={obs.get('step_count')!r} done={result.done!r}"
        )
    if not spec["task"].endswith("/generated") and obs.get("task_id") != spec["task"]:
        raise Desync(f"reset({spec}) answered task_id={obs.get('task_id')!r}")
    load.modes[expected] += 1
    agent.reset(obs, scenario=None, seed=spec["seed"])
    steps = 0
    while not result.done:
        if time.monotonic() >= load.deadline:
            load.unfinished += 1
            return False
        action = agent.act(obs)
        if drop_after is not None and steps >= drop_after:
            await cut(client, drop_kind, action, rng)
            load.drops[drop_kind] += 1
            return True
        if steps >= MAX_EPISODE_STEPS:
            raise Runaway(f"{spec} did not end in {MAX_EPISODE_STEPS} steps")
        t = time.perf_counter()
        result = await load.call(client.step(action))
        load.step_lat.append(time.perf_counter() - t)
        steps += 1
        load.steps += 1
        obs = memory.update(load.observation(result))
        if obs.get("step_count") != steps:
            raise Desync(f"step {steps} of {spec} answered step_count={obs.get('step_count')!r}")
        if obs.get("last_action_error"):
            load.refused += 1
    load.episodes += 1
    load.episode_steps.append(steps)
    return False


async def close_politely(client: Any, timeout_s: float) -> None:
    with contextlib.suppress(Exception, asyncio.TimeoutError):
        await asyncio.wait_for(_aw(client.close()), timeout_s)


async def session(i: int, load: Load) -> None:
    """One concurrent session: connect, play episodes until the deadline, reconnect after a cut
    or an error."""
    from inbox_triage import make_agent

    rng = random.Random(load.seed * 1_000_003 + i)
    agent = make_agent("heuristic")
    await asyncio.sleep(rng.random() * load.ramp_s)
    client = None
    try:
        while time.monotonic() < load.deadline:
            if client is None:
                client = load.new_client()
                try:
                    await load.call(client.connect())
                except Exception as exc:  # noqa: BLE001 - counted
                    load.error("connect", exc)
                    await close_politely(client, 5.0)
                    client = None
                    await asyncio.sleep(0.5)
                    continue
                load.opened()
            try:
                dropped = await play_episode(client, agent, rng, load)
            except Exception as exc:  # noqa: BLE001 - counted
                load.error(classify(exc), exc)
                load.conns -= 1
                await close_politely(client, 5.0)
                client = None
                await asyncio.sleep(0.2)
                continue
            if dropped:
                load.conns -= 1
                load.reconnects += 1
                client = None
    finally:
        if client is not None:
            await close_politely(client, 10.0)
            load.conns -= 1


async def sampler(
    server: Server, load: Load, t0: float, every_s: float, out: list[Sample], live: bool
) -> None:
    """Samples the server every ``every_s`` seconds until cancelled."""
    k = 1
    while True:
        await asyncio.sleep(max(0.0, t0 + k * every_s - time.monotonic()))
        k += 1
        s = server.sample(time.monotonic() - t0)
        s.steps, s.conns = load.steps, load.conns
        ok, ms, _ = await asyncio.to_thread(server.healthz)
        s.healthz_ok, s.healthz_ms = ok, ms
        prev = out[-1]
        out.append(s)
        if live:
            rate = (s.steps - prev.steps) / max(1e-9, s.t - prev.t)
            print(
                f"  [{s.t:6.0f} s] RSS {s.rss / 2**20:7.1f} MiB  threads {s.threads:4d}  "
                f"fds {s.fds:4d}  {rate:7.1f} steps/s  conns {s.conns:4d}  "
                f"errors {sum(load.errors.values())}  healthz {ms:6.1f} ms",
                file=sys.stderr,
                flush=True,
            )


def warm_imports(client_kind: str) -> None:
    """Imports what the sessions use before the clock starts: an import inside the event loop
    would stall every session (and the sampler) for seconds."""
    import websockets.exceptions  # noqa: F401
    from openenv.core.generic_client import GenericEnvClient  # noqa: F401

    from inbox_triage import InboxTriageClient, make_agent  # noqa: F401

    for n in range(8):
        task_spec(n)
    make_agent("heuristic")


class Interrupted(Exception):
    """Ctrl-C or SIGTERM while the event loop ran; the phase has wound down."""


@contextlib.contextmanager
def on_signals(callback: Any):
    """Ctrl-C and SIGTERM call ``callback`` in the event loop instead of raising
    KeyboardInterrupt wherever the code happens to be (inside the websockets library, say, which
    can leave a connection half-updated and a cleanup waiting forever). A second signal stops the
    server and exits at once."""
    loop = asyncio.get_running_loop()
    count = 0

    def handler() -> None:
        nonlocal count
        count += 1
        if count > 1:
            stop_all()
            os._exit(130)
        print("\ninterrupted: winding down (again to quit at once)", file=sys.stderr, flush=True)
        callback()

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, handler)
    try:
        yield
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        signal.signal(signal.SIGTERM, on_sigterm)
        signal.signal(signal.SIGINT, signal.default_int_handler)


async def run_load(server: Server, args: argparse.Namespace, samples: list[Sample]) -> Load:
    warm_imports(args.client)
    load = Load(
        url=server.url,
        client_kind=args.client,
        request_timeout_s=args.request_timeout,
        drop_every=args.drop_every,
        ramp_s=args.ramp,
        seed=args.seed,
    )
    interrupted = False

    def stop() -> None:  # every session stops before its next request
        nonlocal interrupted
        interrupted = True
        load.deadline = 0.0

    t0 = time.monotonic()
    load.deadline = t0 + args.duration
    start = server.sample(0.0, "start")
    ok, ms, _ = await asyncio.to_thread(server.healthz)
    start.healthz_ok, start.healthz_ms = ok, ms
    samples.append(start)
    with on_signals(stop):
        sample_task = asyncio.create_task(
            sampler(server, load, t0, args.sample_every, samples, not args.quiet)
        )
        tasks = [asyncio.create_task(session(i, load)) for i in range(args.sessions)]
        try:
            # Bounded: at the deadline no new request is sent; the ones in flight finish or
            # time out, and every session closes its connection (politely, 10 s at most).
            done, pending = await asyncio.wait(
                tasks, timeout=args.duration + 2 * args.request_timeout + 30.0
            )
            end = server.sample(time.monotonic() - t0, "end of load")
            end.steps, end.conns = load.steps, load.conns
            if pending:
                load.error("stuck", f"{len(pending)} sessions still busy long after the deadline")
            for t in done:
                if t.exception() is not None:
                    load.error("session crashed", t.exception())
        finally:
            sample_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sample_task
            for t in tasks:
                t.cancel()
            await asyncio.wait(tasks, timeout=15.0)
    if interrupted:
        raise Interrupted
    ok, ms, _ = await asyncio.to_thread(server.healthz)
    end.healthz_ok, end.healthz_ms = ok, ms
    samples.append(end)
    load.wall_s = end.t
    return load


async def capacity_probe(server: Server, client_kind: str, n: int, timeout_s: float) -> dict:
    """Opens ``n`` sessions at once (each connects and resets), then one more; closes them all.
    A server that lost track of closed sessions refuses some of the ``n``."""
    load = Load(server.url, client_kind, timeout_s, 0, 0.0, 0)
    clients = [load.new_client() for _ in range(n)]
    out: dict[str, Any] = {"n": n, "opened": 0, "failures": [], "extra": ""}
    interrupted = False

    def stop() -> None:
        nonlocal interrupted
        interrupted = True

    async def open_one(c: Any) -> None:
        await load.call(c.connect())
        await load.call(c.reset(task="triage/easy", seed=1))

    with on_signals(stop):
        try:
            for lo in range(0, n, 64):
                if interrupted:
                    break
                results = await asyncio.gather(
                    *(open_one(c) for c in clients[lo : lo + 64]), return_exceptions=True
                )
                for r in results:
                    if isinstance(r, BaseException):
                        out["failures"].append(f"{type(r).__name__}: {r}")
                    else:
                        out["opened"] += 1
            if not interrupted:
                extra = load.new_client()
                try:
                    await open_one(extra)
                    out["extra"] = "accepted"
                except Exception as exc:  # noqa: BLE001 - the expected outcome
                    out["extra"] = "refused" if "CAPACITY_REACHED" in str(exc) else f"failed: {exc}"
                finally:
                    await close_politely(extra, 10.0)
        finally:
            await asyncio.gather(*(close_politely(c, 10.0) for c in clients))
    if interrupted:
        raise Interrupted
    return out


# ----------------------------------------------------------------------------- report
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


# ----------------------------------------------------------------------------- main
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
    server = start_server(max_sessions)
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
    problems: list[str] = []
    failed = False
    try:
        h0_ok, _, h0 = server.healthz()
        load = asyncio.run(run_load(server, args, samples))
        client_cpu = sum(os.times()[:2]) - sum(cpu_start[:2])
        end = samples[-1]

        # Drain: every client has closed (politely or not); give the server a moment.
        time.sleep(args.grace)
        drained = server.sample(end.t + args.grace, "after disconnect + grace")
        h_ok, h_ms, h_body = server.healthz()
        drained.healthz_ok, drained.healthz_ms = h_ok, h_ms
        samples.append(drained)
        probe = asyncio.run(capacity_probe(server, args.client, max_sessions, args.request_timeout))
        time.sleep(args.grace)
        after_probe = server.sample(drained.t + args.grace, "after capacity probe + grace")
        p_ok, p_ms, _ = server.healthz()
        after_probe.healthz_ok, after_probe.healthz_ms = p_ok, p_ms
        samples.append(after_probe)
        problems = server.log_problems()
        excerpt = server.log_excerpt()
        alive = server.proc.poll() is None
    finally:
        stop(server.proc)

    # ------------------------------------------------------------------ the report
    print_series(samples)
    start = samples[0]
    load_samples = [s for s in samples if not s.label.startswith("after")]
    warm = next((s for s in load_samples if s.t >= warmup), end)
    post = [s for s in load_samples if s.t >= warm.t]
    growth = end.rss - warm.rss
    wall = load.wall_s
    steady_steps = end.steps - warm.steps
    steady_s = max(1e-9, end.t - warm.t)
    n_errors = sum(load.errors.values())
    server_cpu = end.cpu_s - start.cpu_s

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
    asgi = sum("Exception in ASGI application" in ln for ln in problems)
    print(
        f"  server log         {len(problems)} problem lines, {asgi} unhandled exceptions "
        f"(Exception in ASGI application){'; details below' if problems else ''}"
    )
    hz = [s.healthz_ms for s in load_samples[1:] if s.healthz_ok]
    if hz:
        print(f"  /healthz under load  median {statistics.median(hz):.1f} ms, max {max(hz):.1f} ms")

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
    if not alive:
        leftovers.append("server died")
    verdict = "nothing" if not leftovers else "LEFT BEHIND: " + ", ".join(leftovers)
    print(f"  dropped clients ({sum(load.drops.values())} cut connections) left behind: {verdict}")

    if problems:
        kinds = Counter(ln.strip()[:120] for ln in problems)
        print(f"\nserver log: {len(problems)} lines worth a look; by text:")
        for text, count in kinds.most_common(10):
            print(f"  {count:6d} x {text}")
        print("  from the first one on:")
        for ln in excerpt:
            print(f"    | {ln[:300]}")
        if args.keep_log:
            print(f"  full log: {server.log_path}")
    else:
        print("\nserver log: clean")

    failed = bool(n_errors or leftovers)
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
