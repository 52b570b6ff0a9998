"""What every paper reproduction shares: options, the two profiles, reading metrics out of
run summaries by replication, and showing numbers within their physical bounds."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..plot import Series
from ..stats import mean_ci, shown_interval
from .verdicts import FEW, MIN_RUNS

#: The profiles a reproduction runs under: the papers' simulator's defaults first.
PROFILES = ("ns2", "rfc")


def other_profile(profile: str) -> str:
    return PROFILES[1] if profile == PROFILES[0] else PROFILES[0]


@dataclass
class Options:
    """How a reproduction runs: `quick` trades replications and points for speed;
    `profile` is the set of defaults the report is written under (`ns2`: ns-2.35's, as the
    papers simulated; `rfc`: the RFCs'). Every claim is also checked under the other
    profile, and shown twice where the verdicts differ."""

    out: Path
    quick: bool = False
    workers: int | None = None
    scheduler: Any = None
    progress: bool | None = None
    profile: str = PROFILES[0]
    #: Whether reports with a section on the kernel's TCP (`kernel_runs`) run it where
    #: kernel runs are available.
    kernel: bool = True

    def __post_init__(self) -> None:
        if self.profile not in PROFILES:
            raise ValueError(f"profile must be one of {PROFILES}, not {self.profile!r}")

    @property
    def profiles(self) -> tuple[str, str]:
        """(the report's profile, the other one)."""
        return self.profile, other_profile(self.profile)

    def run_profiles(self, reps: int) -> tuple[str, ...]:
        """The profiles to run a design of `reps` replications per point under: both, except
        in quick mode when `reps` is below MIN_RUNS, since then no sampled claim is decided
        under either profile and the second would only cost time."""
        return self.profiles if not self.quick or reps >= MIN_RUNS else self.profiles[:1]

    def sweep_args(self, name: str) -> dict:
        """Keyword arguments of `ccsim.sweep` for the store `name` in this reproduction's folder."""
        return {"out": self.out / name, "workers": self.workers, "scheduler": self.scheduler, "progress": self.progress}


QUICK_MODE = f"quick (`--quick`: fewer replications and points; numbers marked {FEW} rest on too few runs to decide anything)"
FULL_MODE = "full (the papers' replication counts)"


def profile_facts(opt: Options, simulator: str, checked: bool | str = True) -> list[str]:
    """The lines every report states under its title about profiles and mode; `checked`:
    whether the claims were also checked under the other profile, or a sentence saying
    which were."""
    main, other = opt.profiles
    what = {
        "ns2": "ns-2.35's defaults wherever the paper is silent (initial window, initial RTO, timer granularity, Reno's recover guard, RED's `wait`...)",
        "rfc": "the RFCs' behaviour (RFC 5681, 6582, 6298, 3168) and the papers' algorithms as written",
    }
    return [
        f"**Profile: {main}**, {what[main]}; `docs/profiles.md` of ccsim lists what each profile changes in this version. {simulator}",
        checked
        if isinstance(checked, str)
        else f"Every claim is also checked under the **{other}** profile with the same seeds; where its verdict differs, the verdict table shows both."
        if checked
        else f"Not run under the {other} profile in `--quick` mode: with fewer than {MIN_RUNS} runs per point no sampled claim is decided under either profile (the full mode checks both).",
        f"Mode: {QUICK_MODE if opt.quick else FULL_MODE}.",
    ]


def with_profiles(points: Sequence[Mapping[str, Any]], profiles: Iterable[str]) -> list[dict]:
    """Each sweep point once per profile, named `PROFILE:NAME`, with `profile` set."""
    out = []
    for p in profiles:
        for pt in points:
            out.append(dict(pt, name=f"{p}:{pt['name']}", profile=p))
    return out


def split_profile(name: str) -> tuple[str, str]:
    """(profile, point name) of a point named by `with_profiles`."""
    profile, _, rest = name.partition(":")
    return profile, rest


def collect(result, metric: Callable[[dict], Any]) -> dict[str, dict[str, dict[int, Any]]]:
    """{profile: {point name: {replication: metric(summary)}}} of a sweep of `with_profiles`
    points; failed runs are left out."""
    out: dict[str, dict[str, dict[int, Any]]] = {}
    for row, summary in result.summaries():
        profile, name = split_profile(row["name"])
        out.setdefault(profile, {}).setdefault(name, {})[row["replication"]] = metric(summary)
    return out


def field(runs: Mapping[int, Mapping[str, Any]], key: str) -> dict[int, float]:
    """{replication: run[key]} of one point's runs."""
    return {r: m[key] for r, m in runs.items()}


def queue(summary: dict, link: str) -> dict:
    """The queue table row of `link` ("A->B") in a run summary."""
    return next(q for q in summary["queues"] if q["link"] == link)


def group_goodput(summary: dict, group: str) -> float:
    """Summed goodput (bit/s) of a flow group."""
    return sum(f["goodput_bps"] for f in summary["flows"] if f["group"] == group)


def values(runs: Mapping[int, float] | Iterable[float]) -> list[float]:
    """The finite values of a point's runs, in replication order."""
    vals = [runs[r] for r in sorted(runs)] if isinstance(runs, Mapping) else list(runs)
    return [float(v) for v in vals if v is not None and v == v]


def summarise(vals: Iterable[float]) -> tuple[float, float, int]:
    """(mean, 95% CI half-width, n)."""
    xs = values(vals) if isinstance(vals, Mapping) else [float(v) for v in vals if v is not None and v == v]
    m, h = mean_ci(xs)
    return m, h, len(xs)


def num(x: float, digits: int = 3) -> str:
    """`x` with about `digits` significant digits, never in exponent notation."""
    if x != x or x == 0:
        return "-" if x != x else "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    return f"{x:,.{decimals}f}"


def show(
    runs: Mapping[int, float] | Iterable[float],
    bounds: tuple[float | None, float | None] = (0.0, None),
    digits: int = 3,
    scale: float = 1.0,
) -> str:
    """A table cell for the runs of one point: `mean ± half-width` (95%, Student t) when
    there are at least MIN_RUNS runs and the interval stays within the physical `bounds`;
    otherwise the mean and the individual runs (few runs: marked too few) or their range."""
    xs = [v / scale for v in values(runs)]
    if not xs:
        return "-"
    m, h = mean_ci(xs)
    if len(xs) == 1:
        return num(m, digits)
    if len(xs) < MIN_RUNS:
        return f"{num(m, digits)} (runs {', '.join(num(x, 2) for x in xs)}) {FEW}"
    lo, hi = bounds
    if shown_interval(m, h, len(xs), (None if lo is None else lo / scale, None if hi is None else hi / scale)) is None:
        return f"{num(m, digits)} (runs {num(min(xs), 2)} to {num(max(xs), 2)})"
    return f"{num(m, digits)} ± {num(h, 2)}"


def pm(mean: float, half: float, digits: int = 3) -> str:
    """`mean ± half`, the mean with `digits` significant digits (no half-width for n = 1)."""
    if half != half:
        return num(mean, digits)
    return f"{num(mean, digits)} ± {num(half, 2)}"


def curve(
    label: str | None,
    xs: Sequence[Any],
    runs: Sequence[Mapping[int, float] | Iterable[float]],
    color: str | None = None,
    scale: float = 1.0,
) -> Series:
    """A figure series of means against `xs` with 95% intervals and the individual runs
    (the renderer shows only the intervals `stats.shown_interval` lets through: from enough
    runs, within the panel's bounds)."""
    means, errs, dots = [], [], []
    for r in runs:
        vs = [v / scale for v in values(r)]
        m, h = mean_ci(vs) if vs else (math.nan, math.nan)
        means.append(m)
        errs.append(h)
        dots.append(vs)
    return Series(label, list(xs), means, err=errs, runs=dots, color=color)


def few_note(n: int) -> str:
    """The panel note of a figure drawn from fewer than MIN_RUNS runs per point."""
    return f"{FEW} too few runs (n={n}): dots are the runs, no intervals" if n < MIN_RUNS else ""


def by_point(runs, key: str, metric: Callable[[dict], float]) -> dict[Any, list[float]]:
    """Groups a metric of every successful run by the value of an override column."""
    import json

    out: dict[Any, list[float]] = {}
    for row in runs.iter_rows(named=True):
        if row["status"] != "ok":
            continue
        out.setdefault(row[key], []).append(metric(json.loads(row["summary_json"])))
    return out
