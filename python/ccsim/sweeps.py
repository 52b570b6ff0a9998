"""Sweeps: a scenario run over a grid (or list) of parameter overrides, each point several
times with different seeds, on a local process pool or a Dask cluster, into a resumable
Parquet store.

    import ccsim
    sw = ccsim.sweep("scenarios/dumbbell.toml",
                     grid={"links.1.queue.limit": [50, 100, 200]},
                     replications=5, out="results/limit")
    sw.aggregate("totals.goodput_bps")      # mean, std, n, ci95 per point

See `docs/sweeps.md` for the store's layout and the columns of its tables.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import itertools
import json
import math
import numbers
import os
import pickle
import sys
import tempfile
import time
import uuid
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Optional

from ._core import ScenarioError
from ._scenario import U64_MAX, resolve, toml_value
from .runner import _stderr_is_terminal, run_text

if TYPE_CHECKING:
    import polars as pl

__all__ = ["sweep", "SweepResult", "derive_seed", "splitmix64", "expand_points", "run_key", "run_one"]

#: Version of the store's layout, in `sweep.json`.
FORMAT = 1

MASK64 = 2**64 - 1
#: Seeds are masked to 63 bits so that they fit the Int64 `seed` column.
MASK63 = 2**63 - 1

#: The columns every row starts and ends with; override, totals and metric columns go between.
HEAD_COLUMNS = ("point", "replication", "seed", "status", "error", "wall_time_s")
TAIL_COLUMNS = ("events_processed", "measured_s", "run_key", "summary_json")
RESERVED_COLUMNS = frozenset(HEAD_COLUMNS + TAIL_COLUMNS)
#: Fields of the summary left out of `summary_json`: they measure the machine (the row has
#: `wall_time_s` instead), and without them a run's row is the same wherever it ran.
MACHINE_FIELDS = ("wall_time_s", "events_per_second")

OK, ERROR = "ok", "error"

Metrics = Optional[Mapping[str, Callable[[dict[str, Any]], float]]]


# --- seeds ----------------------------------------------------------------------------------


def splitmix64(x: int) -> int:
    """The first output of a SplitMix64 generator (Steele, Lea & Flood 2014; Vigna's
    `splitmix64.c`) whose state is `x`: add the golden-ratio increment, then mix."""
    z = (x + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def derive_seed(base_seed: int, replication: int) -> int:
    """The seed of replication `replication` (from 0) of every point of a sweep:
    `splitmix64((base_seed + replication) mod 2^64) & (2^63 - 1)`.

    It depends on `base_seed` and the replication only, not on the point, so replication r
    of every point runs with the same random streams (common random numbers): differences
    between points are then differences of the parameters, not of the luck of the draw.
    Two sweeps whose base seeds differ by less than their replication count share seeds
    (replication r + 1 of base seed b is replication r of base seed b + 1); take base seeds
    far apart (1, 1001, ...) for independent sweeps.
    """
    for name, v in (("base_seed", base_seed), ("replication", replication)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 0 <= int(v) <= U64_MAX:
            raise ValueError(f"{name} must be an integer from 0 to {U64_MAX}, got {v!r}")
    return splitmix64((int(base_seed) + int(replication)) & MASK64) & MASK63


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


def _check_key(key: Any, where: str) -> str:
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
        out.append({_check_key(k, f"points[{i}]"): _plain(v) for k, v in p.items()})
    if grid:
        if not isinstance(grid, Mapping):
            raise ValueError(f"grid must be a dict {{key.path: [values]}}, got {grid!r}")
        keys = [_check_key(k, "grid") for k in grid]
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
_BOOL, _INT, _FLOAT, _STR = "bool", "int", "float", "str"


def _column_kind(values: list[Any]) -> str:
    vs = [v for v in values if v is not None]
    if vs and all(isinstance(v, bool) for v in vs):
        return _BOOL
    if vs and all(isinstance(v, int) and not isinstance(v, bool) for v in vs):
        return _INT
    if vs and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vs):
        return _FLOAT
    return _STR


def _cell(value: Any, kind: str) -> Any:
    if value is None:
        return None
    if kind == _FLOAT:
        return float(value)
    if kind == _STR and not isinstance(value, str):
        return toml_value(value)  # dicts, lists, and numbers in a mixed column, as TOML text
    return value


def _dtype(kind: str) -> pl.DataType:
    import polars as pl

    return {_BOOL: pl.Boolean, _INT: pl.Int64, _FLOAT: pl.Float64, _STR: pl.Utf8}[kind]


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
    """A sweep's definition, expanded: points, override strings, seeds and run keys."""

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
    ):
        if isinstance(replications, bool) or not isinstance(replications, numbers.Integral) or replications < 1:
            raise ValueError(f"replications must be a positive integer, got {replications!r}")
        self.text, self.origin = text, origin
        self.points = expand_points(grid, points)
        self.grid = {k: _plain(v) for k, v in grid.items()} if grid else None
        self.points_given = _plain(list(points)) if points else None
        self.replications = int(replications)
        self.seeds = [derive_seed(base_seed, r) for r in range(self.replications)]
        self.base_seed = int(base_seed)
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
        self.runs: list[tuple[int, int, int, str]] = [
            (i, r, self.seeds[r], run_key(text, ov, r, self.seeds[r]))
            for i, ov in enumerate(self.overrides)
            for r in range(self.replications)
        ]
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
        from . import __version__

        return {
            "format": FORMAT,
            "version": __version__,
            "build": build_fingerprint(),
            "scenario": self.text,
            "origin": self.origin,
            "grid": self.grid,
            "points": self.points_given,
            "replications": self.replications,
            "base_seed": self.base_seed,
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


# --- the worker -----------------------------------------------------------------------------


def _message(e: BaseException) -> str:
    if isinstance(e, ScenarioError):
        return str(e)
    text = str(e)
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _metric_values(summary: dict[str, Any], metrics) -> tuple[dict[str, float | None], str | None]:
    values: dict[str, float | None] = {}
    error = None
    for name, fn in metrics:
        try:
            v = fn(summary)
            values[name] = None if v is None else float(v)
        except Exception as e:
            values[name] = None
            error = error or f"metric {name!r}: {_message(e)}"
    return values, error


def run_one(task: Task) -> dict[str, Any]:
    """Runs one (point, replication) and returns its results as a dict: `status`, `error`,
    `wall_time_s`, `totals.*`, `events_processed`, `measured_s`, the metrics and
    `summary_json`. Never raises for a problem with the run: it is returned as
    `status = "error"` with the message. This is what the process pool's and Dask's workers
    call."""
    start = time.perf_counter()
    try:
        res = run_text(task.scenario, task.origin, list(task.overrides), task.seed, progress=False)
    except Exception as e:
        return {"status": ERROR, "error": _message(e), "wall_time_s": time.perf_counter() - start}
    summary = res.summary
    for f in MACHINE_FIELDS:
        summary.pop(f, None)
    row: dict[str, Any] = {"status": OK, "error": None, "wall_time_s": time.perf_counter() - start}
    summary_json = json.dumps(summary, separators=(",", ":"))
    for k, v in summary.get("totals", {}).items():
        if v is None or isinstance(v, (int, float)):
            row[f"totals.{k}"] = v
    row["events_processed"] = summary.get("events_processed")
    row["measured_s"] = summary.get("measured_s")
    values, error = _metric_values(summary, task.metrics)
    row.update(values)
    if error:
        row["status"], row["error"] = ERROR, error
    row["summary_json"] = summary_json
    return row


# --- the store ------------------------------------------------------------------------------


def _atomic_write_parquet(df: pl.DataFrame, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        df.write_parquet(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _atomic_write_text(text: str, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _row_frame(plan: Plan, key: str, result: dict[str, Any]) -> pl.DataFrame:
    """One run's row, typed, in column order."""
    import polars as pl

    point, replication, seed = plan.unique[key]
    series = [
        pl.Series("point", [point], dtype=pl.Int64),
        pl.Series("replication", [replication], dtype=pl.Int64),
        pl.Series("seed", [seed], dtype=pl.Int64),
        pl.Series("status", [result.get("status")], dtype=pl.Utf8),
        pl.Series("error", [result.get("error")], dtype=pl.Utf8),
        pl.Series("wall_time_s", [result.get("wall_time_s")], dtype=pl.Float64),
    ]
    values = plan.parameter_values(point)
    series += [pl.Series(k, [values[k]], dtype=_dtype(plan.kinds[k])) for k in plan.parameters]
    for k, v in result.items():
        if k.startswith("totals."):
            series.append(pl.Series(k, [v], dtype=pl.Int64 if isinstance(v, int) and not isinstance(v, bool) else pl.Float64))
    series.append(pl.Series("events_processed", [result.get("events_processed")], dtype=pl.Int64))
    series.append(pl.Series("measured_s", [result.get("measured_s")], dtype=pl.Float64))
    for m in plan.metric_names:
        series.append(pl.Series(m, [result.get(m)], dtype=pl.Float64))
    series.append(pl.Series("run_key", [key], dtype=pl.Utf8))
    series.append(pl.Series("summary_json", [result.get("summary_json")], dtype=pl.Utf8))
    return pl.DataFrame(series)


def _flows_frame(summary: dict[str, Any], point: int, replication: int, seed: int, key: str) -> pl.DataFrame:
    import polars as pl

    from .results import Results

    flows = Results(summary).flows
    return pl.concat(
        [
            pl.DataFrame(
                {
                    "point": pl.Series([point] * flows.height, dtype=pl.Int64),
                    "replication": pl.Series([replication] * flows.height, dtype=pl.Int64),
                    "seed": pl.Series([seed] * flows.height, dtype=pl.Int64),
                }
            ),
            flows,
            pl.DataFrame({"run_key": pl.Series([key] * flows.height, dtype=pl.Utf8)}),
        ],
        how="horizontal",
    )


class Store:
    """The directory a sweep writes: `runs/<run_key>.parquet` (one row per finished run),
    `flows/<run_key>.parquet` (with keep_flows), and at the end `runs.parquet`,
    `flows.parquet` and `sweep.json`."""

    def __init__(self, out: str | os.PathLike[str]):
        self.out = Path(out)
        self.runs_dir = self.out / "runs"
        self.flows_dir = self.out / "flows"

    def run_path(self, key: str) -> Path:
        return self.runs_dir / f"{key}.parquet"

    def flows_path(self, key: str) -> Path:
        return self.flows_dir / f"{key}.parquet"

    def read_definition(self) -> dict[str, Any] | None:
        path = self.out / "sweep.json"
        if not path.is_file():
            return None
        return json.loads(path.read_text(encoding="utf-8"))

    def write_definition(self, plan: Plan, complete: bool, started: str, counts: dict[str, int] | None = None) -> None:
        d = plan.definition()
        d["complete"] = complete
        d["started"] = started
        if complete:
            d["finished"] = _now()
        if counts is not None:
            d["counts"] = counts
        _atomic_write_text(json.dumps(d, indent=1, allow_nan=True) + "\n", self.out / "sweep.json")

    def begin(self, plan: Plan) -> str:
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        if plan.keep_flows:
            self.flows_dir.mkdir(parents=True, exist_ok=True)
        old = self.read_definition()
        build = build_fingerprint()
        if old is not None and old.get("build") not in (None, build) and any(self.run_path(k).exists() for k in plan.unique):
            warnings.warn(
                f"{self.out}: the runs already there were made by another build of ccsim "
                f"({old.get('version')}, build {str(old.get('build'))[:12]}; this is build {build[:12]}) "
                "and are reused as they are; use a new directory to run everything again",
                stacklevel=3,
            )
        # The combined tables describe the previous definition until this one finishes.
        for name in ("runs.parquet", "flows.parquet"):
            if (self.out / name).exists():
                (self.out / name).unlink()
        started = _now()
        self.write_definition(plan, complete=False, started=started)
        return started

    def pending(self, plan: Plan, retry_errors: bool) -> tuple[list[str], int]:
        """The run keys still to run, and how many runs are reused. Reused runs get any
        metric column or flows file they lack, computed from their summary_json."""
        import polars as pl

        todo, reused = [], 0
        for key in plan.unique:
            path = self.run_path(key)
            if not path.exists():
                todo.append(key)
                continue
            try:
                names = set(pl.read_parquet_schema(path))
                status = pl.read_parquet(path, columns=["status"])["status"][0]
            except Exception:  # unreadable: run it again (the rename makes this unlikely)
                todo.append(key)
                continue
            if status != OK and retry_errors:
                todo.append(key)
                continue
            reused += 1
            missing = [m for m in plan.metric_names if m not in names]
            if missing and status == OK:
                self._add_metrics(plan, key, path, missing)
            if plan.keep_flows and status == OK and not self.flows_path(key).exists():
                self._write_flows_from(path, key)
        return todo, reused

    def _add_metrics(self, plan: Plan, key: str, path: Path, missing: list[str]) -> None:
        import polars as pl

        df = pl.read_parquet(path)
        summary = json.loads(df["summary_json"][0])
        values, error = _metric_values(summary, [(m, f) for m, f in plan.metrics if m in missing])
        df = df.with_columns([pl.lit(values[m], dtype=pl.Float64).alias(m) for m in missing])
        if error:
            df = df.with_columns(pl.lit(ERROR).alias("status"), pl.lit(error, dtype=pl.Utf8).alias("error"))
        _atomic_write_parquet(df, path)

    def _write_flows_from(self, path: Path, key: str) -> None:
        import polars as pl

        row = pl.read_parquet(path).row(0, named=True)
        summary = json.loads(row["summary_json"])
        _atomic_write_parquet(_flows_frame(summary, row["point"], row["replication"], row["seed"], key), self.flows_path(key))

    def save(self, plan: Plan, key: str, result: dict[str, Any]) -> None:
        """Writes one finished run: its flows first (keep_flows), then its row, whose file's
        existence is what marks the run done."""
        if plan.keep_flows and result.get("status") == OK:
            point, replication, seed = plan.unique[key]
            summary = json.loads(result["summary_json"])
            _atomic_write_parquet(_flows_frame(summary, point, replication, seed, key), self.flows_path(key))
        _atomic_write_parquet(_row_frame(plan, key, result), self.run_path(key))

    def finish(self, plan: Plan, started: str) -> tuple[pl.DataFrame, pl.DataFrame | None]:
        runs = collect_runs(self.out, plan.runs, plan.parameters, plan.kinds, plan.metric_names)
        _atomic_write_parquet(runs, self.out / "runs.parquet")
        flows = None
        if plan.keep_flows:
            flows = collect_flows(self.out, plan.runs)
            _atomic_write_parquet(flows, self.out / "flows.parquet")
        counts = {
            "runs": runs.height,
            "ok": int((runs["status"] == OK).sum()),
            "error": int((runs["status"] == ERROR).sum()),
        }
        self.write_definition(plan, complete=counts["runs"] == len(plan.runs), started=started, counts=counts)
        return runs, flows


def _runs_of(definition: dict[str, Any]) -> list[tuple[int, int, int, str]]:
    return [(r["point"], r["replication"], r["seed"], r["run_key"]) for r in definition["runs"]]


def _empty_runs(parameters: Sequence[str], kinds: Mapping[str, str], metric_names: Sequence[str]) -> pl.DataFrame:
    import polars as pl

    schema = {"point": pl.Int64, "replication": pl.Int64, "seed": pl.Int64, "status": pl.Utf8, "error": pl.Utf8, "wall_time_s": pl.Float64}
    schema.update({k: _dtype(kinds.get(k, _STR)) for k in parameters})
    schema.update({"events_processed": pl.Int64, "measured_s": pl.Float64})
    schema.update({m: pl.Float64 for m in metric_names})
    schema.update({"run_key": pl.Utf8, "summary_json": pl.Utf8})
    return pl.DataFrame(schema=schema)


def _order_columns(df: pl.DataFrame, parameters: Sequence[str], metric_names: Sequence[str]) -> list[str]:
    totals = [c for c in df.columns if c.startswith("totals.")]
    return [*HEAD_COLUMNS, *parameters, *totals, "events_processed", "measured_s", *metric_names, "run_key", "summary_json"]


def collect_runs(
    out: Path, runs: list[tuple[int, int, int, str]], parameters: Sequence[str], kinds: Mapping[str, str], metric_names: Sequence[str]
) -> pl.DataFrame:
    """The rows of the listed runs that have a file in `out/runs`, one per (point,
    replication), ordered by point then replication."""
    import polars as pl

    store = Store(out)
    frames = []
    seen = set()
    for _, _, _, key in runs:
        if key in seen:
            continue
        seen.add(key)
        path = store.run_path(key)
        if path.exists():
            frames.append(pl.read_parquet(path))
    empty = _empty_runs(parameters, kinds, metric_names)
    df = pl.concat([empty, *frames], how="diagonal_relaxed")
    tasks = pl.DataFrame(
        {"point": [p for p, _, _, _ in runs], "run_key": [k for _, _, _, k in runs]},
        schema={"point": pl.Int64, "run_key": pl.Utf8},
    )
    # The point of each run comes from the definition: a run file written by a sweep whose
    # points were listed in another order (or twice) still lands where it belongs.
    df = tasks.join(df.drop("point"), on="run_key", how="inner")
    df = df.with_columns([pl.col(k).cast(_dtype(kinds.get(k, _STR)), strict=False) for k in parameters])
    df = df.select(_order_columns(df, parameters, metric_names))
    return df.sort(["point", "replication"], maintain_order=True)


def collect_flows(out: Path, runs: list[tuple[int, int, int, str]]) -> pl.DataFrame:
    """The per-flow tables of the listed runs that have one, combined."""
    import polars as pl

    store = Store(out)
    frames = []
    seen = set()
    for _, _, _, key in runs:
        if key not in seen and store.flows_path(key).exists():
            seen.add(key)
            frames.append(pl.read_parquet(store.flows_path(key)))
    if not frames:
        return pl.DataFrame(schema={"point": pl.Int64, "replication": pl.Int64, "seed": pl.Int64, "run_key": pl.Utf8})
    df = pl.concat(frames, how="diagonal_relaxed")
    tasks = pl.DataFrame(
        {"point": [p for p, _, _, _ in runs], "run_key": [k for _, _, _, k in runs]},
        schema={"point": pl.Int64, "run_key": pl.Utf8},
    )
    columns = df.columns
    df = tasks.join(df.drop("point"), on="run_key", how="inner").select(columns)
    return df.sort(["point", "replication"], maintain_order=True)


# --- execution ------------------------------------------------------------------------------


def _failure(e: BaseException) -> dict[str, Any]:
    """The result of a run whose worker failed (not the simulation: that is caught there)."""
    return {"status": ERROR, "error": f"the worker failed: {_message(e)}", "wall_time_s": None}


def _execute_local(
    tasks: list[Task], workers: int, done: Callable[[Task, dict[str, Any]], None], save: Callable[[Task, dict[str, Any]], None]
) -> None:
    from concurrent.futures import ProcessPoolExecutor, as_completed

    pool = ProcessPoolExecutor(max_workers=min(workers, max(1, len(tasks))))
    futures = {}
    handled = set()
    try:
        futures = {pool.submit(run_one, t): t for t in tasks}
        for f in as_completed(futures):
            handled.add(f)
            try:
                result = f.result()
            except Exception as e:
                result = _failure(e)
            done(futures[f], result)
    except BaseException:
        # Stop (Ctrl-C, or the progress callback raised): keep the runs that have finished,
        # drop the ones still queued, and let the few under way end. Killing workers instead
        # can leave the pool's queue lock held by a dead process, and shutdown then hangs.
        pool.shutdown(wait=True, cancel_futures=True)
        for f, t in futures.items():
            if f not in handled and f.done() and not f.cancelled() and f.exception() is None:
                save(t, f.result())
        raise
    pool.shutdown(wait=True)


@functools.lru_cache(maxsize=1)
def build_fingerprint() -> str:
    """A SHA-256 of the installed ccsim package (its Python files and compiled core): two
    processes with the same fingerprint run the same simulator. Recorded in sweep.json and
    compared with the Dask workers'."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".so", ".pyd") and "__pycache__" not in path.parts and path.is_file():
            h.update(path.relative_to(root).as_posix().encode())
            h.update(b"\0")
            h.update(path.read_bytes())
    return h.hexdigest()


def _check_workers(client) -> None:
    """Warns when Dask workers run another build of ccsim than this process."""
    try:
        theirs = client.run(build_fingerprint)
    except Exception as e:  # a worker without ccsim: the runs will fail and say so
        warnings.warn(
            f"could not check that the Dask workers run the same build of ccsim as this process (their results may differ): {_message(e)}",
            stacklevel=4,
        )
        return
    mine = build_fingerprint()
    other = sorted(w for w, f in theirs.items() if f != mine)
    if other:
        warnings.warn(
            f"{len(other)} of {len(theirs)} Dask workers ({', '.join(other[:3])}{', ...' if len(other) > 3 else ''}) "
            "run another build of ccsim than this process: their results may differ",
            stacklevel=4,
        )


def _dask_client(scheduler: Any):
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover
        raise ImportError("a sweep on a Dask cluster needs dask.distributed: pip install 'dask[distributed]'") from None
    if isinstance(scheduler, Client):
        return scheduler, False
    if isinstance(scheduler, str) or hasattr(scheduler, "scheduler_address"):  # an address, or LocalCluster, ...
        try:
            return Client(scheduler), True
        except OSError as e:
            where = scheduler if isinstance(scheduler, str) else scheduler.scheduler_address
            raise ConnectionError(f"cannot connect to the Dask scheduler at {where}: {e}") from None
    raise TypeError(f"scheduler must be an address ('tcp://host:8786'), a distributed.Client or a cluster, not {type(scheduler).__name__}")


def _execute_dask(tasks: list[Task], scheduler: Any, done: Callable[[Task, dict[str, Any]], None]) -> None:
    from distributed import as_completed

    client, own = _dask_client(scheduler)
    futures = {}
    try:
        _check_workers(client)
        token = uuid.uuid4().hex[:8]
        for t in tasks:
            f = client.submit(run_one, t, key=f"ccsim-run-{t.run_key}-{token}", pure=False)
            futures[f] = t
        for f in as_completed(list(futures)):
            try:
                result = f.result()
            except Exception as e:
                result = _failure(e)
            done(futures[f], result)
            f.release()
    except BaseException:
        client.cancel([f for f in futures if not f.done()])
        raise
    finally:
        if own:
            client.close()


class _Progress:
    def __init__(self, progress: Any, total: int, initial: int):
        self.callback = progress if callable(progress) and not isinstance(progress, bool) else None
        self.done, self.total, self.errors = initial, total, 0
        self.bar = None
        show = progress is True or (progress is None and _stderr_is_terminal())
        if self.callback is None and show and total > initial:
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=initial, file=sys.stderr, desc="sweep", unit="run", leave=False, dynamic_ncols=True)

    def update(self, result: dict[str, Any]) -> None:
        self.done += 1
        if result.get("status") != OK:
            self.errors += 1
        if self.bar is not None:
            if self.errors:
                self.bar.set_postfix_str(f"{self.errors} failed", refresh=False)
            self.bar.update(1)
        if self.callback is not None:
            self.callback(self.done, self.total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def sweep(
    base: Any,
    grid: Mapping[str, Sequence[Any]] | None = None,
    points: Sequence[Mapping[str, Any]] | None = None,
    replications: int = 1,
    base_seed: int = 1,
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    scheduler: Any = None,
    progress: Any = None,
    keep_flows: bool = False,
    metrics: Metrics = None,
    retry_errors: bool = True,
) -> SweepResult:
    """Runs `base` at every point of the sweep, `replications` times each, and returns a
    `SweepResult`.

    - `base`: the scenario, as for `ccsim.run`: a path, TOML text or a dict.
    - `grid`: `{key.path: [values]}`, the Cartesian product of the values (first key
      slowest); `points`: a list of `{key.path: value}` dicts. Points come first, then the
      grid; with neither there is one point, the scenario as it is. A value may be a dict
      or a list (written as TOML); None removes the key.
    - `replications`, `base_seed`: replication r of every point runs with seed
      `derive_seed(base_seed, r)`.
    - `out`: the store directory; runs already in it are not run again (resume a sweep by
      running it again with the same `out`). Default: a new temporary directory.
    - `workers`: processes of the local pool (default: every core); 1 runs in this process.
    - `scheduler`: run on Dask instead: an address (`"tcp://host:8786"`), a
      `distributed.Client` or a cluster object. The results are the same.
    - `progress`: None shows a bar on stderr when it is a terminal, True always, False
      never; a callable is called as `progress(done, total)` after each run (what it
      raises stops the sweep; finished runs are kept).
    - `keep_flows`: also store each run's per-flow table (`SweepResult.flows`).
    - `metrics`: `{column: function(summary) -> float}`, computed by the workers from each
      run's report (the dict of `ccsim run --json`, without wall_time_s and
      events_per_second). Module-level functions, so that they can be pickled.
    - `retry_errors`: run again the runs stored with status "error" (default True).

    A run that fails (a bad override, an invalid scenario at one point, an exception) is
    stored with status "error" and its message; the others go on. Problems with the sweep
    itself (no such scenario file, a malformed grid) raise `ValueError` or
    `ccsim.ScenarioError` before anything runs.
    """
    text, origin = resolve(base)
    plan = Plan(text, origin, grid, points, replications, base_seed, metrics, keep_flows)
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 1):
        raise ValueError(f"workers must be a positive integer or None, got {workers!r}")
    n_workers = int(workers) if workers is not None else (os.cpu_count() or 1)
    if scheduler is None and n_workers > 1 and plan.metrics:
        try:
            pickle.dumps(plan.metrics)
        except Exception as e:
            raise ValueError(f"metrics must be picklable (module-level functions, not lambdas) to run in worker processes: {e}") from None

    store = Store(out if out is not None else tempfile.mkdtemp(prefix="ccsim-sweep-"))
    started = store.begin(plan)
    todo, reused = store.pending(plan, retry_errors)
    tasks = [plan.task(k) for k in todo]
    bar = _Progress(progress, len(plan.unique), reused)

    def save(task: Task, result: dict[str, Any]) -> None:
        store.save(plan, task.run_key, result)

    def done(task: Task, result: dict[str, Any]) -> None:
        save(task, result)
        bar.update(result)

    try:
        if not tasks:
            pass
        elif scheduler is not None:
            _execute_dask(tasks, scheduler, done)
        elif n_workers == 1:
            for t in tasks:
                done(t, run_one(t))
        else:
            _execute_local(tasks, n_workers, done, save)
    finally:
        bar.close()
    runs, flows = store.finish(plan, started)
    return SweepResult(store.out, runs, flows, store.read_definition(), ran=len(tasks), reused=reused)


# --- results --------------------------------------------------------------------------------


class SweepResult:
    """What `ccsim.sweep` returns, or `SweepResult.load(out)` reads back.

    - `runs`: one row per (point, replication), Polars; see `docs/sweeps.md`.
    - `flows`: the per-flow rows of every run (with keep_flows), else None.
    - `out`: the store directory. `failed`: the rows with status "error".
    - `parameters`: the override columns. `definition`: the contents of sweep.json.
    - `ran`, `reused`: runs computed by this call and found in the store.
    """

    def __init__(
        self,
        out: Path,
        runs: pl.DataFrame,
        flows: pl.DataFrame | None = None,
        definition: dict[str, Any] | None = None,
        ran: int = 0,
        reused: int = 0,
    ):
        self.out = Path(out)
        self.runs = runs
        self.flows = flows
        self.definition = definition or {}
        self.ran, self.reused = ran, reused

    @property
    def parameters(self) -> list[str]:
        if "parameters" in self.definition:
            return [p["name"] for p in self.definition["parameters"]]
        # Without sweep.json: the columns between the head and the first totals column.
        out = []
        for c in self.runs.columns[len(HEAD_COLUMNS) :]:
            if c.startswith("totals.") or c in RESERVED_COLUMNS:
                break
            out.append(c)
        return out

    @property
    def failed(self) -> pl.DataFrame:
        import polars as pl

        return self.runs.filter(pl.col("status") != OK)

    @property
    def complete(self) -> bool:
        """Whether every run of the sweep has a row."""
        return bool(self.definition.get("runs")) and self.runs.height == len(self.definition["runs"])

    def summaries(self) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        """(row without summary_json, report) for each run that finished without error."""
        for row in self.runs.iter_rows(named=True):
            if row["status"] == OK and row.get("summary_json"):
                text = row.pop("summary_json")
                yield row, json.loads(text)

    def with_metrics(self, metrics: Mapping[str, Callable[[dict[str, Any]], float]]) -> pl.DataFrame:
        """`runs` with more metric columns, computed here from each run's summary_json (null
        for failed runs). For metrics thought of after the sweep; nothing is rerun."""
        import polars as pl

        columns: dict[str, list[float | None]] = {m: [] for m in metrics}
        for text, status in zip(self.runs["summary_json"].to_list(), self.runs["status"].to_list()):
            summary = json.loads(text) if text else None
            for m, fn in metrics.items():
                columns[m].append(None if summary is None or status != OK else _float(fn(summary)))
        return self.runs.with_columns([pl.Series(m, v, dtype=pl.Float64) for m, v in columns.items()])

    def aggregate(self, metrics: str | Sequence[str], by: None | str | Sequence[str] = None, confidence: float = 0.95) -> pl.DataFrame:
        """Mean, sample standard deviation, count and confidence-interval half-width of each
        metric column over the replications, per group: by default per point (grouped by
        every override column), else by the columns `by`.

        Columns: the group columns (and `point`, the first point of the group, when `by` is
        not given), `runs` and `failed` (rows with status "error", left out of the
        statistics), then for each metric `M.mean`, `M.std`, `M.n`, `M.ci95` (Student t,
        two-sided; `ci90`, `ci99` ... for another `confidence`). Missing and NaN values are
        left out; with n = 1 std and the half-width are NaN.
        """
        import polars as pl

        from .stats import half_width

        metrics = [metrics] if isinstance(metrics, str) else list(metrics)
        default = by is None
        by = list(self.parameters) if by is None else ([by] if isinstance(by, str) else list(by))
        for c in [*metrics, *by]:
            if c not in self.runs.columns:
                raise KeyError(f"no column {c!r} in the runs (columns: {', '.join(c for c in self.runs.columns if c != 'summary_json')})")
        ci = f"ci{confidence * 100:g}"
        ok = pl.col("status") == OK
        aggs = [pl.len().cast(pl.Int64).alias("runs"), (~ok).sum().cast(pl.Int64).alias("failed")]
        if default:
            aggs.insert(0, pl.col("point").min().alias("point"))
        for m in metrics:
            v = pl.col(m).filter(ok).cast(pl.Float64).fill_nan(None)
            aggs += [v.mean().alias(f"{m}.mean"), v.std().alias(f"{m}.std"), v.count().cast(pl.Int64).alias(f"{m}.n")]
        runs = self.runs.sort(["point", "replication"], maintain_order=True)
        if by:
            g = runs.group_by(by, maintain_order=True).agg(aggs)
        else:
            g = runs.select(aggs)
        columns = []
        for m in metrics:
            hw = [
                half_width(s if s is not None else math.nan, n, confidence) for s, n in zip(g[f"{m}.std"].to_list(), g[f"{m}.n"].to_list())
            ]
            columns.append(pl.Series(f"{m}.{ci}", hw, dtype=pl.Float64))
            columns.append(pl.col(f"{m}.std").fill_null(math.nan))
            columns.append(pl.col(f"{m}.mean").fill_null(math.nan))
        g = g.with_columns(columns)
        order = (["point"] if default else []) + by + ["runs", "failed"]
        for m in metrics:
            order += [f"{m}.mean", f"{m}.std", f"{m}.n", f"{m}.{ci}"]
        return g.select(order)

    @classmethod
    def load(cls, out: str | os.PathLike[str]) -> SweepResult:
        """A store written by `ccsim.sweep` or `ccsim sweep`, finished or not: the rows of
        the runs of its last sweep definition that have finished."""
        import polars as pl

        store = Store(out)
        definition = store.read_definition()
        if definition is None:
            if not store.runs_dir.is_dir():
                raise FileNotFoundError(f"{out}: not a sweep directory (no sweep.json and no runs/)")
            files = sorted(store.runs_dir.glob("*.parquet"))
            runs = pl.concat([pl.read_parquet(f) for f in files], how="diagonal_relaxed") if files else _empty_runs([], {}, [])
            return cls(store.out, runs.sort(["point", "replication"], maintain_order=True), None, {})
        parameters = [p["name"] for p in definition.get("parameters", [])]
        kinds = {p["name"]: p["type"] for p in definition.get("parameters", [])}
        runs_list = _runs_of(definition)
        combined = store.out / "runs.parquet"
        if definition.get("complete") and combined.exists():
            runs = pl.read_parquet(combined)
        else:
            runs = collect_runs(store.out, runs_list, parameters, kinds, definition.get("metrics", []))
        flows = None
        if definition.get("keep_flows"):
            combined = store.out / "flows.parquet"
            flows = pl.read_parquet(combined) if definition.get("complete") and combined.exists() else collect_flows(store.out, runs_list)
        return cls(store.out, runs, flows, definition)

    def __repr__(self) -> str:
        total = len(self.definition.get("runs", [])) or self.runs.height
        failed = self.failed.height
        return f"<SweepResult {str(self.out)!r}: {self.runs.height} of {total} runs, {failed} failed>"


def _float(v: Any) -> float | None:
    return None if v is None else float(v)
