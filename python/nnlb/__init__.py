"""nnlb: nearest-neighbour dynamic load balancing, from Python.

Run scenarios on nnlb's engines (sync, rounds, des, p2p, simgrid), sweep parameters, analyse
iterations and reproduce studies; results come back as dicts, numpy arrays and pandas
DataFrames. Write a balancing policy in Python by subclassing :class:`Policy`.

Keys are the CLI's (``nnlb list``, :func:`keys`): pass them as a dict
(``{"stop.imbalance": 1}``) or as keyword arguments with dots written ``__``
(``stop__imbalance=1``). See docs/python.md.
"""
from __future__ import annotations

import csv
import itertools
import os
from typing import Any, Mapping, Sequence

import numpy as np

from . import _nnlb
from ._nnlb import MemoryEstimateError, ScenarioError

__all__ = [
    "MemoryEstimateError", "Policy", "Result", "ScenarioError", "analyze", "engines", "keys",
    "policies", "reproduce", "run", "sweep", "topologies", "version",
]

version: str = _nnlb.version

try:
    import pandas as _pd
except ImportError:  # pandas is optional: dicts of numpy arrays instead
    _pd = None


class Policy:
    """A balancing policy written in Python.

    Subclass it and define ``decide(self, load, neighbor_loads)``: ``load`` is the deciding
    node's load and ``neighbor_loads`` its neighbours' loads as the node knows them (floats;
    exact on the sync engine, the balancer's last reports on des). Return the amount to send
    to each neighbour: a sequence of ``len(neighbor_loads)`` finite numbers >= 0 (0: send
    nothing). Pass an instance to :func:`run` as ``policy=``; the record names the algorithm
    ``python:ClassName``. An exception raised in ``decide`` ends the run with that exception.
    """

    def decide(self, load: float, neighbor_loads: list[float]) -> Sequence[float]:
        raise NotImplementedError("a Policy subclass defines decide(self, load, neighbor_loads)")


def _keys(scenario: Any, keys: Mapping[str, Any]) -> tuple[str | None, list[tuple[str, Any]]]:
    """(TOML path or None, [(key, value)]) from run()'s scenario argument and keyword keys."""
    path = None
    pairs: list[tuple[str, Any]] = []
    if isinstance(scenario, (str, os.PathLike)):
        path = os.fspath(scenario)
    elif isinstance(scenario, Mapping):
        pairs += [(str(k), v) for k, v in scenario.items()]
    elif scenario is not None:
        raise TypeError(f"scenario: expected a dict of keys, a TOML path or None, got {type(scenario).__name__}")
    pairs += [(k.replace("__", "."), v) for k, v in keys.items()]
    return path, pairs


def _frame(columns: dict[str, Any]) -> Any:
    return _pd.DataFrame(columns) if _pd is not None else columns


class Result:
    """One run's result record (docs/result-schema.md).

    ``summary``: the record's summary (dict); ``series``: the per-round series (a pandas
    DataFrame, or a dict of numpy arrays without pandas); ``final_loads``: every node's final
    load (numpy array); ``record``: the whole record as ``nnlb run --format json`` writes it;
    ``scenario``: every key as run.
    """

    def __init__(self, record: _nnlb.Record):
        self._record = record
        self._cache: dict[str, Any] = {}

    def _get(self, name: str, make: Any) -> Any:
        if name not in self._cache:
            self._cache[name] = make()
        return self._cache[name]

    @property
    def summary(self) -> dict[str, Any]:
        return self._get("summary", self._record.summary)

    @property
    def record(self) -> dict[str, Any]:
        return self._get("record", self._record.record)

    @property
    def scenario(self) -> dict[str, Any]:
        return self.record["scenario"]

    @property
    def series(self) -> Any:
        return self._get("series", lambda: _frame(self._record.series()))

    @property
    def final_loads(self) -> np.ndarray:
        return self._get("final_loads", self._record.final_loads)

    def __repr__(self) -> str:
        s = self.summary
        return f"<nnlb.Result {s['stop_reason']}, balanced={s['balanced']}, steps_to_balance={s['steps_to_balance']}>"


def run(scenario: Mapping[str, Any] | str | os.PathLike | None = None, *, seed: int | None = None,
        policy: Policy | None = None, **keys: Any) -> Result:
    """Runs one scenario and returns its :class:`Result`.

    scenario: a dict of keys ({"topology": "torus:32x32", "algorithm": "odf"}), the path of a
        TOML scenario file, or None (every key at its default).
    keys: more keys as keyword arguments, dots written as ``__`` (``stop__imbalance=1``); they
        override the scenario's.
    seed: the run's seed (default: the scenario's ``seed`` key).
    policy: a :class:`Policy` instance that runs instead of ``algorithm`` (sync and des).

    Every engine but mpi runs (sync, rounds, des, p2p; simgrid in a child process). The GIL is
    released while the run goes on, so runs in several threads proceed side by side; Ctrl-C
    raises KeyboardInterrupt.

    Raises ScenarioError (a ValueError) with the CLI's one line for a bad key or value, and
    MemoryEstimateError (a MemoryError) for a run refused by its memory estimate.
    """
    path, pairs = _keys(scenario, keys)
    return Result(_nnlb.run(path, pairs, seed, policy))


def sweep(base: Mapping[str, Any] | str | os.PathLike | None, grid: Mapping[str, Sequence[Any]], *, jobs: int | None = None,
          store: str | os.PathLike | None = None, seed: int | None = None, repeat: int = 1,
          policy: Policy | None = None) -> Any:
    """Runs every combination of ``grid`` on top of ``base`` and returns one row per run.

    base: the keys every run shares (a dict or a TOML scenario path, as for :func:`run`).
    grid: key -> list of values; the runs are the Cartesian product (the last key varies
        fastest). A key joining keys with '+' ("algorithm+leveling") takes lists of values.
    jobs: runs side by side (default: all cores). seed: the master seed (default: the
        base's); repeat: runs per point, with seeds seed, seed+1, ...
    store: a JSON-lines results store: runs already in it are not run again (an interrupted
        sweep resumes, as ``nnlb sweep`` does), new ones are appended.
    policy: a :class:`Policy` instance that runs instead of ``algorithm`` at every point, as in
        :func:`run`. Its runs go one after another (its decisions hold the GIL), and a store
        cannot name it, so ``store`` is refused with it.

    Returns a pandas DataFrame (a list of dicts without pandas) with the swept keys, ``repeat``,
    ``seed`` and every summary field as columns, in the order of the points.
    """
    path, pairs = _keys(base, {})
    axes = [(str(k), list(v)) for k, v in grid.items()]
    if policy is not None:
        return _policy_sweep(path, pairs, axes, seed, repeat, policy, store)
    records = _nnlb.sweep(path, pairs, axes, jobs, None if store is None else os.fspath(store), seed, repeat)
    rows = [{**_point({k: r["point"][k] for k, _ in axes}), "repeat": r["repeat"], "seed": r["seed"], **r["summary"]}
            for r in records]  # the swept keys in the grid's order
    return _pd.DataFrame(rows) if _pd is not None else rows


def _policy_sweep(path: str | None, pairs: list[tuple[str, Any]], axes: list[tuple[str, list[Any]]], seed: int | None,
                  repeat: int, policy: Policy, store: Any) -> Any:
    """sweep() with a Python policy: run() at every point and repeat, seeds as ``nnlb sweep`` gives them."""
    if store is not None:
        raise ValueError("nnlb.sweep: store= keeps runs by their keys, which cannot name a Python policy; "
                         "sweep a policy without store=")
    rows = []
    for values in itertools.product(*(v for _, v in axes)):
        point = dict(zip((k for k, _ in axes), values))
        keys = pairs + list(_point(point).items())
        for r in range(repeat):
            done = _nnlb.run(path, keys, None if seed is None else seed + r, policy)
            if seed is None:  # the scenario's own seed is the master seed
                seed = done.record()["seed"]
            rows.append({**_point(point), "repeat": r, "seed": seed + r, **done.summary()})
    return _pd.DataFrame(rows) if _pd is not None else rows


def _point(point: dict[str, Any]) -> dict[str, Any]:
    """A sweep point's values by key, a zipped axis ("algorithm+alpha": [...]) split into its keys."""
    out: dict[str, Any] = {}
    for key, value in point.items():
        out.update(zip(key.split("+"), value) if "+" in key else [(key, value)])
    return out


def analyze(scenario: Mapping[str, Any] | str | os.PathLike | None = None, *, initial_imbalance: float | None = None,
            target: float | None = None, measure: bool = False, **keys: Any) -> dict[str, Any]:
    """Spectral analysis of the scenario's iteration, as ``nnlb analyze --format json``.

    Returns a dict: the subdominant eigenvalue (``gamma_per_iteration``, ``gamma_per_step``),
    the steps Xu et al.'s Eq. 7 predicts to reach ``target`` (default: stop.imbalance, else 1)
    from ``initial_imbalance`` (default: the scenario's initial load) as ``predicted_steps``,
    and with ``measure=True`` the steps a synchronous run takes (``measured_steps``).
    """
    path, pairs = _keys(scenario, keys)
    return _nnlb.analyze(path, pairs, initial_imbalance, target, measure)


def keys() -> list[dict[str, Any]]:
    """Every scenario key: name, default (None: unset), help, choices, aliases and the engines that read it."""
    return _nnlb.keys()


def topologies() -> list[dict[str, str]]:
    """The topology specs (``topology = "..."``) with what each builds."""
    return _nnlb.topologies()


def policies() -> list[dict[str, Any]]:
    """The built-in policies (``algorithm = "..."``): name, aliases, summary, the keys each reads."""
    return _nnlb.policies()


def engines() -> list[dict[str, Any]]:
    """The engines (``engine = "..."``): name, summary and whether it can run in this process."""
    return _nnlb.engines()


def _scenarios_dir() -> str:
    for d in [os.environ.get("NNLB_SCENARIOS", ""), *_nnlb.scenario_places]:
        if d and os.path.isdir(d):
            return d
    raise ScenarioError("reproduce: no scenarios folder found; set NNLB_SCENARIOS to nnlb's scenarios folder")


def reproduce(name: str, quick: bool = True, *, out_dir: str | os.PathLike | None = None, jobs: int | None = None) -> dict[str, Any]:
    """Runs the study ``name`` (as ``nnlb reproduce NAME [--quick]``) and returns its CSVs as DataFrames.

    The study comes from $NNLB_SCENARIOS, else the scenarios installed with nnlb, else the
    source tree. Results go to ``out_dir`` (default results/reproductions-quick/NAME or
    results/reproductions/NAME); a rerun resumes from the study's store there. Returns
    {file stem: DataFrame} (dicts of lists without pandas), one per plot's CSV.
    """
    root = _scenarios_dir()
    file = os.path.join(root, name + ".toml")
    if os.path.isabs(name) or ".." in name.split("/") or not os.path.isfile(file):
        raise ScenarioError(f"reproduce: no study '{name}' in {root} (`nnlb reproduce --list`)")
    out = os.fspath(out_dir) if out_dir is not None else os.path.join(
        "results", "reproductions-quick" if quick else "reproductions", name)
    tables: dict[str, Any] = {}
    for f in _nnlb.reproduce(file, name, quick, out, jobs):
        if f.endswith(".csv"):
            stem = os.path.splitext(os.path.basename(f))[0]
            tables[stem] = _pd.read_csv(f) if _pd is not None else _read_csv(f)
    return tables


def _read_csv(path: str) -> dict[str, list[str]]:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return {name: [r[i] for r in rows[1:]] for i, name in enumerate(rows[0])} if rows else {}
