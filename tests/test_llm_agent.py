"""The LLM agent's protocol against a scripted chat API: tool calls, JSON answers, invalid
answers explained back and retried, refusals stepped down, and nothing replaced by finish."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import httpx
import openai
import pytest

from inbox_triage.agents import LLMAgent, LLMConfig
from inbox_triage.agents.llm_actions import parse_json_action, validate_action
from inbox_triage.env import InboxTriageEnv
from inbox_triage.evaluation.runs import EpisodeSpec, play
from inbox_triage.models import TriageAction

CONFIG = LLMConfig(model="scripted", base_url="http://unused.invalid/v1", invalid_retries=2)


def tool_answer(name: str, **arguments: Any) -> SimpleNamespace:
    call = SimpleNamespace(function=SimpleNamespace(name=name, arguments=json.dumps(arguments)))
    return _response(SimpleNamespace(content=None, tool_calls=[call]))


def tool_answer_raw(name: str, arguments: str) -> SimpleNamespace:
    call = SimpleNamespace(function=SimpleNamespace(name=name, arguments=arguments))
    return _response(SimpleNamespace(content=None, tool_calls=[call]))


def text_answer(text: str) -> SimpleNamespace:
    return _response(SimpleNamespace(content=text, tool_calls=None))


def _response(message: SimpleNamespace | None) -> SimpleNamespace:
    usage = SimpleNamespace(prompt_tokens=100, completion_tokens=10)
    choices = [] if message is None else [SimpleNamespace(message=message)]
    return SimpleNamespace(choices=choices, usage=usage)


def bad_request(message: str) -> openai.BadRequestError:
    request = httpx.Request("POST", "http://unused.invalid/v1/chat/completions")
    return openai.BadRequestError(message, response=httpx.Response(400, request=request),
                                  body=None)


class ScriptedChat:
    """Plays back answers (or raises errors) in order and keeps every request."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.requests: list[dict[str, Any]] = []
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self.create))

    def create(self, **request: Any) -> Any:
        self.requests.append(json.loads(json.dumps(request)))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def start(task: str = "ticket/easy_password_reset", *answers: Any) -> tuple[LLMAgent, Any, Any]:
    client = ScriptedChat(*answers)
    agent = LLMAgent(CONFIG, client=client)
    env = InboxTriageEnv()
    observation = env.reset(task=task, seed=0)
    agent.reset(observation.model_dump(), scenario=None, seed=0)
    return agent, env, observation


def test_a_tool_call_becomes_the_action_and_the_prompt_shows_policy_and_vocabulary():
    agent, env, observation = start("ticket/easy_password_reset",
                                    tool_answer("set_priority", value="medium"))
    action = agent.act(observation.model_dump())
    assert action == {"action_type": "set_priority", "value": "medium"}
    request = agent.client.requests[0]
    system = request["messages"][0]["content"]
    assert "Support policy" in system and "password-reset" in system  # policy and tags
    tools = {t["function"]["name"]: t["function"]["parameters"] for t in request["tools"]}
    assert set(tools) == set(observation.allowed_actions)
    assert tools["set_priority"]["properties"]["value"]["enum"] == ["low", "medium", "high",
                                                                     "urgent"]
    assert request["temperature"] == 0.0
    result = env.step(action)
    assert result.last_action_error is None
    assert agent.usage.tokens() == {"prompt": 100, "completion": 10, "total": 110}


def test_without_tool_calls_the_agent_switches_to_schema_constrained_json():
    agent, env, observation = start(
        "ticket/easy_password_reset",
        text_answer('Sure! ```json\n{"action_type": "route_team", "value": "account"}\n```'),
        text_answer('{"action": {"action_type": "add_tag", "value": "login"}}'),
    )
    assert agent.act(observation.model_dump()) == {"action_type": "route_team",
                                                   "value": "account"}
    observation = env.step({"action_type": "route_team", "value": "account"})
    assert agent.act(observation.model_dump()) == {"action_type": "add_tag", "value": "login"}
    second = agent.client.requests[1]
    assert "tools" not in second
    schema = second["response_format"]["json_schema"]["schema"]
    assert schema["type"] == "object" and schema["required"] == ["action"]
    options = schema["properties"]["action"]["anyOf"]
    kinds = {option["properties"]["action_type"]["enum"][0] for option in options}
    assert kinds == set(observation.allowed_actions)


def test_an_invalid_answer_is_explained_back_and_retried():
    agent, env, observation = start(
        "inbox/easy_password_reset",
        tool_answer("classify_ticket", ticket_id="T-101", priority="critical"),
        tool_answer("classify_ticket", ticket_id="T-101", priority="urgent"),
    )
    action = agent.act(observation.model_dump())
    assert action["priority"] == "urgent"
    retry = agent.client.requests[1]["messages"]
    feedback = retry[-1]["content"]
    assert "priority" in feedback and "'critical' is not allowed" in feedback
    assert '"urgent"' in feedback  # the allowed values are named
    assert agent.usage.invalid_outputs == 1 and agent.usage.submitted_invalid == 0
    assert env.step(action).last_action_error is None


def test_a_still_invalid_answer_is_sent_as_it_is_and_counted_never_replaced_by_finish():
    garbage = text_answer("I think the customer is sad.")
    agent, env, observation = start("ticket/easy_password_reset", garbage, garbage, garbage,
                                    garbage)
    action = agent.act(observation.model_dump())
    assert action == {"action_type": "unparseable_model_output"}
    assert len(agent.client.requests) == 3  # the first try and two retries
    assert agent.usage.submitted_invalid == 1
    result = env.step(action)
    assert result.last_action_error is not None and not result.done
    assert env.state.invalid_actions == 1


def test_servers_that_refuse_tools_or_schemas_are_asked_more_simply():
    agent, _env, observation = start(
        "ticket/easy_password_reset",
        bad_request("tool_choice 'required' is not supported"),
        bad_request("tools are not supported"),
        bad_request("response_format json_schema is not supported"),
        text_answer('{"action_type": "set_priority", "value": "high"}'),
    )
    assert agent.act(observation.model_dump()) == {"action_type": "set_priority",
                                                   "value": "high"}
    requests = agent.client.requests
    assert requests[0]["tool_choice"] == "required"
    assert requests[1]["tool_choice"] == "auto"
    assert "tools" not in requests[2] and requests[2]["response_format"]["type"] == "json_schema"
    assert requests[3]["response_format"] == {"type": "json_object"}
    assert "JSON object" in requests[3]["messages"][0]["content"]


def test_step_downs_are_remembered_and_other_refusals_are_raised():
    agent, env, observation = start(
        "ticket/easy_password_reset",
        text_answer('{"action_type": "set_priority", "value": "high"}'),  # no tool call
        bad_request("response_format json_schema is not supported"),
        text_answer('{"action_type": "route_team", "value": "account"}'),
        text_answer('{"action_type": "add_tag", "value": "login"}'),
        bad_request("This model's maximum context length is 8192 tokens"),
    )
    agent.act(observation.model_dump())
    observation = env.step({"action_type": "set_priority", "value": "high"})
    agent.act(observation.model_dump())
    observation = env.step({"action_type": "route_team", "value": "account"})
    agent.act(observation.model_dump())
    formats = [r.get("response_format", {}).get("type") for r in agent.client.requests]
    assert formats == [None, "json_schema", "json_object", "json_object"]  # asked once
    with pytest.raises(openai.BadRequestError, match="context length"):
        agent.act(env.step({"action_type": "add_tag", "value": "login"}).model_dump())


def test_an_answer_cut_off_at_the_token_limit_is_told_so():
    cut = text_answer('{"action": {"action_type": "draft_reply", "value": "Hello Lena, we')
    cut.choices[0].finish_reason = "length"
    agent, _env, observation = start(
        "ticket/easy_password_reset", cut,
        text_answer('{"action": {"action_type": "draft_reply", "value": "Hello Lena."}}'))
    assert agent.act(observation.model_dump())["value"] == "Hello Lena."
    assert "cut off at the token limit" in agent.client.requests[1]["messages"][-1]["content"]


def test_odd_tool_calls_are_invalid_answers_not_crashes():
    agent, env, observation = start(
        "ticket/easy_password_reset",
        tool_answer_raw("set_priority", '["medium"]'),
        _response(None),  # no choices at all, as a content filter may answer
        tool_answer("set_priority", value="low", action_type="close_ticket"),
    )
    action = agent.act(observation.model_dump())
    # The tool's name is the action: arguments cannot turn it into another one.
    assert action == {"action_type": "set_priority", "value": "low"}
    assert agent.usage.invalid_outputs == 2
    assert not env.step(action).done


def test_what_is_finally_sent_is_counted_the_same_in_process_and_over_the_wire():
    bad = text_answer('{"action_type": "classify_ticket", "ticket_id": "T-101", '
                      '"priority": 5, "mood": "sad"}')
    agent, env, observation = start("inbox/easy_password_reset", bad, bad, bad)
    action = agent.act(observation.model_dump())
    # The wrongly typed and unknown fields are dropped, so a server's wire model accepts it
    # and the environment, not the transport, refuses it.
    assert action == {"action_type": "classify_ticket", "ticket_id": "T-101"}
    TriageAction.model_validate(action)
    result = env.step(action)
    assert result.last_action_error["field"] == "priority"
    assert env.state.invalid_actions == 1 and agent.usage.submitted_invalid == 1


def test_an_episode_through_the_runner_records_tokens_and_the_model_actions():
    answers = [tool_answer("set_priority", value="medium"),
               tool_answer("route_team", value="account"),
               tool_answer("close_ticket")]
    client = ScriptedChat(*answers)
    spec = EpisodeSpec("llm", "ticket/easy_password_reset", None, None, seed=0, trial=0)
    record = play(spec, LLMAgent(CONFIG, client=client))
    assert [s.action["action_type"] for s in record.trajectory] == ["set_priority", "route_team",
                                                                    "close_ticket"]
    assert record.tokens == {"prompt": 300, "completion": 30, "total": 330}
    assert record.agent_stats == {"model_calls": 3, "invalid_answers": 0, "sent_invalid": 0}
    assert 0 < record.grade < 1 and record.invalid_actions == 0
    # The model sees what its last action led to.
    last_prompt = client.requests[-1]["messages"][1]["content"]
    assert "route_team" in last_prompt and "reward" in last_prompt


def test_configuration_comes_from_the_seeds_environment_variables(monkeypatch):
    monkeypatch.setenv("API_BASE_URL", "http://localhost:9/v1")
    monkeypatch.setenv("MODEL_NAME", "some/model")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    config = LLMConfig.from_env()
    assert (config.base_url, config.model, config.api_key) == ("http://localhost:9/v1",
                                                               "some/model", "sk-test")
    assert "sk-test" not in json.dumps(config.public())
    assert LLMConfig.from_env(model="other").model == "other"
    monkeypatch.setenv("HF_TOKEN", "hf-test")
    assert LLMConfig.from_env().api_key == "hf-test"
    monkeypatch.delenv("MODEL_NAME")
    with pytest.raises(ValueError, match="MODEL_NAME"):
        LLMConfig.from_env()
    with pytest.raises(ValueError, match="protocol 'xml' is not one of auto, tools, json"):
        LLMConfig.from_env(model="m", protocol="xml")


def test_json_is_found_in_what_models_write_and_checked_against_the_shapes():
    assert parse_json_action('noise {"action_type": "finish"} more') == {"action_type": "finish"}
    assert parse_json_action("no json here") is None
    shapes = {"finish": {"properties": {}, "required": []}}
    assert validate_action({"action_type": "finish"}, shapes) is None
    assert validate_action({"action_type": "finish", "x": 1}, shapes)["field"] == "x"
    assert validate_action(["finish"], shapes)["field"] == "action"
