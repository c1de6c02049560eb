#!/usr/bin/env python3
"""Mean and standard error of a summary field per sweep point, from a study's run records.

usage: tools/mean_se.py [--csv OUT.csv] RECORDS.jsonl FIELD KEY [KEY ...]
e.g.   tools/mean_se.py results/reproductions/douglas/fig3-se/fig3-se.jsonl progress name p2p.migration_cost pm.x

One row per value of the KEYs (scenario keys): trials, mean, standard error (sample standard
deviation / sqrt(trials)); runs without the field are counted as missing. --csv also writes the
rows to OUT.csv, unrounded (the table docs/reproductions pages quote, tests/test_verdicts.cpp
checks the quotes against it).
"""
import csv
import json
import math
import sys
from collections import defaultdict


def main():
    args = sys.argv[1:]
    out = None
    if args[0] == "--csv":
        out, args = args[1], args[2:]
    path, field, keys = args[0], args[1], args[2:]
    points, missing = defaultdict(list), defaultdict(int)
    for line in open(path):
        r = json.loads(line)
        k = tuple(r["scenario"].get(key) for key in keys)
        v = r["summary"].get(field)
        if v is None:
            missing[k] += 1
        else:
            points[k].append(float(v))
    print("| " + " | ".join(keys) + f" | trials | mean {field} | standard error |")
    print("|---" * (len(keys) + 3) + "|")
    rows = []
    for k in sorted(points, key=lambda k: tuple((str(type(x)), x) for x in k)):
        xs = points[k]
        mean = sum(xs) / len(xs)
        se = math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1) / len(xs)) if len(xs) > 1 else float("nan")
        print("| " + " | ".join(str(x) for x in k) + f" | {len(xs)}{f' ({missing[k]} missing)' if missing[k] else ''} | {mean:.2f} | {se:.2f} |")
        rows.append([str(x) for x in k] + [len(xs), missing[k], f"{mean:.10g}", f"{se:.10g}"])
    if out:
        with open(out, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(keys + ["trials", "missing", "mean", "se"])
            w.writerows(rows)


if __name__ == "__main__":
    main()
