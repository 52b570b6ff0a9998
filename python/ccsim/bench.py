"""The DUMBBELL-N speed benchmark (benchmarks/README.md) as a ccsim scenario.

N TCP NewReno bulk flows S_i -> D_i across R1 -> R2; access links 1 Gb/s, 1 ms; bottleneck
100 Mb/s, 20 ms with RED (min_th 30, max_th 90, max_p 0.1, w_q 0.002, limit 200 packets);
1000-byte segments; starts uniform in [0, 1] s; an initial window of 1 segment; a 1 ms TCP
clock. With `ns2_behaviour` (the default) the scenario runs under `profile = "ns2"`
(docs/profiles.md: ns-2.35's TCP timers and RED, including how RED labels drops early or
forced), with RED's `wait` spacing between drops, so that the simulators simulate the same
thing; without it, under the RFCs' defaults. NewReno keeps its default timer rule under
both: restarted on the first partial ACK of a recovery only, as ns-2.35's
`Agent/TCP/Newreno` does with its default `newreno_changes1_ 1` (`partialnewack_helper()` in
tcp/tcp-newreno.cc), so that a window that lost many segments in slow start ends in a
timeout and goes back N instead of repairing one hole per round trip.

Its report keeps no queue distributions (`report.queue_distributions = false`, the
sojourn percentiles and time at each length of docs/results-schema.md): the benchmark prints
none of them, and a run that keeps them pays for them at every packet that waits.

`bottleneck_mbps` (a multiple of 100) makes the bottleneck k = bottleneck_mbps / 100 times
faster with a buffer to match: RED's limit and thresholds k times larger and its weight k
times smaller, so that the queue holds the same time's worth of packets and its average has
the same time constant (DUMBBELL-100000 runs at 10 Gb/s)."""

from __future__ import annotations

import time

from . import _core


def dumbbell(n: int, sim_time: float = 60.0, seed: int = 1, ns2_behaviour: bool = True, bottleneck_mbps: int = 100) -> dict:
    if bottleneck_mbps < 100 or bottleneck_mbps % 100:
        raise ValueError(f"the bottleneck is a multiple of 100 Mb/s, not {bottleneck_mbps}")
    k = bottleneck_mbps // 100
    red = {
        "discipline": "red",
        "limit": 200 * k,
        "min_th": 30 * k,
        "max_th": 90 * k,
        "max_p": 0.1,
        "w_q": 0.002 / k,
        "byte_mode": False,
        "mean_packet_size": 1040,
        "wait": ns2_behaviour,
        "gentle": False,
    }
    tcp = {
        "variant": "newreno",
        "mss": 1000,
        "rwnd": 1 << 30,
        "init_cwnd": 1,
        # ns2/dumbbell.tcl's `tcpTick_ 0.001` (the ns2 profile has ns-2's default, 10 ms).
        "clock_granularity": "1ms",
    }
    big = {"limit": 10000}
    return {
        "name": f"dumbbell-{n}",
        "profile": "ns2" if ns2_behaviour else "rfc",
        "duration": f"{sim_time:g}s",
        "seed": seed,
        "hosts": [f"S{{1..{n}}}", f"D{{1..{n}}}"],
        "routers": ["R1", "R2"],
        "links": [
            {"between": [f"S{{1..{n}}}", "R1"], "rate": "1Gbps", "delay": "1ms", "queue": big},
            {"between": ["R1", "R2"], "rate": f"{bottleneck_mbps}Mbps", "delay": "20ms", "queue": red, "queue_reverse": big},
            {"between": ["R2", f"D{{1..{n}}}"], "rate": "1Gbps", "delay": "1ms", "queue": big},
        ],
        "flows": [{"name": "bulk", "from": f"S{{1..{n}}}", "to": f"D{{1..{n}}}", "start": {"uniform": ["0s", "1s"]}, "tcp": tcp}],
        # The benchmark prints no sojourn percentiles or length distributions.
        "report": {"queue_distributions": False},
    }


def timed_run(scenario: dict, name: str) -> tuple[dict, float, float]:
    """Builds and runs a DUMBBELL-shaped scenario; returns the totals and the bottleneck's
    (R1->R2) row of its report, and the seconds the set-up and the run took."""
    import json

    from ._scenario import to_toml

    text = to_toml(scenario)
    t0 = time.perf_counter()
    sim = _core.Simulation(text, name, [], None)
    t1 = time.perf_counter()
    sim.run_until(float("inf"))
    t2 = time.perf_counter()
    # The totals and the bottleneck's row only: the whole report of DUMBBELL-100000 would
    # be hundreds of megabytes of JSON.
    return json.loads(sim.summary_json(["R1->R2"])), t1 - t0, t2 - t1


def run_dumbbell(n: int, sim_time: float = 60.0, seed: int = 1, ns2_behaviour: bool = True, bottleneck_mbps: int = 100) -> dict:
    """Builds and runs DUMBBELL-N; returns the benchmark's key=value totals plus timings."""
    report, setup, run = timed_run(dumbbell(n, sim_time, seed, ns2_behaviour, bottleneck_mbps), f"dumbbell-{n}")
    (q,) = report["queues"]
    delivered = report["totals"]["delivered_bytes"]
    return {
        "simulator": "ccsim",
        "n_flows": n,
        "bottleneck_mbps": bottleneck_mbps,
        "sim_time_s": report["duration_s"],
        "delivered_packets": delivered // 1000,
        "goodput_bps": delivered * 8 / report["duration_s"],
        "bottleneck_drops": q["drops"],
        "bottleneck_early_drops": q["drops_early"],
        "bottleneck_forced_drops": q["drops_forced"] + q["drops_overflow"],
        "mean_queue_packets": round(q["mean_len_packets"], 2),
        "setup_s": round(setup, 4),
        "run_s": round(run, 4),
        "events_processed": report["events_processed"],
        "events_per_second": round(report["events_processed"] / max(run, 1e-9)),
    }
