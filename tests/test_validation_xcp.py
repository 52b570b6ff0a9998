"""The short subset of XCP's validation (scripts/validate_xcp.py --quick): ccsim's XCP beside
ns-2.35's own on a dumbbell where flows join, and XCP's and RCP's physics. Skipped without
ns-2 (the physics alone also runs in crates/ccsim/tests/validation_xcp.rs)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (`ns`, Debian's ns2 package) is not installed")


def test_the_quick_subset_agrees_with_ns2_and_the_physics_holds(tmp_path):
    out = tmp_path / "v.md"
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "validate_xcp.py"), "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.exists(), run.stderr
    rows = [line.split(" | ") for line in out.read_text().splitlines() if line.startswith("| ") and not line.startswith("| case")]
    assert sum(r[0].startswith("| XCP, 3 flows") for r in rows) >= 5, rows
    failed = [" | ".join(r) for r in rows if r[4] == "no" and not r[5].strip(" |")]
    assert not failed, failed
    assert run.returncode == 0, run.stdout + run.stderr
