"""ccsim.stats: the Student t quantile and the confidence interval of a mean."""

import math

import polars as pl
import pytest

from ccsim.stats import mean_ci, normal_quantile, regularized_incomplete_beta, t_cdf, t_quantile


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
    assert normal_quantile(0.975) == pytest.approx(1.95996398454005, rel=1e-12)
    assert t_quantile(0.025, 5) == -t_quantile(0.975, 5)
    assert t_quantile(0.5, 3) == 0.0


def test_t_cdf_against_closed_forms():
    for t in (-30.0, -2.5, -0.3, 0.0, 0.7, 4.0, 100.0):
        # df = 1 is the Cauchy distribution; df = 2 has F(t) = 1/2 + t / (2 sqrt(2 + t^2)).
        assert t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi, abs=1e-13)
        assert t_cdf(t, 2) == pytest.approx(0.5 + t / (2 * math.sqrt(2 + t * t)), abs=1e-13)
    # I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b.
    assert regularized_incomplete_beta(2.5, 1.0, 0.3) == pytest.approx(0.3**2.5, rel=1e-12)
    assert regularized_incomplete_beta(1.0, 3.5, 0.6) == pytest.approx(1 - 0.4**3.5, rel=1e-12)


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
