#!/usr/bin/env python3
"""Mean and standard error of a summary field per sweep point, from a study's run records.

usage: tools/mean_se.py RECORDS.jsonl FIELD KEY [KEY ...]
e.g.   tools/mean_se.py results/reproductions/douglas/fig3-se/fig3-se.jsonl progress name p2p.migration_cost pm.x

One row per value of the KEYs (scenario keys): trials, mean, standard error (sample standard
deviation / sqrt(trials)); runs without the field are counted as missing.
"""
import json
import math
import sys
from collections import defaultdict


def main():
    path, field, keys = sys.argv[1], sys.argv[2], sys.argv[3:]
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
    for k in sorted(points, key=lambda k: tuple((str(type(x)), x) for x in k)):
        xs = points[k]
        mean = sum(xs) / len(xs)
        se = math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1) / len(xs)) if len(xs) > 1 else float("nan")
        print("| " + " | ".join(str(x) for x in k) + f" | {len(xs)}{f' ({missing[k]} missing)' if missing[k] else ''} | {mean:.2f} | {se:.2f} |")


if __name__ == "__main__":
    main()
