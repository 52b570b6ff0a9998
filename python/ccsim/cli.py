"""The `ccsim` command. Each subcommand is a module in `ccsim.commands` with a
`register(subparsers)` function; this file only wires them up and turns user errors into
`error: ...` and exit status 2."""

from __future__ import annotations

import argparse
import os
import sys

from . import __version__, _core
from ._core import PluginError, ScenarioError
from .commands import CliError, Parser, discover

EPILOG = """\
examples:
  ccsim run scenarios/dumbbell.toml
  ccsim run scenarios/dumbbell.toml --set duration=10s --set flows.bulk.count=2 --seed 7
      (count is per sender-receiver pair: 2 flows from each S to its D, 20 in all)
  ccsim run scenarios/dumbbell.toml --json | jq .totals
  ccsim run scenarios/dumbbell.toml --out results/ --quiet
  ccsim sweep scenarios/sweep_dumbbell.toml
  ccsim plot results/sweep_dumbbell --x links.1.queue.limit --y totals.goodput_bps

'ccsim COMMAND --help' describes each command.
"""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The CLI's parser; with `command`, only that command's (when it names one)."""
    parser = Parser(
        prog="ccsim",
        description="Packet-level simulator for TCP congestion control.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"ccsim {__version__} ({_core.build()} build)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for module in discover(command):
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(func(args) or 0)
    except (ScenarioError, CliError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except PluginError as e:
        # A plug-in's exception (with its traceback) or bad value: the run failed, not the command line.
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`ccsim run ... --json | head`): not an error worth a trace.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
