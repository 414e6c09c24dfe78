"""Blind review packet of the oracle's texts on generator v4: one email per fresh test-split
episode, rendered as an agent sees it, with the summary, information request and reply the
oracle sends for it (after best_written, exactly what `export demos` carries).
Usage: oracle_packet.py FIRST_SEED COUNT OUT_DIR"""
import json, sys
from pathlib import Path

from inbox_triage.agents.oracle import best_written
from inbox_triage.scenarios.generator.generate import generate

first, count, out = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
items, key, seen = [], {}, set()
seed = first
while len(items) < count:
    difficulty = ("easy", "medium", "hard")[seed % 3]
    sc = generate("triage", "test", difficulty, seed, version=4)
    for t in sc.tickets:
        ref = best_written(sc, t).reference
        if t.subject in seen or ref is None:
            continue
        seen.add(t.subject)
        lines = [f"## Item {len(items) + 1}", "", f"From: {t.customer.name} <{t.sender}>"]
        if t.customer.role == "customer":
            lines.append(f"Customer tier: {t.customer.tier}")
        lines += [f"Subject: {t.subject}", ""]
        for m in t.thread:
            lines += [f"--- earlier message from {m.sender} ---", m.body.strip(), ""]
        lines += [t.body.strip(), "", "### Summary (internal, for the team)", ref.summaries[0]]
        if t.truth.needs_info and ref.requests:
            lines += ["", "### Information request sent to the sender", ref.requests[0]]
        if t.truth.reply is not None and ref.replies:
            lines += ["", "### Reply sent to the sender", ref.replies[0]]
        items.append("\n".join(lines) + "\n")
        key[len(items)] = [seed, difficulty, t.id, t.truth.category]
        break
    seed += 1
out.mkdir(parents=True, exist_ok=True)
(out / "oracle_packet.md").write_text("\n".join(items))
(out / "oracle_key.json").write_text(json.dumps(key, indent=1))
print(len(items), "items from seeds", first, "to", seed - 1)
