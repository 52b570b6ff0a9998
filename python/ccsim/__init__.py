"""ccsim: a fast, deterministic packet-level simulator for TCP congestion control.

    import ccsim
    res = ccsim.run("scenarios/dumbbell.toml", overrides=["duration=10s"], seed=7)
    res.totals["goodput_bps"], res.flows, res.queues, res.series["queue R1->R2"]
    res.to_parquet("out/")

See `docs/results-schema.md` for every field of the results.
"""

from ._core import ScenarioError, Simulation
from ._core import version as _core_version
from .results import Results
from .runner import run

__version__ = _core_version()

__all__ = ["run", "Results", "ScenarioError", "Simulation", "__version__"]
