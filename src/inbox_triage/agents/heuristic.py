"""A rule-based agent over what any agent can see: keywords, sender, tier and the vocabulary.

It is the bar a learning agent should clear. It guesses a situation from the text, then maps the
situation onto the mode's vocabulary. It does not judge sentiment and writes generic replies.
"""

from __future__ import annotations

import re
from typing import Any

from inbox_triage.agents.base import ActionDict, Observation, compose_reply
from inbox_triage.agents.planning import Item, PlanningAgent, by_policy, item_text

# Checked in this order: the first situation whose keywords match wins.
SITUATIONS: list[tuple[str, tuple[str, ...]]] = [
    (
        "spam",
        (
            "you have won",
            "you've won",
            "winner",
            "lottery",
            "prize",
            "claim your",
            "processing fee",
            "verify your account",
            "verify your credentials",
            "click the link below",
            "bank details have changed",
        ),
    ),
    (
        "security",
        (
            "hacked",
            "compromised",
            "taken over",
            "takeover",
            "unauthori",
            "suspicious",
            "fraud",
            "stolen",
        ),
    ),
    ("outage", ("outage", "is down", "are down", "service unavailable", "503")),
    (
        "legal",
        (
            "gdpr",
            "subpoena",
            "data subject",
            "attorney",
            "lawyer",
            "legal",
            "court",
            "erasure",
            "right to be forgotten",
        ),
    ),
    ("churn", ("cancel", "go public", "the press", "switching to", "competitor", "unacceptable")),
    ("billing", ("invoice", "charged", "charge", "refund", "billing", "payment")),
    ("shipping", ("order", "shipment", "shipping", "tracking", "delivery", "parcel", "courier")),
    ("login", ("log in", "login", "password", "sign in")),
    ("bug", ("bug", "error", "crash", "broken", "missing", "doesn't work", "not working")),
    ("sales", ("pricing", "demo", "seats", "partnership", "quote", "enterprise plan")),
    ("hr", ("lunch", "payroll", "leave", "benefits", "holiday", "payslip", "hr")),
    ("feature", ("idea", "feature", "roadmap", "suggestion")),
    ("newsletter", ("newsletter", "unsubscribe", "digest", "webinar")),
]

PRIORITY_RANK = {"urgent": 0, "high": 1, "medium": 2, "low": 3, "spam": 4}

TRIAGE = {  # situation -> (priority, category, route_to, flag_review)
    "spam": ("spam", "spam_phishing", "trash", False),
    "security": ("urgent", "customer_complaint", "support_tier2", True),
    "outage": ("urgent", "technical_support", "support_tier2", False),
    "legal": ("high", "legal_compliance", "legal", True),
    "churn": ("high", "customer_complaint", "management", True),
    "billing": ("high", "billing_inquiry", "billing", False),
    "shipping": ("medium", "customer_complaint", "support_tier1", False),
    "login": ("medium", "technical_support", "support_tier1", False),
    "bug": ("medium", "technical_support", "support_tier1", False),
    "sales": ("medium", "sales_lead", "sales", False),
    "hr": ("low", "internal_hr", "hr", False),
    "feature": ("low", "general_inquiry", "support_tier1", False),
    "newsletter": ("low", "general_inquiry", "archive", False),
    "general": ("low", "general_inquiry", "support_tier1", False),
}

TICKET = {  # situation -> (priority, team)
    "security": ("urgent", "trust_safety"),
    "outage": ("urgent", "technical"),
    "billing": ("high", "billing"),
    "shipping": ("medium", "shipping"),
    "login": ("medium", "account"),
    "bug": ("medium", "technical"),
}
TAG_WORDS = {
    "password-reset": ("password reset", "reset my password", "resetting my password"),
    "login": ("log in", "login", "sign in"),
    "refund": ("refund",),
    "double-charge": ("twice", "double", "duplicate"),
    "security": ("hacked", "compromised", "taken over", "takeover", "suspicious", "stolen"),
    "account-takeover": ("taken over", "takeover", "hacked"),
    "fraud": ("fraud", "scam", "unauthorized charge"),
    "content-abuse": ("abuse", "abusive", "offensive"),
    "harassment": ("harass",),
    "shipping-delay": ("late", "delayed", "tracking"),
    "damaged-item": ("damaged",),
    "bug": ("bug", "error"),
    "outage": ("outage",),
}

INBOX = {  # situation -> (priority, queue, template, escalate_to, resolution_code)
    "security": ("urgent", "security", "security_lockdown", "security", None),
    "outage": ("urgent", "incidents", "incident_acknowledged", "incident_response", None),
    "legal": ("high", "legal", "legal_request_received", "legal", None),
    "billing": ("high", "billing", "billing_review", "billing_ops", None),
    "bug": ("medium", "technical", "bug_acknowledged", "engineering", None),
    "login": ("medium", "account", "password_reset_steps", None, "password_reset_completed"),
    "shipping": ("medium", "shipping", "shipping_update", None, "shipping_update_provided"),
    "feature": ("low", "product", "feature_request_logged", None, "feature_request_logged"),
    "general": ("low", "account", "generic_acknowledgement", None, "question_answered"),
}

REPLY_POINTS = {
    "security": [
        "We have locked your account to secure it",
        "Our security team is investigating what happened",
    ],
    "outage": ["Our engineers are investigating the outage", "We will post updates as we go"],
    "legal": [
        "Your request has been passed to our legal team",
        "They will respond within the time the law allows",
    ],
    "churn": [
        "I have shared your feedback with our management team",
        "A senior manager will contact you directly",
    ],
    "billing": [
        "Our billing team will review the charge",
        "We will confirm the outcome once the review is done",
    ],
    "shipping": [
        "We are checking the delivery with the courier",
        "We will send you the latest tracking update",
    ],
    "login": [
        "Please request a new reset link and open it in a private window",
        "Clearing your cache and cookies usually fixes an expired token",
    ],
    "bug": ["Thank you for the detailed report", "Our technical team will look into the error"],
    "sales": [
        "Our sales team would be glad to walk you through the plan",
        "We can set up a call or demo at a time that suits you",
    ],
    "hr": ["Thanks for the note", "I will reply to the people team directly"],
    "feature": ["Thank you for the suggestion", "We have shared it with the product team"],
    "general": ["Thanks for your question", "A member of our team will reply shortly"],
}
_IDS = re.compile(r"\b[A-Z]{2,5}-[0-9][0-9A-Z-]{2,}\b")


def situation(text: str) -> str:
    lowered = text.lower()
    for name, keywords in SITUATIONS:
        if any(k in lowered for k in keywords):
            return name
    return "general"


def reply_for(name: str, first_name: str, text: str) -> str:
    points = list(REPLY_POINTS.get(name, REPLY_POINTS["general"]))
    ids = sorted(set(_IDS.findall(text)))
    if ids:
        points.insert(0, "This concerns " + ", ".join(ids[:3]))
    return compose_reply(first_name, points)


def _bump(priority: str, tier: str) -> str:
    if tier in ("vip", "enterprise") and priority in ("medium", "low"):
        return "high"
    return priority


ASKS_FOR_EVIDENCE = ("billing", "security", "bug", "login")
EVIDENCE_REQUEST = (
    "Could you send us a screenshot of what you see, the date and time it happened, and the "
    "transaction receipt or order number if there is one?"
)


# Which vocabulary list each field's value must come from.
FIELD_VOCABULARY = {
    "priority": "priorities",
    "category": "categories",
    "route_to": "queues",
    "queue": "queues",
    "response_template": "templates",
    "escalate_to": "escalation_targets",
    "resolution_code": "resolution_codes",
}
VALUE_VOCABULARY = {"set_priority": "priorities", "route_team": "queues", "add_tag": "tags"}


def fit_to_vocabulary(plan: list[ActionDict], vocabulary: dict[str, Any]) -> list[ActionDict]:
    """Keeps a plan valid on any org's taxonomy: a value the org lacks becomes its first
    allowed value; a tag, escalation or resolution it lacks is dropped."""
    fitted: list[ActionDict] = []
    for action in plan:
        action = dict(action)
        keep = True
        for field, key in FIELD_VOCABULARY.items():
            if field in action and action[field] not in vocabulary[key]:
                if field in ("escalate_to", "resolution_code") or not vocabulary[key]:
                    keep = False
                else:
                    action[field] = list(vocabulary[key])[0]
        key = VALUE_VOCABULARY.get(action.get("action_type", ""))
        if key and action["value"] not in vocabulary[key]:
            if key == "tags" or not vocabulary[key]:
                keep = False
            else:
                action["value"] = list(vocabulary[key])[0]
        if keep:
            fitted.append(action)
    return fitted


def avoid_full_queues(
    plan: list[ActionDict], obs: Observation, routed: str | None = None
) -> list[ActionDict]:
    """Follows the policy's queue and budget rules (``by_policy``); where the inbox names no
    overflow queue, work meant for a full queue goes to the first queue with room."""
    plan = by_policy(plan, obs, routed)
    remaining = obs.get("team_queue_remaining") or {}
    open_queues = [q for q in obs["vocabulary"]["queues"] if remaining.get(q, 1) > 0]
    out = []
    for action in plan:
        for field in ("route_to", "queue"):
            queue = action.get(field)
            if queue != routed and remaining.get(queue, 1) <= 0 and open_queues:
                action = {**action, field: open_queues[0]}
        out.append(action)
    return out


class HeuristicAgent(PlanningAgent):
    """Keyword rules mapped onto each mode's vocabulary, re-read as customers answer."""

    name = "heuristic"

    def urgency(self, item: Item, obs: Observation) -> tuple[Any, ...]:
        name = situation(item_text(item))
        priority = _bump(TRIAGE[name][0], item["tier"]) if name != "spam" else "spam"
        return (PRIORITY_RANK[priority], item["received_at"], item["id"])

    def plan_for(self, item: Item, obs: Observation) -> list[ActionDict]:
        mode = obs["mode"]
        if mode == "triage":
            plan = [] if item["done"] else [self._triage(item, obs)]
        elif mode == "ticket":
            plan = self._ticket(item, obs)
        else:
            plan = self._inbox(item)
        return avoid_full_queues(fit_to_vocabulary(plan, obs["vocabulary"]), obs, item["queue"])

    def _triage(self, item: Item, obs: Observation) -> ActionDict:
        text = item_text(item)
        name = situation(text)
        priority, category, route, flag = TRIAGE[name]
        if name != "spam":
            priority = _bump(priority, item["tier"])
        action: ActionDict = {
            "email_id": item["id"],
            "priority": priority,
            "category": category,
            "route_to": route,
            "summary": f"{name.title()} email: {item['subject']}"[:280],
            "flag_review": flag and obs["escalation_budget_remaining"] > 0,
        }
        if name not in ("spam", "newsletter"):
            action["reply_draft"] = reply_for(name, (item["name"] or "").split(" ")[0], text)
        return action

    def _ticket(self, item: Item, obs: Observation) -> list[ActionDict]:
        text = item_text(item)
        name = situation(text)
        priority, team = TICKET.get(name, ("medium", "technical"))
        tier = item["tier"] or "standard"
        plan: list[ActionDict] = []
        if name in ASKS_FOR_EVIDENCE:
            plan.append({"action_type": "request_info", "value": EVIDENCE_REQUEST})
        plan += [
            {"action_type": "set_priority", "value": _bump(priority, tier)},
            {"action_type": "route_team", "value": team},
        ]
        lowered = text.lower()
        tags = [t for t, words in TAG_WORDS.items() if any(w in lowered for w in words)]
        if tier == "vip":
            tags.append("vip")
        allowed = set(obs["vocabulary"]["tags"])
        plan += [{"action_type": "add_tag", "value": t} for t in tags if t in allowed]
        first = (item["name"] or "").split(" ")[0]
        plan.append({"action_type": "draft_reply", "value": reply_for(name, first, text)})
        plan.append({"action_type": "close_ticket"})
        return plan

    def _inbox(self, item: Item) -> list[ActionDict]:
        text = item_text(item)
        name = situation(text)
        priority, queue, template, escalate_to, code = INBOX.get(name, INBOX["general"])
        tid = item["id"]
        plan: list[ActionDict] = []
        if name in ASKS_FOR_EVIDENCE:
            plan.append(
                {"action_type": "request_info", "ticket_id": tid, "value": EVIDENCE_REQUEST}
            )
        plan += [
            {
                "action_type": "classify_ticket",
                "ticket_id": tid,
                "priority": _bump(priority, item["tier"]),
                "queue": queue,
            },
            {"action_type": "respond_ticket", "ticket_id": tid, "response_template": template},
        ]
        if escalate_to:
            plan.append(
                {
                    "action_type": "escalate_ticket",
                    "ticket_id": tid,
                    "escalate_to": escalate_to,
                    "reason": f"{name} ticket",
                }
            )
        elif code:
            plan.append(
                {"action_type": "resolve_ticket", "ticket_id": tid, "resolution_code": code}
            )
        return plan
