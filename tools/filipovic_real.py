#!/usr/bin/env python3
"""Filipović & Krstajić 2016 for real: DD, MS and CA on 4 MPI ranks of this machine, beside the
simulator's prediction of the same runs (docs/reproductions/filipovic2016.md, "A real run").

usage: tools/filipovic_real.py [NNLB] [--tasks N] [--scale S] [--seeds K]

For each seed: the three algorithms under `mpirun -np 4 NNLB run --set engine=mpi` (tasks
cq:N, each second of work = S real seconds of the calibrated kernel), then the simulator
(engine = des) on the same tasks, calibrated from the real DD run: the cores' speed from its
busy time per second of work (4 ranks share this machine's cores), a request's cost from the
real MS run's makespan beyond its prediction without one. Prints real and predicted makespans
and the relative error.
"""
import json
import os
import subprocess
import sys


def run(cmd, env=None):
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{out.stdout}{out.stderr}")
    return json.loads(out.stdout)["summary"]


def main():
    args = sys.argv[1:]
    nnlb = args.pop(0) if args and not args[0].startswith("--") else "build/nnlb"
    opts = {"--tasks": "300", "--scale": "0.002", "--seeds": "3"}
    while args:
        opts[args[0]] = args[1]
        args = args[2:]
    tasks, scale, seeds = int(opts["--tasks"]), float(opts["--scale"]), int(opts["--seeds"])
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_btl="self,vader")
    common = ["--set", "tasks.cores=4", "--set", f"tasks.init=cq:{tasks}", "--format", "json"]
    print(f"4 ranks, cq:{tasks}, {scale} s of kernel per second of work; makespans in real seconds")
    print("| seed | algorithm | real (s) | predicted (s) | error |")
    print("|---|---|---|---|---|")
    errors = []
    for seed in range(1, seeds + 1):
        real = {a: run(["mpirun", "-np", "4", nnlb, "run", "--set", "engine=mpi", "--set", f"algorithm={a}", "--set",
                        f"mpi.work_scale={scale}", "--seed", str(seed)] + common, env) for a in ("dd", "ms", "ca")}
        # Calibration from the real DD run: seconds of busy time per second of work.
        dd = real["dd"]
        busy = sum(dd["makespan"] - idle for idle in dd["idle_time"])
        slowdown = busy / (dd["work"] * scale)
        speed = 1e9 / slowdown
        sim = lambda a, latency: run([nnlb, "run", "--set", "engine=des", "--set", f"algorithm={a}", "--set",
                                      f"platform.speed={speed}", "--set", f"tasks.latency={latency}", "--seed", str(seed)] + common)
        # A request's cost: what the real MS run took beyond the prediction without one, per task.
        ms0 = sim("ms", 0)["makespan"] * scale
        latency = max(0.0, (real["ms"]["makespan"] - ms0) / scale / (tasks / 3))
        for a in ("dd", "ms", "ca"):
            predicted = sim(a, latency)["makespan"] * scale
            err = (predicted - real[a]["makespan"]) / real[a]["makespan"]
            errors.append(abs(err))
            print(f"| {seed} | {a} | {real[a]['makespan']:.3f} | {predicted:.3f} | {err:+.1%} |")
        print(f"| {seed} | (calibration) | slowdown {slowdown:.2f} | request {latency * scale * 1e3:.2f} ms | |")
    print(f"\nmean |error| {sum(errors) / len(errors):.1%}, largest {max(errors):.1%}")


if __name__ == "__main__":
    main()
