"""Generator v3: generator v2's mail in a world that gives nothing away besides the mail.

What an agent sees beside the words is drawn apart from the truth (issue 29):

- **who wrote**: what the inbox's records say (a customer with tier and account, a colleague,
  a known vendor, or unknown), never the sender's role; an auto-reply from a customer's mailbox
  comes from a customer;
- **times**: how long mail has waited and when it arrives are drawn alike for every ticket;
  deadlines nobody could meet working in deadline order are marked (``Truth.sla_feasible``)
  for the grader instead of being made meetable;
- **chasing**: a customer chases after their own patience, at any priority;
- **budgets**: queue room for every capped team from the org's places and the difficulty, an
  escalation budget drawn around the mode's usual need (sometimes more, sometimes less), a step
  budget from the number of tickets;
- **order**: ticket ids follow a shuffled order (a duplicate is not the id after its original).
"""

from __future__ import annotations

import math
import random

from inbox_triage.domain import Customer, Mode, OrgProfile, Settings
from inbox_triage.scenarios.generator.config import MINUTES_PER_STEP, GenConfig
from inbox_triage.scenarios.generator.drafts import Draft
from inbox_triage.scenarios.generator.schedule import (
    after_originals,
    reference_schedule,
    true_deadlines,
)
from inbox_triage.scenarios.generator.schema_v2 import SituationV2

# The sender records: roles the inbox knows by their address; everyone else is unknown.
KNOWN = {"customer": "customer", "colleague": "colleague", "vendor": "vendor"}
# Per ticket, the steps a careful agent may take (ask, decide, tag, reply, close...) and the
# steps one wait for an answer takes (30 minutes): the step budget counts tickets, not needs.
STEPS_PER_TICKET = {"triage": 3, "ticket": 15, "inbox": 5}
# The share of a mode's mail that usually needs a flag (triage) or an escalation (inbox): the
# escalation budget is drawn around it, never from the episode's own mail.
USUAL_NEED = {"triage": 0.25, "ticket": 0.0, "inbox": 0.6}
# How many of a shift's customers chase an unanswered message, and after how long (minutes).
CHASE_RATE = 0.5
PATIENCE = (40, 480)


def records(rng: random.Random, draft: Draft) -> Customer:
    """The sender as the inbox's records know them."""
    situation = draft.situation
    assert isinstance(situation, SituationV2)
    customer: Customer = draft.ticket["customer"]
    known = KNOWN.get(situation.sender, "unknown")
    update: dict[str, object] = {"known_as": known}
    if situation.sender == "notice" and situation.writes_from == "companies":
        # An auto-reply from a customer's own mailbox: a customer, with their records.
        update.update(
            known_as="customer",
            tier=rng.choice(("standard", "premium", "vip", "enterprise")),
            account_id=f"ACC-{rng.randrange(10000, 99999)}",
        )
    elif known == "unknown":
        update.update(company=None, account_id=None, tier="standard")
    return customer.model_copy(update=update)


def chase_after(rng: random.Random, customer: Customer) -> int | None:
    """When this customer chases an unanswered message, if they do (customers only)."""
    if customer.role != "customer" or rng.random() >= CHASE_RATE:
        return None
    return rng.randrange(*PATIENCE)


def shuffled(rng: random.Random, drafts: list[Draft]) -> list[Draft]:
    """The drafts in a random order, each duplicate still pointing at its original."""
    order = list(range(len(drafts)))
    rng.shuffle(order)
    position = {old: new for new, old in enumerate(order)}
    out = [drafts[i] for i in order]
    for draft in out:
        if draft.original is not None:
            draft.original = position[draft.original]
    return out


def schedule_v3(
    rng: random.Random, mode: Mode, config: GenConfig, drafts: list[Draft]
) -> tuple[list[tuple[int, int]], list[bool]]:
    """(received_minutes_ago, arrives_at) per draft, drawn alike for every ticket, and whether
    the reference schedule answers each in time (with a step to spare)."""
    step = MINUTES_PER_STEP[mode]
    span = len(drafts) * STEPS_PER_TICKET[mode] * step // 2
    times: list[tuple[int, int]] = []
    for _ in drafts:
        arrives = 0
        if len(drafts) > 1 and rng.random() < config.arrival_rate:
            arrives = rng.randrange(step, max(step + 1, span // 2))
        age = 0 if arrives else int(rng.uniform(5, 20 + 120 * config.sla_tightness))
        times.append((age, arrives))
    times = after_originals(drafts, times)
    ages = [age for age, _ in times]
    arrivals = [arrives for _, arrives in times]
    deadlines = true_deadlines(drafts, ages, arrivals)
    handled = reference_schedule(mode, drafts, ages, arrivals, deadlines)
    feasible = [d is None or handled[i] + step <= d for i, d in enumerate(deadlines)]
    return times, feasible


def settings_v3(
    rng: random.Random, mode: Mode, size: int, config: GenConfig, org: OrgProfile
) -> Settings:
    """Budgets from what the agent can see (how many tickets) and the difficulty."""
    pressure = config.capacity_pressure
    base = size * STEPS_PER_TICKET[mode] + (1 if mode == "inbox" else 0)
    slack = max(2, math.ceil(base * (0.5 - 0.35 * pressure)))
    spare = 1.0 - pressure
    capacity = (
        {}
        if mode == "ticket"
        else {
            q: max(1, math.ceil(places * size / 10 * (0.7 + 1.3 * spare)))
            for q, places in org.queue_places.items()
        }
    )
    usual = size * USUAL_NEED[mode]
    budget = round(usual * rng.uniform(0.6, 1.6 - 0.6 * pressure))
    return Settings(
        max_steps=base + slack,
        minutes_per_step=MINUTES_PER_STEP[mode],
        escalation_budget=max(1, budget) if usual else 0,
        queue_capacity=capacity,
        queue_drain_minutes=60 if pressure >= 0.5 and mode != "ticket" else None,
        follow_ups="patience",
    )
