"""`ccsim sweep FILE`: run a sweep file (a scenario over a grid of overrides, with
replications) and print the mean and confidence interval of its metrics per point."""

from __future__ import annotations

import argparse
import math
import numbers
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from . import CliError

ORDER = 20

U64_MAX = 2**64 - 1

#: Columns of the runs that `metrics` may name besides `totals.*`.
NUMERIC_COLUMNS = ("wall_time_s", "events_processed", "measured_s")
DEFAULT_METRICS = ["totals.goodput_bps"]
MAX_FAILURES_SHOWN = 10

DESCRIPTION = """\
Run a scenario at every point of a grid of overrides, several times each with different
seeds, on every core of this machine (or on a Dask cluster with --scheduler), and print the
mean and 95% confidence interval of the sweep's metrics per point.

The sweep file is TOML:

  scenario = "dumbbell.toml"          # the base scenario, relative to this file
  replications = 5                    # runs per point (default 1)
  seed = 1                            # base seed (default 1); replication r of every
                                      # point has the same seed (common random numbers)
  common_random_numbers = true        # false: every point its own seeds (default true)
  out = "results/dumbbell-sweep"      # where to store the runs, relative to this file
                                      # (default: results/<name of this file> in the
                                      # current directory); --out replaces it
  metrics = ["totals.goodput_bps"]    # columns to summarise at the end (default goodput)
  keep_flows = false                  # also store every run's per-flow table

  [grid]                              # the Cartesian product of these values
  "links.1.queue.limit" = [50, 100, 200]

  [[points]]                          # and/or explicit points, run before the grid
  "links.1.queue" = { discipline = "red", min_th = 5, max_th = 15, limit = 100 }

Override keys are the paths of `ccsim run --set`; quote them in [[points]] (an unquoted
dotted key is a nested table in TOML). Each run is stored as it finishes in OUT/runs/, so an
interrupted sweep is resumed by running the same command again; at the end OUT/runs.parquet
holds one row per run and OUT/sweep.json the sweep's definition (see docs/sweeps.md)."""

EXAMPLES = """\
examples:
  ccsim sweep scenarios/sweep_dumbbell.toml
      run the example sweep on every core; results in results/sweep_dumbbell/

  ccsim sweep scenarios/sweep_dumbbell.toml --out /tmp/limit --workers 1
      one run at a time, in this process, into /tmp/limit

  ccsim sweep scenarios/sweep_dumbbell.toml --scheduler tcp://10.0.0.5:8786
      on a Dask cluster (dask scheduler; dask worker tcp://10.0.0.5:8786 on each machine)

  ccsim plot results/sweep_dumbbell --x links.1.queue.limit --y totals.goodput_bps
      plot the result

exit status: 0 when every run succeeded, 1 when some failed (they are listed), 2 for a
problem with the sweep file or the arguments, 130 when interrupted (the runs finished so
far are kept: run the command again to finish)."""

KNOWN_FIELDS = ("scenario", "replications", "seed", "common_random_numbers", "out", "metrics", "keep_flows", "grid", "points")


def positive_int(text: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive integer")
    return value


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "sweep",
        help="run a scenario over a grid of parameters, with replications",
        description=DESCRIPTION,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="sweep file (TOML)")
    p.add_argument("--out", "-o", metavar="DIR", help="store directory (replaces the file's `out`)")
    p.add_argument("--workers", "-j", type=positive_int, metavar="N", help="local worker processes (default: one per core)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run on a Dask cluster, e.g. tcp://127.0.0.1:8786")
    p.add_argument(
        "--no-common-random-numbers",
        dest="common_random_numbers",
        action="store_false",
        default=None,
        help="give every point its own seeds (default: replication r of every point has the same seed)",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no table (failures are still reported)")
    p.set_defaults(func=main)


class SweepFile:
    """A parsed and checked sweep file."""

    def __init__(
        self,
        path: Path,
        scenario: Path,
        replications: int,
        seed: int,
        out: Path | None,
        metrics: list[str],
        keep_flows: bool,
        grid: dict[str, list[Any]],
        points: list[dict[str, Any]],
        common_random_numbers: bool = True,
    ):
        self.path, self.scenario, self.replications, self.seed = path, scenario, replications, seed
        self.out, self.metrics, self.keep_flows, self.grid, self.points = out, metrics, keep_flows, grid, points
        self.common_random_numbers = common_random_numbers


def _toml():
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    import tomli  # pragma: no cover

    return tomli  # pragma: no cover


def _is_int(v: Any) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _flatten_grid(table: dict[str, Any], prefix: str, fail) -> dict[str, list[Any]]:
    """`[grid]` with dotted keys written either quoted or as nested tables."""
    out: dict[str, list[Any]] = {}
    for k, v in table.items():
        key = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            out.update(_flatten_grid(v, key, fail))
        elif isinstance(v, list):
            if not v:
                fail(f"grid.{key}", "no values: give at least one")
            out[key] = v
        else:
            fail(f"grid.{key}", f"must be a list of values, got {v!r}")
    return out


def load_sweep_file(path: Path) -> SweepFile:
    """Reads and checks a sweep file; any problem raises `CliError("FILE: field: message")`."""
    origin = str(path)

    def fail(field: str, message: str):
        raise CliError(f"{origin}: {field}: {message}" if field else f"{origin}: {message}")

    try:
        data = path.read_bytes()
    except FileNotFoundError:
        fail("", "no such file")
    except IsADirectoryError:
        fail("", "is a directory, not a sweep file")
    except OSError as e:
        fail("", f"cannot read: {e.strerror or e}")
    try:
        doc = _toml().loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        fail("", "not UTF-8 text")
    except _toml().TOMLDecodeError as e:
        fail("", f"not valid TOML: {e}")
    for k in doc:
        if k not in KNOWN_FIELDS:
            fail(k, f"unknown field (expected one of: {', '.join(KNOWN_FIELDS)})")
    base = path.parent

    scenario = doc.get("scenario")
    if scenario is None:
        fail("scenario", "required: the path of the base scenario, relative to the sweep file")
    if not isinstance(scenario, str) or not scenario:
        fail("scenario", f"must be a path (string), got {scenario!r}")
    scenario_path = base / scenario
    if not scenario_path.is_file():
        fail("scenario", f"no such file: {scenario_path}")

    replications = doc.get("replications", 1)
    if not _is_int(replications) or replications < 1:
        fail("replications", f"must be a positive integer, got {replications!r}")
    seed = doc.get("seed", 1)
    if not _is_int(seed) or not 0 <= seed <= U64_MAX:
        fail("seed", f"must be an integer from 0 to {U64_MAX}, got {seed!r}")
    common = doc.get("common_random_numbers", True)
    if not isinstance(common, bool):
        fail("common_random_numbers", f"must be true or false, got {common!r}")
    out = doc.get("out")
    if out is not None and (not isinstance(out, str) or not out):
        fail("out", f"must be a directory path (string), got {out!r}")
    metrics = doc.get("metrics", DEFAULT_METRICS)
    if not isinstance(metrics, list) or not metrics:
        fail("metrics", 'must be a non-empty list of column names such as "totals.goodput_bps"')
    for i, m in enumerate(metrics):
        if not isinstance(m, str) or not (m.startswith("totals.") and len(m) > 7 or m in NUMERIC_COLUMNS):
            fail(f"metrics[{i}]", f"unknown column {m!r} (expected totals.NAME, {', '.join(NUMERIC_COLUMNS)})")
    keep_flows = doc.get("keep_flows", False)
    if not isinstance(keep_flows, bool):
        fail("keep_flows", f"must be true or false, got {keep_flows!r}")

    grid_doc = doc.get("grid", {})
    if not isinstance(grid_doc, dict):
        fail("grid", 'must be a table of `"key.path" = [values]`')
    grid = _flatten_grid(grid_doc, "", fail)
    points = doc.get("points", [])
    if not isinstance(points, list) or not all(isinstance(p, dict) for p in points):
        fail("points", 'must be an array of tables ([[points]]) of `"key.path" = value`')
    from ..sweeps import check_key

    for where, keys in [("grid", list(grid))] + [(f"points[{i}]", list(p)) for i, p in enumerate(points)]:
        for k in keys:
            try:
                check_key(k, where)
            except ValueError as e:
                fail(f"{where}.{k}" if where == "grid" else where, str(e).split(": ", 1)[-1])
    return SweepFile(path, scenario_path, replications, seed, base / out if out else None, metrics, keep_flows, grid, points, common)


def _fmt(v: Any, digits: int = 4) -> str:
    """A value for the table: integers below 10^4 as they are, other numbers to `digits`
    significant digits with k, M, G (9.617M, not 9.617e+06)."""
    if v is None:
        return "-"
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, int) and abs(v) < 10**4:
        return str(v)
    f = float(v)
    if math.isnan(f) or math.isinf(f):
        return str(f)
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(f) >= scale:
            return f"{f / scale:.{digits}g}{suffix}"
    return f"{f:.{digits}g}"


def format_table(agg, parameters: list[str], metrics: list[str]) -> list[str]:
    """The aggregate as aligned text: point, parameters, then `mean ± ci (n)` per metric."""
    from .._format import table

    header = ["point", *parameters, *metrics]
    rows = []
    for r in agg.iter_rows(named=True):
        cells = [str(r["point"]), *[_fmt(r[p]) for p in parameters]]
        for m in metrics:
            mean, ci, n = r[f"{m}.mean"], r[f"{m}.ci95"], r[f"{m}.n"]
            cell = "-" if n == 0 else _fmt(mean) if math.isnan(ci) else f"{_fmt(mean)} ± {_fmt(ci, 3)}"
            failed = f", {r['failed']} failed" if r["failed"] else ""
            cells.append(f"{cell} ({n}{failed})")
        rows.append(cells)
    return ["mean ± half-width of the 95% confidence interval (number of runs), per point", ""] + table(
        header, rows, left=1 + len(parameters), indent=""
    )


def _point_label(row: dict[str, Any], parameters: list[str]) -> str:
    values = ", ".join(f"{p}={_fmt(row[p])}" for p in parameters if row.get(p) is not None)
    return f"point {row['point']}" + (f" ({values})" if values else "")


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"warning: {message}", file=sys.stderr)


def main(args: argparse.Namespace) -> int:
    from ..sweeps import StoreFormatError, sweep
    from ..sweeps.run import RunsFailedWarning

    spec = load_sweep_file(Path(args.file))
    out = Path(args.out) if args.out else spec.out or Path("results") / spec.path.stem
    if out.exists() and not out.is_dir():
        raise CliError(f"{out}: exists and is not a directory")
    started = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            # The failed runs are listed below, with more than the warning says.
            warnings.simplefilter("ignore", RunsFailedWarning)
            warnings.showwarning = _show_warning
            result = sweep(
                spec.scenario,
                grid=spec.grid or None,
                points=spec.points or None,
                replications=spec.replications,
                base_seed=spec.seed,
                out=out,
                workers=args.workers,
                scheduler=args.scheduler,
                progress=False if args.quiet else None,
                keep_flows=spec.keep_flows,
                common_random_numbers=spec.common_random_numbers if args.common_random_numbers is None else False,
            )
    except StoreFormatError as e:
        raise CliError(str(e)) from None
    except ValueError as e:
        raise CliError(f"{spec.path}: {e}") from None
    except ConnectionError as e:
        raise CliError(f"--scheduler: {e}") from None
    except OSError as e:
        if e.filename:
            raise CliError(f"{e.filename}: {e.strerror or e}") from None
        raise CliError(f"{out}: {e}") from None
    except KeyboardInterrupt:
        saved = len(list((out / "runs").glob("*.parquet"))) if (out / "runs").is_dir() else 0
        print(f"interrupted: {saved} runs are saved in {out}/; run the same command again to finish", file=sys.stderr)
        raise
    elapsed = time.perf_counter() - started

    runs = result.runs
    for m in spec.metrics:
        if m not in runs.columns and result.failed.height < runs.height:
            totals = ", ".join(c for c in runs.columns if c.startswith("totals."))
            raise CliError(f"{spec.path}: metrics: no column {m!r} in the results (they have {totals})")
    metrics = [m for m in spec.metrics if m in runs.columns]
    parameters = result.parameters
    if not args.quiet:
        reused = f", {result.reused} already done" if result.reused else ""
        print(
            f"{spec.path.name}: {runs.height} runs ({len(result.definition['point_overrides'])} points x {spec.replications} "
            f"replications{reused}) in {elapsed:.3g} s; results in {out}/"
        )
        if metrics:
            print()
            print("\n".join(format_table(result.aggregate(metrics), parameters, metrics)))
    for run, error, retried in result.failures:
        print(f"{run}: {error}" + ("; it was run again" if retried else ""), file=sys.stderr)
    failed = result.failed
    if failed.height:
        print(f"{failed.height} of {runs.height} runs failed:", file=sys.stderr)
        for row in failed.head(MAX_FAILURES_SHOWN).iter_rows(named=True):
            print(f"  {_point_label(row, parameters)}, replication {row['replication']}: {row['error']}", file=sys.stderr)
        if failed.height > MAX_FAILURES_SHOWN:
            print(f"  ... and {failed.height - MAX_FAILURES_SHOWN} more (the `error` column of {out}/runs.parquet)", file=sys.stderr)
        return 1
    return 0
