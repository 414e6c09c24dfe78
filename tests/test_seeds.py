"""The example payloads of the three seed documents are accepted in their modes, as written."""

from __future__ import annotations

from inbox_triage.env import InboxTriageEnv


def test_email_triage_seed_flow_reset_without_arguments_then_the_seed_action():
    env = InboxTriageEnv()
    obs = env.reset()  # the seed: requests.post(f"{BASE_URL}/reset")
    assert obs.task_id == "triage/easy"
    assert "e001" in [e["email_id"] for e in obs.inbox]
    action = {
        "email_id": "e001",
        "priority": "urgent",
        "category": "customer_complaint",
        "route_to": "support_tier2",
        "summary": "Account hacked, needs immediate lock.",
        "flag_review": True,
        "reply_draft": "We are securing your account immediately.",
    }
    obs = env.step(action)
    assert obs.last_action_error is None
    assert obs.reward is not None and obs.reward > 0
    assert obs.processed == ["e001"]
    assert obs.escalation_budget_remaining == 1
    for field in ("current_email", "inbox", "processed", "escalation_budget_remaining",
                  "team_queue_remaining", "active_sla_warnings", "sla_breaches_so_far"):
        assert getattr(obs, field) is not None, field


def test_support_triage_seed_actions_in_ticket_mode():
    env = InboxTriageEnv()
    obs = env.reset(task="ticket/easy_password_reset")
    assert set(obs.allowed_actions) == {
        "set_priority", "route_team", "add_tag", "draft_reply", "request_info",
        "close_ticket", "noop",
    }
    for field in ("task_id", "difficulty", "objective", "title", "customer_tier",
                  "customer_message", "steps_remaining", "last_feedback", "allowed_actions"):
        assert getattr(obs, field) not in (None, ""), field
    for action in (
        {"action_type": "set_priority", "value": "medium"},
        {"action_type": "route_team", "value": "account"},
        {"action_type": "add_tag", "value": "password-reset"},
        {"action_type": "request_info", "value": "Could you send a screenshot of the error?"},
        {"action_type": "draft_reply", "value": "Hi Lena, please request a new reset link."},
        {"action_type": "noop"},
        {"action_type": "close_ticket"},
    ):
        obs = env.step(action)
        assert obs.last_action_error is None, (action, obs.last_action_error)
    assert obs.done
    assert (obs.priority, obs.routed_team, obs.tags, obs.info_requested) == (
        "medium", "account", ["password-reset"], True)


def test_support_inbox_ops_seed_curl_flow():
    env = InboxTriageEnv()
    obs = env.reset(task_id="medium_billing_bug_mix")  # -d '{"task_id":"medium_billing_bug_mix"}'
    assert obs.task_id == "inbox/medium_billing_bug_mix"
    obs = env.step({"action_type": "classify_ticket", "ticket_id": "T-210",
                    "priority": "high", "queue": "billing"})
    assert obs.last_action_error is None
    ticket = next(t for t in obs.tickets if t["ticket_id"] == "T-210")
    assert (ticket["priority"], ticket["queue"]) == ("high", "billing")
    seed_fields = {"customer_name", "customer_tier", "subject", "message", "priority", "queue",
                   "status", "sentiment", "tags", "internal_notes", "responses_sent",
                   "escalation_target", "resolution_code"}
    assert seed_fields <= set(ticket)
    assert {"classify_ticket", "respond_ticket", "escalate_ticket", "resolve_ticket",
            "finish"} <= set(obs.allowed_actions)
    for field in ("task_id", "title", "objective", "step_count", "max_steps", "progress_score",
                  "recent_events"):
        assert getattr(obs, field) is not None, field
