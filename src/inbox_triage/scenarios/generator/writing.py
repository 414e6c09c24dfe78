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


class Patterns(BaseModel):
    """Patterns for one phrasing family of a situation: what its senders in particular ask."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    summary: tuple[str, ...] = ()
    reply: tuple[str, ...] = ()
    request: tuple[str, ...] = ()


class Writing(Patterns):
    """The patterns of one situation (at least a summary), and of its families (0 test, 1
    validation, 2+ train), which are preferred where they fit."""

    summary: tuple[str, ...] = Field(min_length=1)
    families: dict[int, Patterns] = {}


class WritingFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    writing: dict[str, Writing] = {}
    # Said after the greeting to a sender who has written before and is still waiting.
    chased: tuple[str, ...] = ()


def slots_of(pattern: str) -> frozenset[str]:
    """The slot names a pattern uses."""
    return frozenset(name for _, name, _, _ in _FIELD.parse(pattern) if name)


@cache
def _files() -> tuple[WritingFile, ...]:
    folder = data_root() / "generator" / "writing"
    parsed: list[WritingFile] = []
    for path in sorted(folder.glob("*.yaml")):
        try:
            parsed.append(WritingFile.model_validate(read_yaml(path)))
        except ValueError as exc:
            raise ScenarioError(f"{path.name}: {exc}") from exc
    return tuple(parsed)


@cache
def load_writing() -> dict[str, Writing]:
    """Every situation's patterns (the files under ``generator/writing``)."""
    found: dict[str, Writing] = {}
    for parsed in _files():
        for situation, writing in parsed.writing.items():
            if situation in found:
                raise ScenarioError(f"situation {situation!r} is written twice")
            found[situation] = writing
    return found


@cache
def chased_openers() -> tuple[str, ...]:
    """What a reply says first to someone who has had to write again."""
    return tuple(line for parsed in _files() for line in parsed.chased)


def _mentioned(value: str, text: str) -> bool:
    return bool(value) and re.sub(r"\s+", " ", value.lower()) in text


def _fitting(
    rng: random.Random, patterns: tuple[str, ...], slots: dict[str, str], text: str
) -> list[str]:
    """The patterns whose every detail the email mentions, filled: those naming a detail first,
    each group in a random order."""
    specific: list[str] = []
    plain: list[str] = []
    for pattern in patterns:
        names = slots_of(pattern)
        details = names - ALWAYS_KNOWN
        if all(n in slots for n in names) and all(_mentioned(slots[n], text) for n in details):
            (specific if details else plain).append(pattern.format_map(slots).strip())
    rng.shuffle(specific)
    rng.shuffle(plain)
    return [*specific, *plain]


def _candidates(
    rng: random.Random,
    choices: tuple[tuple[str, ...], ...],
    slots: dict[str, str],
    text: str,
) -> tuple[str, ...]:
    """The family's fitting patterns, then the situation's."""
    return tuple(
        dict.fromkeys(c for patterns in choices for c in _fitting(rng, patterns, slots, text))
    )


_APOLOGY = re.compile(r"^(?:i'm |i am |we're |we are )?(?:so |really |very )?sorry,?\s*", re.I)


def _acknowledge(reply: str, opener: str) -> str:
    """The reply with ``opener`` after its greeting line (the apology it makes stands for one
    the reply opened with: "Sorry, that's a frustrating loop" goes on "That's a ...")."""
    greeting, _, rest = reply.partition("\n")
    if not rest.startswith("\n"):
        return f"{opener} {reply}"
    body = rest.lstrip("\n")
    trimmed = _APOLOGY.sub("", body, count=1)
    if (
        trimmed != body
        and trimmed[:1].isalpha()
        and not trimmed.lower().startswith(("for ", "to "))
    ):
        body = trimmed[0].upper() + trimmed[1:]
    return f"{greeting}\n\n{opener} {body}"


def acknowledged(
    rng: random.Random, replies: tuple[str, ...], slots: dict[str, str]
) -> tuple[str, ...]:
    """The replies, each telling a sender who had to write again that we are sorry."""
    openers = chased_openers()
    if not replies or not openers:
        return replies
    opener = rng.choice(openers).format_map(slots)
    return tuple(_acknowledge(r, opener) for r in replies)


def reference_texts(
    situation: str,
    slots: dict[str, str],
    customer_text: str,
    rng: random.Random,
    family: int = 0,
    chased: bool = False,
) -> Reference | None:
    """The oracle's texts for one email of ``situation`` (None where none are written);
    ``chased``: the sender wrote before and is still waiting."""
    writing = load_writing().get(situation)
    if writing is None:
        return None
    own = writing.families.get(family, Patterns())
    text = re.sub(r"\s+", " ", customer_text.lower())
    filled = {**slots, "agent": rng.choice(AGENTS)}
    summaries = _candidates(rng, (own.summary, writing.summary), filled, text)
    if not summaries:
        raise ScenarioError(f"no summary pattern of {situation!r} fits the email")
    replies = _candidates(rng, (own.reply, writing.reply), filled, text)
    if chased:
        replies = acknowledged(rng, replies, filled)
    return Reference(
        summaries=summaries,
        replies=replies,
        requests=_candidates(rng, (own.request, writing.request), filled, text),
    )
