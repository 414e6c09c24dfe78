"""Starts a real server process on a free loopback port for the tests that need one."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def running_process(command: list[str], url: str, timeout_s: float = 30.0) -> Iterator[None]:
    """Runs ``command`` until ``url``/health answers 200; always stops it. Its logs go to a
    file: an unread pipe fills up and would freeze the process."""
    log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in the finally below
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            if process.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"{command[2:4]} exited: {log.read().decode()[-2000:]}")
            try:
                if httpx.get(f"{url}/health", timeout=2.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{command[2:4]} did not become healthy in time")
            time.sleep(0.2)
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@contextlib.contextmanager
def running_server(*args: str, timeout_s: float = 30.0) -> Iterator[str]:
    """Yields the base URL of `inbox-triage serve` on 127.0.0.1; always stops it."""
    port = free_port()
    command = [sys.executable, "-m", "inbox_triage.cli", "serve", "--host", "127.0.0.1",
               "--port", str(port), *args]
    url = f"http://127.0.0.1:{port}"
    with running_process(command, url, timeout_s):
        yield url
