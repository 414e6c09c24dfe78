"""The seeded scenario generator: an endless, reproducible supply of realistic inboxes.

``generate(mode, split, difficulty, seed)`` always builds the same scenario from the same
arguments. ``version`` picks the generator's data: 2 (the default) composes mail from
role-aware parts (``compose.py``); 1 is the original data, kept so that every published number
reproduces (``MODE/generated@v1``). Splits draw on disjoint phrasing families (family 0 is
test, 1 validation, 2+ train) and disjoint entity pools (every third name, company, city...),
so memorising train does not carry over to test. Every scenario is built so that the oracle can
score 1.0: capacities and budgets cover the right handling, and deadlines leave room to handle
mail in deadline order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from typing import Any

from inbox_triage.domain import Mode, Scenario, Ticket
from inbox_triage.domain.models import CustomerLines, Reference
from inbox_triage.scenarios.generator.compose import compose, duplicate_body
from inbox_triage.scenarios.generator.config import (
    MINUTES_PER_STEP,
    OBJECTIVES,
    SPLITS,
    GenConfig,
    config_for,
)
from inbox_triage.scenarios.generator.data import (
    GENERATOR_VERSIONS,
    LATEST,
    POLICY_VERSIONS,
    load_entities,
    load_situations,
    load_situations_v2,
    mode_org,
)
from inbox_triage.scenarios.generator.drafts import AnySituation, Draft, truth_for
from inbox_triage.scenarios.generator.people import pool_v2
from inbox_triage.scenarios.generator.schedule import schedule, settings_for
from inbox_triage.scenarios.generator.schema_v2 import SituationV2
from inbox_triage.scenarios.generator.texts import pool_for
from inbox_triage.scenarios.generator.v1 import draft_v1, duplicate_v1
from inbox_triage.scenarios.generator.v3 import (
    chase_after,
    records,
    schedule_v3,
    settings_v3,
    shuffled,
)
from inbox_triage.scenarios.generator.whole import compose_whole, has_mail, written_reference
from inbox_triage.scenarios.generator.writing import acknowledged, reference_texts
from inbox_triage.scenarios.loader import ScenarioError, load_policy


# ------------------------------------------------------------------------------- picking
@cache
def _eligible(
    mode: str, version: int = 1
) -> tuple[tuple[AnySituation, ...], tuple[AnySituation, ...], tuple[AnySituation, ...]]:
    """(plain, ambiguous, adversarial) situations that fit a mode."""
    every: tuple[AnySituation, ...] = load_situations() if version == 1 else load_situations_v2()
    fits = [s for s in every if mode in s.modes]
    if version >= 4:  # mail written whole, where every split has some
        fits = [s for s in fits if isinstance(s, SituationV2) and has_mail(s)]
    scam = ("lookalike", "scammer")
    adversarial = tuple(s for s in fits if s.sender in scam or s.handling.priority == "spam")
    ambiguous = tuple(s for s in fits if s.ambiguous)
    plain = tuple(s for s in fits if s not in adversarial and not s.ambiguous)
    return plain, ambiguous, adversarial


def _pick_situation(
    rng: random.Random, mode: str, config: GenConfig, version: int = 1
) -> AnySituation:
    plain, ambiguous, adversarial = _eligible(mode, version)
    roll = rng.random()
    if ambiguous and roll < config.ambiguity:
        return rng.choice(ambiguous)
    if adversarial and roll > 1.0 - config.adversarial_rate:
        return rng.choice(adversarial)
    return rng.choice(plain)


def _draft_v2(
    rng: random.Random,
    mode: Mode,
    split: str,
    config: GenConfig,
    situation: SituationV2,
    version: int = 2,
) -> Draft:
    written = None
    if version >= 4:
        mail, written = compose_whole(rng, situation, split, config.adversarial_rate)
    else:
        mail = compose(rng, situation, split, config.texture_rate, config.adversarial_rate)
    ticket = {
        "sender": mail.sender,
        "customer": mail.customer,
        "subject": mail.subject,
        "body": mail.body,
        "thread": mail.thread,
        "customer_reply": mail.customer_reply,
        "follow_up": mail.follow_up,
    }
    truth = truth_for(mode, situation, mail.customer.tier, mail.slots, duplicate=False)
    if written is not None:
        truth = written.corrected(truth, situation, mode)
    return Draft(situation, ticket, truth, mail.slots, family=mail.family, written=written)


def _duplicate_v2(rng: random.Random, mode: Mode, original: Draft, split: str) -> Draft:
    """The same customer writing again about the same thing, from their own address."""
    customer = original.ticket["customer"]
    subject = original.ticket["subject"].removeprefix("Fwd: ")
    ticket = {
        **original.ticket,
        "sender": customer.email,
        "subject": subject if subject.startswith("Re: ") else "Re: " + subject,
        "body": original.ticket["follow_up"]
        if original.written is not None and original.ticket["follow_up"]
        else duplicate_body(rng, split, original.slots),
        "thread": (),
        "customer_reply": None,
        "follow_up": None,
    }
    truth = truth_for(mode, original.situation, customer.tier, original.slots, duplicate=True)
    return Draft(
        original.situation,
        ticket,
        truth,
        original.slots,
        family=original.family,
        written=original.written,
    )


# ------------------------------------------------------------------------------- assembly
def generate(
    mode: Mode,
    split: str = "train",
    difficulty: str = "medium",
    seed: int = 0,
    *,
    version: int | None = None,
    **overrides: Any,
) -> Scenario:
    """A scenario for ``mode`` from the given split, difficulty preset (plus knob overrides),
    seed and generator version (the newest when None). The same arguments always give the same
    scenario."""
    return generate_with_origins(mode, split, difficulty, seed, version=version, **overrides)[0]


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a generated ticket came from: what a linter or a variety count names."""

    ticket: str
    situation: str
    family: int
    duplicate: bool


def generate_with_origins(
    mode: Mode,
    split: str = "train",
    difficulty: str = "medium",
    seed: int = 0,
    *,
    version: int | None = None,
    **overrides: Any,
) -> tuple[Scenario, tuple[Origin, ...]]:
    """:func:`generate`, with each ticket's situation and phrasing family."""
    version = LATEST if version is None else version
    if isinstance(version, bool) or version not in GENERATOR_VERSIONS:
        known = ", ".join(str(v) for v in GENERATOR_VERSIONS)
        raise ScenarioError(f"generator version {version!r} is not one of {known}")
    if split not in SPLITS:
        raise ScenarioError(
            f"split {split!r} is not one of {', '.join(SPLITS)}", "split", [*SPLITS]
        )
    if mode not in MINUTES_PER_STEP:
        raise ScenarioError(f"mode {mode!r} is not one of {', '.join(MINUTES_PER_STEP)}")
    if not isinstance(seed, int) or seed < 0:
        raise ScenarioError(f"seed must be a non-negative integer, not {seed!r}", "seed")
    config = config_for(mode, difficulty, version, **overrides)
    # Keyed on the resolved knobs, so `size=10` on medium is medium, and 1 is 1.0.
    tag = "" if version == 1 else f"|v{version}"
    rng = random.Random(f"inbox-triage|{mode}|{split}|{config}|{seed}{tag}")
    return _build(mode, split, difficulty, seed, config, rng, version)


def _build(
    mode: Mode,
    split: str,
    difficulty: str,
    seed: int,
    config: GenConfig,
    rng: random.Random,
    version: int = 1,
) -> tuple[Scenario, tuple[Origin, ...]]:
    drafts: list[Draft] = []
    while len(drafts) < config.size:
        situation = _pick_situation(rng, mode, config, version)
        if isinstance(situation, SituationV2):
            draft = _draft_v2(rng, mode, split, config, situation, version)
            if version >= 3:
                customer = records(rng, draft)
                draft.ticket["customer"] = customer
                draft.truth = truth_for(mode, situation, customer.tier, draft.slots, False)
        else:
            draft = draft_v1(rng, mode, split, config, situation)
        drafts.append(draft)
        if (
            mode != "ticket"
            and len(drafts) < config.size
            and draft.situation.sender == "customer"
            and rng.random() < config.duplicate_rate
        ):
            make_duplicate = duplicate_v1 if version == 1 else _duplicate_v2
            duplicate = make_duplicate(rng, mode, draft, split)
            duplicate.original = len(drafts) - 1
            drafts.append(duplicate)
    prefix = {"triage": "E", "ticket": "TCK-", "inbox": "T-"}[mode]
    org = mode_org(mode, version)
    if version >= 3:
        drafts = shuffled(rng, drafts)
        times, feasible = schedule_v3(rng, mode, config, drafts)
        start = rng.randrange(100, 800)  # ids of one length: their order is the list's
        tickets = tuple(
            Ticket(
                id=f"{prefix}{start + i}",
                received_minutes_ago=age,
                arrives_at=arrives,
                chase_after=chase_after(rng, draft.ticket["customer"]),
                truth=draft.truth.model_copy(
                    update={"sla_feasible": on_time, "reference": _reference(draft)}
                ),
                **draft.ticket,
            )
            for i, (draft, (age, arrives), on_time) in enumerate(
                zip(drafts, times, feasible, strict=True)
            )
        )
        settings = settings_v3(rng, mode, len(tickets), config, org)
    else:
        times = schedule(rng, mode, config, drafts)
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
        settings = settings_for(mode, tickets, org.unlimited_queues, config.capacity_pressure)
    origins = tuple(
        Origin(t.id, d.situation.id, d.family, d.original is not None)
        for t, d in zip(tickets, drafts, strict=True)
    )
    scenario = Scenario(
        id=f"{mode}/generated",
        version=version,
        mode=mode,
        title=f"Generated {difficulty} {mode} episode ({split} split, seed {seed})",
        difficulty=difficulty,
        objective=OBJECTIVES[mode],
        org=org,
        policy=load_policy("support_policy", POLICY_VERSIONS[version]),
        settings=settings,
        tickets=tickets,
        customer_lines=_customer_lines(split, version),
        split=split,
        seed=seed,
    )
    return scenario, origins


def _reference(draft: Draft) -> Reference | None:
    """The oracle's texts for a drafted email, drawn from a stream of their own so that the
    scenario's other draws stay as they were."""
    ticket = draft.ticket
    text = "\n".join([ticket["subject"], ticket["body"], *(m.body for m in ticket["thread"])])
    rng = random.Random(f"writing|{ticket['subject']}|{ticket['body']}")
    chased = bool(ticket["thread"]) or draft.original is not None
    if draft.written is None:
        return reference_texts(draft.situation.id, draft.slots, text, rng, draft.family, chased)
    # A whole-written email carries its own texts, written for it by a support lead; the
    # situation's patterns stay behind them for the oracle to weigh.
    own = written_reference(draft.written, draft.slots)
    if draft.original is not None:
        own = own.model_copy(update={"replies": acknowledged(rng, own.replies, draft.slots)})
    try:
        patterns = reference_texts(draft.situation.id, draft.slots, text, rng, -1, chased)
    except ScenarioError:  # no pattern fits this writer's email: its own texts stand alone
        patterns = None
    if patterns is None:
        return own
    return Reference(
        summaries=(*own.summaries, *patterns.summaries),
        replies=(*own.replies, *patterns.replies),
        requests=(*own.requests, *patterns.requests),
    )


def _customer_lines(split: str, version: int) -> CustomerLines:
    """What customers write back beyond their own ticket's lines."""
    if version == 1:
        return CustomerLines(
            reveals=load_entities().generic_reveals,
            follow_ups=pool_for(split).follow_ups,
            secret_compliance=load_entities().secret_compliance,
            reopen=load_entities().reopen_messages,
        )
    pool = pool_v2(split)
    return CustomerLines(
        reveals=pool.unneeded_answers,
        follow_ups=pool.follow_ups,
        secret_compliance=pool.secret_compliance,
        reopen=pool.reopen_messages,
    )
