"""Generator v2's mail: a body composed from one family's parts inside the sender role's own
framing (who the sender is, and the slots that agree with them, are ``people.py``'s).

A body is a greeting, one telling of the matter with one or two details, one ask, one closing
and one signature, each drawn from hand-written parts whose inline ``[a|b]`` alternatives are chosen
here. Threads hold a real earlier exchange (the customer's first message and our
acknowledgement), shown once; forwards come from a colleague at the customer's company and name
the original writer; only customers carry a tier, an account and follow-ups.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache

from inbox_triage.domain import Customer, CustomerReply, ThreadMessage
from inbox_triage.scenarios.generator.config import SPLIT_INDEX
from inbox_triage.scenarios.generator.people import (
    Person,
    framing,
    person,
    personal,
    pool_v2,
    slots_v2,
)
from inbox_triage.scenarios.generator.schema_v2 import (
    ALTERNATIVES,
    EntitiesV2,
    FamilyV2,
    SituationV2,
)
from inbox_triage.scenarios.generator.texts import WEEKDAYS, typos


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
        # The earlier note names the day of the first message (a few days back), not a date
        # that could fall before or after the matter's own.
        day = rng.choice([d for d in WEEKDAYS if d != slots["weekday"]])
        before = slots.over(date=day, weekday=day)
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
        framing(situation),
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
            name=writer.full if personal(situation) else writer.org.name,
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
    colleague = person(rng, pool, "customer", writer.org)
    while colleague.first == writer.first:
        colleague = person(rng, pool, "customer", writer.org)
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
