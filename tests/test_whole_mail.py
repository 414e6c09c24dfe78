"""Generator v4: mail written whole (issue 32). Each email is one writer's message as one sender;
an episode varies only names, ids, sums and dates. These tests hold the data and the generator
to what readers check: one person per email, organisations that fit, references in the
writer's format, splits that share no writing, and a support lead's texts that the oracle sends."""

from __future__ import annotations

import random
import re
from collections import defaultdict

import pytest

from inbox_triage.agents import make_agent
from inbox_triage.evaluation.runner import run_episode
from inbox_triage.scenarios.generator.data import load_situations_v2
from inbox_triage.scenarios.generator.generate import generate, generate_with_origins
from inbox_triage.scenarios.generator.people import pool_v2
from inbox_triage.scenarios.generator.senders import _name_groups, _traditions, country_of
from inbox_triage.scenarios.generator.whole import (
    PERSONAL_DOMAINS,
    SYSTEM_LOCALS,
    _domain,
    compose_whole,
    emails_for,
    has_mail,
    load_mail,
)

MIN_EMAILS = 6  # per situation, for now (the target is 25; most have 20 or more)
SHINGLE = 5  # words per run when two emails are compared
PEOPLE = {first for group in _name_groups() for first in group[0]}
SYSTEM_MAILBOXES = {local for locals_ in SYSTEM_LOCALS.values() for local in locals_}
NEAR_COPY = 0.3  # Jaccard of their runs: the benchmark calls 0.5 a near-duplicate


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", re.sub(r"\{[a-z_0-9]+\}", " ", text.lower()))


def test_nearly_every_situation_is_written_whole_in_every_split() -> None:
    """Generator v4 plays a situation once every split has verified mail for it: since policy
    v5 says a two-step reset or an address change needs nothing from the customer, blind
    readers agree with the truth there too, and every situation is written whole."""
    mail = load_mail()
    playable = [s for s in load_situations_v2() if has_mail(s)]
    assert len(playable) == len(load_situations_v2()), sorted(
        set(s.id for s in load_situations_v2()) - {s.id for s in playable}
    )
    for situation in playable:
        emails = mail[situation.id]
        assert len(emails) >= MIN_EMAILS, situation.id
        if situation.sender == "customer":
            assert all(e.persona.tier in situation.tiers for e in emails), situation.id
            assert all(e.follow_up for e in emails), situation.id
        if situation.handling.needs_info:
            asked = [e for e in emails if e.needs_info is not False]
            assert all(e.answer and e.reference.request for e in asked), situation.id


def test_episodes_draw_only_situations_with_mail_in_their_split() -> None:
    playable = {s.id for s in load_situations_v2() if has_mail(s)}
    for seed in range(10):
        _, origins = generate_with_origins("triage", "validation", "hard", seed, version=4)
        assert {o.situation for o in origins} <= playable


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = _words(text)
    return {tuple(words[i : i + SHINGLE]) for i in range(len(words) - SHINGLE + 1)}


def test_no_email_is_a_near_copy_of_another() -> None:
    """Every email was written on its own: no two of all the written mail share a third of
    their five-word runs (names and ids aside), within a split or across splits, so a memoriser
    of train gains nothing on test and no template siblings hide in the data."""
    emails = [
        (situation, email.split, _shingles(f"{email.subject} {email.body}"))
        for situation, written in load_mail().items()
        for email in written
    ]
    for i, (situation_a, split_a, a) in enumerate(emails):
        for situation_b, split_b, b in emails[i + 1 :]:
            overlap = len(a & b) / max(1, len(a | b))
            assert overlap < NEAR_COPY, (situation_a, split_a, situation_b, split_b, overlap)


def test_an_email_is_one_person_at_one_organisation() -> None:
    """The signature's name is the sender's, their address is at the organisation they
    name, and a second message from them (a duplicate) comes from the same address."""
    checked = 0
    for seed in range(12):
        scenario, origins = generate_with_origins("triage", "test", "hard", seed, version=4)
        by_id = {t.id: t for t in scenario.tickets}
        for ticket, origin in zip(scenario.tickets, origins, strict=True):
            c = ticket.customer
            people = ("customer", "prospect", "press", "lawyer", "public_body", "colleague")
            if c.role in people and not origin.duplicate:  # a short chaser needs no signature
                assert c.name.split()[0] in ticket.body, (origin, c.name, ticket.body[-200:])
                checked += 1
            if c.company and c.role not in ("colleague", "scammer", "notice"):
                domain = ticket.sender.split("@")[1]
                if not domain.endswith(
                    ("gmail.com", "outlook.com", "yahoo.com", "icloud.com", "proton.me", "gmx.net")
                ):
                    assert domain.split(".")[0] == _domain(c.company, "com").split(".")[0]
        for ticket, origin in zip(scenario.tickets, origins, strict=True):
            if origin.duplicate:
                others = [t for t in by_id.values() if t.customer == ticket.customer]
                assert len(others) == 2 and len({t.sender for t in others}) == 1
    assert checked > 50


def test_outside_references_follow_the_writers_format() -> None:
    """A police force writes police references, a court its case numbers: every {ref} is
    filled in the format its writer declared."""
    seen = 0
    for seed in range(60):
        scenario = generate("triage", "train", "medium", seed, version=4)
        for ticket in scenario.tickets:
            for situation_emails in load_mail().values():
                for email in situation_emails:
                    for pattern in email.persona.refs.values():
                        shape = re.escape(pattern).replace("\\#", "#").replace("\\@", "@")
                        shape = shape.replace("#", r"\d").replace("@", "[A-Z]")
                        if re.search(shape, ticket.body):
                            seen += 1
    assert seen > 0


def test_the_same_arguments_give_the_same_episode() -> None:
    a = generate("inbox", "validation", "hard", 5, version=4)
    b = generate("inbox", "validation", "hard", 5, version=4)
    assert a.model_dump_json() == b.model_dump_json()
    c = generate("inbox", "validation", "hard", 6, version=4)
    assert a.model_dump_json() != c.model_dump_json()


def test_the_support_leads_texts_greet_whoever_wrote() -> None:
    """The reference reply opens with the sender's own name (a law firm's writer, not the
    person its letter names)."""
    for seed in range(20):
        for ticket in generate("triage", "test", "medium", seed, version=4).tickets:
            ref = ticket.truth.reference
            if ref is None or not ref.replies:
                continue
            greeting = ref.replies[0].splitlines()[0]
            name = ticket.customer.name
            assert name.split()[0] in greeting or name.split()[-1] in greeting, (
                greeting,
                name,
            )


@pytest.mark.parametrize("mode", ["triage", "ticket", "inbox"])
def test_the_oracle_scores_full_marks_on_whole_mail(mode: str) -> None:
    for split in ("test", "train"):
        for seed in range(4):
            episode = run_episode(
                f"{mode}/generated@v4", make_agent("oracle"), seed, split=split, difficulty="hard"
            )
            assert episode.grade >= 0.999, (mode, split, seed, episode.components)


def test_who_a_message_is_from_fits_what_kind_of_sender_wrote_it() -> None:
    """Readers saw a phish dressed as our IT under a print vendor's name, a supplier's scam on
    another supplier's lookalike domain, and a certificate notice signed by a person: a
    scam shows the name it imitates on a lookalike of that name's domain, our own systems
    write from our domain, and only people write under a person's name."""
    kinds: dict[str, int] = defaultdict(int)
    for seed in range(40):
        scenario, origins = generate_with_origins("triage", "test", "hard", seed, version=4)
        for ticket, origin in zip(scenario.tickets, origins, strict=True):
            name, sender = ticket.customer.name, ticket.sender
            domain = sender.split("@")[1]
            if origin.situation == "fake_invoice":
                imitated = _domain(name, "com").split(".")[0]
                assert domain.split(".")[0] != imitated and domain != "northwind.example"
                kinds["supplier scam"] += 1
            if origin.situation == "internal_phishing":
                assert name.startswith("Northwind Cloud ") and domain != "northwind.example"
                kinds["our IT imitated"] += 1
            if sender.split("@")[0] in SYSTEM_MAILBOXES:
                assert name.split()[0] not in PEOPLE, (name, sender)
                kinds["system"] += 1
    assert min(kinds.values(), default=0) > 0 and len(kinds) == 3, kinds


def test_a_notice_names_its_own_sender_and_a_british_writer_dates_day_first() -> None:
    """Readers saw a monitoring alert of ours pointing to another firm's dashboard, a payment
    provider's notice signed by a print vendor, and "August 20" in British letters."""
    vendors = {v.name for v in pool_v2("test").vendors}
    months = "January|February|March|April|May|June|July|August|September|October|November|December"
    notices = british = 0
    for seed in range(40):
        for ticket in generate("triage", "test", "hard", seed, version=4).tickets:
            if ticket.sender.split("@")[0] in SYSTEM_MAILBOXES:
                others = {v for v in vendors if v in ticket.body and v != ticket.customer.name}
                assert not others, (ticket.customer.name, others)
                notices += 1
            if re.search(r"\b(whilst|colour|organisation|fortnight|VAT|Ltd)\b", ticket.body):
                # "22 January 4:12 p.m." in a quoted header is a day-first date and a time
                us_date = rf"(?<!\d )\b({months}) \d{{1,2}}\b(?![:.]\d)"
                assert not re.search(us_date, ticket.body), ticket.body
                british += 1
    assert notices > 5 and british > 5, (notices, british)


def test_a_senders_country_decides_their_name_their_currency_and_their_dates() -> None:
    """Readers saw a Kenyan first name with a Danish surname, a .co.uk firm billed in dollars and
    "March 10" from Berlin: where the writer's persona card names a country, the episode's
    names come from that country's traditions, a sum the writer left plain is in its currency,
    and its dates are day first where the country writes them so."""
    traditions = _traditions()
    months = "January|February|March|April|May|June|July|August|September|October|November|December"
    seen = 0
    for situation in load_situations_v2():
        for split in ("train", "test"):
            for seed in range(3 * len(emails_for(situation, split))):
                composed, email = compose_whole(
                    random.Random(f"{situation.id}{split}{seed}"), situation, split, 0.0
                )
                place = country_of(email.persona.country)
                if place is None:
                    continue
                currency, day_first, names = place
                slots = composed.slots
                first, last = slots["first_name"], slots["last_name"]
                assert any(first in traditions[n][0] and last in traditions[n][1] for n in names), (
                    email.persona.country,
                    first,
                    last,
                )
                text = f"{email.subject} {email.body}"
                if not any(c in text for c in "£€$"):
                    assert slots["amount"].startswith(currency), (email.persona.country, slots)
                if day_first:
                    assert not re.match(rf"({months}) \d", slots["date"]), slots["date"]
                seen += 1
    assert seen >= 30 or not any(e.persona.country for es in load_mail().values() for e in es), seen


def test_dates_times_and_official_mailboxes_read_as_one_sender_wrote_them() -> None:
    """Readers saw "Wednesday, 19 August" on a Thursday, a clinic opening "at 16:20", a privacy
    regulator writing from icloud.com and "Co., Ltd.." where a name ending in a full stop met the
    writer's own."""
    import calendar

    from inbox_triage.scenarios.generator.senders import YEAR

    months = {m: i for i, m in enumerate(calendar.month_name) if m}
    doubled_stop = re.compile(r"\b(?:Ltd|Inc|Co|Corp|LLC|Pty|Ltda|S\.A)\.\.(?!\.)")
    officials = 0
    for situation in load_situations_v2():
        for split in ("train", "validation", "test"):
            for seed in range(2 * len(emails_for(situation, split))):
                composed, email = compose_whole(
                    random.Random(f"{situation.id}|{split}|{seed}"), situation, split, 0.0
                )
                slots = composed.slots
                a, b = slots["date"].split()
                day, month = (a, b) if a.isdigit() else (b, a)
                weekday = calendar.day_name[calendar.weekday(YEAR, months[month], int(day))]
                assert slots["weekday"] == weekday, (slots["date"], slots["weekday"])
                for key in ("morning_time", "afternoon_time"):
                    assert slots[key].endswith((":00", ":30")), slots[key]
                assert not doubled_stop.search(composed.body), composed.body
                official = situation.sender in ("public_body", "lawyer")
                if official and email.persona.address == "work":
                    assert composed.sender.split("@")[1] not in PERSONAL_DOMAINS, composed.sender
                    officials += 1
    assert officials >= 10, officials


def test_where_a_sender_is_shows_in_their_domain_and_what_they_bill_fits_who_they_are() -> None:
    """Readers saw a Spanish regulator on a .gov address, a UK charity on a .com, a supplier's
    bank-change scam chasing "$12.00" and an annual plan at "€19.99"."""
    from inbox_triage.scenarios.generator.senders import top_level, where_from

    placed = invoices = 0
    for situation in load_situations_v2():
        for split in ("train", "test"):
            for seed in range(2 * len(emails_for(situation, split))):
                composed, email = compose_whole(
                    random.Random(f"{situation.id}/{split}/{seed}"), situation, split, 0.0
                )
                p = email.persona
                where = p.country or where_from(p)
                if (
                    where
                    and p.org_names
                    and p.address == "work"
                    and situation.sender
                    not in (
                        "colleague",
                        "scammer",
                    )
                ):
                    public = situation.sender == "public_body"
                    assert composed.sender.endswith("." + top_level(where, public)), (
                        where,
                        composed.sender,
                    )
                    placed += 1
                amount = float(re.sub(r"[^\d.]", "", composed.slots["amount"]))
                if situation.sender in ("vendor", "scammer"):
                    assert amount >= 480, composed.slots["amount"]
                    invoices += 1
                elif situation.sender == "customer" and re.search(
                    r"\bannual\b", f"{email.subject} {email.body}", re.I
                ):
                    assert amount >= 100, composed.slots["amount"]
    assert placed >= 50 and invoices >= 20, (placed, invoices)
