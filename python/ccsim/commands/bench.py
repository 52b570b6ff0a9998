"""`ccsim bench dumbbell N [SIMTIME] [SEED]`: the DUMBBELL-N speed benchmark's ccsim side,
printing key=value lines as benchmarks/run.sh expects. Its scenario keeps no queue
distributions (`report.queue_distributions = false`): it prints no sojourn percentiles."""

from __future__ import annotations

import argparse

from . import CliError

ORDER = 60

EXAMPLES = """\
examples:
  ccsim bench dumbbell 100
      100 flows for 60 simulated seconds; prints delivered packets, goodput, drops, timings

  ccsim bench dumbbell 1000 60 1 --rfc
      RFC 6582's NewReno timer rule and RED without ns-2's wait spacing

  ccsim bench dumbbell 100000 5 1 --bottleneck 10000
      DUMBBELL-100000: a 10 Gb/s bottleneck with a buffer to match

  CCSIM_CMD="ccsim bench dumbbell" benchmarks/run.sh --n "10 100"
      side by side with ns-2 and ns-3 (benchmarks/README.md)"""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "bench",
        help="run the DUMBBELL-N speed benchmark scenario",
        description=__doc__,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("scenario", choices=["dumbbell"], help="benchmark scenario (only dumbbell)")
    p.add_argument("n", type=int, help="number of flows")
    p.add_argument("sim_time", type=float, nargs="?", default=60.0, help="simulated seconds (default 60)")
    p.add_argument("seed", type=int, nargs="?", default=1, help="seed (default 1)")
    p.add_argument("--rfc", action="store_true", help="RFC behaviour instead of ns-2's defaults (see ccsim.bench)")
    p.add_argument(
        "--bottleneck",
        type=int,
        default=100,
        metavar="MBPS",
        help="bottleneck rate, Mb/s, a multiple of 100 (default 100); the buffer grows with it (see ccsim.bench)",
    )
    p.set_defaults(func=run)


def run(args) -> int:
    from ..bench import run_dumbbell

    if args.n < 1:
        raise CliError("N must be at least 1")
    if not args.sim_time > 0:
        raise CliError("SIMTIME must be positive")
    if args.bottleneck < 100 or args.bottleneck % 100:
        raise CliError("--bottleneck must be a multiple of 100 (Mb/s)")
    for k, v in run_dumbbell(args.n, args.sim_time, args.seed, ns2_behaviour=not args.rfc, bottleneck_mbps=args.bottleneck).items():
        print(f"{k}={v}")
    return 0
