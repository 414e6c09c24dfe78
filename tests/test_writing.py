"""The oracle writes like a good agent (issue 30): texts written by hand per situation and
family, used only where the email says what they name, and the one the grader rates highest is
the one the oracle sends."""

from __future__ import annotations

import random

from inbox_triage.agents.oracle import best_written
from inbox_triage.grading import grade_reply
from inbox_triage.grading.stuffing import stuffing_terms_for
from inbox_triage.scenarios.generator.data import load_situations_v2
from inbox_triage.scenarios.generator.generate import generate
from inbox_triage.scenarios.generator.writing import _fitting, load_writing, slots_of


def test_every_situation_has_the_texts_its_handling_needs_for_every_family():
    writing = load_writing()
    for situation in load_situations_v2():
        w = writing[situation.id]
        assert w.summary, situation.id
        if situation.handling.reply_facts is not None:
            assert w.reply, situation.id
        if situation.handling.needs_info:
            assert w.request, situation.id
        for family in range(len(situation.families)):
            own = w.families.get(family)
            assert own is not None and own.summary, (situation.id, family)


def test_a_pattern_names_only_details_the_email_says():
    slots = {"first_name": "Ana", "amount": "$5.00", "date": "May 1", "agent": "Sam"}
    patterns = (
        "Hi {first_name}, {amount} on {date}.",
        "Hi {first_name}, about {amount}.",
        "Hi {first_name}, about the charge.",
    )
    fitting = _fitting(random.Random(0), patterns, slots, "you took $5.00 from my card")
    # the date is not in the email: that pattern is never used; naming a detail comes first
    assert fitting == ["Hi Ana, about $5.00.", "Hi Ana, about the charge."]
    assert slots_of(patterns[0]) == {"first_name", "amount", "date"}


def test_the_oracle_sends_the_best_rated_of_the_texts_that_fit():
    scenario = generate("ticket", "test", "medium", 3)
    ticket = scenario.tickets[0]
    terms = stuffing_terms_for(scenario)
    chosen = best_written(scenario, ticket).reference
    assert chosen is not None and chosen.replies
    assert set(ticket.truth.reference.replies) <= set(chosen.replies)  # none rewritten

    def score(text: str) -> float:
        return grade_reply(text, ticket, scenario.policy, terms, org=scenario.org).score

    assert score(chosen.replies[0]) == max(score(r) for r in chosen.replies) == 1.0
