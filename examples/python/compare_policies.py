#!/usr/bin/env python3
"""Four of the literature's policies and one written here, on two topologies: steps to balance.

Sweeps FOS, ODF (the optimal alpha), ODE and SOS over a 16x16 torus and a 16x16 mesh (all from one node's load, to
nu <= 1), runs a Python policy on the same scenarios, and draws the steps each took as grouped
bars (matplotlib). docs/python.md walks through it.

usage: python3 compare_policies.py [OUT.png]
"""
import sys

import matplotlib
matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt
import pandas as pd

import nnlb

BASE = {"load.init": "single:0,25600", "stop.imbalance": 1}
TOPOLOGIES = ["torus:16x16", "mesh:16x16"]
POLICIES = ["fos", "odf", "ode", "sos"]


class HalfTheGap(nnlb.Policy):
    """Sends each less loaded neighbour a share of the gap to the local average, as an
    overloaded node might if it only knew its neighbours' loads."""

    def decide(self, load, neighbor_loads):
        lower = [l for l in neighbor_loads if l < load]
        if not lower:
            return [0.0] * len(neighbor_loads)
        target = (load + sum(lower)) / (len(lower) + 1)
        return [(target - l) / (len(lower) + 1) if l < load else 0.0 for l in neighbor_loads]


def main(out):
    table = nnlb.sweep(BASE, {"topology": TOPOLOGIES, "algorithm": POLICIES})[["topology", "algorithm", "steps_to_balance"]]
    ours = [{"topology": t, "algorithm": "python:HalfTheGap",
             "steps_to_balance": nnlb.run({**BASE, "topology": t}, policy=HalfTheGap()).summary["steps_to_balance"]}
            for t in TOPOLOGIES]
    table = pd.concat([table, pd.DataFrame(ours)], ignore_index=True)
    print(table.to_string(index=False))

    bars = table.pivot(index="algorithm", columns="topology", values="steps_to_balance").loc[POLICIES + ["python:HalfTheGap"]]
    ax = bars.plot.bar(rot=0, figsize=(8, 4))
    ax.set_ylabel("communication steps to nu <= 1")
    ax.set_title("single:0,25600 on 256 nodes")
    plt.tight_layout()
    plt.savefig(out, dpi=100)
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "compare_policies.png")
