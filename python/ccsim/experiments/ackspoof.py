"""ACK spoofing: "RED with ACK Spoofing" (Xu & Molle).

Network 1 (Fig. 3): goodput, average queue and loss rate at the R2->R3 bottleneck against
the buffer size for Tail Drop, RED, RED/ECN and RED/Spoofing (Fig. 4), with the per-packet
send jitter and without it (the phase effect); RED/Spoofing and RED/ECN against max_p at
buffer 120 (Figs. 5 and 6). Network 2 (Fig. 7): the bandwidth of two groups of ten flows,
the second starting at 2 s, in 100 ms bins (Fig. 8), with a stability number. Everything
runs under both profiles; a verdict per claim of Sections 3.1-3.3, the AQMs paired by
replication.

Run time with two worker processes on a shared two-core machine: see the README. The full
version is about 1,500 Network 1 runs per profile (Fig. 4: 24 points x 30, Figs. 5/6: 18
more points x 30, no jitter: 24 x 10) at about 0.3 s of wall time each with two workers,
plus 40 Network 2 runs."""

from __future__ import annotations

import json
import math

from .. import sweep
from ..plot import FigureSpec, Mark, Panel
from . import kernel_runs, today
from . import verdicts as v
from .common import Options, curve, few_note, field, group_goodput, profile_facts, queue, show, split_profile, with_profiles
from .report import Claim, Report

TITLE = "RED with ACK spoofing (Xu, Molle)"
#: The section of docs/scenarios.md that sets this paper's scenarios.
SECTION = "P1 — RED with ACK spoofing"
CITATION = (
    'Z. Xu, M. Molle, "RED with ACK Spoofing", Department of Electrical Engineering and Department of Computer '
    "Science & Engineering, University of California, Riverside (c. 2003; the copy reproduced here names no venue)."
)
SIMULATOR = (
    "Unlike the other three papers, this one did not use ns-2: its simulator is written in C/C++ with CSIM18 and "
    "models a Stevens-style TCP Reno; the ns2 profile stands in for the settings it leaves unsaid."
)
BOTTLENECK = "R2->R3"
BOTTLENECK2 = "R0->R1"

# Table 1: buffer (packets) -> (min_th, max_th); max_p per AQM.
TABLE_1 = {40: (5, 30), 60: (10, 50), 90: (10, 72), 120: (10, 90), 160: (10, 120), 200: (10, 150)}
MAX_P = {"RED": 0.02, "RED/ECN": 0.10, "RED/Spoofing": 0.05}
AQMS = ["Tail Drop", "RED", "RED/ECN", "RED/Spoofing"]
SIGNAL = {"RED": "drop", "RED/ECN": "ecn", "RED/Spoofing": "spoof"}
MAX_PS = [round(0.01 * k, 2) for k in range(1, 11)]
COLOURS = {"Tail Drop": "tab:red", "RED": "tab:orange", "RED/ECN": "tab:blue", "RED/Spoofing": "tab:green"}
LINK_MBPS = 100.0

TCP = {"variant": "reno", "mss": 1000}
JITTER = "0.1ms"
# The spoofer's options, at their defaults, written out.
SPOOFING = {"dupacks": 3, "spoof_below_real_ack": True, "discard_retransmission": True, "asymmetric_threshold": 3}

ASSUMED = [
    (
        "Network 1 delays",
        "H0-R0 2 ms, H1-R0 4 ms, H2-R1 6 ms, H3-R1 8 ms, R0-R2 5 ms, R1-R2 5 ms, R2-R3 10 ms, R3-H4 2 ms, R3-H5 3 ms; every link 100 Mb/s",
    ),
    (
        "packets",
        "1000-byte segments (1040 on the wire), 40-byte ACKs, every segment acknowledged, min RTO 200 ms; initial window and initial RTO as the profile sets them",
    ),
    (
        "starts and length",
        "Network 1: starts uniform in [0, 1] s, 20 s runs, statistics from 5 s (quick: 10 s runs, statistics from 3 s); Network 2: group 1 at 0 s, group 2 at 2 s, 10 s runs",
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
        "Tail Drop: a plain buffer of Table 1's size; RED family: packet mode, w_q 0.002, not gentle, mean packet size 1000 bytes for the idle-time decay, wait as the profile sets it; thresholds of Table 1. The reverse (ACK) queues: 120-packet Tail Drop; other queues: 100-packet Tail Drop (never full)",
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
        "w_q": 0.002,
        "byte_mode": False,
        "signal": SIGNAL[aqm],
    }


def tcp(aqm: str) -> dict:
    return dict(TCP, ecn=True) if aqm == "RED/ECN" else dict(TCP)


def network1(
    aqm: str = "RED/Spoofing", buffer: int = 120, max_p: float | None = None, jitter: bool = True, profile: str | None = None
) -> dict:
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
    return ({} if profile is None else {"profile": profile}) | {
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


def network2(aqm: str = "RED/Spoofing", profile: str | None = None) -> dict:
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
    return ({} if profile is None else {"profile": profile}) | {
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
    reps2 = 3 if quick else 10

    profiles = opt.run_profiles(reps)
    # Quick runs of Network 1 are half as long (10 s, statistics from 3 s): 40 flows at
    # 100 Mb/s make them the costliest runs of `reproduce all --quick`.
    net1 = dict(network1(), duration="10s", warmup="3s") if quick else network1()
    # Fig. 4 (with jitter) and Figs. 5/6 share replications, seeds and two points: one sweep.
    points = [point(a, b) for b in buffers for a in AQMS]
    points += [point(a, 120, p) for p in max_ps for a in ("RED/ECN", "RED/Spoofing")]
    main_runs = collect(sweep(net1, points=with_profiles(points, profiles), replications=reps, **opt.sweep_args("runs-net1")))
    nj_points = [point(a, b, jitter=False) for b in nj_buffers for a in AQMS]
    nojit = collect(
        sweep(net1, points=with_profiles(nj_points, opt.profiles[:1]), replications=nj_reps, **opt.sweep_args("runs-net1-nojitter"))
    )
    net2: dict[str, dict[str, dict[int, dict]]] = {}
    points2 = [{"name": a, "links.0.queue": queue_spec(a), "flows.*.tcp": tcp(a)} for a in AQMS]
    res2 = sweep(network2(), points=with_profiles(points2, profiles), replications=reps2, **opt.sweep_args("runs-net2"))
    for row, summary in res2.summaries():
        profile, a = split_profile(row["name"])
        net2.setdefault(profile, {}).setdefault(a, {})[row["replication"]] = group_series(summary)

    main, other = opt.profiles
    rep = Report("ackspoof", TITLE, opt.out, citation=CITATION, profile=main, quick=quick)
    rep.facts = profile_facts(opt, SIMULATOR, len(profiles) == 2) + [
        f"Network 1: {reps} replications of {net1['duration']} (statistics from {net1['warmup']}) per point ({len(buffers)} buffer sizes, {len(max_ps)} values of max_p), "
        f"{nj_reps} per point without send jitter ({main} profile only); Network 2: {reps2} replications per AQM. "
        f"Replication r uses the same seed (derived from base seed 1) at every point and under both profiles."
    ]
    views = {}
    for profile in profiles:
        runs = main_runs.get(profile, {})
        fig4 = {(a, b): runs.get((a, b, MAX_P.get(a), True), {}) for a in AQMS for b in buffers}
        sens = {(a, p): runs.get((a, 120, p, True), {}) for a in ("RED/ECN", "RED/Spoofing") for p in max_ps}
        views[profile] = (fig4, sens, net2_metrics(net2.get(profile, {})))
    fig4, sens, stab = views[main]
    fig4_part(rep, fig4, buffers, "fig4", "Fig. 4 (with send jitter)")
    fig4_nj = {(a, b): nojit.get(main, {}).get((a, b, MAX_P.get(a), False), {}) for a in AQMS for b in nj_buffers}
    nojitter_part(rep, fig4, fig4_nj, nj_buffers)
    sensitivity_part(rep, sens, max_ps)
    net2_part(rep, net2.get(main, {}), stab)
    rep.set_claims(claims(*views[main], buffers, max_ps, main), claims(*views[other], buffers, max_ps, other) if other in views else None)
    against_today(rep, opt, net1, [120] if quick else buffers)
    kernel_section(rep, opt)
    rep.assumptions(ASSUMED, SECTION)
    (opt.out / "summary.json").write_text(json.dumps(summary_json(views, fig4_nj, main), indent=2))
    rep.write()
    return rep


# The question against a real stack (`kernel_section`): Network 1 with the Linux kernel's
# CUBIC senders, SACK and RACK on (the kernel's defaults), through ccsim's RED, RED/ECN and
# RED/Spoofing. The bottleneck is slower than the paper's (what a shared two-core machine
# carries beside forty real senders); buffer 120 and Table 1's thresholds.
KERNEL_MBPS = 20.0
KERNEL_RATE = f"{KERNEL_MBPS:g}Mbps"
KERNEL_AQMS = ["RED", "RED/ECN", "RED/Spoofing"]
#: Full mode adds RED/Spoofing with SACK off: the control that shows whether the spoofs
#: slow the senders when duplicate ACKs count.
KERNEL_NO_SACK = "RED/Spoofing, SACK off"
#: (replications, run length s, warm-up s): full and quick.
KERNEL_FULL, KERNEL_QUICK = (5, 20.0, 5.0), (2, 8.0, 3.0)


def kernel_network1(aqm: str, seed: int, duration: float, warmup: float, sack: bool = True) -> dict:
    """Network 1 at buffer 120 for `ccsim kernel run`: the bottleneck at KERNEL_RATE, the
    forty flows the kernel's CUBIC (SACK as given, ECN for RED/ECN), no send jitter."""
    doc = network1(aqm, 120, jitter=False)
    doc |= {"name": "ackspoof-net1-kernel", "seed": seed, "duration": f"{duration:g}s", "warmup": f"{warmup:g}s"}
    doc["links"][0]["rate"] = KERNEL_RATE
    for f in doc["flows"]:
        f["tcp"] = dict(f["tcp"], variant="cubic", sack=sack)
    return doc


def kernel_metrics(summary: dict) -> dict:
    q = queue(summary, BOTTLENECK)
    t = summary["measured_s"]
    return {
        "goodput": summary["totals"]["goodput_bps"] / 1e6,
        "avg_queue": q["mean_len_packets"],
        "loss_rate": q["drops"] / t,
        "marks_per_s": (q["marks_early"] + q["marks_forced"] + q["marks_dequeue"]) / t,
        "spoofs_per_s": summary["router"].get("spoof_events", 0) / t,
        "retrans_per_s": summary["totals"]["retransmitted_packets"] / t,
    }


def kernel_claims(data: dict, full: bool) -> list[Claim]:
    """Our questions on the kernel's CUBIC, paired by replication."""
    at = lambda label, key: field(data.get(("Network 1", label), {}), key)  # noqa: E731
    out = []
    e = v.ratio(at("RED/Spoofing", "avg_queue"), at("RED/ECN", "avg_queue"))
    out.append(
        Claim(
            "Spoofed duplicate ACKs still slow the kernel's CUBIC with SACK and RACK as ECN marks do: "
            "RED/Spoofing's average queue within a factor 1.5 of RED/ECN's",
            v.within(e, 2 / 3, 1.5),
            e.short(),
            "",
            f"average queue of RED/Spoofing over RED/ECN's, paired by replication on a log scale, against [2/3, 1.5]; {e.text()}",
            "kernel",
        )
    )
    e = v.relative(at("RED/Spoofing", "loss_rate"), at("RED", "loss_rate"))
    out.append(
        Claim(
            "With the kernel's CUBIC, RED/Spoofing loses at least 30% fewer packets than RED (the paper's first claim)",
            v.less(e, -30),
            e.short(),
            "",
            f"loss rate of RED/Spoofing relative to RED's, paired by replication, against -30%; {e.text()}",
            "kernel",
        )
    )
    e = v.paired(at("RED/Spoofing", "flows_failed"), at("RED", "flows_failed"), "flows")
    out.append(
        Claim(
            "With the kernel's CUBIC, every flow connects under RED/Spoofing as under RED (a SYN is not data: RED/Spoofing drops it)",
            v.less(e, 0.5),
            e.short(),
            "",
            f"flows that could not connect (or send), RED/Spoofing minus RED, paired by replication, against 0.5; {e.text()}. "
            "Flows that never connect lose nothing either: read the loss question beside this one",
            "kernel",
        )
    )
    e = v.relative(at("RED/Spoofing", "goodput"), at("RED", "goodput"))
    out.append(
        Claim(
            "With the kernel's CUBIC, RED/Spoofing keeps goodput within 5% of RED's",
            v.within(e, -5, 5),
            e.short(),
            "",
            f"goodput of RED/Spoofing relative to RED's, paired by replication, against [-5%, +5%]; {e.text()}",
            "kernel",
        )
    )
    if full:
        e = v.relative(at(KERNEL_NO_SACK, "avg_queue"), at("RED/Spoofing", "avg_queue"))
        out.append(
            Claim(
                "Without SACK the spoofs slow the kernel's CUBIC more: RED/Spoofing's average queue is lower with SACK off than on",
                v.less(e),
                e.short(),
                "",
                f"average queue with SACK off relative to SACK on, paired by replication; {e.text()}",
                "kernel",
            )
        )
    return out


def kernel_section(rep: Report, opt: Options) -> None:
    """Does spoofing still slow a real stack? RED, RED/ECN and RED/Spoofing on Network 1 with
    the kernel's CUBIC senders (`kernel_runs`)."""
    title = "Against a real stack: the kernel's CUBIC with SACK and RACK (our question, not the paper's)"
    if kernel_runs.skipped(rep, opt, title):
        return
    reps, duration, warmup = KERNEL_QUICK if opt.quick else KERNEL_FULL
    configs = [kernel_runs.Config(a, lambda seed, a=a: kernel_network1(a, seed, duration, warmup)) for a in KERNEL_AQMS]
    if not opt.quick:
        configs.append(kernel_runs.Config(KERNEL_NO_SACK, lambda seed: kernel_network1("RED/Spoofing", seed, duration, warmup, sack=False)))
    data = kernel_runs.run(opt, {"Network 1": configs}, reps, kernel_metrics)
    kernel_runs.section(
        rep,
        title,
        "The paper's senders are Reno without SACK: three duplicate ACKs are a loss, and RED/Spoofing's forged "
        "duplicates make a sender halve its window as an ECN mark would. A Linux sender today has SACK and RACK-TLP: "
        "it counts SACKed bytes and time, not duplicates, so a duplicate ACK that SACKs nothing new may trigger "
        "nothing. Here Network 1 runs with the Linux kernel's own TCP (`ccsim kernel run`: each host a network "
        f"namespace, the links and queues ccsim's router code): forty CUBIC flows, SACK and RACK on, the bottleneck at "
        f"{KERNEL_MBPS:g} Mb/s (what this machine carries beside the forty senders), buffer 120 with Table 1's thresholds and "
        f"max_p, {reps} replications of {duration:g} s (statistics from {warmup:g} s) per configuration"
        + ("" if opt.quick else f"; and RED/Spoofing with SACK off on every host ({KERNEL_NO_SACK})")
        + ". The kernel's ACK spoofing forges three copies of the flow's last ACK at once "
        '(docs/kernel.md, "ACK spoofing"). A SYN carries no data: RED/Spoofing drops it as RED does, so while '
        "RED's average stays above max_th every SYN is dropped and a flow that has not connected by then cannot "
        '("flows that failed": connect timed out at the run\'s end).',
        data,
        ["Network 1"],
        [c.label for c in configs],
        [
            ("goodput", "goodput (Mb/s)", (0.0, KERNEL_MBPS)),
            ("avg_queue", "avg queue (pkts)", (0.0, 120.0)),
            ("loss_rate", "drops per second", (0.0, None)),
            ("marks_per_s", "ECN marks per second", (0.0, None)),
            ("spoofs_per_s", "spoof bursts per second", (0.0, None)),
            ("retrans_per_s", "retransmissions per second", (0.0, None)),
        ],
        kernel_claims(data, not opt.quick),
    )


def today_contenders() -> list[today.Contender]:
    """RED with ACK spoofing and RED/ECN (the paper's), CoDel with ECN, FQ-CoDel with ECN and
    DualPI2 with TCP Prague (today's), each with the buffer of the case ("B=120")."""
    ecn_tcp = dict(TCP, ecn=True)

    def modern(discipline: str):
        return lambda case: {"links.0.queue": {"discipline": discipline, "limit": int(case[2:]), "signal": "ecn"}, "flows.*.tcp": ecn_tcp}

    def paper(aqm: str):
        return lambda case: {"links.0.queue": queue_spec(aqm, int(case[2:])), "flows.*.tcp": tcp(aqm)}

    def l4s(case: str) -> dict:
        # DualPI2 (RFC 9332) marking, every sender TCP Prague (ECT(1), Accurate ECN).
        return {
            "links.0.queue": {"discipline": "dualpi2", "limit": int(case[2:]), "signal": "ecn"},
            "flows.*.tcp": dict(TCP, variant="prague"),
        }

    return [
        today.Contender("RED/Spoofing", paper("RED/Spoofing"), COLOURS["RED/Spoofing"]),
        today.Contender("RED/ECN", paper("RED/ECN"), COLOURS["RED/ECN"]),
        today.Contender("CoDel/ECN", modern("codel"), "tab:purple"),
        today.Contender("FQ-CoDel/ECN", modern("fq_codel"), "tab:brown"),
        today.Contender("DualPI2/Prague", l4s, "tab:cyan"),
    ]


def against_today(rep: Report, opt: Options, net1: dict, buffers: list[int]) -> None:
    """RED with ACK spoofing beside CoDel and FQ-CoDel (RFC 8289, 8290) with ECN on Network 1."""
    reps = 5 if opt.quick else 10
    cases = [(f"B={b}", {}) for b in buffers]
    data = today.run(opt, net1, cases, today_contenders(), metrics, reps)
    measures = [
        today.Measure("goodput", "goodput (Mb/s)", (0.0, LINK_MBPS)),
        today.Measure("avg_queue", "avg queue (pkts)"),
        today.Measure("loss_rate", "drops per second"),
        today.Measure("jain", "Jain's index", (0.0, 1.0)),
        today.Measure("timeouts", "timeouts"),
    ]
    comparisons = [
        today.Comparison("RED/Spoofing delivers more goodput than CoDel/ECN", "RED/Spoofing", "CoDel/ECN", "goodput", v.greater),
        today.Comparison("RED/Spoofing delivers more goodput than FQ-CoDel/ECN", "RED/Spoofing", "FQ-CoDel/ECN", "goodput", v.greater),
        today.Comparison("CoDel/ECN keeps a shorter queue than RED/Spoofing", "CoDel/ECN", "RED/Spoofing", "avg_queue", v.less),
        today.Comparison("DualPI2/Prague keeps a shorter queue than RED/Spoofing", "DualPI2/Prague", "RED/Spoofing", "avg_queue", v.less),
        today.Comparison("RED/Spoofing delivers more goodput than DualPI2/Prague", "RED/Spoofing", "DualPI2/Prague", "goodput", v.greater),
        today.Comparison(
            "FQ-CoDel/ECN shares the link more fairly than RED/Spoofing (Jain's index)",
            "FQ-CoDel/ECN",
            "RED/Spoofing",
            "jain",
            v.greater,
            relative=False,
        ),
    ]
    today.section(
        rep,
        data,
        measures,
        comparisons,
        "The paper's RED with ACK spoofing and RED/ECN beside CoDel and FQ-CoDel, both marking ECN-capable Reno senders "
        "(as Linux's `fq_codel`, the default queue discipline of many distributions, does), at their RFCs' defaults "
        "(target 5 ms, interval 100 ms; FQ-CoDel: 1024 flow queues, quantum 1514 bytes), and L4S: DualPI2 at RFC 9332's "
        "defaults marking, every sender TCP Prague (ECT(1), Accurate ECN) instead of Reno; on Network 1 with the "
        f"same buffer, the same 40 flows and the same send jitter; {net1['duration']} runs measured from {net1['warmup']}.",
        "bottleneck buffer (packets)",
    )


def collect(result) -> dict[str, dict[tuple, dict[int, dict]]]:
    """{profile: {(aqm, buffer, max_p, jitter): {replication: metrics}}}."""
    out: dict[str, dict[tuple, dict[int, dict]]] = {}
    for row, summary in result.summaries():
        profile, name = split_profile(row["name"])
        out.setdefault(profile, {}).setdefault(parse(name), {})[row["replication"]] = metrics(summary)
    return out


FIG4_METRICS = [("goodput", "goodput (Mb/s)"), ("avg_queue", "average queue (packets)"), ("loss_rate", "loss rate (packets/s)")]


def bounds(key: str, buffer: int | None = 120) -> tuple[float | None, float | None]:
    """Physical range of a metric: goodput within the 100 Mb/s link, the queue within the buffer."""
    return {"goodput": (0.0, LINK_MBPS), "avg_queue": (0.0, buffer)}.get(key, (0.0, None))


def fig4_part(rep: Report, data: dict, buffers: list[int], name: str, title: str) -> None:
    rows = []
    for b in buffers:
        for a in AQMS:
            runs = data[(a, b)]
            cells = [b, a, len(runs)] + [show(field(runs, key), bounds(key, b)) for key, _ in FIG4_METRICS]
            cells.append(show(field(runs, "discards_per_s")) if a == "RED/Spoofing" else "-")
            rows.append(cells)
    rep.heading(f"{title}: Tail Drop, RED, RED/ECN and RED/Spoofing against the buffer size")
    rep.table(
        ["buffer", "AQM", "runs", "goodput (Mb/s)", "avg queue (pkts)", "loss rate (pkts/s)", "retransmissions discarded (/s)"],
        rows,
        f"{BOTTLENECK} after the warm-up, mean ± 95% CI (or the runs); max_p: RED 0.02, RED/ECN 0.10, RED/Spoofing 0.05",
    )
    rep.figure(
        metric_panels(data, AQMS, buffers, "buffer size (packets)"),
        name,
        f"{title}: goodput, average queue and loss rate at {BOTTLENECK} (mean, 95% CI, dots: the runs)",
    )


def metric_panels(data: dict, aqms: list[str], xs: list, xlabel: str) -> FigureSpec:
    """Goodput, average queue and loss rate of each AQM against `xs`, where `data[(aqm, x)]`
    holds the runs of one point."""
    n = min((len(r) for r in data.values()), default=0)
    panels = []
    for key, label in FIG4_METRICS:
        series = [curve(a, xs, [field(data[(a, x)], key) for x in xs], color=COLOURS[a]) for a in aqms]
        panels.append(Panel(series, xlabel=xlabel, ylabel=label, bounds=bounds(key, None), legend=key == "goodput", note=few_note(n)))
    return FigureSpec(panels, cols=3, width=14, height=3.8)


def nojitter_part(rep: Report, fig4: dict, nj: dict, buffers: list[int]) -> None:
    fig4_part(rep, nj, buffers, "fig4_nojitter", "Fig. 4 without send jitter")
    rows = []
    for a in AQMS:
        for label, data in (("with jitter", fig4), ("without", nj)):
            runs = data.get((a, 120), {})
            if not runs:
                continue
            via_r0 = {r: m["groups"]["g1"] + m["groups"]["g2"] for r, m in runs.items()}
            via_r1 = {r: m["groups"]["g3"] + m["groups"]["g4"] for r, m in runs.items()}
            rows.append([a, label, show(via_r0, (0, LINK_MBPS)), show(via_r1, (0, LINK_MBPS)), show(field(runs, "jain"), (0, 1))])
    rep.text(
        "Without randomness in the sending times every link runs at 100 Mb/s and Tail Drop shows the phase effect "
        "of Floyd and Jacobson: which flows' packets find the full buffer depends on their timing, not on their "
        "share. The split of the bottleneck between the flows entering through R0 (groups H0->H5 and H1->H4) and "
        "through R1 shows it."
    )
    rep.table(
        ["AQM", "send jitter", "goodput via R0 (Mb/s)", "goodput via R1 (Mb/s)", "Jain's index (40 flows)"],
        rows,
        "buffer 120, mean ± 95% CI (or the runs)",
    )


def sensitivity_part(rep: Report, sens: dict, max_ps: list[float]) -> None:
    rows = []
    for p in max_ps:
        for a in ("RED/Spoofing", "RED/ECN"):
            runs = sens[(a, p)]
            rows.append([p, a, len(runs)] + [show(field(runs, k), bounds(k)) for k, _ in FIG4_METRICS])
    rep.heading("Figs. 5 and 6: sensitivity to max_p (buffer 120, min_th 10, max_th 90)")
    rep.table(["max_p", "AQM", "runs", "goodput (Mb/s)", "avg queue (pkts)", "loss rate (pkts/s)"], rows, "mean ± 95% CI (or the runs)")
    for name, aqms, title in (
        ("fig5", ["RED/Spoofing"], "Fig. 5: RED/Spoofing against max_p"),
        ("fig6", ["RED/ECN", "RED/Spoofing"], "Fig. 6: RED/ECN and RED/Spoofing against max_p"),
    ):
        rep.figure(metric_panels(sens, aqms, max_ps, "max_p"), name, f"{title} (buffer 120; mean, 95% CI, dots: the runs)")
    sc = scores(sens, "RED/Spoofing", max_ps)
    mean = {p: sum(x[p] for x in sc.values()) / len(sc) for p in max_ps} if sc else {}
    rep.text(
        "Overall score of a max_p (used for the 'optimal area' verdict), computed within each replication: the "
        "mean over goodput, average queue and loss rate of each metric's position between the worst (0) and best "
        "(1) value over the max_p values. RED/Spoofing, mean over replications: "
        + ", ".join(f"{p:g}: {s:.2f}" for p, s in mean.items())
        + "."
    )


def scores(sens: dict, aqm: str, max_ps: list[float]) -> dict[int, dict[float, float]]:
    """{replication: {max_p: score}}: per replication, each metric's position between the
    worst (0) and best (1) value over the max_p values, averaged over the three metrics."""
    reps = set.intersection(*[set(sens[(aqm, p)]) for p in max_ps]) if max_ps else set()
    out = {}
    for r in sorted(reps):
        total = {p: 0.0 for p in max_ps}
        for k, _ in FIG4_METRICS:
            vals = {p: sens[(aqm, p)][r][k] for p in max_ps}
            lo, hi = min(vals.values()), max(vals.values())
            for p, x in vals.items():
                pos = 0.5 if hi == lo else (x - lo) / (hi - lo)
                total[p] += (pos if k == "goodput" else 1 - pos) / len(FIG4_METRICS)
        out[r] = total
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


def net2_metrics(net2: dict[str, dict[int, dict]]) -> dict[str, dict[int, dict]]:
    """Per AQM and replication: the stability number, convergence time and group ratios."""
    out = {}
    for a, runs in net2.items():
        out[a] = {
            r: {
                "stability": stability(g),
                "convergence": convergence(g),
                "window_ratio": max_ratio(g, 6.5, 7.2),
                "after_ratio": max_ratio(g, 4.0, math.inf, either=True),
                "total": sum(x + y for t, x, y in zip(g["t"], g["g1"], g["g2"]) if t > 4.0) / max(1, sum(1 for t in g["t"] if t > 4.0)),
            }
            for r, g in runs.items()
        }
    return out


def net2_part(rep: Report, net2: dict, stab: dict) -> None:
    rows = []
    for a in AQMS:
        runs = stab.get(a, {})
        rows.append(
            [
                a,
                len(runs),
                show({r: 100 * m["stability"] for r, m in runs.items()}, (0, 100)),
                show(field(runs, "convergence"), (0, 8)),
                ", ".join(f"{m['window_ratio']:.2f}" for m in runs.values()),
                ", ".join(f"{m['after_ratio']:.2f}" for m in runs.values()),
                show(field(runs, "total"), (0, LINK_MBPS)),
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
        "per-group goodput in 100 ms bins; mean ± 95% CI over replications (or the runs)",
    )
    rep.text(
        "Convergence: the time after group 2 starts until the first 500 ms (five bins) over which the mean "
        "|g1 - g2| / (g1 + g2) is below 20%. The stability number counts every bin after 4 s, so a slow "
        "convergence (group 2 still catching up after 4 s) raises it too."
    )
    panels = []
    for a in AQMS:
        g = net2.get(a, {}).get(0)
        series = []
        if g:
            from ..plot import Series

            series = [
                Series("group 1 (H0->H2, from 0 s)", g["t"], g["g1"], kind="plain", width=0.9),
                Series("group 2 (H1->H3, from 2 s)", g["t"], g["g2"], kind="plain", width=0.9),
            ]
        marks = [Mark("vspan", "paper: group 1 about 3.5 x group 2 here", x=6.5, x2=7.2)] if a == "Tail Drop" else []
        panels.append(Panel(series, title=a, xlabel="time (s)", ylabel="Mb/s", marks=marks, bounds=(0, LINK_MBPS), legend=a == "Tail Drop"))
    rep.figure(
        FigureSpec(panels, cols=1, width=9, height=2.6 * len(AQMS), sharex=True, sharey=True),
        "fig8",
        f"Fig. 8: aggregate bandwidth of each group on {BOTTLENECK2}, 100 ms bins (replication 0); the paper's 6.5-7.2 s window shaded",
    )


def claims(fig4: dict, sens: dict, stab: dict, buffers: list[int], max_ps: list[float], profile: str) -> list[Claim]:
    """The paper's claims; `fig4` and `sens`: {(aqm, buffer or max_p): {replication:
    metrics}}; `stab`: {aqm: {replication: Network 2 metrics}}. Every comparison pairs two
    AQMs' runs by replication."""
    out = []

    def add(text: str, outcome: str | v.Cases, ours: str, paper: str, how: str) -> None:
        """One claim; with `Cases`, its outcome and texts (`ours` is then unused)."""
        if isinstance(outcome, v.Cases):
            out.append(Claim(text, outcome.outcome, outcome.ours, paper, f"{how}; {outcome.detail}", profile))
        else:
            out.append(Claim(text, outcome, ours, paper, f"{how}; {ours}", profile))

    def at(a: str, b: int, key: str) -> dict[int, float]:
        return field(fig4[(a, b)], key)

    o = v.every(
        [(f"{b}", v.relative(at("RED/Spoofing", b, "loss_rate"), at("RED", b, "loss_rate"))) for b in buffers], lambda e: v.less(e, -30)
    )
    add(
        "RED/Spoofing loses at least 30% fewer packets than RED, at every buffer size",
        o,
        "",
        "'significantly reduce the packet loss rates' (Fig. 4)",
        "loss rate of RED/Spoofing relative to RED's, by buffer size, paired by replication (95% t interval), against -30%",
    )
    plus1 = lambda a, b: {r: x + 1.0 for r, x in at(a, b, "loss_rate").items()}  # noqa: E731
    o = v.every([(f"{b}", v.ratio(plus1("RED/Spoofing", b), plus1("RED/ECN", b))) for b in buffers], lambda e: v.within(e, 2 / 3, 1.5))
    add(
        "RED/Spoofing's loss rate is close to RED/ECN's (within a factor 1.5)",
        o,
        "",
        "'similar performance' (Fig. 4)",
        "ratio of (loss rate + 1 packet/s), RED/Spoofing over RED/ECN, by buffer size, paired by replication on a log scale (the 1/s keeps near-zero rates comparable), against [2/3, 1.5]",
    )
    o = v.every(
        [(f"{b}", v.relative(at("RED/Spoofing", b, "avg_queue"), at("Tail Drop", b, "avg_queue"))) for b in buffers],
        lambda e: v.less(e, -25),
    )
    add(
        "RED/Spoofing's average queue is at least 25% below Tail Drop's, at every buffer size",
        o,
        "",
        "'significantly reduces the queueing delays in comparison to Tail Drop'",
        "average queue of RED/Spoofing relative to Tail Drop's, by buffer size, paired by replication, against -25%",
    )
    o = v.every(
        [(f"{b}", v.relative(at("RED", b, "avg_queue"), at("Tail Drop", b, "avg_queue"))) for b in buffers], lambda e: v.within(e, -50, -25)
    )
    add(
        "RED's average queue is 25-50% below Tail Drop's",
        o,
        "",
        "-25% to -50%",
        "average queue of RED relative to Tail Drop's, by buffer size, paired by replication, against [-50%, -25%]",
    )
    o = v.every([(f"{b}", v.relative(at("RED", b, "loss_rate"), at("Tail Drop", b, "loss_rate"))) for b in buffers], v.less)
    add(
        "RED's loss rate is a little below Tail Drop's",
        o,
        "",
        "'a small improvement on packet loss rate'",
        "loss rate of RED relative to Tail Drop's, by buffer size, paired by replication",
    )
    cases = [(f"{a} {b}", v.relative(at(a, b, "goodput"), at("Tail Drop", b, "goodput"))) for a in AQMS[1:] for b in buffers]
    o = v.every(cases, lambda e: v.within(e, -5, 5))
    add(
        "RED, RED/ECN and RED/Spoofing keep goodput comparable to Tail Drop's (within 5%)",
        o,
        "",
        "'comparable goodputs'",
        "goodput relative to Tail Drop's, by AQM and buffer size, paired by replication, against [-5%, +5%]",
    )

    st = lambda a: {r: 100 * m["stability"] for r, m in stab.get(a, {}).items()}  # noqa: E731
    cases = [(f"{a} vs {r}", v.paired(st(a), st(r), "points")) for a in ("RED/Spoofing", "RED/ECN") for r in ("Tail Drop", "RED")]
    o = v.every(cases, v.less)
    add(
        "RED/Spoofing and RED/ECN share the bandwidth more stably than Tail Drop and RED (Fig. 8)",
        o,
        "",
        "'much more stable'",
        "difference of the mean |g1 - g2| / (g1 + g2) after 4 s (percentage points), paired by replication",
    )
    cases = [(a, v.log_mean(st(a).values(), "%")) for a in ("RED/Spoofing", "RED/ECN")]
    lo, hi = v.band(10)
    o = v.every(cases, lambda e: v.about(e, 10))
    add(
        f"For RED/Spoofing and RED/ECN the mean difference between the groups is about 10% of the total ({lo:.1f}-{hi:.0f}%)",
        o,
        "",
        "about 10%",
        f"geometric mean over runs of the mean |g1 - g2| / (g1 + g2) after 4 s (interval on a log scale), against {lo:.1f}-{hi:.0f}%",
    )
    conv = lambda a: field(stab.get(a, {}), "convergence")  # noqa: E731
    cases = [(f"{f} vs {s}", v.paired(conv(f), conv(s), "s")) for f in ("Tail Drop", "RED") for s in ("RED/ECN", "RED/Spoofing")]
    o = v.every(cases, v.less)
    add(
        "Tail Drop and RED converge to the fair share a little faster than RED/ECN and RED/Spoofing",
        o,
        "",
        "'a little bit faster'",
        "difference of the convergence times after group 2 starts, paired by replication",
    )
    e = v.log_mean(field(stab.get("Tail Drop", {}), "window_ratio").values())
    lo, hi = v.band(3.5)
    add(
        f"Tail Drop: group 1 gets about 3.5 times group 2's bandwidth during 6.5-7.2 s ({lo:.1f}-{hi:.2f}x)",
        v.about(e, 3.5),
        e.short(),
        "3.5x",
        f"largest g1/g2 of a 100 ms bin in 6.5-7.2 s, geometric mean over runs (interval on a log scale), against {lo:.2f}-{hi:.2f}",
    )

    sc = scores(sens, "RED/Spoofing", max_ps)
    inside = [p for p in max_ps if 0.03 <= p <= 0.05]
    outside = [p for p in max_ps if p not in inside]
    if inside and outside:
        d = {r: max(s[p] for p in inside) - max(s[p] for p in outside) for r, s in sc.items()}
        e = v.mean_interval(d.values(), "points")
        o = v.greater(e)
    else:
        e, o = v.mean_interval([]), v.INCONCLUSIVE
    add(
        "RED/Spoofing has an optimal max_p area around 0.03-0.05 (Fig. 5)",
        o,
        e.short(),
        "0.03-0.05",
        f"best overall score inside 0.03-0.05 ({', '.join(map(str, inside)) or 'no max_p run there'}) minus the best outside, per replication",
    )
    cases = []
    for p in max_ps:
        cases.append((f"{p:g} goodput", v.relative(field(sens[("RED/Spoofing", p)], "goodput"), field(sens[("RED/ECN", p)], "goodput"))))
        cases.append((f"{p:g} queue", v.ratio(field(sens[("RED/Spoofing", p)], "avg_queue"), field(sens[("RED/ECN", p)], "avg_queue"))))
    outcomes = [v.within(e, -3, 3) if "goodput" in label else v.within(e, 2 / 3, 1.5) for label, e in cases]
    add(
        "RED/Spoofing performs like RED/ECN over max_p 0.01-0.10 (goodput within 3%, average queue within a factor 1.5; Fig. 6)",
        v.tally(cases, outcomes),
        "",
        "'similar conclusion' (Fig. 6)",
        "RED/Spoofing's goodput relative to RED/ECN's (against +-3%) and the ratio of average queues (against [2/3, 1.5]), by max_p, paired by replication",
    )
    return out


def summary_json(views: dict, nj: dict, main: str) -> dict:
    def entry(runs: dict) -> dict:
        out = {}
        for key in ["goodput", "avg_queue", "loss_rate", "spoofs_per_s", "discards_per_s", "fallback_per_s", "timeouts"]:
            e = v.mean_interval(field(runs, key).values())
            out[key] = {"mean": e.mean, "ci95": [e.lo, e.hi], "n": e.n}
        return out

    out = {
        "profile": main,
        "units": {
            "goodput": "Mb/s",
            "avg_queue": "packets",
            "loss_rate": "packets/s",
            "spoofs_per_s": "spoof events/s",
            "discards_per_s": "packets/s",
            "fallback_per_s": "packets/s",
        },
        "profiles": {},
    }
    for profile, (fig4, sens, stab) in views.items():
        out["profiles"][profile] = {
            "fig4": {a: {str(b): entry(runs) for (a2, b), runs in fig4.items() if a2 == a} for a in AQMS},
            "max_p": {a: {f"{p:g}": entry(runs) for (a2, p), runs in sens.items() if a2 == a} for a in ("RED/ECN", "RED/Spoofing")},
            "fig8": {a: {str(r): m for r, m in runs.items()} for a, runs in stab.items()},
        }
    out["profiles"][main]["fig4_no_jitter"] = {a: {str(b): entry(runs) for (a2, b), runs in nj.items() if a2 == a} for a in AQMS}
    return out
