"""Your own tickets: a labelled CSV or JSONL and an org profile become a pack for every mode."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from inbox_triage.agents import make_agent
from inbox_triage.cli import app
from inbox_triage.evaluation import run_episode
from inbox_triage.scenarios import ScenarioError
from inbox_triage.scenarios.packs import import_tickets, load_pack

DATA = Path(__file__).parent / "data"
CSV = DATA / "acme_tickets.csv"
ORG = DATA / "acme_org.yaml"
runner = CliRunner()


def rows() -> list[dict[str, str]]:
    with CSV.open(newline="") as fh:
        return list(csv.DictReader(fh))


def test_the_served_test_pack_is_what_importing_the_shipped_csv_makes(tmp_path):
    """tests/data/packs/acme (which `serve --packs tests/data/packs` plays) stays current."""
    out = import_tickets(CSV, ORG, tmp_path / "acme")
    assert load_pack(out) == load_pack(DATA / "packs" / "acme")


def test_the_shipped_csv_round_trips_into_a_pack(tmp_path):
    out = tmp_path / "acme"
    import_tickets(CSV, ORG, out)
    pack = load_pack(out)
    assert pack.org.queues == ("field_service", "platform", "finance", "safety")
    assert len(pack.tickets) == len(rows())
    for row, ticket in zip(rows(), pack.tickets, strict=True):
        assert ticket.id == row["id"]
        assert (ticket.subject, ticket.body) == (row["subject"], row["body"])
        truth = ticket.truth
        assert (truth.priority, truth.category, truth.queue) == (
            row["priority"], row["category"], row["queue"])
        assert list(truth.tags) == [t for t in row["tags"].split(";") if t]
        assert truth.escalate_to == (row["escalate_to"] or None)
        assert truth.resolution == (row["resolution"] or None)
        groups = [g.split("|") for g in row["reply_facts"].split(";")]
        assert [list(g) for g in truth.reply.required_facts] == groups
    again = tmp_path / "again"
    import_tickets(CSV, ORG, again)
    assert load_pack(again).tickets == pack.tickets and load_pack(again).org == pack.org


@pytest.mark.parametrize("mode", ["triage", "ticket", "inbox"])
def test_a_pack_plays_in_every_mode_and_the_oracle_wins(tmp_path, mode):
    out = tmp_path / "acme"
    import_tickets(CSV, ORG, out)
    for seed in range(4):
        oracle = run_episode(f"{mode}/pack:{out}", make_agent("oracle"), seed)
        assert oracle.grade == pytest.approx(1.0)
        heuristic = run_episode(f"{mode}/pack:{out}", make_agent("heuristic"), seed)
        assert heuristic.invalid_actions == 0  # it keeps to the pack's own vocabulary
        assert heuristic.grade < 1.0


def test_jsonl_works_the_same(tmp_path):
    source = tmp_path / "tickets.jsonl"
    with source.open("w") as fh:
        for row in rows():
            record = {k: v for k, v in row.items() if v}
            record["tags"] = [t for t in row["tags"].split(";") if t]
            fh.write(json.dumps(record) + "\n")
    import_tickets(source, ORG, tmp_path / "from_jsonl")
    import_tickets(CSV, ORG, tmp_path / "from_csv")
    assert load_pack(tmp_path / "from_jsonl").tickets == load_pack(tmp_path / "from_csv").tickets


def test_a_bad_row_is_named_and_nothing_is_written(tmp_path):
    bad = tmp_path / "bad.csv"
    lines = CSV.read_text().splitlines()
    lines[3] = lines[3].replace(",P3,", ",P9,")
    bad.write_text("\n".join(lines) + "\n")
    out = tmp_path / "pack"
    with pytest.raises(ScenarioError) as error:
        import_tickets(bad, ORG, out)
    message = str(error.value)
    assert "row 3" in message and "'priority'" in message and "'P9'" in message
    assert "P1" in message  # the allowed values
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.csv"]


def test_missing_required_field_and_unknown_column_are_named(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"subject": "x", "body": "y", "queue": "finance"}) + "\n")
    with pytest.raises(ScenarioError, match="row 1.*'priority'"):
        import_tickets(bad, ORG, tmp_path / "p")
    bad.write_text(json.dumps({"subject": "x", "body": "y", "queue": "finance",
                               "priority": "P1", "colour": "red"}) + "\n")
    with pytest.raises(ScenarioError, match="row 1.*'colour'"):
        import_tickets(bad, ORG, tmp_path / "p")


def test_cli_import_reports_and_refuses_to_clobber(tmp_path):
    out = tmp_path / "acme"
    result = runner.invoke(app, ["import", str(CSV), "--org", str(ORG), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "5 tickets" in result.output and f"inbox/pack:{out}" in result.output
    not_a_pack = tmp_path / "docs"
    not_a_pack.mkdir()
    (not_a_pack / "notes.txt").write_text("mine")
    result = runner.invoke(app, ["import", str(CSV), "--org", str(ORG), "--out",
                                 str(not_a_pack)])
    assert result.exit_code == 1
    assert "nothing was written" in result.output
    assert (not_a_pack / "notes.txt").read_text() == "mine"


def test_pack_sizes_and_modes_are_checked(tmp_path):
    from inbox_triage.env import InboxTriageEnv
    out = tmp_path / "acme"
    import_tickets(CSV, ORG, out)
    env = InboxTriageEnv()
    assert len(env.reset(task=f"inbox/pack:{out}", seed=1, size=3).tickets) == 3
    with pytest.raises(ScenarioError, match="from 1 to 5"):
        env.reset(task=f"inbox/pack:{out}", size=8)
    with pytest.raises(ScenarioError, match="plays in a mode"):
        env.reset(task=f"pack:{out}")
    assert oct((out).stat().st_mode)[-3:] == "755"


def test_a_row_without_a_category_is_refused_when_the_org_has_categories(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("subject,body,priority,queue\nHi,Body text,P1,safety\n")
    with pytest.raises(ScenarioError, match="row 1.*'category'.*required"):
        import_tickets(bad, ORG, tmp_path / "p")
