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
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from . import _core

#: Seconds a node may take to start and bind its socket.
START_TIMEOUT = 60.0
#: Seconds between the last node's READY and the common start, for every node to read its peers.
START_DELAY = 0.5


class LiveError(Exception):
    """A live run failed: a node could not start, or died. `summary`, when some nodes were
    running, is the run's summary from the reports of those that survived (see `combine`),
    with `failure` naming the dead node."""

    def __init__(self, message: str, summary: dict[str, Any] | None = None):
        super().__init__(message)
        self.summary = summary


class _Terminated(BaseException):
    """SIGTERM reached the process that runs the nodes: unwound so that it cleans up."""


def plan(path: Path | str, overrides: list[str] | None = None) -> dict[str, Any]:
    """The scenario as a live run sees it (nodes, links, flows, duration); raises
    `ccsim.ScenarioError` for a problem with it."""
    path = Path(path)
    return json.loads(_core.live_plan(path.read_text(), str(path), list(overrides or [])))


def _stop(procs: list[subprocess.Popen], sig: int = signal.SIGTERM, wait_s: float = 3.0) -> None:
    """Ends every process in `procs` that is still running: `sig`, then SIGKILL after
    `wait_s` seconds."""
    for p in procs:
        if p.poll() is None:
            p.send_signal(sig)
    deadline = time.monotonic() + wait_s
    for p in procs:
        try:
            p.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def _on_sigterm(signum, frame):
    raise _Terminated()


def run(path: Path | str, overrides: list[str] | None = None, out_dir: Path | str | None = None) -> dict[str, Any]:
    """Runs the scenario at `path` live; returns the combined report (see `combine`).

    Every node is watched at once (`POLL_S`): when one dies, the others are told to end
    now (SIGUSR1: each reports over the window so far), their reports are combined and a
    `LiveError` names the dead node with its exit status and last lines of stderr and
    carries that summary. The nodes' stderr files live in a temporary folder that is
    removed as soon as they are open, so nothing is left in /tmp whatever ends this
    process; SIGTERM unwinds it like Ctrl-C (every node stopped)."""
    path = Path(path)
    overrides = list(overrides or [])
    p = plan(path, overrides)
    key = os.environ.get("CCSIM_LIVE_KEY") or None
    welcome_key = None if (key or p["has_key"]) else secrets.token_hex(16)
    out = Path(out_dir) if out_dir else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    procs: list[subprocess.Popen] = []
    errs: list[Any] = []
    old_term = None
    if threading.current_thread() is threading.main_thread():
        old_term = signal.signal(signal.SIGTERM, _on_sigterm)
    logs = tempfile.mkdtemp(prefix="ccsim-live-")
    started = time.time()
    try:
        try:
            for n in p["nodes"]:
                errs.append(open(Path(logs) / f"{n['name']}.err", "w+b"))
        finally:
            shutil.rmtree(logs, ignore_errors=True)  # the open files live on
        for n, err in zip(p["nodes"], errs):
            cmd = [sys.executable, "-m", "ccsim", "live", "node", str(path), "--name", n["name"], "--rendezvous"]
            cmd += [a for o in overrides for a in ("--set", o)]
            if out:
                cmd += ["--out", str(out)]
            procs.append(subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err))
        addrs = []
        for n, proc, err in zip(p["nodes"], procs, errs):
            line = _read_line(proc, START_TIMEOUT)
            if not line.startswith("READY "):
                raise LiveError(f"node {n['name']} did not start: {_tail(err) or line or 'no output'}")
            addrs.append(line.split(" ", 1)[1].strip())
        start_ns = time.time_ns() + int(START_DELAY * 1e9)
        welcome = json.dumps({"peers": addrs, "start_unix_ns": start_ns, "key": welcome_key}) + "\n"
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write(welcome.encode())
            proc.stdin.close()
            proc.stdin = None
        outputs = [_Reader(proc) for proc in procs]
        limit = START_DELAY + p["duration_s"] + p["grace_s"] + 30.0
        failure = _watch(p, procs, errs, started + limit)
        if failure is not None:
            _stop(procs, signal.SIGUSR1, STOP_TIMEOUT)  # the survivors report over their window so far
        reports = []
        for n, proc, o in zip(p["nodes"], procs, outputs):
            text = o.text()
            if proc.returncode == 0 and text.strip():
                reports.append(json.loads(text.strip().splitlines()[-1]))
            elif failure is None:
                failure = _failure(n["name"], proc, errs[procs.index(proc)])
        if failure is not None:
            summary = combine(p, reports, wall_time_s=time.time() - started)
            summary["failure"] = failure
            raise LiveError(failure["message"], summary)
    except _Terminated:
        raise LiveError("stopped by SIGTERM; every node stopped") from None
    finally:
        _stop(procs)
        for e in errs:
            e.close()
        shutil.rmtree(logs, ignore_errors=True)
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
    return combine(p, reports, wall_time_s=time.time() - started)


#: Seconds between two looks at every node while a run goes on.
POLL_S = 0.05
#: Seconds the surviving nodes get to report once one has died.
STOP_TIMEOUT = 5.0
#: Lines of a dead node's stderr in the message.
TAIL_LINES = 5


class _Reader:
    """A node's stdout read to its end in a thread of its own, so that a node whose report
    fills the pipe never waits on this process."""

    def __init__(self, proc: subprocess.Popen):
        self.chunks: list[bytes] = []
        self.thread = threading.Thread(target=self._read, args=(proc.stdout,), daemon=True)
        self.thread.start()

    def _read(self, f) -> None:
        for chunk in iter(lambda: f.read1(65536), b""):
            self.chunks.append(chunk)

    def text(self) -> str:
        self.thread.join(timeout=5.0)
        return b"".join(self.chunks).decode(errors="replace")


def _failure(name: str, proc: subprocess.Popen, err) -> dict[str, Any]:
    """What `LiveError` says of node `name`, dead with `proc.returncode`."""
    rc = proc.returncode
    how = f"killed by signal {-rc} ({signal.Signals(-rc).name})" if rc is not None and rc < 0 else f"exit status {rc}"
    tail = _tail(err, TAIL_LINES)
    message = f"node {name} died ({how}); " + (f"its last stderr lines:\n{tail}" if tail else "it wrote nothing to stderr")
    return {"node": name, "returncode": rc, "stderr": tail.splitlines(), "message": message}


def _watch(p: dict[str, Any], procs: list[subprocess.Popen], errs: list[Any], deadline: float) -> dict[str, Any] | None:
    """Waits for every node to end, looking at all of them every `POLL_S`; returns the
    failure of the first to die (or to outlast `deadline`), None if all ended well."""
    while True:
        running = 0
        for n, proc, err in zip(p["nodes"], procs, errs):
            rc = proc.poll()
            if rc is None:
                running += 1
            elif rc != 0:
                return _failure(n["name"], proc, err)
        if not running:
            return None
        if time.time() > deadline:
            name = next(n["name"] for n, proc in zip(p["nodes"], procs) if proc.poll() is None)
            return {"node": name, "returncode": None, "stderr": [], "message": f"node {name} did not finish in time"}
        time.sleep(POLL_S)


def twin(path: Path | str, overrides: list[str] | None = None) -> dict[str, Any]:
    """Runs the simulated twin of the live run of the scenario at `path` (`ccsim live twin`):
    the plan's own simulation, each flakeway's delay and loss on the links into its node
    (before that node's queues, where the live flakeway acts); returns its summary in the
    schema of `run`'s (`mode` "twin"; CPU, shaper and wire counters are zero)."""
    path = Path(path)
    return twin_text(path.read_text(), str(path), overrides)


def twin_text(text: str, origin: str = "<string>", overrides: list[str] | None = None) -> dict[str, Any]:
    """`twin` of scenario `text` (named `origin` in errors)."""
    overrides = list(overrides or [])
    p = json.loads(_core.live_plan(text, origin, overrides))
    started = time.time()
    report = json.loads(_core.live_twin(text, origin, overrides))
    return twin_summary(p, report, wall_time_s=time.time() - started)


def twin_summary(p: dict[str, Any], r: dict[str, Any], wall_time_s: float = 0.0) -> dict[str, Any]:
    """The simulator's report `r` of plan `p`'s twin as node reports, put together by
    `combine` exactly as a live run's are."""
    links = {ln["name"]: ln for ln in p["links"]}
    sim_links = {ln["link"]: ln for ln in r["links"]}
    acc = {a["router"]: a for a in r["acc"]}
    measured = r["measured_s"] or 1.0
    nodes = []
    for n in p["nodes"]:
        name = n["name"]
        queues = []
        for q in r["queues"]:
            ln, wire = links[q["link"]], sim_links[q["link"]]
            if wire["from"] != name:
                continue
            queues.append(
                {
                    "link": q["link"],
                    "rate_bps": ln["rate_bps"],
                    "limit": ln["limit"],
                    "acc": ln["acc"],
                    "enqueued": q["arrivals"] - q["drops"],
                    "dropped": q["drops"],
                    "lost": wire["lost_random"],
                    "sent": wire["tx_packets"],
                    "sent_bytes": wire["tx_bytes"],
                    "max_queue": q["max_len_packets"],
                    "busy_ns_in_window": round(wire["utilisation"] * measured * 1e9),
                    "scheduled_bytes_in_window": wire["tx_bytes"],
                    "sent_bytes_in_window": wire["tx_bytes"],
                    "sent_in_window": wire["tx_packets"],
                    "drops_in_window": q["drops"],
                    "wait_ns_in_window": round(q["mean_len_packets"] * measured * 1e9),
                    "lateness_ns_sum": 0,
                    "lateness_ns_max": 0,
                    "utilization": wire["utilisation"],
                    "sent_bps": 8 * wire["tx_bytes"] / measured,
                    "send_error": 0.0,
                    "mean_queue": q["mean_len_packets"],
                    "shaper_error": 0.0,
                    "received_bps": None,
                    "lateness_mean_us": 0.0,
                }
            )
        a = acc.get(name, {})
        flows = []
        for f in r["flows"]:
            row = {"name": f["flow"], "group": f["group"]}
            if f["dst"] == name:
                row |= {"bytes_delivered": f["delivered_bytes"], "goodput_bps": f["goodput_bps"], "delivery_errors": 0}
            if f["src"] == name:
                row |= {
                    "segments_sent": f["packets_sent"],
                    "retransmissions": f["retransmitted_packets"],
                    "timeouts": f["timeouts"],
                    "fast_retransmits": f["fast_retransmits"],
                    "acc_controls_received": f["acc_controls_received"],
                    "acc_controls_obeyed": f["acc_closes"],
                }
            if len(row) > 2:
                flows.append(row)
        node_acc = {
            "acc_drops": a.get("acc_drops", 0),
            "below_rtt_floor": a.get("below_rtt_floor", 0),
            "controls_sent": a.get("controls_sent", 0),
            "filter_requests_sent": 0,
            "filters_set": a.get("filters_installed", 0),
            "filters_replaced": a.get("filters_replaced", 0),
            "filters_removed_count": a.get("filters_removed_count", 0),
            "filters_removed_behaviour": a.get("filters_removed_behaviour", 0),
            "filters_removed_timeout": a.get("filters_removed_timeout", 0),
            "packets_filtered": a.get("packets_filtered", 0),
            "packets_flushed": 0,
            "controls_received": sum(f.get("acc_controls_received", 0) for f in flows),
            "bad_mac": 0,
            "replayed": 0,
        }
        node = next(x for x in r["nodes"] if x["node"] == name)
        nodes.append(
            {
                "name": name,
                "router": n["router"],
                "address": "simulated",
                "window_s": measured,
                "stopped_early_at_s": None,
                "cpu_s": 0.0,
                "received": 0,
                "forwarded": node["forwarded"],
                "cpu_per_forwarded_us": 0.0,
                "malformed": 0,
                "ttl_expired": node["ttl_expired"],
                "no_route": node["no_route"],
                "unknown_source": 0,
                "received_bytes_from": {},
                "queues": queues,
                "acc": node_acc,
                "flakeway": {"matched": 0, "dropped": 0, "delayed": 0},
                "flows": flows,
                "buffers_in_use": 0,
                "pcap": None,
            }
        )
    return combine(p, nodes, wall_time_s=wall_time_s, mode="twin")


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


def _tail(err, lines: int = 1) -> str:
    """The last `lines` non-empty lines a node wrote to its stderr file `err`."""
    try:
        err.flush()
        err.seek(0)
        text = err.read().decode(errors="replace")
    except (OSError, ValueError):
        return ""
    kept = [ln for ln in text.splitlines() if ln.strip()]
    return "\n".join(kept[-lines:])


def combine(p: dict[str, Any], nodes: list[dict[str, Any]], wall_time_s: float = 0.0, mode: str = "live") -> dict[str, Any]:
    """The nodes' reports as one run summary: `flows` (goodput at the receiver, counters at
    the sender), `queues` (every egress), `acc` (counters summed over the nodes), `nodes`
    (CPU per forwarded packet and what each refused), `totals`."""
    flows: dict[str, dict[str, Any]] = {
        f["name"]: {"name": f["name"], "group": f["group"], "transport": f["transport"], "src": f["src"], "dst": f["dst"]}
        for f in p["flows"]
    }
    for n in nodes:
        for f in n["flows"]:
            row = flows.setdefault(f["name"], {"name": f["name"], "group": f["group"], "transport": "rdp"})
            for k, v in f.items():
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    row[k] = row.get(k, 0) + v
    queues = []
    by_name = {n["name"]: n for n in nodes}
    for n in nodes:
        for q in n["queues"]:
            queues.append(dict(q, node=n["name"]) | (_shaper(n["name"], q, by_name) if mode == "live" else {}))
    acc: dict[str, int] = {}
    for n in nodes:
        for k, v in n["acc"].items():
            acc[k] = acc.get(k, 0) + v
    flow_rows = list(flows.values())
    missing = [n["name"] for n in p["nodes"] if n["name"] not in by_name]
    goodputs = [f.get("goodput_bps", 0.0) for f in flow_rows]
    jain = (sum(goodputs) ** 2 / (len(goodputs) * sum(g * g for g in goodputs))) if goodputs and any(goodputs) else 0.0
    return {
        "scenario": p["name"],
        "mode": mode,
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
            "controls_obeyed": sum(f.get("acc_controls_obeyed", 0) for f in flow_rows),
        },
        "missing_nodes": missing,
        "flows": flow_rows,
        "queues": queues,
        "acc": acc,
        "nodes": [{k: v for k, v in n.items() if k not in ("queues", "flows", "acc")} | {"acc": n["acc"]} for n in nodes],
    }


def _shaper(name: str, q: dict[str, Any], nodes: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The shaper check of node `name`'s egress `q` against the far end: the bits the node
    at the link's other end received from `name` per second of its window (`received_bps`)
    over the link's rate times its utilisation, minus one (`shaper_error`); None when that
    node reported nothing."""
    far = nodes.get(q["link"].split("->", 1)[1])
    if far is None or not far.get("window_s"):
        return {"received_bps": None, "shaper_error": None}
    received = 8 * far["received_bytes_from"].get(name, 0) / far["window_s"]
    expected = q["rate_bps"] * q["utilization"]
    return {"received_bps": received, "shaper_error": received / expected - 1 if expected > 0 else 0.0}


def describe(s: dict[str, Any]) -> str:
    """The text summary `ccsim live run` prints, shaped like `ccsim run`'s."""
    from ._format import count, rate, secs, size, table

    t = s["totals"]
    twin = s["mode"] == "twin"
    where = "simulated twin of the live run" if twin else "live on this machine"
    lines = [
        f"{s['scenario']}: {where}, {secs(s['duration_s'])} ({secs(s['warmup_s'])} warm-up, "
        f"{secs(s['measured_s'])} measured) in {s['wall_time_s']:.3g} s",
    ]
    if s.get("failure"):
        f = s["failure"]
        lines += [
            f"FAILED: node {f['node']} died ({'exit ' + str(f['returncode']) if f['returncode'] is not None else 'did not finish'}); "
            f"the other nodes were stopped and these are their reports (missing: {', '.join(s['missing_nodes']) or 'none'})"
        ]
    lines += ["", "totals"]
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
                f"{count(t['controls_sent'])} controls sent, {count(t['controls_received'])} received by senders, "
                f"{count(t['controls_obeyed'])} obeyed",
            ],
        ],
        left=2,
    )[1:]
    lines += ["", "flows"]
    lines += table(
        ["flow", "goodput", "delivered", "sent", "retransmitted", "timeouts", "ACC controls received", "obeyed"],
        [
            [
                f["name"],
                rate(f.get("goodput_bps", 0)),
                size(f.get("bytes_delivered", 0)),
                count(f.get("segments_sent", 0)),
                count(f.get("retransmissions", 0)),
                count(f.get("timeouts", 0)),
                count(f.get("acc_controls_received", 0)),
                count(f.get("acc_controls_obeyed", 0)),
            ]
            for f in s["flows"]
        ],
    )
    busy = [q for q in s["queues"] if q["utilization"] > 0.01 or q["dropped"]]
    lines += ["", "links (egress queues) in use"]
    lines += table(
        ["link", "rate", "util", "sent", "received vs rate", "mean queue", "max queue", "drops", "ACC"],
        [
            [
                q["link"],
                rate(q["rate_bps"]),
                f"{100 * q['utilization']:.1f}%",
                rate(q["sent_bps"]),
                "-" if twin or q.get("shaper_error") is None else f"{100 * q['shaper_error']:+.2f}%",
                f"{q.get('mean_queue', 0.0):.1f}",
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
                "-" if twin else f"{n['cpu_s']:.2f} s",
                count(n["forwarded"]),
                f"{n['cpu_per_forwarded_us']:.1f} us" if n["forwarded"] and not twin else "-",
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
