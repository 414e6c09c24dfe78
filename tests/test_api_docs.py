"""``/openapi.json`` (what ``/docs`` shows): real request and response schemas for the routes
that read their JSON by hand, examples that "Try it out" can send, and models that the
server's real answers fit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from inbox_triage.evaluation.runs import RunConfig, run
from inbox_triage.modes import MODE_VIEWS
from inbox_triage.server.api_docs import RESET_EXAMPLES, ROUTES, STEP_EXAMPLES
from inbox_triage.server.api_models import (
    action_models,
    baseline_answer_model,
    baseline_model,
    console_models,
    reset_model,
    step_answer_model,
    step_model,
)
from inbox_triage.server.app import build_app
from inbox_triage.server.run_library import RunLibrary
from inbox_triage.server.sessions import RESET_FIELDS

BODIES = {("post", "/reset"), ("post", "/step"), ("post", "/baseline")}
CONSOLE = ["leave", "resume", "limits", "setup", "episodes", "replay", "compare"]
TAKES_PARAMETERS = {("get", "/state")} | {
    ("post" if name == "leave" else "get", f"/web/api/{name}")
    for name in CONSOLE
    if name != "setup"  # the setup form's offer takes nothing
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    run(RunConfig(agents=["heuristic"], tasks=["inbox/medium_billing_bug_mix"]), root / "one")
    return root


@pytest.fixture(scope="module")
def client(runs) -> TestClient:
    return TestClient(build_app(max_sessions=8, runs=RunLibrary.from_folders([runs])))


@pytest.fixture(scope="module")
def schema(client) -> dict[str, Any]:
    answer = client.get("/openapi.json")
    assert answer.status_code == 200
    return answer.json()


def resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def examples(schema: dict[str, Any], path: str) -> dict[str, Any]:
    content = schema["paths"][path]["post"]["requestBody"]["content"]["application/json"]
    return {name: example["value"] for name, example in content["examples"].items()}


def test_the_routes_have_request_bodies_parameters_and_object_answers(schema):
    paths = schema["paths"]
    wanted = {(m, p) for m, p in ROUTES}
    assert wanted >= BODIES | TAKES_PARAMETERS
    assert {p for _, p in wanted} >= {"/reset", "/step", "/baseline"} | {
        f"/web/api/{name}" for name in CONSOLE
    }
    for method, path in sorted(wanted):
        operation = paths[path][method]
        if (method, path) in BODIES:
            body = operation["requestBody"]["content"]["application/json"]["schema"]
            assert resolve(schema, body)["type"] == "object", path
            assert resolve(schema, body)["properties"], path
        if (method, path) in TAKES_PARAMETERS:
            assert operation["parameters"], path
        if path == "/web/api/leave":
            assert "204" in operation["responses"]
            continue
        answer = operation["responses"]["200"]["content"]["application/json"]["schema"]
        resolved = resolve(schema, answer)
        assert resolved["type"] == "object" and resolved["properties"], path
        for code, response in operation["responses"].items():
            if code.startswith("4") or code.startswith("5"):
                error = resolve(schema, response["content"]["application/json"]["schema"])
                assert set(error["properties"]) == {"error"}, (path, code)


def test_the_step_action_is_one_model_per_mode_and_action_type(schema):
    step = resolve(schema, schema["components"]["schemas"]["StepRequest"])
    refs = {r["$ref"].rsplit("/", 1)[1] for r in step["properties"]["action"]["anyOf"]}
    assert len(refs) == sum(len(view.actions) for view in MODE_VIEWS.values())
    email = schema["components"]["schemas"]["TriageTriageEmail"]
    assert email["required"] == ["email_id", "priority", "category", "route_to"]
    assert email["properties"]["action_type"]["default"] == "triage_email"  # the mode's default
    assert email["properties"]["email_id"]["maxLength"] == 200  # the wire model's limit
    assert email["additionalProperties"] is False
    for (mode, kind), model in action_models().items():
        required, optional = MODE_VIEWS[mode].actions[kind]
        assert set(model.model_fields) == {"action_type", "metadata", *required, *optional}


def test_the_reset_body_is_every_reset_field_and_the_session():
    assert set(reset_model().model_fields) == RESET_FIELDS | {"session_id"}


def test_the_examples_fit_the_models(schema):
    for body in examples(schema, "/reset").values():
        reset_model().model_validate(body)
    for body in examples(schema, "/step").values():
        step_model().model_validate(body)
    for body in examples(schema, "/baseline").values():
        baseline_model().model_validate(body)
    assert examples(schema, "/reset") == RESET_EXAMPLES
    assert examples(schema, "/step") == STEP_EXAMPLES


def test_try_it_out_the_step_example_after_a_reset_plays(schema):
    """What Swagger fills in: a bare POST /reset, then /step's first example."""
    client = TestClient(build_app(max_sessions=4))
    assert client.post("/reset").status_code == 200
    first = next(iter(examples(schema, "/step").values()))
    answer = client.post("/step", json=first)
    assert answer.status_code == 200, answer.text
    played = answer.json()
    assert played["observation"]["last_action_error"] is None
    assert played["observation"]["step_count"] == 1
    assert played["observation"]["task_id"] == "triage/easy"
    assert isinstance(played["reward"], float) and played["reward"] > 0
    step_answer_model().model_validate(played)


@pytest.mark.parametrize("name", list(STEP_EXAMPLES))
def test_each_step_example_plays_in_its_reset_examples_episode(schema, name):
    client = TestClient(build_app(max_sessions=4))
    reset = client.post("/reset", json=examples(schema, "/reset")[name])
    assert reset.status_code == 200, reset.text
    step_answer_model().model_validate(reset.json())
    answer = client.post("/step", json=examples(schema, "/step")[name])
    assert answer.status_code == 200, answer.text
    step_answer_model().model_validate(answer.json())
    assert answer.json()["observation"]["last_action_error"] is None, name


def test_the_baseline_examples_answer_as_documented(schema):
    client = TestClient(build_app(max_sessions=4))
    for name, body in examples(schema, "/baseline").items():
        answer = client.post("/baseline", json=body)
        assert answer.status_code == 200, (name, answer.text)
        baseline_answer_model().model_validate(answer.json())


def test_the_consoles_answers_fit_their_models(client):
    models = console_models()
    session = client.post("/sessions").json()["session_id"]
    tab = {"X-Session-Id": session}
    assert client.post("/reset", headers=tab, json={"task": "ticket/easy_password_reset"})
    for name in ("resume", "limits"):
        answer = client.get(f"/web/api/{name}", headers=tab)
        assert answer.status_code == 200, answer.text
        models[name].model_validate(answer.json())
    models["setup"].model_validate(client.get("/web/api/setup").json())
    listed = client.get("/web/api/episodes", params={"run": "one", "min_grade": 0}).json()
    models["episodes"].model_validate(listed)
    key = listed["episodes"][0]["key"]
    replay = client.get("/web/api/replay", params={"run": "one", "key": key})
    assert replay.status_code == 200, replay.text
    models["replay"].model_validate(replay.json())
    pair = {"a_run": "one", "a_key": key, "b_run": "one", "b_key": key}
    compare = client.get("/web/api/compare", params=pair)
    assert compare.status_code == 200, compare.text
    models["compare"].model_validate(compare.json())
    assert client.post("/web/api/leave", headers=tab).status_code == 204


def test_the_state_answer_is_the_state_model(client, schema):
    client.post("/reset", headers={"X-Session-Id": "docs"})
    state = client.get("/state", headers={"X-Session-Id": "docs"}).json()
    operation = schema["paths"]["/state"]["get"]
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert ref.endswith("/TriageState") and state["step_count"] == 0


def test_refusals_are_unchanged_by_the_schemas(client):
    """The schema documents; it does not validate: refusals keep the server's own shape."""
    bad = client.post("/reset", json={"colour": "red"})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "colour"
    client.post("/reset")
    refused = client.post("/step", json={"action_type": "teleport"})
    assert refused.status_code == 200
    assert refused.json()["observation"]["last_action_error"]["field"] == "action_type"
