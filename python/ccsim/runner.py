"""`ccsim.run`: build a simulation from a scenario, run it (with an optional progress bar),
and return its `Results`."""

from __future__ import annotations

import json
import math
import os
import sys
import time
from typing import Any, Callable, Union

from ._core import Simulation
from ._scenario import check_max_events, check_out_dir, check_seed, normalize_overrides, pcap_overrides, printable, resolve
from .results import Results

#: A run is advanced in this many steps of simulated time, so that a progress bar can be
#: drawn and Ctrl-C is noticed; stepping does not change the results.
STEPS = 200

#: The progress bar appears only once a run has taken this long (wall-clock seconds).
PROGRESS_DELAY_S = 2.0

#: Where stderr is not a terminal (a log file, a pipe), a run or a sweep prints a plain
#: status line this often instead of a bar (wall-clock seconds; the environment variable
#: CCSIM_STATUS_INTERVAL sets another), as OMNeT++'s command-line environment does.
STATUS_INTERVAL_S = 30.0

Progress = Union[None, bool, Callable[[float, float], Any]]


def run(
    scenario: Any,
    overrides: Any = None,
    seed: int | None = None,
    progress: Progress = None,
    pcap: Any = None,
    out_dir: str | os.PathLike[str] | None = None,
    force: bool = False,
    max_events: int | None = None,
) -> Results:
    """Runs one scenario and returns its `Results`.

    `scenario`: a path to a TOML file (str or `pathlib.Path`), TOML text, or a dict with the
    same structure as the file. `overrides`: `key.path=value` strings (as `ccsim run --set`)
    or a dict `{"key.path": value}`. `seed`: replaces the scenario's seed.
    `progress`: None shows a progress bar on stderr when stderr is a terminal and the run
    takes longer than 2 s, and otherwise a plain status line every 30 s (`STATUS_INTERVAL_S`);
    True always shows a bar; False shows nothing; a callable is called as
    `progress(now_s, stop_s)` after each step instead.
    `pcap`: packet captures added to the scenario's `[[pcap]]` tables: link and node names
    (`"R1->R2,R2->R1"` or a list; written to `trace.pcapng`), or a dict (or a list of dicts)
    shaped like a `[[pcap]]` table. `out_dir`: the directory relative capture file names are
    taken from (default: the current directory).
    `force`: run even when the scenario needs more memory than this process can get, or
    more events than `max_events` (default 10^10; see docs/scenario-format.md, "Ranges and
    resources"); without it such a scenario is refused at once with a `ScenarioError`.

    Raises `ccsim.ScenarioError` for any problem with the scenario (one that is not a path,
    text or a dict too: origin `<argument>`, path `scenario`), the overrides, the seed, its
    resources, a capture file that cannot be written (against its `pcap[i].file`
    field), or a run whose simulated time stops advancing. Ctrl-C (`KeyboardInterrupt`)
    stops a run within a fraction of a second; capture files of an interrupted run are
    removed.
    """
    text, origin = resolve(scenario)
    return run_text(text, origin, overrides, seed, progress, pcap, out_dir, force, max_events)


def run_text(
    text: str,
    origin: str,
    overrides: Any = None,
    seed: int | None = None,
    progress: Progress = None,
    pcap: Any = None,
    out_dir: str | os.PathLike[str] | None = None,
    force: bool = False,
    max_events: int | None = None,
) -> Results:
    """`run` for scenario text already read; `origin` names it in error messages (a file
    name, `<string>`, `<dict>`). Sweeps send the text to their workers, which may not see
    the file."""
    origin = printable(origin)
    overrides = normalize_overrides(overrides, origin) + pcap_overrides(pcap, origin)
    seed = check_seed(seed, origin)
    start = time.perf_counter()
    max_events = check_max_events(max_events, origin)
    sim = Simulation(text, origin, overrides, seed, check_out_dir(out_dir, origin), bool(force), max_events)
    advance(sim, progress)
    sim.finish_traces()
    wall = time.perf_counter() - start
    summary = json.loads(sim.report_json())
    summary["wall_time_s"] = wall
    summary["events_per_second"] = summary["events_processed"] / wall if wall > 0 else 0.0
    log = sim.packet_log()
    if log is None:
        res = Results(summary)
    else:
        from . import packet_log

        res = Results(summary, packets=packet_log.frame(log), packets_not_kept=log["not_kept"])
    res.source = (text, origin, overrides, seed)
    return res


def advance(sim: Simulation, progress: Progress = None) -> None:
    """Runs `sim` to its stop time in `STEPS` steps, reporting progress."""
    stop = sim.stop_time
    callback = progress if callable(progress) and not isinstance(progress, bool) else None
    show = progress is True or (progress is None and _stderr_is_terminal())
    status = StatusLine("simulating") if progress is None and not show else None
    started = time.perf_counter()
    bar = None
    try:
        for i in range(1, STEPS + 1):
            sim.run_until(math.inf if i == STEPS else stop * i / STEPS)
            if callback is not None:
                callback(sim.now, stop)
            elif status is not None:
                status.tick(
                    lambda: (
                        f"{sim.now:.4g} of {stop:.4g} s simulated, {_rate(sim.events_processed / max(status.elapsed(), 1e-9))} events/s",
                        sim.now / stop if stop > 0 else 1.0,
                    )
                )
            elif show:
                elapsed = time.perf_counter() - started
                if bar is None and (progress is True or elapsed >= PROGRESS_DELAY_S):
                    bar = _bar(stop, sim.now, started)
                if bar is not None:
                    bar.set_postfix_str(f"{_rate(sim.events_processed / elapsed if elapsed > 0 else 0.0)} events/s", refresh=False)
                    bar.update(sim.now - bar.n)
    finally:
        if bar is not None:
            bar.close()


class StatusLine:
    """A plain line on stderr every `interval` seconds of wall-clock time (default: the
    environment's CCSIM_STATUS_INTERVAL, else STATUS_INTERVAL_S), for logs: `ccsim:
    WHAT: DONE (PERCENT), ELAPSED elapsed, about LEFT left`."""

    def __init__(self, what: str, interval: float | None = None):
        if interval is None:
            try:
                interval = float(os.environ.get("CCSIM_STATUS_INTERVAL", STATUS_INTERVAL_S))
            except ValueError:
                interval = STATUS_INTERVAL_S
        self.what, self.interval = what, max(interval, 0.0)
        self.started = time.perf_counter()
        self.due = self.started + self.interval

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def tick(self, state: Callable[[], tuple[str, float]]) -> None:
        """Prints `state()` = (what is done, fraction done) when a line is due."""
        now = time.perf_counter()
        if now < self.due:
            return
        self.due = now + self.interval
        done, fraction = state()
        elapsed = now - self.started
        left = f", about {_clock(elapsed * (1 - fraction) / fraction)} left" if 0 < fraction < 1 else ""
        sys.stderr.write(f"ccsim: {self.what}: {done} ({100 * fraction:.0f}%), {_clock(elapsed)} elapsed{left}\n")
        sys.stderr.flush()


def _clock(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _rate(x: float) -> str:
    for k, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= k:
            return f"{x / k:.3g} {unit}"
    return f"{x:.3g}"


def _bar(stop: float, now: float, started: float):
    from tqdm import tqdm

    bar = tqdm(
        total=stop,
        initial=now,
        file=sys.stderr,
        desc="simulating",
        leave=False,
        dynamic_ncols=True,
        bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.4g}/{total:.4g} s simulated{postfix} [{elapsed}, ETA {remaining}]",
    )
    # Count elapsed time from the start of the run, not from when the bar appeared.
    bar.start_t -= time.perf_counter() - started
    return bar
