"""The house keeps its shape: the layers of docs/ARCHITECTURE.md are import contracts
(import-linter, configured in pyproject.toml), an import that points up fails with both modules
named, and no module grows past what one job needs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import inbox_triage

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(inbox_triage.__file__).parent
LINT = Path(sys.executable).parent / "lint-imports"
MAX_LINES = 420  # "around 400": a module past it does more than one job


def lint(config: Path, cwd: Path, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)} if pythonpath else None
    return subprocess.run(
        [str(LINT), str(config), "--no-cache"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_import_contracts_hold():
    done = lint(ROOT / "pyproject.toml", ROOT)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "Contracts: 4 kept, 0 broken." in done.stdout


@pytest.mark.parametrize(
    ("planted", "upward"),
    [
        ("domain/planted.py", "inbox_triage.server.app"),  # the domain reaching for HTTP
        ("agents/planted.py", "inbox_triage.training.export"),  # an agent using training
        ("evaluation/backends/planted.py", "inbox_triage.evaluation.runs"),  # the old circle
    ],
)
def test_an_upward_import_fails_naming_both_modules(tmp_path, planted, upward):
    copy = tmp_path / "src" / "inbox_triage"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "data"))
    (copy / planted).write_text(f"import {upward}  # planted by the test\n")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    done = lint(tmp_path / "pyproject.toml", tmp_path, pythonpath=tmp_path / "src")
    module = "inbox_triage." + planted.removesuffix(".py").replace("/", ".")
    assert done.returncode != 0
    assert f"{module} -> {upward}" in done.stdout, done.stdout[-3000:]
    assert "BROKEN" in done.stdout


def test_a_circle_fails_even_inside_one_package(tmp_path):
    copy = tmp_path / "src" / "inbox_triage"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "data"))
    components = copy / "grading" / "components.py"  # the rubric imports the components
    components.write_text(components.read_text() + "\nimport inbox_triage.grading.rubric\n")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    done = lint(tmp_path / "pyproject.toml", tmp_path, pythonpath=tmp_path / "src")
    assert done.returncode != 0
    assert "No circles" in done.stdout and "BROKEN" in done.stdout
    assert "No cycles are allowed in inbox_triage.grading" in done.stdout, done.stdout[-3000:]
    assert ".rubric -> .components" in done.stdout


def test_the_architecture_document_names_every_layer_of_the_contracts():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["id"] == "layers")["layers"]
    document = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    for layer in layers:
        for module in layer.replace(":", "|").split("|"):
            name = module.strip().removeprefix("inbox_triage.")
            assert f"`{name}" in document, f"docs/ARCHITECTURE.md does not place {name}"
    assert "docs/ARCHITECTURE.md" in (ROOT / "README.md").read_text()


def test_no_module_does_several_jobs():
    """Python and the console's JavaScript under src/, data files aside."""
    long = {
        str(path.relative_to(PACKAGE)): n
        for path in [*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.js")]
        if (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}
