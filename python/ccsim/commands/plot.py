"""`ccsim plot DIR`: a sweep's metric against a parameter, or a run's time series, as a PNG
or SVG file."""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from pathlib import Path

from . import CliError

ORDER = 30

DESCRIPTION = """\
Plot the results of a sweep or of a run.

A sweep directory (from `ccsim sweep` or `ccsim.sweep(out=...)`): --x names a parameter (an
override key of the sweep) and --y a metric (a column of runs.parquet, such as
totals.goodput_bps); the plot shows the mean over the replications with its 95% confidence
interval (Student t) as error bars, one line per value of the parameter --by. Parameter
values with units ("5Mbps", "20ms") are placed by value; the axes name the quantity and its
unit ("goodput (Mb/s)"). Failed runs are left out, and so are runs of sweep points that do
not set --x: a warning on stderr says how many.

A run directory (from `ccsim run FILE --out DIR`): --series names the series of its
series.parquet to draw against time: a full name (`queue R1->R2`), a kind (`cwnd`: all of
them) or a prefix ending in `*` (`"cwnd bulk*"`). Series of one kind share a panel.

The image format follows the extension of --out: .png, .svg or .pdf. Default: a PNG in
DIR named after what it shows."""

EXAMPLES = """\
examples:
  ccsim plot results/sweep_dumbbell --x links.1.queue.limit --y totals.goodput_bps
      goodput against the buffer size, written to results/sweep_dumbbell/

  ccsim plot results/red --x links.1.queue.max_p --y totals.queue_drops --by flows.bulk.count --out drops.svg
      one line per number of flows, as SVG

  ccsim run scenarios/dumbbell.toml --out out/ --quiet
  ccsim plot out/ --series "queue R1->R2" --out queue.png
      the bottleneck queue of one run against time

  ccsim plot out/ --series cwnd --out cwnd.svg
      every congestion-window series of the run

exit status: 0 on success, 2 for a problem with the arguments or the directory."""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "plot",
        help="plot a sweep's metric against a parameter, or a run's time series",
        description=DESCRIPTION,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("dir", metavar="DIR", help="a sweep directory, or a run directory with series.parquet")
    p.add_argument("--x", metavar="KEY", help="sweep: the parameter on the x axis")
    p.add_argument("--y", metavar="METRIC", help="sweep: the metric on the y axis (a column of the runs)")
    p.add_argument("--by", metavar="KEY", help="sweep: one line per value of this parameter")
    p.add_argument("--series", nargs="+", metavar="NAME", help="run: series to plot against time")
    p.add_argument("--out", "-o", metavar="FILE", help="output image, .png, .svg or .pdf (default: a PNG in DIR)")
    p.add_argument("--title", help="title of the plot")
    p.add_argument("--logx", action="store_true", help="sweep: logarithmic x axis")
    p.add_argument("--logy", action="store_true", help="sweep: logarithmic y axis")
    p.set_defaults(func=main)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "plot"


def main(args: argparse.Namespace) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from .. import plot
    from ..sweeps import SweepResult

    directory = Path(args.dir)
    if not directory.is_dir():
        raise CliError(f"{directory}: no such directory")
    sweep_mode = args.x is not None or args.y is not None or args.by is not None
    if args.series and sweep_mode:
        raise CliError("--series (a run's time series) does not go with --x/--y/--by (a sweep's metric)")
    if not args.series and not sweep_mode:
        raise CliError("give --x KEY --y METRIC for a sweep directory, or --series NAME... for a run directory")
    if args.out is not None and Path(args.out).suffix.lower() not in plot.FORMATS:
        raise CliError(f"{args.out}: unknown image format; use {', '.join(plot.FORMATS)}")

    if args.series:
        out = Path(args.out) if args.out else directory / "series.png"
        if not (directory / "series.parquet").is_file():
            raise CliError(f"{directory}: no series.parquet here (write one with `ccsim run FILE --out {directory}`)")
        try:
            plot.time_series(directory, args.series, title=args.title, out=out)
        except ValueError as e:
            raise CliError(f"{directory}: {e}") from None
    else:
        if args.x is None or args.y is None:
            raise CliError("a sweep plot needs both --x KEY and --y METRIC")
        try:
            result = SweepResult.load(directory)
        except FileNotFoundError:
            raise CliError(f"{directory}: not a sweep directory (no sweep.json or runs/)") from None
        if result.runs.height == 0:
            raise CliError(f"{directory}: no finished runs yet")
        columns = [c for c in result.runs.columns if c != "summary_json"]
        for flag, col in (("--x", args.x), ("--by", args.by), ("--y", args.y)):
            if col is not None and col not in result.runs.columns:
                raise CliError(f"{flag}: no column {col!r} in {directory}/runs (columns: {', '.join(columns)})")
        name = f"{_slug(args.y)}_vs_{_slug(args.x)}" + (f"_by_{_slug(args.by)}" if args.by else "") + ".png"
        out = Path(args.out) if args.out else directory / name
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            plot.metric_vs_param(result, args.x, args.y, by=args.by, title=args.title, logx=args.logx, logy=args.logy, out=out)
        for w in caught:
            print(f"warning: {w.message}", file=sys.stderr)
    print(f"wrote {out}")
    return 0
