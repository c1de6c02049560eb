"""Shared helpers: the nnlb command the module is compared with (NNLB_CLI, set by ctest)."""
import json
import os
import subprocess

import pytest


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("NNLB_CLI")
    assert path and os.path.exists(path), "NNLB_CLI names the nnlb command built beside the module"

    def run(*args, check=True):
        p = subprocess.run([path, *args], capture_output=True, text=True)
        if check:
            assert p.returncode == 0, p.stderr
        return p

    return run


@pytest.fixture(scope="session")
def cli_record(cli):
    """The record `nnlb run --set K=V ... --format json` prints."""
    def record(keys, *extra):
        sets = [a for k, v in keys.items() for a in ("--set", f"{k}={v}")]
        return json.loads(cli("run", *sets, *extra, "--format", "json").stdout)

    return record
