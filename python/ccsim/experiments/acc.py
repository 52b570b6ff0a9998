"""ACC: "Experience with Active Congestion Control" (Faber), Section 3.2, Figs. 4-7.

The Fig. 3 dumbbell: two bulk TCP Reno senders and ten on/off UDP sources share a 1.5 Mb/s
link whose delay d sets the bulk flows' bandwidth-delay product. Per-bulk-endpoint
throughput against the round trip for TCP with Drop-tail, RED and RED+ECN routers and for
ACC/TCP (with and without a per-flow RTT floor below which ACC stays off); the rate of
window closes and their mean size. All modes run with the same seeds in each replication,
under both profiles; the verdicts pair the modes by replication."""

from __future__ import annotations

import json

from .. import sweep
from ..plot import FigureSpec, Mark, Panel
from . import today
from . import verdicts as v
from .common import Options, collect, curve, few_note, field, profile_facts, show, with_profiles
from .report import Claim, Report

TITLE = "ACC: Active Congestion Control (Faber), Section 3.2"
#: The section of docs/scenarios.md that sets this paper's scenarios.
SECTION = "P4 — Active Congestion Control"
CITATION = (
    'T. Faber, "Experience with Active Congestion Control", Proceedings of the DARPA Active Networks Conference '
    "and Exposition (DANCE 2002), San Francisco, May 2002, IEEE, p. 132ff, doi:10.1109/DANCE.2002.1003488."
)
SIMULATOR = "The paper simulated in ns (ns-2) extended with ACC by its author."
GO_BACK_N = (
    "What ccsim's ACC sender does that the paper does not spell out: on an obeyed control it takes the router's "
    "window and threshold and, since the paper's endpoint assumes the unsent packets 'to be negatively "
    "acknowledged', presumes the dropped segment and everything it sent after it lost and resends them by "
    "go-back-N as the new window allows (as after a timeout, without slow start). Packets the filter let through "
    "before it started, or that passed it after it ended, are then sent twice. The paper's routers installed the "
    "filter at the previous router; here the bulk senders attach to the congested router R1, which filters their "
    "packets itself, at once. Controls are obeyed at most once per window of data and never during fast recovery "
    "(ccsim's tcp/sender.rs, on_acc_control; router/acc)."
)

DELAYS = [10, 50, 100, 200, 400, 800]  # ms, the R1-R2 link
QUICK_DELAYS = [10, 100, 800]
MODES = ["droptail", "red", "red+ecn", "acc"]
# The RTT floor of the second ACC curve (ms): the paper suggests turning ACC off for
# connections with a low RTT without giving a value; 300 ms separates d <= 100 ms (base
# RTT <= 240 ms plus RED's few packets of queueing) from d >= 200 ms (base RTT 440 ms).
RTT_FLOOR_MS = 300.0
CURVES = MODES + ["acc+floor"]
LABEL = {
    "droptail": "TCP, Drop-tail",
    "red": "TCP, RED",
    "red+ecn": "TCP, RED+ECN",
    "acc": "ACC/TCP (RED)",
    "acc+floor": f"ACC/TCP, RTT floor {RTT_FLOOR_MS:g} ms",
}
BOTTLENECK = "R1->R2"
#: One colour per system in every figure of the report (the curves above and today's
#: configurations, whose "Reno, RED" is the curves' "TCP, RED").
COLOURS = {
    "droptail": "tab:blue",
    "red": "tab:orange",
    "red+ecn": "tab:cyan",
    "acc": "tab:green",
    "acc+floor": "tab:olive",
    "cubic": "tab:brown",
    "dctcp": "tab:purple",
    "xcp": "tab:red",
    "rcp": "tab:pink",
    "bbr": "tab:gray",
}

RED = {"discipline": "red", "limit": 50, "min_th": 5, "max_th": 15, "max_p": 0.1, "w_q": 0.002, "byte_mode": False}
ENDPOINT_LINK = {"rate": "10Mbps", "delay": "10ms"}

ASSUMED = [
    ("bottleneck", "R1 -> R2 at 1.5 Mb/s (the paper's range is 1.5-10 Mb/s)"),
    (
        "cross traffic",
        "10 on/off UDP sources X1..X10 -> Y1..Y10, 100 kb/s while on, on and off periods exponential with mean 2.5 s, 1000-byte payloads (the paper gives neither the count nor the distribution)",
    ),
    (
        "RED",
        "buffer 50 packets, min_th 5, max_th 15, max_p 0.1, w_q 0.002, packet mode, not gentle; the same for RED, RED+ECN and ACC; Drop-tail has the same 50-packet buffer",
    ),
    (
        "ECN",
        "RED+ECN: the RED queue marks ECN-capable packets instead of early drops (overflow drops); Reno endpoints ECN-capable (RFC 3168)",
    ),
    (
        "TCP",
        "Reno, 1000-byte segments, no delayed ACKs, min RTO 200 ms, receiver window 1 MB (never limiting); initial window and initial RTO as the profile sets them (the sensitivity section sets the RTO explicitly); bulk flows start uniformly in [0, 1] s",
    ),
    ("other queues", "every other link: Drop-tail, 100 packets (never congested)"),
    (
        "runs",
        "200 s, 10 replications (quick: 5 replications, d in {10, 100, 800} ms); throughput over the whole run, slow start included (no warm-up)",
    ),
    ("ACC window", "half the carried cwnd, at least two segments; ssthresh the same; no control when the window is already two segments"),
    (
        "ACC filter end",
        "after discarding the carried cwnd minus the new one (in segments), when a packet carries a smaller cwnd than the dropped one did (the sender has reacted), or two carried RTTs after it starts",
    ),
    (
        "ACC sender",
        "obeys at most one control per window of data; presumes the dropped segment and everything sent after it lost and resends them by go-back-N as the new window allows",
    ),
    ("ACC rate limit", "at most one control per flow per carried srtt at a queue; none before the sender has an RTT estimate"),
    (
        "ACC filter placement",
        "at the previous router on the flow's path; the bulk senders attach to R1, the congested router, so R1 filters their arriving packets itself, at once",
    ),
    ("RTT floor", f"{RTT_FLOOR_MS:g} ms on the carried srtt (the paper suggests inhibiting ACC for low-RTT connections, with no value)"),
]


def queue_spec(mode: str, rtt_floor: float | None = None) -> dict:
    """The R1 -> R2 queue of one mode; `rtt_floor` (ms) only with "acc"."""
    if mode == "droptail":
        q = {"limit": RED["limit"]}
    elif mode == "red":
        q = dict(RED)
    elif mode == "red+ecn":
        q = dict(RED, signal="ecn")
    elif mode == "acc":
        q = dict(RED, acc=True)
    else:
        raise ValueError(f"unknown mode {mode!r}; one of {MODES}")
    if rtt_floor is not None:
        if mode != "acc":
            raise ValueError("an RTT floor needs mode 'acc'")
        q["acc_rtt_floor"] = f"{rtt_floor:g}ms"
    return q


def tcp_spec(mode: str) -> dict:
    tcp = {"variant": "reno", "mss": 1000}
    if mode == "acc":
        tcp["acc"] = True
    elif mode == "red+ecn":
        tcp["ecn"] = True
    return tcp


def dumbbell(
    d_ms: float = 100, mode: str = "acc", rtt_floor: float | None = None, duration: float = 200.0, profile: str | None = None
) -> dict:
    """The Fig. 3 dumbbell with R1 -> R2 delay `d_ms`; `scenarios/acc_dumbbell.toml` is
    `dumbbell(100, "acc")`."""
    return ({} if profile is None else {"profile": profile}) | {
        "name": "acc-dumbbell",
        "duration": f"{duration:g}s",
        "seed": 1,
        "hosts": ["B{1..2}", "X{1..10}", "C{1..2}", "Y{1..10}"],
        "routers": ["R1", "R2"],
        "links": [
            dict(between=["B{1..2}", "R1"], **ENDPOINT_LINK),
            dict(between=["X{1..10}", "R1"], **ENDPOINT_LINK),
            {"between": ["R1", "R2"], "rate": "1.5Mbps", "delay": f"{d_ms:g}ms", "queue": queue_spec(mode, rtt_floor)},
            dict(between=["R2", "C{1..2}"], **ENDPOINT_LINK),
            dict(between=["R2", "Y{1..10}"], **ENDPOINT_LINK),
        ],
        "flows": [
            {"name": "bulk", "from": "B{1..2}", "to": "C{1..2}", "start": {"uniform": ["0s", "1s"]}, "tcp": tcp_spec(mode)},
            {
                "name": "cross",
                "from": "X{1..10}",
                "to": "Y{1..10}",
                "transport": "udp",
                "app": "onoff",
                "udp": {"rate": "100kbps", "packet_size": 1000, "on": {"exponential": "2.5s"}, "off": {"exponential": "2.5s"}},
            },
        ],
    }


def point(d_ms: float, curve: str) -> dict:
    """Sweep overrides of `dumbbell()` for one delay and one curve of `CURVES`."""
    mode, floor = ("acc", RTT_FLOOR_MS) if curve == "acc+floor" else (curve, None)
    return {
        "name": f"{d_ms:g}/{curve}",
        "links.2.delay": f"{d_ms:g}ms",
        "links.2.queue": queue_spec(mode, floor),
        "flows.0.tcp": tcp_spec(mode),
    }


def metrics(summary: dict) -> dict:
    """Per-run means over the bulk endpoints."""
    bulk = [f for f in summary["flows"] if f["group"] == "bulk"]
    n = len(bulk)
    closes = sum(f["endpoint_closes"] + f["acc_closes"] for f in bulk)
    segs = sum(f["endpoint_closes"] * f["endpoint_close_mean_segments"] + f["acc_closes"] * f["acc_close_mean_segments"] for f in bulk)
    acc = {k: sum(r.get(k, 0) for r in summary.get("acc", [])) for k in ("controls_sent", "below_rtt_floor", "packets_filtered")}
    return {
        "kbps": sum(f["goodput_bps"] for f in bulk) / n / 1e3,
        "rtt_ms": sum(f["mean_rtt_ms"] for f in bulk) / n,
        "closes_per_s": sum(f["endpoint_closes_per_s"] + f["acc_closes_per_s"] for f in bulk) / n,
        "acc_closes_per_s": sum(f["acc_closes_per_s"] for f in bulk) / n,
        "close_segments": segs / closes if closes else float("nan"),
        "timeouts": sum(f["timeouts"] for f in bulk) / n,
        **acc,
    }


def reproduce(opt: Options) -> Report:
    delays = QUICK_DELAYS if opt.quick else DELAYS
    reps = 5 if opt.quick else 10
    # Quick runs keep the full length: at d = 800 ms a 60 s run ends still in the first slow
    # start (RTT ~1.65 s), and a run costs well under a second anyway.
    duration = 200.0
    profiles = opt.run_profiles(reps)
    points = [point(d, c) for d in delays for c in CURVES]
    result = sweep(
        dumbbell(duration=duration), points=with_profiles(points, profiles), replications=reps, base_seed=1, **opt.sweep_args("runs")
    )
    data = {
        p: {(int(name.split("/")[0]), name.split("/")[1]): runs for name, runs in per.items()}
        for p, per in collect(result, metrics).items()
    }
    main, other = opt.profiles
    per = data.get(main, {})

    rep = Report("acc", TITLE, opt.out, citation=CITATION, profile=main, quick=opt.quick)
    rep.facts = profile_facts(opt, SIMULATOR, len(profiles) == 2) + [
        f"R1 -> R2 delay d in {{{', '.join(map(str, delays))}}} ms, so the bulk flows' base RTT is 2(20 + d) ms plus "
        f"queueing. {len(CURVES)} configurations x {len(delays)} delays, {reps} replications of {duration:g} s each under "
        f"each profile (replication r uses the same seed, hence the same cross traffic, in every configuration). "
        f"Throughput is the goodput of one bulk endpoint, averaged over the two. The paper's figures are not legible "
        f"in our copy, so only the numbers of its text are compared."
    ]
    fig4(rep, per, delays)
    fig5(rep, per, delays)
    fig67(rep, per, delays)
    rep.heading("ACC's sender and filters: go-back-N after a control")
    rep.text(GO_BACK_N)
    sensitivity(rep, opt, delays[-1], reps)
    rep.set_claims(claims(per, delays, main), claims(data[other], delays, other) if other in profiles else None)
    against_today(rep, opt, delays, duration)
    rep.assumptions(ASSUMED, SECTION)
    (opt.out / "summary.json").write_text(json.dumps(summary_json(data, delays, reps, duration, main), indent=2))
    rep.write()
    return rep


#: DCTCP's step marker on the ACC dumbbell: K at RED's max_th, the queue the paper's AQM aims
#: at (DCTCP wants K above C x RTT / 7: 2 to 43 packets here from d = 10 to 800 ms).
DCTCP_K = RED["max_th"]

TODAY = [
    today.Contender("ACC (Reno, RED)", {"links.2.queue": queue_spec("acc"), "flows.0.tcp": tcp_spec("acc")}, COLOURS["acc"]),
    today.Contender("Reno, RED", {"links.2.queue": queue_spec("red"), "flows.0.tcp": tcp_spec("red")}, COLOURS["red"]),
    today.Contender(
        "CUBIC, Tail Drop", {"links.2.queue": queue_spec("droptail"), "flows.0.tcp": {"variant": "cubic", "mss": 1000}}, COLOURS["cubic"]
    ),
    today.Contender(
        "BBR, Tail Drop", {"links.2.queue": queue_spec("droptail"), "flows.0.tcp": {"variant": "bbr", "mss": 1000}}, COLOURS["bbr"]
    ),
    today.Contender(
        f"DCTCP, step K={DCTCP_K}",
        {
            "links.2.queue": {"discipline": "step", "k": DCTCP_K, "limit": RED["limit"], "signal": "ecn"},
            "flows.0.tcp": {"variant": "dctcp", "mss": 1000},
        },
        COLOURS["dctcp"],
    ),
    today.Contender(
        "XCP",
        {"links.2.queue": {"discipline": "xcp", "limit": RED["limit"]}, "flows.0.tcp": {"variant": "xcp", "mss": 1000}},
        COLOURS["xcp"],
    ),
    today.Contender(
        "RCP",
        {"links.2.queue": {"discipline": "rcp", "limit": RED["limit"]}, "flows.0.tcp": {"variant": "rcp", "mss": 1000}},
        COLOURS["rcp"],
    ),
]


def against_today(rep: Report, opt: Options, delays: list[int], duration: float) -> None:
    """ACC beside CUBIC (RFC 9438) over Tail Drop, DCTCP (RFC 8257) over a step marker, and
    XCP and RCP through their routers, on the same dumbbell across RTTs."""
    reps = 5 if opt.quick else 10
    cases = [(f"{d}", {"links.2.delay": f"{d}ms"}) for d in delays]
    data = today.run(opt, dumbbell(duration=duration), cases, TODAY, metrics, reps)
    measures = [
        today.Measure("kbps", "goodput per bulk flow (kb/s)", (0.0, 1500.0)),
        today.Measure("closes_per_s", "window closes per second"),
        today.Measure("timeouts", "timeouts per bulk flow"),
        today.Measure("rtt_ms", "mean RTT (ms)"),
    ]
    comparisons = [
        today.Comparison(
            "ACC gives the bulk flows more goodput than CUBIC over Tail Drop (every d)", TODAY[0].name, TODAY[2].name, "kbps", v.greater
        ),
        today.Comparison(
            "ACC gives the bulk flows more goodput than DCTCP over a step marker (every d)", TODAY[0].name, TODAY[4].name, "kbps", v.greater
        ),
        today.Comparison(
            "ACC gives the bulk flows more goodput than BBR over Tail Drop (every d)", TODAY[0].name, TODAY[3].name, "kbps", v.greater
        ),
        today.Comparison("BBR keeps a shorter RTT than CUBIC over Tail Drop (every d)", TODAY[3].name, TODAY[2].name, "rtt_ms", v.less),
        today.Comparison(
            "CUBIC over Tail Drop gives the bulk flows more goodput than Reno over RED (every d)",
            TODAY[2].name,
            TODAY[1].name,
            "kbps",
            v.greater,
        ),
        today.Comparison("XCP keeps the bulk flows' RTT below ACC's (every d)", TODAY[4].name, TODAY[0].name, "rtt_ms", v.less),
        today.Comparison("RCP keeps the bulk flows' RTT below ACC's (every d)", TODAY[5].name, TODAY[0].name, "rtt_ms", v.less),
        today.Comparison("XCP gives the bulk flows more goodput than ACC (every d)", TODAY[4].name, TODAY[0].name, "kbps", v.greater),
        today.Comparison("RCP gives the bulk flows more goodput than ACC (every d)", TODAY[5].name, TODAY[0].name, "kbps", v.greater),
    ]
    today.section(
        rep,
        data,
        measures,
        comparisons,
        "ACC (Reno senders, RED with ACC at R1) and the paper's Reno over RED beside CUBIC and BBR (v1) over the same "
        f"50-packet Tail Drop buffer and DCTCP over a step marker at K = {DCTCP_K} packets in it (marking ECN-capable packets, dropping "
        "the UDP cross traffic's), and ACC's heirs, the explicit-feedback routers: XCP (Katabi et al. 2002) and RCP "
        "(Dukkipati and McKeown 2006), their senders through their router in the same 50-packet buffer (the cross "
        "traffic counts as input to both), with the same on/off cross traffic, across the R1 -> R2 delays.",
        "R1 -> R2 delay d (ms)",
    )


def runs_at(per, d: int, curve: str, key: str) -> dict[int, float]:
    """{replication: metric} of one delay and curve, leaving out NaN values."""
    return {r: x for r, x in field(per.get((d, curve), {}), key).items() if x == x}


def mean(per, d: int, curve: str, key: str) -> float:
    return v.mean_interval(runs_at(per, d, curve, key).values()).mean


def curve_panel(per, delays: list[int], curves: list[str], key: str, ylabel: str, marks: list | None = None) -> Panel:
    series = []
    for c in curves:
        s = curve(LABEL[c], [mean(per, d, c, "rtt_ms") for d in delays], [runs_at(per, d, c, key) for d in delays], color=COLOURS[c])
        series.append(s)
    n = min((len(r) for r in per.values()), default=0)
    return Panel(
        series, xlabel="bulk flows' mean RTT (ms)", ylabel=ylabel, logx=True, bounds=(0, None), marks=marks or [], note=few_note(n)
    )


def table(rep: Report, per, delays: list[int], curves: list[str], key: str, caption: str, digits: int = 3) -> None:
    rows = []
    for d in delays:
        rows.append([d, f"{2 * (20 + d)}"] + [show(runs_at(per, d, c, key), (0, None), digits) for c in curves])
    rep.table(["d (ms)", "base RTT (ms)"] + [LABEL[c] for c in curves], rows, caption)


def fig4(rep: Report, per, delays: list[int]) -> None:
    curves = ["red", "acc", "acc+floor"]
    rep.heading("Fig. 4: throughput against RTT, TCP Reno with RED vs ACC/TCP")
    table(rep, per, delays, curves, "kbps", "per-bulk-endpoint throughput, kb/s (mean ± 95% CI, or the runs)")
    rows = []
    for d in delays:
        cells = [d] + [v.relative(runs_at(per, d, c, "kbps"), runs_at(per, d, "red", "kbps")).text(2) for c in ("acc", "acc+floor")]
        cells += [f"{mean(per, d, c, 'rtt_ms'):.0f}" for c in curves]
        f = per.get((d, "acc+floor"), {}).values()
        floor_share = sum(r["below_rtt_floor"] for r in f) / max(1, sum(r["below_rtt_floor"] + r["controls_sent"] for r in f))
        cells.append(f"{100 * floor_share:.0f}%")
        rows.append(cells)
    rep.table(
        [
            "d (ms)",
            "ACC vs RED",
            "ACC+floor vs RED",
            "RTT RED (ms)",
            "RTT ACC (ms)",
            "RTT ACC+floor (ms)",
            "ACC+floor: drops below the floor",
        ],
        rows,
        "throughput against TCP/RED, paired by replication (mean and 95% CI); measured mean RTTs; ACC+floor: of the bulk drops the floor exempted or answered with a control, the share it exempted",
    )
    hi = delays[-1]
    mark = Mark(
        "point",
        "paper: ACC/TCP about 20% above TCP at the highest RTT",
        x=mean(per, hi, "red", "rtt_ms"),
        y=1.2 * mean(per, hi, "red", "kbps"),
    )
    rep.figure(
        FigureSpec([curve_panel(per, delays, curves, "kbps", "throughput per bulk endpoint (kb/s)", [mark])], width=7, height=4),
        "fig4",
        "Fig. 4: per-bulk-endpoint throughput against RTT (mean, 95% CI, dots: the runs; star: the paper's +20%)",
    )


def fig5(rep: Report, per, delays: list[int]) -> None:
    curves = ["droptail", "red", "red+ecn", "acc"]
    rep.heading("Fig. 5: Drop-tail, RED and RED+ECN")
    table(rep, per, delays, curves, "kbps", "per-bulk-endpoint throughput, kb/s (mean ± 95% CI, or the runs)")
    rep.figure(
        FigureSpec([curve_panel(per, delays, curves, "kbps", "throughput per bulk endpoint (kb/s)")], width=7, height=4),
        "fig5",
        "Fig. 5: per-bulk-endpoint throughput against RTT for the usual congestion controls (mean, 95% CI, dots: the runs)",
    )
    rep.text(
        "Drop-tail lets the queue fill its 50-packet buffer where RED keeps its average near 5-15 packets; the "
        "larger standing queue rides out the on/off cross traffic's bursts. Drop-tail against RED, paired by "
        "replication: "
        + "; ".join(f"d={d}: {v.relative(runs_at(per, d, 'droptail', 'kbps'), runs_at(per, d, 'red', 'kbps')).short()}" for d in delays)
        + "."
    )


def fig67(rep: Report, per, delays: list[int]) -> None:
    curves = ["red", "acc"]
    rep.heading("Figs. 6 and 7: rate and size of window closes")
    rep.text(
        "A close is any congestion-window reduction of a bulk sender: fast retransmit, timeout, ECN echo "
        "(the endpoint's) or an obeyed ACC control. The size of a close is the window before minus after, in packets."
    )
    table(rep, per, delays, curves, "closes_per_s", "window closes per second per bulk endpoint (mean ± 95% CI, or the runs)")
    rows = []
    for d in delays:
        m_all, m_acc = mean(per, d, "acc", "closes_per_s"), mean(per, d, "acc", "acc_closes_per_s")
        rows.append(
            [
                d,
                f"{100 * m_acc / m_all:.0f}%" if m_all else "-",
                f"{mean(per, d, 'acc', 'timeouts'):.1f}",
                f"{mean(per, d, 'red', 'timeouts'):.1f}",
            ]
        )
    rep.table(["d (ms)", "ACC: closes asked for by the router", "ACC: timeouts per endpoint", "RED: timeouts per endpoint"], rows)
    table(rep, per, delays, curves, "close_segments", "mean window reduction per close, packets (mean ± 95% CI, or the runs)")
    rep.figure(
        FigureSpec(
            [
                curve_panel(per, delays, curves, "closes_per_s", "window closes per second per endpoint"),
                curve_panel(per, delays, curves, "close_segments", "mean window reduction per close (packets)"),
            ],
            cols=2,
            width=12,
            height=4,
        ),
        "fig6_7",
        "Fig. 6 (left): control rate; Fig. 7 (right): control magnitude (mean, 95% CI, dots: the runs)",
    )


def claims(per, delays: list[int], profile: str) -> list[Claim]:
    """The paper's claims; `per`: {(d, curve): {replication: metrics}}. Every comparison
    pairs two configurations' runs by replication (the same seed, hence the same cross
    traffic)."""
    hi, lo = delays[-1], delays[0]
    top = [d for d in delays if d >= 400] or [hi]
    low = [d for d in delays if 2 * (20 + d) < RTT_FLOOR_MS]
    high = [d for d in delays if 2 * (20 + d) > RTT_FLOOR_MS]
    rel = lambda d, a, b, key="kbps": v.relative(runs_at(per, d, a, key), runs_at(per, d, b, key))  # noqa: E731
    out = []

    def add(text: str, outcome: str | v.Cases, ours: str, paper: str, how: str) -> None:
        """One claim; with `Cases`, its outcome and texts (`ours` is then unused)."""
        if isinstance(outcome, v.Cases):
            out.append(Claim(text, outcome.outcome, outcome.ours, paper, f"{how}; {outcome.detail}", profile))
        else:
            out.append(Claim(text, outcome, ours, paper, f"{how}; {ours}", profile))

    o = v.every([(f"d={d}", rel(d, "acc", "red")) for d in top], v.greater)
    add(
        "ACC/TCP gives more throughput than TCP with RED at the highest RTTs",
        o,
        "",
        "+20% and more",
        "ACC/TCP's throughput relative to TCP/RED's at d >= 400 ms, paired by replication (95% t interval)",
    )
    e = rel(hi, "acc", "red")
    lo20, hi20 = v.band(20)
    add(
        f"At the very high RTTs the improvement is about 20% ({lo20:.0f}-{hi20:.0f}%)",
        v.about(e, 20),
        f"d={hi}: {e.short()}",
        "'more than 20%', 'up to 20%'",
        f"ACC/TCP's throughput relative to TCP/RED's at d={hi} ms, against {lo20:.1f}-{hi20:.0f}%",
    )
    e = rel(lo, "acc", "red")
    add(
        "ACC/TCP does worse than TCP at low bandwidth-delay products",
        v.less(e),
        f"d={lo}: {e.short()}",
        "'a small performance degradation'",
        f"ACC/TCP relative to TCP/RED at d={lo} ms",
    )
    cases = [(f"d={d} closes/s", rel(d, "acc", "red", "closes_per_s")) for d in top] + [
        (f"d={d} packets per close", rel(d, "acc", "red", "close_segments")) for d in top
    ]
    outcomes = [v.less(e) if "closes/s" in label else v.greater(e) for label, e in cases]
    add(
        "At high RTT ACC controls less often than TCP but with larger controls",
        v.tally(cases, outcomes),
        "",
        "Figs. 6 and 7",
        "ACC relative to TCP/RED: closes per second (fewer) and packets per close (larger), paired by replication",
    )
    o = v.every([(f"d={d}", rel(d, "acc", "red", "closes_per_s")) for d in delays], v.less)
    add(
        "ACC closes the window less often than TCP at every RTT (Fig. 6)",
        o,
        "",
        "Fig. 6: fewer at every RTT",
        "ACC's closes per second relative to TCP/RED's, paired by replication",
    )
    red_c, acc_c = runs_at(per, lo, "red", "closes_per_s"), runs_at(per, lo, "acc", "closes_per_s")
    red_h, acc_h = runs_at(per, hi, "red", "closes_per_s"), runs_at(per, hi, "acc", "closes_per_s")
    reps = set(red_c) & set(acc_c) & set(red_h) & set(acc_h)
    diff = {
        r: 100 * (acc_c[r] - red_c[r]) / red_c[r] - 100 * (acc_h[r] - red_h[r]) / red_h[r] for r in reps if red_c[r] > 0 and red_h[r] > 0
    }
    e = v.mean_interval(diff.values(), "points")
    add(
        "The reduction in closes is largest at low bandwidth-delay products (Fig. 6)",
        v.less(e),
        f"d={lo} minus d={hi}: {e.short()}",
        "'most pronounced at low bandwidth-delay products'",
        f"ACC's relative change in closes per second at d={lo} ms minus that at d={hi} ms, per replication",
    )
    e = rel(lo, "acc", "red", "close_segments")
    add(
        "At low bandwidth-delay products ACC's closes are smaller than TCP's (Fig. 7)",
        v.less(e),
        f"d={lo}: {e.short()}",
        "Fig. 7: smaller at low RTT",
        f"ACC's packets per close relative to TCP/RED's at d={lo} ms",
    )
    cases = [(f"d={d} {c}", rel(d, c, "red")) for d in delays for c in ("droptail", "red+ecn")]
    o = v.every(cases, lambda e: v.within(e, -10, 10))
    add(
        "Drop-tail, RED and RED+ECN do not differ appreciably (within 10% of RED)",
        o,
        "",
        "'do not differentiate themselves appreciably'",
        "Drop-tail's and RED+ECN's throughput relative to RED's, paired by replication, against [-10%, +10%]",
    )
    o = v.every([(c, rel(hi, "acc", c)) for c in ("droptail", "red", "red+ecn")], v.greater)
    add(
        f"At high RTT (d={hi} ms) ACC/TCP does better than TCP with any of Drop-tail, RED and RED+ECN",
        o,
        "",
        "Fig. 5",
        f"ACC/TCP's throughput relative to each at d={hi} ms, paired by replication",
    )
    premise = v.every([(f"d={d} ACC vs RED", rel(d, "acc", "red")) for d in low], v.less)
    cases = [(f"d={d} floor vs RED", rel(d, "acc+floor", "red")) for d in low + high]
    consequence = v.tally(cases, [v.greater(e, -5) if d in low else v.greater(e) for d, (_, e) in zip(low + high, cases)])
    add(
        f"ACC loses throughput at low RTT, and an RTT floor ({RTT_FLOOR_MS:g} ms) removes that loss while keeping the high-RTT gain",
        v.given(premise.outcome, consequence.outcome),
        premise.ours if premise.outcome != v.HOLDS else consequence.ours,
        "suggested, no numbers",
        f"premise: ACC below TCP/RED at every d whose base RTT is under the floor ({', '.join(map(str, low))} ms): {premise.outcome}, {premise.detail}; "
        f"then ACC+floor at most 5% below RED there and above RED at the higher RTTs: {consequence.outcome}, {consequence.detail}",
    )

    def fall(c):
        return {
            r: 100 * (x - runs_at(per, hi, c, "kbps")[r]) / x
            for r, x in runs_at(per, lo, c, "kbps").items()
            if r in runs_at(per, hi, c, "kbps") and x > 0
        }

    e = v.paired(fall("red"), fall("acc"), "points")
    add(
        "ACC/TCP's throughput is more constant across bandwidth-delay products than TCP's",
        v.greater(e),
        f"TCP's fall minus ACC's: {e.short()}",
        "'a more constant throughput'",
        f"fall of throughput from d={lo} to d={hi} ms (% of the d={lo} value), TCP/RED's minus ACC/TCP's, per replication",
    )
    return out


def sensitivity(rep: Report, opt: Options, d: int, reps: int) -> None:
    """The initial RTO at the highest delay, set explicitly to RFC 6298's 1 s and to ns-2's
    3 s: below the round trip there, 1 s makes each sender time out once at the start."""
    points = []
    for rto in ("1s", "3s"):
        for c in ("red", "acc"):
            pt = point(d, c)
            points.append(dict(pt, name=f"{rto}/{c}", **{"flows.0.tcp": dict(tcp_spec(c), initial_rto=rto)}, profile=opt.profile))
    result = sweep(dumbbell(), points=points, replications=reps, base_seed=1, **opt.sweep_args("runs-initial-rto"))
    per: dict[tuple[str, str], dict[int, dict]] = {}
    for row, summary in result.summaries():
        rto, c = row["name"].split("/")
        per.setdefault((rto, c), {})[row["replication"]] = metrics(summary)
    rows = []
    for rto in ("1s", "3s"):
        for c in ("red", "acc"):
            runs = per.get((rto, c), {})
            rows.append([rto, LABEL[c]] + [show(field(runs, k), (0, None)) for k in ("kbps", "closes_per_s", "close_segments", "timeouts")])
    rep.heading(f"Sensitivity: initial RTO 1 s and 3 s at d = {d} ms")
    change = {rto: v.relative(field(per.get((rto, "acc"), {}), "kbps"), field(per.get((rto, "red"), {}), "kbps")) for rto in ("1s", "3s")}
    rep.text(
        f"At d = {d} ms the round trip exceeds RFC 6298's initial RTO of 1 s, so with it every sender's first "
        f"segment times out once (a close of zero packets, counted in Figs. 6/7); ns-2, which the paper used, starts "
        f"at 3 s. Both set explicitly here ({opt.profile} profile otherwise), same seeds: ACC vs RED "
        f"{change['1s'].short()} with 1 s, {change['3s'].short()} with 3 s."
    )
    rep.table(
        ["initial RTO", "", "kb/s", "closes/s", "packets per close", "timeouts per endpoint"],
        rows,
        f"d = {d} ms, {reps} replications (mean ± 95% CI, or the runs)",
    )


def summary_json(data, delays: list[int], reps: int, duration: float, main: str) -> dict:
    out = {}
    for profile, per in data.items():
        fig4 = {}
        for d in delays:
            entry = {"base_rtt_ms": 2 * (20 + d)}
            for c in CURVES:
                e = v.mean_interval(runs_at(per, d, c, "kbps").values())
                entry[c] = {
                    "kbps": {"mean": e.mean, "ci95": [e.lo, e.hi], "n": e.n},
                    "rtt_ms": mean(per, d, c, "rtt_ms"),
                    "closes_per_s": mean(per, d, c, "closes_per_s"),
                    "close_segments": mean(per, d, c, "close_segments"),
                }
            fig4[str(d)] = entry
        out[profile] = {"fig4": fig4}
    return {"profile": main, "replications": reps, "duration_s": duration, "rtt_floor_ms": RTT_FLOOR_MS, "profiles": out}
