"""Reply and summary grading on content, the way a careful support lead reads them.

A text scores by the points it states (matched by stem, in any close order, so that a person's
own wording counts), then a reply by addressing the customer and a sensible length. It scores
zero when it breaks policy (asks for secrets, promises what the policy forbids, quotes internal
notes), pastes the customer's message back, reads as a list of terms, fishes with many
phrasings of one point, names many teams at once, or is stuffed with things that belong to
other emails. Everything the agent was shown for the email, and the decision vocabulary, is
fair to mention: only what comes from elsewhere is stuffing. Every zero says why, and quotes
the words that caused it.
"""

from __future__ import annotations

import re

from inbox_triage.domain import OrgProfile, Policy, Ticket
from inbox_triage.domain.text import (
    FUNCTION_WORDS,
    sentences,
    shares_ngram,
    word_coverage,
    words,
)
from inbox_triage.grading.context import Seen
from inbox_triage.grading.lexicon import Indexed, index, polarity, stated_groups
from inbox_triage.grading.memo import ObjectMemo
from inbox_triage.grading.shortcuts import (
    shortcut,
    without_subject,
)
from inbox_triage.grading.stuffing import GENERIC_WORDS, StuffingTerms, is_common, is_distinctive
from inbox_triage.grading.texts import (
    DETAILS,
    GENERIC_CREDIT,
    NO_POINT_CREDIT,
    TextScore,
    clip,
    context_of,
    contradiction,
    contradicts,
    distinctive_groups,
)

MIN_FUNCTION_WORD_RATIO = 0.2
# ... and a reply tied to its email in none, or one, of the ways ``_ties`` counts: it could go
# to any customer of its team
REPLY_STOCK_CAPS = (0.1, 0.4)
ENGAGED_DETAILS = 2  # a reply naming fewer of the email's details, and none of its points ...
ENGAGED_WORDS = 5  # (or taking up fewer of its words in sentences of its own)
ACKNOWLEDGED_CREDIT = 0.5  # of a reply's points, for naming the customer's problem alone ...
ECHO_LIMIT = 0.75  # ... in words mostly its own (not this share of the customer's)


def policy_breaches(text: str, ticket: Ticket, policy: Policy) -> list[str]:
    """Why a text must not go to this customer, if it must not."""
    reasons: list[str] = []
    found = policy.screen(text)
    if found.asks:
        reasons.append(f"asks for data the policy forbids requesting ('{clip(found.asks[0])}')")
    if found.promises:
        reasons.append(f"makes a promise the policy forbids ('{clip(found.promises[0])}')")
    if any(shares_ngram(text, note) for note in ticket.internal_notes):
        reasons.append("quotes internal notes")
    lowered = text.lower()
    if ticket.truth.reply and any(
        p.lower() in lowered for p in ticket.truth.reply.forbidden_phrases
    ):
        reasons.append("contains content that must not reach this customer")
    return reasons


_GREETING = re.compile(
    r"^\W*(?i:hi|hello|hey|dear|good (?:morning|afternoon|evening)|morning|afternoon|evening)"
    r"\s+(?:(?i:mr|mrs|ms|miss|mx|dr|dra|prof|det|detective|sgt|sergeant|insp|inspector|officer|"
    r"constable|dc|ds|di|pc|sr|sra|srta|herr|frau|mme|mlle|dott|avv|ing|m(?=\.))\.?\s+)?"
    r"([A-Z][\w'-]*)(?=\s*(?:[,!.:;\n]|$|[A-Z]))"
)
# Words a greeting names that are not a person ("Dear Customer", "Hi Team").
_NOT_A_NAME = frozenset(
    """team there all everyone folks sir madam colleague colleagues friend friends customer
    customers valued user users member members client clients support again""".split()
)


def greeted_name(text: str) -> str | None:
    """The name a reply's greeting uses ("Hi Maria," "Dear Ms Pierce"), if it opens with one."""
    match = _GREETING.match(text)
    if not match:
        return None
    name = match.group(1)
    return None if name.lower() in _NOT_A_NAME else name


def _name_parts(ticket: Ticket) -> set[str]:
    parts = re.split(r"[\s.\-]+", ticket.customer.name.lower())
    return {n for n in parts if len(n) >= 2} | {ticket.customer.first_name.lower()}


def _greets_someone_else(greeted: str, ticket: Ticket) -> bool:
    """Whether a greeted name is not the customer's ("Maria-Lopez" is Maria Lopez)."""
    parts = _name_parts(ticket) - {""}
    return bool(parts) and not any(p in parts for p in re.split(r"[\-]", greeted.lower()) if p)


def addresses_customer(text: str, ticket: Ticket) -> bool:
    """Whether the opening names the customer (first name, or surname as in "Dear Ms Pierce")."""
    opening = index(text[:80])
    names = ticket.customer.name.lower().replace(".", " ").split()
    # read the name as the opening is read ("Sofía" is indexed as the opening's letters are)
    candidates = [index(n).plain for n in (names[:1] + names[-1:]) if len(n) >= 2]
    return any(n.strip() and n in opening.plain for n in candidates)


def grade_reply(
    text: str | None,
    ticket: Ticket,
    policy: Policy,
    stuffing_terms: StuffingTerms,
    messages: tuple[str, ...] = (),
    org: OrgProfile | None = None,
    context: Seen | None = None,
) -> TextScore:
    """Scores one reply (or the absence of one) against the ticket's reply spec; ``messages``
    are the customer's messages that arrived during the episode (fair to mention)."""
    spec = ticket.truth.reply
    if spec is None:
        if text is None:
            return TextScore(1.0, "no reply was due and none was sent")
        return TextScore(0.0, "a reply went to a message that should get none", "not due")
    if text is None:
        return TextScore(0.0, "no reply", "none")
    if not text.strip():
        return TextScore(0.0, "the reply is empty", "empty")
    breaches = policy_breaches(text, ticket, policy)
    if breaches:
        return TextScore(0.0, "; ".join(breaches), "policy")
    seen = context_of(ticket, messages, org, context)
    settled = _claims_settled(text)
    if len(settled) >= SETTLED_CLAIMS:
        note = f"says the matter is already settled ('{clip(settled[0])}')"
        return TextScore(0.0, note, "contradicts")
    greeted = greeted_name(text)
    if greeted and _greets_someone_else(greeted, ticket):
        note = f"greets '{greeted}', who is not the customer ({ticket.customer.name})"
        return TextScore(0.0, note, "wrong name")
    tokens = words(text)
    spread = index(text).tokens  # "a-b-c-d" is four words here
    function_share = sum(1 for t in spread if t in FUNCTION_WORDS) / max(1, len(spread))
    if len(spread) >= 8 and function_share < MIN_FUNCTION_WORD_RATIO:
        return TextScore(0.0, "reads as a keyword list, not a reply", "keyword list")
    why = shortcut(text, ticket, stuffing_terms, seen, "reply")
    if why:
        return TextScore(0.0, why[1], why[0])
    indexed = index(without_subject(text, ticket))
    stated, denied = polarity(indexed, spec.required_facts, seen.seen)
    problem, problem_denied = polarity(indexed, distinctive_groups(ticket), seen.seen)
    if contradicts([*stated, *problem], [*denied, *problem_denied]):
        groups = (*spec.required_facts, *distinctive_groups(ticket))
        return contradiction(indexed, groups, [*denied, *problem_denied], "reply")
    hit, total = sum(stated), len(stated)
    # A reply that names this email's own details has answered this email: one point put in
    # words the fact list does not know is then no reason to mark it down.
    details = seen.details_in(indexed)
    specific = len(details) >= DETAILS
    facts = min(1.0, (hit + specific) / total) if total else 1.0
    if not hit:  # details without a single point: half marks at most
        facts = min(facts, NO_POINT_CREDIT)
    # The policy asks a reply to acknowledge the customer's specific problem and say what
    # happens next: naming the problem's points earns part of the credit on its own.
    if problem and word_coverage(text, seen.customer) < ECHO_LIMIT:
        facts = max(facts, ACKNOWLEDGED_CREDIT * sum(problem) / len(problem))
    # A reply that could go to any customer ("your request has been passed on") says nothing
    # of this one: none of its details, and of its points only the ways to say what is next.
    generic = (
        len(details) < ENGAGED_DETAILS
        and not any(stated_groups(indexed, _distinctive_required(ticket)))
        and not any(problem)
    )
    if generic:
        facts *= GENERIC_CREDIT
    addressed = addresses_customer(text, ticket)
    length_ok = policy.reply_min_words <= len(tokens) <= policy.reply_max_words
    score = facts * (0.5 + 0.25 * addressed + 0.25 * length_ok)
    # A reply that names neither the customer's main problem nor anything only their email
    # says would go as well to any email of its team ("our billing team will review it").
    ties = _ties(indexed, ticket, seen, details)
    cap = REPLY_STOCK_CAPS[ties] if ties < len(REPLY_STOCK_CAPS) else 1.0
    if score > cap:
        score = cap
        generic = True
    parts = [f"{hit}/{total} required points" + (", specific" if specific and hit < total else "")]
    if generic:
        parts.append("nothing specific to this email")
    if not addressed:
        parts.append("does not address the customer by name")
    if not length_ok:
        parts.append(
            f"{len(tokens)} words, outside {policy.reply_min_words}-{policy.reply_max_words}"
        )
    return TextScore(score, ", ".join(parts), "" if score else "no points")


# A reply to mail that needs handling that says, again and again, that it is all done already
# ("this was fully resolved before you wrote", "the refund was dealt with already") tells the
# customer the opposite of their email.
_SETTLED = re.compile(
    r"\b(?:was|were|has been|have been|is|are|got)\s+(?:already\s+|fully\s+|all\s+|long\s+"
    r"(?:since\s+)?)?(?:resolved|settled|dealt with|taken care of|sorted(?: out)?|completed|done|"
    r"closed|handled)\b(?!\s+(?:soon|shortly|once|when|by|within|as soon|after))|"
    r"\bnothing (?:left|more|further|else) to (?:do|fix|be done)\b|\bneeds? nothing more\b|"
    r"\bno (?:further|more) action (?:is )?(?:needed|required)\b|"
    r"\b(?:case|matter|ticket|conversation) is (?:now )?closed\b|\bclosing this "
    r"(?:conversation|case|ticket|thread)\b",
    re.IGNORECASE,
)
SETTLED_CLAIMS = 2


def _claims_settled(text: str) -> list[str]:
    return [s for s in sentences(text) if _SETTLED.search(s)]


def _distinctive_required_of(ticket: Ticket) -> tuple[tuple[str, ...], ...]:
    spec = ticket.truth.reply
    groups = spec.required_facts if spec else ()
    return tuple(tuple(p for p in g if is_distinctive(p)) for g in groups)  # generic: none


_distinctive_required = ObjectMemo(_distinctive_required_of)


def _telling_groups_of(ticket: Ticket) -> tuple[tuple[str, ...], ...]:
    """The summary points in the phrasings that tell this kind of email from others ("charged
    twice", "subpoena"; not "error" or "account", which the mail of many kinds uses)."""
    groups = (tuple(p for p in g if not is_common(p)) for g in distinctive_groups(ticket))
    return tuple(g for g in groups if g)


_telling_groups = ObjectMemo(_telling_groups_of)


_WAITED = re.compile(
    r"\b(?:chas\w*|follow(?:ing|ed)? up|wait\w*|writ\w* again|second (?:email|message)|"
    r"went unanswered|still (?:waiting|locked|not|no|having)|silence|heard from us|sooner|"
    r"before now|delay\w*|patience|kept you|so long|this long|again)\b",
    re.IGNORECASE,
)


# A customer writing again: "bumping this", "my earlier message", "still no answer".
_CHASING = re.compile(
    r"\b(?:bump\w*|follow(?:ing)?[- ]up|chas\w*|earlier (?:message|email)|wrote (?:in|to you)|"
    r"no (?:answer|reply|response|word)|still (?:no|waiting|haven't|have not|not|stuck)|"
    r"any (?:update|news)|an update|eta|hear back|heard back|remind\w*|again)\b",
    re.IGNORECASE,
)


def _ties(indexed: Indexed, ticket: Ticket, seen: Seen, details: set[str]) -> int:
    """How many ways a reply is tied to this email rather than to any of its kind: a detail
    only it has, several of its details, a point that tells it from other kinds of mail, many
    of its own words taken up, and to a customer chasing an answer, the wait acknowledged."""
    echoed = len(_echoed(indexed, seen))
    chasing = bool(ticket.thread) or bool(_CHASING.search(seen.customer))
    waited = chasing and bool(_WAITED.search(" ".join(indexed.tokens)))
    return sum(
        (
            bool(details & seen.specific_first),
            len(details) >= ENGAGED_DETAILS,
            any(polarity(indexed, _telling_groups(ticket), seen.seen)[0]),
            echoed >= ENGAGED_WORDS,
            # retelling the email in its own sentences (all a reply can tie to where the email
            # names no detail of its own)
            echoed >= (ENGAGED_WORDS if not seen.specific_first else 2 * ENGAGED_WORDS),
        )
    ) + waited * (1 if seen.specific_first else 2)  # a chaser saying only "still waiting" asks that


def _echoed(text: Indexed, seen: Seen) -> set[str]:
    """The email's own content words a text takes up ("signing in from another country
    overnight"): a reply in its own sentences about this email uses many, a stock one few."""
    customer = index(seen.customer).stem_at
    return {
        s
        for t, s in zip(text.tokens, text.stems, strict=True)
        if len(t) > 2
        and t not in FUNCTION_WORDS
        and t not in GENERIC_WORDS
        and s in customer
        and s not in seen.vocabulary.stem_at
    }
