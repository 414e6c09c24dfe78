"""Generator v2's mail: a sender who is who they say, slots that agree with each other, and a
body composed from one family's parts inside the sender role's own framing.

A body is a greeting, one telling of the matter with one detail, one ask, one closing and one
signature, each drawn from hand-written parts whose inline ``[a|b]`` alternatives are chosen
here. Threads hold a real earlier exchange (the customer's first message and our
acknowledgement), shown once; forwards come from a colleague at the customer's company and name
the original writer; only customers carry a tier, an account and follow-ups.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from typing import Any

from inbox_triage.domain import Customer, CustomerReply, ThreadMessage
from inbox_triage.scenarios.generator.config import SPLIT_INDEX
from inbox_triage.scenarios.generator.data import load_entities_v2
from inbox_triage.scenarios.generator.schema_v2 import (
    ALTERNATIVES,
    EntitiesV2,
    FamilyV2,
    Org,
    SituationV2,
)
from inbox_triage.scenarios.generator.texts import MONTHS, WEEKDAYS, typos

# Which pool of organisations each role writes from (colleagues write from our own domain).
_ORG_POOLS = {
    "customer": "companies",
    "prospect": "prospects",
    "vendor": "vendors",
    "press": "press",
    "lawyer": "law_firms",
    "public_body": "public_bodies",
    "scammer": "scam_senders",
    "notice": "notice_senders",
}
_NOTICE_LOCALS = ("no-reply", "notifications", "alerts", "noreply", "system")
_SCAM_LOCALS = ("accounts", "billing", "it-helpdesk", "security", "payments", "claims")


@cache
def pool_v2(split: str) -> EntitiesV2:
    """The split's share of every list (every third item); products, plans and seats are the
    same in every split."""
    every = load_entities_v2()
    k = SPLIT_INDEX[split]
    update: dict[str, Any] = {}
    for name, value in every:
        if name in ("products", "plans", "seats", "our_company", "our_domain"):
            continue
        if isinstance(value, dict):
            update[name] = {role: tuple(lines[k::3]) for role, lines in value.items()}
        elif isinstance(value, tuple):
            update[name] = value[k::3]
    return every.model_copy(update=update)


def families_v2(situation: SituationV2, split: str) -> tuple[FamilyV2, ...]:
    if split == "train":
        return situation.families[2:]
    return (situation.families[SPLIT_INDEX[split]],)


def expand(rng: random.Random, text: str) -> str:
    """Chooses one of each ``[a|b|c]``."""
    return ALTERNATIVES.sub(lambda m: rng.choice(m.group(1).split("|")), text)


def fill_v2(rng: random.Random, text: str, slots: dict[str, str]) -> str:
    return expand(rng, text).format_map(slots)


def _other(rng: random.Random, months: tuple[str, ...], date: str) -> str:
    """A month other than the one ``date`` names."""
    return rng.choice([m for m in months if not date.startswith(m)])


def _lookalike(rng: random.Random, domain: str) -> str:
    name, _, tld = domain.partition(".")
    spoof = rng.choice(
        (
            name.replace("o", "0", 1) if "o" in name else name + "s",
            name.replace("l", "1", 1) if "l" in name else name + "-group",
            name.replace("m", "rn", 1) if "m" in name else name + "-online",
            name + "-secure",
            name + "-billing",
            name + "-invoices",
        )
    )
    return f"{spoof}.{rng.choice(('com', 'net', 'co', 'info', tld or 'com'))}"


@dataclass(frozen=True, slots=True)
class Person:
    first: str
    last: str
    title: str
    org: Org
    email: str

    @property
    def full(self) -> str:
        return f"{self.first} {self.last}"


def _person(
    rng: random.Random,
    pool: EntitiesV2,
    role: str,
    org: Org,
    local: str = "",
    titles: tuple[str, ...] = (),
) -> Person:
    first, last = rng.choice(pool.first_names), rng.choice(pool.last_names)
    local = local or f"{first}.{last}".lower()
    title = rng.choice(titles or pool.titles.get(role) or ("",))  # type: ignore[call-overload]
    return Person(first, last, title, org, f"{local}@{org.domain}")


def _sender(rng: random.Random, pool: EntitiesV2, situation: SituationV2) -> Person:
    """The writer, from their role's organisations (colleagues from our own domain). Systems
    and scams write from role addresses; a scam signs with the titles of whoever it imitates;
    an auto-reply from a customer's mailbox (a notice written from a company) is a person's."""
    role = situation.sender
    framing = _framing(situation)
    if role == "colleague":
        return _person(rng, pool, role, Org(name=pool.our_company, domain=pool.our_domain))
    source = situation.writes_from or _ORG_POOLS[role]
    org = rng.choice(getattr(pool, source))
    titles = pool.pool_titles.get(source, ())
    if role == "notice" and situation.writes_from is None:
        return _person(rng, pool, role, org, rng.choice(_NOTICE_LOCALS))
    if role == "scammer" and situation.imitates is not None:
        return _person(rng, pool, framing, org, rng.choice(_SCAM_LOCALS))
    return _person(rng, pool, framing if role == "notice" else role, org, titles=titles)


def slots_v2(
    rng: random.Random, pool: EntitiesV2, situation: SituationV2, tier: str
) -> tuple[dict[str, str], Person]:
    """Every slot, filled so that the pieces agree: the product is of a kind the situation
    allows and the feature is that product's, the plan and seats fit the tier, a fake invoice's
    lookalike domain imitates the vendor it claims to be."""
    writer = _sender(rng, pool, situation)
    vendor = rng.choice(pool.vendors)
    imitated = vendor.domain if situation.imitates == "vendor" else pool.our_domain
    lookalike = _lookalike(rng, imitated)
    if situation.sender == "scammer" and situation.imitates is not None:
        writer = Person(
            writer.first,
            writer.last,
            writer.title,
            Org(
                name=vendor.name if situation.imitates == "vendor" else pool.our_company,
                domain=lookalike,
            ),
            f"{writer.email.split('@')[0]}@{lookalike}",
        )
    kinds = situation.products if situation.sender == "customer" else ("web_app", "service")
    product = rng.choice([p for p in pool.products if p.kind in kinds])
    colleague_first = rng.choice([n for n in pool.first_names if n != writer.first])
    amount = rng.randrange(19, 4999)
    slots = {
        "first_name": writer.first,
        "last_name": writer.last,
        "full_name": writer.full,
        "title": writer.title,
        "company": writer.org.name,
        "email": writer.email,
        "sender_domain": writer.org.domain,
        "colleague": f"{colleague_first} {rng.choice(pool.last_names)}",
        "colleague_first": colleague_first,
        "our_company": pool.our_company,
        "our_domain": pool.our_domain,
        "product": product.name,
        "feature": rng.choice(product.features),
        "plan": rng.choice(pool.plans[tier]),
        "seats": str(rng.choice(pool.seats[tier])),
        "amount": f"${amount:,}.{rng.randrange(0, 100):02d}",
        "amount2": f"${rng.randrange(19, 4999):,}.00",
        "order_id": f"ORD-{rng.randrange(10000, 99999)}",
        "invoice_id": f"INV-{rng.choice((2025, 2026))}-{rng.randrange(1000, 9999)}",
        "account_id": f"ACC-{rng.randrange(10000, 99999)}",
        "tracking_id": f"1Z{rng.randrange(10**9, 10**10)}",
        "date": f"{rng.choice(MONTHS)} {rng.randrange(1, 29)}",
        "weekday": rng.choice(WEEKDAYS),
        "morning_time": f"{rng.randrange(7, 12):02d}:{rng.choice((0, 10, 15, 20, 30, 45)):02d}",
        "afternoon_time": f"{rng.randrange(12, 18):02d}:{rng.choice((5, 15, 20, 30, 40, 50)):02d}",
        "city": "",
        "country": "",
        "card_last4": f"{rng.randrange(0, 10000):04d}",
        "case_number": f"{rng.randrange(20, 27)}-CV-{rng.randrange(1000, 99999):05d}",
        "days": str(rng.choice((3, 5, 7, 10))),
        "vendor": vendor.name,
        "vendor_domain": vendor.domain,
        "lookalike_domain": lookalike,
    }
    slots["city"], slots["country"] = rng.choice(pool.cities)
    return slots, writer


def _frame(
    rng: random.Random,
    pool: EntitiesV2,
    role: str,
    paragraphs: list[str],
    slots: dict[str, str],
    noisy: bool = True,
    greet: bool = True,
) -> str:
    """The role's greeting, the paragraphs, then one closing and one signature (and now and
    then a line of the role's noise: a phone footer, a disclaimer)."""
    greeting = fill_v2(rng, rng.choice(pool.greetings[role]), slots).strip() if greet else ""
    closing = fill_v2(rng, rng.choice(pool.closings[role]), slots).strip()
    signature = fill_v2(rng, rng.choice(pool.signatures[role]), slots).strip()
    if signature.startswith("--"):  # a signature block stands in for the closing line
        closing = ""
    end = "\n".join(p for p in (closing, signature) if p)
    noise = ""
    if noisy and pool.noise.get(role) and rng.random() < 0.2:
        noise = fill_v2(rng, rng.choice(pool.noise[role]), slots).strip()  # type: ignore[arg-type]
    return "\n\n".join(p for p in (greeting, *paragraphs, end, noise) if p)


def _personal(situation: SituationV2) -> bool:
    """Whether a person writes (a system or a scam's role address does not)."""
    if situation.imitates is not None:
        return False
    return situation.sender != "notice" or situation.writes_from is not None


def _framing(situation: SituationV2) -> str:
    """Whose greeting, closing and signature a mail wears: a scam imitating a vendor or us
    dresses as that vendor or as a colleague; an auto-reply from a person's mailbox is signed
    as that customer (and greets nobody)."""
    if situation.imitates == "vendor":
        return "vendor"
    if situation.imitates == "us":
        return "colleague"
    if situation.sender == "notice" and situation.writes_from is not None:
        return "customer"
    return situation.sender


@dataclass(slots=True)
class Composed:
    """One email's visible parts, before ids and times are settled."""

    subject: str
    body: str
    sender: str
    customer: Customer
    thread: tuple[ThreadMessage, ...]
    customer_reply: CustomerReply
    follow_up: str | None
    slots: dict[str, str]
    family: int  # 0 test, 1 validation, 2+ train


def compose(
    rng: random.Random,
    situation: SituationV2,
    split: str,
    texture_rate: float,
    adversarial_rate: float,
) -> Composed:
    pool = pool_v2(split)
    role = situation.sender
    tier = rng.choice(situation.tiers) if role == "customer" else "standard"
    slots, writer = slots_v2(rng, pool, situation, tier)
    choices = families_v2(situation, split)
    index = rng.randrange(len(choices))
    family = choices[index]
    tellings = list(family.tellings)
    rng.shuffle(tellings)
    subject = fill_v2(rng, rng.choice(family.subjects), slots)
    matter = fill_v2(rng, tellings[0], slots).strip()
    # One detail or two: each fits after any telling of the family.
    picked = rng.sample(family.details, 2 if rng.random() < 0.5 else 1)
    detail = " ".join(fill_v2(rng, d, slots).strip() for d in picked)
    paragraphs = [f"{matter} {detail}" if rng.random() < 0.6 else f"{matter}\n\n{detail}"]
    if family.asks:
        paragraphs.append(fill_v2(rng, rng.choice(family.asks), slots).strip())
    thread: list[ThreadMessage] = []
    customer = role == "customer"
    if customer and rng.random() < texture_rate / 2:
        # A real earlier exchange: their first message, then our acknowledgement.
        earlier = [fill_v2(rng, tellings[1], slots).strip()]
        first = _frame(rng, pool, role, earlier, slots, noisy=False)
        minutes = rng.randrange(900, 5000)
        thread = [
            ThreadMessage(sender=writer.email, body=first, minutes_ago=minutes),
            ThreadMessage(
                sender=f"support@{pool.our_domain}",
                body=fill_v2(rng, rng.choice(pool.support_acks), slots),
                minutes_ago=minutes - rng.randrange(2, 30),
            ),
        ]
        # The earlier note dates the first message with a date of its own, not the matter's.
        before = {
            **slots,
            "date": f"{_other(rng, MONTHS, slots['date'])} {rng.randrange(1, 29)}",
            "weekday": rng.choice([d for d in WEEKDAYS if d != slots["weekday"]]),
        }
        paragraphs.insert(0, fill_v2(rng, rng.choice(pool.earlier_notes), before))
        subject = "Re: " + subject
    if customer and rng.random() < adversarial_rate:
        paragraphs.append(rng.choice(pool.injections))
    if rng.random() < texture_rate:
        paragraphs = [typos(rng, p, rng.randrange(1, 3)) for p in paragraphs]
    if rng.random() < texture_rate / 6:
        subject = subject.upper()
    body = _frame(rng, pool, _framing(situation), paragraphs, slots, greet=role != "notice")
    sender = writer.email
    if customer and not thread and rng.random() < texture_rate / 3:
        sender, body = _forward(rng, pool, writer, subject, body, slots)
        subject = "Fwd: " + subject
    if customer and situation.handling.needs_info:
        answer = fill_v2(rng, rng.choice(family.answers), slots)
    else:
        answer = rng.choice(pool.unneeded_answers)
    follow_up = None
    if customer and situation.follow_ups:
        follow_up = fill_v2(rng, rng.choice(situation.follow_ups), slots)
    return Composed(
        subject=subject,
        body=body,
        sender=sender,
        customer=Customer(
            # Systems and role addresses (no-reply@, billing@) are named for their organisation.
            name=writer.full if _personal(situation) else writer.org.name,
            email=writer.email,
            tier=tier,
            account_id=slots["account_id"] if customer else None,
            company=writer.org.name,
            role=role,
        ),
        thread=tuple(thread),
        customer_reply=CustomerReply(body=answer, delay_minutes=rng.choice((15, 20, 25, 30))),
        follow_up=follow_up,
        slots=slots,
        family=SPLIT_INDEX[split] if split != "train" else 2 + index,
    )


def _forward(
    rng: random.Random,
    pool: EntitiesV2,
    writer: Person,
    subject: str,
    body: str,
    slots: dict[str, str],
) -> tuple[str, str]:
    """A colleague at the customer's company forwards the customer's message: the mail comes
    from the colleague's address, and the forwarded header names the customer."""
    colleague = _person(rng, pool, "customer", writer.org)
    while colleague.first == writer.first:
        colleague = _person(rng, pool, "customer", writer.org)
    note = fill_v2(rng, rng.choice(pool.forward_notes), slots).strip()
    forwarded = (
        f"{note}\n\n{colleague.first}\n\n---------- Forwarded message ---------\n"
        f"From: {writer.full} <{writer.email}>\nDate: {slots['weekday']}, {slots['date']}\n"
        f"Subject: {subject}\n\n{body}"
    )
    return colleague.email, forwarded


def duplicate_body(rng: random.Random, split: str, slots: dict[str, str]) -> str:
    """The same customer writing again about the same matter (their own greeting and name)."""
    pool = pool_v2(split)
    return _frame(rng, pool, "customer", [rng.choice(pool.follow_ups)], slots)
