"""Sweeps: a scenario run over a grid (or list) of parameter overrides, each point several
times with different seeds, on a local process pool or a Dask cluster, into a resumable
Parquet store.

    import ccsim
    sw = ccsim.sweep("scenarios/dumbbell.toml",
                     grid={"links.1.queue.limit": [50, 100, 200]},
                     replications=5, out="results/limit")
    sw.aggregate("totals.goodput_bps")      # mean, std, n, ci95 per point

One module per part: `plan` (points, seeds, override strings, run keys), `worker` (one
run: what every worker calls), `run` (the local pool, this process, Dask; `sweep`),
`store` (the resumable Parquet store), `result` (`SweepResult`) and `statistics`
(aggregation over replications). See `docs/sweeps.md` for the store's layout and the
columns of its tables.
"""

from __future__ import annotations

from .plan import HEAD_COLUMNS, RESERVED_COLUMNS, TAIL_COLUMNS, Plan, Task, check_key, derive_seed, expand_points, override_string, run_key
from .result import SweepResult
from .run import RunsFailedWarning, sweep
from .statistics import aggregate
from .store import FORMAT, Store, StoreFormatError, collect_flows, collect_runs
from .worker import ERROR, MACHINE_FIELDS, OK, build_fingerprint, run_one

__all__ = [
    "sweep",
    "SweepResult",
    "RunsFailedWarning",
    "derive_seed",
    "expand_points",
    "override_string",
    "run_key",
    "run_one",
    "aggregate",
    "Plan",
    "Task",
    "Store",
    "StoreFormatError",
    "FORMAT",
    "build_fingerprint",
    "check_key",
    "collect_runs",
    "collect_flows",
    "HEAD_COLUMNS",
    "TAIL_COLUMNS",
    "RESERVED_COLUMNS",
    "MACHINE_FIELDS",
    "OK",
    "ERROR",
]
