"""The files of an evaluation run: one JSON line per finished episode plus a metadata file.

A run is a folder::

    runs/NAME/episodes.jsonl   one EpisodeRecord per line, appended as episodes finish
    runs/NAME/meta.json        RunMeta: config, versions, commit, counts

Each line is written whole with a single ``write`` and flushed, so an interrupted run leaves at
worst one torn last line, which ``read_records`` drops (and ``--resume`` reruns that episode).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

EPISODES_FILE = "episodes.jsonl"
META_FILE = "meta.json"
FORMAT_VERSION = 1


class Step(BaseModel):
    """One step of a trajectory: what the agent sent and what came back."""

    action: dict[str, Any]
    reward: float
    error: dict[str, Any] | None = None


class EpisodeRecord(BaseModel):
    """One finished episode. ``key`` names the episode within a run (what resume skips)."""

    key: str
    agent: str
    task: str
    mode: str
    split: str | None = Field(default=None, description="generated tasks only")
    difficulty: str | None = Field(default=None, description="generated tasks only")
    seed: int = Field(description="the scenario seed: the same seed is the same scenario")
    trial: int = Field(default=0, description="repeat index of the same scenario (pass^k)")
    grade: float
    components: dict[str, float]
    texts: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="per free-text component: texts graded, and zeros counted by reason",
    )
    total_reward: float
    penalties: float
    steps: int
    invalid_actions: int
    sla_breaches: int
    tokens: dict[str, int] | None = Field(
        default=None, description="prompt / completion / total tokens, when the agent knows"
    )
    agent_stats: dict[str, int] | None = Field(
        default=None,
        description="the LLM agent's model calls and the invalid answers it caught and retried",
    )
    duration_s: float
    trajectory: list[Step] = Field(default_factory=list)
    episode_id: str | None = Field(
        default=None,
        description="a sealed server's opaque id for the episode (its operator can re-create "
        "it); ``seed`` then only numbers the episodes of the run",
    )


def episode_key(
    agent: str, task: str, split: str | None, difficulty: str | None, seed: int, trial: int
) -> str:
    return f"{agent}|{task}|{split or '-'}|{difficulty or '-'}|{seed}|{trial}"


class RunMeta(BaseModel):
    """What produced a run, so that its numbers can be trusted and repeated."""

    format: int = FORMAT_VERSION
    name: str
    created: str
    updated: str
    command: list[str] = Field(default_factory=list)
    config: dict[str, Any] = Field(default_factory=dict)
    versions: dict[str, str] = Field(default_factory=dict)
    commit: str | None = None
    episodes_planned: int = 0
    episodes_done: int = 0
    complete: bool = False
    interrupted: bool = False
    runtime_s: float = 0.0
    sessions: list[dict[str, Any]] = Field(
        default_factory=list,
        description="every start or resume: when, commit, versions and command",
    )


def read_records(path: str | Path) -> list[EpisodeRecord]:
    """Every whole record in a run folder or JSONL file; a torn last line is skipped."""
    file = Path(path)
    if file.is_dir():
        file = file / EPISODES_FILE
    if not file.exists():
        return []
    out: list[EpisodeRecord] = []
    lines = file.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append(EpisodeRecord.model_validate_json(line))
        except ValueError:
            if number == len(lines):  # torn by an interruption: that episode is rerun
                break
            raise ValueError(f"{file}:{number}: not an episode record") from None
    return out


def read_meta(folder: str | Path) -> RunMeta | None:
    file = Path(folder) / META_FILE
    if not file.exists():
        return None
    return RunMeta.model_validate_json(file.read_text(encoding="utf-8"))


def write_meta(folder: str | Path, meta: RunMeta) -> None:
    """Written to a temporary file and renamed, so meta.json is never half written."""
    file = Path(folder) / META_FILE
    tmp = file.with_suffix(".json.tmp")
    tmp.write_text(meta.model_dump_json(indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, file)


def repair_tail(file: Path) -> None:
    """Ends the file on a fresh line: a whole last record that only lacks its newline gets
    one; a torn one (cut mid-write) is cut off, and that episode is run again."""
    if not file.exists() or file.stat().st_size == 0:
        return
    data = file.read_bytes()
    if data.endswith(b"\n"):
        return
    cut = data.rfind(b"\n") + 1
    try:
        EpisodeRecord.model_validate_json(data[cut:])
    except ValueError:
        with file.open("r+b") as fh:
            fh.truncate(cut)
        return
    with file.open("ab") as fh:
        fh.write(b"\n")


class RecordWriter:
    """Appends records one whole line at a time (the caller serialises access)."""

    def __init__(self, folder: str | Path) -> None:
        self.path = Path(folder) / EPISODES_FILE
        repair_tail(self.path)
        self._fh = self.path.open("a", encoding="utf-8")

    def write(self, record: EpisodeRecord) -> None:
        self._fh.write(record.model_dump_json() + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()


def put_in_plan_order(folder: str | Path, keys: list[str]) -> None:
    """Rewrites ``episodes.jsonl`` with its lines in the order of ``keys`` (the plan), so that
    a run ends with the same file however its episodes finished: in parallel, on other
    processes, or over an interruption and a resume. Records are written as they finish (none
    waits in memory); this reorders them once, at the end, through a temporary file and a
    rename, so the file is whole at every moment. Lines of keys not in ``keys`` go last."""
    import orjson

    file = Path(folder) / EPISODES_FILE
    if not file.exists():
        return
    lines = [line for line in file.read_bytes().splitlines() if line.strip()]
    rank = {key: n for n, key in enumerate(keys)}
    ranked = sorted(
        range(len(lines)), key=lambda i: (rank.get(orjson.loads(lines[i])["key"], len(rank)), i)
    )
    if ranked == list(range(len(lines))):
        return
    tmp = file.with_suffix(".jsonl.tmp")
    with tmp.open("wb") as fh:
        fh.write(b"".join(lines[i] + b"\n" for i in ranked))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, file)


def dump_jsonl(records: list[EpisodeRecord]) -> str:
    return "".join(json.dumps(r.model_dump(), sort_keys=True) + "\n" for r in records)
