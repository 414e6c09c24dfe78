"""`python inference.py` when something is wrong: clear errors, no tracebacks, nothing run."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from live_server import free_port

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("inference", ROOT / "inference.py")
inference = importlib.util.module_from_spec(spec)
spec.loader.exec_module(inference)


def test_an_unreachable_endpoint_fails_fast_with_a_clear_message(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("API_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    monkeypatch.setenv("MODEL_NAME", "some-model")
    assert inference.main([]) == 1
    err = capsys.readouterr().err
    assert "cannot reach the model endpoint" in err and "API_BASE_URL" in err
    assert not (tmp_path / "baseline_scores.json").exists() and not (tmp_path / "runs").exists()


def test_missing_model_unknown_task_and_resume_without_folder_are_usage_errors(
        tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MODEL_NAME", raising=False)
    assert inference.main([]) == 2
    assert "set MODEL_NAME" in capsys.readouterr().err
    monkeypatch.setenv("MODEL_NAME", "m")
    assert inference.main(["--resume"]) == 2
    assert "--resume needs --out" in capsys.readouterr().err
    monkeypatch.setattr(inference, "check_endpoint", lambda config: None)
    assert inference.main(["--tasks", "triage/nope"]) == 2
    assert "unknown task(s) ['triage/nope']" in capsys.readouterr().err
