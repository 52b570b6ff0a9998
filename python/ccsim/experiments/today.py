"""Each paper against today's baselines: the paper's own scenario rerun with the algorithms
Linux ships today (CoDel, FQ-CoDel, PIE, CUBIC, DCTCP, SACK) beside the paper's mechanism.

A paper module names what to compare (`Contender`s: sweep overrides of its scenario), on
which cases (a paper's scenarios, or points along an axis such as the RTT), by which
measures, and which comparisons to decide (`Comparison`: contender a against contender b on
one measure). `run` runs every contender on every case with the same replications (the
same seed for replication r everywhere: common random numbers), under the RFC profile,
since today's algorithms are defined by their RFCs; `section` writes the table, the figure
and the verdicts into the report.

The verdicts are claims of ours, not the paper's, and the report says so: each compares
two contenders by the paired difference over replications with a 95% t interval
(`verdicts.relative` or `verdicts.paired`), in every case, and holds only when the
interval excludes the opposite in all of them (`verdicts.every`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import sweep
from ..plot import FigureSpec, Panel
from . import verdicts as v
from .common import Options, collect, curve, few_note, show, with_profiles
from .report import Claim, Report

#: The profile the comparisons run under.
PROFILE = "rfc"
#: What every such section says of its verdicts.
OURS = (
    "The verdicts of this section are **our claims, not the paper's**: each compares two of the "
    "configurations above by the difference within each replication (the same seed, hence the same "
    "start times and random draws, for every configuration), with a 95% t interval, in every case; "
    "it holds only where the interval excludes the opposite everywhere."
)


@dataclass(frozen=True)
class Contender:
    """One configuration: a name for tables and figures, and sweep overrides of the
    paper's scenario (dotted keys, as `ccsim.sweep` takes them), or a function of the
    case's label giving them (when, say, the queue's thresholds depend on the case)."""

    name: str
    overrides: Mapping[str, Any] | Callable[[str], Mapping[str, Any]]
    color: str | None = None

    def at(self, case: str) -> Mapping[str, Any]:
        return self.overrides(case) if callable(self.overrides) else self.overrides


@dataclass(frozen=True)
class Measure:
    """A number read from each run's metrics: `key`, its label, and its physical bounds."""

    key: str
    label: str
    bounds: tuple[float | None, float | None] = (0.0, None)


@dataclass(frozen=True)
class Comparison:
    """Our claim "`a` is below (`test = verdicts.less`) or above (`verdicts.greater`) `b` on
    `key`", decided in every case; relative (percent of `b`) unless `relative` is False."""

    text: str
    a: str
    b: str
    key: str
    test: Callable[[v.Estimate], str]
    relative: bool = True


@dataclass
class Data:
    """{(case, contender): {replication: metrics}} of one comparison's runs."""

    cases: list[str]
    contenders: list[Contender]
    runs: dict[tuple[str, str], dict[int, dict]] = field(default_factory=dict)
    reps: int = 0

    def of(self, case: str, contender: str, key: str) -> dict[int, float]:
        return {r: m[key] for r, m in self.runs.get((case, contender), {}).items() if m[key] == m[key]}


def run(
    opt: Options,
    base: dict,
    cases: Sequence[tuple[str, Mapping[str, Any]]],
    contenders: Sequence[Contender],
    metric: Callable[[dict], dict],
    reps: int,
    store: str = "runs-today",
) -> Data:
    """Runs each contender on each case (`cases`: (label, overrides)) `reps` times under
    the RFC profile; `metric` reads one run's summary."""
    points = [{"name": f"{case}|{c.name}", **over, **c.at(case)} for case, over in cases for c in contenders]
    result = sweep(base, points=with_profiles(points, [PROFILE]), replications=reps, base_seed=1, **opt.sweep_args(store))
    data = Data([case for case, _ in cases], list(contenders), reps=reps)
    for name, runs in collect(result, metric).get(PROFILE, {}).items():
        case, _, contender = name.partition("|")
        data.runs[(case, contender)] = runs
    return data


def decide(data: Data, comparisons: Sequence[Comparison]) -> list[Claim]:
    """Our claims, each decided in every case of `data`."""
    out = []
    for c in comparisons:
        est = v.relative if c.relative else v.paired
        cases = [(case, est(data.of(case, c.a, c.key), data.of(case, c.b, c.key))) for case in data.cases]
        r = v.every(cases, c.test)
        how = "relative difference (% of the second)" if c.relative else "difference"
        out.append(
            Claim(
                c.text,
                r.outcome,
                r.ours,
                "ours (not in the paper)",
                f"{c.a} against {c.b}, {c.key}: paired {how} by replication, 95% t interval, in each case; {r.detail}",
                PROFILE,
            )
        )
    return out


def section(
    rep: Report,
    data: Data,
    measures: Sequence[Measure],
    comparisons: Sequence[Comparison],
    intro: str,
    xlabel: str,
    name: str = "today",
) -> list[Claim]:
    """The report's section "Against today's baselines": `intro`, a table of every measure
    for every case and contender, a figure with a panel per measure, and our verdicts.
    Returns the claims."""
    rep.heading("Against today's baselines (our comparison, not the paper's)")
    rep.text(
        f"{intro}\n\nEvery configuration runs under the **{PROFILE}** profile (today's algorithms are defined "
        f"by their RFCs), {data.reps} replications per case."
    )
    rows = []
    for case in data.cases:
        for c in data.contenders:
            rows.append([case, c.name] + [show(data.of(case, c.name, m.key), m.bounds) for m in measures])
    rep.table(["case", "configuration"] + [m.label for m in measures], rows, "mean ± 95% CI over the replications")
    xs = list(range(len(data.cases)))
    panels = []
    for i, m in enumerate(measures):
        series = [curve(c.name, xs, [data.of(case, c.name, m.key) for case in data.cases], color=c.color) for c in data.contenders]
        panels.append(
            Panel(
                series,
                xlabel=xlabel,
                ylabel=m.label,
                bounds=m.bounds,
                xticks=list(enumerate(data.cases)),
                legend=i == 0,
                note=few_note(data.reps),
            )
        )
    cols = min(len(panels), 3)
    rows_n = (len(panels) + cols - 1) // cols
    rep.figure(
        FigureSpec(panels, cols=cols, width=4.5 * cols, height=3.6 * rows_n),
        name,
        "Against today's baselines: " + ", ".join(m.label for m in measures),
    )
    claims = decide(data, comparisons)
    rep.verdicts(claims, OURS)
    return claims
