"""Replies and summaries are graded on content; shortcuts score low (DESIGN.md, rule 7)."""

from __future__ import annotations

import pytest

from inbox_triage.agents import compose_reply
from inbox_triage.env import InboxTriageEnv
from inbox_triage.grading import grade_reply, grade_summary
from inbox_triage.grading.rubric import stuffing_terms_for
from inbox_triage.scenarios import load_task

SCENARIO = load_task("triage/easy")
HACKED = SCENARIO.ticket("e001")
INVOICE = SCENARIO.ticket("e004")
POLICY = SCENARIO.policy
TERMS = stuffing_terms_for(SCENARIO)
# A reply about this email: it tells back what happened (someone signed in from another country
# and changed the email address) before saying what is being done.
GOOD = compose_reply(
    "Maria",
    [
        "I'm sorry someone signed in to your account from another country and changed your "
        "email address overnight",
        "We have locked your account so nobody else can use it",
        "Our security team is investigating the sign-in from abroad",
    ],
)


def score(text: str | None, ticket=HACKED) -> float:
    return grade_reply(text, ticket, POLICY, TERMS).score


def test_a_good_reply_scores_full_marks():
    assert score(GOOD) == pytest.approx(1.0)


def test_pasting_the_email_back_scores_zero():
    assert score(HACKED.body) == 0.0
    assert score("Hi Maria, " + HACKED.body) == 0.0


def test_keyword_lists_score_zero():
    stuffed = "Maria locked secure security team specialist investigating freeze suspend"
    assert score(stuffed) == 0.0


def test_stuffing_every_policy_keyword_scores_zero():
    keywords = ", ".join(sorted(TERMS.terms))
    assert score(GOOD + " Also relevant: " + keywords + ".") == 0.0


def test_asking_for_a_password_or_full_card_number_scores_zero():
    assert score(GOOD + " Please send us your password so we can check.") == 0.0
    assert score(GOOD + " Reply with your full card number to verify.") == 0.0
    assert score(GOOD + " What is the verification code we texted you?") == 0.0


def test_warning_not_to_share_a_password_is_fine():
    assert score(GOOD + " Never share your password with anyone, including us.") == 1.0
    assert score(GOOD + " Could you confirm the last four digits of your card number?") == 1.0


def test_promises_the_policy_forbids_score_zero():
    assert score(GOOD + " We will refund every charge today.", INVOICE) == 0.0
    assert score(GOOD + " This is guaranteed to be fixed by Friday.") == 0.0


def test_facts_gate_the_score_a_polite_generic_reply_earns_nothing():
    generic = compose_reply("Maria", ["Thanks for getting in touch with us today"])
    assert score(generic) == 0.0


def test_addressing_and_length_matter():
    unaddressed = GOOD.replace("Hi Maria,", "Hello,")
    assert 0.5 < score(unaddressed) < 1.0
    rambling = GOOD + " We value you." * 120
    assert 0.5 < score(rambling) < 1.0


def test_a_reply_to_spam_scores_zero_and_silence_scores_full():
    spam = SCENARIO.ticket("e002")
    assert score(None, spam) == 1.0
    assert score(GOOD, spam) == 0.0


def test_summary_in_own_words_scores_and_a_pasted_one_does_not():
    assert grade_summary("Account hacked; customer wants it locked.", HACKED).score == 1.0
    assert grade_summary(HACKED.body[:280], HACKED).score == 0.0
    assert grade_summary(None, HACKED).score == 0.0


def test_quoting_internal_notes_scores_zero():
    scenario = load_task("inbox/medium_billing_bug_mix")
    ticket = scenario.ticket("T-210")
    note = ticket.internal_notes[0]
    env = InboxTriageEnv()
    env.reset(task="inbox/medium_billing_bug_mix")
    env.step(
        {
            "action_type": "respond_ticket",
            "ticket_id": "T-210",
            "response_template": "billing_review",
            "response_text": "FYI: " + note,
        }
    )
    component = {c.name: c for c in env.grade().components}["response"]
    assert component.score == 0.0
    assert "breaks policy" in component.explanation


def test_untouched_inbox_scores_zero_and_finishing_at_once_scores_zero():
    env = InboxTriageEnv()
    for task in ("triage/hard", "ticket/medium_double_charge", "inbox/medium_billing_bug_mix"):
        env.reset(task=task)
        assert env.grade().value == 0.0
    env.reset(task="inbox/medium_billing_bug_mix")
    obs = env.step({"action_type": "finish"})
    assert obs.done and obs.metadata["grade"]["value"] == 0.0


def test_every_component_carries_an_explanation_without_the_answer():
    env = InboxTriageEnv()
    env.reset(task="triage/easy")
    env.step(
        {
            "email_id": "e002",
            "priority": "low",
            "category": "general_inquiry",
            "route_to": "archive",
        }
    )
    grade = env.grade().as_dict()
    assert abs(sum(c["weight"] for c in grade["components"].values()) - 1.0) < 1e-9
    for name, component in grade["components"].items():
        assert component["explanation"], name
        assert "spam_phishing" not in component["explanation"]
        assert "trash" not in component["explanation"]


def test_ids_in_a_ticket_count_as_its_own_facts_not_as_stuffing():
    reply = compose_reply(
        "Tom",
        [
            "Our billing team is checking INV-2024-0042 and the late fee",
            "They will confirm the outcome by email",
        ],
    )
    assert score(reply, INVOICE) == pytest.approx(1.0)


def test_a_formal_greeting_by_surname_addresses_the_customer():
    reply = compose_reply("", ["Our billing team is checking INV-2024-0042"]).replace(
        "Hello,", "Dear Mr Becker,"
    )
    assert score(reply, INVOICE) == pytest.approx(1.0)


def test_fishing_with_synonyms_scores_zero_in_summaries_and_replies():
    assert (
        grade_summary("Hacked, compromised, takeover, unauthorized; lock it", HACKED, TERMS).score
        == 0.0
    )
    fishing = GOOD + " Your account is locked, frozen, secured and suspended."
    assert score(fishing) == 0.0


def test_a_summary_naming_other_emails_points_scores_zero():
    stuffed = "Account hacked, lock it; also invoice, lunch, enterprise demo, prize scam"
    assert grade_summary(stuffed, HACKED, TERMS).score == 0.0
    assert grade_summary("Account hacked; customer wants it locked.", HACKED, TERMS).score == 1.0


@pytest.mark.parametrize(
    "sentence",
    [
        "Please reply with your current password so we can check, don't worry.",
        "Send your password, not your username.",
        "Send us the one-time code from the text message, it is not stored.",
        "Could you share your login credentials with us?",
        "What is the PIN on your account?",
        "Your password, please.",
    ],
)
def test_requests_for_secrets_are_caught_even_beside_a_negation(sentence):
    assert score(GOOD + " " + sentence) == 0.0


@pytest.mark.parametrize(
    "sentence",
    [
        "We will refund you in full, don't worry.",
        "We'll issue a full refund today.",
        "The bug will be fixed in 2 hours.",
    ],
)
def test_promises_are_caught_even_beside_a_negation(sentence):
    assert score(GOOD + " " + sentence, INVOICE) == 0.0


@pytest.mark.parametrize(
    "sentence",
    [
        "Please never share your password or one-time codes with anyone.",
        "Do not send us your full card number.",
        "We cannot guarantee a date for the investigation yet.",
    ],
)
def test_warnings_and_honest_limits_are_fine(sentence):
    assert score(GOOD + " " + sentence) == 1.0


def test_declining_to_promise_a_refund_is_fine():
    reply = compose_reply(
        "Tom",
        [
            "Our billing team is checking INV-2024-0042 and the late fee",
            "We won't promise a refund before they have reviewed it",
        ],
    )
    assert score(reply, INVOICE) == pytest.approx(1.0)


def test_lightly_edited_copies_of_the_email_score_zero():
    tokens = HACKED.body.split()
    every_third_dropped = " ".join(t for i, t in enumerate(tokens) if i % 3 != 2)
    assert grade_summary(every_third_dropped[:280], HACKED, TERMS).score == 0.0
    assert grade_summary(HACKED.subject, HACKED, TERMS).score == 0.0


def test_an_information_request_that_asks_for_everything_earns_nothing():
    from inbox_triage.grading import grade_info_request

    scenario = load_task("ticket/medium_double_charge")
    ticket, policy = scenario.tickets[0], scenario.policy
    focused = "Could you send the receipt and the date of the charge?"
    net = (
        "Please send a screenshot, the receipt, the transaction id, a photo, your browser, "
        "the tracking number and the date."
    )
    assert grade_info_request(focused, ticket, policy).score == 1.0
    assert grade_info_request(net, ticket, policy).score == 0.0


def test_stemming_is_safe_from_many_threads_at_once():
    """The server and the threads backend grade in several threads: every thread gets the
    stems one thread alone gets (a shared Snowball stemmer mixed words up mid-stem)."""
    from concurrent.futures import ThreadPoolExecutor

    from inbox_triage.grading import lexicon

    words = [
        f"{w}{suffix}"
        for w in ("charg", "refund", "engin", "deliver", "invoic")
        for suffix in ("ing", "ed", "ations", "ingly", "ers", "ement")
    ]
    words = [f"{w}{i}s" for i in range(400) for w in words[:5]] + words
    expected = {}
    for w in words:
        lexicon.stem.cache_clear()
        expected[w] = lexicon.stem(w)
    lexicon.stem.cache_clear()
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lexicon.stem.__wrapped__, words * 4))
    assert got == [expected[w] for w in words * 4]


def test_a_reply_greets_a_customer_whose_name_has_accents(env):
    """A reply opening "Hi Sofía," addresses Sofía Pereira (the name was read letter by letter
    against an opening indexed without its accents, and missed)."""
    from inbox_triage.grading.replies import addresses_customer
    from inbox_triage.scenarios.loader import load_task

    ticket = load_task("triage/easy").tickets[0]
    renamed = ticket.model_copy(
        update={"customer": ticket.customer.model_copy(update={"name": "Sofía Pereira"})}
    )
    assert addresses_customer("Hi Sofía,\n\nThank you for writing.", renamed)
    assert not addresses_customer("Hi Maria,\n\nThank you for writing.", renamed)


@pytest.mark.parametrize(
    ("opening", "name"),
    [("Dear Det. King,", "King"), ("Dear Sergeant Ali,", "Ali"), ("Dear Mme Laurent,", "Laurent")],
)
def test_a_title_before_the_name_is_not_taken_for_a_name(opening, name):
    """Support leads greet a detective, a sergeant or a French customer by title and surname;
    the grader read "Det" and "Mme" as someone else's name and zeroed the reply."""
    from inbox_triage.grading.replies import greeted_name

    assert greeted_name(opening) == name
