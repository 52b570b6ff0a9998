"""Verdicts on the papers' claims: the one place where a reproduction decides whether a
claim holds. A paper module measures (an `Estimate` from its runs) and names the claim's
test (`greater`, `less`, `within`, `about`, `reduced`, combined with `all_of`, `any_of`,
`given`); it never chooses an outcome itself.

Outcomes:

- HOLDS: the 95% interval of our estimate lies wholly on the side the claim states (the
  interval excludes the opposite).
- FAILS ("does not hold"): the interval lies wholly on the opposite side.
- PARTLY ("partly holds"): a claim made of parts (at every buffer size, fewer *and* larger)
  of which some decisively hold and others decisively fail.
- INCONCLUSIVE: the interval straddles the line (a real effect too small for the runs),
  the estimate rests on fewer than MIN_RUNS runs (`--quick`'s two or three: a t interval
  from so few values, or from counts that happen to agree, is no ground for a verdict), or
  a part could not be decided; never a guess from the means alone.

Estimates come from replications. A with/without comparison (DAS on/off, ACC/TCP vs TCP,
RED/Spoofing vs RED, RTRED vs RED) pairs the runs by replication: replication r of every
point of a sweep runs with the same seed (common random numbers), so the difference within
a pair removes the noise both share. The interval is Student's t (`scipy.stats.t`) over the
pairs' differences. Relative differences are in percent of the second member; ratios are
averaged on a log scale (`ratio`, `log_mean`), so their intervals stay positive.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .. import stats as _stats

HOLDS = "holds"
FAILS = "does not hold"
PARTLY = "partly holds"
INCONCLUSIVE = "inconclusive"
OUTCOMES = (HOLDS, PARTLY, FAILS, INCONCLUSIVE)

#: Confidence of every interval.
CONFIDENCE = 0.95
#: Below this many runs an estimate is marked "too few runs" (†) and decides nothing: a t
#: interval from 2-4 values is either very wide or, when a few counts happen to agree,
#: falsely narrow. The same rule hides such intervals in figures (`stats.shown_interval`).
MIN_RUNS = _stats.MIN_RUNS
#: The mark of an estimate from too few runs.
FEW = _stats.FEW


@dataclass(frozen=True)
class Estimate:
    """A mean and its two-sided `CONFIDENCE` interval [lo, hi] from `n` values. `exact`: a
    number computed without sampling error (a count, or a maximum over a fixed grid), whose
    interval is the number itself."""

    mean: float
    lo: float
    hi: float
    n: int
    unit: str = ""
    exact: bool = False
    #: Each value the estimate is made of (for the "runs" view of small samples).
    values: tuple[float, ...] = ()
    #: The physical range of the quantity (a relative change cannot fall below -100%): an
    #: interval that crosses it is shown as the runs instead.
    bounds: tuple[float | None, float | None] = (None, None)

    @property
    def crosses_bounds(self) -> bool:
        return not _stats.within_bounds(self.lo, self.hi, self.bounds)

    def _runs_text(self, digits: int) -> str:
        xs = sorted(self.values)
        if len(xs) <= 6:
            return "runs " + ", ".join(_num(x, digits) for x in xs)
        return f"runs {_num(xs[0], digits)} to {_num(xs[-1], digits)}"

    @property
    def few(self) -> bool:
        """Whether the estimate rests on fewer than MIN_RUNS values."""
        return not self.exact and self.n < MIN_RUNS

    def text(self, digits: int = 3) -> str:
        """`mean [lo, hi] unit`, with `n` and the too-few-runs mark; an exact number alone."""
        unit = f" {self.unit}" if self.unit else ""
        if self.n == 0:
            return "no runs"
        if self.exact:
            return f"{_num(self.mean, digits)}{unit}"
        if not (math.isfinite(self.lo) and math.isfinite(self.hi)):
            return f"{_num(self.mean, digits)}{unit} (n={self.n}, no interval) {FEW}"
        mark = f" {FEW}" if self.few else ""
        if self.crosses_bounds:
            return f"{_num(self.mean, digits)}{unit} ({self._runs_text(digits)}; n={self.n}){mark}"
        return f"{_num(self.mean, digits)} [{_num(self.lo, digits)}, {_num(self.hi, digits)}]{unit} (n={self.n}){mark}"

    def short(self, digits: int = 2) -> str:
        """`mean [lo, hi]` with the unit, compact, for verdict tables (n left out)."""
        unit = self.unit if self.unit in ("%", "x") else (f" {self.unit}" if self.unit else "")
        if self.n == 0:
            return "no runs"
        if self.exact:
            return f"{_num(self.mean, digits)}{unit}"
        mark = f" {FEW}" if self.few else ""
        if not (math.isfinite(self.lo) and math.isfinite(self.hi)):
            return f"{_num(self.mean, digits)}{unit} (no interval){mark}"
        if self.crosses_bounds:
            return f"{_num(self.mean, digits)}{unit} ({self._runs_text(digits)}){mark}"
        return f"{_num(self.mean, digits)}{unit} [{_num(self.lo, digits)}, {_num(self.hi, digits)}]{mark}"


def _num(x: float, digits: int = 3) -> str:
    if x != x:
        return "-"
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    return f"{x:,.{decimals}f}"


def _clean(values: Iterable[float]) -> list[float]:
    out = []
    for v in values:
        if v is None:
            continue
        f = float(v)
        if not math.isnan(f):
            out.append(f)
    return out


def mean_interval(values: Iterable[float], unit: str = "", bounds: tuple[float | None, float | None] = (None, None)) -> Estimate:
    """The mean of `values` (NaN and None left out) with its Student t interval. One value
    gives an unbounded interval; equal values give a zero-width one. `bounds`: the
    quantity's physical range, for showing it (`Estimate.bounds`)."""
    xs = _clean(values)
    n = len(xs)
    if n == 0:
        return Estimate(math.nan, -math.inf, math.inf, 0, unit, bounds=bounds)
    mean = math.fsum(xs) / n
    if n == 1:
        return Estimate(mean, -math.inf, math.inf, 1, unit, values=tuple(xs), bounds=bounds)
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    if sd == 0:
        return Estimate(mean, mean, mean, n, unit, values=tuple(xs), bounds=bounds)
    from scipy import stats

    lo, hi = stats.t.interval(CONFIDENCE, n - 1, loc=mean, scale=sd / math.sqrt(n))
    return Estimate(mean, float(lo), float(hi), n, unit, values=tuple(xs), bounds=bounds)


def log_mean(values: Iterable[float], unit: str = "x") -> Estimate:
    """The geometric mean of positive `values` with the t interval of their logarithms,
    taken back: a ratio's interval never reaches 0. Non-positive values are left out."""
    logs = [math.log(v) for v in _clean(values) if v > 0]
    e = mean_interval(logs)
    if e.n == 0:
        return Estimate(math.nan, -math.inf, math.inf, 0, unit)
    back = lambda x: math.exp(x) if math.isfinite(x) else (math.inf if x > 0 else 0.0)  # noqa: E731
    return Estimate(math.exp(e.mean), back(e.lo), back(e.hi), e.n, unit, values=tuple(math.exp(v) for v in e.values))


def exact(value: float, unit: str = "") -> Estimate:
    """A number without sampling error."""
    return Estimate(float(value), float(value), float(value), 1, unit, exact=True, values=(float(value),))


def _pairs(a: Mapping, b: Mapping) -> list[tuple[float, float]]:
    return [(float(a[k]), float(b[k])) for k in sorted(set(a) & set(b), key=str) if a[k] == a[k] and b[k] == b[k]]


def paired(a: Mapping, b: Mapping, unit: str = "") -> Estimate:
    """a - b, paired by key (the replication): the mean difference and its t interval."""
    return mean_interval([x - y for x, y in _pairs(a, b)], unit)


def relative(a: Mapping, b: Mapping) -> Estimate:
    """100 (a - b) / b in percent, paired by key, for positive quantities (so never below
    -100%); pairs with b = 0 are left out."""
    return mean_interval([100 * (x - y) / y for x, y in _pairs(a, b) if y != 0], "%", bounds=(-100.0, None))


def ratio(a: Mapping, b: Mapping, unit: str = "x") -> Estimate:
    """a / b paired by key, averaged on a log scale (`log_mean`); pairs with a zero are
    left out."""
    return log_mean([x / y for x, y in _pairs(a, b) if x > 0 and y > 0], unit)


# ---------------------------------------------------------------- single tests


def greater(e: Estimate, than: float = 0.0) -> str:
    """Claim "the quantity is above `than`": HOLDS when the whole interval is above it,
    FAILS when the whole interval is at or below it, INCONCLUSIVE otherwise (and always
    for an estimate from fewer than MIN_RUNS runs)."""
    if e.n == 0 or e.few:
        return INCONCLUSIVE
    if e.lo > than:
        return HOLDS
    if e.hi <= than:
        return FAILS
    return INCONCLUSIVE


def less(e: Estimate, than: float = 0.0) -> str:
    """Claim "the quantity is below `than`" (the mirror of `greater`)."""
    if e.n == 0 or e.few:
        return INCONCLUSIVE
    if e.hi < than:
        return HOLDS
    if e.lo >= than:
        return FAILS
    return INCONCLUSIVE


def within(e: Estimate, lo: float, hi: float) -> str:
    """Claim "the quantity is between `lo` and `hi`" (equivalence, "about", "do not differ
    appreciably"): HOLDS when the whole interval is inside, FAILS when the whole interval
    is outside on one side, INCONCLUSIVE when it overlaps an edge."""
    if e.n == 0 or e.few:
        return INCONCLUSIVE
    if e.lo >= lo and e.hi <= hi:
        return HOLDS
    if e.hi < lo or e.lo > hi:
        return FAILS
    return INCONCLUSIVE


def about(e: Estimate, target: float, factor: float = 1.5) -> str:
    """Claim "the quantity is about `target`" (positive): `within` [target / factor,
    target x factor]."""
    if target <= 0 or factor <= 1:
        raise ValueError("about() needs a positive target and a factor above 1")
    return within(e, target / factor, target * factor)


def band(target: float, factor: float = 1.5) -> tuple[float, float]:
    """The interval `about` accepts."""
    return target / factor, target * factor


def reduced(before: int, after: int) -> str:
    """Claim "a mechanism removes events" on exact counts: HOLDS when there were some and
    none are left, PARTLY when fewer are left, FAILS when as many or more are left,
    INCONCLUSIVE when there was nothing to remove."""
    if before <= 0:
        return INCONCLUSIVE
    if after == 0:
        return HOLDS
    if after < before:
        return PARTLY
    return FAILS


# ---------------------------------------------------------------- combinations


@dataclass(frozen=True)
class Cases:
    """The outcome of a claim tested on several labelled estimates, with the estimates as
    text: `ours` short enough for a verdict table, `detail` every case."""

    outcome: str
    ours: str
    detail: str


def every(cases: Sequence[tuple[str, Estimate]], test) -> Cases:
    """A claim tested on each of several labelled estimates (`all_of` their outcomes). Up
    to three cases are all listed in `ours`; beyond, a count and the case that decides
    against the claim (a failing one, else an undecided one, else the first)."""
    outcomes = [test(e) for _, e in cases]
    return tally(cases, outcomes)


def tally(cases: Sequence[tuple[str, Estimate]], outcomes: Sequence[str]) -> Cases:
    """`Cases` of estimates already tested one by one (`outcomes`, in order)."""
    outcome = all_of(outcomes)
    detail = "; ".join(f"{label}: {e.short()}" for label, e in cases)
    if len(cases) <= 3:
        return Cases(outcome, detail, detail)
    counts = ", ".join(f"{sum(o == w for o in outcomes)} {w}" for w in OUTCOMES if any(o == w for o in outcomes))
    pick = next((i for w in (FAILS, INCONCLUSIVE, PARTLY) for i, o in enumerate(outcomes) if o == w), 0)
    label, e = cases[pick]
    return Cases(outcome, f"{len(cases)} cases: {counts}; e.g. {label}: {e.short()}", detail)


def all_of(outcomes: Sequence[str]) -> str:
    """A claim that must hold in every case (at every buffer, in every scenario; or both
    parts of "fewer but larger"): HOLDS when all hold; FAILS when some fail and none hold;
    PARTLY when some hold and some fail; INCONCLUSIVE when none fail and not all hold."""
    outcomes = list(outcomes)
    if not outcomes:
        return INCONCLUSIVE
    _check(outcomes)
    held = sum(o == HOLDS for o in outcomes)
    failed = sum(o == FAILS for o in outcomes)
    partly = sum(o == PARTLY for o in outcomes)
    if held == len(outcomes):
        return HOLDS
    if failed or partly:
        return PARTLY if held or partly else FAILS
    return INCONCLUSIVE


def any_of(outcomes: Sequence[str]) -> str:
    """A claim that holds if it holds in some case ("up to", "at the highest RTTs, one of
    them"): HOLDS when one holds, FAILS when all fail, INCONCLUSIVE otherwise."""
    outcomes = list(outcomes)
    if not outcomes:
        return INCONCLUSIVE
    _check(outcomes)
    if HOLDS in outcomes:
        return HOLDS
    if all(o == FAILS for o in outcomes):
        return FAILS
    return INCONCLUSIVE


def given(premise: str, consequence: str) -> str:
    """A claim that presupposes another ("the RTT floor removes ACC's low-RTT penalty"
    presupposes a penalty): FAILS when the premise fails; when the premise is undecided,
    INCONCLUSIVE (or FAILS when the consequence fails by itself); when the premise partly
    holds, at most PARTLY; otherwise the consequence."""
    _check([premise, consequence])
    if premise == FAILS or consequence == FAILS:
        return FAILS
    if premise == INCONCLUSIVE:
        return INCONCLUSIVE
    if premise == PARTLY:
        return PARTLY if consequence in (HOLDS, PARTLY) else consequence
    return consequence


def _check(outcomes: Sequence[str]) -> None:
    bad = [o for o in outcomes if o not in OUTCOMES]
    if bad:
        raise ValueError(f"not an outcome: {bad[0]!r} (one of {OUTCOMES})")
