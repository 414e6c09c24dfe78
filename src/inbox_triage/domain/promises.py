"""Promising what the owning team decides: money back, credits and free time, a fix or release
by a time, a guaranteed outcome, also stated as a fact (the other half of the policy screen,
``domain.screen``). A hedge, a condition, a past fact or a date for writing again is no promise.
"""

from __future__ import annotations

import re

from inbox_triage.domain.secrets import compiled

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
    r"first thing|this (?:morning|afternoon|evening)|the first of the month|"
    r"(?:tonight|tomorrow|today|monday|tuesday|wednesday|thursday|friday|saturday|sunday)'s "
    r"(?:build|release|update)|next \w+day'?s? (?:build|release|update)|"
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
    r"(?:money|funds|deposit|amount|cash)\b[^.;!?]{0,25}?\b(?:back|returned|refunded|in your "
    r"account|on your card)|(?:a |your |the )?(?:full |partial )?(?:refund|credit|"
    r"reimbursement|compensation))\b",
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
    r"(?:months?|weeks?|years?) (?:of )?free|(?:is|are|be) free|no extra charge|won't pay|"
    r"not pay a (?:cent|penny|thing)|written off|write off|don't owe|do not owe|"
    r"(?:bill|invoice|balance) will be (?:zero|nothing)|will be zero|gems|rebate|cheque|"
    r"(?:fee|money|payment|amount|deposit|refund|cash)[^.;!?]{0,20}(?:comes|goes) back)\b",
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
    r"\b(?:fix|patch|update|hotfix|release|firmware|version|build)\w*\b[^.;!?]{0,40}?\b(?:ships|"
    r"lands|goes (?:out|live)|comes out|is out|(?:is|are) "
    r"(?:scheduled|planned|due|set|coming))\b[^.;!?]{0,30}?" + _TIME,
    r"\b(?:pushing|shipping|deploying|releasing|rolling out) (?:a |the |our )?(?:fix|patch|"
    r"update|hotfix)\b[^.;!?]{0,30}?" + _TIME,
    _TIME + r"[^.;!?]{0,40}?\b(?:will|'ll) be (?:back|fixed|resolved|restored|working|sorted|"
    r"gone|live|up)\b",
    r"\b(?:is|are) (?:coming out|going out|going live|shipping|landing|being released)\b"
    r"[^.;!?]{0,30}?" + _TIME,
    r"\b(?:gets?|get|will be|is|are|has been|have been|was|were)\s+(?:\w+\s+)?(?:lifted|"
    r"unsuspended|unbanned|reinstated|restored|fixed|gone|resolved|live|out|reversed|moved|"
    r"upgraded)\b[^.;!?]{0,40}?" + _TIME,
    r"\b(?:lands?|ships?|goes out|goes live|is out|released?)\b[^.;!?]{0,15}\bin (?:version|"
    r"release|v)\s?\d",
    r"\bexpect\b[^.;!?]{0,30}?\b(?:every penny|money|refund|credit|voucher|amount|payment|"
    r"compensation|discount)\b|\b(?:are|is|'re) waiving\b|"
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
    r"not yet|isn't|aren't|wasn't|hasn't|haven't|would like|you'd like|want|wants|"
    r"only offered|offered by|explain|how (?:the|much|it|that)|should(?:n't| not) have|"
    r"was wrong|in error|last (?:month|year|week)|previously|as part of)\b"
)


def promises_too_much(clause: str, extra: tuple[str, ...]) -> bool:
    found = (
        _PROMISE.search(clause)
        or (_GIVEN.search(clause) and _MONEY.search(clause))
        or any(compiled(p).search(clause) for p in extra)
    )
    if not found:
        return False
    if _HEDGE.search(clause):
        return bool(_VOW.search(clause))
    # "we'll update you by Friday": only a date for writing again
    return not (_TOUCH.search(clause) and not _MONEY.search(clause))
