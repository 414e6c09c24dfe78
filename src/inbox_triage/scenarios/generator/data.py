"""Loads and cross-checks the generator's data files against the org profiles it plays on.

Each generator version reads its own files (``*.v1.yaml`` or ``*.v2.yaml``) and plays on the org
profiles and policy of its day, so that v1 scenarios stay exactly what they were.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from inbox_triage.domain import OrgProfile
from inbox_triage.scenarios.generator.schema import (
    SLOTS,
    EntityPools,
    Situation,
    SituationFile,
    template_slots,
)
from inbox_triage.scenarios.generator.schema_v2 import EntitiesV2, SituationFileV2, SituationV2
from inbox_triage.scenarios.loader import (
    ScenarioError,
    data_root,
    load_org,
    read_yaml,
    versions_in,
)

# The default org profile, seen through each mode's vocabulary.
MODE_ORGS = {"triage": "email_triage", "ticket": "support_triage", "inbox": "inbox_ops"}
GENERATOR_VERSIONS = (1, 2, 3, 4)
LATEST = 3
# The org profile versions and the policy version each generator version plays on.
_ORG_VERSIONS = {
    1: {"triage": 2, "ticket": 1, "inbox": 2},
    2: {"triage": 3, "ticket": 3, "inbox": 3},
    3: {"triage": 4, "ticket": 3, "inbox": 4},
    4: {"triage": 4, "ticket": 3, "inbox": 4},
}
POLICY_VERSIONS = {1: 2, 2: 3, 3: 4, 4: 5}


def mode_org(mode: str, version: int = 1) -> OrgProfile:
    return load_org(MODE_ORGS[mode], _ORG_VERSIONS[version][mode])


def _check_vocabulary(situation: Situation | SituationV2, version: int = 1) -> None:
    h = situation.handling
    triage, ticket, inbox = (mode_org(m, version) for m in ("triage", "ticket", "inbox"))
    checks: list[tuple[str, object, tuple[str, ...]]] = [
        ("priority", h.priority, triage.priorities),
        ("category", h.category, triage.categories),
        ("triage_route", h.triage_route, triage.queues),
    ]
    if "ticket" in situation.modes:
        checks.append(("ticket_team", h.ticket_team, ticket.queues))
        checks.extend(("ticket_tags", tag, ticket.tags) for tag in h.ticket_tags)
    if "inbox" in situation.modes:
        checks += [
            ("inbox_queue", h.inbox_queue, inbox.queues),
            ("sentiment", h.sentiment, inbox.sentiments),
            ("template", h.template, tuple(inbox.templates)),
        ]
        if h.escalate_to is not None:
            checks.append(("escalate_to", h.escalate_to, inbox.escalation_targets))
        if h.resolution is not None:
            checks.append(("resolution", h.resolution, inbox.resolution_codes))
    for field, value, allowed in checks:
        if value not in allowed:
            raise ScenarioError(
                f"situation {situation.id}: {field} {value!r} is not one of {list(allowed)}"
            )
    if isinstance(situation, SituationV2):
        return
    texts = [*(situation.reveal.bodies if situation.reveal else ()), situation.follow_up or ""]
    for text in texts:
        unknown = template_slots(text) - SLOTS
        if unknown:
            raise ScenarioError(f"situation {situation.id}: unknown slots {sorted(unknown)}")


def _load(version: int, shape: type[SituationFile] | type[SituationFileV2]) -> tuple[Any, ...]:
    """Every situation of one generator version (``situations/*.vN.yaml``), checked against that
    version's vocabularies; ids must be unique and ``looks_like`` must name one of them."""
    folder = data_root() / "generator" / "situations"
    found: list[Any] = []
    for name, versions in sorted(versions_in(folder).items()):
        if version not in versions:
            continue
        entry = versions[version]
        try:
            found.extend(shape(**read_yaml(entry)).situations)
        except ValueError as exc:
            raise ScenarioError(
                f"generator/situations/{entry.name} ({name}) does not validate:\n{exc}"
            ) from exc
    ids = [s.id for s in found]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise ScenarioError(f"duplicate situation ids: {sorted(duplicates)}")
    for situation in found:
        _check_vocabulary(situation, version)
        if situation.looks_like is not None and situation.looks_like not in ids:
            raise ScenarioError(
                f"situation {situation.id}: looks_like {situation.looks_like!r} is not a situation"
            )
    return tuple(found)


@cache
def load_situations() -> tuple[Situation, ...]:
    """Generator v1's situations."""
    return _load(1, SituationFile)


@cache
def load_situations_v2() -> tuple[SituationV2, ...]:
    """Generator v2's situations."""
    return _load(2, SituationFileV2)


@cache
def load_entities() -> EntityPools:
    folder = data_root() / "generator"
    entry = versions_in(folder)["entities"]
    return EntityPools(**read_yaml(entry[1]))


@cache
def load_entities_v2() -> EntitiesV2:
    entry = versions_in(data_root() / "generator")["entities"][2]
    try:
        return EntitiesV2(**read_yaml(entry))
    except ValueError as exc:
        raise ScenarioError(f"generator/{entry.name} does not validate:\n{exc}") from exc
