"""The grader's version travels with every grade and run, and reports say why texts scored 0."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from record_factory import rec
from typer.testing import CliRunner

from inbox_triage.cli import app as cli
from inbox_triage.env import InboxTriageEnv
from inbox_triage.evaluation.metrics import summarise_runs
from inbox_triage.evaluation.records import (
    EPISODES_FILE,
    RunMeta,
    dump_jsonl,
    read_meta,
    read_records,
    write_meta,
)
from inbox_triage.evaluation.report import comparison_markdown
from inbox_triage.grading import GRADER_VERSION
from inbox_triage.server.app import build_app

RUNNER = CliRunner()


def test_every_grade_names_its_grader_version_and_counts_zero_texts_by_reason():
    env = InboxTriageEnv()
    env.reset(task="triage/easy", seed=0)
    env.step(
        {
            "email_id": "e001",
            "priority": "urgent",
            "category": "customer_complaint",
            "route_to": "support_tier2",
            "summary": "URGENT: My account has been hacked! Someone logged into my account last "
            "night from another country and changed my email address.",
        }
    )
    grade = env.grade().as_dict()
    assert grade["grader_version"] == GRADER_VERSION == 5
    summary = grade["texts"]["summary"]
    assert summary["graded"] == 5
    assert summary["zeros"] == {"none": 4, "pasted": 1}
    assert "e001 summary 0: summary pastes the customer's message" in str(
        grade["components"]["summary"]["explanation"]
    )


def test_the_grader_route_shows_the_version_and_the_zero_reasons():
    client = TestClient(build_app(max_sessions=2))
    client.post("/reset", json={"task": "triage/easy", "seed": 0})
    body = client.get("/grader").json()
    assert body["grader_version"] == GRADER_VERSION
    assert body["texts"]["reply"]["zeros"] == {"none": 5}


def test_a_run_records_the_grader_version_and_each_episodes_zero_reasons(tmp_path: Path):
    out = tmp_path / "run"
    args = ["eval", "--tasks", "triage/easy", "--agent", "noop", "--episodes", "1"]
    result = RUNNER.invoke(cli, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    meta = read_meta(out)
    assert meta is not None and meta.versions["grader"] == str(GRADER_VERSION)
    (record,) = read_records(out)
    assert record.texts["summary"] == {"graded": 5, "zeros": {"none": 5}}


def _run(folder: Path, grader: str | None, records: list) -> Path:
    folder.mkdir(parents=True)
    (folder / EPISODES_FILE).write_text(dump_jsonl(records), encoding="utf-8")
    versions = {"grader": grader} if grader else {}
    write_meta(folder, RunMeta(name=folder.name, created="x", updated="x", versions=versions))
    return folder


def test_report_refuses_runs_of_different_grader_versions_unless_asked(tmp_path: Path):
    old = _run(tmp_path / "old", None, [rec(0.4, task="triage/easy", agent="heuristic")])
    new = _run(tmp_path / "new", "2", [rec(0.6, task="triage/easy", agent="heuristic")])
    refused = RUNNER.invoke(cli, ["report", str(old), str(new)])
    assert refused.exit_code == 2
    assert "different grader versions" in refused.output and "--mixed-graders" in refused.output
    assert "old: 1" in refused.output and "new: 2" in refused.output
    allowed = RUNNER.invoke(cli, ["report", str(old), str(new), "--mixed-graders"])
    assert allowed.exit_code == 0, allowed.output
    same = RUNNER.invoke(cli, ["report", str(new), str(new)])
    assert same.exit_code == 0, same.output


def test_report_shows_the_share_of_texts_scoring_zero_per_reason_per_agent():
    texts = {"summary": {"graded": 4, "zeros": {"pasted": 1, "none": 1}}}
    records = [
        rec(0.5, task="triage/easy", agent="paster", components={"summary": 0.5}),
        rec(0.5, task="triage/medium", agent="paster", components={"summary": 0.5}),
    ]
    records = [r.model_copy(update={"texts": texts}) for r in records]
    (summary,) = summarise_runs([("run", records)])
    assert summary.text_zeros == {"summary: none": 0.25, "summary: pasted": 0.25}
    markdown = comparison_markdown([summary])
    assert "Texts scoring 0, by reason" in markdown
    assert "| summary: pasted | 25.0% |" in markdown
