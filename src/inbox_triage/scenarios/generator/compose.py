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
from collections.abc import Callable
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
    Product,
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
# The role addresses a scam writes from, by whom it imitates (prize scams write as people).
_SCAM_LOCALS = {
    "vendor": ("accounts", "billing", "invoices", "payments", "accounts-receivable"),
    "us": ("it-helpdesk", "it-support", "security", "mailbox-admin", "hr-portal"),
}


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


@cache
def _pieces(text: str) -> tuple[str | tuple[str, ...], ...]:
    """A part cut once into plain text and ``[a|b|c]`` choices."""
    out: list[str | tuple[str, ...]] = []
    at = 0
    for match in ALTERNATIVES.finditer(text):
        out += [text[at : match.start()], tuple(match[1].split("|"))]
        at = match.end()
    out.append(text[at:])
    return tuple(p for p in out if p != "")


def expand(rng: random.Random, text: str) -> str:
    """Chooses one of each ``[a|b|c]``."""
    return "".join(p if isinstance(p, str) else rng.choice(p) for p in _pieces(text))


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
        return _person(rng, pool, framing, org, rng.choice(_SCAM_LOCALS[situation.imitates]))
    return _person(rng, pool, framing if role == "notice" else role, org, titles=titles)


@dataclass(frozen=True, slots=True)
class _Context:
    """What slot values are drawn from for one mail."""

    pool: EntitiesV2
    tier: str
    writer_first: str
    products: tuple[Product, ...]
    vendor: Org | None
    imitates: str | None


class Slots(dict[str, str]):
    """Slot values drawn when a text first needs them (a mail uses a handful of the thirty), so
    that the same texts always draw the same values in the same order; ``over`` gives a few
    values of its own and draws the rest into these."""

    def __init__(self, rng: random.Random, ctx: _Context | None, fixed: dict[str, str]) -> None:
        super().__init__(fixed)
        self._rng, self._ctx, self._parent = rng, ctx, None

    def __missing__(self, key: str) -> str:
        if self._parent is not None:
            return self._parent[key]
        maker = _MAKERS.get(key)
        if maker is None or self._ctx is None:
            raise KeyError(key)
        values = maker(self._rng, self._ctx)
        self.update(values)
        return values[key]

    def over(self, **values: str) -> Slots:
        out = Slots(self._rng, None, values)
        out._parent = self
        return out


def _vendor(r: random.Random, c: _Context) -> dict[str, str]:
    chosen = c.vendor or r.choice(c.pool.vendors)
    imitated = chosen.domain if c.imitates == "vendor" else c.pool.our_domain
    return {
        "vendor": chosen.name,
        "vendor_domain": chosen.domain,
        "lookalike_domain": _lookalike(r, imitated),
    }


def _product(r: random.Random, c: _Context) -> dict[str, str]:
    product = r.choice(c.products)
    return {"product": product.name, "feature": r.choice(product.features)}


def _colleague(r: random.Random, c: _Context) -> dict[str, str]:
    first = r.choice(c.pool.first_names)
    while first == c.writer_first:
        first = r.choice(c.pool.first_names)
    return {"colleague": f"{first} {r.choice(c.pool.last_names)}", "colleague_first": first}


def _city(r: random.Random, c: _Context) -> dict[str, str]:
    city, country = r.choice(c.pool.cities)
    return {"city": city, "country": country}


_MORNING = (0, 10, 15, 20, 30, 45)
_AFTER = (5, 15, 20, 30, 40, 50)
_ONE: dict[str, Callable[[random.Random, _Context], str]] = {
    "plan": lambda r, c: r.choice(c.pool.plans[c.tier]),
    "seats": lambda r, c: str(r.choice(c.pool.seats[c.tier])),
    "amount": lambda r, c: f"${r.randrange(19, 4999):,}.{r.randrange(0, 100):02d}",
    "amount2": lambda r, c: f"${r.randrange(19, 4999):,}.00",
    "order_id": lambda r, c: f"ORD-{r.randrange(10000, 99999)}",
    "invoice_id": lambda r, c: f"INV-{r.choice((2025, 2026))}-{r.randrange(1000, 9999)}",
    "account_id": lambda r, c: f"ACC-{r.randrange(10000, 99999)}",
    "tracking_id": lambda r, c: f"1Z{r.randrange(10**9, 10**10)}",
    "date": lambda r, c: f"{r.choice(MONTHS)} {r.randrange(1, 29)}",
    "weekday": lambda r, c: r.choice(WEEKDAYS),
    "morning_time": lambda r, c: f"{r.randrange(7, 12):02d}:{r.choice(_MORNING):02d}",
    "afternoon_time": lambda r, c: f"{r.randrange(12, 18):02d}:{r.choice(_AFTER):02d}",
    "card_last4": lambda r, c: f"{r.randrange(0, 10000):04d}",
    "case_number": lambda r, c: f"{r.randrange(20, 27)}-CV-{r.randrange(1000, 99999):05d}",
    "days": lambda r, c: str(r.choice((3, 5, 7, 10))),
}
_MAKERS: dict[str, Callable[[random.Random, _Context], dict[str, str]]] = {
    **{k: _vendor for k in ("vendor", "vendor_domain", "lookalike_domain")},
    **{k: _product for k in ("product", "feature")},
    **{k: _colleague for k in ("colleague", "colleague_first")},
    **{k: _city for k in ("city", "country")},
    **{k: (lambda r, c, k=k, f=f: {k: f(r, c)}) for k, f in _ONE.items()},
}


@cache
def _products_of(kinds: tuple[str, ...]) -> tuple[Product, ...]:
    """Our products of these kinds (the same in every split)."""
    return tuple(p for p in load_entities_v2().products if p.kind in kinds)


def slots_v2(
    rng: random.Random, pool: EntitiesV2, situation: SituationV2, tier: str
) -> tuple[Slots, Person]:
    """Every slot, filled so that the pieces agree: the product is of a kind the situation
    allows and the feature is that product's, the plan and seats fit the tier, a fake invoice's
    lookalike domain imitates the vendor it claims to be."""
    writer = _sender(rng, pool, situation)
    imitating = situation.sender == "scammer" and situation.imitates is not None
    kinds = situation.products if situation.sender == "customer" else ("web_app", "service")
    ctx = _Context(
        pool=pool,
        tier=tier,
        writer_first=writer.first,
        products=_products_of(kinds),
        vendor=rng.choice(pool.vendors) if imitating else None,
        imitates=situation.imitates,
    )
    fixed = {"our_company": pool.our_company, "our_domain": pool.our_domain}
    if imitating:
        spoof = _vendor(rng, ctx)
        fixed.update(spoof)
        name = spoof["vendor"] if situation.imitates == "vendor" else pool.our_company
        domain = spoof["lookalike_domain"]
        local = writer.email.split("@")[0]
        org = Org(name=name, domain=domain)
        writer = Person(writer.first, writer.last, writer.title, org, f"{local}@{domain}")
    fixed.update(
        first_name=writer.first,
        last_name=writer.last,
        full_name=writer.full,
        title=writer.title,
        company=writer.org.name,
        email=writer.email,
        sender_domain=writer.org.domain,
    )
    return Slots(rng, ctx, fixed), writer


@cache
def _first_time(lines: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(line for line in lines if "again" not in line.lower()) or lines


def _frame(
    rng: random.Random,
    pool: EntitiesV2,
    role: str,
    paragraphs: list[str],
    slots: dict[str, str],
    noisy: bool = True,
    greet: bool = True,
    again: bool = False,
) -> str:
    """The role's greeting, the paragraphs, then one closing and one signature (and now and
    then a line of the role's noise: a phone footer, a disclaimer)."""
    greetings, closings = pool.greetings[role], pool.closings[role]
    if not again:  # "Hello again," and "Thanks again," belong to a second message
        greetings, closings = _first_time(greetings), _first_time(closings)
    greeting = fill_v2(rng, rng.choice(greetings), slots).strip() if greet else ""
    closing = fill_v2(rng, rng.choice(closings), slots).strip()
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
    first, second = rng.sample(range(len(family.tellings)), 2)
    tellings = (family.tellings[first], family.tellings[second])
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
                # Our own case reference, not a court docket's.
                body=fill_v2(
                    rng,
                    rng.choice(pool.support_acks),
                    slots.over(case_number=f"CS-{rng.randrange(100000, 999999)}"),
                ),
                minutes_ago=minutes - rng.randrange(2, 30),
            ),
        ]
        # The earlier note dates the first message with a date of its own, not the matter's.
        before = slots.over(
            date=f"{_other(rng, MONTHS, slots['date'])} {rng.randrange(1, 29)}",
            weekday=rng.choice([d for d in WEEKDAYS if d != slots["weekday"]]),
        )
        paragraphs.insert(0, fill_v2(rng, rng.choice(pool.earlier_notes), before))
        subject = "Re: " + subject
    if customer and rng.random() < adversarial_rate:
        paragraphs.append(rng.choice(pool.injections))
    if rng.random() < texture_rate:
        paragraphs = [typos(rng, p, rng.randrange(1, 3)) for p in paragraphs]
    if rng.random() < texture_rate / 6:
        subject = subject.upper()
    body = _frame(
        rng,
        pool,
        _framing(situation),
        paragraphs,
        slots,
        greet=role != "notice",
        again=bool(thread),
    )
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
    return _frame(rng, pool, "customer", [rng.choice(pool.follow_ups)], slots, again=True)
