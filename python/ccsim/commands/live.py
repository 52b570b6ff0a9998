"""`ccsim live run FILE` and `ccsim live node FILE --name N`: a scenario on real UDP
sockets, one process per node (see docs/live.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import CliError

ORDER = 25

DESCRIPTION = """\
Run a scenario on real sockets: every host and router of the file is a process bound to a
UDP socket, links are emulated (rate, delay, loss, drop-tail threshold = the queue's limit),
and queues with `acc = true` run the ACC monitor, with filters at the nodes upstream. The
flows must use `transport = "rdp"`. Live-only settings are in the file's [live] table
(docs/live.md): fixed addresses, flakeways, the MAC key, captures.

`ccsim live run` starts every node on this machine (127.0.0.1, free ports), runs the
transfers for the scenario's duration, stops every process it started (also on Ctrl-C or
an error) and prints a summary shaped like `ccsim run`'s: goodput per flow, the links'
queues, drops and shaper accuracy, ACC counters, CPU time per forwarded packet per node.

`ccsim live twin` simulates the same run (same options, same JSON): the simulation the
live plan is made from, each flakeway's delay and loss on the links into its node, so
that they come before that node's queues as live.

`ccsim live node` runs one node, for nodes on several machines or network namespaces:
every node's address must then be in [live.nodes] and the key in [live] or CCSIM_LIVE_KEY."""

EXAMPLES = """\
examples:
  ccsim live run scenarios/acc_live.toml --set duration=10s
  ccsim live run scenarios/acc_live.toml --set duration=10s --json > run.json
  ccsim live run scenarios/acc_live.toml --set 'links.*.queue.acc=false' --set 'flows.*.rdp.acc=false'
      the same without ACC
  ccsim live twin scenarios/acc_live.toml --set duration=10s --json
      the simulated twin of the first run, in the same JSON schema
  ccsim live run scenarios/acc_live.toml --set 'live.pcap=["C"]' --out capture/
      C writes capture/C.pcap; tshark -X lua_script:scripts/wireshark/ccsim_live.lua -r capture/C.pcap
  ccsim live node acc_live_netns.toml --name C --start-at 1767225600
      one node; start at that unix time (every node given the same)

exit status: 0 on success, 2 for a problem with the scenario or the arguments, 1 if a node failed
(then the surviving nodes' reports are printed and written, with the dead node named under
"failure", and the error names its exit status and last lines of stderr)."""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "live",
        help="run a scenario on real UDP sockets, one process per node",
        description=DESCRIPTION,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="live_command", metavar="COMMAND", required=True)
    for name, help_ in (
        ("run", "start every node on this machine and run the scenario"),
        ("twin", "simulate the live run's twin: the same plan, flakeways before their node's queues"),
        ("node", "run one node of the scenario"),
    ):
        q = sub.add_parser(name, help=help_, description=DESCRIPTION, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
        q.add_argument("file", metavar="FILE", help="scenario file (TOML)")
        q.add_argument(
            "--set", "-s", dest="overrides", action="append", default=[], metavar="KEY.PATH=VALUE", help="override a field (repeatable)"
        )
        q.add_argument("--out", "-o", metavar="DIR", help="folder for captures (and, for run, summary.json)")
        q.add_argument("--json", action="store_true", help="print the report as JSON")
        if name == "node":
            q.add_argument("--name", required=True, help="the node to run")
            q.add_argument(
                "--start-at",
                type=float,
                metavar="UNIX_TIME",
                help="when the run starts (seconds since 1970; default now; required with a MAC key, which binds the MACs to it)",
            )
            q.add_argument("--rendezvous", action="store_true", help=argparse.SUPPRESS)
            q.set_defaults(func=node)
        else:
            q.set_defaults(func=run if name == "run" else twin)


def _text(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError as e:
        raise CliError(f"{path}: {e.strerror or e}") from None


def node(args: argparse.Namespace) -> int:
    from .. import _core

    text = _text(args.file)
    _core.live_plan(text, args.file, args.overrides)  # a problem with the file: exit 2
    try:
        report = _core.live_node(text, args.file, args.overrides, args.name, args.rendezvous, args.start_at, args.out)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if args.json or args.rendezvous:
        sys.stdout.write(report + "\n")
    else:
        r = json.loads(report)
        print(f"{r['name']}: {r['received']} received, {r['forwarded']} forwarded, CPU {r['cpu_s']:.2f} s")
    sys.stdout.flush()
    return 0


def run(args: argparse.Namespace) -> int:
    from .. import live

    _text(args.file)
    try:
        summary = live.run(args.file, args.overrides, args.out)
    except live.LiveError as e:
        if e.summary is not None:  # the survivors' reports, written as a finished run's
            _emit(args, e.summary)
        print(f"error: {e}", file=sys.stderr)
        return 1
    return _emit(args, summary)


def twin(args: argparse.Namespace) -> int:
    from .. import live

    _text(args.file)
    return _emit(args, live.twin(args.file, args.overrides))


def _emit(args: argparse.Namespace, summary: dict) -> int:
    from .. import live

    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "summary.json").write_text(json.dumps(summary, indent=1))
    if args.json:
        sys.stdout.write(json.dumps(summary) + "\n")
    else:
        print(live.describe(summary))
    sys.stdout.flush()
    return 0
