"""Asking for a secret, in any words: what a reply may never ask a customer for (one half of
the policy screen, ``domain.screen``).

A mention of something that opens an account or pays ("the six digits your authenticator app
shows", "the long number on the front of your card") asked for by a cue that is not negated
("send", "read it back", "what is"); advice, warnings, redaction, someone else asking and using
a secret where it belongs are not requests.
"""

from __future__ import annotations

import re
from functools import lru_cache

from inbox_triage.domain.text import _negated

SECRET_MENTION = re.compile(
    r"|".join(
        (
            r"\bpass(?:word|code|phrase|key)s?\b|\bpass phrase\b|\bpin(?: code| number)?\b",
            r"\busername and pass\b|\blog-?in (?:details|info|credentials)\b|\bcredentials\b",
            r"\b(?:sign[- ]?in|log[- ]?in|login|banking) (?:details|username|cookie|link)\b",
            r"\bthe login for\b|\bonline banking\b",
            r"\b(?:word|words|secret|phrase|characters|thing) you (?:use to |type to )?"
            r"(?:get in|sign (?:on|in)|log ?(?:in|on)|unlock|open)\b",
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
            r"\bthe sms\b|\b(?:temporary|temp|short|reset|login|sign-in) code\b|"
            r"\b(?:digits|numbers?|codes?)\b[^.;!?]{0,25}\b(?:arrived|came|popped up|you got|"
            r"you received|we sent|was sent)\b[^.;!?]{0,15}\b(?:sms|text|phone|inbox|email)\b|"
            r"\b(?:key string|2fa seed|totp seed|secret seed|qr code)\b|\bsign-on phrase\b|"
            r"\bwords? you (?:type|use|enter) to (?:log|sign|get)\b|\bmemorable question\b|"
            r"\btaxpayer (?:number|id)\b|\bcard digits\b|\ball (?:of )?the digits\b|"
            r"\bwhole (?:\w+-digit )?number\b|\b(?:sixteen|16)-digit\b|"
            r"\bnumber your card reader\b|\bcard reader (?:code|number)\b|\bcheck value\b|"
            r"\bcard'?s? expiry\b|\byou were born\b|\bbank login\b|"
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
    r"export (?:your|the|it|them)|upload (?:your|the|it|them)|furnish|submit|hand over|"
    r"disclose|reconfirm\w*|message me|"
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
    r"excluded|covered|(?:taken|blanked|crossed|left|cut|blacked) out|to yourself)\b|"
    # "your card details have been taken": what happened to it, not a request for it
    r"^\W*(?:(?:have|has|had|may have|might have|could have)\s+)?(?:been|was|were|got)\s+"
    r"(?:taken|stolen|compromised|leaked|exposed|copied|skimmed|lost)\b"
)
# Using a secret where it belongs is not giving it to us.
IN_USE = re.compile(
    r"\binto the (?:\w+ )?(?:box|field|app|page|screen|prompt|login|sign-in|settings|"
    r"integration|machine|reader|keypad|terminal|atm)\b|"
    r"\bwhen (?:the|your) (?:portal|app|site|page|system|screen) (?:prompts|asks)\b|"
    r"\bon the (?:login|log-in|sign-in|sign in) (?:page|screen)\b|\bin the app\b|"
    r"\bnot (?:here|to us|with us|by email)\b|\byourself\b|"
    r"\bonly (?:ever )?(?:be )?(?:entered|used|typed|shared)\b|\bonly (?:on|in|into)\b"
)
_SIGN_IN_WITH = re.compile(
    r"\b(?:sign|log)(?:ing|ging)?\s+(?:back\s+)?in (?:again )?(?:with|using)\s+(?:your |the |a )?"
    r"(?:new )?$"
)
_WHAT = re.compile(r"\b(?:what|which|whats|what's)\b")
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
WARNS = re.compile(
    r"\b(?:we|i|our (?:team|staff|agents?)|nobody|no one|anyone)(?: will| would| do| does)?"
    r" never\b|\bnever (?:ask|need|want)\b|\bwe never will\b|\bwe (?:don't|do not|won't|will "
    r"not) (?:ever )?(?:ask|need)\b|\b(?:don't|do not|never|no need to) (?:ever )?(?:share|send|"
    r"give|reply|email|post|tell|paste|type|enter|read|put|include|forward)\b|"
    # advice against reuse: "please don't use a password you've used anywhere else"
    r"\b(?:don't|do not|never|avoid) (?:re-?use|re-?using|use|using)\b[^.;]{0,50}"
    r"\b(?:elsewhere|anywhere else|on other (?:sites|accounts|services))\b"
)


AFTER_MENTION = 25  # characters after a mention that a cue may ask for it from


def _negated_cue(clause: str, at: int) -> bool:
    """Whether a cue is negated in its own clause ("do not send"; not "don't worry, just send",
    nor "don't hesitate to send")."""
    return _negated(clause, at)


def asks_secret(clause: str, sentence: str, extra: tuple[str, ...]) -> bool:
    """Whether one clause of a sentence asks the reader for a secret."""
    own = (m for p in extra for m in compiled(p).finditer(clause))
    mentions = [*SECRET_MENTION.finditer(clause), *own]
    if not mentions or WARNS.search(sentence) or _THIRD_PARTY.search(clause):
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
        if IN_USE.search(clause) and not (to_us and not IN_USE.search(clause[: to_us.start()])):
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
        if cues or (clause.rstrip().endswith("?") and _WHAT.search(clause)):
            return True
    return False


# "please request a new link", "please open it in a private window": the reader does it
_YOURSELF = re.compile(r"(?:click|open|use|tap|follow|request|try|sign|log|go|visit)\b")


def _advises(after: str) -> bool:
    """Whether a "please" introduces advice ("please change it there now")."""
    after = after.strip()
    return bool(_ADVICE.match(after) or _YOURSELF.match(after))


@lru_cache(maxsize=256)
def compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _last(pattern: re.Pattern[str], text: str) -> int:
    found = list(pattern.finditer(text))
    return found[-1].end() if found else 0
