"""Round 4 writer assignments: the situations with the fewest verified emails get the most;
each email gets a seed (a kind of sender, a country) and a shape (length and form), so that
writers do not fall back on one recipe per situation.
Usage: make_assign.py FIRST_WRITER N_WRITERS [TARGET] (round 4: 19 6; round 5: 25 8 25;
round 6: 33 6 27, aiming a little past 25 for the emails leads do not verify)"""
import glob, random, re, sys, yaml
from collections import Counter
from pathlib import Path

HERE = Path(__file__).parent
MAIL = HERE.parents[2] / "src/inbox_triage/scenarios/data/generator/mail"
seeds = [s.strip() for f in sorted(HERE.glob("ASSIGN_1[3-8].md"))
         for m in re.findall(r"seeds: ([^)]*)", f.read_text()) for s in m.split(";") if "," in s]
kinds = sorted({s.rsplit(",", 1)[0].strip() for s in seeds})
countries = sorted({s.rsplit(",", 1)[1].strip() for s in seeds})
SHAPES = ["two or three lines, written in a hurry", "a short note of four to six lines",
          "a long, detailed message (12 lines or more)", "a reply at the top of an earlier thread it quotes",
          "a forward of someone else's message with a line or two on top", "a list of points or numbered steps",
          "one dense paragraph with no greeting", "a formal letter with a full signature block",
          "written on a phone: short sentences, little punctuation", "starts with the question, explains after"]
situations = {l.split(":")[0][2:] for l in (HERE / "SITUATIONS.md").read_text().splitlines() if l.startswith("- ")}
have = Counter()
for f in MAIL.glob("*.yaml"):
    d = yaml.safe_load(f.read_text())
    have[d["situation"]] = len(d["emails"])
TARGET = int(sys.argv[3]) if len(sys.argv) > 3 else 17  # emails per situation to aim for
rng = random.Random(4 + TARGET)
jobs = []  # (situation, split)
for s in sorted(situations):
    n = max(4, min(7, TARGET - have[s])) if TARGET <= 25 else max(1, min(12, TARGET - have[s]))
    splits = (["train", "validation", "test"] * 9)[:n]
    jobs += [(s, sp) for sp in splits]
rng.shuffle(jobs)
first, n_writers = int(sys.argv[1]), int(sys.argv[2])
per = [[] for _ in range(n_writers)]
for k, job in enumerate(sorted(jobs, key=lambda j: (j[0], j[1]))):
    per[k % n_writers].append(job)
for w, mine in enumerate(per):
    files = Counter(mine)
    lines = [f"# Your assignment (writer {first + w})", "",
             "Each email comes with a seed: write it as that kind of sender in that country where the "
             "situation allows (a scam, a vendor, a regulator or an internal colleague keeps its own kind; "
             "then use only the country), and in that shape where it fits. Vary everything else too.", ""]
    for (s, sp), n in sorted(files.items()):
        sd = "; ".join(f"{rng.choice(kinds)}, {rng.choice(countries)}, shape: {rng.choice(SHAPES)}" for _ in range(n))
        lines.append(f"- {s}.{sp}.r{6 if TARGET > 25 else 5 if TARGET > 17 else 4}w{first + w}.yaml: {n} email(s), split: {sp} (seeds: {sd})")
    (HERE / f"ASSIGN_{first + w}.md").write_text("\n".join(lines) + "\n")
    print(f"writer {first + w}: {len(mine)} emails in {len(files)} files")
print(len(jobs), "emails;", len(kinds), "kinds;", len(countries), "countries")
