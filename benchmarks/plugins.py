"""The cost of a plug-in written in Python (docs/plugins.md, "What it costs"): DUMBBELL-N under
the RFCs' defaults (`ccsim bench dumbbell N --rfc`'s scenario) with NewReno and RED built in,
with NewReno as a Python congestion control on every flow, or with RED as a Python queue
discipline at the bottleneck. Each Python plug-in computes what the built-in one does, so the
three runs give the same totals (printed, to check), and the difference is the time the calls
into Python take.

    python benchmarks/plugins.py N builtin|cc|queue [SIMTIME]

Timed from outside, whole processes, paired with the built-in run: every process starts
Python and imports the package either way."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import ccsim
from ccsim._scenario import to_toml
from ccsim.bench import dumbbell

# Reno and RED as Python plug-ins, as the tests check them against the built-ins.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from plugin_examples import PyRed, PyReno


class NewReno(PyReno):
    """NewReno's growth and decrease in Python: a call into Python on every ACK of new data
    and every reduction."""

    recovery = "newreno"


def scenario(n: int, kind: str, sim_time: float) -> dict:
    sc = dumbbell(n, sim_time, ns2_behaviour=False)
    if kind in ("cc", "both"):
        ccsim.register_cc("py_newreno", NewReno)
        sc["flows"][0]["tcp"]["variant"] = "py_newreno"
    if kind in ("queue", "both"):
        ccsim.register_queue("py_red", PyRed)
        red = sc["links"][1]["queue"]
        red["discipline"] = "py_red"
        for key in ("wait", "gentle", "byte_mode"):  # PyRed: ns-2's wait, not gentle, packet mode
            red.pop(key, None)
    return sc


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[2] not in ("builtin", "cc", "queue", "both"):
        sys.exit(__doc__.split("\n\n")[1])
    n, kind = int(sys.argv[1]), sys.argv[2]
    sim_time = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
    t0 = time.perf_counter()
    sim = ccsim.Simulation(to_toml(scenario(n, kind, sim_time)), f"dumbbell-{n}-{kind}")
    sim.run_until(float("inf"))
    report = json.loads(sim.summary_json(["R1->R2"]))
    print(f"events={sim.events_processed} seconds={time.perf_counter() - t0:.3f}")
    print("totals", json.dumps(report["totals"], sort_keys=True))


if __name__ == "__main__":
    main()
