"""Generator v2: mail that reads like mail, a policy that decides every kind of it, a linter that
proves it, and v1 still playable by name."""

from __future__ import annotations

import re

import pytest

from inbox_triage.domain import Customer, CustomerReply, ThreadMessage, Ticket, Truth
from inbox_triage.env import InboxTriageEnv
from inbox_triage.scenarios.generator import generate
from inbox_triage.scenarios.generator.corpus import lint_corpus, near_duplicates, sample
from inbox_triage.scenarios.generator.data import load_situations_v2, mode_org
from inbox_triage.scenarios.generator.lint import lint_ticket
from inbox_triage.scenarios.generator.schema_v2 import ROLES
from inbox_triage.scenarios.loader import ScenarioError, load_policy
from inbox_triage.scenarios.sources import make_scenario

# ---------------------------------------------------------------- versions


def test_v1_and_v2_play_by_name_and_v3_is_the_default():
    v1 = make_scenario("triage/generated@v1", split="test", seed=4)
    assert v1 == generate("triage", "test", "medium", 4, version=1)
    assert v1.version == 1 and v1.policy.text.startswith("# Support policy (v2)")
    assert all(t.customer.role is None for t in v1.tickets)
    v2 = make_scenario("triage/generated@v2", split="test", seed=4)
    assert v2.version == 2 and v2.policy.text.startswith("# Support policy (v3)")
    assert all(t.customer.role is not None and t.customer.known_as is None for t in v2.tickets)
    assert "| T14 |" in v2.org.guide  # the routing guide with its row codes
    v3 = make_scenario("triage/generated", split="test", seed=4)
    assert v3.version == 3 and v3.policy.text.startswith("# Support policy (v4)")
    assert all(t.customer.known_as is not None for t in v3.tickets)
    assert "| Q1 |" in v3.org.guide and v3.org.overflow_queue == "backlog"


def test_an_unknown_generator_version_is_refused_by_name():
    with pytest.raises(ScenarioError, match="versions @v1, @v2, @v3, @v4"):
        make_scenario("triage/generated@v7", seed=0)
    with pytest.raises(ScenarioError, match="generator version 5 is not one of 1, 2, 3, 4"):
        generate("triage", version=5)


def test_fixed_tasks_keep_the_policy_they_were_published_with():
    env = InboxTriageEnv()
    obs = env.reset(task="triage/easy")
    assert obs.policy.startswith("# Support policy (v2)")


def test_the_newest_generator_plays_the_same_in_process_and_by_task_id():
    a = InboxTriageEnv().reset(task="inbox/generated", seed=9, split="validation")
    b = InboxTriageEnv().reset(task="inbox/generated@v3", seed=9, split="validation")
    assert a.model_dump() == b.model_dump()


# ---------------------------------------------------------------- the policy decides


def _guide_rows(guide: str) -> dict[str, list[str]]:
    rows = {}
    for line in guide.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if re.fullmatch(r"[A-Z]\d+", cells[0]):
            rows[cells[0]] = cells
    return rows


def test_every_situation_names_the_clauses_that_decide_it_and_its_truth_follows_them():
    text = load_policy("support_policy", 3).text
    levels = dict(re.findall(r"\*\*([A-Z]\d)\*\* \((urgent|high|medium|low|spam)\b", text))
    reviews = set(re.findall(r"\*\*(V\d)\*\*", text))
    triage = _guide_rows(mode_org("triage", 2).guide)
    ticket = _guide_rows(mode_org("ticket", 2).guide)
    inbox = _guide_rows(mode_org("inbox", 2).guide)
    for s in load_situations_v2():
        c, h = s.clauses, s.handling
        assert levels[c.priority] == h.priority, s.id
        assert triage[c.triage][-2:] == [h.category, h.triage_route], s.id
        assert c.review in reviews and (c.review != "V0") == h.flag_review, s.id
        if "ticket" in s.modes:
            assert ticket[c.ticket][-1] == h.ticket_team, s.id  # type: ignore[index]
        if "inbox" in s.modes:
            assert inbox[c.inbox][2] == h.inbox_queue, s.id  # type: ignore[index]
        if c.multi is not None:
            assert f"**{c.multi}**" in text, s.id


def test_the_policy_gaps_readers_hit_are_decided():
    """Kinds of mail a careful reader had to guess about under policy v2."""
    ids = {s.id for s in load_situations_v2()}
    for needed in (
        "churn_threat",
        "go_public_threat",
        "press_inquiry",
        "harassment_report",
        "feature_request",
        "damaged_delivery",
        "forgotten_renewal_refund",
        "it_internal_request",
        "plan_upgrade_seats",
        "two_matters_charge_and_question",
        "vendor_terms_update",
        "stolen_card_fraud",
    ):
        assert needed in ids
    assert len(ids) >= 50
    assert all(len(s.families) >= 4 for s in load_situations_v2())


# ---------------------------------------------------------------- senders


def _emails(split: str, count: int):
    return [e for _, batch in sample(2, split, count) for e in batch]


def test_senders_are_who_they_say():
    emails = _emails("train", 600)
    customers = {e.ticket.customer.company for e in emails if e.ticket.customer.role == "customer"}
    roles = set()
    for e in emails:
        t, role = e.ticket, e.ticket.customer.role
        roles.add(role)
        domain = t.sender.rsplit("@", 1)[1]
        if role == "customer":
            assert t.customer.account_id is not None
        else:
            assert t.customer.tier == "standard" and t.customer.account_id is None, t.id
            assert e.mode == "triage"
        if role == "colleague":
            assert domain == "northwind.example"
        elif domain == "northwind.example":
            pytest.fail(f"{role} {t.sender} writes from our own domain")
        if role in ("press", "lawyer", "public_body"):
            assert t.customer.company not in customers
    assert {"customer", "colleague", "press", "scammer", "notice", "vendor"} <= roles


def test_v2_still_shows_the_sender_role_as_published_and_v3_only_the_records():
    env = InboxTriageEnv()
    obs = env.reset(task="triage/generated@v2", seed=2, split="test", difficulty="hard")
    assert {e["sender_role"] for e in obs.inbox} <= set(ROLES)  # which leaks (issue 29)
    v1 = env.reset(task="triage/generated@v1", seed=2, split="test", difficulty="hard")
    assert all("sender_role" not in e for e in v1.inbox)
    v3 = env.reset(task="triage/generated", seed=2, split="test", difficulty="hard")
    assert all("sender_role" not in e and "sender_known_as" in e for e in v3.inbox)


def test_a_forward_comes_from_a_colleague_and_names_the_customer():
    forwards = [e.ticket for e in _emails("train", 900) if "Forwarded message" in e.ticket.body]
    assert forwards
    for t in forwards:
        header = re.search(r"^From: (.+?) <(.+?)>$", t.body, re.M)
        assert header is not None
        assert header[1] == t.customer.name and header[2] == t.customer.email
        assert t.sender != t.customer.email
        assert t.sender.split("@")[1] == t.customer.email.split("@")[1]


def test_a_thread_is_a_real_earlier_exchange_shown_once():
    threaded = [e.ticket for e in _emails("train", 900) if e.ticket.thread]
    assert threaded
    for t in threaded:
        first, ack = t.thread
        assert first.sender == t.customer.email and ack.sender.startswith("support@")
        assert first.minutes_ago > ack.minutes_ago
        assert ack.body not in t.body and first.body not in t.body
        assert t.customer.role == "customer"


# ---------------------------------------------------------------- splits and variety


def test_families_never_cross_splits():
    for split, allowed in (("test", {0}), ("validation", {1}), ("train", None)):
        for e in _emails(split, 300):
            if allowed is None:
                assert e.origin.family >= 2
            else:
                assert e.origin.family in allowed


def test_few_bodies_of_a_split_are_near_duplicates():
    emails = _emails("test", 1000)
    bodies = [e.ticket.body for e in emails]
    rate = len(near_duplicates(bodies)) / len(bodies)
    assert rate <= 0.05, f"{rate:.1%} of test bodies are near-duplicates"


def test_near_duplicates_are_found():
    a = "the export stops at ninety percent every single time and the page never loads again"
    b = a.replace("ninety", "eighty")
    c = "my parcel came yesterday with a cracked case and the unit will not turn on at all"
    assert near_duplicates([a, a + " thanks", c]) == {0, 1}
    assert near_duplicates([a, b, c]) == set()  # one word apart kills 5 of 12 shingles


# ---------------------------------------------------------------- the linter


def test_a_sample_of_v2_lints_clean():
    for split in ("train", "validation", "test"):
        read, findings = lint_corpus(2, split, 400)
        assert read == 400
        assert not findings, "\n".join(f.line() for f in findings[:10])


def test_the_linter_finds_v1s_artefacts():
    _, findings = lint_corpus(1, "train", 400)
    kinds = {f.kind for f in findings}
    assert {"cut_domain", "double_signature", "misnamed_forward", "unfilled_slot"} <= kinds
    assert all(f.situation and f.seed is not None for f in findings if f.ticket != "-")


TRUTH = Truth(priority="medium", category="general_inquiry", queue="support_tier1")


def _ticket(body: str, **kw) -> Ticket:
    fields = {
        "id": "E1",
        "sender": "maya.lind@harborfinch.com",
        "subject": "Question about exports",
        "body": body,
        "customer": Customer(
            name="Maya Lind",
            email="maya.lind@harborfinch.com",
            tier="standard",
            company="Harbor & Finch Logistics",
            role="customer",
            account_id="ACC-1",
        ),
        "truth": TRUTH,
    }
    fields.update(kw)
    return Ticket(**fields)


CLEAN = """Hi,

Our weekly report export has stopped including last month's invoices. I tried again this
morning at 09:40 and got the same short file.

Could someone take a look?

Thanks,
Maya Lind
Harbor & Finch Logistics"""


def kinds(ticket: Ticket) -> set[str]:
    return {f.kind for f in lint_ticket(ticket)}


def test_hand_written_clean_mail_has_no_findings():
    assert kinds(_ticket(CLEAN)) == set()


@pytest.mark.parametrize(
    ("kind", "changes"),
    [
        ("unfilled_slot", {"body": CLEAN.replace("invoices", "{feature} invoices")}),
        ("unfilled_slot", {"subject": "Question about [exports|reports]"}),
        ("double_signature", {"body": CLEAN + "\n\nBest regards,\nMaya"}),
        ("time_contradiction", {"body": CLEAN.replace("09:40", "16:15")}),
        ("spliced_greeting", {"body": CLEAN + "\n\nP.S. Unrelated, but while I'm writing: Hi,"}),
        (
            "duplicated_sentence",
            {
                "body": CLEAN.replace("Could someone", "I got the same short file again. Could")
                + "\n\nI got the same short file again."
            },
        ),
        ("cut_domain", {"sender": "maya.lind@harborfinchlogisti.com"}),
        (
            "misnamed_forward",
            {
                "body": "Forwarding this from Omar Tal, can you take it?\n\n---------- Forwarded "
                "message ---------\nFrom: Maya Lind <maya.lind@harborfinch.com>\n\n" + CLEAN
            },
        ),
        ("role_contradiction", {"sender": "maya.lind@northwind.example"}),
        ("tier_contradiction", {"body": CLEAN.replace("Could", "We pay for 300 seats. Could")}),
        (
            "product_misfit",
            {"body": CLEAN.replace("weekly report export", "Northwind Ledger parcel")},
        ),
        (
            "repeated_acknowledgement",
            {
                "thread": (
                    ThreadMessage(
                        sender="support@northwind.example",
                        body="Thanks for contacting Northwind Cloud. We have your message.",
                        minutes_ago=900,
                    ),
                ),
                "body": CLEAN
                + "\n\n> Thanks for contacting Northwind Cloud. We have your message.",
            },
        ),
        ("stock_identifier", {"body": CLEAN + "\n\nMaya Lind\nContoso Ltd\n(614) 555-0147"}),
        ("self_greeting", {"body": "Hi Maya,\n\n" + CLEAN}),
        (
            "official_from_webmail",
            {
                "sender": "maya.lind@gmail.com",
                "customer": Customer(
                    name="Maya Lind", email="maya.lind@gmail.com", tier="standard",
                    role="public_body",
                ),
            },
        ),
        (
            "answer_contradiction",
            {
                "customer_reply": CustomerReply(
                    body="Attached is the screen recording. I have attached the screenshot and "
                    "the invoice; the reference is ORD-1."
                )
            },
        ),
    ],
)
def test_the_linter_finds_each_artefact(kind: str, changes: dict):
    assert kind in kinds(_ticket(changes.pop("body", CLEAN), **changes))


def test_real_short_forms_of_a_company_name_are_not_cut_domains():
    for sender, company in (
        ("a.b@yarrowpharma.com", "Yarrow Pharmaceuticals"),
        ("a.b@harborfinch.com", "Harbor & Finch Logistics"),
        ("a.b@hfl.io", "Harbor & Finch Logistics"),
    ):
        ticket = _ticket(CLEAN, sender=sender)
        ticket = ticket.model_copy(
            update={"customer": ticket.customer.model_copy(update={"company": company})}
        )
        assert "cut_domain" not in kinds(ticket), sender
