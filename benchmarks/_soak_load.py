"""bench_soak.py's load: concurrent sessions playing episodes back to back with the heuristic
agent, cutting some connections mid-episode and reconnecting, counting every error by kind, while
a sampler reads the server every few seconds; and the capacity probe run after the load."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from _drive import (
    DROP_KINDS,
    Interrupted,
    call,
    close_all,
    close_politely,
    cut,
    new_client,
    on_signals,
    open_sessions,
)
from _live import Sample, Server

GENERATED = ("triage/generated", "inbox/generated", "ticket/generated")
MAX_EPISODE_STEPS = 1000  # a runaway episode (never done) counts as an error


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
        t = self.request_timeout_s
        return new_client(self.url, self.client_kind, timeout_s=t, connect_timeout_s=t)

    async def call(self, awaitable: Any) -> Any:
        # The client's own message timeout covers the wait for the answer; this one bounds the
        # whole call (send included), a little later.
        return await call(awaitable, self.request_timeout_s + 5.0)

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
        ok, ms, _ = await asyncio.to_thread(server.health)
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
    ok, ms, _ = await asyncio.to_thread(server.health)
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
    ok, ms, _ = await asyncio.to_thread(server.health)
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

    spec = {"task": "triage/easy", "seed": 1}
    t = load.request_timeout_s + 5.0  # as Load.call bounds a call

    with on_signals(stop):
        try:
            results = await open_sessions(clients, lambda _i: spec, 64, t, lambda: not interrupted)
            for r in results:
                if isinstance(r, BaseException):
                    out["failures"].append(f"{type(r).__name__}: {r}")
                elif r is not None:
                    out["opened"] += 1
            if not interrupted:
                extra = load.new_client()
                try:
                    await load.call(extra.connect())
                    await load.call(extra.reset(**spec))
                    out["extra"] = "accepted"
                except Exception as exc:  # noqa: BLE001 - the expected outcome
                    out["extra"] = "refused" if "CAPACITY_REACHED" in str(exc) else f"failed: {exc}"
                finally:
                    await close_politely(extra, 10.0)
        finally:
            await close_all(clients, 10.0)
    if interrupted:
        raise Interrupted
    return out
