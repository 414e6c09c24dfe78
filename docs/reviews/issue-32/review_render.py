"""Blind review packet: 25 generated v4 test-split emails (fresh seeds) shuffled with the 25
hand-written fixed-task triage emails, rendered alike. Writes the packet and the key."""
import json, random, sys
sys.path.insert(0, "/work/main/src")
from inbox_triage.scenarios.generator.generate import generate
from inbox_triage.scenarios.loader import load_task

def render(t):
    lines = [f"From: {t.customer.name} <{t.sender}>", f"Subject: {t.subject}", ""]
    for m in t.thread:
        lines += [f"--- earlier message from {m.sender} ---", m.body.strip(), ""]
    lines += [t.body.strip()]
    return "\n".join(lines)

seeds = [int(s) for s in sys.argv[1].split(",")] if len(sys.argv) > 1 else list(range(9201, 9240))
gen, seen = [], set()
for seed in seeds:
    sc = generate("triage", "test", "hard", seed, version=4)
    for t in sc.tickets:
        if t.subject in seen or t.subject.startswith("Re: "):
            continue
        seen.add(t.subject)
        gen.append(("generated", f"seed {seed} {t.id}", render(t)))
        break
    if len(gen) == 25:
        break
fixed = []
for name in ("triage/easy", "triage/medium", "triage/hard"):
    for t in load_task(name).tickets:
        fixed.append(("fixed", f"{name} {t.id}", render(t)))
items = gen + fixed[:25]
random.Random(11).shuffle(items)
out, key = [], {}
for i, (kind, origin, text) in enumerate(items, 1):
    out.append(f"## Email {i}\n\n{text}\n")
    key[i] = [kind, origin]
open("/work/mail/review_packet.md", "w").write("\n".join(out))
json.dump(key, open("/work/mail/review_key.json", "w"), indent=1)
print(len(gen), "generated,", len(fixed), "fixed")
