"""The server under test, live: a child process on a free loopback port, polled until it answers,
read from /proc while it runs (memory, threads, descriptors, CPU) and from its log afterwards.
bench_server.py and bench_soak.py start theirs here, so that both measure a server the same way."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from _children import HOST, LOGS, free_port, spawn, stop

LOG_KEYS = ("Traceback", "ERROR", "Error", "Exception", "WARNING", "Warning")


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
    name: str
    port: int
    proc: subprocess.Popen
    log_path: str
    cmd: list[str]
    health_path: str = "/healthz"
    started_s: float = 0.0

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def status(self) -> dict[str, str]:
        """/proc/PID/status as a dict: the kernel's own figures, no psutil needed."""
        out: dict[str, str] = {}
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                out[key] = value.strip()
        return out

    def rss_bytes(self) -> int:
        return int(self.status()["VmRSS"].split()[0]) * 1024

    def threads(self) -> int:
        return int(self.status().get("Threads", "-1"))

    def fds(self) -> int:
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def cpu_s(self) -> float:
        """User + system CPU seconds the server process has used so far."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def sample(self, t: float, label: str = "") -> Sample:
        """RSS, threads, descriptors and CPU at one moment (one read of the status file)."""
        st = self.status()
        return Sample(
            t=t,
            rss=int(st["VmRSS"].split()[0]) * 1024,
            threads=int(st["Threads"]),
            fds=self.fds(),
            cpu_s=self.cpu_s(),
            label=label,
        )

    def health(self, timeout_s: float = 10.0) -> tuple[bool, float, dict[str, Any] | str]:
        """Whether the health route answers healthy, its latency in ms, and its body (or the
        error): OpenEnv's /health and our /healthz both answer ``{"status": "healthy"}``."""
        t0 = time.perf_counter()
        try:
            with urllib.request.urlopen(f"{self.url}{self.health_path}", timeout=timeout_s) as r:
                body = json.loads(r.read())
                ok = r.status == 200 and body.get("status") == "healthy"
        except (OSError, ValueError) as exc:
            return False, (time.perf_counter() - t0) * 1e3, f"{type(exc).__name__}: {exc}"
        return ok, (time.perf_counter() - t0) * 1e3, body

    def log_lines(self) -> list[str]:
        with open(self.log_path, errors="replace") as f:
            return f.read().splitlines()

    def log_problems(self, keys: tuple[str, ...] = LOG_KEYS) -> list[str]:
        return [ln for ln in self.log_lines() if any(k in ln for k in keys)]

    def log_excerpt(self, n: int = 40, keys: tuple[str, ...] = LOG_KEYS) -> list[str]:
        """The log from its first problem line on, ``n`` lines at most."""
        lines = self.log_lines()
        for i, ln in enumerate(lines):
            if any(k in ln for k in keys):
                return lines[i : i + n]
        return []

    def log_tail(self, n: int = 40) -> list[str]:
        return self.log_lines()[-n:]


def start_server(
    name: str,
    command: Callable[[int], list[str]],
    *,
    log_prefix: str,
    health_path: str = "/healthz",
    timeout_s: float = 60.0,
    poll_s: float = 0.1,
    env: dict[str, str] | None = None,
    own_session: bool = False,
) -> Server:
    """Runs ``command(port)`` on a free loopback port, its output in a temporary log, and waits
    until ``health_path`` answers healthy. ``own_session`` keeps Ctrl-C from reaching the child
    (the benchmark stops it itself); either way it dies with this process."""
    last_error = ""
    for _attempt in range(3):  # a free port can be taken between the probe and the bind
        port = free_port()
        fd, log_path = tempfile.mkstemp(prefix=log_prefix, suffix=".log")
        LOGS.append(log_path)
        cmd = command(port)
        t0 = time.perf_counter()
        with os.fdopen(fd, "wb") as log:
            proc = spawn(
                cmd,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                start_new_session=own_session,
            )
        server = Server(name, port, proc, log_path, cmd, health_path)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and proc.poll() is None:
            ok, _, _ = server.health(timeout_s=1.0)
            if ok:
                server.started_s = time.perf_counter() - t0
                return server
            time.sleep(poll_s)
        stop(proc)
        last_error = "\n".join(server.log_tail())
    raise RuntimeError(f"{name} server did not start on port {port}:\n{last_error}")
