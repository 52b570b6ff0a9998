"""`ccsim show` and `ccsim.show.expand`: the expanded scenario without running it."""

import json

import pytest

import ccsim
from ccsim import show
from conftest import DUMBBELL, ROOT, ccsim_cli


def test_expand_counts_nodes_links_and_flows_per_pair():
    d = show.expand(DUMBBELL, overrides={"flows.bulk.count": 2})
    assert len(d["nodes"]) == 22 and len(d["links"]) == 42
    # count = 2 is two flows per (sender, receiver) pair: 10 pairs, 20 flows.
    assert len(d["flows"]) == 20
    assert d["flows"][0]["route"] == ["S1", "R1", "R2", "D1"] == d["flows"][1]["route"]
    assert d["flows"][0]["reverse_route"] == ["D1", "R2", "R1", "S1"]
    assert show.bottlenecks(d) == ["R1->R2"]
    assert d["profile"] == "rfc"
    assert show.expand(DUMBBELL, overrides=["profile=ns2"])["profile"] == "ns2"


def test_settings_are_the_resolved_ones():
    d = show.expand(ROOT / "scenarios" / "rtred_s1.toml")
    q = {lk["name"]: lk["queue"] for lk in d["links"]}
    rtred = [v for v in q.values() if v["discipline"] == "rtred"]
    assert rtred and "risk_th" in rtred[0]["settings"] and "w_q" in rtred[0]["settings"]
    assert "mss" in d["flows"][0]["settings"]["sender"]


def test_show_creates_no_capture_file(tmp_path):
    d = show.expand(DUMBBELL, overrides=['pcap+={ file = "%s", links = ["R1->R2"] }' % (tmp_path / "x.pcapng")])
    assert d["pcap"][0]["links"] == ["R1->R2"]
    assert not (tmp_path / "x.pcapng").exists()


def test_errors_are_those_of_a_run():
    with pytest.raises(ccsim.ScenarioError, match=r"links\[1\].rate"):
        show.expand(DUMBBELL, overrides=["links.1.rate=fast"])


def test_cli_text_and_json():
    r = ccsim_cli("show", DUMBBELL)
    assert r.returncode == 0, r.stderr
    assert "R1->R2 *" in r.stdout and "S1 -> R1 -> R2 -> D1" in r.stdout
    assert "profile rfc" in r.stdout
    assert "cost: about" in r.stdout and "not estimated" not in r.stdout
    r = ccsim_cli("show", DUMBBELL, "--json")
    assert json.loads(r.stdout)["scenario"] == "dumbbell"
    r = ccsim_cli("show", DUMBBELL, "--set", "warmup=40s")
    assert r.returncode == 2 and "warmup: must be shorter" in r.stderr


def test_settings_are_shown_as_the_scenarios_keys():
    """No Rust structure in the text: each value under the key that sets it, as TOML."""
    r = ccsim_cli("show", ROOT / "scenarios" / "rtred_s1.toml")
    assert r.returncode == 0, r.stderr
    text = r.stdout
    for debug in ("Config", "RedParams", "{", "2147483647", "0.200000000s", "exact_increase"):
        assert debug not in text, debug
    assert "  queue rtred at G->K (links.1.queue):" in text and "risk_th = 28" in text and 'overload = "early"' in text
    assert "  flows tcp[0] .. tcp[5] (6) (flows.tcp.tcp):" in text
    for kv in (
        'variant = "reno"',
        'ca_increase = "exact"',
        'min_rto = "200ms"',
        'rtt_arithmetic = "ns2"',
        'ecn_answered = "next-reduction"',
    ):
        assert kv in text, kv
    assert "set by no key" in text and "init_ssthresh = unlimited" in text
    # The keys it names are keys: each value set back through --set gives the same settings.
    d = show.expand(ROOT / "scenarios" / "rtred_s1.toml")
    keyed, _ = show.settings_keys(d["flows"][0]["settings"]["sender"], show._TCP_KEYS)
    again = show.expand(
        ROOT / "scenarios" / "rtred_s1.toml", overrides=[f"flows.0.tcp.{k}={v}" for k, v in keyed if not k.startswith(show._FLOW_PREFIX)]
    )
    assert again["flows"][0]["settings"] == d["flows"][0]["settings"]
    # A variant's own keys are in its table: CUBIC's beta is `cubic.beta`.
    cubic = show.expand(DUMBBELL, overrides=["flows.bulk.tcp.variant=cubic", "flows.bulk.tcp.cubic.beta=0.8"])
    keyed, fixed = show.settings_keys(cubic["flows"][0]["settings"]["sender"], show._TCP_KEYS)
    assert ("cubic.beta", "0.8") in keyed and ("cubic.c", "0.4") in keyed and "beta" not in dict(fixed)
    again = show.expand(DUMBBELL, overrides=[f"flows.bulk.tcp.{k}={v}" for k, v in keyed if not k.startswith(show._FLOW_PREFIX)])
    assert again["flows"][0]["settings"] == cubic["flows"][0]["settings"]


def test_links_name_their_table_and_the_cost_is_estimated():
    d = show.expand(DUMBBELL)
    assert [lk["name"] for lk in d["links"] if lk["table"] == 1] == ["R1->R2", "R2->R1"]
    assert {lk["table"] for lk in d["links"]} == {0, 1, 2}
    assert d["cost"]["memory_bytes"] > 0 and d["cost"]["events"] > 1000
    r = ccsim_cli("show", DUMBBELL)
    assert any(line.split()[:2] == ["R1->R2", "*"] and "links.1" in line for line in r.stdout.splitlines())
