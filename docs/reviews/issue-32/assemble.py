"""Writers' emails + the leads' blind decisions and texts -> data/generator/mail/<situation>.yaml.

Usage: assemble.py [--write] [--append MAP_PREFIX ...]: with --append, only the packets whose
map file starts with one of the prefixes are read, and their verified emails are added to the
mail already in the package (round 4 on: earlier rounds' raw files are not kept).

An email is kept (verified) when the lead's priority, category, route and review flag agree
with the situation's truth (priority bumped by B1 for a VIP or enterprise customer's medium
matter); needs_info disagreements are counted too. Prints the agreement per field."""
import glob, json, sys, yaml
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path("/work/main/src/inbox_triage/scenarios/data/generator")
MAIL = Path("/work/mail")
truth = {}
for f in glob.glob(str(ROOT / "situations" / "*.v2.yaml")):
    for s in yaml.safe_load(open(f))["situations"]:
        truth[s["id"]] = s
candidates = defaultdict(list)  # (file, index) -> packet ids, earlier packets first
APPEND = sys.argv[sys.argv.index("--append") + 1 :] if "--append" in sys.argv else []
for m in sorted(glob.glob(str(MAIL / "*_map.json"))):
    if APPEND and not any(Path(m).name.startswith(p) for p in APPEND):
        continue
    for eid, (name, i) in json.load(open(m)).items():
        candidates[(name, i)].append(eid)
leads = {}
for f in glob.glob(str(MAIL / "leads" / "*.yaml")):
    leads.update(yaml.safe_load(open(f)) or {})
emails = {}
for f in glob.glob(str(MAIL / "out" / "*.yaml")):
    emails[Path(f).name] = yaml.safe_load(open(f))["emails"]

agree, total, disagreements, corrected, flagged = Counter(), 0, [], 0, 0
kept = defaultdict(list)
for (name, i), eids in sorted(candidates.items()):
    decided = [e for e in eids if e in leads]
    if not decided:
        continue
    eid = decided[-1]  # a later pass (after a policy correction) stands
    lead = leads[eid]
    sid = name.split(".")[0]
    s, h = truth[sid], truth[sid]["handling"]
    e = emails[name][i]
    tier = (e.get("persona") or {}).get("tier") or "standard"
    pr = h["priority"]
    if s["sender"] == "customer" and tier in ("vip", "enterprise") and pr == "medium":
        pr = "high"
    want = {"priority": pr, "category": h["category"], "route_to": h["triage_route"],
            "flag_review": bool(h.get("flag_review")), "needs_info": bool(h.get("needs_info"))}
    got = {k: lead.get(k) for k in want}
    total += 1
    ok = True
    for k in want:
        if got[k] == want[k]:
            agree[k] += 1
        else:
            disagreements.append((eid, sid, k, want[k], got[k], lead.get("clauses"), lead.get("doubt")))
            if k not in ("needs_info", "flag_review"):
                ok = False
    flag = None
    if got["flag_review"] != want["flag_review"]:
        clauses = str(lead.get("clauses") or "")
        if got["flag_review"] and any(c in clauses for c in ("V1", "V2", "V3", "V4")):
            flag = True  # the email raises what the policy flags, clause named: truth corrected
        else:
            ok = False
    override = None
    if got["needs_info"] != want["needs_info"]:
        if want["needs_info"] and not got["needs_info"]:
            override = False  # the email already holds the evidence: the truth corrected
        else:
            ok = False  # the reader would ask where the situation needs nothing: not verified
    if ok:
        corrected += override is not None
        flagged += flag is not None
        ref = {"summary": lead["summary"].strip()}
        if lead.get("reply"):
            ref["reply"] = lead["reply"].strip()
        if lead.get("request") and want["needs_info"] and override is None:
            ref["request"] = lead["request"].strip()
        email = {**e}
        if s["sender"] == "customer" and not (email.get("persona") or {}).get("tier"):
            email["persona"] = {**email["persona"], "tier": "standard"}  # the writer left it out
        if override is not None:
            email["needs_info"] = False
        if flag is not None:
            email["flag_review"] = True
        kept[sid].append({**email, "reference": ref})
print(f"{total} emails decided; agreement per field:")
for k in ("priority", "category", "route_to", "flag_review", "needs_info"):
    print(f"  {k}: {agree[k]}/{total} = {agree[k]/max(total,1):.3f}")
four = sum(1 for _ in range(0))
print("kept (verified):", sum(len(v) for v in kept.values()), "of which needs_info corrected to False:", corrected, "flag corrected to True:", flagged)
from collections import Counter as C
splits = C((sid, e["split"]) for sid, es in kept.items() for e in es)
missing = [(s, sp) for s in truth for sp in ("train", "validation", "test") if s in {x for x, _ in splits} and not splits[(s, sp)]]
print("situation/split pairs with no verified email:", len(missing), missing[:20])
for d in disagreements:
    print("  ", d)
if "--write" in sys.argv:
    out = ROOT / "mail"
    out.mkdir(exist_ok=True)
    for sid, es in sorted(kept.items()):
        if APPEND and (out / f"{sid}.yaml").exists():
            es = yaml.safe_load((out / f"{sid}.yaml").read_text())["emails"] + es
        (out / f"{sid}.yaml").write_text(yaml.safe_dump({"situation": sid, "emails": es}, sort_keys=False, allow_unicode=True, width=100))
    print("written", len(kept), "files")
