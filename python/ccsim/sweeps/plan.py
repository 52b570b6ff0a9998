"""A sweep's plan: what to run. The points (a grid and/or a list of overrides), the seed of
each replication, the override strings given to the simulator and the key that names each
run in the store."""

from __future__ import annotations

import hashlib
import itertools
import json
import numbers
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Optional

from .._core import ScenarioError
from .._scenario import U64_MAX, toml_value

if TYPE_CHECKING:
    import polars as pl

#: The columns every row starts and ends with; override, totals and metric columns go between.
HEAD_COLUMNS = ("point", "replication", "seed", "status", "error", "wall_time_s")
TAIL_COLUMNS = ("events_processed", "measured_s", "run_key", "summary_json")
RESERVED_COLUMNS = frozenset(HEAD_COLUMNS + TAIL_COLUMNS)

#: Seeds are masked to 63 bits so that they fit the Int64 `seed` column.
MASK63 = 2**63 - 1

Metrics = Optional[Mapping[str, Callable[[dict[str, Any]], float]]]


# --- seeds ----------------------------------------------------------------------------------


def _check_uint(name: str, v: Any, top: int = U64_MAX) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 0 <= int(v) <= top:
        raise ValueError(f"{name} must be an integer from 0 to {top}, got {v!r}")
    return int(v)


def derive_seed(base_seed: int, replication: int, point: int | None = None) -> int:
    """The seed of replication `replication` (from 0): the first 64-bit word of NumPy's
    `SeedSequence(entropy=base_seed, spawn_key=(replication,))`, masked to 63 bits.

    Without `point` (common random numbers, the default of a sweep) the seed is the same
    for replication r of every point, so that differences between points are differences of
    the parameters, not of the luck of the draw. With `point` (a sweep with
    `common_random_numbers=False`) the spawn key is `(replication, point)` and every point
    draws its own numbers. SeedSequence hashes the base seed and the spawn key together, so
    two base seeds never share a seed (as far as 63-bit values can be told apart: a chance
    of about n^2 / 2^64 among n seeds).
    """
    base = _check_uint("base_seed", base_seed)
    key = (_check_uint("replication", replication),)
    if point is not None:
        key += (_check_uint("point", point),)
    from numpy.random import SeedSequence

    state = SeedSequence(entropy=base, spawn_key=key).generate_state(1, dtype="uint64")
    return int(state[0]) & MASK63


# --- points ---------------------------------------------------------------------------------


def _plain(v: Any) -> Any:
    """A value with NumPy scalars, tuples and paths turned into plain Python (JSON) types."""
    if isinstance(v, (str, bool)) or v is None:
        return v
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        return float(v)
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    if isinstance(v, Mapping):
        return {str(k) if not isinstance(k, str) else k: _plain(x) for k, x in v.items()}
    if hasattr(v, "tolist") and not isinstance(v, (list, tuple)):
        return _plain(v.tolist())
    if isinstance(v, (list, tuple, range)):
        return [_plain(x) for x in v]
    return v


def _values_of(key: str, values: Any) -> list[Any]:
    if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__iter__"):
        raise ValueError(f"grid[{key!r}] must be a list of values, got {values!r}")
    out = [_plain(v) for v in values]
    if not out:
        raise ValueError(f"grid[{key!r}] is empty: give at least one value")
    return out


def check_key(key: Any, where: str) -> str:
    if not isinstance(key, str) or not key.strip():
        raise ValueError(f"{where}: override key {key!r} is not a key path such as 'links.1.rate'")
    if "=" in key:
        raise ValueError(f"{where}: override key {key!r} contains '='; give the key path and the value separately")
    if key == "seed":
        raise ValueError(f"{where}: 'seed' cannot be swept: each replication's seed comes from base_seed (see derive_seed)")
    if key in RESERVED_COLUMNS or key.startswith("totals."):
        raise ValueError(f"{where}: override key {key!r} would clash with a column of the results")
    return key


def expand_points(
    grid: Mapping[str, Sequence[Any]] | None = None, points: Sequence[Mapping[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The points of a sweep, each a dict {key.path: value}: the `points` first, in order,
    then the Cartesian product of the `grid` (the first key varies slowest, each key's
    values in their order). Neither (or both empty): one point without overrides."""
    out: list[dict[str, Any]] = []
    for i, p in enumerate(points or []):
        if not isinstance(p, Mapping):
            raise ValueError(f"points[{i}] must be a dict {{key.path: value}}, got {p!r}")
        out.append({check_key(k, f"points[{i}]"): _plain(v) for k, v in p.items()})
    if grid:
        if not isinstance(grid, Mapping):
            raise ValueError(f"grid must be a dict {{key.path: [values]}}, got {grid!r}")
        keys = [check_key(k, "grid") for k in grid]
        columns = [_values_of(k, grid[k]) for k in keys]
        for combo in itertools.product(*columns):
            out.append(dict(zip(keys, combo)))
    return out or [{}]


def override_string(key: str, value: Any) -> str:
    """`key=value` with the value written as TOML; `key=` (remove the key) for None."""
    if value is None:
        return f"{key}="
    try:
        return f"{key}={toml_value(value, key)}"
    except ScenarioError as e:
        raise ValueError(f"override {key}: {getattr(e, 'message', e)}") from None


def run_key(scenario_text: str, overrides: Sequence[str], replication: int, seed: int) -> str:
    """The name of a run in the store: a SHA-256 (first 32 hex digits) of the scenario text,
    the override strings, the replication and the seed. The same run always gets the same
    key, in any sweep, on any machine."""
    payload = json.dumps(
        {"scenario": scenario_text, "overrides": list(overrides), "replication": int(replication), "seed": int(seed)},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:32]


# Override columns hold the values as given; their type is decided over all points.
BOOL, INT, FLOAT, STR = "bool", "int", "float", "str"


def _column_kind(values: list[Any]) -> str:
    vs = [v for v in values if v is not None]
    if vs and all(isinstance(v, bool) for v in vs):
        return BOOL
    if vs and all(isinstance(v, int) and not isinstance(v, bool) for v in vs):
        return INT
    if vs and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vs):
        return FLOAT
    return STR


def _cell(value: Any, kind: str) -> Any:
    if value is None:
        return None
    if kind == FLOAT:
        return float(value)
    if kind == STR and not isinstance(value, str):
        return toml_value(value)  # dicts, lists, and numbers in a mixed column, as TOML text
    return value


def column_dtype(kind: str) -> pl.DataType:
    import polars as pl

    return {BOOL: pl.Boolean, INT: pl.Int64, FLOAT: pl.Float64, STR: pl.Utf8}[kind]


# --- the plan: what to run ------------------------------------------------------------------


class Task(NamedTuple):
    """One run, as sent to a worker."""

    run_key: str
    point: int
    replication: int
    seed: int
    scenario: str
    origin: str
    overrides: tuple[str, ...]
    metrics: tuple[tuple[str, Callable[[dict[str, Any]], float]], ...] = ()


class Plan:
    """A sweep's definition, expanded: points, override strings, seeds and run keys.

    Replication r of point i runs with `derive_seed(base_seed, r)`, the same at every
    point (common random numbers), or with `derive_seed(base_seed, r, i)` when
    `common_random_numbers` is False."""

    def __init__(
        self,
        text: str,
        origin: str,
        grid: Any,
        points: Any,
        replications: int,
        base_seed: int,
        metrics: Metrics = None,
        keep_flows: bool = False,
        common_random_numbers: bool = True,
    ):
        if not isinstance(common_random_numbers, bool):
            raise ValueError(f"common_random_numbers must be True or False, got {common_random_numbers!r}")
        if isinstance(replications, bool) or not isinstance(replications, numbers.Integral) or replications < 1:
            raise ValueError(f"replications must be a positive integer, got {replications!r}")
        self.text, self.origin = text, origin
        self.points = expand_points(grid, points)
        self.grid = {k: _plain(v) for k, v in grid.items()} if grid else None
        self.points_given = _plain(list(points)) if points else None
        self.replications = int(replications)
        self.base_seed = _check_uint("base_seed", base_seed)
        self.common_random_numbers = common_random_numbers
        self.keep_flows = bool(keep_flows)
        self.metrics = _check_metrics(metrics)
        self.parameters: list[str] = []
        for p in self.points:
            self.parameters.extend(k for k in p if k not in self.parameters)
        clash = [m for m, _ in self.metrics if m in self.parameters]
        if clash:
            raise ValueError(f"metrics: {clash[0]!r} is also an override key")
        self.kinds = {k: _column_kind([p.get(k) for p in self.points]) for k in self.parameters}
        self.overrides = [tuple(override_string(k, v) for k, v in p.items()) for p in self.points]
        # (point, replication, seed, run_key) of every run, point-major.
        self.runs: list[tuple[int, int, int, str]] = []
        common = [derive_seed(self.base_seed, r) for r in range(self.replications)] if common_random_numbers else None
        for i, ov in enumerate(self.overrides):
            for r in range(self.replications):
                seed = common[r] if common is not None else derive_seed(self.base_seed, r, i)
                self.runs.append((i, r, seed, run_key(text, ov, r, seed)))
        # Identical runs (two equal points) are run once.
        self.unique: dict[str, tuple[int, int, int]] = {}
        for i, r, s, k in self.runs:
            self.unique.setdefault(k, (i, r, s))

    @property
    def metric_names(self) -> list[str]:
        return [m for m, _ in self.metrics]

    def task(self, key: str) -> Task:
        i, r, s = self.unique[key]
        return Task(key, i, r, s, self.text, self.origin, self.overrides[i], self.metrics)

    def parameter_values(self, point: int) -> dict[str, Any]:
        p = self.points[point]
        return {k: _cell(p.get(k), self.kinds[k]) for k in self.parameters}

    def definition(self) -> dict[str, Any]:
        """What sweep.json records of the plan."""
        return {
            "scenario": self.text,
            "origin": self.origin,
            "grid": self.grid,
            "points": self.points_given,
            "replications": self.replications,
            "base_seed": self.base_seed,
            "common_random_numbers": self.common_random_numbers,
            "metrics": self.metric_names,
            "keep_flows": self.keep_flows,
            "parameters": [{"name": k, "type": self.kinds[k]} for k in self.parameters],
            "point_overrides": [list(ov) for ov in self.overrides],
            "runs": [{"point": i, "replication": r, "seed": s, "run_key": k} for i, r, s, k in self.runs],
        }


def _check_metrics(metrics: Metrics) -> tuple[tuple[str, Callable[[dict[str, Any]], float]], ...]:
    if metrics is None:
        return ()
    if not isinstance(metrics, Mapping):
        raise ValueError("metrics must be a dict {column name: function(summary) -> float}")
    out = []
    for name, fn in metrics.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"metrics: column name {name!r} is not a non-empty string")
        if name in RESERVED_COLUMNS or name.startswith("totals."):
            raise ValueError(f"metrics: column name {name!r} clashes with a column of the results")
        if not callable(fn):
            raise ValueError(f"metrics[{name!r}] is not callable")
        out.append((name, fn))
    return tuple(out)
