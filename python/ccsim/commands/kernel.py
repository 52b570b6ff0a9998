"""`ccsim kernel run FILE`: a scenario's TCP flows as real Linux TCP connections through
ccsim's links and queue disciplines (see docs/kernel.md)."""

from __future__ import annotations

import argparse
import json
import sys

from .live import _text

ORDER = 26

DESCRIPTION = """\
Run a scenario's TCP flows with the Linux kernel's own TCP instead of the simulator's: each
host is a network namespace whose default route is a TUN device, and one router process
carries the IP packets between the TUN devices through the scenario's links (rate, delay,
loss) and egress queues (the simulator's disciplines: drop-tail, RED and its family, CoDel,
PIE, FQ-CoDel; ECN marks are written into the IP header). Each flow is a kernel TCP
connection with TCP_CONGESTION from tcp.variant (reno/newreno -> reno, cubic, bbr), ECN
and SACK set by sysctl in the hosts' namespaces; the senders' TCP_INFO (cwnd, ssthresh,
srtt, retransmissions, delivery rate) is sampled every 100 ms, or as the scenario's
[[series]] ask (cwnd, ssthresh, srtt, pacing_rate, goodput of flows; queue of links).

Needs root, /dev/net/tun and the ip and sysctl commands. Namespaces are named ccsim-<pid>-<n>
and removed at the end, on an error, on Ctrl-C or SIGTERM; TUN devices vanish with the
router process. The summary has the load average before and after the run: the router is a
user-space process and a loaded machine slows it (docs/kernel.md, "Limits")."""

EXAMPLES = """\
examples:
  ccsim kernel run scenarios/kernel_dumbbell.toml
      10 CUBIC flows through a 50 Mb/s drop-tail bottleneck, kernel TCP

  ccsim kernel run scenarios/kernel_dumbbell.toml --set duration=10s --set 'flows.*.tcp.variant=bbr'
      the same with the kernel's BBR

  ccsim kernel run scenarios/kernel_dumbbell.toml --set 'links.1.queue={ discipline = "codel", signal = "ecn" }' \\
      --set 'flows.*.tcp.ecn=true' --json > run.json
      CoDel marking ECN-capable kernel flows; the summary as JSON

  ccsim kernel run scenarios/kernel_dumbbell.toml --out results/ --pcap R1
      also write results/summary.json, the Parquet tables of `ccsim run --out` and
      results/R1.pcap (every packet R1 receives)

  ccsim kernel run scenarios/kernel_dumbbell.toml --gso off
      the senders' TCP one segment per send (no software segmentation)

exit status: 0 on success, 2 for a problem with the scenario or the arguments, 1 if the run
could not start or failed (not root, no TUN, a process died)."""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "kernel",
        help="run a scenario's TCP flows with the Linux kernel's TCP through ccsim's routers",
        description=DESCRIPTION,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="kernel_command", metavar="COMMAND", required=True)
    q = sub.add_parser(
        "run",
        help="build the namespaces and router, run the flows",
        description=DESCRIPTION,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    q.add_argument("file", metavar="FILE", help="scenario file (TOML)")
    q.add_argument(
        "--set", "-s", dest="overrides", action="append", default=[], metavar="KEY.PATH=VALUE", help="override a field (repeatable)"
    )
    q.add_argument("--out", "-o", metavar="DIR", help="folder for summary.json and the Parquet tables (as `ccsim run --out`)")
    q.add_argument("--json", action="store_true", help="print the summary as one line of JSON")
    q.add_argument(
        "--pcap", metavar="ROUTERS", help="routers (comma-separated) that write ROUTER.pcap into --out: every packet they receive"
    )
    q.add_argument(
        "--gso",
        choices=["on", "off"],
        default="on",
        help="the hosts' software segmentation: on (Linux's default: TCP sends about a millisecond of segments at a time) "
        "or off (one segment per send, as the simulator's TCP); docs/kernel.md",
    )
    q.set_defaults(func=run)
    r = sub.add_parser("router", help="(used by run) the router process")
    r.add_argument("file")
    r.add_argument("--set", "-s", dest="overrides", action="append", default=[])
    r.add_argument("--ns", required=True)
    r.add_argument("--pcap", default="")
    r.add_argument("--out")
    r.add_argument("--interval", type=float, default=None)
    r.set_defaults(func=router)
    h = sub.add_parser("host", help="(used by run) one host's senders and receivers, in its namespace")
    h.add_argument("spec")
    h.add_argument("--name", required=True)
    h.set_defaults(func=host)


def run(args: argparse.Namespace) -> int:
    from .. import kernel

    _text(args.file)
    kernel.plan(args.file, args.overrides)  # a problem with the file: exit 2
    try:
        pcap = [r for r in (args.pcap or "").split(",") if r]
        summary = kernel.run(args.file, args.overrides, args.out, pcap, gso=args.gso == "on")
    except kernel.KernelError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: every namespace and process of the run removed", file=sys.stderr)
        return 130
    if args.json:
        sys.stdout.write(json.dumps(summary) + "\n")
    else:
        print(kernel.describe(summary))
    sys.stdout.flush()
    return 0


def router(args: argparse.Namespace) -> int:
    from .. import _core, kernel

    text = _text(args.file)
    try:
        pcap = [r for r in args.pcap.split(",") if r]
        report = _core.kernel_router(
            text, args.file, args.overrides, args.ns.split(","), kernel.IFNAME, args.interval or kernel.INTERVAL, pcap, args.out
        )
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(report + "\n")
    sys.stdout.flush()
    return 0


def host(args: argparse.Namespace) -> int:
    from .. import kernel

    return kernel.host_main(args.spec, args.name)
