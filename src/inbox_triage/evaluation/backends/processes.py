"""``--workers N``: episodes spread over N local processes.

The processes come from a fork server (``forkserver``): a clean process, started on the
first run, with the package already imported, from which each worker forks in milliseconds
without copying the runner's threads or their locks (a progress bar's, say). Workers ignore
Ctrl-C: the runner alone decides what an interruption keeps. As with any multiprocessing,
a script that runs with worker processes needs an ``if __name__ == "__main__":`` guard.
"""

from __future__ import annotations

import multiprocessing
import pickle
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import TYPE_CHECKING

from inbox_triage.agents import Agent
from inbox_triage.evaluation.backends import chunk_size, chunks, play_chunk

if TYPE_CHECKING:
    from inbox_triage.evaluation.plan import EpisodeSpec
    from inbox_triage.evaluation.records import EpisodeRecord


def _ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def play_in_processes(
    specs: list[EpisodeSpec],
    workers: int,
    keep_trajectory: bool,
    agents: Callable[[str], Agent],
    env_url: str | None = None,
) -> Iterator[list[EpisodeRecord]]:
    """Yields each chunk's records as it finishes. An error in an episode stops new work,
    yields what the chunks still running finish, then raises (finished episodes are kept).
    Closing the generator (a stop) cancels what has not started and ends the workers."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["inbox_triage.evaluation.backends"])
    check_picklable(agents)
    size = chunk_size(len(specs), workers)
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_ignore_interrupts)
    queue = chunks(specs, size)
    pending: set[Future[list[EpisodeRecord]]] = set()
    failure: BaseException | None = None

    def submit() -> None:
        batch = next(queue, None) if failure is None else None
        if batch is not None:
            pending.add(pool.submit(play_chunk, batch, keep_trajectory, agents, env_url))

    try:
        for _ in range(workers * 2):
            submit()
        while pending:
            complete, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in complete:
                try:
                    records = future.result()
                except BaseException as exc:  # an error in an episode stops the run, loudly
                    failure = failure or exc
                    continue
                yield records
                submit()
        if failure is not None:
            raise failure
    finally:
        if pending:  # a stop: what runs now is dropped (and played again by --resume)
            for future in pending:
                future.cancel()
            for process in list(getattr(pool, "_processes", {}).values()):
                process.terminate()
        pool.shutdown(wait=True, cancel_futures=True)


def check_picklable(agents: Callable[[str], Agent]) -> None:
    """Worker processes get the agent factory by pickle: say so plainly if it cannot go."""
    try:
        pickle.dumps(agents)
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        raise ValueError(
            "worker processes need an agent factory that pickles (a module-level function "
            "or AgentMaker), not a closure or a lambda; or use the threads backend"
        ) from exc
