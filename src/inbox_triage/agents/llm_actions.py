"""The LLM agent's actions: the shape of each allowed action (as tools or a JSON schema), and the
checking and parsing of what a model answers, before anything is sent to the environment."""

from __future__ import annotations

import json
import re
from typing import Any

from inbox_triage.agents.base import Observation

# What each action field holds: (JSON type, description, vocabulary key for its allowed values).
FIELDS: dict[str, tuple[str, str, str | None]] = {
    "email_id": ("string", "id of the email", None),
    "ticket_id": ("string", "id of the ticket", None),
    "priority": ("string", "priority", "priorities"),
    "category": ("string", "category", "categories"),
    "route_to": ("string", "queue that owns the email", "queues"),
    "queue": ("string", "queue that owns the ticket", "queues"),
    "sentiment": ("string", "the customer's sentiment", "sentiments"),
    "summary": ("string", "one-sentence summary in your own words", None),
    "flag_review": ("boolean", "true if policy requires human review", None),
    "reply_draft": ("string", "reply to the customer, if one is due", None),
    "response_template": ("string", "template id to send", "templates"),
    "response_text": ("string", "personal text added to the template", None),
    "escalate_to": ("string", "escalation target", "escalation_targets"),
    "reason": ("string", "why you escalate", None),
    "resolution_code": ("string", "how the ticket was resolved", "resolution_codes"),
    "value": ("string", "the value", None),
}
# Ticket mode's `value` takes its allowed values from the action type.
VALUE_VOCABULARY = {"set_priority": "priorities", "route_team": "queues", "add_tag": "tags"}
VALUE_DESCRIPTIONS = {
    "set_priority": "the priority",
    "route_team": "the team (queue) that owns the ticket",
    "add_tag": "one tag that applies",
    "draft_reply": "the reply to the customer",
    "request_info": "the question to the customer (only evidence the team needs)",
}
MAX_TEXT_CHARS = 1200  # enough for a reply; stops a small model rambling to max_tokens
MAX_CHARS = {"summary": 280}  # the policy's limit


def visible_ids(observation: Observation) -> tuple[str, list[str]]:
    """The id field of this mode and the ids the agent can act on now."""
    if observation.get("mode") == "triage":
        emails = observation.get("inbox") or []
        current = observation.get("current_email") or {}
        ids = [e["email_id"] for e in emails if not e.get("processed")]
        if current.get("email_id") and current["email_id"] not in ids:
            ids.insert(0, current["email_id"])
        return "email_id", ids or [e["email_id"] for e in emails]
    if observation.get("mode") == "inbox":
        return "ticket_id", [t["ticket_id"] for t in observation.get("tickets") or []]
    ticket = observation.get("ticket_id")
    return "ticket_id", [ticket] if ticket else []


def field_schema(
    name: str, action: str, vocabulary: dict[str, Any], ids: tuple[str, list[str]]
) -> dict[str, Any]:
    kind, description, vocab_key = FIELDS.get(name, ("string", name, None))
    if name == "value":
        vocab_key = VALUE_VOCABULARY.get(action)
        description = VALUE_DESCRIPTIONS.get(action, description)
    schema: dict[str, Any] = {"type": kind, "description": description}
    allowed = list(vocabulary.get(vocab_key) or []) if vocab_key else []
    if name == ids[0] and ids[1]:
        allowed = ids[1]
    if allowed:
        schema["enum"] = allowed
    elif kind == "string":
        schema["maxLength"] = MAX_CHARS.get(name, MAX_TEXT_CHARS)
    return schema


def action_shapes(observation: Observation, schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """action type -> JSON schema of its fields (without action_type), for the allowed actions."""
    vocabulary = observation.get("vocabulary") or {}
    ids = visible_ids(observation)
    shapes: dict[str, dict[str, Any]] = {}
    for action in observation.get("allowed_actions") or list(schema):
        spec = schema.get(action, {"required": [], "optional": []})
        names = [*spec["required"], *spec["optional"]]
        shapes[action] = {
            "type": "object",
            "properties": {n: field_schema(n, action, vocabulary, ids) for n in names},
            "required": list(spec["required"]),
            "additionalProperties": False,
        }
    return shapes


def tools_for(shapes: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": action,
                "description": f"Take the {action} action.",
                "parameters": s,
            },
        }
        for action, s in shapes.items()
    ]


def json_schema_for(shapes: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``{"action": one of the action objects}``, told apart by a constant ``action_type``
    (a root must be an object for some APIs, so the choice sits one level down)."""
    options = []
    for action, shape in shapes.items():
        properties = {"action_type": {"type": "string", "enum": [action]}, **shape["properties"]}
        options.append(
            {
                "type": "object",
                "properties": properties,
                "required": ["action_type", *shape["required"]],
                "additionalProperties": False,
            }
        )
    return {
        "type": "object",
        "properties": {"action": {"anyOf": options}},
        "required": ["action"],
        "additionalProperties": False,
    }


def validate_action(action: Any, shapes: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """None if ``action`` is a valid action for these shapes, else an error naming the field
    and what is allowed (the same form as the environment's own errors)."""
    if not isinstance(action, dict):
        return {"field": "action", "message": "must be a JSON object", "allowed": list(shapes)}
    kind = action.get("action_type")
    if kind not in shapes:
        return {
            "field": "action_type",
            "message": f"{kind!r} is not an allowed action",
            "allowed": list(shapes),
        }
    shape = shapes[kind]
    for name in shape["required"]:
        value = action.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            return {"field": name, "message": f"is required for {kind}"}
    for name, value in action.items():
        if name == "action_type" or value is None:
            continue
        spec = shape["properties"].get(name)
        if spec is None:
            return {
                "field": name,
                "message": f"is not a field of {kind}",
                "allowed": list(shape["properties"]),
            }
        if spec["type"] == "boolean" and not isinstance(value, bool):
            return {"field": name, "message": "must be true or false"}
        if spec["type"] == "string" and not isinstance(value, str):
            return {"field": name, "message": "must be a string"}
        if "enum" in spec and value not in spec["enum"]:
            return {"field": name, "message": f"{value!r} is not allowed", "allowed": spec["enum"]}
    return None


def parse_json_action(text: str) -> Any:
    """The first JSON object in a model's text (bare, fenced or embedded), or None."""
    text = (text or "").strip()
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    if fenced:
        text = fenced.group(1).strip()
    try:
        return json.loads(text)
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            return decoder.raw_decode(text[match.start() :])[0]
        except ValueError:
            continue
    return None


def unwrap_action(value: Any) -> Any:
    """The action inside ``{"action": {...}}`` (the JSON schema's shape), or the value itself."""
    if isinstance(value, dict) and set(value) == {"action"} and isinstance(value["action"], dict):
        return value["action"]
    return value


def wire_safe(action: Any) -> dict[str, Any]:
    """An invalid answer as it will be sent: the fields the wire model accepts (a field of the
    wrong type or an unknown one would make a server refuse the whole message, and in-process
    and served runs must count it the same way: as one invalid action)."""
    from inbox_triage.models import TriageAction

    if not isinstance(action, dict):
        return {"action_type": "unparseable_model_output"}
    kept: dict[str, Any] = {}
    for name, value in action.items():
        if name not in TriageAction.model_fields or name == "metadata":
            continue
        try:
            TriageAction.model_validate({name: value})
        except ValueError:
            continue
        kept[name] = value
    return kept if kept.get("action_type") else {"action_type": "unparseable_model_output"}
