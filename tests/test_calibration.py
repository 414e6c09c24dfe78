"""The grader against people: hand-written summaries and replies (tests/data/calibration) must
score as the careful support lead who judged them would score them."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from inbox_triage.env import InboxTriageEnv
from inbox_triage.evaluation.calibration import (
    context_for,
    grade_set,
    load_set,
    scenario_for,
    summarise,
)
from inbox_triage.scenarios.sources import make_scenario

CALIBRATION = Path(__file__).parent / "data" / "calibration"
HOLDOUT = CALIBRATION / "holdout"
BAD_KINDS = {
    "paste",
    "keyword_list",
    "synonym_fishing",
    "other_email",
    "generic",
    "asks_secret",
    "promises",
    "wrong_name",
    "empty",
}
# Held-out texts a support lead calls good that the grader cannot score fairly, because the
# email's hidden truth disagrees with what the agent is shown (generator defects, issue 20):
# E658 is a follow-up whose visible text is a password-reset chase while its truth is an
# account takeover; TCK-464's right team is the account team while its reply points name legal.
TRUTH_DEFECTS = {("E658", "summary"), ("TCK-464", "reply")}


@pytest.fixture(scope="module")
def graded():
    return grade_set(load_set(CALIBRATION))


def test_the_set_is_large_and_spans_modes_difficulties_splits_and_fixed_tasks():
    emails = json.loads((CALIBRATION / "emails.json").read_text(encoding="utf-8"))
    refs = [e["ref"] for e in emails]
    assert len(refs) >= 150
    generated = [r for r in refs if r["task"].endswith("/generated@v1")]
    assert {r["task"].split("/")[0] for r in generated} == {"triage", "ticket", "inbox"}
    assert {r["difficulty"] for r in generated} == {"easy", "medium", "hard"}
    assert {r["split"] for r in generated} >= {"train", "test"}
    assert len([r for r in refs if not r["task"].endswith("/generated@v1")]) >= 5
    texts = load_set(CALIBRATION)
    kinds = Counter((t.field, t.kind) for t in texts)
    for field in ("summary", "reply"):
        assert kinds[field, "good"] >= 100 and kinds[field, "terse"] >= 100
    assert {k for _, k in kinds} == {"good", "terse"} | BAD_KINDS
    # every text carries a person's judgement, consistent with its kind, and a reason
    for t in texts:
        want = {"good": "good", "terse": "acceptable"}.get(t.kind, "bad")
        assert t.judgement == want, (t.ticket_id, t.kind, t.judgement)
        assert t.why.strip()


def test_every_email_is_still_the_one_its_writer_read():
    """A generator change that alters a calibration email must re-record the set, not silently
    grade texts against mail their writers never saw."""
    for folder in (CALIBRATION, HOLDOUT):
        for entry in json.loads((folder / "emails.json").read_text(encoding="utf-8")):
            ref = tuple(sorted(entry["ref"].items()))
            ticket, _ = context_for(ref)
            assert (ticket.subject, ticket.body) == (
                entry["email"]["subject"],
                entry["email"]["body"],
            ), entry["ref"]


def test_the_grader_meets_the_targets_on_the_calibration_set(graded):
    summaries = summarise(graded)
    failures = [f for s in summaries for f in s.failures()]
    assert not failures, failures
    kinds = {(s.field, s.kind) for s in summaries}
    assert ("summary", "good") in kinds and ("reply", "promises") in kinds


def test_the_held_out_set_written_after_the_grader_meets_the_targets_too():
    """Texts written by other people after the grader was tuned: the same targets, except for
    the good texts whose email's truth is wrong (TRUTH_DEFECTS), which are named."""
    results = grade_set(load_set(HOLDOUT))
    fair = [r for r in results if (r.text.ticket_id, r.text.field) not in TRUTH_DEFECTS]
    failures = [f for s in summarise(fair) for f in s.failures()]
    assert not failures, failures
    unfair = [r for r in results if (r.text.ticket_id, r.text.field) in TRUTH_DEFECTS]
    assert {(r.text.ticket_id, r.text.field) for r in unfair} == TRUTH_DEFECTS
    for r in unfair:  # still no bad kind among them passes for good
        if r.text.kind in BAD_KINDS:
            assert r.score <= 0.4


def test_every_zero_says_why(graded):
    reasons = Counter(r.reason for r in graded if r.score == 0.0)
    assert "" not in reasons
    # the shortcuts people took are each recognised for what they are
    for reason in ("pasted", "keyword list", "policy", "wrong name", "empty", "synonyms"):
        assert reasons[reason] > 0, reasons


# The e001 texts of issue 19 (triage/easy seed 0, "URGENT: My account has been hacked!").
LONG_SUMMARY = (
    "Customer reports account takeover: login from abroad, email address changed, locked out. "
    "Needs lockdown."
)
TERSE_SUMMARY = "Customer reports account takeover; locked out."
REPLY = (
    "Hi Maria, I'm sorry to hear someone got into your account. We have locked it so nobody "
    "else can sign in, and our security team is investigating what happened."
)


def _e001(summary: str, reply: str) -> tuple[float, float, dict[str, str]]:
    """e001's summary and reply scores as the console plays it: one triage decision."""
    env = InboxTriageEnv()
    env.reset(task="triage/easy", seed=0)
    truth = env.scenario.ticket("e001").truth
    env.step(
        {
            "email_id": "e001",
            "priority": truth.priority,
            "category": truth.category,
            "route_to": truth.queue,
            "summary": summary,
            "reply_draft": reply,
            "flag_review": truth.flag_review,
        }
    )
    grade = env.grade().as_dict()["components"]
    n = len(env.scenario.tickets)  # the others are untouched and score 0
    notes = {k: grade[k]["explanation"] for k in ("summary", "reply")}
    return grade["summary"]["score"] * n, grade["reply"]["score"] * n, notes


def test_e001_long_specific_summary_scores_full_marks_like_the_terse_one():
    long_score, _, _ = _e001(LONG_SUMMARY, REPLY)
    terse_score, _, _ = _e001(TERSE_SUMMARY, REPLY)
    assert long_score == pytest.approx(1.0)
    assert terse_score == pytest.approx(1.0)


def test_e001_reply_scores_no_lower_for_naming_the_login_from_abroad():
    _, base, _ = _e001(TERSE_SUMMARY, REPLY)
    _, specific, _ = _e001(TERSE_SUMMARY, REPLY + " We will review the login from another country.")
    _, security, _ = _e001(TERSE_SUMMARY, REPLY + " Our account security team is on it.")
    assert base == pytest.approx(1.0)
    assert specific >= base and security >= base


def test_e001_zero_names_the_email_and_the_words_that_caused_it():
    stuffed = (
        "Account takeover and she is locked out; she also mentions a subpoena, a chargeback on "
        "her invoice, an outage and a GDPR erasure."
    )
    summary, _, notes = _e001(stuffed, REPLY)
    assert summary == 0.0
    note = notes["summary"]
    assert "e001 summary 0:" in note
    assert "terms from other emails" in note and "'subpoena'" in note


def test_replies_are_refused_for_the_wrong_name_promises_and_secrets():
    scenario = make_scenario("triage/easy", seed=0)
    from inbox_triage.grading import grade_reply
    from inbox_triage.grading.stuffing import stuffing_terms_for

    ticket, terms = scenario.ticket("e001"), stuffing_terms_for(scenario)

    def score(text: str) -> tuple[float, str]:
        r = grade_reply(text, ticket, scenario.policy, terms, org=scenario.org)
        return r.score, r.note

    assert score(REPLY)[0] == 1.0
    wrong = score(REPLY.replace("Hi Maria", "Hi Priya"))
    assert wrong[0] == 0.0 and "'Priya'" in wrong[1]
    assert score(REPLY + " We'll credit your account for the trouble.")[0] == 0.0
    assert score(REPLY + " The fix will be live by Thursday.")[0] == 0.0
    assert score(REPLY + " To verify you, reply with the code from your authenticator app and "
                 "your password.")[0] == 0.0
    # safe instructions are not requests
    for safe in (
        " Please don't send us your password; we will never ask for it.",
        " If you forward the alert, remove any codes or passwords first.",
    ):
        assert score(REPLY + safe)[0] == 1.0, safe


def test_scenarios_of_the_set_are_built_once():
    ref = tuple(sorted(json.loads((CALIBRATION / "emails.json").read_text())[0]["ref"].items()))
    assert scenario_for(ref) is scenario_for(ref)


def _graded(ticket_id: str, field: str, text: str) -> tuple[float, str]:
    for folder in (CALIBRATION, HOLDOUT):
        for entry in json.loads((folder / "emails.json").read_text(encoding="utf-8")):
            if entry["ref"]["ticket"] != ticket_id:
                continue
            ref = tuple(sorted(entry["ref"].items()))
            ticket, seen = context_for(ref)
            scenario = scenario_for(ref)
            from inbox_triage.grading import grade_reply, grade_summary
            from inbox_triage.grading.stuffing import stuffing_terms_for

            terms = stuffing_terms_for(scenario)
            if field == "summary":
                r = grade_summary(text, ticket, terms, context=seen)
            else:
                r = grade_reply(text, ticket, scenario.policy, terms, context=seen)
            return r.score, r.note
    raise KeyError(ticket_id)


def test_cheap_shapes_that_dodge_the_checks_do_not_pay():
    # a hyphen chain is a list of terms, in a summary and in a reply
    chain = "subpoena-court-order-3-days-deadline-records-logs-legal-team"
    assert _graded("E178", "summary", chain)[0] == 0.0
    assert _graded("E178", "reply", "Hi Malik, " + chain + "-counsel-attorney")[0] == 0.0
    # naming the right team among others, where an email has no key points, is hedging
    assert _graded("T-302", "summary", "Routing to account, billing or security.")[0] == 0.0
    # the email's ordinary words without one of its points earn half marks at most
    assert _graded("E176", "summary", "Customer wrote in, maybe together, some cost involved.")[
        0
    ] <= 0.5


def test_greetings_that_name_nobody_are_not_the_wrong_name():
    body = (
        " thank you for telling us that someone logged into your account from another country "
        "last night and changed your email address. We have locked the account and our "
        "security team is investigating."
    )
    for opening in ("Hi,", "Hello, We are sorry.", "Dear Customer,", "Dear Valued Customer,"):
        score, note = _graded("e001", "reply", opening + body)
        assert "greets" not in note, (opening, note)
    for opening in ("Hello again Maria,", "Hi Maria-Lopez,", "Dear Ms Lopez,"):
        assert _graded("e001", "reply", opening + body)[0] == 1.0, opening
    assert "greets 'Priya'" in _graded("e001", "reply", "Hi Priya," + body)[1]


def test_notes_quote_the_agents_words_not_the_graders_phrasings():
    text = (
        "Account takeover and she is locked out; she also disputed a chargeback, mentions "
        "erasing her data under GDPR, an outage and a subpoena."
    )
    score, note = _graded("e001", "summary", text)
    assert score == 0.0 and "terms from other emails" in note
    assert "'disputed'" in note and "'dispute'" not in note
