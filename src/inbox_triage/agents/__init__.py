"""Built-in agents: noop and random (floors), heuristic (the bar to beat), oracle (for checks),
and llm (any OpenAI-compatible chat model; configured from the environment)."""

from collections.abc import Callable

from inbox_triage.agents.base import Agent, compose_reply
from inbox_triage.agents.heuristic import HeuristicAgent
from inbox_triage.agents.llm import LLMAgent, LLMConfig
from inbox_triage.agents.oracle import OracleAgent
from inbox_triage.agents.simple import NoopAgent, RandomAgent

AGENTS: dict[str, Callable[[], Agent]] = {
    "noop": NoopAgent,
    "random": RandomAgent,
    "heuristic": HeuristicAgent,
    "oracle": OracleAgent,
    "llm": LLMAgent,
}


def make_agent(name: str) -> Agent:
    """A fresh agent by name; the error lists the names there are."""
    try:
        return AGENTS[name]()
    except KeyError:
        raise ValueError(f"unknown agent {name!r} (known: {', '.join(AGENTS)})") from None


__all__ = [
    "AGENTS",
    "Agent",
    "HeuristicAgent",
    "LLMAgent",
    "LLMConfig",
    "NoopAgent",
    "OracleAgent",
    "RandomAgent",
    "compose_reply",
    "make_agent",
]
