"""An LLM agent over any OpenAI-compatible chat API (OpenAI, HF router, vLLM, llama.cpp...).

Each turn is one fresh prompt: the policy, the vocabulary and the action shapes first (the same
every turn, so servers that cache prompt prefixes reuse them), then the task, the last few
actions with their feedback and the current observation. The model answers through tool calls
where the server supports them and through JSON (schema-constrained where possible) otherwise.
An answer that is not a valid action is explained back to the model and retried a bounded number
of times; if it is still invalid it is sent as it is, so the environment counts it. Nothing is
ever silently replaced by ``finish``.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from inbox_triage.agents.base import ActionDict, Observation
from inbox_triage.domain import Scenario

DEFAULT_BASE_URL = "https://router.huggingface.co/v1"
PROTOCOLS = ("auto", "tools", "json")

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
STATIC_KEYS = {"policy", "vocabulary", "action_schema", "allowed_actions", "metadata", "reward"}
MAX_BODY_CHARS = 1500


@dataclass(slots=True)
class LLMConfig:
    """Where the model is and how to call it. ``from_env`` reads the seeds' conventions."""

    model: str
    base_url: str = DEFAULT_BASE_URL
    api_key: str = "not-needed"
    protocol: str = "auto"
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = 120.0
    transport_retries: int = 4
    invalid_retries: int = 2
    history: int = 6

    @classmethod
    def from_env(cls, **overrides: Any) -> LLMConfig:
        """API_BASE_URL, MODEL_NAME and HF_TOKEN or OPENAI_API_KEY; explicit values win."""
        values = {k: v for k, v in overrides.items() if v is not None}
        values.setdefault("base_url", os.environ.get("API_BASE_URL") or DEFAULT_BASE_URL)
        model = values.get("model") or os.environ.get("MODEL_NAME")
        if not model:
            raise ValueError(
                "no model: set MODEL_NAME (or pass --model), with API_BASE_URL for the "
                "endpoint and HF_TOKEN or OPENAI_API_KEY for the key"
            )
        values["model"] = model
        values.setdefault(
            "api_key",
            os.environ.get("HF_TOKEN") or os.environ.get("OPENAI_API_KEY") or "not-needed",
        )
        config = cls(**values)
        if config.protocol not in PROTOCOLS:
            raise ValueError(f"protocol {config.protocol!r} is not one of {', '.join(PROTOCOLS)}")
        return config

    def public(self) -> dict[str, Any]:
        """The settings worth recording with a run (never the key)."""
        return {
            "model": self.model,
            "base_url": self.base_url,
            "protocol": self.protocol,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "invalid_retries": self.invalid_retries,
        }


def check_endpoint(config: LLMConfig, timeout_s: float = 15.0) -> None:
    """Fails fast, with a clear message, when the endpoint cannot be reached or refuses the
    key, instead of after every episode's retries. Endpoints without ``/models`` pass."""
    import openai

    client = openai.OpenAI(
        base_url=config.base_url, api_key=config.api_key, timeout=timeout_s, max_retries=0
    )
    try:
        client.models.list()
    except (openai.APIConnectionError, openai.APITimeoutError) as exc:
        raise ConnectionError(
            f"cannot reach the model endpoint {config.base_url} ({exc}); check API_BASE_URL "
            "or --base-url, and that the server is running"
        ) from None
    except (openai.AuthenticationError, openai.PermissionDeniedError):
        raise ConnectionError(
            f"the model endpoint {config.base_url} refused the key: set HF_TOKEN or OPENAI_API_KEY"
        ) from None
    except openai.APIStatusError:
        pass  # no /models route: the first real call will tell


# ---------------------------------------------------------------------------- action shapes
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


# --------------------------------------------------------------------------------- prompts
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


# ----------------------------------------------------------------------------------- agent
class _ToolsRefused(Exception):
    """The server refused tool calling; the turn is asked again in JSON."""


@dataclass(slots=True)
class Usage:
    prompt: int = 0
    completion: int = 0
    calls: int = 0
    invalid_outputs: int = 0
    submitted_invalid: int = 0
    known: bool = False

    def stats(self) -> dict[str, int]:
        return {
            "model_calls": self.calls,
            "invalid_answers": self.invalid_outputs,
            "sent_invalid": self.submitted_invalid,
        }

    def tokens(self) -> dict[str, int] | None:
        if not self.known:
            return None
        return {
            "prompt": self.prompt,
            "completion": self.completion,
            "total": self.prompt + self.completion,
        }


@dataclass
class LLMAgent:
    """Drives a chat model through an episode; see the module docstring for the protocol."""

    config: LLMConfig | None = None
    name: str = "llm"
    client: Any = None
    usage: Usage = field(default_factory=Usage)
    _schema: dict[str, Any] = field(default_factory=dict)
    _policy: str = ""
    _history: list[str] = field(default_factory=list)
    _protocol: str = "auto"
    _tool_choice: str = "required"
    _response_format: str = "json_schema"
    _cut_off: bool = False
    _seed: int = 0

    def __post_init__(self) -> None:
        self.config = self.config or LLMConfig.from_env()
        self._protocol = self.config.protocol
        if self.client is None:
            from openai import OpenAI

            # The client retries connection errors, 429 and 5xx with exponential backoff.
            self.client = OpenAI(
                base_url=self.config.base_url,
                api_key=self.config.api_key,
                timeout=self.config.timeout_s,
                max_retries=self.config.transport_retries,
            )

    def reset(self, observation: Observation, *, scenario: Scenario | None, seed: int) -> None:
        self._schema = observation.get("action_schema") or {}
        self._policy = observation.get("policy") or ""
        self._history = []
        self._seed = seed
        self.usage = Usage(known=False)

    def act(self, observation: Observation) -> ActionDict:
        assert self.config is not None
        if observation.get("policy") is None:
            observation = {**observation, "policy": self._policy}
        shapes = action_shapes(observation, self._schema)
        self._note_outcome(observation)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": ""},  # set per protocol below
            {"role": "user", "content": self._turn_prompt(observation)},
        ]
        action: Any = None
        error: dict[str, Any] | None = None
        attempts = 0
        while attempts <= self.config.invalid_retries:
            protocol = "tools" if self._protocol in ("auto", "tools") else "json"
            messages[0]["content"] = system_prompt(observation, shapes, protocol)
            try:
                action, raw, called_tool = self._ask(messages, shapes, protocol)
            except _ToolsRefused:
                continue  # asked again at once in JSON, with the JSON instructions
            attempts += 1
            if protocol == "tools" and not called_tool and self._protocol == "auto":
                self._protocol = "json"  # the server or model does not do tools: use JSON
            error = validate_action(action, shapes)
            if error is None:
                break
            self.usage.invalid_outputs += 1
            hint = (
                " Your answer was cut off at the token limit: keep texts short."
                if self._cut_off
                else ""
            )
            messages.append({"role": "assistant", "content": raw or "(no answer)"})
            messages.append(
                {
                    "role": "user",
                    "content": "That is not a valid action: "
                    f"{json.dumps(error)}.{hint} Answer again with one corrected action.",
                }
            )
        if error is not None:
            self.usage.submitted_invalid += 1
            action = wire_safe(action)
        self._history.append(f"step {observation.get('step_count', 0) + 1}: {json.dumps(action)}")
        return action

    # ------------------------------------------------------------------------- internals
    def _note_outcome(self, observation: Observation) -> None:
        """Adds what the last action led to, so the model sees its own track record."""
        if not self._history:
            return
        outcome = observation.get("last_feedback") or ""
        if observation.get("last_action_error"):
            outcome += f" ERROR: {json.dumps(observation['last_action_error'])}"
        self._history[-1] += f" -> reward {observation.get('reward')}: {outcome}"

    def _turn_prompt(self, observation: Observation) -> str:
        assert self.config is not None
        recent = self._history[-self.config.history :]
        return (
            f"Objective: {observation.get('objective', '')}\n\n"
            + ("Your recent actions:\n" + "\n".join(recent) + "\n\n" if recent else "")
            + "Current observation:\n"
            + json.dumps(compact_observation(observation), ensure_ascii=False)
            + "\n\nChoose the next action."
        )

    def _ask(
        self, messages: list[dict[str, Any]], shapes: dict[str, dict[str, Any]], protocol: str
    ) -> tuple[Any, str, bool]:
        """One model call: (parsed action or None, raw text, whether a tool was called)."""
        assert self.config is not None
        request: dict[str, Any] = {
            "model": self.config.model,
            "messages": messages,
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
            "seed": self._seed,
        }
        if protocol == "tools":
            request["tools"] = tools_for(shapes)
            request["tool_choice"] = self._tool_choice
        elif self._response_format == "json_schema":
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "action", "schema": json_schema_for(shapes)},
            }
        elif self._response_format == "json_object":
            request["response_format"] = {"type": "json_object"}
        response = self._create(request)
        self.usage.calls += 1
        if getattr(response, "usage", None) is not None:
            self.usage.known = True
            self.usage.prompt += response.usage.prompt_tokens or 0
            self.usage.completion += response.usage.completion_tokens or 0
        if not response.choices:  # e.g. a provider's content filter
            return None, "(an empty answer)", False
        self._cut_off = getattr(response.choices[0], "finish_reason", None) == "length"
        message = response.choices[0].message
        calls = message.tool_calls or []
        if calls:
            call = calls[0]
            arguments = parse_json_action(call.function.arguments or "")
            raw = f"{call.function.name}({call.function.arguments})"
            if not isinstance(arguments, dict):
                arguments = {} if not (call.function.arguments or "").strip() else None
            if arguments is None:
                return None, raw, True
            # The tool's name is the action: an action_type among the arguments cannot change it.
            return {**arguments, "action_type": call.function.name}, raw, True
        text = message.content or ""
        return unwrap_action(parse_json_action(text)), text, False

    def _create(self, request: dict[str, Any]) -> Any:
        """Calls the API. When the server refuses a feature by name, steps down for all later
        calls: required tool choice -> automatic -> JSON (in auto protocol), JSON
        schema -> JSON object -> plain text. Any other refusal is raised as it is."""
        from openai import BadRequestError, UnprocessableEntityError

        while True:
            try:
                return self.client.chat.completions.create(**request)
            except (BadRequestError, UnprocessableEntityError) as exc:
                said = str(exc).lower()
                if "tools" in request and "tool" in said:
                    if request.get("tool_choice") == "required":
                        request["tool_choice"] = self._tool_choice = "auto"
                        continue
                    if self._protocol == "auto":
                        self._protocol = "json"
                        raise _ToolsRefused from None
                elif "response_format" in request and any(
                    word in said for word in ("response_format", "json_schema", "schema", "json")
                ):
                    if self._response_format == "json_schema":
                        self._response_format = "json_object"
                        request["response_format"] = {"type": "json_object"}
                    else:
                        self._response_format = "text"
                        request.pop("response_format")
                    continue
                raise


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
