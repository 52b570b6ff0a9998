"""Live runs: a scenario on real UDP sockets, one process per node (`ccsim live`).

`run(path, overrides)` starts every node of the scenario on this machine as a process of
its own (`python -m ccsim live node FILE --name N --rendezvous`), each bound to a free port;
tells them each other's addresses, the MAC key and a common start time; waits for their
reports; and stops every process it started, also on an error or Ctrl-C. The nodes are
Rust (`ccsim._core.live_node`, the crate `ccsim-live`); this module only starts, meets and
collects them, and puts their reports together in the shape of `ccsim run`'s summary.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from . import _core

#: Seconds a node may take to start and bind its socket.
START_TIMEOUT = 60.0
#: Seconds between the last node's READY and the common start, for every node to read its peers.
START_DELAY = 0.5


class LiveError(Exception):
    """A live run failed: a node could not start, or died."""


def plan(path: Path | str, overrides: list[str] | None = None) -> dict[str, Any]:
    """The scenario as a live run sees it (nodes, links, flows, duration); raises
    `ccsim.ScenarioError` for a problem with it."""
    path = Path(path)
    return json.loads(_core.live_plan(path.read_text(), str(path), list(overrides or [])))


def _stop(procs: list[subprocess.Popen]) -> None:
    """Ends every process in `procs` that is still running: SIGTERM, then SIGKILL."""
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 3.0
    for p in procs:
        try:
            p.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def run(path: Path | str, overrides: list[str] | None = None, out_dir: Path | str | None = None) -> dict[str, Any]:
    """Runs the scenario at `path` live; returns the combined report (see `combine`)."""
    path = Path(path)
    overrides = list(overrides or [])
    p = plan(path, overrides)
    key = os.environ.get("CCSIM_LIVE_KEY") or None
    welcome_key = None if (key or p["has_key"]) else secrets.token_hex(16)
    out = Path(out_dir) if out_dir else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    procs: list[subprocess.Popen] = []
    errs = []
    logs = tempfile.TemporaryDirectory(prefix="ccsim-live-")
    started = time.time()
    try:
        for n in p["nodes"]:
            cmd = [sys.executable, "-m", "ccsim", "live", "node", str(path), "--name", n["name"], "--rendezvous"]
            cmd += [a for o in overrides for a in ("--set", o)]
            if out:
                cmd += ["--out", str(out)]
            errs.append(open(Path(logs.name) / f"{n['name']}.err", "w+b"))
            procs.append(subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errs[-1]))
        addrs = []
        for n, proc in zip(p["nodes"], procs):
            line = _read_line(proc, START_TIMEOUT)
            if not line.startswith("READY "):
                raise LiveError(f"node {n['name']} did not start: {_tail(logs.name, n['name']) or line or 'no output'}")
            addrs.append(line.split(" ", 1)[1].strip())
        start_ns = time.time_ns() + int(START_DELAY * 1e9)
        welcome = json.dumps({"peers": addrs, "start_unix_ns": start_ns, "key": welcome_key}) + "\n"
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write(welcome.encode())
            proc.stdin.close()
            proc.stdin = None  # communicate() below must not flush it
        limit = START_DELAY + p["duration_s"] + p["grace_s"] + 30.0
        reports = []
        for n, proc in zip(p["nodes"], procs):
            try:
                stdout, _ = proc.communicate(timeout=max(1.0, started + limit - time.time()))
            except subprocess.TimeoutExpired:
                raise LiveError(f"node {n['name']} did not finish in time") from None
            if proc.returncode != 0:
                raise LiveError(f"node {n['name']} failed (exit {proc.returncode}): {_tail(logs.name, n['name'])}")
            reports.append(json.loads(stdout.decode().strip().splitlines()[-1]))
    finally:
        _stop(procs)
        for e in errs:
            e.close()
        logs.cleanup()
    return combine(p, reports, wall_time_s=time.time() - started)


def _read_line(proc: subprocess.Popen, timeout: float) -> str:
    """One line of `proc`'s stdout, or "" if none comes within `timeout` seconds."""
    import selectors

    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    buf = b""
    fd = proc.stdout.fileno()
    while b"\n" not in buf:
        left = deadline - time.monotonic()
        if left <= 0 or not sel.select(left):
            break
        chunk = os.read(fd, 1)
        if not chunk:
            break
        buf += chunk
    sel.close()
    return buf.decode(errors="replace").strip()


def _tail(folder: str, name: str) -> str:
    try:
        text = (Path(folder) / f"{name}.err").read_text(errors="replace").strip()
    except OSError:
        return ""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def combine(p: dict[str, Any], nodes: list[dict[str, Any]], wall_time_s: float = 0.0) -> dict[str, Any]:
    """The nodes' reports as one run summary: `flows` (goodput at the receiver, counters at
    the sender), `queues` (every egress), `acc` (counters summed over the nodes), `nodes`
    (CPU per forwarded packet and what each refused), `totals`."""
    flows: dict[str, dict[str, Any]] = {
        f["name"]: {"name": f["name"], "group": f["group"], "transport": "rdp", "src": f["src"], "dst": f["dst"]} for f in p["flows"]
    }
    for n in nodes:
        for f in n["flows"]:
            row = flows.setdefault(f["name"], {"name": f["name"], "group": f["group"], "transport": "rdp"})
            for k, v in f.items():
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    row[k] = row.get(k, 0) + v
    queues = []
    for n in nodes:
        for q in n["queues"]:
            queues.append(dict(q, node=n["name"]))
    acc: dict[str, int] = {}
    for n in nodes:
        for k, v in n["acc"].items():
            acc[k] = acc.get(k, 0) + v
    flow_rows = list(flows.values())
    goodputs = [f.get("goodput_bps", 0.0) for f in flow_rows]
    jain = (sum(goodputs) ** 2 / (len(goodputs) * sum(g * g for g in goodputs))) if goodputs and any(goodputs) else 0.0
    return {
        "scenario": p["name"],
        "mode": "live",
        "duration_s": p["duration_s"],
        "warmup_s": p["warmup_s"],
        "measured_s": p["duration_s"] - p["warmup_s"],
        "wall_time_s": wall_time_s,
        "totals": {
            "goodput_bps": sum(goodputs),
            "delivered_bytes": sum(f.get("bytes_delivered", 0) for f in flow_rows),
            "segments_sent": sum(f.get("segments_sent", 0) for f in flow_rows),
            "retransmissions": sum(f.get("retransmissions", 0) for f in flow_rows),
            "queue_drops": sum(q["drops_in_window"] for q in queues),
            "jain_fairness": jain,
            "filters_set": acc.get("filters_set", 0),
            "packets_filtered": acc.get("packets_filtered", 0),
            "controls_sent": acc.get("controls_sent", 0),
            "controls_received": acc.get("controls_received", 0),
        },
        "flows": flow_rows,
        "queues": queues,
        "acc": acc,
        "nodes": [{k: v for k, v in n.items() if k not in ("queues", "flows", "acc")} | {"acc": n["acc"]} for n in nodes],
    }


def describe(s: dict[str, Any]) -> str:
    """The text summary `ccsim live run` prints, shaped like `ccsim run`'s."""
    from ._format import count, rate, secs, size, table

    t = s["totals"]
    lines = [
        f"{s['scenario']}: live on this machine, {secs(s['duration_s'])} ({secs(s['warmup_s'])} warm-up, "
        f"{secs(s['measured_s'])} measured) in {s['wall_time_s']:.3g} s",
        "",
        "totals",
    ]
    lines += table(
        ["", ""],
        [
            ["goodput", f"{rate(t['goodput_bps'])} ({size(t['delivered_bytes'])} delivered)"],
            ["segments sent", f"{count(t['segments_sent'])} ({count(t['retransmissions'])} retransmissions)"],
            ["queue drops", count(t["queue_drops"])],
            ["Jain fairness", f"{t['jain_fairness']:.4f}"],
            [
                "ACC",
                f"{count(t['filters_set'])} filters set, {count(t['packets_filtered'])} packets filtered, "
                f"{count(t['controls_sent'])} controls sent, {count(t['controls_received'])} received",
            ],
        ],
        left=2,
    )[1:]
    lines += ["", "flows"]
    lines += table(
        ["flow", "goodput", "delivered", "sent", "retransmitted", "timeouts", "ACC controls obeyed"],
        [
            [
                f["name"],
                rate(f.get("goodput_bps", 0)),
                size(f.get("bytes_delivered", 0)),
                count(f.get("segments_sent", 0)),
                count(f.get("retransmissions", 0)),
                count(f.get("timeouts", 0)),
                count(f.get("acc_controls", 0)),
            ]
            for f in s["flows"]
        ],
    )
    busy = [q for q in s["queues"] if q["utilization"] > 0.01 or q["dropped"]]
    lines += ["", "links (egress queues) in use"]
    lines += table(
        ["link", "rate", "util", "sent", "shaper error", "max queue", "drops", "ACC"],
        [
            [
                q["link"],
                rate(q["rate_bps"]),
                f"{100 * q['utilization']:.1f}%",
                rate(q["sent_bps"]),
                f"{100 * q['shaper_error']:+.2f}%",
                count(q["max_queue"]),
                count(q["drops_in_window"]),
                "on" if q["acc"] else "",
            ]
            for q in busy
        ],
    )
    lines += ["", "nodes"]
    lines += table(
        ["node", "CPU", "forwarded", "CPU/packet", "filters set", "filtered", "flushed", "controls sent", "refused"],
        [
            [
                n["name"],
                f"{n['cpu_s']:.2f} s",
                count(n["forwarded"]),
                f"{n['cpu_per_forwarded_us']:.1f} us" if n["forwarded"] else "-",
                count(n["acc"]["filters_set"]),
                count(n["acc"]["packets_filtered"]),
                count(n["acc"]["packets_flushed"]),
                count(n["acc"]["controls_sent"]),
                count(n["malformed"] + n["acc"]["bad_mac"] + n["acc"]["replayed"]),
            ]
            for n in s["nodes"]
        ],
    )
    return "\n".join(lines)
