"""The evaluation runs a server shows in its console: folders the operator named at start-up.

A request names a run by the name listed here and an episode by its key, never by a path, so
nothing a visitor sends opens a file. A folder given is either a run (it holds
``episodes.jsonl``) or a folder of runs (``runs/``); its records are read again when the file
has grown, so ``inbox-triage view`` follows a run still in progress, and a folder of runs is
looked at again (at most every ``RESCAN_S``), so runs added while the server runs are listed
and runs deleted are not.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inbox_triage.evaluation.records import EPISODES_FILE, EpisodeRecord, read_meta, read_records

RUNS_ENV = "INBOX_TRIAGE_RUNS"
RESCAN_S = 2.0


class RunFolderError(ValueError):
    """A folder named with ``--runs`` that holds no run."""


@dataclass(slots=True)
class _Run:
    name: str
    folder: Path
    stamp: tuple[int, int] = (-1, -1)
    records: list[EpisodeRecord] = field(default_factory=list)
    by_key: dict[str, EpisodeRecord] = field(default_factory=dict)

    def load(self) -> list[EpisodeRecord]:
        file = self.folder / EPISODES_FILE
        try:
            stat = file.stat()
        except OSError:
            return self.records
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp != self.stamp:
            try:
                self.records = read_records(file)
            except OSError:  # deleted between the look and the read: what was read stands
                return self.records
            self.by_key = {r.key: r for r in self.records}
            self.stamp = stamp
        return self.records


class RunLibrary:
    """Runs by name, in the order given."""

    def __init__(
        self,
        runs: dict[str, Path] | None = None,
        parents: Iterable[Path] = (),
        rescan_s: float = RESCAN_S,
    ) -> None:
        self._runs = {name: _Run(name, folder) for name, folder in (runs or {}).items()}
        self._parents = tuple(parents)  # folders of runs, where new runs may appear
        self.rescan_s = rescan_s
        self._scanned = time.monotonic()

    @classmethod
    def from_folders(cls, folders: Iterable[str | Path]) -> RunLibrary:
        found: list[Path] = []
        parents: list[Path] = []
        for given in folders:
            folder = Path(given).expanduser()
            if (folder / EPISODES_FILE).is_file():
                found.append(folder)
                continue
            if not folder.is_dir():
                raise RunFolderError(f"{folder}: no such folder")
            inner = sorted(p.parent for p in folder.glob(f"*/{EPISODES_FILE}"))
            if not inner:
                raise RunFolderError(
                    f"{folder}: not a run folder (no {EPISODES_FILE}) nor a folder of runs"
                )
            found.extend(inner)
            parents.append(folder.resolve())
        runs: dict[str, Path] = {}
        for folder in dict.fromkeys(p.resolve() for p in found):
            name = folder.name
            if name in runs:  # two runs of one name in different places
                name = f"{folder.parent.name}/{folder.name}"
            runs[name] = folder
        return cls(runs, parents)

    def names(self) -> list[str]:
        self._rescan()
        return list(self._runs)

    def _rescan(self) -> None:
        """Adds the runs that appeared in the folders of runs since they were last looked at,
        and drops those whose folder has gone."""
        now = time.monotonic()
        if now - self._scanned < self.rescan_s:
            return
        self._scanned = now
        gone = [n for n, run in self._runs.items() if not (run.folder / EPISODES_FILE).exists()]
        for name in gone:
            del self._runs[name]
        known = {run.folder for run in self._runs.values()}
        for parent in self._parents:
            for folder in sorted(p.parent.resolve() for p in parent.glob(f"*/{EPISODES_FILE}")):
                if folder in known:
                    continue
                name = folder.name
                if name in self._runs:
                    name = f"{folder.parent.name}/{folder.name}"
                self._runs[name] = _Run(name, folder)
                known.add(folder)

    def __len__(self) -> int:
        return len(self._runs)

    def records(self, name: str) -> list[EpisodeRecord]:
        return self._runs[name].load()

    def episode(self, name: str, key: str) -> EpisodeRecord | None:
        run = self._runs.get(name)
        if run is None:
            return None
        run.load()
        return run.by_key.get(key)

    def meta(self, name: str) -> dict[str, Any] | None:
        meta = read_meta(self._runs[name].folder)
        return None if meta is None else meta.model_dump(include={"name", "created", "config"})
