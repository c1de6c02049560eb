#!/usr/bin/env python3
"""The paper's claims (docs/reproductions/couturier.md) counted per modelling choice, and the
maximum convergence time from one node against a physical lower bound.

usage: tools/couturier_claims.py results/reproductions/couturier/choices/choices.jsonl

A difference under 5 % (or both runs missing the time limit) is a tie, as on the doc page.
Lower bound of a one-node start (links of 125 MB/s and 50 us, 1250 B per unit, balancing
period 10 ms): the load that must leave the source over its links, 1000 (N - 1) units x 1250 B /
(degree x 125 MB/s), or one hop per balancing period (plus latency) to the farthest node, the
source's eccentricity x 10.05 ms; whichever is larger.
"""
import json
import statistics
import sys
from collections import defaultdict


def nodes_degree_ecc(topology):
    kind, arg = topology.split(":")
    if kind == "line":
        n = int(arg)
        return n, 1, n - 1
    if kind == "torus":
        sides = [int(s) for s in arg.split("x")]
        n = 1
        for s in sides:
            n *= s
        return n, 2 * len(sides), sum(s // 2 for s in sides)
    if kind == "hypercube":
        d = int(arg)
        return 2 ** d, d, d
    raise ValueError(topology)


def lower_bound(topology):
    n, degree, ecc = nodes_degree_ecc(topology)
    return max(1000 * (n - 1) * 1250 / (degree * 1.25e8), ecc * (0.01 + 5e-5))


def compare(a, b):
    """-1: a faster, 1: b faster, 0: tie (< 5 %, or both missing)."""
    if a is None and b is None:
        return 0
    if a is None:
        return 1
    if b is None:
        return -1
    if abs(a - b) <= 0.05 * max(a, b):
        return 0
    return -1 if a < b else 1


def tally(pairs):
    wins = sum(1 for c in pairs if c < 0)
    losses = sum(1 for c in pairs if c > 0)
    return wins, losses, len(pairs) - wins - losses


def main():
    runs = defaultdict(dict)  # choice -> (start, ratio, topology, name) -> summary
    for line in open(sys.argv[1]):
        r = json.loads(line)
        s = r["scenario"]
        start = "one" if s["load.init"].startswith("single") else "random"
        runs[s["description"]][(start, s["async.comp_comm_ratio"], s["topology"], s["name"])] = r["summary"]
    print("| choice | 1. BE beats naive, line | 2. naive beats BE, hypercube | 3. torus: BE / naive / tie "
          "| 4. virtual load: faster / within 5 % / slower | 5. idle longer with v, one node | 6. k=4 beats k=1, random 1/10: torus, hypercube |")
    print("|---|---|---|---|---|---|---|")
    for choice, t in runs.items():
        conf = sorted({k[:3] for k in t})
        t_max = lambda k: t[k]["max_convergence_time"] if k in t else None
        per_kind = {}
        for kind in ("line", "hypercube", "torus"):
            per_kind[kind] = tally([compare(t_max(c + ("BE k=1",)), t_max(c + ("naive",))) for c in conf if c[2].startswith(kind)])
        vload = tally([compare(t_max(c + (s + "+v",)), t_max(c + (s,))) for c in conf
                       for s in ("naive", "BE k=1", "BE k=2", "BE k=4")])
        idle = [(t[c + (s + "+v",)]["avg_idle_time"] > t[c + (s,)]["avg_idle_time"]) for c in conf if c[0] == "one"
                for s in ("naive", "BE k=1", "BE k=2", "BE k=4")]
        level = {kind: tally([compare(t_max(c + ("BE k=4",)), t_max(c + ("BE k=1",))) for c in conf
                              if c[0] == "random" and c[1] == 0.1 and c[2].startswith(kind)]) for kind in ("torus", "hypercube")}
        line, cube, torus = per_kind["line"], per_kind["hypercube"], per_kind["torus"]
        print(f"| {choice} | {line[0]} wins, {line[1]} losses, {line[2]} ties | {cube[1]} wins, {cube[0]} losses, {cube[2]} ties "
              f"| {torus[0]} / {torus[1]} / {torus[2]} | {vload[0]} / {vload[2]} / {vload[1]} | {sum(idle)} of {len(idle)} "
              f"| {level['torus'][0]} of {sum(level['torus'])}, {level['hypercube'][0]} of {sum(level['hypercube'])} |")
    print()
    print("| choice | max convergence time / lower bound, one-node starts: median | min | max | runs in the band |")
    print("|---|---|---|---|---|")
    for choice, t in runs.items():
        ratios = [s["max_convergence_time"] / lower_bound(k[2]) for k, s in t.items()
                  if k[0] == "one" and s["max_convergence_time"] is not None and s["balanced"]]
        total = sum(1 for k in t if k[0] == "one")
        print(f"| {choice} | {statistics.median(ratios):.1f} | {min(ratios):.1f} | {max(ratios):.1f} | {len(ratios)} of {total} |")


if __name__ == "__main__":
    main()
