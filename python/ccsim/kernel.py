"""Kernel runs: a scenario's TCP flows as real Linux TCP connections through ccsim's links
and queue disciplines (`ccsim kernel run`, docs/kernel.md).

Each host of the scenario is a network namespace (`ccsim-<pid>-<i>`) whose only route is a
TUN device. One router process (`python -m ccsim kernel router`, Rust:
`ccsim._core.kernel_router`, crate `ccsim-live`, module `kernel`) holds every TUN device and
carries the IP packets between them through the scenario's links (rate, delay, loss) and
egress queues (the simulator's disciplines and signal policies). In each host's namespace a
small process (`python -m ccsim kernel host`) runs the host's ends of the flows: a bulk
sender per flow with `TCP_CONGESTION` set from `tcp.variant`, a receiver per flow, and a
sampler of the senders' `TCP_INFO`. `run` builds all this, starts everyone at one time,
collects their reports into a summary shaped like `ccsim run`'s, and tears everything
down (processes, namespaces; the TUN devices vanish with the router) on return, on an
error, on Ctrl-C or SIGTERM, and when a process dies.
"""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from . import _core
from .live import _read_line
from .live import _stop as stop_processes

#: Prefix of every namespace a kernel run makes (then the pid of the run, then the node).
PREFIX = "ccsim-"
#: Name of the TUN device in each host's namespace.
IFNAME = "ccsim0"
#: Seconds between TCP_INFO and queue samples when the scenario asks for no `[[series]]`.
INTERVAL = 0.1
#: The `[[series]]` kinds a kernel run samples: of flows, from the sender's TCP_INFO
#: (`goodput`: the receiver's); of links, the router's queue, its discipline's average
#: queue and its drops in each interval.
FLOW_SERIES = ("cwnd", "ssthresh", "srtt", "pacing_rate", "goodput")
LINK_SERIES = ("queue", "queue_avg", "drops")
#: Seconds the processes may take to get ready; seconds between "ready" and the start.
START_TIMEOUT = 30.0
START_DELAY = 0.5
#: Seconds after the scenario's end before a run is declared stuck.
END_GRACE = 15.0


class KernelError(Exception):
    """A kernel run cannot start or failed."""


def unavailable() -> str | None:
    """Why kernel runs cannot work on this machine (None: they can)."""
    if sys.platform != "linux":
        return "kernel runs need Linux"
    if os.geteuid() != 0:
        return "kernel runs need root (network namespaces, TUN devices)"
    if not os.access("/dev/net/tun", os.R_OK | os.W_OK):
        return "no /dev/net/tun"
    for tool in ("ip", "sysctl"):
        if not any(
            os.access(os.path.join(d, tool), os.X_OK) for d in os.environ.get("PATH", "").split(os.pathsep) + ["/usr/sbin", "/sbin"]
        ):
            return f"the `{tool}` command is missing"
    return None


def plan(path: Path | str, overrides: list[str] | None = None) -> dict[str, Any]:
    """The scenario as a kernel run sees it; raises `ccsim.ScenarioError`."""
    path = Path(path)
    return json.loads(_core.kernel_plan(path.read_text(), str(path), list(overrides or [])))


def series_wanted(path: Path | str, overrides: list[str] | None = None) -> list[dict[str, Any]] | None:
    """The scenario's `[[series]]` as the simulator expands them (`name` "KIND TARGET",
    `interval_s`, `max_points`), None when it asks for none. A kind a kernel run does not
    sample is an error naming it."""
    path = Path(path)
    wanted = json.loads(_core.describe(path.read_text(), str(path), list(overrides or []), None))["series"]
    for w in wanted:
        kind = w["name"].split(" ", 1)[0]
        if kind not in FLOW_SERIES + LINK_SERIES:
            raise KernelError(
                f"series ({w['name']}).kind: a kernel run samples {', '.join(FLOW_SERIES)} of flows and "
                f"{', '.join(LINK_SERIES)} of links, not {kind}"
            )
    return wanted or None


def resample(t: list[float], values: list, interval: float, base: float, max_points: int) -> tuple[list, list, bool]:
    """The samples of a series taken every `base` seconds that fall on multiples of
    `interval` (within half of `base`), at most `max_points` of them; and whether some were
    left out for that bound."""
    keep = [i for i, x in enumerate(t) if abs(x / interval - round(x / interval)) * interval < base / 2 + 1e-9]
    return [t[i] for i in keep[:max_points]], [values[i] for i in keep[:max_points]], len(keep) > max_points


def _ip(*args: str, stdin: str | None = None) -> None:
    r = subprocess.run(["ip", *args], input=stdin, capture_output=True, text=True)
    if r.returncode != 0:
        raise KernelError(f"ip {' '.join(args)}: {r.stderr.strip()}")


def _check_one_segment_per_packet(ns: str) -> None:
    """Software segmentation (GSO) is on for every device, the TUN device too: TCP then builds
    several segments at once, sized to about a millisecond at its pacing rate, and defers
    sending to fill them (`tcp_tso_autosize()`, `tcp_tso_should_defer()`), which sends bursts
    of 3 to 5 segments where a TCP without it sends one per freed segment (each still one
    packet on the wire: the device segments in software). The device's `gso_max_segs` of 1
    keeps TCP to one segment per send; refused if it did not take."""
    r = subprocess.run(["ip", "-n", ns, "-d", "-j", "link", "show", "dev", IFNAME], capture_output=True, text=True)
    try:
        segs = json.loads(r.stdout)[0].get("gso_max_segs")
    except (ValueError, IndexError, KeyError):
        raise KernelError(f"cannot read {IFNAME}'s segmentation offload in {ns}: {r.stderr.strip() or r.stdout.strip()}") from None
    if segs != 1:
        raise KernelError(f"{IFNAME} in {ns} keeps gso_max_segs {segs}: TCP would send several segments at once")


def namespaces() -> list[str]:
    """The network namespaces of kernel runs present on this machine."""
    r = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    return [ln.split()[0] for ln in r.stdout.splitlines() if ln.startswith(PREFIX)]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep() -> list[str]:
    """Deletes the namespaces and temporary folders of kernel runs whose process is gone (a
    run killed with SIGKILL cannot clean up after itself); returns their names."""
    gone = []
    for ns in namespaces():
        parts = ns.split("-")
        if len(parts) >= 3 and parts[1].isdigit() and not _alive(int(parts[1])):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
            gone.append(ns)
    return gone + sweep_temp()


#: Prefix of a kernel run's temporary folder (then the pid of the run and a random part).
TEMP_PREFIX = "ccsim-kernel-"


def sweep_temp() -> list[str]:
    """Deletes the temporary folders (`TEMP_PREFIX<pid>-*` in the temporary directory) of
    kernel runs whose process is gone; returns their paths."""
    import shutil

    gone = []
    for d in Path(tempfile.gettempdir()).glob(f"{TEMP_PREFIX}*-*"):
        pid = d.name[len(TEMP_PREFIX) :].split("-", 1)[0]
        if d.is_dir() and pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(d, ignore_errors=True)
            gone.append(str(d))
    return gone


def _host_settings(p: dict[str, Any]) -> dict[str, dict[str, int]]:
    """The TCP sysctls of each host's namespace: ECN requested by a host whose flows ask for
    it (`net.ipv4.tcp_ecn`), SACK as the flows through it say (`net.ipv4.tcp_sack`). Flows
    of one host that disagree are an error naming the field."""
    out: dict[str, dict[str, int]] = {}
    seen: dict[tuple[str, str], tuple[bool, str]] = {}
    for f in p["flows"]:
        for host, key, value in ((f["src"], "ecn", f["ecn"]), (f["src"], "sack", f["sack"]), (f["dst"], "sack", f["sack"])):
            prev = seen.setdefault((host, key), (value, f["name"]))
            if prev[0] != value:
                raise KernelError(
                    f"flows ({f['group']}).tcp.{key}: host {host} has flows with {key} on and off ({prev[1]}, {f['name']}); "
                    "a kernel run sets it per host (a sysctl in its namespace)"
                )
    for (host, key), (value, _) in seen.items():
        s = out.setdefault(host, {})
        if key == "ecn":
            s["net.ipv4.tcp_ecn"] = 1 if value else 0
        else:
            s["net.ipv4.tcp_sack"] = int(value)
    return out


def distinct_ports(p: dict[str, Any]) -> None:
    """Gives each flow to a host a port of its own (a listening socket per flow; the plan
    gives every flow the same port): a flow whose (destination, port) an earlier flow has
    takes the next free port above it."""
    used: set[tuple[str, int]] = set()
    for f in p["flows"]:
        while (f["dst"], f["dport"]) in used:
            f["dport"] += 1
        used.add((f["dst"], f["dport"]))


def extra_sysctls() -> dict[str, str]:
    """Sysctls for every host's namespace from `CCSIM_KERNEL_SYSCTL` (space-separated
    `KEY=VALUE`, e.g. `net.ipv4.tcp_timestamps=0`), for experiments on the kernel's TCP."""
    out = {}
    for item in os.environ.get("CCSIM_KERNEL_SYSCTL", "").split():
        key, sep, value = item.partition("=")
        if not sep or not key.startswith("net."):
            raise KernelError(f"CCSIM_KERNEL_SYSCTL: {item!r} is not a net.* KEY=VALUE")
        out[key] = value
    return out


def _stop(procs: list[subprocess.Popen]) -> None:
    """Ends every process in `procs` still running: stdin closed, then as a live run's."""
    for p in procs:
        try:
            if p.stdin and p.poll() is None:
                p.stdin.close()
        except OSError:
            pass
    stop_processes(procs)


def _on_sigterm(signum, frame):
    raise KeyboardInterrupt


def run(
    path: Path | str,
    overrides: list[str] | None = None,
    out_dir: Path | str | None = None,
    pcap: list[str] | None = None,
    gso: bool = True,
) -> dict[str, Any]:
    """Runs the scenario at `path` with the kernel's TCP; returns the summary. Each router
    named in `pcap` writes `NAME.pcap` (every packet it receives) into `out_dir` (default:
    the current folder). `gso=False` turns the hosts' software segmentation off (see
    `_check_one_segment_per_packet`)."""
    why = unavailable()
    if why:
        raise KernelError(why)
    path = Path(path)
    overrides = list(overrides or [])
    p = plan(path, overrides)
    distinct_ports(p)
    p["series"] = series_wanted(path, overrides)
    # One sampling interval for everything, the shortest asked for (1 ms at least).
    p["interval_s"] = max(1e-3, min([w["interval_s"] for w in p["series"] or []] + [INTERVAL]))
    settings = _host_settings(p)
    sweep()
    tag = f"{PREFIX}{os.getpid()}"
    ns_of = {n["name"]: f"{tag}-{i}" for i, n in enumerate(p["nodes"]) if not n["router"]}
    made: list[str] = []
    procs: list[subprocess.Popen] = []
    logs = tempfile.TemporaryDirectory(prefix=f"{TEMP_PREFIX}{os.getpid()}-")
    old = signal.signal(signal.SIGTERM, _on_sigterm) if threading.current_thread() is threading.main_thread() else None
    load_before = os.getloadavg()
    started = time.time()
    try:
        for n in p["nodes"]:
            if n["router"]:
                continue
            ns = ns_of[n["name"]]
            _ip("netns", "add", ns)
            made.append(ns)
            sysctls = {"net.ipv6.conf.all.disable_ipv6": 1, "net.ipv6.conf.default.disable_ipv6": 1} | settings.get(n["name"], {})
            sysctls |= extra_sysctls()
            r = subprocess.run(
                ["ip", "netns", "exec", ns, "sysctl", "-q", "-w", *(f"{k}={v}" for k, v in sysctls.items())], capture_output=True, text=True
            )
            if r.returncode != 0:
                raise KernelError(f"sysctl in {ns}: {r.stderr.strip()}")
        router_cmd = [
            sys.executable,
            "-m",
            "ccsim",
            "kernel",
            "router",
            str(path),
            "--ns",
            ",".join(ns_of.get(n["name"], "") for n in p["nodes"]),
            "--interval",
            repr(p["interval_s"]),
        ]
        router_cmd += [a for o in overrides for a in ("--set", o)]
        if pcap:
            Path(out_dir or ".").mkdir(parents=True, exist_ok=True)
            router_cmd += ["--pcap", ",".join(pcap), "--out", str(Path(out_dir or ".").resolve())]
        router_err = open(Path(logs.name) / "router.err", "w+b")
        router = subprocess.Popen(router_cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=router_err, start_new_session=True)
        procs.append(router)
        if _read_line(router, START_TIMEOUT) != "READY":
            raise KernelError(f"the router did not start: {_tail(router_err)}")
        for n in p["nodes"]:
            if n["router"]:
                continue
            ns = ns_of[n["name"]]
            _ip(
                "-n",
                ns,
                "-batch",
                "-",
                stdin=f"link set lo up\nlink set {IFNAME} up mtu {p['mtu']} txqueuelen 1000{'' if gso else ' gso_max_segs 1'}\n"
                f"addr add {n['addr']}/32 dev {IFNAME}\nroute add default dev {IFNAME}\n",
            )
            if not gso:
                _check_one_segment_per_packet(ns)
        spec = Path(logs.name) / "plan.json"
        spec.write_text(json.dumps(p))
        hosts = sorted({f["src"] for f in p["flows"]} | {f["dst"] for f in p["flows"]}, key=lambda h: list(ns_of).index(h))
        host_procs = {}
        host_errs = {}
        for h in hosts:
            host_errs[h] = open(Path(logs.name) / f"{h}.err", "w+b")
            cmd = ["ip", "netns", "exec", ns_of[h], sys.executable, "-m", "ccsim", "kernel", "host", str(spec), "--name", h]
            host_procs[h] = subprocess.Popen(
                cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=host_errs[h], start_new_session=True
            )
            procs.append(host_procs[h])
        for h, proc in host_procs.items():
            if _read_line(proc, START_TIMEOUT) != "READY":
                raise KernelError(f"host {h} did not start: {_tail(host_errs[h])}")
        t0 = time.time() + START_DELAY
        for proc in [router, *host_procs.values()]:
            assert proc.stdin is not None
            proc.stdin.write(f"{t0!r}\n".encode())
            proc.stdin.flush()
        # Reports can outgrow a pipe's buffer: read them while waiting.
        outputs: dict[int, bytes] = {}
        readers = [threading.Thread(target=_drain, args=(proc, outputs), daemon=True) for proc in [router, *host_procs.values()]]
        for t in readers:
            t.start()
        deadline = t0 + p["duration_s"] + END_GRACE
        # Wait for everyone, watching for a process that dies.
        while True:
            if router.poll() is not None and router.returncode != 0:
                raise KernelError(f"the router died (exit {router.returncode}): {_tail(router_err)}")
            for h, proc in host_procs.items():
                if proc.poll() is not None and proc.returncode != 0:
                    raise KernelError(f"host {h} died (exit {proc.returncode}): {_tail(host_errs[h])}")
            if all(proc.poll() is not None for proc in procs):
                break
            if time.time() > deadline:
                raise KernelError("the run did not finish in time")
            time.sleep(0.05)
        for t in readers:
            t.join(timeout=10.0)
        router_report = json.loads(_last_line(outputs.get(router.pid, b"")))
        host_reports = {h: json.loads(_last_line(outputs.get(proc.pid, b""))) for h, proc in host_procs.items()}
    finally:
        _stop(procs)
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        if old is not None:
            signal.signal(signal.SIGTERM, old)
        logs.cleanup()
    summary = combine(p, router_report, host_reports)
    summary["wall_time_s"] = time.time() - started
    summary["machine"] = {
        "load_average_before": list(load_before),
        "load_average_after": list(os.getloadavg()),
        "kernel": os.uname().release,
        "gso": gso,
    }
    if out_dir:
        from .results import Results

        # summary.json and the Parquet tables, as `ccsim run --out` writes them.
        Results(summary).to_parquet(out_dir)
    return summary


def _drain(proc: subprocess.Popen, into: dict[int, bytes]) -> None:
    assert proc.stdout is not None
    into[proc.pid] = proc.stdout.read()


def _last_line(out: bytes) -> str:
    lines = [ln for ln in out.decode(errors="replace").splitlines() if ln.strip()]
    if not lines:
        raise KernelError("a process of the run printed no report")
    return lines[-1]


def _tail(f) -> str:
    f.flush()
    f.seek(0)
    lines = [ln for ln in f.read().decode(errors="replace").splitlines() if ln.strip()]
    return lines[-1] if lines else "no message"


#: Fields of the router's rows that belong to the `links` table (the rest: `queues`).
LINK_FIELDS = ("link", "from", "to", "rate_bps", "delay_ms", "tx_packets", "tx_bytes", "sent_bps", "utilisation", "lost_random", "series")


def combine(p: dict[str, Any], router: dict[str, Any], hosts: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The router's and the hosts' reports as one summary, in `ccsim run`'s schema where
    the quantities are the same (docs/kernel.md lists the differences)."""
    measured = p["duration_s"] - p["warmup_s"]
    senders = {f["name"]: f for h in hosts.values() for f in h["senders"]}
    receivers = {f["name"]: f for h in hosts.values() for f in h["receivers"]}
    flows = []
    # Every series sampled, name -> (t, values); without `[[series]]` in the scenario, the
    # senders' and the non-empty queues' go into the summary.
    sampled: dict[str, tuple[list, list]] = {}
    series = []
    for f in p["flows"]:
        tx = senders.get(f["name"], {})
        rx = receivers.get(f["name"], {})
        delivered = rx.get("bytes_in_window", 0)
        flows.append(
            {
                "flow": f["name"],
                "group": f["group"],
                "index": f["index"],
                "src": f["src"],
                "dst": f["dst"],
                "transport": "tcp",
                "kernel_cc": f["cc"],
                "start_s": f["start_s"],
                "packets_sent": tx.get("data_segs_out", 0),
                "bytes_sent": tx.get("bytes_sent", 0),
                "retransmitted_packets": tx.get("total_retrans", 0),
                "retransmitted_bytes": tx.get("bytes_retrans", 0),
                "delivered_bytes": delivered,
                "goodput_bps": delivered * 8 / measured if measured > 0 else 0.0,
                "mean_rtt_ms": tx.get("mean_srtt_ms"),
                "min_rtt_ms": tx.get("min_rtt_ms"),
                "final_cwnd_segments": tx.get("final_cwnd", 0),
                "dsack_dups": tx.get("dsack_dups", 0),
                "reord_seen": tx.get("reord_seen", 0),
                "error": tx.get("error") or rx.get("error"),
            }
        )
        for kind, values in tx.get("series", {}).items():
            sampled[f"{kind} {f['name']}"] = (tx.get("series_t", []), values)
        sampled[f"goodput {f['name']}"] = (rx.get("series_t", []), rx.get("goodput", []))
    queues = []
    links = []
    for q in router["queues"]:
        # Each sample: time, queue length, average queue (null without one), drops so far.
        times, lengths, avgs, drops = (list(c) for c in zip(*q["series"])) if q["series"] else ([], [], [], [])
        sampled[f"queue {q['link']}"] = (times, lengths)
        sampled[f"queue_avg {q['link']}"] = (times, avgs)
        sampled[f"drops {q['link']}"] = (times, drops)
        if p.get("series") is None and max(lengths, default=0) > 0:
            series.append(
                {
                    "name": f"queue {q['link']}",
                    "t": sampled[f"queue {q['link']}"][0],
                    "value": sampled[f"queue {q['link']}"][1],
                    "truncated": False,
                }
            )
        queues.append({k: v for k, v in q.items() if k not in LINK_FIELDS or k == "link"})
        links.append({k: q[k] for k in LINK_FIELDS if k != "series"})
    if p.get("series") is None:
        names = [f"{k} {f['name']}" for f in p["flows"] for k in ("cwnd", "ssthresh", "srtt", "retransmissions", "delivery_rate")]
        series = [{"name": n, "t": sampled[n][0], "value": sampled[n][1], "truncated": False} for n in names if n in sampled] + series
    else:
        base = p.get("interval_s", INTERVAL)
        for w in p["series"]:
            t, vals, cut = resample(*sampled.get(w["name"], ([], [])), w["interval_s"], base, w["max_points"])
            if w["name"].startswith("drops "):
                # Sampled as the drops so far: each interval's are the difference.
                vals = [v - u for u, v in zip([0, *vals], vals)]
            series.append({"name": w["name"], "t": t, "value": vals, "truncated": cut})
    goodputs = [f["goodput_bps"] for f in flows]
    jain = (sum(goodputs) ** 2 / (len(goodputs) * sum(g * g for g in goodputs))) if any(goodputs) else 1.0
    return {
        "scenario": p["name"],
        "mode": "kernel",
        "seed": p["seed"],
        "duration_s": p["duration_s"],
        "warmup_s": p["warmup_s"],
        "measured_s": measured,
        "mtu": p["mtu"],
        "totals": {
            "goodput_bps": sum(goodputs),
            "delivered_bytes": sum(f["delivered_bytes"] for f in flows),
            "packets_sent": sum(f["packets_sent"] for f in flows),
            "retransmitted_packets": sum(f["retransmitted_packets"] for f in flows),
            "queue_drops": sum(q["drops"] for q in queues),
            "jain_fairness": jain,
        },
        "flows": flows,
        "queues": queues,
        "links": links,
        "series": series,
        "router": router["router"] | {"cpu_s": router["cpu_s"]},
    }


def describe(s: dict[str, Any]) -> str:
    """The text summary `ccsim kernel run` prints, shaped like `ccsim run`'s."""
    from ._format import count, rate, secs, size, table

    t = s["totals"]
    m = s.get("machine", {})
    la = m.get("load_average_before", [0, 0, 0])
    lines = [
        f"{s['scenario']}: Linux {m.get('kernel', '?')} TCP through ccsim's links, {secs(s['duration_s'])} "
        f"({secs(s['warmup_s'])} warm-up, {secs(s['measured_s'])} measured) in {s.get('wall_time_s', 0):.3g} s; "
        f"load average {la[0]:.2f} before, {m.get('load_average_after', [0])[0]:.2f} after",
        "",
        "totals",
    ]
    lines += table(
        ["", ""],
        [
            ["goodput", f"{rate(t['goodput_bps'])} ({size(t['delivered_bytes'])} delivered)"],
            ["segments sent", f"{count(t['packets_sent'])} ({count(t['retransmitted_packets'])} retransmitted)"],
            ["queue drops", count(t["queue_drops"])],
            ["Jain fairness", f"{t['jain_fairness']:.4f}"],
        ],
        left=2,
    )[1:]
    lines += ["", "flows"]
    lines += table(
        ["flow", "cc", "goodput", "delivered", "sent", "retransmitted", "mean srtt", "final cwnd"],
        [
            [
                f["flow"],
                f["kernel_cc"],
                rate(f["goodput_bps"]),
                size(f["delivered_bytes"]),
                count(f["packets_sent"]),
                count(f["retransmitted_packets"]),
                f"{f['mean_rtt_ms']:.1f} ms" if f["mean_rtt_ms"] is not None else "-",
                count(f["final_cwnd_segments"]),
            ]
            for f in s["flows"]
        ],
    )
    busy = [(q, ln) for q, ln in zip(s["queues"], s["links"]) if ln["utilisation"] > 0.01 or q["drops"]]
    lines += ["", "links in use"]
    lines += table(
        ["link", "rate", "sent", "util", "mean queue", "max queue", "drops", "marks"],
        [
            [
                ln["link"],
                rate(ln["rate_bps"]),
                rate(ln["sent_bps"]),
                f"{100 * ln['utilisation']:.1f}%",
                f"{q['mean_len_packets']:.1f}",
                count(q["max_len_packets"]),
                count(q["drops"]),
                count(q["marks_early"] + q["marks_forced"] + q["marks_dequeue"]),
            ]
            for q, ln in busy
        ],
    )
    r = s["router"]
    lines += [
        "",
        f"router: {count(r['read'])} packets read, {count(r['written'])} written, CPU {r['cpu_s']:.2f} s, "
        f"largest packet {r['max_packet']} bytes ({count(r['oversize'])} above the MTU), "
        f"mean write lateness {r['lateness_ns_sum'] / max(1, r['written']) / 1e3:.0f} us",
    ]
    if r.get("spoof_events") or r.get("spoof_absorbed") or r.get("spoof_no_ack"):
        lines.append(
            f"ACK spoofing: {count(r['spoof_events'])} bursts, {count(r['spoofed_acks_sent'])} forged ACKs sent, "
            f"{count(r['spoof_absorbed'])} signals absorbed, {count(r['spoof_no_ack'])} before any ACK"
        )
    if not r.get("realtime", True):
        lines.append("the router ran without a real-time priority: expect late packets on a loaded machine (docs/kernel.md)")
    return "\n".join(lines)


# --- the host process, inside a host's namespace ----------------------------------------

#: struct tcp_info (linux/tcp.h) up to tcpi_snd_wnd: the fields read, by byte offset.
_TCP_INFO_LEN = 232
_INFO = {
    "rtt_us": (68, "I"),
    "snd_ssthresh": (76, "I"),
    "snd_cwnd": (80, "I"),
    "total_retrans": (100, "I"),
    "min_rtt_us": (148, "I"),
    "data_segs_out": (156, "I"),
    "delivery_rate": (160, "Q"),
    "pacing_rate": (104, "Q"),
    "bytes_received": (128, "Q"),
    "bytes_sent": (200, "Q"),
    "bytes_retrans": (208, "Q"),
    "dsack_dups": (216, "I"),
    "reord_seen": (220, "I"),
}
_INFINITE_SSTHRESH = 0x7FFFFFFF


def tcp_info(sock: socket.socket) -> dict[str, int]:
    """The fields of `sock`'s TCP_INFO that a kernel run reports (0 where the kernel's
    struct is shorter)."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_LEN)
    out = {}
    for k, (off, fmt) in _INFO.items():
        n = struct.calcsize(fmt)
        out[k] = struct.unpack_from("=" + fmt, raw, off)[0] if len(raw) >= off + n else 0
    return out


def host_main(spec_path: str, name: str) -> int:
    """One host's ends of the flows, in its namespace: listen, print READY, read the start
    time, run the senders and receivers, print the report as one line of JSON."""
    import ctypes

    try:  # die with the parent
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass
    p = json.loads(Path(spec_path).read_text())
    warmup, end = p["warmup_s"], p["duration_s"]
    mine_rx = [f for f in p["flows"] if f["dst"] == name]
    mine_tx = [f for f in p["flows"] if f["src"] == name]
    listeners = []
    for f in mine_rx:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((f["dst_addr"], f["dport"]))
        s.listen(1)
        listeners.append((f, s))
    print("READY", flush=True)
    line = sys.stdin.readline()
    if not line.strip():
        return 1
    t0 = float(line)
    rx_rows: list[dict[str, Any]] = []
    tx_rows: list[dict[str, Any]] = []
    dt = p.get("interval_s", INTERVAL)
    threads = [threading.Thread(target=_receive, args=(f, s, t0, warmup, end, rx_rows, dt), daemon=True) for f, s in listeners]
    threads += [threading.Thread(target=_send, args=(f, t0, warmup, end, tx_rows, dt), daemon=True) for f in mine_tx]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(0.0, t0 + end + 5.0 - time.time()))
    print(json.dumps({"host": name, "senders": tx_rows, "receivers": rx_rows}), flush=True)
    return 0


def _sleep_until(t: float) -> None:
    while (left := t - time.time()) > 0:
        time.sleep(min(left, 0.5))


def _grid(t0: float, after: float, interval: float) -> float:
    """The first sampling time at or after `after` s of the run: samples are taken at
    multiples of `interval` from the start, as the simulator's."""
    return t0 + math.ceil(after / interval - 1e-9) * interval


def _receive(f: dict[str, Any], lsock: socket.socket, t0: float, warmup: float, end: float, rows: list, interval: float = INTERVAL) -> None:
    row = {"name": f["name"], "bytes": 0, "bytes_in_window": 0}
    rows.append(row)
    lsock.settimeout(max(1.0, t0 + end - time.time()))
    try:
        conn, _ = lsock.accept()
    except OSError as e:
        row["error"] = f"accept: {e}"
        return
    conn.settimeout(min(0.02, interval / 2))
    buf = bytearray(1 << 18)
    # The goodput series: bytes delivered in order during each interval, as bit/s.
    next_sample = _grid(t0, time.time() - t0, interval)
    # Nothing was delivered before the connection: zeros from the start, as simulated.
    before = round((next_sample - t0) / interval)
    row["series_t"], row["goodput"] = [round(k * interval, 6) for k in range(before)], [0.0] * before
    last = (next_sample - interval, 0)
    (w0, w1) = (t0 + warmup, t0 + end)
    # Bytes delivered in order by the kernel (tcpi_bytes_received) when the window opens
    # and closes, read within a few ms of those times: what the application has read is
    # later by whatever waits in the socket buffer.
    at: list[tuple[float, int]] = []
    if time.time() >= w0:
        # Connected after the window opened: nothing was received before, so the window
        # opens with 0 bytes (a reading now would stretch this flow's rate over the window).
        at.append((w0, 0))
    while True:
        try:
            n = conn.recv_into(buf)
        except TimeoutError:
            n = -1
        except OSError as e:
            row["error"] = f"recv: {e}"
            break
        now = time.time()
        while len(at) < 2 and now >= (w0, w1)[len(at)]:
            at.append((now, tcp_info(conn)["bytes_received"]))
        if now >= next_sample and next_sample <= w1 + 1e-9:
            got = tcp_info(conn)["bytes_received"]
            row["series_t"].append(round(next_sample - t0, 6))
            row["goodput"].append((got - last[1]) * 8 / max(now - last[0], 1e-6))
            last = (now, got)
            next_sample += interval
        if n == 0 or (n < 0 and now > w1 + 1.0):
            break
        row["bytes"] += max(n, 0)
    both = len(at) == 2
    at += [(time.time(), tcp_info(conn)["bytes_received"])] * (2 - len(at))
    (t_a, b_a), (t_b, b_b) = at
    # A reading a scheduler delay late would stretch or shrink the window: with both read
    # in the loop, the rate between them over the window's length.
    row["bytes_in_window"] = round((b_b - b_a) * (w1 - w0) / (t_b - t_a)) if both and t_b > t_a else b_b - b_a
    conn.close()


def _send(f: dict[str, Any], t0: float, warmup: float, end: float, rows: list, interval: float = INTERVAL) -> None:
    row: dict[str, Any] = {"name": f["name"]}
    rows.append(row)
    _sleep_until(t0 + f["start_s"])
    stop = t0 + min(end, f["stop_s"] if f["stop_s"] is not None else end)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, f["cc"].encode())
        # Until the run's end: a SYN lost to a full queue is resent after 1 s, then 2 s more...
        s.settimeout(max(5.0, stop - time.time()))
        s.connect((f["dst_addr"], f["dport"]))
    except OSError as e:
        row["error"] = f"connect ({f['cc']}): {e}"
        return
    s.settimeout(interval / 2)
    chunk = b"\0" * (1 << 16)
    left = f["data_bytes"] if f["data_bytes"] is not None else None
    names = ("cwnd", "ssthresh", "srtt", "retransmissions", "delivery_rate", "pacing_rate")
    series: dict[str, list] = {k: [] for k in names}
    ts: list[float] = []
    base: dict[str, int] | None = None
    srtts: list[float] = []
    next_sample = _grid(t0, f["start_s"], interval)
    while True:
        now = time.time()
        if now >= next_sample and next_sample <= stop + 1e-9:
            i = tcp_info(s)
            ts.append(round(next_sample - t0, 6))
            series["cwnd"].append(i["snd_cwnd"])
            series["ssthresh"].append(None if i["snd_ssthresh"] >= _INFINITE_SSTHRESH else i["snd_ssthresh"])
            series["srtt"].append(i["rtt_us"] / 1e3)
            series["retransmissions"].append(i["total_retrans"])
            series["delivery_rate"].append(i["delivery_rate"] * 8)
            # ~0: no pacing rate set.
            series["pacing_rate"].append(None if i["pacing_rate"] >= 2**64 - 1 else i["pacing_rate"] * 8)
            if now >= t0 + warmup:
                if base is None:
                    base = i
                srtts.append(i["rtt_us"] / 1e3)
            next_sample += interval
        if now >= stop or left == 0:
            break
        try:
            n = s.send(chunk if left is None else chunk[: min(len(chunk), left)])
        except TimeoutError:
            continue
        except OSError as e:
            row["error"] = f"send: {e}"
            break
        if left is not None:
            left -= n
    final = tcp_info(s)
    base = base or {k: 0 for k in final}
    for k in ("data_segs_out", "bytes_sent", "total_retrans", "bytes_retrans", "dsack_dups", "reord_seen"):
        row[k] = final[k] - base[k]
    row["final_cwnd"] = final["snd_cwnd"]
    row["min_rtt_ms"] = final["min_rtt_us"] / 1e3
    row["mean_srtt_ms"] = sum(srtts) / len(srtts) if srtts else None
    row["series_t"] = ts
    row["series"] = series
    s.close()
