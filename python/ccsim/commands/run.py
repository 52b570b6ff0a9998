"""`ccsim run FILE`: run one scenario, print its summary, optionally save its tables."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import CliError

ORDER = 10

U64_MAX = 2**64 - 1

DESCRIPTION = """\
Run one scenario file and print a short summary: totals, goodput per flow group, and the
queues that dropped or marked packets. Statistics cover the time after the warm-up.

With --json the whole report is printed as one line of JSON instead (the fields are listed
in docs/results-schema.md). Two runs of the same scenario and seed print identical JSON
except for the two fields wall_time_s and events_per_second, which measure this machine.

A progress line (simulated time, events per second, ETA) appears on stderr when stderr is a
terminal and the run takes longer than 2 s; --quiet turns it off (and the text summary with
it; --json output is still printed).

A duration written as a bare number is seconds: a warning on stderr names each one (but 0),
since "--set links.1.delay=20" is a delay of 20 s, not 20 ms."""

EXAMPLES = """\
examples:
  ccsim run scenarios/dumbbell.toml
      run the example dumbbell for its full 30 s

  ccsim run scenarios/dumbbell.toml --set duration=5s --set warmup=1s
      override fields of the file; a path is dot-separated, array elements are chosen
      by index (links.1.rate or links[1].rate) or by name (flows.bulk.count=2: two flows
      per sender-receiver pair of the group "bulk", 20 flows in this scenario)

  ccsim run scenarios/dumbbell.toml --set 'links[1].queue={ discipline = "droptail", limit = 50 }'
      a value is read as TOML, or taken as a plain string (10Mbps) if it is not TOML

  ccsim run scenarios/dumbbell.toml --seed 7 --json > run7.json
      another seed; the whole report as JSON

  ccsim run scenarios/dumbbell.toml --out results/ --quiet
      write summary.json and flows/queues/links/nodes/series.parquet into results/

  ccsim run scenarios/dumbbell.toml --pcap 'R1->R2,R2->R1' --out results/
      also capture both directions of the bottleneck into results/trace.pcapng
      (one interface per link; a name without "->" captures every link of that node)

  ccsim run scenarios/dumbbell.toml --packet-log --set 'packet_log.links=["R1->R2"]' --out results/
      log every enqueue, dequeue, drop, mark and receive on the bottleneck into
      results/packets.parquet (filters: packet_log.events, .links, .nodes, .flows)

exit status: 0 on success, 2 for a problem with the scenario or the arguments."""


def seed_arg(text: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= value <= U64_MAX:
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and {U64_MAX}")
    return value


def max_events_arg(text: str) -> int:
    try:
        value = int(float(text)) if any(c in text for c in ".eE") else int(text)
    except (ValueError, OverflowError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of events") from None
    if not 1 <= value <= U64_MAX:
        raise argparse.ArgumentTypeError(f"{text} is not between 1 and {U64_MAX}")
    return value


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "run",
        help="run one scenario and print its summary",
        description=DESCRIPTION,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="scenario file (TOML)")
    p.add_argument(
        "--set",
        "-s",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY.PATH=VALUE",
        help="override a field of the scenario (repeatable)",
    )
    p.add_argument("--seed", type=seed_arg, metavar="N", help="seed of every random stream (replaces the file's)")
    p.add_argument("--json", action="store_true", help="print the whole report as JSON on stdout")
    p.add_argument("--out", "-o", metavar="DIR", help="write summary.json and the Parquet tables into DIR")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no text summary")
    p.add_argument(
        "--pcap",
        metavar="LINK[,LINK...]",
        help='capture these links ("R1->R2") or every link of these nodes ("R1") into trace.pcapng '
        "(trace.pcap with --pcap-format pcap), in the --out directory or the current one",
    )
    p.add_argument("--pcap-format", choices=["pcapng", "pcap"], default="pcapng", help="capture file format (default pcapng)")
    p.add_argument(
        "--force",
        action="store_true",
        help="run even if the scenario needs more memory than this machine has available or more events than --max-events",
    )
    p.add_argument("--max-events", type=max_events_arg, metavar="N", help="refuse a scenario estimated to need more events (default 1e10)")
    p.add_argument("--pcap-snaplen", type=int, metavar="BYTES", help="bytes kept of each packet (default 96: the headers)")
    p.add_argument(
        "--packet-log",
        action="store_true",
        help="log every packet event (enqueue, dequeue, drop, mark, receive) into packets.parquet in the --out "
        "directory; the scenario's [packet_log] table, or --set packet_log.KEY=..., filters it",
    )
    p.set_defaults(func=main)


def warn_bare_durations(text: str, origin: str, overrides: list[str]) -> None:
    """A warning on stderr for each duration written as a bare number: it is read as
    seconds, so `--set links.1.delay=20` is a delay of 20 s."""
    from .._core import bare_durations

    for path, seconds in bare_durations(text, origin, overrides):
        print(
            f'warning: {path} = {seconds:g} is read as {seconds:g} s (a bare number is seconds); write "{seconds:g}s", or "{seconds:g}ms" if milliseconds are meant',
            file=sys.stderr,
        )


def main(args: argparse.Namespace) -> int:
    from .._scenario import normalize_overrides, resolve
    from ..runner import run_text

    if args.out and Path(args.out).exists() and not Path(args.out).is_dir():
        raise CliError(f"{args.out}: exists and is not a directory")
    pcap = None
    if args.pcap is not None:
        names = [n.strip() for n in args.pcap.split(",") if n.strip()]
        if not names:
            raise CliError("--pcap: give link names (R1->R2) or node names, separated by commas")
        pcap = {
            "file": f"trace.{args.pcap_format}",
            "format": args.pcap_format,
            "links": [n for n in names if "->" in n],
            "nodes": [n for n in names if "->" not in n],
        }
        if args.pcap_snaplen is not None:
            pcap["snaplen"] = args.pcap_snaplen
    elif args.pcap_snaplen is not None or args.pcap_format != "pcapng":
        raise CliError("--pcap-format and --pcap-snaplen go with --pcap")
    overrides = list(args.overrides)
    if args.packet_log:
        if not args.out:
            raise CliError("--packet-log writes packets.parquet into the --out directory: give --out DIR")
        overrides.append("packet_log.enabled=true")
    text, origin = resolve(Path(args.file))
    warn_bare_durations(text, origin, normalize_overrides(overrides, origin))
    try:
        results = run_text(
            text,
            origin,
            overrides=overrides,
            seed=args.seed,
            progress=False if args.quiet else None,
            pcap=pcap,
            out_dir=args.out,
            force=args.force,
            max_events=args.max_events,
        )
    except OSError as e:
        raise CliError(str(e)) from None
    if args.out:
        try:
            out = results.to_parquet(args.out)
        except OSError as e:
            raise CliError(f"{args.out}: cannot write results: {e.strerror or e}") from None
    if args.json:
        sys.stdout.write(results.to_json() + "\n")
    elif not args.quiet:
        print(results.describe())
        if args.out:
            print(f"\nwrote summary.json and flows, queues, links, nodes, series .parquet to {out}/")
        if pcap is not None:
            print(f"wrote the capture to {Path(args.out or '.') / pcap['file']}")
        if results.packets is not None and args.out:
            print(f"wrote {len(results.packets):,} packet events to {Path(args.out) / 'packets.parquet'}")
    if results.packets_not_kept:
        print(
            f"warning: the packet log kept its first {len(results.packets):,} events and left out "
            f"{results.packets_not_kept:,}; raise packet_log.max_events or filter it",
            file=sys.stderr,
        )
    sys.stdout.flush()
    return 0
