"""A customer who answers, follows up and comes back; mail that arrives; queues that drain."""

from __future__ import annotations

import pytest

from inbox_triage.agents import HeuristicAgent, make_agent
from inbox_triage.agents.planning import visible_items
from inbox_triage.domain import Customer, ReplySpec, Settings, Ticket, Truth
from inbox_triage.env import InboxTriageEnv
from inbox_triage.evaluation import run_episode
from inbox_triage.scenarios import load_task

FRAUD = {"task": "ticket/generated@v1", "split": "test", "difficulty": "medium", "seed": 1,
         "ambiguity": 1.0}


def planned_route(agent: HeuristicAgent, obs) -> str:
    plan = agent.plan_for(visible_items(obs.model_dump())[0], obs.model_dump())
    return next(a["value"] for a in plan if a["action_type"] == "route_team")


def test_the_customers_answer_changes_the_right_routing_and_the_oracle_handles_it():
    env = InboxTriageEnv()
    obs = env.reset(**FRAUD, observation="full")
    ticket = env.scenario.tickets[0]
    assert ticket.truth.queue == "trust_safety"  # the truth: fraud, not a billing error
    heuristic = HeuristicAgent()
    assert planned_route(heuristic, obs) == "billing"  # what the first email suggests
    obs = env.step({"action_type": "request_info",
                    "value": "Could you send the receipt and the date of the charge?"})
    waited = 0
    while not obs.customer_messages:
        obs = env.step({"action_type": "noop"})
        waited += 1
    assert waited >= 2  # the answer takes simulated time
    assert obs.customer_messages[0]["kind"] == "reply"
    assert obs.customer_messages[0]["body"] == ticket.customer_reply.body
    assert planned_route(heuristic, obs) == "trust_safety"  # the answer reveals the fraud

    episode = run_episode("ticket/generated@v1", make_agent("oracle"), 1, split="test",
                          difficulty="medium", ambiguity=1.0)
    assert episode.grade == pytest.approx(1.0)
    assert {"action_type": "route_team", "value": "trust_safety"} in episode.actions
    assert any(a["action_type"] == "request_info" for a in episode.actions)


def test_rerouting_after_the_answer_is_free_but_blind_rerouting_is_not():
    env = InboxTriageEnv()
    env.reset(**FRAUD)
    env.step({"action_type": "route_team", "value": "billing"})
    env.step({"action_type": "request_info", "value": "Could you send the receipt?"})
    obs = env.step({"action_type": "route_team", "value": "account"})
    assert [i["kind"] for i in env.state.incidents] == ["revision"]
    while not obs.customer_messages:
        obs = env.step({"action_type": "noop"})
    obs = env.step({"action_type": "route_team", "value": "trust_safety"})
    assert [i["kind"] for i in env.state.incidents].count("revision") == 1


def test_asking_for_a_password_gets_compliance_and_a_recorded_violation():
    env = InboxTriageEnv()
    obs = env.reset(task="ticket/medium_double_charge")
    obs = env.step({"action_type": "request_info",
                    "value": "To verify you, please send us your current password."})
    assert [i["kind"] for i in env.state.incidents] == ["policy_violation"]
    while not obs.customer_messages:
        obs = env.step({"action_type": "noop"})
    assert "password" in obs.customer_messages[0]["body"].lower()
    grade = env.grade()
    assert {c.name: c.score for c in grade.components}.get("info_request", 0.0) == 0.0


def _inbox_scenario(**settings):
    base = load_task("inbox/medium_billing_bug_mix")
    return base.model_copy(update={"settings": base.settings.model_copy(update=settings)})


def test_an_ignored_urgent_ticket_gets_a_follow_up_and_its_mood_drops():
    base = load_task("inbox/hard_incident_security_queue")
    outage = base.tickets[0]
    calmer = outage.model_copy(update={"truth": outage.truth.model_copy(
        update={"sentiment": "frustrated"})})
    scenario = base.model_copy(update={
        "settings": base.settings.model_copy(update={"max_steps": 40}),
        "tickets": (calmer, *base.tickets[1:]),
    })
    env = InboxTriageEnv()
    env.reset_scenario(scenario)
    for _ in range(25):  # work only on the low-priority idea; the outage waits 125 minutes
        obs = env.step({"action_type": "classify_ticket", "ticket_id": "T-304",
                        "priority": "low"})
    outage = next(t for t in obs.tickets if t["ticket_id"] == "T-301")
    assert [m["kind"] for m in outage["customer_messages"]] == ["follow_up"]
    assert env._engine.work("T-301").mood == "angry"
    idea = next(t for t in obs.tickets if t["ticket_id"] == "T-304")
    assert idea["customer_messages"] == []  # a low-priority ticket is not chased


def test_a_bad_answer_reopens_a_resolved_ticket():
    env = InboxTriageEnv()
    env.reset(task="inbox/medium_billing_bug_mix")
    env.step({"action_type": "respond_ticket", "ticket_id": "T-212",
              "response_template": "generic_acknowledgement"})
    obs = env.step({"action_type": "resolve_ticket", "ticket_id": "T-212",
                    "resolution_code": "shipping_update_provided"})
    resolved = {c.name: c.score for c in env.grade().components}["resolution"]
    for _ in range(7):
        obs = env.step({"action_type": "classify_ticket", "ticket_id": "T-211",
                        "priority": "medium"})
    ticket = next(t for t in obs.tickets if t["ticket_id"] == "T-212")
    assert ticket["status"] != "resolved" and ticket["resolution_code"] is None
    assert [m["kind"] for m in ticket["customer_messages"]] == ["reopen"]
    assert {c.name: c.score for c in env.grade().components}["resolution"] < resolved


def test_a_good_answer_stays_resolved():
    episode = run_episode("inbox/medium_billing_bug_mix", make_agent("oracle"))
    assert episode.grade == pytest.approx(1.0)


def test_full_queues_drain_over_time():
    scenario = load_task("triage/easy")
    tight = scenario.model_copy(update={"settings": Settings(
        max_steps=10, minutes_per_step=10, escalation_budget=2,
        queue_capacity={"support_tier1": 1}, queue_drain_minutes=30)})
    env = InboxTriageEnv()
    env.reset_scenario(tight)
    decision = {"priority": "low", "category": "general_inquiry", "route_to": "support_tier1"}
    assert env.step({**decision, "email_id": "e005"}).team_queue_remaining["support_tier1"] == 0
    assert env.step({**decision, "email_id": "e003"}).last_action_error["field"] == "route_to"
    env.step({**decision, "route_to": "archive", "email_id": "e003"})
    env.step({**decision, "route_to": "archive", "email_id": "e002"})
    obs = env.step({**decision, "email_id": "e004"})
    assert obs.last_action_error is None  # a place freed up after 30 minutes


def test_a_hand_built_scenario_with_an_arrival_and_an_answer_plays_through():
    base = load_task("ticket/easy_password_reset")
    ticket = base.tickets[0]
    late = Ticket(
        id="TCK-2", sender="a@b.example",
        customer=Customer(name="Ana Lima", email="a@b.example"),
        subject="Second", body="Another login problem.", arrives_at=15,
        truth=Truth(priority="low", queue="account", tags=("login",), resolution="close",
                    reply=ReplySpec(required_facts=(("link",),))),
    )
    scenario = base.model_copy(update={"tickets": (ticket, late)})
    env = InboxTriageEnv()
    obs = env.reset_scenario(scenario)
    assert obs.ticket_id == ticket.id
    assert len(env._engine.visible_ids()) == 1
    env.step({"action_type": "set_priority", "value": "medium"})
    env.step({"action_type": "set_priority", "value": "medium"})
    env.step({"action_type": "noop"})
    assert len(env._engine.visible_ids()) == 2


def test_asking_for_nothing_the_case_needs_costs_the_grade_and_says_nothing():
    env = InboxTriageEnv()
    env.reset(task="ticket/easy_password_reset")  # needs no evidence
    truth = env.scenario.tickets[0].truth
    env.step({"action_type": "set_priority", "value": truth.priority})
    before = env.grade().value
    assert before > 0
    obs = env.step({"action_type": "request_info", "value": "Could you send a screenshot?"})
    assert env.state.incidents == []  # nothing visible says it was needless ...
    components = {c.name: c.score for c in env.grade().components}
    assert components["info_request"] == -1.0 and env.grade().value < before  # ... it costs
    while not obs.customer_messages:
        obs = env.step({"action_type": "noop"})
    assert obs.customer_messages[0]["kind"] == "reply"  # the customer answers all the same
    other = "medium" if truth.priority != "medium" else "low"
    env.step({"action_type": "set_priority", "value": other})  # any answer is news
    assert [i["kind"] for i in env.state.incidents].count("revision") == 0


def test_a_wrong_label_does_not_stop_the_customer_chasing():
    base = load_task("inbox/hard_incident_security_queue")
    scenario = base.model_copy(update={"settings": base.settings.model_copy(
        update={"max_steps": 40})})
    env = InboxTriageEnv()
    env.reset_scenario(scenario)
    env.step({"action_type": "classify_ticket", "ticket_id": "T-301", "priority": "low"})
    for _ in range(12):  # 60 minutes: past the outage's true 15-minute deadline
        obs = env.step({"action_type": "classify_ticket", "ticket_id": "T-304",
                        "priority": "low"})
    outage = next(t for t in obs.tickets if t["ticket_id"] == "T-301")
    assert [m["kind"] for m in outage["customer_messages"]] == ["follow_up"]
