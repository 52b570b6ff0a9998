"""The paper reproductions: scenario files agree with the experiment builders, and the quick
reproductions run end to end and write their reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomllib

from ccsim.experiments import Options, acc, ackspoof, das, reproduce, rtred

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def load(name: str) -> dict:
    return tomllib.loads((SCENARIOS / name).read_text())


@pytest.mark.parametrize("s", ["S1", "S2", "S3"])
def test_rtred_files_match_the_builder(s):
    assert load(f"rtred_{s.lower()}.toml") == rtred.scenario(s, "RTRED")


def test_das_files_match_the_builders():
    assert load("das_fig2.toml") == das.fig2()
    assert load("das_sharp.toml") == das.sharp()


def test_acc_file_matches_the_builder():
    assert load("acc_dumbbell.toml") == acc.dumbbell(100, "acc")


def test_acc_builder_modes():
    q = lambda mode, floor=None: acc.dumbbell(50, mode, floor)["links"][2]["queue"]  # noqa: E731
    assert q("droptail") == {"limit": 50}
    assert q("red")["discipline"] == "red" and "acc" not in q("red") and "signal" not in q("red")
    assert q("red+ecn")["signal"] == "ecn" and acc.dumbbell(50, "red+ecn")["flows"][0]["tcp"]["ecn"] is True
    assert q("acc", 300)["acc_rtt_floor"] == "300ms" and acc.dumbbell(50, "acc")["flows"][0]["tcp"]["acc"] is True
    assert acc.dumbbell(50, "red")["links"][2]["delay"] == "50ms"
    with pytest.raises(ValueError):
        acc.dumbbell(50, "red", 300)


def test_ackspoof_files_match_the_builders():
    assert load("ackspoof_net1.toml") == ackspoof.network1()
    assert load("ackspoof_net2.toml") == ackspoof.network2()


def test_ackspoof_builders_follow_table_1():
    net = ackspoof.network1("RED/ECN", 40, jitter=False)
    assert net["links"][0]["queue"] == {"discipline": "red", "limit": 40, "min_th": 5, "max_th": 30, "max_p": 0.10, "signal": "ecn"}
    assert all(f["tcp"]["ecn"] and "jitter" not in f for f in net["flows"])
    assert ackspoof.network1("Tail Drop", 200)["links"][0]["queue"] == {"limit": 200}
    assert ackspoof.network1(max_p=0.03)["links"][0]["queue"]["max_p"] == 0.03
    assert ackspoof.network2("RED")["links"][0]["queue"]["signal"] == "drop"


@pytest.mark.parametrize("args", [("Tail Drop", 40, None, False), ("RED/ECN", 200, 0.03, True), ("RED", 90, None, True)])
def test_ackspoof_sweep_points_give_the_builders_scenarios(args):
    import ccsim
    from ccsim.sweeps import override_string

    def short(d: dict) -> dict:
        return dict(d, duration="2s", warmup="1s", name="x")

    point = [override_string(k, v) for k, v in ackspoof.point(*args).items() if k != "name"]
    a = ccsim.run(short(ackspoof.network1()), overrides=point).summary
    b = ccsim.run(short(ackspoof.network1(*args))).summary
    for key in ("flows", "queues", "spoofers", "events_processed"):
        assert a[key] == b[key]


@pytest.mark.parametrize("paper", ["rtred", "das", "ackspoof", "acc"])
def test_quick_reproduction_writes_a_report_with_verdicts(paper, tmp_path):
    rep, _ = reproduce(paper, Options(out=tmp_path, quick=True, workers=2, progress=False))
    md = (tmp_path / "report.md").read_text()
    assert rep.title in md and "Verdicts" in md and "Assumed values" in md
    html = (tmp_path / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "data:image/png;base64," in html
    assert rep.claims and all(c.verdict in ("holds", "does not hold", "partly holds") for c in rep.claims)
    for fig in rep.figures:
        assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if paper == "rtred":
        table = json.loads((tmp_path / "summary.json").read_text())["table_ii"]
        assert set(table) == {f"{s}/{st}" for s in rtred.SCENARIOS for st in rtred.STRATEGIES}
        assert table["S1/RED"]["paper"]["lost"] == 710
        assert table["S2/RTRED"]["lost"]["n"] == 3
    if paper == "acc":
        assert len(rep.claims) >= 5 and len(rep.figures) == 3
        fig4 = json.loads((tmp_path / "summary.json").read_text())["fig4"]
        assert set(fig4) == {str(d) for d in acc.QUICK_DELAYS}
        for entry in fig4.values():
            assert set(acc.CURVES) <= set(entry)
            assert all(entry[c]["kbps"]["n"] == 2 and entry[c]["kbps"]["mean"] > 0 for c in acc.CURVES)
    if paper == "ackspoof":
        summary = json.loads((tmp_path / "summary.json").read_text())
        assert set(summary["fig4"]) == set(ackspoof.AQMS)
        assert set(summary["fig4"]["RED"]) == {"40", "120", "200"}
        assert summary["fig4"]["RED/Spoofing"]["120"]["loss_rate"]["n"] == 3
        assert summary["fig4"]["RED/Spoofing"]["120"]["spoofs_per_s"]["mean"] > 0
        assert summary["fig4"]["Tail Drop"]["120"]["spoofs_per_s"]["mean"] == 0
        assert {f.name for f in rep.figures} == {"fig4.png", "fig4_nojitter.png", "fig5.png", "fig6.png", "fig8.png"}
        assert len(rep.claims) >= 10
