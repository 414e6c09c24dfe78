"""Play the oracle on one episode (project venv) and write its actions and scores as a script.

The actions become ``scripted_model.py``'s answers; the scores are what verifiers' reward
must equal. With ``--env-url`` the episode is played on that running server, so the expected
numbers come from the same server vf-eval plays on.

Usage: .venv/bin/python examples/verifiers-0.4/dump_oracle.py OUT.json
       [--task ticket/generated] [--split test] [--difficulty easy] [--seed 1]
       [--env-url http://127.0.0.1:8000]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from inbox_triage.agents import make_agent
from inbox_triage.evaluation.episode import play
from inbox_triage.evaluation.plan import EpisodeSpec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the JSON script to write")
    parser.add_argument("--task", default="ticket/generated")
    parser.add_argument("--split", default="test", help="generated tasks only")
    parser.add_argument("--difficulty", default="easy", help="generated tasks only")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--env-url", help="play on this server (default: in-process)")
    args = parser.parse_args()
    generated = "/generated" in args.task
    spec = EpisodeSpec(
        agent="oracle",
        task=args.task,
        split=args.split if generated else None,
        difficulty=args.difficulty if generated else None,
        seed=args.seed,
        trial=0,
    )
    record = play(spec, make_agent("oracle"), env_url=args.env_url)
    rewards = [step.reward for step in record.trajectory]
    script = {
        "reset": spec.reset_args(),
        "actions": [step.action for step in record.trajectory],
        "rewards": rewards,
        "grade": record.grade,
        "penalties": record.penalties,
        "grade_less_penalties": round(record.grade - record.penalties, 6),
        "total_reward": record.total_reward,
        "sum_step_rewards": round(sum(rewards), 6),
        "steps": record.steps,
    }
    args.out.write_text(json.dumps(script, indent=1) + "\n")
    print(
        f"oracle: {record.steps} actions, grade={record.grade}, penalties={record.penalties}, "
        f"total_reward={record.total_reward}, sum(step rewards)={script['sum_step_rewards']}"
        f" -> {args.out}"
    )


if __name__ == "__main__":
    main()
