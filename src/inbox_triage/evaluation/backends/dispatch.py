"""The runner's half of the process and Ray backends: play the episodes left, write each
record once as it arrives (the runner puts the file in plan order at the end), and note
where the run played."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from inbox_triage.evaluation.backends.processes import play_in_processes
from inbox_triage.evaluation.backends.ray_cluster import connect, play_on_ray
from inbox_triage.evaluation.records import EpisodeRecord, RecordWriter, RunMeta

if TYPE_CHECKING:
    from inbox_triage.evaluation.plan import AgentFactory, EpisodeSpec, RunConfig


def play_elsewhere(
    config: RunConfig,
    todo: list[EpisodeSpec],
    agent_factory: AgentFactory,
    writer: RecordWriter,
    done: dict[str, EpisodeRecord],
    meta: RunMeta,
    on_record: Callable[[EpisodeRecord], None],
) -> bool:
    """Plays ``todo`` on worker processes or Ray and writes each record once, as it arrives.
    Returns whether the run was interrupted."""

    def keep(records: list[EpisodeRecord]) -> None:
        for record in records:
            if record.key in done:  # a rerun task's twin: each episode is written once
                continue
            writer.write(record)
            done[record.key] = record
            on_record(record)

    if config.backend == "ray":
        meta.config["cluster"] = connect(config.address, config.workers)
        batches = play_on_ray(
            todo, config.workers, config.keep_trajectory, agent_factory, config.env_url
        )
    else:
        batches = play_in_processes(
            todo, config.workers, config.keep_trajectory, agent_factory, config.env_url
        )
    try:
        for batch in batches:
            keep(batch)
    except KeyboardInterrupt:
        batches.close()
        return True
    finally:
        batches.close()
    return False
