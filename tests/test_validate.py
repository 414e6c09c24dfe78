"""`openenv validate` passes on the package (openenv.yaml), its runtime checks pass against a
real server playing the manifest's runtime plan, and it passes against a running server."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from live_server import running_server
from openenv.validation import Level, run_validation
from openenv.validation.policy import apply_policy, load_policy
from openenv.validation.providers import ExecResult
from openenv.validation.runner import source_digest
from openenv.validation.types import CheckStatus, Lane, ProviderCapability, Verdict

ROOT = Path(__file__).resolve().parents[1]
OPENENV = Path(sys.executable).parent / "openenv"
VALIDATE_TIMEOUT_S = 60
# The runtime checks OpenEnv 0.10.0 implements; its other runtime ids are reserved ("grader
# not implemented in this build") and always SKIP, which its policy reads as WARN.
RUNTIME_CHECKS = {
    "runtime.startup",
    "runtime.reward_well_formed",
    "runtime.observation_schema",
    "runtime.state_contract",
}
NOT_IN_THIS_BUILD = "grader not implemented in this build"


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


def package_copy(root: Path, dst: Path) -> Path:
    """A copy of the files git would commit from ``root`` (tracked, and untracked but not
    ignored), as a package is shipped: what runs leave in ignored folders (``runs/``, a
    verifiers run's ``logs/latest`` symlink...) is not the package, and OpenEnv's digest of
    the tree refuses symlinks and files that change while it reads them. Without git, ``root``."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return root
    for name in sorted({n for n in listed.decode().split("\0") if n}):
        src = root / name
        if src.is_symlink() or src.is_file():  # a tracked file deleted in the tree: skipped
            (dst / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / name, follow_symlinks=False)  # a tracked link stays one
    return dst


def validate_static(package: Path, saved: Path) -> subprocess.CompletedProcess[str]:
    # `static` is the level that needs no Docker engine (runtime levels build the image).
    return openenv("validate", str(package), "--level", "static", "--output", str(saved))


def test_openenv_validate_passes_on_the_package(tmp_path):
    saved = tmp_path / "report.json"
    result = validate_static(package_copy(ROOT, tmp_path / "package"), saved)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == "" and "WARN" not in result.stdout
    assert result.stdout.rstrip().endswith("Verdict: PASS")
    report = json.loads(saved.read_text())
    assert report["verdict"] == "pass", result.stdout
    assert report["manifest"]["name"] == "inbox_triage"
    assert report["manifest"]["reward"]["range"] == [-1.5, 1.0]
    assert report["manifest"]["execution"]["probe_path"] == "validation/runtime.json"
    checks = {r["check_id"]: r["status"] for r in report["results"]}
    assert checks == {"static.manifest": "pass"}


def test_what_runs_leave_in_ignored_folders_is_not_validated(tmp_path):
    """A verifiers 0.4.0 run leaves ``<run>/logs/latest``, a symlink: in an ignored folder of a
    checkout, the package copy leaves it out; validated in place, OpenEnv refuses it."""
    checkout = package_copy(ROOT, tmp_path / "checkout")
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    logs = checkout / "runs" / "verifiers-0.4" / "run" / "logs"
    (logs / "attempt_1").mkdir(parents=True)
    (logs / "latest").symlink_to("attempt_1")

    with pytest.raises(ValueError, match="may not contain symbolic links"):
        source_digest(checkout)  # what `openenv validate` reads the tree with
    in_place = validate_static(checkout, tmp_path / "in-place.json")
    assert in_place.returncode != 0
    assert "package source could not be verified" in in_place.stdout, in_place.stdout
    copy = package_copy(checkout, tmp_path / "package")
    assert not (copy / "runs").exists()
    result = validate_static(copy, tmp_path / "report.json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.rstrip().endswith("Verdict: PASS")


class _Subject:
    """The server, started as `inbox-triage serve` is on a free loopback port."""

    def __init__(self) -> None:
        self._stack = contextlib.ExitStack()
        self.base_url = self._stack.enter_context(running_server())

    def inspect(self) -> dict[str, Any]:
        return {"provider": LocalServer.name}

    def logs(self, max_bytes: int = 65536) -> str:
        return ""

    def exec(self, argv: list[str], timeout_s: float) -> ExecResult:
        raise NotImplementedError("a local process has no sandbox to run commands in")

    def stop(self) -> None:
        self._stack.close()


class LocalServer:
    """OpenEnv's validation provider protocol, served by a local process instead of Docker
    (none here): OpenEnv's own runner, plan loader, collector and graders do the rest. It
    claims no network-policy capability, so that check is skipped, not faked."""

    name = "local-process"
    capabilities = frozenset({ProviderCapability.IMAGE_BUILD})
    supported_network_modes = frozenset({"public", "no-network"})

    def build(self, root: Path, execution: Any) -> str:
        return "sha256:" + "0" * 64  # nothing to build: the installed package is served

    def start(self, spec: Any) -> _Subject:
        return _Subject()


def test_the_manifest_declares_the_runtime_plan():
    manifest = yaml.safe_load((ROOT / "openenv.yaml").read_text())
    execution = manifest["validation"]["execution"]
    assert execution["kind"] == "openenv_ws" and (ROOT / execution["dockerfile"]).is_file()
    plan = json.loads((ROOT / execution["probe_path"]).read_text())
    assert plan["reset"]["options"]["task"] == "triage/easy" and len(plan["actions"]) >= 2


def test_openenv_validates_the_runtime_plan_against_a_running_server(tmp_path):
    """`openenv validate` at its runtime level, as OpenEnv runs it, with the server started
    locally in place of the image. A copy of the two files it reads: the repository's tree
    may change while it runs (other work), which OpenEnv reports as an error."""
    execution = yaml.safe_load((ROOT / "openenv.yaml").read_text())["validation"]["execution"]
    for name in ("openenv.yaml", execution["probe_path"]):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, tmp_path / name)
    report = run_validation(tmp_path, max_level=Level.RUNTIME, provider=LocalServer())
    results = {r.check_id: r for r in report.results}
    assert Level.RUNTIME in report.levels_run
    assert results["static.manifest"].status is CheckStatus.PASS
    for check in sorted(RUNTIME_CHECKS):
        assert results[check].status is CheckStatus.PASS, (check, results[check].evidence)
    exchanges = results["runtime.state_contract"].measured["exchanges"]
    assert exchanges == 2 + 2 * 2  # reset and state, then each of the plan's two actions
    # What is left is what OpenEnv cannot do here: no check failed or erred.
    rest = [r for r in report.results if r.check_id not in RUNTIME_CHECKS | {"static.manifest"}]
    for result in rest:
        assert result.status is CheckStatus.SKIP, (result.check_id, result.evidence)
        assert result.evidence in (
            [NOT_IN_THIS_BUILD],
            ["missing provider capabilities: network_policy"],  # Docker measures it
        ), (result.check_id, result.evidence)
    ran = [r for r in report.results if r.check_id in RUNTIME_CHECKS | {"static.manifest"}]
    assert apply_policy(ran, load_policy("v2"), Lane.LOCAL) is Verdict.PASS


def test_openenv_validate_passes_against_a_running_server(server_url, tmp_path):
    saved = tmp_path / "report.json"
    result = openenv("validate", "--url", server_url, "--timeout", "10", "--output", str(saved))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == "" and "FAIL" not in result.stdout and "WARN" not in result.stdout
    assert result.stdout.rstrip().endswith("Verdict: PASS")
    report = json.loads(saved.read_text())
    assert report["passed"] is True, result.stdout
    failed = [c["id"] for c in report["criteria"] if not c["passed"]]
    assert failed == []
