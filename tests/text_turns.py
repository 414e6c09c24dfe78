"""The oracle's actions as the ``<tool_call>`` texts a model writes, for the text-turn envs
(SkyRL, GEM: ``integrations.text_episode.TextEpisode``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from inbox_triage.agents import make_agent


def call(name: str, **arguments: Any) -> str:
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


def oracle_calls(env: Any, seed: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """The oracle's next actions as tool calls (name, arguments), one per turn."""
    agent = make_agent("oracle")
    agent.reset(env.observation, scenario=env.inbox.scenario, seed=seed)
    while True:
        action = dict(agent.act(env.observation))
        name = action.pop("action_type", None) or "triage_email"  # triage's may leave it out
        if env.mode == "ticket":  # the ticket tools take no id: the episode is one ticket
            action.pop("ticket_id", None)
        yield name, action


def oracle_turns(env: Any, seed: int) -> Iterator[str]:
    """The oracle's next actions as the texts a model would write."""
    for name, arguments in oracle_calls(env, seed):
        yield call(name, **arguments)
