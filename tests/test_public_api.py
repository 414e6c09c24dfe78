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
