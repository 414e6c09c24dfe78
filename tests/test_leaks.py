"""Nothing only the truth holds ever reaches a client: not its fields, not its values, and not
a customer's answer before anyone asked."""

from __future__ import annotations

from functools import cache

import pytest
from fastapi.testclient import TestClient

from inbox_triage.agents import make_agent
from inbox_triage.observations import ObservationMemory
from inbox_triage.scenarios import fixed_task_ids
from inbox_triage.scenarios.sources import make_scenario
from inbox_triage.server.app import build_app

TRUTH_FIELDS = ("truth", "required_facts", "summary_facts", "info_keywords", "needs_info",
                "customer_reply")
EPISODES = [(task, {}) for task in fixed_task_ids()] + [
    (f"{mode}/generated", {"split": split, "seed": seed, "difficulty": "hard"})
    for mode in ("triage", "ticket", "inbox") for split, seed in (("test", 1), ("train", 2))
]


def truth_only_values(scenario) -> set[str]:
    """Fact phrasings nothing visible contains: the words of the answer, not of the question."""
    lines = scenario.customer_lines
    visible = " ".join([
        scenario.policy.text, scenario.org.guide, *scenario.org.templates.values(),
        *lines.reveals, *lines.follow_ups, *lines.secret_compliance, *lines.reopen,
        *(f"{t.subject} {t.body} {' '.join(m.body for m in t.thread)} {t.follow_up or ''} "
          f"{t.customer_reply.body if t.customer_reply else ''}" for t in scenario.tickets),
    ]).lower()
    values = set()
    for t in scenario.tickets:
        spec = t.truth.reply
        for group in (*t.truth.summary_facts, *(spec.required_facts if spec else ())):
            values |= {p.lower() for p in group if len(p) >= 8 and p.lower() not in visible}
    return values


@cache
def environment_words() -> str:
    """What the environment itself says in every episode ("decision recorded"), taken from an
    episode of another scenario, so that none of it can be this scenario's truth."""
    client = TestClient(build_app(max_sessions=1))
    said = []
    for task in ("triage/easy", "ticket/easy_password_reset", "inbox/easy_password_reset"):
        response = client.post("/reset", json={"task": task})
        agent, memory = make_agent("heuristic"), ObservationMemory()
        observation = memory.update(response.json()["observation"])
        agent.reset(observation, scenario=None, seed=0)
        for _ in range(60):
            response = client.post("/step", json=agent.act(observation))
            said.append(response.text.lower())
            observation = memory.update(response.json()["observation"])
            if response.json()["done"]:
                break
    return " ".join(said)


@pytest.mark.parametrize(("task", "args"), EPISODES)
def test_no_response_of_a_full_episode_holds_truth(task, args):
    client = TestClient(build_app(max_sessions=4))
    scenario = make_scenario(task, None, args.get("split"), args.get("difficulty"),
                             args.get("seed"))
    secrets = truth_only_values(scenario)
    answers = {t.customer_reply.body for t in scenario.tickets if t.customer_reply}
    reset = client.post("/reset", json={"task": task, **args})
    assert reset.status_code == 200
    public = [client.get("/tasks").text, client.get("/schema").text, client.get("/metadata").text]
    # The state's own field names ("escalated_to") are public too: a customer who writes that
    # they "escalated" it leaks nothing.
    public.append(" ".join(next(iter(client.get("/state").json()["tickets"].values()))))
    responses = [*public, reset.text]
    agent, memory = make_agent("heuristic"), ObservationMemory()  # lean steps made whole
    observation = memory.update(reset.json()["observation"])
    agent.reset(observation, scenario=None, seed=0)
    # What the public documents say (every org's templates, guides) is no secret; nor are the
    # agent's own words coming back to it.
    asked, sent = False, [text.lower() for text in public] + [environment_words()]
    for _ in range(200):
        action = agent.act(observation)
        sent.append(str(action).lower())  # the agent's own words may come back to it
        asked = asked or action.get("action_type") == "request_info"
        response = client.post("/step", json=action)
        responses += [response.text, client.get("/state").text, client.get("/grader").text]
        if not asked:  # an answer shows up only after someone asks for it
            assert not any(answer in response.text for answer in answers)
        if response.status_code != 200:
            continue
        observation = memory.update(response.json()["observation"])
        if response.json()["done"]:
            break
    responses.append(client.post("/step", json={"action_type": "teleport"}).text)
    for text in responses:
        lowered = text.lower()
        for marker in TRUTH_FIELDS:
            assert marker not in text, marker
        said = " ".join(sent)
        leaked = [value for value in secrets if value in lowered and value not in said]
        assert not leaked, leaked[:3]
