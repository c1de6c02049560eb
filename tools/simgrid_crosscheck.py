#!/usr/bin/env python3
"""SimGrid against des (docs/simgrid.md).

usage: tools/simgrid_crosscheck.py STORE             (the study simgrid/crosscheck)
       tools/simgrid_crosscheck.py --ranking STORE   (the study simgrid/couturier)

Cross-check: for each point of a results store that holds the same scenario on engine = "des"
and on engine = "simgrid" (serial links and bandwidth sharing), the relative differences of the
average and maximum convergence times; where a run stopped unconverged (the time limit), of the
average idle time and the final spread instead.

Ranking: for each topology and start, the strategies (scenario.name) from the shortest maximum
convergence time to the longest (unconverged last), on each platform (scenario.description), and
whether the order differs from des's.
"""
import json
import sys
from collections import defaultdict


def rel(a, b):
    if a is None or b is None:
        return None
    return abs(a - b) / abs(b) if b != 0 else abs(a - b)


def main(path):
    runs = defaultdict(dict)  # (topology, algorithm, init) -> {setting: summary}
    for line in open(path):
        r = json.loads(line)
        s = r["scenario"]
        setting = "des" if s["engine"] == "des" else "simgrid " + s["simgrid.network"]
        runs[(s["topology"], s["algorithm"], s["load.init"])][setting] = r["summary"]
    worst = defaultdict(float)
    print(f"{'topology':<12} {'algorithm':<21} {'start':<7} {'measure':<18} {'des':>10} "
          f"{'serial':>9} {'sharing':>9}")
    for (topology, algorithm, init), by in sorted(runs.items()):
        if not {"des", "simgrid serial", "simgrid sharing"} <= by.keys():
            continue
        d = by["des"]
        converged = d["max_convergence_time"] is not None
        measures = ["avg_convergence_time", "max_convergence_time"] if converged else ["avg_idle_time", "final_spread"]
        for m in measures:
            diffs = [rel(by[k][m], d[m]) for k in ("simgrid serial", "simgrid sharing")]
            for k, x in zip(("serial", "sharing"), diffs):
                if x is not None:
                    worst[k] = max(worst[k], x)
            shown = ["-" if x is None else f"{x:.1e}" for x in diffs]
            start = "single" if init.startswith("single") else "random"
            print(f"{topology:<12} {algorithm:<21} {start:<7} {m:<18} {d[m]:>10.5g} {shown[0]:>9} {shown[1]:>9}")
    print(f"worst relative difference: serial {worst['serial']:.1e}, sharing {worst['sharing']:.1e}")


def ranking(path):
    runs = defaultdict(lambda: defaultdict(dict))  # (topology, init) -> platform -> strategy -> time
    for line in open(path):
        r = json.loads(line)
        s = r["scenario"]
        runs[(r["topology"]["spec"], s["load.init"])][s["description"]][s["name"]] = r["summary"]["max_convergence_time"]
    platforms = sorted({p for by in runs.values() for p in by})
    base = next(p for p in platforms if p.startswith("des"))
    print("| topology | start | " + " | ".join(platforms) + " |")
    print("|---" * (len(platforms) + 2) + "|")
    changed = 0
    for (topology, init), by in sorted(runs.items(), key=lambda kv: (kv[0][0].split(":")[0], len(kv[0][0]), kv[0])):
        order = {p: sorted(by[p], key=lambda n: (by[p][n] is None, by[p][n] or 0)) for p in platforms if p in by}
        cells = []
        for p in platforms:
            if p not in order:
                cells.append("-")
                continue
            text = " < ".join(f"{n} {by[p][n]:.3g}" if by[p][n] is not None else f"{n} -" for n in order[p])
            if p != base and order[p] != order.get(base):
                text = "**" + text + "**"
                changed += 1
            cells.append(text)
        start = "single" if init.startswith("single") else "random"
        print(f"| {topology} | {start} | " + " | ".join(cells) + " |")
    print(f"\n{changed} platform rankings (bold) differ from {base}'s")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--ranking":
        ranking(sys.argv[2])
    elif len(sys.argv) == 2:
        main(sys.argv[1])
    else:
        sys.exit(__doc__)
