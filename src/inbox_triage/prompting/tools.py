"""Multi-turn tools for ``GRPOTrainer(environment_factory=...)``: one class per mode.

TRL (1.16) makes instances with no arguments and reuses each for many rollouts: it calls
``reset(**row)`` with the dataset row's columns (the episode: ``task``, ``split``,
``difficulty``, ``seed``, knobs, or a pack; other columns are ignored with a warning) and adds
the text it returns to the row's last user message, shows every public method as a tool (its
schema read from the type hints and the Google-style docstring, where ``(choices: [...])``
becomes an enum) and, at the end, calls ``get_reward()``: the episode's grade, or with
``penalised=True`` the grade less the episode's penalties and step costs (what every other
route's step rewards sum to, so a refused call costs there too). An
instance made by :func:`remote` holds one WebSocket session for the whole run, so the server's
``--max-sessions`` must cover the generation batch.

A refused action raises ``ValueError`` with the field and the allowed values: TRL counts it as a
failed tool call and the model reads why. The environment still counts it too (an invalid
action, with its penalty), exactly as it does for any agent. Instances play in-process, or
against a running server when the class is made by :func:`remote` (or ``$INBOX_TRIAGE_ENV_URL``
is set).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache, partial
from typing import Any

from inbox_triage.action_tools import SYSTEM_PROMPTS as SYSTEM_PROMPTS
from inbox_triage.action_tools import default_vocabulary
from inbox_triage.action_tools import render as render
from inbox_triage.prompting.episode_tools import EpisodeTools


def _choices(mode: str, key: str) -> str:
    values = default_vocabulary(mode)[key]
    return json.dumps(list(values) if not isinstance(values, dict) else sorted(values))


class TriageTools(EpisodeTools):
    """Triage mode: one decision per email, in the order the inbox shows them."""

    mode = "triage"

    def _render(self) -> str:
        return render("triage", self.observation)

    def triage_email(
        self,
        email_id: str,
        priority: str,
        category: str,
        route_to: str,
        summary: str,
        flag_review: bool = False,
        reply_draft: str | None = None,
    ) -> str:
        """Decide one email: its priority, category and team, a summary, review and reply.

        Args:
            email_id: The id of the email shown.
            priority: The priority (choices: PRIORITIES)
            category: The category (choices: CATEGORIES)
            route_to: The team that owns it (choices: QUEUES)
            summary: One sentence in your own words, at most 280 characters.
            flag_review: True for account compromise, legal matters and threats to leave.
            reply_draft: A reply to the customer (20 to 220 words), or null for spam.
        """
        action = {
            "action_type": "triage_email",
            "email_id": email_id,
            "priority": priority,
            "category": category,
            "route_to": route_to,
            "summary": summary,
            "flag_review": flag_review,
        }
        if reply_draft:
            action["reply_draft"] = reply_draft
        return self._act(action)

    def request_info(self, email_id: str, value: str) -> str:
        """Ask the customer for evidence the team needs (never a password or a code).

        Args:
            email_id: The id of the email shown.
            value: The question to the customer.
        """
        return self._act({"action_type": "request_info", "email_id": email_id, "value": value})

    def finish(self) -> str:
        """End the episode once every email is decided."""
        return self._act({"action_type": "finish"})


class TicketTools(EpisodeTools):
    """Ticket mode: one ticket, worked with tools, then closed."""

    mode = "ticket"

    def _render(self) -> str:
        text = render("ticket", self.observation, self._answers_seen)
        self._answers_seen = len(self.observation.get("customer_messages") or [])
        return text

    def set_priority(self, value: str) -> str:
        """Set the ticket's priority.

        Args:
            value: The priority (choices: PRIORITIES)
        """
        return self._act({"action_type": "set_priority", "value": value})

    def route_team(self, value: str) -> str:
        """Route the ticket to the team that owns it.

        Args:
            value: The team (choices: QUEUES)
        """
        return self._act({"action_type": "route_team", "value": value})

    def add_tag(self, value: str) -> str:
        """Add one tag that applies; call once per tag.

        Args:
            value: The tag (choices: TAGS)
        """
        return self._act({"action_type": "add_tag", "value": value})

    def draft_reply(self, value: str) -> str:
        """Write the reply to the customer (20 to 220 words, in your own words).

        Args:
            value: The text of the reply.
        """
        return self._act({"action_type": "draft_reply", "value": value})

    def request_info(self, value: str) -> str:
        """Ask the customer for the evidence the team needs (never a password or a code).

        Args:
            value: The question to the customer.
        """
        return self._act({"action_type": "request_info", "value": value})

    def close_ticket(self) -> str:
        """Close the ticket once priority, team, tags and reply are set."""
        return self._act({"action_type": "close_ticket"})

    def noop(self) -> str:
        """Wait one step without acting, for the customer's answer to a request."""
        return self._act({"action_type": "noop"})


class InboxTools(EpisodeTools):
    """Inbox mode: a queue of tickets under a step budget, capacities and an escalation
    budget."""

    mode = "inbox"

    def _render(self) -> str:
        return render("inbox", self.observation)

    def classify_ticket(
        self, ticket_id: str, priority: str, queue: str, sentiment: str | None = None
    ) -> str:
        """Set a ticket's priority, its queue and (optionally) the customer's sentiment.

        Args:
            ticket_id: The ticket's id.
            priority: The priority (choices: PRIORITIES)
            queue: The queue that owns it (choices: QUEUES)
            sentiment: The customer's sentiment (choices: SENTIMENTS)
        """
        action = {"action_type": "classify_ticket", "ticket_id": ticket_id, "priority": priority}
        action["queue"] = queue
        if sentiment:
            action["sentiment"] = sentiment
        return self._act(action)

    def respond_ticket(
        self, ticket_id: str, response_template: str, response_text: str | None = None
    ) -> str:
        """Answer the customer with a template, and optionally your own words.

        Args:
            ticket_id: The ticket's id.
            response_template: The template (choices: TEMPLATES)
            response_text: Your own reply text, if the template is not enough.
        """
        action = {
            "action_type": "respond_ticket",
            "ticket_id": ticket_id,
            "response_template": response_template,
        }
        if response_text:
            action["response_text"] = response_text
        return self._act(action)

    def escalate_ticket(self, ticket_id: str, escalate_to: str, reason: str = "") -> str:
        """Hand a ticket to specialists (spends the escalation budget).

        Args:
            ticket_id: The ticket's id.
            escalate_to: The specialists (choices: ESCALATION_TARGETS)
            reason: Why, in a sentence.
        """
        action = {"action_type": "escalate_ticket", "ticket_id": ticket_id}
        action["escalate_to"] = escalate_to
        if reason:
            action["reason"] = reason
        return self._act(action)

    def resolve_ticket(self, ticket_id: str, resolution_code: str) -> str:
        """Resolve a ticket you fully handled yourself (never a specialist's).

        Args:
            ticket_id: The ticket's id.
            resolution_code: How it was resolved (choices: RESOLUTION_CODES)
        """
        action = {"action_type": "resolve_ticket", "ticket_id": ticket_id}
        action["resolution_code"] = resolution_code
        return self._act(action)

    def request_info(self, ticket_id: str, value: str) -> str:
        """Ask the customer for the evidence the team needs (never a password or a code).

        Args:
            ticket_id: The ticket's id.
            value: The question to the customer.
        """
        return self._act({"action_type": "request_info", "ticket_id": ticket_id, "value": value})

    def finish(self) -> str:
        """End the episode when the queue is handled."""
        return self._act({"action_type": "finish"})


TOOLS: dict[str, type[EpisodeTools]] = {
    "triage": TriageTools,
    "ticket": TicketTools,
    "inbox": InboxTools,
}
_PLACEHOLDERS = {
    "PRIORITIES": "priorities",
    "CATEGORIES": "categories",
    "QUEUES": "queues",
    "TAGS": "tags",
    "SENTIMENTS": "sentiments",
    "TEMPLATES": "templates",
    "ESCALATION_TARGETS": "escalation_targets",
    "RESOLUTION_CODES": "resolution_codes",
}


def _fill_choices() -> None:
    """Writes each mode's vocabulary into its tools' docstrings: TRL reads them from the
    class, once, to build the tool schemas with enums."""
    for mode, cls in TOOLS.items():
        for name, member in vars(cls).items():
            if callable(member) and not name.startswith("_") and member.__doc__:
                doc = member.__doc__
                for placeholder, key in _PLACEHOLDERS.items():
                    filled = f"(choices: {_choices(mode, key)})"
                    doc = doc.replace(f"(choices: {placeholder})", filled)
                member.__doc__ = doc


_fill_choices()


def tool_names(mode: str) -> list[str]:
    """The tools a mode's class offers, as TRL sees them."""
    cls = TOOLS[mode]
    skip = {"reset", "get_reward"}
    return sorted(
        name
        for name in dir(cls)
        if not name.startswith("_") and name not in skip and callable(getattr(cls, name))
    )


def remote(mode: str, url: str, penalised: bool = False) -> Callable[[], EpisodeTools]:
    """A factory of a mode's tools whose instances play against the server at ``url``. It
    pickles (a ``partial`` of the module's class), as ``AsyncGRPOTrainer``'s workers need."""
    return partial(TOOLS[mode], env_url=url, penalised=penalised)


@cache
def tool_schemas(mode: str) -> list[dict[str, Any]]:
    """The JSON schemas of a mode's tools, as TRL and chat templates see them."""
    from transformers.utils import get_json_schema

    cls = TOOLS[mode]
    return [get_json_schema(getattr(cls, name)) for name in tool_names(mode)]
