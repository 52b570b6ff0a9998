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
    python scripts/validate_kernel.py --kernel-from rows.json --set flows.0.tcp.rack=false
                                                           # ... with a setting changed

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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from ccsim import kernel  # noqa: E402

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


def run_sim(path: Path, sets: list[str] = ()) -> dict:
    extra = [arg for s in sets for arg in ("--set", s)]
    out = subprocess.run(
        [sys.executable, "-m", "ccsim", "run", str(path), "--json", "--quiet", *extra], capture_output=True, text=True, check=True
    )
    return measures(json.loads(out.stdout))


def run_kernel(path: Path) -> dict:
    load = os.getloadavg()[0]
    s = kernel.run(path)
    m = measures(s)
    m["load"] = load
    return m


def differ(sim: float, ker: float, tolerance: float) -> bool:
    return abs(ker - sim) > tolerance * max(abs(sim), 1e-9)


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
        help="take the kernel's columns from the rows of an earlier --json run instead of running the kernel (the simulated side reruns)",
    )
    a = ap.parse_args()
    recorded = {}
    if a.kernel_from:
        for r in json.loads(Path(a.kernel_from).read_text()):
            if r.get("kernel"):
                recorded[(r["n"], r["rate_mbps"], r["rtt_ms"], r["queue"], r["cc"])] = r["kernel"]
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
            path = Path(tmp) / "s.toml"
            path.write_text(scenario(n, rate, rtt, disc, cc, a.duration, a.warmup, a.profile))
            sim = run_sim(path, a.set)
            if a.kernel_from:
                ker = recorded.get((n, rate, rtt, disc, cc))
            else:
                ker = None if why else run_kernel(path)
            flags = []
            if ker:
                if differ(sim["goodput_mbps"], ker["goodput_mbps"], 0.10):
                    flags.append("goodput")
                if differ(sim["mean_queue"], ker["mean_queue"], 0.25) and max(sim["mean_queue"], ker["mean_queue"]) >= 2:
                    flags.append("queue")
            k = ker or {}

            def pair(key, fmt, sim=sim, k=k):
                return f"{sim[key]:{fmt}} / {k[key]:{fmt}}" if k else f"{sim[key]:{fmt}} / -"

            print(
                f"| {n} | {rate:g} Mb/s | {rtt:g} ms | {disc} | {cc} | {pair('goodput_mbps', '.2f')} | {pair('mean_queue', '.1f')} | "
                f"{pair('drops', 'd')} | {pair('retransmissions', 'd')} | {k.get('load', float('nan')):.1f} | {', '.join(flags)} |",
                flush=True,
            )
            rows.append({"n": n, "rate_mbps": rate, "rtt_ms": rtt, "queue": disc, "cc": cc, "sim": sim, "kernel": ker, "flags": flags})
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
