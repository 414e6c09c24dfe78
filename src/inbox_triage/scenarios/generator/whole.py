"""Generator data v3: emails written whole, each by one writer as one sender (issue 32).

Composing mail from parts (``compose.py``) made mismatches inevitable: a warehouse supervisor at
a mortgage firm, a footer that fits nothing, one stock sentence under many senders. Here each
email was written as a person on a persona card (organisation and its kind, role,
relationship, mood, what happened, what they want), with its own subject, earlier message,
answer to an information request and chase; a support lead then wrote its summary, reply and
request. An episode varies only identifiers: the sender's name from the split's pool, their
organisation among three names of the same kind the writer gave, ids, amounts and dates, and
outside references in the format the writer declared (a police force writes police numbers).

Files: ``data/generator/mail/<situation>.yaml``; each email names its split, so a writer's
email is in one split only.
"""

from __future__ import annotations

import random
import re
import string
import unicodedata
from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from inbox_triage.domain import Customer, CustomerReply, ThreadMessage, Truth
from inbox_triage.domain.models import Reference
from inbox_triage.scenarios.generator.compose import Composed
from inbox_triage.scenarios.generator.config import SPLIT_INDEX, SPLITS
from inbox_triage.scenarios.generator.people import (
    Slots,
    _lookalike,
    identifier_slots,
    pool_v2,
)
from inbox_triage.scenarios.generator.schema_v2 import SituationV2
from inbox_triage.scenarios.generator.senders import (
    country_of,
    local_values,
    sender_name,
    top_level,
    where_from,
)
from inbox_triage.scenarios.generator.writing import AGENTS
from inbox_triage.scenarios.loader import ScenarioError, data_root, read_yaml

Split = Literal["train", "validation", "test"]
Address = Literal["work", "personal", "system", "lookalike"]
# What a writer may leave to the episode: who, which organisation, ids, sums and dates.
WHOLE_SLOTS = frozenset(
    """first_name last_name full_name company email colleague colleague_first our_company
    our_domain account_id invoice_id order_id tracking_id card_last4 amount amount2 date weekday
    morning_time afternoon_time plan seats days ref ref2 vendor lookalike_domain agent""".split()
)
# The mailboxes private people write from.
# The mailbox an automated message comes from, by what it is (readers: newsletters from alerts@).
SYSTEM_LOCALS = {
    "newsletter": ("news", "newsletter", "updates", "hello"),
    "monitoring_notice": ("alerts", "monitoring", "no-reply"),
    "notice": ("no-reply", "notifications", "noreply"),
}
# Senders who write from their organisation's own domain even where the writer named none.
OFFICIAL = frozenset({"public_body", "vendor", "lawyer", "press"})

# Who our own mail comes from: a phish imitating our IT, a notice from our own systems.
SUPPLIER_BOXES = ("accounts", "billing", "invoices", "finance")
IT_DESKS = ("IT Service Desk", "IT Support", "Mail Administration", "IT Helpdesk")
SYSTEMS = ("Monitoring", "Operations", "Platform Alerts", "Service Desk")
PERSONAL_DOMAINS = ("gmail.com", "outlook.com", "yahoo.com", "icloud.com", "proton.me", "gmx.net")
_LEGAL_FORMS = re.compile(r"\b(ltd|llp|llc|inc|plc|gmbh|co|limited|the)\b\.?", re.I)
_FIELD = string.Formatter()


def slots_of(text: str) -> frozenset[str]:
    return frozenset(name for _, name, _, _ in _FIELD.parse(text) if name)


class Persona(BaseModel):
    """Who wrote: the card the writer wrote as (kept for readers and for coherence checks)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    org_kind: str
    org_names: tuple[str, ...] = Field(description="three names of the same kind, or none")
    address: Address
    role: str
    relationship: str
    tier: str | None = None
    country: str | None = Field(
        None, description="where the sender is: their names, currency and date style (round 4 on)"
    )
    mood: str
    happened: str
    wants: str
    refs: dict[str, str] = Field(
        default_factory=dict, description="formats of {ref}/{ref2}: # a digit, @ a capital"
    )


class WrittenReference(BaseModel):
    """What a support lead wrote for this email: the oracle's texts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    summary: str
    reply: str | None = None
    request: str | None = None


class WrittenEmail(BaseModel):
    """One email, written whole."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    split: Split
    persona: Persona
    subject: str
    body: str
    earlier: str | None = None
    answer: str | None = None
    follow_up: str | None = None
    needs_info: bool | None = Field(
        None,
        description="False where this email already holds the evidence its situation usually "
        "lacks: a blind reader saw no need to ask (the truth corrected for this email, R1)",
    )
    flag_review: bool | None = Field(
        None,
        description="True where this email also raises what the policy flags (a threat to leave "
        "under V4, say) though its situation usually does not: the truth corrected for it",
    )
    reference: WrittenReference

    def needs_info_for(self, situation: SituationV2) -> bool:
        """Whether this email lacks evidence: its situation's answer, unless a reader said not."""
        return situation.handling.needs_info if self.needs_info is None else self.needs_info

    def corrected(self, truth: Truth, situation: SituationV2, mode: str) -> Truth:
        """The situation's truth with this email's corrections (a review flag only in triage)."""
        update: dict[str, bool] = {}
        if self.needs_info is not None:
            update["needs_info"] = self.needs_info_for(situation)
        if self.flag_review and mode == "triage":
            update["flag_review"] = True
        return truth.model_copy(update=update) if update else truth

    def texts(self) -> dict[str, str]:
        ref = self.reference
        named = {
            "subject": self.subject,
            "body": self.body,
            "earlier": self.earlier,
            "answer": self.answer,
            "follow_up": self.follow_up,
            "summary": ref.summary,
            "reply": ref.reply,
            "request": ref.request,
        }
        return {k: v for k, v in named.items() if v}

    @model_validator(mode="after")
    def _slots(self) -> WrittenEmail:
        if self.needs_info is True:
            raise ValueError(
                "needs_info may only say False (the email holds what is usually asked)"
            )
        if self.flag_review is False:
            raise ValueError(
                "flag_review may only say True (the email raises what the policy flags)"
            )
        for where, text in self.texts().items():
            used = slots_of(text)
            unknown = used - WHOLE_SLOTS
            if unknown:
                raise ValueError(f"{where}: unknown slots {sorted(unknown)}")
            undeclared = {r for r in ("ref", "ref2") if r in used} - set(self.persona.refs)
            if undeclared:
                raise ValueError(f"{where}: no format for {sorted(undeclared)} in persona.refs")
            if "company" in used and not self.persona.org_names:
                raise ValueError(f"{where}: {{company}} with no org_names")
        return self


class MailFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    situation: str
    emails: tuple[WrittenEmail, ...] = Field(min_length=1)


@cache
def load_mail() -> dict[str, tuple[WrittenEmail, ...]]:
    """Every situation's whole emails (``data/generator/mail/*.yaml``)."""
    found: dict[str, tuple[WrittenEmail, ...]] = {}
    for path in sorted((data_root() / "generator" / "mail").glob("*.yaml")):
        try:
            parsed = MailFile.model_validate(read_yaml(path))
        except ValueError as exc:
            raise ScenarioError(f"generator/mail/{path.name} does not validate:\n{exc}") from exc
        if parsed.situation in found:
            raise ScenarioError(f"situation {parsed.situation!r} has two mail files")
        found[parsed.situation] = parsed.emails
    return found


def emails_for(situation: SituationV2, split: str) -> tuple[WrittenEmail, ...]:
    """The situation's emails of one split."""
    return tuple(e for e in load_mail().get(situation.id, ()) if e.split == split)


def has_mail(situation: SituationV2) -> bool:
    """Whether every split has an email of this situation."""
    return all(emails_for(situation, split) for split in SPLITS)


def _signed_by_person(email: WrittenEmail) -> bool:
    """Whether the writer signed the email with the sender's own name."""
    return bool(slots_of(email.body) & {"first_name", "last_name", "full_name"})


def _domain(name: str, tld: str) -> str:
    """An organisation's web domain from its name ("Riverside Vets Ltd" -> riversidevets.com)."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    bare = _LEGAL_FORMS.sub("", ascii_name.replace("&", " and "))
    slug = re.sub(r"[^a-z0-9]", "", bare.lower())
    words = re.findall(r"[A-Za-z0-9]+", bare)
    if len(slug) > 24 and len(words) >= 3:  # a long name goes by its initials, as bodies do
        slug = "".join(w[0] for w in words if w.lower() not in ("and", "of", "for")).lower()
    return f"{slug or 'mail'}.{tld}"


def _reference_number(rng: random.Random, pattern: str) -> str:
    """A reference in the writer's format: ``#`` a digit, ``@`` a capital letter."""
    out = (
        str(rng.randrange(10)) if c == "#" else chr(65 + rng.randrange(26)) if c == "@" else c
        for c in pattern
    )
    return "".join(out)


def _fill(text: str | None, slots: dict[str, str]) -> str | None:
    if text is None:
        return None
    filled = text.format_map(slots).strip()
    company = dict.get(slots, "company", "")
    if company.endswith("."):  # "the manager of {company}." with "Shirokuma Co., Ltd."
        filled = filled.replace(f"{company}.", company)
    return filled


def compose_whole(
    rng: random.Random, situation: SituationV2, split: str, adversarial_rate: float
) -> tuple[Composed, WrittenEmail]:
    """One of the situation's written emails, with this episode's names, ids and dates."""
    choices = emails_for(situation, split)
    if not choices:
        raise ScenarioError(f"situation {situation.id!r} has no written mail in {split!r}")
    index = rng.randrange(len(choices))
    email = choices[index]
    persona = email.persona
    pool = pool_v2(split)
    role = situation.sender
    tier = persona.tier if role == "customer" and persona.tier else "standard"
    where = persona.country or where_from(persona)
    place = country_of(where)
    first, last = sender_name(rng, place[2] if place else ())
    tld = top_level(where, public=role == "public_body")
    if role == "colleague":
        org_name, domain = pool.our_company, pool.our_domain
    elif persona.org_names:
        org_name = rng.choice(persona.org_names)
        domain = _domain(org_name, tld)
    elif persona.address == "work" and role in OFFICIAL:  # a body the writer left unnamed
        kind = re.split(r"[(,]", persona.org_kind)[0]  # writes from its own domain, not gmail
        org_name, domain = "", _domain(kind, tld)
    else:
        org_name, domain = "", ""
    slots = identifier_slots(rng, pool, tier, first, imitates=situation.imitates)
    if role == "vendor" and not persona.org_names:  # a supplier of ours the writer left unnamed
        org_name = slots["vendor"]
        domain = slots["vendor_domain"] = _domain(org_name, tld)
    slots.update(
        first_name=first,
        last_name=last,
        full_name=f"{first} {last}",
        company=org_name,
        **{k: _reference_number(rng, v) for k, v in persona.refs.items()},
    )
    # who answers for us, greeted by the sender's answer (never the sender's own first name)
    slots["agent"] = rng.choice([a for a in AGENTS if a != first])
    slots.update(local_values(rng, " ".join(email.texts().values()), role, tier, place))
    if persona.org_names:  # {vendor} in a written email is the sender's own organisation
        slots.update(
            vendor=org_name, vendor_domain=domain, lookalike_domain=_lookalike(rng, domain)
        )
    elif role not in ("scammer", "vendor"):  # or, in our own systems' notices, us
        slots.update(
            vendor=pool.our_company,
            vendor_domain=pool.our_domain,
            lookalike_domain=_lookalike(rng, pool.our_domain),
        )
    local = unicodedata.normalize("NFKD", f"{first}.{last}".lower()).encode("ascii", "ignore")
    local = local.decode().replace(" ", "").replace("'", "")
    address_kind = persona.address
    if address_kind == "system" and _signed_by_person(email):
        address_kind = "work"  # an auto-reply or a note signed by a person comes from their mailbox
    display = f"{first} {last}"
    if address_kind == "lookalike":
        if org_name:  # a scam imitating a supplier writes from a lookalike of its domain
            domain = _lookalike(rng, _domain(org_name, "com"))
            display = org_name
            slots["lookalike_domain"] = domain  # the body links to the From line's lookalike
            local = rng.choice(SUPPLIER_BOXES)
        elif situation.imitates == "vendor":  # a supplier of ours, drawn for the episode
            domain = slots["lookalike_domain"]
            display = slots["vendor"]
            local = rng.choice(SUPPLIER_BOXES)
        else:  # imitating us: our own IT, from a lookalike of our domain
            domain = slots["lookalike_domain"]
            display = f"{pool.our_company} {rng.choice(IT_DESKS)}"
            local = rng.choice(("it-support", "helpdesk", "mailadmin", "security"))
    elif address_kind == "system":
        local = rng.choice(SYSTEM_LOCALS.get(situation.id, SYSTEM_LOCALS["notice"]))
        if not domain:  # an automated notice with no organisation named is our own system's
            org_name, domain = "", pool.our_domain
            display = f"{pool.our_company} {rng.choice(SYSTEMS)}"
        else:
            display = org_name
    elif address_kind == "personal" or not domain:
        domain = rng.choice(PERSONAL_DOMAINS)
    address = f"{local}@{domain}"
    slots["email"] = address
    body = _fill(email.body, slots) or ""
    thread: tuple[ThreadMessage, ...] = ()
    if email.earlier:
        minutes = rng.randrange(900, 5000)
        ack = rng.choice(pool.support_acks).format_map(
            slots.over(case_number=f"CS-{rng.randrange(100000, 999999)}")
        )
        thread = (
            ThreadMessage(
                sender=address, body=_fill(email.earlier, slots) or "", minutes_ago=minutes
            ),
            ThreadMessage(
                sender=f"support@{pool.our_domain}",
                body=ack,
                minutes_ago=minutes - rng.randrange(2, 30),
            ),
        )
    # Stock injections appended to written mail read as defects to every reader (all six in
    # the first blind review were rated 2, one of 25 in the second): a real inbox sees them rarely.
    if role == "customer" and rng.random() < adversarial_rate / 10:
        body = f"{body}\n\n{rng.choice(pool.injections)}"
    customer = role == "customer"
    needs_info = email.needs_info_for(situation)
    answer = (
        _fill(email.answer, slots)
        if customer and needs_info and email.answer
        else rng.choice(pool.unneeded_answers)
    )
    composed = Composed(
        subject=_fill(email.subject, slots) or "",
        body=body,
        sender=address,
        customer=Customer(
            name=display,
            email=address,
            tier=tier,
            account_id=slots["account_id"] if customer else None,
            company=org_name or None,
            role=role,
        ),
        thread=thread,
        customer_reply=CustomerReply(body=answer or "", delay_minutes=rng.choice((15, 20, 25, 30))),
        follow_up=_fill(email.follow_up, slots) if customer else None,
        slots=slots,
        family=SPLIT_INDEX[split] if split != "train" else 2 + index,
    )
    return composed, email


def written_reference(email: WrittenEmail, slots: Slots) -> Reference:
    """The support lead's texts for this email, with this episode's names, ids and agent."""
    filled = slots
    ref = email.reference
    return Reference(
        summaries=(ref.summary.format_map(filled).strip(),),
        replies=(ref.reply.format_map(filled).strip(),) if ref.reply else (),
        requests=(ref.request.format_map(filled).strip(),) if ref.request else (),
    )
