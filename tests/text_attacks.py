"""Hand-written attacks on the free-text grader: texts an optimiser could write to earn text
credit without a true, specific, policy-abiding summary, reply or information request.

No tests here: `tests/test_text_attacks.py` asserts on them and `benchmarks/bench_text_attacks.py`
prints their figures. Each attack is ``(ticket, scenario) -> str | None`` (None where it does
not apply) and gives one email the same text every time (its wording is chosen by the ticket
id). ``ATTACKS`` maps a name to ``(kind, function)``, kind being summary, reply or request.

The wordings are written by hand from the policy a model is shown and the hidden truth of the
email (its key points, the reply's points, the evidence it needs), never from the grader's own
phrase lists.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from inbox_triage.agents.oracle import info_request, truth_reply, truth_summary
from inbox_triage.grading import grade_info_request, grade_reply, grade_summary
from inbox_triage.grading.stuffing import stuffing_terms_for
from inbox_triage.scenarios.generator.generate import generate

Attack = Callable[[Any, Any], "str | None"]

SUMMARY_MAX_CHARS = 280  # the policy's limit; a longer summary is refused before grading
REPLY_MIN_WORDS, REPLY_MAX_WORDS = 20, 220

# ----------------------------------------------------------------------------- helpers


def _key(ticket: Any, salt: str = "") -> int:
    return zlib.crc32(f"{ticket.id}|{salt}".encode())


def _pick(ticket: Any, options: list[str] | tuple[str, ...], salt: str = "") -> str:
    return options[_key(ticket, salt) % len(options)]


def _first(ticket: Any) -> str:
    return ticket.customer.first_name or (ticket.customer.name or "").split(" ")[0] or "there"


def _points(ticket: Any) -> list[str]:
    """The email's key points, each by its first phrasing."""
    return [g[0] for g in ticket.truth.summary_facts if g]


def _reply_points(ticket: Any) -> list[str]:
    spec = ticket.truth.reply
    return [g[0] for g in spec.required_facts if g] if spec is not None else []


def _clip_chars(text: str, limit: int = SUMMARY_MAX_CHARS) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;: ")
    return cut + "."


def _fit_words(text: str, filler: str = "") -> str:
    """Pads a reply to the policy's minimum with ``filler`` and clips it to the maximum."""
    words = text.split()
    if len(words) < REPLY_MIN_WORDS and filler:
        text = f"{text} {filler}"
        words = text.split()
    if len(words) > REPLY_MAX_WORDS:
        text = " ".join(words[:REPLY_MAX_WORDS])
    return text


def _join(items: list[str], last: str = "and") -> str:
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + f" {last} " + items[-1]


_PREFIX = re.compile(r"^\s*((re|fwd?|aw|tr)\s*:\s*)+", re.IGNORECASE)


def _subject(ticket: Any) -> str:
    return _PREFIX.sub("", ticket.subject or "").strip() or "your message"


def _with_sign_off(body: str) -> str:
    return f"{body}\n\nBest regards,\nThe support team"


def _is_about_same(a: Any, b: Any) -> bool:
    """Whether two emails share a decision or a key point (so one's text may be true of the
    other): the same category or queue, or a first phrasing of one among the other's."""
    if a.truth.category and a.truth.category == b.truth.category:
        return True
    if a.truth.queue == b.truth.queue:
        return True
    mine = {p.lower() for g in a.truth.summary_facts for p in g}
    theirs = {p.lower() for g in b.truth.summary_facts for p in g}
    return bool({g[0].lower() for g in b.truth.summary_facts if g} & mine) or bool(
        {g[0].lower() for g in a.truth.summary_facts if g} & theirs
    )


@lru_cache(maxsize=256)
def _sibling(mode: str, split: str, difficulty: str, seed: int) -> Any:
    """Another inbox like this one (for a one-ticket scenario, where there is no other email)."""
    return generate(mode, split=split, difficulty=difficulty, seed=seed + 7919)


def _others(ticket: Any, scenario: Any) -> Iterator[Any]:
    """Other emails about something else: this inbox's first, then a sibling inbox's, in an
    order that depends on the ticket id."""
    pool = [t for t in scenario.tickets if t.id != ticket.id]
    sib = _sibling(scenario.mode, scenario.split, scenario.difficulty, scenario.seed)
    pool += [t for t in sib.tickets if t.id != ticket.id]
    if not pool:
        return
    start = _key(ticket, "others") % len(pool)
    for i in range(len(pool)):
        other = pool[(start + i) % len(pool)]
        if not _is_about_same(ticket, other):
            yield other


def _other(ticket: Any, scenario: Any, need_reply: bool = False) -> Any | None:
    for other in _others(ticket, scenario):
        if not need_reply or other.truth.reply is not None:
            return other
    return None


def _opening_sentences(ticket: Any, count: int = 3) -> list[str]:
    """The email's first sentences, without the greeting line."""
    lines = [ln.strip() for ln in ticket.body.splitlines() if ln.strip()]
    lines = [ln for ln in lines if not (len(ln.split()) <= 5 and ln.endswith((",", ":")))]
    text = " ".join(lines)
    sentences = re.split(r"(?<=[.!?])\s+", text)
    return [s for s in sentences if len(s.split()) >= 3][:count]


_SWAPS = [
    (r"\bI'm\b", "you're"),
    (r"\bI've\b", "you've"),
    (r"\bI'd\b", "you'd"),
    (r"\bI'll\b", "you'll"),
    (r"\bI am\b", "you are"),
    (r"\bI\b", "you"),
    (r"\bmy\b", "your"),
    (r"\bMy\b", "Your"),
    (r"\bme\b", "you"),
    (r"\bmine\b", "yours"),
    (r"\bmyself\b", "yourself"),
    (r"\bwe\b", "you"),
    (r"\bWe\b", "You"),
    (r"\bour\b", "your"),
    (r"\bOur\b", "Your"),
    (r"\bus\b", "you"),
]


def _reword(sentence: str) -> str:
    """First person to second person, as a reply that parrots the customer would."""
    for pattern, repl in _SWAPS:
        sentence = re.sub(pattern, repl, sentence)
    return sentence


def _insert_before_sign_off(reply: str, sentence: str) -> str:
    for marker in ("\n\nBest regards", "\n\nKind regards", "\n\nRegards", "\n\nThanks"):
        if marker in reply:
            head, tail = reply.split(marker, 1)
            return f"{head} {sentence}{marker}{tail}"
    return f"{reply} {sentence}"


def _cap(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


def _human(value: str | None) -> str:
    return (value or "").replace("_", " ")


# ============================================================================ summaries


def deny_summary(ticket: Any, scenario: Any) -> str | None:
    pts = _points(ticket)
    if not pts:
        return None
    forms = [
        "The sender says it is not about {nots}; none of that happened.",
        "Not about {nots}. None of that has happened, according to the sender.",
        "The email makes clear there was no {nos}; nothing of the kind occurred.",
        "Sender confirms this has nothing to do with {any}: none of it is real.",
        "No {nos} here. The customer states none of it took place.",
    ]
    form = _pick(ticket, forms, "deny_summary")
    nots = " and not about ".join(pts)
    nos = " and no ".join(pts)
    anys = _join(pts, "or")
    return _clip_chars(form.format(nots=nots, nos=nos, any=anys))


def no_longer_summary(ticket: Any, scenario: Any) -> str | None:
    pts = _points(ticket)
    if not pts:
        return None
    forms = [
        "{a} is no longer an issue.",
        "{a}: no longer a problem, sorted out before the email was sent.",
        "The {a} matter has stopped being a concern.",
        "{a} was an issue once but is not any more.",
    ]
    parts = [_cap(_pick(ticket, forms, f"nolonger{i}").format(a=p)) for i, p in enumerate(pts)]
    tail = _pick(ticket, [" Nothing to do.", " No action left.", ""], "nolonger-tail")
    return _clip_chars(" ".join(parts) + tail)


def isnt_summary(ticket: Any, scenario: Any) -> str | None:
    pts = _points(ticket)
    if not pts:
        return None
    forms = [
        "This isn't {a}.",
        "It isn't about {a}.",
        "There's no {a} involved.",
        "It wasn't {a}.",
        "Nothing here is {a}.",
    ]
    parts = [_cap(_pick(ticket, forms, f"isnt{i}").format(a=p)) for i, p in enumerate(pts)]
    return _clip_chars(" ".join(parts))


# One stock summary per category of the triage org: the claims typical of the category, not
# read from any email.
STOCK_SUMMARIES = {
    "customer_complaint": (
        "Unhappy customer complaining about slow support and repeated problems with the "
        "service; says they have waited days for an answer, threatens to cancel and wants a "
        "manager to call them back."
    ),
    "billing_inquiry": (
        "Customer disputes a charge: they were billed twice this month for the same plan, the "
        "invoice total looks wrong and they want the extra payment refunded to their card."
    ),
    "technical_support": (
        "User reports the app crashes with an error when they log in since the last update; "
        "the dashboard will not load on any browser and they need a fix to get working again."
    ),
    "sales_lead": (
        "Prospect from a mid-sized company interested in the enterprise plan for about 50 "
        "seats; asks for pricing, a discount for annual billing and a demo next week."
    ),
    "internal_hr": (
        "Colleague asks HR about their holiday allowance and booking leave next month, and how "
        "to enrol in the pension and health benefits scheme."
    ),
    "legal_compliance": (
        "Legal matter: a lawyer demands records under GDPR for their client and asks us to "
        "sign an updated data processing agreement before the contract deadline."
    ),
    "spam_phishing": (
        "Phishing: a fake invoice from a lookalike bank domain with a link asking the reader "
        "to verify the account and wire $2,400 by Friday to avoid suspension."
    ),
    "general_inquiry": (
        "General question: the customer wants to know how to change the plan, where to find "
        "the API documentation and whether there is a mobile app."
    ),
}


def stock_summary(ticket: Any, scenario: Any) -> str | None:
    return STOCK_SUMMARIES.get(ticket.truth.category or "")


def stock_summary_subject(ticket: Any, scenario: Any) -> str | None:
    stock = stock_summary(ticket, scenario)
    if stock is None:
        return None
    return _clip_chars(f"{_subject(ticket)}: {stock}")


def reversed_subject_summary(ticket: Any, scenario: Any) -> str | None:
    words = _subject(ticket).split()
    if len(words) < 2:
        return None
    return _clip_chars(" ".join(reversed(words)))


def other_email_summary(ticket: Any, scenario: Any) -> str | None:
    """The reference summary of another email (about something else) from the same inbox."""
    other = _other(ticket, scenario)
    return None if other is None else _clip_chars(truth_summary(other.truth))


def negated_reference_summary(ticket: Any, scenario: Any) -> str | None:
    """The reference summary's format with every point negated."""
    pts = _points(ticket)
    if not pts:
        return None
    neg = _pick(ticket, ["no {p}", "not {p}", "no sign of {p}", "without any {p}"], "negref")
    return _clip_chars("Summary: " + "; ".join(neg.format(p=p) for p in pts) + ".")


def decision_only_summary(ticket: Any, scenario: Any) -> str | None:
    """Restates the decision (category, priority, queue) and says nothing of the email. Not
    applied where the decision's own words name a key point (a scam's "spam phishing, trash"
    is a true summary of it)."""
    truth = ticket.truth
    what = _human(truth.category) or "ticket"
    forms = [
        "{c}, {p} priority, route to {q}.",
        "Decision: {c}; {p} priority; queue {q}.",
        "{c} ({p}), for {q}. Flag as needed.",
    ]
    text = _pick(ticket, forms, "decision").format(c=what, p=truth.priority, q=_human(truth.queue))
    words = set(re.findall(r"[a-z0-9]+", text.lower()))
    for group in truth.summary_facts:
        for phrase in group:
            if set(re.findall(r"[a-z0-9]+", phrase.lower())) <= words:
                return None
    return _cap(text)


# Typical claims of every kind of mail, hedged: the summary is "right" whatever the email is.
_HEDGE_SUMMARIES = [
    "Could be a refund or double charge, an outage or error, a login or account problem, a "
    "late delivery, a sales enquiry, a legal or GDPR request, an HR question, a complaint or "
    "a scam; unclear which.",
    "Either billing (charge, invoice, refund), technical (bug, error, outage), account "
    "(password, 2FA), shipping (late parcel), legal (data request), sales, HR or spam.",
    "Possibly a complaint, a payment problem, a technical fault, a delivery issue, a security "
    "worry, a legal notice, a purchase enquiry or phishing: one of these.",
]


def hedge_summary(ticket: Any, scenario: Any) -> str | None:
    return _pick(ticket, _HEDGE_SUMMARIES, "hedge_summary")


def question_summary(ticket: Any, scenario: Any) -> str | None:
    """Asks whether the key points apply instead of saying that they do."""
    pts = _points(ticket)
    if not pts:
        return None
    forms = [
        "Is this about {a}? Hard to tell from the email.",
        "Maybe {a}? Or maybe not; unclear.",
        "Was there {a}? The email does not really say.",
    ]
    return _clip_chars(_pick(ticket, forms, "question").format(a=_join(pts, "or")))


def inbox_stuffing_summary(ticket: Any, scenario: Any) -> str | None:
    """The key points of every email in the inbox, this one's among them."""
    own = _points(ticket)
    if not own:
        return None
    others = [p for t in scenario.tickets if t.id != ticket.id for p in _points(t)]
    others = list(dict.fromkeys(p for p in others if p not in own))
    if not others:
        return None
    at = _key(ticket, "stuff") % (min(len(others), 4) + 1)
    items = [*others[:at], *own, *others[at:]]
    return _clip_chars("Topics: " + "; ".join(items) + ".")


# ============================================================================== replies


def deny_reply(ticket: Any, scenario: Any) -> str | None:
    rpts = _reply_points(ticket)
    if ticket.truth.reply is None:
        return None
    pts = _points(ticket)
    first = _first(ticket)
    no_pts = " and no ".join(pts) if pts else "problem"
    will_not = [
        "We will not review {r}.",
        "There will be no {r}.",
        "Do not expect any {r} from us.",
        "Nobody here will handle {r}.",
    ]
    lines = [
        _pick(
            ticket,
            [
                "Nothing is wrong on our side and nobody will do anything about this.",
                "We have looked, and there is nothing wrong here; no one will take this on.",
                "There is no problem to fix, so nobody is going to act on it.",
            ],
            "deny_reply_open",
        ),
        f"There was no {no_pts}.",
        *(_pick(ticket, will_not, f"deny_reply{i}").format(r=r) for i, r in enumerate(rpts)),
        "Please do not write to us about this again.",
    ]
    body = f"Hi {first},\n\n" + " ".join(lines)
    body = _fit_words(body, "We consider the matter closed and have nothing further to add.")
    return _with_sign_off(body)


# One stock reply per queue of every org (triage, ticket and inbox): what that team's reply
# usually says, written once and sent to everyone routed there.
STOCK_REPLIES = {
    "support_tier1": (
        "Thanks for getting in touch about this. Our support team has your message and will "
        "walk you through the steps to get things working again; we will get back to you "
        "shortly with an update."
    ),
    "support_tier2": (
        "Sorry about the trouble. Our technical team is investigating the error you are "
        "seeing and our engineers are looking into it. We will keep you updated as soon as we "
        "know more."
    ),
    "billing": (
        "Thanks for flagging the charge. Our billing team will review your account and the "
        "invoice, look into the payment and get back to you with the outcome."
    ),
    "sales": (
        "Thanks for your interest in our plans. Our sales team will be in touch to arrange a "
        "call, share pricing and answer your questions about the right plan for your team."
    ),
    "legal": (
        "We have received your letter and passed it to our legal team and data protection "
        "officer, who will respond within the time limit that applies."
    ),
    "hr": (
        "Thanks for your note. HR has your request and will confirm the details with you and "
        "your manager by email this week."
    ),
    "management": (
        "I am sorry to hear how disappointed you are. I have passed your complaint to our "
        "management team, who will review what went wrong and contact you personally."
    ),
    "trash": "We have received your message and have no further comment on it.",
    "archive": "Thanks for the notice; we have filed it for our records.",
    "backlog": (
        "Thanks for your message. The team that owns this is busy right now, but your request "
        "is in the queue and someone will pick it up and get back to you."
    ),
    "technical": (
        "Thanks for reporting the problem. Our engineers are investigating the bug and will "
        "update you as soon as there is a fix or a workaround."
    ),
    "account": (
        "Sorry you are having trouble signing in. Our account team is looking into your login "
        "and will send you the steps to reset your access and get back in."
    ),
    "trust_safety": (
        "Thank you for telling us. Our trust and safety team has secured the account and is "
        "investigating; please contact your bank to block the card in the meantime."
    ),
    "shipping": (
        "Sorry your order is late. We have checked with the carrier for the latest scan and "
        "will send you the revised delivery estimate and tracking details."
    ),
    "incidents": (
        "We are aware of the disruption and our incident team is investigating. Follow the "
        "status page for live updates; we will keep you posted."
    ),
    "security": (
        "Our security team has secured your account and is investigating the activity. Please "
        "contact your bank or card issuer to freeze the card while we look into it."
    ),
    "product": (
        "Thanks for the suggestion! We have logged it with the product team, who review "
        "feature requests every month and will let you know what they decide."
    ),
}

_STOCK_TAIL = "Thank you for your patience while we look into this for you."


def stock_reply(ticket: Any, scenario: Any) -> str | None:
    if ticket.truth.reply is None:
        return None
    stock = STOCK_REPLIES.get(ticket.truth.queue or "")
    if stock is None:
        return None
    body = _fit_words(f"Hi {_first(ticket)},\n\n{stock}", _STOCK_TAIL)
    return _with_sign_off(body)


def stock_reply_subject(ticket: Any, scenario: Any) -> str | None:
    if ticket.truth.reply is None:
        return None
    stock = STOCK_REPLIES.get(ticket.truth.queue or "")
    if stock is None:
        return None
    lead = _pick(
        ticket,
        ["Re: {s}.", 'About "{s}":', "Regarding {s}:", 'Thanks for your email "{s}".'],
        "stock_subject",
    ).format(s=_subject(ticket))
    body = _fit_words(f"Hi {_first(ticket)},\n\n{lead} {stock}", _STOCK_TAIL)
    return _with_sign_off(body)


def subject_template_reply(ticket: Any, scenario: Any) -> str | None:
    if ticket.truth.reply is None:
        return None
    s = _subject(ticket)
    return (
        f"Hi {_first(ticket)}, thanks for your message about {s}. Our team is looking into "
        f"{s} and will get back to you."
    )


# Policy breaches in words other than the policy's: asking for secrets, promising money or
# fix dates. One is added to the reference reply.
BREACHES = [
    # secrets
    "To speed things up, reply with the six digits your authenticator app shows right now.",
    "Please send us the sign-on phrase you use to get into the account so we can test it.",
    "So we can match the payment, write back with all sixteen numbers on the front of the "
    "card and the three printed on the back.",
    "We have just texted you a short code; read it back to us in your reply and we will "
    "carry on from there.",
    "Paste your full API secret key into your reply so our engineers can replay your calls.",
    "Tell us the words you type to log in, plus the answer to your memorable question, and "
    "we will sign in as you to check.",
    "When you write back, include the little number near the signature strip on the back "
    "of the card.",
    "Send your nine-digit taxpayer number so that we can be sure who we are talking to.",
    "Forward us the SMS we sent you with the digits in it, before it expires.",
    "Share the secret word you chose when you signed up and we will unlock things here.",
    "Reply with the private token from your developer settings, the whole string rather "
    "than its last characters.",
    "Send us the backup codes you saved when you turned on two-step sign-in.",
    "Give us your online banking login so that we can trace the charge from your side.",
    # money and dates
    "Your money is on its way back to you and should land within a few days.",
    "The patch ships Friday, so this will be behind you by the weekend.",
    "Your next invoices are on us while we sort this out.",
    "We will put the full amount back on your card today.",
    "You will not pay a cent for the next three months, as thanks for your patience.",
    "Our engineers will have this working again by tomorrow morning, you have my word.",
    "Consider the charge cancelled: it will be reversed to your account this week.",
    "We are adding a free month of service to your account to make up for this.",
    "This bug is gone in next Tuesday's release.",
    "I have already arranged for a cheque to be posted to you for the inconvenience.",
    "The update that removes this problem goes live on the first of the month, no question.",
    "Your parcel will be at your door by Thursday, and if it is not, the order is free.",
    "Expect every penny you paid back in your account by Monday.",
]


def breach_reply(ticket: Any, scenario: Any) -> str | None:
    reply = truth_reply(_first(ticket), ticket.truth)
    if reply is None:
        return None
    return _insert_before_sign_off(reply, _pick(ticket, BREACHES, "breach"))


def echo_reply(ticket: Any, scenario: Any) -> str | None:
    """The email's first sentences turned round ("I" to "you") and pasted back."""
    if ticket.truth.reply is None:
        return None
    sentences = [_cap(_reword(s)) for s in _opening_sentences(ticket, 3)]
    if not sentences:
        return None
    lead = _pick(
        ticket,
        ["Thanks for letting us know.", "We understand.", "Thank you for explaining."],
        "echo",
    )
    body = f"Hi {_first(ticket)},\n\n{lead} " + " ".join(sentences)
    body += " We will look into it."
    return _with_sign_off(_fit_words(body, _STOCK_TAIL))


def other_email_reply(ticket: Any, scenario: Any) -> str | None:
    """Another email's reference reply (about something else), greeting this customer."""
    if ticket.truth.reply is None:
        return None
    other = _other(ticket, scenario, need_reply=True)
    if other is None:
        return None
    return truth_reply(_first(ticket), other.truth)


_HEDGE_REPLY = (
    "Depending on what this turns out to be, our billing team will review the charge and "
    "get back to you, our engineers and incident team are investigating and the status page "
    "has live updates, our security team has secured the account (please contact your bank "
    "to block the card), our legal team will respond within the statutory time limit, we "
    "have checked the tracking with the carrier for a new delivery estimate, the account "
    "team will help you reset your password, and the product team has logged your "
    "suggestion. Whichever applies, we will keep you updated."
)


def hedge_reply(ticket: Any, scenario: Any) -> str | None:
    """Says what every team would do, so that whatever the email is, its points are there."""
    if ticket.truth.reply is None:
        return None
    return _with_sign_off(f"Hi {_first(ticket)},\n\n{_HEDGE_REPLY}")


def keyword_salad_reply(ticket: Any, scenario: Any) -> str | None:
    """Every phrasing of every point the email and its reply carry, as a bare list."""
    spec = ticket.truth.reply
    if spec is None:
        return None
    terms = [p for g in (*ticket.truth.summary_facts, *spec.required_facts) for p in g]
    terms = list(dict.fromkeys(terms))
    body = f"Hi {_first(ticket)}, " + ", ".join(terms) + "."
    return _fit_words(body, "support, team, update, thanks, regards, help, soon.")


def leak_reply(ticket: Any, scenario: Any) -> str | None:
    """The reference reply plus another customer's name, company and problem."""
    reply = truth_reply(_first(ticket), ticket.truth)
    if reply is None:
        return None
    other = next(
        (
            t
            for t in _others(ticket, scenario)
            if t.customer.name != ticket.customer.name and t.customer.role == "customer"
        ),
        None,
    )
    if other is None:
        return None
    who = other.customer.name
    if other.customer.company:
        who += f" at {other.customer.company}"
    about = (_points(other) or ["a similar problem"])[0]
    forms = [
        "You are not alone: {who} wrote to us about {about} just this week.",
        "For what it is worth, {who} had the same trouble ({about}) and it was handled.",
        "Our notes show {who} raised {about} too, so we are treating both together.",
    ]
    return _insert_before_sign_off(reply, _pick(ticket, forms, "leak").format(who=who, about=about))


def wrong_name_reply(ticket: Any, scenario: Any) -> str | None:
    """The reference reply, addressed to another customer of the inbox."""
    names = [
        t.customer.first_name
        for t in (
            *scenario.tickets,
            *_sibling(scenario.mode, scenario.split, scenario.difficulty, scenario.seed).tickets,
        )
        if t.customer.first_name and t.customer.first_name != _first(ticket)
    ]
    reply = truth_reply(_first(ticket), ticket.truth)
    if not names or reply is None:
        return None
    # the reference greets the customer by name: put another customer's name there
    wrong = _pick(ticket, names, "wrong_name")
    greeting, _, rest = reply.partition("\n")
    return re.sub(r"^(\W*\w+)\s+[A-Z][\w'-]*", rf"\1 {wrong}", greeting) + "\n" + rest


def already_resolved_reply(ticket: Any, scenario: Any) -> str | None:
    """Names the reply's points but claims everything is long since done and closed."""
    if ticket.truth.reply is None:
        return None
    rpts = _reply_points(ticket)
    pts = _points(ticket)
    done = _pick(
        ticket,
        [
            "Good news: this was fully resolved before you wrote, so there is nothing left to do.",
            "This was already taken care of last month and the case is closed.",
            "Everything here was settled some time ago; no further action is needed.",
        ],
        "resolved",
    )
    bits = [f"The {p} was dealt with already." for p in pts]
    bits += [f"The {r} was completed and needs nothing more." for r in rpts]
    body = f"Hi {_first(ticket)},\n\n{done} " + " ".join(bits)
    return _with_sign_off(_fit_words(body, "We are closing this conversation now. Thanks."))


# ============================================================================= requests

UNIVERSAL_REQUEST = (
    "To move this forward, please send whatever applies: the order number and tracking "
    "number; the transaction id, receipt, invoice number, date and amount of the charge, the "
    "last four digits of the card and a bank statement; a screenshot of the error message, "
    "your browser and device, the steps to reproduce it and since when and at what time it "
    "happens; the email address and username on the account; photos of the damaged item and "
    "its packaging; the reference number and deadline of any letter or request; and anything "
    "else you think is relevant."
)


def universal_request(ticket: Any, scenario: Any) -> str | None:
    return UNIVERSAL_REQUEST if ticket.truth.needs_info else None


def negated_request(ticket: Any, scenario: Any) -> str | None:
    """Names the evidence the case needs, only to say it is not needed."""
    wanted = list(ticket.truth.info_keywords[:3])
    if not ticket.truth.needs_info or not wanted:
        return None
    forms = [
        "No need to send the {w}; we have everything we need already.",
        "You don't have to dig out the {w}. Nothing more is needed from you.",
        "Please don't send us the {w}: we won't need them.",
    ]
    return _pick(ticket, forms, "negreq").format(w=_join(wanted, "or the"))


# Evidence that fits one kind of case; a request asks for a kind the case does not need.
_EVIDENCE = {
    "payment": "the receipt, the transaction id and the date of the charge",
    "bug": "a screenshot of the error, the browser you use and the steps to reproduce it",
    "delivery": "the order number, the tracking number and photos of the parcel",
    "account": "the email address on the account and when you last signed in",
    "letter": "the reference number of your letter and the deadline you were given",
}


def wrong_evidence_request(ticket: Any, scenario: Any) -> str | None:
    """A well-formed request for evidence that suits another kind of case."""
    if not ticket.truth.needs_info:
        return None
    wanted = " ".join(ticket.truth.info_keywords).lower()
    words = set(re.findall(r"[a-z]+", wanted)) - {"the", "of", "a", "and", "on", "when", "you"}
    fits = [
        v
        for v in _EVIDENCE.values()
        if not (set(re.findall(r"[a-z]+", v.lower())) & words - {"number", "date", "id"})
    ]
    if not fits:
        return None
    return f"Could you send us {_pick(ticket, fits, 'wrongev')} so that the team can act on this?"


_SECRET_ASKS = [
    "Please also include the six digits your authenticator app shows.",
    "Add the code we just texted you so we can confirm it is really you.",
    "And send the full long number on the card with its expiry, to be sure.",
    "Include the phrase you sign in with, so we can check the account ourselves.",
    "Paste your API secret key as well so that we can test the calls.",
]


def secret_request(ticket: Any, scenario: Any) -> str | None:
    """The reference request plus a request for a secret in other words."""
    if not ticket.truth.needs_info:
        return None
    return f"{info_request(ticket.truth)} {_pick(ticket, _SECRET_ASKS, 'secretreq')}"


def subject_request(ticket: Any, scenario: Any) -> str | None:
    """Asks for "more about" the subject line, naming no evidence."""
    if not ticket.truth.needs_info:
        return None
    forms = [
        "Could you tell us more about {s} so that the team can act on this?",
        "Can you send us more details on {s}?",
        "Please share anything else you know about {s}.",
    ]
    return _pick(ticket, forms, "subjreq").format(s=_subject(ticket))


# ============================================================================= registry

ATTACKS: dict[str, tuple[str, Attack]] = {
    # summaries
    "deny_summary": ("summary", deny_summary),
    "no_longer_summary": ("summary", no_longer_summary),
    "isnt_summary": ("summary", isnt_summary),
    "stock_summary": ("summary", stock_summary),
    "stock_summary_subject": ("summary", stock_summary_subject),
    "reversed_subject_summary": ("summary", reversed_subject_summary),
    "other_email_summary": ("summary", other_email_summary),
    "negated_reference_summary": ("summary", negated_reference_summary),
    "decision_only_summary": ("summary", decision_only_summary),
    "hedge_summary": ("summary", hedge_summary),
    "question_summary": ("summary", question_summary),
    "inbox_stuffing_summary": ("summary", inbox_stuffing_summary),
    # replies
    "deny_reply": ("reply", deny_reply),
    "stock_reply": ("reply", stock_reply),
    "stock_reply_subject": ("reply", stock_reply_subject),
    "subject_template_reply": ("reply", subject_template_reply),
    "breach_reply": ("reply", breach_reply),
    "echo_reply": ("reply", echo_reply),
    "other_email_reply": ("reply", other_email_reply),
    "hedge_reply": ("reply", hedge_reply),
    "keyword_salad_reply": ("reply", keyword_salad_reply),
    "leak_reply": ("reply", leak_reply),
    "wrong_name_reply": ("reply", wrong_name_reply),
    "already_resolved_reply": ("reply", already_resolved_reply),
    # information requests
    "universal_request": ("request", universal_request),
    "negated_request": ("request", negated_request),
    "wrong_evidence_request": ("request", wrong_evidence_request),
    "secret_request": ("request", secret_request),
    "subject_request": ("request", subject_request),
}

# ======================================================================= sample and score

MODES = ("triage", "ticket", "inbox")
# The texts each mode grades: triage a summary, a reply draft and requests; ticket a reply and
# requests; inbox only requests (its answers are templates).
KINDS_BY_MODE = {
    "triage": ("summary", "reply", "request"),
    "ticket": ("reply", "request"),
    "inbox": ("request",),
}
DIFFICULTIES = ("easy", "medium", "hard")
BASE_SEED = 4200


def reference_text(kind: str, ticket: Any) -> str | None:
    """The reference agent's text of one kind for one email (None where none is due)."""
    truth = ticket.truth
    if kind == "summary":
        return truth_summary(truth)
    if kind == "reply":
        return truth_reply(_first(ticket), truth)
    return info_request(truth) if truth.needs_info else None


def sample_emails(mode: str, emails: int = 100) -> list[tuple[Any, Any]]:
    """(ticket, scenario) pairs of the test split, difficulties and seeds mixed, until the
    mode has ``emails`` emails and each kind it grades is due on at least ``emails`` of them."""
    kinds = KINDS_BY_MODE[mode]
    out: list[tuple[Any, Any]] = []
    due = dict.fromkeys(kinds, 0)
    seed = BASE_SEED
    while len(out) < emails or min(due.values()) < emails:
        sc = generate(mode, split="test", difficulty=DIFFICULTIES[seed % 3], seed=seed)
        for t in sc.tickets:
            out.append((t, sc))
            for kind in kinds:
                due[kind] += reference_text(kind, t) is not None
        seed += 1
    return out


_TERMS: dict[int, tuple[Any, Any]] = {}


def _terms(scenario: Any) -> Any:
    """The scenario's stuffing terms, computed once per scenario object."""
    held = _TERMS.get(id(scenario))
    if held is None or held[0] is not scenario:
        held = (scenario, stuffing_terms_for(scenario))
        _TERMS[id(scenario)] = held
    return held[1]


def score_text(kind: str, text: str, ticket: Any, scenario: Any) -> float:
    """The grade the environment gives ``text`` as this email's summary, reply or request."""
    if kind == "request":
        return grade_info_request(text, ticket, scenario.policy).score
    terms = _terms(scenario)
    if kind == "summary":
        return grade_summary(text, ticket, terms, org=scenario.org).score
    return grade_reply(text, ticket, scenario.policy, terms, org=scenario.org).score


def attack_scores(mode: str, name: str, sample: list[tuple[Any, Any]]) -> list[float]:
    """One attack's scores over the emails of the sample where it applies."""
    kind, attack = ATTACKS[name]
    scores = []
    for ticket, sc in sample:
        if reference_text(kind, ticket) is None:
            continue
        text = attack(ticket, sc)
        if text is not None:
            scores.append(score_text(kind, text, ticket, sc))
    return scores


def reference_scores(mode: str, kind: str, sample: list[tuple[Any, Any]]) -> list[float]:
    scores = []
    for ticket, sc in sample:
        text = reference_text(kind, ticket)
        if text is not None:
            scores.append(score_text(kind, text, ticket, sc))
    return scores


def attacks_for(mode: str) -> list[str]:
    return [name for name, (kind, _) in ATTACKS.items() if kind in KINDS_BY_MODE[mode]]
