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
DURATION, QUICK_DURATION = 30.0, 5.0
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
        "C delays every RDP segment toward D by the added delay (the data direction); the paper's flakeway adds its processing overhead too, ours adds none measurable",
    ),
    (
        "RDP",
        "1000-byte payloads, packet-counted Reno with fast retransmit, ACC state in every data segment; receiver's max. outstanding segments large enough never to limit",
    ),
    (
        "runs",
        "10 runs of 30 s per delay and mode (quick: 2 of 5 s, 3 delays), ACC on and off paired by replication; throughput is the goodput at D over the whole run",
    ),
    (
        "overhead verdict",
        f"holds if, at every delay, the paired mean throughput with ACC is at most {100 * THROUGHPUT_TOLERANCE:g}% below without, and the CPU per forwarded packet with ACC is at most {CPU_TOLERANCE:g}x without at every router",
    ),
]


def topology(d_ms: float = 0.0, acc: bool = True, duration: float = DURATION) -> dict:
    """The Fig. 8 scenario with C's flakeway adding `d_ms`; `scenarios/acc_live.toml` is
    `topology(100, True, 30)`."""
    edge = {"rate": EDGE_RATE, "delay": f"{LINK_DELAY_MS:g}ms"}
    return {
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


def live_run(d_ms: float, acc: bool, rep: int, duration: float, cache: Path) -> dict:
    """One live run (cached in `cache`, a JSON-lines file, by delay, mode, replication and
    length); returns its metrics."""
    from .. import live

    key = f"{d_ms:g}/{'acc' if acc else 'plain'}/{rep}/{duration:g}"
    if cache.exists():
        for line in cache.read_text().splitlines():
            row = json.loads(line)
            if row["key"] == key:
                return row
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "acc_live.toml"
        doc = topology(d_ms, acc, duration)
        doc["seed"] = rep + 1
        path.write_text(_toml(doc))
        s = live.run(path)
    row = {"key": key, **metrics(s)}
    with cache.open("a") as f:
        f.write(json.dumps(row) + "\n")
    return row


def metrics(s: dict) -> dict:
    """What the experiment keeps of a live run's summary."""
    flows = {f["group"]: f for f in s["flows"]}
    nodes = {n["name"]: n for n in s["nodes"]}
    neck = next(q for q in s["queues"] if q["link"] == BOTTLENECK)
    return {
        "e1_kbps": flows["e1"].get("goodput_bps", 0.0) / 1e3,
        "e2_kbps": flows["e2"].get("goodput_bps", 0.0) / 1e3,
        "sum_kbps": sum(f.get("goodput_bps", 0.0) for f in s["flows"]) / 1e3,
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


def sim_run(d_ms: float, acc: bool, rep: int, duration: float) -> dict:
    """The simulated twin of live run `rep` (`ccsim live twin`: the same plan and seed,
    the flakeway's delay before C's queue); its metrics."""
    from .. import live

    doc = topology(d_ms, acc, duration)
    doc["seed"] = rep + 1
    return metrics(live.twin_text(_toml(doc), "acc_live.toml"))


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
    opt.out.mkdir(parents=True, exist_ok=True)
    cache = opt.out / "runs.jsonl"
    runs: dict[tuple[float, bool], list[dict]] = {}
    for d in delays:
        for r in range(reps):
            for acc in (True, False):  # paired: the same replication with and without
                runs.setdefault((d, acc), []).append(live_run(d, acc, r, duration, cache))
    sim = {(d, acc): [sim_run(d, acc, r, duration) for r in range(reps)] for d in delays for acc in (True, False)}

    rep = Report("acc-live", TITLE, opt.out, citation=CITATION, profile="rfc", quick=opt.quick, view=False)
    rep.facts = [
        'Live runs on real UDP sockets of this machine; the simulated twin (`transport = "rdp"`) runs under the rfc profile '
        "(the paper's implementation ran real processes, not ns-2).",
        f"{'Quick' if opt.quick else 'Full'} mode: {reps} runs of {duration:g} s per delay and mode."
        + (f" {v.FEW} marks a number from too few runs to decide." if reps < v.MIN_RUNS else ""),
    ]
    rep.text(
        f"Live runs on this machine (`ccsim live`): every node a process on 127.0.0.1, links emulated at each node's "
        f"egress. Added delay d in {{{', '.join(f'{d:g}' for d in delays)}}} ms at C's flakeway, {reps} runs of "
        f"{duration:g} s per delay with ACC and {reps} without, run alternately and paired by replication. Throughput "
        f"is RDP goodput at D (payload delivered in order), over the whole run. RTT is the base round trip "
        f"(propagation, the added delay and serialization), as the paper plots against the delay it adds. "
        f"Error bars: ± one standard deviation over the runs, as in the paper."
    )
    rep.text(f"Machine: {machine()}.")
    fig9(rep, runs, sim, delays)
    endpoints(rep, runs, delays)
    exercised(rep, runs, delays)
    cpu(rep, runs, delays)
    twin(rep, runs, sim, delays)
    verdict(rep, runs, delays)
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


def verdict(rep: Report, runs, delays) -> None:
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
    rep.set_claims(out)
