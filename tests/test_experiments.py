"""The paper reproductions: scenario files agree with the experiment builders, the quick
reproductions run end to end and write reports that read at a glance, and every paper's
claims can hold and fail on synthetic numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomllib

from ccsim.experiments import Options, acc, ackspoof, das, reproduce, rtred
from ccsim.experiments import verdicts as v

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def load(name: str) -> dict:
    """A paper's scenario file, without its profile: the files say `profile = "ns2"` (the
    papers simulated in ns-2), the reproductions set the profile of each run themselves."""
    scenario = tomllib.loads((SCENARIOS / name).read_text())
    assert scenario.pop("profile") == "ns2", name
    return scenario


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
    assert net["links"][0]["queue"] == {
        "discipline": "red",
        "limit": 40,
        "min_th": 5,
        "max_th": 30,
        "max_p": 0.10,
        "w_q": 0.002,
        "byte_mode": False,
        "signal": "ecn",
    }
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


@pytest.mark.slow
@pytest.mark.parametrize("paper", ["rtred", "das", "ackspoof", "acc"])
def test_quick_reproduction_writes_a_report_with_verdicts(paper, tmp_path):
    # Without the kernel runs (tests/test_experiments.py's kernel test runs them apart).
    rep, _ = reproduce(paper, Options(out=tmp_path, quick=True, workers=2, progress=False, kernel=False))
    md = (tmp_path / "report.md").read_text()
    assert rep.title in md and "Assumed values" in md and "docs/scenarios.md" in md
    if paper in ("ackspoof", "rtred"):
        assert "Against a real stack" in md and "Skipped: kernel runs were turned off" in md
    # At a glance: citation, profile, the verdict table first, the too-few-runs mark.
    head = md[: md.index("## Verdicts")]
    assert rep.citation and rep.citation in head and "**Profile: ns2**" in head and "Mode: quick" in head
    assert md.index("## Verdicts") < min(md.index(f"## {h}") for h in ("Assumed values", "How each verdict was reached"))
    assert "| claim of the paper | verdict | ours | paper |" in md
    assert "shared/" not in md and "SCENARIOS.md" not in md
    html = (tmp_path / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "data:image/png;base64," in html and "<h2>Verdicts</h2>" in html
    assert rep.claims and all(c.verdict in v.OUTCOMES and c.ours and c.profile == "ns2" for c in rep.claims)
    for fig in rep.figures:
        assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Every report compares the paper's mechanism with today's baselines, our claims apart.
    assert "Against today's baselines (our comparison, not the paper's)" in md and "our claims, not the paper's" in md
    assert "today.png" in {f.name for f in rep.figures}
    assert not any("(not in the paper)" in c.paper for c in rep.claims)
    if paper == "rtred":
        summary = json.loads((tmp_path / "summary.json").read_text())
        assert summary["profile"] == "ns2" and set(summary["profiles"]) == {"ns2", "rfc"}
        table = summary["profiles"]["ns2"]["table_ii"]
        assert set(table) == {f"{s}/{st}" for s in rtred.SCENARIOS for st in rtred.STRATEGIES}
        assert table["S1/RED"]["paper"]["lost"] == 710
        assert table["S2/RTRED"]["lost"]["n"] == 5
        assert {f.name for f in rep.figures} >= {"table_ii.png", "drop_areas.png", "series_s1.png"}
    if paper == "das":
        assert "Fig. 6(c)" in md and "pseudocode" in md
        assert "decrement the TTL at every router hop" in md
        up_to = next(c for c in rep.claims if "up to 30.4%" in c.text)
        assert up_to.verdict == v.FAILS and up_to.ours.startswith("at most ")  # the label follows the number beside it
    if paper == "acc":
        assert "go-back-N" in md
        assert len(rep.claims) >= 10 and len(rep.figures) == 4
        fig4 = json.loads((tmp_path / "summary.json").read_text())["profiles"]["ns2"]["fig4"]
        assert set(fig4) == {str(d) for d in acc.QUICK_DELAYS}
        for entry in fig4.values():
            assert all(entry[c]["kbps"]["n"] == 5 and entry[c]["kbps"]["mean"] > 0 for c in acc.CURVES)
    if paper == "ackspoof":
        assert "CSIM18" in md and v.FEW in md and "too few runs" in md
        summary = json.loads((tmp_path / "summary.json").read_text())["profiles"]["ns2"]
        assert set(summary["fig4"]) == set(ackspoof.AQMS)
        assert set(summary["fig4"]["RED"]) == {"40", "120", "200"}
        assert summary["fig4"]["RED/Spoofing"]["120"]["loss_rate"]["n"] == 3
        assert summary["fig4"]["RED/Spoofing"]["120"]["spoofs_per_s"]["mean"] > 0
        assert summary["fig4"]["Tail Drop"]["120"]["spoofs_per_s"]["mean"] == 0
        assert {f.name for f in rep.figures} == {"fig4.png", "fig4_nojitter.png", "fig5.png", "fig6.png", "fig8.png", "today.png"}
        assert len(rep.claims) >= 10
        # Three runs decide nothing: every sampled claim is inconclusive in quick mode.
        assert all(c.verdict == v.INCONCLUSIVE for c in rep.claims)


@pytest.mark.parametrize("paper", [rtred, das, ackspoof, acc], ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_reports_cite_a_section_of_docs_scenarios(paper):
    doc = (SCENARIOS.parent / "docs" / "scenarios.md").read_text()
    assert f"\n## {paper.SECTION}\n" in doc
    assert paper.CITATION and paper.SIMULATOR


@pytest.mark.slow
def test_cli_reproduce_prints_the_verdict_table(tmp_path):
    from conftest import ccsim_cli

    p = ccsim_cli("reproduce", "acc", "--quick", "--quiet", "--out", tmp_path)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert out.splitlines()[0].split() == ["paper", "claim", "of", "the", "paper", "verdict", "ours", "paper's"]
    assert "ACC/TCP gives more throughput than TCP with" in out and "profile ns2" in out
    assert f"report: {tmp_path / 'acc' / 'report.md'}" in out


# ---- the claims on synthetic numbers: each can hold and fail, and its label follows them ----


def reps(values, noise=0.01):
    """{replication: value} for ten replications around each value (deterministic spread)."""
    return {r: values * (1 + noise * ((r % 5) - 2)) for r in range(10)}


def outcome(claims, fragment):
    return next(c for c in claims if fragment in c.text).verdict


def test_rtred_claims_can_hold_and_fail():
    def per(factor):
        out = {}
        for s in rtred.SCENARIOS:
            for st in rtred.STRATEGIES:
                f = factor if st == "RTRED" else 1.0
                out[f"{s}/{st}"] = {
                    r: {"lost": 700 * f * (1 + 0.01 * (r % 3)), "avg_queue": 20 / f, "propagated": 18000 * f, "unfair_timeout": 100 * f + r}
                    for r in range(10)
                }
        return out

    good, bad = rtred.claims(per(0.9), "ns2"), rtred.claims(per(1.1), "ns2")
    for fragment in ("fewer packets than RED", "higher average queue", "propagate fewer", "unfair and timeout"):
        assert outcome(good, fragment) == v.HOLDS
        assert outcome(bad, fragment) == v.FAILS


def test_das_claims_can_hold_and_fail():
    def runs(top):
        out = {}
        for k in range(10):
            base = 15000.0
            out[(False, k)] = {"kbps": base, "false_fast_retransmits": 1}
            out[(True, k)] = {"kbps": base * (1 + top / 100 * (k == 3)), "false_fast_retransmits": 0}
        return out

    assert outcome(das.fig2_claims(runs(30.0), "ns2"), "up to 30.4%") == v.HOLDS
    assert outcome(das.fig2_claims(runs(6.4), "ns2"), "up to 30.4%") == v.FAILS
    assert outcome(das.fig2_claims(runs(6.4), "ns2"), "false fast retransmits") == v.HOLDS

    def good(gain):
        return {(n, d): reps(1e6 * (1 + (gain / n if d else 0))) for n in (1, 10) for d in (False, True)}

    assert outcome(das.sharp_claims(good(0.1), "ns2"), "every n") == v.HOLDS
    assert outcome(das.sharp_claims(good(0.1), "ns2"), "decreases") == v.HOLDS
    assert outcome(das.sharp_claims(good(-0.1), "ns2"), "every n") == v.FAILS
    assert outcome(das.sharp_claims(good(-0.1), "ns2"), "decreases") == v.FAILS


def test_acc_claims_can_hold_and_fail():
    delays = [10, 100, 800]

    def per(acc_gain_low, acc_gain_high, floor_low):
        out = {}
        for d in delays:
            for c in acc.CURVES:
                k = 400.0 - 0.25 * d
                if c == "acc":
                    k *= 1 + (acc_gain_low if d < 140 else acc_gain_high)
                if c == "acc+floor":
                    k *= 1 + (floor_low if d < 140 else acc_gain_high)
                out[(d, c)] = {
                    r: {"kbps": x, "closes_per_s": 0.1, "close_segments": 5.0, "rtt_ms": 2 * (20 + d)} for r, x in reps(k).items()
                }
        return out

    paper_like = acc.claims(per(-0.1, 0.2, 0.0), delays, "ns2")
    assert outcome(paper_like, "about 20%") == v.HOLDS
    assert outcome(paper_like, "worse than TCP at low") == v.HOLDS
    assert outcome(paper_like, "RTT floor") == v.HOLDS
    ours_like = acc.claims(per(0.06, 0.02, 0.0), delays, "ns2")
    assert outcome(ours_like, "about 20%") == v.FAILS
    assert outcome(ours_like, "worse than TCP at low") == v.FAILS
    floor = next(c for c in ours_like if "RTT floor" in c.text)
    assert floor.verdict == v.FAILS and "ACC vs RED" in floor.ours  # no low-RTT penalty to remove, and it says so


def test_ackspoof_claims_can_hold_and_fail():
    buffers, max_ps = [40, 120], [0.01, 0.05, 0.10]

    def data(spoof_loss, ratio):
        fig4 = {}
        for a in ackspoof.AQMS:
            for b in buffers:
                loss = {"Tail Drop": 150.0, "RED": 100.0, "RED/ECN": 10.0, "RED/Spoofing": spoof_loss}[a]
                queue = {"Tail Drop": 60.0, "RED": 40.0, "RED/ECN": 15.0, "RED/Spoofing": 16.0}[a]
                fig4[(a, b)] = {r: {"loss_rate": x, "avg_queue": queue, "goodput": 93.0} for r, x in reps(loss).items()}
        sens = {
            (a, p): {r: {"loss_rate": 1.0, "avg_queue": 20.0, "goodput": 90.0 + (p == 0.05)} for r in range(10)}
            for a in ("RED/ECN", "RED/Spoofing")
            for p in max_ps
        }
        stab = {
            a: {
                r: {
                    "stability": 0.1 if "/" in a else 0.2,
                    "convergence": 1.0 if "/" in a else 0.5,
                    "window_ratio": ratio * (1 + 0.01 * (r % 3)),
                }
                for r in range(10)
            }
            for a in ackspoof.AQMS
        }
        return fig4, sens, stab

    good = ackspoof.claims(*data(11.0, 3.4), buffers, max_ps, "ns2")
    bad = ackspoof.claims(*data(90.0, 1.6), buffers, max_ps, "ns2")
    for fragment in ("at least 30% fewer packets", "close to RED/ECN's", "3.5 times"):
        assert outcome(good, fragment) == v.HOLDS, fragment
        assert outcome(bad, fragment) == v.FAILS, fragment
    assert outcome(good, "optimal max_p area") == v.HOLDS
    assert outcome(good, "more stably") == v.HOLDS
    assert outcome(good, "converge to the fair share") == v.HOLDS


def kernel_data(case: str, values: dict[str, dict[str, float]]) -> dict:
    """Kernel runs' metrics of several configurations in one case, ten replications each
    around the values given."""
    return {"errors": []} | {
        (case, label): {r: {k: x * (1 + 0.01 * ((r % 5) - 2)) for k, x in m.items()} for r in range(10)} for label, m in values.items()
    }


def test_the_kernel_questions_can_hold_and_fail():
    def spoof(queue_ratio, loss, no_sack_queue=35.0):
        return kernel_data(
            "Network 1",
            {
                "RED": {"avg_queue": 80.0, "loss_rate": 100.0, "goodput": 19.0, "flows_failed": 0.0},
                "RED/ECN": {"avg_queue": 35.0, "loss_rate": 50.0, "goodput": 19.0},
                "RED/Spoofing": {
                    "avg_queue": 35.0 * queue_ratio,
                    "loss_rate": loss,
                    "goodput": 19.0 * queue_ratio**0.1,
                    "flows_failed": 10.0 * (queue_ratio > 2),
                },
                ackspoof.KERNEL_NO_SACK: {"avg_queue": no_sack_queue, "loss_rate": loss, "goodput": 19.0},
            },
        )

    good, bad = ackspoof.kernel_claims(spoof(1.1, 40.0), True), ackspoof.kernel_claims(spoof(3.0, 95.0), True)
    for fragment in ("as ECN marks do", "at least 30% fewer", "within 5% of RED's", "every flow connects"):
        assert outcome(good, fragment) == v.HOLDS, fragment
        assert outcome(bad, fragment) == v.FAILS, fragment
    assert outcome(bad, "Without SACK") == v.HOLDS and outcome(good, "Without SACK") == v.HOLDS
    assert outcome(ackspoof.kernel_claims(spoof(3.0, 95.0, 200.0), True), "Without SACK") == v.FAILS
    assert len(ackspoof.kernel_claims(spoof(1.1, 40.0), False)) == 4

    def red(lost, queue):
        return kernel_data("S1", {"RED": {"lost": 100.0, "avg_queue": 20.0}, "RTRED": {"lost": lost, "avg_queue": queue}})

    good, bad = rtred.kernel_claims(red(80.0, 24.0), ["S1"]), rtred.kernel_claims(red(120.0, 16.0), ["S1"])
    for fragment in ("loses fewer packets", "higher average queue"):
        assert outcome(good, fragment) == v.HOLDS and outcome(bad, fragment) == v.FAILS, fragment


def test_a_kernel_section_says_why_it_was_skipped(tmp_path, monkeypatch):
    from ccsim import kernel
    from ccsim.commands import reproduce as command
    from ccsim.experiments.report import Report

    monkeypatch.setattr(kernel, "unavailable", lambda: "no /dev/net/tun")
    for paper in (ackspoof, rtred):
        rep = Report("x", "x", tmp_path)
        paper.kernel_section(rep, Options(out=tmp_path, quick=True))
        assert "Skipped: kernel runs are not available on this machine: no /dev/net/tun" in rep.markdown()
    import argparse

    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    assert parser.parse_args(["reproduce", "rtred", "--no-kernel"]).kernel is False
    assert parser.parse_args(["reproduce", "rtred"]).kernel is True


@pytest.mark.slow
@pytest.mark.skipif(__import__("ccsim.kernel").kernel.unavailable() is not None, reason="kernel runs unavailable")
def test_the_kernel_sections_run_paired_kernel_runs(tmp_path, monkeypatch):
    from ccsim.experiments.report import Report

    monkeypatch.setattr(ackspoof, "KERNEL_QUICK", (2, 4.0, 1.0))
    monkeypatch.setattr(rtred, "KERNEL_QUICK", (["S1"], 2, 5.0))
    rep = Report("x", "x", tmp_path)
    opt = Options(out=tmp_path, quick=True)
    ackspoof.kernel_section(rep, opt)
    rtred.kernel_section(rep, opt)
    md = rep.markdown()
    assert "Failed runs" not in md, md
    assert "| Network 1 | RED/Spoofing | 2 |" in md and "| S1 | RTRED | 2 |" in md
    rows = [json.loads(x) for x in (tmp_path / "kernel" / "runs.jsonl").read_text().splitlines()]
    assert len(rows) == 2 * 3 + 2 * 2 and all("error" not in r for r in rows)
    spoof = [r for r in rows if r.get("spoofs_per_s")]
    assert len(spoof) == 2 and all(r["marks_per_s"] == 0 for r in spoof)
    # Two runs per configuration decide nothing.
    assert md.count("inconclusive (too few runs)") == 6
    # A rerun into the same folder reuses the runs.
    again = Report("x", "x", tmp_path)
    ackspoof.kernel_section(again, opt)
    assert len((tmp_path / "kernel" / "runs.jsonl").read_text().splitlines()) == len(rows)


def test_one_colour_per_system_in_every_figure_of_a_paper():
    """ACC's "TCP, RED" is the same orange in Figs. 4 and 5 and in today.png ("Reno, RED")."""
    per = {(d, c): {0: {"kbps": 1.0, "rtt_ms": 50.0 + d}} for d in (10, 100) for c in acc.CURVES}
    for curves in (["red", "acc", "acc+floor"], ["droptail", "red", "red+ecn", "acc"], ["red", "acc"]):
        panel = acc.curve_panel(per, [10, 100], curves, "kbps", "y")
        assert [s.color for s in panel.series] == [acc.COLOURS[c] for c in curves]
    today = {c.name: c.color for c in acc.TODAY}
    assert today["Reno, RED"] == acc.COLOURS["red"] and today["ACC (Reno, RED)"] == acc.COLOURS["acc"]
    assert {c.name: c.color for c in rtred.TODAY}["RED"] == rtred.COLOURS["RED"]
    assert {c.name: c.color for c in das.today_contenders()} == {k: das.COLOURS[k] for k in das.COLOURS}
    for paper in (acc, rtred, das, ackspoof):
        assert len(set(paper.COLOURS.values())) == len(paper.COLOURS), paper.__name__  # distinct systems, distinct colours


def test_too_few_runs_is_told_apart_from_an_interval_that_straddles():
    from ccsim.experiments.report import INCONCLUSIVE, LEGEND, Claim, verdict_rows

    few = Claim("a", INCONCLUSIVE, "3.0 [1.0, 5.0] †", profile="ns2")
    straddles = Claim("b", INCONCLUSIVE, "3.0 [-1.0, 5.0]", profile="ns2")
    held = Claim("c", v.HOLDS, "3.0 [2.0, 4.0]", profile="ns2", other=Claim("c", INCONCLUSIVE, "1 [0, 2] †", profile="rfc"))
    rows = verdict_rows([few, straddles, held])
    assert [r[1] for r in rows] == ["inconclusive (too few runs)", "inconclusive", "holds (ns2)", "inconclusive (too few runs; rfc)"]
    assert "inconclusive (too few runs)" in LEGEND


def test_the_quick_start_folder_is_ignored_by_git():
    import shutil
    import subprocess

    from conftest import ROOT

    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    r = subprocess.run(["git", "check-ignore", "-q", "ccsim-results/report.html"], cwd=ROOT)
    assert r.returncode == 0, "ccsim-results/ (the README's quick start) is not in .gitignore"


def test_l4s_stands_against_rtred_and_red_spoofing_today():
    """RTRED's and ACK spoofing's sections against today's baselines run DualPI2 (marking) with
    every sender TCP Prague, on the case's buffer, and their verdicts are decided by the
    runs: the same comparison fails when the numbers go the other way."""
    l4s = next(c for c in rtred.TODAY if c.name == "DualPI2/Prague")
    over = l4s.at("S2")
    assert over["links.1.queue"] == {"discipline": "dualpi2", "limit": rtred.SCENARIOS["S2"][4], "signal": "ecn"}
    assert over["flows.tcp.tcp"]["variant"] == "prague"
    l4s = next(c for c in ackspoof.today_contenders() if c.name == "DualPI2/Prague")
    over = l4s.at("B=60")
    assert over["links.0.queue"] == {"discipline": "dualpi2", "limit": 60, "signal": "ecn"} and over["flows.*.tcp"]["variant"] == "prague"
    from ccsim.experiments import today

    shorter = today.Comparison("DualPI2/Prague keeps a shorter queueing delay than RTRED", "DualPI2/Prague", "RTRED", "delay_ms", v.less)
    d = today.Data(["S1"], [today.Contender("DualPI2/Prague", {}), today.Contender("RTRED", {})], reps=5)
    for mine, theirs, outcome in ((5.0, 50.0, v.HOLDS), (50.0, 5.0, v.FAILS)):
        d.runs = {("S1", "DualPI2/Prague"): {r: {"delay_ms": mine + 0.1 * r} for r in range(5)}}
        d.runs[("S1", "RTRED")] = {r: {"delay_ms": theirs + 0.2 * r} for r in range(5)}
        (claim,) = today.decide(d, [shorter])
        assert claim.verdict == outcome, claim


def test_a_failed_kernel_run_is_reported_and_not_cached(tmp_path, monkeypatch):
    from ccsim import kernel
    from ccsim.experiments import kernel_runs

    calls = []

    def fail(path):
        calls.append(path)
        raise kernel.KernelError("the router died (exit -9)")

    monkeypatch.setattr(kernel, "run", fail)
    configs = {"S1": [kernel_runs.Config("RED", lambda seed: rtred.kernel_scenario("S1", "RED", seed, 5.0))]}
    data = kernel_runs.run(Options(out=tmp_path), configs, 2, rtred.kernel_metrics)
    assert data == {"errors": ["S1 RED run 0: the router died (exit -9)", "S1 RED run 1: the router died (exit -9)"]}
    assert not (tmp_path / "kernel" / "runs.jsonl").exists()
    kernel_runs.run(Options(out=tmp_path), configs, 2, rtred.kernel_metrics)
    assert len(calls) == 4
