"""Lead packets: every written email as an agent sees it (no persona card, no situation name),
under an anonymous id; the map back is kept in lead_map.json."""
import glob, json, random, sys, yaml
from pathlib import Path

out = Path("/work/mail")
n_packets = int(sys.argv[1]) if len(sys.argv) > 1 else 3
items = []
files = json.load(open(sys.argv[2])) if len(sys.argv) > 2 else [Path(f).name for f in glob.glob(str(out / "out" / "*.yaml"))]
prefix = sys.argv[3] if len(sys.argv) > 3 else "packet"
for f in sorted(str(out / "out" / n) for n in files):
    try:
        d = yaml.safe_load(open(f))
    except Exception as e:
        print("BAD", f, e); continue
    for i, e in enumerate(d.get("emails") or []):
        items.append((Path(f).name, i, e))
random.Random(7).shuffle(items)
mapping = {}
packets = [[] for _ in range(n_packets)]
for k, (name, i, e) in enumerate(items):
    eid = f"{prefix[0].upper()}{k+1:03d}"
    mapping[eid] = [name, i]
    p = e.get("persona") or {}
    addr = {"work": "{first_name}.{last_name}@(their organisation's domain)", "personal": "{first_name}.{last_name}@(a personal mailbox such as gmail.com)",
            "system": "no-reply@(the sending organisation's domain)", "lookalike": "accounts@{lookalike_domain}"}.get(p.get("address"), "?")
    lines = [f"## {eid}", f"From: {addr}"]
    if p.get("tier"):
        lines.append(f"Customer tier: {p['tier']}")
    lines.append(f"Subject: {e.get('subject','')}")
    if e.get("earlier"):
        lines += ["Earlier in this thread (their message, which support acknowledged):", "> " + e["earlier"].strip().replace("\n", "\n> ")]
    lines += ["", e.get("body", "").strip(), ""]
    if e.get("answer"):
        lines += ["(If you ask them for information, they answer:)", "> " + e["answer"].strip().replace("\n", "\n> "), ""]
    packets[k % n_packets].append("\n".join(lines))
for j, pk in enumerate(packets):
    (out / "lead_packets" / f"{prefix}_{j+1}.md").write_text("\n\n".join(pk) + "\n")
(out / f"{prefix}_map.json").write_text(json.dumps(mapping, indent=1))
print(len(items), "emails in", n_packets, "packets")
