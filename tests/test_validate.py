"""`openenv validate` passes on the package (openenv.yaml) and against a real running server."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OPENENV = Path(sys.executable).parent / "openenv"
VALIDATE_TIMEOUT_S = 60
STARTUP_TIMEOUT_S = 30.0


def openenv(*args: str) -> subprocess.CompletedProcess[str]:
    assert OPENENV.is_file(), f"the openenv CLI is not installed next to {sys.executable}"
    return subprocess.run(
        [str(OPENENV), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=VALIDATE_TIMEOUT_S,
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=1.0) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


@pytest.fixture
def server_url(tmp_path: Path) -> Iterator[str]:
    """A real server process on a free loopback port; always stopped afterwards."""
    port = free_port()
    code = f"from inbox_triage.server.app import serve; serve(host='127.0.0.1', port={port})"
    log_path = tmp_path / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-c", code], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not healthy(url):
            if process.poll() is not None:
                pytest.fail(f"server exited ({process.returncode}): {log_path.read_text()[-2000:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"server not healthy after {STARTUP_TIMEOUT_S:g}s")
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_openenv_validate_passes_on_the_package():
    # `static` is the level that needs no Docker engine (runtime levels build the image).
    result = openenv("validate", str(ROOT), "--level", "static", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["verdict"] == "pass", result.stdout
    assert report["manifest"]["name"] == "inbox_triage"
    assert report["manifest"]["reward"]["range"] == [-1.5, 1.0]
    checks = {r["check_id"]: r["status"] for r in report["results"]}
    assert checks == {"static.manifest": "pass"}


def test_openenv_validate_passes_against_a_running_server(server_url):
    result = openenv("validate", "--url", server_url, "--json", "--timeout", "10")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["passed"] is True, result.stdout
    failed = [c["id"] for c in report["criteria"] if not c["passed"]]
    assert failed == []
