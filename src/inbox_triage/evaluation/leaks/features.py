"""What an agent sees of a ticket besides the mail's own words, as classifier features.

Everything in an observation is a feature except the message texts: the subject, the body, the
thread, the customer's answers and the From line (address, display name, company) keep only
whether they are there and how many there are. Each field is taken as it comes, with no list of
suspects, so a field added later is audited too. Times become minutes relative to now; the
episode's own fields (budgets, queue room, steps, the clock, events) are features of each of its
tickets.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from inbox_triage.action_tools import render, who_wrote

# The mail's own words (and its From line): only their presence and count are features.
TEXT_KEYS = frozenset(
    {
        "sender",
        "subject",
        "title",
        "body",
        "message",
        "customer_message",
        "customer_name",
        "customer_company",
        "customer_account",
        "thread",
        "customer_messages",
        "internal_notes",
        "draft_reply",
    }
)
ID_KEYS = frozenset({"email_id", "ticket_id"})
# Clock readings, as minutes from now.
TIME_KEYS = frozenset({"received_at", "sla_deadline"})
# The episode's own fields that are the same for every ticket.
EPISODE_SKIP = frozenset(
    {
        "policy",
        "vocabulary",
        "action_schema",
        "objective",
        "allowed_actions",
        "metadata",
        "last_feedback",
        "last_action_error",
        "task_id",
        "title",
        "reward",
        "done",
        "current_email",
        "inbox",
        "tickets",
        "processed",
        "recent_events",
        "progress_score",
        *TEXT_KEYS,
        *ID_KEYS,
    }
)
MASK = "[text]"

Features = dict[str, float | str]


def items_of(observation: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Every visible ticket's view, by id, whatever the mode."""
    mode = observation.get("mode")
    if mode == "triage":
        views = {e["email_id"]: dict(e) for e in observation.get("inbox") or []}
        current = observation.get("current_email")
        if current:
            views[current["email_id"]] = {**views.get(current["email_id"], {}), **current}
        return views
    if mode == "inbox":
        return {t["ticket_id"]: dict(t) for t in observation.get("tickets") or []}
    if observation.get("ticket_id") is None:
        return {}
    keep = (*TEXT_KEYS, "customer_tier", "priority", "routed_team", "tags", "info_requested")
    view = {k: observation.get(k) for k in keep if k in observation}
    view.update({k: v for k, v in observation.items() if k.startswith("sender_")})
    return {observation["ticket_id"]: view}


def _add(out: Features, name: str, value: Any) -> None:
    if isinstance(value, int | float):  # bools too
        out[name] = float(value)
    elif value is None:
        out[name] = "none"
    elif isinstance(value, str):
        out[name] = value
    elif isinstance(value, Mapping):
        out[name + "#keys"] = "|".join(sorted(map(str, value)))
        for key, inner in value.items():
            _add(out, f"{name}.{key}", inner)
    elif isinstance(value, list | tuple):
        out[name + "#n"] = float(len(value))
        if value and all(isinstance(v, str) for v in value):
            out[name + "#values"] = "|".join(sorted(value))


def ticket_features(
    observation: Mapping[str, Any],
    ticket_id: str,
    events: Iterable[Mapping[str, Any]] = (),
    incidents: Iterable[Mapping[str, Any]] = (),
) -> Features:
    """One ticket's features: its own fields, the episode's, and what happened to it."""
    views = items_of(observation)
    view = views.get(ticket_id, {})
    now = float(observation.get("now") or 0)
    out: Features = {}
    for key, value in view.items():
        if key in ID_KEYS:
            continue
        if key in TEXT_KEYS:
            present = value is not None and value != "" and value != []
            out["has." + key] = float(present)
            if isinstance(value, list):
                out["n." + key] = float(len(value))
            continue
        if key in TIME_KEYS and isinstance(value, int | float):
            out["t." + key] = float(value) - now
            continue
        _add(out, "v." + key, value)
    received = view.get("received_at")
    origin = float(received) if isinstance(received, int | float) else now
    kinds = Counter(m.get("kind") for m in view.get("customer_messages") or [])
    for kind, count in kinds.items():
        out[f"msg.{kind}"] = float(count)
    for m in view.get("customer_messages") or []:
        out.setdefault(f"msg.{m.get('kind')}.minute", float(m.get("minute", 0)) - origin)
    thread = view.get("thread") or []
    if thread:
        out["thread.oldest"] = float(max(m.get("minutes_ago", 0) for m in thread))
    for key, value in observation.items():
        if key not in EPISODE_SKIP:
            _add(out, "e." + key, value)
    ids = sorted(views)
    out["e.visible"] = float(len(ids))
    if ticket_id in ids:
        out["position"] = ids.index(ticket_id) / max(1, len(ids) - 1)
    warnings = observation.get("active_sla_warnings") or []
    out["warned"] = float(ticket_id in warnings)
    for event in events:
        if event.get("ticket_id") == ticket_id:
            name = f"event.{event.get('kind')}"
            out[name] = float(out.get(name, 0.0)) + 1.0  # type: ignore[arg-type]
        elif ticket_id in str(event.get("detail", "")):
            name = f"event_mention.{event.get('kind')}"
            out[name] = float(out.get(name, 0.0)) + 1.0  # type: ignore[arg-type]
    for incident in incidents:
        if ticket_id in str(incident.get("detail", "")):
            name = f"incident.{incident.get('kind')}"
            out[name] = float(out.get(name, 0.0)) + 1.0  # type: ignore[arg-type]
    return out


def masked_view(view: Mapping[str, Any]) -> dict[str, Any]:
    """A ticket's view with its words replaced by one mark (their presence stays)."""
    out: dict[str, Any] = {}
    for key, value in view.items():
        if key in TEXT_KEYS and isinstance(value, str):
            out[key] = MASK
        elif key in TEXT_KEYS and isinstance(value, list):
            out[key] = [
                {k: (MASK if k in ("body", "sender") else v) for k, v in m.items()}
                if isinstance(m, Mapping)
                else MASK
                for m in value
            ]
        else:
            out[key] = value
    return out


def masked_prompt(observation: Mapping[str, Any], ticket_id: str) -> str:
    """The prompt the tools render for this ticket, every message text masked: what a model
    reads besides the mail (who wrote as the prompt names them, actions left, budgets)."""
    mode = str(observation.get("mode"))
    view = masked_view(items_of(observation).get(ticket_id, {}))
    shown = dict(observation)
    if mode == "triage":
        shown["current_email"] = view
        shown["inbox"] = [view]
    elif mode == "inbox":
        shown["tickets"] = [view]
    else:
        shown.update(view)
    text = render(mode, shown)
    if mode == "triage":
        text += f"\nFrom: {MASK} ({who_wrote(view)})"
    return text
