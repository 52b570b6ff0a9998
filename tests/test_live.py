"""`ccsim live`: processes started and stopped (no orphans, also on Ctrl-C), reports
collected, user errors exit 2."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
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
