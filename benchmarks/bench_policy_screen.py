"""How well the policy screen reads breaches written in other words, on hand-written sets.

``python benchmarks/bench_policy_screen.py`` prints, per set and kind, the share of breaches
caught and of look-alikes flagged, by the regular expressions alone and by the whole screen
(with its learned half). Each set was written by someone who never saw the screen, measured
while held out, then tuned on: ``tuning``, ``unseen``, ``fresh`` and ``final`` (the learned half
is fitted on all four). ``sealed`` (tests/data/policy_screen) is never tuned or fitted on, so its
figures are the ones to quote for wording nobody has seen. Last, the share of the support
leads' own reply sentences that are flagged: those the screen learned from (a snapshot of every
eighth), and the rest of generator v4's mail.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from rich.console import Console
from rich.table import Table

from inbox_triage.domain.screen import screen
from inbox_triage.scenarios import load_policy
from inbox_triage.scenarios.loader import (
    SCREEN_SETS,
    data_root,
    ordinary_sentences,
    ordinary_snapshot,
)

SEALED = Path(__file__).resolve().parent.parent / "tests" / "data" / "policy_screen"


def main() -> None:
    policy = load_policy()
    table = Table(title="policy screen on hand-written sets")
    columns = (
        "set",
        "kind",
        "breaches",
        "caught",
        "look-alikes",
        "flagged",
        "regex caught",
        "regex flagged",
    )
    for column in columns:
        table.add_column(column, justify="left" if column in ("set", "kind") else "right")
    for name in (*SCREEN_SETS, "sealed"):
        path = (
            SEALED / "sealed.yaml"
            if name == "sealed"
            else data_root() / "policies" / "screen" / f"{name}.yaml"
        )
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for kind in ("secret", "promise", "all"):
            breaches = [b for b in data["breaches"] if kind in ("all", b["kind"])]
            alikes = [a for a in data["lookalikes"] if kind in ("all", a["kind"])]

            def hit(text: str) -> bool:
                return bool(policy.screen(text))

            def regex(text: str) -> bool:
                return bool(screen(text, policy.sensitive_data, policy.forbidden_promises))

            def share(found: object, texts: list[dict]) -> str:
                return f"{sum(found(t['text']) for t in texts) / len(texts):.1%}"

            table.add_row(
                name,
                kind,
                str(len(breaches)),
                share(hit, breaches),
                str(len(alikes)),
                share(hit, alikes),
                share(regex, breaches),
                share(regex, alikes),
            )
    Console().print(table)
    learned = set(ordinary_snapshot())
    for label, part in (
        ("learned from", sorted(learned)),
        ("never seen", [s for s in ordinary_sentences() if s not in learned]),
    ):
        flagged = sum(bool(policy.screen(s)) for s in part)
        by_regex = sum(
            bool(screen(s, policy.sensitive_data, policy.forbidden_promises)) for s in part
        )
        Console().print(
            f"support leads' reply sentences ({label}): {flagged} of {len(part)} flagged "
            f"({flagged / len(part):.2%}); regular expressions alone {by_regex} "
            f"({by_regex / len(part):.2%})"
        )


if __name__ == "__main__":
    main()
