"""Many generated emails at once, with where each came from: what the linter reads and the
variety figures count.

``sample`` plays the generator across the three modes and difficulties (a third of the emails
from each mode) until a split has the emails asked for. ``near_duplicates`` is the issue's
definition: two bodies are near-duplicates when their sets of 5-word shingles have a Jaccard
similarity of at least 0.5.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, replace

from inbox_triage.domain import Scenario, Ticket
from inbox_triage.scenarios.generator.config import PRESETS
from inbox_triage.scenarios.generator.generate import Origin, generate_with_origins
from inbox_triage.scenarios.generator.lint import Finding, lint_scenario

MODES = ("triage", "ticket", "inbox")


@dataclass(frozen=True, slots=True)
class Email:
    """One generated ticket and where it came from."""

    ticket: Ticket
    origin: Origin
    mode: str
    split: str
    seed: int
    difficulty: str


def _episodes(
    version: int, split: str, mode: str
) -> Iterator[tuple[int, str, Scenario, tuple[Origin, ...]]]:
    for seed in itertools.count():
        for difficulty in PRESETS:
            scenario, origins = generate_with_origins(
                mode,
                split,
                difficulty,
                seed,
                version=version,  # type: ignore[arg-type]
            )
            yield seed, difficulty, scenario, origins


def sample(version: int, split: str, emails: int) -> Iterator[tuple[Scenario, list[Email]]]:
    """Scenarios of ``split`` with their emails, about a third from each mode, ``emails`` in all."""
    share = {m: emails // 3 + (1 if i < emails % 3 else 0) for i, m in enumerate(MODES)}
    for mode in MODES:
        left = share[mode]
        for seed, difficulty, scenario, origins in _episodes(version, split, mode):
            if left <= 0:
                break
            by_id = {o.ticket: o for o in origins}
            chosen = [
                Email(t, by_id[t.id], mode, split, seed, difficulty)
                for t in scenario.tickets[:left]
            ]
            left -= len(chosen)
            yield scenario, chosen


def lint_corpus(version: int, split: str, emails: int) -> tuple[int, list[Finding]]:
    """(emails read, findings), each finding naming its situation, family, mode and seed."""
    read, findings = 0, []
    for scenario, chosen in sample(version, split, emails):
        read += len(chosen)
        where = {e.ticket.id: e for e in chosen}
        for finding in lint_scenario(scenario):
            email = where.get(finding.ticket)
            if email is None and finding.ticket != "-":
                continue
            if email is None:
                some = chosen[0]
                findings.append(replace(finding, mode=some.mode, split=split, seed=some.seed))
                continue
            findings.append(
                replace(
                    finding,
                    situation=email.origin.situation,
                    family=email.origin.family,
                    mode=email.mode,
                    split=split,
                    seed=email.seed,
                )
            )
    return read, _once(findings)


def _once(findings: list[Finding]) -> list[Finding]:
    """Scenario-wide lines are shared by every scenario of a split: report each once."""
    out, seen = [], set()
    for f in findings:
        key = (f.kind, f.excerpt) if f.ticket == "-" else id(f)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def shingles(text: str, n: int = 5) -> frozenset[str]:
    words = re.findall(r"[a-z0-9']+", text.lower())
    return frozenset(" ".join(words[i : i + n]) for i in range(max(1, len(words) - n + 1)))


def near_duplicates(bodies: list[str], threshold: float = 0.5) -> set[int]:
    """Indexes of bodies with at least one near-duplicate among the others."""
    sets = [shingles(b) for b in bodies]
    index: dict[str, list[int]] = defaultdict(list)
    for i, s in enumerate(sets):
        for shingle in s:
            index[shingle].append(i)
    flagged: set[int] = set()
    for i, s in enumerate(sets):
        shared: Counter[int] = Counter()
        for shingle in s:
            for j in index[shingle]:
                if j != i:
                    shared[j] += 1
        for j, common in shared.items():
            if common / (len(s) + len(sets[j]) - common) >= threshold:
                flagged.update((i, j))
    return flagged


@dataclass(frozen=True, slots=True)
class Variety:
    """How varied a split's mail is."""

    emails: int
    distinct_bodies: int
    near_duplicate_rate: float
    situations: int
    families: int


def variety(version: int, split: str, emails: int = 1000) -> Variety:
    chosen = [e for _, batch in sample(version, split, emails) for e in batch]
    bodies = [e.ticket.body for e in chosen]
    return Variety(
        emails=len(chosen),
        distinct_bodies=len(set(bodies)),
        near_duplicate_rate=len(near_duplicates(bodies)) / max(1, len(bodies)),
        situations=len({e.origin.situation for e in chosen}),
        families=len({(e.origin.situation, e.origin.family) for e in chosen}),
    )
