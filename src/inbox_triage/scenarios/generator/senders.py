"""Who writes generator v4's mail: names from one naming tradition, and what a sender's country
decides (the currency of a plain sum, the date style, the traditions their names come from)."""

from __future__ import annotations

import calendar
import random
import re
from functools import cache

from inbox_triage.scenarios.generator.texts import MONTHS
from inbox_triage.scenarios.loader import data_root, read_yaml

# Where a sender is (the writer's persona card, round 4 on): the currency a plain {amount} is in,
# whether dates are day first, and the naming traditions their names come from.
COUNTRIES: dict[str, tuple[str, bool, tuple[str, ...]]] = {
    "UK": ("£", True, ("english", "english", "irish_scottish", "south_asian")),
    "England": ("£", True, ("english", "english", "south_asian")),
    "Wales": ("£", True, ("english", "irish_scottish")),
    "Scotland": ("£", True, ("irish_scottish", "english")),
    "Ireland": ("€", True, ("irish_scottish", "english")),
    "US": ("$", False, ("american", "american", "spanish_portuguese")),
    "Canada": ("$", False, ("american", "english", "french")),
    "Australia": ("$", True, ("english", "english", "east_asian")),
    "New Zealand": ("$", True, ("english", "maori_pacific")),
    "Germany": ("€", True, ("german",)),
    "Netherlands": ("€", True, ("dutch",)),
    "France": ("€", True, ("french",)),
    "Spain": ("€", True, ("spanish_portuguese",)),
    "Portugal": ("€", True, ("spanish_portuguese",)),
    "Italy": ("€", True, ("italian",)),
    "Poland": ("€", True, ("polish_czech",)),
    "Sweden": ("€", True, ("nordic",)),
    "Denmark": ("€", True, ("nordic",)),
    "Mexico": ("$", True, ("spanish_portuguese",)),
    "Brazil": ("$", True, ("spanish_portuguese",)),
    "South Africa": ("$", True, ("african", "english")),
    "Kenya": ("$", True, ("african",)),
    "Nigeria": ("$", True, ("african",)),
    "India": ("$", True, ("south_asian",)),
    "Japan": ("$", True, ("east_asian",)),
    "Singapore": ("$", True, ("southeast_asian", "east_asian", "south_asian")),
}


def country_of(persona_country: str | None) -> tuple[str, bool, tuple[str, ...]] | None:
    """The table's row for a persona's country ("United Kingdom (Wales)" reads as Wales)."""
    key = _key(persona_country) if persona_country else None
    return COUNTRIES[key] if key else None


@cache
def _traditions() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    data = read_yaml(data_root() / "generator" / "names.v4.yaml")["groups"]
    return {name: (tuple(g["first"]), tuple(g["last"])) for name, g in data.items()}


@cache
def _name_groups() -> tuple[tuple[tuple[str, ...], tuple[str, ...], int], ...]:
    weight = {"english": 3, "american": 2}  # the inbox is an English-speaking company's
    return tuple(
        (first, last, weight.get(name, 1)) for name, (first, last) in _traditions().items()
    )


def sender_name(rng: random.Random, traditions: tuple[str, ...] = ()) -> tuple[str, str]:
    """A first name and a surname from one naming tradition (readers flagged mixed pairs): one
    of ``traditions`` where the sender's country is known."""
    if traditions:
        first, last = _traditions()[rng.choice(traditions)]
        return rng.choice(first), rng.choice(last)
    groups = _name_groups()
    first, last, _ = rng.choices(groups, weights=[w for *_, w in groups])[0]
    return rng.choice(first), rng.choice(last)


# The top-level domains a country's organisations write from: (public bodies, companies).
DOMAINS = {  # fmt: skip
    "UK": ("gov.uk", "co.uk"),
    "England": ("gov.uk", "co.uk"),
    "Wales": ("gov.wales", "co.uk"),
    "Scotland": ("gov.scot", "co.uk"),
    "Ireland": ("gov.ie", "ie"),
    "US": ("gov", "com"),
    "Canada": ("gc.ca", "ca"),
    "Australia": ("gov.au", "com.au"),
    "New Zealand": ("govt.nz", "co.nz"),
    "Germany": ("bund.de", "de"),
    "Netherlands": ("nl", "nl"),
    "France": ("gouv.fr", "fr"),
    "Spain": ("gob.es", "es"),
    "Portugal": ("gov.pt", "pt"),
    "Italy": ("gov.it", "it"),
    "Poland": ("gov.pl", "pl"),
    "Sweden": ("se", "se"),
    "Denmark": ("dk", "dk"),
    "Mexico": ("gob.mx", "com.mx"),
    "Brazil": ("gov.br", "com.br"),
    "South Africa": ("gov.za", "co.za"),
    "Kenya": ("go.ke", "co.ke"),
    "Nigeria": ("gov.ng", "com.ng"),
    "India": ("gov.in", "in"),
    "Japan": ("go.jp", "co.jp"),
    "Singapore": ("gov.sg", "com.sg"),
}


def _key(country: str) -> str | None:
    inner = re.search(r"\((.+)\)", country)
    name = (inner[1] if inner else country).strip()
    if name in COUNTRIES:
        return name
    return "UK" if "United Kingdom" in country else None


def top_level(country: str | None, public: bool) -> str:
    """The domain ending an organisation in ``country`` writes from (a .com where unknown)."""
    key = _key(country) if country else None
    if key is None:
        return "gov" if public else "com"
    return DOMAINS[key][0 if public else 1]


_NAMED = re.compile(r"\b(" + "|".join(sorted(COUNTRIES, key=len, reverse=True)) + r")\b")


def where_from(persona: object) -> str | None:
    """The country an earlier round's persona card names in passing ("national police (Spain)")."""
    text = " ".join(
        str(getattr(persona, f, "") or "") for f in ("org_kind", "relationship", "role", "happened")
    )
    found = _NAMED.search(text)
    return found[1] if found else None


# Words that mark a writer who dates "20 August" (British and European spelling and forms).
EUROPEAN = re.compile(
    r"\b(colour|organisation|whilst|fortnight|half[- ]term|postcode|favour|cheque|realise|"
    r"apologise|centre|licence|programme|analyse|mum|VAT|GmbH|Ltd|plc|NHS|council)\b"
)
# Sums a customer of this tier would see (readers flagged "$1,805.19" for a small plan).
PRICES = {
    "standard": (12, 19, 29, 39, 49, 79, 99, 149),
    "premium": (49, 99, 149, 199, 299, 499),
    "vip": (299, 499, 899, 1200, 2400),
    "enterprise": (1200, 2400, 4800, 9600, 18000),
}
# What suppliers (and scams imitating them) invoice; readers saw "$12.00" chased as fraud.
INVOICES = (480, 760, 1250, 2860, 4375, 7900, 12400)
ANNUAL = re.compile(r"\b(?:annual|annually|yearly|per year|a year|12 months|twelve months)\b", re.I)
YEAR = 2026  # the year an episode's dates fall in: a weekday must agree with its date


@cache
def _reading(text: str) -> tuple[str, bool, bool]:
    """What an email's own words say of its sums and dates: the currency it writes, whether it
    speaks of an annual plan, whether it writes British or European English (read once)."""
    written = "£" if "£" in text else "€" if "€" in text else ""
    return written, bool(ANNUAL.search(text)), bool(EUROPEAN.search(text))


def local_values(
    rng: random.Random,
    text: str,
    role: str,
    tier: str,
    place: tuple[str, bool, tuple[str, ...]] | None,
) -> dict[str, str]:
    """Sums, a date and times as this sender writes them: in their currency (or the one their
    text shows), sized to who bills (a supplier's invoice, an annual plan), day first where they
    write so; a weekday that agrees with the date; times on the hour or half past (readers saw
    "Wednesday, 19 August" on a Thursday and a clinic opening "at 16:20")."""
    written, annual, european = _reading(text)
    currency = written or (place[0] if place else "$")
    prices = INVOICES if role in ("vendor", "scammer") else PRICES[tier]
    times = 10 if role == "customer" and annual else 1
    amount, amount2 = (
        f"{currency}{rng.choice(prices) * times:,}.{rng.choice(('00', '00', '99'))}"
        for _ in range(2)
    )
    day_first = place[1] if place else european or currency != "$"
    month, day = rng.randrange(12), rng.randrange(1, 29)
    return {
        "amount": amount,
        "amount2": amount2,
        "date": f"{day} {MONTHS[month]}" if day_first else f"{MONTHS[month]} {day}",
        "weekday": calendar.day_name[calendar.weekday(YEAR, month + 1, day)],
        "morning_time": f"{rng.randrange(7, 12):02d}:{rng.choice((0, 30)):02d}",
        "afternoon_time": f"{rng.randrange(12, 18):02d}:{rng.choice((0, 30)):02d}",
    }
