"""``--agent hf:PATH``: a transformers checkpoint playing in-process, greedy, on the training
renderer and parser, so a model before and after training is measured by the same runner,
records and report as every other agent.

Triage mode asks for one JSON decision per email (the single-turn prompt it was trained on),
offering only the teams with room, and retelling a refusal of its last answer.
Ticket and inbox modes show the tools adapter's text and read one ``<tool_call>`` (or a bare
JSON object) per step. An answer that does not parse is sent as an action the environment
refuses (counted as invalid), never replaced by a guess. Needs the ``train`` extra.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from inbox_triage.action_tools import parse_tool_call as parse_tool_call
from inbox_triage.agents.base import ActionDict, Observation
from inbox_triage.domain import Scenario
from inbox_triage.prompting.decisions import decision_action, decision_messages, parse_decision
from inbox_triage.prompting.decisions import routing_guide as _guide
from inbox_triage.prompting.tools import SYSTEM_PROMPTS, render, tool_schemas

PREFIX = "hf:"
PROMPT_FILE = "inbox_triage_prompt.json"  # how the model was prompted in training
MAX_NEW_TOKENS = 200
_LOADED: dict[str, tuple[Any, Any]] = {}
_LOCK = threading.Lock()


def load_checkpoint(path: str) -> tuple[Any, Any]:
    """A checkpoint loaded once per process (episodes make a fresh agent each)."""
    with _LOCK:
        if path not in _LOADED:
            if not Path(path).is_dir():
                raise ValueError(f"hf agent: {path} is not a model folder")
            from inbox_triage.prompting.checkpoint import ensure_tool_template, load

            model, tokenizer = load(path)
            ensure_tool_template(tokenizer)
            _LOADED[path] = (model, tokenizer)
        return _LOADED[path]


class HFAgent:
    """Greedy decoding of a local checkpoint on the training prompts."""

    def __init__(self, path: str, max_new_tokens: int = MAX_NEW_TOKENS) -> None:
        self.path = path
        self.name = f"{PREFIX}{path}"
        self.max_new_tokens = max_new_tokens
        style = Path(path) / PROMPT_FILE
        self.with_guide = bool(
            style.is_file() and json.loads(style.read_text()).get("with_guide", False)
        )
        self.guide = ""
        self.history: list[dict[str, Any]] = []
        self._answers: dict[str, str] = {}
        self.usage = _Usage()

    def reset(self, observation: Observation, *, scenario: Scenario | None, seed: int) -> None:
        load_checkpoint(self.path)
        self.guide = _guide(observation.get("policy")) if self.with_guide else ""
        self.history = []
        self.first = observation
        self.last_email: str | None = None

    def act(self, observation: Observation) -> ActionDict:
        if observation.get("mode") == "triage":
            return self._decide(observation)
        return self._tool_call(observation)

    # ------------------------------------------------------------------ triage
    def _decide(self, observation: Observation) -> ActionDict:
        email = observation.get("current_email")
        if not email:
            return {"action_type": "finish"}
        vocabulary = dict(observation.get("vocabulary") or self.first.get("vocabulary") or {})
        room = observation.get("team_queue_remaining") or {}
        vocabulary["queues"] = [q for q in vocabulary.get("queues", []) if room.get(q, 1) > 0]
        messages = decision_messages(email, vocabulary, self.guide)
        error = observation.get("last_action_error")
        if error and self.last_email == email["email_id"]:  # what any agent is told, retold
            messages[-1]["content"] += (
                f"\n\nYour last answer was refused: {error.get('field')} {error.get('message')}"
                f" (allowed: {', '.join(map(str, error.get('allowed') or []))})."
            )
        self.last_email = email["email_id"]
        text = self._generate(messages)
        decision = parse_decision(text)
        if decision is None:  # refused by the environment: an invalid action, counted
            return {"action_type": "triage_email", "email_id": email["email_id"]}
        return decision_action(decision, email["email_id"])

    # --------------------------------------------------------------- tool modes
    def _tool_call(self, observation: Observation) -> ActionDict:
        mode = observation["mode"]
        if not self.history:
            self.history = [
                {"role": "system", "content": SYSTEM_PROMPTS[mode]},
                {"role": "user", "content": render(mode, observation)},
            ]
        else:
            self.history.append({"role": "user", "content": render(mode, observation)})
        text = self._generate(self.history, tools=tool_schemas(mode))
        self.history.append({"role": "assistant", "content": text})
        return parse_tool_call(text)

    def _generate(self, messages: list[dict[str, Any]], tools: list[Any] | None = None) -> str:
        """Greedy decoding, so the same prompt gets the same answer: asked again (an email
        whose decision was refused is shown again), it is answered from memory."""
        key = json.dumps([messages, tools], sort_keys=True)
        if key not in self._answers:
            self._answers[key] = self._decode(messages, tools)
        return self._answers[key]

    def _decode(self, messages: list[dict[str, Any]], tools: list[Any] | None) -> str:
        import torch

        model, tokenizer = load_checkpoint(self.path)
        encoded = tokenizer.apply_chat_template(
            messages,
            tools=tools,
            add_generation_prompt=True,
            return_tensors="pt",
            return_dict=True,
        ).to(model.device)
        with torch.no_grad():
            output = model.generate(
                **encoded,
                max_new_tokens=self.max_new_tokens,
                do_sample=False,
                pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id,
            )
        new = output[0, encoded["input_ids"].shape[1] :]
        self.usage.add(int(encoded["input_ids"].shape[1]), int(new.shape[0]))
        return tokenizer.decode(new, skip_special_tokens=True)


class _Usage:
    """Tokens read and written, for the records' token counts."""

    def __init__(self) -> None:
        self.prompt = 0
        self.completion = 0
        self.calls = 0

    def add(self, prompt: int, completion: int) -> None:
        self.prompt += prompt
        self.completion += completion
        self.calls += 1

    def tokens(self) -> dict[str, int]:
        return {
            "prompt": self.prompt,
            "completion": self.completion,
            "total": self.prompt + self.completion,
        }

    def stats(self) -> dict[str, int]:
        return {"model_calls": self.calls}
