"""`ccsim view RESULT_DIR`: an interactive page of a run, a sweep or a reproduction."""

from __future__ import annotations

import argparse

from . import CliError

ORDER = 35

DESCRIPTION = """\
Write one self-contained HTML page (no network needed: the plotting library is inlined) of
what ccsim wrote into RESULT_DIR, and open it in a browser:

  a run's --out directory   the topology (links labelled with rate and delay, the
                            bottleneck queue marked), the run's time series as linked
                            panels (queue, cwnd, RTT, drops, ...), the totals
  a sweep store             the topology, each metric against the first parameter with
                            95% confidence intervals, a chooser of runs and their series
  a reproduce folder        both of these for every experiment's store below it

Charts zoom (drag; double-click resets), show values under the cursor and hide a series
when its legend entry is clicked; the panels of one run zoom together."""

EXAMPLES = """\
examples:
  ccsim run scenarios/dumbbell.toml --out run1/ --quiet && ccsim view run1/
      the run's page, run1/view.html, opened in the browser

  ccsim view results/sweep_dumbbell --no-open
      write results/sweep_dumbbell/view.html without opening it

  ccsim view ccsim-results/ --out all.html
      every experiment of a `ccsim reproduce all` run on one page

exit status: 0, or 2 when RESULT_DIR holds nothing ccsim wrote."""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "view",
        help="an interactive page (zoom, hover, topology, linked series) of a run, sweep or reproduction",
        description=DESCRIPTION,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("result_dir", metavar="RESULT_DIR", help="a run's --out directory, a sweep store, or a reproduce folder")
    p.add_argument("--out", "-o", metavar="FILE", help="the page to write (default: RESULT_DIR/view.html)")
    p.add_argument("--no-open", action="store_true", help="write the page without opening a browser")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from ..viewer.pages import ViewError, write

    try:
        path = write(args.result_dir, args.out)
    except ViewError as e:
        raise CliError(str(e)) from None
    except OSError as e:
        raise CliError(f"{args.out or args.result_dir}: cannot write the page: {e.strerror or e}") from None
    print(f"wrote {path}")
    if not args.no_open:
        import webbrowser

        if not webbrowser.open(path.resolve().as_uri()):
            print("(no browser to open it with: open the file yourself)")
    return 0
