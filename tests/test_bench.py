"""The DUMBBELL-N benchmark: `ccsim bench dumbbell` and benchmarks/run.sh with ccsim."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, ccsim_cli

KEYS = {
    "simulator",
    "n_flows",
    "sim_time_s",
    "delivered_packets",
    "goodput_bps",
    "bottleneck_drops",
    "bottleneck_early_drops",
    "bottleneck_forced_drops",
    "bottleneck_mbps",
    "mean_queue_packets",
    "setup_s",
    "run_s",
    "events_processed",
    "events_per_second",
}


def key_values(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def test_bench_dumbbell_prints_the_keys():
    p = ccsim_cli("bench", "dumbbell", 10, 2)
    assert p.returncode == 0, p.stderr
    kv = key_values(p.stdout)
    assert KEYS <= kv.keys()
    assert kv["simulator"] == "ccsim"
    assert int(kv["n_flows"]) == 10
    assert float(kv["sim_time_s"]) == 2
    delivered = int(kv["delivered_packets"])
    assert delivered > 0
    # 100 Mb/s bottleneck: at most 100e6 / 8 / 1040 packets a second get through.
    assert delivered < 2 * 100e6 / 8 / 1040
    assert float(kv["goodput_bps"]) == pytest.approx(delivered * 1000 * 8 / 2, rel=1e-2)
    drops = int(kv["bottleneck_drops"])
    assert drops == int(kv["bottleneck_early_drops"]) + int(kv["bottleneck_forced_drops"])
    assert int(kv["events_processed"]) > delivered
    assert float(kv["setup_s"]) >= 0 and float(kv["run_s"]) > 0
    assert int(kv["bottleneck_mbps"]) == 100
    assert 0 < float(kv["mean_queue_packets"]) < 200, "RED's limit"


def test_bench_dumbbell_scales_the_bottleneck_and_its_buffer():
    p = ccsim_cli("bench", "dumbbell", 20, 2, 1, "--bottleneck", 300)
    assert p.returncode == 0, p.stderr
    kv = key_values(p.stdout)
    assert int(kv["bottleneck_mbps"]) == 300
    assert int(kv["delivered_packets"]) < 2 * 300e6 / 8 / 1040
    assert 0 < float(kv["mean_queue_packets"]) < 600, "RED's limit, 3 x 200"
    bad = ccsim_cli("bench", "dumbbell", 20, 2, 1, "--bottleneck", 150)
    assert bad.returncode == 2 and "multiple of 100" in bad.stderr


def test_bench_dumbbell_is_deterministic():
    a, b = (key_values(ccsim_cli("bench", "dumbbell", 10, 2, 5).stdout) for _ in range(2))
    for k in ("delivered_packets", "bottleneck_drops", "events_processed"):
        assert a[k] == b[k]


def test_bench_dumbbell_tcp_timers_are_ns2s():
    # benchmarks/ns2/dumbbell.tcl leaves `newreno_changes1_` at ns-2.35's default 1: the timer
    # restarts on the first partial ACK of a recovery only, ccsim's default rule. Its clock
    # ticks every millisecond.
    from ccsim.bench import dumbbell

    tcl = (ROOT / "benchmarks" / "ns2" / "dumbbell.tcl").read_text()
    assert "newreno_changes1_" not in tcl
    assert re.search(r"Agent/TCP set tcpTick_\s+0\.001\b", tcl)
    for ns2 in (True, False):
        tcp = dumbbell(10, 5, 1, ns2)["flows"][0]["tcp"]
        assert tcp.get("partial_ack_timer", "impatient") == "impatient"
        assert tcp["clock_granularity"] == "1ms"


@pytest.mark.skipif(shutil.which("bash") is None, reason="benchmarks/run.sh needs bash")
@pytest.mark.skipif(not os.access("/usr/bin/time", os.X_OK), reason="benchmarks/run.sh needs /usr/bin/time (package 'time')")
def test_run_sh_tiny_with_ccsim(tmp_path):
    csv = tmp_path / "tiny.csv"
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("CCSIM_CMD", None)
    # The `ccsim` command of the Python running the tests comes first on PATH.
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    p = subprocess.run(
        ["bash", str(ROOT / "benchmarks" / "run.sh"), "--tiny", "--sims", "ccsim", "--no-install", "--csv", str(csv)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    rows = [line.split() for line in p.stdout.splitlines()]
    header = next(r for r in rows if r[:2] == ["sim", "N"])
    assert "deliv/wall_s" in header
    ccsim = [r for r in rows if r[:2] == ["ccsim", "10"]]
    assert ccsim, p.stdout + p.stderr
    row = dict(zip(header, ccsim[0]))
    assert int(row["delivered"]) > 0
    assert float(row["mean_q"]) > 0  # the mean-queue column is filled for ccsim
    lines = csv.read_text().splitlines()
    assert lines[1].startswith("ccsim,10,5,1,ok,")


def _access_links():
    import importlib.util

    spec = importlib.util.spec_from_file_location("access_links", ROOT / "benchmarks" / "access_links.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_access_links_variants_keep_the_traffic_and_change_only_the_access_links():
    al = _access_links()
    bench = al.scenario("benchmark", 4, 1.0, 1)
    fast = al.scenario("fast-access", 4, 1.0, 1)
    pair = al.scenario("one-pair", 4, 1.0, 1)
    assert bench["links"][1] == fast["links"][1] == pair["links"][1], "the bottleneck is the same"
    assert bench["flows"][0]["tcp"] == pair["flows"][0]["tcp"]
    assert [link["rate"] for link in fast["links"]] == ["1000Gbps", bench["links"][1]["rate"], "1000Gbps"]
    assert pair["hosts"] == ["S1", "D1"] and pair["flows"][0]["count"] == 4
    with pytest.raises(ValueError, match="variant must be one of"):
        al.scenario("none", 4, 1.0, 1)


def test_access_links_runs_every_variant_and_prints_a_row_each(capsys):
    al = _access_links()
    assert al.main(["6", "--time", "0.5", "--json", os.devnull]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line.split() for line in out[2:]}
    assert set(rows) == set(al.VARIANTS)
    assert rows["benchmark"][5] == "1.000"
    # The same traffic: every variant delivers packets and processes events.
    assert all(int(r[3].replace(",", "")) > 0 and int(r[6].replace(",", "")) > 0 for r in rows.values())
    with pytest.raises(SystemExit):
        al.main(["6", "--variants", "benchmark,nope"])
