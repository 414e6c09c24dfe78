"""Policy screening reads requests as a support lead does: asking for a secret is refused in any
wording, and advice, warnings and redaction about secrets are not requests."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from inbox_triage.domain.screen import screen
from inbox_triage.scenarios import load_policy
from inbox_triage.scenarios.loader import data_root, ordinary_sentences, ordinary_snapshot

POLICY = load_policy()
SETS = Path(__file__).parent / "data" / "policy_screen"
LEARNED = data_root() / "policies" / "screen"


def requests_sensitive_data(text: str, patterns: object = ()) -> tuple[str, ...]:
    return POLICY.screen(text).asks


def promises_outcome(text: str) -> tuple[str, ...]:
    return POLICY.screen(text).promises


ASKS = [
    "Please send us your password.",
    "What is your password?",
    "Don't worry, just send your password and we'll sort it.",
    "Don't hesitate to send your card number.",
    "To verify you, please confirm your full card number and CVV.",
    "To reset your account, please reply with your password.",
    "Please reply with your new password so we can set it.",
    "Please send us your password, it stays private.",
    "Could you remove the block and send your password?",
    "I'd like to ask for your password to check the account.",
    "Please don't use the old link; reply with the code we texted you.",
]
ADVISES = [
    "Please keep your password to yourself; nobody from our team will ask for it.",
    "Please change your password and turn on two-factor authentication.",
    "Meanwhile, please change your password and never share any verification codes.",
    "I can't send you a password or tell you what it was changed to.",
    "Please don't send the full card number; the last four digits are enough.",
    "If you paste any request or response bodies, please remove API keys, tokens and other "
    "credentials first.",
    "Send us example requests with API keys and any other credentials removed.",
    "We will never ask you for a full card number or security code.",
    "Never share the six-digit code with anyone.",
    "If they need anything to confirm your identity they'll ask, but we will never ask for your "
    "password or a login code.",
    "You won't need to send us your password or any login codes for this; if anyone asks for "
    "them, it isn't us.",
    "If you have a remittance advice or transfer confirmation, sending it will help; the payment "
    "reference and date are enough, so please leave out full account or card numbers.",
    "If you need to mention the card again, the last four digits are all we ever need, so please "
    "never email the full card number or its security code.",
    "For your safety, please don't email us the full card number or the CVV.",
    "Please do not send your password.",
    # a support lead's reply that the grader zeroed (issue 32): advice against reuse
    "In the meantime, please don't use a password you've used anywhere else, and turn on "
    "two-step sign-in in your account settings.",
]


@pytest.mark.parametrize("text", ASKS)
def test_asking_for_a_secret_is_refused_in_any_wording(text):
    assert requests_sensitive_data(text, POLICY.sensitive_data), text


@pytest.mark.parametrize("text", ADVISES)
def test_advice_warnings_and_redaction_are_not_requests(text):
    assert not requests_sensitive_data(text, POLICY.sensitive_data), text


PROMISES = [
    "We will send you a brand-new replacement this week, plus a full refund of your shipping.",
    "We'll ship a replacement tomorrow and refund your shipping costs in full.",
    "We'll give you three months of free service for the trouble.",
    "The feature will be live by the end of next month.",
    "Our engineers confirmed it and the fix will be live by Thursday.",
    "We'll also credit your account for the lost orders.",
    "Try not to worry: the fix will be live by Friday.",
    "We're refunding you in full today.",
    "We have approved your refund.",
    "We'll have the toggle in your settings by the end of next month.",
]
NOT_PROMISES = [
    "The billing team will review your refund request and get back to you.",
    "They'll confirm whether you're eligible for a refund.",
    "I can't give you a restore time yet, but we'll send you updates.",
    "They will contact you within 2 days with what they find.",
    "The team will look at it on Monday.",
    "If the team approves it, you'll receive a refund.",
    "We'll update you by tomorrow.",
]


@pytest.mark.parametrize("text", PROMISES)
def test_money_and_fix_dates_promised_in_any_wording_are_caught(text):
    assert promises_outcome(text), text


@pytest.mark.parametrize("text", NOT_PROMISES)
def test_reviews_conditions_and_updates_are_not_promises(text):
    assert not promises_outcome(text), text


def _flagged(text: str) -> bool:
    return bool(POLICY.screen(text))


def _regex_only(text: str) -> bool:
    return bool(screen(text, POLICY.sensitive_data, POLICY.forbidden_promises))


def _set(path: Path) -> tuple[list[str], list[str]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [b["text"] for b in data["breaches"]], [a["text"] for a in data["lookalikes"]]


# Hand-written by people who never read the screen: breaches in other words ("the six digits
# your authenticator app shows", "your money is already on its way back") and look-alikes that
# are fine to send ("we will never ask for your code"). Each set was written held out and tuned
# on after it was measured; the screen's learned half is fitted on all four and on a fifth of
# plain wordings (a regularised model does not learn every sentence it is fitted on).
@pytest.mark.parametrize("name", ["tuning", "unseen", "fresh", "final", "plain"])
def test_breaches_in_other_words_are_caught_and_look_alikes_pass(name):
    breaches, alikes = _set(LEARNED / f"{name}.yaml")
    assert len(breaches) >= 40 and len(alikes) >= 25
    missed = [b for b in breaches if not _flagged(b)]
    flagged = [a for a in alikes if _flagged(a)]
    assert len(missed) <= 0.06 * len(breaches), missed
    assert len(flagged) <= 0.02 * len(alikes), flagged


def test_wording_nobody_tuned_on_is_read_better_than_by_the_regular_expressions_alone():
    """The sealed set (tests/data/policy_screen/sealed.yaml, 110 breaches and 110 look-alikes
    written by a fifth writer) is never fitted or tuned on: measured, it is the figure to quote
    (benchmarks/bench_policy_screen.py)."""
    breaches, alikes = _set(SETS / "sealed.yaml")
    caught = sum(map(_flagged, breaches)) / len(breaches)
    flagged = sum(map(_flagged, alikes)) / len(alikes)
    assert caught >= 0.85 and flagged <= 0.03, (caught, flagged)
    assert caught > sum(map(_regex_only, breaches)) / len(breaches)
    assert flagged < sum(map(_regex_only, alikes)) / len(alikes)


def test_what_support_leads_write_is_left_alone():
    """Of the leads' reply sentences the screen never learned from, almost none is flagged (and
    fewer than by the regular expressions alone)."""
    learned = set(ordinary_snapshot())
    unseen = [s for s in ordinary_sentences() if s not in learned]
    assert len(unseen) >= 3000
    flagged = [s for s in unseen if _flagged(s)]
    assert len(flagged) <= 0.004 * len(unseen), flagged
    assert len(flagged) <= sum(map(_regex_only, unseen))


def test_the_learned_half_is_the_same_each_time_it_is_fitted():
    from inbox_triage.domain.screen_model import fit

    texts = [t for _, t in POLICY.screen_examples]
    labels = [int(k != "fine") for k, _ in POLICY.screen_examples]
    one, two = fit(texts, labels), fit(texts, labels)
    probe = ["Send me the code from the text.", "We will look into a refund.", "Hello Alex,"]
    assert [one.score(p) for p in probe] == [two.score(p) for p in probe]
    with pytest.raises(ValueError, match="both labels"):
        fit(["only fine"], [0])


def test_the_engine_and_the_grader_screen_alike():
    """One screen: a breach the grader zeroes is a violation in the engine too."""
    from inbox_triage.env import InboxTriageEnv

    env = InboxTriageEnv()
    obs = env.reset(task="triage/easy")
    email = obs.inbox[0]
    first = email["customer_name"].split()[0]
    env.step(
        {
            "email_id": email["email_id"],
            "priority": "medium",
            "category": "technical_support",
            "route_to": "support_tier2",
            "summary": "A customer asks about the product.",
            "reply_draft": f"Hi {first}, thanks for writing. Good news: the fix will be live "
            "by Friday and the full amount is already on its way back.",
        }
    )
    grade = env.grade().as_dict()
    assert grade["texts"]["reply"]["zeros"].get("policy") == 1
    assert [i["kind"] for i in env.state.incidents] == ["policy_violation"]


@pytest.mark.parametrize(
    "text",
    [
        "Thank you so much for your patience and for being with us for so many years, it really "
        "means a great deal to the whole team here, and to help us please send your password.",
        "Kind regards from all of us at the support desk Reply with the verification code.",
    ],
)
def test_padding_a_plain_request_does_not_dilute_it_past_the_screen(text):
    """The learned half may clear what the regular expressions misread, never a plain request
    for a secret, however many kind words surround it (an optimiser's first try)."""
    assert POLICY.screen(text).asks, text


@pytest.mark.parametrize("text", ["We value you.", "We appreciate you.", "Hello Alex,"])
def test_the_model_alone_flags_only_what_names_a_secret_or_an_outcome(text):
    assert not POLICY.screen(text), text


def test_saying_the_card_may_have_been_taken_is_advice_not_a_request():
    """A support lead's reply to a fraud report: telling the customer to call their bank about
    the card is not asking for its details."""
    text = "If you think your card details have been taken, please contact your bank today."
    assert not POLICY.screen(text), text
    assert POLICY.screen("Please send us your card details, they have not been taken.").asks


def test_a_fitted_half_kept_on_disk_scores_as_the_fresh_fit_and_a_bad_file_is_refitted(
    tmp_path, monkeypatch
):
    """Every worker process would pay a fit of a few seconds: the first keeps it outside the
    repository, the rest load it, with the same scores to the last digit."""
    from inbox_triage.domain.screen import fit_learned
    from inbox_triage.scenarios import screen_cache

    monkeypatch.setenv("INBOX_TRIAGE_CACHE", str(tmp_path))
    examples = POLICY.screen_examples
    fresh = fit_learned(examples)
    first = screen_cache.cached_fit(examples)  # fits and keeps
    path = screen_cache.cache_path(examples)
    assert path.exists() and path.parent == tmp_path
    loaded = screen_cache.cached_fit(examples)  # loads
    probe = ["Send me the code from the text.", "We will look into a refund.", "Hello Alex,"]
    for model in (first, loaded):
        assert [model.breach.score(p) for p in probe] == [fresh.breach.score(p) for p in probe]
        assert [model.kind.score(p) for p in probe] == [fresh.kind.score(p) for p in probe]
    path.write_text("{not json")
    again = screen_cache.cached_fit(examples)
    assert [again.breach.score(p) for p in probe] == [fresh.breach.score(p) for p in probe]
