"""How well the policy screen reads breaches written in other words, on hand-written sets.

``python benchmarks/bench_policy_screen.py`` prints, per set and kind, the share of breaches
caught and of look-alikes flagged. Each set was written by someone who never saw the screen,
measured while held out, then tuned on: ``tuning``, then ``unseen``, then ``fresh``. ``final``
has never been tuned on, so its figures are the ones to quote for wording nobody has seen.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from rich.console import Console
from rich.table import Table

from inbox_triage.domain.screen import screen
from inbox_triage.scenarios import load_policy

SETS = Path(__file__).resolve().parent.parent / "tests" / "data" / "policy_screen"


def main() -> None:
    policy = load_policy()
    table = Table(title="policy screen on hand-written sets")
    for column in ("set", "kind", "breaches", "caught", "look-alikes", "flagged"):
        table.add_column(column, justify="left" if column in ("set", "kind") else "right")
    for name in ("tuning", "unseen", "fresh", "final"):
        path = SETS / f"{name}.yaml"
        if not path.exists():
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for kind in ("secret", "promise", "all"):
            breaches = [b for b in data["breaches"] if kind in ("all", b["kind"])]
            alikes = [a for a in data["lookalikes"] if kind in ("all", a["kind"])]

            def hit(text: str) -> bool:
                return bool(screen(text, policy.sensitive_data, policy.forbidden_promises))

            caught = sum(hit(b["text"]) for b in breaches) / len(breaches)
            flagged = sum(hit(a["text"]) for a in alikes) / len(alikes)
            table.add_row(
                name, kind, str(len(breaches)), f"{caught:.1%}", str(len(alikes)), f"{flagged:.1%}"
            )
    Console().print(table)


if __name__ == "__main__":
    main()
