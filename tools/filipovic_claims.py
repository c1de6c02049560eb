#!/usr/bin/env python3
"""Filipović & Krstajić 2016, Figs. 5, 6 and 8, from the run records of filipovic2016/figs5-8.

usage: tools/filipovic_claims.py results/reproductions/filipovic2016/figs5-8/figs5-8.jsonl
       tools/filipovic_claims.py results/reproductions/filipovic2016/structured/structured.jsonl
       tools/filipovic_claims.py results/reproductions/filipovic2016/split/split.jsonl
       tools/filipovic_claims.py --runs docs/reproductions/filipovic2016/split-runs.csv \
                                 results/reproductions/filipovic2016/split/split.jsonl

Per number of cores and load: mean makespan of DD, MS and CA; CA's gain over DD
(T_DD - T_CA) / T_DD with the same seed (min / mean / max, Fig. 6's comparison); MS against
DD; CA's mean phases (Fig. 7) and the share of runs choosing MS (Fig. 8). --runs writes one CSV
row per run (load, task set, DD's split, cores, seed, algorithm, makespan): the table the verdicts
of docs/reproductions/filipovic2016.md quote from, which tests/test_verdicts.cpp recomputes.
"""
import csv
import json
import sys
from collections import defaultdict


def write_runs(out, path):
    rows = []
    for line in open(path):
        r = json.loads(line)
        s = r["scenario"]
        rows.append([s["description"], s["tasks.init"], s.get("tasks.split", "block"), s["tasks.cores"], r["seed"],
                     s["algorithm"], f"{r['summary']['makespan']:.10g}"])
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["load", "tasks", "split", "cores", "seed", "algorithm", "makespan"])
        w.writerows(sorted(rows, key=lambda r: tuple(r[:6])))


def main():
    if sys.argv[1] == "--runs":
        write_runs(sys.argv[2], sys.argv[3])
        return
    runs = defaultdict(dict)
    for line in open(sys.argv[1]):
        r = json.loads(line)
        s = r["scenario"]
        tset = s["tasks.init"] + (f", tasks.split = {s['tasks.split']}" if "tasks.split" in s else "")
        runs[(s["description"], s["tasks.cores"], r["seed"], tset)][s["algorithm"]] = r["summary"]
    # MS does not split: a split that runs no MS compares against MS on the same seed and load.
    for k, v in runs.items():
        if "ms" not in v and ", tasks.split = " in k[3]:
            v["ms"] = runs[(k[0], k[1], k[2], k[3].split(", tasks.split = ")[0] + ", tasks.split = block")]["ms"]
    # The task set (and DD's split) joins the load's name when a study runs several
    # (filipovic2016/structured, filipovic2016/split).
    sets = sorted({k[3] for k in runs})
    runs = {(k[0] if len(sets) == 1 else f"{k[0]}, tasks.init = {k[3]}", k[1], k[2]): v for k, v in runs.items()}
    for load in sorted({k[0] for k in runs}, reverse=True):
        print(f"\n## {load}")
        print("| cores | DD (s) | MS (s) | CA (s) | CA gain over DD: min / mean / max | MS / DD | CA: phase 1 / termination / phase 3 (s) | CA chose MS |")
        print("|---|---|---|---|---|---|---|---|")
        for cores in sorted({k[1] for k in runs if k[0] == load}):
            rs = [v for k, v in runs.items() if k[0] == load and k[1] == cores]
            mean = lambda f: sum(f(v) for v in rs) / len(rs)
            gains = [(v["dd"]["makespan"] - v["ca"]["makespan"]) / v["dd"]["makespan"] for v in rs]
            print(f"| {cores} | {mean(lambda v: v['dd']['makespan']):.1f} | {mean(lambda v: v['ms']['makespan']):.1f} | "
                  f"{mean(lambda v: v['ca']['makespan']):.1f} | {min(gains):+.3f} / {sum(gains) / len(gains):+.3f} / {max(gains):+.3f} | "
                  f"{mean(lambda v: v['ms']['makespan'] / v['dd']['makespan']):.3f} | "
                  f"{mean(lambda v: v['ca']['ca_phase1']):.0f} / {mean(lambda v: v['ca']['ca_termination']):.1f} / "
                  f"{mean(lambda v: v['ca']['ca_phase3']):.1f} | {mean(lambda v: v['ca']['ca_chose_ms']):.2f} |")


if __name__ == "__main__":
    main()
