"""The domain layer is plain Python: no HTTP, no OpenEnv, no file I/O (DESIGN.md, layers)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import inbox_triage.domain

DOMAIN = Path(inbox_triage.domain.__file__).parent
FORBIDDEN_MODULES = {
    "fastapi", "starlette", "uvicorn", "httpx", "requests", "websockets", "openenv", "yaml",
    "json", "io", "os", "pathlib", "shutil", "socket", "urllib", "importlib",
}
FORBIDDEN_CALLS = {"open", "input", "print"}


def _imports(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_domain_modules_import_nothing_forbidden():
    files = sorted(DOMAIN.glob("*.py"))
    assert len(files) >= 5
    for path in files:
        tree = ast.parse(path.read_text(), filename=str(path))
        bad = _imports(tree) & FORBIDDEN_MODULES
        assert not bad, f"{path.name} imports {bad}"
        internal = {
            node.module for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
            and node.module.startswith("inbox_triage.") and not node.module.startswith(
                "inbox_triage.domain")
        }
        assert not internal, f"{path.name} imports upper layers {internal}"
        calls = {
            node.func.id for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        assert not calls & FORBIDDEN_CALLS, f"{path.name} calls {calls & FORBIDDEN_CALLS}"


def test_importing_the_domain_loads_no_server_or_openenv_code():
    code = (
        "import sys, inbox_triage.domain as d; "
        "bad = [m for m in ('openenv', 'fastapi', 'starlette', 'httpx', 'yaml') "
        "if m in sys.modules]; "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
