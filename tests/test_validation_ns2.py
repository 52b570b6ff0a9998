"""The short subset of the ns-2 cross-validation (scripts/validate_ns2.py --quick): ccsim
under the ns2 profile beside ns-2.35 on the same scenarios. Skipped without ns-2."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (`ns`, Debian's ns2 package) is not installed")


def test_the_quick_subset_agrees_with_ns2_where_the_acceptance_limits_apply(tmp_path):
    out = tmp_path / "v.md"
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "validate_ns2.py"), "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.exists(), run.stderr
    rows = [line.split(" | ") for line in out.read_text().splitlines() if line.startswith("| ") and not line.startswith("| case")]
    assert rows, "no table rows"
    checked = 0
    for cells in rows:
        metric, limit, mark = cells[1], cells[-2], cells[-1]
        # The acceptance limits (marked *) and every goodput row must hold, or be
        # within run-to-run variation (a row with a cause other than noise is a failure here).
        if limit.endswith("*") or metric.startswith("goodput"):
            checked += 1
            if "✗" in mark:
                note = mark.split("(")[1].split(")")[0]
                text = out.read_text()
                assert f"\n{note}. within run-to-run variation" in text, f"{cells[0]}: {metric} differs from ns-2: {' | '.join(cells)}"
    assert checked >= 5
