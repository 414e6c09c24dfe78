"""Only true, specific text pays (issue 30): a point stated under a negation is not stated, a
text that denies the email scores zero, stock text and the subject's words earn little, and an
information request earns by asking for what this case needs."""

from __future__ import annotations

import pytest

from inbox_triage.domain.text import normalise
from inbox_triage.grading import grade_info_request, grade_reply, grade_summary
from inbox_triage.grading.polarity import negation_flags
from inbox_triage.grading.rubric import stuffing_terms_for
from inbox_triage.scenarios import load_task

TRIAGE = load_task("triage/easy")
HACKED = TRIAGE.ticket("e001")  # "Someone logged into my account ... changed my email address"
TERMS = stuffing_terms_for(TRIAGE)
BILLING = load_task("ticket/medium_double_charge")
DOUBLE = BILLING.tickets[0]  # "My card was charged $249.00 twice on the 1st ..."


def denied_words(text: str) -> list[str]:
    flags, _ = negation_flags(text)
    return [w for w, no in zip(normalise(text).split(), flags, strict=True) if no]


@pytest.mark.parametrize(
    ("text", "denied", "stated"),
    [
        ("This isn't a double charge.", ["double", "charge"], []),
        ("The outage is no longer an issue.", ["outage"], []),
        ("Not only a double charge but a late renewal too.", [], ["double", "renewal"]),
        ("A double charge, not a renewal.", ["renewal"], ["double", "charge"]),
        ("It has nothing to do with billing, refunds or renewals.", ["refunds", "renewals"], []),
        ("The customer, who didn't authorise it, was charged twice.", [], ["charged", "twice"]),
        ("Reply no later than Friday; don't hesitate to send the receipt.", [], ["receipt"]),
        ("Nobody in the company can sign in.", ["sign"], ["company"]),
    ],
)
def test_a_negation_reaches_what_it_denies_and_no_further(text, denied, stated):
    got = denied_words(text)
    assert all(w in got for w in denied), (text, got)
    assert not any(w in got for w in stated), (text, got)


def test_a_summary_that_denies_the_email_scores_zero_with_its_own_reason():
    faithful = "Maria's account was hacked overnight and she wants it locked."
    denial = "Maria says her account was not hacked and there is no need to lock anything."
    assert grade_summary(faithful, HACKED, TERMS, org=TRIAGE.org).score == 1.0
    result = grade_summary(denial, HACKED, TERMS, org=TRIAGE.org)
    assert (result.score, result.reason) == (0.0, "contradicts")
    question = "Was Maria's account hacked? Should it be locked?"
    assert grade_summary(question, HACKED, TERMS, org=TRIAGE.org).score == 0.0


def test_a_reply_that_contradicts_the_email_scores_zero():
    honest = (
        "Hi Maria,\n\nI'm sorry someone got into your account and changed your email address "
        "overnight. We have locked the account so nobody else can use it, and our security team "
        "is investigating the sign-in from abroad.\n\nBest,\nSam"
    )
    denial = (
        "Hi Maria,\n\nYour account was not hacked and nothing is wrong. We will not lock it and "
        "our security team will not investigate anything.\n\nBest,\nSam"
    )
    assert grade_reply(honest, HACKED, TRIAGE.policy, TERMS, org=TRIAGE.org).score == 1.0
    result = grade_reply(denial, HACKED, TRIAGE.policy, TERMS, org=TRIAGE.org)
    assert (result.score, result.reason) == (0.0, "contradicts")


def test_a_reply_saying_it_is_all_settled_already_scores_zero():
    settled = (
        "Hi Maria,\n\nGood news: this was fully resolved before you wrote, so there is nothing "
        "left to do. The account was locked already and our security team has dealt with it. "
        "The case is closed.\n\nBest,\nSam"
    )
    result = grade_reply(settled, HACKED, TRIAGE.policy, TERMS, org=TRIAGE.org)
    assert (result.score, result.reason) == (0.0, "contradicts")


def test_the_subjects_words_reordered_or_pasted_state_nothing():
    subject = "URGENT: My account has been hacked!"
    reordered = "hacked been has account my URGENT"
    assert grade_summary(reordered, HACKED, TERMS, org=TRIAGE.org).reason == "reordered"
    # the subject pasted in front of a stock line earns no more than the stock line
    stock = "Customer needs help with their account and wants a quick answer from the team."
    alone = grade_summary(stock, HACKED, TERMS, org=TRIAGE.org).score
    pasted = grade_summary(f"{subject} {stock}", HACKED, TERMS, org=TRIAGE.org).score
    assert pasted == alone <= 0.3


def test_a_stock_reply_for_the_team_earns_little_a_reply_about_this_email_full_marks():
    stock = (
        "Hi Rebecca,\n\nThanks for flagging the charge. Our billing team will review your "
        "account and look into the payment, and get back to you.\n\nBest regards,\nSam"
    )
    specific = (
        "Hi Rebecca,\n\nI'm sorry your card was charged $249.00 twice on the 1st for one Premium "
        "workspace. Our billing team will review the second charge and write to you as soon as "
        "they have checked it.\n\nBest regards,\nSam"
    )
    policy = BILLING.policy
    terms = stuffing_terms_for(BILLING)
    assert grade_reply(stock, DOUBLE, policy, terms, org=BILLING.org).score <= 0.4
    assert grade_reply(specific, DOUBLE, policy, terms, org=BILLING.org).score == 1.0


def test_a_reply_naming_someone_elses_mail_scores_zero():
    leak = (
        "Hi Maria,\n\nWe have locked your account and our security team is investigating the "
        "sign-in from abroad. You are not alone: Tom Becker wrote to us about an overdue invoice "
        "just this week.\n\nBest,\nSam"
    )
    result = grade_reply(leak, HACKED, TRIAGE.policy, TERMS, org=TRIAGE.org)
    assert (result.score, result.reason) == (0.0, "another customer")


@pytest.mark.parametrize(
    ("asked", "low", "high"),
    [
        ("Could you send the receipt and the date of the charge?", 1.0, 1.0),
        # one kind the case does not need, in passing, costs nothing; every kind at once, all
        ("Could you send the transaction id, or a screenshot of your bank statement?", 1.0, 1.0),
        (
            "Please send the receipt, the tracking number, a photo of the parcel, a screenshot "
            "of the error, your browser and device, and the serial number.",
            0.0,
            0.0,
        ),
        # evidence for another kind of case, or none at all
        ("Could you send a screenshot of the error and the steps to reproduce it?", 0.0, 0.0),
        ("Could you tell us more about Charged twice for my subscription this month?", 0.0, 0.0),
        # saying what it does not need asks for nothing
        ("No need to send the receipt or the bank statement; we have all we need.", 0.0, 0.0),
    ],
)
def test_an_information_request_earns_by_asking_for_what_this_case_needs(asked, low, high):
    result = grade_info_request(asked, DOUBLE, BILLING.policy)
    assert low <= result.score <= high, (asked, result)
