#!/usr/bin/env python3
"""Regression fixture: the results of every example scenario and of every simulation that
`ccsim reproduce all --quick` runs, kept in `tests/golden/` so that a change meant to leave
results alone (a refactor, a speed-up) is shown to do so, and a change meant to alter them
shows, in the fixture's diff, exactly what moved.

    python scripts/golden.py bless     # record the current results (after a deliberate change)
    python scripts/golden.py check     # compare (tests/test_golden.py does the same)

What is recorded:

- `tests/golden/scenarios/NAME.json`: the whole report of `scenarios/NAME.toml` (the JSON of
  `ccsim run --json` without its two wall-clock fields), readable in a diff.
- `tests/golden/reproduce.json`: for every run of `reproduce all --quick`, its inputs (the
  scenario text, by hash, the overrides and the seed) and the SHA-256 of its report. The check
  reruns each from these inputs, so it does not depend on how sweeps derive seeds or on the
  report code of the experiments.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
SCENARIOS = ROOT / "scenarios"


def report_json(text: str, origin: str, overrides: list[str], seed: int | None) -> str:
    """The report of one run, as the core writes it (no wall-clock fields)."""
    from ccsim._core import Simulation

    sim = Simulation(text, origin, overrides, seed, None)
    sim.run_until(float("inf"))
    return sim.report_json()


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def report_sha(report: str) -> str:
    """The hash of a report's content, whatever its key order and spacing."""
    return sha(json.dumps(json.loads(report), sort_keys=True, separators=(",", ":")))


def scenario_files() -> list[Path]:
    """The example scenarios that are runnable scenarios (not sweep definitions)."""
    out = []
    for p in sorted(SCENARIOS.glob("*.toml")):
        if "[grid]" in p.read_text() or p.stem.startswith("sweep"):
            continue
        out.append(p)
    return out


def scenario_report(path: Path) -> str:
    rel = path.relative_to(ROOT).as_posix()
    return json.dumps(json.loads(report_json(path.read_text(), rel, [], None)), indent=1, sort_keys=True) + "\n"


def _rerun(entry: tuple[str, list[str], int]) -> str:
    text, overrides, seed = entry
    return report_sha(report_json(text, "<golden>", overrides, seed))


def reproduce_runs() -> dict:
    """Runs `reproduce all --quick` and collects every run's inputs and report hash."""
    import polars as pl

    with tempfile.TemporaryDirectory(prefix="ccsim-golden-") as tmp:
        subprocess.run(
            [sys.executable, "-m", "ccsim", "reproduce", "all", "--quick", "--no-kernel", "--out", tmp],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        texts: dict[str, str] = {}
        runs = []
        for sweep_json in sorted(Path(tmp).rglob("sweep.json")):
            definition = json.loads(sweep_json.read_text())
            text = definition["scenario"]
            texts[sha(text)] = text
            point_overrides = definition["point_overrides"]
            df = pl.read_parquet(sweep_json.parent / "runs.parquet")
            for row in df.sort(["point", "replication"]).iter_rows(named=True):
                if row["status"] != "ok":
                    continue
                runs.append(
                    {
                        "sweep": sweep_json.parent.relative_to(tmp).as_posix(),
                        "scenario": sha(text),
                        "overrides": point_overrides[row["point"]],
                        "seed": row["seed"],
                        "report": report_sha(row["summary_json"]),
                    }
                )
    return {"texts": texts, "runs": runs}


def check_reproduce(fixture: dict, workers: int = 2) -> list[str]:
    """Reruns every recorded run; returns a line per run whose report differs."""
    entries = [(fixture["texts"][r["scenario"]], r["overrides"], r["seed"]) for r in fixture["runs"]]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        got = list(pool.map(_rerun, entries, chunksize=4))
    return [f"{r['sweep']} {r['overrides']} seed {r['seed']}" for r, h in zip(fixture["runs"], got) if h != r["report"]]


def bless() -> None:
    out = GOLDEN / "scenarios"
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.json"):
        old.unlink()
    for p in scenario_files():
        (out / f"{p.stem}.json").write_text(scenario_report(p))
        print(f"recorded {p.name}")
    fixture = reproduce_runs()
    (GOLDEN / "reproduce.json").write_text(json.dumps(fixture, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(fixture['runs'])} reproduce runs")


def check() -> int:
    bad = []
    for p in scenario_files():
        want = GOLDEN / "scenarios" / f"{p.stem}.json"
        if not want.exists() or want.read_text() != scenario_report(p):
            bad.append(f"scenarios/{p.name}")
    fixture = json.loads((GOLDEN / "reproduce.json").read_text())
    bad += check_reproduce(fixture)
    for b in bad:
        print(f"differs: {b}")
    print("golden: " + ("all results as recorded" if not bad else f"{len(bad)} results differ"))
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=["bless", "check"])
    args = ap.parse_args()
    if args.action == "bless":
        bless()
        return 0
    return check()


if __name__ == "__main__":
    sys.exit(main())
