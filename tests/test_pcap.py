"""Packet captures from Python and the command line: `ccsim.run(pcap=..., out_dir=...)` and
`ccsim run --pcap`. The files are read back with tshark; those checks skip without it."""

import shutil
import subprocess

import pytest

import ccsim
from conftest import DUMBBELL, SHORT, SHORT_ARGS, ccsim_cli

TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed (apt-get install tshark)")


def tshark_fields(path, *fields, display_filter=None):
    cmd = [TSHARK, "-r", str(path), "-o", "tcp.check_checksum:TRUE", "-T", "fields"]
    if display_filter:
        cmd += ["-Y", display_filter]
    for f in fields:
        cmd += ["-e", f]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return [line.split("\t") for line in p.stdout.splitlines()]


def link_tx_packets(res, name):
    row = res.links.filter(res.links["link"] == name)
    return int(row["tx_packets"][0])


@needs_tshark
def test_run_with_pcap_names(tmp_path):
    res = ccsim.run(DUMBBELL, overrides=SHORT + ["warmup=0s"], pcap="R1->R2,R2->R1", out_dir=tmp_path)
    path = tmp_path / "trace.pcapng"
    rows = tshark_fields(path, "frame.interface_name", "tcp.checksum.status")
    names = [r[0] for r in rows]
    assert names.count("R1->R2") == link_tx_packets(res, "R1->R2") > 100
    assert names.count("R2->R1") == link_tx_packets(res, "R2->R1") > 100
    assert "0" not in {r[1] for r in rows}  # never bad (data frames cut at 96 bytes are unverified)


def test_run_with_pcap_table_and_node(tmp_path):
    ccsim.run(DUMBBELL, overrides=SHORT, pcap={"file": "sub/r2.pcap", "nodes": ["R2"], "snaplen": 40}, out_dir=tmp_path)
    data = (tmp_path / "sub" / "r2.pcap").read_bytes()
    assert data[:4] == bytes.fromhex("4d3cb2a1")  # classic pcap, nanosecond timestamps
    assert int.from_bytes(data[16:20], "little") == 40  # snaplen


def test_pcap_errors_name_the_field(tmp_path):
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(DUMBBELL, overrides=SHORT, pcap="R1->R9", out_dir=tmp_path)
    assert e.value.path == "pcap[0].links[0]" and "unknown link" in e.value.message
    (tmp_path / "file").write_text("")
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(DUMBBELL, overrides=SHORT, pcap="R1", out_dir=tmp_path / "file")
    assert e.value.path == "pcap[0].file" and "cannot create" in e.value.message


@needs_tshark
def test_cli_pcap_shortcut(tmp_path):
    out = tmp_path / "out"
    p = ccsim_cli("run", DUMBBELL, *SHORT_ARGS, "--pcap", "R1->R2", "--pcap-format", "pcap", "--out", out)
    assert p.returncode == 0, p.stderr
    assert "wrote the capture to" in p.stdout
    rows = tshark_fields(out / "trace.pcap", "ip.src", display_filter="tcp.len > 0")
    assert len(rows) > 100
    assert (out / "summary.json").exists()


def test_cli_pcap_in_current_directory_and_errors(tmp_path):
    p = ccsim_cli("run", DUMBBELL, *SHORT_ARGS, "--pcap", "R1", "--quiet", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "trace.pcapng").stat().st_size > 1000
    p = ccsim_cli("run", DUMBBELL, *SHORT_ARGS, "--pcap", "X->Y", cwd=tmp_path)
    assert p.returncode == 2 and "pcap[0].links[0]: unknown link" in p.stderr
    p = ccsim_cli("run", DUMBBELL, *SHORT_ARGS, "--pcap-format", "pcap", cwd=tmp_path)
    assert p.returncode == 2 and "go with --pcap" in p.stderr


@needs_tshark
def test_timestamps_option_in_the_capture(tmp_path):
    ccsim.run(DUMBBELL, overrides=SHORT + ["warmup=0s", "flows.bulk.tcp.timestamps=true"], pcap="R1->R2,R2->R1", out_dir=tmp_path)
    rows = tshark_fields(
        tmp_path / "trace.pcapng", "frame.interface_name", "ip.len", "tcp.len", "tcp.options.timestamp.tsval", "tcp.options.timestamp.tsecr"
    )
    data = [r for r in rows if r[0] == "R1->R2" and r[2] != "0"]
    acks = [r for r in rows if r[0] == "R2->R1"]
    assert len(data) > 100 and len(acks) > 100
    assert {r[1] for r in data} == {"1052"}, "1000 bytes of payload, 40 of headers, 12 of option"
    assert all(r[3] and r[4] for r in data + acks), "every segment shows TSval and TSecr"
    # An ACK echoes the TSval of a data segment it acknowledges, never a value from its future.
    sent = {int(r[3]) for r in data}
    assert all(int(r[4]) in sent for r in acks if r[4] != "0")


def test_timestamps_are_refused_beside_a_congestion_header():
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(DUMBBELL, overrides=SHORT + ["flows.bulk.tcp.variant=xcp", "flows.bulk.tcp.timestamps=true"])
    assert e.value.path.endswith("tcp.timestamps") and "congestion header" in e.value.message


@needs_tshark
def test_the_linux_profile_turns_timestamps_on_unless_a_congestion_header_holds_their_place(tmp_path):
    for variant, size in (("newreno", "1052"), ("xcp", "1040")):
        queue = ["links.*.queue.discipline=xcp"] if variant == "xcp" else []
        over = SHORT + ["warmup=0s", "profile=linux", f"flows.bulk.tcp.variant={variant}"] + queue
        ccsim.run(DUMBBELL, overrides=over, pcap="R1->R2", out_dir=tmp_path / variant)
        rows = tshark_fields(tmp_path / variant / "trace.pcapng", "ip.len", "tcp.len")
        assert {r[0] for r in rows if r[1] != "0"} == {size}, variant
