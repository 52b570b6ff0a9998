#!/usr/bin/env python3
"""BBR v3 beside BBR v1 on a shallow buffer: the physics the draft (draft-ietf-ccwg-bbr) claims
for v3's loss response, checked in ccsim alone (no reference simulator has BBR v3).

    python scripts/validate_bbr3.py            # the table
    python scripts/validate_bbr3.py --write    # ... into docs/validation.md

The dumbbell is scripts/validate_bbr_ns3.py's (N bulk flows, 1000-byte segments, SACK, a Tail
Drop bottleneck of a quarter of a BDP, at least 10 packets; runs of `--time` seconds measured
after `--warmup`), run with `tcp.variant = "bbr"` and `"bbr3"`. The claim, per row: v3 keeps the
link near full (goodput at least `--min-util` of the link's payload rate, 90 %) while losing a
smaller share of what it sends than v1 and queueing no longer on average (v1's 2-BDP window
keeps a shallow buffer overflowing; v3's inflight_longterm and short-term bounds stop at the
flight that lost more than 2 %).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import validate_bbr_ns3 as b
import validate_ns3 as v


def run(n: int, rate: str, rtt: float, buffer: str, variant: str, args: argparse.Namespace) -> dict:
    a = b.config_args(n, rate, rtt, buffer, args)
    a.tcp, a.tcp_keys = variant, ""
    from ccsim._core import Simulation

    sim = Simulation(v.scenario("fifo", n, a), f"<validate_bbr3 {variant}>", [], None, None)
    sim.run_until(float("inf"))
    r = json.loads(sim.report_json())
    q = next(q for q in r["queues"] if q["link"] == "R1->R2")
    sent = sum(f["packets_sent"] for f in r["flows"])
    payload_rate = b.rate_bps(rate) * b.MSS / b.WIRE
    return {
        "limit": a.limit,
        "util": sum(f["goodput_bps"] for f in r["flows"]) / payload_rate,
        "delay_ms": q["mean_delay_ms"],
        "loss": q["drops"] / sent if sent else 0.0,
        "timeouts": sum(f["timeouts"] for f in r["flows"]),
        "jain": v.jain([f["goodput_bps"] for f in r["flows"]]),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", default="1,2,10")
    p.add_argument("--rates", default="10Mbps,100Mbps")
    p.add_argument("--rtts", default="20,100")
    p.add_argument("--buffers", default="shallow")
    p.add_argument("--time", type=float, default=42)
    p.add_argument("--warmup", type=float, default=12)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--min-util", type=float, default=0.9)
    p.add_argument("--write", action="store_true")
    args = p.parse_args()
    args.tcp_keys = ""
    head = (
        f"BBR v1 / BBR v3 on each row, Tail Drop bottleneck, {args.time - args.warmup:g} s measured after {args.warmup:g} s, "
        f"seed {args.seed}; the claim: v3's goodput at least {args.min_util:.0%} of the link, its loss rate and mean "
        "queueing delay no larger than v1's.\n\n"
        "| rate | RTT | buffer (pkts) | N | utilisation | loss rate | queue delay (ms) | timeouts | Jain | holds |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = []
    failed = 0
    for rate in args.rates.split(","):
        for n in map(int, args.n.split(",")):
            for rtt in map(float, args.rtts.split(",")):
                for buffer in args.buffers.split(","):
                    one = run(n, rate, rtt, buffer, "bbr", args)
                    three = run(n, rate, rtt, buffer, "bbr3", args)
                    ok = three["util"] >= args.min_util and three["loss"] <= one["loss"] and three["delay_ms"] <= one["delay_ms"]
                    failed += not ok
                    line = (
                        f"| {rate} | {rtt:g} ms | {buffer} {one['limit']} | {n} "
                        f"| {one['util']:.1%} / {three['util']:.1%} | {one['loss']:.2%} / {three['loss']:.2%} "
                        f"| {one['delay_ms']:.2f} / {three['delay_ms']:.2f} | {one['timeouts']} / {three['timeouts']} "
                        f"| {one['jain']:.3f} / {three['jain']:.3f} | {'yes' if ok else 'no'} |"
                    )
                    print(line, flush=True)
                    lines.append(line)
    text = head + "\n".join(lines) + "\n"
    print(text)
    if args.write:
        v.write_table(text, "bbr3", "validate_bbr3.py")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
