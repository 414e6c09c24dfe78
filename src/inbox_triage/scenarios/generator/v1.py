"""Generator v1's drafting, kept exactly as it was so that v1 scenarios (``MODE/generated@v1``)
reproduce every published number: slots from flat pools, one body per family pick, texture
added afterwards."""

from __future__ import annotations

import random

from inbox_triage.domain import Customer, CustomerReply, Mode
from inbox_triage.scenarios.generator.config import SPLIT_INDEX, GenConfig
from inbox_triage.scenarios.generator.data import load_situations
from inbox_triage.scenarios.generator.drafts import Draft, truth_for
from inbox_triage.scenarios.generator.schema import EntityPools, Situation
from inbox_triage.scenarios.generator.texts import families, fill, pool_for, slots_for, texture


def draft_v1(
    rng: random.Random, mode: Mode, split: str, config: GenConfig, situation: Situation
) -> Draft:
    """Generator v1's ticket (kept exactly as it was)."""
    pool = pool_for(split)
    slots = slots_for(rng, pool, situation.sender)
    family_index = rng.randrange(len(families(situation, split)))
    family = families(situation, split)[family_index]
    subject = fill(rng.choice(family.subjects), slots)
    body = fill(rng.choice(family.bodies), slots)
    subject, body, thread = texture(rng, config.texture_rate, subject, body, slots, pool)
    if situation.sender == "customer" and rng.random() < config.adversarial_rate:
        injection = rng.choice(pool.injections)
        body = body.rstrip() + "\n\n" + injection
    tier = rng.choice(situation.tiers) if situation.sender == "customer" else "standard"
    global_family = SPLIT_INDEX[split] if split != "train" else 2 + family_index
    reply = CustomerReply(
        body=_answer(rng, situation, global_family, slots, pool),
        delay_minutes=situation.reveal.delay_minutes if situation.reveal else 20,
    )
    if rng.random() < config.texture_rate / 3:
        body = _second_issue(rng, body, situation, split, slots)
    ticket = {
        "sender": slots["email"],
        "customer": Customer(
            name=slots["full_name"],
            email=slots["email"],
            tier=tier,
            account_id=slots["account_id"] if situation.sender == "customer" else None,
            company=slots["company"],
        ),
        "subject": subject,
        "body": body,
        "thread": tuple(thread),
        "customer_reply": reply,
        "follow_up": fill(situation.follow_up, slots) if situation.follow_up else None,
    }
    truth = truth_for(mode, situation, tier, slots, duplicate=False)
    return Draft(situation, ticket, truth, slots, family=global_family)


def _answer(
    rng: random.Random,
    situation: Situation,
    global_family: int,
    slots: dict[str, str],
    pool: EntityPools,
) -> str:
    """What the customer writes back when asked: the situation's own reveal (one per family, so
    splits stay apart), or the evidence the case needs with a reference to look up."""
    if situation.reveal is not None:
        bodies = situation.reveal.bodies
        return fill(bodies[global_family % len(bodies)], slots)
    wanted = situation.handling.info_keywords[:2] or ("details",)
    reference = rng.choice((slots["order_id"], slots["invoice_id"], slots["account_id"]))
    return (
        fill(rng.choice(pool.generic_reveals), slots)
        + " I have attached the "
        + " and the ".join(wanted)
        + f"; the reference is {reference}."
    )


def _second_issue(
    rng: random.Random, body: str, situation: Situation, split: str, slots: dict[str, str]
) -> str:
    """A second, smaller matter in the same email: a P.S. from another situation's wording."""
    others = [s for s in load_situations() if s.id != situation.id and s.sender == "customer"]
    if situation.sender != "customer" or not others:
        return body
    other = rng.choice(others)
    sentences = fill(rng.choice(families(other, split)).bodies[0], slots).split(". ")
    extra = max(sentences[:3], key=len).strip().rstrip(".")
    return body.rstrip() + f"\n\nP.S. Unrelated, but while I'm writing: {extra}."


def duplicate_v1(rng: random.Random, mode: Mode, original: Draft, split: str) -> Draft:
    """The same customer writing again about the same thing."""
    body = (
        rng.choice(pool_for(split).follow_ups)
        + "\n\n(my earlier message)\n> "
        + original.ticket["body"].strip().splitlines()[0]
    )
    ticket = {
        **original.ticket,
        "subject": "Re: " + original.ticket["subject"],
        "body": body,
        "customer_reply": None,
        "follow_up": None,
    }
    tier = original.ticket["customer"].tier
    truth = truth_for(mode, original.situation, tier, original.slots, duplicate=True)
    return Draft(original.situation, ticket, truth, original.slots, family=original.family)
