"""DAS: "Enhancing TCP performance in IP fast reroute" (Mao, Wen, Yeung, ICC 2012).

Fig. 2 network: one NewReno flow, link A-C down from 3 s to 8 s (transient: traffic moves to
A-B-C and back), goodput with and without duplicate-ACK suppression; because the switch back
only reorders packets when it falls inside a window's burst, the repair instant is also
swept across one round trip. #-network (Fig. 4): goodput improvement of n observed flows
against 30 background flows, 15 runs per n with the same random streams with and without
DAS."""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from .. import sweep
from .common import Options, group_goodput, pm, summarise
from .report import FAILS, HOLDS, PARTLY, Report

TITLE = "DAS: duplicate-ACK suppression for TCP in IP fast reroute (Mao, Wen, Yeung)"
PAPER_FIG2 = {"without DAS (kb/s)": 15280, "with DAS (kb/s)": 19931, "improvement (%)": 30.4}

ASSUMED = [
    (
        "receiver window",
        "64 KB (65536 bytes); the paper gives none. With it one flow peaks at 17.5 Mb/s on the 30 ms primary path, so the paper's 19931 kb/s cannot be reached",
    ),
    ("segments", "512-byte payload, 552 on the wire; no delayed ACKs; initial window 1; min RTO 200 ms; TCP NewReno"),
    ("links and buffers", "100 Mb/s, 5 ms everywhere; 10,000-packet buffers (never overflow)"),
    ("failure handling", "detection at A immediate; hold-down 10 s, so both failures are transient; no reconvergence"),
    ("Fig. 2 backup", "the loop-free alternate A-B-C computed by ccsim (RFC 5286), as the paper highlights"),
    (
        "#-network layout",
        "A top-left, B top-right, C bottom-left, D bottom-right; links A-B, C-D, A-C, B-D; S0/S2 on A, R2/S1 on B, R0/S3 on C, R1/R3 on D",
    ),
    ("#-network backup", "explicit repair path A-B-D-C (and C-D-B-A for ACKs): with unit costs no node is a strict loop-free alternate"),
    ("#-network failure", "A-C fails at t ~ U(2, 4) s (stream failure/0) for 2 s; 6 s runs"),
    ("DAS deployment", "on the receivers of every flow in the 'with' runs"),
]

LINK = {"rate": "100Mbps", "delay": "5ms", "queue": {"limit": 10000}}
TCP = {"variant": "newreno", "mss": 512, "rwnd": 65536, "das": False}


def fig2(das: bool = False) -> dict:
    """The Fig. 2 network; `scenarios/das_fig2.toml` is this without DAS."""
    links = [dict(LINK, between=pair) for pair in (["S", "A"], ["A", "C"], ["A", "B"], ["B", "C"], ["C", "R"])]
    return {
        "name": "das-fig2",
        "duration": "11s",
        "seed": 1,
        "hosts": ["S", "R"],
        "routers": ["A", "B", "C"],
        "links": links,
        "flows": [{"name": "tcp", "from": "S", "to": "R", "tcp": dict(TCP, das=das)}],
        "failures": [{"between": ["A", "C"], "down": "3s", "duration": "5s"}],
        "ipfrr": {"detection_delay": "0ms", "hold_down": "10s"},
        "series": [{"kind": "cwnd", "flow": "tcp", "interval": "10ms"}, {"kind": "goodput", "flow": "tcp", "interval": "100ms"}],
    }


def sharp(n: int = 1, das: bool = False) -> dict:
    """The #-network; `scenarios/das_sharp.toml` is this with n = 1, without DAS."""
    pairs = [
        ["A", "B"],
        ["C", "D"],
        ["A", "C"],
        ["B", "D"],
        ["S0", "A"],
        ["S2", "A"],
        ["S1", "B"],
        ["R2", "B"],
        ["R0", "C"],
        ["S3", "C"],
        ["R1", "D"],
        ["R3", "D"],
    ]
    groups = [("observed", "S0", "R0", n), ("bg1", "S1", "R1", 10), ("bg2", "S2", "R2", 10), ("bg3", "S3", "R3", 10)]
    return {
        "name": "das-sharp",
        "duration": "6s",
        "seed": 1,
        "hosts": ["S0", "R0", "S1", "R1", "S2", "R2", "S3", "R3"],
        "routers": ["A", "B", "C", "D"],
        "links": [dict(LINK, between=p) for p in pairs],
        "flows": [{"name": g, "from": a, "to": b, "count": c, "tcp": dict(TCP, das=das)} for g, a, b, c in groups],
        "failures": [{"between": ["A", "C"], "down": {"uniform": ["2s", "4s"]}, "duration": "2s"}],
        "ipfrr": {
            "hold_down": "10s",
            "repair_paths": [{"link": "A->C", "path": ["A", "B", "D", "C"]}, {"link": "C->A", "path": ["C", "D", "B", "A"]}],
        },
    }


def das_overrides(flows: list[str], das: bool) -> dict:
    return {f"flows.{g}.tcp.das": das for g in flows}


def reproduce(opt: Options) -> Report:
    rep = Report("das", TITLE, opt.out)
    fig2_part(rep, opt)
    sharp_part(rep, opt)
    rep.assumptions(ASSUMED)
    rep.write()
    return rep


def fig2_part(rep: Report, opt: Options) -> None:
    step = 3 if opt.quick else 1
    offsets = list(range(0, 40, step))  # ms after 8 s: one round trip of the backup path
    points = [
        {"name": f"{das}/{k}", "failures.0.duration": 5 + k / 1000, **das_overrides(["tcp"], das)} for das in (False, True) for k in offsets
    ]
    res = sweep(
        fig2(),
        points=points,
        replications=1,
        out=opt.out / "runs-fig2",
        workers=opt.workers,
        scheduler=opt.scheduler,
        progress=opt.progress,
    )
    good: dict[tuple[bool, int], dict] = {}
    for row, summary in res.summaries():
        das, k = row["name"].split("/")
        good[(das == "True", int(k))] = summary
    base_off, base_on = good[(False, 0)], good[(True, 0)]
    g = lambda s: group_goodput(s, "tcp") / 1e3  # noqa: E731
    impr = {k: 100 * (g(good[(True, k)]) - g(good[(False, k)])) / g(good[(False, k)]) for k in offsets}
    worst = max(offsets, key=lambda k: impr[k])
    flow = lambda s: s["flows"][0]  # noqa: E731

    rep.heading("Fig. 2 network: one flow, A-C down from 3 s to 8 s")
    rows = [
        [
            "without DAS",
            f"{g(base_off):.0f}",
            PAPER_FIG2["without DAS (kb/s)"],
            flow(base_off)["fast_retransmits"],
            flow(base_off)["false_fast_retransmits"],
            flow(base_off)["dupacks_sent"],
        ],
        [
            "with DAS",
            f"{g(base_on):.0f}",
            PAPER_FIG2["with DAS (kb/s)"],
            flow(base_on)["fast_retransmits"],
            flow(base_on)["false_fast_retransmits"],
            flow(base_on)["dupacks_suppressed"],
        ],
    ]
    rep.table(
        ["", "goodput (kb/s)", "paper (kb/s)", "fast retransmits", "false ones", "dup ACKs sent / suppressed"],
        rows,
        "repair at exactly 8 s",
    )
    n_reorder = sum(1 for k in offsets if flow(good[(False, k)])["out_of_order_packets"] > 0)
    rep.text(
        f"With a 64 KB window on uncongested 100 Mb/s links the sender emits its window in a burst of a few "
        f"milliseconds once per round trip, and the switch back to A-C reorders packets only when it falls inside "
        f"such a burst. At exactly 8 s it does not, so both runs are identical. Sweeping the repair instant over one "
        f"round trip ({len(offsets)} instants, {step} ms apart): {n_reorder} of them reorder packets; the improvement with DAS "
        f"is {sum(impr.values()) / len(impr):.1f}% on average and at most {impr[worst]:.1f}% (repair at 8 s + {worst} ms), "
        f"against the paper's 'up to {PAPER_FIG2['improvement (%)']}%'."
    )
    fig, ax = plt.subplots(figsize=(7, 3))
    ax.plot(offsets, [impr[k] for k in offsets], marker="o")
    ax.set_xlabel("repair instant after 8 s (ms)")
    ax.set_ylabel("goodput improvement (%)")
    rep.figure(fig, "fig2_sweep", "Fig. 2: goodput improvement with DAS against the repair instant")

    fig, axes = plt.subplots(2, 1, figsize=(8, 5.5), sharex=True)
    for das, label in ((False, "without DAS"), (True, "with DAS")):
        ser = {x["name"].split(" ")[0]: x for x in good[(das, worst)]["series"]}
        axes[0].plot(ser["cwnd"]["t"], ser["cwnd"]["value"], lw=0.8, label=label)
        t, v = ser["goodput"]["t"], ser["goodput"]["value"]
        delivered, total = [], 0.0
        for i, rate in enumerate(v):
            total += rate * (t[i] - t[i - 1] if i else 0.0) / 8e6
            delivered.append(total)
        axes[1].plot(t, delivered, lw=0.8, label=label)
    for x in (3, 8 + worst / 1000):
        for ax in axes:
            ax.axvline(x, color="grey", ls=":", lw=0.8)
    axes[0].set_ylabel("cwnd (segments)")
    axes[1].set_ylabel("in-order data delivered (MB)")
    axes[1].set_xlabel("time (s)")
    axes[0].legend()
    rep.figure(fig, "fig2_timeline", f"Fig. 2: congestion window and in-order delivery, repair at 8 s + {worst} ms")

    fr_off = sum(flow(good[(False, k)])["false_fast_retransmits"] for k in offsets)
    fr_on = sum(flow(good[(True, k)])["false_fast_retransmits"] for k in offsets)
    rep.claim(
        "DAS improves the Fig. 2 goodput, by up to 30.4% (15280 -> 19931 kb/s)",
        PARTLY if impr[worst] > 0 else FAILS,
        f"at 8 s: {g(base_off):.0f} vs {g(base_on):.0f} kb/s (no reordering); over the repair instants: mean {sum(impr.values()) / len(impr):.1f}%, max {impr[worst]:.1f}%",
    )
    rep.claim(
        "The false fast retransmits after the repair are suppressed by DAS",
        HOLDS if fr_off > 0 and fr_on == 0 else FAILS,
        f"false fast retransmits over all repair instants: {fr_off} without DAS, {fr_on} with",
    )
    (opt.out / "fig2.json").write_text(
        json.dumps(
            {"offsets_ms": offsets, "improvement_pct": [impr[k] for k in offsets], "goodput_kbps_at_8s": [g(base_off), g(base_on)]},
            indent=2,
        )
    )


def sharp_part(rep: Report, opt: Options) -> None:
    ns = [1, 4, 10] if opt.quick else list(range(1, 11))
    reps = 5 if opt.quick else 15
    groups = ["observed", "bg1", "bg2", "bg3"]
    points = [{"name": f"{n}/{das}", "flows.observed.count": n, **das_overrides(groups, das)} for n in ns for das in (False, True)]
    res = sweep(
        sharp(),
        points=points,
        replications=reps,
        out=opt.out / "runs-sharp",
        workers=opt.workers,
        scheduler=opt.scheduler,
        progress=opt.progress,
    )
    good: dict[tuple[int, bool, int], float] = {}
    for row, summary in res.summaries():
        n, das = row["name"].split("/")
        good[(int(n), das == "True", row["replication"])] = group_goodput(summary, "observed")
    rows, means = [], []
    for n in ns:
        impr = [
            100 * (good[(n, True, r)] - good[(n, False, r)]) / good[(n, False, r)]
            for r in range(reps)
            if (n, True, r) in good and (n, False, r) in good
        ]
        m, h, k = summarise(impr)
        means.append((n, m, h))
        rows.append([n, k, pm(m, h), f"{max(impr):.1f}"])
    rep.heading("#-network (Fig. 4): goodput improvement of the S0 -> R0 flows")
    rep.table(
        ["n", "runs", "improvement % (mean ± 95% CI)", "max %"],
        rows,
        "same seed (failure time and every other draw) with and without DAS in each run",
    )
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.errorbar([x[0] for x in means], [x[1] for x in means], yerr=[0 if x[2] != x[2] else x[2] for x in means], marker="o", capsize=3)
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_xlabel("number of observed TCP connections n")
    ax.set_ylabel("goodput improvement (%)")
    rep.figure(fig, "fig4", "Fig. 4: goodput improvement with DAS against n (mean and 95% CI)")
    first, last = means[0][1], means[-1][1]
    rep.claim(
        "DAS improves the goodput of the observed flows in the #-network",
        HOLDS if all(m > 0 for _, m, _ in means) else PARTLY,
        ", ".join(f"n={n}: {m:.1f}%" for n, m, _ in means),
    )
    rep.claim(
        "The improvement decreases as n grows",
        HOLDS if last < first else FAILS,
        f"n={means[0][0]}: {first:.1f}% -> n={means[-1][0]}: {last:.1f}%",
    )
