"""Policies written in Python: the same loads as the built-in rule they copy, errors that name them."""
import numpy as np
import pandas as pd
import pytest

import nnlb


class Fos(nnlb.Policy):
    """First-order diffusion with alpha = 0.25: a quarter of the difference to each less loaded neighbour."""

    def decide(self, load, neighbor_loads):
        return [0.25 * (load - l) if l < load else 0.0 for l in neighbor_loads]


BASE = {"topology": "ring:8", "load.init": "single:0,800"}
FIFTY_STEPS = {**BASE, "stop.steps": 50, "stop.band": 1e-9}  # not balanced that finely before step 50


def test_sync_equals_fos():
    ours = nnlb.run(FIFTY_STEPS, policy=Fos())
    theirs = nnlb.run({**FIFTY_STEPS, "algorithm": "fos", "alpha": 0.25})
    assert ours.scenario["algorithm"] == "python:Fos"
    assert ours.summary["steps"] == theirs.summary["steps"] == 50
    assert ours.summary == theirs.summary
    assert np.max(np.abs(ours.final_loads - theirs.final_loads)) <= 1e-12
    assert ours.final_loads.std() < 800 / 8  # the copy moved load


def test_des_equals_fos():
    keys = {**BASE, "engine": "des"}
    ours = nnlb.run(keys, policy=Fos())
    theirs = nnlb.run({**keys, "algorithm": "fos", "alpha": 0.25})
    assert np.max(np.abs(ours.final_loads - theirs.final_loads)) <= 1e-12
    assert ours.summary == theirs.summary
    assert ours.summary["control_messages"] > 0
    r, t = ours.record, theirs.record
    assert r["scenario"].pop("algorithm") == "python:Fos"
    t["scenario"].pop("algorithm"), t["scenario"].pop("alpha")
    r["scenario"].pop("alpha")
    assert r["scenario"] == t["scenario"]


def test_balances_a_torus_with_a_rule_of_its_own():
    class HalfTheGap(nnlb.Policy):
        def decide(self, load, neighbor_loads):
            lower = [l for l in neighbor_loads if l < load]
            share = (load - sum(lower) / len(lower)) / (len(lower) + 1) if lower else 0.0
            return [share if l < load else 0.0 for l in neighbor_loads]

    r = nnlb.run({"topology": "torus:8x8", "load.init": "single:0,6400"}, policy=HalfTheGap())
    assert r.summary["balanced"] and r.summary["stop_reason"] == "balanced"
    assert r.final_loads.sum() == pytest.approx(6400)


class Raises(nnlb.Policy):
    def decide(self, load, neighbor_loads):
        raise ZeroDivisionError("from decide")


@pytest.mark.parametrize("engine", ["sync", "des"])
def test_exception_in_decide_ends_the_run(engine):
    with pytest.raises(ZeroDivisionError, match="from decide"):
        nnlb.run({**BASE, "engine": engine}, policy=Raises())


class Negative(nnlb.Policy):
    def decide(self, load, neighbor_loads):
        return [-1.0] * len(neighbor_loads)


class Short(nnlb.Policy):
    def decide(self, load, neighbor_loads):
        return [0.0]


class NotNumbers(nnlb.Policy):
    def decide(self, load, neighbor_loads):
        return ["a"] * len(neighbor_loads)


@pytest.mark.parametrize("policy,problem", [(Negative(), ">= 0"), (Short(), "1 amounts for 2 neighbours"),
                                            (NotNumbers(), "not a number")])
@pytest.mark.parametrize("engine", ["sync", "des"])
def test_bad_amounts_are_scenario_errors_naming_the_policy(policy, problem, engine):
    with pytest.raises(nnlb.ScenarioError) as e:
        nnlb.run({**BASE, "engine": engine}, policy=policy)
    assert f"python:{type(policy).__name__}" in str(e.value)
    assert problem in str(e.value)


def test_policy_keys_are_refused_beside_a_python_policy():
    with pytest.raises(nnlb.ScenarioError, match="alpha"):
        nnlb.run({**BASE, "alpha": 0.25}, policy=Fos())
    with pytest.raises(nnlb.ScenarioError, match="algorithm"):
        nnlb.run({**BASE, "algorithm": "ode"}, policy=Fos())


@pytest.mark.parametrize("engine", [{"engine": "rounds"}, {"engine": "des", "agent": "rounds"}])
def test_round_balancer_equals_fos(engine):
    keys = {**BASE, **engine}
    ours = nnlb.run(keys, policy=Fos())
    theirs = nnlb.run({**keys, "algorithm": "fos", "alpha": 0.25})
    assert np.max(np.abs(ours.final_loads - theirs.final_loads)) <= 1e-12
    assert ours.summary == theirs.summary


def test_sweep_runs_the_policy_at_every_point():
    grid = {"topology": ["ring:8", "line:6"], "engine": ["sync", "des"]}
    ours = nnlb.sweep({"load.init": "single:0,800"}, grid, policy=Fos(), repeat=2, seed=5)
    theirs = nnlb.sweep({"load.init": "single:0,800", "algorithm": "fos", "alpha": 0.25}, grid, repeat=2, seed=5)
    assert list(ours["topology"]) == list(theirs["topology"]) and list(ours["seed"]) == [5, 6] * 4
    # the Python copy is FOS: the same summary at every point, on both engines
    pd.testing.assert_frame_equal(ours, theirs)
    with pytest.raises(ValueError, match="store"):
        nnlb.sweep(BASE, grid, policy=Fos(), store="unused.jsonl")
