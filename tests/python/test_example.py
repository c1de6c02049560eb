"""examples/python/compare_policies.py runs and draws its chart (docs/python.md's worked example)."""
import os
import subprocess
import sys

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python", "compare_policies.py")


def test_compare_policies(tmp_path):
    out = tmp_path / "cmp.png"
    p = subprocess.run([sys.executable, EXAMPLE, str(out)], capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stderr
    rows = [line.split() for line in p.stdout.splitlines()[1:] if line.strip() and not line.startswith("wrote")]
    assert len(rows) == 10
    assert {r[1] for r in rows} == {"fos", "odf", "ode", "sos", "python:HalfTheGap"}
    assert all(int(r[2]) > 0 for r in rows)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
