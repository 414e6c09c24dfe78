"""Fails a verifiers evaluation whose every rollout errored (``vf-eval`` itself exits 0).

``vf-eval`` (0.3.1 and 0.4.0) records a rollout that failed (an endpoint that refuses every
request, a model name it does not serve, a context overflow...) with its error and reward 0,
and still exits 0, so a script or CI job cannot tell a run that measured nothing from a model
that scored 0. This module reads what was saved and says so.

    vf-eval inbox-triage ... -s -o outputs/vf          # -s: save results.jsonl under outputs/vf
    python -m inbox_triage.integrations.verifiers_check outputs/vf

From Python, after ``env.evaluate_sync(...)``: ``raise_if_all_failed(results)``.

It reads verifiers 0.3.1's ``results.jsonl`` (a rollout failed when its ``error`` is set) and
0.4.0's ``traces.jsonl`` (an episode failed when it has ``errors``, no trace, or a trace that is
not ``ok``). It imports neither version of verifiers, so it runs in the project's venv for
both. Exit status: 0 when at least one rollout ran (``--strict``: all of them), 1 when every
rollout failed or there were none, 2 when no results file was found or one could not be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

RESULT_FILES = ("results.jsonl", "traces.jsonl")  # verifiers 0.3.1, 0.4.0


class AllRolloutsFailed(RuntimeError):
    """Every rollout of an evaluation errored (or there was none): it measured nothing."""


def failure(output: Mapping[str, Any]) -> str | None:
    """Why one rollout (0.3.1) or episode (0.4.0) failed, or None when it ran."""
    if "traces" in output or "ok" in output:  # verifiers 0.4.0's traces.jsonl
        errors = output.get("errors") or []
        traces = output.get("traces") or []
        if errors:
            return _text(errors[0])
        if output.get("ok") is False or not traces:
            return "the episode is not ok" if traces else "the episode has no trace"
        bad = next((t for t in traces if isinstance(t, Mapping) and t.get("ok") is False), None)
        return None if bad is None else _text(bad.get("error") or "a trace is not ok")
    error = output.get("error")
    return _text(error) if error else None


def _text(error: Any) -> str:
    """The error on one line, at most 300 characters."""
    text = " ".join(_full_text(error).split())
    return text if len(text) <= 300 else text[:299] + "…"


def _full_text(error: Any) -> str:
    if isinstance(error, Mapping):  # 0.3.1's ErrorData: error (the type), message, chains
        chain = error.get("error_chain_repr") or error.get("error_chain_str")
        if chain:  # ModelError() -> InternalServerError('Error code: 500')
            return str(chain)
        name, message = error.get("error") or "", error.get("message") or ""
        return f"{name}: {message}" if name and message else str(name or message or error)
    return str(error)


def summary(outputs: Sequence[Mapping[str, Any]]) -> tuple[int, list[str]]:
    """How many rollouts there were, and the failures' reasons."""
    reasons = [r for r in map(failure, outputs) if r is not None]
    return len(outputs), reasons


def _outputs(results: Any) -> list[Mapping[str, Any]]:
    if isinstance(results, Mapping):  # GenerateOutputs: {"outputs": [...], "metadata": ...}
        results = results["outputs"]
    return list(results)


def raise_if_all_failed(results: Any, strict: bool = False) -> int:
    """Raises ``AllRolloutsFailed`` when every rollout of ``results`` (what ``evaluate`` or
    ``evaluate_sync`` returns, or its ``outputs``) errored, or there was none; with ``strict``,
    when any did. Returns how many rollouts ran."""
    total, reasons = summary(_outputs(results))
    if total == 0:
        raise AllRolloutsFailed("no rollout: the evaluation measured nothing")
    if len(reasons) == total or (strict and reasons):
        raise AllRolloutsFailed(
            f"{len(reasons)} of {total} rollouts failed; the first: {reasons[0]}"
        )
    return total - len(reasons)


def results_file(path: Path) -> Path:
    """The results file a path names: the file itself, a run folder's, or under a folder the
    newest one (``vf-eval -o DIR`` writes ``DIR/evals/ENV--MODEL/RUN/results.jsonl``)."""
    if path.is_file():
        return path
    if not path.is_dir():
        raise FileNotFoundError(f"no such file or folder: {path}")
    found = [p for name in RESULT_FILES for p in path.rglob(name) if p.is_file()]
    if not found:
        raise FileNotFoundError(f"no {' or '.join(RESULT_FILES)} under {path}")
    return max(found, key=lambda p: p.stat().st_mtime)


def read(path: Path) -> list[dict[str, Any]]:
    """The rollouts of a results file (one JSON object a line; blank lines skipped)."""
    rows = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                raise ValueError(f"{path}:{number}: not JSON ({exc})") from exc
    return rows


def check(paths: Iterable[Path], strict: bool = False, out: Any = None) -> int:
    """The exit status for the runs at ``paths`` (each checked on its own); prints a line each."""
    out = out or sys.stdout
    status = 0
    for path in paths:
        try:
            found = results_file(path)
            outputs = read(found)
        except (OSError, ValueError) as exc:
            print(f"{path}: {exc}", file=out)
            status = max(status, 2)
            continue
        total, reasons = summary(outputs)
        rewards = [o.get("reward") for o in outputs if failure(o) is None]
        mean = [r for r in rewards if isinstance(r, int | float)]
        line = f"{found}: {total} rollouts, {len(reasons)} failed"
        if mean:
            line += f", mean reward of the others {sum(mean) / len(mean):.3f}"
        if reasons:
            line += f"; the first failure: {reasons[0]}"
        print(line, file=out)
        if total == 0 or len(reasons) == total or (strict and reasons):
            what = "no rollout" if total == 0 else "every rollout failed"
            if total and len(reasons) < total:
                what = f"{len(reasons)} of {total} rollouts failed (--strict)"
            print(f"FAIL: {what}", file=out)
            status = max(status, 1)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m inbox_triage.integrations.verifiers_check",
        description="Exit 1 when every rollout of a saved verifiers evaluation errored.",
    )
    parser.add_argument(
        "paths",
        nargs="+",
        type=Path,
        help="results.jsonl / traces.jsonl, a run folder, or a folder (its newest run)",
    )
    parser.add_argument("--strict", action="store_true", help="also fail when any rollout did")
    args = parser.parse_args(argv)
    return check(args.paths, strict=args.strict)


if __name__ == "__main__":
    sys.exit(main())
