"""The docs cannot rot: every code block in README.md and docs/*.md is run or parsed here.

A block is checked by its language and by a marker on the line before it:

- ``<!-- docs: run -->`` runs the block as pasted (bash or python) in an empty folder;
- ``<!-- docs: live -->`` runs it against a real ``inbox-triage serve``, with
  ``localhost:8000`` replaced by that server's address;
- unmarked python is compiled and its imports are imported (long trainings stop there);
- unmarked bash is split into commands: ``inbox-triage`` commands are parsed by the CLI itself
  (every subcommand, option and choice must exist), ``python FILE`` and ``python -m MOD`` must
  name a file or module that exists, ``pip install -e ".[EXTRA]"`` an extra that exists;
- yaml, json and toml are parsed; ``text`` and ``mermaid`` are output and diagrams.

Every relative link must lead to a file, and every ``#anchor`` to a heading there.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer
import yaml
from live_server import running_server

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKER = re.compile(r"<!--\s*docs:\s*(run|live)\s*-->")
FENCE = re.compile(r"^```(\S*)\s*$")
NOT_CODE = {"text", "mermaid"}
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
SHELL_WORDS = {"do", "then", "else"}
# Commands a reader runs that are not ours to check beyond their shell syntax.
EXTERNAL = {
    "cd",
    "source",
    "export",
    "kill",
    "sleep",
    "until",
    "done",
    "for",
    "while",
    "fi",
    "if",
    "curl",
    "sed",
    "tr",
    "git",
    "docker",
    "kubectl",
    "openenv",
    "vf-eval",
    "uv",
    "apt-get",
    "sudo",
    "echo",
    "cat",
    "ls",
    "mkdir",
    "true",
}


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    lang: str
    marker: str | None
    code: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks() -> list[Block]:
    found: list[Block] = []
    for page in PAGES:
        lines = page.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            opening = FENCE.match(lines[i])
            if opening is None:
                i += 1
                continue
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            before = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
            marker = MARKER.search(before)
            code = "\n".join(lines[i + 1 : end]) + "\n"
            found.append(Block(page, i + 1, opening.group(1), marker and marker.group(1), code))
            i = end + 1
    return found


BLOCKS = blocks()


def by(kind: str) -> list[Block]:
    return [b for b in BLOCKS if kind == (b.marker or f"parse-{b.lang}")]


def test_every_block_has_a_language_the_check_knows() -> None:
    known = {"bash", "python", "yaml", "json", "toml", *NOT_CODE}
    unknown = [f"{b.where} ({b.lang or 'no language'})" for b in BLOCKS if b.lang not in known]
    assert not unknown, f"blocks the docs check cannot check: {unknown}"
    assert len(BLOCKS) > 30 and by("run") and by("live")


def test_the_readme_stays_short() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(readme) <= 300, f"README.md has {len(readme)} lines; move detail to docs/"


# ---------------------------------------------------------------- links


def slug(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    fenced, found = False, set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"^#{1,6} (.+)$", line)):
            found.add(slug(m.group(1)))
    return found


def test_every_relative_link_and_anchor_resolves() -> None:
    broken = []
    for page in PAGES:
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                broken.append(f"{page.name}: {target} (no such file)")
            elif anchor and file.suffix == ".md" and anchor not in anchors(file):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert not broken, broken


# ---------------------------------------------------------------- bash


def commands(code: str) -> list[list[str]]:
    """The simple commands of a shell block (comments already stripped): split at ``;``, ``&``,
    ``|`` and line ends, without redirections, leading assignments or shell keywords."""
    found: list[list[str]] = []
    for line in code.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
        lexer.whitespace_split = True
        current: list[str] = []
        redirect = False
        for token in lexer:
            if redirect:
                redirect = False
            elif token[0] in "<>":
                redirect = not token.endswith("&")
                if current and current[-1].isdigit():
                    current.pop()
            elif set(token) <= set(";&|"):
                found.append(current)
                current = []
            elif token == "1" and not current:
                continue
            else:
                current.append(token)
        found.append(current)
    result = []
    for words in found:
        while words and (
            re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]) or words[0] in SHELL_WORDS
        ):
            if "$(" in words[0]:  # an assignment from a command: skip to its end
                while words and not words[0].endswith(")"):
                    words = words[1:]
            words = words[1:]
        if words:
            result.append(words)
    return result


def strip_comments(code: str) -> str:
    """Drops `# ...` that starts a comment (after whitespace, outside quotes)."""
    out = []
    for line in code.replace("\\\n", " ").splitlines():
        quote, cut = "", len(line)
        for i, ch in enumerate(line):
            if quote:
                quote = "" if ch == quote else quote
            elif ch in "'\"":
                quote = ch
            elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
                cut = i
                break
        out.append(line[:cut])
    return "\n".join(out)


# typer carries its own click: its usage error is the base of its BadParameter.
UsageError = typer.BadParameter.__mro__[1]
CLI = typer.main.get_command(__import__("inbox_triage.cli", fromlist=["app"]).app)
EXTRAS = set(
    tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
)


def parse_cli(args: list[str]) -> None:
    """Parses ``inbox-triage ARGS`` as the CLI would, down to the last subcommand, without running
    it; a path that must exist is the reader's, so only its check is let through."""
    command = CLI
    name = "inbox-triage"
    while True:
        try:
            ctx = command.make_context(name, list(args), resilient_parsing=False)
        except typer.BadParameter as error:
            if "does not exist" in str(error):
                return
            raise
        rest = [*getattr(ctx, "_protected_args", []), *ctx.args]
        if not hasattr(command, "resolve_command") or not rest:
            return
        name, command, args = command.resolve_command(ctx, rest)
        assert command is not None, f"no command {name}"


def check_command(words: list[str]) -> None:
    program = words[0].rsplit("/", 1)[-1]
    if program == "inbox-triage":
        parse_cli(words[1:])
    elif program.startswith("python"):
        if words[1:3] and words[1] == "-m":
            assert importlib.util.find_spec(words[2]) is not None, f"no module {words[2]}"
        elif words[1:2] == ["-c"]:
            compile(words[2], "<-c>", "exec")
        else:
            assert (ROOT / words[1]).exists(), f"no file {words[1]}"
    elif program == "pip":
        assert words[1] == "install", words
        for word in words[2:]:
            if extras := re.fullmatch(r"\.\[(.+)\]", word):
                missing = set(extras.group(1).split(",")) - EXTRAS
                assert not missing, f"no extra {missing} in pyproject.toml"
            elif not word.startswith("-") and "==" not in word and word not in {"uv"}:
                pytest.fail(f"an unpinned install: {word}")
    else:
        assert program in EXTERNAL, f"a command the docs check does not know: {program}"


@pytest.mark.parametrize("block", by("parse-bash"), ids=lambda b: b.where)
def test_bash_blocks_parse(block: Block) -> None:
    code = strip_comments(block.code)
    found = commands(code)
    assert found, "an empty block"
    for words in found:
        check_command(words)


def test_the_cli_parse_catches_a_wrong_option() -> None:
    """The check above could pass everything; here it must refuse what the CLI refuses."""
    with pytest.raises(UsageError):
        parse_cli(["eval", "--agentz", "heuristic"])
    with pytest.raises(UsageError):
        parse_cli(["train", "grpo", "--steps", "many"])
    with pytest.raises(AssertionError):
        check_command(["pip", "install", "-e", ".[no_such_extra]"])


def run_bash(code: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, **(env or {}), "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", code],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, (
        f"exit {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    )
    return done.stdout


def run_python(code: str, cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"exit {done.returncode}:\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.mark.parametrize("block", by("run"), ids=lambda b: b.where)
def test_run_blocks_run_as_pasted(block: Block, tmp_path: Path) -> None:
    if block.lang == "bash":
        run_bash(block.code, tmp_path)
    else:
        run_python(block.code, tmp_path)


@pytest.fixture(scope="module")
def server() -> str:
    with running_server() as url:
        yield url


@pytest.mark.parametrize("block", by("live"), ids=lambda b: b.where)
def test_live_blocks_run_against_a_server(block: Block, server: str, tmp_path: Path) -> None:
    host = server.removeprefix("http://")
    code = block.code.replace("http://localhost:8000", server).replace("localhost:8000", host)
    if block.lang == "bash":  # an HTTP error fails the block, as it would fail a reader
        out = run_bash('curl() { command curl --fail-with-body "$@"; }\n' + code, tmp_path)
    else:
        out = run_python(code, tmp_path)
    assert out.strip(), "the block printed nothing"


# ---------------------------------------------------------------- python and data


@pytest.mark.parametrize("block", by("parse-python"), ids=lambda b: b.where)
def test_python_blocks_compile(block: Block) -> None:
    compile(block.code, block.where, "exec")


def test_python_blocks_import_what_exists(tmp_path: Path) -> None:
    """Every import of every parsed python block, in one process (trl and torch load once)."""
    imports = []
    for block in by("parse-python"):
        for node in ast.parse(block.code).body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                top = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
                if importlib.util.find_spec(top.split(".")[0]) is None:
                    continue  # an optional extra that is not installed here
                imports.append(ast.unparse(node))
    assert imports
    run_python("\n".join(dict.fromkeys(imports)), tmp_path)


@pytest.mark.parametrize(
    "block", [b for b in BLOCKS if b.lang in {"yaml", "json", "toml"}], ids=lambda b: b.where
)
def test_data_blocks_parse(block: Block) -> None:
    {"yaml": yaml.safe_load, "json": json.loads, "toml": tomllib.loads}[block.lang](block.code)
