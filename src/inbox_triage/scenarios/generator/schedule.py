"""When generated mail arrives and what budgets an episode gets: schedules the oracle can meet
in deadline order, and capacities that cover the right handling."""

from __future__ import annotations

import math
import random

from inbox_triage.domain import Mode, Settings, Ticket, Truth
from inbox_triage.scenarios.generator.config import MINUTES_PER_STEP, GenConfig
from inbox_triage.scenarios.generator.data import POLICY_VERSIONS
from inbox_triage.scenarios.generator.drafts import Draft
from inbox_triage.scenarios.loader import ScenarioError, load_policy


def steps_per_ticket(mode: Mode, truth: Truth) -> int:
    info = 1 if truth.needs_info else 0
    if mode == "triage":
        return 1 + info
    if mode == "ticket":
        return 3 + len(truth.tags) + info + 1
    respond = 1 if truth.template else 0
    return 1 + respond + (1 if truth.escalate_to or truth.resolution else 0) + info


def schedule(
    rng: random.Random, mode: Mode, config: GenConfig, drafts: list[Draft]
) -> list[tuple[int, int]]:
    """(received_minutes_ago, arrives_at) per draft, feasible in true-deadline order."""
    step = MINUTES_PER_STEP[mode]
    total = sum(steps_per_ticket(mode, d.truth) for d in drafts) * step
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


def after_originals(drafts: list[Draft], times: list[tuple[int, int]]) -> list[tuple[int, int]]:
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
        return steps_per_ticket(mode, truth) - 1
    return 0


def reference_schedule(
    mode: Mode,
    drafts: list[Draft],
    ages: list[int],
    arrivals: list[int],
    deadlines: list[int | None],
) -> list[int]:
    """When the reference agent first responds to each ticket: it handles arrived tickets
    earliest true deadline first, one whole ticket at a time (as the oracle plays)."""
    step = MINUTES_PER_STEP[mode]
    handled = [0] * len(drafts)
    remaining = list(range(len(drafts)))
    clock = 0
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
        handled[i] = clock + _first_response_step(mode, drafts[i].truth) * step
        clock += steps_per_ticket(mode, drafts[i].truth) * step
    return handled


def true_deadlines(drafts: list[Draft], ages: list[int], arrivals: list[int]) -> list[int | None]:
    policy = load_policy("support_policy", POLICY_VERSIONS[1])  # every version's clocks agree
    slas = [policy.sla_for(d.truth.priority, d.ticket["customer"].tier) for d in drafts]
    return [None if sla is None else arrivals[i] - ages[i] + sla for i, sla in enumerate(slas)]


def _make_feasible(
    mode: Mode, drafts: list[Draft], times: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Ages tickets less until the oracle, handling arrived tickets earliest true deadline
    first, meets every deadline (so its grade can be 1.0 and no customer has to chase it).
    Generator v1 and v2 only: it makes waiting time tell the priority."""
    step = MINUTES_PER_STEP[mode]
    ages = [age for age, _ in times]
    arrivals = [arrives for _, arrives in times]
    for _ in range(50 * len(drafts) + 10):
        ordered = after_originals(drafts, list(zip(ages, arrivals, strict=True)))
        ages = [age for age, _ in ordered]
        arrivals = [arrives for _, arrives in ordered]
        deadlines = true_deadlines(drafts, ages, arrivals)
        handled = reference_schedule(mode, drafts, ages, arrivals, deadlines)
        late = False
        for i, deadline in enumerate(deadlines):
            if deadline is not None and handled[i] > deadline:
                shortfall = handled[i] - deadline + step
                if ages[i] > 0:
                    ages[i] = max(0, ages[i] - shortfall)
                else:  # even brand-new mail cannot be reached in time: it arrives later
                    arrivals[i] += shortfall
                late = True
        if not late:
            return [(ages[i], arrivals[i]) for i in range(len(drafts))]
    raise ScenarioError("could not schedule this inbox so that every deadline can be met")


def settings_for(
    mode: Mode,
    tickets: tuple[Ticket, ...],
    unlimited: tuple[str, ...],
    capacity_pressure: float = 0.5,
) -> Settings:
    """Budgets that cover the right handling: step budget, queue capacities and escalation
    budget, with less to spare as ``capacity_pressure`` rises (1.0: exactly what is needed)."""
    oracle_steps = sum(steps_per_ticket(mode, t.truth) for t in tickets) + (
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
