"""The seeded scenario generator: an endless, reproducible supply of realistic inboxes.

``generate(mode, split, difficulty, seed)`` always builds the same scenario from the same
arguments. Splits draw on disjoint phrasing families (family 0 is test, 1 validation, 2+ train)
and disjoint entity pools (every third name, company, city...), so memorising train does not
carry over to test. Every scenario is built so that the oracle can score 1.0: capacities and
budgets cover the right handling, and deadlines leave room to handle mail in deadline order.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from functools import cache
from typing import Any

from inbox_triage.domain import (
    Customer,
    CustomerReply,
    Mode,
    ReplySpec,
    Scenario,
    Settings,
    Ticket,
    Truth,
)
from inbox_triage.domain.models import CustomerLines
from inbox_triage.scenarios.generator.config import (
    MINUTES_PER_STEP,
    OBJECTIVES,
    SPLIT_INDEX,
    SPLITS,
    GenConfig,
    config_for,
)
from inbox_triage.scenarios.generator.data import load_entities, load_situations, mode_org
from inbox_triage.scenarios.generator.schema import EntityPools, Situation
from inbox_triage.scenarios.generator.texts import families, fill, pool_for, slots_for, texture
from inbox_triage.scenarios.loader import ScenarioError, load_policy


# ------------------------------------------------------------------------------- truth
def _bump(priority: str, tier: str) -> str:
    """Policy: a VIP or enterprise customer materially affected is at least high."""
    return "high" if tier in ("vip", "enterprise") and priority == "medium" else priority


def _facts(
    groups: tuple[tuple[str, ...], ...], slots: dict[str, str]
) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(fill(p, slots) for p in group) for group in groups)


def _truth(
    mode: Mode, situation: Situation, tier: str, slots: dict[str, str], duplicate: bool
) -> Truth:
    h = situation.handling
    reply = None
    if h.reply_facts is not None:
        reply = ReplySpec(required_facts=_facts(h.reply_facts, slots))
    priority = _bump(h.priority, tier)
    common: dict[str, Any] = {
        "priority": priority,
        "needs_info": h.needs_info and not duplicate,
        "info_keywords": h.info_keywords,
        "reply": reply,
        "summary_facts": _facts(h.summary_facts, slots),
    }
    if mode == "triage":
        return Truth(
            **common,
            category=h.category,
            queue=h.triage_route,
            flag_review=h.flag_review and not duplicate,
        )
    if mode == "ticket":
        tags = (*h.ticket_tags, "vip") if tier == "vip" else h.ticket_tags
        return Truth(**common, queue=h.ticket_team, tags=tags, resolution="close")
    if duplicate:  # the original carries the escalation; the copy is closed as a duplicate
        return Truth(
            **common,
            queue=h.inbox_queue,
            sentiment=h.sentiment,
            template="generic_acknowledgement",
            resolution="duplicate",
        )
    return Truth(
        **common,
        queue=h.inbox_queue,
        sentiment=h.sentiment,
        template=h.template,
        escalate_to=h.escalate_to,
        resolution=h.resolution,
    )


# ------------------------------------------------------------------------------- picking
@cache
def _eligible(
    mode: str,
) -> tuple[tuple[Situation, ...], tuple[Situation, ...], tuple[Situation, ...]]:
    """(plain, ambiguous, adversarial) situations that fit a mode."""
    fits = [s for s in load_situations() if mode in s.modes]
    adversarial = tuple(s for s in fits if s.sender == "lookalike" or s.handling.priority == "spam")
    ambiguous = tuple(s for s in fits if s.ambiguous)
    plain = tuple(s for s in fits if s not in adversarial and not s.ambiguous)
    return plain, ambiguous, adversarial


def _pick_situation(rng: random.Random, mode: str, config: GenConfig) -> Situation:
    plain, ambiguous, adversarial = _eligible(mode)
    roll = rng.random()
    if ambiguous and roll < config.ambiguity:
        return rng.choice(ambiguous)
    if adversarial and roll > 1.0 - config.adversarial_rate:
        return rng.choice(adversarial)
    return rng.choice(plain)


@dataclass(slots=True)
class _Draft:
    """A ticket being built, before times and ids are settled."""

    situation: Situation
    ticket: dict[str, Any]
    truth: Truth
    slots: dict[str, str]
    original: int | None = None


def _draft(
    rng: random.Random, mode: Mode, split: str, config: GenConfig, situation: Situation
) -> _Draft:
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
    return _Draft(situation, ticket, _truth(mode, situation, tier, slots, duplicate=False), slots)


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


def _duplicate(rng: random.Random, mode: Mode, original: _Draft, split: str) -> _Draft:
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
    truth = _truth(mode, original.situation, tier, original.slots, duplicate=True)
    return _Draft(original.situation, ticket, truth, original.slots)


# ------------------------------------------------------------------------------- timing
def _steps_per_ticket(mode: Mode, truth: Truth) -> int:
    info = 1 if truth.needs_info else 0
    if mode == "triage":
        return 1 + info
    if mode == "ticket":
        return 3 + len(truth.tags) + info + 1
    respond = 1 if truth.template else 0
    return 1 + respond + (1 if truth.escalate_to or truth.resolution else 0) + info


def _schedule(
    rng: random.Random, mode: Mode, config: GenConfig, drafts: list[_Draft]
) -> list[tuple[int, int]]:
    """(received_minutes_ago, arrives_at) per draft, feasible in true-deadline order."""
    step = MINUTES_PER_STEP[mode]
    total = sum(_steps_per_ticket(mode, d.truth) for d in drafts) * step
    times: list[tuple[int, int]] = []
    for _ in drafts:
        arrives = 0
        if len(drafts) > 1 and rng.random() < config.arrival_rate:
            arrives = rng.randrange(step, max(step + 1, int(total * 0.5)))
        # How long mail has waited says nothing about what it is: every ticket draws its age
        # from one range (tighter difficulty, older mail); feasibility then trims what must be.
        age = 0 if arrives else int(rng.uniform(5, 30 + 400 * config.sla_tightness))
        times.append((age, arrives))
    return _make_feasible(mode, drafts, times)


def _after_originals(drafts: list[_Draft], times: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """A customer's second message is received after their first (only ever later, which
    leaves its deadline as feasible as it was)."""
    out = list(times)
    for i, draft in enumerate(drafts):
        if draft.original is None:
            continue
        age_o, arrives_o = out[draft.original]
        age_d, arrives_d = out[i]
        first_received = arrives_o - age_o
        if arrives_d - age_d <= first_received:
            if arrives_d > first_received:
                out[i] = (arrives_d - first_received - 1, arrives_d)
            else:
                out[i] = (0, first_received + 1)
    return out


def _first_response_step(mode: Mode, truth: Truth) -> int:
    """Which of the oracle's actions on a ticket is its first response (0 = the first): asking
    for information answers at once; otherwise inbox mode responds after classifying, and
    ticket mode only when it closes."""
    if truth.needs_info:
        return 0
    if mode == "inbox":
        return 1
    if mode == "ticket":
        return _steps_per_ticket(mode, truth) - 1
    return 0


def _make_feasible(
    mode: Mode, drafts: list[_Draft], times: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Ages tickets less until the oracle, handling arrived tickets earliest true deadline
    first, meets every deadline (so its grade can be 1.0 and no customer has to chase it)."""
    policy = load_policy()
    step = MINUTES_PER_STEP[mode]
    ages = [age for age, _ in times]
    arrivals = [arrives for _, arrives in times]
    slas = [policy.sla_for(d.truth.priority, d.ticket["customer"].tier) for d in drafts]
    for _ in range(50 * len(drafts) + 10):
        ordered = _after_originals(drafts, list(zip(ages, arrivals, strict=True)))
        ages = [age for age, _ in ordered]
        arrivals = [arrives for _, arrives in ordered]
        deadlines = [
            None if sla is None else arrivals[i] - ages[i] + sla for i, sla in enumerate(slas)
        ]
        remaining = list(range(len(drafts)))
        clock, late = 0, False
        while remaining:
            ready = [i for i in remaining if arrivals[i] <= clock]
            if not ready:
                # Idle. An episode starts when its first mail arrives; later, triage mode skips
                # ahead and inbox mode spends a finish step doing so.
                waited = step if mode == "inbox" and len(remaining) < len(drafts) else 0
                clock = min(arrivals[i] for i in remaining) + waited
                continue
            i = min(ready, key=lambda j: (deadlines[j] is None, deadlines[j] or 0, j))
            remaining.remove(i)
            handled = clock + _first_response_step(mode, drafts[i].truth) * step
            if deadlines[i] is not None and handled > deadlines[i]:
                shortfall = handled - deadlines[i] + step
                if ages[i] > 0:
                    ages[i] = max(0, ages[i] - shortfall)
                else:  # even brand-new mail cannot be reached in time: it arrives later
                    arrivals[i] += shortfall
                late = True
            clock += _steps_per_ticket(mode, drafts[i].truth) * step
        if not late:
            return [(ages[i], arrivals[i]) for i in range(len(drafts))]
    raise ScenarioError("could not schedule this inbox so that every deadline can be met")


# ------------------------------------------------------------------------------- assembly
def generate(
    mode: Mode,
    split: str = "train",
    difficulty: str = "medium",
    seed: int = 0,
    **overrides: Any,
) -> Scenario:
    """A scenario for ``mode`` from the given split, difficulty preset (plus knob overrides)
    and seed. The same arguments always give the same scenario."""
    if split not in SPLITS:
        raise ScenarioError(f"split {split!r} is not one of {', '.join(SPLITS)}")
    if mode not in MINUTES_PER_STEP:
        raise ScenarioError(f"mode {mode!r} is not one of {', '.join(MINUTES_PER_STEP)}")
    if not isinstance(seed, int) or seed < 0:
        raise ScenarioError(f"seed must be a non-negative integer, not {seed!r}")
    config = config_for(mode, difficulty, **overrides)
    # Keyed on the resolved knobs, so `size=10` on medium is medium, and 1 is 1.0.
    rng = random.Random(f"inbox-triage|{mode}|{split}|{config}|{seed}")
    return _build(mode, split, difficulty, seed, config, rng)


def _build(
    mode: Mode, split: str, difficulty: str, seed: int, config: GenConfig, rng: random.Random
) -> Scenario:
    drafts: list[_Draft] = []
    while len(drafts) < config.size:
        draft = _draft(rng, mode, split, config, _pick_situation(rng, mode, config))
        drafts.append(draft)
        if (
            mode != "ticket"
            and len(drafts) < config.size
            and draft.situation.sender == "customer"
            and rng.random() < config.duplicate_rate
        ):
            duplicate = _duplicate(rng, mode, draft, split)
            duplicate.original = len(drafts) - 1
            drafts.append(duplicate)
    times = _schedule(rng, mode, config, drafts)
    prefix = {"triage": "E", "ticket": "TCK-", "inbox": "T-"}[mode]
    start = rng.randrange(100, 900)
    tickets = tuple(
        Ticket(
            id=f"{prefix}{start + i}",
            received_minutes_ago=age,
            arrives_at=arrives,
            truth=draft.truth,
            **draft.ticket,
        )
        for i, (draft, (age, arrives)) in enumerate(zip(drafts, times, strict=True))
    )
    org = mode_org(mode)
    settings = settings_for(mode, tickets, org.unlimited_queues, config.capacity_pressure)
    pool = pool_for(split)
    return Scenario(
        id=f"{mode}/generated",
        version=1,
        mode=mode,
        title=f"Generated {difficulty} {mode} episode ({split} split, seed {seed})",
        difficulty=difficulty,
        objective=OBJECTIVES[mode],
        org=org,
        policy=load_policy(),
        settings=settings,
        tickets=tickets,
        customer_lines=CustomerLines(
            reveals=load_entities().generic_reveals,
            follow_ups=pool.follow_ups,
            secret_compliance=load_entities().secret_compliance,
            reopen=load_entities().reopen_messages,
        ),
        split=split,
        seed=seed,
    )


def settings_for(
    mode: Mode,
    tickets: tuple[Ticket, ...],
    unlimited: tuple[str, ...],
    capacity_pressure: float = 0.5,
) -> Settings:
    """Budgets that cover the right handling: step budget, queue capacities and escalation
    budget, with less to spare as ``capacity_pressure`` rises (1.0: exactly what is needed)."""
    oracle_steps = sum(_steps_per_ticket(mode, t.truth) for t in tickets) + (
        1 if mode == "inbox" else 0
    )
    # An agent that waits for each answer it needs must be able to afford the wait.
    step = MINUTES_PER_STEP[mode]
    oracle_steps += sum(
        math.ceil((t.customer_reply.delay_minutes if t.customer_reply else 20) / step)
        for t in tickets
        if t.truth.needs_info
    )
    slack = max(2, math.ceil(oracle_steps * (0.5 - 0.35 * capacity_pressure)))
    needed: dict[str, int] = {}
    for t in tickets:
        if t.truth.queue not in unlimited:
            needed[t.truth.queue] = needed.get(t.truth.queue, 0) + 1
    spare = 1.0 - capacity_pressure
    capacity = {q: n + math.ceil(spare * (n + 1)) for q, n in needed.items()}
    flags = sum(1 for t in tickets if t.truth.flag_review or t.truth.escalate_to)
    return Settings(
        max_steps=oracle_steps + slack,
        minutes_per_step=MINUTES_PER_STEP[mode],
        escalation_budget=flags + math.ceil(spare * 2),
        queue_capacity=capacity if mode != "ticket" else {},
        queue_drain_minutes=60 if capacity_pressure >= 0.5 and mode != "ticket" else None,
    )
