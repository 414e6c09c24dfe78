"""What the benchmarks share: child server processes that never outlive the run, free loopback
ports and percentiles."""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import socket
import subprocess
from typing import Any

HOST = "127.0.0.1"
CHILDREN: list[subprocess.Popen] = []
LOGS: list[str] = []
KEEP_LOGS = False  # a benchmark may keep its server logs for a look afterwards


def die_with_parent() -> None:  # runs in the child before exec (Linux only; best effort)
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def spawn(cmd: list[str], **popen_kwargs: Any) -> subprocess.Popen:
    """Starts a child that dies with this process and that stop_all stops at exit."""
    proc = subprocess.Popen(cmd, preexec_fn=die_with_parent, **popen_kwargs)
    CHILDREN.append(proc)
    return proc


def stop(proc: subprocess.Popen, grace_s: float = 10.0) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.terminate()
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            proc.wait(timeout=grace_s)
    if proc in CHILDREN:
        CHILDREN.remove(proc)


def stop_all() -> None:
    for proc in list(CHILDREN):
        with contextlib.suppress(Exception):
            stop(proc)
    if not KEEP_LOGS:
        for path in list(LOGS):
            with contextlib.suppress(OSError):
                os.unlink(path)
            LOGS.remove(path)


atexit.register(stop_all)


def on_sigterm(signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt  # as Ctrl-C: finally blocks and atexit stop the children


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))]
