"""The interactive viewer (`ccsim view`, `ccsim.viewer`) in a real browser: Debian's
Chromium, headless, driven by Playwright, with every network request refused. For each
page: it loads with no console error, every figure renders (a drawn canvas or SVG), a
legend click hides a series, linked panels zoom together, and the topology has the
scenario's nodes."""

from __future__ import annotations

import html
import json
import os
import shutil
from pathlib import Path

import pytest

import ccsim
from ccsim import viewer
from ccsim.viewer import pages
from conftest import DUMBBELL, ccsim_cli

CHROMIUM = os.environ.get("CCSIM_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

SERIES = [
    "duration=4s",
    "warmup=1s",
    'series+={ kind = "cwnd", flow = "bulk", interval = "50ms" }',
    'series+={ kind = "rtt", flow = "bulk[0]", interval = "50ms" }',
    'series+={ kind = "srtt", flow = "bulk[0]", interval = "50ms" }',
    'series+={ kind = "drops", link = "R1->R2", interval = "100ms" }',
]


# ---- without a browser: the page's structure -------------------------------------------------


def test_specs_validate_and_embed_safely():
    s = viewer.series("a</script>", [1, 2], [3.0, float("nan")], lo=[2, 2], hi=[4, 4])
    assert s["y"] == [3.0, None]
    html = viewer.embed(viewer.figure("t", viewer.axis("x"), viewer.axis("y", "ms"), [s]))
    assert "</script>" not in html.split(">", 1)[1].rsplit("</script>", 1)[0]
    with pytest.raises(ValueError):
        viewer.series("a", [1, 2], [1])
    with pytest.raises(ValueError):
        viewer.series("a", [1], [1], lo=[0])


def test_the_same_spec_renders_as_an_image(tmp_path):
    spec = viewer.figure(
        "goodput",
        viewer.axis("buffer", "packets", log=True),
        viewer.axis("goodput", "Mb/s"),
        [
            viewer.series("ours", [25, 50, 100], [8.1, 8.9, 9.2], lo=[7.9, 8.7, 9.1], hi=[8.3, 9.1, 9.3]),
            viewer.paper("paper", [25, 50, 100], [8.0, 9.0, 9.4]),
        ],
    )
    fig = viewer.to_matplotlib(spec)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "buffer (packets)" and ax.get_ylabel() == "goodput (Mb/s)" and ax.get_xscale() == "log"
    assert viewer.save_image(spec, tmp_path / "g.png").stat().st_size > 1000


def test_pages_are_self_contained(run_dir):
    text = pages.build(run_dir)
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in _without_licence_urls(text)
    assert "uPlot" in text and text.count('class="ccsim-figure"') >= 5


def test_a_run_page_lists_the_queueing_delay_percentiles(run_dir):
    text = pages.build(run_dir)
    assert "queueing delay (sojourn times)" in text
    summary = json.loads((run_dir / "summary.json").read_text())
    q = max(summary["queues"], key=lambda q: q["delay_p99_ms"])
    assert q["delay_p50_ms"] <= q["delay_p95_ms"] <= q["delay_p99_ms"] <= q["delay_max_ms"]
    table = pages.queue_delay_table(summary)
    assert f"<td>{html.escape(q['link'])}</td>" in table and f"<td>{q['delay_p99_ms']:.3g}</td>" in table
    assert pages.queue_delay_table({"queues": [dict(q, delay_max_ms=0.0)]}) is None
    # A run that kept no queue distributions: the percentiles and the time not empty are "-".
    bare = dict(q, delay_p50_ms=None, delay_p95_ms=None, delay_p99_ms=None, len_hist_from=[], len_hist_to=[], len_hist_ns=[])
    row = pages.queue_delay_table({"queues": [bare]})
    assert row.count("<td>-</td>") == 4 and f"<td>{q['delay_max_ms']:.3g}</td>" in row


def _without_licence_urls(text: str) -> str:
    # uPlot's minified source names its home page in a comment; nothing is fetched from it.
    import re

    return re.sub(r"https://github\.com/leeoniya/uPlot[^\s\"')]*", "", text)


def test_view_refuses_a_folder_without_results(tmp_path):
    r = ccsim_cli("view", tmp_path, "--no-open")
    assert r.returncode == 2 and "no run (summary.json)" in r.stderr


# ---- fixtures: a run, a sweep ---------------------------------------------------------------


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("run")
    res = ccsim.run(DUMBBELL, overrides=[*SERIES, "packet_log.enabled=true", "packet_log.events=['drop']"])
    res.to_parquet(out)
    return out


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sweep")
    ccsim.sweep(DUMBBELL, grid={"links.1.queue.limit": [20, 50, 100]}, points=None, replications=2, out=out, workers=1, progress=False)
    return out


# ---- in the browser -------------------------------------------------------------------------

needs_browser = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (scripts/test.sh installs Debian's package)")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if CHROMIUM is None:
        pytest.skip("no chromium on PATH (scripts/test.sh installs Debian's package)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install '.[test]')")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=FLAGS, offline=True, viewport={"width": 1200, "height": 900}
        )
        try:
            yield context
        finally:
            context.close()


class Loaded:
    def __init__(self, page, errors, requests):
        self.page, self.errors, self.requests = page, errors, requests


def load(context, path: Path) -> Loaded:
    page = context.new_page()
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))

    def refuse(route):
        url = route.request.url
        if url.startswith("file:"):
            route.continue_()
        else:
            requests.append(url)
            route.abort()

    page.route("**/*", refuse)
    page.goto(path.resolve().as_uri())
    page.wait_for_function("window.ccsimRendered !== undefined")
    return Loaded(page, errors, requests)


def drawn_pixels(page, canvas_index: int) -> int:
    """Non-white pixels of a chart's canvas."""
    return page.evaluate(
        """i => { const c = document.querySelectorAll('.uplot canvas')[i];
                  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                  let n = 0; for (let k = 0; k < d.length; k += 4) if (d[k+3] && (d[k] < 250 || d[k+1] < 250 || d[k+2] < 250)) n++;
                  return n; }""",
        canvas_index,
    )


def check_every_figure_renders(loaded: Loaded) -> None:
    page = loaded.page
    blocks = page.locator('script.ccsim-figure[type="application/json"]').count()
    views = page.locator(".ccsim-figure-view").count()
    assert blocks == views == page.evaluate("window.ccsimRendered") > 0
    charts = page.evaluate("window.ccsimCharts().length")
    assert charts == page.locator(".uplot").count() > 0
    for i in range(charts):
        assert drawn_pixels(page, i) > 500, f"chart {i} is blank"
    for i in range(page.locator("svg.ccsim-topology").count()):
        box = page.locator("svg.ccsim-topology").nth(i).bounding_box()
        assert box["width"] > 100 and box["height"] > 50
    assert not page.locator(".ccsim-figure-view", has_text="could not be drawn").count()


@needs_browser
def test_a_run_page_in_chromium(browser, run_dir):
    path = pages.write(run_dir)
    loaded = load(browser, path)
    page = loaded.page
    check_every_figure_renders(loaded)
    # The topology: the dumbbell's 22 nodes, 21 links (duplex pairs), one bottleneck.
    assert page.locator("svg.ccsim-topology .node").count() == 22
    assert page.locator("svg.ccsim-topology .link").count() == 21
    assert page.locator("svg.ccsim-topology .link.bottleneck").count() == 1
    assert page.locator("svg.ccsim-topology .link.bottleneck").get_attribute("data-link") == "R1--R2"
    assert page.locator("svg.ccsim-topology text", has_text="10 Mb/s, 20 ms").count() == 1
    # Panels: queue, cwnd, rtt, srtt, drops, and the packet log's drops.
    titles = page.evaluate("window.ccsimCharts().map(u => u.ccsimSpec.title)")
    assert titles[:5] == ["queue", "cwnd", "rtt", "srtt", "drops"] and titles[5].startswith("drops (packet log")
    # A legend click hides a series (cwnd: ten flows).
    cwnd = titles.index("cwnd")
    entry = page.locator(".uplot").nth(cwnd).locator(".u-legend .u-series").nth(1)
    entry.click()
    assert page.evaluate(f"window.ccsimCharts()[{cwnd}].series[1].show") is False
    assert "u-off" in (entry.get_attribute("class") or "")
    entry.click()
    assert page.evaluate(f"window.ccsimCharts()[{cwnd}].series[1].show") is True
    # The panels of a run zoom together.
    page.evaluate("window.ccsimCharts()[0].setScale('x', {min: 2, max: 3})")
    scales = page.evaluate("window.ccsimCharts().map(u => [u.scales.x.min, u.scales.x.max])")
    assert all(s == [2, 3] for s in scales), scales
    # Hovering shows values in the legend.
    chart = page.locator(".uplot").nth(0).locator(".u-over")
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    value = page.locator(".uplot").nth(0).locator(".u-legend .u-series").nth(1).locator(".u-value").inner_text()
    assert value not in ("", "–"), value
    assert not loaded.errors, loaded.errors
    assert not loaded.requests, loaded.requests


@needs_browser
def test_a_sweep_page_in_chromium(browser, sweep_dir):
    path = pages.write(sweep_dir)
    loaded = load(browser, path)
    check_every_figure_renders(loaded)
    page = loaded.page
    assert page.locator("svg.ccsim-topology .node").count() == 22
    spec = page.evaluate("window.ccsimCharts()[0].ccsimSpec")
    assert spec["x"]["label"] == "links.1.queue.limit" and spec["series"][0]["x"] == [20, 50, 100]
    # Two runs a point: no interval (as in the papers' reports), the runs as dots.
    assert spec["series"][0]["lo"] == [None] * 3 and [len(r) for r in spec["series"][0]["runs"]] == [2, 2, 2]
    assert page.locator("p.note", has_text="fewer than 5 runs have no interval").count() == 1
    # The run chooser: the dumbbell records a queue series; choosing another run redraws it.
    select = page.locator("select.ccsim-run-choice")
    assert select.locator("option").count() == 6
    before = page.evaluate("window.ccsimCharts().length")
    select.select_option("3")
    assert page.evaluate("window.ccsimCharts().length") == before
    check_every_figure_renders(loaded)
    assert not loaded.errors, loaded.errors
    assert not loaded.requests, loaded.requests


@needs_browser
def test_a_page_of_specs_with_paper_values(browser, tmp_path):
    spec = viewer.figure(
        "Table II",
        viewer.axis("max_p"),
        viewer.axis("goodput", "Mb/s", log=True),
        [
            viewer.series("RED", [0.02, 0.05, 0.1], [8.8, 8.2, 7.3], lo=[8.7, 8.0, 6.9], hi=[8.9, 8.5, 7.7]),
            viewer.series("RTRED", [0.02, 0.1], [9.0, 8.0], style="points"),
            viewer.paper("paper", [0.02, 0.05, 0.1], [8.9, 8.3, 7.0]),
        ],
    )
    (tmp_path / "t2.figure.json").write_text(__import__("json").dumps(spec))
    r = ccsim_cli("view", tmp_path, "--no-open", "--out", tmp_path / "page.html")
    assert r.returncode == 0, r.stderr
    loaded = load(browser, tmp_path / "page.html")
    check_every_figure_renders(loaded)
    legend = loaded.page.locator(".u-legend .u-series")
    assert legend.count() == 4  # x, RED, RTRED, paper
    legend.nth(3).click()
    assert loaded.page.evaluate("window.ccsimCharts()[0].series[3].show") is False
    assert not loaded.errors, loaded.errors


# ---- the intervals of `ccsim view` are the reports' ------------------------------------------


def _store(values: dict[int, list[float]], limits: list[object], metric: str = "totals.goodput_bps"):
    """A SweepResult of the dumbbell (a 10 Mb/s bottleneck) whose point i sets
    links.1.queue.limit to limits[i] and whose runs have the given metric values."""
    import polars as pl

    from ccsim.sweeps import SweepResult

    rows = [
        {"point": i, "replication": r, "status": "ok", "links.1.queue.limit": limits[i], metric: v}
        for i, vs in values.items()
        for r, v in enumerate(vs)
    ]
    definition = {
        "scenario": DUMBBELL.read_text(),
        "parameters": [{"name": "links.1.queue.limit", "type": "int"}],
        "point_overrides": [[f"links.1.queue.limit={limit}"] for limit in limits],
        "metrics": [metric],
    }
    sw = SweepResult(Path("."), pl.DataFrame(rows), None, definition)
    return sw, definition


def _specs(parts: list[str]) -> list[dict]:
    import json
    import re

    return [json.loads(m) for m in re.findall(r'class="ccsim-figure">(.*?)</script>', "".join(parts))]


def test_the_view_shows_an_interval_only_where_the_report_would():
    from ccsim.plot import Panel, Series
    from ccsim.stats import shown_interval

    values = {
        0: [9.0e6, 9.1e6, 9.05e6, 9.02e6, 9.08e6],  # five runs, well inside: an interval
        1: [9.99e6, 9.5e6, 9.98e6, 9.97e6, 9.99e6],  # five runs, up to the 10 Mb/s link: past it
        2: [9.2e6, 9.4e6],  # two runs: too few
    }
    sw, definition = _store(values, [20, 50, 100])
    (spec,) = _specs(pages.sweep_figures(sw, sw.runs, definition, sw.parameters, ["totals.goodput_bps"]))
    (s,) = spec["series"]
    assert s["x"] == [20, 50, 100] and s["lo"][0] is not None and s["lo"][1:] == [None, None] and s["hi"][1:] == [None, None]
    assert [len(r) for r in s["runs"]] == [5, 5, 2]
    # The report's figures decide with the same function, from the same numbers.
    import math

    from ccsim.stats import mean_ci

    for i, vs in values.items():
        m, h = mean_ci([v / 1e6 for v in vs])
        report = shown_interval(m, h if len(vs) > 1 else math.nan, len(vs), Panel([Series("x", [0], [m])], bounds=(0, 10.0)).bounds)
        assert (report is None) == (s["lo"][i] is None), i


def test_view_and_report_figures_ask_one_function(monkeypatch):
    import ccsim.stats
    from ccsim.plot import FigureSpec, Panel, Series, render

    asked = []
    real = ccsim.stats.shown_interval

    def spy(mean, half, n, bounds=(None, None)):
        asked.append(n)
        return real(mean, half, n, bounds)

    monkeypatch.setattr(ccsim.stats, "shown_interval", spy)
    sw, definition = _store({0: [1.0e6] * 6, 1: [2.0e6, 2.1e6]}, [20, 50])
    pages.sweep_figures(sw, sw.runs, definition, sw.parameters, ["totals.goodput_bps"])
    assert sorted(asked) == [2, 6]
    asked.clear()
    render(FigureSpec([Panel([Series("s", [1, 2], [1.0, 2.0], err=[0.1, 0.1], runs=[[1.0] * 3, [2.0] * 7])], bounds=(0, None))]))
    assert asked == [3, 7]


def test_categorical_sweeps_are_categories_and_redundant_parameters_make_no_lines():
    import polars as pl

    from ccsim.sweeps import SweepResult

    names = ["Tail Drop", "RED", "RED/ECN"]
    queues = ["{ limit = 50 }", '{ discipline = "red" }', '{ discipline = "red", signal = "ecn" }']
    rows = [
        {"point": i, "replication": r, "status": "ok", "name": names[i], "links.1.queue": queues[i], "totals.goodput_bps": 9e6 + r}
        for i in range(3)
        for r in range(2)
    ]
    sw = SweepResult(Path("."), pl.DataFrame(rows), None, {"parameters": [{"name": "name"}, {"name": "links.1.queue"}]})
    (spec,) = _specs(pages.sweep_figures(sw, sw.runs, sw.definition, sw.parameters, ["totals.goodput_bps"]))
    assert spec["x"]["categories"] == names
    # One series, drawn as points (no line joins unrelated configurations), at 0, 1, 2.
    (s,) = spec["series"]
    assert s["style"] == "points" and s["x"] == [0.0, 1.0, 2.0]


def test_quantities_with_units_are_placed_by_value():
    import polars as pl

    from ccsim.sweeps import SweepResult

    rates = ["5Mbps", "20Mbps", "10Mbps"]
    rows = [{"point": i, "replication": 0, "status": "ok", "links.1.rate": v, "totals.goodput_bps": 1e6} for i, v in enumerate(rates)]
    sw = SweepResult(Path("."), pl.DataFrame(rows), None, {"parameters": [{"name": "links.1.rate"}]})
    (spec,) = _specs(pages.sweep_figures(sw, sw.runs, sw.definition, sw.parameters, ["totals.goodput_bps"]))
    assert spec["x"]["unit"] == "Mb/s" and spec["series"][0]["x"] == [5.0, 10.0, 20.0] and spec["series"][0]["style"] == "line"


def test_only_links_where_packets_can_queue_are_bottlenecks():
    from ccsim.show import bottlenecks, capacity_bps, expand

    root = DUMBBELL.parent
    assert bottlenecks(expand(DUMBBELL)) == ["R1->R2"]
    # The #-network: equal links, no two routes meet: no bottleneck (the access links were marked).
    sharp = expand(root / "das_sharp.toml")
    assert bottlenecks(sharp) == []
    assert capacity_bps(sharp) == 400e6
    # A sender's own link that is slower than the rest is one.
    slow_access = expand(DUMBBELL, overrides=["links.0.rate=1Mbps"])
    assert set(bottlenecks(slow_access)) == {f"S{i}->R1" for i in range(1, 11)}
    assert capacity_bps(expand(DUMBBELL)) == 10e6


@needs_browser
def test_categories_single_points_and_the_sharp_network_in_chromium(browser, tmp_path):
    import json

    spec = viewer.figure(
        "one point each",
        viewer.categories("configuration", ["Tail Drop", "RED"]),
        viewer.axis("goodput", "Mb/s"),
        [viewer.series("mean", [0, 1], [9.1, 9.3], lo=[None, None], hi=[None, None], runs=[[9.0, 9.2], [9.3]], style="points")],
    )
    single = viewer.figure("a single x", viewer.axis("flows"), viewer.axis("goodput", "Mb/s"), [viewer.series("n=10", [10], [9.1])])
    (tmp_path / "a.figure.json").write_text(json.dumps(spec))
    (tmp_path / "b.figure.json").write_text(json.dumps(single))
    from ccsim.show import expand

    topo = viewer.topology(expand(DUMBBELL.parent / "das_sharp.toml"))
    (tmp_path / "c.figure.json").write_text(json.dumps(topo))
    dumbbell = viewer.topology(expand(DUMBBELL))
    (tmp_path / "d.figure.json").write_text(json.dumps(dumbbell))
    path = tmp_path / "page.html"
    assert ccsim_cli("view", tmp_path, "--no-open", "--out", path).returncode == 0
    loaded = load(browser, path)
    check_every_figure_renders(loaded)
    page = loaded.page
    # Categories: ticks at 0 and 1 only, labelled with the names, half a step to spare.
    cat = page.evaluate(
        "(() => { const u = window.ccsimCharts()[0]; return [u.scales.x.min, u.scales.x.max, u.axes[0]._splits, u.axes[0]._values]; })()"
    )
    assert cat[0] == -0.5 and cat[1] == 1.5 and cat[2] == [0, 1] and cat[3] == ["Tail Drop", "RED"], cat
    # A single x value sits inside the chart, not on its edge.
    lo, hi = page.evaluate("[window.ccsimCharts()[1].scales.x.min, window.ccsimCharts()[1].scales.x.max]")
    assert lo < 10 < hi
    # The #-network marks no link; the dumbbell's queue is listed below the drawing, clear of every node.
    svgs = page.locator("svg.ccsim-topology")
    assert svgs.nth(0).locator(".link.bottleneck").count() == 0
    label = svgs.nth(1).locator(".queue-label")
    assert label.count() == 1 and "R1->R2" in label.text_content()
    box = label.bounding_box()
    for i in range(svgs.nth(1).locator(".node").count()):
        node = svgs.nth(1).locator(".node").nth(i).bounding_box()
        assert box["y"] > node["y"] + node["height"] or node["x"] > box["x"] + box["width"], (box, node)
    assert not loaded.errors, loaded.errors
