"""The evaluation runner: plans episodes, plays them in parallel (in-process or against a server),
appends one record per finished episode and resumes where an interrupted run stopped.

Every episode is fully determined by its spec (agent, task, split, difficulty, seed, trial), so
the order in which parallel episodes finish does not change any record, and a resumed run ends
with the same records as an uninterrupted one.
"""

from __future__ import annotations

import importlib.metadata
import platform
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from inbox_triage.agents import Agent, make_agent
from inbox_triage.env import InboxTriageEnv
from inbox_triage.evaluation.records import (
    EPISODES_FILE,
    EpisodeRecord,
    RecordWriter,
    RunMeta,
    Step,
    episode_key,
    put_in_plan_order,
    read_meta,
    read_records,
    repair_tail,
    write_meta,
)
from inbox_triage.grading import GRADER_VERSION
from inbox_triage.observations import ObservationMemory
from inbox_triage.scenarios import ScenarioError
from inbox_triage.scenarios.sources import PACK_PREFIX, is_generated

AgentFactory = Callable[[str], Agent]


class RunInterrupted(Exception):
    """Raised inside an episode when the run is stopping; the episode is not recorded."""


class RunMismatch(ValueError):
    """``--resume`` was asked for a folder made with a different configuration."""


@dataclass(frozen=True, slots=True)
class EpisodeSpec:
    agent: str
    task: str
    split: str | None
    difficulty: str | None
    seed: int
    trial: int

    @property
    def key(self) -> str:
        return episode_key(
            self.agent, self.task, self.split, self.difficulty, self.seed, self.trial
        )

    @property
    def agent_seed(self) -> int:
        """Trial 0 plays with the scenario's seed; repeats get their own, so that a sampling
        agent (an LLM at temperature > 0, random) can answer differently."""
        return self.seed if self.trial == 0 else self.seed * 1009 + self.trial

    def reset_args(self) -> dict[str, Any]:
        args: dict[str, Any] = {"task": self.task, "seed": self.seed}
        if self.split is not None:
            args.update(split=self.split, difficulty=self.difficulty)
        return args


@dataclass(slots=True)
class RunConfig:
    """What to run. Episode i of a task uses seed ``seed + i``; ``trials`` repeats each.
    ``backend`` says where episodes play (``evaluation/backends``); it never changes a record."""

    agents: list[str]
    tasks: list[str]
    episodes: int = 5
    trials: int = 1
    seed: int = 0
    split: str = "train"
    difficulty: str = "medium"
    env_url: str | None = None
    concurrency: int = 1
    keep_trajectory: bool = True
    agent_settings: dict[str, Any] = field(default_factory=dict)
    backend: str = "threads"  # or "processes" (workers local processes) or "ray"
    workers: int = 1
    address: str | None = None  # the Ray cluster's, for backend "ray"

    def plan(self) -> list[EpisodeSpec]:
        """Every episode once (an agent or task named twice is played once)."""
        specs = []
        for task in dict.fromkeys(self.tasks):
            generated = is_generated(task)
            for agent in dict.fromkeys(self.agents):
                for i in range(self.episodes):
                    for trial in range(self.trials):
                        specs.append(
                            EpisodeSpec(
                                agent=agent,
                                task=task,
                                split=self.split if generated else None,
                                difficulty=self.difficulty if generated else None,
                                seed=self.seed + i,
                                trial=trial,
                            )
                        )
        return specs

    def identity(self) -> dict[str, Any]:
        """What must match for ``--resume`` to continue a run (concurrency, backend and
        workers may change)."""
        return {
            "agents": self.agents,
            "tasks": self.tasks,
            "episodes": self.episodes,
            "trials": self.trials,
            "seed": self.seed,
            "split": self.split,
            "difficulty": self.difficulty,
            "agent_settings": self.agent_settings,
        }


def check_server(url: str, timeout_s: float = 10.0) -> None:
    """Fails fast when ``--env-url`` is not a running inbox-triage server."""
    import httpx

    try:
        response = httpx.get(f"{url.rstrip('/')}/health", timeout=timeout_s)
    except httpx.HTTPError as exc:
        raise ConnectionError(f"cannot reach the environment server {url} ({exc})") from None
    if response.status_code != 200:
        raise ConnectionError(
            f"{url} answered {response.status_code} on /health: is it an inbox-triage server?"
        )


# ------------------------------------------------------------------------------ one episode
StepHook = Callable[[EpisodeSpec, int, dict[str, Any], dict[str, Any]], None]


def play(
    spec: EpisodeSpec,
    agent: Agent,
    env_url: str | None = None,
    stop: threading.Event | None = None,
    keep_trajectory: bool = True,
    on_step: StepHook | None = None,
    env_factory: Callable[[], InboxTriageEnv] = InboxTriageEnv,
) -> EpisodeRecord:
    """Plays one episode in-process (in an environment ``env_factory`` makes: a server's own,
    for ``/baseline``), or over WebSocket when ``env_url`` is given."""
    started = time.perf_counter()
    with _session(spec, env_url, env_factory) as session:
        observation, truth = session.reset(needs_truth=getattr(agent, "needs_truth", False))
        agent.reset(observation, scenario=truth, seed=spec.agent_seed)
        steps: list[Step] = []
        while not observation.get("done"):
            if stop is not None and stop.is_set():
                raise RunInterrupted
            action = agent.act(observation)
            observation = session.step(action)
            if on_step is not None:
                on_step(spec, len(steps) + 1, action, observation)
            steps.append(
                Step(
                    action=action,
                    reward=round(float(observation.get("reward") or 0.0), 6),
                    error=observation.get("last_action_error"),
                )
            )
        grade, state = session.finish(observation)
    usage = getattr(agent, "usage", None)
    tokens = usage.tokens() if usage is not None else None
    stats = usage.stats() if usage is not None else None
    return EpisodeRecord(
        key=spec.key,
        agent=spec.agent,
        task=spec.task,
        mode=state["mode"],
        split=spec.split,
        difficulty=spec.difficulty,
        seed=spec.seed,
        trial=spec.trial,
        grade=round(grade["value"], 6),
        components={n: round(c["score"], 6) for n, c in grade["components"].items()},
        texts=grade.get("texts") or {},
        total_reward=round(state["total_reward"], 6),
        penalties=round(state["penalties"], 6),
        steps=state["step_count"],
        invalid_actions=state["invalid_actions"],
        sla_breaches=state["sla_breaches"],
        tokens=tokens,
        agent_stats=stats,
        duration_s=round(time.perf_counter() - started, 4),
        trajectory=steps if keep_trajectory else [],
    )


class _LocalSession:
    def __init__(self, spec: EpisodeSpec, env_factory: Callable[[], InboxTriageEnv]) -> None:
        self.spec = spec
        self.env = env_factory()
        self.memory = ObservationMemory()

    def reset(self, needs_truth: bool) -> tuple[dict[str, Any], Any]:
        observation = self.memory.update(self.env.reset(**self.spec.reset_args()).model_dump())
        return observation, self.env.scenario if needs_truth else None

    def step(self, action: dict[str, Any]) -> dict[str, Any]:
        return self.memory.update(self.env.step(action).model_dump())

    def finish(self, observation: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        return self.env.grade().as_dict(), self.env.state.model_dump()

    def close(self) -> None:
        self.env.close()


class _RemoteSession:
    """One WebSocket session; the truth, for an oracle, is built locally from the same spec."""

    def __init__(self, spec: EpisodeSpec, url: str) -> None:
        from inbox_triage.client import InboxTriageClient

        self.spec = spec
        self.client = InboxTriageClient(base_url=url).sync()
        self.client.connect()

    def reset(self, needs_truth: bool) -> tuple[dict[str, Any], Any]:
        result = self.client.reset(**self.spec.reset_args())
        if not needs_truth:
            return self._observation(result), None
        local = InboxTriageEnv()  # only an oracle needs it: built here, never sent
        local.reset(**self.spec.reset_args())
        return self._observation(result), local.scenario

    def step(self, action: dict[str, Any]) -> dict[str, Any]:
        return self._observation(self.client.step(action))

    def finish(self, observation: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        grade = (observation.get("metadata") or {}).get("grade")
        if grade is None:
            raise RuntimeError("the server sent no grade with the last observation")
        return grade, self.client.state().model_dump()

    def close(self) -> None:
        self.client.close()

    @staticmethod
    def _observation(result: Any) -> dict[str, Any]:
        observation = result.observation.model_dump()
        observation["reward"], observation["done"] = result.reward, result.done
        return observation


class _session:  # noqa: N801 - used as a context manager, like a function
    def __init__(
        self, spec: EpisodeSpec, env_url: str | None, env_factory: Callable[[], InboxTriageEnv]
    ) -> None:
        self.inner = _RemoteSession(spec, env_url) if env_url else _LocalSession(spec, env_factory)

    def __enter__(self) -> _LocalSession | _RemoteSession:
        return self.inner

    def __exit__(self, *exc: object) -> None:
        self.inner.close()


# --------------------------------------------------------------------------------- the run
@dataclass(slots=True)
class RunResult:
    folder: Path
    records: list[EpisodeRecord]
    meta: RunMeta
    skipped: int
    interrupted: bool

    @property
    def commits(self) -> list[str | None]:
        """The commits its sessions ran on: more than one means a resume after a change."""
        return list(dict.fromkeys(session.get("commit") for session in self.meta.sessions))


Progress = Callable[[EpisodeRecord | None, int, int], None]  # (record, done, planned)


def run(
    config: RunConfig,
    folder: str | Path,
    resume: bool = False,
    agent_factory: AgentFactory = make_agent,
    progress: Progress | None = None,
    command: list[str] | None = None,
    notice: Callable[[str], None] | None = None,
    on_step: StepHook | None = None,
) -> RunResult:
    """Runs every planned episode not yet in ``folder``; Ctrl-C stops cleanly (finished
    episodes are kept, running ones are dropped and rerun by ``resume``)."""
    if on_step is not None and config.backend != "threads":
        raise ValueError("on_step hooks run only on the threads backend")
    out = Path(folder)
    if out.exists() and any(out.iterdir()) and not resume:
        raise FileExistsError(
            f"{out} already holds a run: pass --resume to continue it, or choose another --out"
        )
    planned = config.plan()
    first_of_each_task = {spec.task: spec for spec in reversed(planned)}
    for spec in first_of_each_task.values():  # a bad task fails here, before any file
        _check_task(spec, config.env_url)
    out.mkdir(parents=True, exist_ok=True)
    meta = _start_meta(config, out, resume, command)
    repair_tail(out / EPISODES_FILE)
    done = {r.key: r for r in read_records(out)}
    todo = [spec for spec in planned if spec.key not in done]
    skipped = len(planned) - len(todo)
    meta.episodes_planned = len(planned)
    write_meta(out, meta)
    writer = RecordWriter(out)
    stop = threading.Event()
    lock = threading.Lock()
    started = time.perf_counter()
    finished = len(done)
    if progress:
        progress(None, finished, len(planned))
    interrupted = False
    if config.backend != "threads":

        def counted(record: EpisodeRecord) -> None:
            nonlocal finished
            finished += 1
            if progress:
                progress(record, finished, len(planned))

        from inbox_triage.evaluation.backends.dispatch import play_elsewhere

        try:
            interrupted = play_elsewhere(config, todo, agent_factory, writer, done, meta, counted)
        except BaseException:
            writer.close()
            _end_meta(out, meta, done, planned, started, interrupted=True)
            raise
        if interrupted and notice:
            notice("stopped: finished episodes are kept; --resume plays the rest")
        writer.close()
        return _finish(out, meta, done, planned, started, interrupted, skipped)

    def one(spec: EpisodeSpec) -> EpisodeRecord:
        agent = agent_factory(spec.agent)
        record = play(spec, agent, config.env_url, stop, config.keep_trajectory, on_step)
        with lock:  # a record is on disk and counted, or neither (after Ctrl-C)
            if stop.is_set():
                raise RunInterrupted
            writer.write(record)
            done[record.key] = record
        return record

    pool = ThreadPoolExecutor(max_workers=max(1, config.concurrency))
    pending: set[Future[EpisodeRecord]] = set()
    try:
        queue: Iterator[EpisodeSpec] = iter(todo)
        for spec in _take(queue, max(1, config.concurrency)):
            pending.add(pool.submit(one, spec))
        while pending:
            complete, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for future in complete:
                record = future.result()  # an error in an episode stops the run, loudly
                finished += 1
                if progress:
                    progress(record, finished, len(planned))
                for spec in _take(queue, 1):
                    pending.add(pool.submit(one, spec))
    except KeyboardInterrupt:
        interrupted = True
        running = sum(1 for future in pending if not future.done())
        if notice and running:
            notice(
                f"stopping: {running} running episode(s) end at their next step (an LLM call "
                "in flight is waited for); they are not recorded and --resume reruns them"
            )
    except BaseException:
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        writer.close()
        _end_meta(out, meta, done, planned, started, interrupted=True)
        raise
    finally:
        if interrupted:
            with lock:
                stop.set()
            pool.shutdown(wait=False, cancel_futures=True)
        else:
            pool.shutdown(wait=True)
    writer.close()
    return _finish(out, meta, done, planned, started, interrupted, skipped)


def _finish(
    out: Path,
    meta: RunMeta,
    done: dict[str, EpisodeRecord],
    planned: list[EpisodeSpec],
    started: float,
    interrupted: bool,
    skipped: int,
) -> RunResult:
    """Ends the run's metadata; a complete run's file is put in plan order, so it is the same
    however the episodes were spread, interrupted and resumed."""
    meta = _end_meta(out, meta, done, planned, started, interrupted)
    if meta.complete:
        put_in_plan_order(out, [s.key for s in planned])
    ordered = [done[s.key] for s in planned if s.key in done]
    return RunResult(out, ordered, meta, skipped, meta.interrupted)


def _check_task(spec: EpisodeSpec, env_url: str | None) -> None:
    """Resets the task where its episodes will run: a served pack is a name the server knows,
    not a path here, so it is checked there."""
    if env_url is None or PACK_PREFIX not in spec.task:
        InboxTriageEnv().reset(**spec.reset_args())
        return
    remote = _RemoteSession(spec, env_url)
    try:
        remote.reset(needs_truth=False)
    except RuntimeError as exc:
        raise ScenarioError(f"the server refused {spec.task}: {exc}") from None
    finally:
        remote.close()


def _take(queue: Iterator[EpisodeSpec], n: int) -> list[EpisodeSpec]:
    out = []
    for spec in queue:
        out.append(spec)
        if len(out) == n:
            break
    return out


def _start_meta(config: RunConfig, out: Path, resume: bool, command: list[str] | None) -> RunMeta:
    now = _now()
    identity = config.identity()
    previous = read_meta(out) if resume else None
    if previous is not None:
        before = previous.config.get("identity")
        if before is not None and before != identity:
            changed = sorted(k for k in identity if before.get(k) != identity[k])
            raise RunMismatch(
                f"{out} was run with other settings ({', '.join(changed)} differ); "
                "resume it with the same options or start a new run folder"
            )
    command = command if command is not None else sys.argv
    session = {"started": now, "commit": git_commit(), "versions": versions(), "command": command}
    return RunMeta(
        name=out.name,
        created=previous.created if previous else now,
        updated=now,
        command=command,
        sessions=[*(previous.sessions if previous else []), session],
        config={
            "identity": identity,
            "env_url": config.env_url,
            "concurrency": config.concurrency,
            "keep_trajectory": config.keep_trajectory,
            "backend": config.backend,
            "workers": config.workers,
        },
        versions=session["versions"],
        commit=session["commit"],
        runtime_s=previous.runtime_s if previous else 0.0,
    )


def _end_meta(
    out: Path,
    meta: RunMeta,
    done: dict[str, EpisodeRecord],
    planned: list[EpisodeSpec],
    started: float,
    interrupted: bool,
) -> RunMeta:
    meta.updated = _now()
    meta.episodes_done = sum(1 for s in planned if s.key in done)
    meta.complete = meta.episodes_done == len(planned)
    meta.interrupted = interrupted and not meta.complete
    meta.runtime_s = round(meta.runtime_s + time.perf_counter() - started, 3)
    write_meta(out, meta)
    return meta


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def versions() -> dict[str, str]:
    """What produced a run's numbers: Python, the packages, and the grader's version."""
    out = {"python": platform.python_version(), "grader": str(GRADER_VERSION)}
    for package in ("inbox-triage", "openenv", "openai", "pydantic"):
        try:
            out[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out


def git_commit() -> str | None:
    """The commit of the checkout this package runs from, if it is one (dirty marked)."""
    root = Path(__file__).resolve().parents[3]
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("-dirty" if dirty else "") if commit else None
