"""The environment as a verifiers (0.3.1) environment: ``vf.load_environment("inbox-triage")``.

Each dataset row is one episode (its reset arguments under ``info["episode"]``: verifiers
reserves ``info["task"]``). A rollout plays that episode in-process: ``setup_state`` starts it
and offers the episode's own tools (enums from its vocabulary), every tool call is one step
(a refused call is answered with the field and the allowed values, and costs what a refused
action costs), and the step that ends the episode ends the rollout with no further model call.
The reward is the episode's grade, or with ``penalised=True`` the sum of its step rewards (the
grade less penalties and step costs).

    pip install -e ".[verifiers]"
    vf-eval inbox-triage -a '{"mode": "inbox"}' -m MODEL -b http://localhost:8000/v1 -k KEY_VAR \
        -t 512 -c 4 -s -o outputs/vf
    python -m inbox_triage.integrations.verifiers_check outputs/vf   # exit 1: every rollout failed

A model call gets at most ``max_tokens`` (512) tokens where the evaluation sets no limit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import verifiers as vf

from inbox_triage.action_tools import (
    SYSTEM_PROMPTS,
    ToolRefused,
    openai_tools,
    refusal_text,
    render,
    step_text,
    to_action,
)
from inbox_triage.env import InboxTriageEnv
from inbox_triage.observations import ObservationMemory
from inbox_triage.scenarios.generator import KNOBS  # load_environment kwargs that go to reset

STATE_KEY = "inbox_triage"  # the rollout's episode in verifiers' state
# A model call's token limit where the caller sets none (vf-eval without -t, sampling_args
# without max_tokens): one tool call, a drafted reply included, fits; a model that rambles
# (SmolLM2 on a CPU ran 11 minutes without one) stops there. ``max_tokens=None`` lifts it.
MAX_TOKENS = 512
ENDED = "The episode has ended: there is nothing more to do."


def system_prompt(mode: str) -> str:
    """The mode's system prompt for native tool calling: the shared one, less its
    ``<tool_call>`` text format (verifiers sends the tools as the API's own)."""
    return SYSTEM_PROMPTS[mode].partition(" Write each call as")[0]


def first_message(observation: dict[str, Any]) -> str:
    """The first user message: the objective, the policy the grader applies, the inbox."""
    parts = (observation.get("objective"), observation.get("policy"))
    return "\n\n".join([*(p for p in parts if p), render(observation["mode"], observation)])


def tool_defs(observation: dict[str, Any]) -> list[vf.Tool]:
    """The episode's tools as verifiers' provider-neutral ``vf.Tool`` (its 0.3.1 form; OpenAI's
    ``{"type": "function", ...}`` shape is refused), with the episode's values as enums."""
    return [vf.Tool(**t["function"]) for t in openai_tools(observation["mode"], observation)]


@dataclass
class Episode:
    """One rollout's episode: the in-process environment and what its tools have shown."""

    env: InboxTriageEnv = field(default_factory=InboxTriageEnv)
    mode: str = ""
    memory: ObservationMemory = field(default_factory=ObservationMemory)
    answers_seen: int = 0  # ticket mode: the customer's answers already shown

    def start(self, reset: dict[str, Any]) -> dict[str, Any]:
        observation = self.memory.update(self.env.reset(**reset).model_dump())
        self.mode = observation["mode"]
        self.answers_seen = len(observation.get("customer_messages") or [])
        return observation

    def play(self, name: str, arguments: Any) -> str:
        """One tool call as one step; the answer the model reads."""
        if self.env.done:
            return ENDED
        refused: dict[str, Any] | None = None
        try:
            action = to_action(self.mode, name, arguments)
        except ToolRefused as exc:  # still a step: the environment refuses and counts it
            refused, action = exc.as_error(), {"action_type": "unknown_tool"}
        observation = self.memory.update(self.env.step(action).model_dump())
        error = refused or observation.get("last_action_error")
        if error:
            text = f"{name} refused: {refusal_text(error)}."
            if observation.get("done"):
                return text + " The episode is over."
            return text + f" Nothing changed; {observation.get('steps_remaining')} actions left."
        text = step_text(self.mode, observation, self.answers_seen)
        self.answers_seen = len(observation.get("customer_messages") or [])
        return text


def _episode(state: vf.State) -> Episode | None:
    episode = state.get(STATE_KEY)
    return episode if isinstance(episode, Episode) else None


def grade(state: vf.State) -> float:
    """The episode's grade in [0, 1] (so far, where the rollout stopped before its end)."""
    episode = _episode(state)
    return float(episode.env.grade().value) if episode else 0.0


def total_reward(state: vf.State) -> float:
    """The sum of the episode's step rewards: its grade less penalties and step costs."""
    episode = _episode(state)
    return float(episode.env.total_reward) if episode else 0.0


def invalid_actions(state: vf.State) -> float:
    """How many calls the episode refused."""
    episode = _episode(state)
    return float(episode.env.state.invalid_actions) if episode else 0.0


class InboxTriageToolEnv(vf.StatefulToolEnv):
    """A ``StatefulToolEnv`` whose tools are the episode's actions, each call a step of the
    rollout's own in-process episode (the hidden argument ``update_tool_args`` fills)."""

    def __init__(
        self,
        first: dict[str, Any],
        penalised: bool = False,
        max_tokens: int | None = MAX_TOKENS,
        **kwargs: Any,
    ) -> None:
        self.default_max_tokens = max_tokens  # a model call's token limit, unless one is given
        weights = [0.0, 1.0] if penalised else [1.0, 0.0]
        rubric = vf.Rubric(funcs=[grade, total_reward], weights=weights)
        rubric.add_metric(invalid_actions)
        kwargs.setdefault("max_turns", -1)  # every call is a step: the episode's budget bounds it
        super().__init__(rubric=rubric, system_prompt=system_prompt(first["mode"]), **kwargs)
        # Offered to the model; setup_state replaces them with each episode's own.
        self.tool_defs = tool_defs(first)
        for tool in self.tool_defs:
            self.tool_monitor_rubric.add_tool_metric(tool.name)

    async def setup_state(self, state: vf.State) -> vf.State:
        """Starts the row's episode and offers its tools (a pack's vocabulary is its own)."""
        episode = Episode()
        observation = episode.start(dict((state.get("info") or {}).get("episode") or {}))
        state[STATE_KEY] = episode
        state["tool_defs"] = tool_defs(observation)
        sampling = dict(state.get("sampling_args") or {})
        given = sampling.get("max_tokens") or sampling.get("max_completion_tokens")
        if self.default_max_tokens and not given:  # vf-eval without -t sends max_tokens=None
            state["sampling_args"] = {**sampling, "max_tokens": self.default_max_tokens}
        return state

    def update_tool_args(
        self,
        tool_name: str,
        tool_args: Any,  # the parsed arguments (not always an object: to_action judges)
        messages: vf.Messages,
        state: vf.State,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """The call's arguments, and the hidden one: the rollout's episode."""
        return {"arguments": tool_args, "episode": _episode(state)}

    async def call_tool(
        self, tool_name: str, tool_args: dict[str, Any], tool_call_id: str, **kwargs: Any
    ) -> vf.ToolMessage:
        """Every tool is an action of the episode: one step, whatever the name (an unknown
        one is refused with the allowed names, not a Python ``KeyError``)."""
        episode: Episode | None = tool_args["episode"]
        text = episode.play(tool_name, tool_args["arguments"]) if episode else ENDED
        return vf.ToolMessage(role="tool", content=text, tool_call_id=tool_call_id)

    async def env_response(
        self, messages: vf.Messages, state: vf.State, **kwargs: Any
    ) -> vf.Messages:
        """Answers each call; once the episode has ended, the answers are the rollout's last
        message (``final_env_response``), so that no model call follows the last step.

        Unlike ``StatefulToolEnv``'s, an unparseable call is a (refused) step too, so the
        episode's step budget bounds every rollout."""
        answers: list[vf.ToolMessage] = []
        for call in getattr(messages[-1], "tool_calls", None) or []:
            try:
                arguments = json.loads(call.arguments or "{}")
            except ValueError:
                arguments = call.arguments  # not an object: refused as such
            args = self.update_tool_args(call.name, arguments, messages, state, **kwargs)
            answers.append(await self.call_tool(call.name, args, call.id))
        episode = _episode(state)
        if episode is None or episode.env.done:
            state["final_env_response"] = answers
        return answers

    @vf.stop
    async def episode_over(self, state: vf.State) -> bool:
        """The episode has ended (its last step, or its step budget)."""
        episode = _episode(state)
        return episode is not None and episode.env.done


def episodes(
    mode: str,
    split: str,
    difficulty: str,
    num_examples: int,
    seed: int,
    task: str | None,
    knobs: dict[str, Any],
) -> list[dict[str, Any]]:
    """The rows' reset arguments: consecutive seeds of a named task or of the mode's
    generated episodes (which alone take a split, a difficulty and the generator's knobs)."""
    if task is not None:
        return [{"task": task, "seed": seed + i, **knobs} for i in range(num_examples)]
    fixed = {"task": f"{mode}/generated", "split": split, "difficulty": difficulty}
    return [{**fixed, "seed": seed + i, **knobs} for i in range(num_examples)]


def load_environment(
    mode: str = "ticket",
    split: str = "train",
    difficulty: str = "medium",
    num_examples: int | None = None,
    seed: int = 0,
    task: str | None = None,
    penalised: bool = False,
    max_tokens: int | None = MAX_TOKENS,
    **kwargs: Any,
) -> InboxTriageToolEnv:
    """The environment for verifiers: ``num_examples`` episodes (100 generated ones, or one of
    a named ``task``) from seed ``seed`` on. Generator knobs among ``kwargs`` (``size=40``...)
    go to every reset; the others to the verifiers environment (``max_turns``,
    ``timeout_seconds``...). ``max_tokens`` bounds each model call where the evaluation's
    sampling arguments set no limit (``None``: no bound of ours)."""
    knobs = {k: kwargs.pop(k) for k in list(kwargs) if k in KNOBS}
    count = num_examples if num_examples is not None else (1 if task else 100)
    rows = episodes(mode, split, difficulty, count, seed, task, knobs)
    first = InboxTriageEnv().reset(**rows[0]).model_dump()  # a wrong argument fails here

    def build() -> Any:
        from datasets import Dataset

        env = InboxTriageEnv()
        prompts = [first_message(env.reset(**row).model_dump()) for row in rows]
        return Dataset.from_list(
            [
                {"prompt": [{"role": "user", "content": text}], "info": {"episode": row}}
                for text, row in zip(prompts, rows, strict=True)
            ]
        )

    kwargs.setdefault("eval_dataset", build)  # vf-eval reads the eval set: the same rows
    return InboxTriageToolEnv(
        first, penalised=penalised, max_tokens=max_tokens, dataset=build, **kwargs
    )
