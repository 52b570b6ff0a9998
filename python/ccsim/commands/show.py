"""`ccsim show FILE`: the scenario as the builder expands it, without running it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .run import seed_arg

ORDER = 15

DESCRIPTION = """\
Print what a scenario expands to, without running it: every node with its address, every
link with its rate, delay and queue (the bottleneck of each flow marked), every flow with
its route both ways, the settings in force for each queue and each flow (defaults filled
in, as the scenario's profile chose them: profile = "rfc", "ns2" or "linux"), and what the run will
record. The same checks as `ccsim run` apply, with the same messages."""

EXAMPLES = """\
examples:
  ccsim show scenarios/dumbbell.toml
      the ten flows, their routes, RED's resolved parameters, TCP's settings

  ccsim show scenarios/dumbbell.toml --set profile=ns2 --set flows.bulk.count=2
      the same with ns-2's defaults and 2 flows per sender-receiver pair (20 flows)

  ccsim show scenarios/dumbbell.toml --json | jq '.flows[0].route'
      the description as JSON

exit status: 0, or 2 for a problem with the scenario or the arguments."""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "show",
        help="print the expanded scenario (topology, routes, flows, settings) without running it",
        description=DESCRIPTION,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="scenario file (TOML)")
    p.add_argument(
        "--set", "-s", dest="overrides", action="append", default=[], metavar="KEY.PATH=VALUE", help="override a field (repeatable)"
    )
    p.add_argument("--seed", type=seed_arg, metavar="N", help="seed (start times and delays drawn from distributions depend on it)")
    p.add_argument("--json", action="store_true", help="print the description as JSON")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from ..show import expand, text

    d = expand(Path(args.file), overrides=args.overrides, seed=args.seed)
    print(json.dumps(d) if args.json else text(d))
    return 0
