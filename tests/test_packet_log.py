"""The per-packet event log from Python: `Results.packets`, packets.parquet and
`ccsim run --packet-log`. (The log's agreement with the core's counters is tested in
crates/ccsim/tests/packet_log.rs.)"""

import polars as pl
import pytest

import ccsim
from ccsim import packet_log
from conftest import DUMBBELL, ROOT, SHORT, SHORT_ARGS, ccsim_cli

ECN_RED = [
    'links.1.queue={ discipline = "red", limit = 60, min_th = 5, max_th = 15, max_p = 0.1, signal = "ecn" }',
    "flows.bulk.tcp.ecn=true",
]


@pytest.fixture(scope="module")
def logged():
    return ccsim.run(DUMBBELL, overrides=[*SHORT, *ECN_RED, "packet_log.enabled=true"])


def test_no_log_unless_asked():
    res = ccsim.run(DUMBBELL, overrides=SHORT)
    assert res.packets is None and res.packets_not_kept == 0


def test_the_frame_has_the_documented_columns_and_agrees_with_the_queue_table(logged):
    p = logged.packets
    assert tuple(p.columns) == packet_log.COLUMNS
    assert p["t"].is_sorted()
    assert set(p["event"].unique()) == {"enqueue", "dequeue", "drop", "mark", "receive"}
    assert p.filter(pl.col("event") != "drop")["reason"].null_count() == p.filter(pl.col("event") != "drop").height
    # The bottleneck's marks and early drops, counted over the whole run (no warm-up here).
    whole = ccsim.run(DUMBBELL, overrides=[*SHORT, "warmup=0s", *ECN_RED, "packet_log.enabled=true"])
    q = whole.queues.filter(pl.col("link") == "R1->R2").row(0, named=True)
    at = whole.packets.filter(pl.col("link") == "R1->R2")
    assert at.filter(pl.col("event") == "mark").height == q["marks_early"] + q["marks_forced"] > 0
    assert at.filter(pl.col("reason") == "overflow").height == q["drops_overflow"]
    # A marked packet carries CE from then on: it is received as `ce`.
    marked = at.filter(pl.col("event") == "mark").row(0, named=True)
    later = whole.packets.filter(
        (pl.col("event") == "receive")
        & (pl.col("flow") == marked["flow"])
        & (pl.col("seq") == marked["seq"])
        & (pl.col("link") == "R1->R2")
    )
    assert later.height >= 1 and later["ecn"][0] == "ce"
    assert set(whole.packets["kind"].unique()) <= {"tcp_data", "tcp_ack"}


def test_filters_and_bound():
    res = ccsim.run(
        DUMBBELL,
        overrides=[*SHORT, "packet_log.events=['drop']", "packet_log.flows=['bulk[3]']", "packet_log.max_events=5"],
    )
    assert res.packets.height <= 5
    assert set(res.packets["event"]) <= {"drop"} and set(res.packets["flow"]) <= {"bulk[3]"}
    full = ccsim.run(DUMBBELL, overrides=[*SHORT, "packet_log.events=['drop']", "packet_log.flows=['bulk[3]']"])
    assert res.packets_not_kept == max(0, full.packets.height - 5)
    with pytest.raises(ccsim.ScenarioError, match=r"packet_log.events\[0\]: unknown event"):
        ccsim.run(DUMBBELL, overrides=[*SHORT, "packet_log.events=['sent']"])


def test_parquet_round_trip(logged, tmp_path):
    logged.to_parquet(tmp_path)
    back = ccsim.Results.load(tmp_path)
    assert back.packets.equals(logged.packets)


def test_cli(tmp_path):
    r = ccsim_cli("run", DUMBBELL, *SHORT_ARGS, "--packet-log", "--set", 'packet_log.links=["R1->R2"]', "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    assert "packet events to" in r.stdout
    p = pl.read_parquet(tmp_path / "packets.parquet")
    assert set(p["link"]) == {"R1->R2"} and p.height > 1000
    r = ccsim_cli("run", DUMBBELL, *SHORT_ARGS, "--packet-log")
    assert r.returncode == 2 and "give --out DIR" in r.stderr


def test_the_documented_columns_are_the_frame_s():
    doc = (ROOT / "docs" / "results-schema.md").read_text(encoding="utf-8")
    section = doc.split("## packets.parquet", 1)[1].split("\n## ", 1)[0]
    names = []
    for line in section.splitlines():
        if line.startswith("| `"):
            names += [n.strip(" `") for n in line.split("|")[1].split(",")]
    assert tuple(names) == packet_log.COLUMNS


def test_ecn_codepoints_are_named_as_the_core_names_them():
    import numpy as np

    from ccsim._core import Simulation

    sim = Simulation(DUMBBELL.read_text(), str(DUMBBELL), [*SHORT, "packet_log.enabled=true"])
    raw = sim.packet_log()
    assert raw["ecn_codepoints"] == ["not_ect", "ect1", "ect0", "ce"]
    # Each value of the IP field (ECT(1) is 0b01) gets its name in the frame.
    rec = np.zeros(4, dtype=packet_log._dtype())
    rec["ecn"] = [0b00, 0b01, 0b10, 0b11]
    raw = dict(raw, records=rec.tobytes())
    assert packet_log.frame(raw)["ecn"].to_list() == ["not_ect", "ect1", "ect0", "ce"]
