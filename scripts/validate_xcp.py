#!/usr/bin/env python3
"""XCP against ns-2.35's own XCP, and XCP and RCP against the physics they claim.

XCP (Katabi, Handley and Rohrs 2002): a dumbbell whose bottleneck is an XCP queue, N flows
of `tcp.variant = "xcp"` joining one every GAP seconds, run in ccsim and in ns-2.35
(`validation/ns2/xcp.tcl`: `Agent/TCP/Reno/XCP`, `Agent/TCPSink/XCPSink`, `Queue/XCP`).
Compared: the bottleneck's utilisation and mean queue from the last join + 1 s to the end
(within 5 % and 20 %), its drops (counts), and the convergence time after each join: the
time until Jain's index of the flows' throughputs over 0.5 s reaches 0.95 and stays there
until the next join (within 20 %, or 0.5 s, the resolution of the measure).

RCP (Dukkipati and McKeown 2006) has no reference simulator here; with XCP it is checked
against the physics: flows of unequal RTTs (20 to 160 ms) on one bottleneck leave it nearly
full (utilisation >= 0.95) with nearly no queue (mean <= 10 % of the bandwidth-delay
product) and share it fairly (Jain's index >= 0.95 for RCP; XCP's fairness controller
equalises throughput too); and RCP's flow completion times for Pareto-sized flows arriving
as a Poisson process stay close to processor sharing's (mean of FCT / FCT_PS at most 2 for
flows of more than 10 packets, FCT_PS = RTT + L / (C (1 - rho))).

    python scripts/validate_xcp.py              # every case: docs/validation.md's rows
    python scripts/validate_xcp.py --quick      # the short subset (the test suite's)
    python scripts/validate_xcp.py --out /tmp/x.md

Needs `ns` (Debian's ns2 package) for the XCP rows (they are skipped, with a message,
without it) and the ccsim package. Exit status 0 when every row passes or its difference
has a stated cause, 1 otherwise.
"""

from __future__ import annotations

import argparse
import math
import random
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NS2_SCRIPT = ROOT / "validation" / "ns2" / "xcp.tcl"
WIRE, PAYLOAD = 1040, 1000
#: Throughputs are compared over windows of this many seconds (ns-2's samples are 0.1 s).
WINDOW = 0.5
#: Jain's index that counts as converged.
JAIN_CONVERGED = 0.95
TOLERANCE = {"utilisation": 0.05, "mean_queue": 0.20, "convergence": 0.20}


@dataclass
class XcpCase:
    name: str
    n: int
    gap: float
    duration: float
    bw_mbps: float
    delay_ms: float
    limit: int
    quick: bool = False

    @property
    def measured_from(self) -> float:
        return (self.n - 1) * self.gap + 1.0


XCP_CASES = [
    XcpCase("3 flows, 20 Mb/s, RTT 44 ms", 3, 5.0, 16.0, 20, 20, 100, quick=True),
    XcpCase("4 flows, 100 Mb/s, RTT 44 ms", 4, 5.0, 21.0, 100, 20, 500),
    XcpCase("4 flows, 20 Mb/s, RTT 204 ms", 4, 8.0, 33.0, 20, 100, 500),
]

#: Known causes of differences past the tolerances, by (case name, metric).
CAUSES: dict[tuple[str, str], str] = {
    ("4 flows, 20 Mb/s, RTT 204 ms", "convergence 2"): (
        "the index crosses 0.95 at a shallow slope, so a small difference in the flows' paths moves the crossing by a "
        "second: ns-2's XCP takes its RTT in 10 ms ticks (`tcpTick_`); with `tcpTick_ 0.001` ns-2 gives 3.0, 3.2 and "
        "4.3 s over seeds 1-3"
    ),
}


def jain(xs: list[float]) -> float:
    s, q = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q > 0 else 1.0


def convergence_times(series: dict[int, list[tuple[float, float]]], joins: list[float], end: float) -> list[float]:
    """Per join after the first: seconds from the join until Jain's index of the active flows'
    throughputs over WINDOW reaches JAIN_CONVERGED and stays there until the next join.
    `series[flow]` is (time, cumulative delivered bytes) samples."""
    out = []
    for j in range(1, len(joins)):
        t0, t1 = joins[j], joins[j + 1] if j + 1 < len(joins) else end
        active = [f for f in series if f <= j]
        t, converged_at = t0 + WINDOW, None
        while t <= t1 + 1e-9:
            rates = [delivered(series[f], t) - delivered(series[f], t - WINDOW) for f in active]
            if jain(rates) >= JAIN_CONVERGED:
                converged_at = t if converged_at is None else converged_at
            else:
                converged_at = None
            t += 0.1
        out.append((converged_at - t0) if converged_at is not None else float("inf"))
    return out


def delivered(samples: list[tuple[float, float]], t: float) -> float:
    """Cumulative bytes at time t (the last sample at or before t)."""
    best = 0.0
    for ts, b in samples:
        if ts <= t + 1e-6:
            best = b
        else:
            break
    return best


# ---- ns-2 -----------------------------------------------------------------------------------


def run_ns2(case: XcpCase, seed: int) -> dict:
    cmd = ["ns", str(NS2_SCRIPT)] + [str(x) for x in (case.n, case.gap, case.duration, seed, case.bw_mbps, case.delay_ms, case.limit)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {res.stderr.strip()[-500:]}")
    kv, series = {}, {}
    for line in res.stdout.splitlines():
        if line.startswith("tput "):
            _, f, t, b = line.split()
            series.setdefault(int(f), []).append((float(t), float(b)))
        else:
            k, sep, v = line.partition("=")
            if sep:
                kv[k.strip()] = float(v)
    span = case.duration - case.measured_from
    joins = [i * case.gap for i in range(case.n)]
    return {
        "utilisation": kv["departures"] * WIRE * 8 / (case.bw_mbps * 1e6 * span),
        "mean_queue": kv["mean_len_packets"],
        "drops": kv["drops"],
        "convergence": convergence_times(series, joins, case.duration),
    }


# ---- ccsim ----------------------------------------------------------------------------------


def xcp_scenario(case: XcpCase, variant: str = "xcp", discipline: str = "xcp", delays_ms: list[float] | None = None) -> dict:
    """The dumbbell of validation/ns2/xcp.tcl: S_i -1 Gb/s, 1 ms- R1 -bottleneck- R2 -1 Gb/s,
    1 ms- D_i, flow i from S_i to D_i starting at i * gap (access delays `delays_ms` instead
    of 1 ms when given)."""
    n = case.n
    delays = delays_ms or [1.0] * n
    links = [
        {
            "between": ["R1", "R2"],
            "rate": f"{case.bw_mbps}Mbps",
            "delay": f"{case.delay_ms}ms",
            "queue": {"discipline": discipline, "limit": case.limit},
        },
    ]
    for i in range(n):
        links.append({"between": [f"S{i}", "R1"], "rate": "1Gbps", "delay": f"{delays[i]}ms", "queue": {"limit": 10000}})
        links.append({"between": ["R2", f"D{i}"], "rate": "1Gbps", "delay": f"{delays[i]}ms", "queue": {"limit": 10000}})
    flows = [
        {
            "name": f"f{i}",
            "from": f"S{i}",
            "to": f"D{i}",
            "start": f"{i * case.gap}s",
            "tcp": {"variant": variant, "mss": PAYLOAD, "rwnd": 100_000_000},
        }
        for i in range(n)
    ]
    series = [{"kind": "goodput", "flow": f"f{i}", "interval": "100ms"} for i in range(n)]
    return {
        "name": "xcp-dumbbell",
        "profile": "ns2",
        "duration": f"{case.duration}s",
        "hosts": [f"S{i}" for i in range(n)] + [f"D{i}" for i in range(n)],
        "routers": ["R1", "R2"],
        "links": links,
        "flows": flows,
        "series": series,
    }


def run_ccsim(scenario: dict, case: XcpCase, seed: int) -> dict:
    import ccsim

    r = ccsim.run(scenario, overrides=[f"warmup={case.measured_from:g}s"], seed=seed, progress=False)
    s = r.summary
    q = next(q for q in s["queues"] if q["link"] == "R1->R2")
    span = s["measured_s"]
    series = {}
    for i in range(case.n):
        pts = flow_goodput(r, f"f{i}[0]")
        cum, out = 0.0, []
        for t, bps in pts:
            cum += bps * 0.1 / 8
            out.append((t, cum))
        series[i] = out
    flows = [f for f in s["flows"] if f["transport"] == "tcp"]
    return {
        "utilisation": q["departures"] * WIRE * 8 / (case.bw_mbps * 1e6 * span) if "departures" in q else q["utilization"],
        "mean_queue": q["mean_len_packets"],
        "drops": q["drops"],
        "convergence": convergence_times(series, [i * case.gap for i in range(case.n)], case.duration),
        "goodputs": [f["delivered_bytes"] * 8 / span for f in flows],
    }


def flow_goodput(result, flow: str) -> list[tuple[float, float]]:
    """(time at the end of each 100 ms interval, bit/s) of a flow's goodput series."""
    for s in result.summary.get("series", []):
        if "goodput" in s["name"] and flow in s["name"]:
            return [(t, v or 0.0) for t, v in zip(s["t"], s["value"])]
    raise KeyError(f"no goodput series of {flow}")


# ---- comparison -----------------------------------------------------------------------------


def within(metric: str, ours: float, ref: float) -> bool:
    if metric == "drops":
        return ours == ref or abs(ours - ref) <= max(2.0, 0.2 * ref)
    if metric == "convergence":
        return abs(ours - ref) <= max(TOLERANCE[metric] * ref, WINDOW)
    return abs(ours - ref) <= TOLERANCE[metric] * abs(ref) if ref else abs(ours) < 1e-9


def fmt(x: float) -> str:
    if isinstance(x, float) and math.isinf(x):
        return "never"
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"


def xcp_rows(cases: list[XcpCase], seeds: int) -> tuple[list[str], bool]:
    """ccsim (whose runs here draw no random numbers) against the mean of ns-2.35 over
    `seeds` seeds (its XCP queue draws the first expiry of its timers at random), with ns-2's
    range over the seeds."""
    rows, ok = [], True
    for c in cases:
        runs = [run_ns2(c, seed) for seed in range(1, seeds + 1)]
        ours = run_ccsim(xcp_scenario(c), c, 1)
        metrics = [(m, m.replace("_", " "), ours[m], [r[m] for r in runs]) for m in ("utilisation", "mean_queue", "drops")]
        for j, a in enumerate(ours["convergence"]):
            metrics.append((f"convergence {j + 1}", f"convergence after join {j + 1} (s)", a, [r["convergence"][j] for r in runs]))
        for key, label, a, refs in metrics:
            b = sum(refs) / len(refs)
            good = within(key.split(" ")[0], a, b)
            cause = CAUSES.get((c.name, key), "")
            ok &= good or bool(cause)
            ref = f"{fmt(b)} ({fmt(min(refs))}-{fmt(max(refs))})" if len(refs) > 1 else fmt(b)
            rows.append(f"| XCP, {c.name} | {label} | {fmt(a)} | {ref} | {'yes' if good else 'no'} | {cause} |")
    return rows, ok


def physics_rows(quick: bool, seed: int) -> tuple[list[str], bool]:
    """XCP and RCP on unequal RTTs: utilisation, queue, fairness."""
    rows, ok = [], True
    delays = [1.0, 6.0, 16.0, 36.0] if not quick else [1.0, 16.0]
    n = len(delays)
    case = XcpCase("unequal RTTs", n, 0.0, 10.0 if quick else 30.0, 20, 8, 200)
    case_from = 3.0
    for variant in ("xcp", "rcp"):
        scen = xcp_scenario(case, variant, variant, delays)
        import ccsim

        r = ccsim.run(scen, overrides=[f"warmup={case_from:g}s"], seed=seed, progress=False).summary
        q = next(q for q in r["queues"] if q["link"] == "R1->R2")
        span = r["measured_s"]
        flows = [f for f in r["flows"] if f["transport"] == "tcp"]
        goodputs = [f["delivered_bytes"] * 8 / span for f in flows]
        util = q["departures"] * WIRE * 8 / (case.bw_mbps * 1e6 * span)
        rtts = [2 * (case.delay_ms + 2 * d) for d in delays]
        bdp = case.bw_mbps * 1e6 * min(rtts) / 1e3 / 8 / WIRE
        j = jain(goodputs)
        checks = [
            ("utilisation", util, util >= 0.95, ">= 0.95"),
            (
                "mean queue (packets)",
                q["mean_len_packets"],
                q["mean_len_packets"] <= 0.1 * bdp,
                f"<= {0.1 * bdp:.1f} (10 % of the shortest RTT's BDP)",
            ),
            ("Jain's index", j, j >= 0.95, ">= 0.95"),
        ]
        for name, v, good, claim in checks:
            ok &= good
            rtt_s = ", ".join(f"{x:g}" for x in rtts)
            rows.append(f"| {variant.upper()}, RTTs {rtt_s} ms | {name} | {fmt(v)} | {claim} | {'yes' if good else 'no'} | |")
    return rows, ok


def fct_rows(quick: bool, seed: int) -> tuple[list[str], bool]:
    """RCP's flow completion times against processor sharing's, Pareto sizes, Poisson arrivals;
    the same workload through XCP and through NewReno over tail drop beside it (no verdict)."""
    import ccsim

    rng = random.Random(seed)
    bw, delay, load = 20e6, 10.0, 0.6
    mean_pkts, shape = 30.0, 1.2
    scale = mean_pkts * (shape - 1) / shape
    n = 60 if quick else 400
    rate = load * bw / 8 / (mean_pkts * PAYLOAD)  # flows per second
    t, flows = 0.5, []
    for i in range(n):
        t += rng.expovariate(rate)
        pkts = max(1, round(scale / (1.0 - rng.random()) ** (1.0 / shape)))
        flows.append((f"p{i}", t, min(pkts, 5000)))
    rtt = 2 * (delay + 2 * 1.0) / 1e3
    rows, ok = [], True
    for variant, discipline in (("rcp", "rcp"), ("xcp", "xcp"), ("newreno", "droptail")):
        scen = {
            "name": "fct",
            "duration": f"{t + 30:.1f}s",
            "hosts": ["S", "D"],
            "routers": ["R1", "R2"],
            "links": [
                {"between": ["R1", "R2"], "rate": "20Mbps", "delay": f"{delay}ms", "queue": {"discipline": discipline, "limit": 1000}},
                {"between": ["S", "R1"], "rate": "1Gbps", "delay": "1ms", "queue": {"limit": 100000}},
                {"between": ["R2", "D"], "rate": "1Gbps", "delay": "1ms", "queue": {"limit": 100000}},
            ],
            "flows": [
                {
                    "name": name,
                    "from": "S",
                    "to": "D",
                    "app": "finite",
                    "bytes": pkts * PAYLOAD,
                    "start": f"{start:.6f}s",
                    "tcp": {"variant": variant, "mss": PAYLOAD, "rwnd": 100_000_000},
                }
                for name, start, pkts in flows
            ],
        }
        s = ccsim.run(scen, seed=seed, progress=False).summary
        ratios, unfinished = [], 0
        by_name = {f["group"]: f for f in s["flows"]}
        for name, _, pkts in flows:
            f = by_name[name]
            done = f.get("completion_time_s")
            if done is None:
                unfinished += 1
                continue
            if pkts > 10:
                ideal = rtt + pkts * WIRE * 8 / (bw * (1 - load))
                ratios.append((done - f["start_s"]) / ideal)
        mean_ratio = sum(ratios) / len(ratios) if ratios else float("inf")
        case = f"{variant.upper() if variant != 'newreno' else 'NewReno, tail drop'}, {n} Pareto flows (mean {mean_pkts:g} packets, shape {shape}), load {load}"
        metric = "mean FCT / FCT_PS, flows > 10 packets"
        if variant == "rcp":
            good = mean_ratio <= 2.0 and unfinished == 0
            ok &= good
            rows.append(
                f"| {case} | {metric} | {fmt(mean_ratio)} | <= 2, every flow done ({unfinished} not) | {'yes' if good else 'no'} | |"
            )
        else:
            rows.append(f"| {case} | {metric} | {fmt(mean_ratio)} | (for comparison; {unfinished} not done) | | |")
    return rows, ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="the short subset")
    ap.add_argument("--seed", type=int, default=1, help="the seed of ccsim's runs and of RCP's workload")
    ap.add_argument("--out", type=Path, help="write the table here (default: print it)")
    a = ap.parse_args(argv)
    header = ["| case | metric | ccsim | ns-2.35 / claim | within | cause of the difference |", "|---|---|---|---|---|---|"]
    rows, ok = [], True
    if shutil.which("ns"):
        cases = [c for c in XCP_CASES if c.quick or not a.quick]
        r, good = xcp_rows(cases, 2 if a.quick else 5)
        rows += r
        ok &= good
    else:
        print("ns (ns-2.35) not found: the XCP rows against ns-2 are skipped", file=sys.stderr)
    for fn in (physics_rows, fct_rows):
        r, good = fn(a.quick, a.seed)
        rows += r
        ok &= good
    text = "\n".join(header + rows) + "\n"
    if a.out:
        a.out.write_text(text)
    print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
