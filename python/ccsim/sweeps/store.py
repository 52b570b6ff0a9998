"""The store of a sweep: a directory with one Parquet file per finished run, written as
the run finishes, so that a sweep that was stopped or killed is resumed by running it
again; and, at the end, the combined tables and `sweep.json`."""

from __future__ import annotations

import datetime
import json
import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import schema
from .._files import atomic_write, atomic_write_text
from .plan import HEAD_COLUMNS, STR, Plan, column_dtype
from .worker import ERROR, OK, build_fingerprint, metric_values

if TYPE_CHECKING:
    import polars as pl

#: Version of the store's layout and of the seeds of its runs, in `sweep.json`. 2: the
#: seeds of replications come from NumPy's SeedSequence (1: from splitmix64).
FORMAT = 2


class StoreFormatError(ValueError):
    """A store written by a ccsim whose sweeps derive their runs otherwise."""


def _atomic_write_parquet(df: pl.DataFrame, path: Path) -> None:
    atomic_write(path, df.write_parquet)


def _atomic_write_text(text: str, path: Path) -> None:
    atomic_write_text(path, text)


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
    series += [pl.Series(k, [values[k]], dtype=column_dtype(plan.kinds[k])) for k in plan.parameters]
    totals = schema.fields("totals")
    for k, v in result.items():
        if k.startswith("totals."):
            field = totals.get(k[len("totals.") :])
            integer = field.kind == schema.INT if field is not None else isinstance(v, int) and not isinstance(v, bool)
            series.append(pl.Series(k, [v], dtype=pl.Int64 if integer else pl.Float64))
    series.append(pl.Series("events_processed", [result.get("events_processed")], dtype=pl.Int64))
    series.append(pl.Series("measured_s", [result.get("measured_s")], dtype=pl.Float64))
    for m in plan.metric_names:
        series.append(pl.Series(m, [result.get(m)], dtype=pl.Float64))
    series.append(pl.Series("run_key", [key], dtype=pl.Utf8))
    series.append(pl.Series("summary_json", [result.get("summary_json")], dtype=pl.Utf8))
    return pl.DataFrame(series)


def _flows_frame(summary: dict[str, Any], point: int, replication: int, seed: int, key: str) -> pl.DataFrame:
    import polars as pl

    from ..results import Results

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
        from .. import __version__

        d = {"format": FORMAT, "version": __version__, "build": build_fingerprint(), **plan.definition()}
        d["complete"] = complete
        d["started"] = started
        if complete:
            d["finished"] = _now()
        if counts is not None:
            d["counts"] = counts
        _atomic_write_text(json.dumps(d, indent=1, allow_nan=True) + "\n", self.out / "sweep.json")

    def check_format(self, definition: dict[str, Any] | None) -> None:
        """Refuses to run into a store whose runs another layout or seed derivation made:
        their seeds and run keys are not this version's, so resuming would silently mix
        two sets of seeds (or run everything again beside the old runs)."""
        if definition is None:
            return
        old = definition.get("format")
        if old == FORMAT:
            return
        if isinstance(old, int) and old > FORMAT:
            raise StoreFormatError(
                f"{self.out}: this store was written by a newer ccsim (store format {old}; this version writes format {FORMAT}): "
                "run the sweep with that version, or into a new directory"
            )
        raise StoreFormatError(
            f"{self.out}: this store was written by an older ccsim (store format {old}; this version writes format {FORMAT}), "
            "whose replication seeds were derived otherwise (splitmix64 of base_seed + replication; now NumPy's SeedSequence): "
            "its runs cannot be resumed with the new seeds. Run the sweep into a new directory (or delete this one to run it "
            "anew); SweepResult.load still reads the old store"
        )

    def begin(self, plan: Plan) -> str:
        old = self.read_definition()
        self.check_format(old)
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        if plan.keep_flows:
            self.flows_dir.mkdir(parents=True, exist_ok=True)
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
        values, error = metric_values(summary, [(m, f) for m, f in plan.metrics if m in missing])
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


def runs_of(definition: dict[str, Any]) -> list[tuple[int, int, int, str]]:
    return [(r["point"], r["replication"], r["seed"], r["run_key"]) for r in definition["runs"]]


def empty_runs(parameters: Sequence[str], kinds: Mapping[str, str], metric_names: Sequence[str]) -> pl.DataFrame:
    import polars as pl

    schema = {"point": pl.Int64, "replication": pl.Int64, "seed": pl.Int64, "status": pl.Utf8, "error": pl.Utf8, "wall_time_s": pl.Float64}
    schema.update({k: column_dtype(kinds.get(k, STR)) for k in parameters})
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
    empty = empty_runs(parameters, kinds, metric_names)
    df = pl.concat([empty, *frames], how="diagonal_relaxed")
    tasks = pl.DataFrame(
        {"point": [p for p, _, _, _ in runs], "run_key": [k for _, _, _, k in runs]},
        schema={"point": pl.Int64, "run_key": pl.Utf8},
    )
    # The point of each run comes from the definition: a run file written by a sweep whose
    # points were listed in another order (or twice) still lands where it belongs.
    df = tasks.join(df.drop("point"), on="run_key", how="inner")
    df = df.with_columns([pl.col(k).cast(column_dtype(kinds.get(k, STR)), strict=False) for k in parameters])
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
