"""The "against today's baselines" sections: verdicts of our own, from paired replications,
that can come out every way (synthetic numbers), and a section that renders them apart from
the paper's verdict table."""

from __future__ import annotations

from ccsim.experiments import today
from ccsim.experiments import verdicts as v
from ccsim.experiments.report import Report


def data(a: list[float], b: list[float]) -> today.Data:
    d = today.Data(["S1"], [today.Contender("A", {}), today.Contender("B", {})], reps=len(a))
    d.runs[("S1", "A")] = {r: {"x": x} for r, x in enumerate(a)}
    d.runs[("S1", "B")] = {r: {"x": x} for r, x in enumerate(b)}
    return d


def outcome(a, b, test=v.less, relative=True) -> str:
    (claim,) = today.decide(data(a, b), [today.Comparison("A below B", "A", "B", "x", test, relative)])
    assert claim.paper == "ours (not in the paper)"
    return claim.verdict


def test_our_verdicts_can_come_out_every_way():
    base = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0]
    assert outcome([x - 2 for x in base], base) == v.HOLDS
    assert outcome([x + 2 for x in base], base) == v.FAILS
    assert outcome([x + (1 if i % 2 else -1) for i, x in enumerate(base)], base) == v.INCONCLUSIVE
    assert outcome(base[:3], [x + 1 for x in base[:3]]) == v.INCONCLUSIVE, "three runs decide nothing"
    assert outcome([x + 0.5 for x in base], base, v.greater, relative=False) == v.HOLDS
    # The pairing matters: a shift far smaller than the spread between replications decides.
    assert outcome([x - 0.01 for x in base], base) == v.HOLDS


def test_two_cases_one_each_way_partly_hold():
    d = data([1.0] * 6, [2.0] * 6)
    d.cases.append("S2")
    d.runs[("S2", "A")] = {r: {"x": 3.0 + 0.1 * r} for r in range(6)}
    d.runs[("S2", "B")] = {r: {"x": 2.0 + 0.1 * r} for r in range(6)}
    (claim,) = today.decide(d, [today.Comparison("A below B", "A", "B", "x", v.less)])
    assert claim.verdict == v.PARTLY


def test_the_section_keeps_our_claims_out_of_the_papers_verdict_table(tmp_path):
    rep = Report("p", "title", tmp_path)
    d = data([1.0 + 0.1 * r for r in range(6)], [2.0 + 0.1 * r for r in range(6)])
    claims = today.section(
        rep, d, [today.Measure("x", "x (units)")], [today.Comparison("A below B", "A", "B", "x", v.less)], "intro", "case"
    )
    assert [c.verdict for c in claims] == [v.HOLDS] and rep.claims == []
    md = rep.markdown()
    assert "our comparison, not the paper's" in md and "| A below B | holds |" in md
    assert (tmp_path / "today.png").exists()
