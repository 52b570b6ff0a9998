"""The acc-live experiment's pure parts: the scenario file is its builder's, and the
verdicts follow their stated rules on made-up runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from ccsim.experiments import acc_live
from ccsim.experiments.report import FAILS, HOLDS, INCONCLUSIVE, PARTLY, Report

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def test_the_scenario_file_is_the_builders():
    assert tomllib.loads((ROOT / "scenarios" / "acc_live.toml").read_text()) == acc_live.topology(100, True, 30)


def test_the_misbehaving_scenario_file_is_the_builders():
    text = (ROOT / "scenarios" / "acc_live_misbehaving.toml").read_text()
    assert tomllib.loads(text) == acc_live.topology(100, True, 30, misbehaving=True)


def test_protection_holds_unless_the_well_behaved_flow_loses_its_share():
    def bad(e1_on: float, e1_off: float) -> dict:
        return {(100, True): [run(e1_on * 2, 10.0)] * 6, (100, False): [run(e1_off * 2, 10.0)] * 6}

    assert acc_live.protection_claim(bad(4000, 4000), [100]).verdict == HOLDS
    assert acc_live.protection_claim(bad(4500, 4000), [100]).verdict == HOLDS
    assert acc_live.protection_claim(bad(3000, 4000), [100]).verdict == FAILS


def test_base_rtt_is_propagation_delay_and_serialization():
    # 6 ms of propagation, 1046-byte data at 100, 100, 10 Mb/s, three 60-byte ACKs at 100 Mb/s.
    assert acc_live.base_rtt_ms(0) == pytest.approx(6 + (1046 * 8 * (2 / 100e6 + 1 / 10e6) + 60 * 8 * 3 / 100e6) * 1e3)
    assert acc_live.base_rtt_ms(100) - acc_live.base_rtt_ms(0) == pytest.approx(100)


def run(kbps: float, cpu: float, filters: int = 5, e1_share: float = 0.5) -> dict:
    return {
        "sum_kbps": kbps,
        "e1_kbps": kbps * e1_share,
        "e2_kbps": kbps * (1 - e1_share),
        "filters_set": filters,
        "controls_sent": filters,
        "cpu_us": {r: cpu for r in acc_live.ROUTERS},
    }


def runs_of(kbps: float, cpu: float, n: int = 6, **kw) -> list[dict]:
    """`n` runs near `kbps` and `cpu` (a little spread, so that intervals have a width);
    enough runs (at least the verdicts' minimum) for an interval to decide."""
    return [run(kbps * (1 + 0.002 * k), cpu * (1 + 0.002 * k), **kw) for k in range(n)]


def verdicts(on: list[dict], off: list[dict], delays=(0, 100)) -> list[str]:
    runs = {}
    for d in delays:
        runs[(d, True)] = on
        runs[(d, False)] = off
    rep = Report("acc-live", "t", Path("."))
    acc_live.verdict(rep, runs, list(delays))
    return [c.verdict for c in rep.claims]


def test_overhead_holds_when_throughput_and_cpu_are_within_tolerance():
    v = verdicts(runs_of(9650, 11.0), runs_of(9800, 10.0))
    assert v == [HOLDS, HOLDS, HOLDS, HOLDS]


def test_the_curves_coincide_unless_acc_changes_the_throughput_by_more_than_ten_percent():
    assert verdicts(runs_of(12000, 10.0), runs_of(9800, 10.0))[:2] == [HOLDS, FAILS]  # ACC gains 22%: no overhead, no overlap


def test_overhead_partly_or_not_when_either_or_both_exceed():
    assert verdicts(runs_of(8000, 11.0), runs_of(9800, 10.0))[0] == PARTLY  # 18% less throughput
    assert verdicts(runs_of(9800, 20.0), runs_of(9800, 10.0))[0] == PARTLY  # twice the CPU
    assert verdicts(runs_of(8000, 20.0), runs_of(9800, 10.0))[0] == FAILS


def test_acc_exercised_and_endpoint_fairness_claims():
    v = verdicts(runs_of(9800, 10.0, filters=0), runs_of(9800, 10.0, filters=0))
    assert v[2] == FAILS
    v = verdicts(runs_of(9800, 10.0, e1_share=0.2), runs_of(9800, 10.0, e1_share=0.2))
    assert v[3] == FAILS  # 0.25 smaller over larger


def test_acc_exercised_is_counted_per_run():
    assert acc_live.exercised_claim([run(9800, 10.0, filters=3)] * 2).verdict == HOLDS  # two runs are enough to count
    assert acc_live.exercised_claim([run(9800, 10.0, filters=3), run(9800, 10.0, filters=0)]).verdict == PARTLY
    c = acc_live.exercised_claim([run(9800, 10.0, filters=0)] * 3)
    assert c.verdict == FAILS and c.ours.startswith("0 of 3 runs")


def test_too_few_runs_decide_nothing():
    assert verdicts(runs_of(9650, 11.0, n=2), runs_of(9800, 10.0, n=2))[:2] == [INCONCLUSIVE, INCONCLUSIVE]


def test_the_report_is_made_end_to_end_with_twins_standing_in_for_live_runs(tmp_path, monkeypatch):
    # Each "live" run is its simulated twin (same scenario and seed), with a load average:
    # the report's every section, the protection verdict and the load line come out.
    def fake_live(d, acc, rep, duration, cache, warmup=0.0, misbehaving=False):
        m = acc_live.sim_run(d, acc, rep, duration, warmup, misbehaving)
        return m | {"cpu_us": {r: 10.0 for r in acc_live.ROUTERS}, "load_before": 0.5, "load_after": 0.75}

    monkeypatch.setattr(acc_live, "live_run", fake_live)
    monkeypatch.setattr(acc_live, "QUICK_DELAYS", [100])
    rep = acc_live.reproduce(acc_live.Options(out=tmp_path, quick=True))
    text = (tmp_path / "report.md").read_text()
    assert "Load average (1 min) around the live runs: 0.50 to 0.75" in text
    assert "measured after a 4 s warm-up" in text
    assert "does ACC protect the well-behaved flow?" in text
    claims = {c.text.split(" (")[0].split(":")[0]: c for c in rep.claims}
    assert "ACC protects the well-behaved flows" in claims
    assert claims["ACC was exercised"].verdict == HOLDS
    assert not (tmp_path / "view.html").exists(), "no interactive page for live runs"
