"""``--backend ray``: the same episodes as Ray tasks, on a local Ray instance or a cluster.

Tasks rather than an actor pool: an episode needs nothing that outlives it (each task builds
its environments and agents in-process, as a local worker does), and Ray reruns a task whose
worker died (``max_retries``) on another worker. A chunk's records come back together when it
ends, so a worker that dies loses only its unfinished chunk, which runs again; the runner
writes each episode once, by key. ``ray`` is an optional extra (``pip install -e ".[ray]"``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from inbox_triage.agents import Agent
from inbox_triage.evaluation.backends import chunk_size, chunks, play_chunk

if TYPE_CHECKING:
    from inbox_triage.evaluation.plan import EpisodeSpec
    from inbox_triage.evaluation.records import EpisodeRecord

# A task is rerun this many times when its worker dies (a crash, a kill, a lost node).
TASK_RETRIES = 5


def ray_module() -> Any:
    try:
        import ray
    except ImportError:
        raise RuntimeError(
            'the ray backend needs Ray: pip install -e ".[ray]" (or openenv-inbox-triage[ray])'
        ) from None
    return ray


def connect(address: str | None, workers: int) -> dict[str, Any]:
    """Joins the cluster at ``address`` (or ``$RAY_ADDRESS``), else starts a local instance
    with ``workers`` CPUs; returns the cluster's size for the run's metadata."""
    ray = ray_module()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no calls home from a run
    if not ray.is_initialized():
        if address or os.environ.get("RAY_ADDRESS"):
            ray.init(address=address, log_to_driver=False)
        else:  # "local": a new instance, even where `ray start` left a cluster running
            ray.init(
                address="local", num_cpus=workers, include_dashboard=False, log_to_driver=False
            )
    resources = ray.cluster_resources()
    return {"cpus": int(resources.get("CPU", 0)), "nodes": len(ray.nodes())}


def play_on_ray(
    specs: list[EpisodeSpec],
    workers: int,
    keep_trajectory: bool,
    agents: Callable[[str], Agent],
    env_url: str | None = None,
) -> Iterator[list[EpisodeRecord]]:
    """Yields each task's records as it finishes. An error in an episode stops new work,
    yields what the tasks still running finish, then raises; closing the generator cancels
    the rest. With ``env_url``, each worker plays against that server."""
    ray = ray_module()
    remote = ray.remote(num_cpus=1, max_retries=TASK_RETRIES, retry_exceptions=False)(play_chunk)
    cpus = max(1, int(ray.cluster_resources().get("CPU", workers)))
    size = chunk_size(len(specs), cpus)
    agents_ref = ray.put(agents)
    queue = chunks(specs, size)
    pending: list[Any] = []

    failure: BaseException | None = None

    def submit() -> bool:
        batch = next(queue, None) if failure is None else None
        if batch is None:
            return False
        pending.append(remote.remote(batch, keep_trajectory, agents_ref, env_url))
        return True

    try:
        while len(pending) < cpus * 2 and submit():
            pass
        while pending:
            ready, _ = ray.wait(pending, num_returns=1, timeout=0.5)
            for ref in ready:
                pending.remove(ref)
                try:
                    records = ray.get(ref)
                except Exception as exc:  # an error in an episode stops the run, loudly
                    failure = failure or exc
                    continue
                yield records
                submit()
        if failure is not None:
            raise failure
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
