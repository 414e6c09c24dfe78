"""``--workers N``: episodes spread over N local processes.

The processes come from a fork server (``forkserver``), started clean before any thread of
the runner's (a progress bar, say), with the package already imported, so that each worker
starts in milliseconds and a fork never copies a held lock. Workers ignore Ctrl-C: the runner
alone decides what an interruption keeps.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import TYPE_CHECKING

from inbox_triage.agents import Agent
from inbox_triage.evaluation.backends import chunk_size, chunks, play_chunk

if TYPE_CHECKING:
    from inbox_triage.evaluation.records import EpisodeRecord
    from inbox_triage.evaluation.runs import EpisodeSpec


def _ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def play_in_processes(
    specs: list[EpisodeSpec],
    workers: int,
    keep_trajectory: bool,
    agents: Callable[[str], Agent],
    env_url: str | None = None,
) -> Iterator[list[EpisodeRecord]]:
    """Yields each chunk's records as it finishes. Closing the generator (a stop) cancels
    what has not started and waits for the chunks running, which take a fraction of a second."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["inbox_triage.evaluation.backends"])
    size = chunk_size(len(specs), workers)
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_ignore_interrupts)
    queue = chunks(specs, size)
    pending: set[Future[list[EpisodeRecord]]] = set()
    try:
        for batch in queue:
            pending.add(pool.submit(play_chunk, batch, keep_trajectory, agents, env_url))
            if len(pending) >= workers * 2:
                break
        while pending:
            complete, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in complete:
                yield future.result()  # an error in an episode stops the run, loudly
                batch = next(queue, None)
                if batch is not None:
                    pending.add(pool.submit(play_chunk, batch, keep_trajectory, agents, env_url))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
