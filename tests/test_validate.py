"""`openenv validate` passes on the package (openenv.yaml) and against a real running server."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from live_server import running_server

ROOT = Path(__file__).resolve().parents[1]
OPENENV = Path(sys.executable).parent / "openenv"
VALIDATE_TIMEOUT_S = 60


def openenv(*args: str) -> subprocess.CompletedProcess[str]:
    assert OPENENV.is_file(), f"the openenv CLI is not installed next to {sys.executable}"
    return subprocess.run(
        [str(OPENENV), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=VALIDATE_TIMEOUT_S,
    )


@pytest.fixture
def server_url() -> Iterator[str]:
    """A real server process on a free loopback port; always stopped afterwards."""
    with running_server() as url:
        yield url


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
