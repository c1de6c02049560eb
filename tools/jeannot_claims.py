#!/usr/bin/env python3
"""Gains of Jeannot & Vernier 2006, Figs. 2-5, and Table 1, from the run records of the studies
jeannot2006/fig2 and jeannot2006/dsl.

usage: tools/jeannot_claims.py results/reproductions/jeannot2006/fig2/fig2.jsonl \
                               results/reproductions/jeannot2006/dsl/dsl.jsonl
       tools/jeannot_claims.py --fig6 results/reproductions/jeannot2006/fig6/fig6.jsonl
       tools/jeannot_claims.py --fig6 results/reproductions/jeannot2006/fig6-data/fig6-data.jsonl
       tools/jeannot_claims.py --strict results/reproductions/jeannot2006/granularity/granularity.jsonl
       tools/jeannot_claims.py --runs docs/reproductions/jeannot2006/dsl-runs.csv \
                               results/reproductions/jeannot2006/dsl/dsl.jsonl

Gain = (T1 - T2) / T1 with T1 the run time of plain FOS (Algo 1) at the same w* and number of
balancing steps, T2 the system's (paper, sec. 4.2.1); the sequential time is 64 w* units x
1 ms x the iterations. opt.1 (Table 1) is computed here with global knowledge: the p that
minimizes iterations x ceil(64 w* / p) x 1 ms plus a lower bound on spreading the load over the
first p nodes of the DSL line (the (p - 1) / p share crosses node 0's link, 1250 B per unit at
125 kB/s, and p - 1 hops of 40 ms).

--runs writes one CSV row per run (system, granularity, bytes per unit, w*, steps, run time,
sequential time, processors used): the table the verdicts of docs/reproductions/jeannot2006.md
quote from, which tests/test_verdicts.cpp recomputes.
"""
import csv
import json
import math
import sys
from collections import defaultdict


def load(path):
    runs = []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            s = r["scenario"]
            total = float(s["load.init"].split(",")[1])
            runs.append({"name": s["name"], "w": total / 64, "steps": math.ceil(s["app.iterations"] / s["app.lb_every"]),
                         "time": r["summary"].get("finished_at"), "used": r["summary"]["nodes_with_load"],
                         "iterations": s["app.iterations"], "unit": s["app.work_per_unit"] / 1e9,
                         "bytes": s.get("message.bytes_per_unit", 1250.0)})
    return runs


def gains(runs):
    by = defaultdict(dict)
    for r in runs:
        by[(r["w"], r["steps"])][r["name"]] = r
    names = sorted({r["name"] for r in runs})
    base = names[0] if names[0].startswith("Algo 1") else next(n for n in names if "FOS" in n and "k" not in n.split(":")[-1])
    ws = sorted({r["w"] for r in runs})
    steps = sorted({r["steps"] for r in runs})
    for name in names:
        if name == base:
            continue
        print(f"\n{name} against {base}: gain (T1 - T2) / T1")
        print("| w* \\ steps | " + " | ".join(str(s) for s in steps) + " |")
        print("|---" * (len(steps) + 1) + "|")
        for w in ws:
            cells = []
            for s in steps:
                t1, t2 = by[(w, s)][base]["time"], by[(w, s)][name]["time"]
                cells.append(f"{(t1 - t2) / t1:+.2f}")
            print(f"| {w:g} | " + " | ".join(cells) + " |")
    print(f"\n{base}: run time / sequential time")
    print("| w* \\ steps | " + " | ".join(str(s) for s in steps) + " |")
    print("|---" * (len(steps) + 1) + "|")
    for w in ws:
        seq = 64 * w * runs[0]["unit"] * runs[0]["iterations"]
        print(f"| {w:g} | " + " | ".join(f"{by[(w, s)][base]['time'] / seq:.2f}" for s in steps) + " |")
    return by, ws, steps


def opt1(w, iterations, unit=1e-3, lat=0.04, bw=1.25e5, bytes_per_unit=1250):
    total = 64 * w
    best = None
    for p in range(1, 65):
        spread = 0 if p == 1 else (total * (p - 1) / p) * bytes_per_unit / bw + (p - 1) * lat
        t = iterations * math.ceil(total / p) * unit + spread
        if best is None or t < best[1]:
            best = (p, t)
    return best[0]


def fig6(path):
    """Fig. 6: per granularity, min / average / max over the runs of the gain of each system over
    classical FOS with the same seed, and what the systems end with."""
    every = defaultdict(lambda: defaultdict(dict))  # description (the data per unit) -> runs
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            s = r["scenario"]
            every[s["description"]][(s["app.work_per_unit"], r["seed"])][s["name"]] = r["summary"]
    for description, runs in sorted(every.items()):
        if description:
            print(f"\n# {description}")
        fig6_tables(runs)


def fig6_tables(runs):
    units = sorted({u for u, _ in runs}, reverse=True)
    names = sorted({n for v in runs.values() for n in v if n != "FOS"})
    print("## Fig. 6: gain (T1 - T2) / T1 over classical FOS, min / average / max over the runs")
    print("| granularity (flop per unit) | units | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 2) + "|")
    for u in units:
        cells = []
        for n in names:
            g = [(v["FOS"]["finished_at"] - v[n]["finished_at"]) / v["FOS"]["finished_at"]
                 for (unit, _), v in runs.items() if unit == u]
            cells.append(f"{min(g):+.3f} / {sum(g) / len(g):+.3f} / {max(g):+.3f}")
        print(f"| {u:g} | {615e8 / u:g} | " + " | ".join(cells) + " |")
    print("\n## Fig. 6: at the end (first run): max - min load, load moved, balancing messages")
    print("| granularity | system | run time (s) | spread | moved | data messages | control messages |")
    print("|---|---|---|---|---|---|---|")
    for u in units:
        seed = min(s for unit, s in runs if unit == u)
        for n in ["FOS"] + names:
            v = runs[(u, seed)][n]
            print(f"| {u:g} | {n} | {v['finished_at']:.1f} | {v['final_spread']:g} | {v['load_moved']:g} | "
                  f"{v['data_messages']} | {v['control_messages']} |")


PAPER_USED = [3, 5, 6, 7, 8, 9, 10]   # Table 1, adaptive system, w* = 1 ... 1000
PAPER_OPT1 = [1, 1, 1, 1, 3, 5, 10]


def sweep(lan, dsl):
    """One row per computation per unit: the figure each claim rests on, side by side."""
    def table(runs):
        by = defaultdict(dict)
        for r in runs:
            by[(r["w"], r["steps"])][r["name"]] = r
        return by, sorted({r["w"] for r in runs}), sorted({r["steps"] for r in runs})

    def gain(by, w, s, base, name):
        t1, t2 = by[(w, s)][base]["time"], by[(w, s)][name]["time"]
        return (t1 - t2) / t1

    print("## The computation per unit, swept (a balancing step every iteration where not said)")
    print("| per unit | Fig. 2 gain, w* = 1 / 10 (1000 steps) | Fig. 2 lowest gain | Fig. 3 FOS / sequential, w* = 1 / 1000 (1000 steps) "
          "| Fig. 4 gain, highest / lowest | Fig. 5 gain, lowest at w* >= 50 | Table 1 used (adaptive) | opt.1 |")
    print("|---|---|---|---|---|---|---|---|")
    for unit in sorted({r["unit"] for r in dsl}):
        lb, lws, lsteps = table([r for r in lan if r["unit"] == unit])
        a1 = next(n for n in {r["name"] for r in lan} if n.startswith("Algo 1"))
        a2 = next(n for n in {r["name"] for r in lan} if n.startswith("Algo 2"))
        lan_g = [gain(lb, w, s, a1, a2) for w in lws for s in lsteps]
        part = [r for r in dsl if r["unit"] == unit]
        db, ws, steps = table(part)
        fos, k1, ad = "Fig. 3: FOS", "Fig. 4: k-1 + detection", "Fig. 5: adaptive k + detection"
        seq = lambda w: 64 * w * unit * part[0]["iterations"]
        f4 = [gain(db, w, s, fos, k1) for w in ws for s in steps]
        f5 = [gain(db, w, s, fos, ad) for w in ws if w >= 50 for s in steps]
        used = ", ".join(str(db[(w, max(steps))][ad]["used"]) for w in ws)
        opt = ", ".join(str(opt1(w, part[0]["iterations"], unit)) for w in ws)
        print(f"| {unit * 1e6:g} us | {gain(lb, 1, max(lsteps), a1, a2):+.2f} / {gain(lb, 10, max(lsteps), a1, a2):+.2f} | {min(lan_g):+.3f} "
              f"| {db[(1, max(steps))][fos]['time'] / seq(1):.2f} / {db[(1000, max(steps))][fos]['time'] / seq(1000):.2f} "
              f"| {max(f4):+.2f} / {min(f4):+.2f} | {min(f5):+.2f} | {used} | {opt} |")
    print(f"| paper | large at low w* | never negative | many steps much slower than sequential | better than Fig. 3, still slower "
          f"than sequential | beneficial almost everywhere | {', '.join(map(str, PAPER_USED))} | {', '.join(map(str, PAPER_OPT1))} |")


def strict(dsl):
    """Per computation and bytes per unit: Table 1's row (and its largest miss), Fig. 4's run time
    over sequential with the most steps, Fig. 5's cells losing more than 0.05 (and the worst)."""
    fos, k1, ad = "Fig. 3: FOS", "Fig. 4: k-1 + detection", "Fig. 5: adaptive k + detection"
    print("| per unit | bytes per unit | Table 1 used (adaptive) | largest miss | Fig. 4 / sequential, most steps, w* = 1 ... 1000 "
          "| Fig. 5 cells below -0.05 (of all) | Fig. 5 worst |")
    print("|---|---|---|---|---|---|---|")
    for unit, nbytes in sorted({(r["unit"], r["bytes"]) for r in dsl}):
        part = [r for r in dsl if r["unit"] == unit and r["bytes"] == nbytes]
        by = defaultdict(dict)
        for r in part:
            by[(r["w"], r["steps"])][r["name"]] = r
        ws, steps = sorted({r["w"] for r in part}), sorted({r["steps"] for r in part})
        used = [by[(w, max(steps))][ad]["used"] for w in ws]
        miss = max(abs(u - p) for u, p in zip(used, PAPER_USED)) if len(used) == len(PAPER_USED) else float("nan")
        f4 = [by[(w, max(steps))][k1]["time"] / (64 * w * unit * part[0]["iterations"]) for w in ws]
        f5 = [(by[(w, s)][fos]["time"] - by[(w, s)][ad]["time"]) / by[(w, s)][fos]["time"] for w in ws for s in steps]
        print(f"| {unit * 1e6:g} us | {nbytes:g} | {', '.join(map(str, used))} | {miss:g} | {', '.join(f'{x:.2f}' for x in f4)} "
              f"| {sum(g < -0.05 for g in f5)} of {len(f5)} | {min(f5):+.2f} |")


def write_runs(out, runs):
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["system", "unit_us", "bytes", "w", "steps", "time", "sequential", "used"])
        for r in sorted(runs, key=lambda r: (r["name"], r["unit"], r["bytes"], r["w"], r["steps"])):
            seq = 64 * r["w"] * r["unit"] * r["iterations"]
            w.writerow([r["name"], f"{r['unit'] * 1e6:g}", f"{r['bytes']:g}", f"{r['w']:g}", r["steps"],
                        "" if r["time"] is None else f"{r['time']:.10g}", f"{seq:.10g}", r["used"]])


def main():
    if sys.argv[1] == "--runs":
        write_runs(sys.argv[2], [r for path in sys.argv[3:] for r in load(path)])
        return
    if sys.argv[1] == "--fig6":
        fig6(sys.argv[2])
        return
    if sys.argv[1] == "--strict":
        for path in sys.argv[2:]:
            strict(load(path))
        return
    lan, dsl = load(sys.argv[1]), load(sys.argv[2])
    sweep(lan, dsl)
    for unit in sorted({r["unit"] for r in lan}):
        print(f"\n## LAN (Fig. 2), {unit * 1e6:g} us per unit")
        gains([r for r in lan if r["unit"] == unit])
    for unit in sorted({r["unit"] for r in dsl}):
        part = [r for r in dsl if r["unit"] == unit]
        print(f"\n## DSL (Figs. 3-5), {unit * 1e6:g} us per unit")
        by, ws, steps = gains(part)
        print(f"\n## Table 1, {unit * 1e6:g} us per unit: processors used, a balancing step every iteration")
        print("| load | " + " | ".join(f"64x{w:g}" for w in ws) + " |")
        print("|---" * (len(ws) + 1) + "|")
        for name in sorted({r["name"] for r in part}):
            print(f"| used ({name}) | " + " | ".join(f"{by[(w, max(steps))][name]['used']}/64" for w in ws) + " |")
        print("| opt.1 (global knowledge) | " + " | ".join(f"{opt1(w, part[0]['iterations'], unit)}/64" for w in ws) + " |")


if __name__ == "__main__":
    main()
