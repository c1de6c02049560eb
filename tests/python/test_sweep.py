"""nnlb.sweep: one row per run, the CLI's values, and a store that resumes."""
import json

import pandas as pd

import nnlb

BASE = {"topology": "mesh:8x8", "stop.imbalance": 1}
GRID = {"algorithm": ["fos", "ode", "sos"]}


def test_three_algorithms_as_the_cli_runs_them(cli):
    df = nnlb.sweep(BASE, GRID)
    assert isinstance(df, pd.DataFrame) and len(df) == 3
    assert list(df["algorithm"]) == GRID["algorithm"]
    assert df["steps_to_balance"].notna().all()
    for algorithm, steps in zip(df["algorithm"], df["steps_to_balance"]):
        out = cli("run", "--set", "topology=mesh:8x8", "--set", "stop.imbalance=1", "--set", f"algorithm={algorithm}",
                  "--format", "json").stdout
        assert steps == json.loads(out)["summary"]["steps_to_balance"], algorithm


def test_store_resumes(tmp_path):
    store = tmp_path / "s.jsonl"
    first = nnlb.sweep(BASE, {"algorithm": ["fos", "ode"]}, store=store, jobs=2)
    assert len(store.read_text().splitlines()) == 2
    again = nnlb.sweep(BASE, {"algorithm": ["fos", "ode", "sos"]}, store=store)
    assert len(store.read_text().splitlines()) == 3  # only sos was run
    pd.testing.assert_frame_equal(first, again.iloc[:2])


def test_repeat_and_zipped_axes():
    df = nnlb.sweep({"topology": "ring:16", "stop.imbalance": 1}, {"algorithm+alpha": [["fos", 0.25], ["fos", 0.4]]}, repeat=2, seed=3)
    assert list(df["repeat"]) == [0, 1, 0, 1] and list(df["seed"]) == [3, 4, 3, 4]
    assert list(df["alpha"]) == [0.25, 0.25, 0.4, 0.4]


def test_bad_point_names_the_key():
    import pytest
    with pytest.raises(nnlb.ScenarioError, match="alpha"):
        nnlb.sweep(BASE, {"alpha": [0.2, "x"]})
