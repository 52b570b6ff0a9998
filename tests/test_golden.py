"""Results are as recorded in `tests/golden/` (see `scripts/golden.py`): every example
scenario's whole report, and every simulation of `reproduce all --quick` rerun from its
recorded inputs. A deliberate change of results re-records them with
`python scripts/golden.py bless` and says why in its commit."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("golden", ROOT / "scripts" / "golden.py")
golden = importlib.util.module_from_spec(_spec)
sys.modules["golden"] = golden  # the rerun pool's workers find its functions by this name
_spec.loader.exec_module(golden)


@pytest.mark.parametrize("path", golden.scenario_files(), ids=lambda p: p.stem)
def test_example_scenario_report_is_as_recorded(path):
    want = (golden.GOLDEN / "scenarios" / f"{path.stem}.json").read_text()
    got = golden.scenario_report(path)
    if got != want:
        w, g = json.loads(want), json.loads(got)
        changed = sorted(k for k in set(w) | set(g) if w.get(k) != g.get(k))
        pytest.fail(
            f"{path.name}: report differs from tests/golden (top-level fields {changed}); rerun `python scripts/golden.py bless` only if the change is meant"
        )


@pytest.mark.slow
def test_reproduce_quick_runs_are_as_recorded():
    fixture = json.loads((golden.GOLDEN / "reproduce.json").read_text())
    assert len(fixture["runs"]) > 100
    bad = golden.check_reproduce(fixture)
    assert not bad, f"{len(bad)} of {len(fixture['runs'])} runs differ, e.g. {bad[:3]}"
