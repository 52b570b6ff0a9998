"""ACC live: "Experience with Active Congestion Control" (Faber), Section 4.3.1, Figs. 8 and 9.

The Fig. 8 topology on real sockets (`ccsim live`): two endpoints E1 and E2 send bulk RDP
data as fast as they can, each through an intermediate node (I1, I2), to a converging node
C, whose link to the receiver D is the bottleneck; C runs the delay flakeway and the ACC
monitor, and the filters go to I1 and I2. Repeated runs per added delay, with and without
ACC, paired by replication: the sum of the two endpoints' throughputs against the RTT with
mean ± sd (Fig. 9), the endpoints' throughputs, the filters set and controls sent per run
(that ACC was exercised), the CPU time per forwarded packet at each node with ACC on and
off, and a verdict on the paper's claim that ACC's overhead is very small across a range of
bandwidth-delay products. Beside it, each run's simulated twin (`ccsim live twin`: the same
plan, the flakeway's delay before C's queue): predicted against measured throughput and
drops per delay."""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path

from . import verdicts as v
from .acc import CITATION, SECTION
from .common import Options, num
from .report import Claim, Report

TITLE = "ACC live: the ASP implementation's overhead experiment (Faber), Section 4.3.1, Figs. 8-9"

DELAYS = [0, 10, 30, 100, 300, 1000]  # ms, added by C's flakeway to the data direction
QUICK_DELAYS = [0, 100, 400]
REPS, QUICK_REPS = 10, 2
DURATION, QUICK_DURATION = 30.0, 10.0
#: Quick runs measure after the start-up transient (slow start), from this time.
WARMUP, QUICK_WARMUP = 0.0, 4.0
#: The protection experiment: delays, and the unresponsive source's rate.
PROTECT_DELAYS, QUICK_PROTECT_DELAYS = [0, 100, 300], [100]
CBR_RATE = "2Mbps"
#: Relative goodput loss of the well-behaved flow with ACC against without (paired mean)
#: above which ACC does not protect it.
PROTECT_TOLERANCE = 0.05
BOTTLENECK = "C->D"
BOTTLENECK_RATE = "10Mbps"
EDGE_RATE = "100Mbps"
LINK_DELAY_MS = 1.0
LIMIT = 50
ROUTERS = ["I1", "I2", "C"]
#: The receiver's maximum outstanding segments: above the largest bandwidth-delay product
#: (10 Mb/s x 1 s = 1250 packets), so that it never limits the window.
MAX_OUTSTANDING = 4096
#: Each endpoint opens its connection at a time drawn from this (the seed varies it between
#: replications, in the simulated twin as in the live runs).
START = {"uniform": ["0s", "100ms"]}
#: Relative throughput loss with ACC, paired mean, above which the overhead is not "very small".
THROUGHPUT_TOLERANCE = 0.05
#: CPU per forwarded packet with ACC over without, at any router, above which it is not either.
CPU_TOLERANCE = 1.25
#: Relative difference of the mean throughputs with and without ACC within which Fig. 9's two
#: curves are taken to coincide.
COINCIDE_TOLERANCE = 0.10
#: How close the simulated twin should come to the live runs: goodput, drops at C.
TWIN_GOODPUT, TWIN_DROPS = 0.10, 0.30

ASSUMED = [
    ("topology", "E1 - I1 - C, E2 - I2 - C, C - D; the paper's Fig. 8 shows the endpoints, the intermediate nodes and the converging node"),
    (
        "links",
        f"{EDGE_RATE} and {LINK_DELAY_MS:g} ms everywhere except C -> D, the bottleneck: {BOTTLENECK_RATE}, {LINK_DELAY_MS:g} ms (the paper's machines were on switched 100 Mb/s Ethernet, the bottleneck its Java forwarding)",
    ),
    (
        "congestion threshold",
        f"{LIMIT} packets at C -> D (the paper sets a threshold at start without giving it); drop-tail, as the paper's socket",
    ),
    (
        "flakeway",
        "C delays every RDP segment toward D by the added delay (the data direction; with the UDP source, every datagram toward D); the paper's flakeway adds its processing overhead too, ours adds none measurable",
    ),
    (
        "RDP",
        "1000-byte payloads, packet-counted Reno with fast retransmit, ACC state in every data segment; receiver's max. outstanding segments large enough never to limit",
    ),
    (
        "runs",
        "10 runs of 30 s per delay and mode (quick: 2 of 10 s, 3 delays, measured after a 4 s warm-up: slow start is not measured), ACC on and off paired by replication; throughput is the goodput at D over the whole run (quick: after the warm-up)",
    ),
    (
        "protection",
        f"not an experiment of the paper's: E2 ignores ACC's controls and sends a {CBR_RATE} UDP source beside (delays 0, 100, 300 ms; quick: 100 ms); "
        f"ACC protects E1 if its paired mean goodput with ACC is at most {100 * PROTECT_TOLERANCE:g}% below without",
    ),
    (
        "overhead verdict",
        f"holds if, at every delay, the paired mean throughput with ACC is at most {100 * THROUGHPUT_TOLERANCE:g}% below without, and the CPU per forwarded packet with ACC is at most {CPU_TOLERANCE:g}x without at every router",
    ),
]


def topology(d_ms: float = 0.0, acc: bool = True, duration: float = DURATION, misbehaving: bool = False, warmup: float = 0.0) -> dict:
    """The Fig. 8 scenario with C's flakeway adding `d_ms`; `scenarios/acc_live.toml` is
    `topology(100, True, 30)`, `scenarios/acc_live_misbehaving.toml` is
    `topology(100, True, 30, misbehaving=True)`. With `misbehaving`, E2's sender ignores
    ACC's controls (`obey_acc = false`, while it carries its state as the others do) and E2
    also sends an unresponsive constant-rate UDP source `cbr` to D."""
    edge = {"rate": EDGE_RATE, "delay": f"{LINK_DELAY_MS:g}ms"}
    doc = {
        "name": "acc-live",
        "duration": f"{duration:g}s",
        "seed": 1,
        "hosts": ["E1", "E2", "D"],
        "routers": ROUTERS,
        "links": [
            dict(between=["E1", "I1"], **edge),
            dict(between=["E2", "I2"], **edge),
            dict(between=["I1", "C"], **edge),
            dict(between=["I2", "C"], **edge),
            {"from": "C", "to": "D", "rate": BOTTLENECK_RATE, "delay": f"{LINK_DELAY_MS:g}ms", "queue": {"limit": LIMIT, "acc": acc}},
            {"from": "D", "to": "C", **edge},
        ],
        "flows": [
            {
                "name": name,
                "from": src,
                "to": "D",
                "start": START,
                "transport": "rdp",
                "rdp": {"acc": acc, "max_outstanding": MAX_OUTSTANDING},
            }
            for name, src in (("e1", "E1"), ("e2", "E2"))
        ],
        "live": {"flakeway": [{"node": "C", "delay": f"{d_ms:g}ms", "matches": "rdp", "to": "D"}]},
    }
    if warmup > 0:
        doc["warmup"] = f"{warmup:g}s"
    if misbehaving:
        doc["name"] = "acc-live-misbehaving"
        if acc:
            doc["flows"][1]["rdp"]["obey_acc"] = False
        doc["flows"].append({"name": "cbr", "from": "E2", "to": "D", "start": START, "transport": "udp", "udp": {"rate": CBR_RATE}})
        # The UDP source's datagrams take the same delay to D (the twin then holds exactly).
        doc["live"]["flakeway"][0]["matches"] = "all"
    return doc


def base_rtt_ms(d_ms: float) -> float:
    """Propagation (three links each way), the added delay, and one 1000-byte packet's
    serialization on every link both ways (data 1046 bytes on the wire, ACKs ~60)."""
    edge_bps, neck_bps = 100e6, 10e6
    data = 1046 * 8 * (2 / edge_bps + 1 / neck_bps)
    ack = 60 * 8 * 3 / edge_bps
    return 6 * LINK_DELAY_MS + d_ms + 1e3 * (data + ack)


def _toml(doc: dict) -> str:
    import tomli_w

    return tomli_w.dumps(doc)


def scenario(d_ms: float, acc: bool, rep: int, duration: float, warmup: float, misbehaving: bool = False) -> dict:
    """Replication `rep` (seed rep + 1) of the scenario, as run live and simulated."""
    doc = topology(d_ms, acc, duration, misbehaving, warmup)
    doc["seed"] = rep + 1
    return doc


def load_average() -> float:
    """The one-minute load average (the machine is shared: every number beside it)."""
    import os

    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def cpu_times() -> dict[int, tuple[int, int]]:
    """Busy and total jiffies per CPU, from /proc/stat (empty where it cannot be read)."""
    out = {}
    try:
        for line in Path("/proc/stat").read_text().splitlines():
            name, *fields = line.split()
            if name.startswith("cpu") and name[3:].isdigit():
                ticks = [int(x) for x in fields]
                idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
                out[int(name[3:])] = (sum(ticks) - idle, sum(ticks))
    except (OSError, ValueError, IndexError):
        return {}
    return out


def cpu_busy(before: dict, after: dict) -> dict[str, float]:
    """Each CPU's busy fraction between two `cpu_times` readings."""
    out = {}
    for cpu, (busy, total) in after.items():
        if cpu in before and total > before[cpu][1]:
            out[str(cpu)] = (busy - before[cpu][0]) / (total - before[cpu][1])
    return out


def live_run(d_ms: float, acc: bool, rep: int, duration: float, cache: Path, warmup: float = 0.0, misbehaving: bool = False) -> dict:
    """One live run (cached in `cache`, a JSON-lines file, by delay, mode, replication,
    length, warm-up and scenario); returns its metrics, with the load average before and
    after it."""
    from .. import live

    key = f"{d_ms:g}/{'acc' if acc else 'plain'}/{rep}/{duration:g}/{warmup:g}" + ("/misbehaving" if misbehaving else "")
    if cache.exists():
        for line in cache.read_text().splitlines():
            row = json.loads(line)
            if row["key"] == key:
                return row
    load_before = load_average()
    ticks = cpu_times()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "acc_live.toml"
        path.write_text(_toml(scenario(d_ms, acc, rep, duration, warmup, misbehaving)))
        s = live.run(path)
    row = {
        "key": key,
        **metrics(s),
        "load_before": load_before,
        "load_after": load_average(),
        "cpus": sorted(os.sched_getaffinity(0)),
        "cpu_busy": cpu_busy(ticks, cpu_times()),
    }
    with cache.open("a") as f:
        f.write(json.dumps(row) + "\n")
    return row


def cpus_fact(rows: list[dict]) -> str:
    """Which CPUs the live nodes ran on, and how busy each CPU was during the runs."""
    rows = [r for r in rows if r.get("cpu_busy")]
    if not rows:
        return "CPUs of the live runs: not recorded."
    allowed = sorted({c for r in rows for c in r.get("cpus", [])})
    cpus = sorted({c for r in rows for c in r["cpu_busy"]}, key=int)
    busy = []
    for c in cpus:
        xs = [r["cpu_busy"][c] for r in rows if c in r["cpu_busy"]]
        busy.append(f"CPU {c} {100 * min(xs):.0f}-{100 * max(xs):.0f}% (mean {100 * sum(xs) / len(xs):.0f}%)")
    return (
        f"The live nodes were allowed CPU(s) {', '.join(map(str, allowed))}. Busy time per CPU during the runs, "
        f"the live nodes' own included: {'; '.join(busy)}."
    )


def metrics(s: dict) -> dict:
    """What the experiment keeps of a live run's summary."""
    flows = {f["group"]: f for f in s["flows"]}
    nodes = {n["name"]: n for n in s["nodes"]}
    neck = next(q for q in s["queues"] if q["link"] == BOTTLENECK)
    kbps = {g: flows[g].get("goodput_bps", 0.0) / 1e3 for g in flows}
    return {
        "e1_kbps": kbps["e1"],
        "e2_kbps": kbps["e2"],
        "cbr_kbps": kbps.get("cbr", 0.0),
        "sum_kbps": kbps["e1"] + kbps["e2"],
        "filters_set": s["acc"].get("filters_set", 0),
        "packets_filtered": s["acc"].get("packets_filtered", 0),
        "controls_sent": s["acc"].get("controls_sent", 0),
        "controls_received": s["acc"].get("controls_received", 0),
        "controls_obeyed": s["totals"].get("controls_obeyed", 0),
        "drops": neck["drops_in_window"],
        "mean_queue": neck.get("mean_queue", 0.0),
        "utilization": neck["utilization"],
        "shaper_error": neck["shaper_error"],
        "cpu_us": {r: nodes[r]["cpu_per_forwarded_us"] for r in ROUTERS},
        "forwarded": {r: nodes[r]["forwarded"] for r in ROUTERS},
        "retransmissions": sum(f.get("retransmissions", 0) for f in s["flows"]),
        "timeouts": sum(f.get("timeouts", 0) for f in s["flows"]),
        "wall_s": s["wall_time_s"],
    }


def sim_run(d_ms: float, acc: bool, rep: int, duration: float, warmup: float = 0.0, misbehaving: bool = False) -> dict:
    """The simulated twin of live run `rep` (`ccsim live twin`: the same plan and seed,
    the flakeway's delay before C's queue); its metrics."""
    from .. import live

    return metrics(live.twin_text(_toml(scenario(d_ms, acc, rep, duration, warmup, misbehaving)), "acc_live.toml"))


def machine() -> str:
    """The processor, its cores and the kernel, for the report."""
    import os
    import platform

    model = platform.processor() or "unknown processor"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def mean_sd(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    if n == 0:
        return float("nan"), float("nan")
    m = sum(xs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)) if n > 1 else float("nan")
    return m, sd


def msd(xs: list[float], digits: int = 3) -> str:
    m, sd = mean_sd(xs)
    return num(m, digits) if sd != sd else f"{num(m, digits)} ± {num(sd, 2)}"


def reproduce(opt: Options) -> Report:
    delays = QUICK_DELAYS if opt.quick else DELAYS
    reps = QUICK_REPS if opt.quick else REPS
    duration = QUICK_DURATION if opt.quick else DURATION
    warmup = QUICK_WARMUP if opt.quick else WARMUP
    protect_delays = QUICK_PROTECT_DELAYS if opt.quick else PROTECT_DELAYS
    opt.out.mkdir(parents=True, exist_ok=True)
    cache = opt.out / "runs.jsonl"
    runs: dict[tuple[float, bool], list[dict]] = {}
    bad: dict[tuple[float, bool], list[dict]] = {}
    for d in delays:
        for r in range(reps):
            for acc in (True, False):  # paired: the same replication with and without
                runs.setdefault((d, acc), []).append(live_run(d, acc, r, duration, cache, warmup))
    for d in protect_delays:
        for r in range(reps):
            for acc in (True, False):
                bad.setdefault((d, acc), []).append(live_run(d, acc, r, duration, cache, warmup, misbehaving=True))
    sim = {(d, acc): [sim_run(d, acc, r, duration, warmup) for r in range(reps)] for d in delays for acc in (True, False)}
    bad_sim = {(d, acc): [sim_run(d, acc, r, duration, warmup, True) for r in range(reps)] for d in protect_delays for acc in (True, False)}

    rep = Report("acc-live", TITLE, opt.out, citation=CITATION, profile="rfc", quick=opt.quick, view=False)
    loads = [x for k in (runs, bad) for rs in k.values() for r in rs for x in (r.get("load_before"), r.get("load_after")) if x is not None]
    rep.facts = [
        'Live runs on real UDP sockets of this machine; the simulated twin (`transport = "rdp"`) runs under the rfc profile '
        "(the paper's implementation ran real processes, not ns-2).",
        f"{'Quick' if opt.quick else 'Full'} mode: {reps} runs of {duration:g} s per delay and mode"
        + (f", measured after a {warmup:g} s warm-up" if warmup else "")
        + "."
        + (f" {v.FEW} marks a number from too few runs to decide." if reps < v.MIN_RUNS else ""),
        "Load average (1 min) around the live runs: "
        + (f"{min(loads):.2f} to {max(loads):.2f}, mean {sum(loads) / len(loads):.2f}" if loads else "not recorded")
        + f" on {os.cpu_count()} cores (other processes share the machine; see runs.jsonl, load_before and load_after).",
        cpus_fact([r for k in (runs, bad) for rs in k.values() for r in rs]),
    ]
    window = f"from the end of a {warmup:g} s warm-up to the end" if warmup else "over the whole run"
    rep.text(
        f"Live runs on this machine (`ccsim live`): every node a process on 127.0.0.1, links emulated at each node's "
        f"egress. Added delay d in {{{', '.join(f'{d:g}' for d in delays)}}} ms at C's flakeway, {reps} runs of "
        f"{duration:g} s per delay with ACC and {reps} without, run alternately and paired by replication. Throughput "
        f"is RDP goodput at D (payload delivered in order), {window}. RTT is the base round trip "
        f"(propagation, the added delay and serialization), as the paper plots against the delay it adds. "
        f"Error bars: ± one standard deviation over the runs, as in the paper."
    )
    rep.text(f"Machine: {machine()}.")
    fig9(rep, runs, sim, delays)
    endpoints(rep, runs, delays)
    exercised(rep, runs, delays)
    cpu(rep, runs, delays)
    twin(rep, runs, sim, delays)
    protection(rep, bad, bad_sim, protect_delays)
    verdict(rep, runs, delays, bad, protect_delays)
    rep.assumptions(ASSUMED, SECTION)
    summary = {
        f"{d:g}": {
            mode: {
                k: mean_sd([r[k] for r in runs[(d, acc)]])[0] for k in ("sum_kbps", "e1_kbps", "e2_kbps", "filters_set", "controls_sent")
            }
            | {
                "sim_sum_kbps": mean_sd([r["sum_kbps"] for r in sim[(d, acc)]])[0],
                "cpu_us": {x: mean_sd([r["cpu_us"][x] for r in runs[(d, acc)]])[0] for x in ROUTERS},
            }
            for mode, acc in (("acc", True), ("plain", False))
        }
        for d in delays
    }
    (opt.out / "summary.json").write_text(json.dumps(summary, indent=2))
    rep.write()
    return rep


def fig9(rep: Report, runs, sim, delays) -> None:
    from ..plot import FigureSpec, Panel, Series

    rep.heading("Fig. 9: throughput against RTT")
    rtts = [base_rtt_ms(d) for d in delays]
    series = []
    for acc, label, color in ((True, "ACC, simulated", "C0"), (False, "no ACC, simulated", "C1")):
        series.append(
            Series(label, rtts, [mean_sd([r["sum_kbps"] for r in sim[(d, acc)]])[0] for d in delays], kind="plain", color=color, width=1.0)
        )
    for acc, label, color in ((True, "ACC, live", "C0"), (False, "no ACC, live", "C1")):
        stats = [mean_sd([r["sum_kbps"] for r in runs[(d, acc)]]) for d in delays]
        series.append(
            Series(
                label,
                rtts,
                [m for m, _ in stats],
                err=[0.0 if sd != sd else sd for _, sd in stats],
                runs=[[r["sum_kbps"] for r in runs[(d, acc)]] for d in delays],
                color=color,
            )
        )
    panel = Panel(series, xlabel="RTT (ms)", ylabel="E1 + E2 throughput (kb/s)", logx=True, bounds=(0.0, None))
    rep.figure(
        FigureSpec([panel], width=6.4, height=4.2),
        "fig9_throughput_vs_rtt",
        "Sum of the two endpoints' throughputs against RTT, live runs mean ± sd (the paper's Fig. 9), and the simulated twin",
    )
    rows = [
        [f"{d:g}", f"{base_rtt_ms(d):.1f}", msd([r["sum_kbps"] for r in runs[(d, True)]]), msd([r["sum_kbps"] for r in runs[(d, False)]])]
        for d in delays
    ]
    rep.table(["added delay (ms)", "RTT (ms)", "ACC (kb/s)", "no ACC (kb/s)"], rows, "E1 + E2 throughput, mean ± sd")


def endpoints(rep: Report, runs, delays) -> None:
    rep.heading("Per-endpoint throughput")
    rep.text('The paper: "In all cases the two endpoints have approximately the same throughput."')
    rows = []
    for d in delays:
        for acc in (True, False):
            rs = runs[(d, acc)]
            ratios = [min(r["e1_kbps"], r["e2_kbps"]) / max(r["e1_kbps"], r["e2_kbps"]) for r in rs if max(r["e1_kbps"], r["e2_kbps"]) > 0]
            rows.append(
                [f"{d:g}", "ACC" if acc else "no ACC", msd([r["e1_kbps"] for r in rs]), msd([r["e2_kbps"] for r in rs]), msd(ratios, 2)]
            )
    rep.table(["added delay (ms)", "mode", "E1 (kb/s)", "E2 (kb/s)", "smaller / larger"], rows, "mean ± sd over the runs")


def exercised(rep: Report, runs, delays) -> None:
    rep.heading("Was ACC exercised?")
    rep.text("The paper checked during its runs that filters were being set. Per run with ACC (mean ± sd):")
    rows = []
    for d in delays:
        rs = runs[(d, True)]
        rows.append(
            [
                f"{d:g}",
                msd([r["filters_set"] for r in rs]),
                msd([r["packets_filtered"] for r in rs]),
                msd([r["controls_sent"] for r in rs]),
                msd([r["controls_received"] for r in rs]),
                msd([r.get("controls_obeyed", 0) for r in rs]),
                msd([r["drops"] for r in rs]),
                msd([r["drops"] for r in runs[(d, False)]]),
                msd([r.get("mean_queue", 0.0) for r in rs], 2),
            ]
        )
    rep.table(
        [
            "added delay (ms)",
            "filters set",
            "packets filtered",
            "controls sent",
            "controls received by senders",
            "controls obeyed",
            "drops at C (ACC)",
            "drops at C (no ACC)",
            "mean queue at C (ACC)",
        ],
        rows,
    )


def cpu(rep: Report, runs, delays) -> None:
    rep.heading("CPU time per forwarded packet")
    rep.text("User plus system CPU time of each router's process over the run, divided by the datagrams it forwarded (µs).")
    rows = []
    for d in delays:
        cells = [f"{d:g}"]
        for x in ROUTERS:
            cells += [msd([r["cpu_us"][x] for r in runs[(d, True)]]), msd([r["cpu_us"][x] for r in runs[(d, False)]])]
        rows.append(cells)
    rep.table(["added delay (ms)"] + [f"{x} {m}" for x in ROUTERS for m in ("ACC", "no ACC")], rows, "µs per forwarded packet, mean ± sd")


def twin(rep: Report, runs, sim, delays) -> None:
    rep.heading("Simulated twin: predicted against measured")
    rep.text(
        "Each live run's simulated twin (`ccsim live twin`: the same plan and seed, the flakeway's delay on the links "
        "into C, before its congested queue, as live): the simulator's prediction of the sum of the throughputs and of "
        f"the drops at C. Agreement: goodput within {100 * TWIN_GOODPUT:g}%, drops within {100 * TWIN_DROPS:g}%."
    )
    rows = []
    for d in delays:
        for acc in (True, False):
            rows.append(twin_row(f"{d:g}", "ACC" if acc else "no ACC", runs[(d, acc)], sim[(d, acc)]))
    rep.table(
        [
            "added delay (ms)",
            "mode",
            "simulated (kb/s)",
            "live (kb/s)",
            "live vs simulated",
            "drops simulated",
            "drops live",
            "live vs simulated",
        ],
        rows,
    )


def twin_row(d: str, mode: str, live_runs: list[dict], twin_runs: list[dict]) -> list[str]:
    """One row of the twin table: goodput and drops, simulated and live, and how far apart."""

    def gap(key: str) -> str:
        meas = mean_sd([r[key] for r in live_runs])[0]
        pred = mean_sd([r[key] for r in twin_runs])[0]
        return f"{100 * (meas / pred - 1):+.1f}%" if pred else "-"

    return [
        d,
        mode,
        msd([r["sum_kbps"] for r in twin_runs]),
        msd([r["sum_kbps"] for r in live_runs]),
        gap("sum_kbps"),
        msd([r["drops"] for r in twin_runs]),
        msd([r["drops"] for r in live_runs]),
        gap("drops"),
    ]


def exercised_claim(with_acc: list[dict]) -> Claim:
    """ "ACC was exercised", counted: it holds when every run with ACC set at least one
    filter and sent at least one control, fails when none did, partly holds otherwise."""
    ok = [run["filters_set"] > 0 and run.get("controls_sent", 0) > 0 for run in with_acc]
    outcome = v.INCONCLUSIVE if not ok else v.HOLDS if all(ok) else v.FAILS if not any(ok) else v.PARTLY
    filters = sum(run["filters_set"] for run in with_acc)
    controls = sum(run.get("controls_sent", 0) for run in with_acc)
    return Claim(
        "ACC was exercised: the monitor sent controls and set filters at the intermediate nodes during the runs",
        outcome,
        f"{sum(ok)} of {len(ok)} runs; {filters} filters set, {controls} controls sent in all",
        "filters were set",
        "counted: every run with ACC sets at least one filter and sends at least one control",
        "rfc",
    )


def protection(rep: Report, bad, bad_sim, delays) -> None:
    rep.heading("A misbehaving flow and an unresponsive source: does ACC protect the well-behaved flow?")
    rep.text(
        "The same network with E2 misbehaving: its RDP sender carries its state but ignores ACC's controls "
        f"(`obey_acc = false`), and E2 also sends a constant-rate UDP source of {CBR_RATE} to D, which responds to "
        "nothing. E1 is the well-behaved flow. With ACC, C's monitor asks for filters on both RDP flows as before; "
        "E1 obeys the controls and the filters end, E2's filters run to their count or timeout. Without ACC, both RDP "
        "senders are plain Reno. Per run (mean ± sd), live and, beside it, the simulated twin's mean:"
    )
    rows = []
    for d in delays:
        for acc in (True, False):
            rs, ss = bad[(d, acc)], bad_sim[(d, acc)]
            rows.append(
                [
                    f"{d:g}",
                    "ACC" if acc else "no ACC",
                    msd([r["e1_kbps"] for r in rs]),
                    num(mean_sd([r["e1_kbps"] for r in ss])[0]),
                    msd([r["e2_kbps"] for r in rs]),
                    num(mean_sd([r["e2_kbps"] for r in ss])[0]),
                    msd([r["cbr_kbps"] for r in rs]),
                    msd([r["filters_set"] for r in rs]),
                    msd([r["packets_filtered"] for r in rs]),
                    msd([r["drops"] for r in rs]),
                ]
            )
    rep.table(
        [
            "added delay (ms)",
            "mode",
            "E1 well-behaved (kb/s)",
            "E1 simulated",
            "E2 misbehaving (kb/s)",
            "E2 simulated",
            "UDP source (kb/s)",
            "filters set",
            "packets filtered",
            "drops at C",
        ],
        rows,
    )


def protection_claim(bad, delays) -> Claim:
    """ "ACC protects the well-behaved flows": at every delay, the well-behaved flow's goodput
    with ACC, paired by replication, at most PROTECT_TOLERANCE below its goodput without
    (ACC does not hand its share to the flow that ignores it)."""
    cases = [
        (
            f"d={d:g} ms",
            v.relative(
                {r: run["e1_kbps"] for r, run in enumerate(bad[(d, True)])},
                {r: run["e1_kbps"] for r, run in enumerate(bad[(d, False)])},
            ),
        )
        for d in delays
    ]
    c = v.every(cases, lambda e: v.greater(e, -100 * PROTECT_TOLERANCE))
    return Claim(
        "ACC protects the well-behaved flows (asked here, not tested in the paper): a flow that ignores ACC's controls, beside "
        "an unresponsive constant-rate source, does not take the well-behaved flow's share",
        c.outcome,
        c.ours,
        "the well-behaved flow keeps its share",
        f"E1's goodput with ACC against without (E2 misbehaving and a {CBR_RATE} UDP source in both), paired by replication, "
        f"at most {100 * PROTECT_TOLERANCE:g}% lower at every delay; {c.detail}",
        "rfc",
    )


def verdict(rep: Report, runs, delays, bad=None, protect_delays=()) -> None:
    """The claims, each decided by `verdicts` from runs paired by replication (ACC on and
    off share replication r at every delay)."""

    def by_rep(d: float, acc: bool, key) -> dict:
        return {r: key(run) for r, run in enumerate(runs[(d, acc)])}

    out: list[Claim] = []

    def add(text: str, cases: v.Cases, paper: str, how: str) -> None:
        out.append(Claim(text, cases.outcome, cases.ours, paper, f"{how}; {cases.detail}", "rfc"))

    tput = lambda run: run["sum_kbps"]  # noqa: E731
    loss = [(f"d={d:g} ms", v.relative(by_rep(d, True, tput), by_rep(d, False, tput))) for d in delays]
    cpu = [
        (
            f"{x} CPU",
            v.ratio(
                {(d, r): run["cpu_us"][x] for d in delays for r, run in enumerate(runs[(d, True)])},
                {(d, r): run["cpu_us"][x] for d in delays for r, run in enumerate(runs[(d, False)])},
            ),
        )
        for x in ROUTERS
    ]
    outcomes = [v.greater(e, -100 * THROUGHPUT_TOLERANCE) for _, e in loss] + [v.less(e, CPU_TOLERANCE) for _, e in cpu]
    add(
        "ACC's overhead in simple congestion scenarios is very small across a range of bandwidth-delay products (Section 4.3.1)",
        v.tally(loss + cpu, outcomes),
        "very small",
        f"throughput with ACC against without, paired by replication, at most {100 * THROUGHPUT_TOLERANCE:g}% lower at every delay, "
        f"and CPU per forwarded packet with ACC at most {CPU_TOLERANCE:g}x without at every router (our reading of 'very small')",
    )
    add(
        "Fig. 9: the throughputs with and without ACC are about the same at every RTT",
        v.every(loss, lambda e: v.within(e, -100 * COINCIDE_TOLERANCE, 100 * COINCIDE_TOLERANCE)),
        "the curves overlap (Fig. 9)",
        f"paired relative difference of the sums within ±{100 * COINCIDE_TOLERANCE:g}% at every delay",
    )
    out.append(exercised_claim([run for d in delays for run in runs[(d, True)]]))
    ratios = [
        min(run["e1_kbps"], run["e2_kbps"]) / max(run["e1_kbps"], run["e2_kbps"])
        for k in runs
        for run in runs[k]
        if max(run["e1_kbps"], run["e2_kbps"]) > 0
    ]
    add(
        "In all cases the two endpoints have approximately the same throughput",
        v.every([("smaller / larger endpoint", v.mean_interval(ratios, bounds=(0.0, 1.0)))], lambda e: v.greater(e, 0.8)),
        "approximately the same",
        "smaller over larger endpoint throughput, mean over every run, above 0.8",
    )
    if bad:
        out.append(protection_claim(bad, protect_delays))
    rep.set_claims(out)
