"""How a good agent would write about one generated email: the oracle's summary, reply and
information request, from patterns written per situation by hand.

A pattern names the email's details by slot ("{amount}", "{date}"). The email may not mention
every detail its situation knows, so a pattern is used only where every detail it names is in
what the sender wrote; among those, one that names a detail of this email is preferred, so the
text is about this email and not any email of its kind. The texts are part of the hidden truth:
the oracle plays them, ``export demos`` teaches them, and nothing shows them to an agent.
"""

from __future__ import annotations

import random
import re
import string
from functools import cache

from pydantic import BaseModel, ConfigDict, Field

from inbox_triage.domain.models import Reference
from inbox_triage.scenarios.loader import ScenarioError, data_root, read_yaml

# Slots that are not details of the email: who wrote (the From line says it) and who answers.
ALWAYS_KNOWN = frozenset({"first_name", "last_name", "full_name", "our_company", "agent"})
# The support agents who sign the oracle's replies.
AGENTS = ("Sam", "Priya", "Jonas", "Amara", "Lucia", "Tomasz", "Mei", "Daniel", "Ines", "Kofi")
_FIELD = string.Formatter()


class Writing(BaseModel):
    """The patterns of one situation: at least one of each kind its handling needs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    summary: tuple[str, ...] = Field(min_length=1)
    reply: tuple[str, ...] = ()
    request: tuple[str, ...] = ()


class WritingFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    writing: dict[str, Writing]


def slots_of(pattern: str) -> frozenset[str]:
    """The slot names a pattern uses."""
    return frozenset(name for _, name, _, _ in _FIELD.parse(pattern) if name)


@cache
def load_writing() -> dict[str, Writing]:
    """Every situation's patterns (the files under ``generator/writing``)."""
    found: dict[str, Writing] = {}
    folder = data_root() / "generator" / "writing"
    for path in sorted(folder.glob("*.yaml")):
        try:
            parsed = WritingFile.model_validate(read_yaml(path))
        except ValueError as exc:
            raise ScenarioError(f"{path.name}: {exc}") from exc
        for situation, writing in parsed.writing.items():
            if situation in found:
                raise ScenarioError(f"{path.name}: situation {situation!r} is written twice")
            found[situation] = writing
    return found


def _mentioned(value: str, text: str) -> bool:
    return bool(value) and re.sub(r"\s+", " ", value.lower()) in text


def _pick(
    rng: random.Random, patterns: tuple[str, ...], slots: dict[str, str], text: str
) -> str | None:
    """A pattern whose every detail the email mentions, preferring one that names a detail."""
    usable: list[tuple[str, bool]] = []
    for pattern in patterns:
        names = slots_of(pattern)
        details = names - ALWAYS_KNOWN
        if all(n in slots for n in names) and all(_mentioned(slots[n], text) for n in details):
            usable.append((pattern, bool(details)))
    if not usable:
        return None
    specific = [p for p, named in usable if named]
    return rng.choice(specific or [p for p, _ in usable]).format_map(slots).strip()


def reference_texts(
    situation: str, slots: dict[str, str], customer_text: str, rng: random.Random
) -> Reference | None:
    """The oracle's texts for one email of ``situation`` (None where none are written)."""
    writing = load_writing().get(situation)
    if writing is None:
        return None
    text = re.sub(r"\s+", " ", customer_text.lower())
    filled = {**slots, "agent": rng.choice(AGENTS)}
    summary = _pick(rng, writing.summary, filled, text)
    if summary is None:
        raise ScenarioError(f"no summary pattern of {situation!r} fits the email")
    return Reference(
        summary=summary,
        reply=_pick(rng, writing.reply, filled, text),
        request=_pick(rng, writing.request, filled, text),
    )
