"""ccsim.stats: the Student t quantile (scipy's, checked against published values and closed
forms) and the confidence interval of a mean."""

import math

import polars as pl
import pytest

from ccsim.stats import half_width, mean_ci, t_quantile


@pytest.mark.parametrize(
    "df, expected",
    [
        (1, 12.706),
        (2, 4.303),
        (3, 3.182),
        (4, 2.776),
        (5, 2.571),
        (10, 2.228),
        (20, 2.086),
        (30, 2.042),
        (60, 2.000),
        (120, 1.980),
        (math.inf, 1.960),
    ],
)
def test_t_975_matches_the_printed_table(df, expected):
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=5e-4)


def test_t_quantiles_to_many_digits():
    # Published to 12+ digits (e.g. R's qt): qt(0.975, 1), qt(0.995, 1), qt(0.95, 10), qt(0.975, 7).
    assert t_quantile(0.975, 1) == pytest.approx(12.7062047361747, rel=1e-11)
    assert t_quantile(0.995, 1) == pytest.approx(63.6567411628715, rel=1e-11)
    assert t_quantile(0.95, 10) == pytest.approx(1.81246112281168, rel=1e-11)
    assert t_quantile(0.975, 7) == pytest.approx(2.36462425159278, rel=1e-11)
    assert t_quantile(0.975, math.inf) == pytest.approx(1.95996398454005, rel=1e-12)
    assert t_quantile(0.025, 5) == pytest.approx(-t_quantile(0.975, 5), rel=1e-12)
    assert t_quantile(0.5, 3) == 0.0


def test_t_quantile_against_closed_forms():
    # df = 1 is the Cauchy distribution, quantile tan(pi (p - 1/2)); df = 2 has the quantile
    # (2p - 1) sqrt(2 / (4 p (1 - p))).
    for p in (0.001, 0.2, 0.6, 0.9, 0.975, 0.999):
        assert t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-12)
        assert t_quantile(p, 2) == pytest.approx((2 * p - 1) * math.sqrt(2 / (4 * p * (1 - p))), rel=1e-12)


def test_half_width():
    assert half_width(2.0, 4) == pytest.approx(t_quantile(0.975, 3) * 2.0 / 2.0)
    assert math.isnan(half_width(1.0, 1)) and math.isnan(half_width(math.nan, 5))


def test_mean_ci_by_hand():
    # 2 4 4 4 5 5 7 9: mean 5, squared deviations sum to 32, s^2 = 32/7, n = 8,
    # t(0.975, 7) = 2.3646 -> half-width 2.3646 * sqrt(32/7) / sqrt(8) = 1.7875.
    mean, half = mean_ci([2, 4, 4, 4, 5, 5, 7, 9])
    assert mean == 5.0
    assert half == pytest.approx(2.364624 * math.sqrt(32 / 7) / math.sqrt(8), rel=1e-6)
    assert half == pytest.approx(1.7875, abs=1e-4)
    # 99 %: t(0.995, 7) = 3.4995.
    assert mean_ci([2, 4, 4, 4, 5, 5, 7, 9], confidence=0.99)[1] == pytest.approx(3.499483 * math.sqrt(32 / 7) / math.sqrt(8), rel=1e-6)
    # Two values a, b: mean (a+b)/2, s = |a-b|/sqrt(2), half-width t(0.975,1) * |a-b| / 2.
    assert mean_ci([1.0, 3.0]) == (2.0, pytest.approx(12.7062047361747))


def test_mean_ci_edge_cases():
    assert mean_ci([4.2])[0] == 4.2 and math.isnan(mean_ci([4.2])[1])
    assert all(math.isnan(v) for v in mean_ci([]))
    # Missing values are left out; Series and arrays are accepted.
    assert mean_ci([1.0, None, float("nan"), 3.0]) == mean_ci([1.0, 3.0])
    assert mean_ci(pl.Series([1.0, 2.0, 3.0, 4.0])) == mean_ci([1, 2, 3, 4])
    assert mean_ci([5, 5, 5]) == (5.0, 0.0)
    with pytest.raises(ValueError):
        mean_ci([1, 2], confidence=1.0)
    with pytest.raises(ValueError):
        t_quantile(0.975, 0)
