"""One email, one decision: the prompt a model reads and the tolerant parser of what it writes.

The same renderer serves training (exported prompts, SFT demonstrations, the GRPO reward) and
evaluation (the ``hf`` agent), so that a model is measured on exactly what it learned to read.
A prompt holds the policy points that decide a triage decision, the inbox's routing guide, the
allowed values and the email; the answer is one JSON object.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from inbox_triage.action_tools import who_wrote as who_wrote

DECISION_KEYS = ("priority", "category", "route_to", "summary", "flag_review", "reply_draft")

SYSTEM = (
    "You triage a company's shared support inbox. For the email you are given, answer with ONE "
    "JSON object and nothing else, with the keys priority, category, route_to (each one of the "
    "allowed values), summary (one sentence in your own words, at most 280 characters), "
    "flag_review (true or false) and reply_draft (a short reply to the customer, or null)."
)

POLICY_POINTS = """Policy points:
- urgent: security compromise, fraud, an outage, a legal deadline. high: money is wrong, a
  paying or VIP customer is blocked. medium: trouble with a workaround, a sales enquiry.
  low: questions, feedback, internal notes, newsletters. spam: phishing and scams.
- flag_review is true for account compromise, legal or compliance matters, and complaints that
  threaten to leave or go public.
- reply_draft: greet the customer by name, acknowledge the problem, say what happens next;
  promise no refund or fix date; never ask for a password or a code. null for spam, phishing
  and notices that need no action."""

_ALIASES = {
    "queue": "route_to",
    "route": "route_to",
    "routeto": "route_to",
    "team": "route_to",
    "flag": "flag_review",
    "review": "flag_review",
    "flagreview": "flag_review",
    "reply": "reply_draft",
    "replydraft": "reply_draft",
    "draft": "reply_draft",
}
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


@cache
def _policy_texts() -> tuple[str, ...]:
    """Every version of the shipped policy's text, longest first."""
    from inbox_triage.scenarios.loader import data_root, load_policy, versions_in

    versions = versions_in(data_root() / "policies").get("support_policy", {})
    texts = {load_policy("support_policy", v).text for v in versions}
    return tuple(sorted(texts, key=len, reverse=True))


def routing_guide(policy: str | None) -> str:
    """The inbox's routing guide: what the first observation's ``policy`` holds after the
    shared policy text (the org's own part, which says where each kind of mail goes)."""
    if not policy:
        return ""
    for text in _policy_texts():
        if policy.startswith(text):
            return policy[len(text) :].strip()
    marker = policy.find("## Routing guide")
    return policy[marker:].strip() if marker >= 0 else ""


def render_email(email: Mapping[str, Any], vocabulary: Mapping[str, Any], guide: str) -> str:
    """The user message for one email: guide, policy points, allowed values, then the email."""
    thread = "".join(
        f"\n\nEarlier in the thread ({m.get('sender', 'customer')}):\n"
        + str(m.get("body", "")).strip()
        for m in email.get("thread") or []
    )
    answers = "".join(
        f"\n\nThe customer answered:\n{str(m.get('body', '')).strip()}"
        for m in email.get("customer_messages") or []
    )
    parts = [
        guide.strip(),
        POLICY_POINTS,
        "Allowed values:\n"
        f"- priority: {', '.join(vocabulary.get('priorities', []))}\n"
        f"- category: {', '.join(vocabulary.get('categories', []))}\n"
        f"- route_to: {', '.join(vocabulary.get('queues', []))}",
        f"From: {email.get('sender')} ({who_wrote(email)})\n"
        f"Subject: {email.get('subject')}\n\n{str(email.get('body', '')).strip()}{thread}{answers}",
    ]
    return "\n\n".join(p for p in parts if p)


def decision_messages(
    email: Mapping[str, Any], vocabulary: Mapping[str, Any], guide: str
) -> list[dict[str, str]]:
    """The chat a model answers: the instruction, then the rendered email."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": render_email(email, vocabulary, guide)},
    ]


def decision_json(action: Mapping[str, Any]) -> str:
    """A ``triage_email`` action as the JSON answer a model should write."""
    return json.dumps({key: action.get(key) for key in DECISION_KEYS})


def _first_object(text: str) -> str | None:
    """The first balanced ``{...}`` in ``text`` (strings and escapes respected)."""
    start = text.find("{")
    while start >= 0:
        depth, in_string, escaped = 0, False, False
        for i in range(start, len(text)):
            ch = text[i]
            if in_string:
                escaped = ch == "\\" and not escaped
                if ch == '"' and not escaped:
                    in_string = False
                elif ch != "\\":
                    escaped = False
            elif ch == '"':
                in_string = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return text[start : i + 1]
        start = text.find("{", start + 1)
    return None


def _loads(candidate: str) -> Any:
    for attempt in (candidate, _TRAILING_COMMA.sub(r"\1", candidate)):
        try:
            return json.loads(attempt)
        except ValueError:
            continue
    return None


def _enum(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip().lower().replace(" ", "_").replace("-", "_")
    return value


def _boolean(value: Any) -> Any:
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("true", "yes", "y", "1"):
            return True
        if lowered in ("false", "no", "n", "0", "", "null", "none"):
            return False
    return value


def parse_decision(text: str | None) -> dict[str, Any] | None:
    """The decision in what a model wrote, or None: the first JSON object (inside a code fence
    or not, trailing commas forgiven, an ``{"action": {...}}`` wrapper unwrapped), its keys
    matched case-insensitively with common aliases (``queue`` for ``route_to``...), choices
    lower-cased with spaces as underscores, ``"yes"``/``"no"`` as booleans. Values outside the
    vocabulary are kept: the environment refuses them, which is what the reward should see."""
    if not isinstance(text, str):
        return None
    fenced = _FENCE.search(text)
    candidate = _first_object(fenced.group(1) if fenced else text) or _first_object(text)
    data = _loads(candidate) if candidate else None
    if isinstance(data, dict) and isinstance(data.get("action"), dict):
        data = data["action"]
    if not isinstance(data, dict):
        return None
    out: dict[str, Any] = {}
    for raw_key, value in data.items():
        key = str(raw_key).strip().lower().replace(" ", "_").replace("-", "_")
        key = _ALIASES.get(key.replace("_", ""), key) if key not in DECISION_KEYS else key
        if key in DECISION_KEYS and key not in out:
            out[key] = value
    for key in ("priority", "category", "route_to"):
        if key in out:
            out[key] = _enum(out[key])
    if "flag_review" in out:
        out["flag_review"] = _boolean(out["flag_review"])
    if isinstance(out.get("reply_draft"), str) and out["reply_draft"].strip().lower() in (
        "",
        "null",
        "none",
    ):
        out["reply_draft"] = None
    return out or None


def decision_action(decision: Mapping[str, Any], email_id: str) -> dict[str, Any]:
    """The ``triage_email`` action for a parsed decision (None fields left out)."""
    action: dict[str, Any] = {"action_type": "triage_email", "email_id": email_id}
    for key in DECISION_KEYS:
        value = decision.get(key)
        if value is not None:
            action[key] = value if key in ("flag_review",) or isinstance(value, str) else str(value)
    return action
