"""`ccsim live`: processes started and stopped (no orphans, also on Ctrl-C), reports
collected, user errors exit 2."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

NO_FLOWS = """
name = "noflow"
duration = "{duration}"
hosts = ["S1", "D"]
routers = ["R"]
[[links]]
between = ["S1", "R"]
rate = "10Mbps"
delay = "1ms"
[[links]]
between = ["R", "D"]
rate = "1Mbps"
delay = "1ms"
"""


def ccsim(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ccsim", *args], capture_output=True, text=True, timeout=120, **kw)


def nodes_of(marker: str) -> list[int]:
    """Pids of the live node processes whose command line mentions `marker`."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = (Path("/proc") / pid / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "live node" in cmd and marker in cmd:
            out.append(int(pid))
    return out


def test_a_run_starts_every_node_and_leaves_none(tmp_path):
    f = tmp_path / "noflow.toml"
    f.write_text(NO_FLOWS.format(duration="1s"))
    r = ccsim("live", "run", str(f), "--json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert [n["name"] for n in s["nodes"]] == ["S1", "D", "R"]
    assert s["mode"] == "live" and s["totals"]["goodput_bps"] == 0
    assert nodes_of(str(f)) == []


def test_ctrl_c_stops_every_node(tmp_path):
    f = tmp_path / "long.toml"
    f.write_text(NO_FLOWS.format(duration="60s"))
    # A terminal's Ctrl-C: SIGINT to the whole foreground process group.
    p = subprocess.Popen(
        [sys.executable, "-m", "ccsim", "live", "run", str(f)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 30
    while len(nodes_of(str(f))) < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(nodes_of(str(f))) == 3
    time.sleep(0.5)
    os.killpg(p.pid, signal.SIGINT)
    p.wait(timeout=20)
    assert p.returncode == 130
    time.sleep(0.2)
    assert nodes_of(str(f)) == []


def test_a_killed_runner_takes_its_nodes_with_it(tmp_path):
    f = tmp_path / "long.toml"
    f.write_text(NO_FLOWS.format(duration="60s"))
    p = subprocess.Popen([sys.executable, "-m", "ccsim", "live", "run", str(f)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while len(nodes_of(str(f))) < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
    p.kill()
    p.wait()
    deadline = time.monotonic() + 5
    while nodes_of(str(f)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert nodes_of(str(f)) == []


@pytest.mark.parametrize(
    "text, where",
    [
        (NO_FLOWS.format(duration="1s") + '[live]\nkey = "short"\n', "live.key"),
        (NO_FLOWS.format(duration="1s") + "[live]\nbogus = 1\n", "live"),
        (NO_FLOWS.format(duration="1s") + '[[live.flakeway]]\nnode = "Nowhere"\n', "live.flakeway[0].node"),
        (NO_FLOWS.format(duration="1s") + '[live.nodes]\nR = "127.0.0.1:9"\n', "live.nodes"),
        (NO_FLOWS.format(duration="1s").replace('delay = "1ms"\n', 'delay = "1ms"\nqueue = { discipline = "red" }\n', 1), "links"),
    ],
)
def test_scenario_problems_exit_2_naming_the_field(tmp_path, text, where):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    r = ccsim("live", "run", str(f))
    assert r.returncode == 2, r.stderr
    assert f"{f}: {where}" in r.stderr
    assert nodes_of(str(f)) == []


def test_the_simulator_ignores_the_live_table(tmp_path):
    f = tmp_path / "sim.toml"
    f.write_text(NO_FLOWS.format(duration="1s") + '[live]\nkey = "0123456789abcdef"\n[[live.flakeway]]\nnode = "R"\ndelay = "10ms"\n')
    r = ccsim("run", str(f), "--json")
    assert r.returncode == 0, r.stderr


ACC_LIVE = ROOT / "scenarios" / "acc_live.toml"


@pytest.mark.slow
def test_acc_live_runs_with_acc_on_and_off_and_the_shaper_holds_its_rate():
    on = ccsim("live", "run", str(ACC_LIVE), "--set", "duration=4s", "--json")
    assert on.returncode == 0, on.stderr
    s = json.loads(on.stdout)
    t = s["totals"]
    assert t["filters_set"] > 0 and t["controls_sent"] > 0 and t["controls_received"] > 0
    assert all(f["goodput_bps"] > 0 and f["delivery_errors"] == 0 for f in s["flows"])
    neck = next(q for q in s["queues"] if q["link"] == "C->D")
    assert neck["acc"] and neck["utilization"] > 0.3 and abs(neck["shaper_error"]) < 0.05
    assert {n["name"]: n["acc"]["filters_set"] for n in s["nodes"]}["C"] == 0, "filters go upstream"
    off = ccsim(
        "live", "run", str(ACC_LIVE), "--set", "duration=4s", "--set", "links.4.queue.acc=false", "--set", "flows.*.rdp.acc=false", "--json"
    )
    assert off.returncode == 0, off.stderr
    t = json.loads(off.stdout)["totals"]
    assert t["filters_set"] == t["controls_sent"] == t["packets_filtered"] == 0 and t["goodput_bps"] > 0
    assert nodes_of(str(ACC_LIVE)) == []


def test_a_capture_shows_rdp_and_acc_fields_in_tshark(tmp_path):
    if shutil.which("tshark") is None:
        pytest.skip("tshark is not installed (apt-get install tshark)")
    r = ccsim("live", "run", str(ACC_LIVE), "--set", "duration=4s", "--set", 'live.pcap=["C"]', "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    pcap = tmp_path / "C.pcap"
    lua = ROOT / "scripts" / "wireshark" / "ccsim_live.lua"

    def tshark(*args: str) -> list[str]:
        out = subprocess.run(["tshark", "-X", f"lua_script:{lua}", "-r", str(pcap), *args], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0 and "Lua" not in out.stderr, out.stderr
        return [ln for ln in out.stdout.splitlines() if ln.strip()]

    data = tshark("-Y", "rdp.acc.cwnd", "-T", "fields", "-e", "rdp.sport", "-e", "rdp.seq", "-e", "rdp.acc.cwnd", "-e", "rdp.acc.srtt_us")
    assert len(data) > 1000, "RDP data segments with their ACC state"
    assert all(len(ln.split("\t")) == 4 for ln in data)
    controls = tshark("-Y", "ccsim.type == 2", "-T", "fields", "-e", "acc.cwnd", "-e", "acc.ssthresh", "-e", "acc.seq")
    requests = tshark("-Y", "ccsim.type == 3", "-T", "fields", "-e", "acc.carried", "-e", "acc.remaining")
    assert controls and requests, "C sent controls and filter requests"
    carried, remaining = (int(x) for x in requests[0].split("\t"))
    assert 0 < remaining < carried
    syn = tshark("-Y", "rdp.flags.syn == 1", "-T", "fields", "-e", "rdp.syn.max_outstanding")
    assert "4096" in syn, "the receiver's SYN-ACK carries its max. outstanding segments"


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None, reason="network namespaces need root and iproute2")
def test_one_node_per_network_namespace():
    r = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "live_netns.py"), str(ACC_LIVE), "--set", "duration=3s"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if r.returncode != 0 and "Operation not permitted" in r.stderr:
        pytest.skip("no permission to make network namespaces here")
    assert r.returncode == 0, r.stderr
    reports = {n["name"]: n for n in map(json.loads, r.stdout.splitlines())}
    assert set(reports) == {"E1", "E2", "D", "I1", "I2", "C"}
    assert reports["C"]["address"].startswith("10.231.0.")
    assert all(f["bytes_delivered"] > 0 and f["delivery_errors"] == 0 for f in reports["D"]["flows"])
    assert reports["C"]["acc"]["controls_sent"] > 0


def live_temp_dirs() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("ccsim-live-*")}


def test_a_killed_router_stops_the_run_and_the_survivors_reports_are_kept(tmp_path):
    before = live_temp_dirs()
    out = tmp_path / "out"
    p = subprocess.Popen(
        [sys.executable, "-m", "ccsim", "live", "run", str(ACC_LIVE), "--set", "duration=20s", "--json", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while len(nodes_of(str(ACC_LIVE))) < 6 and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(3.0)  # mid-run
    i1 = next(
        pid
        for pid in nodes_of(str(ACC_LIVE))
        if "--name I1 " in (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    )
    killed = time.monotonic()
    os.kill(i1, signal.SIGKILL)
    # The others are told at once (every node is watched every 50 ms) and end within their
    # next loop turn: all gone within a second, with some room for a loaded machine.
    while nodes_of(str(ACC_LIVE)) and time.monotonic() < killed + 10:
        time.sleep(0.02)
    took = time.monotonic() - killed
    stdout, stderr = p.communicate(timeout=60)
    assert p.returncode == 1, stderr
    assert "node I1 died (killed by signal 9 (SIGKILL))" in stderr, stderr
    assert took < 2, f"the other nodes ran on {took:.1f} s after I1 died"
    s = json.loads(stdout)
    assert s["failure"]["node"] == "I1" and s["failure"]["returncode"] == -9
    assert s["missing_nodes"] == ["I1"]
    assert {n["name"] for n in s["nodes"]} == {"E1", "E2", "D", "I2", "C"}
    assert all(n["stopped_early_at_s"] is not None for n in s["nodes"])
    assert s["nodes"][0]["stopped_early_at_s"] < 12, "stopped long before the 20 s"
    e2 = next(f for f in s["flows"] if f["name"] == "e2[0]")
    assert e2["goodput_bps"] > 0, "the surviving path's flow was measured until the stop"
    assert json.loads((out / "summary.json").read_text())["failure"]["node"] == "I1"
    time.sleep(0.2)
    assert nodes_of(str(ACC_LIVE)) == []
    assert live_temp_dirs() <= before


def test_a_dead_nodes_last_stderr_lines_are_in_the_message(tmp_path):
    # A node that cannot make its capture file dies at start with a message on stderr.
    (tmp_path / "I2.pcap").mkdir()
    r = ccsim("live", "run", str(ACC_LIVE), "--set", "duration=2s", "--set", 'live.pcap=["I2"]', "--out", str(tmp_path))
    assert r.returncode == 1
    assert "node I2 died (exit status 1); its last stderr lines:\nerror: I2: " in r.stderr, r.stderr
    assert nodes_of(str(ACC_LIVE)) == []


def test_sigterm_of_the_run_leaves_no_node_and_no_temp_dir(tmp_path):
    before = live_temp_dirs()
    f = tmp_path / "long.toml"
    f.write_text(NO_FLOWS.format(duration="60s"))
    p = subprocess.Popen([sys.executable, "-m", "ccsim", "live", "run", str(f)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while len(nodes_of(str(f))) < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert live_temp_dirs() <= before, "the temp folder is gone as soon as the nodes' stderr files are open"
    p.send_signal(signal.SIGTERM)
    _, stderr = p.communicate(timeout=20)
    assert p.returncode == 1 and "SIGTERM" in stderr, stderr
    time.sleep(0.2)
    assert nodes_of(str(f)) == []
    assert live_temp_dirs() <= before


def test_the_twin_has_the_live_runs_schema_and_the_delay_before_cs_queue(tmp_path):
    r = ccsim("live", "twin", str(ACC_LIVE), "--set", "duration=5s", "--json", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["mode"] == "twin" and json.loads((tmp_path / "summary.json").read_text()) == s
    assert [n["name"] for n in s["nodes"]] == ["E1", "E2", "D", "I1", "I2", "C"]
    assert {f["name"] for f in s["flows"]} == {"e1[0]", "e2[0]"}
    neck = next(q for q in s["queues"] if q["link"] == "C->D")
    assert neck["acc"] and neck["utilization"] > 0.5 and neck["mean_queue"] > 0
    assert s["totals"]["filters_set"] > 0 and s["totals"]["controls_sent"] > 0
    # The schema is the live run's, key for key.
    r = ccsim("live", "run", str(ACC_LIVE), "--set", "duration=2s", "--json")
    assert r.returncode == 0, r.stderr
    live = json.loads(r.stdout)

    def keys(x: dict) -> dict:
        return {k: sorted(x[k]) if isinstance(x[k], dict) and k != "received_bytes_from" else None for k in x}

    assert keys(s) == keys(live)
    for part in ("flows", "queues", "nodes"):
        assert keys(s[part][0]) == keys(live[part][0]), part
        assert keys(s[part][-1]) == keys(live[part][-1]), part
    text = ccsim("live", "twin", str(ACC_LIVE), "--set", "duration=2s")
    assert text.returncode == 0 and "simulated twin of the live run" in text.stdout
    bad = ccsim("live", "twin", str(ACC_LIVE), "--set", "live.flakeway.0.jitter=5ms")
    assert bad.returncode == 2 and "live.flakeway[0].jitter" in bad.stderr
