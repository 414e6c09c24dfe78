"""Who writes generator v4's mail: names from one naming tradition, and what a sender's country
decides (the currency of a plain sum, the date style, the traditions their names come from)."""

from __future__ import annotations

import random
import re
from functools import cache

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
def _name_groups() -> tuple[tuple[tuple[str, ...], tuple[str, ...], int], ...]:
    data = read_yaml(data_root() / "generator" / "names.v4.yaml")["groups"]
    weight = {"english": 3, "american": 2}  # the inbox is an English-speaking company's
    return tuple(
        (tuple(g["first"]), tuple(g["last"]), weight.get(name, 1)) for name, g in data.items()
    )


@cache
def _traditions() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    data = read_yaml(data_root() / "generator" / "names.v4.yaml")["groups"]
    return {name: (tuple(g["first"]), tuple(g["last"])) for name, g in data.items()}


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
