"""What a sweep gives back: its runs (and flows) as Polars data frames, read from the store,
with the report of each run and statistics over the replications."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .plan import HEAD_COLUMNS, RESERVED_COLUMNS
from .statistics import aggregate
from .store import Store, collect_flows, collect_runs, empty_runs, runs_of
from .worker import OK

if TYPE_CHECKING:
    import polars as pl


class SweepResult:
    """What `ccsim.sweep` returns, or `SweepResult.load(out)` reads back.

    - `runs`: one row per (point, replication), Polars; see `docs/sweeps.md`.
    - `flows`: the per-flow rows of every run (with keep_flows), else None.
    - `out`: the store directory. `failed`: the rows with status "error".
    - `parameters`: the override columns. `definition`: the contents of sweep.json.
    - `ran`, `reused`: runs computed by this call and found in the store.
    - `failures`: what went wrong on the way in this call, as (run, error, retried): a run
      whose worker process died or was lost, or whose simulation panicked, is run once more;
      if it fails again its row says so.
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
        self.failures: list[tuple[str, str, bool]] = []

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
        every override column), else by the columns `by`. See `statistics.aggregate`."""
        return aggregate(self.runs, metrics, self.parameters if by is None else by, confidence, per_point=by is None)

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
            runs = pl.concat([pl.read_parquet(f) for f in files], how="diagonal_relaxed") if files else empty_runs([], {}, [])
            return cls(store.out, runs.sort(["point", "replication"], maintain_order=True), None, {})
        parameters = [p["name"] for p in definition.get("parameters", [])]
        kinds = {p["name"]: p["type"] for p in definition.get("parameters", [])}
        runs_list = runs_of(definition)
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
