"""The steps of ``check.sh`` that are easier in Python than in bash (stdlib only).

- ``ports N``: N free loopback ports, one a line.
- ``wait URL [SECONDS]``: wait until URL answers 200 (a server has started).
- ``toml SRC DST ...``: the example config rewritten for the check: the endpoints, the model,
  the output folder and the one reset of the oracle's script; every key it changes must be in
  SRC exactly once, so an edit of the example that the check no longer covers fails loudly.
- ``grader ENV_URL SCRIPT``: replay the script in an HTTP session and print ``GET /grader``.
- ``compare ...``: the reward vf-eval recorded against the oracle's and the server's numbers,
  and what the model was sent (the system prompt, no tools, streaming); exit 1 on a difference.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import sys
import time
import tomllib
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from typing import Any

TOLERANCE = 1e-6
HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
KEY = re.compile(r"^(\s*)([A-Za-z0-9_-]+)(\s*=\s*)")


def free_ports(count: int) -> list[int]:
    """Ports the OS hands out for port 0, all held open together so that they differ."""
    with ExitStack() as stack:
        sockets = [stack.enter_context(socket.socket()) for _ in range(count)]
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]


def wait_for(url: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            sys.exit(f"{url} did not answer within {seconds:.0f} s")
        time.sleep(0.25)


def toml_value(value: Any) -> str:
    """A TOML literal for a str/int/float/bool (a JSON string is a valid TOML basic string)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)


def rewrite_toml(
    text: str,
    overrides: dict[tuple[str, str], Any],
    resets: dict[str, Any],
    extra_tables: dict[str, dict[str, Any]],
) -> str:
    """``text`` with the (table, key) values in ``overrides`` replaced (table "" is the root),
    every ``[[env.taskset.resets]]`` dropped for the one ``resets``, and ``extra_tables``
    appended."""
    out: list[str] = []
    table, skipping = "", False
    hits = dict.fromkeys(overrides, 0)
    for line in text.splitlines():
        header = HEADER.match(line)
        if header:
            table = header.group(1)
            skipping = line.lstrip().startswith("[[") and table == "env.taskset.resets"
            if skipping:
                continue
        if skipping:
            continue
        key = KEY.match(line)
        if key and (table, key.group(2)) in overrides:
            name = (table, key.group(2))
            hits[name] += 1
            line = f"{key.group(1)}{key.group(2)}{key.group(3)}{toml_value(overrides[name])}"
        out.append(line)
    missing = [f"{t or '<root>'}.{k} (found {n}x)" for (t, k), n in hits.items() if n != 1]
    if missing:
        sys.exit(f"the example TOML changed; expected each once: {', '.join(missing)}")
    out += ["", "[[env.taskset.resets]]"]
    out += [f"{k} = {toml_value(v)}" for k, v in resets.items()]
    for name, values in extra_tables.items():
        out += ["", f"[{name}]"] + [f"{k} = {toml_value(v)}" for k, v in values.items()]
    return "\n".join(out) + "\n"


def make_toml(args: argparse.Namespace) -> None:
    script = json.loads(args.script.read_text())
    overrides = {
        ("", "model"): "scripted",
        ("", "max_concurrent"): 1,
        ("", "output_dir"): str(args.output_dir),
        ("client", "base_url"): args.model_url,
        ("client", "api_key_var"): "SCRIPTED_API_KEY",
        ("env.taskset", "base_url"): args.env_url,
    }
    text = rewrite_toml(
        args.src.read_text(), overrides, script["reset"], {"run": {"dir": args.run_dir}}
    )
    config = tomllib.loads(text)  # the result must still be valid TOML
    assert config["env"]["taskset"]["resets"] == [script["reset"]], config["env"]["taskset"]
    args.dst.write_text(text)
    for (table, key), value in overrides.items():
        print(f"    {table + '.' if table else ''}{key} = {toml_value(value)}")
    print(f"    env.taskset.resets = [{json.dumps(script['reset'])}]; run.dir = {args.run_dir!r}")
    taskset, player = config["env"]["taskset"], config["env"]["player"]
    print(
        f"    kept: push = {toml_value(config['push'])}, "
        f"system_prompt = {toml_value(taskset.get('system_prompt'))}, "
        f"harness = {toml_value(player['harness']['id'])}, "
        f"runtime = {toml_value(player['runtime']['type'])}"
    )


def call(url: str, body: dict[str, Any] | None, session: str) -> dict[str, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, headers={"Content-Type": "application/json", "X-Session-Id": session}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def grader(args: argparse.Namespace) -> None:
    """The same actions in an HTTP session of the same server, then its ``GET /grader``:
    the server's own grade and penalties, independent of both verifiers and the oracle run."""
    script = json.loads(args.script.read_text())
    url, session = args.env_url.rstrip("/"), "vf04-check"
    call(f"{url}/reset", script["reset"], session)
    done = False
    for action in script["actions"]:
        done = bool(call(f"{url}/step", {"action": action}, session)["done"])
    graded = call(f"{url}/grader", None, session)
    if not done or not graded["done"]:
        sys.exit(f"the replay did not end the episode: {graded}")
    keys = ("task_id", "score", "penalties", "total_reward", "done")
    print(json.dumps({k: graded[k] for k in keys}))


def compare(args: argparse.Namespace) -> None:
    script = json.loads(args.script.read_text())
    graded = json.loads(args.grader.read_text())
    lines = args.traces.read_text().splitlines()
    problems: list[str] = []
    if not lines:
        sys.exit(f"FAIL: no episode in {args.traces}")
    if len(lines) != 1:
        problems.append(f"expected 1 episode in traces.jsonl, found {len(lines)}")
    episode = json.loads(lines[0])
    trace = episode["traces"][0]
    rewards = {name: r["score"] for name, r in trace["rewards"].items()}
    reward = rewards.get("openenv_reward")
    replies = [
        n["message"]["content"] for n in trace["nodes"] if n["message"]["role"] == "assistant"
    ]
    agent = trace["timing"]["agent"]
    print(
        f"vf-eval trace: ok={trace['ok']} stop={trace['stop_condition']} turns={len(replies)} "
        f"rewards={rewards} errors={episode['errors']} "
        f"(agent {agent['end'] - agent['start']:.1f} s, "
        f"model {agent['model']['duration']:.2f} s of it)"
    )
    if [json.loads(r) for r in replies] != script["actions"]:
        problems.append("the model's replies in the trace are not the script's actions")
    print(
        f"oracle (dump): grade={script['grade']} penalties={script['penalties']} "
        f"grade-penalties={script['grade_less_penalties']} "
        f"total_reward={script['total_reward']} sum(step rewards)={script['sum_step_rewards']}"
    )
    less = round(graded["score"] - graded["penalties"], 6)
    print(
        f"server GET /grader (HTTP replay): score={graded['score']} "
        f"penalties={graded['penalties']} score-penalties={less} "
        f"total_reward={graded['total_reward']}"
    )
    if not trace["ok"] or episode["errors"]:
        problems.append("the episode is not ok or has errors")
    if trace["stop_condition"] != "user_closed":
        problems.append(f"stop condition {trace['stop_condition']!r}, not 'user_closed'")
    expected = {
        "oracle grade - penalties": script["grade_less_penalties"],
        "oracle total_reward": script["total_reward"],
        "/grader score - penalties": less,
    }
    for name, value in expected.items():
        if reward is None or abs(reward - value) > TOLERANCE:
            problems.append(f"openenv_reward {reward} != {name} {value}")
    requests = [json.loads(line) for line in args.requests.read_text().splitlines()]
    system = args.system_prompt.read_text()
    print(
        f"model requests: {len(requests)}, streamed: {sum(r['stream'] for r in requests)}, "
        f"with the system prompt: {sum(r['system'] == system for r in requests)}, "
        f"offered tools: {sorted({t for r in requests for t in r['tools']})}"
    )
    if len(requests) != len(script["actions"]):
        problems.append(f"{len(requests)} model requests for {len(script['actions'])} actions")
    if not all(r["stream"] and r["system"] == system and not r["tools"] for r in requests):
        problems.append("a request was not streamed, lacked the system prompt or offered tools")
    if problems:
        print("FAIL:\n  " + "\n  ".join(problems))
        sys.exit(1)
    print(
        f"PASS: openenv_reward {reward} = grade {script['grade']} - penalties "
        f"{script['penalties']} (the sum of the step rewards)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    ports = commands.add_parser("ports")
    ports.add_argument("count", type=int)
    wait = commands.add_parser("wait")
    wait.add_argument("url")
    wait.add_argument("seconds", type=float, nargs="?", default=60.0)
    toml = commands.add_parser("toml")
    toml.add_argument("src", type=Path)
    toml.add_argument("dst", type=Path)
    for name in ("--script", "--output-dir"):
        toml.add_argument(name, type=Path, required=True)
    for name in ("--model-url", "--env-url", "--run-dir"):
        toml.add_argument(name, required=True)
    grade = commands.add_parser("grader")
    grade.add_argument("env_url")
    grade.add_argument("script", type=Path)
    comp = commands.add_parser("compare")
    for name in ("--traces", "--script", "--grader", "--requests", "--system-prompt"):
        comp.add_argument(name, type=Path, required=True)
    args = parser.parse_args()
    if args.command == "ports":
        print("\n".join(map(str, free_ports(args.count))))
    elif args.command == "wait":
        wait_for(args.url, args.seconds)
    elif args.command == "toml":
        make_toml(args)
    elif args.command == "grader":
        grader(args)
    else:
        compare(args)


if __name__ == "__main__":
    main()
