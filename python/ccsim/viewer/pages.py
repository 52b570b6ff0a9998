"""`ccsim view RESULT_DIR`: one self-contained, interactive page from what ccsim wrote.

- a run's `--out` directory (`summary.json`, and `scenario.json`, `packets.parquet` when
  present): the topology, the run's time series as linked panels (one per kind: queue,
  cwnd, RTT, drops, ...), drops over time from the packet log, and the totals;
- a sweep store (`sweep.json`, `runs/`): the base scenario's topology, each metric against
  the first parameter (mean and 95% confidence interval, one line per value of the other
  parameters), and a chooser of runs with their time series;
- a folder holding either (`ccsim reproduce` writes one store per experiment under each
  paper's folder): one section each, and `*.figure.json` figure specs found there.
"""

from __future__ import annotations

import html
import json
import os
from pathlib import Path
from typing import Any

from ..stats import FEW, MIN_RUNS
from . import axis, categories, embed, figure, heading, page, runs, series, topology

#: Runs of a sweep offered in the chooser at most (their series are embedded in the page).
MAX_CHOICES = 24

#: Lines of one sweep figure at most; more, and the figure has one point per sweep point.
MAX_LINES = 10

#: Sweep points whose network capacity bounds their goodput's interval, at most (each is
#: expanded once).
MAX_BOUND_POINTS = 64

#: Deepest folder searched below RESULT_DIR.
MAX_DEPTH = 3


class ViewError(ValueError):
    """RESULT_DIR holds nothing ccsim wrote."""


def kind_axis(kind: str) -> dict[str, Any]:
    """The y axis of a series kind: "congestion window (segments)" as a label and a unit."""
    from ..plot import SERIES_UNITS

    text = SERIES_UNITS.get(kind, kind)
    if text.endswith(")") and " (" in text:
        label, unit = text[:-1].split(" (", 1)
        # The panel's title names the quantity; a short axis title fits beside the chart.
        return axis(label if len(label) + len(unit) <= 24 else kind, unit)
    return axis(text)


def metric_axis(name: str) -> tuple[dict[str, Any], float]:
    """(axis, scale) of a metric column: bit/s are shown in Mb/s."""
    short = name.split(".", 1)[-1]
    for suffix, unit, scale in (("_bps", "Mb/s", 1e-6), ("_ms", "ms", 1.0), ("_s", "s", 1.0), ("_bytes", "bytes", 1.0)):
        if short.endswith(suffix):
            return axis(short[: -len(suffix)].replace("_", " "), unit), scale
    return axis(short.replace("_", " ")), 1.0


def series_figures(items: list[dict[str, Any]], group: str, extra: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Linked panels, one per series kind (the first word of the name), in order of
    appearance; `items` are the report's series (name, t, value)."""
    kinds: dict[str, list[dict[str, Any]]] = {}
    for s in items:
        kind, _, target = s["name"].partition(" ")
        kinds.setdefault(kind, []).append(series(target or kind, s["t"], s["value"]))
    figs = [figure(f"{kind}", axis("time", "s"), kind_axis(kind), ss, group=group, height=220) for kind, ss in kinds.items()]
    return figs + (extra or [])


def packet_drops_figure(packets_path: Path, duration_s: float, group: str) -> dict[str, Any] | None:
    """Drops per link over time from a run's packet log, in 200 bins."""
    import polars as pl

    p = pl.read_parquet(packets_path, columns=["t", "event", "link"]).filter(pl.col("event") == "drop")
    if p.height == 0:
        return None
    width = max(duration_s / 200, 1e-6)
    counted = (
        p.with_columns(((pl.col("t") / width).floor() * width).alias("bin"))
        .group_by("link", "bin")
        .len()
        .sort("link", "bin", nulls_last=True)
    )
    ss = []
    for (link,), part in counted.group_by("link", maintain_order=True):
        ss.append(series(link or "(at a node)", part["bin"].to_list(), part["len"].to_list(), style="points"))
    return figure(f"drops (packet log, per {width * 1e3:.3g} ms)", axis("time", "s"), axis("drops", "packets"), ss, group=group, height=220)


def _table(rows: list[tuple[str, str]]) -> str:
    body = "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(v)}</td></tr>" for k, v in rows)
    return f'<table class="ccsim text">{body}</table>'


#: Queues the run page lists by their sojourn times, longest 99th percentile first.
MAX_DELAY_ROWS = 10


def queue_delay_table(summary: dict[str, Any]) -> str | None:
    """The queues where packets waited, with the mean, percentiles and maximum of their
    sojourn times (ms) and the share of the time the queue was not empty; None if no packet
    waited anywhere."""
    waited = [q for q in summary.get("queues", []) if q.get("delay_max_ms", 0) > 0]
    if not waited:
        return None
    # Without queue distributions (`report.queue_distributions = false`) the percentiles
    # and the time at each length are null and empty: shown as "-", ranked by the maximum.
    waited.sort(key=lambda q: (-(q["delay_p99_ms"] if q.get("delay_p99_ms") is not None else q["delay_max_ms"]), q["link"]))
    head = ["queue", "mean", "p50", "p95", "p99", "max (ms)", "max length", "time not empty"]
    rows = []
    for q in waited[:MAX_DELAY_ROWS]:
        times = list(zip(q.get("len_hist_from", []), q.get("len_hist_ns", [])))
        busy = f"{100 * sum(t for lo, t in times if lo > 0) / sum(t for _, t in times):.1f}%" if times else "-"
        cells = [q["link"]] + [
            "-" if q.get(k) is None else f"{q[k]:.3g}"
            for k in ("mean_delay_ms", "delay_p50_ms", "delay_p95_ms", "delay_p99_ms", "delay_max_ms")
        ]
        cells += [str(q["max_len_packets"]), busy]
        rows.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
    th = "<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"
    more = (
        f'<p class="note">... and {len(waited) - MAX_DELAY_ROWS} more queues where packets waited.</p>'
        if len(waited) > MAX_DELAY_ROWS
        else ""
    )
    return f'<table class="ccsim text">{th}{"".join(rows)}</table>{more}'


def run_section(d: Path, label: str) -> list[str]:
    from .._format import count, rate

    summary = json.loads((d / "summary.json").read_text(encoding="utf-8"))
    parts = [heading(f"run: {label}")]
    scenario = d / "scenario.json"
    desc = json.loads(scenario.read_text(encoding="utf-8")) if scenario.exists() else None
    parts.append(embed(topology(desc, summary if desc is None else None, title=f"{summary.get('scenario', '')}: topology")))
    t = summary.get("totals", {})
    parts.append(
        _table(
            [
                ("seed", str(summary.get("seed"))),
                ("simulated", f"{summary.get('duration_s')} s ({summary.get('warmup_s')} s warm-up)"),
                ("goodput", rate(t.get("goodput_bps", 0))),
                ("retransmitted packets", count(t.get("retransmitted_packets", 0))),
                ("queue drops", count(t.get("queue_drops", 0))),
                ("Jain fairness", f"{t.get('jain_fairness', 0):.4f}"),
            ]
        )
    )
    delays = queue_delay_table(summary)
    if delays is not None:
        parts += [heading("queueing delay (sojourn times)", 3), delays]
    group = f"run:{label}"
    extra = []
    if (d / "packets.parquet").exists():
        f = packet_drops_figure(d / "packets.parquet", summary.get("duration_s", 1.0), group)
        if f is not None:
            extra.append(f)
    figs = series_figures(summary.get("series", []), group, extra)
    if figs:
        parts.append(heading("time series (linked: zoom one, the others follow)", 3))
        parts += [embed(f) for f in figs]
    else:
        parts.append(
            '<p class="note">This run recorded no time series: add [[series]] tables to the scenario (kind = "queue", "cwnd", "rtt", "drops", ...).</p>'
        )
    return parts


def _value_label(v: Any) -> str:
    return str(v) if not isinstance(v, float) else f"{v:g}"


def _short(text: str, n: int = 70) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def metric_bounds(column: str, capacity: float | None = None) -> tuple[float | None, float | None]:
    """The physical range of a results column: every total is a count, a rate or a time,
    never below zero; Jain's index is at most 1; the total goodput at most `capacity`
    (bit/s, `show.capacity_bps`). Other columns (a sweep's own metrics): no bounds."""
    if not column.startswith("totals."):
        return (None, None)
    name = column[len("totals.") :]
    if name == "jain_fairness":
        return (0.0, 1.0)
    if name == "goodput_bps":
        return (0.0, capacity)
    return (0.0, None)


class _Capacities:
    """The capacity (`show.capacity_bps`) of each sweep point's network, computed once a
    point, for at most MAX_BOUND_POINTS points (None beyond, and where it cannot be)."""

    def __init__(self, definition: dict[str, Any]):
        self.definition = definition
        self.known: dict[int, float | None] = {}

    def __call__(self, point: int) -> float | None:
        if point not in self.known:
            from ..show import capacity_bps, expand

            value = None
            overrides = self.definition.get("point_overrides") or []
            if point < min(len(overrides), MAX_BOUND_POINTS):
                try:
                    value = capacity_bps(expand(self.definition["scenario"], overrides=overrides[point]))
                except Exception:  # a store of another build, or a point that does not build
                    value = None
            self.known[point] = value
        return self.known[point]


def _x_axis(agg, varying: list[str]) -> tuple[str, dict[str, Any], Any]:
    """(column, axis, position of a value) of a sweep figure's x: the first numeric
    parameter; else the first whose values are quantities of one kind ("5Mbps", "20ms"),
    placed by value; else the first parameter as categories, in order of appearance."""
    from ..plot import quantity_axis

    for q in varying:
        if agg.schema[q].is_numeric():
            return q, axis(q), float
    for q in varying:
        values = [v for v in agg[q].unique(maintain_order=True).to_list() if v is not None]
        scaled = quantity_axis(values)
        if scaled is not None:
            where = dict(zip(values, scaled[0]))
            return q, axis(q, scaled[1]), where.get
    q = varying[0]
    labels = [_value_label(v) for v in agg[q].unique(maintain_order=True).to_list()]
    return q, categories(q, labels), lambda v: float(labels.index(_value_label(v)))


def sweep_figures(sw, ok, definition: dict[str, Any], params: list[str], metrics: list[str]) -> list[str]:
    """Each metric against the sweep's x (`_x_axis`): the mean, with the 95% interval where
    `stats.shown_interval` allows it (as in the papers' reports: at least MIN_RUNS runs,
    within the metric's physical bounds), and the individual runs as dots. A categorical x
    is drawn as points, not joined."""
    import polars as pl

    from ..stats import shown_interval

    parts = []
    agg = sw.aggregate(metrics)
    varying = [q for q in params if agg[q].n_unique() > 1] or params[:1]
    x, x_axis, position = _x_axis(agg, varying)
    # A parameter that x and the others determine (a point's name, the overrides that a
    # name stands for) makes no lines of its own: each would hold one point.
    others = [q for q in varying if q != x]
    for q in list(others):
        rest = [x, *(o for o in others if o != q)]
        if agg.group_by(rest).agg(pl.col(q).n_unique()).get_column(q).max() <= 1:
            others.remove(q)
    n_lines = agg.select(others).n_unique() if others else 1
    if n_lines > MAX_LINES:
        # Too many lines: one point per sweep point, listed in a table below.
        x, others = "point", []
        labels = [str(p) for p in agg["point"].to_list()]
        x_axis, position = categories("point", labels), lambda v: float(labels.index(str(v)))
    categorical = "categories" in x_axis
    capacity = _Capacities(definition)
    few = False
    for m in metrics:
        ax, scale = metric_axis(m)
        ss = []
        groups = agg.group_by(others, maintain_order=True) if others else [((), agg)]
        for key, part in groups:
            key = key if isinstance(key, tuple) else (key,)
            name = _short(", ".join(f"{o}={_value_label(k)}" for o, k in zip(others, key))) or "mean"
            rows = []
            for r in part.iter_rows(named=True):
                mean, half, n = r[f"{m}.mean"], r[f"{m}.ci95"], r[f"{m}.n"]
                lo_b, hi_b = metric_bounds(m, capacity(r["point"]) if m == "totals.goodput_bps" else None)
                shown = shown_interval(mean, half, n, (lo_b, hi_b))
                few = few or (n is not None and 1 < n < MIN_RUNS)
                runs = ok.filter(pl.col("point") == r["point"])[m].to_list() if m in ok.columns else []
                rows.append(
                    (
                        position(r[x]),
                        None if mean is None else mean * scale,
                        None if shown is None else shown[0] * scale,
                        None if shown is None else shown[1] * scale,
                        [v * scale for v in runs if v is not None],
                    )
                )
            rows = sorted((row for row in rows if row[0] is not None), key=lambda row: row[0])
            ss.append(
                series(
                    name,
                    [c[0] for c in rows],
                    [c[1] for c in rows],
                    lo=[c[2] for c in rows],
                    hi=[c[3] for c in rows],
                    runs=[c[4] for c in rows],
                    style="points" if categorical else "line",
                )
            )
        parts.append(embed(figure(f"{ax['label']} against {x} (mean, 95% CI; dots: the runs)", x_axis, ax, ss)))
    if few:
        parts.append(
            f'<p class="note">{FEW} Points of fewer than {MIN_RUNS} runs have no interval (too few for one that means anything), '
            "as in the papers' reports; nor has an interval that would cross a physical bound (a goodput above the network's capacity).</p>"
        )
    if x == "point":
        rows = [(str(r["point"]), "; ".join(f"{q}={_value_label(r[q])}" for q in varying)) for r in agg.iter_rows(named=True)]
        parts.append(_table([("point", "parameters"), *rows]))
    return parts


def sweep_section(d: Path, label: str) -> list[str]:
    import polars as pl

    from ..show import expand
    from ..sweeps import SweepResult

    definition = json.loads((d / "sweep.json").read_text(encoding="utf-8"))
    sw = SweepResult.load(d)
    parts = [heading(f"sweep: {label}")]
    ok = sw.runs.filter(pl.col("status") == "ok") if sw.runs.height else sw.runs
    desc = None
    try:
        overrides = (definition.get("point_overrides") or [[]])[0]
        desc = expand(definition["scenario"], overrides=overrides)
    except Exception:  # a store of another build: fall back to a run's summary
        desc = None
    first = json.loads(ok["summary_json"][0]) if ok.height and "summary_json" in ok.columns else None
    if desc is not None or first is not None:
        parts.append(embed(topology(desc, first if desc is None else None, title="topology (the first point)")))
    params = list(sw.parameters)
    metrics = [m for m in definition.get("metrics") or [] if m in sw.runs.columns] or ["totals.goodput_bps"]
    parts.append(
        f'<p class="note">{sw.runs.height} runs, {len(definition.get("runs", []))} planned; parameters: {html.escape(", ".join(params) or "none")}.</p>'
    )
    if params and ok.height:
        parts += sweep_figures(sw, ok, definition, params, metrics)
    choices = []
    if ok.height and "summary_json" in ok.columns:
        for row in ok.head(400).iter_rows(named=True):
            report = json.loads(row["summary_json"])
            if not report.get("series"):
                continue
            where = ", ".join(f"{p}={_value_label(row[p])}" for p in params if row.get(p) is not None)
            lab = f"point {row['point']}" + (f" ({where})" if where else "") + f", replication {row['replication']}"
            choices.append((lab, series_figures(report["series"], group=f"sweep:{label}")))
            if len(choices) >= MAX_CHOICES:
                break
    if choices:
        parts.append(heading("a chosen run's time series (linked)", 3))
        parts.append(embed(runs(choices)))
    return parts


def figure_files(d: Path) -> list[str]:
    """Figure specs that other code wrote beside its images (`NAME.figure.json`)."""
    parts = []
    for f in sorted(d.glob("*.figure.json")):
        parts.append(embed(json.loads(f.read_text(encoding="utf-8"))))
    return parts


def _walk(root: Path) -> list[Path]:
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        depth = len(here.relative_to(root).parts)
        # A sweep store's runs/ and a run's flows/ belong to them (a reproduce folder's runs/ is a store).
        owned = {"runs"} if "sweep.json" in filenames else {"flows"} if "summary.json" in filenames else set()
        dirnames[:] = sorted(n for n in dirnames if not n.startswith(".") and n not in owned) if depth < MAX_DEPTH else []
        if owned or any(f.endswith(".figure.json") for f in filenames):
            found.append(here)
    return found


def build(root: str | os.PathLike[str]) -> str:
    """The page for RESULT_DIR `root`."""
    root = Path(root)
    if not root.is_dir():
        raise ViewError(f"{root}: not a directory")
    parts: list[str] = []
    other = []
    for d in _walk(root):
        label = str(d.relative_to(root)) if d != root else root.name or str(root)
        if (d / "sweep.json").exists():
            parts += sweep_section(d, label)
        elif (d / "summary.json").exists():
            summary = json.loads((d / "summary.json").read_text(encoding="utf-8"))
            if "links" in summary and "nodes" in summary:  # a run's report, not a paper's table
                parts += run_section(d, label)
            else:
                other.append(str(d / "summary.json"))
        figs = figure_files(d)
        if figs:
            parts += [heading(f"figures: {label}"), *figs]
    if not parts:
        seen = f" ({', '.join(other)} is not a simulator run's report)" if other else ""
        raise ViewError(f"{root}: no run (summary.json), sweep store (sweep.json) or figure found here or below{seen}")
    return page(f"ccsim: {root.resolve().name}", parts, note=f"made by ccsim view from {root}")


def write(root: str | os.PathLike[str], out: str | os.PathLike[str] | None = None) -> Path:
    """Writes the page (default: RESULT_DIR/view.html) and returns its path."""
    text = build(root)
    path = Path(out) if out is not None else Path(root) / "view.html"
    path.write_text(text, encoding="utf-8")
    return path
