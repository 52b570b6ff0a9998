"""Interactive, offline figures: one figure spec, drawn in a browser (zoom, hover values,
legend toggles) or as a PNG/SVG with matplotlib.

A **figure spec** is a plain dict (JSON-able):

    spec = viewer.figure(
        "Goodput against the buffer",
        x=viewer.axis("buffer", "packets"),
        y=viewer.axis("goodput", "Mb/s"),
        series=[
            viewer.series("RED", [25, 50, 100], [8.1, 8.9, 9.2], lo=[7.9, 8.7, 9.1], hi=[8.3, 9.1, 9.3]),
            viewer.paper("paper (Fig. 4)", [25, 50, 100], [8.0, 9.0, 9.4]),
        ],
    )
    html = viewer.page("My results", [viewer.heading("Goodput"), viewer.embed(spec)])
    viewer.save_image(spec, "goodput.png")      # the same figure, for a PDF or a paper

- `figure(title, x, y, series, group=None)`: an x-y chart. Charts with the same `group`
  share their cursor and their x zoom (linked time series).
- `axis(label, unit=None, log=False)`: the axis title is "label (unit)".
- `categories(label, names)`: a categorical axis; the values are 0, 1, ... for `names`.
- `series(name, x, y, lo=None, hi=None, style="line", runs=None)`: `lo`/`hi` draw error
  bars (None where there is none: `stats.shown_interval` decides which intervals `ccsim
  view` shows); `runs`, the individual values at each x, small dots; `style` is `line`
  (with points when there are few) or `points` (not joined: for categories).
- `paper(name, x, y)`: the paper's published values, drawn as hollow black markers.
- `topology(...)`: a network drawing (nodes, links labelled with rate and delay, the
  bottleneck queue marked), from `ccsim.show.expand(...)` or from a run's summary.
- `runs(choices)`: a chooser of runs, each with its own linked figures.

`embed(spec)` gives the HTML of one figure (a JSON script block that `viewer.js` turns into a
chart); `assets()` gives the `<style>` and `<script>` blocks every page needs once (the
vendored uPlot library and `viewer.js`, inlined: the page needs no network); `page(...)`
makes a whole self-contained page. `ccsim view RESULT_DIR` builds one from a run's `--out`
directory, a sweep store or a `ccsim reproduce` directory (`ccsim.viewer.pages`).

The browser side is uPlot 1.6.32 (MIT licence, `static/uPlot.LICENSE`; 51 kB minified,
no dependencies): small, maintained, fast with series of 100,000 points, and it has
zoom, a live legend and cursor sync built in. Error bars, the paper's markers and the
topology drawing are ccsim's own (`static/viewer.js`).
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from importlib import resources
from typing import Any

__all__ = [
    "axis",
    "categories",
    "series",
    "paper",
    "figure",
    "topology",
    "runs",
    "embed",
    "assets",
    "page",
    "heading",
    "save_image",
    "to_matplotlib",
]

STYLES = ("line", "points", "paper")


def axis(label: str, unit: str | None = None, log: bool = False) -> dict[str, Any]:
    return {"label": label, "unit": unit, "log": bool(log)}


def categories(label: str, names: Sequence[str]) -> dict[str, Any]:
    """A categorical axis: value i is `names[i]` (ticks at whole numbers only)."""
    return {"label": label, "unit": None, "log": False, "categories": [str(n) for n in names]}


def _numbers(values: Sequence[Any] | None) -> list[float | None] | None:
    if values is None:
        return None
    out: list[float | None] = []
    for v in values:
        if v is None:
            out.append(None)
            continue
        f = float(v)
        out.append(None if math.isnan(f) or math.isinf(f) else f)
    return out


def series(
    name: str,
    x: Sequence[Any],
    y: Sequence[Any],
    lo: Sequence[Any] | None = None,
    hi: Sequence[Any] | None = None,
    style: str = "line",
    runs: Sequence[Sequence[Any]] | None = None,
) -> dict[str, Any]:
    if style not in STYLES:
        raise ValueError(f"style must be one of {STYLES}, not {style!r}")
    if any(v is not None and len(v) != len(x) for v in (y, lo, hi, runs)):
        raise ValueError(f"series {name!r}: x, y, lo, hi and runs must have the same length")
    if (lo is None) != (hi is None):
        raise ValueError(f"series {name!r}: give both lo and hi, or neither")
    s: dict[str, Any] = {"name": name, "x": _numbers(x), "y": _numbers(y), "style": style}
    if lo is not None:
        s["lo"], s["hi"] = _numbers(lo), _numbers(hi)
    if runs is not None:
        s["runs"] = [[v for v in _numbers(r) or [] if v is not None] for r in runs]
    return s


def paper(name: str, x: Sequence[Any], y: Sequence[Any]) -> dict[str, Any]:
    """The paper's values, drawn as marked points."""
    return series(name, x, y, style="paper")


def figure(
    title: str,
    x: dict[str, Any],
    y: dict[str, Any],
    series: list[dict[str, Any]],
    group: str | None = None,
    id: str | None = None,
    height: int = 300,
) -> dict[str, Any]:
    return {"kind": "xy", "id": id, "title": title, "x": x, "y": y, "series": series, "group": group, "height": height}


def runs(choices: list[tuple[str, list[dict[str, Any]]]], title: str = "", id: str | None = None) -> dict[str, Any]:
    """A chooser: `choices` is a list of (label, figures) pairs, one per run."""
    if not choices:
        raise ValueError("runs(): no run to choose from")
    return {"kind": "runs", "id": id, "title": title, "runs": [{"label": label, "figures": figs} for label, figs in choices]}


def _rate(bps: float) -> str:
    from .._format import rate

    return rate(bps)


def topology(
    description: dict[str, Any] | None = None, summary: dict[str, Any] | None = None, title: str = "", id: str | None = None
) -> dict[str, Any]:
    """The network of a scenario: from its expanded description (`ccsim.show.expand`;
    exact routes, so the bottleneck is the slowest link on some flow's route) or, without
    one, from a run's summary (the bottleneck is then the queue where packets waited
    longest on average)."""
    if description is not None:
        from ..show import bottlenecks

        nodes = [{"name": n["name"], "kind": n["kind"], "address": n["address"]} for n in description["nodes"]]
        one_way = [
            {
                "name": lk["name"],
                "from": lk["from"],
                "to": lk["to"],
                "rate_bps": lk["rate_bps"],
                "delay_ms": lk["delay_s"] * 1e3,
                "queue": f"{lk['queue']['discipline']}, {lk['queue']['limit']} {lk['queue']['limit_unit']}"
                + (f", {lk['queue']['signal']}" if lk["queue"]["signal"] != "drop" else ""),
            }
            for lk in description["links"]
        ]
        neck = set(bottlenecks(description))
        sources = sorted({f["from"] for f in description["flows"]})
        title = title or description.get("scenario", "")
    elif summary is not None:
        nodes = [{"name": n["node"], "kind": n["kind"]} for n in summary["nodes"]]
        queues = {q["link"]: q for q in summary.get("queues", [])}
        one_way = []
        for lk in summary["links"]:
            q = queues.get(lk["link"], {})
            one_way.append(
                {
                    "name": lk["link"],
                    "from": lk["from"],
                    "to": lk["to"],
                    "rate_bps": lk["rate_bps"],
                    "delay_ms": lk["delay_ms"],
                    "queue": f"mean {q.get('mean_len_packets', 0):.3g} packets, {q.get('drops', 0)} drops" if q else "",
                    "waited": q.get("mean_len_packets", 0.0),
                }
            )
        most = max((w["waited"] for w in one_way), default=0.0)
        neck = {w["name"] for w in one_way if most > 0 and w["waited"] == most}
        sources = sorted({f["src"] for f in summary.get("flows", [])})
        title = title or summary.get("scenario", "")
    else:
        raise ValueError("topology(): give a description or a summary")
    pairs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for lk in one_way:
        pairs.setdefault(tuple(sorted((lk["from"], lk["to"]))), []).append(lk)
    links = []
    for (a, b), both in pairs.items():
        labels = sorted({f"{_rate(lk['rate_bps'])}, {lk['delay_ms']:g} ms" for lk in both})
        hot = [lk for lk in both if lk["name"] in neck]
        links.append(
            {
                "a": a,
                "b": b,
                "label": " / ".join(labels),
                "bottleneck": bool(hot),
                "queue": "; ".join(f"{lk['name']}: {lk['queue']}" for lk in (hot or both) if lk["queue"]),
            }
        )
    return {"kind": "topology", "id": id, "title": title, "nodes": nodes, "links": links, "sources": sources}


def _json(spec: dict[str, Any]) -> str:
    # No NaN in JSON; no "</script>" inside a script block.
    return json.dumps(spec, allow_nan=False, separators=(",", ":")).replace("</", "<\\/")


def embed(spec: dict[str, Any]) -> str:
    """The HTML of one figure: a JSON block that the page's `viewer.js` draws."""
    title = f"<h3>{html.escape(spec['title'])}</h3>\n" if spec.get("title") and spec["kind"] != "xy" else ""
    return f'{title}<script type="application/json" class="ccsim-figure">{_json(spec)}</script>'


def _static(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1100px; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #ddd; } h3 { font-size: 1.05em; }
.ccsim-figure-view { margin: 0.8em 0 1.4em; }
.ccsim-topology { max-width: 100%; height: auto; }
.ccsim-topology .link line { stroke: #999; stroke-width: 1.5; }
.ccsim-topology .link.bottleneck line { stroke: #d62728; stroke-width: 4; }
.ccsim-topology .node circle { fill: #1f77b4; }
.ccsim-topology .node rect { fill: #ff7f0e; }
.ccsim-topology text { font-size: 11px; text-anchor: middle; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
.ccsim-topology .node-label { font-weight: 600; }
.ccsim-topology .queue-label { fill: #d62728; font-weight: 600; text-anchor: start; }
.ccsim-run-choice { margin: 0.3em 0 0.6em; font-size: 1em; }
table.ccsim { border-collapse: collapse; margin: 0.6em 0; font-size: 0.9em; }
table.ccsim td, table.ccsim th { border: 1px solid #ddd; padding: 0.2em 0.6em; text-align: right; }
table.ccsim td:first-child, table.ccsim th:first-child, table.ccsim.text td { text-align: left; }
.note { color: #666; font-size: 0.9em; }
"""


def assets() -> str:
    """The `<style>` and `<script>` blocks a page with figures needs, once, inlined."""
    return (
        f"<style>{_static('uPlot.min.css')}\n{CSS}</style>\n"
        f"<script>{_static('uPlot.iife.min.js')}</script>\n"
        f"<script>{_static('viewer.js')}</script>\n"
    )


def heading(text: str, level: int = 2) -> str:
    return f"<h{level}>{html.escape(text)}</h{level}>"


def page(title: str, parts: list[str], note: str = "") -> str:
    """A whole self-contained page: `parts` are HTML fragments (`embed`, `heading`, ...)."""
    body = "\n".join(parts)
    foot = f'<p class="note">{html.escape(note)}</p>' if note else ""
    # The scripts go last, so that every figure block is in the document when they run.
    return (
        "<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
        f"<title>{html.escape(title)}</title>\n</head>\n<body>\n<h1>{html.escape(title)}</h1>\n"
        '<p class="note">Drag across a chart to zoom, double-click to reset; hover for values; '
        "click a legend entry to hide or show its series.</p>\n"
        f"{body}\n{foot}\n{assets()}</body>\n</html>\n"
    )


# ---- the same figure as an image ----------------------------------------------------------


def to_matplotlib(spec: dict[str, Any], ax: Any = None) -> Any:
    """Draws an x-y spec with matplotlib (Agg; no pyplot) and returns the figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if spec.get("kind") != "xy":
        raise ValueError("to_matplotlib draws x-y figures only")
    if ax is None:
        fig = Figure(figsize=(7.0, 4.2), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
    else:
        fig = ax.figure

    def label(a: dict[str, Any]) -> str:
        return f"{a['label']} ({a['unit']})" if a.get("unit") else a.get("label", "")

    def nan(v: list[float | None] | None) -> list[float]:
        return [math.nan if x is None else x for x in (v or [])]

    for s in spec["series"]:
        x, y = nan(s["x"]), nan(s["y"])
        if s["style"] == "paper":
            ax.plot(
                x,
                y,
                linestyle="none",
                marker="D",
                markersize=7,
                markerfacecolor="white",
                markeredgecolor="black",
                label=s["name"],
                zorder=5,
            )
            continue
        marker = "o" if s["style"] == "points" or len(x) <= 60 else None
        ls = "none" if s["style"] == "points" else "-"
        if "lo" in s:
            lo, hi = nan(s["lo"]), nan(s["hi"])
            err = [[max(0.0, a - b) for a, b in zip(y, lo)], [max(0.0, b - a) for a, b in zip(y, hi)]]
            (line, *_) = ax.errorbar(x, y, yerr=err, linestyle=ls, marker=marker, markersize=4, capsize=3, label=s["name"]).lines
        else:
            (line,) = ax.plot(x, y, linestyle=ls, marker=marker, markersize=4, label=s["name"])
        if s.get("runs"):
            rx = [xi for xi, r in zip(x, s["runs"]) for _ in r]
            ax.scatter(rx, [v for r in s["runs"] for v in r], s=10, color=line.get_color(), alpha=0.35, linewidths=0, zorder=1)
    if spec["x"].get("categories"):
        names = spec["x"]["categories"]
        ax.set_xticks(range(len(names)), names)
        ax.set_xlim(-0.5, len(names) - 0.5)
    ax.set_xlabel(label(spec["x"]))
    ax.set_ylabel(label(spec["y"]))
    if spec["x"].get("log"):
        ax.set_xscale("log")
    if spec["y"].get("log"):
        ax.set_yscale("log")
    if spec.get("title"):
        ax.set_title(spec["title"])
    if len(spec["series"]) > 1:
        ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)
    return fig


def save_image(spec: dict[str, Any], out: Any) -> Any:
    """Saves an x-y spec as PNG, SVG or PDF (by the extension of `out`)."""
    from ..plot import save

    return save(to_matplotlib(spec), out)
