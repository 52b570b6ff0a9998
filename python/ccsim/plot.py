"""Plots of sweeps and of runs, with matplotlib (the Agg renderer: no display needed).

    import ccsim.plot
    fig = ccsim.plot.metric_vs_param("results/limit", x="links.1.queue.limit",
                                     y="totals.goodput_bps", by="flows.bulk.count")
    fig.savefig("goodput.svg")
    ccsim.plot.time_series("out/run1", ["queue R1->R2"], out="queue.png")

Both functions return a `matplotlib.figure.Figure` and, given `out`, also save it (PNG, SVG
or PDF, by the file's extension). They do not touch pyplot's global state.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["metric_vs_param", "time_series", "select_series", "FORMATS"]

#: File extensions `out` may have.
FORMATS = (".png", ".svg", ".pdf")

#: Units of the series kinds (see docs/results-schema.md), for the axis labels.
SERIES_UNITS = {
    "cwnd": "congestion window (segments)",
    "ssthresh": "slow-start threshold (segments)",
    "rtt": "RTT sample (ms)",
    "srtt": "smoothed RTT (ms)",
    "goodput": "goodput (bit/s)",
    "queue": "queue (packets)",
    "queue_avg": "average queue (packets)",
    "max_p": "max_p",
    "drop_prob": "drop probability",
    "link_rate": "link rate (bit/s)",
    "drops": "drops (packets per interval)",
}


def _figure(ax: Axes | None = None, nrows: int = 1, height: float = 4.2) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if ax is not None:
        return ax.figure
    fig = Figure(figsize=(7.0, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save(fig: Figure, out: str | os.PathLike[str]) -> Path:
    """Saves `fig` as PNG, SVG or PDF according to the extension of `out`."""
    path = Path(out)
    if path.suffix.lower() not in FORMATS:
        raise ValueError(f"{out}: unknown image format {path.suffix or '(none)'!r}; use {', '.join(FORMATS)}")
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=150)
    return path


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
    Numeric `x` values are placed by value, others (strings, booleans) in order of
    appearance. Runs that failed are left out."""
    sw = _runs(source)
    groups = [x] + ([by] if by else [])
    agg = sw.aggregate(y, by=groups, confidence=confidence)
    ci = [c for c in agg.columns if c.startswith(f"{y}.ci")][0]
    fig = _figure(ax)
    ax = ax if ax is not None else fig.add_subplot()
    xs_all = agg[x].to_list()
    numeric = all(_is_number(v) for v in xs_all if v is not None)
    categories: list[Any] = []
    if not numeric:
        for v in xs_all:
            if v not in categories:
                categories.append(v)
    series = [(None, agg)] if not by else [(v, agg.filter(_eq(by, v))) for v in _unique(agg[by].to_list())]
    for label, part in series:
        part = part.filter(_not_null(x))
        if numeric:
            part = part.sort(x)
            pos = [float(v) for v in part[x].to_list()]
        else:
            pos = [categories.index(v) for v in part[x].to_list()]
        mean = [_nan(v) for v in part[f"{y}.mean"].to_list()]
        err = [0.0 if math.isnan(_nan(v)) else v for v in part[ci].to_list()]
        ax.errorbar(pos, mean, yerr=err, marker="o", markersize=4, capsize=3, linewidth=1.2, label=None if by is None else f"{label}")
    if not numeric:
        ax.set_xticks(range(len(categories)), [str(c) for c in categories])
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel(f"{y}\n(mean, {confidence * 100:g}% CI)")
    ax.grid(True, alpha=0.3)
    if by:
        ax.legend(title=by, fontsize="small")
    if title:
        ax.set_title(title)
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


def _nan(v: Any) -> float:
    return math.nan if v is None else float(v)


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
    its own, stacked, with a common time axis."""
    import polars as pl

    frame = _series_frame(source)
    available = _unique(frame["name"].to_list())
    chosen = select_series(available, names)
    kinds: dict[str, list[str]] = {}
    for n in chosen:
        kinds.setdefault(n.split(" ", 1)[0], []).append(n)
    fig = _figure(nrows=len(kinds), height=max(3.0, 2.4 * len(kinds) + 0.8))
    axes = fig.subplots(len(kinds), 1, sharex=True, squeeze=False)[:, 0]
    for ax, (kind, members) in zip(axes, kinds.items()):
        for n in members:
            s = frame.filter(pl.col("name") == n).sort("t")
            ax.plot(s["t"].to_list(), [_nan(v) for v in s["value"].to_list()], linewidth=1.0, label=n)
        ax.set_ylabel(SERIES_UNITS.get(kind, kind))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small", ncol=max(1, min(4, len(members) // 8 + 1)))
    axes[-1].set_xlabel("time (s)")
    if title:
        axes[0].set_title(title)
    if out is not None:
        save(fig, out)
    return fig
