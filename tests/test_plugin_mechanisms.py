"""Router mechanisms written as plug-ins (tests/mechanism_examples.py): ACK spoofing in Python,
building its duplicate ACKs itself, gives the built-in spoofer's report byte for byte, and so
does ACC (its filters, its lost controls claimed, its counters restarted after the warm-up); a
detour through `next_hop` and `on_link_change` carries traffic around a failed link, and a
tunnel rewrites the packets' routing fields; a packet the simulator cannot send stops the run
with one line naming the field."""

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


def acc_scenario(queue: str, mechanism: str) -> str:
    """Ten Reno senders with ACC behind a router R0, through R1 -> R2 (10 Mb/s, Tail Drop,
    `queue` added to its table); the access links lose 0.5 % of packets, ACC's controls among
    them; a 3 s warm-up."""
    text = f"""plugins = ["mechanism_examples"]
name = "acc"
duration = "12s"
warmup = "3s"
seed = 7
hosts = ["S{{1..10}}", "D{{1..10}}"]
routers = ["R0", "R1", "R2"]

[[links]]
between = ["S{{1..10}}", "R0"]
rate = "100Mbps"
delay = "1ms"
loss = 0.005

[[links]]
between = ["R0", "R1"]
rate = "100Mbps"
delay = "3ms"

[[links]]
between = ["R1", "R2"]
rate = "10Mbps"
delay = "20ms"
queue = {{ discipline = "droptail", limit = 60{queue} }}

[[links]]
between = ["R2", "D{{1..10}}"]
rate = "100Mbps"
delay = "1ms"

[[flows]]
name = "bulk"
from = "S{{1..10}}"
to = "D{{1..10}}"
start = {{ uniform = ["0s", "1s"] }}
tcp = {{ variant = "reno", mss = 1000, acc = true }}
"""
    return text + mechanism


ACC_CONFIGS = {
    "defaults": ("", ""),
    "floor_and_timeout": ('acc_rtt_floor = "80ms", acc_filter_timeout = "30ms"', "rtt_floor = 0.08\nfilter_timeout = 0.03"),
}


@pytest.mark.parametrize("config", list(ACC_CONFIGS))
def test_acc_in_python_gives_the_built_in_report_byte_for_byte(config):
    builtin_options, plugin_options = ACC_CONFIGS[config]
    builtin = report(acc_scenario(", acc = true" + (", " + builtin_options if builtin_options else ""), ""))
    plugin = report(acc_scenario("", f'\n[[mechanisms]]\nname = "py_acc"\nlinks = ["R1->R2"]\n{plugin_options}\n'))
    acc = builtin.pop("acc")
    assert plugin.pop("acc") == []
    assert plugin == builtin
    mech = mechanism_examples.PyAcc.last
    assert mech.report() == acc
    # ACC was at work: controls from R1, filters at R0 (after the R0 - R1 delay) ending by
    # count, by the sender's reaction and by timeout, and the warm-up's counts left out.
    r0, r1 = (next(r for r in acc if r["router"] == name) for name in ("R0", "R1"))
    assert r1["controls_sent"] > 50 and r0["filters_installed"] == r1["controls_sent"]
    assert r0["packets_filtered"] > 20 and r0["filters_removed_behaviour"] > 5 and r0["filters_removed_timeout"] > 0
    assert mech.baseline[mech.nodes["R1"]]["controls_sent"] > 0, "counted in the warm-up, then left out"
    if config == "defaults":
        # A control lost on an access link is R1's (claims_loss), not its flow's: the
        # flows' reverse drops are the same in both runs.
        assert r1["controls_lost"] > 0 and r0["filters_removed_count"] > 0
    else:
        assert r1["below_rtt_floor"] > 0 and r0["filters_removed_timeout"] > 50


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


def test_a_tunnel_rewritten_in_next_hop_matches_fast_reroutes_repair_paths():
    base = detour_scenario(False)
    frr = """
[ipfrr]
lfa = false

[[ipfrr.repair_paths]]
link = "R1->R2"
path = ["R1", "R3", "R2"]

[[ipfrr.repair_paths]]
link = "R2->R1"
path = ["R2", "R3", "R1"]
"""
    builtin = report(base + frr)
    plugin = report(
        base + '\n[[mechanisms]]\nname = "tunnel"\nrepairs = { "R1->R2" = ["R1", "R3", "R2"], "R2->R1" = ["R2", "R3", "R1"] }\n'
    )
    # The built-in's own counters (its detection timers, detections, packets sent to a
    # backup) aside, the runs are the same.
    assert builtin.pop("ipfrr")["transient_repairs"] == 2 and plugin.pop("ipfrr")["detections"] == 0
    assert builtin.pop("events_processed") == plugin.pop("events_processed") + 2
    for n in builtin["nodes"]:
        n.pop("backup_forwarded")
    assert [n.pop("backup_forwarded") for n in plugin["nodes"]] == [0] * 5
    assert plugin == builtin
    # Inside the tunnel R3 leaves the TTL alone: R2, the tail, finds the TTL the primary
    # path gives it (64, less R1's and its own decrement).
    t = mechanism_examples.Tunnel.instances[-1]
    r1, r2, r3 = (t.nodes[n] for n in ("R1", "R2", "R3"))
    assert set(t.seen) == {(r3, 1, 62), (r2, 1, 62), (r3, 2, 62), (r1, 2, 62)}
    assert len(t.seen) > 2000


@pytest.mark.parametrize(
    ("what", "hook", "message"),
    [
        ("raise_in_claims_loss", "claims_loss", "claims_loss(<Packet * flow * seq * size *>): KeyError: *"),
        (
            "claims_loss_returns",
            "claims_loss",
            "claims_loss(<Packet * flow * seq * size *>) returned 'yes': expected True (its own packet), False or None",
        ),
        ("send_in_settle", "settle", "settle: sends no packets and sets no timers (only the hooks given a time do)"),
        ("raise_in_begin_measurement", "begin_measurement", "begin_measurement: RuntimeError: counters*"),
        ("route_in_settle", "settle", "settle: RuntimeError: route: the routing tables are read during a hook that is given the time*"),
        ("ttl_in_on_arrival", "on_arrival", "Packet: ttl = 5: only the packet next_hop is given may be rewritten (its ttl and tunnel)"),
        ("ttl_after_next_hop", "on_arrival", "Packet: ttl = 5: only the packet next_hop is given may be rewritten (its ttl and tunnel)"),
        ("ttl_zero", "next_hop", "next_hop: ttl = 0: must be a whole number from 1 to 255"),
        ("tunnel_too_big", "next_hop", "next_hop: tunnel = 65536: must be a whole number from 0 to 65535"),
    ],
)
def test_the_hooks_without_effects_and_the_routing_fields_fail_naming_what(what, hook, message):
    text = spoofing("drop", f'\n[[mechanisms]]\nname = "misbehaving"\nwhat = "{what}"\n').replace('warmup = "0s"', 'warmup = "2s"')
    with pytest.raises(ccsim.PluginError) as info:
        report(text)
    e = info.value
    assert (e.plugin, e.hook) == ("misbehaving", hook)
    if hook == "claims_loss":
        # The core's hook is given no time: the message names the packet instead.
        assert e.time is None
        at = ""
    else:
        assert e.time == 2.0 if hook == "begin_measurement" else e.time > 0
        at = f" at t = {e.time!r}".removesuffix(".0") + " s"  # as Rust prints an f64
    head = f'plug-in "misbehaving" failed in {hook}{at} ({e.site}): '
    pattern = re.escape(head + message).replace(r"\*", "[^\n]*")
    assert re.match(pattern, str(e)), str(e)


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
