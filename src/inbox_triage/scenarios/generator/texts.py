"""The words of generated mail: entity pools per split, phrasing families, slots filled from
them, and the texture of real mail (typos, quoted threads, signatures)."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

from inbox_triage.domain import (
    ThreadMessage,
)
from inbox_triage.scenarios.generator.config import SPLIT_INDEX
from inbox_triage.scenarios.generator.data import load_entities
from inbox_triage.scenarios.generator.schema import EntityPools, Family, Situation


@cache
def pool_for(split: str) -> EntityPools:
    """The split's share of every entity list (every third item)."""
    every = load_entities()
    k = SPLIT_INDEX[split]

    def cut(items: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(items[k::3])

    split_lists = (
        "first_names",
        "last_names",
        "companies",
        "cities",
        "features",
        "signatures",
        "injections",
        "follow_ups",
        "generic_reveals",
        "secret_compliance",
        "reopen_messages",
    )
    return every.model_copy(update={name: cut(getattr(every, name)) for name in split_lists})


def families(situation: Situation, split: str) -> tuple[Family, ...]:
    k = SPLIT_INDEX[split]
    if split == "train":
        return situation.families[2:]
    return (situation.families[k],)


MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")


def slots_for(rng: random.Random, pool: EntityPools, sender: str) -> dict[str, str]:
    first, last = rng.choice(pool.first_names), rng.choice(pool.last_names)
    company = rng.choice(pool.companies)
    slug = "".join(ch for ch in company.lower() if ch.isalnum())[:18] or "mail"
    city, country = rng.choice(pool.cities)
    colleague_first = rng.choice(pool.first_names)
    our_slug = pool.our_domain.split(".")[0]
    lookalike = (
        rng.choice(
            [
                our_slug.replace("o", "0", 1),
                our_slug.replace("w", "vv", 1),
                our_slug + "-secure",
                our_slug + "-billing",
            ]
        )
        + "."
        + rng.choice(["com", "net", "co", "support"])
    )
    domain = {"internal": pool.our_domain, "lookalike": lookalike}.get(sender, slug + ".com")
    local = {"internal": f"{first}.{last}".lower()}.get(sender, f"{first[0]}.{last}".lower())
    amount = rng.randrange(19, 4999)
    return {
        "first_name": first,
        "last_name": last,
        "full_name": f"{first} {last}",
        "company": company,
        "email": f"{local}@{domain}".replace(" ", ""),
        "product": rng.choice(pool.products),
        "plan": rng.choice(pool.plans),
        "amount": f"${amount:,}.{rng.randrange(0, 100):02d}",
        "amount2": f"${rng.randrange(19, 4999):,}.00",
        "order_id": f"ORD-{rng.randrange(10000, 99999)}",
        "invoice_id": f"INV-{rng.choice((2025, 2026))}-{rng.randrange(1000, 9999)}",
        "account_id": f"ACC-{rng.randrange(10000, 99999)}",
        "tracking_id": f"1Z{rng.randrange(10**9, 10**10)}",
        "date": f"{rng.choice(MONTHS)} {rng.randrange(1, 29)}",
        "weekday": rng.choice(WEEKDAYS),
        "time": f"{rng.randrange(7, 19):02d}:{rng.choice((0, 10, 15, 20, 30, 40, 45, 50)):02d}",
        "city": city,
        "country": country,
        "seats": str(rng.choice((25, 50, 120, 300, 2000))),
        "feature": rng.choice(pool.features),
        "colleague": f"{colleague_first} {rng.choice(pool.last_names)}",
        "colleague_first": colleague_first,
        "our_company": pool.our_company,
        "our_domain": pool.our_domain,
        "lookalike_domain": lookalike,
        "sender_domain": domain,
        "card_last4": f"{rng.randrange(0, 10000):04d}",
        "case_number": f"{rng.randrange(20, 27)}-CV-{rng.randrange(1000, 99999):05d}",
        "days": str(rng.choice((3, 5, 7, 10))),
    }


def fill(text: str, slots: dict[str, str]) -> str:
    return text.format_map(slots)


# ------------------------------------------------------------------------------- texture
def typos(rng: random.Random, text: str, count: int) -> str:
    """Swaps two letters inside a few plain lower-case words (never ids, names or numbers)."""
    words = text.split(" ")
    candidates = [i for i, w in enumerate(words) if len(w) > 4 and w.isalpha() and w.islower()]
    for i in rng.sample(candidates, min(count, len(candidates))):
        w = words[i]
        j = rng.randrange(1, len(w) - 2)
        words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2 :]
    return " ".join(words)


def texture(
    rng: random.Random,
    rate: float,
    subject: str,
    body: str,
    slots: dict[str, str],
    pool: EntityPools,
) -> tuple[str, str, list[ThreadMessage]]:
    thread: list[ThreadMessage] = []
    if rng.random() < rate:
        body = typos(rng, body, rng.randrange(1, 4))
    if rng.random() < rate / 3:
        subject = subject.upper()
        if rng.random() < 0.5:
            body = body.upper()
    if rng.random() < rate:
        body = body.rstrip() + "\n\n" + fill(rng.choice(pool.signatures), slots)
    if rng.random() < rate / 2:
        earlier = ThreadMessage(
            sender=f"support@{pool.our_domain}",
            body=f"Thanks for contacting {pool.our_company}. We have received your message.",
            minutes_ago=rng.randrange(600, 5000),
        )
        thread.append(earlier)
        body = (
            body.rstrip()
            + f"\n\nOn {slots['date']}, {pool.our_company} Support wrote:\n> "
            + earlier.body
        )
    if rng.random() < rate / 3:
        subject = "Fwd: " + subject
        body = (
            f"Forwarding this from {slots['colleague']}, can you take it?\n\n"
            f"---------- Forwarded message ---------\nFrom: {slots['full_name']} "
            f"<{slots['email']}>\nSubject: {subject[5:]}\n\n{body}"
        )
    return subject, body, thread
