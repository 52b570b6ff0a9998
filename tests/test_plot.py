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
    assert ax.get_xlabel() == "links.1.queue.limit" and "95% CI" in ax.get_ylabel()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["8Mbps", "10Mbps"]
    assert len(ax.lines) >= 2
    line = ax.lines[0]
    assert list(line.get_xdata()) == [20, 50, 100]
    agg = ccsim.SweepResult.load(sweep_dir).aggregate("totals.goodput_bps", by=["links.1.rate", "links.1.queue.limit"])
    expected = agg.filter(agg["links.1.rate"] == "8Mbps")["totals.goodput_bps.mean"].to_list()
    assert list(line.get_ydata()) == pytest.approx(expected)
    assert is_png(tmp_path / "g.png")
    ccsim.plot.metric_vs_param(ccsim.SweepResult.load(sweep_dir).runs, x="links.1.rate", y="totals.queue_drops", out=tmp_path / "d.svg")
    assert is_svg(tmp_path / "d.svg")
    with pytest.raises(ValueError, match="unknown image format"):
        ccsim.plot.metric_vs_param(sweep_dir, x="links.1.rate", y="totals.queue_drops", out=tmp_path / "d.gif")


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
