"""Writes a long synthetic document (stdlib only, deterministic per seed) with one fact to find.

usage: python3 make_doc.py SEED MEGABYTES "FACT SENTENCE" > doc.txt
Distractors state the same kind of fact about other places, so a search must be precise.
"""
import random
import sys

seed, megabytes, fact = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
rng = random.Random(seed)
words = ("ledger shipment invoice pallet carrier audit forklift inventory dock manifest quarterly "
         "supplier customs freight batch warehouse clerk receipt order count shelf aisle").split()
places = ["south depot", "east annex", "west yard", "harbour shed", "old mill", "river store"]
target = int(megabytes * 1024 * 1024)
fact_at = rng.randrange(target // 10, target - target // 10)
out, size, placed = [], 0, False
while size < target:
    if not placed and size >= fact_at:
        line = fact
        placed = True
    elif rng.random() < 0.002:
        line = "The access code of the %s is %04d." % (rng.choice(places), rng.randrange(10000))
    else:
        line = " ".join(rng.choice(words) for _ in range(rng.randrange(8, 20))).capitalize() + "."
    out.append(line)
    size += len(line) + 1
if not placed:
    out.append(fact)
sys.stdout.write("\n".join(out) + "\n")
