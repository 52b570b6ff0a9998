"""Confidence intervals for the mean of replications, without scipy.

    from ccsim.stats import mean_ci
    mean, half = mean_ci([9.1e6, 9.3e6, 9.0e6, 9.4e6, 9.2e6])   # 95 %: mean +- half

The interval is the usual Student t interval for the mean of independent replications:
`mean +- t_{(1+c)/2, n-1} * s / sqrt(n)`, `s` the sample standard deviation (n - 1 in the
denominator). The t quantile is computed exactly (to about 1e-12) by inverting the t
distribution function, itself written with the regularized incomplete beta function
(continued fraction, as in Numerical Recipes `betacf`); `df = inf` gives the normal
quantile.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

__all__ = ["mean_ci", "t_quantile", "t_cdf", "normal_quantile", "regularized_incomplete_beta", "clean"]


def regularized_incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if not (a > 0 and b > 0):
        raise ValueError(f"a and b must be positive, got a={a}, b={b}")
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"x must be in [0, 1], got {x}")
    if x == 0.0 or x == 1.0:
        return x
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    # The continued fraction converges fast for x < (a + 1) / (a + b + 2); use the symmetry
    # I_x(a, b) = 1 - I_{1-x}(b, a) otherwise.
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_cf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_cf(b, a, 1.0 - x) / b


def _beta_cf(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b), by the modified Lentz method."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            return h
    return h  # pragma: no cover  (converges in a few hundred steps for any df used here)


def _normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with `df` degrees of freedom (`math.inf`: the normal)."""
    if not df > 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if math.isinf(df):
        return _normal_cdf(t)
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * regularized_incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def _invert(cdf, p: float) -> float:
    """x with cdf(x) = p for a continuous, increasing, symmetric distribution."""
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -_invert(cdf, 1.0 - p)
    lo, hi = 0.0, 1.0
    while cdf(hi) < p:
        lo, hi = hi, hi * 2.0
        if hi > 1e300:
            return math.inf
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if cdf(mid) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    return 0.5 * (lo + hi)


@lru_cache(maxsize=4096)
def normal_quantile(p: float) -> float:
    """The standard normal quantile: x with P(Z <= x) = p, 0 < p < 1."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    return _invert(_normal_cdf, p)


@lru_cache(maxsize=4096)
def t_quantile(p: float, df: float) -> float:
    """Student's t quantile: t with P(T <= t) = p, 0 < p < 1, `df` > 0 (may be `math.inf`).

    `t_quantile(0.975, 1) = 12.706...`, `t_quantile(0.975, math.inf) = 1.959964...`.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if not df > 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if math.isinf(df):
        return normal_quantile(p)
    return _invert(lambda t: t_cdf(t, df), p)


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
