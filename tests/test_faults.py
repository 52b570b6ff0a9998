"""Faults survived: a sweep run that panics, whose worker process is killed by the OS, or
whose Dask worker is lost is recorded as failed with its parameters and run once more; the
sweep finishes, reports it and loses no other run. Ctrl-C during `ccsim run`, `sweep` and
`reproduce` stops within a second and leaves no partial file that looks complete. Capture
files that cannot be written are reported against their field before the run. Every kind of
bad input the issue names gives one line and exit status 2 under a 4 GB address-space limit.
"""

import os
import resource
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

import ccsim
from conftest import DUMBBELL, ROOT

#: The dumbbell shortened: a run takes about 10 ms. Points differ by their warm-up, which
#: the report gives back as measured_s, so that a metric knows which point it sees.
SHORT_TEXT = DUMBBELL.read_text().replace('duration = "30s"', 'duration = "2s"').replace('warmup = "5s"', 'warmup = "0.5s"')
POINTS = {"warmup": ["0.25s", "0.5s", "0.75s"]}
VICTIM = 1.5  # measured_s of the point with warmup 0.5 s


class FakePanic(BaseException):
    """What a panic of the core looks like to Python: pyo3's PanicException is a
    BaseException, not an Exception."""


def _first_time(tag: str) -> bool:
    """True the first time `tag` is seen in this test's marker directory (across processes)."""
    marker = Path(os.environ["CCSIM_FAULTS_DIR"]) / tag
    try:
        marker.touch(exist_ok=False)
        return True
    except FileExistsError:
        return False


def kill_once(summary):
    """A metric that kills its worker process the first time it sees the victim point."""
    if summary["measured_s"] == VICTIM and _first_time("killed"):
        os.kill(os.getpid(), signal.SIGKILL)
    return 1.0


def kill_always(summary):
    if summary["measured_s"] == VICTIM:
        os.kill(os.getpid(), signal.SIGKILL)
    return 1.0


def panic_once(summary):
    if summary["measured_s"] == VICTIM and _first_time("panicked"):
        raise FakePanic("attempt to divide by zero")
    return 1.0


def panic_always(summary):
    if summary["measured_s"] == VICTIM:
        raise FakePanic("attempt to divide by zero")
    return 1.0


@pytest.fixture(autouse=True)
def faults_dir(tmp_path, monkeypatch):
    d = tmp_path / "faults"
    d.mkdir()
    monkeypatch.setenv("CCSIM_FAULTS_DIR", str(d))
    return d


def _sweep(tmp_path, metric, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sw = ccsim.sweep(SHORT_TEXT, grid=POINTS, replications=2, out=tmp_path / "store", metrics={"m": metric}, progress=False, **kw)
    return sw, [str(w.message) for w in caught]


def test_a_killed_pool_worker_is_reported_and_its_run_run_again(tmp_path):
    sw, warned = _sweep(tmp_path, kill_once, workers=2)
    assert sw.runs.height == 6 and (sw.runs["status"] == "ok").all(), sw.runs.select("point", "replication", "status", "error")
    assert len(sw.failures) == 1
    run, error, retried = sw.failures[0]
    assert retried and "SIGKILL" in error and "warmup='0.5s'" in run and "point 1" in run
    assert any("SIGKILL" in w and "running it again" in w for w in warned)


def test_a_worker_killed_twice_leaves_its_run_failed_and_every_other_run_done(tmp_path):
    sw, _ = _sweep(tmp_path, kill_always, workers=2)
    failed = sw.runs.filter(sw.runs["status"] == "error")
    assert failed["point"].to_list() == [1, 1], "both replications of the victim point"
    assert all("killed (SIGKILL), 2 times" in e for e in failed["error"])
    assert (sw.runs.filter(sw.runs["point"] != 1)["status"] == "ok").all()
    assert [r for _, _, r in sw.failures].count(True) == 2 and len(sw.failures) == 4


@pytest.mark.parametrize("workers", [1, 2])
def test_a_panicking_run_is_run_again(tmp_path, workers):
    sw, warned = _sweep(tmp_path, panic_once, workers=workers)
    assert (sw.runs["status"] == "ok").all()
    assert len(sw.failures) == 1 and "panicked" in sw.failures[0][1] and sw.failures[0][2]
    sw, _ = _sweep(tmp_path / "again", panic_always, workers=workers)
    failed = sw.runs.filter(sw.runs["status"] == "error")
    assert failed["point"].to_list() == [1, 1]
    assert all("panicked again" in e for e in failed["error"])
    assert sw.runs.height == 6


def test_a_lost_dask_worker_is_reported_and_its_run_run_again(tmp_path):
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            sw, _ = _sweep(tmp_path, kill_once, scheduler=cluster.scheduler_address)
    assert sw.runs.height == 6 and (sw.runs["status"] == "ok").all()
    # Dask fails every task the lost worker held, not only the one that killed it: each is
    # reported and run again.
    assert any("warmup='0.5s'" in run for run, _, _ in sw.failures)
    assert all(retried and "KilledWorker" in error for _, error, retried in sw.failures)


# --- Ctrl-C -------------------------------------------------------------------------------


def _interrupt(args, cwd, after_s):
    """Starts `python -m ccsim ARGS`, sends it SIGINT after `after_s` seconds, and returns
    (exit status, seconds from the signal to the exit, stderr)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    p = subprocess.Popen(
        [sys.executable, "-m", "ccsim", *map(str, args)], cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    time.sleep(after_s)
    assert p.poll() is None, f"finished before the interrupt: {p.stderr.read()}"
    p.send_signal(signal.SIGINT)
    sent = time.perf_counter()
    try:
        _, err = p.communicate(timeout=30)
    finally:
        p.kill()
    return p.returncode, time.perf_counter() - sent, err


def test_ctrl_c_stops_a_run_at_once_and_leaves_no_capture_or_results(tmp_path):
    out = tmp_path / "out"
    code, took, err = _interrupt(["run", DUMBBELL, "--set", "duration=100000s", "--pcap", "R1->R2", "--out", out, "--quiet"], tmp_path, 3.0)
    assert code == 130 and "interrupted" in err, err
    assert took < 1.0, f"stopped {took:.2f} s after Ctrl-C"
    assert not (out / "trace.pcapng").exists(), "the partial capture is removed"
    assert not (out / "summary.json").exists()


def test_ctrl_c_stops_a_run_inside_one_long_event_at_once(tmp_path):
    # PIE updated every nanosecond catches up about a million updates per packet, and after
    # the 100 s before the flows start, 1e11 in one event: the run loop alone, which looks
    # between events, would not see Ctrl-C for hours.
    pie = 'links.1.queue={ discipline = "pie", tupdate = "1ns" }'
    args = ["run", DUMBBELL, "--set", pie, "--set", "flows.bulk.start=100s", "--set", "duration=1e6s", "--force", "--quiet"]
    code, took, err = _interrupt(args, tmp_path, 3.0)
    assert code == 130 and "interrupted" in err, err
    assert took < 1.0, f"stopped {took:.2f} s after Ctrl-C"


def test_a_pie_update_every_nanosecond_for_a_long_run_is_refused_at_once():
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(DUMBBELL, overrides={"links.1.queue": {"discipline": "pie", "tupdate": "1ns"}, "duration": "1e6s"})
    assert e.value.path == "links[1].queue.tupdate" and "needs about 2e15 events" in e.value.message, str(e.value)


def test_ctrl_c_stops_a_sweep_at_once_and_keeps_its_finished_runs(tmp_path):
    scenario = tmp_path / "long.toml"
    scenario.write_text(DUMBBELL.read_text().replace('duration = "30s"', 'duration = "100000s"'))
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(f'scenario = "{scenario.name}"\nreplications = 4\nout = "store"\n[grid]\n"links.1.queue.limit" = [20, 60]\n')
    code, took, err = _interrupt(["sweep", sweep, "--workers", "2"], tmp_path, 4.0)
    assert code == 130, err
    assert took < 1.0, f"stopped {took:.2f} s after Ctrl-C"
    store = tmp_path / "store"
    assert not (store / "runs.parquet").exists(), "no combined table for a sweep that did not finish"
    assert '"complete": false' in (store / "sweep.json").read_text()
    assert not list(store.glob("**/*.tmp"))


@pytest.mark.slow
def test_ctrl_c_stops_reproduce_at_once_without_a_report(tmp_path):
    out = tmp_path / "rep"
    code, took, err = _interrupt(["reproduce", "das", "--out", out, "--workers", "2"], tmp_path, 5.0)
    assert code == 130, err
    assert took < 1.0, f"stopped {took:.2f} s after Ctrl-C"
    assert not list(out.glob("**/report.*")), "no report for an interrupted reproduction"


# --- captures -----------------------------------------------------------------------------


def test_a_capture_that_cannot_be_written_is_reported_against_its_field_before_the_run(tmp_path):
    if not Path("/dev/full").exists():
        pytest.skip("needs /dev/full")
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(DUMBBELL, overrides=["duration=1s", "warmup=0"], pcap={"file": "/dev/full", "links": ["R1->R2"]})
    assert e.value.path == "pcap[0].file" and "No space left on device" in e.value.message
    assert Path("/dev/full").is_char_device(), "a device is never removed"


# --- every kind of bad input, through the CLI, under 4 GB ---------------------------------

BASE = ROOT / "crates" / "ccsim" / "tests"


def _limited():
    resource.setrlimit(resource.RLIMIT_AS, (4_000_000_000, 4_000_000_000))


STAR = 'duration = "1s"\nhosts = ["H{{1..{n}}}", "S"]\nrouters = ["R"]\n[[links]]\nbetween = ["H{{1..{n}}}", "R"]\nrate = "10Mbps"\ndelay = "1ms"\n[[links]]\nbetween = ["R", "S"]\nrate = "10Mbps"\ndelay = "1ms"\n[[flows]]\nfrom = "{src}"\nto = "S"\n'

KINDS = {
    "panic: rate below 1 bit/s": (None, ["links.0.rate=0.3"], "links[0].rate: rate 0.3 is out of range"),
    "memory: 20 million flows": (None, ["flows.bulk.count=20000000"], "flows[0].count: this scenario needs about"),
    "memory: 40000-host star, 100 flows each": (
        STAR.format(n=40000, src="H{1..40000}"),
        ["flows.0.count=100"],
        "flows[0].count: this scenario needs about",
    ),
    "memory: 999999-host star": (STAR.format(n=999999, src="H1"), [], "links: this scenario needs about"),
    "memory: 1e8 flows": (None, ["flows.bulk.count=100000000"], "flows[0].count: this scenario needs about"),
    "time: UDP gap of 0 ns": (
        None,
        ["flows.bulk.transport=udp", 'flows.bulk.udp={ rate = "1e18", packet_size = 1 }', "flows.bulk.tcp=", "duration=1us", "warmup=0"],
        "flows[0].udp.rate: rate",
    ),
    "time: links at 1e308": (
        None,
        ["links.*.rate=1e308", "links.*.delay=0", "duration=1us", "warmup=0"],
        "links[0].rate: rate 1e308 is out of range",
    ),
    "work: duration 1e308 s": (None, ["duration=1e308s"], 'duration: duration "1e308s" is out of range'),
    "work: duration 1e8 s": (None, ["duration=1e8s"], "duration: this scenario needs about"),
    "message: infinite duration": (None, ["duration=inf"], "duration: duration inf is out of range"),
    "message: big seed": (None, ["seed=18446744073709551616"], "seed: must be an integer from 0 to 18446744073709551615"),
    "message: malformed path": (None, ["flows[0]]].count=1"], "flows[0]]].count: malformed key path"),
    "message: empty key": (None, ["flows.0..count=1"], "flows.0..count: malformed key path"),
    "message: truncated file": ('duration = "1s"\nname =', [], "line 2: not valid TOML at column 7"),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_kind_of_bad_input_is_one_line_and_exit_2_under_4_gb(tmp_path, kind):
    text, overrides, expected = KINDS[kind]
    path = tmp_path / "bad.toml"
    path.write_text(text if text is not None else DUMBBELL.read_text())
    args = [sys.executable, "-m", "ccsim", "run", str(path), "--quiet"]
    for o in overrides:
        args += ["--set", o]
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    started = time.perf_counter()
    p = subprocess.run(args, capture_output=True, text=True, env=env, preexec_fn=_limited, timeout=60)
    took = time.perf_counter() - started
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2, p.stderr
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: ") and expected in lines[0], p.stderr
    assert took < 10, f"{took:.1f} s"
