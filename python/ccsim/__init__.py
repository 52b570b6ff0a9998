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

The names below the core's are imported when first used (PEP 562), so that `import ccsim`
and the `ccsim` command start without loading the results tables, sweeps and plots.
"""

from __future__ import annotations

import importlib

from ._core import PluginError, ScenarioError, Simulation
from ._core import version as _core_version
from .plugins import *  # noqa: F403  (the plug-in classes, their registration, verdicts, actions)
from .plugins import __all__ as _plugin_names

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

    from . import plot, stats
    from .results import Results
    from .runner import run
    from .sweeps import SweepResult, derive_seed, sweep

__version__ = _core_version()

# name -> (module, attribute in it, or None for the module itself)
_LAZY = {
    "plot": (".plot", None),
    "stats": (".stats", None),
    "Results": (".results", "Results"),
    "run": (".runner", "run"),
    "sweep": (".sweeps", "sweep"),
    "SweepResult": (".sweeps", "SweepResult"),
    "derive_seed": (".sweeps", "derive_seed"),
}


def __getattr__(name: str) -> Any:
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'ccsim' has no attribute {name!r}") from None
    value = importlib.import_module(module, __name__)
    if attr is not None:
        value = getattr(value, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    *_plugin_names,
    "run",
    "Results",
    "ScenarioError",
    "PluginError",
    "Simulation",
    "__version__",
    "sweep",
    "SweepResult",
    "derive_seed",
    "plot",
    "stats",
]
