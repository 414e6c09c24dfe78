"""Each mode's actions as tools, for every framework that calls tools: MCP at ``/mcp``, the
verifiers and SkyRL integrations, the ``hf`` agent, and the TRL tool classes' text.

One tool per action the mode allows, named as the action (``triage_email``, ``set_priority``,
...). A tool's schema comes from the episode itself: its ``action_schema`` says which fields an
action takes and which are required, and its ``vocabulary`` becomes the enums, so a pack with a
vocabulary of its own is offered its own values. Calls become plain action dicts; the
environment judges the values and refuses a wrong one with the field and the allowed values, as
on every other route. The observation's text is the one the TRL tools show, so a model reads
the same inbox whichever way it plays.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from inbox_triage.observations import describe_error

BODY_CHARS = 1200
BOOLEAN = "boolean"

# tool -> (description, {field: (description, vocabulary key, or BOOLEAN, or None for text)})
_Spec = tuple[str, dict[str, tuple[str, str | None]]]
_EMAIL_ID = ("The id of the email shown.", None)
_TICKET_ID = ("The ticket's id.", None)
_QUESTION = ("The question to the customer.", None)
_ASK = "Ask the customer for the evidence the team needs (never a password or a code)."
SPECS: dict[str, dict[str, _Spec]] = {
    "triage": {
        "triage_email": (
            "Decide one email: its priority, category and team, a summary, review and reply.",
            {
                "email_id": _EMAIL_ID,
                "priority": ("The priority.", "priorities"),
                "category": ("The category.", "categories"),
                "route_to": ("The team that owns it.", "queues"),
                "summary": ("One sentence in your own words, at most 280 characters.", None),
                "flag_review": (
                    "True for account compromise, legal matters and threats to leave.",
                    BOOLEAN,
                ),
                "reply_draft": ("A reply to the customer (20 to 220 words); none for spam.", None),
            },
        ),
        "request_info": (_ASK, {"email_id": _EMAIL_ID, "value": _QUESTION}),
        "finish": ("End the episode once every email is decided.", {}),
    },
    "ticket": {
        "set_priority": ("Set the ticket's priority.", {"value": ("The priority.", "priorities")}),
        "route_team": (
            "Route the ticket to the team that owns it.",
            {"value": ("The team.", "queues")},
        ),
        "add_tag": (
            "Add one tag that applies; call once per tag.",
            {"value": ("The tag.", "tags")},
        ),
        "draft_reply": (
            "Write the reply to the customer (20 to 220 words, in your own words).",
            {"value": ("The text of the reply.", None)},
        ),
        "request_info": (_ASK, {"value": _QUESTION}),
        "close_ticket": ("Close the ticket once priority, team, tags and reply are set.", {}),
        "noop": ("Wait one step without acting, for the customer's answer to a request.", {}),
    },
    "inbox": {
        "classify_ticket": (
            "Set a ticket's priority, its queue and (optionally) the customer's sentiment.",
            {
                "ticket_id": _TICKET_ID,
                "priority": ("The priority.", "priorities"),
                "queue": ("The queue that owns it.", "queues"),
                "sentiment": ("The customer's sentiment.", "sentiments"),
            },
        ),
        "respond_ticket": (
            "Answer the customer with a template, and optionally your own words.",
            {
                "ticket_id": _TICKET_ID,
                "response_template": ("The template.", "templates"),
                "response_text": ("Your own reply text, if the template is not enough.", None),
            },
        ),
        "escalate_ticket": (
            "Hand a ticket to specialists (spends the escalation budget).",
            {
                "ticket_id": _TICKET_ID,
                "escalate_to": ("The specialists.", "escalation_targets"),
                "reason": ("Why, in a sentence.", None),
            },
        ),
        "resolve_ticket": (
            "Resolve a ticket you fully handled yourself (never a specialist's).",
            {
                "ticket_id": _TICKET_ID,
                "resolution_code": ("How it was resolved.", "resolution_codes"),
            },
        ),
        "request_info": (_ASK, {"ticket_id": _TICKET_ID, "value": _QUESTION}),
        "finish": ("End the episode when the queue is handled.", {}),
    },
}
MODES = tuple(SPECS)

_CALL = '<tool_call>\n{"name": "TOOL", "arguments": {...}}\n</tool_call>'
SYSTEM_PROMPTS = {
    "triage": "You triage a company's shared support inbox by calling tools, one call at a "
    "time: triage_email for each email shown (request_info first when evidence is missing), "
    "then finish. Write each call as\n" + _CALL,
    "ticket": "You are a support agent working one ticket by calling tools, one call at a "
    "time: set_priority, route_team, add_tag (once per tag), request_info if evidence is "
    "missing, draft_reply, then close_ticket. Write each call as\n" + _CALL,
    "inbox": "You work a support queue by calling tools, one call at a time: classify_ticket, "
    "respond_ticket, escalate_ticket or resolve_ticket for each ticket, request_info where "
    "evidence is missing, then finish. Write each call as\n" + _CALL,
}


class ToolRefused(ValueError):
    """A call that names no tool of the mode, or an argument no tool takes: the field, why,
    and what is allowed (the same three parts as the environment's own refusals)."""

    def __init__(self, field: str, message: str, allowed: list[str] | None = None) -> None:
        super().__init__(f"{field}: {message}")
        self.field, self.message, self.allowed = field, message, allowed

    def as_error(self) -> dict[str, Any]:
        return {"field": self.field, "message": self.message, "allowed": self.allowed}


@cache
def default_observation(mode: str) -> dict[str, Any]:
    """The first observation of a mode's generated episode: the action schema and vocabulary
    offered where no episode has been started yet."""
    from inbox_triage.env import InboxTriageEnv

    if mode not in SPECS:
        raise ToolRefused("mode", "is not a mode", list(MODES))
    return InboxTriageEnv().reset(mode=mode, split="train", seed=0).model_dump()


@cache
def default_vocabulary(mode: str) -> dict[str, Any]:
    """The vocabulary of a mode's generated episodes (one org profile per mode), read from
    the profile rather than from an episode, so that importing the tools stays quick."""
    from inbox_triage.scenarios.generator.data import LATEST, mode_org

    if mode not in SPECS:
        raise ToolRefused("mode", "is not a mode", list(MODES))
    return mode_org(mode, LATEST).vocabulary()


def _values(vocabulary: Mapping[str, Any], key: str) -> list[str]:
    values = vocabulary.get(key) or []
    return list(values.keys() if isinstance(values, Mapping) else values)


def _input_schema(mode: str, tool: str, observation: Mapping[str, Any]) -> dict[str, Any]:
    fields = SPECS[mode][tool][1]
    shape = (observation.get("action_schema") or {}).get(tool) or {}
    takes = set(shape.get("required", [])) | set(shape.get("optional", []))
    properties: dict[str, Any] = {}
    for name, (description, key) in fields.items():
        if shape and name not in takes:
            continue
        if key == BOOLEAN:
            properties[name] = {"type": "boolean", "description": description}
            continue
        properties[name] = {"type": "string", "description": description}
        values = _values(observation.get("vocabulary") or {}, key) if key else []
        if values:
            properties[name]["enum"] = values
    required = [n for n in shape.get("required", list(fields)) if n in properties]
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def tool_names(mode: str, observation: Mapping[str, Any] | None = None) -> list[str]:
    """The tools of a mode (those its episode allows, in the order of the workflow)."""
    allowed = (observation or {}).get("allowed_actions")
    return [t for t in SPECS[mode] if allowed is None or t in allowed]


def mcp_tools(mode: str, observation: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The tools as MCP's ``tools/list`` gives them (``name``, ``description``,
    ``inputSchema``), for the episode's observation (or the mode's default one)."""
    seen = observation if observation and observation.get("mode") == mode else None
    seen = seen or default_observation(mode)
    return [
        {
            "name": tool,
            "description": SPECS[mode][tool][0],
            "inputSchema": _input_schema(mode, tool, seen),
        }
        for tool in tool_names(mode, seen)
    ]


def openai_tools(mode: str, observation: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The same tools in the OpenAI function-calling shape (verifiers, chat templates)."""
    return [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t["description"],
                "parameters": t["inputSchema"],
            },
        }
        for t in mcp_tools(mode, observation)
    ]


def to_action(mode: str, name: Any, arguments: Any) -> dict[str, Any]:
    """A tool call as the action it stands for; :class:`ToolRefused` for a name that is no
    tool of the mode or an argument the tool does not take (values are the environment's to
    judge)."""
    tools = SPECS[mode]
    if not isinstance(name, str) or name not in tools:
        raise ToolRefused("name", f"is not a tool of {mode} mode", list(tools))
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise ToolRefused("arguments", "must be an object")
    takes = list(tools[name][1])
    for key in arguments:
        if key not in takes:
            raise ToolRefused("arguments", f"{name} takes no such argument", takes)
    return {"action_type": name, **{k: v for k, v in arguments.items() if v is not None}}


_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)


def parse_tool_call(text: str) -> dict[str, Any]:
    """The action in a ``<tool_call>{"name": ..., "arguments": {...}}`` (or a bare JSON action);
    an action the environment refuses when nothing parses."""
    found = _TOOL_CALL.search(text)
    candidate = found.group(1) if found else text
    start, end = candidate.find("{"), candidate.rfind("}")
    try:
        data = json.loads(candidate[start : end + 1]) if start >= 0 < end else None
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("name"), str):
        arguments = data.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                arguments = {}
        return {"action_type": data["name"], **(arguments if isinstance(arguments, dict) else {})}
    if isinstance(data, dict) and isinstance(data.get("action_type"), str):
        return data
    return {"action_type": "unparseable_answer"}


# ------------------------------------------------------------------ the observation as text
KNOWN_AS_WORDS = {
    "colleague": "colleague",
    "vendor": "known vendor",
    "unknown": "not in our records",
}


def who_wrote(email: Mapping[str, Any]) -> str:
    """The sender as the prompt names them: what the inbox's records say (a tier's customer,
    "premium customer"; a colleague; a known vendor; "not in our records"), or, in generator
    v2's scenarios, the role they show (which gives answers away)."""
    known = email.get("sender_known_as")
    if known in KNOWN_AS_WORDS:
        return KNOWN_AS_WORDS[known]
    role = email.get("sender_role")
    if role and role != "customer":
        return str(role).replace("_", " ")
    return f"{email.get('customer_tier')} customer"


def _answers(messages: Any, limit: int = BODY_CHARS) -> str:
    return "".join(
        f"\nThe customer answered: {str(m.get('body', '')).strip()[:limit]}" for m in messages or []
    )


def _triage(o: Mapping[str, Any], answers_from: int) -> str:
    email = o.get("current_email")
    left = sum(1 for e in o.get("inbox") or [] if not e.get("processed"))
    if not email:
        return f"No email is waiting ({left} left). Call finish."
    return (
        f"Email {email['email_id']} ({left} waiting) from {email.get('sender')} "
        f"({who_wrote(email)})\nSubject: {email.get('subject')}\n\n"
        f"{str(email.get('body', '')).strip()[:BODY_CHARS]}"
        f"{_answers(email.get('customer_messages'))}"
    )


def _ticket(o: Mapping[str, Any], answers_from: int) -> str:
    new = (o.get("customer_messages") or [])[answers_from:]
    return (
        f"Ticket {o.get('ticket_id')} from {o.get('customer_name')} "
        f"({who_wrote(o)})\nSubject: {o.get('title')}\n\n"
        f"{str(o.get('customer_message') or '').strip()[:BODY_CHARS]}{_answers(new)}\n\n"
        f"{o.get('steps_remaining')} actions left."
    )


def _inbox(o: Mapping[str, Any], answers_from: int) -> str:
    lines = [
        f"Minute {o.get('now')}; {o.get('steps_remaining')} actions left; escalation budget "
        f"{o.get('escalation_budget_remaining')}; queue room {o.get('team_queue_remaining')}."
    ]
    for t in o.get("tickets") or []:
        if t.get("status") in ("resolved", "closed"):
            continue
        answers = " ".join(str(m.get("body", "")) for m in t.get("customer_messages") or [])
        lines.append(
            f"\n{t.get('ticket_id')} [{t.get('status')}] {t.get('customer_name')} "
            f"({who_wrote(t)}): {t.get('subject')}\n"
            f"{str(t.get('message', '')).strip()[: BODY_CHARS // 2]}"
            + (f"\nThe customer answered: {answers[: BODY_CHARS // 2]}" if answers else "")
        )
    return "\n".join(lines)


_RENDER = {"triage": _triage, "ticket": _ticket, "inbox": _inbox}


def render(mode: str, observation: Mapping[str, Any], answers_from: int = 0) -> str:
    """An observation as the tools show it (in ticket mode, the customer's answers from
    ``answers_from`` on: those not yet shown)."""
    return _RENDER[mode](observation, answers_from)


# A refusal as a model reads it: the field, why, and the allowed values (the environment's own
# wording, as its feedback gives it).
refusal_text = describe_error


def step_text(mode: str, observation: Mapping[str, Any], answers_from: int = 0) -> str:
    """What a tool answers after a step: the environment's feedback, then the inbox again (or
    that the episode is over)."""
    text = str(observation.get("last_feedback") or "Done.")
    if observation.get("done"):
        return text + " The episode is over."
    return text + "\n\n" + render(mode, observation, answers_from)
