"""GEM (``gem-llm``): an episode as a GEM ``Env`` (``pip install -e ".[gem]"``).

``register()`` adds ``inbox-triage`` and, as GEM trainers name an env by id alone, one id per
mode (``inbox-triage:ticket``...); ``gem.make(id, **kwargs)`` hands the kwargs (the episode:
``mode`` or ``task``, ``split``, ``difficulty``, knobs, ``seed``, ``max_turns``) to the
constructor. A GEM observation is one string, which trainers wrap in a user turn: the first holds
the system prompt, the routing guide, the policy points and the first view. Turns play as in the
SkyRL env: one ``<tool_call>``, dense step rewards that sum to ``total_reward``, refusals and
garbage counted, the grade and the counts in the last ``info``.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import gem
from gem.envs.registration import ENV_REGISTRY

from inbox_triage import action_tools as tools
from inbox_triage.integrations.text_episode import TextEpisode
from inbox_triage.prompting.episode_tools import RESET_FIELDS

ENV_ID = "inbox-triage"
ENTRY_POINT = f"{__name__}:InboxTriageGemEnv"


class InboxTriageGemEnv(TextEpisode, gem.Env):
    """One inbox-triage episode per reset (any mode) in GEM's text-in, text-out loop."""

    def __init__(
        self,
        mode: str | None = None,
        task: str | None = None,
        seed: int | None = None,
        max_turns: int | None = None,
        system_prompt: bool = True,
        **episode: Any,
    ) -> None:
        super().__init__()
        if unknown := sorted(set(episode) - RESET_FIELDS):  # fail at make, not at reset
            raise TypeError(f"inbox-triage takes no {', '.join(unknown)}")
        if mode is None and task is None and "task_id" not in episode:
            raise TypeError(f"name the episode: mode= or task=, or make {ENV_ID}:MODE")
        self.config = dict(mode=mode, task=task, seed=seed, max_turns=max_turns, **episode)
        self.config["system_prompt"] = self.system_prompt = system_prompt
        if task or "task_id" in episode:  # a task names its mode; reset takes one of them
            mode = None
        named = {"mode": mode, "task": task, **episode}
        self._setup({k: v for k, v in named.items() if v is not None}, max_turns)
        self._next_seed, self._seeds, self._rng = seed, random.Random(seed), random.Random(seed)

    def reset(self, seed: int | None = None) -> tuple[str, dict[str, Any]]:
        """Starts an episode with ``seed``; none (GEM's vector envs autoreset so) draws the next
        from the env's own generator, seeded by the constructor's ``seed`` (the first reset plays
        it): a new episode each time. An autoreset replaces the last step's info, so
        ``prev_episode`` holds the last episode's summary. No global seeding (GEM's base reset
        seeds ``random`` and ``numpy``)."""
        last = {"prev_episode": self._summary()} if self.observation else {}
        if seed is None:
            seed = self._next_seed if self._next_seed is not None else self._seeds.getrandbits(31)
        self._next_seed = None
        opening = self._opening(self._begin(seed=seed))
        prompt = tools.SYSTEM_PROMPTS[self.mode]
        text = f"{prompt}\n\n{opening}" if self.system_prompt else opening
        info = {"mode": self.mode, "task_id": self.observation.get("task_id"), "seed": seed}
        return text, {**info, "max_turns": self.max_turns, "system_prompt": prompt, **last}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Plays the turn's first tool call: terminated at the episode's end, truncated when
        ``max_turns`` ends it first; the last ``info`` holds the grade and the counts."""
        text, reward, done, info = self._play(action)
        return text, reward, done and not self.truncated, self.truncated, info

    def sample_random_action(self) -> str:
        """A random tool of the episode with random values of its vocabulary and the ids in
        view (a rollout baseline: most such calls are refused or penalised)."""
        if not self.observation:
            raise RuntimeError("reset() before sample_random_action()")
        seen = self.observation
        ids = [t["ticket_id"] for t in seen.get("tickets") or []]
        ids += [seen["current_email"]["email_id"]] if seen.get("current_email") else []
        tool = self._rng.choice(tools.mcp_tools(self.mode, seen))
        arguments = {}
        for name, schema in tool["inputSchema"]["properties"].items():
            text = ids if name.endswith("_id") else ["Could you tell us more, please?"]
            values = [True, False] if schema["type"] == "boolean" else schema.get("enum") or text
            arguments[name] = self._rng.choice(values)
        call = json.dumps({"name": tool["name"], "arguments": arguments})
        return f"<tool_call>\n{call}\n</tool_call>"

    def spawn(self, same_state: bool = False, **kwargs: Any) -> InboxTriageGemEnv:
        """A new env of this configuration (``kwargs`` override it); ``same_state``: a copy of
        this one mid-episode, to branch from (it takes no overrides)."""
        if same_state and kwargs:
            raise ValueError("spawn(same_state=True) copies the env: it takes no overrides")
        return copy.deepcopy(self) if same_state else type(self)(**{**self.config, **kwargs})


def register(env_id: str = ENV_ID) -> tuple[str, ...]:
    """Registers ``env_id`` (kwargs name the episode) and ``env_id:MODE`` per mode with GEM
    (once: again is a no-op; an id taken by another env is an error)."""
    wanted = {env_id: {}, **{f"{env_id}:{mode}": {"mode": mode} for mode in tools.MODES}}
    for name, kwargs in wanted.items():
        spec = ENV_REGISTRY.get(name)
        if spec is None:
            gem.register(name, ENTRY_POINT, **kwargs)
        elif (spec.entry_point, spec.kwargs) != (ENTRY_POINT, kwargs):
            raise ValueError(f"{name!r} is already registered to {spec.entry_point}")
    return tuple(wanted)
