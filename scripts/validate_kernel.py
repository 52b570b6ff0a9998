"""The simulator's TCP against the Linux kernel's, through the same links and queues.

For each row (N flows, bottleneck rate, base RTT, queue discipline, congestion control) the
same DUMBBELL-N scenario runs twice: simulated (`ccsim run`: NewReno with SACK, CUBIC or BBR
v1, under the `linux` profile unless `--profile rfc`) and
on the kernel (`ccsim kernel run`: the kernel's reno, cubic or bbr, with SACK), and the script
prints goodput, the bottleneck's mean queue, drops and retransmissions side by side, with
the differences beyond 10 % goodput or 25 % mean queue flagged. Kernel runs need root
(docs/kernel.md); without, the script says so and prints the simulated columns only.

    python scripts/validate_kernel.py                      # every row (108 rows, about 30 minutes)
    python scripts/validate_kernel.py --n 10 --rate 50 --rtt 20        # a slice
    python scripts/validate_kernel.py --json rows.json     # also the rows as JSON
    python scripts/validate_kernel.py --profile rfc        # the simulator under the RFCs' defaults
    python scripts/validate_kernel.py --kernel-from rows.json   # rerun the simulated side only
                                                           # (as often as each row's kernel side ran)
    python scripts/validate_kernel.py --kernel-from rows.json --set flows.0.tcp.rack=false
                                                           # ... with a setting changed
    python scripts/validate_kernel.py --flagged-in rows.json --repeat 3 --update rows.json
                                                           # the flagged rows, 3 runs each
    python scripts/validate_kernel.py --gso off --json rows-gso-off.json
                                                           # the kernel's senders without GSO

With `--repeat K` each side of a row runs K times, run i with seed i on both sides (the same
start times: paired), and the row shows the medians; it is flagged when the medians differ
beyond the tolerance, and marked `spread` when the kernel's own K runs differ by more than
it (the row's single run cannot then be told from its noise). The rows keep every run
(`sim_runs`, `kernel_runs`).

The load average before each kernel run is printed with it: the router is a user-space
process and a loaded machine slows it (docs/kernel.md, "Limits").
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ccsim import kernel  # the installed package (its compiled core is not in the tree)

# A row is flagged when goodput differs by more than this fraction, or the mean queue by more
# than QUEUE where either side's is at least QUEUE_FLOOR packets.
GOODPUT, QUEUE, QUEUE_FLOOR = 0.10, 0.25, 2

PACKET = 1500  # bytes on the wire of a full segment (MSS 1460 + 40; the kernel's 1448 + 52)


def scenario(n: int, rate_mbps: float, rtt_ms: float, disc: str, cc: str, duration: float, warmup: float, profile: str = "linux") -> str:
    """DUMBBELL-N: N senders behind R1, N receivers behind R2, access links 1 Gb/s and 1 ms,
    the bottleneck's delay making the base RTT `rtt_ms`, its buffer one bandwidth-delay
    product (at least 20 packets). The simulator's TCP follows `profile`; under "linux" its
    segments carry timestamps, so the payload is the kernel's 1448 bytes of every 1500. The
    receiver's window is 16 MiB: the kernel's receive buffers grow (net.ipv4.tcp_rmem), and
    ccsim's default 1 MiB would hold a flow at 50 Mb/s and 100 ms below what the path holds."""
    mss = 1448 if profile == "linux" else 1460
    bdp = max(20, round(rate_mbps * 1e6 * rtt_ms / 1e3 / (PACKET * 8)))
    if disc == "droptail":
        queue = f'{{ discipline = "droptail", limit = {bdp} }}'
    elif disc == "red":
        min_th = max(5, bdp // 8)
        queue = (
            f'{{ discipline = "red", limit = {bdp}, min_th = {min_th}, max_th = {3 * min_th}, max_p = 0.1, mean_packet_size = {PACKET} }}'
        )
    else:
        queue = f'{{ discipline = "codel", limit = {max(bdp, 100)} }}'
    variant = {"newreno": "newreno", "cubic": "cubic", "bbr": "bbr"}[cc]
    return f"""
name = "dumbbell-{n}-{rate_mbps:g}M-{rtt_ms:g}ms-{disc}-{cc}"
duration = "{duration}s"
warmup = "{warmup}s"
seed = 1
profile = "{profile}"
hosts = ["S{{1..{n}}}", "D{{1..{n}}}"]
routers = ["R1", "R2"]
[[links]]
between = ["S{{1..{n}}}", "R1"]
rate = "1Gbps"
delay = "1ms"
[[links]]
between = ["R1", "R2"]
rate = "{rate_mbps:g}Mbps"
delay = "{(rtt_ms - 4) / 2:g}ms"
queue = {queue}
[[links]]
between = ["R2", "D{{1..{n}}}"]
rate = "1Gbps"
delay = "1ms"
[[flows]]
name = "bulk"
from = "S{{1..{n}}}"
to = "D{{1..{n}}}"
start = {{ uniform = ["0s", "1s"] }}
tcp = {{ variant = "{variant}", mss = {mss}, sack = true, rwnd = 16777216 }}
"""


def measures(s: dict) -> dict:
    q = next(q for q in s["queues"] if q["link"] == "R1->R2")
    return {
        "goodput_mbps": s["totals"]["goodput_bps"] / 1e6,
        "mean_queue": q["mean_len_packets"],
        "drops": q["drops"],
        "retransmissions": s["totals"]["retransmitted_packets"],
    }


def run_sim(path: Path, sets: list[str] = (), seed: int = 1) -> dict:
    extra = [arg for s in sets for arg in ("--set", s)] + ["--seed", str(seed)]
    out = subprocess.run(
        [sys.executable, "-m", "ccsim", "run", str(path), "--json", "--quiet", *extra], capture_output=True, text=True, check=True
    )
    return measures(json.loads(out.stdout))


def run_kernel(path: Path, seed: int = 1, gso: bool = True) -> dict:
    load = os.getloadavg()[0]
    s = kernel.run(path, [f"seed={seed}"], gso=gso)
    m = measures(s)
    m["load"] = load
    return m


def differ(sim: float, ker: float, tolerance: float) -> bool:
    return abs(ker - sim) > tolerance * max(abs(sim), 1e-9)


def key(row: dict) -> tuple:
    """What names a row: (N, rate, RTT, queue, congestion control)."""
    return (row["n"], row["rate_mbps"], row["rtt_ms"], row["queue"], row["cc"])


def median_of(runs: list[dict]) -> dict:
    """Each measure's median over the runs (the lower middle one of an even count, so that
    it is a value some run had)."""
    return {k: sorted(r[k] for r in runs)[(len(runs) - 1) // 2] for k in runs[0]}


def spread(runs: list[dict], measure: str, tolerance: float, floor: float = 0.0) -> bool:
    """Whether some run's `measure` differs from the runs' median by more than `tolerance` of
    it (where some run's is at least `floor`)."""
    middle = median_of(runs)[measure]
    return max(r[measure] for r in runs) >= floor and any(differ(middle, r[measure], tolerance) for r in runs)


def flags_of(sim: dict, ker: dict) -> list[str]:
    flags = []
    if differ(sim["goodput_mbps"], ker["goodput_mbps"], GOODPUT):
        flags.append("goodput")
    if differ(sim["mean_queue"], ker["mean_queue"], QUEUE) and max(sim["mean_queue"], ker["mean_queue"]) >= QUEUE_FLOOR:
        flags.append("queue")
    return flags


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, nargs="*", default=[1, 2, 10])
    ap.add_argument("--rate", type=float, nargs="*", default=[10, 50], help="Mb/s")
    ap.add_argument("--rtt", type=float, nargs="*", default=[20, 100], help="ms")
    ap.add_argument("--queue", nargs="*", default=["droptail", "red", "codel"])
    ap.add_argument("--cc", nargs="*", default=["newreno", "cubic", "bbr"], choices=["newreno", "cubic", "bbr"])
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--warmup", type=float, default=5.0)
    ap.add_argument(
        "--profile",
        choices=["linux", "rfc"],
        default="linux",
        help="the simulated side's profile: linux (the kernel's defaults: IW10, PRR, timestamps...) or rfc",
    )
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    ap.add_argument(
        "--set", action="append", default=[], metavar="KEY.PATH=VALUE", help="override a field of the simulated scenario (repeatable)"
    )
    ap.add_argument(
        "--kernel-from",
        metavar="FILE",
        help="take the kernel's columns from the rows of an earlier --json run instead of running the kernel (the simulated side reruns, once per recorded kernel run)",
    )
    ap.add_argument("--repeat", type=int, default=1, metavar="K", help="run each side of a row K times (seeds 1..K) and compare medians")
    ap.add_argument("--flagged-in", metavar="FILE", help="only the rows flagged in an earlier --json run")
    ap.add_argument("--gso", choices=["on", "off"], default="on", help="the kernel hosts' software segmentation (`ccsim kernel run --gso`)")
    ap.add_argument("--update", metavar="FILE", help="write these rows into an earlier --json file, replacing the same rows")
    a = ap.parse_args()
    if a.repeat < 1:
        ap.error(f"--repeat: at least 1 run, not {a.repeat}")
    if a.kernel_from and a.repeat > 1:
        ap.error("--repeat reruns the kernel side: not with --kernel-from (a row recorded with K runs reruns its simulated side K times)")
    wanted = None
    if a.flagged_in:
        wanted = {key(r) for r in json.loads(Path(a.flagged_in).read_text()) if r.get("flags")}
    recorded = {}
    if a.kernel_from:
        for r in json.loads(Path(a.kernel_from).read_text()):
            if r.get("kernel"):
                recorded[key(r)] = r
        why = None
    else:
        why = kernel.unavailable()
    if why:
        print(f"kernel runs unavailable ({why}): simulated columns only", file=sys.stderr)
    rows = []
    print(
        "| N | rate | RTT | queue | cc | goodput sim / kernel (Mb/s) | mean queue sim / kernel | drops sim / kernel | retransmissions sim / kernel | load | flags |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n, rate, rtt, disc, cc in itertools.product(a.n, a.rate, a.rtt, a.queue, a.cc):
            if wanted is not None and (n, rate, rtt, disc, cc) not in wanted:
                continue
            path = Path(tmp) / "s.toml"
            path.write_text(scenario(n, rate, rtt, disc, cc, a.duration, a.warmup, a.profile))
            old = recorded.get((n, rate, rtt, disc, cc), {})
            # A recorded row's kernel runs (seeds 1..K) fix the simulated side's.
            ker_runs = old.get("kernel_runs") or []
            repeat = max(len(ker_runs), 1) if a.kernel_from else a.repeat
            seeds = range(1, repeat + 1)
            sim_runs = [run_sim(path, a.set, seed) for seed in seeds]
            sim = median_of(sim_runs)
            if a.kernel_from:
                ker = old.get("kernel")
            else:
                ker_runs = [] if why else [run_kernel(path, seed, a.gso == "on") for seed in seeds]
                ker = median_of(ker_runs) if ker_runs else None
            flags = flags_of(sim, ker) if ker else []
            if len(ker_runs) > 1 and (spread(ker_runs, "goodput_mbps", GOODPUT) or spread(ker_runs, "mean_queue", QUEUE, QUEUE_FLOOR)):
                flags.append("spread")
            k = ker or {}
            runs = [f"median of {repeat}"] if repeat > 1 else []

            def pair(key, fmt, sim=sim, k=k):
                return f"{sim[key]:{fmt}} / {k[key]:{fmt}}" if k else f"{sim[key]:{fmt}} / -"

            print(
                f"| {n} | {rate:g} Mb/s | {rtt:g} ms | {disc} | {cc} | {pair('goodput_mbps', '.2f')} | {pair('mean_queue', '.1f')} | "
                f"{pair('drops', 'd')} | {pair('retransmissions', 'd')} | {k.get('load', float('nan')):.1f} | {', '.join(flags + runs)} |",
                flush=True,
            )
            row = {"n": n, "rate_mbps": rate, "rtt_ms": rtt, "queue": disc, "cc": cc, "sim": sim, "kernel": ker, "flags": flags}
            if repeat > 1:
                row |= {"sim_runs": sim_runs, "kernel_runs": ker_runs}
            rows.append(row)
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    if a.update:
        new = {key(r): r for r in rows}
        old = json.loads(Path(a.update).read_text())
        merged = [new.pop(key(r), r) for r in old] + list(new.values())
        Path(a.update).write_text(json.dumps(merged, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
