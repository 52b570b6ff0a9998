"""Confidence intervals for the mean of replications.

    from ccsim.stats import mean_ci
    mean, half = mean_ci([9.1e6, 9.3e6, 9.0e6, 9.4e6, 9.2e6])   # 95 %: mean +- half

The interval is the usual Student t interval for the mean of independent replications:
`mean +- t_{(1+c)/2, n-1} * s / sqrt(n)`, `s` the sample standard deviation (n - 1 in the
denominator). The t quantile is scipy's (`scipy.stats.t.ppf`); `df = inf` gives the normal
quantile. `SweepResult.aggregate` computes its intervals with `half_width` from here.

`shown_interval` decides whether an interval is worth showing at all: the paper reports'
tables and figures and `ccsim view`'s pages all ask it. Below `MIN_RUNS` runs a t interval
is either very wide or, when a few counts happen to agree, falsely narrow; and an interval
that crosses a physical bound (a throughput below zero or above the link's rate) says
nothing true. Both are shown as the individual runs instead.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, Optional

__all__ = ["mean_ci", "t_quantile", "half_width", "sample_std", "clean", "MIN_RUNS", "FEW", "shown_interval", "within_bounds"]

#: Below this many runs no interval is shown and no claim decided (`shown_interval`).
MIN_RUNS = 5
#: The mark of a number from fewer than MIN_RUNS runs.
FEW = "†"

Bounds = tuple[Optional[float], Optional[float]]


@lru_cache(maxsize=4096)
def t_quantile(p: float, df: float) -> float:
    """Student's t quantile: t with P(T <= t) = p, 0 < p < 1, `df` > 0 (may be `math.inf`,
    the normal quantile). `scipy.stats.t.ppf`, with the arguments checked.

    `t_quantile(0.975, 1) = 12.706...`, `t_quantile(0.975, math.inf) = 1.959964...`.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if not df > 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    from scipy.stats import norm, t

    return float(norm.ppf(p) if math.isinf(df) else t.ppf(p, df))


def clean(values: Any) -> list[float]:
    """The values as floats, leaving out missing ones (None and NaN). Accepts any iterable,
    a Polars or pandas Series or a NumPy array."""
    if hasattr(values, "to_list"):
        values = values.to_list()
    elif hasattr(values, "tolist"):
        values = values.tolist()
    out = []
    for v in values:
        if v is None:
            continue
        f = float(v)
        if not math.isnan(f):
            out.append(f)
    return out


def mean_ci(values: Iterable[Any], confidence: float = 0.95) -> tuple[float, float]:
    """(mean, half-width) of the two-sided Student t confidence interval for the mean.

    Missing values (None, NaN) are left out. With one value the half-width is NaN (the
    spread is unknown); with none both are NaN. The interval is
    `mean +- t_quantile((1 + confidence) / 2, n - 1) * stdev / sqrt(n)`, where `stdev`
    is the sample standard deviation (divisor n - 1).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    xs = clean(values)
    n = len(xs)
    if n == 0:
        return math.nan, math.nan
    mean = math.fsum(xs) / n
    if n == 1:
        return mean, math.nan
    return mean, half_width(sample_std(xs, mean), n, confidence)


def sample_std(xs: list[float], mean: float) -> float:
    """The sample standard deviation (divisor n - 1) of at least two values."""
    return math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (len(xs) - 1))


def half_width(std: float, n: int, confidence: float = 0.95) -> float:
    """The half-width `t * std / sqrt(n)` for n values of sample standard deviation `std`;
    NaN for n < 2."""
    if n < 2 or std is None or math.isnan(std):
        return math.nan
    return t_quantile((1.0 + confidence) / 2.0, n - 1) * std / math.sqrt(n)


def within_bounds(lo: float, hi: float, bounds: Bounds) -> bool:
    """Whether [lo, hi] stays within the physical `bounds` (None: no bound on that side),
    allowing for rounding (a relative 1e-9)."""
    low, high = bounds
    eps = 1e-9
    return not ((low is not None and lo < low - eps * max(1.0, abs(low))) or (high is not None and hi > high + eps * max(1.0, abs(high))))


def shown_interval(mean: Any, half: Any, n: int | None, bounds: Bounds = (None, None)) -> tuple[float, float] | None:
    """The interval `mean ± half` as tables and figures show it, or None where it is not
    shown (the runs are, instead): from fewer than MIN_RUNS runs (`n` None: not known, not
    checked), not finite, or crossing the physical `bounds`."""
    if mean is None or half is None:
        return None
    mean, half = float(mean), float(half)
    if not (math.isfinite(mean) and math.isfinite(half)):
        return None
    if n is not None and n < MIN_RUNS:
        return None
    lo, hi = mean - half, mean + half
    return (lo, hi) if within_bounds(lo, hi, bounds) else None
