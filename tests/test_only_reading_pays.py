"""Only reading pays (issue 29): nothing an agent sees besides the mail itself gives the answer
away. One test per way the answers leaked, each an attack an optimiser would find."""

from __future__ import annotations

import json
import statistics
from collections import Counter

import pytest
from fastapi.testclient import TestClient

from inbox_triage.action_tools import render
from inbox_triage.agents import make_agent
from inbox_triage.env import InboxTriageEnv
from inbox_triage.evaluation.runner import run_episode
from inbox_triage.observations import ObservationMemory
from inbox_triage.scenarios.generator import generate
from inbox_triage.server.app import build_app

MODES = ("triage", "ticket", "inbox")
DIFFICULTIES = ("easy", "medium", "hard")
ROLE_WORDS = ("scammer", "press", "lawyer", "public body", "public_body", "prospect", "notice")


def scenarios(mode, difficulty="medium", count=40, split="train"):
    return [generate(mode, split, difficulty, seed) for seed in range(count)]


def first_views(mode, scenario):
    """Every ticket's view and rendered prompt at reset (all of them, arrivals included)."""
    env = InboxTriageEnv()
    arrived = scenario.model_copy(update={"tickets": tuple(
        t.model_copy(update={"arrives_at": 0}) for t in scenario.tickets)})
    obs = env.reset_scenario(arrived, observation="full").model_dump()
    if mode == "triage":
        return [(e, render(mode, {**obs, "current_email": e})) for e in obs["inbox"]]
    if mode == "inbox":
        return [(t, render(mode, {**obs, "tickets": [t]})) for t in obs["tickets"]]
    return [(obs, render(mode, obs))]


# 1. The sender's role --------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_the_sender_is_only_what_the_records_say_never_a_role(mode):
    roles: dict[str, Counter] = {}
    for difficulty in DIFFICULTIES:
        for scenario in scenarios(mode, difficulty, 25):
            for ticket, (view, prompt) in zip(scenario.tickets, first_views(mode, scenario),
                                              strict=True):
                assert "sender_role" not in view
                known = view["sender_known_as"]
                assert known in ("customer", "colleague", "vendor", "unknown")
                roles.setdefault(known, Counter())[ticket.customer.role] += 1
                lowered = prompt.lower()
                assert not any(f"({word})" in lowered for word in ROLE_WORDS), prompt
                if known == "unknown":  # nothing of the records: no company, account, tier
                    assert view.get("customer_account") is None
                    assert view.get("customer_company") is None
    if mode == "triage":
        # a scammer, a journalist and a lawyer look alike until the mail is read
        assert {"scammer", "press", "lawyer"} <= set(roles["unknown"])
        assert roles["unknown"]["scammer"] < sum(roles["unknown"].values()) * 0.6


# 2. Queue room ---------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ("triage", "inbox"))
def test_queue_room_is_the_same_for_episodes_of_one_size_whatever_their_mail(mode):
    rooms = {}
    for scenario in scenarios(mode, "hard", 40):
        rooms.setdefault(len(scenario.tickets), set()).add(
            json.dumps(scenario.settings.queue_capacity, sort_keys=True))
        capped = set(scenario.org.queues) - set(scenario.org.unlimited_queues)
        assert set(scenario.settings.queue_capacity) == capped  # every team, not the true routes
    assert all(len(found) == 1 for found in rooms.values()), rooms


def test_capacity_still_matters_in_hard_episodes():
    """Hard shifts fill teams' queues: the oracle sends mail to the backlog (policy Q1), and
    an agent that routes without looking at the room is refused."""

    class OneTeam:
        name = "one_team"

        def reset(self, observation, *, scenario, seed):
            pass

        def act(self, observation):
            email = observation["current_email"]
            if email is None:
                return {"action_type": "finish"}
            return {"email_id": email["email_id"], "priority": "urgent",
                    "category": "technical_support", "route_to": "support_tier2"}

    overflowed = refused = 0
    for seed in range(20):
        oracle = run_episode("triage/generated", make_agent("oracle"), seed, split="train",
                             difficulty="hard")
        assert oracle.grade == pytest.approx(1.0)
        overflowed += any(a.get("route_to") == "backlog" for a in oracle.actions)
        refused += run_episode("triage/generated", OneTeam(), seed, split="train",
                               difficulty="hard").invalid_actions > 0
    assert overflowed >= 3 and refused >= 15


# 3. The escalation budget ----------------------------------------------------------------------
@pytest.mark.parametrize(("mode", "needs"), [("triage", "flag_review"), ("inbox", "escalate_to")])
def test_the_budget_is_sometimes_more_and_sometimes_less_than_the_mail_needs(mode, needs):
    differences = []
    for difficulty in DIFFICULTIES:
        for scenario in scenarios(mode, difficulty, 40):
            needed = sum(1 for t in scenario.tickets if getattr(t.truth, needs))
            differences.append(scenario.settings.escalation_budget - needed)
    assert sum(d < 0 for d in differences) >= len(differences) // 8
    assert sum(d > 0 for d in differences) >= len(differences) // 8
    assert sum(d == 0 for d in differences) < len(differences) // 2


@pytest.mark.parametrize("mode", ("triage", "inbox"))
def test_an_agent_that_follows_the_policy_when_the_budget_runs_out_scores_full_marks(mode):
    short = [s for s in range(60) if (lambda sc: sc.settings.escalation_budget < sum(
        1 for t in sc.tickets if t.truth.flag_review or t.truth.escalate_to))(
        generate(mode, "train", "hard", s))]
    assert len(short) >= 5
    for seed in short[:5]:
        episode = run_episode(f"{mode}/generated", make_agent("oracle"), seed, split="train",
                              difficulty="hard")
        assert episode.grade == pytest.approx(1.0)


# 4. Time ---------------------------------------------------------------------------------------
def test_how_long_mail_waited_does_not_tell_its_priority():
    waited_long, everything = Counter(), Counter()
    for difficulty in DIFFICULTIES:
        for scenario in scenarios("triage", difficulty, 60):
            for t in scenario.tickets:
                everything[t.truth.priority] += 1
                if t.received_minutes_ago > 60:
                    waited_long[t.truth.priority] += 1
    share = everything["urgent"] / sum(everything.values())
    share_long = waited_long["urgent"] / sum(waited_long.values())
    assert share > 0.1 and abs(share_long - share) < 0.06, (share, share_long)


def test_sla_is_graded_only_where_working_in_deadline_order_could_meet_it():
    infeasible = [t for s in scenarios("triage", "hard", 30) for t in s.tickets
                  if not t.truth.sla_feasible]
    assert infeasible  # mail can arrive too late to answer in time ...
    for seed in range(10):  # ... and the oracle still scores 1.0
        episode = run_episode("triage/generated", make_agent("oracle"), seed, split="train",
                              difficulty="hard")
        assert episode.grade == pytest.approx(1.0)


# 5. Step budgets -------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_the_step_budget_depends_on_how_much_mail_there_is_not_what_it_needs(mode):
    budgets: dict[tuple[str, int], set[int]] = {}
    for difficulty in DIFFICULTIES:
        for scenario in scenarios(mode, difficulty, 30):
            key = (difficulty, len(scenario.tickets))
            budgets.setdefault(key, set()).add(scenario.settings.max_steps)
    assert all(len(found) == 1 for found in budgets.values()), budgets


# 6. Follow-ups and events ----------------------------------------------------------------------
def test_customers_chase_at_every_priority():
    from inbox_triage.domain import Engine

    chased = Counter()
    for scenario in scenarios("triage", "hard", 40):
        engine = Engine(scenario)
        engine.advance(600)  # ten hours and nobody answered: whoever is impatient chases
        for ticket in scenario.tickets:
            chased[ticket.truth.priority] += engine.work(ticket.id).followed_up
    assert chased["low"] + chased["medium"] > 0 and chased["urgent"] + chased["high"] > 0


def _after_asking(task, needed):
    env = InboxTriageEnv()
    obs = env.reset(**task, observation="full").model_dump()
    ticket = next(t for t in env.scenario.tickets if t.truth.needs_info is needed
                  and t.id in {e["email_id"] for e in obs["inbox"]})
    obs = env.step({"action_type": "request_info", "email_id": ticket.id,
                    "value": "Could you send us a screenshot of the error?"}).model_dump()
    for _ in range(4):
        if env.done:
            break
        pending = [e["email_id"] for e in obs["inbox"] if not e["processed"]
                   and e["email_id"] != ticket.id]
        obs = env.step({"email_id": pending[0], "priority": "low", "category":
                        "general_inquiry", "route_to": "archive"}).model_dump()
    kinds = sorted({e["kind"] for e in env.state.model_dump()["incidents"]})
    events = sorted({e["kind"] for e in obs["recent_events"] if e["ticket_id"] == ticket.id}
                    - {"sla_breached"})  # by the deadline the agent sees: its own business
    view = next(e for e in obs["inbox"] if e["email_id"] == ticket.id)
    return kinds, events, [m["kind"] for m in view["customer_messages"]]


def test_a_needless_request_leaves_no_trace_that_says_so():
    task = {"task": "triage/generated", "seed": 4, "split": "train", "difficulty": "hard"}
    needed, needless = _after_asking(task, True), _after_asking(task, False)
    assert needed == needless  # the same incidents, events and a customer's answer in both
    assert needless[2] == ["reply"]


@pytest.mark.parametrize("mode", MODES)
def test_asking_everyone_for_information_does_not_raise_the_grade(mode):
    from inbox_triage.agents.heuristic import EVIDENCE_REQUEST, HeuristicAgent

    class AskEveryone(HeuristicAgent):
        def plan_for(self, item, obs):
            plan = super().plan_for(item, obs)
            if (obs["mode"] == "triage" and item["done"]) or any(
                    a.get("action_type") == "request_info" for a in plan):
                return plan
            key = {"triage": "email_id", "inbox": "ticket_id"}.get(obs["mode"])
            ask = {"action_type": "request_info", "value": EVIDENCE_REQUEST}
            return [{**ask, key: item["id"]} if key else ask, *plan]

    plain, asking = [], []
    for difficulty in DIFFICULTIES:
        for seed in range(12):
            args = {"split": "test", "difficulty": difficulty}
            plain.append(run_episode(f"{mode}/generated", HeuristicAgent(), seed, **args).grade)
            asking.append(run_episode(f"{mode}/generated", AskEveryone(), seed, **args).grade)
    assert statistics.mean(asking) < statistics.mean(plain)


# 7. One set of rules on every route ------------------------------------------------------------
def test_an_invalid_action_costs_the_same_over_http_the_socket_mcp_and_in_process():
    bad = {"action_type": "teleport"}
    reset = {"task": "ticket/generated", "seed": 3, "split": "test"}
    env = InboxTriageEnv()
    env.reset(**reset)
    local = env.step(bad)
    client = TestClient(build_app(max_sessions=4))
    client.post("/reset", json=reset)
    http = client.post("/step", json=bad)
    assert http.status_code == 200
    assert http.json()["observation"]["last_action_error"]["field"] == "action_type"
    assert local.reward < 0 and http.json()["reward"] == pytest.approx(local.reward)
    assert client.get("/state").json()["step_count"] == 1
    with client.websocket_connect("/ws") as socket:
        socket.send_json({"type": "reset", "data": reset})
        socket.receive_json()
        socket.send_json({"type": "step", "data": bad})
        frame = socket.receive_json()["data"]
        assert frame["reward"] == pytest.approx(local.reward)
        socket.send_json({"type": "step", "data": {"colour": "red"}})  # not an action field
        assert socket.receive_json()["data"]["observation"]["step_count"] == 2
    def rpc(method, params, session=None):
        headers = {"Mcp-Session-Id": session} if session else {}
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        return client.post("/mcp", json=body, headers=headers)

    session = rpc("initialize", {"protocolVersion": "2025-06-18"}).headers["mcp-session-id"]
    rpc("reset", reset, session)
    called = rpc("tools/call", {"name": "teleport", "arguments": {}}, session).json()["result"]
    assert called["structuredContent"]["reward"] == pytest.approx(local.reward)
    for _ in range(200):  # 200 of them end the episode: none is free
        answer = client.post("/step", json=bad)
        if answer.status_code != 200:
            break
    assert answer.status_code == 409
    state = client.get("/state").json()
    assert state["step_count"] == state["max_steps"] and state["invalid_actions"] == state[
        "max_steps"]


# 8. Replaying a seed ---------------------------------------------------------------------------
@pytest.fixture
def sealed():
    from inbox_triage.seal import Seal

    return TestClient(build_app(max_sessions=8, seal=Seal(b"k" * 32)))


def test_a_sealed_server_refuses_chosen_seeds_and_never_repeats_an_episode(sealed):
    refused = sealed.post("/reset", json={"task": "triage/generated", "seed": 7})
    assert refused.status_code == 422 and refused.json()["error"]["field"] == "seed"
    fixed = sealed.post("/reset", json={"task": "triage/easy"})
    assert fixed.status_code == 422 and "triage/generated" in fixed.json()["error"]["allowed"]
    seen = set()
    for session in ("a", "b", "c"):  # the same request in three scratch sessions
        answer = sealed.post("/reset", json={"task": "triage/generated", "split": "test",
                                             "difficulty": "easy", "session_id": session})
        observation = answer.json()["observation"]
        assert "seed" not in observation["title"]
        state = sealed.get("/state", headers={"X-Session-Id": session}).json()
        assert state["seed"] is None and state["episode_id"].startswith("sealed-")
        seen.add(json.dumps([e["body"] for e in observation["inbox"]]))
    assert len(seen) == 3


def test_final_rewards_are_withheld_until_the_end(sealed):
    sealed.post("/reset", json={"task": "ticket/generated", "split": "test"})
    assert sealed.get("/grader").status_code == 409
    rewards = []
    for action in ({"action_type": "set_priority", "value": "high"},
                   {"action_type": "noop"}, {"action_type": "close_ticket"}):
        answer = sealed.post("/step", json=action).json()
        rewards.append(answer["reward"])
        if not answer["done"]:
            assert answer["observation"]["progress_score"] == 0.0
            assert sealed.get("/state").json()["incidents"] == []  # the noop's is withheld
    grade = sealed.get("/grader").json()
    assert rewards[:-1] == [0.0, 0.0]
    assert rewards[-1] == pytest.approx(grade["score"] - grade["penalties"], abs=1e-5)


def test_in_process_reward_mode_final_sums_to_the_grade_less_penalties():
    env = InboxTriageEnv()
    reset = env.reset(task="inbox/generated", seed=2, reward_mode="final")
    memory, agent = ObservationMemory(), make_agent("heuristic")
    observation = memory.update(reset.model_dump())
    agent.reset(observation, scenario=None, seed=2)
    rewards = []
    while not env.done:
        obs = env.step(agent.act(observation))
        observation = memory.update(obs.model_dump())
        rewards.append(obs.reward)
    assert all(r == 0.0 for r in rewards[:-1])
    assert sum(rewards) == pytest.approx(env.grade().value - env.penalties)


def test_a_sealed_server_plays_only_the_newest_generators_test_episodes(sealed):
    for body, field in (
        ({"task": "triage/generated@v2"}, "task"),  # an older generator gives answers away
        ({"task": "triage/pack:acme"}, "task"),  # a pack repeats its tickets
        ({"task": "triage/generated", "split": "train"}, "split"),
        ({"task": "triage/generated", "adversarial_rate": 0.0}, "adversarial_rate"),
        ({"task": "triage/generated", "reward_mode": "dense"}, "reward_mode"),
    ):
        answer = sealed.post("/reset", json=body)
        assert answer.status_code == 422 and answer.json()["error"]["field"] == field, body
    bare = sealed.post("/reset", json={})  # a plain reset plays the newest generated task
    assert bare.status_code == 200 and bare.json()["observation"]["task_id"] == "triage/generated"
    assert "test split" in bare.json()["observation"]["title"]
    with sealed.websocket_connect("/ws") as socket:
        socket.send_json({"type": "reset", "data": {"task": "ticket/generated", "seed": 3}})
        assert socket.receive_json()["type"] == "error"
    mcp = sealed.post("/mcp?task=ticket/generated&seed=3", json={
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18"}})
    assert "seed" in json.dumps(mcp.json()) and "result" not in mcp.json(), mcp.json()


def test_final_rewards_hide_incidents_and_nothing_is_paid_twice():
    env = InboxTriageEnv()
    env.reset(task="ticket/generated", seed=5, split="test", reward_mode="final")
    obs = env.step({"action_type": "noop"})  # an incident: a penalty
    assert obs.reward == 0.0 and not [e for e in obs.recent_events if e["kind"] == "noop"]
    obs = env.step({"action_type": "close_ticket"})
    assert obs.done and obs.reward == pytest.approx(env.grade().value - env.penalties)
    after = env.step({"action_type": "noop"})  # refused: the episode has ended
    assert after.reward == 0.0


def test_a_needless_request_costs_in_the_reward_when_it_is_made():
    env = InboxTriageEnv()
    obs = env.reset(task="triage/generated", seed=4, split="train", difficulty="hard",
                    observation="full")
    visible = {e["email_id"] for e in obs.inbox}
    needless = next(t for t in env.scenario.tickets if not t.truth.needs_info
                    and t.id in visible)
    first = env.step({"action_type": "request_info", "email_id": needless.id,
                      "value": "Could you send us a screenshot?"})
    assert first.reward < 0  # even as the episode's first step, with the grade still at 0
    assert first.progress_score == 0.0


def test_a_ticket_decided_by_trial_and_error_earns_a_quarter_of_everything():
    from inbox_triage.grading.components import CHANGED_DECISION_CREDIT

    assert CHANGED_DECISION_CREDIT == 0.25

    def play(priorities):
        env = InboxTriageEnv()
        env.reset(task="ticket/generated", seed=11, split="test")
        truth = env.scenario.tickets[0].truth
        for value in [*priorities, truth.priority]:
            env.step({"action_type": "set_priority", "value": value})
        env.step({"action_type": "route_team", "value": truth.queue})
        for tag in truth.tags:
            env.step({"action_type": "add_tag", "value": tag})
        return {c.name: c.score for c in env.grade().components}, truth

    straight, truth = play([])
    wrong = next(p for p in ("low", "medium", "high", "urgent") if p != truth.priority)
    tried, _ = play([wrong])
    for name in ("priority", "routing", "tags"):
        assert tried[name] == pytest.approx(straight[name] * 0.25), name


def test_changing_the_escalation_target_is_a_changed_decision():
    env = InboxTriageEnv()
    env.reset(task="inbox/generated", seed=3, split="test", difficulty="easy")
    ticket = env.scenario.tickets[0]
    env.step({"action_type": "escalate_ticket", "ticket_id": ticket.id, "escalate_to": "legal"})
    budget = env.state.escalation_budget_remaining
    env.step({"action_type": "escalate_ticket", "ticket_id": ticket.id,
              "escalate_to": "engineering"})
    assert [i["kind"] for i in env.state.incidents] == ["revision"]
    assert env.state.escalation_budget_remaining == budget  # no second place spent


def test_resolving_a_specialists_ticket_counts_even_after_the_customer_reopens_it():
    env = InboxTriageEnv()
    env.reset(task="inbox/generated", seed=1, split="test", difficulty="easy")
    ticket = next(t for t in env.scenario.tickets if t.truth.resolution is None)
    env.step({"action_type": "resolve_ticket", "ticket_id": ticket.id,
              "resolution_code": "question_answered"})
    other = next(t for t in env.scenario.tickets if t.id != ticket.id)
    for priority in ("low", "medium") * 4:  # 40 minutes: the customer comes back, it reopens
        env.step({"action_type": "classify_ticket", "ticket_id": other.id, "priority": priority})
    assert env._engine.work(ticket.id).resolution is None
    assert {c.name: c.score for c in env.grade().components}["resolution"] == 0.0
