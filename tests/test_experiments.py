"""The paper reproductions: scenario files agree with the experiment builders, and the quick
reproductions run end to end and write their reports."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from ccsim.experiments import Options, das, reproduce, rtred

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def load(name: str) -> dict:
    return tomllib.loads((SCENARIOS / name).read_text())


@pytest.mark.parametrize("s", ["S1", "S2", "S3"])
def test_rtred_files_match_the_builder(s):
    assert load(f"rtred_{s.lower()}.toml") == rtred.scenario(s, "RTRED")


def test_das_files_match_the_builders():
    assert load("das_fig2.toml") == das.fig2()
    assert load("das_sharp.toml") == das.sharp()


@pytest.mark.parametrize("paper", ["rtred", "das"])
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
