"""The package's public API is small and deliberate; changing it should be a conscious act."""

from __future__ import annotations

import inbox_triage

EXPECTED = {
    "AGENTS", "InboxTriageClient", "ComponentScore", "Grade", "InboxTriageEnv", "Scenario",
    "TriageAction",
    "TriageObservation", "TriageState", "__version__", "check_environment", "evaluate",
    "fixed_task_ids", "load_task", "make_agent", "run_episode", "generate", "Curriculum",
}


def test_public_api_is_locked():
    assert set(inbox_triage.__all__) == EXPECTED
    for name in EXPECTED:
        assert hasattr(inbox_triage, name), name


def test_the_readme_example_runs():
    env = inbox_triage.InboxTriageEnv()
    obs = env.reset(task="inbox/easy_password_reset")
    obs = env.step(inbox_triage.TriageAction(
        action_type="classify_ticket", ticket_id="T-101", priority="high", queue="account"))
    assert obs.reward > 0
    assert 0 < env.grade().value < 1


# Every command and its flags, as they stood before the code was rearranged into layers
# (docs/ARCHITECTURE.md): moving a module must not move a user's command line.
_TRAINING = [
    "--batch", "--beta", "--completion-length", "--config", "--difficulty", "--examples",
    "--first-seed", "--generations", "--learning-rate", "--log-every", "--lora", "--lora-alpha",
    "--lora-r", "--lora-targets", "--max-length", "--mode", "--model", "--out", "--resume",
    "--save-every", "--seed", "--split", "--steps", "--temperature", "--threads",
    "--tool-iterations",
]
_EXPORT = ["--difficulty", "--format", "--mode", "--n", "--out", "--seed", "--split"]
EXPECTED_CLI = {
    "check": [
        "--calibration", "--calibration-set", "--leaks", "--random-episodes", "--seeds",
        "--size", "--tasks", "-t",
    ],
    "eval": [
        "--address", "--agent", "--backend", "--base-url", "--concurrency", "--difficulty",
        "--env-url", "--episodes", "--json", "--max-tokens", "--model", "--out", "--protocol",
        "--request-timeout", "--resume", "--seed", "--split", "--tasks", "--temperature",
        "--trajectories", "--trials", "--workers", "-a", "-t",
    ],
    "export demos": _EXPORT,
    "export prompts": _EXPORT,
    "import": ["--name", "--org", "--out"],
    "lint": ["--emails", "--show", "--splits", "--variety-emails", "--version"],
    "report": ["--markdown", "--mixed-graders", "--plots", "--threshold"],
    "serve": [
        "--allow-llm-baseline", "--host", "--idle-timeout", "--max-sessions", "--packs", "--port",
        "--reward-mode", "--runs", "--sealed",
    ],
    "tasks": [],
    "train grpo": _TRAINING,
    "train prepare-model": ["--force", "--out"],
    "train sft": _TRAINING,
    "view": ["--host", "--open", "--port"],
}


def test_the_command_line_is_locked():
    import typer.main

    from inbox_triage.cli import app

    def walk(command, prefix: str = "") -> dict[str, list[str]]:
        if hasattr(command, "commands"):
            found: dict[str, list[str]] = {}
            for name, sub in command.commands.items():
                found.update(walk(sub, f"{prefix} {name}".strip()))
            return found
        flags = (o for p in command.params for o in p.opts if o.startswith("-"))
        return {prefix: sorted(flags)}

    assert walk(typer.main.get_command(app)) == EXPECTED_CLI
