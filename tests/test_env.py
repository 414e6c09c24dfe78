"""Episode mechanics: refusals change nothing, penalties, budgets, SLA clocks, reward rule."""

from __future__ import annotations

import pytest

from inbox_triage.agents import make_agent
from inbox_triage.env import InboxTriageEnv
from inbox_triage.evaluation import run_episode
from inbox_triage.grading import PENALTIES
from inbox_triage.scenarios import ScenarioError, fixed_task_ids, load_task

HACKED = {"email_id": "e001", "priority": "urgent", "category": "customer_complaint",
          "route_to": "support_tier2", "summary": "Account hacked; lock it.", "flag_review": True}


def snapshot(env: InboxTriageEnv) -> dict:
    """The parts of the state an action may change (the clock and counters move regardless)."""
    state = env.state.model_dump()
    return {k: state[k] for k in ("tickets", "queue_remaining", "escalation_budget_remaining")}


@pytest.mark.parametrize(
    ("action", "field", "allowed"),
    [
        ({**HACKED, "priority": "critical"}, "priority", "urgent"),
        ({**HACKED, "route_to": "it_desk"}, "route_to", "support_tier1"),
        ({**HACKED, "category": None}, "category", None),
        ({**HACKED, "email_id": "e999"}, "email_id", "e001"),
        ({**HACKED, "summary": "x" * 281}, "summary", None),
        ({**HACKED, "value": "high"}, "value", "email_id"),
        ({**HACKED, "colour": "red"}, "colour", "email_id"),
        ({**HACKED, "flag_review": "maybe"}, "flag_review", None),
        ({"action_type": "close_ticket"}, "action_type", "triage_email"),
    ],
)
def test_bad_input_names_the_field_and_changes_nothing(env, action, field, allowed):
    env.reset(task="triage/easy")
    before = snapshot(env)
    obs = env.step(action)
    assert obs.last_action_error is not None
    assert obs.last_action_error["field"] == field
    if allowed:
        assert allowed in obs.last_action_error["allowed"]
    assert obs.reward == pytest.approx(-PENALTIES["invalid_action"])
    assert snapshot(env) == before
    assert not obs.done
    assert env.step(HACKED).last_action_error is None  # the episode goes on


def test_step_before_reset_and_after_the_end_is_refused_without_change():
    env = InboxTriageEnv()
    obs = env.step({"action_type": "finish"})
    assert obs.last_action_error["field"] == "episode"
    env.reset(task="inbox/easy_password_reset")
    env.step({"action_type": "finish"})
    state = env.state.model_dump()
    obs = env.step({"action_type": "finish"})
    assert obs.done and obs.reward == 0.0 and "ended" in obs.last_feedback
    assert env.state.model_dump() == state


def test_unknown_task_and_ambiguous_bare_name_get_clear_errors(env):
    with pytest.raises(ScenarioError, match="known"):
        env.reset(task="nope")
    with pytest.raises(ScenarioError, match="ambiguous"):
        env.reset(task="easy_password_reset")
    assert env.reset(task="easy_password_reset", mode="inbox").task_id == (
        "inbox/easy_password_reset")


def test_full_queue_and_spent_budget_refuse_the_decision(env):
    env.reset(task="triage/hard")
    scenario = env.scenario
    capped = scenario.settings.queue_capacity
    queue = next(q for q, n in capped.items() if n == 1)
    emails = [t.id for t in scenario.tickets]
    decision = {"priority": "low", "category": "general_inquiry", "route_to": queue}
    assert env.step({**decision, "email_id": emails[0]}).last_action_error is None
    obs = env.step({**decision, "email_id": emails[1]})
    assert obs.last_action_error["field"] == "route_to"
    assert queue not in obs.last_action_error["allowed"]
    budget = obs.escalation_budget_remaining
    for email in emails[1: budget + 1]:
        obs = env.step({**decision, "route_to": "archive", "email_id": email, "flag_review": True})
        assert obs.last_action_error is None
    obs = env.step({**decision, "route_to": "archive", "email_id": emails[budget + 1],
                    "flag_review": True})
    assert obs.last_action_error["field"] == "flag_review"
    assert obs.escalation_budget_remaining == 0


def test_sla_clock_runs_and_order_matters():
    scenario = load_task("triage/hard")
    oracle = run_episode("triage/hard", make_agent("oracle"))
    assert oracle.components["sla"] == 1.0
    # The same perfect decisions taken in id order breach some deadlines.
    env = InboxTriageEnv()
    env.reset(task="triage/hard")
    by_id = sorted(oracle.actions, key=lambda a: a["email_id"])
    for action in by_id:
        obs = env.step(action)
    sla = {c.name: c.score for c in env.grade().components}["sla"]
    assert sla < 1.0
    assert obs.sla_breaches_so_far >= 1
    assert len(scenario.tickets) == 12


def test_sla_warnings_appear_as_time_passes_and_refusals_stop_no_clock():
    env = InboxTriageEnv()
    obs = env.reset(task="triage/hard")
    assert env.step({"email_id": "zz"}).now == obs.now  # a refusal does not move the clock
    seen = set(obs.active_sla_warnings)
    for email in reversed(obs.inbox):  # least urgent first: deadlines come near
        obs = env.step({"email_id": email["email_id"], "priority": "low",
                        "category": "general_inquiry", "route_to": "archive"})
        seen |= set(obs.active_sla_warnings)
    assert obs.now == 10 * 12
    assert seen, "some email should come within the warning window as time passes"


def test_ticket_mode_penalises_noop_repeat_and_premature_close():
    env = InboxTriageEnv()
    env.reset(task="ticket/medium_double_charge")
    obs = env.step({"action_type": "noop"})
    assert obs.reward == pytest.approx(-PENALTIES["noop"] - 0.01)
    env.step({"action_type": "set_priority", "value": "high"})
    obs = env.step({"action_type": "set_priority", "value": "high"})
    assert obs.reward == pytest.approx(-PENALTIES["repeat"] - 0.01)
    obs = env.step({"action_type": "close_ticket"})
    assert obs.done
    assert any(i["kind"] == "premature_close" for i in env.state.incidents)
    assert obs.metadata["penalties"] >= PENALTIES["premature_close"]


def test_inbox_mode_unsafe_closure_is_penalised_and_loses_the_escalation():
    env = InboxTriageEnv()
    env.reset(task="inbox/hard_incident_security_queue")
    env.step({"action_type": "escalate_ticket", "ticket_id": "T-302", "escalate_to": "security"})
    escalation = {c.name: c.score for c in env.grade().components}["escalation"]
    obs = env.step({"action_type": "resolve_ticket", "ticket_id": "T-302",
                    "resolution_code": "question_answered"})
    assert any(i["kind"] == "unsafe_closure" for i in env.state.incidents)
    assert obs.reward < -PENALTIES["unsafe_closure"] + 1e-9
    assert {c.name: c.score for c in env.grade().components}["escalation"] < escalation


def test_finish_bonus_only_after_strong_progress():
    oracle = run_episode("inbox/medium_billing_bug_mix", make_agent("oracle"))
    assert oracle.components["wrap_up"] == 1.0
    assert oracle.rewards[-1] > 0.1  # finishing a well-handled queue pays
    env = InboxTriageEnv()
    env.reset(task="inbox/medium_billing_bug_mix")
    env.step({"action_type": "classify_ticket", "ticket_id": "T-210", "priority": "high"})
    obs = env.step({"action_type": "finish"})
    assert obs.metadata["grade"]["components"]["wrap_up"]["score"] == 0.0


def test_policy_violation_in_an_information_request_is_recorded_and_charged():
    env = InboxTriageEnv()
    env.reset(task="ticket/hard_account_takeover")
    obs = env.step({"action_type": "request_info",
                    "value": "Please send us your current password so we can verify you."})
    assert obs.last_action_error is None
    assert [i["kind"] for i in env.state.incidents] == ["policy_violation"]
    assert obs.reward == pytest.approx(-PENALTIES["policy_violation"] - 0.01)


@pytest.mark.parametrize("task", fixed_task_ids())
def test_rewards_sum_to_grade_less_penalties_and_runs_repeat_exactly(task):
    for agent in ("random", "heuristic", "oracle"):
        first = run_episode(task, make_agent(agent), seed=3, keep_observations=True)
        second = run_episode(task, make_agent(agent), seed=3, keep_observations=True)
        assert sum(first.rewards) == pytest.approx(first.grade - first.penalties, abs=1e-9)
        assert (first.rewards, first.observations) == (second.rewards, second.observations)
        assert 0.0 <= first.grade <= 1.0


TRUTH_MARKERS = ("truth", "required_facts", "summary_facts", "info_keywords", "needs_info")


@pytest.mark.parametrize("task", fixed_task_ids())
def test_the_truth_never_reaches_observations_or_state(task):
    episode = run_episode(task, make_agent("heuristic"), keep_observations=True)
    env = InboxTriageEnv()
    env.reset(task=task)
    blobs = [*episode.observations, env.state.model_dump_json()]
    for blob in blobs:
        for marker in TRUTH_MARKERS:
            assert marker not in blob


def test_changing_a_decision_is_charged_and_quarters_its_credit():
    env = InboxTriageEnv()
    env.reset(task="ticket/easy_password_reset")
    env.step({"action_type": "set_priority", "value": "low"})
    obs = env.step({"action_type": "set_priority", "value": "medium"})
    assert [i["kind"] for i in env.state.incidents] == ["revision"]
    assert {c.name: c.score for c in env.grade().components}["priority"] == 0.25
    assert obs.reward == pytest.approx(
        0.25 * env.grade().components[0].weight - PENALTIES["revision"] - 0.01)


def test_closing_at_once_earns_nothing():
    for task in fixed_task_ids("ticket"):
        env = InboxTriageEnv()
        env.reset(task=task)
        obs = env.step({"action_type": "close_ticket"})
        assert obs.done and obs.metadata["grade"]["value"] == 0.0


def test_resolving_a_specialist_ticket_costs_grade_not_only_reward():
    env = InboxTriageEnv()
    env.reset(task="inbox/medium_billing_bug_mix")
    env.step({"action_type": "resolve_ticket", "ticket_id": "T-212",
              "resolution_code": "shipping_update_provided"})
    alone = {c.name: c.score for c in env.grade().components}["resolution"]
    env.step({"action_type": "resolve_ticket", "ticket_id": "T-210",
              "resolution_code": "shipping_update_provided"})
    assert {c.name: c.score for c in env.grade().components}["resolution"] == alone / 2


def test_malformed_actions_in_process_are_refused_not_raised():
    from inbox_triage.models import TriageAction
    env = InboxTriageEnv()
    env.reset(task="ticket/easy_password_reset")
    before = snapshot(env)
    for bad in (["set_priority"], None, 42, "noop",
                TriageAction.model_construct(action_type="draft_reply", value=5)):
        obs = env.step(bad)
        assert obs.last_action_error is not None
    assert snapshot(env) == before
    with pytest.raises(ScenarioError, match="string"):
        env.reset(task=5)


def test_step_before_any_reset_reports_done_so_loops_end():
    obs = InboxTriageEnv().step({"action_type": "finish"})
    assert obs.done and obs.last_action_error["field"] == "episode"


@pytest.mark.parametrize("task", fixed_task_ids("ticket"))
def test_one_script_for_every_ticket_without_reading_it_scores_low(task):
    """A reviewer's exploit: one catch-all reply naming every task's points, constant choices."""
    env = InboxTriageEnv()
    obs = env.reset(task=task)
    name = obs.customer_name.split()[0]
    catch_all = (
        f"Hi {name}, we have locked your account and a specialist will investigate. We see you "
        "were charged twice and our billing team will review it. Please request a new reset "
        "link and open it in a private window after clearing your cache."
    )
    for action in (
        {"action_type": "request_info",
         "value": "Please send a screenshot, the transaction receipt and the date of the charge."},
        {"action_type": "draft_reply", "value": catch_all},
        {"action_type": "set_priority", "value": "high"},
        {"action_type": "route_team", "value": "billing"},
        {"action_type": "add_tag", "value": "vip"},
        {"action_type": "close_ticket"},
    ):
        obs = env.step(action)
    grade = obs.metadata["grade"]
    # Grader 2 reads a fluent reply as a person does: a catch-all over three tickets states
    # this ticket's points too, so its reply earns them (one over many emails is caught as
    # stuffed or as a list: see the degenerate suite). What the script decided without reading
    # the ticket still scores low.
    parts = grade["components"]
    rest = [c for name, c in parts.items() if name != "reply"]
    decided = sum(c["score"] * c["weight"] for c in rest) / sum(c["weight"] for c in rest)
    truth = env.scenario.tickets[0].truth
    if (truth.priority, truth.queue) != ("high", "billing"):  # constants happen to be right
        assert decided <= 0.35
        assert grade["value"] <= 0.5
