"""Router mechanisms written as plug-ins (tests/mechanism_examples.py): ACK spoofing in Python,
building its duplicate ACKs itself, gives the built-in spoofer's report byte for byte; a
detour through `next_hop` and `on_link_change` carries traffic around a failed link; a
packet the simulator cannot send stops the run with one line naming the field."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import ccsim
import mechanism_examples

ROOT = Path(__file__).resolve().parent.parent
BASE = (ROOT / "scenarios" / "dumbbell.toml").read_text().split("[[series]]")[0]


def report(text: str) -> dict:
    sim = ccsim.Simulation(text, "<test>", [], None)
    sim.run_until(float("inf"))
    return json.loads(sim.report_json())


def spoofing(signal: str, extra: str = "") -> str:
    """The dumbbell with Reno senders and RED at the bottleneck, its signals `signal`,
    measured from the start (a Python mechanism's counters have no warm-up)."""
    text = BASE.replace('variant = "newreno"', 'variant = "reno"').replace('duration = "30s"', 'duration = "15s"')
    text = text.replace('warmup = "5s"', 'warmup = "0s"')
    red = f'discipline = "red", limit = 400, min_th = 5, max_th = 15, max_p = 0.1, signal = "{signal}"'
    text = text.replace('discipline = "droptail", limit = 100', red)
    return 'plugins = ["mechanism_examples"]\n' + text + extra


class Counted(mechanism_examples.PyAckSpoofing):
    """The Python spoofer, kept for its counters."""

    last: Counted | None = None

    def __init__(self, **settings):
        super().__init__(**settings)
        Counted.last = self


ccsim.register_mechanism("py_ack_spoofing_counted", Counted)


CONFIGS = {
    "defaults": ("", ""),
    "at_once": ("spoof_below_real_ack = false", "spoof_below_real_ack = false"),
    "expiring": ('asymmetric_threshold = 1\npending_timeout = "15ms"', "asymmetric_threshold = 1\npending_timeout = 0.015"),
}


@pytest.mark.parametrize("config", list(CONFIGS))
def test_ack_spoofing_in_python_gives_the_built_in_spoofers_report_byte_for_byte(config):
    builtin_options, plugin_options = CONFIGS[config]
    builtin = report(spoofing("spoof", f"\n[ack_spoofing]\n{builtin_options}\n"))
    # Both directions of R1 - R2 have the RED queue, so R1 and R2 have a spoofer each.
    mechanism = f'\n[[mechanisms]]\nname = "py_ack_spoofing_counted"\nlinks = ["R1->R2", "R2->R1"]\n{plugin_options}\n'
    plugin = report(spoofing("drop", mechanism))
    spoofers = {s["node"]: s for s in builtin.pop("spoofers")}
    assert plugin.pop("spoofers") == []
    assert plugin == builtin
    # The built-in spoofers' tables held every flow and the buffers never overflowed: the
    # two cases the Python version leaves out.
    assert all(s["evictions"] == 0 for s in spoofers.values())
    assert all(q["drops_overflow"] == 0 for q in builtin["queues"] if q["link"] in spoofers)
    # Spoofs were sent and needless retransmissions discarded, counted alike.
    r1 = spoofers["R1"]
    assert r1["spoofed_acks_sent"] > 100
    if config == "defaults":
        assert r1["retransmissions_discarded"] > 10
    if config == "expiring":
        assert r1["pending_expired"] > 10 and r1["fallback_drops"] > 10 and r1["asymmetric_detected"] > 10
    assert sum(f["spoofed_acks"] for f in builtin["flows"]) == r1["spoofed_acks_sent"]
    counted = Counted.last.counters()
    assert counted == {node: {k: s[k] for k in counted[node]} for node, s in spoofers.items()}


def test_acc_controls_built_in_python_reach_acc_senders_and_close_their_windows():
    mechanism_examples.AccHalver.seen.clear()
    text = spoofing("drop", '\n[[mechanisms]]\nname = "acc_halver"\nlink = "R1->R2"\n')
    text = text.replace('variant = "reno", mss = 1000', 'variant = "reno", mss = 1000, acc = true')
    flows = report(text)["flows"]
    seen = mechanism_examples.AccHalver.seen
    assert len(seen) > 50 and all(s.cwnd >= 1000 and 0 <= s.srtt < 1 for s in seen)
    assert any(s.srtt > 0.04 for s in seen), "the round trip is 44 ms and more"
    assert sum(f["acc_controls_received"] for f in flows) == len(seen)
    assert sum(f["acc_closes"] for f in flows) > 10
    plain = report(text.replace(", acc = true", ""))["flows"]
    assert sum(f["acc_controls_received"] for f in plain) == 0


def detour_scenario(with_detour: bool) -> str:
    """S -> R1 -> R2 -> D, with R1 - R3 - R2 as a longer way round; R1 - R2 fails from
    5 s to 7 s."""
    text = """plugins = ["mechanism_examples"]
name = "detour"
duration = "10s"
hosts = ["S", "D"]
routers = ["R1", "R2", "R3"]

[[links]]
between = ["S", "R1"]
rate = "100Mbps"
delay = "1ms"

[[links]]
between = ["R1", "R2"]
rate = "10Mbps"
delay = "10ms"

[[links]]
between = ["R1", "R3"]
rate = "10Mbps"
delay = "10ms"

[[links]]
between = ["R3", "R2"]
rate = "10Mbps"
delay = "10ms"

[[links]]
between = ["R2", "D"]
rate = "100Mbps"
delay = "1ms"

[[flows]]
name = "bulk"
from = "S"
to = "D"
tcp = { variant = "newreno", mss = 1000 }

[[failures]]
between = ["R1", "R2"]
down = "5s"
duration = "2s"
"""
    if with_detour:
        text += '\n[[mechanisms]]\nname = "detour"\ndetours = { "R1->R2" = "R1->R3", "R2->R1" = "R2->R3" }\n'
    return text


def test_a_detour_by_next_hop_and_on_link_change_carries_the_flow_around_a_failure():
    mechanism_examples.Detour.instances.clear()
    plain = report(detour_scenario(False))
    rerouted = report(detour_scenario(True))
    (d,) = mechanism_examples.Detour.instances
    # Both directions went down at 5 s and came up at 7 s, each seen once.
    assert sorted(d.changes) == [("R1->R2", False, 5.0), ("R1->R2", True, 7.0), ("R2->R1", False, 5.0), ("R2->R1", True, 7.0)]
    assert d.down == set()
    # The flow's data and ACKs went round while the link was down, and nowhere else.
    assert d.detoured > 2000
    queues = [{q["link"]: q["departures"] for q in r["queues"]} for r in (plain, rerouted)]
    assert queues[0]["R1->R3"] == queues[0]["R2->R3"] == 0
    assert queues[1]["R1->R3"] > 1000 and queues[1]["R2->R3"] > 1000
    assert rerouted["flows"][0]["goodput_bps"] > plain["flows"][0]["goodput_bps"] * 1.2


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("negative_ack", "spoofed_ack: ack = -1: must be a whole number from 0 to 4294967295"),
        ("float_wnd", "spoofed_ack: wnd = 1.5: must be a whole number from 0 to 4294967295"),
        ("udp_ack", "spoofed_ack: of = <Packet acc_control flow * seq * size 44>: not a TCP packet: only a TCP flow's sender takes an ACK"),
        ("no_node", "send: node = 22: not a node number (0 to 21; self.nodes maps names to them)"),
        ("not_a_packet", "send: pkt = 'a packet': must be a ccsim.Packet a hook was given or one a constructor built"),
        ("srtt", "acc_control: srtt = nan: must be a number of seconds from 0 to 4294.967295"),
    ],
)
def test_a_packet_the_simulator_cannot_send_is_one_line_naming_the_field(call, message):
    text = spoofing("drop", f'\n[[mechanisms]]\nname = "bad_packet"\ncall = "{call}"\n')
    with pytest.raises(ccsim.PluginError) as info:
        report(text)
    e = info.value
    assert (e.plugin, e.hook) == ("bad_packet", "on_verdict")
    head = f'plug-in "bad_packet" failed in on_verdict at t = {e.time} s ({e.site}): '
    assert re.fullmatch(re.escape(head + message).replace(r"\*", r"\d+"), str(e)), str(e)


def test_outside_a_run_a_bad_field_is_a_packet_error_a_value_error():
    mech = mechanism_examples.BadPacket("no_node")
    assert issubclass(ccsim.PacketError, ValueError)
    with pytest.raises(ccsim.PacketError, match="send: node = 0: not a node number"):
        mech.send(0, None)
