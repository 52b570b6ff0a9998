"""Statistics of a sweep's runs over their replications: mean, sample standard deviation,
count and the half-width of the Student t confidence interval of each metric, per point or
per group of points. The interval is `ccsim.stats.half_width` (scipy's t quantile)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..stats import half_width
from .worker import OK

if TYPE_CHECKING:
    import polars as pl


def aggregate(
    runs: pl.DataFrame, metrics: str | Sequence[str], by: str | Sequence[str], confidence: float = 0.95, per_point: bool = False
) -> pl.DataFrame:
    """Mean, sample standard deviation, count and confidence-interval half-width of each
    metric column of `runs` (a sweep's runs table) over the replications, per group of the
    columns `by`.

    Columns: `point` (the first point of the group, with `per_point`), the group columns,
    `runs` and `failed` (rows with status "error", left out of the statistics), then for
    each metric `M.mean`, `M.std`, `M.n`, `M.ci95` (Student t, two-sided; `ci90`, `ci99` ...
    for another `confidence`). Missing and NaN values are left out; with n = 1 std and the
    half-width are NaN.
    """
    import polars as pl

    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    by = [by] if isinstance(by, str) else list(by)
    for c in [*metrics, *by]:
        if c not in runs.columns:
            if c in metrics and runs.height and "status" in runs.columns and (runs["status"] != OK).all():
                first = runs["error"][0] if "error" in runs.columns else "no message"
                raise ValueError(f"no column {c!r}: every run of the sweep failed ({runs.height} runs; the first: {first})")
            raise KeyError(f"no column {c!r} in the runs (columns: {', '.join(c for c in runs.columns if c != 'summary_json')})")
    ci = f"ci{confidence * 100:g}"
    ok = pl.col("status") == OK
    aggs = [pl.len().cast(pl.Int64).alias("runs"), (~ok).sum().cast(pl.Int64).alias("failed")]
    if per_point:
        aggs.insert(0, pl.col("point").min().alias("point"))
    for m in metrics:
        v = pl.col(m).filter(ok).cast(pl.Float64).fill_nan(None)
        aggs += [v.mean().alias(f"{m}.mean"), v.std().alias(f"{m}.std"), v.count().cast(pl.Int64).alias(f"{m}.n")]
    runs = runs.sort(["point", "replication"], maintain_order=True)
    g = runs.group_by(by, maintain_order=True).agg(aggs) if by else runs.select(aggs)
    columns = []
    for m in metrics:
        stds, ns = g[f"{m}.std"].to_list(), g[f"{m}.n"].to_list()
        hw = [half_width(s if s is not None else math.nan, n, confidence) for s, n in zip(stds, ns)]
        columns.append(pl.Series(f"{m}.{ci}", hw, dtype=pl.Float64))
        columns.append(pl.col(f"{m}.std").fill_null(math.nan))
        columns.append(pl.col(f"{m}.mean").fill_null(math.nan))
    g = g.with_columns(columns)
    order = (["point"] if per_point else []) + by + ["runs", "failed"]
    for m in metrics:
        order += [f"{m}.mean", f"{m}.std", f"{m}.n", f"{m}.{ci}"]
    return g.select(order)
