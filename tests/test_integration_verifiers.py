"""The verifiers integration, played by verifiers' own evaluate loop against a scripted
OpenAI-compatible server that answers each chat request with the oracle's next tool call."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

vf = pytest.importorskip("verifiers")
openai = pytest.importorskip("openai")

from inbox_triage.agents import make_agent  # noqa: E402
from inbox_triage.env import InboxTriageEnv  # noqa: E402
from inbox_triage.evaluation import run_episode  # noqa: E402
from inbox_triage.integrations.verifiers import MAX_TOKENS  # noqa: E402
from inbox_triage.integrations.verifiers_check import (  # noqa: E402
    AllRolloutsFailed,
    raise_if_all_failed,
)


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


def url(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


def run_eval(base_url: str, env: Any, num_examples: int, **kwargs: Any) -> Any:
    """Verifiers' own evaluate loop over the env's first eval rows, against an endpoint."""

    async def run() -> Any:
        api = openai.AsyncOpenAI(base_url=base_url, api_key="x", max_retries=0)
        client = vf.OpenAIChatCompletionsClient(api)
        return await env.evaluate(
            client=client, model="scripted", num_examples=num_examples, **kwargs
        )

    return asyncio.run(run())


def evaluate(
    server: Scripted, env: Any, scripts: dict[str, list[dict[str, Any]]], **kwargs: Any
) -> list:
    """Verifiers' own evaluate loop over the env's eval rows, against the scripted server."""
    server.scripts, server.requests[:] = scripts, []
    return run_eval(url(server), env, len(scripts), **kwargs)["outputs"]


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


def limit(request: dict[str, Any]) -> Any:
    """The request's token limit (verifiers sends ``max_tokens`` as ``max_completion_tokens``)."""
    return request.get("max_completion_tokens", request.get("max_tokens"))


def test_every_model_call_has_a_token_limit_unless_the_caller_sets_one(server):
    env = vf.load_environment("inbox-triage", mode="ticket", num_examples=1)
    row = rows(env)[0]
    script = {key(row): oracle(row["info"]["episode"]).actions[:2]}

    evaluate(server, env, script)  # no sampling arguments: our default
    assert [limit(r) for r in server.requests] == [MAX_TOKENS] * 3
    evaluate(server, env, script, sampling_args={"max_tokens": 64})  # the caller's
    assert [limit(r) for r in server.requests] == [64] * 3
    evaluate(server, env, script, sampling_args={"max_tokens": None})  # vf-eval without -t
    assert [limit(r) for r in server.requests] == [MAX_TOKENS] * 3
    unbounded = vf.load_environment("inbox-triage", mode="ticket", num_examples=1, max_tokens=None)
    evaluate(server, unbounded, script)
    assert [limit(r) for r in server.requests] == [None] * 3


class Garbage(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint gone wrong: every answer is 200 with a body that is not
    JSON, so every rollout errors (at once: a 500 would be retried)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        body = b"<html>upstream error</html>"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def garbage():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Garbage)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def check(*args: Any) -> subprocess.CompletedProcess[str]:
    """``python -m inbox_triage.integrations.verifiers_check ARGS``."""
    command = [sys.executable, "-m", "inbox_triage.integrations.verifiers_check", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_a_run_whose_every_rollout_errored_raises_and_fails_the_check(garbage, tmp_path):
    env = vf.load_environment("inbox-triage", mode="ticket", num_examples=2)
    results = run_eval(url(garbage), env, 2, save_results=True, results_path=tmp_path / "run")

    assert len(results["outputs"]) == 2  # evaluate itself returns as if all went well
    assert all(o["error"] and o["reward"] == 0 for o in results["outputs"])
    with pytest.raises(AllRolloutsFailed, match="2 of 2 rollouts failed; the first: ModelError"):
        raise_if_all_failed(results)
    done = check(tmp_path)  # the saved run, found under the folder
    assert done.returncode == 1, done.stdout + done.stderr
    assert "results.jsonl: 2 rollouts, 2 failed" in done.stdout
    assert done.stdout.rstrip().endswith("FAIL: every rollout failed")


def test_a_run_that_played_passes_the_check(server, tmp_path):
    env = vf.load_environment("inbox-triage", mode="ticket", num_examples=2)
    plays = {key(row): oracle(row["info"]["episode"]) for row in rows(env)}
    scripts = {k: play.actions for k, play in plays.items()}
    server.scripts, server.requests[:] = scripts, []
    results = run_eval(url(server), env, 2, save_results=True, results_path=tmp_path / "run")

    assert raise_if_all_failed(results) == 2
    assert raise_if_all_failed(results["outputs"], strict=True) == 2
    done = check(tmp_path / "run" / "results.jsonl")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 rollouts, 0 failed, mean reward of the others 1.000" in done.stdout


def test_vf_eval_exits_0_when_every_rollout_errored_and_the_check_exits_1(
    garbage, server, tmp_path
):
    """The documented commands: ``vf-eval ... -s -o DIR``, then the check on DIR."""
    vf_eval = Path(sys.executable).parent / "vf-eval"
    env_args = {"mode": "ticket", "num_examples": 2}

    def vf_eval_run(endpoint: str, out: Path) -> subprocess.CompletedProcess[str]:
        command = [str(vf_eval), "inbox-triage", "-a", json.dumps(env_args), "-m", "scripted"]
        command += ["-b", endpoint, "-k", "SCRIPTED_KEY", "-n", "2", "-r", "1", "-t", "64"]
        command += ["-c", "2", "-s", "-o", str(out), "-d", "--max-retries", "0"]
        environ = {**os.environ, "SCRIPTED_KEY": "x"}
        return subprocess.run(
            command, cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=240
        )

    failed = vf_eval_run(url(garbage), tmp_path / "failed")
    assert failed.returncode == 0, failed.stderr[-3000:]  # verifiers' own: success
    done = check(tmp_path / "failed")
    assert done.returncode == 1 and "2 rollouts, 2 failed" in done.stdout, done.stdout

    env = vf.load_environment("inbox-triage", **env_args)
    server.scripts = {key(row): oracle(row["info"]["episode"]).actions for row in rows(env)}
    played = vf_eval_run(url(server), tmp_path / "played")
    assert played.returncode == 0, played.stderr[-3000:]
    done = check(tmp_path / "played")
    assert done.returncode == 0 and "2 rollouts, 0 failed" in done.stdout, done.stdout
    assert not list(tmp_path.glob("outputs"))  # -o put everything where it was told


def test_the_check_reads_verifiers_0_4_traces_and_refuses_what_it_cannot_read(tmp_path):
    ok = {"ok": True, "errors": [], "traces": [{"ok": True, "rewards": {}}]}
    bad = {"ok": False, "errors": ["ConnectionClosedOK: 1000 (OK)"], "traces": []}
    not_ok = {"errors": [], "traces": [{"ok": False, "error": "non-object actions require"}]}
    files = {
        "mixed": [ok, bad],
        "failed": [bad, not_ok],
        "empty": [],
    }
    for name, lines in files.items():
        (tmp_path / name).mkdir()
        text = "".join(json.dumps(line) + "\n" for line in lines)
        (tmp_path / name / "traces.jsonl").write_text(text)

    assert check(tmp_path / "mixed").returncode == 0
    assert check(tmp_path / "mixed", "--strict").returncode == 1
    failed = check(tmp_path / "failed")
    assert failed.returncode == 1 and "first failure: ConnectionClosedOK" in failed.stdout
    assert check(tmp_path / "empty").returncode == 1  # no rollout: nothing measured
    assert check(tmp_path / "nowhere").returncode == 2
    (tmp_path / "broken.jsonl").write_text("{not json\n")
    assert check(tmp_path / "broken.jsonl").returncode == 2
    assert check(tmp_path / "mixed", tmp_path / "failed").returncode == 1  # each on its own
    with pytest.raises(AllRolloutsFailed, match="no rollout"):
        raise_if_all_failed({"outputs": []})
    assert raise_if_all_failed([ok, bad]) == 1
    with pytest.raises(AllRolloutsFailed, match="1 of 2"):
        raise_if_all_failed([ok, bad], strict=True)
