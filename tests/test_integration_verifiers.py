"""The verifiers integration, played by verifiers' own evaluate loop against a scripted
OpenAI-compatible server that answers each chat request with the oracle's next tool call."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

vf = pytest.importorskip("verifiers")
openai = pytest.importorskip("openai")

from inbox_triage.agents import make_agent  # noqa: E402
from inbox_triage.env import InboxTriageEnv  # noqa: E402
from inbox_triage.evaluation import run_episode  # noqa: E402


class Scripted(ThreadingHTTPServer):
    """Chat completions: the next call of the script whose episode the request's first user
    message shows (the number of assistant messages so far says which); records requests."""

    daemon_threads = True
    scripts: dict[str, list[dict[str, Any]]]
    requests: list[dict[str, Any]]


class Handler(BaseHTTPRequestHandler):
    server: Scripted

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        messages = body["messages"]
        key = next(m["content"] for m in messages if m["role"] == "user")
        turn = sum(m["role"] == "assistant" for m in messages)
        self.server.requests.append({"key": key, "turn": turn, **body})
        script = self.server.scripts.get(key, [])
        message: dict[str, Any] = {"role": "assistant", "content": "I am done."}
        if turn < len(script):
            action = dict(script[turn])
            name = action.pop("action_type", "triage_email")  # a bare decision is triage's
            arguments = action.pop("raw_arguments", None) or json.dumps(action)
            call = {"name": name, "arguments": arguments}
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": f"call_{turn}", "type": "function", "function": call}],
            }
        reply = json.dumps(
            {
                "id": f"chatcmpl-{turn}",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": "tool_calls" if turn < len(script) else "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def server():
    httpd = Scripted(("127.0.0.1", 0), Handler)
    httpd.scripts, httpd.requests = {}, []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def oracle(episode: dict[str, Any]):
    """The oracle's play of a row's episode, in a separate environment."""
    args = {k: v for k, v in episode.items() if k not in ("task", "seed")}
    return run_episode(episode["task"], make_agent("oracle"), episode["seed"], **args)


def evaluate(server: Scripted, env: Any, scripts: dict[str, list[dict[str, Any]]]) -> list:
    """Verifiers' own evaluate loop over the env's eval rows, against the scripted server."""
    server.scripts, server.requests[:] = scripts, []
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"

    async def run() -> Any:
        api = openai.AsyncOpenAI(base_url=url, api_key="x", max_retries=0)
        client = vf.OpenAIChatCompletionsClient(api)
        return await env.evaluate(client=client, model="scripted", num_examples=len(scripts))

    return asyncio.run(run())["outputs"]


def rows(env: Any) -> list[dict[str, Any]]:
    return list(env.get_eval_dataset())


def key(row: dict[str, Any]) -> str:
    return next(m["content"] for m in row["prompt"] if m["role"] == "user")


def text(message: Any) -> str:
    return message["content"] if isinstance(message, dict) else message.content


def role(message: Any) -> str:
    return message["role"] if isinstance(message, dict) else message.role


@pytest.mark.parametrize("mode", ["triage", "ticket", "inbox"])
def test_the_oracle_earns_its_grade_with_one_model_call_per_action(server, mode):
    env = vf.load_environment("inbox-triage", mode=mode, num_examples=2)
    plays = {key(row): oracle(row["info"]["episode"]) for row in rows(env)}
    outputs = evaluate(server, env, {k: play.actions for k, play in plays.items()})

    assert len(outputs) == 2
    for output in outputs:
        play = plays[key(output)]
        assert play.grade == pytest.approx(1.0)
        assert output["reward"] == pytest.approx(play.grade)
        assert output["metrics"]["total_reward"] == pytest.approx(play.total_reward)
        assert output["metrics"]["invalid_actions"] == 0
        assert output["stop_condition"] == "episode_over"
        last = output["completion"][-1]  # the last step's answer ends the rollout
        assert role(last) == "tool" and "The episode is over." in text(last)
    for k, play in plays.items():  # no model call after the last step
        assert sorted(r["turn"] for r in server.requests if r["key"] == k) == list(
            range(len(play.actions))
        )
    offered = {t["function"]["name"]: t["function"] for t in server.requests[0]["tools"]}
    assert set(offered) == set(InboxTriageEnv().reset(mode=mode).allowed_actions)
    assert "enum" in json.dumps(offered)  # the episode's vocabulary, as enums


def test_a_refused_call_is_answered_with_the_field_and_the_allowed_values(server):
    env = vf.load_environment("inbox-triage", mode="ticket", num_examples=1, penalised=True)
    row = rows(env)[0]
    play = oracle(row["info"]["episode"])
    wrong = [
        {"action_type": "set_priority", "value": "whenever"},
        {"action_type": "escalate", "value": "now"},
        {"action_type": "add_tag", "raw_arguments": "{'value': 'vip'"},  # not JSON
    ]
    [output] = evaluate(server, env, {key(row): [*wrong, *play.actions]})

    answers = [text(m) for m in output["completion"] if role(m) == "tool"]
    assert "value: is not an allowed value (allowed: low, medium, high, urgent)" in answers[0]
    assert "name: is not a tool of ticket mode (allowed: set_priority, route_team" in answers[1]
    assert answers[2].startswith("add_tag refused: arguments: must be an object")
    assert output["metrics"]["invalid_actions"] == 3
    assert output["metrics"]["grade"] == pytest.approx(1.0)
    # penalised: the reward is the grade less what the refusals cost, as the env counts them
    assert output["reward"] == pytest.approx(output["metrics"]["total_reward"])
    assert output["reward"] < play.total_reward
    replay = InboxTriageEnv()
    replay.reset(**row["info"]["episode"])
    for action in [wrong[0], {"action_type": "no_such_action"}, {}, *play.actions]:
        replay.step(action)  # {}: an action of no kind, refused
    assert output["reward"] == pytest.approx(replay.total_reward)


def test_load_environment_by_id_keeps_the_episode_out_of_the_reserved_task_key():
    env = vf.load_environment("inbox-triage", task="ticket/hard_account_takeover")
    assert isinstance(env, vf.StatefulToolEnv)
    [row] = rows(env)
    assert row["info"] == {"episode": {"task": "ticket/hard_account_takeover", "seed": 0}}
    with pytest.raises(RuntimeError, match="fixed task"):  # knobs are for generated ones
        vf.load_environment("inbox-triage", task="ticket/hard_account_takeover", size=3)


def test_importing_the_package_does_not_import_verifiers():
    code = "import sys, inbox_triage; print('verifiers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_reply_without_a_tool_call_ends_the_rollout_at_the_grade_so_far(server):
    env = vf.load_environment("inbox-triage", mode="inbox", num_examples=1)
    row = rows(env)[0]
    play = oracle(row["info"]["episode"])
    [output] = evaluate(server, env, {key(row): play.actions[:2]})  # then "I am done."

    assert output["stop_condition"] == "no_tools_called"
    assert len(server.requests) == 3
    partial = InboxTriageEnv()
    partial.reset(**row["info"]["episode"])
    for action in play.actions[:2]:
        partial.step(action)
    assert output["reward"] == pytest.approx(partial.grade().value)
    assert 0 < output["reward"] < 1
