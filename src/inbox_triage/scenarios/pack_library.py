"""Packs a server plays: only those in folders its operator named, loaded once, chosen by name.

A served environment must never open a file because a request named it. So the packs are read
when the server starts, from the pack folders directly inside each folder given to
``inbox-triage serve --packs DIR``; a reset then names one (``triage/pack:acme``) and is
answered from memory. A name that is not one of them, for whatever reason (a path, ``..``,
``~``, a folder that does not exist, a pack that did not load), gets the same refusal, so that
no answer tells an existing path from a missing one. In-process use keeps taking paths.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from pathlib import Path

from inbox_triage.domain import MODES, Scenario
from inbox_triage.scenarios.loader import ScenarioError
from inbox_triage.scenarios.packs import PACK_FILE, Pack, load_pack, scenario_from_pack

log = logging.getLogger("inbox_triage.packs")

PACKS_ENV = "INBOX_TRIAGE_PACKS"
PACK_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


class PackRefused(ScenarioError):
    """A pack task the server does not play: always the same words, whatever the reason."""

    def __init__(self, allowed: list[str]) -> None:
        super().__init__("is not a pack this server plays", "task", allowed)
        listed = ", ".join(allowed) if allowed else "none (the server was started without --packs)"
        self.args = (f"task: {self.message} (allowed: {listed})",)


class PackLibrary:
    """The packs an operator named, by name. Empty means a served ``pack:`` task is refused."""

    def __init__(self, packs: dict[str, Pack] | None = None) -> None:
        self.packs: dict[str, Pack] = dict(packs or {})

    @classmethod
    def from_folders(cls, folders: Iterable[str | Path]) -> PackLibrary:
        """Loads every pack folder directly inside each folder. A folder that does not exist is
        the operator's mistake and raises; a pack that does not load, or whose folder or
        ``pack.yaml`` leads (by a symlink) outside the named folder, is logged and left out."""
        packs: dict[str, Pack] = {}
        for given in folders:
            root = Path(given).expanduser()
            if not root.is_dir():
                raise ScenarioError(f"--packs {given}: no such folder")
            real_root = root.resolve()
            for entry in sorted(root.iterdir()):
                if not (entry / PACK_FILE).is_file():
                    continue
                name = entry.name
                if not PACK_NAME.match(name):
                    log.warning("pack folder %s skipped: names are letters, digits, - and _", entry)
                    continue
                inside = (entry.resolve(), (entry / PACK_FILE).resolve())
                if not all(p.is_relative_to(real_root) for p in inside):
                    log.warning("pack folder %s skipped: it leads outside %s", entry, real_root)
                    continue
                if name in packs:
                    log.warning("pack %s in %s skipped: a pack of that name came first", name, root)
                    continue
                try:
                    packs[name] = load_pack(entry)
                except ScenarioError as exc:  # in full on the server, never to a caller
                    log.error("pack %s did not load and is not playable: %s", entry, exc)
        return cls(packs)

    def names(self) -> list[str]:
        return sorted(self.packs)

    def task_ids(self) -> list[str]:
        return [f"{mode}/pack:{name}" for name in self.names() for mode in MODES]

    def refusal(self) -> PackRefused:
        return PackRefused(self.task_ids())

    def check(self, mode: object, name: object) -> None:
        """Refuses anything but a mode and the name of a playable pack."""
        if mode not in MODES or not isinstance(name, str) or name not in self.packs:
            raise self.refusal()

    def scenario(self, mode: object, name: object, seed: int, size: int | None) -> Scenario:
        """The episode a served reset asks for; anything but a playable pack is refused."""
        self.check(mode, name)
        return scenario_from_pack(self.packs[name], mode, name, seed, size)  # type: ignore[arg-type,index]
