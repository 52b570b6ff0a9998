"""Running a sweep: its runs on a local process pool, in this process, or on a Dask cluster,
each saved in the store as it finishes; `sweep` puts the plan, the store and the execution
together."""

from __future__ import annotations

import numbers
import os
import pickle
import signal
import sys
import tempfile
import uuid
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Callable, NamedTuple

from .._scenario import resolve
from ..runner import StatusLine, _stderr_is_terminal
from .plan import Metrics, Plan, Task
from .result import SweepResult
from .store import Store
from .worker import ERROR, OK, RETRIED, build_fingerprint, message, run_one

#: Times a run whose worker died (killed by the OS, a lost Dask worker) is run again.
RETRIES = 1

#: Messages of the core that mean an override's key names nothing in the scenario (not a
#: value out of range): a misspelt key fails every run alike, so it stops the sweep.
_KEY_ERRORS = ("unknown field", "no element named", "out of range for")


class RunsFailedWarning(UserWarning):
    """Some runs of a sweep failed (they are in `SweepResult.failed`)."""


def check_keys(plan: Plan) -> None:
    """Raises `ccsim.ScenarioError` before anything runs when an override key names nothing
    in the scenario (`links.1.queue.limt`): each key is checked with the overrides of the
    first point that sets it. Other problems of a point (a value out of range) are left to
    its runs, which fail alone."""
    from .._core import ScenarioError, describe
    from .._scenario import scenario_error

    checked: set[int] = set()
    for key in plan.parameters:
        i = next(i for i, p in enumerate(plan.points) if key in p)
        if i in checked:
            continue
        checked.add(i)
        try:
            describe(plan.text, plan.origin, list(plan.overrides[i]), None)
        except ScenarioError as e:
            if e.message.startswith(_KEY_ERRORS):
                raise scenario_error(
                    plan.origin, e.path, f"{e.message} (an override of the sweep's point {i}; no run was started)"
                ) from None


class Failure(NamedTuple):
    """A run that failed on the way: its task (point, replication, seed, overrides), what
    happened, and whether it was run again."""

    task: Task
    error: str
    retried: bool


def _exit_text(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the worker process was killed ({name})"
    return f"the worker process exited unexpectedly (status {code})"


def _serve(conn) -> None:
    """A worker process: runs the tasks it receives, one at a time, until told to stop. It
    ignores Ctrl-C: the sweep's own process stops it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        conn.send(run_one(task))


class _Worker:
    """A worker process with its own pipe: whatever happens to it happens to its task only."""

    def __init__(self, ctx):
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(child,), daemon=True)
        self.process.start()
        child.close()
        self.task: Task | None = None

    def stop(self, now: bool) -> None:
        if now:
            self.process.kill()
        else:
            try:
                self.conn.send(None)
            except OSError:
                pass
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()


def _execute_local(
    tasks: list[Task],
    workers: int,
    done: Callable[[Task, dict[str, Any]], None],
    failed: Callable[[Failure], None],
) -> None:
    """Runs `tasks` on `workers` processes of this machine, each with its own pipe and one
    task at a time, so that a worker that dies is known with its task: the run is reported
    to `failed` and run again (`RETRIES`) on a new worker; a second death stores it as an
    error. Ctrl-C (or anything `done` raises) stops every worker at once; the runs stored
    so far are kept."""
    import multiprocessing
    from multiprocessing.connection import wait

    ctx = multiprocessing.get_context()
    todo = list(reversed(tasks))
    deaths: dict[str, int] = {}
    pool = [_Worker(ctx) for _ in range(min(workers, max(1, len(tasks))))]
    try:
        while todo or any(w.task is not None for w in pool):
            for w in pool:
                if w.task is None and todo:
                    w.task = todo.pop()
                    w.conn.send(w.task)
            busy = [w for w in pool if w.task is not None]
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
            for i, w in enumerate(pool):
                if w.task is None or (w.conn not in ready and w.process.sentinel not in ready):
                    continue
                task, result = w.task, None
                try:
                    if w.conn.poll():
                        result = w.conn.recv()
                except (EOFError, OSError):
                    result = None
                if result is not None:
                    w.task = None
                    done(task, result)
                    continue
                if w.process.is_alive():
                    continue
                # The worker died with its task: run it again on a new worker, once.
                w.process.join()
                error = _exit_text(w.process.exitcode)
                w.conn.close()
                pool[i] = _Worker(ctx)
                n = deaths.get(task.run_key, 0)
                deaths[task.run_key] = n + 1
                failed(Failure(task, error, retried=n < RETRIES))
                if n < RETRIES:
                    todo.append(task)
                else:
                    done(task, {"status": ERROR, "error": f"{error}, {n + 1} times", "wall_time_s": None})
    except BaseException:
        for w in pool:
            w.stop(now=True)
        raise
    for w in pool:
        w.stop(now=False)


def _check_workers(client) -> None:
    """Warns when Dask workers run another build of ccsim than this process."""
    try:
        theirs = client.run(build_fingerprint)
    except Exception as e:  # a worker without ccsim: the runs will fail and say so
        warnings.warn(
            f"could not check that the Dask workers run the same build of ccsim as this process (their results may differ): {message(e)}",
            stacklevel=4,
        )
        return
    mine = build_fingerprint()
    other = sorted(w for w, f in theirs.items() if f != mine)
    if other:
        warnings.warn(
            f"{len(other)} of {len(theirs)} Dask workers ({', '.join(other[:3])}{', ...' if len(other) > 3 else ''}) "
            "run another build of ccsim than this process: their results may differ",
            stacklevel=4,
        )


def _dask_client(scheduler: Any):
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover
        raise ImportError("a sweep on a Dask cluster needs dask.distributed: pip install 'dask[distributed]'") from None
    if isinstance(scheduler, Client):
        return scheduler, False
    if isinstance(scheduler, str) or hasattr(scheduler, "scheduler_address"):  # an address, or LocalCluster, ...
        try:
            return Client(scheduler), True
        except OSError as e:
            where = scheduler if isinstance(scheduler, str) else scheduler.scheduler_address
            raise ConnectionError(f"cannot connect to the Dask scheduler at {where}: {e}") from None
    raise TypeError(f"scheduler must be an address ('tcp://host:8786'), a distributed.Client or a cluster, not {type(scheduler).__name__}")


def _execute_dask(
    tasks: list[Task], scheduler: Any, done: Callable[[Task, dict[str, Any]], None], failed: Callable[[Failure], None]
) -> None:
    """Runs `tasks` on a Dask cluster. A run whose worker was lost (after the scheduler's own
    retries: `KilledWorker`), or that failed outside the simulation, is reported to `failed`
    and submitted once more; a second failure is stored as an error."""
    from distributed import as_completed

    client, own = _dask_client(scheduler)
    futures: dict[Any, tuple[Task, int]] = {}
    try:
        _check_workers(client)
        token = uuid.uuid4().hex[:8]
        for t in tasks:
            f = client.submit(run_one, t, key=f"ccsim-run-{t.run_key}-{token}", pure=False)
            futures[f] = (t, 0)
        queue = as_completed(list(futures))
        for f in queue:
            t, attempt = futures.pop(f)
            try:
                result = f.result()
            except Exception as e:
                error = f"the worker failed: {message(e)}"
                failed(Failure(t, error, retried=attempt < RETRIES))
                if attempt < RETRIES:
                    again = client.submit(run_one, t, key=f"ccsim-run-{t.run_key}-{token}-retry{attempt + 1}", pure=False)
                    futures[again] = (t, attempt + 1)
                    queue.add(again)
                    f.release()
                    continue
                result = {"status": ERROR, "error": error, "wall_time_s": None}
            done(t, result)
            f.release()
    except BaseException:
        client.cancel([f for f in futures if not f.done()])
        raise
    finally:
        if own:
            client.close()


class _Progress:
    def __init__(self, progress: Any, total: int, initial: int):
        self.callback = progress if callable(progress) and not isinstance(progress, bool) else None
        self.done, self.total, self.errors = initial, total, 0
        self.bar = None
        show = progress is True or (progress is None and _stderr_is_terminal())
        # Without a terminal (a log): a plain line now and then instead of the bar.
        self.status = StatusLine("sweep") if progress is None and not show and total > initial else None
        if self.callback is None and show and total > initial:
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=initial, file=sys.stderr, desc="sweep", unit="run", leave=False, dynamic_ncols=True)

    def update(self, result: dict[str, Any]) -> None:
        self.done += 1
        if result.get("status") != OK:
            self.errors += 1
        if self.bar is not None:
            if self.errors:
                self.bar.set_postfix_str(f"{self.errors} failed", refresh=False)
            self.bar.update(1)
        if self.callback is not None:
            self.callback(self.done, self.total)
        if self.status is not None:
            failed = f", {self.errors} failed" if self.errors else ""
            self.status.tick(lambda: (f"{self.done} of {self.total} runs done{failed}", self.done / self.total))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def sweep(
    base: Any,
    grid: Mapping[str, Sequence[Any]] | None = None,
    points: Sequence[Mapping[str, Any]] | None = None,
    replications: int = 1,
    base_seed: int = 1,
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    scheduler: Any = None,
    progress: Any = None,
    keep_flows: bool = False,
    metrics: Metrics = None,
    retry_errors: bool = True,
    common_random_numbers: bool = True,
) -> SweepResult:
    """Runs `base` at every point of the sweep, `replications` times each, and returns a
    `SweepResult`.

    - `base`: the scenario, as for `ccsim.run`: a path, TOML text or a dict.
    - `grid`: `{key.path: [values]}`, the Cartesian product of the values (first key
      slowest); `points`: a list of `{key.path: value}` dicts. Points come first, then the
      grid; with neither there is one point, the scenario as it is. A value may be a dict
      or a list (written as TOML); None removes the key.
    - `replications`, `base_seed`: replication r of every point runs with seed
      `derive_seed(base_seed, r)` (common random numbers across the points).
    - `common_random_numbers`: False gives every point its own seeds,
      `derive_seed(base_seed, r, point)`.
    - `out`: the store directory; runs already in it are not run again (resume a sweep by
      running it again with the same `out`). Default: a new temporary directory.
    - `workers`: processes of the local pool (default: every core); 1 runs in this process.
    - `scheduler`: run on Dask instead: an address (`"tcp://host:8786"`), a
      `distributed.Client` or a cluster object. The results are the same.
    - `progress`: None shows a bar on stderr when it is a terminal, True always, False
      never; a callable is called as `progress(done, total)` after each run (what it
      raises stops the sweep; finished runs are kept).
    - `keep_flows`: also store each run's per-flow table (`SweepResult.flows`).
    - `metrics`: `{column: function(summary) -> float}`, computed by the workers from each
      run's report (the dict of `ccsim run --json`, without wall_time_s and
      events_per_second). Module-level functions, so that they can be pickled.
    - `retry_errors`: run again the runs stored with status "error" (default True).

    A run that fails (a value out of range at one point, an exception) is stored with
    status "error" and its message; the others go on, and the sweep ends with a
    `RunsFailedWarning` that counts the failures and gives the first. Problems with the
    sweep itself (no such scenario file, a malformed grid, an override key that names
    nothing in the scenario, a store of another format: `StoreFormatError`) raise
    `ValueError` or `ccsim.ScenarioError` before anything runs.
    """
    text, origin = resolve(base)
    plan = Plan(text, origin, grid, points, replications, base_seed, metrics, keep_flows, common_random_numbers)
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 1):
        raise ValueError(f"workers must be a positive integer or None, got {workers!r}")
    n_workers = int(workers) if workers is not None else (os.cpu_count() or 1)
    if scheduler is None and n_workers > 1 and plan.metrics:
        try:
            pickle.dumps(plan.metrics)
        except Exception as e:
            raise ValueError(f"metrics must be picklable (module-level functions, not lambdas) to run in worker processes: {e}") from None

    check_keys(plan)
    store = Store(out if out is not None else tempfile.mkdtemp(prefix="ccsim-sweep-"))
    started = store.begin(plan)
    todo, reused = store.pending(plan, retry_errors)
    tasks = [plan.task(k) for k in todo]
    bar = _Progress(progress, len(plan.unique), reused)

    def save(task: Task, result: dict[str, Any]) -> None:
        store.save(plan, task.run_key, result)

    failures: list[Failure] = []

    def done(task: Task, result: dict[str, Any]) -> None:
        if result.get(RETRIED):
            failed(Failure(task, result[RETRIED], retried=True))
        save(task, result)
        bar.update(result)

    def failed(f: Failure) -> None:
        failures.append(f)
        if f.retried:
            warnings.warn(f"{describe_run(plan, f.task)}: {f.error}; running it again", stacklevel=4)

    try:
        if not tasks:
            pass
        elif scheduler is not None:
            _execute_dask(tasks, scheduler, done, failed)
        elif n_workers == 1:
            for t in tasks:
                done(t, run_one(t))
        else:
            _execute_local(tasks, n_workers, done, failed)
    finally:
        bar.close()
    runs, flows = store.finish(plan, started)
    result = SweepResult(store.out, runs, flows, store.read_definition(), ran=len(tasks), reused=reused)
    result.failures = [(describe_run(plan, f.task), f.error, f.retried) for f in failures]
    failed = result.failed
    if failed.height:
        first = failed.row(0, named=True)
        every = "every run" if failed.height == runs.height else f"{failed.height} of {runs.height} runs"
        warnings.warn(
            f"{every} of the sweep failed (`result.failed` lists them); the first, point {first['point']}: {first['error']}",
            RunsFailedWarning,
            stacklevel=2,
        )
    return result


def describe_run(plan: Plan, task: Task) -> str:
    """A run as messages name it: its point's parameters, its replication and seed."""
    values = plan.parameter_values(task.point)
    params = ", ".join(f"{k}={values[k]!r}" for k in plan.parameters) or "the scenario as it is"
    return f"point {task.point} ({params}), replication {task.replication} (seed {task.seed})"
