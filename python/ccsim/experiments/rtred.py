"""RTRED: "A Third Drop Level for TCP-RED Congestion Control Strategy" (Hamadneh et al.).

Three scenarios (Table I) x {RED, Adaptive RED (Floyd/Gummadi/Shenker and Feng et al.),
RTRED}, replicated under both profiles; Table II side by side with the paper (as a table
and as a figure with the paper's values marked); the drop-area shares of Figs. 4 and 5;
the series of Figs. 6-11; a verdict per claim, RTRED paired with RED and Adaptive RED by
replication."""

from __future__ import annotations

import json

from .. import sweep
from ..plot import FigureSpec, Mark, Panel, Series
from . import kernel_runs, today
from . import verdicts as v
from .common import Options, collect, curve, few_note, field, profile_facts, queue, show, with_profiles
from .report import Claim, Report

TITLE = "RTRED: a third drop level for TCP-RED (Hamadneh, Dixon, Cole, Murray)"
#: The section of docs/scenarios.md that sets this paper's scenarios.
SECTION = "P2 — RTRED"
CITATION = (
    'N. Hamadneh, M. Dixon, P. Cole, D. Murray, "A Third Drop Level For TCP-RED Congestion Control Strategy", '
    "International Journal of Electrical and Computer Engineering (World Academy of Science, Engineering and "
    "Technology), vol. 5, no. 9, pp. 1019-1025, 2011; also Proceedings of WASET, vol. 81, pp. 892-898, 2011."
)
SIMULATOR = 'The paper simulated in ns-2 ("a NS-2 simulation script").'
BOTTLENECK = "G->K"

# Table I: (min_th, max_th, max_p, risk_th, buffer)
SCENARIOS = {"S1": (12, 25, 0.05, 28, 30), "S2": (60, 90, 0.1, 95, 100), "S3": (15, 30, 0.08, 40, 50)}
STRATEGIES = ["RED", "ARED", "ARED-Feng", "RTRED"]
#: One colour per queue in every figure of the report, today's baselines included.
COLOURS = {
    "RED": "tab:orange",
    "ARED": "tab:red",
    "ARED-Feng": "tab:pink",
    "RTRED": "tab:green",
    "CoDel": "tab:blue",
    "PIE": "tab:purple",
    "DualPI2/Prague": "tab:cyan",
}

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
    (
        "TCP",
        "Reno, receiver window 20 segments (ns-2's default window_), no delayed ACKs, min RTO 200 ms; initial window, initial RTO and the rest as the profile sets them",
    ),
    ("run length", "120 s (Table II's ~18,000 packets fit 0.7 Mb/s for about two minutes); no warm-up"),
    ("access links", "10 Mb/s, delay drawn uniformly in [1, 5] ms per source (stream delay/Si-G)"),
    (
        "RED",
        "packet mode, w_q = 0.002, not gentle, mean packet size 592 bytes for the idle-time decay; wait and the early/forced accounting as the profile sets them",
    ),
    (
        "Adaptive RED",
        "'ARED' = Floyd/Gummadi/Shenker 2001 (ns-2's adaptive_: every 0.5 s toward the middle of [min_th, max_th]); 'ARED-Feng' = Feng et al. 1999 (x2 entering above max_th, /3 entering below min_th)",
    ),
    (
        "RTRED, silent cases",
        "max_th <= q < risk_th (the 'safe' area) and q in [min_th, max_th) with avg outside it both use initial max_p / 2 (ccsim's queue/rtred.rs documents and tests the choice)",
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
        "w_q": 0.002,
        "byte_mode": False,
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


def scenario(name: str = "S1", strategy: str = "RTRED", duration: float = 120.0, profile: str | None = None) -> dict:
    """The scenario as a dict; `scenarios/rtred_s1.toml` is S1 with RTRED."""
    series = [{"kind": k, "link": BOTTLENECK, "interval": "100ms"} for k in ("queue", "queue_avg", "max_p", "drop_prob")]
    out = {} if profile is None else {"profile": profile}
    return out | {
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


def queue_metrics(summary: dict) -> dict:
    """The bottleneck's time-average queue, queueing delay and drops, whatever its discipline."""
    q = queue(summary, BOTTLENECK)
    return {"avg_queue": q["mean_len_packets"], "delay_ms": q["mean_delay_ms"], "lost": q["drops"]}


def metrics(summary: dict) -> dict:
    areas = queue(summary, BOTTLENECK)["drop_areas"]
    return queue_metrics(summary) | {
        "propagated": summary["totals"]["packets_sent"],
        "areas": areas,
        "unfair_timeout": areas[0] + areas[3],
    }


def run_metrics(summary: dict) -> dict:
    """`metrics` plus, for replication 0's figures, the bottleneck's series."""
    m = metrics(summary)
    m["series"] = {x["name"].split(" ")[0]: x for x in summary["series"]}
    return m


def reproduce(opt: Options) -> Report:
    reps = 5 if opt.quick else 10
    duration = 120.0
    profiles = opt.run_profiles(reps)
    points = [{"name": f"{s}/{st}", "links.1.queue": queue_spec(s, st)} for s in SCENARIOS for st in STRATEGIES]
    result = sweep(
        scenario(duration=duration), points=with_profiles(points, profiles), replications=reps, base_seed=1, **opt.sweep_args("runs")
    )
    data = collect(result, run_metrics)
    main, other = opt.profiles
    per = data.get(main, {})

    rep = Report("rtred", TITLE, opt.out, citation=CITATION, profile=main, quick=opt.quick)
    rep.facts = profile_facts(opt, SIMULATOR, len(profiles) == 2) + [
        f"{len(STRATEGIES)} strategies x {len(SCENARIOS)} scenarios, {reps} replications of {duration:g} s each under each "
        f"profile (seeds derived from base seed 1; replication r uses the same seed for every strategy and both profiles)."
    ]
    table_ii(rep, per)
    drop_areas(rep, per)
    figures(rep, per)
    rep.text(
        "ARED-Feng gives exactly RED's numbers wherever the average queue stays between min_th and max_th "
        "after its first rise: Feng et al. change max_p only when the average enters the region below min_th "
        "or above max_th."
    )
    rep.set_claims(claims(per, main), claims(data[other], other) if other in profiles else None)
    against_today(rep, opt, duration)
    kernel_section(rep, opt)
    rep.assumptions(ASSUMED, SECTION)
    (opt.out / "summary.json").write_text(json.dumps(summary_json(data, main), indent=2))
    rep.write()
    return rep


def runs_of(per, s: str, st: str) -> dict[int, dict]:
    return per.get(f"{s}/{st}", {})


KEYS = ["avg_queue", "delay_ms", "lost", "propagated"]


def table_ii(rep: Report, per) -> None:
    rows = []
    for s in SCENARIOS:
        buf = SCENARIOS[s][4]
        for st in STRATEGIES:
            runs = runs_of(per, s, st)
            if not runs:
                continue
            paper = TABLE_II.get((s, st))
            cells = [s, st]
            for i, key in enumerate(KEYS):
                cells += [
                    show(field(runs, key), (0, buf) if key == "avg_queue" else (0, None), 4),
                    "-" if paper is None else f"{paper[i]:g}",
                ]
            rows.append(cells)
    rep.heading("Table II: network performance")
    rep.table(
        ["scenario", "strategy", "avg queue (pkts)", "paper", "delay (ms)", "paper", "packets lost", "paper", "propagated", "paper"],
        rows,
        "ours (mean ± 95% CI, or the runs when they are too few) beside the paper's single values; ARED-Feng has no column in the paper",
    )
    labels = ["average queue (packets)", "average delay (ms)", "packets lost", "packets propagated"]
    panels = []
    n = min((len(r) for r in per.values()), default=0)
    for i, (key, label) in enumerate(zip(KEYS, labels)):
        series, marks = [], []
        for j, st in enumerate(STRATEGIES):
            xs = [k + 0.18 * (j - 1.5) for k in range(len(SCENARIOS))]
            series.append(curve(st, xs, [field(runs_of(per, s, st), key) for s in SCENARIOS], color=COLOURS[st]))
            series[-1].kind = "points"
            for x, s in zip(xs, SCENARIOS):
                paper = TABLE_II.get((s, st))
                if paper is not None:
                    marks.append(Mark("point", "paper" if not marks else "", x=x, y=paper[i]))
        panels.append(
            Panel(
                series,
                xlabel="scenario",
                ylabel=label,
                marks=marks,
                bounds=(0, None),
                xticks=list(enumerate(SCENARIOS)),
                legend=i == 0,
                note=few_note(n),
            )
        )
    rep.figure(
        FigureSpec(panels, cols=2, width=11, height=7),
        "table_ii",
        "Table II: ours (mean with 95% CI, dots: the runs) and the paper's values (stars)",
    )


def drop_areas(rep: Report, per) -> None:
    names = ["unfair [0, min_th)", "normal [min_th, max_th)", "safe [max_th, risk_th)", "timeout [risk_th, buffer]"]
    rows, panels = [], []
    for s in SCENARIOS:
        series = []
        for i, st in enumerate(STRATEGIES):
            runs = runs_of(per, s, st).values()
            totals = [sum(r["areas"][k] for r in runs) for k in range(4)]
            n = sum(totals) or 1
            shares = [100 * t / n for t in totals]
            rows.append([s, st] + [f"{x:.1f}" for x in shares])
            series.append(Series(st, [float(k) for k in range(4)], shares, kind="bar", width=0.2, offset=0.2 * i - 0.3, color=COLOURS[st]))
        panels.append(
            Panel(series, title=s, ylabel="% of drops", xticks=list(enumerate(["unfair", "normal", "safe", "timeout"])), legend=s == "S3")
        )
    rep.heading("Figs. 4 and 5: where in the queue packets are dropped")
    rep.table(["scenario", "strategy"] + names, rows, "share of drops (%) by the instantaneous queue length at the drop, all replications")
    rep.figure(FigureSpec(panels, cols=3, width=12, height=3.5, sharey=True), "drop_areas", "Share of drops per queue area (Figs. 4/5)")


def figures(rep: Report, per) -> None:
    rep.heading("Figs. 6-11: drop probability, max_p and queues over time (replication 0)")
    for s in SCENARIOS:
        top, bottom = [], []
        for st in STRATEGIES:
            ser = runs_of(per, s, st).get(0, {}).get("series")
            if not ser:
                continue
            line = lambda k, label, w, ser=ser: Series(label, ser[k]["t"], ser[k]["value"], kind="plain", width=w)  # noqa: E731
            top.append(
                Panel(
                    [line("drop_prob", "drop probability", 0.6), line("max_p", "max_p", 1.2)],
                    title=f"{s} {st}",
                    xlabel="time (s)",
                    ylabel="probability",
                    legend=not top,
                )
            )
            bottom.append(
                Panel(
                    [line("queue", "actual queue", 0.5), line("queue_avg", "average queue", 1.2)],
                    xlabel="time (s)",
                    ylabel="packets",
                    legend=not bottom,
                    bounds=(0, SCENARIOS[s][4]),
                )
            )
        rep.figure(
            FigureSpec(top + bottom, rows=2, cols=len(top), width=14, height=6, sharex=True),
            f"series_{s.lower()}",
            f"{s}: drop probability and max_p (top), actual and average queue (bottom)",
        )


def claims(per, profile: str) -> list[Claim]:
    """The paper's claims, each decided from RTRED's runs paired with its rival's by
    replication; `per`: {"S/strategy": {replication: metrics}}."""

    def label(s: str, r: str, rivals: list[str]) -> str:
        return f"{s} vs {r}" if len(rivals) > 1 else s

    def check(text: str, key: str, test, rivals: list[str], how: str) -> Claim:
        i = KEYS.index(key)
        cases = [
            (label(s, r, rivals), v.relative(field(runs_of(per, s, "RTRED"), key), field(runs_of(per, s, r), key)))
            for r in rivals
            for s in SCENARIOS
        ]
        c = v.every(cases, test)
        pct = lambda s, r: 100 * (TABLE_II[(s, "RTRED")][i] - TABLE_II[(s, r)][i]) / TABLE_II[(s, r)][i]  # noqa: E731
        paper = "; ".join(
            f"{'S1/S2/S3' if len(rivals) == 1 else 'S1/S2/S3 vs ' + r}: " + "/".join(f"{pct(s, r):+.1f}" for s in SCENARIOS) + "%"
            for r in rivals
        )
        return Claim(
            text,
            c.outcome,
            c.ours,
            paper,
            f"RTRED's {how} relative to the rival's, paired by replication (95% t interval); {c.detail}",
            profile,
        )

    out = [
        check("RTRED loses fewer packets than RED (S1-S3)", "lost", v.less, ["RED"], "packets lost"),
        check("RTRED loses fewer packets than Adaptive RED (S1-S3)", "lost", v.less, ["ARED"], "packets lost"),
        check(
            "RTRED keeps a higher average queue than RED and Adaptive RED", "avg_queue", v.greater, ["RED", "ARED"], "time-average queue"
        ),
        check(
            "RTRED makes the sources propagate fewer packets than RED and Adaptive RED (fewer retransmissions)",
            "propagated",
            v.less,
            ["RED", "ARED"],
            "packets propagated",
        ),
    ]
    cases = [
        (s, v.paired(field(runs_of(per, s, "RTRED"), "unfair_timeout"), field(runs_of(per, s, "RED"), "unfair_timeout"), "drops"))
        for s in SCENARIOS
    ]
    c = v.every(cases, v.less)
    out.append(
        Claim(
            "RTRED drops fewer packets than RED in the unfair and timeout areas (queue below min_th or above risk_th)",
            c.outcome,
            c.ours,
            "stated, no numbers (Figs. 4/5 not legible)",
            f"drops in [0, min_th) and [risk_th, buffer], RTRED minus RED, paired by replication; {c.detail}",
            profile,
        )
    )
    return out


# The question against a real stack (`kernel_section`): RTRED against RED with the six
# sources the Linux kernel's Reno (SACK and RACK on, its defaults), Table I's scenarios.
#: (scenarios, replications, run length s): full and quick.
KERNEL_FULL = (list(SCENARIOS), 5, 60.0)
KERNEL_QUICK = (["S1"], 2, 20.0)


def kernel_scenario(name: str, strategy: str, seed: int, duration: float) -> dict:
    """Table I's scenario `name` with `strategy` for `ccsim kernel run`: the six sources the
    kernel's Reno with SACK (its receive window its own: `rwnd` is not applied), no series."""
    doc = scenario(name, strategy, duration)
    doc |= {"name": f"rtred-{name.lower()}-kernel", "seed": seed}
    del doc["series"]
    for f in doc["flows"]:
        f["tcp"] = {"variant": "reno", "mss": 552, "sack": True}
    return doc


def kernel_metrics(summary: dict) -> dict:
    return queue_metrics(summary) | {"propagated": summary["totals"]["packets_sent"], "kbps": summary["totals"]["goodput_bps"] / 1e3}


def kernel_claims(data: dict, scenarios: list[str]) -> list[Claim]:
    """The paper's first and third claims on the kernel's Reno, RTRED paired with RED by
    replication in each scenario."""
    out = []
    for text, key, test in (
        ("With the kernel's Reno senders, RTRED loses fewer packets than RED", "lost", v.less),
        ("With the kernel's Reno senders, RTRED keeps a higher average queue than RED", "avg_queue", v.greater),
    ):
        cases = [(s, v.relative(field(data.get((s, "RTRED"), {}), key), field(data.get((s, "RED"), {}), key))) for s in scenarios]
        c = v.every(cases, test)
        out.append(
            Claim(
                f"{text} ({', '.join(scenarios)})",
                c.outcome,
                c.ours,
                "",
                f"RTRED relative to RED, paired by replication; {c.detail}",
                "kernel",
            )
        )
    return out


def kernel_section(rep: Report, opt: Options) -> None:
    """RTRED against RED with the kernel's TCP senders (`kernel_runs`)."""
    title = "Against a real stack: RTRED and RED with the kernel's Reno (our question, not the paper's)"
    if kernel_runs.skipped(rep, opt, title):
        return
    scenarios, reps, duration = KERNEL_QUICK if opt.quick else KERNEL_FULL
    configs = {
        s: [kernel_runs.Config(st, lambda seed, s=s, st=st: kernel_scenario(s, st, seed, duration)) for st in ("RED", "RTRED")]
        for s in scenarios
    }
    data = kernel_runs.run(opt, configs, reps, kernel_metrics)
    kernel_runs.section(
        rep,
        title,
        "Table I's scenarios with the six sources the Linux kernel's own TCP (`ccsim kernel run`: each host a network "
        "namespace, the links and the RED and RTRED queues ccsim's router code): Reno with the kernel's SACK, RACK-TLP, "
        "initial window of 10 and its own receive window (the paper's 20-segment window is not applied), 552-byte "
        f"segments. {', '.join(scenarios)}; {reps} replications of {duration:g} s per strategy, no warm-up, RTRED and RED "
        "of one replication back to back.",
        data,
        scenarios,
        ["RED", "RTRED"],
        [
            ("avg_queue", "avg queue (pkts)", (0.0, None)),
            ("delay_ms", "queueing delay (ms)", (0.0, None)),
            ("lost", "packets lost", (0.0, None)),
            ("propagated", "packets propagated", (0.0, None)),
            ("kbps", "goodput (kb/s)", (0.0, 700.0)),
        ],
        kernel_claims(data, scenarios),
    )


TODAY = [
    today.Contender("RED", lambda s: {"links.1.queue": queue_spec(s, "RED")}, COLOURS["RED"]),
    today.Contender("RTRED", lambda s: {"links.1.queue": queue_spec(s, "RTRED")}, COLOURS["RTRED"]),
    today.Contender("CoDel", lambda s: {"links.1.queue": {"discipline": "codel", "limit": SCENARIOS[s][4]}}, COLOURS["CoDel"]),
    today.Contender("PIE", lambda s: {"links.1.queue": {"discipline": "pie", "limit": SCENARIOS[s][4]}}, COLOURS["PIE"]),
    # L4S: DualPI2 (RFC 9332) marking, the six senders TCP Prague (ECT(1), Accurate ECN).
    today.Contender(
        "DualPI2/Prague",
        lambda s: {
            "links.1.queue": {"discipline": "dualpi2", "limit": SCENARIOS[s][4], "signal": "ecn"},
            "flows.tcp.tcp": {"variant": "prague", "mss": 552, "rwnd": 11040},
        },
        COLOURS["DualPI2/Prague"],
    ),
]


def today_metrics(summary: dict) -> dict:
    return queue_metrics(summary) | {"kbps": summary["totals"]["goodput_bps"] / 1e3}


def against_today(rep: Report, opt: Options, duration: float) -> None:
    """RTRED beside CoDel (RFC 8289) and PIE (RFC 8033) at their RFC defaults, on Table I's
    scenarios with the same buffers and the same Reno senders."""
    reps = 5 if opt.quick else 10
    data = today.run(opt, scenario(duration=duration), [(s, {}) for s in SCENARIOS], TODAY, today_metrics, reps)
    measures = [
        today.Measure("avg_queue", "avg queue (pkts)"),
        today.Measure("delay_ms", "queueing delay (ms)"),
        today.Measure("lost", "packets lost"),
        today.Measure("kbps", "goodput (kb/s)", (0.0, 700.0)),
    ]
    comparisons = [
        today.Comparison("CoDel keeps a shorter queueing delay than RTRED (S1-S3)", "CoDel", "RTRED", "delay_ms", v.less),
        today.Comparison("PIE keeps a shorter queueing delay than RTRED (S1-S3)", "PIE", "RTRED", "delay_ms", v.less),
        today.Comparison("RTRED loses fewer packets than CoDel (S1-S3)", "RTRED", "CoDel", "lost", v.less),
        today.Comparison("RTRED loses fewer packets than PIE (S1-S3)", "RTRED", "PIE", "lost", v.less),
        today.Comparison("RTRED delivers more goodput than CoDel (S1-S3)", "RTRED", "CoDel", "kbps", v.greater),
        today.Comparison("DualPI2/Prague keeps a shorter queueing delay than RTRED (S1-S3)", "DualPI2/Prague", "RTRED", "delay_ms", v.less),
        today.Comparison("DualPI2/Prague loses fewer packets than RTRED (S1-S3)", "DualPI2/Prague", "RTRED", "lost", v.less),
    ]
    today.section(
        rep,
        data,
        measures,
        comparisons,
        "RTRED and RED beside CoDel and PIE, the AQMs Linux ships today, at their RFCs' defaults (CoDel: target 5 ms, "
        "interval 100 ms; PIE: target 15 ms, update 15 ms, burst allowance 150 ms), on the three scenarios of Table I with "
        "the same buffers and the same six Reno sources; and L4S, DualPI2 (RFC 9332 defaults, marking) with the six "
        "sources TCP Prague (ECT(1), Accurate ECN) instead of Reno. At 0.7 Mb/s one 592-byte packet takes 6.8 ms to send, longer "
        "than CoDel's target: CoDel starts dropping once packets have waited more than 5 ms for a whole interval "
        "with more than an MTU (1500 bytes, two or three packets here) queued.",
        "scenario",
    )


def summary_json(data, main: str) -> dict:
    out = {}
    for profile, per in data.items():
        table = {}
        for name, runs in per.items():
            s, st = name.split("/")
            entry = {}
            for key in KEYS:
                e = v.mean_interval(field(runs, key).values())
                entry[key] = {"mean": e.mean, "ci95": [e.lo, e.hi], "n": e.n}
            paper = TABLE_II.get((s, st))
            entry["paper"] = None if paper is None else dict(zip(KEYS, paper))
            table[name] = entry
        out[profile] = {"table_ii": table}
    return {"profile": main, "profiles": out}
