"""Kernel runs (`ccsim kernel run`): real Linux TCP through ccsim's links and queues.

The runs need root, /dev/net/tun and iproute2; elsewhere they are skipped with the reason.
Every run checks that it leaves no namespace, TUN device or process behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ccsim import kernel

ROOT = Path(__file__).resolve().parent.parent
WHY = kernel.unavailable()
needs_kernel = pytest.mark.skipif(WHY is not None, reason=f"kernel runs unavailable: {WHY}")

SHORT = """
name = "kernel-short"
duration = "5s"
warmup = "1s"
hosts = ["S{1..2}", "D{1..2}"]
routers = ["R1", "R2"]
[[links]]
between = ["S{1..2}", "R1"]
rate = "100Mbps"
delay = "1ms"
[[links]]
between = ["R1", "R2"]
rate = "10Mbps"
delay = "5ms"
queue = { discipline = "droptail", limit = 50 }
[[links]]
between = ["R2", "D{1..2}"]
rate = "100Mbps"
delay = "1ms"
[[flows]]
name = "bulk"
from = "S{1..2}"
to = "D{1..2}"
tcp = { variant = "cubic", mss = 1460, sack = true }
"""


def _ours() -> list[str]:
    """Namespaces and processes of kernel runs started by this test process."""
    left = [ns for ns in kernel.namespaces() if ns.startswith(f"{kernel.PREFIX}{os.getpid()}-")]
    ps = subprocess.run(["ps", "-eo", "ppid,args"], capture_output=True, text=True).stdout
    left += [ln for ln in ps.splitlines() if ln.split(None, 1)[0] == str(os.getpid()) and "ccsim kernel" in ln]
    return left


def _tun_devices() -> list[str]:
    """TUN devices named like a kernel run's in the root namespace or in a namespace of a
    run of this test process."""
    found = []
    for ns in [None, *(ns for ns in kernel.namespaces() if ns.startswith(f"{kernel.PREFIX}{os.getpid()}-"))]:
        cmd = ["ip", "-o", "link"] if ns is None else ["ip", "-n", ns, "-o", "link"]
        out = subprocess.run(cmd, capture_output=True, text=True).stdout
        found += [ln for ln in out.splitlines() if kernel.IFNAME in ln]
    return found


def test_the_plan_refuses_what_the_kernel_cannot_run(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(SHORT)
    p = kernel.plan(path)
    assert [f["cc"] for f in p["flows"]] == ["cubic", "cubic"] and p["mtu"] == 1500
    assert kernel.plan(path, ["flows.0.tcp.variant=newreno"])["flows"][0]["cc"] == "reno"
    with pytest.raises(Exception, match="tcp.variant"):
        kernel.plan(path, ["flows.0.tcp.variant=dctcp"])
    mixed = SHORT + '[[flows]]\nname = "more"\nfrom = "S1"\nto = "D2"\ntcp = { sack = false }\n'
    path.write_text(mixed)
    with pytest.raises(kernel.KernelError, match=r"flows \(more\)\.tcp\.sack"):
        kernel._host_settings(kernel.plan(path))


def test_extra_sysctls_come_from_the_environment_and_stay_in_net(monkeypatch):
    monkeypatch.setenv("CCSIM_KERNEL_SYSCTL", "net.ipv4.tcp_timestamps=0 net.ipv4.tcp_recovery=0")
    assert kernel.extra_sysctls() == {"net.ipv4.tcp_timestamps": "0", "net.ipv4.tcp_recovery": "0"}
    monkeypatch.setenv("CCSIM_KERNEL_SYSCTL", "kernel.panic=1")
    with pytest.raises(kernel.KernelError, match="CCSIM_KERNEL_SYSCTL"):
        kernel.extra_sysctls()


@needs_kernel
def test_a_short_kernel_run_reports_and_leaves_nothing_behind(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(SHORT)
    s = kernel.run(path, out_dir=tmp_path / "out", pcap=["R1"])
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["mode"] == "kernel"
    cap = (tmp_path / "out" / "R1.pcap").read_bytes()
    # Classic pcap, nanosecond magic, LINKTYPE_RAW; the first frame an IPv4 packet.
    assert cap[:4] == bytes.fromhex("4d3cb2a1") and int.from_bytes(cap[20:24], "little") == 101
    assert len(cap) > 24 + 16 + 20 and cap[24 + 16] >> 4 == 4
    assert len(s["flows"]) == 2 and all(f["error"] is None for f in s["flows"]), s["flows"]
    assert all(f["delivered_bytes"] > 0 for f in s["flows"])
    bottleneck = next(ln for ln in s["links"] if ln["link"] == "R1->R2")
    # The bottleneck carried most of its rate (a loaded machine is allowed some slack).
    assert bottleneck["sent_bps"] > 0.5 * 10e6, bottleneck
    assert bottleneck["sent_bps"] < 1.01 * 10e6, bottleneck
    assert any(x["name"] == "cwnd bulk[0]" and len(x["t"]) > 10 for x in s["series"])
    assert s["router"]["oversize"] == 0, "a segment is a packet: no offload reaches the router"
    assert _ours() == [] and _tun_devices() == []


@needs_kernel
def test_a_kernel_run_without_gso_sends_one_segment_at_a_time(tmp_path):
    # Off, the hosts' TUN devices keep TCP to one segment per send (checked at set-up);
    # the run reports which it was.
    path = tmp_path / "s.toml"
    path.write_text(SHORT)
    s = kernel.run(path, ["duration=2s", "warmup=0.5s"], gso=False)
    assert s["machine"]["gso"] is False and all(f["delivered_bytes"] > 0 for f in s["flows"])
    assert _ours() == [] and _tun_devices() == []


@needs_kernel
def test_killing_the_router_mid_run_fails_the_run_and_leaves_nothing(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(SHORT)
    # The run's temporary folder goes into a folder of the test's own, to be seen to go.
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    cmd = [sys.executable, "-m", "ccsim", "kernel", "run", str(path), "--json"]
    run = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ, TMPDIR=str(tmp)))
    router = None
    deadline = time.time() + 30
    while router is None and time.time() < deadline:
        ps = subprocess.run(["ps", "-eo", "pid,ppid,args"], capture_output=True, text=True).stdout
        for ln in ps.splitlines():
            pid, ppid, args = ln.split(None, 2)
            if ppid == str(run.pid) and "kernel router" in args:
                router = int(pid)
        time.sleep(0.2)
    assert router is not None, "the router started"
    time.sleep(2.0)
    assert [d.name for d in tmp.iterdir()] != [], "the run made its temporary folder there"
    os.kill(router, signal.SIGKILL)
    out, err = run.communicate(timeout=30)
    assert run.returncode == 1 and "router died" in err, err
    tag = f"{kernel.PREFIX}{run.pid}-"
    assert [ns for ns in kernel.namespaces() if ns.startswith(tag)] == []
    assert _tun_devices() == []
    # No process of the run (the host processes' arguments name the plan in the temporary
    # folder, the router's the scenario) and no temporary folder is left.
    ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    assert [ln for ln in ps.splitlines() if str(tmp_path) in ln] == []
    assert list(tmp.iterdir()) == []


def test_the_sweep_deletes_the_temporary_folders_of_dead_runs_only(tmp_path, monkeypatch):
    monkeypatch.setattr(kernel.tempfile, "tempdir", str(tmp_path))
    dead = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1 if Path("/proc/sys/kernel/pid_max").exists() else 2**22 + 1
    (tmp_path / f"{kernel.TEMP_PREFIX}{dead}-abc").mkdir()
    (tmp_path / f"{kernel.TEMP_PREFIX}{os.getpid()}-abc").mkdir()
    (tmp_path / "ccsim-kernel-other").mkdir()
    assert kernel.sweep_temp() == [str(tmp_path / f"{kernel.TEMP_PREFIX}{dead}-abc")]
    assert sorted(d.name for d in tmp_path.iterdir()) == [f"{kernel.TEMP_PREFIX}{os.getpid()}-abc", "ccsim-kernel-other"]


def test_flows_to_one_host_get_ports_of_their_own():
    p = {"flows": [{"dst": "D", "dport": 80}, {"dst": "D", "dport": 80}, {"dst": "E", "dport": 80}, {"dst": "D", "dport": 81}]}
    kernel.distinct_ports(p)
    assert [f["dport"] for f in p["flows"]] == [80, 81, 80, 82]


@needs_kernel
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_a_kernel_run_and_leaves_nothing(tmp_path, sig):
    path = tmp_path / "s.toml"
    path.write_text(SHORT)
    cmd = [sys.executable, "-m", "ccsim", "kernel", "run", str(path)]
    run = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    tag = f"{kernel.PREFIX}{run.pid}-"
    while time.time() < deadline and len([ns for ns in kernel.namespaces() if ns.startswith(tag)]) < 4:
        time.sleep(0.2)
    time.sleep(1.5)
    run.send_signal(sig)
    _, err = run.communicate(timeout=30)
    assert run.returncode == 130, err
    assert [ns for ns in kernel.namespaces() if ns.startswith(tag)] == []
    ps = subprocess.run(["ps", "-eo", "ppid,args"], capture_output=True, text=True).stdout
    assert not [ln for ln in ps.splitlines() if ln.split(None, 1)[0] == str(run.pid)]
    assert _tun_devices() == []


@needs_kernel
def test_ack_spoofing_forges_duplicate_acks_and_red_marks_ecn_in_the_ip_header(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(SHORT)
    red = '{ discipline = "red", signal = "%s", limit = 50, min_th = 3, max_th = 9, max_p = 0.5, mean_packet_size = 1500 }'
    s = kernel.run(path, [f"links.1.queue={red % 'spoof'}", "duration=3s"])
    q = next(q for q in s["queues"] if q["link"] == "R1->R2")
    assert q["spoof_signals"] > 0 and s["router"]["spoofed_acks_sent"] == 3 * s["router"]["spoof_events"] > 0, s["router"]
    s = kernel.run(path, [f"links.1.queue={red % 'ecn'}", "flows.*.tcp.ecn=true", "duration=3s"])
    q = next(q for q in s["queues"] if q["link"] == "R1->R2")
    # The kernel's senders are ECN-capable and answer the marks: few drops, many marks.
    marks = q["marks_early"] + q["marks_forced"]
    assert marks > 0, q
    # A mark with a bad IP checksum would be dropped by the receiving kernel and resent.
    assert s["totals"]["retransmitted_packets"] < marks / 2, (s["totals"], q)
    assert all(f["delivered_bytes"] > 0 for f in s["flows"])
    assert _ours() == [] and _tun_devices() == []


@needs_kernel
def test_a_run_sweeps_the_namespaces_of_a_run_that_was_killed():
    # A run killed with SIGKILL cannot delete its namespaces; pid_max + 1 is never alive.
    dead = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1
    ns = f"{kernel.PREFIX}{dead}-0"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        assert ns in kernel.namespaces()
        assert ns in kernel.sweep()
        assert ns not in kernel.namespaces()
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def test_series_a_kernel_run_cannot_sample_are_refused_by_name(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(SHORT + '[[series]]\nkind = "max_p"\nlink = "R1->R2"\ninterval = "100ms"\n')
    with pytest.raises(kernel.KernelError, match=r"series \(max_p R1->R2\)\.kind"):
        kernel.series_wanted(path)
    path.write_text(SHORT)
    assert kernel.series_wanted(path) is None


def test_resampling_keeps_the_multiples_of_the_interval():
    t = [round(0.05 * i, 6) for i in range(10)]
    assert kernel.resample(t, list(range(10)), 0.1, 0.05, 100) == ([0.0, 0.1, 0.2, 0.3, 0.4], [0, 2, 4, 6, 8], False)
    assert kernel.resample(t, list(range(10)), 0.1, 0.05, 2) == ([0.0, 0.1], [0, 2], True)


@needs_kernel
def test_a_kernel_run_writes_the_series_asked_for_and_the_parquet_tables(tmp_path):
    from ccsim.results import Results

    path = tmp_path / "s.toml"
    series = "".join(
        f'[[series]]\nkind = "{k}"\n{what} = "{target}"\ninterval = "{dt}"\n'
        for k, what, target, dt in [
            ("cwnd", "flow", "bulk", "200ms"),
            ("goodput", "flow", "late", "500ms"),
            ("queue", "link", "R1->R2", "50ms"),
            ("drops", "link", "R1->R2", "100ms"),
        ]
    )
    # A flow that starts late (and shares its hosts with others): its goodput is over the
    # measurement window, not stretched to it.
    late = '[[flows]]\nname = "late"\nfrom = "S2"\nto = "D1"\nstart = "3s"\ntcp = { variant = "cubic", mss = 1460, sack = true }\n'
    path.write_text(SHORT + late + series)
    s = kernel.run(path, out_dir=tmp_path / "out")
    assert [x["name"] for x in s["series"]] == ["cwnd bulk[0]", "cwnd bulk[1]", "goodput late[0]", "queue R1->R2", "drops R1->R2"]
    by = {x["name"]: x for x in s["series"]}
    assert by["cwnd bulk[1]"]["t"][:3] == [0.0, 0.2, 0.4] and all(v > 0 for v in by["cwnd bulk[1]"]["value"])
    goodput = dict(zip(by["goodput late[0]"]["t"], by["goodput late[0]"]["value"]))
    # Any goodput after its start: the late flow's SYN meets a full queue and may be lost,
    # and the kernel resends it only a second later, leaving it under a second of the run.
    assert list(goodput)[:2] == [0.0, 0.5] and max(goodput.values()) > 0
    assert all(v == 0 for t, v in goodput.items() if t <= 3.0), goodput
    assert len(by["queue R1->R2"]["t"]) > 80 and max(by["queue R1->R2"]["value"]) > 0
    # Drops in each interval, over the whole run: at least the measured window's.
    drops = by["drops R1->R2"]["value"]
    bottleneck = next(q for q in s["queues"] if q["link"] == "R1->R2")
    assert min(drops) >= 0 and sum(drops) >= bottleneck["drops"] > 0, (drops, bottleneck["drops"])
    f = next(f for f in s["flows"] if f["flow"] == "late[0]")
    # Two of the four measured seconds at most, sharing the 10 Mb/s bottleneck.
    assert 0 < f["goodput_bps"] < 0.5 * 10e6, f
    res = Results.load(tmp_path / "out")
    for name in ("flows", "queues", "links", "nodes", "series"):
        assert (tmp_path / "out" / f"{name}.parquet").exists()
    import polars as pl

    long = pl.read_parquet(tmp_path / "out" / "series.parquet")
    assert long.columns == ["name", "t", "value"] and set(long["name"]) == set(by)
    assert res.flows.height == 3 and res.summary["mode"] == "kernel"
    assert _ours() == [] and _tun_devices() == []


def _validate_kernel():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import validate_kernel
    finally:
        sys.path.pop(0)
    return validate_kernel


def test_the_kernel_table_compares_medians_and_marks_a_kernel_that_spreads():
    v = _validate_kernel()
    runs = [{"goodput_mbps": g, "mean_queue": q} for g, q in [(9.0, 3.0), (9.6, 3.1), (8.0, 2.9)]]
    assert v.median_of(runs) == {"goodput_mbps": 9.0, "mean_queue": 3.0}
    assert v.median_of(runs[:2]) == {"goodput_mbps": 9.0, "mean_queue": 3.0}, "the lower middle of an even count"
    assert v.spread(runs, "goodput_mbps", v.GOODPUT)  # 8.0 is 11 % below 9.0
    assert not v.spread(runs, "mean_queue", v.QUEUE, 2)
    assert v.spread([{"q": 1.9}, {"q": 1.0}], "q", v.QUEUE) and not v.spread([{"q": 1.9}, {"q": 1.0}], "q", v.QUEUE, 2)
    sim = {"goodput_mbps": 10.0, "mean_queue": 1.0}
    assert v.flags_of(sim, {"goodput_mbps": 8.9, "mean_queue": 1.9}) == ["goodput"]
    assert v.flags_of(sim, {"goodput_mbps": 9.1, "mean_queue": 2.1}) == ["queue"]


def test_the_kernel_table_reruns_the_flagged_rows_into_the_earlier_file(tmp_path):
    # The simulated side against recorded kernel columns (no root): only the flagged row
    # reruns, and --update replaces it in place, the other rows as they were.
    v = _validate_kernel()
    old = [
        {"n": 1, "rate_mbps": 10.0, "rtt_ms": 20.0, "queue": q, "cc": "newreno", "sim": {}, "kernel": k, "flags": f}
        for q, k, f in [
            ("droptail", {"goodput_mbps": 9.6, "mean_queue": 11.0, "drops": 1, "retransmissions": 1, "load": 0.1}, []),
            ("red", {"goodput_mbps": 5.0, "mean_queue": 5.0, "drops": 1, "retransmissions": 1, "load": 0.1}, ["goodput"]),
        ]
    ]
    # The flagged row's kernel side ran three times: its simulated side reruns as often.
    old[1]["kernel_runs"] = [dict(old[1]["kernel"], goodput_mbps=g) for g in (4.0, 5.0, 6.0)]
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps(old))
    args = ["--n", "1", "--rate", "10", "--rtt", "20", "--cc", "newreno", "--duration", "3", "--warmup", "1"]
    args += ["--kernel-from", str(rows), "--flagged-in", str(rows), "--update", str(rows)]
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "validate_kernel.py"), *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stdout.splitlines() if line.startswith("| 1 |")]
    assert len(lines) == 1 and "| red |" in lines[0] and "goodput" in lines[0] and "median of 3" in lines[0], out.stdout
    new = json.loads(rows.read_text())
    assert [r["queue"] for r in new] == ["droptail", "red"] and new[0] == old[0]
    assert new[1]["sim"]["goodput_mbps"] > 0 and new[1]["kernel"] == old[1]["kernel"]
    assert len(new[1]["sim_runs"]) == 3 and new[1]["kernel_runs"] == old[1]["kernel_runs"]
    assert new[1]["sim"] == v.median_of(new[1]["sim_runs"])
    assert v.key(new[1]) == (1, 10.0, 20.0, "red", "newreno")
