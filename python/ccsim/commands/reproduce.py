"""`ccsim reproduce PAPER|all`: rerun a paper's experiments and write a report that puts the
paper's published numbers beside ours."""

from __future__ import annotations

import argparse
from pathlib import Path

from . import CliError

ORDER = 20

EXAMPLES = """\
papers:
  rtred     RTRED: a third drop level for TCP-RED (Table II, Figs. 4-11)
  das       DAS: duplicate-ACK suppression in IP fast reroute (Figs. 2 and 4)
  ackspoof  RED with ACK spoofing: Tail Drop, RED, RED/ECN, RED/Spoofing (Figs. 4-6, 8)
  acc       ACC: Active Congestion Control, throughput and window closes vs RTT (Figs. 4-7)
  acc-live  ACC on real sockets: the ASP implementation's overhead experiment (Figs. 8-9),
            live runs on this machine beside their simulated twin (not part of `all`)
  all       every paper, plus one combined report (report.md and report.html)

examples:
  ccsim reproduce rtred --quick
      a small version (fewer replications) in a few seconds, into ccsim-results/rtred/

  ccsim reproduce all --quick --out results/
      every paper, combined report in results/report.html

  ccsim reproduce das --workers 2
      the full version on two processes

  ccsim reproduce all --scheduler tcp://10.0.0.5:8786
      the full version on a Dask cluster

Each paper's folder holds report.md, report.html, the PNG figures and the Parquet run stores;
rerunning into the same folder reuses finished runs. The verdict table (paper, claim, verdict,
our number with its 95% interval, the paper's number) is printed and heads every report: a
claim holds when our interval lies wholly on the paper's side, does not hold when it lies
wholly on the other, and is inconclusive when it straddles (as it mostly does with --quick's
two or three runs). Reports are written under the ns2 profile (ns-2.35's defaults, as the
papers simulated) by default; every claim is also checked under the other profile."""


def register(subparsers) -> None:
    from ..experiments import LIVE, PAPERS

    p = subparsers.add_parser(
        "reproduce",
        help="reproduce a paper's experiments and compare with its published numbers",
        description=__doc__,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paper", choices=[*PAPERS, *LIVE, "all"], metavar="PAPER", help="one of: " + ", ".join([*PAPERS, *LIVE, "all"]))
    p.add_argument("--quick", action="store_true", help="fewer replications and points: minutes instead of longer")
    p.add_argument("--out", "-o", type=Path, default=Path("ccsim-results"), metavar="DIR", help="output folder (default: ccsim-results)")
    p.add_argument("--workers", "-j", type=int, default=None, metavar="N", help="local worker processes (default: one per core)")
    p.add_argument(
        "--scheduler", default=None, metavar="ADDRESS", help="run on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786)"
    )
    p.add_argument(
        "--profile",
        choices=["ns2", "rfc"],
        default="ns2",
        help="defaults the report is written under: ns2 (ns-2.35's, as the papers simulated; the default) or rfc; every claim is also checked under the other",
    )
    p.add_argument(
        "--no-kernel",
        dest="kernel",
        action="store_false",
        help="leave out the sections that rerun a paper with the Linux kernel's TCP (ackspoof, rtred; run as root where kernel runs work)",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    p.set_defaults(func=run)


def run(args) -> int:
    import time

    from ..experiments import Options, print_verdicts, reproduce, reproduce_all

    if args.workers is not None and args.workers < 1:
        raise CliError("--workers must be at least 1")
    if args.out.exists() and not args.out.is_dir():
        raise CliError(f"--out {args.out} exists and is not a folder")
    opt = Options(
        out=args.out,
        quick=args.quick,
        workers=args.workers,
        scheduler=args.scheduler,
        progress=False if args.quiet else None,
        profile=args.profile,
        kernel=args.kernel,
    )
    start = time.perf_counter()
    if args.paper == "all":
        path, done = reproduce_all(opt)
        reports = [(p, rep) for p, rep, _ in done]
    else:
        opt.out = args.out / args.paper
        rep, _ = reproduce(args.paper, opt)
        path = opt.out / "report.md"
        reports = [(args.paper, rep)]
    print_verdicts(reports)
    print(f"\nprofile {opt.profile} (claims whose verdict differs under {opt.profiles[1]} show both); {LEGEND_SHORT}")
    print(f"({time.perf_counter() - start:.1f} s) report: {path} (and report.html beside it)")
    return 0


LEGEND_SHORT = "† marks a number from too few runs (--quick) to decide"
