"""The short human-readable summary that `ccsim run` prints."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

MAX_QUEUE_ROWS = 10


def rate(bps: float) -> str:
    for k, unit in ((1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s")):
        if abs(bps) >= k:
            return f"{bps / k:.3g} {unit}"
    return f"{bps:.3g} b/s"


def size(n: float) -> str:
    for k, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if abs(n) >= k:
            return f"{n / k:.3g} {unit}"
    return f"{n:.0f} B"


def count(n: float) -> str:
    return f"{n:,.0f}"


def secs(s: float) -> str:
    return f"{s:g} s"


def table(header: Sequence[str], rows: list[Sequence[str]], left: int = 1, indent: str = "  ") -> list[str]:
    """Columns aligned; the first `left` columns flush left, the others flush right."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    out = []
    for r in [header, *rows]:
        cells = [str(c).ljust(w) if i < left else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths))]
        out.append((indent + "  ".join(cells)).rstrip())
    return out


def describe(s: dict[str, Any]) -> str:
    lines: list[str] = []
    head = (
        f"{s.get('scenario', '?')}: seed {s.get('seed')}, {secs(s['duration_s'])} simulated "
        f"({secs(s['warmup_s'])} warm-up, {secs(s['measured_s'])} measured), "
        f"{count(s['events_processed'])} events"
    )
    if "wall_time_s" in s:
        head += f" in {s['wall_time_s']:.3g} s ({s.get('events_per_second', 0) / 1e6:.2f} M events/s)"
    lines.append(head)

    t = s["totals"]
    lines.append("")
    lines.append("totals")
    lines += table(
        ["", ""],
        [
            ["goodput", f"{rate(t['goodput_bps'])} ({size(t['delivered_bytes'])} delivered)"],
            ["packets sent", f"{count(t['packets_sent'])} ({count(t['retransmitted_packets'])} retransmissions)"],
            ["loss recovery", f"{count(t['fast_retransmits'])} fast retransmits, {count(t['timeouts'])} timeouts"],
            ["queue drops", count(t["queue_drops"])],
            ["Jain fairness", f"{t['jain_fairness']:.4f}"],
        ],
        left=2,
    )[1:]

    flows = s.get("flows", [])
    if flows:
        groups: dict[str, list[dict[str, Any]]] = {}
        for f in flows:
            groups.setdefault(f["group"], []).append(f)
        rows = []
        for name, fs in groups.items():
            g = [f["goodput_bps"] for f in fs]
            reliable = [f for f in fs if f["transport"] in ("tcp", "rdp")]
            rtts = [f["mean_rtt_ms"] for f in reliable if f["mean_rtt_ms"]]
            rows.append(
                [
                    name,
                    "/".join(sorted({f["transport"] for f in fs})),
                    count(len(fs)),
                    rate(sum(g)),
                    rate(sum(g) / len(g)),
                    f"{rate(min(g))} .. {rate(max(g))}",
                    f"{sum(rtts) / len(rtts):.1f} ms" if rtts else "-",
                    count(sum(f["retransmitted_packets"] for f in reliable)) if reliable else "-",
                    count(sum(f["timeouts"] for f in reliable)) if reliable else "-",
                ]
            )
        lines.append("")
        lines.append("flow groups")
        lines += table(
            ["group", "transport", "flows", "goodput", "per flow", "min .. max", "mean RTT", "retransmitted", "timeouts"],
            rows,
            left=2,
        )

    queues = s.get("queues", [])
    util = {ln["link"]: ln["utilisation"] for ln in s.get("links", [])}

    def marks(q: dict) -> int:
        return q["marks_early"] + q["marks_forced"] + q.get("marks_dequeue", 0)

    busy = [q for q in queues if q["drops"] or marks(q)]
    busy.sort(key=lambda q: (-q["drops"], -marks(q), q["link"]))
    lines.append("")
    if busy:
        lines.append("queues that dropped or marked")
        rows = [
            [
                q["link"],
                f"{100 * util.get(q['link'], 0):.1f}%",
                f"{q['mean_len_packets']:.1f}",
                count(q["max_len_packets"]),
                f"{q['mean_delay_ms']:.1f} ms",
                count(q["drops"]),
                f"{count(q['drops_overflow'])}/{count(q['drops_early'])}/{count(q['drops_forced'])}/{count(q.get('drops_dequeue', 0))}/{count(q['drops_link_down'])}",
                count(marks(q)),
            ]
            for q in busy[:MAX_QUEUE_ROWS]
        ]
        lines += table(
            ["link", "util", "mean len", "max len", "mean delay", "drops", "overflow/early/forced/dequeue/down", "marks"],
            rows,
        )
        if len(busy) > MAX_QUEUE_ROWS:
            lines.append(f"  ... and {len(busy) - MAX_QUEUE_ROWS} more")
    else:
        lines.append("no queue dropped or marked a packet")
        if util:
            link, u = max(util.items(), key=lambda kv: kv[1])
            lines.append(f"busiest link: {link} at {100 * u:.1f}% utilisation")
    return "\n".join(lines)
