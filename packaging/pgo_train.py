"""The training set of the profile-guided build (pgo.py): runs that an instrumented core
counts, so that the optimiser knows which code is hot. It should spend its time where
users' runs do, and touch every mechanism once, because code a profile never saw is
optimised for size: the canonical scenarios (the four papers' mechanisms), the dumbbell
under each queue discipline and TCP variant, with a capture and a packet log, and
DUMBBELL-N from 10 to 100,000 flows (from 24 MiB of state on, runs warm ahead, which only
the two largest exercise). About 6 s instrumented.

Usage: python pgo_train.py SOURCE_ROOT, with the instrumented package first on PYTHONPATH."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from ccsim import _core
from ccsim._scenario import to_toml
from ccsim.bench import dumbbell

# On scenarios/dumbbell.toml (10 flows, 10 Mb/s): (what is varied, overrides).
VARIANTS = [
    ("reno", ["flows.bulk.tcp.variant=reno"]),
    ("cubic", ["flows.bulk.tcp.variant=cubic"]),
    ("sack", ["flows.bulk.tcp.sack=true"]),
    ("dctcp", ["flows.bulk.tcp.variant=dctcp", 'links[1].queue={ discipline = "step", k = 20, signal = "ecn" }']),
    ("red", ['links[1].queue={ discipline = "red", min_th = 20, max_th = 60 }']),
    ("ared", ['links[1].queue={ discipline = "ared", min_th = 20, max_th = 60 }']),
    ("pie", ['links[1].queue={ discipline = "pie" }']),
    ("codel", ['links[1].queue={ discipline = "codel" }']),
    ("fq_codel", ['links[1].queue={ discipline = "fq_codel" }']),
    ("loss", ["links[0].loss=0.001"]),
]

# (flows, seconds simulated, bottleneck Mb/s)
DUMBBELLS = [(10, 60, 100), (100, 60, 100), (1000, 10, 100), (10000, 1, 1000), (100000, 0.5, 10000)]


def run(text: str, origin: str, overrides: list[str], out: str | None = None, report: bool = True) -> None:
    sim = _core.Simulation(text, origin, overrides, None, out)
    sim.run_until(float("inf"))
    if report:
        sim.report_json()
    if out is not None:
        sim.finish_traces()
        sim.packet_log()


def main() -> None:
    root = Path(sys.argv[1])
    scenarios = sorted((root / "scenarios").glob("*.toml"))
    for path in scenarios:
        text = path.read_text()
        try:
            _core.describe(text, str(path))
        except _core.ScenarioError:
            continue  # a sweep's file, not a scenario
        run(text, str(path), [])
    base = root / "scenarios" / "dumbbell.toml"
    if base.exists():
        text = base.read_text()
        short = ["duration=10s", "warmup=2s"]
        for _, overrides in VARIANTS:
            run(text, str(base), short + overrides)
        with tempfile.TemporaryDirectory() as out:
            capture = ['pcap+={ file = "t.pcap", links = ["R1->R2"] }', "packet_log.enabled=true"]
            run(text, str(base), short + capture, out=out)
    for n, seconds, mbps in DUMBBELLS:
        run(to_toml(dumbbell(n, seconds, 1, bottleneck_mbps=mbps)), f"dumbbell-{n}", [], report=n <= 1000)


if __name__ == "__main__":
    main()
