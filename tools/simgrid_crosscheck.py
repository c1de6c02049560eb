#!/usr/bin/env python3
"""SimGrid against des (docs/simgrid.md, "Cross-check"): for each point of a results store that
holds the same scenario on engine = "des" and on engine = "simgrid" (serial links and bandwidth
sharing), the relative differences of the average and maximum convergence times; where a run
stopped unconverged (the time limit), of the average idle time and the final spread instead.

usage: tools/simgrid_crosscheck.py results/simgrid/crosscheck.jsonl
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


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
