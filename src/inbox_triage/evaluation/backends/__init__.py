"""Where a run's episodes are played: threads (the default for agents that wait on the
network), local processes (``--workers N``) or a Ray cluster (``--backend ray``).

Every backend plays the same episode specs with the same agents and yields the same records;
the runner writes each as it finishes and puts the file in plan order when the run ends, so
the backend changes how fast a run goes, never what it records.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from inbox_triage.agents import Agent, LLMConfig
    from inbox_triage.evaluation.plan import EpisodeSpec
    from inbox_triage.evaluation.records import EpisodeRecord

BACKENDS = ("threads", "processes", "ray")
# Agents that play in this process and only compute: processes speed them up. The llm agent
# waits on its endpoint (threads suit it); hf runs torch, which uses every core itself.
CPU_BOUND_AGENTS = frozenset({"noop", "random", "heuristic", "oracle", "learned"})
# Starting the fork server and a worker costs 1-2 s, about 300 heuristic episodes' worth:
# a run adds a worker per 500 episodes, so the quick start's 180 stay in this process.
EPISODES_PER_WORKER = 500


@dataclass(frozen=True, slots=True)
class AgentMaker:
    """Makes agents by name wherever episodes run (a worker process, a Ray node): unlike a
    closure, it pickles. The llm agent gets ``llm``'s endpoint and settings."""

    llm: LLMConfig | None = None

    def __call__(self, name: str) -> Agent:
        from inbox_triage.agents import LLMAgent, make_agent  # where episodes run

        if name == "llm" and self.llm is not None:
            return LLMAgent(self.llm)
        return make_agent(name)


def cpu_bound(agents: Iterable[str], env_url: str | None) -> bool:
    return env_url is None and all(a in CPU_BOUND_AGENTS for a in agents)


def default_workers(agents: Iterable[str], env_url: str | None, episodes: int) -> int:
    """One process per core for CPU-bound agents in-process, fewer for a small run."""
    if not cpu_bound(agents, env_url):
        return 1
    cores = os.cpu_count() or 1
    return max(1, min(cores, episodes // EPISODES_PER_WORKER))


class BackendChoiceError(ValueError):
    """Flags that do not fit together; ``option`` names the one to change."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option


def choose_backend(
    backend: str | None,
    workers: int | None,
    address: str | None,
    concurrency: int | None,
    agents: list[str],
    env_url: str | None,
    episodes: int,
) -> tuple[str, int]:
    """Where a run plays and on how many workers, from the flags and the agents: threads
    for agents that wait on the network, processes for those that compute, Ray if asked."""
    if backend is not None and backend not in BACKENDS:
        raise BackendChoiceError("--backend", f"choose from: {', '.join(BACKENDS)}")
    if address is not None and backend != "ray":
        raise BackendChoiceError("--address", "names a Ray cluster: add --backend ray")
    cores = os.cpu_count() or 1
    if backend == "ray":
        if concurrency is not None:
            raise BackendChoiceError("--concurrency", "sets threads; on Ray set --workers")
        if importlib.util.find_spec("ray") is None:
            raise BackendChoiceError("--backend", 'ray needs Ray: pip install -e ".[ray]"')
        return "ray", workers or cores
    if backend == "threads" or workers == 1:
        if workers is not None and workers > 1:
            raise BackendChoiceError(
                "--workers", "the threads backend plays in this process: use --concurrency"
            )
        return "threads", 1
    if workers is None and backend is None:
        chosen = 1 if concurrency else default_workers(agents, env_url, episodes)
        return ("processes", chosen) if chosen > 1 else ("threads", 1)
    if env_url is not None:
        raise BackendChoiceError(
            "--env-url", "plays over the network, in threads: use --concurrency, not processes"
        )
    if "llm" in agents:
        raise BackendChoiceError(
            "--workers",
            "the llm agent waits on its endpoint: use --concurrency (or --backend ray)",
        )
    if concurrency is not None:
        raise BackendChoiceError(
            "--concurrency",
            "sets threads; with --workers each process plays one episode at a time",
        )
    return "processes", workers or cores


def chunk_size(episodes: int, workers: int) -> int:
    """Episodes per task: a few tasks per worker keep the pool busy and the messages few."""
    return max(1, min(16, episodes // max(1, workers * 8)))


def chunks(specs: list[EpisodeSpec], size: int) -> Iterator[list[EpisodeSpec]]:
    for start in range(0, len(specs), size):
        yield specs[start : start + size]


def play_chunk(
    specs: list[EpisodeSpec],
    keep_trajectory: bool,
    agents: Callable[[str], Agent],
    env_url: str | None = None,
) -> list[EpisodeRecord]:
    """Plays episodes in this process, one after another (what a worker runs); against the
    server at ``env_url`` when given."""
    from inbox_triage.evaluation.episode import play

    return [
        play(spec, agents(spec.agent), env_url, keep_trajectory=keep_trajectory) for spec in specs
    ]
