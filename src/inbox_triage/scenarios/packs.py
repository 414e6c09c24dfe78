"""Your own tickets: import labelled history (CSV or JSONL) with an org profile into a pack,
and play a pack in any mode.

A pack is a folder holding ``pack.yaml``: the org profile and the tickets with their truth. It
is played as ``triage/pack:PATH``, ``ticket/pack:PATH`` or ``inbox/pack:PATH``; the seed picks
which tickets (and in what order) an episode gets.
"""

from __future__ import annotations

import csv
import json
import os
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from inbox_triage.domain import (
    Customer,
    Mode,
    OrgProfile,
    ReplySpec,
    Scenario,
    Ticket,
    Truth,
)
from inbox_triage.scenarios.generator.schedule import settings_for
from inbox_triage.scenarios.loader import ScenarioError, load_policy

PACK_FILE = "pack.yaml"
PACK_VERSION = 1
# Packs play on the policy they were published with (v4); v5 came with generator v4.
PACK_POLICY_VERSION = 4
DEFAULT_SIZES = {"triage": 10, "ticket": 1, "inbox": 5}


def _split_list(value: Any, separators: str = ",;|") -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, list | tuple):
        return tuple(str(v).strip() for v in value if str(v).strip())
    text = str(value)
    for sep in separators[1:]:
        text = text.replace(sep, separators[0])
    return tuple(part.strip() for part in text.split(separators[0]) if part.strip())


def _groups(value: Any) -> tuple[tuple[str, ...], ...] | None:
    """Fact groups: a list of lists, or text with groups split by ';' and phrasings by '|'."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, list):
        return tuple(_split_list(group, "|") for group in value if _split_list(group, "|"))
    return tuple(_split_list(group, "|") for group in str(value).split(";") if group.strip())


class ImportRow(BaseModel):
    """One labelled historical ticket, as a CSV row or a JSON line."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    id: str | None = None
    subject: str = Field(min_length=1)
    body: str = Field(min_length=1)
    priority: str = Field(min_length=1)
    category: str | None = None
    queue: str = Field(min_length=1)
    tags: tuple[str, ...] = ()
    customer_name: str = "Customer"
    customer_email: str = "customer@example.com"
    customer_tier: str = "standard"
    reply_facts: tuple[tuple[str, ...], ...] | None = None
    no_reply: bool = False
    summary_facts: tuple[tuple[str, ...], ...] = ()
    needs_info: bool = False
    info_keywords: tuple[str, ...] = ()
    sentiment: str | None = None
    template: str | None = None
    escalate_to: str | None = None
    resolution: str | None = None
    flag_review: bool = False

    @field_validator("tags", "info_keywords", mode="before")
    @classmethod
    def _lists(cls, value: Any) -> tuple[str, ...]:
        return _split_list(value)

    @field_validator("reply_facts", "summary_facts", mode="before")
    @classmethod
    def _fact_groups(cls, value: Any) -> Any:
        groups = _groups(value)
        return () if groups is None else groups

    @field_validator(
        "category", "sentiment", "template", "escalate_to", "resolution", "id", mode="before"
    )
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("needs_info", "flag_review", "no_reply", mode="before")
    @classmethod
    def _boolean(cls, value: Any) -> Any:
        if isinstance(value, str):
            lowered = value.strip().lower()
            if lowered in ("", "0", "false", "no", "n"):
                return False
            if lowered in ("1", "true", "yes", "y"):
                return True
        return value


def _read_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, fields) per data row."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            rows = []
            for record in reader:
                extra = record.pop(None, None)  # type: ignore[call-overload]
                if extra:
                    raise ScenarioError(
                        f"{path.name} line {reader.line_num}: more values than columns"
                    )
                rows.append((reader.line_num, {k: v for k, v in record.items() if v != ""}))
            return rows
    if suffix in (".jsonl", ".ndjson"):
        rows = []
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ScenarioError(
                    f"{path.name} line {number}: not valid JSON ({exc.msg})"
                ) from None
            if not isinstance(value, dict):
                raise ScenarioError(f"{path.name} line {number}: expected a JSON object")
            rows.append((number, value))
        return rows
    raise ScenarioError(f"{path.name}: expected a .csv or .jsonl file")


def _truth(row: ImportRow, org: OrgProfile) -> Truth:
    reply = None if row.no_reply else ReplySpec(required_facts=row.reply_facts or ())
    has_tags = bool(org.tags)
    return Truth(
        priority=row.priority,
        category=row.category,
        queue=row.queue,
        tags=row.tags if has_tags else (),
        sentiment=row.sentiment if org.sentiments else None,
        needs_info=row.needs_info,
        info_keywords=row.info_keywords,
        reply=reply,
        template=row.template,
        summary_facts=row.summary_facts,
        flag_review=row.flag_review,
        escalate_to=row.escalate_to,
        resolution=row.resolution,
    )


def _check_row(row: ImportRow, org: OrgProfile) -> None:
    checks: list[tuple[str, str | None, tuple[str, ...]]] = [
        ("priority", row.priority, org.priorities),
        ("queue", row.queue, org.queues),
        ("customer_tier", row.customer_tier, org.tiers),
    ]
    optional = [
        ("category", row.category, org.categories),
        ("sentiment", row.sentiment, org.sentiments),
        ("template", row.template, tuple(org.templates)),
        ("escalate_to", row.escalate_to, org.escalation_targets),
        ("resolution", row.resolution, org.resolution_codes),
    ]
    if org.categories and row.category is None:  # triage mode decides a category for each
        raise ValueError(f"field 'category': is required; one of {list(org.categories)}")
    checks += [(f, v, allowed) for f, v, allowed in optional if v is not None]
    checks += [("tags", tag, org.tags) for tag in row.tags]
    for field, value, allowed in checks:
        if value not in allowed:
            raise ValueError(f"field {field!r}: {value!r} is not one of {list(allowed)}")
    if row.escalate_to and row.resolution:
        raise ValueError("fields 'escalate_to' and 'resolution': give at most one")


def load_org_file(path: Path) -> OrgProfile:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ScenarioError(f"{path}: cannot read the org profile ({exc})") from None
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: expected a mapping with the org's vocabularies")
    data.pop("version", None)
    try:
        return OrgProfile(**data)
    except ValidationError as exc:
        raise ScenarioError(f"{path}: the org profile does not validate:\n{exc}") from None


def import_tickets(source: Path, org_path: Path, out: Path, name: str | None = None) -> Path:
    """Validates every row, then writes the pack; on any error nothing is written."""
    org = load_org_file(org_path)
    if not source.exists():
        raise ScenarioError(f"{source}: no such file")
    tickets: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index, (line, fields) in enumerate(_read_rows(source), start=1):
        where = f"{source.name} row {index} (line {line})"
        try:
            row = ImportRow(**fields)
            _check_row(row, org)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "row"
            raise ScenarioError(f"{where}: field {field!r}: {first['msg']}") from None
        except ValueError as exc:
            raise ScenarioError(f"{where}: {exc}") from None
        ticket_id = row.id or f"R{index:04d}"
        if ticket_id in seen:
            raise ScenarioError(f"{where}: field 'id': {ticket_id!r} is used twice")
        seen.add(ticket_id)
        ticket = Ticket(
            id=ticket_id,
            sender=row.customer_email,
            customer=Customer(
                name=row.customer_name, email=row.customer_email, tier=row.customer_tier
            ),
            subject=row.subject,
            body=row.body,
            truth=_truth(row, org),
        )
        tickets.append(ticket.model_dump(mode="json", exclude_defaults=True))
    if not tickets:
        raise ScenarioError(f"{source.name}: no rows to import")
    pack = {
        "name": name or out.name,
        "version": PACK_VERSION,
        "org": org.model_dump(mode="json"),
        "tickets": tickets,
    }
    _write_atomically(out, yaml.safe_dump(pack, sort_keys=False, allow_unicode=True))
    return out / PACK_FILE


def _write_atomically(out: Path, text: str) -> None:
    """Writes the pack folder under a temporary name and renames it into place."""
    if out.exists() and not (out / PACK_FILE).exists():
        raise ScenarioError(f"{out}: exists and is not a pack; choose another --out")
    parent = out.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".pack-", dir=parent))
    try:
        (staging / PACK_FILE).write_text(text, encoding="utf-8")
        staging.chmod(0o755)  # mkdtemp makes it private; a pack is for sharing
        if out.exists():
            shutil.rmtree(out)
        os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


class Pack(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    version: int
    org: OrgProfile
    tickets: tuple[Ticket, ...] = Field(min_length=1)


def load_pack(path: str | Path) -> Pack:
    folder = Path(path)
    file = folder / PACK_FILE if folder.is_dir() else folder
    if not file.exists():
        raise ScenarioError(f"{path}: no {PACK_FILE} here (make one with 'inbox-triage import')")
    try:
        return Pack(**yaml.safe_load(file.read_text(encoding="utf-8")))
    except (ValidationError, yaml.YAMLError, TypeError, UnicodeDecodeError, OSError) as exc:
        raise ScenarioError(f"{file}: not a valid pack:\n{exc}") from None


def pack_scenario(mode: Mode, path: str, seed: int = 0, size: int | None = None) -> Scenario:
    """An episode over the pack at ``path``: ``size`` tickets drawn by ``seed``."""
    return scenario_from_pack(load_pack(path), mode, path, seed, size)


def scenario_from_pack(
    pack: Pack, mode: Mode, label: str, seed: int = 0, size: int | None = None
) -> Scenario:
    """An episode over a loaded pack: ``size`` tickets drawn by ``seed`` (one in ticket mode).
    ``label`` names it in the task id: the path in-process, the pack's name on a server."""
    size = min(DEFAULT_SIZES[mode], len(pack.tickets)) if size is None else size
    if mode == "ticket":
        size = 1
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= len(pack.tickets):
        raise ScenarioError(
            f"size must be a whole number from 1 to {len(pack.tickets)} (the pack's tickets), "
            f"not {size!r}"
        )
    rng = random.Random(f"pack|{pack.name}|{mode}|{seed}")
    chosen = rng.sample(pack.tickets, min(size, len(pack.tickets)))
    tickets = tuple(_for_mode(mode, t) for t in chosen)
    return Scenario(
        id=f"{mode}/pack:{label}",
        mode=mode,
        title=f"{pack.name}: {len(tickets)} ticket(s), seed {seed}",
        difficulty="pack",
        objective=f"Handle these tickets from {pack.org.name} following the policy and the "
        "routing guide.",
        org=pack.org,
        policy=load_policy("support_policy", PACK_POLICY_VERSION),
        settings=settings_for(mode, tickets, pack.org.unlimited_queues),
        tickets=tickets,
        seed=seed,
    )


def _for_mode(mode: Mode, ticket: Ticket) -> Ticket:
    """One labelled truth serves every mode: ticket mode closes, triage ignores inbox fields."""
    truth = ticket.truth
    if mode == "ticket":
        truth = truth.model_copy(
            update={"resolution": "close", "escalate_to": None, "template": None, "sentiment": None}
        )
    elif mode == "triage":
        truth = truth.model_copy(
            update={
                "resolution": None,
                "escalate_to": None,
                "template": None,
                "sentiment": None,
                "tags": (),
            }
        )
    else:
        truth = truth.model_copy(update={"tags": (), "flag_review": False})
    return ticket.model_copy(update={"truth": truth})
