"""SkyRL-gym: an episode as a multi-turn ``BaseTextEnv`` (``pip install -e ".[skyrl]"``).

SkyRL's generator makes one env per rollout, ``skyrl_gym.make(env_class, env_config=...,
extras=...)``: ``env_config`` is ``environment.skyrl_gym.<env_class>`` of its config, and
``extras`` is the dataset row less ``prompt`` and ``env_class`` (``reward_spec``,
``extra_info``, ``data_source``), to which the generator adds ``max_turns``
(``generator.max_turns``). The episode is the row's ``extra_info``: ``task`` or ``mode``,
``split``, ``difficulty``, ``seed`` and generator knobs (``size``...), as ``inbox-triage export
prompts --format skyrl`` writes it. Other ``extra_info`` keys are ignored with a warning; the
row's other columns are SkyRL's and are left alone.

A turn is one ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (the first, if the
model writes several). The env plays it and answers with the next observation as a user
message, or with the refusal (field, why, allowed values). What does not parse is played as the
action it is, which the environment refuses and counts, never guessed. The step's reward is the
environment's dense step reward, so an episode's rewards sum to its ``total_reward``: the grade
less penalties.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import skyrl_gym
from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput, ConversationType

from inbox_triage.action_tools import SYSTEM_PROMPTS
from inbox_triage.integrations.text_episode import TextEpisode
from inbox_triage.prompting.episode_tools import RESET_FIELDS, reset_args
from inbox_triage.training.export import SKYRL_ENV_CLASS

ENV_ID = SKYRL_ENV_CLASS
ENTRY_POINT = f"{__name__}:InboxTriageTextEnv"
# What extra_info may hold: the episode, and a per-row turn cap (as SkyRL's own envs read it).
EPISODE_KEYS = RESET_FIELDS | {"max_turns"}
REWARDS = ("step", "episode")


def _setting(config: Any, name: str) -> Any:
    """A setting of ``env_config``: a dict, an OmegaConf ``DictConfig`` or an object."""
    if config is None:
        return None
    if isinstance(config, Mapping):
        return config.get(name)
    return getattr(config, name, None)


class InboxTriageTextEnv(TextEpisode, BaseTextEnv):
    """One inbox-triage episode (any mode) in SkyRL's text-in, text-out loop.

    ``env_config`` may set ``max_turns`` (over the generator's; none: the episode's own step
    budget) and ``reward``: ``step`` (the dense step rewards, the default) or ``episode``
    (0 until the end, then the episode's total: for SkyRL paths that keep only the last
    step's reward, such as ``retokenize_chat_history``).
    """

    CAP_HINT = "set generator.max_turns, or env_config max_turns"

    def __init__(self, env_config: Any = None, extras: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        extras = dict(extras or {})
        info = extras.get("extra_info")
        if isinstance(info, Mapping):
            episode = {k: v for k, v in info.items() if v is not None}
        else:  # made by hand: the episode's keys straight in extras
            episode = {k: v for k, v in extras.items() if k in EPISODE_KEYS and v is not None}
        unknown = sorted(set(episode) - EPISODE_KEYS)
        if unknown:
            warnings.warn(
                f"inbox-triage ignores extra_info key(s) {', '.join(unknown)} "
                f"(it reads: {', '.join(sorted(EPISODE_KEYS))})",
                stacklevel=2,
            )
        cap = next(
            (
                v
                for v in (
                    _setting(env_config, "max_turns"),
                    extras.get("max_turns"),
                    episode.get("max_turns"),
                )
                if v is not None
            ),
            None,
        )
        self.reward_kind = str(_setting(env_config, "reward") or "step")
        if self.reward_kind not in REWARDS:
            raise ValueError(f"env_config reward must be one of {', '.join(REWARDS)}")
        reset_kwargs = reset_args({k: v for k, v in episode.items() if k in RESET_FIELDS})
        named = "task" in reset_kwargs or "task_id" in reset_kwargs
        if "mode" in episode and not named:  # a task names its mode; reset takes one of them
            reset_kwargs["mode"] = episode["mode"]
        self._setup(reset_kwargs, None if cap is None else int(cap))

    # ----------------------------------------------------------------- what SkyRL calls
    def init(self, prompt: ConversationType) -> tuple[ConversationType, dict[str, Any]]:
        """Starts the episode; the prompt gains the mode's system prompt if it has none, and
        the first observation unless a message already shows it (our rows do not)."""
        shown = self._begin()
        chat = [dict(m) for m in prompt]
        if not any(m.get("role") == "system" for m in chat):
            chat.insert(0, {"role": "system", "content": SYSTEM_PROMPTS[self.mode]})
        if not any(shown in str(m.get("content") or "") for m in chat):
            first = self._opening(shown)
            if chat[-1].get("role") == "user":  # the row's opening turn, as TRL extends it
                before = str(chat[-1].get("content") or "")
                gap = "" if not before or before.endswith("\n") else "\n\n"
                chat[-1]["content"] = before + gap + first
            else:
                chat.append({"role": "user", "content": first})
        info = {"mode": self.mode, "task_id": self.observation.get("task_id")}
        return chat, {**info, "max_turns": self.max_turns}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        """Plays the turn's first tool call; refusals and unparseable answers are counted."""
        if not self.observation:
            raise RuntimeError("call init(prompt) before step()")
        text, reward, done, metadata = self._play(action)
        if self.reward_kind == "episode":
            reward = self._total() if done else 0.0
        observations = [] if done else [{"role": "user", "content": text}]
        return BaseTextEnvStepOutput(
            observations=observations, reward=reward, done=done, metadata=metadata
        )

    def get_metrics(self) -> dict[str, Any]:
        """What SkyRL logs per episode (averaged over a batch): grade, reward, counts."""
        if not self.observation:
            return {}
        summary = self._summary()
        return {
            "grade": summary["grade"]["value"],
            "total_reward": summary["total_reward"],
            "steps": summary["steps"],
            "refusals": summary["refusals"],
            "truncated": int(summary["truncated"]),
        }


def register(env_id: str = ENV_ID) -> str:
    """Registers the env with skyrl_gym under ``env_id`` (once: again is a no-op; an id taken
    by another env is an error). Call it where SkyRL makes envs, before training starts."""
    spec = skyrl_gym.registry.get(env_id)
    if spec is not None:
        if spec.entry_point != ENTRY_POINT:
            raise ValueError(f"{env_id!r} is already registered to {spec.entry_point}")
        return env_id
    skyrl_gym.register(id=env_id, entry_point=ENTRY_POINT)
    return env_id
