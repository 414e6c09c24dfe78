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
from dataclasses import dataclass, field
from typing import Any

from inbox_triage.agents.base import ActionDict, Observation
from inbox_triage.agents.llm_actions import (
    action_shapes,
    json_schema_for,
    parse_json_action,
    tools_for,
    unwrap_action,
    validate_action,
    wire_safe,
)
from inbox_triage.agents.llm_prompt import compact_observation, system_prompt
from inbox_triage.domain import Scenario

DEFAULT_BASE_URL = "https://router.huggingface.co/v1"
PROTOCOLS = ("auto", "tools", "json")


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
