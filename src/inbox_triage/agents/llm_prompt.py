"""The LLM agent's prompt: the policy, vocabulary and action shapes first (the same every turn,
so servers that cache prompt prefixes reuse them), then a compact observation."""

from __future__ import annotations

import json
from typing import Any

from inbox_triage.agents.base import Observation

STATIC_KEYS = {"policy", "vocabulary", "action_schema", "allowed_actions", "metadata", "reward"}
MAX_BODY_CHARS = 1500


def system_prompt(
    observation: Observation, shapes: dict[str, dict[str, Any]], protocol: str
) -> str:
    vocabulary = observation.get("vocabulary") or {}
    listed = {k: v for k, v in vocabulary.items() if v}
    actions = "\n".join(
        f"- {kind}: fields {', '.join(s['properties']) or '(none)'}; required: "
        f"{', '.join(s['required']) or '(none)'}"
        for kind, s in shapes.items()
    )
    if protocol == "tools":
        how = "Call exactly one tool per turn: the next action."
    else:
        how = (
            'Answer with exactly one JSON object and nothing else: {"action": {"action_type": '
            "..., fields...}}, using the allowed values exactly as written."
        )
    return (
        "You are a support agent working a company's shared support inbox. Follow the policy "
        "below exactly; it is how your work is graded.\n\n"
        f"{observation.get('policy') or ''}\n\n"
        f"Allowed values:\n{json.dumps(listed, indent=1)}\n\n"
        f"Actions:\n{actions}\n\n"
        f"{how} Write replies and summaries in your own words; never ask for passwords or "
        "codes and never promise what the policy does not allow."
    )


def compact_observation(observation: Observation) -> dict[str, Any]:
    """What changes between turns, without static parts, empty fields or long tails."""
    out: dict[str, Any] = {}
    for key, value in observation.items():
        if key in STATIC_KEYS or value in (None, [], {}, ""):
            continue
        out[key] = value
    if observation.get("mode") == "triage" and observation.get("inbox"):
        current = (observation.get("current_email") or {}).get("email_id")
        out["inbox"] = [
            {k: v for k, v in e.items() if k not in ("body", "thread")}
            if e.get("processed") or e.get("email_id") == current
            else e
            for e in observation["inbox"]
        ]
    return _clip(out)


def _clip(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_BODY_CHARS:
        return value[:MAX_BODY_CHARS] + " [...]"
    if isinstance(value, dict):
        return {k: _clip(v) for k, v in value.items() if v not in (None, [], {}, "")}
    if isinstance(value, list):
        return [_clip(v) for v in value]
    return value
