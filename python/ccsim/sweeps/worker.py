"""What a worker does with one run of a sweep: run it, turn its report into the row's
values, and compute the sweep's metrics from the report. The same function runs in this
process, in the local pool's processes and on Dask's workers."""

from __future__ import annotations

import functools
import hashlib
import json
import time
from pathlib import Path
from typing import Any

from .._core import ScenarioError
from ..results import NONDETERMINISTIC_FIELDS
from ..runner import run_text
from .plan import Task

#: Fields of the summary left out of `summary_json`: they measure the machine (the row has
#: `wall_time_s` instead), and without them a run's row is the same wherever it ran.
MACHINE_FIELDS = NONDETERMINISTIC_FIELDS

OK, ERROR = "ok", "error"

#: Key of a result (not stored) saying what made the worker run it a second time.
RETRIED = "retried_after"


def message(e: BaseException) -> str:
    """An exception as the `error` of a row: a scenario error as it is (`FILE: field:
    message`), anything else with its type's name."""
    if isinstance(e, ScenarioError):
        return str(e)
    text = str(e)
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def metric_values(summary: dict[str, Any], metrics) -> tuple[dict[str, float | None], str | None]:
    """{name: value} of the metrics `(name, function)` on a report, and the error of the
    first that raised (its value is None), or None."""
    values: dict[str, float | None] = {}
    error = None
    for name, fn in metrics:
        try:
            v = fn(summary)
            values[name] = None if v is None else float(v)
        except Exception as e:
            values[name] = None
            error = error or f"metric {name!r}: {message(e)}"
    return values, error


def run_one(task: Task) -> dict[str, Any]:
    """Runs one (point, replication) and returns its results as a dict: `status`, `error`,
    `wall_time_s`, `totals.*`, `events_processed`, `measured_s`, the metrics and
    `summary_json`. Never raises for a problem with the run: it is returned as
    `status = "error"` with the message. A run that panics (the core's `PanicException`,
    which is not an `Exception`) is run once more; `RETRIED` in the result says why. This
    is what the process pool's and Dask's workers call."""
    start = time.perf_counter()
    panicked = None
    for attempt in range(2):
        try:
            res = run_text(task.scenario, task.origin, list(task.overrides), task.seed, progress=False)
            summary = res.summary
            values, error = metric_values(summary, task.metrics)
            break
        except Exception as e:
            return {"status": ERROR, "error": message(e), "wall_time_s": time.perf_counter() - start}
        except (KeyboardInterrupt, SystemExit, GeneratorExit):
            raise
        except BaseException as e:  # a panic of the core (pyo3's PanicException), or of a metric
            if attempt == 0:
                panicked = f"the simulation panicked: {message(e)}"
                continue  # run it again, once
            return {
                "status": ERROR,
                "error": f"{panicked}; panicked again when run again",
                "wall_time_s": time.perf_counter() - start,
                RETRIED: panicked,
            }
    for f in MACHINE_FIELDS:
        summary.pop(f, None)
    row: dict[str, Any] = {"status": OK, "error": None, "wall_time_s": time.perf_counter() - start}
    summary_json = json.dumps(summary, separators=(",", ":"))
    for k, v in summary.get("totals", {}).items():
        if v is None or isinstance(v, (int, float)):
            row[f"totals.{k}"] = v
    row["events_processed"] = summary.get("events_processed")
    row["measured_s"] = summary.get("measured_s")
    row.update(values)
    if error:
        row["status"], row["error"] = ERROR, error
    row["summary_json"] = summary_json
    if panicked:
        row[RETRIED] = panicked
    return row


@functools.lru_cache(maxsize=1)
def build_fingerprint() -> str:
    """A SHA-256 of the installed ccsim package (its Python files and compiled core): two
    processes with the same fingerprint run the same simulator. Recorded in sweep.json and
    compared with the Dask workers'."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".so", ".pyd") and "__pycache__" not in path.parts and path.is_file():
            h.update(path.relative_to(root).as_posix().encode())
            h.update(b"\0")
            h.update(path.read_bytes())
    return h.hexdigest()
