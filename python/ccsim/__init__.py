"""ccsim: a fast, deterministic packet-level simulator for TCP congestion control.

    import ccsim
    res = ccsim.run("scenarios/dumbbell.toml", overrides=["duration=10s"], seed=7)
    res.totals["goodput_bps"], res.flows, res.queues, res.series["queue R1->R2"]
    res.to_parquet("out/")

    sw = ccsim.sweep("scenarios/dumbbell.toml", grid={"links.1.queue.limit": [50, 100]},
                     replications=5, out="results/limit")
    sw.aggregate("totals.goodput_bps")     # mean, std, n, 95% CI per point
    ccsim.stats.mean_ci([1.0, 2.0, 3.0])   # (mean, half-width)
    ccsim.plot.metric_vs_param(sw, x="links.1.queue.limit", y="totals.goodput_bps")

See `docs/results-schema.md` for every field of the results, `docs/sweeps.md` for sweeps.
"""

from . import plot, stats
from ._core import ScenarioError, Simulation
from ._core import version as _core_version
from .results import Results
from .runner import run
from .sweeps import SweepResult, derive_seed, sweep

__version__ = _core_version()

__all__ = [
    "run",
    "Results",
    "ScenarioError",
    "Simulation",
    "__version__",
    "sweep",
    "SweepResult",
    "derive_seed",
    "plot",
    "stats",
]
