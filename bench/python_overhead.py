#!/usr/bin/env python3
"""The Python module's overhead (docs/python.md), two measurements:

1. A run through nnlb.run against the same run in-process from C++ (bench/run_in_process):
   interleaved, median of each; the module is imported before any timing.
2. A Python policy's cost per decision: a copy of FOS in Python against the built-in fos on
   the sync engine's per-node path, per node and step.

usage: PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py build/bench/run_in_process [ROUNDS]
"""
import statistics
import subprocess
import sys
import time

import nnlb

KEYS = {"topology": "torus:64x64", "algorithm": "fos", "stop.steps": 10000, "stop.band": 1e-12,
        "load.init": "single:0,4096000"}


def main():
    program, rounds = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 11
    sets = [f"{k}={v}" for k, v in KEYS.items()]
    cpp, py = [], []
    for _ in range(rounds):
        out = subprocess.run([program, *sets], capture_output=True, text=True, check=True).stdout.split()
        cpp.append(float(out[0]))
        t0 = time.perf_counter()
        r = nnlb.run(KEYS)
        r.summary
        py.append(time.perf_counter() - t0)
        assert r.summary["steps"] == 10000
    c, p = statistics.median(cpp), statistics.median(py)
    print(f"10,000-step FOS on torus:64x64, {rounds} interleaved rounds: C++ in-process median {c:.4f} s (min {min(cpp):.4f}), "
          f"nnlb.run median {p:.4f} s (min {min(py):.4f}), ratio of medians {p / c:.4f}, of minima {min(py) / min(cpp):.4f}")

    class Fos(nnlb.Policy):
        def decide(self, load, neighbor_loads):
            return [0.2 * (load - l) if l < load else 0.0 for l in neighbor_loads]

    keys = {"topology": "torus:32x32", "load.init": "single:0,102400", "stop.steps": 200, "stop.band": 1e-12}
    decisions = 32 * 32 * 200
    t0 = time.perf_counter()
    nnlb.run(keys, policy=Fos())
    python = time.perf_counter() - t0
    t0 = time.perf_counter()
    nnlb.run({**keys, "algorithm": "fos", "alpha": 0.2})
    builtin = time.perf_counter() - t0
    print(f"Python policy (FOS copy, 4 neighbours) on torus:32x32, 200 steps: {python / decisions * 1e6:.2f} us per decision "
          f"({python:.3f} s), built-in fos (fused kernel) {builtin / decisions * 1e6:.3f} us per node and step")


if __name__ == "__main__":
    main()
