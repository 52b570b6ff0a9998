"""RTRED: "A Third Drop Level for TCP-RED Congestion Control Strategy" (Hamadneh et al.).

Three scenarios (Table I) x {RED, Adaptive RED (Floyd/Gummadi/Shenker and Feng et al.),
RTRED}, replicated; Table II side by side with the paper; the drop-area shares of Figs. 4
and 5; the series of Figs. 6-11; a verdict per claim."""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from .. import sweep
from .common import Options, compare, pm, queue, summarise
from .report import FAILS, HOLDS, PARTLY, Report

TITLE = "RTRED: a third drop level for TCP-RED (Hamadneh, Dixon, Cole, Murray)"
BOTTLENECK = "G->K"

# Table I: (min_th, max_th, max_p, risk_th, buffer)
SCENARIOS = {"S1": (12, 25, 0.05, 28, 30), "S2": (60, 90, 0.1, 95, 100), "S3": (15, 30, 0.08, 40, 50)}
STRATEGIES = ["RED", "ARED", "ARED-Feng", "RTRED"]

# Table II of the paper: average queue (packets), average delay (ms), packets lost,
# packets propagated. The paper's "Adaptive" is ns-2's adaptive RED (our "ARED").
TABLE_II = {
    ("S1", "RED"): (20.292, 122.85184, 710, 18158),
    ("S1", "ARED"): (16.469, 123.83286, 855, 18303),
    ("S1", "RTRED"): (21.2004, 122.594742, 668, 18120),
    ("S2", "RED"): (54.4667, 119.340434, 151, 17639),
    ("S2", "ARED"): (60.9756, 119.387794, 147, 17646),
    ("S2", "RTRED"): (62.1799, 119.259245, 136, 17627),
    ("S3", "RED"): (21.0212, 122.527085, 651, 18110),
    ("S3", "ARED"): (19.8217, 122.80448, 698, 18151),
    ("S3", "RTRED"): (24.8899, 121.816685, 548, 18005),
}

ASSUMED = [
    ("segment size", "552 bytes of payload, 592 on the wire (the paper's 552-byte packets)"),
    ("TCP", "Reno, receiver window 20 segments (ns-2's default window_), no delayed ACKs, initial window 1, min RTO 200 ms"),
    ("run length", "120 s (Table II's ~18,000 packets fit 0.7 Mb/s for about two minutes); no warm-up"),
    ("access links", "10 Mb/s, delay drawn uniformly in [1, 5] ms per source (stream delay/Si-G)"),
    ("RED", "packet mode, w_q = 0.002, not gentle, no wait, mean packet size 592 bytes for the idle-time decay"),
    (
        "Adaptive RED",
        "'ARED' = Floyd/Gummadi/Shenker 2001 (ns-2's adaptive_: every 0.5 s toward the middle of [min_th, max_th]); 'ARED-Feng' = Feng et al. 1999 (x2 entering above max_th, /3 entering below min_th)",
    ),
    (
        "RTRED, silent cases",
        "max_th <= q < risk_th (the 'safe' area) and q in [min_th, max_th) with avg outside it both use initial max_p / 2; see crates/ccsim/src/queue/rtred.rs",
    ),
    (
        "average delay",
        "ours is the mean time a packet spends in the bottleneck queue (queueing only); the paper does not define its 'average delay time', whose values (~120 ms whatever the queue) do not track its own queue sizes",
    ),
]


def queue_spec(scenario: str, strategy: str) -> dict:
    min_th, max_th, max_p, risk_th, buf = SCENARIOS[scenario]
    q = {
        "discipline": "red",
        "limit": buf,
        "min_th": min_th,
        "max_th": max_th,
        "max_p": max_p,
        "mean_packet_size": 592,
        "drop_areas": [min_th, max_th, risk_th],
    }
    if strategy == "RTRED":
        q.update(discipline="rtred", risk_th=risk_th)
    elif strategy == "ARED":
        q.update(discipline="ared", adapt="fgs")
    elif strategy == "ARED-Feng":
        q.update(discipline="ared", adapt="feng")
    return q


def scenario(name: str = "S1", strategy: str = "RTRED", duration: float = 120.0) -> dict:
    """The scenario as a dict; `scenarios/rtred_s1.toml` is S1 with RTRED."""
    series = [{"kind": k, "link": BOTTLENECK, "interval": "100ms"} for k in ("queue", "queue_avg", "max_p", "drop_prob")]
    return {
        "name": f"rtred-{name.lower()}",
        "duration": f"{duration:g}s",
        "seed": 1,
        "hosts": ["S{1..6}", "K"],
        "routers": ["G"],
        "links": [
            {"between": ["S{1..6}", "G"], "rate": "10Mbps", "delay": {"uniform": ["1ms", "5ms"]}, "queue": {"limit": 1000}},
            {
                "between": ["G", "K"],
                "rate": "0.7Mbps",
                "delay": "20ms",
                "queue": queue_spec(name, strategy),
                "queue_reverse": {"limit": 1000},
            },
        ],
        "flows": [
            {
                "name": "tcp",
                "from": "S{1..6}",
                "to": "K",
                "start": {"uniform": ["0s", "7s"]},
                "tcp": {"variant": "reno", "mss": 552, "rwnd": 11040},
            }
        ],
        "series": series,
    }


def metrics(summary: dict) -> dict:
    q = queue(summary, BOTTLENECK)
    return {
        "avg_queue": q["mean_len_packets"],
        "delay_ms": q["mean_delay_ms"],
        "lost": q["drops"],
        "propagated": summary["totals"]["packets_sent"],
        "areas": q["drop_areas"],
    }


def reproduce(opt: Options) -> Report:
    reps = 3 if opt.quick else 10
    duration = 120.0
    points = [{"name": f"{s}/{st}", "links.1.queue": queue_spec(s, st)} for s in SCENARIOS for st in STRATEGIES]
    result = sweep(
        scenario(duration=duration),
        points=points,
        replications=reps,
        base_seed=1,
        out=opt.out / "runs",
        workers=opt.workers,
        scheduler=opt.scheduler,
        progress=opt.progress,
    )
    per: dict[tuple[str, str], list[dict]] = {}
    series: dict[tuple[str, str], dict] = {}
    for row, summary in result.summaries():
        s, st = row["name"].split("/")
        per.setdefault((s, st), []).append(metrics(summary))
        if row["replication"] == 0:
            series[(s, st)] = {x["name"].split(" ")[0]: x for x in summary["series"]}

    rep = Report("rtred", TITLE, opt.out)
    rep.text(
        f"{len(STRATEGIES)} strategies x {len(SCENARIOS)} scenarios, {reps} replications each "
        f"(seeds derived from base seed 1; replication r uses the same seed for every strategy), "
        f"{duration:g} s each. Means with 95% confidence intervals (Student t)."
    )
    table_ii(rep, per)
    drop_areas(rep, per)
    figures(rep, series)
    verdicts(rep, per)
    rep.assumptions(ASSUMED)
    (opt.out / "summary.json").write_text(json.dumps(summary_json(per), indent=2))
    rep.write()
    return rep


def column(runs: list[dict], key: str) -> list[float]:
    return [r[key] for r in runs]


def table_ii(rep: Report, per) -> None:
    rows = []
    for s in SCENARIOS:
        for st in STRATEGIES:
            runs = per.get((s, st), [])
            if not runs:
                continue
            paper = TABLE_II.get((s, st))
            cells = [s, st]
            for i, key in enumerate(["avg_queue", "delay_ms", "lost", "propagated"]):
                m, h, _ = summarise(column(runs, key))
                cells += [pm(m, h, 4), "-" if paper is None else f"{paper[i]:g}"]
            rows.append(cells)
    rep.heading("Table II: network performance")
    rep.table(
        ["scenario", "strategy", "avg queue (pkts)", "paper", "delay (ms)", "paper", "packets lost", "paper", "propagated", "paper"],
        rows,
        "ours (mean ± 95% CI) beside the paper's single values; ARED-Feng has no column in the paper",
    )


def drop_areas(rep: Report, per) -> None:
    names = ["unfair [0, min_th)", "normal [min_th, max_th)", "safe [max_th, risk_th)", "timeout [risk_th, buffer]"]
    rows = []
    fig, axes = plt.subplots(1, len(SCENARIOS), figsize=(12, 3.5), sharey=True)
    for ax, s in zip(axes, SCENARIOS):
        for i, st in enumerate(STRATEGIES):
            runs = per.get((s, st), [])
            totals = [sum(r["areas"][k] for r in runs) for k in range(4)]
            n = sum(totals) or 1
            shares = [100 * t / n for t in totals]
            rows.append([s, st] + [f"{x:.1f}" for x in shares])
            ax.bar([k + 0.2 * i for k in range(4)], shares, width=0.2, label=st)
        ax.set_title(s)
        ax.set_xticks([k + 0.3 for k in range(4)], ["unfair", "normal", "safe", "timeout"])
    axes[0].set_ylabel("% of drops")
    axes[-1].legend(fontsize=8)
    rep.heading("Figs. 4 and 5: where in the queue packets are dropped")
    rep.table(["scenario", "strategy"] + names, rows, "share of drops (%) by the instantaneous queue length at the drop, all replications")
    rep.figure(fig, "drop_areas", "Share of drops per queue area (Figs. 4/5)")


def figures(rep: Report, series) -> None:
    rep.heading("Figs. 6-11: drop probability, max_p and queues over time (replication 0)")
    for s in SCENARIOS:
        fig, axes = plt.subplots(2, len(STRATEGIES), figsize=(14, 5.5), sharex=True)
        for j, st in enumerate(STRATEGIES):
            ser = series.get((s, st))
            if not ser:
                continue
            ax = axes[0][j]
            ax.plot(ser["drop_prob"]["t"], ser["drop_prob"]["value"], lw=0.6, label="drop probability")
            ax.plot(ser["max_p"]["t"], ser["max_p"]["value"], lw=1.2, label="max_p")
            ax.set_title(f"{s} {st}")
            ax = axes[1][j]
            ax.plot(ser["queue"]["t"], ser["queue"]["value"], lw=0.5, label="actual queue")
            ax.plot(ser["queue_avg"]["t"], ser["queue_avg"]["value"], lw=1.2, label="average queue")
            ax.set_xlabel("time (s)")
        axes[0][0].legend(fontsize=7)
        axes[1][0].legend(fontsize=7)
        axes[0][0].set_ylabel("probability")
        axes[1][0].set_ylabel("packets")
        rep.figure(fig, f"series_{s.lower()}", f"{s}: drop probability and max_p (top), actual and average queue (bottom)")


def verdicts(rep: Report, per) -> None:
    def check(text: str, key: str, lower: bool, rivals: list[str]) -> None:
        outcomes = []
        for s in SCENARIOS:
            for rival in rivals:
                outcomes.append((s, rival, compare(column(per[(s, "RTRED")], key), column(per[(s, rival)], key), lower)))
        yes = sum(o[2] == "yes" for o in outcomes)
        no = sum(o[2] == "no" for o in outcomes)
        verdict = HOLDS if yes == len(outcomes) else FAILS if no == len(outcomes) else PARTLY
        rep.claim(text, verdict, "; ".join(f"{s} vs {r}: {o}" for s, r, o in outcomes))

    check("RTRED loses fewer packets than RED (every scenario)", "lost", True, ["RED"])
    check("RTRED loses fewer packets than Adaptive RED (every scenario)", "lost", True, ["ARED"])
    check("RTRED keeps a higher average queue than RED and Adaptive RED", "avg_queue", False, ["RED", "ARED"])
    check("RTRED makes the sources propagate fewer packets (fewer retransmissions)", "propagated", True, ["RED", "ARED"])
    rep.text(
        "A verdict 'yes' needs our 95% confidence intervals to separate; 'yes, within noise' means the "
        "means point the paper's way but the intervals overlap."
    )
    rep.text(
        "ARED-Feng gives exactly RED's numbers wherever the average queue stays between min_th and max_th "
        "after its first rise: Feng et al. change max_p only when the average enters the region below min_th "
        "or above max_th."
    )


def summary_json(per) -> dict:
    out = {}
    for (s, st), runs in per.items():
        entry = {}
        for key in ["avg_queue", "delay_ms", "lost", "propagated"]:
            m, h, n = summarise(column(runs, key))
            entry[key] = {"mean": m, "ci95": h, "n": n}
        paper = TABLE_II.get((s, st))
        entry["paper"] = None if paper is None else dict(zip(["avg_queue", "delay_ms", "lost", "propagated"], paper))
        out[f"{s}/{st}"] = entry
    return {"table_ii": out}
