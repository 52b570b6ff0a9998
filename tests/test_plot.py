"""ccsim.plot and `ccsim plot`: a sweep's metric against a parameter, a run's time series."""

import pytest

import ccsim
import ccsim.plot
from conftest import DUMBBELL, ccsim_cli

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def is_png(path):
    data = path.read_bytes()
    return data.startswith(PNG_MAGIC) and len(data) > 1000


def is_svg(path):
    text = path.read_text(encoding="utf-8")
    return (text.startswith("<?xml") or text.startswith("<svg")) and "<svg" in text and text.rstrip().endswith("</svg>")


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep")
    ccsim.sweep(
        DUMBBELL,
        grid={"links.1.queue.limit": [20, 50, 100], "links.1.rate": ["8Mbps", "10Mbps"], "duration": ["2s"], "warmup": ["0.5s"]},
        replications=2,
        out=out,
        workers=2,
        progress=False,
    )
    return out


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    ccsim.run(DUMBBELL, overrides=["duration=3s", "warmup=1s", "series.0.interval=50ms"]).to_parquet(out)
    return out


def test_metric_vs_param_figure(sweep_dir, tmp_path):
    fig = ccsim.plot.metric_vs_param(sweep_dir, x="links.1.queue.limit", y="totals.goodput_bps", by="links.1.rate", out=tmp_path / "g.png")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "links.1.queue.limit"
    assert ax.get_ylabel().startswith("goodput (Mb/s)") and "95% CI" in ax.get_ylabel()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["8Mbps", "10Mbps"]
    assert len(ax.lines) >= 2
    line = ax.lines[0]
    assert list(line.get_xdata()) == [20, 50, 100]
    agg = ccsim.SweepResult.load(sweep_dir).aggregate("totals.goodput_bps", by=["links.1.rate", "links.1.queue.limit"])
    expected = agg.filter(agg["links.1.rate"] == "8Mbps")["totals.goodput_bps.mean"].to_list()
    assert list(line.get_ydata()) == pytest.approx([v / 1e6 for v in expected])
    assert is_png(tmp_path / "g.png")
    ccsim.plot.metric_vs_param(ccsim.SweepResult.load(sweep_dir).runs, x="links.1.rate", y="totals.queue_drops", out=tmp_path / "d.svg")
    assert is_svg(tmp_path / "d.svg")
    with pytest.raises(ValueError, match="unknown image format"):
        ccsim.plot.metric_vs_param(sweep_dir, x="links.1.rate", y="totals.queue_drops", out=tmp_path / "d.gif")


def test_metric_vs_param_places_unit_strings_by_value(sweep_dir):
    fig = ccsim.plot.metric_vs_param(sweep_dir, x="links.1.rate", y="totals.goodput_bps")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "links.1.rate (Mb/s)"
    assert list(ax.lines[0].get_xdata()) == [8.0, 10.0]


def test_metric_vs_param_warns_about_points_without_x(tmp_path):
    out = tmp_path / "sw"
    ccsim.sweep(
        DUMBBELL,
        points=[{"links.1.rate": "5Mbps"}, {"links.1.rate": "20Mbps"}, {"links.1.rate": "10Mbps"}, {"links.1.queue.limit": 30}],
        grid={"duration": ["1s"]},
        out=out,
        workers=1,
        progress=False,
    )
    with pytest.warns(UserWarning, match=r"1 run\(s\) of the sweep have no value for 'links.1.rate'"):
        fig = ccsim.plot.metric_vs_param(out, x="links.1.rate", y="totals.goodput_bps")
    assert list(fig.axes[0].lines[0].get_xdata()) == [5.0, 10.0, 20.0]
    p = ccsim_cli("plot", out, "--x", "links.1.rate", "--y", "totals.goodput_bps", "--out", tmp_path / "g.png")
    assert p.returncode == 0, p.stderr
    assert "warning: 1 run(s) of the sweep have no value for 'links.1.rate'" in p.stderr


@pytest.mark.parametrize(
    "value, expected",
    [
        ("5Mbps", (5e6, "rate")),
        ("1.5 Mb/s", (1.5e6, "rate")),
        ("64kbps", (64e3, "rate")),
        ("1Gbit/s", (1e9, "rate")),
        ("20ms", (0.02, "time")),
        ("500us", (5e-4, "time")),
        ("1min", (60.0, "time")),
        ("100", None),
        (7, None),
        ("reno", None),
    ],
)
def test_parse_quantity(value, expected):
    got = ccsim.plot.parse_quantity(value)
    assert got == (pytest.approx(expected[0]), expected[1]) if expected else got is None


def test_metric_labels_name_the_quantity_and_its_unit():
    assert ccsim.plot.metric_label("totals.goodput_bps", [9.2e6]) == ("goodput (Mb/s)", 1e6)
    assert ccsim.plot.metric_label("totals.goodput_bps", [640e3]) == ("goodput (kb/s)", 1e3)
    assert ccsim.plot.metric_label("flows.mean_rtt_ms") == ("mean rtt (ms)", 1.0)
    assert ccsim.plot.metric_label("queues.mean_len_packets") == ("mean len (packets)", 1.0)
    assert ccsim.plot.metric_label("flows.acc_closes_per_s") == ("acc closes per second", 1.0)
    assert ccsim.plot.metric_label("totals.jain_fairness") == ("jain fairness", 1.0)


def test_intervals_past_a_bound_are_not_drawn_and_runs_are():
    from ccsim.plot import FigureSpec, Panel, Series, render

    s = Series("a", [1, 2], [1.0, 5.0], err=[3.0, 1.0], runs=[[0.1, 1.9, 1.0, 0.5, 1.5], [4.0, 6.0, 5.0, 4.5, 5.5]])
    fig = render(FigureSpec([Panel([s], bounds=(0, None))]))
    ax = fig.axes[0]
    bars = [c for c in ax.containers]
    assert len(bars) == 1 and len(bars[0].lines[2][0].get_segments()) == 1  # only x = 2: 1 - 3 < 0
    assert len(ax.collections[-1].get_offsets()) == 10  # every run as a dot


def test_intervals_from_fewer_than_5_runs_are_not_drawn():
    from ccsim.plot import FigureSpec, Panel, Series, render

    few = Series("a", [1, 2], [1.0, 5.0], err=[0.1, 0.1], runs=[[0.9, 1.1], [4.9, 5.0, 5.1, 5.0, 5.0]])
    counted = Series("b", [1, 2], [1.0, 5.0], err=[0.1, 0.1], n=[4, 5])
    for s in (few, counted):
        ax = render(FigureSpec([Panel([s])])).axes[0]
        (bars,) = ax.containers
        assert len(bars.lines[2][0].get_segments()) == 1  # only x = 2, from 5 runs


def test_time_series_figure(run_dir, tmp_path):
    fig = ccsim.plot.time_series(run_dir, ["queue R1->R2"], out=tmp_path / "q.svg")
    assert len(fig.axes) == 1 and fig.axes[0].get_xlabel() == "time (s)"
    assert fig.axes[0].get_ylabel() == "queue (packets)"
    (line,) = fig.axes[0].lines
    assert len(line.get_xdata()) == 61  # 0 .. 3 s every 50 ms
    assert is_svg(tmp_path / "q.svg")
    res = ccsim.Results.load(run_dir)
    assert ccsim.plot.select_series(["queue R1->R2", "cwnd a[0]", "cwnd a[1]", "cwnd b[0]"], ["cwnd a*", "queue"]) == [
        "cwnd a[0]",
        "cwnd a[1]",
        "queue R1->R2",
    ]
    with pytest.raises(ValueError, match=r"no series 'cwnd' \(the run has: queue R1->R2\)"):
        ccsim.plot.time_series(run_dir, "cwnd")
    assert res.summary["scenario"] == "dumbbell"


def test_stacked_time_series_label_every_x_axis():
    import polars as pl

    frame = pl.DataFrame({"name": ["queue L"] * 3 + ["cwnd f[0]"] * 3, "t": [0.0, 1.0, 2.0] * 2, "value": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    fig = ccsim.plot.time_series(frame, ["queue", "cwnd"])
    fig.canvas.draw()
    assert len(fig.axes) == 2
    for ax in fig.axes:
        assert ax.get_xlabel() == "time (s)"
        assert all(t.get_visible() for t in ax.get_xticklabels())


@pytest.mark.slow
def test_cli_plot_sweep_png_and_svg(sweep_dir, tmp_path):
    png, svg = tmp_path / "a.png", tmp_path / "b.svg"
    p = ccsim_cli("plot", sweep_dir, "--x", "links.1.queue.limit", "--y", "totals.goodput_bps", "--by", "links.1.rate", "--out", png)
    assert p.returncode == 0, p.stderr
    assert p.stdout == f"wrote {png}\n"
    assert is_png(png)
    p = ccsim_cli("plot", sweep_dir, "--x", "links.1.rate", "--y", "totals.jain_fairness", "--out", svg, "--title", "fairness")
    assert p.returncode == 0, p.stderr
    assert is_svg(svg) and "fairness" in svg.read_text()
    p = ccsim_cli("plot", sweep_dir, "--x", "links.1.queue.limit", "--y", "totals.queue_drops")
    assert p.returncode == 0, p.stderr
    assert is_png(sweep_dir / "totals.queue_drops_vs_links.1.queue.limit.png")


def test_cli_plot_run_series(run_dir, tmp_path):
    out = tmp_path / "q.png"
    p = ccsim_cli("plot", run_dir, "--series", "queue R1->R2", "--out", out)
    assert p.returncode == 0, p.stderr
    assert is_png(out)
    p = ccsim_cli("plot", run_dir, "--series", "queue", "--out", tmp_path / "q.svg")
    assert p.returncode == 0 and is_svg(tmp_path / "q.svg")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--x", "links.1.rate"], "needs both --x KEY and --y METRIC"),
        ([], "give --x KEY --y METRIC for a sweep directory, or --series NAME..."),
        (["--x", "nope", "--y", "totals.goodput_bps"], "--x: no column 'nope'"),
        (["--x", "links.1.rate", "--y", "totals.goodput_bps", "--out", "x.gif"], "x.gif: unknown image format"),
        (["--series", "queue R1->R2"], "no series.parquet here"),
        (["--series", "cwnd", "--x", "a"], "--series (a run's time series) does not go with --x/--y/--by"),
    ],
)
def test_cli_plot_errors(sweep_dir, args, message):
    p = ccsim_cli("plot", sweep_dir, *args)
    assert p.returncode == 2
    assert message in p.stderr and p.stderr.startswith("error: ") and "Traceback" not in p.stderr


def test_cli_plot_errors_on_a_run(run_dir, tmp_path):
    p = ccsim_cli("plot", run_dir, "--series", "cwnd")
    assert p.returncode == 2 and "no series 'cwnd'" in p.stderr
    p = ccsim_cli("plot", run_dir, "--x", "a", "--y", "b")
    assert p.returncode == 2 and "not a sweep directory" in p.stderr
    p = ccsim_cli("plot", tmp_path / "missing", "--series", "queue")
    assert p.returncode == 2 and "no such directory" in p.stderr


def test_a_panel_note_stays_off_the_curves():
    from ccsim.plot import FigureSpec, Panel, Series, render

    for title in ("", "a title"):
        s = Series("a", [0, 1, 2, 3], [0.0, 10.0, 0.0, 10.0], runs=[[0.0]] * 4)
        fig = render(FigureSpec([Panel([s], title=title, note="† too few runs (n=2): dots are the runs, no intervals")]))
        fig.canvas.draw()
        ax = fig.axes[0]
        note = next(t for t in (ax.title, ax._left_title, ax._right_title) if "too few" in t.get_text())
        box, frame = note.get_window_extent(), ax.get_window_extent()
        assert box.y0 >= frame.y1 - 1, (title, box, frame)  # above the plotting area
