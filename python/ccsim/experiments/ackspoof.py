"""ACK spoofing: "RED with ACK Spoofing" (Xu & Molle).

Network 1 (Fig. 3): goodput, average queue and loss rate at the R2->R3 bottleneck against
the buffer size for Tail Drop, RED, RED/ECN and RED/Spoofing (Fig. 4), with the per-packet
send jitter and without it (the phase effect); RED/Spoofing and RED/ECN against max_p at
buffer 120 (Figs. 5 and 6). Network 2 (Fig. 7): the bandwidth of two groups of ten flows,
the second starting at 2 s, in 100 ms bins (Fig. 8), with a stability number. A verdict per
claim of Sections 3.1-3.3.

Run time with two worker processes on a shared two-core machine: `--quick` 45-60 s (60
Network 1 runs, 8 of Network 2). The full version is about 1,500 Network 1 runs (Fig. 4:
24 points x 30, Figs. 5/6: 18 more points x 30, no jitter: 24 x 10) at about 0.65 s of wall
time each with two workers, plus 40 Network 2 runs of 0.3 s: about 17 minutes."""

from __future__ import annotations

import json
import math

import matplotlib.pyplot as plt

from .. import sweep
from .common import Options, compare, group_goodput, pm, queue, summarise
from .report import FAILS, HOLDS, PARTLY, Report

TITLE = "RED with ACK spoofing (Xu, Molle)"
BOTTLENECK = "R2->R3"
BOTTLENECK2 = "R0->R1"

# Table 1: buffer (packets) -> (min_th, max_th); max_p per AQM.
TABLE_1 = {40: (5, 30), 60: (10, 50), 90: (10, 72), 120: (10, 90), 160: (10, 120), 200: (10, 150)}
MAX_P = {"RED": 0.02, "RED/ECN": 0.10, "RED/Spoofing": 0.05}
AQMS = ["Tail Drop", "RED", "RED/ECN", "RED/Spoofing"]
SIGNAL = {"RED": "drop", "RED/ECN": "ecn", "RED/Spoofing": "spoof"}
MAX_PS = [round(0.01 * k, 2) for k in range(1, 11)]
COLOURS = {"Tail Drop": "tab:red", "RED": "tab:orange", "RED/ECN": "tab:blue", "RED/Spoofing": "tab:green"}

TCP = {"variant": "reno", "mss": 1000}
JITTER = "0.1ms"
# The spoofer's options, at their defaults, written out.
SPOOFING = {"dupacks": 3, "spoof_below_real_ack": True, "discard_retransmission": True, "asymmetric_threshold": 3}

ASSUMED = [
    (
        "Network 1 delays",
        "H0-R0 2 ms, H1-R0 4 ms, H2-R1 6 ms, H3-R1 8 ms, R0-R2 5 ms, R1-R2 5 ms, R2-R3 10 ms, R3-H4 2 ms, R3-H5 3 ms; every link 100 Mb/s",
    ),
    ("packets", "1000-byte segments (1040 on the wire), 40-byte ACKs, every segment acknowledged, initial window 1, min RTO 200 ms"),
    (
        "starts and length",
        "Network 1: starts uniform in [0, 1] s, 20 s runs, statistics from 5 s; Network 2: group 1 at 0 s, group 2 at 2 s, 10 s runs",
    ),
    (
        "Network 2",
        "every link 100 Mb/s; delays H0-R0 5 ms, H1-R0 5 ms, R0-R1 10 ms, R1-H2 5 ms, R1-H3 5 ms; bottleneck buffer 120, min_th 10, max_th 90, max_p as in Table 1",
    ),
    ("send jitter", "each packet a sender emits is delayed by U(0, 0.1 ms), order kept (ns-2's overhead_); Fig. 4 is also run without it"),
    (
        "TCP",
        "Reno (RFC 5681), the paper's Stevens-model sender: NewReno takes the real ACK that follows the spoofs as a partial ACK and retransmits needlessly",
    ),
    (
        "ACK spoofing",
        "3 spoofed duplicates per signal, sent just before the flow's next real ACK and numbered one segment below it; the provoked retransmission is discarded at the router; asymmetric-path fallback after 3 signals without a real ACK; 1024-entry flow table; pending spoofs expire after 500 ms (ccsim's defaults)",
    ),
    ("RED/ECN", "every flow is ECN-capable (RFC 3168 sender and receiver); overflow still drops"),
    (
        "bottleneck queues",
        "Tail Drop: a plain buffer of Table 1's size; RED family: packet mode, w_q 0.002, not gentle, no wait, mean packet size 1000 bytes for the idle-time decay; thresholds of Table 1. The reverse (ACK) queues: 120-packet Tail Drop; other queues: 100-packet Tail Drop (never full)",
    ),
    (
        "loss rate",
        "packets dropped by the R2->R3 queue per second of measurement (overflow, early and forced drops; for RED/Spoofing the spoofs are not drops, the drops of flows treated as asymmetric are); the needless retransmissions RED/Spoofing discards at R2 are listed apart",
    ),
    (
        "Fig. 8 bandwidth",
        "each group's goodput (in-order delivery at the receivers) in 100 ms bins, as a stand-in for its bandwidth on R0->R1",
    ),
]


def queue_spec(aqm: str, buffer: int = 120, max_p: float | None = None) -> dict:
    """The bottleneck queue of `aqm` with Table 1's row for `buffer`."""
    if aqm == "Tail Drop":
        return {"limit": buffer}
    min_th, max_th = TABLE_1[buffer]
    return {
        "discipline": "red",
        "limit": buffer,
        "min_th": min_th,
        "max_th": max_th,
        "max_p": MAX_P[aqm] if max_p is None else max_p,
        "signal": SIGNAL[aqm],
    }


def tcp(aqm: str) -> dict:
    return dict(TCP, ecn=True) if aqm == "RED/ECN" else dict(TCP)


def network1(aqm: str = "RED/Spoofing", buffer: int = 120, max_p: float | None = None, jitter: bool = True) -> dict:
    """Network 1 (Fig. 3); `scenarios/ackspoof_net1.toml` is RED/Spoofing, buffer 120."""
    delays = [
        ("H0", "R0", "2ms"),
        ("H1", "R0", "4ms"),
        ("H2", "R1", "6ms"),
        ("H3", "R1", "8ms"),
        ("R0", "R2", "5ms"),
        ("R1", "R2", "5ms"),
        ("R3", "H4", "2ms"),
        ("R3", "H5", "3ms"),
    ]
    links = [
        {
            "between": ["R2", "R3"],
            "rate": "100Mbps",
            "delay": "10ms",
            "queue": queue_spec(aqm, buffer, max_p),
            "queue_reverse": {"limit": 120},
        }
    ]
    links += [{"between": [a, b], "rate": "100Mbps", "delay": d} for a, b, d in delays]
    flows = []
    for name, src, dst in [("g1", "H0", "H5"), ("g2", "H1", "H4"), ("g3", "H2", "H4"), ("g4", "H3", "H5")]:
        f = {"name": name, "from": src, "to": dst, "count": 10, "start": {"uniform": ["0s", "1s"]}, "tcp": tcp(aqm)}
        if jitter:
            f["jitter"] = JITTER
        flows.append(f)
    return {
        "name": "ackspoof-net1",
        "duration": "20s",
        "warmup": "5s",
        "seed": 1,
        "hosts": ["H{0..5}"],
        "routers": ["R{0..3}"],
        "links": links,
        "flows": flows,
        "ack_spoofing": dict(SPOOFING),
    }


def network2(aqm: str = "RED/Spoofing") -> dict:
    """Network 2 (Fig. 7); `scenarios/ackspoof_net2.toml` is RED/Spoofing."""
    delays = [("H0", "R0"), ("H1", "R0"), ("R1", "H2"), ("R1", "H3")]
    links = [{"between": ["R0", "R1"], "rate": "100Mbps", "delay": "10ms", "queue": queue_spec(aqm, 120), "queue_reverse": {"limit": 120}}]
    links += [{"between": [a, b], "rate": "100Mbps", "delay": "5ms"} for a, b in delays]
    flows = [
        {"name": "g1", "from": "H0", "to": "H2", "count": 10, "start": "0s", "jitter": JITTER, "tcp": tcp(aqm)},
        {"name": "g2", "from": "H1", "to": "H3", "count": 10, "start": "2s", "jitter": JITTER, "tcp": tcp(aqm)},
    ]
    series = [{"kind": "goodput", "flow": g, "interval": "100ms"} for g in ("g1", "g2")]
    series.append({"kind": "queue", "link": BOTTLENECK2, "interval": "100ms"})
    return {
        "name": "ackspoof-net2",
        "duration": "10s",
        "seed": 1,
        "hosts": ["H{0..3}"],
        "routers": ["R0", "R1"],
        "links": links,
        "flows": flows,
        "series": series,
        "ack_spoofing": dict(SPOOFING),
    }


def point(aqm: str, buffer: int, max_p: float | None = None, jitter: bool = True) -> dict:
    """Overrides turning the default `network1()` into `network1(aqm, buffer, max_p, jitter)`.
    Equal configurations get equal names, so a sweep runs them once."""
    p = MAX_P.get(aqm) if max_p is None else max_p
    return {
        "name": f"{aqm}|{buffer}|{p}|{jitter}",
        "links.0.queue": queue_spec(aqm, buffer, max_p),
        "flows.*.tcp": tcp(aqm),
        "flows.*.jitter": JITTER if jitter else None,
    }


def parse(name: str) -> tuple[str, int, float | None, bool]:
    aqm, buffer, p, jitter = name.split("|")
    return aqm, int(buffer), None if p == "None" else float(p), jitter == "True"


def metrics(summary: dict) -> dict:
    q = queue(summary, BOTTLENECK)
    t = summary["measured_s"]
    spoofers = summary.get("spoofers") or []
    return {
        "goodput": summary["totals"]["goodput_bps"] / 1e6,
        "avg_queue": q["mean_len_packets"],
        "loss_rate": q["drops"] / t,
        "spoofs_per_s": sum(s["spoof_events"] for s in spoofers) / t,
        "discards_per_s": sum(s["retransmissions_discarded"] for s in spoofers) / t,
        "fallback_per_s": sum(s["fallback_drops"] for s in spoofers) / t,
        "timeouts": summary["totals"]["timeouts"],
        "jain": summary["totals"]["jain_fairness"],
        "groups": {g: group_goodput(summary, g) / 1e6 for g in ("g1", "g2", "g3", "g4")},
    }


def reproduce(opt: Options) -> Report:
    quick = opt.quick
    buffers = [40, 120, 200] if quick else list(TABLE_1)
    reps = 3 if quick else 30
    max_ps = [0.01, 0.05, 0.10] if quick else MAX_PS
    nj_buffers = [120] if quick else list(TABLE_1)
    nj_reps = 2 if quick else 10
    reps2 = 2 if quick else 10

    # Fig. 4 (with jitter) and Figs. 5/6 share replications, seeds and two points: one sweep.
    points = [point(a, b) for b in buffers for a in AQMS]
    points += [point(a, 120, p) for p in max_ps for a in ("RED/ECN", "RED/Spoofing")]
    main = collect(
        sweep(
            network1(),
            points=points,
            replications=reps,
            out=opt.out / "runs-net1",
            workers=opt.workers,
            scheduler=opt.scheduler,
            progress=opt.progress,
        )
    )
    nj_points = [point(a, b, jitter=False) for b in nj_buffers for a in AQMS]
    nojit = collect(
        sweep(
            network1(),
            points=nj_points,
            replications=nj_reps,
            out=opt.out / "runs-net1-nojitter",
            workers=opt.workers,
            scheduler=opt.scheduler,
            progress=opt.progress,
        )
    )
    net2 = {}
    res2 = sweep(
        network2(),
        points=[{"name": a, "links.0.queue": queue_spec(a), "flows.*.tcp": tcp(a)} for a in AQMS],
        replications=reps2,
        out=opt.out / "runs-net2",
        workers=opt.workers,
        scheduler=opt.scheduler,
        progress=opt.progress,
    )
    for row, summary in res2.summaries():
        net2.setdefault(row["name"], {})[row["replication"]] = group_series(summary)

    rep = Report("ackspoof", TITLE, opt.out)
    rep.text(
        f"Network 1: {reps} replications per point ({len(buffers)} buffer sizes, {len(max_ps)} values of max_p), "
        f"{nj_reps} per point without send jitter; Network 2: {reps2} replications per AQM. Replication r uses the "
        f"same seed (derived from base seed 1) at every point. Means with 95% confidence intervals (Student t). "
        f"Mode: {'quick' if quick else 'full'}."
    )
    fig4 = {(a, b): main.get((a, b, MAX_P.get(a), True), []) for a in AQMS for b in buffers}
    fig4_part(rep, fig4, buffers, "fig4", "Fig. 4 (with send jitter)")
    fig4_nj = {(a, b): nojit.get((a, b, MAX_P.get(a), False), []) for a in AQMS for b in nj_buffers}
    nojitter_part(rep, fig4, fig4_nj, nj_buffers)
    sens = {(a, p): main.get((a, 120, p, True), []) for a in ("RED/ECN", "RED/Spoofing") for p in max_ps}
    sensitivity_part(rep, sens, max_ps)
    stab = net2_part(rep, net2)
    verdicts(rep, fig4, buffers, sens, max_ps, stab)
    rep.assumptions(ASSUMED)
    (opt.out / "summary.json").write_text(json.dumps(summary_json(fig4, fig4_nj, sens, stab), indent=2))
    rep.write()
    return rep


def collect(result) -> dict:
    """{(aqm, buffer, max_p, jitter): [metrics of each replication]}, once per replication even
    when two points of the sweep are the same run."""
    seen: dict[tuple, dict[int, dict]] = {}
    for row, summary in result.summaries():
        seen.setdefault(parse(row["name"]), {})[row["replication"]] = metrics(summary)
    return {k: [v[r] for r in sorted(v)] for k, v in seen.items()}


def col(runs: list[dict], key: str) -> list[float]:
    return [r[key] for r in runs]


def stat(runs: list[dict], key: str) -> tuple[float, float, int]:
    return summarise(col(runs, key)) if runs else (math.nan, math.nan, 0)


def ci(h: float) -> float:
    return 0.0 if h != h else h


FIG4_METRICS = [("goodput", "goodput (Mb/s)"), ("avg_queue", "average queue (packets)"), ("loss_rate", "loss rate (packets/s)")]


def fig4_part(rep: Report, data: dict, buffers: list[int], name: str, title: str) -> None:
    rows = []
    for b in buffers:
        for a in AQMS:
            runs = data[(a, b)]
            cells = [b, a, len(runs)]
            for key, _ in FIG4_METRICS:
                m, h, _ = stat(runs, key)
                cells.append(pm(m, h))
            cells.append(pm(*stat(runs, "discards_per_s")[:2]) if a == "RED/Spoofing" else "-")
            rows.append(cells)
    rep.heading(f"{title}: Tail Drop, RED, RED/ECN and RED/Spoofing against the buffer size")
    rep.table(
        ["buffer", "AQM", "runs", "goodput (Mb/s)", "avg queue (pkts)", "loss rate (pkts/s)", "retransmissions discarded (/s)"],
        rows,
        f"{BOTTLENECK} after the 5 s warm-up, mean ± 95% CI; max_p: RED 0.02, RED/ECN 0.10, RED/Spoofing 0.05",
    )
    fig = metric_panels(data, AQMS, buffers, "buffer size (packets)")
    rep.figure(fig, name, f"{title}: goodput, average queue and loss rate at {BOTTLENECK} (error bars: 95% CI)")


def metric_panels(data: dict, aqms: list[str], xs: list, xlabel: str):
    """Goodput, average queue and loss rate (mean and 95% CI) of each AQM against `xs`, where
    `data[(aqm, x)]` holds the runs of one point."""
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
    for ax, (key, label) in zip(axes, FIG4_METRICS):
        for a in aqms:
            ms = [stat(data[(a, x)], key) for x in xs]
            ax.errorbar(xs, [m for m, _, _ in ms], yerr=[ci(h) for _, h, _ in ms], marker="o", capsize=3, label=a, color=COLOURS[a])
        ax.set_xlabel(xlabel)
        ax.set_ylabel(label)
    axes[0].legend(fontsize=8)
    return fig


def nojitter_part(rep: Report, fig4: dict, nj: dict, buffers: list[int]) -> None:
    fig4_part(rep, nj, buffers, "fig4_nojitter", "Fig. 4 without send jitter")
    rows = []
    for a in AQMS:
        for label, data in (("with jitter", fig4), ("without", nj)):
            runs = data.get((a, 120), [])
            if not runs:
                continue
            via_r0 = [r["groups"]["g1"] + r["groups"]["g2"] for r in runs]
            via_r1 = [r["groups"]["g3"] + r["groups"]["g4"] for r in runs]
            rows.append([a, label, pm(*summarise(via_r0)[:2]), pm(*summarise(via_r1)[:2]), pm(*stat(runs, "jain")[:2])])
    rep.text(
        "Without randomness in the sending times every link runs at 100 Mb/s and Tail Drop shows the phase effect "
        "of Floyd and Jacobson: which flows' packets find the full buffer depends on their timing, not on their "
        "share. The split of the bottleneck between the flows entering through R0 (groups H0->H5 and H1->H4) and "
        "through R1 shows it."
    )
    rep.table(
        ["AQM", "send jitter", "goodput via R0 (Mb/s)", "goodput via R1 (Mb/s)", "Jain's index (40 flows)"],
        rows,
        "buffer 120, mean ± 95% CI",
    )


def sensitivity_part(rep: Report, sens: dict, max_ps: list[float]) -> None:
    rows = []
    for p in max_ps:
        for a in ("RED/Spoofing", "RED/ECN"):
            runs = sens[(a, p)]
            rows.append([p, a, len(runs)] + [pm(*stat(runs, k)[:2]) for k, _ in FIG4_METRICS])
    rep.heading("Figs. 5 and 6: sensitivity to max_p (buffer 120, min_th 10, max_th 90)")
    rep.table(["max_p", "AQM", "runs", "goodput (Mb/s)", "avg queue (pkts)", "loss rate (pkts/s)"], rows, "mean ± 95% CI")
    for name, aqms, title in (
        ("fig5", ["RED/Spoofing"], "Fig. 5: RED/Spoofing against max_p"),
        ("fig6", ["RED/ECN", "RED/Spoofing"], "Fig. 6: RED/ECN and RED/Spoofing against max_p"),
    ):
        fig = metric_panels(sens, aqms, max_ps, "max_p")
        rep.figure(fig, name, f"{title} (buffer 120; error bars: 95% CI)")
    scores = score(sens, "RED/Spoofing", max_ps)
    rep.text(
        "Overall score of a max_p (used for the 'optimal area' verdict): the mean over goodput, average queue "
        "and loss rate of each metric's position between the worst (0) and best (1) mean over the max_p values. "
        "RED/Spoofing: " + ", ".join(f"{p:g}: {s:.2f}" for p, s in scores.items()) + "."
    )


def score(sens: dict, aqm: str, max_ps: list[float]) -> dict[float, float]:
    means = {k: {p: stat(sens[(aqm, p)], k)[0] for p in max_ps} for k, _ in FIG4_METRICS}
    out = {p: 0.0 for p in max_ps}
    for k, vals in means.items():
        lo, hi = min(vals.values()), max(vals.values())
        for p, v in vals.items():
            pos = 0.5 if hi == lo else (v - lo) / (hi - lo)
            out[p] += (pos if k == "goodput" else 1 - pos) / len(means)
    return out


def group_series(summary: dict) -> dict:
    """Per-group goodput (Mb/s) in 100 ms bins: the sum of the group's flows' series."""
    t, sums = None, {"g1": None, "g2": None}
    for s in summary["series"]:
        kind, target = s["name"].split(" ", 1)
        if kind != "goodput":
            continue
        g = target.split("[")[0]
        vals = [0.0 if v is None else v / 1e6 for v in s["value"]]
        t = s["t"]
        sums[g] = vals if sums[g] is None else [x + y for x, y in zip(sums[g], vals)]
    return {"t": t, "g1": sums["g1"], "g2": sums["g2"]}


def stability(gs: dict, start: float = 4.0) -> float:
    """Mean over the bins ending after `start` of |g1 - g2| / (g1 + g2)."""
    d = [abs(a - b) / (a + b) for t, a, b in zip(gs["t"], gs["g1"], gs["g2"]) if t > start and a + b > 0]
    return sum(d) / len(d) if d else math.nan


def convergence(gs: dict, start: float = 2.0, window: int = 5, level: float = 0.2) -> float:
    """Time after `start` (s) of the first bin from which the mean |g1 - g2| / (g1 + g2) of
    `window` bins (500 ms) is below `level`; the run length when it never is."""
    pts = [(t, abs(a - b) / (a + b) if a + b > 0 else 1.0) for t, a, b in zip(gs["t"], gs["g1"], gs["g2"]) if t > start]
    for i in range(len(pts) - window + 1):
        if sum(d for _, d in pts[i : i + window]) / window < level:
            return pts[i][0] - start
    return gs["t"][-1] - start if gs["t"] else math.nan


def max_ratio(gs: dict, lo: float, hi: float, either: bool = False) -> float:
    """Largest g1 / g2 (with `either`, also g2 / g1) over the bins ending in (lo, hi] where
    both groups delivered something."""
    r = [max(a / b, b / a) if either else a / b for t, a, b in zip(gs["t"], gs["g1"], gs["g2"]) if lo < t <= hi + 1e-9 and a > 0 and b > 0]
    return max(r) if r else math.nan


def net2_part(rep: Report, net2: dict) -> dict:
    rows, stab = [], {}
    for a in AQMS:
        runs = net2.get(a, {})
        s = [stability(g) for g in runs.values()]
        window = [max_ratio(g, 6.5, 7.2) for g in runs.values()]
        after = [max_ratio(g, 4.0, math.inf, either=True) for g in runs.values()]
        total = [
            sum(x + y for t, x, y in zip(g["t"], g["g1"], g["g2"]) if t > 4.0) / sum(1 for t in g["t"] if t > 4.0) for g in runs.values()
        ]
        conv = [convergence(g) for g in runs.values()]
        m, h, n = summarise(s) if s else (math.nan, math.nan, 0)
        cm, ch, _ = summarise(conv) if conv else (math.nan, math.nan, 0)
        stab[a] = {
            "values": s,
            "mean": m,
            "ci95": h,
            "n": n,
            "ratio_6_5_7_2": window,
            "max_ratio_after_4s": after,
            "convergence_s": conv,
            "convergence_mean_s": cm,
            "convergence_ci95_s": ch,
        }
        rows.append(
            [
                a,
                n,
                pm(100 * m, 100 * h),
                pm(cm, ch),
                ", ".join(f"{x:.2f}" for x in window),
                ", ".join(f"{x:.2f}" for x in after),
                pm(*summarise(total)[:2]) if total else "-",
            ]
        )
    rep.heading("Fig. 8: convergence and stability (Network 2)")
    rep.table(
        [
            "AQM",
            "runs",
            "mean |g1 - g2| / (g1 + g2) after 4 s (%)",
            "convergence after 2 s (s)",
            "max g1/g2 in 6.5-7.2 s, per run",
            "max of g1/g2 and g2/g1 after 4 s, per run",
            "g1 + g2 after 4 s (Mb/s)",
        ],
        rows,
        "per-group goodput in 100 ms bins; mean ± 95% CI over replications",
    )
    rep.text(
        "Convergence: the time after group 2 starts until the first 500 ms (five bins) over which the mean "
        "|g1 - g2| / (g1 + g2) is below 20%. The stability number counts every bin after 4 s, so a slow "
        "convergence (group 2 still catching up after 4 s) raises it too."
    )
    fig, axes = plt.subplots(len(AQMS), 1, figsize=(9, 2.2 * len(AQMS)), sharex=True, sharey=True)
    for ax, a in zip(axes, AQMS):
        g = net2.get(a, {}).get(0)
        if g:
            ax.plot(g["t"], g["g1"], lw=0.9, label="group 1 (H0->H2, from 0 s)")
            ax.plot(g["t"], g["g2"], lw=0.9, label="group 2 (H1->H3, from 2 s)")
        ax.set_title(a, fontsize=9)
        ax.set_ylabel("Mb/s")
    axes[0].legend(fontsize=7, loc="upper right")
    axes[-1].set_xlabel("time (s)")
    rep.figure(fig, "fig8", f"Fig. 8: aggregate bandwidth of each group on {BOTTLENECK2}, 100 ms bins (replication 0)")
    return stab


def verdicts(rep: Report, fig4: dict, buffers: list[int], sens: dict, max_ps: list[float], stab: dict) -> None:
    def means(a: str, key: str) -> dict[int, float]:
        return {b: stat(fig4[(a, b)], key)[0] for b in buffers}

    def verdict(ok: list[bool]) -> str:
        return HOLDS if all(ok) else FAILS if not any(ok) else PARTLY

    loss = {a: means(a, "loss_rate") for a in AQMS}
    aq = {a: means(a, "avg_queue") for a in AQMS}
    good = {a: means(a, "goodput") for a in AQMS}

    # Loss: RED/Spoofing well below RED (separated CIs and at most 70% of RED's) at every buffer.
    ok, ev = [], []
    for b in buffers:
        c = compare(col(fig4[("RED/Spoofing", b)], "loss_rate"), col(fig4[("RED", b)], "loss_rate"), True)
        ratio = loss["RED/Spoofing"][b] / loss["RED"][b] if loss["RED"][b] > 0 else math.nan
        ok.append(c == "yes" and ratio <= 0.7)
        ev.append(f"{b}: {loss['RED/Spoofing'][b]:.0f} vs {loss['RED'][b]:.0f}/s ({c})")
    rep.claim(
        "RED/Spoofing's loss rate is well below RED's (every buffer size)", verdict(ok), "buffer: RED/Spoofing vs RED; " + "; ".join(ev)
    )

    # Close to RED/ECN: ratio within [2/3, 3/2], or both below one drop per second.
    ok, ev = [], []
    for b in buffers:
        s, e = loss["RED/Spoofing"][b], loss["RED/ECN"][b]
        ok.append((s < 1 and e < 1) or (e > 0 and 2 / 3 <= s / e <= 1.5))
        ev.append(f"{b}: {s:.1f} vs {e:.1f}/s")
    rep.claim(
        "RED/Spoofing's loss rate is close to RED/ECN's (within a factor 1.5)",
        verdict(ok),
        "buffer: RED/Spoofing vs RED/ECN; " + "; ".join(ev),
    )

    # Queue: RED/Spoofing well below Tail Drop (separated, at most 75%).
    ok, ev = [], []
    for b in buffers:
        c = compare(col(fig4[("RED/Spoofing", b)], "avg_queue"), col(fig4[("Tail Drop", b)], "avg_queue"), True)
        r = aq["RED/Spoofing"][b] / aq["Tail Drop"][b]
        ok.append(c == "yes" and r <= 0.75)
        ev.append(f"{b}: {aq['RED/Spoofing'][b]:.1f} vs {aq['Tail Drop'][b]:.1f} pkts ({100 * (1 - r):.0f}% less)")
    rep.claim("RED/Spoofing's average queue is well below Tail Drop's", verdict(ok), "buffer: RED/Spoofing vs Tail Drop; " + "; ".join(ev))

    # RED vs Tail Drop: the reduction in range everywhere holds; a reduction everywhere but
    # outside 25-50% somewhere partly holds (the direction, not the size).
    gains = {b: 100 * (1 - aq["RED"][b] / aq["Tail Drop"][b]) for b in buffers}
    in_range = [25 <= g <= 50 for g in gains.values()]
    v = HOLDS if all(in_range) else PARTLY if all(g > 0 for g in gains.values()) or any(in_range) else FAILS
    rep.claim(
        "RED's average queue is 25-50% below Tail Drop's",
        v,
        "reduction by buffer: " + ", ".join(f"{b}: {g:.0f}%" for b, g in gains.items()),
    )

    # Goodput: each AQM within 5% of Tail Drop's at every buffer.
    ok, ev = [], []
    for a in AQMS[1:]:
        d = {b: 100 * (good[a][b] / good["Tail Drop"][b] - 1) for b in buffers}
        ok.append(all(abs(x) <= 5 for x in d.values()))
        ev.append(f"{a} " + "/".join(f"{x:+.1f}" for x in d.values()) + "%")
    rep.claim(
        "RED, RED/ECN and RED/Spoofing keep goodput comparable to Tail Drop's (within 5%)",
        verdict(ok),
        f"difference from Tail Drop at buffers {'/'.join(map(str, buffers))}: "
        + "; ".join(ev)
        + "; Tail Drop "
        + "/".join(f"{good['Tail Drop'][b]:.1f}" for b in buffers)
        + " Mb/s",
    )

    # Stability (Fig. 8).
    outcomes = []
    for a in ("RED/Spoofing", "RED/ECN"):
        for rival in ("Tail Drop", "RED"):
            if stab[a]["n"] and stab[rival]["n"]:
                outcomes.append((a, rival, compare(stab[a]["values"], stab[rival]["values"], True)))
    ok = [o == "yes" for _, _, o in outcomes]
    v = HOLDS if all(ok) else FAILS if all(o == "no" for _, _, o in outcomes) else PARTLY
    rep.claim(
        "RED/Spoofing and RED/ECN share the bandwidth more stably than Tail Drop and RED (Fig. 8)",
        v,
        "mean |g1-g2|/(g1+g2) after 4 s: "
        + ", ".join(f"{a} {100 * stab[a]['mean']:.1f}%" for a in AQMS)
        + "; "
        + "; ".join(f"{a} vs {r}: {o}" for a, r, o in outcomes),
    )
    vals = [stab[a]["mean"] for a in ("RED/Spoofing", "RED/ECN")]
    rep.claim(
        "For RED/Spoofing and RED/ECN the mean difference between the groups is about 10% of the total",
        verdict([0.05 <= x <= 0.15 for x in vals]),
        ", ".join(f"{a}: {pm(100 * stab[a]['mean'], 100 * stab[a]['ci95'])}%" for a in ("RED/Spoofing", "RED/ECN")),
    )
    conv = {a: stab[a]["convergence_mean_s"] for a in AQMS}
    fast, slow = max(conv["Tail Drop"], conv["RED"]), min(conv["RED/ECN"], conv["RED/Spoofing"])
    v = HOLDS if fast <= slow else PARTLY if min(conv["Tail Drop"], conv["RED"]) <= slow else FAILS
    rep.claim(
        "Tail Drop and RED converge to the fair share a little faster than RED/ECN and RED/Spoofing",
        v,
        "mean convergence time after group 2 starts: " + ", ".join(f"{a} {pm(conv[a], stab[a]['convergence_ci95_s'])} s" for a in AQMS),
    )
    td = stab["Tail Drop"]
    win, after = td["ratio_6_5_7_2"], td["max_ratio_after_4s"]
    near = [x for x in win if x >= 3.0]
    v = HOLDS if win and len(near) * 2 >= len(win) else PARTLY if any(x >= 3.0 for x in after) else FAILS
    rep.claim(
        "Tail Drop: group 1 gets about 3.5 times group 2's bandwidth during 6.5-7.2 s",
        v,
        f"max g1/g2 in 6.5-7.2 s per run: {', '.join(f'{x:.2f}' for x in win)}; max ratio either way after 4 s: {', '.join(f'{x:.2f}' for x in after)}",
    )

    # Optimal max_p area.
    sc = score(sens, "RED/Spoofing", max_ps)
    best = max(sc, key=sc.get)
    inside = [p for p in max_ps if 0.03 <= p <= 0.05]
    best_inside = max((sc[p] for p in inside), default=-1)
    v = HOLDS if 0.03 <= best <= 0.05 else PARTLY if best_inside >= sc[best] - 0.05 else FAILS
    rep.claim(
        "RED/Spoofing has an optimal max_p area around 0.03-0.05 (Fig. 5)",
        v,
        f"best overall score at max_p {best:g} ({sc[best]:.2f}); " + ", ".join(f"{p:g}: {s:.2f}" for p, s in sc.items()),
    )

    # RED/Spoofing as good as RED/ECN across max_p (Fig. 6).
    ok, ev = [], []
    for p in max_ps:
        gs, ge = stat(sens[("RED/Spoofing", p)], "goodput")[0], stat(sens[("RED/ECN", p)], "goodput")[0]
        qs, qe = stat(sens[("RED/Spoofing", p)], "avg_queue")[0], stat(sens[("RED/ECN", p)], "avg_queue")[0]
        ok.append(abs(gs / ge - 1) <= 0.03 and 2 / 3 <= qs / qe <= 1.5)
        ev.append(f"{p:g}: {gs:.1f}/{ge:.1f} Mb/s, {qs:.1f}/{qe:.1f} pkts")
    rep.claim(
        "RED/Spoofing performs like RED/ECN over max_p 0.01-0.10 (goodput within 3%, average queue within a factor 1.5; Fig. 6)",
        verdict(ok),
        "max_p: RED/Spoofing/RED/ECN " + "; ".join(ev),
    )
    rep.text(
        "Comparisons of two AQMs say 'yes' when their 95% confidence intervals separate and 'yes, within noise' "
        "when the means point the paper's way but the intervals overlap."
    )


def summary_json(fig4: dict, nj: dict, sens: dict, stab: dict) -> dict:
    def entry(runs: list[dict]) -> dict:
        out = {}
        for key in ["goodput", "avg_queue", "loss_rate", "spoofs_per_s", "discards_per_s", "fallback_per_s", "timeouts"]:
            m, h, n = stat(runs, key)
            out[key] = {"mean": m, "ci95": h, "n": n}
        return out

    return {
        "units": {
            "goodput": "Mb/s",
            "avg_queue": "packets",
            "loss_rate": "packets/s",
            "spoofs_per_s": "spoof events/s",
            "discards_per_s": "packets/s",
            "fallback_per_s": "packets/s",
        },
        "fig4": {a: {str(b): entry(runs) for (a2, b), runs in fig4.items() if a2 == a} for a in AQMS},
        "fig4_no_jitter": {a: {str(b): entry(runs) for (a2, b), runs in nj.items() if a2 == a} for a in AQMS},
        "max_p": {a: {f"{p:g}": entry(runs) for (a2, p), runs in sens.items() if a2 == a} for a in ("RED/ECN", "RED/Spoofing")},
        "fig8_stability": {a: {k: v for k, v in s.items()} for a, s in stab.items()},
    }
