"""The verdict functions of the reproductions, on synthetic numbers: each can return each of
its outcomes, and an interval decides only when it lies wholly on one side."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from ccsim.experiments import verdicts as v
from ccsim.experiments.verdicts import FAILS, HOLDS, INCONCLUSIVE, PARTLY


def est(lo: float, hi: float, n: int = 10) -> v.Estimate:
    return v.Estimate((lo + hi) / 2, lo, hi, n)


def test_mean_interval_is_scipys_student_t():
    xs = [9.1, 9.3, 9.0, 9.4, 9.2]
    e = v.mean_interval(xs)
    m, se = sum(xs) / 5, stats.sem(xs)
    assert e.mean == pytest.approx(m)
    assert (e.lo, e.hi) == pytest.approx(stats.t.interval(0.95, 4, loc=m, scale=se))
    assert e.n == 5 and not e.few
    assert v.mean_interval([1.0, 2.0]).few
    one = v.mean_interval([3.0])
    assert one.lo == -math.inf and one.hi == math.inf
    same = v.mean_interval([2.0, 2.0, 2.0])
    assert (same.lo, same.hi) == (2.0, 2.0)
    assert v.mean_interval([]).n == 0 and v.mean_interval([None, float("nan"), 1.0]).n == 1


def test_paired_differences_pair_by_replication():
    a = {0: 10.0, 1: 12.0, 2: 11.0, 3: 15.1, 4: 9.2, 5: 99.0}
    b = {0: 9.0, 1: 11.1, 2: 10.0, 3: 14.0, 4: 8.0}  # replication 5 has no partner
    e = v.paired(a, b)
    assert e.n == 5 and e.mean == pytest.approx(1.04)
    # Unpaired, the shared noise would hide the difference; paired, it is decided.
    assert v.greater(e) == HOLDS
    assert v.greater(v.mean_interval(list(a.values())[:5])) == HOLDS
    unpaired = v.mean_interval([x - y for x, y in zip(list(a.values())[:5], [11.1, 9.0, 14.0, 8.0, 10.0])])
    assert v.greater(unpaired) == INCONCLUSIVE
    r = v.relative({0: 110.0, 1: 120.0}, {0: 100.0, 1: 100.0})
    assert r.mean == pytest.approx(15.0) and r.unit == "%"
    assert v.relative({0: 1.0}, {0: 0.0}).n == 0


def test_ratio_interval_stays_positive():
    e = v.ratio({0: 1.0, 1: 4.0, 2: 1.2}, {0: 1.0, 1: 1.0, 2: 1.0})
    assert e.lo > 0 and e.mean == pytest.approx((1 * 4 * 1.2) ** (1 / 3))
    assert v.log_mean([0.5, 8.0]).lo > 0


@pytest.mark.parametrize(
    "e, expected",
    [
        (est(0.5, 2.0), HOLDS),
        (est(-3.0, -1.0), FAILS),
        (est(0.0, 0.0), FAILS),
        (est(-1.0, 2.0), INCONCLUSIVE),
        (v.mean_interval([]), INCONCLUSIVE),
    ],
)
def test_greater(e, expected):
    assert v.greater(e) == expected


@pytest.mark.parametrize("e, expected", [(est(-2.0, -0.5), HOLDS), (est(1.0, 3.0), FAILS), (est(-1.0, 1.0), INCONCLUSIVE)])
def test_less(e, expected):
    assert v.less(e) == expected


def test_too_few_runs_decide_nothing():
    # Two runs whose counts happen to agree give a zero-width interval: no ground for a verdict.
    e = v.paired({0: 5.0, 1: 5.0}, {0: 6.0, 1: 6.0})
    assert (e.lo, e.hi) == (-1.0, -1.0) and e.few
    assert v.less(e) == INCONCLUSIVE and v.greater(e) == INCONCLUSIVE and v.within(e, -2, 0) == INCONCLUSIVE
    assert v.less(v.paired({r: 5.0 for r in range(5)}, {r: 6.0 for r in range(5)})) == HOLDS
    assert v.greater(v.exact(1.0)) == HOLDS  # exact numbers are not samples


def test_greater_and_less_against_a_threshold():
    assert v.greater(est(21.0, 25.0), 20) == HOLDS
    assert v.greater(est(5.0, 15.0), 20) == FAILS
    assert v.less(est(-50.0, -35.0), -30) == HOLDS
    assert v.less(est(-20.0, 10.0), -30) == FAILS


@pytest.mark.parametrize(
    "e, expected",
    [
        (est(-3.0, 4.0), HOLDS),
        (est(12.0, 30.0), FAILS),
        (est(-40.0, -11.0), FAILS),
        (est(5.0, 15.0), INCONCLUSIVE),
        (est(-20.0, 20.0), INCONCLUSIVE),
    ],
)
def test_within(e, expected):
    assert v.within(e, -10, 10) == expected


def test_about_uses_a_band_around_the_target():
    assert v.band(30.4) == pytest.approx((20.27, 45.6), rel=1e-3)
    assert v.about(est(25.0, 35.0), 30.4) == HOLDS
    assert v.about(v.exact(6.4), 30.4) == FAILS  # the DAS paper's "up to 30.4%" against at most 6.4%
    assert v.about(est(1.1, 2.0), 3.5) == FAILS  # ACK spoofing's "3.5 times" against ratios near 1.6
    assert v.about(v.log_mean([1.94, 1.27]), 3.5) == INCONCLUSIVE  # ... but not from two runs
    assert v.about(est(1.0, 9.0), 3.5) == INCONCLUSIVE
    with pytest.raises(ValueError):
        v.about(est(1, 2), 0)


@pytest.mark.parametrize("before, after, expected", [(4, 0, HOLDS), (4, 1, PARTLY), (4, 4, FAILS), (2, 5, FAILS), (0, 0, INCONCLUSIVE)])
def test_reduced(before, after, expected):
    assert v.reduced(before, after) == expected


@pytest.mark.parametrize(
    "outcomes, expected",
    [
        ([HOLDS, HOLDS], HOLDS),
        ([FAILS, FAILS], FAILS),
        ([FAILS, INCONCLUSIVE], FAILS),
        ([HOLDS, FAILS], PARTLY),
        ([HOLDS, PARTLY], PARTLY),
        ([HOLDS, INCONCLUSIVE], INCONCLUSIVE),
        ([INCONCLUSIVE], INCONCLUSIVE),
        ([], INCONCLUSIVE),
    ],
)
def test_all_of(outcomes, expected):
    assert v.all_of(outcomes) == expected


@pytest.mark.parametrize(
    "outcomes, expected",
    [([FAILS, HOLDS], HOLDS), ([FAILS, FAILS], FAILS), ([FAILS, INCONCLUSIVE], INCONCLUSIVE), ([], INCONCLUSIVE)],
)
def test_any_of(outcomes, expected):
    assert v.any_of(outcomes) == expected


@pytest.mark.parametrize(
    "premise, consequence, expected",
    [
        (HOLDS, HOLDS, HOLDS),
        (HOLDS, INCONCLUSIVE, INCONCLUSIVE),
        (FAILS, HOLDS, FAILS),  # no penalty to remove: the claim does not hold
        (INCONCLUSIVE, HOLDS, INCONCLUSIVE),
        (INCONCLUSIVE, FAILS, FAILS),
        (PARTLY, HOLDS, PARTLY),
    ],
)
def test_given(premise, consequence, expected):
    assert v.given(premise, consequence) == expected


def test_outcomes_are_checked():
    with pytest.raises(ValueError, match="not an outcome"):
        v.all_of([HOLDS, "yes, within noise"])


def test_estimate_text_marks_too_few_runs():
    assert v.mean_interval([1.0, 2.0, 3.0], "kb/s").text().endswith(f"kb/s (n=3) {v.FEW}")
    assert v.FEW not in v.mean_interval(range(10)).text()
    assert v.exact(6.4, "%").text() == "6.40 %"
    assert "no interval" in v.mean_interval([1.0]).text()


def test_every_tests_each_case_and_lists_the_estimates():
    c = v.every([("S1", est(-3.0, -1.0)), ("S2", est(-2.0, 1.0))], v.less)
    assert c.outcome == INCONCLUSIVE and c.ours.startswith("S1: -2.0 [-3.0, -1.0]; S2:") and c.ours == c.detail
    assert v.every([("a", est(1, 2)), ("b", est(-2, -1))], v.greater).outcome == PARTLY
    many = v.every([(f"b{i}", est(1, 2)) for i in range(4)] + [("bad", est(-3, -2))], v.greater)
    assert many.outcome == PARTLY and many.ours == "5 cases: 4 holds, 1 does not hold; e.g. bad: -2.5 [-3.0, -2.0]"
    assert "b3: 1.5 [1.0, 2.0]" in many.detail


def test_an_interval_past_a_physical_bound_is_shown_as_the_runs():
    e = v.relative({r: x for r, x in enumerate([1.0, 30.0, 2.0, 1.0, 25.0])}, {r: 50.0 for r in range(5)})
    assert e.lo < -100 and e.crosses_bounds
    assert e.short() == "-76% (runs -98, -98, -96, -50, -40)"
    assert v.less(e) == HOLDS  # the verdict still uses the interval
    assert v.relative({0: 1.0, 1: 2.0}, {0: 1.0, 1: 1.0}).short().endswith(f"%] {v.FEW}") is False
    assert v.relative({0: 1.0, 1: 2.0}, {0: 1.0, 1: 1.0}).short().endswith(v.FEW)
