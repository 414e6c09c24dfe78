"""``POST /baseline`` (the Support Inbox Ops route): a built-in agent's grades, computed here.

It runs in the server process, bounded in episodes and time, one at a time, and answers what
``inbox-triage eval --json`` writes. It can neither be pointed elsewhere nor read out a secret:
the ``oracle`` (which reads the truth) is not offered; the ``llm`` agent spends the operator's
API credit, so it needs ``serve --allow-llm-baseline``, and its endpoint and key come from the
server's environment only (a request that names a URL is refused).
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from inbox_triage.agents import AGENTS, Agent, make_agent
from inbox_triage.domain import MODES
from inbox_triage.env import InboxTriageEnv
from inbox_triage.evaluation.runner import summaries_from_records
from inbox_triage.evaluation.runs import RunConfig, RunInterrupted, play
from inbox_triage.scenarios import ScenarioError, fixed_task_ids
from inbox_triage.scenarios.generator import PRESETS, SPLITS
from inbox_triage.scenarios.sources import PACK_PREFIX, resolve_task_id
from inbox_triage.server.errors import public_message
from inbox_triage.server.sessions import SessionError

FIELDS = ("agent", "tasks", "episodes", "seed", "split", "difficulty")
BASELINE_AGENTS = [name for name in AGENTS if name != "oracle"]
MAX_EPISODES_PER_TASK = 20
MAX_EPISODES = 200
DEFAULT_TIME_LIMIT_S = 120.0


@dataclass(frozen=True, slots=True)
class BaselineRequest:
    agent: str = "heuristic"
    tasks: tuple[str, ...] = ()
    episodes: int = 1
    seed: int = 0
    split: str = "train"
    difficulty: str = "medium"


def _names_a_url(value: Any) -> bool:
    if isinstance(value, str):
        lowered = value.strip().lower()
        return "://" in lowered or lowered.startswith(("www.", "//"))
    if isinstance(value, list | tuple):
        return any(_names_a_url(v) for v in value)
    if isinstance(value, dict):
        return any(_names_a_url(v) for v in value.values())
    return False


def _integer(field: str, value: Any, low: int, high: int | None) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < low
        or (high is not None and value > high)
    ):
        span = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise SessionError(422, field, f"must be a whole number {span}")
    return value


def _choice(field: str, value: Any, allowed: list[str]) -> str:
    if value not in allowed:
        raise SessionError(422, field, f"must be one of {', '.join(allowed)}")
    return value


class Baseline:
    """Parses, bounds and runs baseline requests with the server's own environments."""

    def __init__(
        self,
        env_factory: Callable[[], InboxTriageEnv],
        allow_llm: bool = False,
        time_limit_s: float = DEFAULT_TIME_LIMIT_S,
    ) -> None:
        self.env_factory = env_factory
        self.allow_llm = allow_llm
        self.time_limit_s = time_limit_s
        self.lock = threading.Lock()

    def parse(self, body: Mapping[str, Any], query: Mapping[str, str]) -> BaselineRequest:
        """The request from the JSON body and the query string (the seed's ``?model=``
        style); 422 names the first field it cannot use, 403 an agent the operator did not
        allow."""
        given: dict[str, Any] = {**query, **body}
        for field in sorted(given):
            if _names_a_url(given[field]):
                raise SessionError(
                    422,
                    public_message(field, limit=64),
                    "names a URL: the model endpoint and key come from the server's environment",
                )
        unknown = sorted(set(given) - set(FIELDS))
        if unknown:
            raise SessionError(422, public_message(unknown[0], limit=64), "is not a baseline field")
        agent = _choice("agent", given.get("agent", "heuristic"), BASELINE_AGENTS)
        if agent == "llm" and not self.allow_llm:
            raise SessionError(
                403,
                "agent",
                "the llm agent spends the operator's API credit: the server must be started "
                "with --allow-llm-baseline",
            )
        tasks = self._tasks(given.get("tasks"))
        episodes = _integer("episodes", given.get("episodes", 1), 1, MAX_EPISODES_PER_TASK)
        if episodes * len(tasks) > MAX_EPISODES:
            raise SessionError(
                422, "episodes", f"tasks x episodes must be at most {MAX_EPISODES} per baseline"
            )
        return BaselineRequest(
            agent=agent,
            tasks=tasks,
            episodes=episodes,
            seed=_integer("seed", given.get("seed", 0), 0, None),
            split=_choice("split", given.get("split", "train"), list(SPLITS)),
            difficulty=_choice("difficulty", given.get("difficulty", "medium"), list(PRESETS)),
        )

    def _tasks(self, value: Any) -> tuple[str, ...]:
        """Fixed task ids or bare names, modes (their fixed tasks), ``MODE/generated`` and
        the server's packs; by default every fixed task."""
        if value is None:
            return tuple(fixed_task_ids())
        if isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise SessionError(422, "tasks", "must be a non-empty list of task ids")
        out: list[str] = []
        for task in value:
            if task in MODES:
                out.extend(fixed_task_ids(task))
                continue
            try:
                out.append(task if PACK_PREFIX in task else resolve_task_id(task))
            except ScenarioError as exc:
                raise SessionError(422, "tasks", str(exc)) from None
        return tuple(dict.fromkeys(out))

    def run(self, request: BaselineRequest, agent_factory: Callable[[str], Agent]) -> dict:
        """Plays the planned episodes, as ``inbox-triage eval`` would, until the time limit."""
        config = RunConfig(
            agents=[request.agent],
            tasks=list(request.tasks),
            episodes=request.episodes,
            seed=request.seed,
            split=request.split,
            difficulty=request.difficulty,
            keep_trajectory=False,
        )
        planned = config.plan()
        for spec in {s.task: s for s in reversed(planned)}.values():
            try:  # a task the server does not play fails here, before any episode
                self.env_factory().reset(**spec.reset_args())
            except ScenarioError as exc:
                raise SessionError(422, "tasks", str(exc)) from None
        started = time.perf_counter()
        stop = threading.Event()
        timer = threading.Timer(self.time_limit_s, stop.set)
        timer.start()
        records = []
        try:
            for spec in planned:
                try:
                    records.append(
                        play(
                            spec,
                            agent_factory(spec.agent),
                            stop=stop,
                            keep_trajectory=False,
                            env_factory=self.env_factory,
                        )
                    )
                except RunInterrupted:
                    break
        finally:
            timer.cancel()
        summaries = [s.as_dict() for s in summaries_from_records(records)]
        complete = len(records) == len(planned)
        answer: dict[str, Any] = {
            "agent": request.agent,
            "results": summaries,
            "mean_grade": round(statistics.fmean(s["mean_grade"] for s in summaries), 6)
            if summaries
            else None,
            "episodes": len(records),
            "episodes_planned": len(planned),
            "complete": complete,
            "seconds": round(time.perf_counter() - started, 3),
        }
        if not complete:
            answer["message"] = (
                f"stopped at the server's time limit of {self.time_limit_s:g} s; "
                "ask for fewer tasks or episodes"
            )
        return answer


def agent_factory_for(request: BaselineRequest) -> Callable[[str], Agent]:
    """Agents for a run; the llm agent from the server's environment only."""
    if request.agent != "llm":
        return make_agent
    from inbox_triage.agents.llm import LLMAgent, LLMConfig, check_endpoint

    try:
        config = LLMConfig.from_env()
        check_endpoint(config)
    except (ValueError, ConnectionError):
        raise SessionError(
            503, "agent", "the server's model endpoint is not configured or did not answer"
        ) from None
    return lambda _name: LLMAgent(config)
