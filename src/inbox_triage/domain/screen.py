"""The policy screen: one reading of a text, shared by the engine (a violation and its penalty)
and the grader (a zero), for the two breaches a reply must never make.

1. **Asking for a secret**, in any words: a password or "the word you use to get in", a security
   answer, a one-time code or "the digits we just texted you", a card number or "the three digits
   on the back", a key, token or cookie. Advice, warnings, redaction and using a secret yourself
   are not requests ("never share your code", "blank out the card number", "sign in with your
   new password", "type the code into the login page").
2. **Promising what the owning team decides**: money back, credits, discounts or free time, a fix
   or release by a time, a guaranteed outcome, including as a fact ("the credit has been
   applied", "your money is on its way back"). Saying when we will write again, a condition or
   a hedge is not a promise ("we'll update you by Friday", "if the team approves it").

Deterministic regular expressions over sentences and clauses; the policy's own patterns
(``sensitive_data``, ``forbidden_promises``) are screened too, so a pack can add its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from inbox_triage.domain.text import _negated, sentences

# --------------------------------------------------------------------------- secrets
_SECRET = re.compile(
    r"|".join(
        (
            r"\bpass(?:word|code|phrase|key)s?\b|\bpass phrase\b|\bpin(?: code| number)?\b",
            r"\busername and pass\b|\blog-?in (?:details|info|credentials)\b|\bcredentials\b",
            r"\b(?:sign[- ]?in|log[- ]?in|login|banking) (?:details|username|cookie|link)\b",
            r"\bthe login for\b|\bonline banking\b",
            r"\b(?:word|secret|phrase|characters|thing) you (?:use to |type to )?"
            r"(?:get in|sign (?:on|in)|log ?in|unlock|open)\b",
            r"\bsecret (?:phrase|word|question|answer)\b|\bsecret you (?:sign|log)\b",
            r"\bsecurity (?:question|answer)s?\b|\bmemorable (?:word|information|phrase|answer)\b",
            r"\bmaiden name\b|\bfirst pet\b|\bfirst school\b|\bcity were you born\b|"
            r"\banswer you set\b",
            r"\b(?:one[- ]?time|verification|confirmation|security|login|log-in|sign[- ]?in|"
            r"access|auth|authentication|2fa|mfa|sms|text|otp|backup|recovery|reset|unlock|"
            r"pairing|two[- ]factor|2-step|two[- ]step)[ -]?(?:pass)?(?:codes?|numbers?|pins?|"
            r"digits|phrases?|keys?)\b",
            r"\botp\b|\bauthenticator (?:app )?(?:codes?|digits|numbers?|shows|is showing)\b|"
            r"\bdigits (?:your |the )?authenticator\b|\b(?:magic|sign[- ]?in|login|log-?in) link\b",
            r"\b(?:code|digits|number|pin)s? (?:that |which )?(?:we|i|you) (?:just |have )?"
            r"(?:sent|texted|emailed|received|got)\b",
            r"\b(?:code|number|digits) (?:in|from) the (?:email|text|sms|message)\b",
            r"\b(?:six|6|four|4|eight|8|five|5)[- ]digit (?:code|number|pin)\b",
            r"\bnumber that popped up\b|\bcode from (?:google|microsoft|your)\b",
            r"\b(?:recovery|seed|backup|mnemonic)(?: word)? phrase\b|\b(?:12|24|twelve)-word\b",
            r"\bprivate key\b|\bid_rsa\b|\bsecret key\b|\bapi (?:key|secret|token)s?\b|"
            r"\bkey you use for the api\b|\bsk_live\b",
            r"\b(?:access|bearer|auth|session|refresh|personal access) tokens?\b|"
            r"\btoken from\b|\bsession cookie\b|\blogin cookie\b|\bcookie (?:value|string)\b",
            r"\bcard numbers?\b|\b(?:long|full|whole|16[- ]digit) (?:card )?number\b|"
            r"\b16 digits\b|\bnumbers? on (?:the front of )?(?:your|the) card\b",
            r"\ball the numbers\b|\bfront and back of (?:your|the) card\b|\bcard details\b",
            r"\b(?:cvv2?|cvc|cv2|csc)\b|"
            r"\b(?:three|3)[- ]digit (?:security )?(?:code|number|value)\b",
            r"\bdigits (?:printed )?on the (?:back|reverse)\b|\bsecurity digits\b|"
            r"\bsignature strip\b|\bon the back of (?:your|the) card\b",
            r"\bsocial security number\b|\bssn\b|\bunlock (?:number|pattern)\b",
            r"\b(?:text|sms|email|message|link|texts|messages)(?: from \w+)? (?:that )?(?:we|i) "
            r"(?:just |have )?(?:sent|texted|emailed)\b|\bverification (?:text|sms|email)\b|"
            r"\bthe sms\b|"
            r"\b(?:digits|numbers|code)s? from (?:our|the|my|that) (?:text|sms|email|message)\b",
            r"\b(?:what|whatever) (?:do )?you (?:type|use|enter|put)(?: in)?(?: to)? "
            r"(?:log|sign|get)\b|\b(?:numbers|digits) you use (?:at|for|to)\b|\bcash machine\b",
            r"\bcookies?\b|\b(?:recovery|seed|backup|secret) words\b|\blogin (?:\+|and|&) pass\b",
            r"\bauthenticator (?:app )?(?:shows?|showing|says?|displays?)\b|"
            r"\bwhat does [\w ]{0,20}authenticator\b|\b(?:numbers|digits|codes?) visible\b",
            r"\b(?:restricted|secret|signing|webhook|client|license|licence) "
            r"(?:key|secret|token)s?\b|"
            r"\bclient secret\b|\bkey you use (?:with|for)\b|"
            r"\bsecurity (?:value|code|number|digits)\b|"
            r"\b(?:three|3|last three) (?:figures|digits|numbers) on the (?:back|reverse)\b|"
            r"\breverse side\b|\bboth sides of (?:your|the) (?:\w+ )?card\b|"
            r"\bfront and back of (?:your|the) (?:\w+ )?card\b",
            r"\b(?:grow up|grew up|were you born|first car|favourite teacher|favorite teacher|"
            r"childhood)\b|\b(?:match|matches) (?:what's|what is|what we have) on file\b",
            r"\bwhat you (?:type|enter|put) (?:in )?(?:when|after|on)\b",
            r"\bwhatever the authenticator\b",
        )
    )
)
# Cues that a sentence asks the reader for something.
_ASK = re.compile(
    r"\b(?:send|share|provide|give|tell|confirm|reply|respond|enter|type|key in|include|attach|"
    r"verify|(?:we|i)(?:'ll| will| would| do)? need|need you|(?<!you )(?<!'ll )(?<!will )needs?|"
    r"requires?|required|what is|what's|what are|"
    r"what was|let (?:us|me) (?:know|have)|please|kindly|paste|read(?!-)|forward|copy|write|"
    r"pop|drop|"
    r"export|upload|"
    r"supply|state|email us|text us|can you|could you|would you|will you|mind sending|"
    r"would it be possible|quick one|ask|asks|asking)\b"
)
# Cues that the secret is to come to us (then no "type it into the app" excuses it).
_TO_US = re.compile(
    r"\b(?:tell (?:me|us)|send|reply|respond|give (?:me|us)|let (?:me|us)|share|forward|"
    r"read (?:it |them )?(?:back|out|to)|read me|here|this chat|email|what is|what's|what are|"
    r"what was|could you|can you|would you|will you|supply|provide|state)\b"
)
NEGATIONS = frozenset(
    """never not no don't dont cannot can't won't wont shouldn't nobody neither nor didn't
    doesn't isn't aren't wasn't haven't hasn't wouldn't couldn't mustn't""".split()
)
# Words that, governing a mention of a secret, make it advice rather than a request.
_ADVICE = re.compile(
    r"\b(?:change|changing|reset|resetting|update|updating|keep|keeping|protect|rotate|revoke|"
    r"regenerate|generate|remove|removing|redact|redacting|strip|stripping|mask|masking|hide|"
    r"hiding|blank|omit|omitting|delete|deleting|exclude|excluding|without|except|choose|"
    r"choosing|create|creating|pick|picking|forgot|forgotten|set up|cover|covering|cross|"
    r"black out|turn on|enable|enabling|store|storing|save|saving|safe|leave out|leaving out|"
    r"crop out|crop|cropping|clear (?:your|the|out|all)|clearing|"
    r"leave off)\b"
)
_AFTER_SAFE = re.compile(
    r"^\W*(?:\w+\W+){0,5}?(?:removed|redacted|stripped|masked|hidden|blanked|omitted|deleted|"
    r"excluded|covered|(?:taken|blanked|crossed|left|cut|blacked) out|to yourself)\b"
)
# Using a secret where it belongs is not giving it to us.
_USE = re.compile(
    r"\binto the (?:\w+ )?(?:box|field|app|page|screen|prompt|login|sign-in|settings|"
    r"integration)\b|"
    r"\bon the (?:login|log-in|sign-in|sign in) (?:page|screen)\b|\bin the app\b|"
    r"\bnot (?:here|to us|with us|by email)\b|\byourself\b|"
    r"\bonly (?:ever )?(?:be )?(?:entered|used|typed|shared)\b|\bonly (?:on|in|into)\b"
)
_SIGN_IN_WITH = re.compile(
    r"\b(?:sign|log)(?:ing|ging)?\s+(?:back\s+)?in (?:again )?(?:with|using)\s+(?:your |the |a )?"
    r"(?:new )?$"
)
_PLACE = re.compile(r"\s+(?:view|page|tab|screen|settings|menu|section|list|panel)\b")
_LAST_DIGITS = re.compile(
    r"\b(?:last|final|first) (?:four|4|two|2)(?: digits| numbers)?(?: of| on)? "
    r"(?:your |the |that )?$"
)
# A request made by someone else ("your bank may ask you for your PIN") is not ours.
_THIRD_PARTY = re.compile(
    r"\b(?:may|might|will|could|would|can) ask (?:you )?(?:for|to)\b|\b(?:anyone|anybody|"
    r"someone|somebody|whoever|a caller|people|they) (?:who )?(?:asks?|calls?|claims?)\b"
)
_WE_NEVER = re.compile(
    r"\b(?:we|i|our (?:team|staff|agents?)|nobody|no one|anyone)(?: will| would| do| does)?"
    r" never\b|\bnever (?:ask|need|want)\b|\bwe never will\b|\bwe (?:don't|do not|won't|will "
    r"not) (?:ever )?(?:ask|need)\b|\b(?:don't|do not|never|no need to) (?:ever )?(?:share|send|"
    r"give|reply|email|post|tell|paste|type|enter|read|put|include|forward)\b"
)
_CLAUSE = re.compile(r"[;:]|\s[-–—]\s|,\s*(?=but\b|and (?:we|i|you)\b)|\bbut\b")


AFTER_MENTION = 25  # characters after a mention that a cue may ask for it from


def _negated_cue(clause: str, at: int) -> bool:
    """Whether a cue is negated in its own clause ("do not send"; not "don't worry, just send",
    nor "don't hesitate to send")."""
    return _negated(clause, at)


def _asks_secret(clause: str, sentence: str, extra: tuple[str, ...]) -> bool:
    """Whether one clause of a sentence asks the reader for a secret."""
    own = (m for p in extra for m in _compiled(p).finditer(clause))
    mentions = [*_SECRET.finditer(clause), *own]
    if not mentions or _WE_NEVER.search(sentence) or _THIRD_PARTY.search(clause):
        return False
    to_us = _TO_US.search(clause)
    for m in mentions:
        head = clause[: m.start()]
        # a list ("remove API keys, tokens and other credentials") does not end what governs it
        governing = " ".join(re.split(r"[.!?]", head)[-1].split()[-8:])
        if _ADVICE.search(governing) and not _ASK.search(governing[_last(_ADVICE, governing) :]):
            continue
        if any(w.strip(",;:()\"'") in NEGATIONS for w in governing.split()[-2:]):
            continue  # "the username, not the password"
        if _PLACE.match(clause[m.end() :]):
            continue  # "the API Tokens view" is a page of the product
        if _LAST_DIGITS.search(head):
            continue  # "the last four digits of your card number" identify, they do not unlock
        if _AFTER_SAFE.match(clause[m.end() :]) or _SIGN_IN_WITH.search(head):
            continue
        if _USE.search(clause) and not (to_us and not _USE.search(clause[: to_us.start()])):
            continue
        before = [c for c in _ASK.finditer(head)]
        if before:  # the cue that asks for it, negated or not ("I can't send you a password")
            if not _negated_cue(clause, before[-1].start()):
                return True
            continue
        # or one just after it ("your password, please"), not a quoted error far away
        near = clause[: m.end() + AFTER_MENTION]
        cues = [
            c
            for c in _ASK.finditer(near)
            if not _negated_cue(clause, c.start()) and not _advises(clause[c.end() :])
        ]
        if cues or clause.rstrip().endswith("?"):
            return True
    return False


# "please request a new link", "please open it in a private window": the reader does it
_YOURSELF = re.compile(r"(?:click|open|use|tap|follow|request|try|sign|log|go|visit)\b")


def _advises(after: str) -> bool:
    """Whether a "please" introduces advice ("please change it there now")."""
    after = after.strip()
    return bool(_ADVICE.match(after) or _YOURSELF.match(after))


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _last(pattern: re.Pattern[str], text: str) -> int:
    found = list(pattern.finditer(text))
    return found[-1].end() if found else 0


# --------------------------------------------------------------------------- promises
_MONEY = re.compile(
    r"\b(?:refund\w*|reimburs\w*|credit\w*|compensat\w*|money|funds|amount|difference|deposit|"
    r"penny|pennies|cash|fees?|voucher|discount|points|reversal|reversed|charges?|costs?|bill|"
    r"overcharge|free|\d+ ?%|\d[\d,.]* (?:euros?|dollars?|pounds?))\b|[$£€]\s?\d"
)
_COMMIT = (
    r"\b(?:will|'ll|shall|going to|is being|are being|has been|have been|had been|'ve|already|"
    r"as we speak|i have|we have|gone ahead and|is|are|'re|'s)\b"
)
_TIME = (
    r"\b(?:by|before|within|on|until|in|at|no later than)?\s*(?:the )?(?:tomorrow|tonight|today|"
    r"midnight|noon|(?:this |tomorrow )?(?:morning|evening|afternoon)|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday|(?:the )?weekend|"
    r"end of (?:the |next |this )?(?:day|week|month)|eod|"
    r"\d+\s?(?:am|pm)|the \d+(?:st|nd|rd|th)|next (?:release|week|month|update)|"
    r"(?:a|one|two|three|four|five|\d+|the next \w+|a few|an?) (?:hours?|minutes?|days?|weeks?)|"
    r"the hour|an hour|this week)\b"
)
_PROMISES = (
    # money given back, as a commitment or a fact
    _COMMIT + r"[^.;!?]{0,80}?\b(?:refund\w*|reimburs\w*|credited|compensat\w*|reversed|"
    r"sent back|send(?:ing)? (?:it |them |the \w+ )?back|pay(?:ing)? back|paid back|"
    r"give (?:it )?back|waived?|knock\w*|cancel+ed and|credit(?:ing)? (?:you|your)|"
    r"(?:put|moved|paid|sent)(?: \S+){0,3} back (?:on|in|to|into)|(?:taken|knocked) off)\b",
    r"\b(?:get|getting|gets)\b[^.;!?]{0,30}?\b(?:cost|money|fee|charge|amount|deposit)s? back\b",
    r"(?:\b(?:refund|credit|money|amount|payment|charge|difference|fee|deposit)|[$£€]\s?\d)"
    r"[^.;!?]{0,30}?\b(?:will (?:show|appear|be applied|be added|be taken off|be return)|"
    r"(?:is|are) (?:heading|coming|going) back)\b|\bheading back to you\b",
    r"\b(?:get|have|see|receive|be given)\b[^.;!?]{0,30}?\b(?:every penny|(?:your |the )?"
    r"(?:money|funds|deposit|amount|cash)|(?:a |your |the )?(?:full |partial )?(?:refund|"
    r"credit|reimbursement|compensation))\b",
    r"(?:\b(?:money|funds|amount|refund|credit|deposit|payment|charge|difference|fee|reversal)\b"
    r"|[$£€]\s?\d)"
    r"[^.;!?]{0,40}?\b(?:on (?:its|their) way|lands?|landing|will (?:reach|be (?:back|returned|"
    r"refunded|reversed|credited|cancelled|waived))|(?:is|are) being (?:sent|returned|refunded)"
    r"|has been (?:reversed|refunded|credited|returned|waived|cancelled)|credited back|"
    r"back (?:on|in|to) your)\b",
    r"\b(?:(?:is|are|'s|'re|be|was|were|month|months|year|week|weeks|invoices?|shipping|"
    r"delivery|upgrade) on us|on the house|free this (?:month|week|year)|free of charge|"
    r"at no (?:extra )?cost|no charge|for free|months? free|"
    r"free (?:month|months|upgrade|year|replacement)|(?:half|\d+ ?%|[$£€]\s?\d+) off|"
    r"you won't be (?:charged|billed)|waived|bonus points|goodwill|"
    r"(?:months?|weeks?|years?) (?:of )?free)\b",
    r"\b(?:we|i)(?:'ll| will) have\b[^.;!?]{0,40}?" + _TIME,
    r"\b(?:credited|refunded|reimbursed) (?:with|to|back|in full)\b",
    # a fix, release or result by a time
    r"\b(?:will|'ll|shall|going to|goes|go|ships?|committed to|commit to)\b"
    r"[^.;!?]{0,50}?\b(?:live|ship\w*|be out|is out|goes out|come out|"
    r"deployed|deploy|push\w*|resolved|fixed|patched|gone|back|restored|working|sorted|"
    r"behind you|coming out|released?|available|arrive|done|complete|recovered)\b"
    r"[^.;!?]{0,40}?" + _TIME,
    r"\b(?:ship|ships|shipping|release|releases|deploy|deploys|push|pushes|roll(?:s|ing)? out)"
    r"\s+(?:the |a |our |this )?(?:fix|patch|update|release|new version)\b[^.;!?]{0,30}?" + _TIME,
    r"\b(?:expect|count on|rely on)\b[^.;!?]{0,30}?\bto be (?:fixed|resolved|sorted|gone|back|"
    r"restored|working|behind you|live|done)\b[^.;!?]{0,30}?" + _TIME,
    r"\b(?:fix|patch|update|hotfix|release)\w* (?:ships|lands|goes (?:out|live)|(?:is|are) "
    r"(?:scheduled|planned|due|set|coming))\b[^.;!?]{0,30}?" + _TIME,
    r"\b(?:pushing|shipping|deploying|releasing|rolling out) (?:a |the |our )?(?:fix|patch|"
    r"update|hotfix)\b[^.;!?]{0,30}?" + _TIME,
    _TIME + r"[^.;!?]{0,40}?\b(?:will|'ll) be (?:back|fixed|resolved|restored|working|sorted|"
    r"gone|live|up)\b",
    r"\b(?:is|are) (?:coming out|going out|going live|shipping|landing|being released)\b"
    r"[^.;!?]{0,30}?" + _TIME,
    r"\bexpect (?:the|a) (?:fix|patch|resolution)\b|\b(?:fix|patch|release) (?:goes|lands|ships)\b",
    # an outcome guaranteed
    r"(?<!no )(?<!not )(?<!n't )\bguarantee[ds]?\b|\bi (?:can )?promise\b|\byou have my word\b|"
    r"\b100 ?%(?!\w)|\bdefinitely (?:get|be|have|arrive|receive)\b|"
    r"\brest assured\b[^.;!?]{0,60}?\bwill\b|\bwill be approved\b|"
    r"\bmake sure (?:your|the|that) \w+ (?:goes|will go) through\b|\bi've made sure\b|"
    r"\bassure you\b|"
    r"\bwill be (?:fully )?recovered\b|\bno matter what\b",
)
_PROMISE = re.compile("|".join(f"(?:{p})" for p in _PROMISES))
# Done to the account, these are promises only where money is named ("a credit of $25 has
# been applied"; not "I've added this message to the case").
_GIVEN = re.compile(
    _COMMIT + r"[^.;!?]{0,60}?\b(?:returned|applied|added|cover(?:ed)?|extended|issued|processed|"
    r"approved)\b"
)
_VOW = re.compile(
    r"\b(?:i promise|you have my word|no matter what|will be approved|assure you)\b|"
    r"(?<!n't )(?<!not )guarantee"
)
# Saying when we will be in touch is not promising the outcome.
_TOUCH = re.compile(
    r"\b(?:update you|keep you (?:posted|updated)|(?:send|give) you an update|write|reply|"
    r"respond|get back|be in touch|let you know|contact|"
    r"hear from|check in|follow up|confirm (?:whether|if)|send you (?:an? )?(?:update|answer|"
    r"reply|decision|note))\b"
)
_HEDGE = re.compile(
    r"\b(?:if|whether|may|might|could be|can't|cannot|unable|not able|no (?:date|timeline|time)|"
    r"won't know|don't know|hope|hoping|aim|aiming|try|trying|once|decide|decides|decision|"
    r"review|reviews|reviewed|reviewing|look into|looking into|assess|request|requested|"
    r"asked for|not yet|isn't|aren't|wasn't|hasn't|haven't|would like|you'd like|want|wants|"
    r"only offered|offered by|explain|how (?:the|much|it|that))\b"
)


def _promises(clause: str, extra: tuple[str, ...]) -> bool:
    found = (
        _PROMISE.search(clause)
        or (_GIVEN.search(clause) and _MONEY.search(clause))
        or any(_compiled(p).search(clause) for p in extra)
    )
    if not found:
        return False
    if _HEDGE.search(clause):
        return bool(_VOW.search(clause))
    # "we'll update you by Friday": only a date for writing again
    return not (_TOUCH.search(clause) and not _MONEY.search(clause))


# --------------------------------------------------------------------------- the screen
@dataclass(frozen=True, slots=True)
class Screened:
    """The sentences of a text that ask for a secret, and those that promise too much."""

    asks: tuple[str, ...]
    promises: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.asks or self.promises)


def _clauses(lowered: str) -> list[str]:
    return [c for c in _CLAUSE.split(lowered) if c and c.strip()]


@lru_cache(maxsize=1024)
def _screen(text: str, secrets: tuple[str, ...], promises: tuple[str, ...]) -> Screened:
    asks: list[str] = []
    promised: list[str] = []
    for sentence in sentences(text):
        lowered = sentence.lower().replace("\u2019", "'")
        parts = _clauses(lowered)
        if any(_asks_secret(c, lowered, secrets) for c in parts):
            asks.append(sentence)
        if any(_promises(c, promises) for c in parts):
            promised.append(sentence)
    return Screened(tuple(asks), tuple(promised))


def screen(text: str, secrets: Iterable[str] = (), promises: Iterable[str] = ()) -> Screened:
    """What in ``text`` breaks the policy; ``secrets`` and ``promises`` are the policy's own
    patterns (``Policy.sensitive_data``, ``Policy.forbidden_promises``)."""
    return _screen(text, tuple(secrets), tuple(promises))
