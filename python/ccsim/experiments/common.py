"""What every paper reproduction shares: running replicated sweeps, reading metrics out of
run summaries, and comparing two strategies with confidence intervals."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..stats import mean_ci


@dataclass
class Options:
    """How a reproduction runs: `quick` trades replications and length for speed."""

    out: Path
    quick: bool = False
    workers: int | None = None
    scheduler: Any = None
    progress: bool | None = None


def queue(summary: dict, link: str) -> dict:
    """The queue table row of `link` ("A->B") in a run summary."""
    return next(q for q in summary["queues"] if q["link"] == link)


def group_goodput(summary: dict, group: str) -> float:
    """Summed goodput (bit/s) of a flow group."""
    return sum(f["goodput_bps"] for f in summary["flows"] if f["group"] == group)


def summarise(values: Iterable[float]) -> tuple[float, float, int]:
    """(mean, 95% CI half-width, n)."""
    vals = [float(v) for v in values]
    m, h = mean_ci(vals)
    return m, h, len(vals)


def num(x: float, digits: int = 3) -> str:
    """`x` with about `digits` significant digits, never in exponent notation."""
    import math

    if x != x or x == 0:
        return "-" if x != x else "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    return f"{x:,.{decimals}f}"


def pm(mean: float, half: float, digits: int = 3) -> str:
    """`mean ± half`, the mean with `digits` significant digits (no half-width for n = 1)."""
    if half != half:
        return num(mean, digits)
    return f"{num(mean, digits)} ± {num(half, 2)}"


def compare(a: list[float], b: list[float], lower_is_better: bool) -> str:
    """Verdict on "a is better than b": separated 95% intervals, same direction only, or not."""
    ma, ha, _ = summarise(a)
    mb, hb, _ = summarise(b)
    better = ma < mb if lower_is_better else ma > mb
    if not better:
        return "no"
    separated = (ma + ha < mb - hb) if lower_is_better else (ma - ha > mb + hb)
    return "yes" if separated else "yes, within noise"


def by_point(runs, key: str, metric: Callable[[dict], float]) -> dict[Any, list[float]]:
    """Groups a metric of every successful run by the value of an override column."""
    import json

    out: dict[Any, list[float]] = {}
    for row in runs.iter_rows(named=True):
        if row["status"] != "ok":
            continue
        out.setdefault(row[key], []).append(metric(json.loads(row["summary_json"])))
    return out
