"""nnlb.run: records as the CLI writes them, results as Python objects, errors as exceptions."""
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest

import nnlb


def test_des_ring_balances():
    assert nnlb.run({"topology": "ring:8", "engine": "des"}).summary["balanced"] is True


@pytest.mark.parametrize("keys", [
    {"topology": "torus:8x8", "algorithm": "odf", "stop.imbalance": 1},
    {"topology": "ring:8", "engine": "des", "load.init": "single:0,800"},
    {"topology": "mesh:4x4", "engine": "rounds", "algorithm": "ode"},
    {"topology": "p2p:31", "engine": "p2p", "guest.graph": "ring:31", "algorithm": "dasud", "stop.time": 50},
    {"topology": "ring:6", "engine": "simgrid"},
])
def test_record_equals_the_cli_record(keys, cli_record):
    ours = nnlb.run(keys, seed=7).record
    theirs = cli_record(keys, "--seed", "7")
    for field in ("engine_info",):  # what a simulator says of itself, e.g. its wall time
        ours.pop(field, None), theirs.pop(field, None)
    assert ours["summary"].keys() == theirs["summary"].keys()
    for name, value in theirs["summary"].items():
        assert ours["summary"][name] == value, name
    assert ours == theirs


def test_result_parts():
    r = nnlb.run({"topology": "ring:16", "load.init": "single:0,1600"}, stop__imbalance=1)
    assert r.scenario["stop.imbalance"] == 1
    assert isinstance(r.series, pd.DataFrame)
    assert list(r.series["steps"])[-1] == r.summary["steps"]
    assert r.series["imbalance"].iloc[-1] <= 1
    assert isinstance(r.final_loads, np.ndarray) and r.final_loads.shape == (16,)
    assert r.final_loads.sum() == pytest.approx(1600)
    assert "final_load" not in r.record  # asked for by output.final_load only, as from the CLI


def test_keywords_override_and_a_toml_path(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('topology = "ring:8"\nalgorithm = "fos"\n[stop]\nimbalance = 5\n')
    r = nnlb.run(str(f), algorithm="odf")
    assert r.scenario["topology"] == "ring:8" and r.scenario["algorithm"] == "odf"
    assert r.scenario["stop.imbalance"] == 5


def test_bad_value_is_a_scenario_error_naming_the_key(cli):
    with pytest.raises(nnlb.ScenarioError) as e:
        nnlb.run({"topology": "ring:8", "alpha": "x"})
    assert isinstance(e.value, ValueError)
    assert "alpha" in str(e.value)
    line = cli("run", "--set", "topology=ring:8", "--set", "alpha=x", check=False).stderr.strip()
    assert line == "nnlb: " + str(e.value)


def test_unknown_key_and_wrong_type():
    with pytest.raises(nnlb.ScenarioError, match="topolgy"):
        nnlb.run(topolgy="ring:8")
    with pytest.raises(TypeError, match="topology"):
        nnlb.run({"topology": ["ring:8"]})


def test_memory_estimate_refusal_is_quick():
    t0 = time.monotonic()
    with pytest.raises(nnlb.MemoryEstimateError) as e:
        nnlb.run({"topology": "hypercube:30"})
    assert time.monotonic() - t0 < 1
    assert isinstance(e.value, MemoryError) and not isinstance(e.value, nnlb.ScenarioError)
    assert "topology" in str(e.value)


def test_runs_in_threads_side_by_side():
    keys = {"topology": "torus:16x16", "algorithm": "fos", "load.init": "single:0,25600", "stop.imbalance": 1e-3}
    alone = nnlb.run(keys).summary
    results = [None] * 3

    def work(i):
        results[i] = nnlb.run(keys).summary

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == alone for r in results)


def test_ctrl_c_reaching_only_the_interpreter_ends_a_simgrid_run():
    # SimGrid runs in a child process; a SIGINT sent to the interpreter alone (kill -INT PID, not
    # the terminal's process group) ends it too. The signal goes once the child exists.
    script = """
import glob, os, signal, threading, time, nnlb
def children():
    return [c for f in glob.glob("/proc/self/task/*/children") for c in open(f).read().split()]
def interrupt():
    deadline = time.monotonic() + 60
    while not children() and time.monotonic() < deadline:
        time.sleep(0.01)
    global sent
    sent = time.monotonic()
    os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=interrupt, daemon=True).start()
try:  # about 10 CPU-minutes if nothing ends it
    nnlb.run({"engine": "simgrid", "topology": "torus:8x8", "algorithm": "best-effort", "load.init": "single:0,64000",
              "stop.band": 1e-300, "stop.time": 1000, "output.series_every": 0})
except KeyboardInterrupt:
    print("interrupted after %.3f s, children left: %d" % (time.monotonic() - sent, len(children())))
print(nnlb.run({"topology": "ring:8"}).summary["balanced"])
"""
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    first, second = p.stdout.split("\n")[:2]
    assert first.startswith("interrupted after ") and first.endswith("children left: 0"), first
    assert float(first.split()[2]) < 5
    assert second == "True"


def test_interpreter_usable_after_ctrl_c():
    # The policy sends SIGINT to its own process on its first decision: no timing involved.
    script = """
import os, signal, time, nnlb
class Interrupting(nnlb.Policy):
    def decide(self, load, neighbor_loads):
        if not hasattr(self, "sent"):
            self.sent = time.monotonic()
            os.kill(os.getpid(), signal.SIGINT)
        return [0.0] * len(neighbor_loads)
p = Interrupting()
try:
    nnlb.run({"topology": "ring:64", "stop.steps": 10**8, "output.series_every": 0}, policy=p)
except KeyboardInterrupt:
    print("interrupted after %.3f s" % (time.monotonic() - p.sent))
print(nnlb.run({"topology": "ring:8"}).summary["balanced"])
"""
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    first, second = p.stdout.split("\n")[:2]
    assert first.startswith("interrupted after ")
    assert float(first.split()[2]) < 1
    assert second == "True"
