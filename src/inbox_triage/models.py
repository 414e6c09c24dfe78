"""The wire types, defined once and shared by the environment, the server and the client.

One flat action model carries every mode's fields under the seeds' names, so each seed's payload
validates as written; the mode then checks which fields its action type takes.
"""

from __future__ import annotations

from typing import Any

from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field, ValidationError

MAX_TEXT = 8000
MAX_ID = 200
# Bumped when what an agent is shown changes meaning: 1, the sender's role (generator v2); 2,
# only what the records say of the sender (``sender_known_as``), budgets and times drawn apart
# from the truth, and the same refusal on every route (issue 29). Runs record it.
OBSERVATION_VERSION = 2


def too_long(limit: int, unit: str, size: int | None = None) -> str:
    """The one wording of every length refusal (an action field's, the policy's, a request
    body's): the caller names the field."""
    return f"may be at most {limit} {unit}" + ("" if size is None else f" (it has {size})")


def validation_message(error: dict[str, Any]) -> str:
    """pydantic's message for one error, with its length limits said as :func:`too_long`
    says them (its own "String should have at most 8000 characters" reads unlike ours)."""
    ctx = error.get("ctx") or {}
    given = error.get("input")
    if error.get("type") == "string_too_long" and "max_length" in ctx:
        size = len(given) if isinstance(given, str) else None
        return too_long(ctx["max_length"], "characters", size)
    return str(error.get("msg", "is invalid"))


# A field name that comes back in a refusal is cut to this (an unknown one is the sender's).
MAX_FIELD_NAME = 64


def action_error(exc: ValidationError) -> dict[str, Any]:
    """The first problem of a pydantic validation error, in the same shape as ActionError."""
    first = exc.errors()[0]
    field = ".".join(str(p) for p in first.get("loc", ()))[:MAX_FIELD_NAME] or "action"
    message = validation_message(first)
    if first.get("type") == "extra_forbidden":
        message = "is not a known action field"
        return {"field": field, "message": message, "allowed": sorted(TriageAction.model_fields)}
    return {"field": field, "message": message}


class TriageAction(Action):
    """An action in any mode. Which fields apply depends on the mode and ``action_type``.

    - triage: ``{email_id, priority, category, route_to, summary, flag_review, reply_draft}``
      (``action_type`` defaults to ``triage_email``; ``finish`` ends the episode).
    - ticket: ``{action_type: set_priority|route_team|add_tag|draft_reply|request_info, value}``,
      ``close_ticket``, ``noop``.
    - inbox: ``classify_ticket {ticket_id, priority?, queue?, sentiment?}``,
      ``respond_ticket {ticket_id, response_template, response_text?}``,
      ``escalate_ticket {ticket_id, escalate_to, reason?}``,
      ``resolve_ticket {ticket_id, resolution_code}``, ``finish``.
    """

    action_type: str | None = Field(default=None, max_length=MAX_ID)
    email_id: str | None = Field(default=None, max_length=MAX_ID)
    ticket_id: str | None = Field(default=None, max_length=MAX_ID)
    priority: str | None = Field(default=None, max_length=MAX_ID)
    category: str | None = Field(default=None, max_length=MAX_ID)
    route_to: str | None = Field(default=None, max_length=MAX_ID)
    summary: str | None = Field(default=None, max_length=MAX_TEXT)
    flag_review: bool | None = None
    reply_draft: str | None = Field(default=None, max_length=MAX_TEXT)
    value: str | None = Field(default=None, max_length=MAX_TEXT)
    queue: str | None = Field(default=None, max_length=MAX_ID)
    sentiment: str | None = Field(default=None, max_length=MAX_ID)
    response_template: str | None = Field(default=None, max_length=MAX_ID)
    response_text: str | None = Field(default=None, max_length=MAX_TEXT)
    escalate_to: str | None = Field(default=None, max_length=MAX_ID)
    reason: str | None = Field(default=None, max_length=MAX_TEXT)
    resolution_code: str | None = Field(default=None, max_length=MAX_ID)

    def payload(self) -> dict[str, Any]:
        """The fields that were given (metadata aside)."""
        return self.model_dump(exclude_none=True, exclude={"metadata"})


class TriageObservation(Observation):
    """What the agent sees. Common fields first, then each mode's own (None in other modes)."""

    mode: str = ""
    task_id: str = ""
    title: str = ""
    difficulty: str = ""
    objective: str = ""
    policy: str | None = Field(default=None, description="the support policy; sent on reset")
    vocabulary: dict[str, Any] | None = Field(
        default=None, description="every step with observation=full; lean: sent on reset"
    )
    allowed_actions: list[str] = Field(default_factory=list)
    action_schema: dict[str, Any] | None = Field(default=None, description="sent on reset")
    step_count: int = 0
    max_steps: int = 0
    steps_remaining: int = 0
    now: int = Field(default=0, description="simulated minutes since the episode started")
    last_feedback: str = ""
    last_action_error: dict[str, Any] | None = None
    progress_score: float = 0.0
    recent_events: list[dict[str, Any]] = Field(default_factory=list)
    # triage
    current_email: dict[str, Any] | None = None
    inbox: list[dict[str, Any]] | None = None
    processed: list[str] | None = None
    escalation_budget_remaining: int | None = None
    team_queue_remaining: dict[str, int] | None = None
    active_sla_warnings: list[str] | None = None
    sla_breaches_so_far: int | None = None
    # ticket
    ticket_id: str | None = None
    customer_tier: str | None = None
    customer_name: str | None = None
    customer_account: str | None = None
    sender_known_as: str | None = Field(
        default=None,
        description="what the inbox's records say of the sender: customer, colleague, vendor "
        "or unknown (as in triage and inbox mode's mail)",
    )
    customer_message: str | None = None
    priority: str | None = None
    routed_team: str | None = None
    tags: list[str] | None = None
    draft_reply: str | None = None
    info_requested: bool | None = None
    customer_messages: list[dict[str, Any]] | None = None
    # inbox
    tickets: list[dict[str, Any]] | None = None


class TriageState(State):
    """Episode state as the agent may see it: its own decisions and the budgets, no answers."""

    task_id: str = ""
    mode: str = ""
    seed: int | None = None
    done: bool = False
    now: int = 0
    max_steps: int = 0
    escalation_budget_remaining: int = 0
    queue_remaining: dict[str, int] = Field(default_factory=dict)
    tickets: dict[str, dict[str, Any]] = Field(default_factory=dict)
    progress_score: float = 0.0
    total_reward: float = 0.0
    penalties: float = 0.0
    invalid_actions: int = 0
    sla_breaches: int = Field(default=0, description="tickets answered after their visible SLA")
    incidents: list[dict[str, Any]] = Field(default_factory=list)
