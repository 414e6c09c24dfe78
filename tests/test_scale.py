"""The runner on more cores and machines: worker processes and Ray give the records one process
gives, a killed Ray worker loses nothing and duplicates nothing, and rollouts replay."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from inbox_triage.agents import make_agent
from inbox_triage.cli import app
from inbox_triage.env import InboxTriageEnv
from inbox_triage.evaluation.backends import BackendChoiceError, choose_backend
from inbox_triage.evaluation.records import (
    EPISODES_FILE,
    put_in_plan_order,
    read_meta,
    read_records,
)
from inbox_triage.evaluation.rollout import Trajectory, rollout
from inbox_triage.evaluation.runs import RunConfig, run

cli = CliRunner()
GENERATED = ["triage/generated", "ticket/generated", "inbox/generated"]


def without_durations(folder: Path) -> list[str]:
    lines = []
    for line in (folder / EPISODES_FILE).read_text().splitlines():
        record = json.loads(line)
        record.pop("duration_s")
        lines.append(json.dumps(record))
    return lines


# ------------------------------------------------------------------ choosing a backend


def test_the_default_backend_follows_the_agents_and_the_run_size():
    assert choose_backend(None, None, None, None, ["heuristic"], None, 10) == ("threads", 1)
    cores = os.cpu_count() or 1
    many = choose_backend(None, None, None, None, ["heuristic", "random"], None, 10_000)
    assert many == (("processes", cores) if cores > 1 else ("threads", 1))
    assert choose_backend(None, None, None, None, ["llm"], None, 10_000) == ("threads", 1)
    url = "http://localhost:8000"
    assert choose_backend(None, None, None, None, ["heuristic"], url, 10_000) == ("threads", 1)
    assert choose_backend(None, None, None, 4, ["heuristic"], None, 10_000) == ("threads", 1)
    assert choose_backend(None, 3, None, None, ["heuristic"], None, 5) == ("processes", 3)
    if importlib.util.find_spec("ray") is not None:
        assert choose_backend("ray", 2, "ray://h:10001", None, ["llm"], None, 5) == ("ray", 2)
    else:
        with pytest.raises(BackendChoiceError, match="pip install"):
            choose_backend("ray", 2, None, None, ["heuristic"], None, 5)
    assert choose_backend(None, 1, None, None, ["llm"], None, 5) == ("threads", 1)
    assert choose_backend("processes", None, None, None, ["heuristic"], None, 5)[0] == "processes"


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("processes", 2, None, None, ["llm"], None, 5), "--workers"),
        ((None, 2, None, None, ["heuristic"], "http://x:1", 5), "--env-url"),
        (("threads", 2, None, None, ["heuristic"], None, 5), "--workers"),
        (("ray", 2, None, 4, ["heuristic"], None, 5), "--concurrency"),
        ((None, 2, None, 4, ["heuristic"], None, 5), "--concurrency"),
        ((None, None, "ray://head:10001", None, ["heuristic"], None, 5), "--address"),
        (("dask", None, None, None, ["heuristic"], None, 5), "--backend"),
    ],
)
def test_flags_that_do_not_fit_together_name_the_option(args, option):
    with pytest.raises(BackendChoiceError) as caught:
        choose_backend(*args)
    assert caught.value.option == option


def test_a_complete_run_is_put_in_plan_order_whatever_order_episodes_finished(tmp_path):
    config = RunConfig(agents=["heuristic"], tasks=["triage/easy"], episodes=4)
    run(config, tmp_path / "run")
    file = tmp_path / "run" / EPISODES_FILE
    lines = file.read_text().splitlines()
    file.write_text("\n".join([lines[2], lines[0], lines[3], lines[1]]) + "\n")
    put_in_plan_order(tmp_path / "run", [s.key for s in config.plan()])
    assert file.read_text().splitlines() == lines


class FailAt:
    """An agent factory whose agents fail on one scenario (it pickles: module level)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def __call__(self, name):
        agent = make_agent("heuristic")
        failing_seed = self.seed

        class Failing:
            name = "heuristic"

            def reset(self, observation, *, scenario, seed):
                if seed == failing_seed:
                    raise RuntimeError("the agent broke")
                agent.reset(observation, scenario=scenario, seed=seed)

            def act(self, observation):
                return agent.act(observation)

        return Failing()


# ------------------------------------------------------------------ worker processes


def test_two_workers_write_the_same_file_as_one(tmp_path):
    args = ["-a", "heuristic,random", "-t", ",".join(GENERATED), "--episodes", "20"]
    tables = []
    for workers in ("1", "2"):
        result = cli.invoke(
            app,
            ["eval", *args, "--workers", workers, "--out", str(tmp_path / workers)],
            env={"COLUMNS": "200"},
        )
        assert result.exit_code == 0, result.output
        tables.append(result.output[: result.output.index("wrote")])
    assert without_durations(tmp_path / "1") == without_durations(tmp_path / "2")
    assert tables[0] == tables[1]
    meta = read_meta(tmp_path / "2")
    assert meta.config["backend"] == "processes" and meta.config["workers"] == 2
    assert meta.complete and meta.episodes_done == 120


def test_workers_match_the_thread_runner_record_for_record(tmp_path):
    config = {
        "agents": ["heuristic", "oracle"],
        "tasks": ["inbox/generated", "ticket/easy_password_reset"],
        "episodes": 6,
    }
    run(RunConfig(**config), tmp_path / "threads")
    run(RunConfig(**config, backend="processes", workers=2), tmp_path / "processes")
    assert without_durations(tmp_path / "threads") == without_durations(tmp_path / "processes")


def test_ctrl_c_with_workers_keeps_finished_episodes_and_resume_completes(tmp_path):
    args = [
        "-a",
        "heuristic",
        "-t",
        "inbox/generated",
        "--difficulty",
        "hard",
        "--episodes",
        "400",
        "--workers",
        "2",
    ]
    cut = tmp_path / "cut"
    process = subprocess.Popen(
        [sys.executable, "-m", "inbox_triage.cli", "eval", *args, "--out", str(cut)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=tmp_path,
        env={**os.environ, "COLUMNS": "200"},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.default_int_handler),
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        file = cut / EPISODES_FILE
        if file.exists() and file.read_text().count("\n") >= 20:
            break
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    output = process.communicate(timeout=60)[0].decode()
    assert process.returncode == 130, output
    kept = read_records(cut)
    assert 20 <= len(kept) < 400 and len({r.key for r in kept}) == len(kept)
    assert (cut / EPISODES_FILE).read_text().endswith("\n")
    result = cli.invoke(app, ["eval", *args, "--out", str(cut), "--resume"])
    assert result.exit_code == 0, result.output
    whole = tmp_path / "whole"
    cli.invoke(app, ["eval", *args[:-2], "--workers", "1", "--out", str(whole)])
    assert without_durations(cut) == without_durations(whole)  # the same file, in plan order


@pytest.mark.parametrize("backend", ["processes", "ray"])
def test_an_episode_that_fails_stops_the_run_and_keeps_every_finished_one(
    backend, tmp_path, request
):
    if backend == "ray":
        ray = request.getfixturevalue("local_ray")
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # Ray's workers lack it
    config = RunConfig(
        agents=["heuristic"], tasks=["triage/generated"], episodes=60, backend=backend, workers=2
    )
    with pytest.raises(RuntimeError, match="the agent broke"):
        run(config, tmp_path / "run", agent_factory=FailAt(30))
    seeds = [r.seed for r in read_records(tmp_path / "run")]
    assert len(seeds) == len(set(seeds)) and 30 not in seeds
    # Every episode submitted before the failing one finished and is kept, including those
    # that were still running when it failed.
    assert set(range(30)) <= set(seeds)
    meta = read_meta(tmp_path / "run")
    assert meta.interrupted and meta.episodes_done == len(seeds)


def test_an_agent_factory_that_cannot_travel_to_workers_is_a_clear_error(tmp_path):
    config = RunConfig(
        agents=["heuristic"], tasks=["triage/easy"], episodes=2, backend="processes", workers=2
    )
    with pytest.raises(ValueError, match="pickles"):
        run(config, tmp_path / "run", agent_factory=lambda name: make_agent(name))


def test_workers_are_refused_for_an_agent_that_waits_on_the_network(tmp_path):
    result = cli.invoke(
        app,
        [
            "eval",
            "-a",
            "heuristic",
            "--workers",
            "2",
            "--env-url",
            "http://127.0.0.1:9",
            "--out",
            str(tmp_path / "x"),
        ],
    )
    assert result.exit_code == 2


# ------------------------------------------------------------------ rollouts


def test_rollout_trajectories_replay_to_the_same_rewards_in_a_fresh_environment():
    heuristic = make_agent("heuristic")
    started = {"n": 0}

    def policy(observation):
        return heuristic.act(observation)

    def reset(observation):
        started["n"] += 1
        heuristic.reset(observation, scenario=None, seed=0)

    policy.reset = reset
    rows = [
        {"task": "triage/generated", "split": "train", "difficulty": "easy", "seed": 3},
        {"task": "inbox/generated", "split": "test", "seed": 5, "size": 4},
        {"task": "ticket/easy_password_reset"},
    ]
    trajectories = rollout(rows, policy)
    assert started["n"] == 3 and [t.row for t in trajectories] == rows
    for t in trajectories:
        assert len(t.observations) == len(t.actions) + 1 == len(t.rewards) + 1
        assert t.observations[0]["policy"] and t.observations[-1]["done"]
        assert t.observations[1]["vocabulary"] is not None  # lean steps made whole
        env = InboxTriageEnv()
        env.reset(**t.row)
        replayed = [float(env.step(a).reward or 0.0) for a in t.actions]
        assert replayed == t.rewards
        assert env.grade().value == t.grade and t.grade > 0
        assert set(t.components) == {c.name for c in env.grade().components}
        assert sum(t.rewards) == pytest.approx(t.grade - t.penalties, abs=1e-6)


def test_rollout_refuses_what_is_not_a_policy():
    with pytest.raises(TypeError, match="policy"):
        rollout([{"task": "triage/easy"}], policy="gpt")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="local, ray"):
        rollout([{"task": "triage/easy"}], policy=lambda o: {}, backend="spark")


# ------------------------------------------------------------------ Ray

ray_missing = importlib.util.find_spec("ray") is None


@pytest.fixture(scope="module")
def local_ray():
    if ray_missing:
        if os.environ.get("CI") == "true":
            pytest.fail('the Ray tests need ray: pip install -e ".[ray]"', pytrace=False)
        pytest.skip('the Ray tests need ray: pip install -e ".[ray]"')
    import ray

    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_a_ray_run_writes_the_records_the_local_runner_writes(local_ray, tmp_path):
    config = {"agents": ["heuristic", "random"], "tasks": GENERATED, "episodes": 8}
    run(RunConfig(**config), tmp_path / "local")
    run(RunConfig(**config, backend="ray", workers=2), tmp_path / "ray")
    assert without_durations(tmp_path / "local") == without_durations(tmp_path / "ray")
    meta = read_meta(tmp_path / "ray")
    assert meta.config["backend"] == "ray" and meta.config["cluster"] == {"cpus": 2, "nodes": 1}


def _ray_task_pids() -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                title = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if title.startswith(b"ray::play_chunk"):
                pids.append(int(entry.name))
    return pids


def test_a_ray_worker_killed_mid_run_loses_and_duplicates_nothing(local_ray, tmp_path):
    config = RunConfig(
        agents=["heuristic"],
        tasks=["inbox/generated"],
        episodes=240,
        difficulty="hard",
        backend="ray",
        workers=2,
    )
    out = tmp_path / "killed"
    finished: dict[str, object] = {}
    runner = threading.Thread(target=lambda: finished.update(result=run(config, out)))
    runner.start()
    killed = None
    deadline = time.monotonic() + 60
    while killed is None and time.monotonic() < deadline and runner.is_alive():
        file = out / EPISODES_FILE
        if file.exists() and file.read_text().count("\n") >= 10:
            for pid in _ray_task_pids():
                os.kill(pid, signal.SIGKILL)
                killed = pid
                break
        time.sleep(0.005)
    runner.join(timeout=120)
    assert killed is not None, "no Ray worker was caught running a task"
    records = read_records(out)
    keys = [r.key for r in records]
    assert len(keys) == len(set(keys)) == 240
    assert keys == [s.key for s in config.plan()]  # in plan order, each once
    run(
        RunConfig(agents=["heuristic"], tasks=["inbox/generated"], episodes=240, difficulty="hard"),
        tmp_path / "local",
    )
    assert without_durations(out) == without_durations(tmp_path / "local")
    assert read_meta(out).complete


def test_rollout_on_ray_matches_the_local_rollout(local_ray):
    heuristic_rows = [{"task": "triage/generated", "seed": s} for s in range(6)]

    def policy(observation):
        agent = make_agent("heuristic")
        agent.reset(observation, scenario=None, seed=0)
        return agent.act(observation)

    here = rollout(heuristic_rows, policy)
    there = rollout(heuristic_rows, policy, backend="ray", rows_per_task=2)
    assert [t.as_dict() for t in there] == [t.as_dict() for t in here]
    assert all(isinstance(t, Trajectory) and t.actions for t in there)
