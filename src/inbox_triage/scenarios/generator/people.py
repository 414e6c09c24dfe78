"""Who writes generator v2's mail, and the slot values that agree with them: a sender of a
role from that role's organisations (whole domains), a product of a kind the situation allows
with that product's features, a plan and seats that fit the tier, a scam's lookalike of the
domain it imitates. Values are drawn only when a text first needs one.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from inbox_triage.scenarios.generator.config import SPLIT_INDEX
from inbox_triage.scenarios.generator.data import load_entities_v2
from inbox_triage.scenarios.generator.schema_v2 import EntitiesV2, Org, Product, SituationV2
from inbox_triage.scenarios.generator.texts import MONTHS, WEEKDAYS

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


def personal(situation: SituationV2) -> bool:
    """Whether a person writes (a system or a scam's role address does not)."""
    if situation.imitates is not None:
        return False
    return situation.sender != "notice" or situation.writes_from is not None


def framing(situation: SituationV2) -> str:
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


def person(
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


def sender_of(rng: random.Random, pool: EntitiesV2, situation: SituationV2) -> Person:
    """The writer, from their role's organisations (colleagues from our own domain). Systems
    and scams write from role addresses; a scam signs with the titles of whoever it imitates;
    an auto-reply from a customer's mailbox (a notice written from a company) is a person's."""
    role = situation.sender
    dress = framing(situation)
    if role == "colleague":
        return person(rng, pool, role, Org(name=pool.our_company, domain=pool.our_domain))
    source = situation.writes_from or _ORG_POOLS[role]
    org = rng.choice(getattr(pool, source))
    titles = pool.pool_titles.get(source, ())
    if role == "notice" and situation.writes_from is None:
        return person(rng, pool, role, org, rng.choice(_NOTICE_LOCALS))
    if role == "scammer" and situation.imitates is not None:
        return person(rng, pool, dress, org, rng.choice(_SCAM_LOCALS[situation.imitates]))
    return person(rng, pool, dress if role == "notice" else role, org, titles=titles)


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
    writer = sender_of(rng, pool, situation)
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


def identifier_slots(
    rng: random.Random,
    pool: EntitiesV2,
    tier: str,
    writer_first: str,
    imitates: str | None = None,
) -> Slots:
    """Ids, sums, dates, plans and co-workers drawn when a whole-written email first names
    them (the writer chose the rest): plans and seats fit the tier, a co-worker is not the
    writer, a scam's look-alike domain imitates whom it pretends to be."""
    ctx = _Context(
        pool=pool,
        tier=tier,
        writer_first=writer_first,
        products=_products_of(("web_app", "service")),
        vendor=rng.choice(pool.vendors) if imitates == "vendor" else None,
        imitates=imitates,
    )
    return Slots(rng, ctx, {"our_company": pool.our_company, "our_domain": pool.our_domain})
