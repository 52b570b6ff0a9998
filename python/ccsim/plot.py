"""Plots of sweeps and of runs, with matplotlib (the Agg renderer: no display needed).

    import ccsim.plot
    fig = ccsim.plot.metric_vs_param("results/rate", x="links.1.rate",
                                     y="totals.goodput_bps", by="flows.bulk.count")
    fig.savefig("goodput.svg")          # x placed by value (5, 10, 20 Mb/s), y in Mb/s
    ccsim.plot.time_series("out/run1", ["queue R1->R2"], out="queue.png")

Both functions return a `matplotlib.figure.Figure` and, given `out`, also save it (PNG, SVG
or PDF, by the file's extension). They do not touch pyplot's global state.

Every figure ccsim draws, these two and those of the paper reproductions, is first described
as a `FigureSpec` (panels of series and of reference marks, plain data) and then drawn by
`render`. A second renderer (an interactive one, say) needs only to read the same spec.

Axis labels name the quantity and its unit: a metric column whose name ends in a unit
suffix (`_bps`, `_ms`, `_s`, `_per_s`, `_packets`, ...; see docs/results-schema.md) is
labelled "goodput (Mb/s)" and scaled to it; a parameter whose values are strings with units
("5Mbps", "20ms") is parsed to numbers (`parse_quantity`) and placed by value.
"""

from __future__ import annotations

import math
import numbers
import os
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "metric_vs_param",
    "time_series",
    "select_series",
    "FORMATS",
    "FigureSpec",
    "Panel",
    "Series",
    "Mark",
    "render",
    "save",
    "parse_quantity",
    "metric_label",
    "quantity_axis",
]

#: File extensions `out` may have.
FORMATS = (".png", ".svg", ".pdf")

#: Units of the series kinds (see docs/results-schema.md), for the axis labels.
SERIES_UNITS = {
    "cwnd": "congestion window (segments)",
    "ssthresh": "slow-start threshold (segments)",
    "rtt": "RTT sample (ms)",
    "srtt": "smoothed RTT (ms)",
    "pacing_rate": "pacing rate (bit/s)",
    "goodput": "goodput (bit/s)",
    "queue": "queue (packets)",
    "queue_avg": "average queue (packets)",
    "max_p": "max_p",
    "drop_prob": "drop probability",
    "link_rate": "link rate (bit/s)",
    "drops": "drops (packets per interval)",
}


# ---------------------------------------------------------------- figure specs


@dataclass
class Series:
    """One data series of a panel.

    `kind`: "line" (markers joined by a line), "points" (markers only), "plain" (a line
    without markers: time series) or "bar". `err`: half-widths of an interval around each
    `y`, drawn where `stats.shown_interval` says so: not one from fewer than MIN_RUNS runs,
    one that crosses a bound of the panel (`Panel.bounds`), or one that is not finite.
    `runs`: for each x, the individual values (replications) of which `y` is the mean,
    drawn as small dots; `n`: for each x, how many runs `y` is the mean of, when `runs`
    does not say (None: not known)."""

    label: str | None
    x: Sequence[Any]
    y: Sequence[float]
    kind: str = "line"
    err: Sequence[float] | None = None
    runs: Sequence[Sequence[float]] | None = None
    color: str | None = None
    width: float | None = None  # line width, or bar width for "bar"
    offset: float = 0.0  # bars: shift along x
    n: Sequence[int] | None = None

    def counts(self) -> list[int | None]:
        """How many runs each y is the mean of (None where not known)."""
        if self.n is not None:
            return [int(k) for k in self.n]
        if self.runs is not None:
            return [sum(1 for v in vals if v is not None and v == v) for vals in self.runs]
        return [None] * len(self.y)


@dataclass
class Mark:
    """A reference drawn over a panel, such as a number the paper states: "point" (at x, y),
    "hline" (at y), "vline" (at x), "vspan" (from x to x2), "text" (at x, y)."""

    kind: str
    label: str = ""
    x: float | None = None
    y: float | None = None
    x2: float | None = None


@dataclass
class Panel:
    """One set of axes. `bounds`: the physical range of y (e.g. `(0, None)` for a
    throughput, `(0, buffer)` for a queue). `xticks`: (position, label) pairs for
    categorical axes. `note`: a short text above the panel (never over its curves)."""

    series: list[Series] = field(default_factory=list)
    xlabel: str = ""
    ylabel: str = ""
    title: str = ""
    marks: list[Mark] = field(default_factory=list)
    logx: bool = False
    logy: bool = False
    bounds: tuple[float | None, float | None] = (None, None)
    xticks: list[tuple[float, str]] | None = None
    legend: bool = True
    legend_title: str | None = None
    note: str = ""
    grid: bool = True


@dataclass
class FigureSpec:
    """A figure: `panels` laid out in `rows` x `cols` (row by row), `width` x `height`
    inches. With `sharex`, the panels share the x range, and every panel still labels its
    x axis."""

    panels: list[Panel]
    rows: int | None = None
    cols: int = 1
    width: float = 7.0
    height: float = 4.2
    sharex: bool = False
    sharey: bool = False
    title: str = ""


def render(spec: FigureSpec, ax: Axes | None = None) -> Figure:
    """Draws `spec` with matplotlib; with `ax`, its single panel into those axes."""
    if ax is not None:
        if len(spec.panels) != 1:
            raise ValueError("drawing into given axes needs a spec with one panel")
        _draw_panel(ax, spec.panels[0])
        return ax.figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = spec.rows or max(1, math.ceil(len(spec.panels) / spec.cols))
    fig = Figure(figsize=(spec.width, spec.height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, spec.cols, sharex=spec.sharex, sharey=spec.sharey, squeeze=False)
    flat = [a for row in axes for a in row]
    for a, panel in zip(flat, spec.panels):
        _draw_panel(a, panel)
        if spec.sharex:
            a.tick_params(labelbottom=True)  # every stacked panel keeps its own time axis
        if spec.sharey:
            a.tick_params(labelleft=True)
    for a in flat[len(spec.panels) :]:
        a.set_visible(False)
    if spec.title:
        fig.suptitle(spec.title)
    return fig


def _draw_panel(ax: Axes, p: Panel) -> None:
    from .stats import shown_interval

    for s in p.series:
        xs = list(s.x)
        ys = [_nan(v) for v in s.y]
        if s.kind == "bar":
            ax.bar([x + s.offset for x in xs], ys, width=s.width or 0.8, label=s.label, color=s.color)
            continue
        style: dict[str, Any] = {"label": s.label, "color": s.color, "linewidth": s.width or 1.2}
        if s.kind == "plain":
            (line,) = ax.plot(xs, ys, **style)
        elif s.kind == "points":
            (line,) = ax.plot(xs, ys, linestyle="none", marker="o", markersize=5, **{k: v for k, v in style.items() if k != "linewidth"})
        else:
            (line,) = ax.plot(xs, ys, marker="o", markersize=4, **style)
        color = line.get_color()
        if s.err is not None:
            ex, ey, ee = [], [], []
            for x, y, e, n in zip(xs, ys, s.err, s.counts()):
                if shown_interval(y, e, n, p.bounds) is None:
                    continue  # too few runs, or past a physical bound: the runs show the spread
                ex.append(x)
                ey.append(y)
                ee.append(e)
            if ex:
                ax.errorbar(ex, ey, yerr=ee, fmt="none", ecolor=color, capsize=3, linewidth=1.0)
        if s.runs is not None:
            rx, ry = [], []
            for x, vals in zip(xs, s.runs):
                for v in vals:
                    v = _nan(v)
                    if not math.isnan(v):
                        rx.append(x)
                        ry.append(v)
            if rx:
                ax.scatter(rx, ry, s=10, color=color, alpha=0.35, linewidths=0, zorder=1)
    for m in p.marks:
        if m.kind == "point":
            ax.plot([m.x], [m.y], linestyle="none", marker="*", markersize=12, color="black", label=m.label or None, zorder=5)
        elif m.kind == "hline":
            ax.axhline(m.y, color="black", linestyle="--", linewidth=0.9, label=m.label or None)
        elif m.kind == "vline":
            ax.axvline(m.x, color="grey", linestyle=":", linewidth=0.9, label=m.label or None)
        elif m.kind == "vspan":
            ax.axvspan(m.x, m.x2, color="grey", alpha=0.15, label=m.label or None)
        elif m.kind == "text":
            ax.annotate(m.label, (m.x, m.y), fontsize=8)
        else:
            raise ValueError(f"unknown mark kind {m.kind!r}")
    if p.xticks is not None:
        ax.set_xticks([t for t, _ in p.xticks], [label for _, label in p.xticks])
    if p.logx:
        ax.set_xscale("log")
    if p.logy:
        ax.set_yscale("log")
    ax.set_xlabel(p.xlabel)
    ax.set_ylabel(p.ylabel)
    if p.title and p.note:
        # Above the axes, where no curve goes: the note under the title.
        ax.set_title(f"{p.title}\n{p.note}", fontsize=9)
    elif p.title:
        ax.set_title(p.title, fontsize=9)
    elif p.note:
        ax.set_title(p.note, loc="right", fontsize=7, color="#a00")
    if p.grid:
        ax.grid(True, alpha=0.3)
    if p.legend and any(h.get_label() and not h.get_label().startswith("_") for h in ax.get_legend_handles_labels()[0]):
        ax.legend(fontsize=7, title=p.legend_title, title_fontsize=7)


def save(fig: Figure, out: str | os.PathLike[str], dpi: int = 150) -> Path:
    """Saves `fig` as PNG, SVG or PDF according to the extension of `out`."""
    path = Path(out)
    if path.suffix.lower() not in FORMATS:
        raise ValueError(f"{out}: unknown image format {path.suffix or '(none)'!r}; use {', '.join(FORMATS)}")
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    return path


# ---------------------------------------------------------------- units and labels

_RATE = {"": 1.0, "b": 1.0, "k": 1e3, "K": 1e3, "kb": 1e3, "Kb": 1e3, "M": 1e6, "Mb": 1e6, "G": 1e9, "Gb": 1e9}
_TIME = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "min": 60.0}
_NUMBER = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*$")


def parse_quantity(value: Any) -> tuple[float, str] | None:
    """A scenario quantity written with a unit, as (value in base units, kind): a rate
    ("100Mbps", "1.5 Mb/s", "64kbps", "1Gbit/s") gives (bit/s, "rate"), a duration ("20ms",
    "2s", "500us", "1min") gives (seconds, "time"). None for anything else (numbers
    included), as the scenario format reads them (`settings/units.rs`)."""
    if not isinstance(value, str):
        return None
    m = _NUMBER.match(value)
    if not m:
        return None
    number, unit = float(m.group(1)), m.group(2)
    if unit in _TIME:
        return number * _TIME[unit], "time"
    stem = unit
    for suffix in ("ps", "/s", "it"):  # as the core: "Mbps", "Mb/s", "Mbit/s" -> "Mb"
        while stem.endswith(suffix):
            stem = stem[: -len(suffix)]
    if unit and stem in _RATE:
        return number * _RATE[stem], "rate"
    return None


def _scale(kind: str, magnitude: float) -> tuple[float, str]:
    """(divisor, unit) to show values of `kind` whose largest magnitude is `magnitude`."""
    m = abs(magnitude) if magnitude == magnitude else 0.0
    if kind == "rate":
        for div, unit in ((1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s")):
            if m >= div:
                return div, unit
        return 1.0, "b/s"
    if kind == "time":
        if m >= 1 or m == 0:
            return 1.0, "s"
        if m >= 1e-3:
            return 1e-3, "ms"
        return 1e-6, "µs"
    if kind == "bytes":
        for div, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
            if m >= div:
                return div, unit
        return 1.0, "bytes"
    return 1.0, kind


# Unit suffixes of the results' field names (docs/results-schema.md, "Units").
_SUFFIXES = [
    ("_per_s", None, "per second"),
    ("_bps", "rate", None),
    ("_ms", None, "ms"),
    ("_s", "time", None),
    ("_bytes", "bytes", None),
    ("_packets", None, "packets"),
    ("_segments", None, "segments"),
    ("_pct", None, "%"),
]


def metric_label(column: str, values: Sequence[float] = ()) -> tuple[str, float]:
    """(axis label, divisor) of a results column such as `totals.goodput_bps`: the field's
    name in words and its unit, scaled to the values ("goodput (Mb/s)", 1e6)."""
    name = column.rsplit(".", 1)[-1]
    finite = [abs(v) for v in values if v is not None and v == v and math.isfinite(v)]
    big = max(finite) if finite else 0.0
    for suffix, kind, unit in _SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            words = name[: -len(suffix)].replace("_", " ")
            if kind is not None:
                div, unit = _scale(kind, big)
                return f"{words} ({unit})", div
            if unit == "per second":
                return f"{words} per second", 1.0
            return f"{words} ({unit})", 1.0
    return name.replace("_", " "), 1.0


def quantity_axis(values: Sequence[Any]) -> tuple[list[float], str] | None:
    """Positions and unit of a parameter's values when they are all quantities of one kind
    written with units ("5Mbps", "10Mbps", "20Mbps" -> [5, 10, 20], "Mb/s"), else None."""
    parsed = [parse_quantity(v) for v in values]
    if not parsed or any(p is None for p in parsed) or len({p[1] for p in parsed}) != 1:  # type: ignore[index]
        return None
    kind = parsed[0][1]  # type: ignore[index]
    div, unit = _scale(kind, max(abs(p[0]) for p in parsed))  # type: ignore[index]
    return [p[0] / div for p in parsed], unit  # type: ignore[index]


# ---------------------------------------------------------------- sweeps


def _runs(source: Any) -> Any:
    """A SweepResult from a SweepResult, a store directory, or a runs data frame."""
    import polars as pl

    from .sweeps import SweepResult

    if isinstance(source, SweepResult):
        return source
    if isinstance(source, (str, os.PathLike)):
        return SweepResult.load(source)
    if isinstance(source, pl.DataFrame):
        return SweepResult(Path("."), source)
    if type(source).__module__.startswith("pandas"):
        return SweepResult(Path("."), pl.from_pandas(source))
    raise TypeError(f"expected a SweepResult, a sweep directory or a runs data frame, not {type(source).__name__}")


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def metric_vs_param(
    source: Any,
    x: str,
    y: str,
    by: str | None = None,
    confidence: float = 0.95,
    ax: Axes | None = None,
    title: str | None = None,
    logx: bool = False,
    logy: bool = False,
    out: str | os.PathLike[str] | None = None,
) -> Figure:
    """A sweep's metric `y` against its parameter `x`: the mean over the replications with
    its confidence interval as an error bar (Student t, `confidence`), one line per value
    of the parameter `by`. `source`: a `SweepResult`, a sweep directory or a runs frame.

    Numeric `x` values, and strings with units of one kind ("5Mbps", "20ms"), are placed by
    value; others (strings, booleans) in order of appearance. The axes name the quantities
    with their units (a `_bps` metric in b/s, kb/s, Mb/s or Gb/s as its values call for).
    Runs that failed are left out; sweep points that have no value for `x` (a point that
    does not set that parameter) are left out with a `UserWarning` naming them."""
    sw = _runs(source)
    groups = [x] + ([by] if by else [])
    agg = sw.aggregate(y, by=groups, confidence=confidence)
    ci = [c for c in agg.columns if c.startswith(f"{y}.ci")][0]
    missing = agg.filter(_is_null(x))
    if missing.height:
        n = int(missing[f"{y}.n"].sum()) if f"{y}.n" in missing.columns else missing.height
        what = "" if not by else " (" + ", ".join(f"{by}={v}" for v in _unique(missing[by].to_list())) + ")"
        warnings.warn(f"{n} run(s) of the sweep have no value for {x!r}{what} and are not drawn", UserWarning, stacklevel=2)
    agg = agg.filter(_not_null(x))
    xs_all = agg[x].to_list()
    numeric = all(_is_number(v) for v in xs_all)
    units = None if numeric else quantity_axis(xs_all)
    categories: list[Any] = []
    if not numeric and units is None:
        for v in xs_all:
            if v not in categories:
                categories.append(v)
    ylabel, div = metric_label(y, [_nan(v) for v in agg[f"{y}.mean"].to_list()])
    series = []
    parts = [(None, agg)] if not by else [(v, agg.filter(_eq(by, v))) for v in _unique(agg[by].to_list())]
    for label, part in parts:
        xv = part[x].to_list()
        if numeric:
            pos = [float(v) for v in xv]
        elif units is not None:
            pos = quantity_axis(xv)[0]  # type: ignore[index]
        else:
            pos = [float(categories.index(v)) for v in xv]
        mean = [_nan(v) / div for v in part[f"{y}.mean"].to_list()]
        err = [_nan(v) / div for v in part[ci].to_list()]
        n = part[f"{y}.n"].to_list()
        order = sorted(range(len(pos)), key=lambda i: pos[i])
        series.append(
            Series(
                None if by is None else f"{label}",
                [pos[i] for i in order],
                [mean[i] for i in order],
                err=[err[i] for i in order],
                n=[n[i] for i in order],
            )
        )
    xlabel = x if units is None else f"{x} ({units[1]})"
    panel = Panel(
        series,
        xlabel=xlabel,
        ylabel=f"{ylabel}\n(mean, {confidence * 100:g}% CI)",
        title=title or "",
        logx=logx,
        logy=logy,
        xticks=None if numeric or units is not None else [(float(i), str(c)) for i, c in enumerate(categories)],
        legend_title=by,
    )
    fig = render(FigureSpec([panel]), ax=ax)
    if out is not None:
        save(fig, out)
    return fig


def _unique(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if v not in out:
            out.append(v)
    return out


def _eq(column: str, value: Any):
    import polars as pl

    return pl.col(column).is_null() if value is None else pl.col(column) == value


def _not_null(column: str):
    import polars as pl

    return pl.col(column).is_not_null()


def _is_null(column: str):
    import polars as pl

    return pl.col(column).is_null()


def _nan(v: Any) -> float:
    return math.nan if v is None else float(v)


# ---------------------------------------------------------------- runs


def _series_frame(source: Any) -> pl.DataFrame:
    """The long series table (name, t, value) of a run directory, a Results, or a frame."""
    import polars as pl

    from .results import Results

    if isinstance(source, Results):
        return source.series_long()
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if path.is_dir():
            path = path / "series.parquet"
        if not path.is_file():
            raise FileNotFoundError(f"{source}: no series.parquet (write one with `ccsim run FILE --out DIR`)")
        return pl.read_parquet(path)
    if hasattr(source, "columns") and {"name", "t", "value"} <= set(source.columns):
        return source if isinstance(source, pl.DataFrame) else pl.from_pandas(source)
    raise TypeError(f"expected a run directory, a Results or a (name, t, value) frame, not {type(source).__name__}")


def select_series(available: Sequence[str], names: str | Sequence[str]) -> list[str]:
    """The series that `names` ask for, in order: each is a series name (`queue R1->R2`), a
    kind (`cwnd`: every cwnd series), or a prefix ending in `*` (`cwnd bulk*`)."""
    names = [names] if isinstance(names, str) else list(names)
    chosen: list[str] = []
    for n in names:
        if n in available:
            hits = [n]
        elif n.endswith("*"):
            hits = [a for a in available if a.startswith(n[:-1])]
        else:
            hits = [a for a in available if a.split(" ", 1)[0] == n]
        if not hits:
            listed = ", ".join(available) if available else "none"
            raise ValueError(f"no series {n!r} (the run has: {listed})")
        chosen.extend(h for h in hits if h not in chosen)
    return chosen


def time_series(
    source: Any,
    names: str | Sequence[str],
    title: str | None = None,
    out: str | os.PathLike[str] | None = None,
) -> Figure:
    """Time series of one run against simulated time. `source`: a run directory written by
    `ccsim run --out` (its series.parquet), a `Results`, or a (name, t, value) frame.
    `names`: see `select_series`. Series of the same kind share a panel; each kind gets
    its own, stacked, with a common time axis labelled on every panel."""
    import polars as pl

    frame = _series_frame(source)
    available = _unique(frame["name"].to_list())
    chosen = select_series(available, names)
    kinds: dict[str, list[str]] = {}
    for n in chosen:
        kinds.setdefault(n.split(" ", 1)[0], []).append(n)
    panels = []
    for kind, members in kinds.items():
        series = []
        for n in members:
            s = frame.filter(pl.col("name") == n).sort("t")
            series.append(Series(n, s["t"].to_list(), [_nan(v) for v in s["value"].to_list()], kind="plain", width=1.0))
        panels.append(Panel(series, xlabel="time (s)", ylabel=SERIES_UNITS.get(kind, kind)))
    if title:
        panels[0].title = title
    fig = render(FigureSpec(panels, cols=1, height=max(3.0, 2.6 * len(panels) + 0.8), sharex=True))
    if out is not None:
        save(fig, out)
    return fig
