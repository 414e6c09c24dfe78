"""The evaluation runner: plans episodes, plays them in parallel (in-process or against a server),
appends one record per finished episode and resumes where an interrupted run stopped.

Every episode is fully determined by its spec (agent, task, split, difficulty, seed, trial), so
the order in which parallel episodes finish does not change any record, and a resumed run ends
with the same records as an uninterrupted one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from inbox_triage.agents import make_agent
from inbox_triage.env import InboxTriageEnv
from inbox_triage.evaluation.episode import RemoteSession, StepHook, play
from inbox_triage.evaluation.plan import (
    AgentFactory,
    EpisodeSpec,
    RunConfig,
    RunInterrupted,
    RunMismatch,
)
from inbox_triage.evaluation.provenance import end_meta, start_meta
from inbox_triage.evaluation.records import (
    EPISODES_FILE,
    EpisodeRecord,
    RecordWriter,
    RunMeta,
    put_in_plan_order,
    read_records,
    repair_tail,
    write_meta,
)
from inbox_triage.scenarios import ScenarioError
from inbox_triage.scenarios.sources import PACK_PREFIX

__all__ = [
    "AgentFactory",
    "EpisodeSpec",
    "RunConfig",
    "RunInterrupted",
    "RunMismatch",
    "RunResult",
    "check_server",
    "play",
    "run",
]


def check_server(url: str, timeout_s: float = 10.0) -> bool:
    """Fails fast when ``--env-url`` is not a running inbox-triage server; whether it is
    sealed (it draws every episode itself, so the run sends no seeds)."""
    import httpx

    try:
        response = httpx.get(f"{url.rstrip('/')}/health", timeout=timeout_s)
    except httpx.HTTPError as exc:
        raise ConnectionError(f"cannot reach the environment server {url} ({exc})") from None
    if response.status_code != 200:
        raise ConnectionError(
            f"{url} answered {response.status_code} on /health: is it an inbox-triage server?"
        )
    try:
        sealed = httpx.get(f"{url.rstrip('/')}/healthz", timeout=timeout_s).json().get("sealed")
    except (httpx.HTTPError, ValueError, AttributeError):
        sealed = None
    return bool(sealed)


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
    meta = start_meta(config, out, resume, command)
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
            end_meta(out, meta, done, planned, started, interrupted=True)
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
        end_meta(out, meta, done, planned, started, interrupted=True)
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
    meta = end_meta(out, meta, done, planned, started, interrupted)
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
    remote = RemoteSession(spec, env_url)
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
