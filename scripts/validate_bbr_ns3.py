#!/usr/bin/env python3
"""BBR v1 in ccsim beside ns-3.37's `TcpBbr` on a dumbbell: goodput, mean queueing delay, and
flow 0's RTT and pacing-rate series (ProbeBW's gain-cycle period, ProbeRTT's spacing).

    python scripts/validate_bbr_ns3.py                      # the whole grid, cheapest first
    python scripts/validate_bbr_ns3.py --rates 10Mbps --n 1,2
    python scripts/validate_bbr_ns3.py --write              # ... into docs/validation.md

The dumbbell and both simulators' settings are `scripts/validate_ns3.py`'s (its ns-3 side is
`benchmarks/ns3/aqm.cc`, `--tcp=bbr`): N bulk flows, access links 1 Gb/s and 1 ms, a Tail Drop
bottleneck, 1000-byte segments, SACK, no delayed ACKs, initial window 10 (Linux's), start times
uniform in [0, 1] s, runs of `--time` seconds (default 42) measured after `--warmup` (default 12: past
the first ProbeRTT, which ends both simulators' start-up transients), and ccsim's BBR without
the pacing margin (`tcp.bbr.pacing_margin = 0`), as ns-3.37 models it. The grid: N in `--n` (1, 2,
10), bottleneck rate in `--rates` (10 and 100 Mb/s), base RTT in `--rtts` (20 and 100 ms: the
bottleneck's delay is RTT/2 - 2 ms), and a `deep` buffer (4 BDPs) and a `shallow` one (a
quarter of a BDP, at least 10 packets), run in order of cost.

Tolerances: goodput within 5 %, mean queueing delay within 20 % (or 0.5 ms); the series are
"alike" when ProbeBW's cycle period (the median time between the starts of two 1.25 phases,
seen as the pacing rate rising above 1.1 times its median over the run) and ProbeRTT's spacing
(the median time between two entries, seen as cwnd falling to 4 packets) are within 20 % of
each other and the number of ProbeRTT entries differs by at most one.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import validate_ns3 as v

BUFFERS = {"deep": 4.0, "shallow": 0.25}
SHAPE_TOL = 0.20
# ns-3.37's TcpBbr paces at gain * BtlBw with no margin (Linux takes 1 % off).
NS3_KEYS = ", bbr = { pacing_margin = 0 }"
MSS = 1000
WIRE = 1040  # a segment on the wire: payload and TCP/IP headers
GRID_STEP = 0.001  # seconds: both simulators' series on one grid
CACHE = v.NS3_BIN.parent / "ns3-bbr-cache.json"  # ns-3's side of each configuration run


def bdp_packets(rate_bps: float, rtt_ms: float) -> float:
    return rate_bps * rtt_ms / 1e3 / 8 / WIRE


def rate_bps(rate: str) -> float:
    return float(rate.removesuffix("Mbps")) * 1e6


def config_args(n: int, rate: str, rtt_ms: float, buffer: str, args: argparse.Namespace) -> argparse.Namespace:
    limit = max(round(BUFFERS[buffer] * bdp_packets(rate_bps(rate), rtt_ms)), 10)
    return argparse.Namespace(
        rate=rate,
        delay=f"{rtt_ms / 2 - 2:g}ms",
        time=args.time,
        warmup=args.warmup,
        seed=args.seed,
        tcp="bbr",
        init_cwnd=10,
        limit=limit,
        fifo_limit=limit,
        k=65,
        ecn=False,
        sack=True,
        tcp_keys=args.tcp_keys,
        recovery="classic",  # ns-3's TcpClassicRecovery, as the rows were measured
    )


def held(points: list[tuple[float, float]], start: float, end: float) -> list[float]:
    """Each step of the grid from `start` to `end`: the last value given at or before it."""
    out, i, last = [], 0, float("nan")
    steps = int((end - start) / GRID_STEP)
    for k in range(steps):
        t = start + k * GRID_STEP
        while i < len(points) and points[i][0] <= t:
            last = points[i][1]
            i += 1
        out.append(last)
    return out


def shape(rtt: list[tuple[float, float]], pacing: list[tuple[float, float]], cwnd: list[tuple[float, float]], args) -> dict:
    """ProbeBW's cycle period and ProbeRTT's entries from one flow's series (after the warm-up)."""
    start, end = args.warmup, args.time
    rate = held(pacing, start, end)
    finite = [x for x in rate if x == x and x > 0]
    med = statistics.median(finite) if finite else 0.0
    rises = [start + k * GRID_STEP for k in range(1, len(rate)) if rate[k] > 1.1 * med >= rate[k - 1]]
    gaps = [b - a for a, b in zip(rises, rises[1:])]
    win = held(cwnd, start, end)
    entries = [start + k * GRID_STEP for k in range(1, len(win)) if win[k] <= 4 < win[k - 1]]
    entries = [t for i, t in enumerate(entries) if i == 0 or t - entries[i - 1] > 1.0]
    spacing = [b - a for a, b in zip(entries, entries[1:])]
    samples = [r for t, r in rtt if start <= t < end]
    return {
        "cycle_s": statistics.median(gaps) if gaps else float("nan"),
        "probe_rtts": len(entries),
        "probe_rtt_spacing_s": statistics.median(spacing) if spacing else float("nan"),
        "rtt_ms": statistics.fmean(samples) if samples else float("nan"),
    }


def ccsim_side(n: int, a: argparse.Namespace) -> dict:
    series = "".join(
        f'[[series]]\nkind = "{kind}"\nflow = "flow0[0]"\ninterval = "1ms"\nmax_points = 1000000\n'
        for kind in ("rtt", "pacing_rate", "cwnd")
    )
    r = v.run_ccsim("fifo", n, a, series)
    by = {s["name"].split(" ")[0]: list(zip(s["t"], s["value"])) for s in r.pop("series")}
    # ccsim's pacing rate is on the wire, ns-3's of payload: the same gain either way.
    clean = {k: [(t, x) for t, x in pts if x is not None] for k, pts in by.items()}
    r.update(shape(clean["rtt"], clean["pacing_rate"], clean["cwnd"], a))
    return r


def ns3_side(n: int, a: argparse.Namespace) -> dict:
    """ns-3's totals and shape, from the cache when this configuration ran with this binary."""
    key = f"{n} {a.rate} {a.delay} {a.limit} {a.time} {a.warmup} {a.seed} {v.NS3_BIN.stat().st_mtime}"
    cache = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    if key not in cache:
        cache = json.loads(CACHE.read_text()) if CACHE.exists() else {}
        cache[key] = ns3_run(n, a)
        CACHE.write_text(json.dumps(cache, indent=1))
    return dict(cache[key])


def ns3_run(n: int, a: argparse.Namespace) -> dict:
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as f:
        r = v.run_ns3("fifo", n, a, f.name)
        by: dict[str, list[tuple[float, float]]] = {"rtt": [], "pacing": [], "cwnd": []}
        for line in f:
            t, kind, x = line.split()
            by[kind].append((float(t), float(x) / MSS if kind == "cwnd" else float(x)))
    r.update(shape(by["rtt"], by["pacing"], by["cwnd"], a))
    return r


def alike(c: dict, s: dict) -> bool:
    def near(x: float, y: float) -> bool:
        return x == x and y == y and abs(x - y) <= SHAPE_TOL * abs(y)

    probe_rtt = abs(c["probe_rtts"] - s["probe_rtts"]) <= 1
    if c["probe_rtts"] >= 2 and s["probe_rtts"] >= 2:
        probe_rtt = probe_rtt and near(c["probe_rtt_spacing_s"], s["probe_rtt_spacing_s"])
    return near(c["cycle_s"], s["cycle_s"]) and probe_rtt


def table(rows: list[tuple[tuple, argparse.Namespace, dict, dict]], args: argparse.Namespace) -> str:
    head = (
        f"BBR v1, Tail Drop bottleneck, {args.time - args.warmup:g} s measured after {args.warmup:g} s, seed {args.seed}; "
        "ccsim / ns-3 in each cell.\n\n"
        "| rate | RTT | buffer (pkts) | N | goodput (Mb/s) | diff | queue delay (ms) | diff | drops "
        "| RTT (ms) | cycle (ms) | ProbeRTTs, spacing (s) | within |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = []
    for (n, rate, rtt, buffer), a, c, s in rows:
        g_ok = v.within(c["goodput_bps"], s["goodput_bps"], v.GOODPUT_TOL)
        d_ok = v.within(c["mean_delay_ms"], s["mean_delay_ms"], v.DELAY_TOL, v.DELAY_FLOOR_MS)
        shape_ok = alike(c, s)
        gd = (c["goodput_bps"] / s["goodput_bps"] - 1) * 100 if s["goodput_bps"] else float("nan")
        dd = (c["mean_delay_ms"] / s["mean_delay_ms"] - 1) * 100 if s["mean_delay_ms"] else float("nan")
        out = [name for name, ok in (("goodput", g_ok), ("delay", d_ok), ("shape", shape_ok)) if not ok]

        def pair(key: str, fmt: str, scale: float = 1.0, c: dict = c, s: dict = s) -> str:
            return f"{c[key] * scale:{fmt}} / {s[key] * scale:{fmt}}"

        cells = [
            rate,
            f"{rtt:g} ms",
            f"{buffer} {a.limit}",
            str(n),
            pair("goodput_bps", ".2f", 1e-6),
            f"{gd:+.1f} %",
            pair("mean_delay_ms", ".2f"),
            f"{dd:+.1f} %",
            pair("drops", ".0f"),
            pair("rtt_ms", ".1f"),
            pair("cycle_s", ".0f", 1e3),
            f"{c['probe_rtts']}, {c['probe_rtt_spacing_s']:.2f} / {s['probe_rtts']}, {s['probe_rtt_spacing_s']:.2f}",
            "yes" if not out else ", ".join(out) + " out",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return head + "\n".join(lines) + "\n"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", default="1,2,10", help="flow counts")
    p.add_argument("--rates", default="10Mbps,100Mbps")
    p.add_argument("--rtts", default="20,100", help="base RTTs, ms")
    p.add_argument("--buffers", default="shallow,deep")
    p.add_argument("--time", type=float, default=42)
    p.add_argument("--warmup", type=float, default=12, help="seconds, by default past the first ProbeRTT")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="ns-3 runs at once")
    p.add_argument("--tcp-keys", default=NS3_KEYS, help="more keys of ccsim's tcp table")
    p.add_argument("--write", action="store_true", help=f"rewrite the table in {v.DOC.relative_to(v.ROOT)}")
    args = p.parse_args()
    v.build_ns3()
    grid = [
        (int(n), rate, float(rtt), buffer)
        for rate in args.rates.split(",")
        for n in args.n.split(",")
        for rtt in args.rtts.split(",")
        for buffer in args.buffers.split(",")
    ]
    grid.sort(key=lambda g: rate_bps(g[1]) * (1 + g[0] / 10))
    configs = [(g, config_args(*g, args)) for g in grid]
    rows = []
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(ns3_side, g[0], a) for g, a in configs]
        for (g, a), f in zip(configs, futures):
            c = ccsim_side(g[0], a)
            rows.append((g, a, c, f.result()))
            print(table(rows[-1:], args).splitlines()[-1], flush=True)
    text = table(rows, args)
    print(text)
    if args.write:
        v.write_table(text, "bbr", "validate_bbr_ns3.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
