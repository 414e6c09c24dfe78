"""Baseline inference: the LLM agent on the fixed tasks, scores written to baseline_scores.json.

Works with any OpenAI-compatible endpoint, configured the seeds' way::

    export API_BASE_URL=https://router.huggingface.co/v1   # or http://localhost:8080/v1 ...
    export MODEL_NAME=meta-llama/Llama-3.1-8B-Instruct
    export HF_TOKEN=...                                     # or OPENAI_API_KEY
    python inference.py

Flags override the environment (``python inference.py --help``). Every episode is also kept as
a run folder (``runs/inference-...``) that ``inbox-triage report`` can compare, and an
interrupted run continues with ``--out FOLDER --resume``.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path
from statistics import mean

import openai

from inbox_triage.agents import LLMAgent, LLMConfig, make_agent
from inbox_triage.agents.base import Agent
from inbox_triage.agents.llm import PROTOCOLS, check_endpoint
from inbox_triage.evaluation.provenance import git_commit
from inbox_triage.evaluation.records import EpisodeRecord
from inbox_triage.evaluation.runs import (
    EpisodeSpec,
    RunConfig,
    RunMismatch,
    check_server,
    run,
)
from inbox_triage.scenarios import fixed_task_ids


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="model name (default $MODEL_NAME)")
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint (default $API_BASE_URL)")
    parser.add_argument("--protocol", choices=PROTOCOLS, help="auto: tools, else JSON")
    parser.add_argument("--temperature", type=float, help="default 0")
    parser.add_argument("--max-tokens", type=int, help="tokens per answer (default 512)")
    parser.add_argument(
        "--request-timeout", type=float, help="seconds per model call (default 120)"
    )
    parser.add_argument(
        "--tasks", help="comma-separated task ids (default: every fixed task)", default=""
    )
    parser.add_argument("--episodes", type=int, default=1, help="episodes per task (seeds)")
    parser.add_argument("--concurrency", type=int, default=4, help="episodes at once")
    parser.add_argument("--env-url", help="play against a running inbox-triage server")
    parser.add_argument("--output", default="baseline_scores.json", help="the scores file")
    parser.add_argument("--out", type=Path, help="run folder (default runs/inference-TIME)")
    parser.add_argument("--resume", action="store_true", help="continue the run in --out")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        config = LLMConfig.from_env(
            model=args.model,
            base_url=args.base_url,
            protocol=args.protocol,
            temperature=args.temperature,
            max_tokens=args.max_tokens,
            timeout_s=args.request_timeout,
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.resume and args.out is None:
        print("error: --resume needs --out, the run folder to continue", file=sys.stderr)
        return 2
    try:
        check_endpoint(config)
        if args.env_url:
            check_server(args.env_url)
    except ConnectionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    known = fixed_task_ids()
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()] or known
    unknown = [t for t in tasks if t not in known]
    if unknown:
        print(f"error: unknown task(s) {unknown}; choose from: {', '.join(known)}", file=sys.stderr)
        return 2
    folder = args.out or Path("runs") / datetime.now().strftime("inference-%Y%m%d-%H%M%S")

    def factory(name: str) -> Agent:
        return LLMAgent(config) if name == "llm" else make_agent(name)

    def progress(record: EpisodeRecord | None, done: int, planned: int) -> None:
        if record is not None:
            print(
                f"[{done}/{planned}] {record.task} seed {record.seed}: grade {record.grade:.3f}, "
                f"{record.steps} steps, {record.invalid_actions} invalid",
                flush=True,
            )

    def step_line(spec: EpisodeSpec, step: int, action: dict, observation: dict) -> None:
        error = observation.get("last_action_error")
        outcome = f"refused: {error.get('message')}" if error else f"reward {observation['reward']}"
        kind = action.get("action_type")
        print(f"    {spec.task} seed {spec.seed} step {step}: {kind} ({outcome})", flush=True)

    commit = git_commit()  # the code that runs, read before anything can change it
    print(f"model {config.model} at {config.base_url}; {len(tasks)} task(s); run in {folder}")
    try:
        result = run(
            RunConfig(
                agents=["llm"],
                tasks=tasks,
                episodes=args.episodes,
                env_url=args.env_url,
                concurrency=args.concurrency,
                agent_settings={"llm": config.public()},
            ),
            folder,
            resume=args.resume,
            agent_factory=factory,
            progress=progress,
            on_step=step_line,
        )
    except (FileExistsError, RunMismatch) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except openai.APIError as exc:
        print(f"error: the model endpoint failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        print(
            f"finished episodes are kept; continue with: python inference.py --out {folder} "
            "--resume",
            file=sys.stderr,
        )
        return 1
    if result.interrupted:
        print(f"interrupted; continue with: python inference.py --out {folder} --resume")
        return 130
    scores = {
        task: round(mean(r.grade for r in result.records if r.task == task), 6) for task in tasks
    }
    tokens = [r.tokens["total"] for r in result.records if r.tokens]
    report = {
        "model": config.model,
        "base_url": config.base_url,
        "protocol": config.protocol,
        "temperature": config.temperature,
        "episodes_per_task": args.episodes,
        "scores": scores,
        "mean": round(mean(scores.values()), 6),
        "invalid_actions": sum(r.invalid_actions for r in result.records),
        "steps": sum(r.steps for r in result.records),
        "tokens": sum(tokens) if tokens else None,
        # Over every session of the run, when it was interrupted and resumed.
        "runtime_s": round(result.meta.runtime_s, 1),
        "runtime_min": round(result.meta.runtime_s / 60, 2),
        "commit": commit,
        "run_folder": str(folder),
    }
    Path(args.output).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    width = max(len(t) for t in tasks)
    for task, score in scores.items():
        print(f"{task:<{width}}  {score:.3f}")
    print(f"{'mean':<{width}}  {report['mean']:.3f}")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
