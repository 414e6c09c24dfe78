"""What produced a run: its meta at start and end, the versions (grader included) and the commit."""

from __future__ import annotations

import importlib.metadata
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from inbox_triage.evaluation.plan import EpisodeSpec, RunConfig, RunMismatch
from inbox_triage.evaluation.records import (
    EpisodeRecord,
    RunMeta,
    read_meta,
    write_meta,
)
from inbox_triage.grading import GRADER_VERSION
from inbox_triage.models import OBSERVATION_VERSION
from inbox_triage.scenarios.generator.data import LATEST
from inbox_triage.version import __version__


def start_meta(config: RunConfig, out: Path, resume: bool, command: list[str] | None) -> RunMeta:
    now = _now()
    identity = config.identity()
    previous = read_meta(out) if resume else None
    if previous is not None:
        before = previous.config.get("identity")
        if before is not None and before != identity:
            changed = sorted(k for k in identity if before.get(k) != identity[k])
            raise RunMismatch(
                f"{out} was run with other settings ({', '.join(changed)} differ); "
                "resume it with the same options or start a new run folder"
            )
    command = command if command is not None else sys.argv
    session = {"started": now, "commit": git_commit(), "versions": versions(), "command": command}
    return RunMeta(
        name=out.name,
        created=previous.created if previous else now,
        updated=now,
        command=command,
        sessions=[*(previous.sessions if previous else []), session],
        config={
            "identity": identity,
            "env_url": config.env_url,
            "concurrency": config.concurrency,
            "keep_trajectory": config.keep_trajectory,
            "backend": config.backend,
            "workers": config.workers,
        },
        versions=session["versions"],
        commit=session["commit"],
        runtime_s=previous.runtime_s if previous else 0.0,
    )


def end_meta(
    out: Path,
    meta: RunMeta,
    done: dict[str, EpisodeRecord],
    planned: list[EpisodeSpec],
    started: float,
    interrupted: bool,
) -> RunMeta:
    meta.updated = _now()
    meta.episodes_done = sum(1 for s in planned if s.key in done)
    meta.complete = meta.episodes_done == len(planned)
    meta.interrupted = interrupted and not meta.complete
    meta.runtime_s = round(meta.runtime_s + time.perf_counter() - started, 3)
    write_meta(out, meta)
    return meta


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def versions() -> dict[str, str]:
    """What produced a run's numbers: Python, the packages, the grader's version and the
    generator's newest (a run of ``MODE/generated@v1`` names its version in the task id)."""
    out = {
        "python": platform.python_version(),
        "grader": str(GRADER_VERSION),
        "generator": str(LATEST),
        "observation": str(OBSERVATION_VERSION),
        "inbox-triage": __version__,  # the project's own (distribution openenv-inbox-triage)
    }
    for package in ("openenv", "openai", "pydantic"):
        try:
            out[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out


def git_commit() -> str | None:
    """The commit of the checkout this package runs from, if it is one (dirty marked)."""
    root = Path(__file__).resolve().parents[3]
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("-dirty" if dirty else "") if commit else None
