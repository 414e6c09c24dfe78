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
    """A fresh agent by name (``hf:PATH`` for a local transformers checkpoint, ``learned``
    for the classifiers fit on the train split); the error lists the names there are."""
    if name.startswith("hf:"):
        from inbox_triage.agents.hf import HFAgent

        return HFAgent(name[3:])
    if name == "learned":
        from inbox_triage.agents.learned import LearnedAgent

        return LearnedAgent()
    try:
        return AGENTS[name]()
    except KeyError:
        known = ", ".join([*AGENTS, "learned", "hf:PATH"])
        raise ValueError(f"unknown agent {name!r} (known: {known})") from None


def is_agent_name(name: str) -> bool:
    """A name ``make_agent`` takes."""
    return name in AGENTS or name == "learned" or (name.startswith("hf:") and len(name) > 3)


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
    "is_agent_name",
    "make_agent",
]
