"""What the hosts' access links cost an event at scale.

DUMBBELL-N gives every flow its own sender and receiver host, each behind its own pair of
1 Gb/s access links: 4N links, of which only the two directions of the bottleneck are
shared. This runs the benchmark's scenario and two variants that keep its traffic (the same
flows, bottleneck, RED and TCP) but change the access links:

  benchmark    as `ccsim bench dumbbell N T 1 --bottleneck max(100, N/10)` builds it;
  fast-access  every access link at 1000 Gb/s: no packet ever waits for one (no queue
               buffer or transmission schedule of an access link is written);
  one-pair     all N flows between one sender host and one receiver host, over two
               1000 Gb/s access links: six links in all, whose state stays in the caches,
               and one route per router.

The difference between the benchmark and one-pair is what the 4N access links (and the
routing entries of 2N hosts) cost; between one-pair and a small N, what the flows' own
state costs. Rounds alternate the variants (A B C, then C B A) and report the mean of each
one's run time; `--pin` keeps the process on the first CPU.

    python3 benchmarks/access_links.py 100000 --time 2 --rounds 2 --pin
    python3 benchmarks/access_links.py 10000 --rounds 3 --pin --json results.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from ccsim.bench import dumbbell, timed_run

VARIANTS = ("benchmark", "fast-access", "one-pair")


def scenario(variant: str, n: int, sim_time: float, seed: int) -> dict:
    """DUMBBELL-N as the scale table runs it, with its access links as `variant` has them."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, not {variant!r}")
    d = dumbbell(n, sim_time, seed, True, max(100, n // 10 // 100 * 100))
    access = (d["links"][0], d["links"][2])
    if variant != "benchmark":
        for link in access:
            link["rate"] = "1000Gbps"
    if variant == "one-pair":
        d["hosts"] = ["S1", "D1"]
        access[0]["between"] = ["S1", "R1"]
        access[1]["between"] = ["R2", "D1"]
        for link in access:
            # Every flow's packets share these two links: room for all of them.
            link["queue"] = {"limit": 100 * n}
        d["flows"][0].update({"from": "S1", "to": "D1", "count": n})
    return d


def run(variant: str, n: int, sim_time: float, seed: int) -> dict:
    """Builds and runs one variant; its timings and the totals that show its traffic."""
    report, setup, run_s = timed_run(scenario(variant, n, sim_time, seed), f"{variant}-{n}")
    (q,) = report["queues"]
    events = report["events_processed"]
    return {
        "variant": variant,
        "setup_s": setup,
        "run_s": run_s,
        "events": events,
        "ns_per_event": run_s * 1e9 / max(events, 1),
        "delivered_packets": report["totals"]["delivered_bytes"] // 1000,
        "bottleneck_drops": q["drops"],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("n", type=int, help="flows (N of DUMBBELL-N), at least 1")
    p.add_argument("--time", type=float, default=5.0, help="simulated seconds (default 5)")
    p.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    p.add_argument("--rounds", type=int, default=1, help="rounds, each running every variant twice (default 1)")
    p.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, of {', '.join(VARIANTS)} (default all)")
    p.add_argument("--pin", action="store_true", help="run on the first CPU only (Linux)")
    p.add_argument("--json", metavar="FILE", help="also write every run's figures to FILE")
    a = p.parse_args(argv)
    variants = [v for v in a.variants.split(",") if v]
    for v in variants:
        if v not in VARIANTS:
            p.error(f"--variants: {v!r} is not one of {', '.join(VARIANTS)}")
    if a.n < 1:
        p.error(f"n: at least 1 flow, not {a.n}")
    if a.time <= 0:
        p.error(f"--time: a positive number of seconds, not {a.time:g}")
    if a.rounds < 1:
        p.error(f"--rounds: at least 1, not {a.rounds}")
    if a.pin:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

    runs = []
    for r in range(a.rounds):
        for order in (variants, variants[::-1]):
            for v in order:
                print(f"round {r + 1}/{a.rounds}: {v} ...", file=sys.stderr, flush=True)
                runs.append(run(v, a.n, a.time, a.seed))

    print(f"DUMBBELL-{a.n}, {a.time:g} s simulated, {a.rounds} round(s) of {len(variants) * 2} runs")
    print(f"{'variant':<12} {'setup s':>8} {'run s':>8} {'events':>11} {'ns/event':>9} {'vs first':>9} {'delivered':>10} {'drops':>8}")
    first = None
    for v in variants:
        mine = [x for x in runs if x["variant"] == v]
        run_s = sum(x["run_s"] for x in mine) / len(mine)
        setup_s = sum(x["setup_s"] for x in mine) / len(mine)
        events = mine[0]["events"]
        first = first or run_s
        print(
            f"{v:<12} {setup_s:>8.3f} {run_s:>8.3f} {events:>11,} {run_s * 1e9 / events:>9.1f} "
            f"{run_s / first:>9.3f} {mine[0]['delivered_packets']:>10,} {mine[0]['bottleneck_drops']:>8,}"
        )
    if a.json:
        with open(a.json, "w") as f:
            json.dump(runs, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
