"""The evaluation runner as users drive it: parallel episodes, records, Ctrl-C and --resume,
a server instead of in-process, and the report over the run folders."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from live_server import running_server
from typer.testing import CliRunner

from inbox_triage.cli import app
from inbox_triage.evaluation.records import EPISODES_FILE, read_meta, read_records
from inbox_triage.evaluation.runs import RunConfig, RunMismatch, run

cli = CliRunner()


def comparable(records):
    """Records without wall-clock durations, by key: what must not depend on how it ran."""
    return sorted((r.model_dump(exclude={"duration_s"}) for r in records),
                  key=lambda r: r["key"])


def flat(output: str) -> str:
    return " ".join(output.replace("│", " ").split())


def test_an_interrupted_run_resumes_to_the_same_result(tmp_path):
    args = ["-a", "heuristic,random", "-t", "inbox/generated,ticket/generated",
            "--episodes", "60", "--concurrency", "2"]
    whole = tmp_path / "whole"
    result = cli.invoke(app, ["eval", *args, "--out", str(whole)])
    assert result.exit_code == 0, result.output
    planned = 2 * 2 * 60

    cut = tmp_path / "cut"
    process = subprocess.Popen(
        [sys.executable, "-m", "inbox_triage.cli", "eval", *args, "--out", str(cut)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path,
        env={**os.environ, "COLUMNS": "200"},
        # A shell's background job (a CI runner may be one) inherits SIGINT ignored, and Python
        # then never turns it into KeyboardInterrupt: give the child the default, as a terminal.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.default_int_handler),
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # Ctrl-C once some episodes are on disk
        episodes = cut / EPISODES_FILE
        if episodes.exists() and episodes.read_text().count("\n") >= 20:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    output = process.communicate(timeout=60)[0].decode()
    assert process.returncode == 130, output
    assert "--resume" in flat(output)
    assert "PARTIAL" in flat(output)  # the table says it covers only what was done
    meta = read_meta(cut)
    kept = read_records(cut)
    assert meta.interrupted and not meta.complete
    assert meta.episodes_done == len(kept) < planned
    assert (cut / EPISODES_FILE).read_text().endswith("\n")  # whole lines only

    result = cli.invoke(app, ["eval", *args, "--out", str(cut), "--resume"])
    assert result.exit_code == 0, result.output
    assert f"resumed: {len(kept)} finished episode(s)" in flat(result.output)
    meta = read_meta(cut)
    assert meta.complete and not meta.interrupted and meta.episodes_done == planned
    assert comparable(read_records(cut)) == comparable(read_records(whole))


def test_a_torn_last_line_is_dropped_and_that_episode_rerun(tmp_path):
    config = RunConfig(agents=["heuristic"], tasks=["triage/easy"], episodes=3)
    whole = run(config, tmp_path / "whole")
    folder = tmp_path / "torn"
    run(config, folder)
    lines = (folder / EPISODES_FILE).read_text().splitlines(keepends=True)
    (folder / EPISODES_FILE).write_text("".join(lines[:1]) + lines[1][:40])  # torn mid-line
    assert len(read_records(folder)) == 1
    resumed = run(config, folder, resume=True)
    assert resumed.skipped == 1
    assert comparable(resumed.records) == comparable(whole.records)
    assert len((folder / EPISODES_FILE).read_text().splitlines()) == 3


def test_concurrency_does_not_change_any_record(tmp_path):
    config = RunConfig(agents=["random", "heuristic"], tasks=["triage/generated"], episodes=6,
                       trials=2)
    one = run(config, tmp_path / "one")
    config.concurrency = 4
    four = run(config, tmp_path / "four")
    assert comparable(one.records) == comparable(four.records)
    assert [r.key for r in four.records] == [s.key for s in config.plan()]  # planned order
    # Trials replay the scenario with another agent seed: random plays differently.
    random_trials = {(r.seed, r.trial): r.grade for r in one.records if r.agent == "random"}
    assert any(random_trials[(s, 0)] != random_trials[(s, 1)] for s in range(6))


def test_a_run_against_a_server_matches_the_run_in_process(tmp_path):
    config = RunConfig(agents=["heuristic", "oracle"], tasks=["inbox/generated", "triage/easy"],
                       episodes=3, split="test", concurrency=4)
    local = run(config, tmp_path / "local")
    with running_server() as url:
        config.env_url = url
        remote = run(config, tmp_path / "remote")
    assert comparable(remote.records) == comparable(local.records)
    assert all(r.grade == 1.0 for r in remote.records if r.agent == "oracle")
    assert read_meta(tmp_path / "remote").config["env_url"] == url


def test_records_hold_what_the_issue_lists(tmp_path):
    result = run(RunConfig(agents=["heuristic"], tasks=["inbox/generated"], episodes=1,
                           split="validation", difficulty="hard"), tmp_path / "r")
    [record] = result.records
    assert (record.task, record.mode, record.split, record.difficulty) == (
        "inbox/generated", "inbox", "validation", "hard")
    assert record.steps == len(record.trajectory) > 0
    assert {"priority", "routing", "response"} <= set(record.components)
    assert record.tokens is None  # the heuristic uses none
    meta = json.loads((tmp_path / "r" / "meta.json").read_text())
    assert meta["versions"]["openenv"] == "0.10.0" and "python" in meta["versions"]
    assert meta["config"]["identity"]["difficulty"] == "hard"
    assert meta["complete"] and meta["episodes_done"] == meta["episodes_planned"] == 1


def test_resume_refuses_a_folder_run_with_other_settings(tmp_path):
    folder = tmp_path / "r"
    run(RunConfig(agents=["noop"], tasks=["triage/easy"], episodes=1), folder)
    with pytest.raises(RunMismatch, match="episodes differ"):
        run(RunConfig(agents=["noop"], tasks=["triage/easy"], episodes=2), folder, resume=True)
    result = cli.invoke(app, ["eval", "-a", "noop", "-t", "triage/easy", "--episodes", "1",
                              "--out", str(folder)])
    assert result.exit_code == 2
    assert "already holds a run: pass --resume" in flat(result.output)
    result = cli.invoke(app, ["eval", "-a", "noop", "--resume"])
    assert result.exit_code == 2 and "--resume needs the run folder" in flat(result.output)
    assert len(read_records(folder)) == 1  # nothing changed


def test_report_compares_runs_in_tables_markdown_and_plots(tmp_path):
    for name, agent in (("a", "heuristic"), ("b", "random")):
        run(RunConfig(agents=[agent], tasks=["ticket/generated"], episodes=4, trials=2),
            tmp_path / name)
    result = cli.invoke(app, ["report", str(tmp_path / "a"), str(tmp_path / "b"),
                              "--markdown", "--plots", str(tmp_path / "plots")])
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if line.startswith("| a ")
            or line.startswith("| b ")]
    assert len(rows) == 2 and "| heuristic |" in rows[0] and "| random |" in rows[1]
    assert "pass^2 (grade ≥ 0.9)" in result.output
    assert "Mean score per grading component" in result.output
    for name in ("grade_distribution.png", "components.png", "pass_k.png"):
        assert (tmp_path / "plots" / name).read_bytes()[:4] == b"\x89PNG"
    result = cli.invoke(app, ["report", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "no such run folder" in flat(result.output)


def test_a_whole_last_record_without_its_newline_is_kept(tmp_path):
    config = RunConfig(agents=["heuristic"], tasks=["triage/easy"], episodes=3)
    folder = tmp_path / "r"
    whole = run(config, folder)
    episodes = folder / EPISODES_FILE
    episodes.write_text(episodes.read_text().rstrip("\n"))  # killed before the newline
    resumed = run(config, folder, resume=True)
    assert resumed.skipped == 3
    assert comparable(read_records(folder)) == comparable(whole.records)
    assert len(episodes.read_text().splitlines()) == 3
    assert len(resumed.meta.sessions) == 2  # each start is on record


def test_an_agent_or_task_named_twice_is_played_once(tmp_path):
    config = RunConfig(agents=["noop", "noop"], tasks=["triage/easy", "triage/easy"],
                       episodes=2)
    result = run(config, tmp_path / "r")
    assert [r.key for r in result.records] == ["noop|triage/easy|-|-|0|0",
                                               "noop|triage/easy|-|-|1|0"]


def test_a_server_that_is_not_there_is_a_clear_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from live_server import free_port
    result = cli.invoke(app, ["eval", "-a", "heuristic", "-t", "triage/easy", "--env-url",
                              f"http://127.0.0.1:{free_port()}"])
    assert result.exit_code == 2
    assert "cannot reach the environment server" in flat(result.output)
    assert not (tmp_path / "runs").exists()


def test_a_bad_pack_path_is_a_usage_error_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli.invoke(app, ["eval", "-a", "heuristic", "-t", "ticket/pack:/nonexistent",
                              "--out", "runs/r"])
    assert result.exit_code == 2, result.output
    assert "--tasks" in flat(result.output)
    assert not (tmp_path / "runs").exists()


def test_an_evaluation_against_a_sealed_server_sends_no_seed_and_keeps_its_episode_ids(tmp_path):
    """How a held-out benchmark runs (README, Only reading pays): the CLI sees the seal, plays
    the test split without seeds, records each episode's opaque id, and refuses the oracle."""
    with running_server("--sealed") as url:
        refused = cli.invoke(app, ["eval", "--env-url", url, "-a", "oracle", "-t",
                                   "ticket/generated", "--episodes", "1"])
        assert refused.exit_code != 0 and "sealed" in refused.output
        done = cli.invoke(app, ["eval", "--env-url", url, "-a", "heuristic", "-t",
                                "ticket/generated", "--episodes", "3", "--out",
                                str(tmp_path / "sealed")])
        assert done.exit_code == 0, done.output
        assert "drawn by the sealed server" in done.output
    records = [json.loads(line) for line in (tmp_path / "sealed" / "episodes.jsonl").open()]
    assert len(records) == 3 and {r["split"] for r in records} == {"test"}
    ids = {r["episode_id"] for r in records}
    assert len(ids) == 3 and all(i.startswith("sealed-") for i in ids)
