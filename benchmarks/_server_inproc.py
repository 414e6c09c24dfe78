"""bench_server.py's in-process figures: the memory idle sessions hold (run in a fresh child
process, so that nothing else is in it) and a profile of the server-side work of a round trip."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

from _children import spawn, stop
from _server_load import ECHO_ACTION, OUR_ACTION, OUR_TASK


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


def run_inproc_memory(
    script: str, k: int, use_tracemalloc: bool, timeout_s: float
) -> dict[str, Any]:
    """``inproc_memory`` in a fresh child process, as ``script --inproc-memory K`` runs it."""
    cmd = [sys.executable, script, "--inproc-memory", str(k)]
    if use_tracemalloc:
        cmd.append("--tracemalloc")
    proc = spawn(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=timeout_s)
    finally:
        stop(proc)
    if proc.returncode != 0:
        raise RuntimeError(f"in-process memory run failed:\n{err[-2000:]}")
    return json.loads(out.strip().splitlines()[-1])


def profile_round_trip(n: int, echo_env: Any, echo_action: type) -> None:
    """The server-side work of a round trip as OpenEnv's /ws handler does it (message parse,
    env call, serialize_observation, response model, JSON), in one thread, for both apps (the
    echo environment is bench_server.py's own)."""
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
    echo = make(echo_env, echo_action, {}, ECHO_ACTION)
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
