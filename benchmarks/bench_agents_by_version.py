"""The built-in agents' mean grades on generator v1 against v2, per mode and split, and the
learned agent's gap between unseen train-split mail and test mail.
Run: python benchmarks/bench_agents_by_version.py [--episodes 30]

Train-split episodes use seeds from 10,000 up, which the learned agent's fit (train split,
seeds 0..399) never saw, so "train" here is unseen mail of the phrasings it learned from and
"test" is mail of phrasings it never saw. The learned agent fits on the newest generator, so
its v1 column is left out. Needs scikit-learn (the learned or train extra).
"""

from __future__ import annotations

import argparse
import statistics

from inbox_triage.agents import make_agent
from inbox_triage.evaluation import run_episode
from inbox_triage.scenarios.generator import SPLITS

AGENTS = ("random", "heuristic", "learned", "oracle")
UNSEEN = 10_000


def mean_grade(task: str, agent: str, split: str, episodes: int) -> float:
    first = UNSEEN if split == "train" else 0
    return statistics.mean(
        run_episode(task, make_agent(agent), seed, split=split, difficulty="medium").grade
        for seed in range(first, first + episodes)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=30)
    args = parser.parse_args()
    print(f"mean grade over {args.episodes} medium episodes per cell")
    print(
        f"{'mode':<7} {'agent':<10} " + " ".join(f"{f'v1 {s}':>12} {f'v2 {s}':>12}" for s in SPLITS)
    )
    for mode in ("triage", "ticket", "inbox"):
        for agent in AGENTS:
            cells = []
            for split in SPLITS:
                v1 = (
                    "-"
                    if agent == "learned"
                    else f"{mean_grade(f'{mode}/generated@v1', agent, split, args.episodes):.3f}"
                )
                v2 = f"{mean_grade(f'{mode}/generated', agent, split, args.episodes):.3f}"
                cells.append(f"{v1:>12} {v2:>12}")
            print(f"{mode:<7} {agent:<10} " + " ".join(cells))
        gap = mean_grade(f"{mode}/generated", "learned", "train", args.episodes) - mean_grade(
            f"{mode}/generated", "learned", "test", args.episodes
        )
        print(f"{mode:<7} learned gap (unseen train - test): {gap:+.3f}")


if __name__ == "__main__":
    main()
