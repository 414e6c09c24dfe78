"""Comparison reports: loading run folders, markdown and rich tables, and plots."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from record_factory import rec as make_record
from rich.console import Console

from inbox_triage.evaluation.metrics import summarise_runs
from inbox_triage.evaluation.records import (
    EPISODES_FILE,
    EpisodeRecord,
    RunMeta,
    dump_jsonl,
    write_meta,
)
from inbox_triage.evaluation.report import (
    comparison_markdown,
    comparison_table,
    load_run,
    write_plots,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def rec(grade: float, **fields: object) -> EpisodeRecord:
    """Records here default to a fixed task."""
    fields.setdefault("task", "triage/easy")
    return make_record(grade, **fields)  # type: ignore[arg-type]


def write_run(folder: Path, records: list[EpisodeRecord], name: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / EPISODES_FILE).write_text(dump_jsonl(records), encoding="utf-8")
    if name is not None:
        meta = RunMeta(name=name, created="2025-01-01T00:00:00", updated="2025-01-01T00:00:00")
        write_meta(folder, meta)
    return folder


def hand_run() -> list[EpisodeRecord]:
    """Two agents; the oracle has 2 trials on each of two scenarios (so pass^2 exists)."""
    return [
        rec(1.0, seed=0, trial=0, tokens={"total": 1000}, components={"routing": 1, "reply": 1}),
        rec(1.0, seed=0, trial=1, tokens={"total": 2000}, components={"routing": 1, "reply": 0.5}),
        rec(1.0, seed=1, trial=0, task="ticket/easy_password_reset", steps=5, invalid_actions=1),
        rec(0.5, seed=1, trial=1, task="ticket/easy_password_reset", steps=5, invalid_actions=0,
            sla_breaches=2),
        rec(0.2, agent="noop", steps=4, invalid_actions=1),
        rec(0.4, agent="noop", seed=1, task="ticket/easy_password_reset", steps=4),
    ]  # fmt: skip


# load_run


def test_load_run_uses_meta_name(tmp_path: Path) -> None:
    folder = write_run(tmp_path / "folder", hand_run(), name="baseline")
    name, meta, records = load_run(folder)
    assert name == "baseline" and meta is not None and meta.name == "baseline"
    assert records == hand_run()
    # The JSONL path gives the same run.
    assert load_run(folder / EPISODES_FILE) == (name, meta, records)


def test_load_run_without_meta_uses_folder_name(tmp_path: Path) -> None:
    name, meta, records = load_run(write_run(tmp_path / "run-7", hand_run()))
    assert (name, meta, len(records)) == ("run-7", None, 6)


def test_load_run_skips_torn_last_line(tmp_path: Path) -> None:
    folder = write_run(tmp_path / "torn", hand_run())
    with (folder / EPISODES_FILE).open("a", encoding="utf-8") as fh:
        fh.write(dump_jsonl([rec(0.9, seed=9)])[:40])  # interrupted mid-write
    _, _, records = load_run(folder)
    assert records == hand_run()


@pytest.mark.parametrize("case", ["missing", "empty_dir", "empty_file", "not_jsonl"])
def test_load_run_errors_name_the_path(tmp_path: Path, case: str) -> None:
    path = tmp_path / case
    if case == "empty_dir":
        path.mkdir()
    elif case == "empty_file":
        write_run(path, [])
    elif case == "not_jsonl":
        path = tmp_path / "notes.txt"
        path.write_text("hello", encoding="utf-8")
    with pytest.raises(ValueError, match=str(path.name)):
        load_run(path)


def test_load_run_corrupt_middle_line_is_an_error(tmp_path: Path) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    lines = dump_jsonl(hand_run()).splitlines()
    lines.insert(1, "{not json")
    (folder / EPISODES_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not an episode record"):
        load_run(folder)


# markdown and rich tables


def test_markdown_has_the_right_numbers() -> None:
    md = comparison_markdown(summarise_runs([("base", hand_run())], threshold=0.9))
    lines = md.splitlines()
    header = next(line for line in lines if line.startswith("| Run"))
    assert "pass^1 (grade ≥ 0.9)" in header and "pass^2 (grade ≥ 0.9)" in header
    noop = next(line for line in lines if line.startswith("| base | noop"))
    oracle = next(line for line in lines if line.startswith("| base | oracle"))
    # noop: mean 0.3, one trial per scenario (pass^2 unknown), 1 invalid in 8 steps, no tokens.
    assert noop.startswith(
        "| base | noop | 2 | 0.300 [0.20, 0.40] | 0.000 | — | 12.5% | 0.000 | — |"
    )
    # oracle: mean 0.875; pass^1 = (1 + 1/2) / 2; pass^2 = (1 + 0) / 2; 1 invalid in 30 steps;
    # 2 SLA breaches over 4 episodes; tokens (1000 + 2000) / 2 over the episodes that report them.
    cells = [c.strip() for c in oracle.strip("|").split("|")]
    assert cells[:3] == ["base", "oracle", "4"]
    assert cells[3].startswith("0.875 [")
    assert cells[4:] == ["0.750", "0.500", "3.3%", "0.500", "1500"]


def test_markdown_task_and_mode_tables() -> None:
    runs = [("b-run", hand_run()), ("a-run", [rec(0.1, agent="noop")])]
    md = comparison_markdown(summarise_runs(runs))
    assert "| Task | a-run/noop | b-run/noop | b-run/oracle |" in md
    assert "| ticket/easy_password_reset | — | 0.400 | 0.750 |" in md
    assert "| triage/easy | 0.100 | 0.200 | 1.000 |" in md
    assert "| Mode | a-run/noop | b-run/noop | b-run/oracle |" in md
    assert "| ticket | — | 0.400 | 0.750 |" in md
    # Rows of the overall table are sorted by run then agent, whatever the input order.
    order = [line.split("|")[1].strip() for line in md.splitlines() if "| noop |" in line]
    assert order == ["a-run", "b-run"]
    assert comparison_markdown(summarise_runs(list(reversed(runs)))) == md


def test_markdown_single_trial_hints_at_trials_flag() -> None:
    md = comparison_markdown(summarise_runs([("r", [rec(1.0), rec(0.0, seed=1)])]), title="T")
    assert md.startswith("# T\n")
    assert "pass^2" not in md
    assert "--trials" in md
    assert "--trials" in (comparison_table(summarise_runs([("r", [rec(1.0)])]))[0].caption or "")


def test_markdown_escapes_pipes_and_rejects_nothing() -> None:
    md = comparison_markdown(summarise_runs([("r", [rec(1.0, agent="llm|small")])]))
    assert "llm\\|small" in md
    with pytest.raises(ValueError, match="no runs"):
        comparison_markdown([])


def test_rich_tables_match_markdown() -> None:
    summaries = summarise_runs([("base", hand_run())])
    tables = comparison_table(summaries)
    assert [t.title for t in tables] == ["Overall", "Mean grade per task", "Mean grade per mode",
                                         "Mean score per grading component"]
    console = Console(record=True, width=200)
    for table in tables:
        console.print(table)
    text = console.export_text()
    for number in ("0.875", "0.750", "12.5%", "1500", "0.400"):
        assert number in text


# plots


def test_import_does_not_load_matplotlib() -> None:
    """report.py keeps its import cheap: matplotlib loads only when a plot is written."""
    import subprocess

    code = "import sys, inbox_triage.evaluation.report; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("trials", [1, 2])
def test_write_plots_writes_three_pngs(tmp_path: Path, trials: int) -> None:
    records = hand_run() if trials == 2 else [rec(0.3), rec(0.8, agent="noop")]
    runs = [("base", records), ("other", [rec(0.6, agent="noop", components={"reply": 0.2})])]
    paths = write_plots(runs, summarise_runs(runs), tmp_path / "plots")
    names = ["grade_distribution.png", "components.png", "pass_k.png"]
    assert [p.name for p in paths] == names
    for path in paths:
        assert path.parent == tmp_path / "plots"
        data = path.read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 1000
