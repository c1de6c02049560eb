"""What the CLI lists and analyses, from Python."""
import json

import nnlb


def test_keys_have_defaults_help_and_engines():
    keys = {k["name"]: k for k in nnlb.keys()}
    assert keys["stop.steps"]["default"] == 10000 and keys["stop.steps"]["help"]
    assert keys["stop.imbalance"]["default"] is None
    assert "des" in keys["async.lb_period"]["engines"] and "sync" not in keys["async.lb_period"]["engines"]
    assert {"sync", "des"} <= set(keys["topology"]["engines"])


def test_topologies_policies_engines():
    assert any(t["spec"].startswith("torus:") for t in nnlb.topologies())
    fos = next(p for p in nnlb.policies() if p["name"] == "fos")
    assert "alpha" in fos["keys"]
    engines = {e["name"]: e for e in nnlb.engines()}
    assert engines["des"]["available"] and not engines["mpi"]["available"]


def test_analyze_as_the_cli(cli):
    ours = nnlb.analyze({"topology": "torus:16x16", "algorithm": "odf"}, measure=True)
    theirs = json.loads(cli("analyze", "--set", "topology=torus:16x16", "--set", "algorithm=odf", "--measure", "--format", "json").stdout)
    assert ours == theirs
    assert ours["predicted_steps"] > 0 and ours["measured_steps"] > 0


def test_reproduce_quick_returns_its_tables(tmp_path):
    tables = nnlb.reproduce("xu1995/fig2", quick=True, out_dir=tmp_path / "fig2")
    assert tables and all(len(t) > 0 for t in tables.values())
    assert any(p.suffix == ".jsonl" for p in (tmp_path / "fig2").iterdir())
