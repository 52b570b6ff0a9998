"""ccsim.sweep: points, seeds, the local pool and Dask, the resumable store, failures,
aggregation; and the `ccsim sweep` command."""

import json
import math
import re
import time

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import ccsim
from ccsim.stats import mean_ci
from ccsim.sweeps import FORMAT, StoreFormatError, derive_seed, expand_points, run_key
from conftest import DUMBBELL, ccsim_cli

#: The example dumbbell shortened to 2 s (0.5 s warm-up): a run takes about 10 ms.
SHORT_TEXT = DUMBBELL.read_text().replace('duration = "30s"', 'duration = "2s"').replace('warmup = "5s"', 'warmup = "0.5s"')
LIMITS = {"links.1.queue.limit": [20, 60]}


def half_drops(summary):
    """A metric: module level, so that worker processes can unpickle it."""
    return summary["totals"]["queue_drops"] / 2


def bottleneck_delay_ms(summary):
    return next(q["mean_delay_ms"] for q in summary["queues"] if q["link"] == "R1->R2")


def broken_metric(summary):
    raise ZeroDivisionError("no good")


def no_wall(df):
    return df.drop("wall_time_s")


@pytest.fixture(scope="module")
def short(tmp_path_factory):
    path = tmp_path_factory.mktemp("scenario") / "short.toml"
    path.write_text(SHORT_TEXT)
    assert 'duration = "2s"' in SHORT_TEXT and 'warmup = "0.5s"' in SHORT_TEXT
    return path


# --- seeds and points -----------------------------------------------------------------------


def _seed_sequence(base, *key):
    """The seed as docs/sweeps.md defines it, computed here with NumPy directly."""
    from numpy.random import SeedSequence

    return int(SeedSequence(entropy=base, spawn_key=key).generate_state(1, dtype=np.uint64)[0]) & (2**63 - 1)


def test_seeds_are_seed_sequence_words():
    for base, r in [(0, 0), (1, 0), (1, 1), (7, 3), (2**64 - 1, 12345)]:
        assert derive_seed(base, r) == _seed_sequence(base, r)
        assert derive_seed(base, r, 5) == _seed_sequence(base, r, 5)
    # Pinned, so that a change of the derivation shows (NumPy keeps SeedSequence stable).
    assert derive_seed(1, 0) == 8431846347943309920


def test_seeds_depend_on_base_seed_and_replication_only():
    seeds = [derive_seed(1, r) for r in range(1000)]
    assert len(set(seeds)) == 1000
    assert all(0 <= s < 2**63 for s in seeds)
    assert seeds == [derive_seed(1, r) for r in range(1000)]  # reproducible
    assert derive_seed(1, 0) != derive_seed(2, 0)
    assert derive_seed(1, 1) != derive_seed(2, 0)  # no shift between neighbouring base seeds
    for bad in (-1, 2**64, 1.5, True, "1"):
        with pytest.raises(ValueError):
            derive_seed(bad, 0)
        with pytest.raises(ValueError):
            derive_seed(0, bad)
        with pytest.raises(ValueError):
            derive_seed(0, 0, bad)


def test_distinct_base_seeds_give_disjoint_seed_sets():
    bases = [0, 1, 2, 3, 10, 1000, 1001, 2**32, 2**32 + 1, 2**64 - 1]
    sets = [{derive_seed(b, r) for r in range(2000)} for b in bases]
    assert all(len(s) == 2000 for s in sets)
    assert len(set().union(*sets)) == 2000 * len(bases)
    # Independent points: every (replication, point) of a base seed differs from the common ones.
    independent = {derive_seed(1, r, p) for r in range(200) for p in range(10)}
    assert len(independent) == 2000 and not independent & sets[1]


def test_same_replication_same_seed_across_points(short):
    sw = ccsim.sweep(short, grid={"links.1.queue.limit": [20, 40, 60]}, replications=3, base_seed=7, workers=1, progress=False)
    by_rep = sw.runs.group_by("replication").agg(pl.col("seed").n_unique().alias("k"), pl.col("seed").first())
    assert by_rep["k"].to_list() == [1, 1, 1]
    assert sorted(by_rep["seed"].to_list()) == sorted(derive_seed(7, r) for r in range(3))
    assert sw.runs["seed"].n_unique() == 3
    # Common random numbers: the flows start at the same times at every point.
    starts = {}
    for row, summary in sw.summaries():
        starts.setdefault(row["replication"], set()).add(tuple(f["start_s"] for f in summary["flows"]))
    assert all(len(s) == 1 for s in starts.values())
    assert len({next(iter(s)) for s in starts.values()}) == 3


def test_independent_points_without_common_random_numbers(short):
    sw = ccsim.sweep(
        short,
        grid={"links.1.queue.limit": [20, 40, 60]},
        replications=2,
        base_seed=7,
        workers=1,
        progress=False,
        common_random_numbers=False,
    )
    assert sw.runs["seed"].n_unique() == 6
    assert sw.runs["seed"].to_list() == [derive_seed(7, r, i) for i in range(3) for r in range(2)]
    assert sw.definition["common_random_numbers"] is False
    starts = {tuple(f["start_s"] for f in summary["flows"]) for _, summary in sw.summaries()}
    assert len(starts) == 6
    with pytest.raises(ValueError, match="common_random_numbers"):
        ccsim.sweep(short, common_random_numbers="no", workers=1, progress=False)


def test_points_then_grid_in_order():
    pts = expand_points({"a": [1, 2], "b": ["x", "y"]}, [{"c": 1}, {"a": 9}])
    assert pts == [{"c": 1}, {"a": 9}, {"a": 1, "b": "x"}, {"a": 1, "b": "y"}, {"a": 2, "b": "x"}, {"a": 2, "b": "y"}]
    assert expand_points() == [{}]
    assert expand_points({}, []) == [{}]
    assert expand_points({"a": (1.5, True)}) == [{"a": 1.5}, {"a": True}]


@pytest.mark.parametrize(
    "grid, points, message",
    [
        ({"a": 5}, None, "must be a list"),
        ({"a": "abc"}, None, "must be a list"),
        ({"a": []}, None, "empty"),
        ({"seed": [1, 2]}, None, "cannot be swept"),
        ({"status": [1]}, None, "clash"),
        (None, [{"a=1": 2}], "contains '='"),
        (None, ["a=1"], "must be a dict"),
    ],
)
def test_bad_grid_or_points(grid, points, message):
    with pytest.raises(ValueError, match=message):
        expand_points(grid, points)


def test_run_key_is_stable_and_distinguishes_runs():
    k = run_key("text", ["a=1"], 0, 5)
    assert k == run_key("text", ["a=1"], 0, 5) and re.fullmatch(r"[0-9a-f]{32}", k)
    assert (
        len(
            {
                k,
                run_key("text2", ["a=1"], 0, 5),
                run_key("text", ["a=2"], 0, 5),
                run_key("text", ["a=1"], 1, 5),
                run_key("text", ["a=1"], 0, 6),
            }
        )
        == 5
    )


# --- rows and the store ---------------------------------------------------------------------


def test_rows_and_store(short, tmp_path):
    out = tmp_path / "store"
    points = [{"links.1.queue": {"discipline": "red", "limit": 60, "min_th": 5, "max_th": 15}}]
    sw = ccsim.sweep(
        short,
        grid=LIMITS,
        points=points,
        replications=2,
        out=out,
        workers=1,
        progress=False,
        metrics={"half_drops": half_drops, "delay_ms": bottleneck_delay_ms},
    )
    runs = sw.runs
    assert runs.height == 6 and sw.failed.height == 0 and sw.ran == 6 and sw.reused == 0
    assert runs.columns[:8] == ["point", "replication", "seed", "status", "error", "wall_time_s", "links.1.queue", "links.1.queue.limit"]
    assert runs.columns[-4:] == ["half_drops", "delay_ms", "run_key", "summary_json"]
    totals = [c for c in runs.columns if c.startswith("totals.")]
    assert {"totals.goodput_bps", "totals.queue_drops", "totals.jain_fairness"} <= set(totals)
    schema = runs.schema
    assert schema["point"] == schema["seed"] == schema["totals.queue_drops"] == schema["events_processed"] == pl.Int64
    assert schema["links.1.queue.limit"] == pl.Int64 and schema["links.1.queue"] == pl.Utf8
    assert schema["totals.goodput_bps"] == schema["half_drops"] == schema["measured_s"] == pl.Float64
    assert runs["point"].to_list() == [0, 0, 1, 1, 2, 2] and runs["replication"].to_list() == [0, 1] * 3
    assert runs["links.1.queue.limit"].to_list() == [None, None, 20, 20, 60, 60]
    assert runs["links.1.queue"][0] == '{ discipline = "red", limit = 60, min_th = 5, max_th = 15 }'
    assert runs["status"].to_list() == ["ok"] * 6 and runs["error"].null_count() == 6
    assert runs["measured_s"].to_list() == [1.5] * 6

    # Each row is what ccsim.run gives for the point's overrides and the replication's seed.
    row = runs.row(5, named=True)
    res = ccsim.run(short, overrides={"links.1.queue.limit": 60}, seed=derive_seed(1, 1))
    summary = json.loads(row["summary_json"])
    assert summary == {k: v for k, v in res.summary.items() if k not in ("wall_time_s", "events_per_second")}
    assert row["totals.goodput_bps"] == res.totals["goodput_bps"] and row["events_processed"] == res.summary["events_processed"]
    assert row["half_drops"] == res.totals["queue_drops"] / 2
    assert row["delay_ms"] == bottleneck_delay_ms(res.summary)

    # The store: one file per run, the combined table, the definition.
    assert sorted(p.stem for p in (out / "runs").glob("*.parquet")) == sorted(runs["run_key"].to_list())
    assert not list(out.rglob("*.tmp"))
    assert_frame_equal(pl.read_parquet(out / "runs.parquet"), runs)
    d = json.loads((out / "sweep.json").read_text())
    assert d["complete"] is True and d["scenario"] == SHORT_TEXT and d["replications"] == 2 and d["base_seed"] == 1
    assert d["grid"] == LIMITS and d["points"] == points and d["version"] == ccsim.__version__
    assert d["metrics"] == ["half_drops", "delay_ms"] and len(d["runs"]) == 6
    loaded = ccsim.SweepResult.load(out)
    assert_frame_equal(loaded.runs, runs) and loaded.parameters == sw.parameters == ["links.1.queue", "links.1.queue.limit"]

    # summaries() and with_metrics() read the stored reports.
    pairs = list(sw.summaries())
    assert len(pairs) == 6 and "summary_json" not in pairs[0][0] and pairs[0][1]["scenario"] == "dumbbell"
    again = sw.with_metrics({"half_drops_again": half_drops})
    assert again["half_drops_again"].to_list() == runs["half_drops"].to_list()


def test_none_removes_a_key_and_values_as_given(short):
    sw = ccsim.sweep(short, points=[{"series": None}, {"links.1.rate": "5Mbps"}, {"warmup": 1.0}], workers=1, progress=False)
    assert sw.failed.height == 0
    s = [summary for _, summary in sw.summaries()]
    assert s[0]["series"] == [] and len(s[1]["series"]) == 1
    assert s[1]["totals"]["goodput_bps"] < 5e6 and s[2]["measured_s"] == 1.0
    assert sw.runs["series"].to_list() == [None, None, None]
    assert sw.runs["links.1.rate"].to_list() == [None, "5Mbps", None]
    assert sw.runs.schema["warmup"] == pl.Float64


def test_a_failing_point_does_not_stop_the_others(short, tmp_path):
    grid = {"links.1.queue.discipline": ["droptail", "nope"], "links.1.queue.limit": [20, 60]}
    sw = ccsim.sweep(short, grid=grid, replications=2, out=tmp_path, workers=2, progress=False)
    assert sw.runs.height == 8
    failed = sw.failed
    assert failed.height == 4
    assert failed["links.1.queue.discipline"].to_list() == ["nope"] * 4
    assert failed["links.1.queue.limit"].to_list() == [20, 20, 60, 60]
    for message in failed["error"].to_list():
        assert "short.toml: links[1].queue.discipline: unknown discipline" in message and "nope" in message
    assert failed["summary_json"].null_count() == 4 and failed["totals.goodput_bps"].null_count() == 4
    ok = sw.runs.filter(pl.col("status") == "ok")
    assert ok.height == 4 and ok["totals.goodput_bps"].min() > 0
    agg = sw.aggregate("totals.goodput_bps")
    assert agg["failed"].to_list() == [0, 0, 2, 2] and agg["totals.goodput_bps.n"].to_list() == [2, 2, 0, 0]
    # Failed runs are stored, and tried again when the sweep is run again.
    again = ccsim.sweep(short, grid=grid, replications=2, out=tmp_path, workers=1, progress=False)
    assert again.ran == 4 and again.reused == 4 and again.failed.height == 4
    kept = ccsim.sweep(short, grid=grid, replications=2, out=tmp_path, workers=1, progress=False, retry_errors=False)
    assert kept.ran == 0 and kept.failed.height == 4


def test_a_failing_metric_is_reported(short):
    sw = ccsim.sweep(short, replications=2, workers=1, progress=False, metrics={"half_drops": half_drops, "broken": broken_metric})
    assert sw.runs["status"].to_list() == ["error", "error"]
    assert sw.runs["error"][0] == "metric 'broken': ZeroDivisionError: no good"
    assert sw.runs["half_drops"].null_count() == 0 and sw.runs["summary_json"].null_count() == 0


def test_lambdas_are_refused_for_worker_processes(short):
    with pytest.raises(ValueError, match="picklable"):
        ccsim.sweep(short, workers=2, progress=False, metrics={"x": lambda s: 1.0})
    # In this process they work.
    assert ccsim.sweep(short, workers=1, progress=False, metrics={"x": lambda s: 1.0}).runs["x"].to_list() == [1.0]


def test_identical_points_run_once(short, tmp_path):
    sw = ccsim.sweep(
        short, points=[{"links.1.queue.limit": 30}, {"links.1.queue.limit": 30}], replications=2, out=tmp_path, workers=1, progress=False
    )
    assert sw.ran == 2 and sw.runs.height == 4 and len(list((tmp_path / "runs").iterdir())) == 2
    assert sw.runs["point"].to_list() == [0, 0, 1, 1]
    assert_frame_equal(
        no_wall(sw.runs.filter(pl.col("point") == 0)).drop("point"), no_wall(sw.runs.filter(pl.col("point") == 1)).drop("point")
    )


def test_keep_flows(short, tmp_path):
    sw = ccsim.sweep(short, grid=LIMITS, replications=2, out=tmp_path, workers=2, progress=False, keep_flows=True)
    flows = sw.flows
    assert flows.height == 4 * 10
    assert flows.columns[:4] == ["point", "replication", "seed", "flow"] and flows.columns[-1] == "run_key"
    assert flows["point"].to_list() == [0] * 20 + [1] * 20
    sums = flows.group_by("point", "replication", maintain_order=True).agg(pl.col("goodput_bps").sum())
    assert sums["goodput_bps"].to_list() == pytest.approx(sw.runs["totals.goodput_bps"].to_list())
    assert_frame_equal(pl.read_parquet(tmp_path / "flows.parquet"), flows)
    assert len(list((tmp_path / "flows").glob("*.parquet"))) == 4
    assert_frame_equal(ccsim.SweepResult.load(tmp_path).flows, flows)


def test_flows_and_metrics_added_to_a_finished_sweep_without_running_again(short, tmp_path):
    first = ccsim.sweep(short, grid=LIMITS, replications=2, out=tmp_path, workers=1, progress=False)
    second = ccsim.sweep(
        short, grid=LIMITS, replications=2, out=tmp_path, workers=1, progress=False, keep_flows=True, metrics={"half_drops": half_drops}
    )
    assert second.ran == 0 and second.reused == 4
    assert second.runs["half_drops"].to_list() == [d / 2 for d in first.runs["totals.queue_drops"].to_list()]
    assert second.flows.height == 40
    assert_frame_equal(no_wall(second.runs).drop("half_drops"), no_wall(first.runs))


# --- resuming -------------------------------------------------------------------------------


class Stop(Exception):
    pass


def stop_after(k):
    def progress(done, total):
        if done >= k:
            raise Stop(f"{done} of {total}")

    return progress


def mtimes(out):
    return {p.name: p.stat().st_mtime_ns for p in (out / "runs").glob("*.parquet")}


@pytest.mark.parametrize("workers", [1, 2])
def test_interrupted_sweep_resumes_with_the_missing_runs_only(short, tmp_path, workers):
    out = tmp_path / "store"
    kw = dict(grid={"links.1.queue.limit": [20, 40, 60]}, replications=3, workers=workers)
    with pytest.raises(Stop):
        ccsim.sweep(short, out=out, progress=stop_after(4), **kw)
    before = mtimes(out)
    # In this process the sweep stops right after the 4th run; with a pool, runs that
    # finished meanwhile are kept too.
    assert len(before) == 4 if workers == 1 else 4 <= len(before) <= 9
    assert json.loads((out / "sweep.json").read_text())["complete"] is False
    assert not (out / "runs.parquet").exists()
    partial = ccsim.SweepResult.load(out)
    assert partial.runs.height == len(before) and partial.complete == (len(before) == 9)

    time.sleep(0.01)
    calls = []
    sw = ccsim.sweep(short, out=out, progress=lambda done, total: calls.append((done, total)), **kw)
    k = len(before)
    assert sw.ran == 9 - k and sw.reused == k and sw.complete
    assert calls == [(d, 9) for d in range(k + 1, 10)]
    after = mtimes(out)
    assert len(after) == 9
    assert all(after[name] == t for name, t in before.items())  # nothing finished was run again
    assert sw.runs.select("point", "replication").is_unique().all() and sw.runs.height == 9
    fresh = ccsim.sweep(short, out=tmp_path / "fresh", progress=False, **kw)
    assert_frame_equal(no_wall(sw.runs), no_wall(fresh.runs))


def test_deleted_runs_are_run_again(short, tmp_path):
    kw = dict(grid=LIMITS, replications=3, out=tmp_path, workers=2, progress=False)
    first = ccsim.sweep(short, **kw)
    before = mtimes(tmp_path)
    gone = sorted(before)[:2]
    for name in gone:
        (tmp_path / "runs" / name).unlink()
    time.sleep(0.01)
    second = ccsim.sweep(short, **kw)
    assert second.ran == 2 and second.reused == 4
    after = mtimes(tmp_path)
    assert sorted(after) == sorted(before)
    assert [n for n in after if after[n] != before[n]] == [n for n in sorted(after) if n in gone]
    assert_frame_equal(no_wall(first.runs), no_wall(second.runs))


def test_a_store_of_another_format_is_not_resumed(short, tmp_path):
    kw = dict(grid=LIMITS, replications=2, out=tmp_path, workers=1, progress=False)
    first = ccsim.sweep(short, **kw)
    definition = json.loads((tmp_path / "sweep.json").read_text())
    assert definition["format"] == FORMAT == 2
    for old, word in [(1, "an older"), (None, "an older"), (FORMAT + 1, "a newer")]:
        definition["format"] = old
        (tmp_path / "sweep.json").write_text(json.dumps(definition))
        with pytest.raises(StoreFormatError, match=re.escape(str(tmp_path)) + f": this store was written by {word} ccsim") as e:
            ccsim.sweep(short, **kw)
        assert "new directory" in str(e.value) and isinstance(e.value, ValueError)
        # Nothing was touched, and the store still reads.
        assert json.loads((tmp_path / "sweep.json").read_text())["format"] == old
        assert_frame_equal(ccsim.SweepResult.load(tmp_path).runs, first.runs)


def test_cli_refuses_an_old_store(sweep_dir):
    cli = ccsim_cli("sweep", sweep_dir / "sweep.toml", "--quiet", "--workers", "1", cwd=sweep_dir)
    assert cli.returncode == 0, cli.stderr
    store = sweep_dir / "res"
    definition = json.loads((store / "sweep.json").read_text())
    definition["format"] = 1
    (store / "sweep.json").write_text(json.dumps(definition))
    cli = ccsim_cli("sweep", sweep_dir / "sweep.toml", "--quiet", "--workers", "1", cwd=sweep_dir)
    assert cli.returncode == 2 and "store format 1" in cli.stderr and "Traceback" not in cli.stderr


# --- Dask -----------------------------------------------------------------------------------


def test_dask_cluster_gives_the_same_runs_as_the_local_pool(short, tmp_path):
    distributed = pytest.importorskip("distributed")
    kw = dict(
        grid={"links.1.queue.limit": [20, 60], "links.1.rate": ["8Mbps", "10Mbps"]},
        replications=2,
        metrics={"half_drops": half_drops},
        keep_flows=True,
        progress=False,
    )
    pool = ccsim.sweep(short, out=tmp_path / "pool", workers=2, **kw)
    started = time.perf_counter()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        on_cluster = ccsim.sweep(short, out=tmp_path / "dask", scheduler=cluster, **kw)
        by_address = ccsim.sweep(short, out=tmp_path / "address", scheduler=cluster.scheduler_address, **kw)
    print(f"Dask part: {time.perf_counter() - started:.2f} s")
    assert pool.runs.height == 8 and pool.failed.height == 0
    for other in (on_cluster, by_address):
        assert other.ran == 8
        assert_frame_equal(no_wall(pool.runs), no_wall(other.runs))
        assert_frame_equal(pool.flows, other.flows)


# --- aggregate ------------------------------------------------------------------------------


def test_aggregate_by_hand(short):
    sw = ccsim.sweep(
        short, grid={"links.1.queue.limit": [20, 60], "links.1.rate": ["8Mbps", "10Mbps"]}, replications=3, workers=2, progress=False
    )
    agg = sw.aggregate(["totals.goodput_bps", "totals.queue_drops"])
    assert agg.columns[:5] == ["point", "links.1.queue.limit", "links.1.rate", "runs", "failed"]
    assert agg.columns[5:9] == ["totals.goodput_bps.mean", "totals.goodput_bps.std", "totals.goodput_bps.n", "totals.goodput_bps.ci95"]
    assert agg["point"].to_list() == [0, 1, 2, 3] and agg["runs"].to_list() == [3] * 4
    for row in agg.iter_rows(named=True):
        xs = sw.runs.filter(pl.col("point") == row["point"])["totals.goodput_bps"].to_list()
        m = sum(xs) / 3
        s = math.sqrt(sum((x - m) ** 2 for x in xs) / 2)
        assert row["totals.goodput_bps.mean"] == pytest.approx(m, rel=1e-12)
        assert row["totals.goodput_bps.std"] == pytest.approx(s, rel=1e-9)
        assert row["totals.goodput_bps.n"] == 3
        assert row["totals.goodput_bps.ci95"] == pytest.approx(4.302652729749 * s / math.sqrt(3), rel=1e-9)
        assert (row["totals.goodput_bps.mean"], row["totals.goodput_bps.ci95"]) == pytest.approx(mean_ci(xs))
    by_rate = sw.aggregate("totals.goodput_bps", by="links.1.rate", confidence=0.9)
    assert by_rate.columns == [
        "links.1.rate",
        "runs",
        "failed",
        "totals.goodput_bps.mean",
        "totals.goodput_bps.std",
        "totals.goodput_bps.n",
        "totals.goodput_bps.ci90",
    ]
    assert by_rate["links.1.rate"].to_list() == ["8Mbps", "10Mbps"] and by_rate["totals.goodput_bps.n"].to_list() == [6, 6]
    one = ccsim.sweep(short, workers=1, progress=False).aggregate("totals.goodput_bps")
    assert one.height == 1 and one["totals.goodput_bps.n"][0] == 1 and math.isnan(one["totals.goodput_bps.ci95"][0])
    with pytest.raises(KeyError, match="no column"):
        sw.aggregate("totals.nothing")


# --- the command ----------------------------------------------------------------------------


SWEEP_FILE = """\
scenario = "short.toml"
replications = 2
seed = 3
out = "res"
metrics = ["totals.goodput_bps", "totals.queue_drops"]

[[points]]
"links.1.queue" = { discipline = "red", limit = 60, min_th = 5, max_th = 15 }

[grid]
links.1.queue.limit = [20, 60]
"""


@pytest.fixture
def sweep_dir(tmp_path):
    (tmp_path / "short.toml").write_text(SHORT_TEXT)
    (tmp_path / "sweep.toml").write_text(SWEEP_FILE)
    return tmp_path


@pytest.mark.slow
def test_cli_sweep_end_to_end(sweep_dir):
    p = ccsim_cli("sweep", sweep_dir / "sweep.toml", "--workers", "2", cwd=sweep_dir.parent)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""  # no progress bar: stderr is not a terminal
    lines = p.stdout.splitlines()
    assert lines[0].startswith("sweep.toml: 6 runs (3 points x 2 replications) in ")
    assert lines[0].endswith(f"results in {sweep_dir / 'res'}/")
    header = next(line for line in lines if line.startswith("point"))
    assert header.split() == ["point", "links.1.queue", "links.1.queue.limit", "totals.goodput_bps", "totals.queue_drops"]
    rows = lines[lines.index(header) + 1 :]
    assert len(rows) == 3 and all(re.search(r"M ± \S+ \(2\)", r) for r in rows)
    runs = pl.read_parquet(sweep_dir / "res" / "runs.parquet")
    assert runs.height == 6 and runs["seed"].unique().sort().to_list() == sorted(derive_seed(3, r) for r in range(2))
    # The same as the Python API.
    api = ccsim.sweep(
        sweep_dir / "short.toml",
        points=[{"links.1.queue": {"discipline": "red", "limit": 60, "min_th": 5, "max_th": 15}}],
        grid={"links.1.queue.limit": [20, 60]},
        replications=2,
        base_seed=3,
        workers=1,
        progress=False,
    )
    assert_frame_equal(no_wall(runs), no_wall(api.runs))
    # Again: nothing to run; --out elsewhere runs everything.
    again = ccsim_cli("sweep", sweep_dir / "sweep.toml", "--quiet", cwd=sweep_dir)
    assert again.returncode == 0 and again.stdout == "" and again.stderr == ""
    other = ccsim_cli("sweep", "sweep.toml", "--out", "elsewhere", "--workers", "1", cwd=sweep_dir)
    assert other.returncode == 0, other.stderr
    assert "6 runs" in other.stdout and "already done" not in other.stdout
    assert (sweep_dir / "elsewhere" / "runs.parquet").exists()


def test_cli_sweep_without_common_random_numbers(sweep_dir):
    p = ccsim_cli("sweep", "sweep.toml", "--quiet", "--workers", "1", "--out", "indep", "--no-common-random-numbers", cwd=sweep_dir)
    assert p.returncode == 0, p.stderr
    runs = pl.read_parquet(sweep_dir / "indep" / "runs.parquet")
    assert runs["seed"].to_list() == [derive_seed(3, r, i) for i in range(3) for r in range(2)]
    # The same from the sweep file.
    (sweep_dir / "indep.toml").write_text("common_random_numbers = false\n" + SWEEP_FILE)
    p = ccsim_cli("sweep", "indep.toml", "--quiet", "--workers", "1", "--out", "indep2", cwd=sweep_dir)
    assert p.returncode == 0, p.stderr
    assert_frame_equal(no_wall(pl.read_parquet(sweep_dir / "indep2" / "runs.parquet")), no_wall(runs))


def test_cli_sweep_reports_failed_points(sweep_dir):
    (sweep_dir / "bad.toml").write_text('scenario = "short.toml"\n[grid]\n"links.1.queue.discipline" = ["droptail", "nope"]\n')
    p = ccsim_cli("sweep", "bad.toml", "--workers", "1", cwd=sweep_dir)
    assert p.returncode == 1
    assert "1 of 2 runs failed:" in p.stderr
    assert "point 1 (links.1.queue.discipline=nope), replication 0: short.toml: links[1].queue.discipline: unknown discipline" in p.stderr
    assert "Traceback" not in p.stderr
    assert (sweep_dir / "results" / "bad" / "runs.parquet").exists()  # the default store


@pytest.mark.parametrize(
    "text, message",
    [
        ("replications = 2\n", "sweep.toml: scenario: required"),
        ('scenario = "missing.toml"\n', "sweep.toml: scenario: no such file"),
        ('scenario = "short.toml"\nreplications = 0\n', "sweep.toml: replications: must be a positive integer, got 0"),
        ('scenario = "short.toml"\nseed = -4\n', "sweep.toml: seed: must be an integer from 0"),
        ('scenario = "short.toml"\nrepetitions = 3\n', "sweep.toml: repetitions: unknown field"),
        ('scenario = "short.toml"\nmetrics = ["goodput"]\n', "sweep.toml: metrics[0]: unknown column 'goodput'"),
        ('scenario = "short.toml"\n[grid]\n"links.1.rate" = "5Mbps"\n', "sweep.toml: grid.links.1.rate: must be a list of values"),
        ('scenario = "short.toml"\n[grid]\nseed = [1, 2]\n', "sweep.toml: grid.seed: 'seed' cannot be swept"),
        ('scenario = "short.toml"\n[grid]\n"a" = []\n', "sweep.toml: grid.a: no values"),
        ('scenario = "short.toml"\npoints = [1]\n', "sweep.toml: points: must be an array of tables"),
        ('scenario = "short.toml"\nreplications = \n', "sweep.toml: not valid TOML"),
    ],
)
def test_cli_sweep_file_errors(sweep_dir, text, message):
    (sweep_dir / "sweep.toml").write_text(text)
    p = ccsim_cli("sweep", "sweep.toml", cwd=sweep_dir)
    assert p.returncode == 2
    assert p.stderr.startswith(f"error: {message}"), p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""


def test_cli_sweep_help_and_usage_errors(sweep_dir):
    p = ccsim_cli("sweep", "--help")
    assert p.returncode == 0
    for text in ("examples:", "ccsim sweep scenarios/sweep_dumbbell.toml", "--scheduler", "[grid]", "replications", "exit status"):
        assert text in p.stdout
    p = ccsim_cli("sweep", "sweep.toml", "--workers", "0", cwd=sweep_dir)
    assert p.returncode == 2 and "error:" in p.stderr and "positive" in p.stderr
    p = ccsim_cli("sweep", "nope.toml", cwd=sweep_dir)
    assert p.returncode == 2 and p.stderr == "error: nope.toml: no such file\n"


def test_example_sweep_file_is_valid():
    from ccsim.commands.sweep import load_sweep_file

    spec = load_sweep_file(DUMBBELL.parent / "sweep_dumbbell.toml")
    assert spec.scenario == DUMBBELL.parent / "dumbbell.toml"
    assert spec.replications == 5 and spec.grid == {"links.1.queue.limit": [25, 50, 100, 200]} and len(spec.points) == 1


def test_a_misspelt_override_key_stops_the_sweep_before_any_run(tmp_path):
    with pytest.raises(ccsim.ScenarioError, match=r"links\[1\]\.queue\.limt: unknown field `limt`.*no run was started"):
        ccsim.sweep(SHORT_TEXT, grid={"links.1.queue.limt": [1, 2]}, workers=1, out=tmp_path / "s", progress=False)
    assert not (tmp_path / "s").exists()
    # A key that exists only with another override of its point (RED's thresholds) is fine.
    red = {"links.0.queue.discipline": "red", "links.0.queue.min_th": 5, "links.0.queue.max_th": 15}
    res = ccsim.sweep(SHORT_TEXT, points=[red], workers=1, progress=False)
    assert res.runs["status"].to_list() == ["ok"]


def test_failed_runs_are_warned_about_and_aggregate_says_why(tmp_path):
    from ccsim.sweeps import RunsFailedWarning

    with pytest.warns(RunsFailedWarning, match=r"every run of the sweep failed .*point 0: .*unknown discipline"):
        res = ccsim.sweep(SHORT_TEXT, grid={"links.1.queue.discipline": ["nope", "nada"]}, workers=1, progress=False)
    with pytest.raises(
        ValueError, match=r"no column 'totals.goodput_bps': every run of the sweep failed \(2 runs; the first: .*unknown discipline"
    ):
        res.aggregate("totals.goodput_bps")
    with pytest.warns(RunsFailedWarning, match=r"^1 of 2 runs of the sweep failed"):
        ccsim.sweep(SHORT_TEXT, grid={"links.1.queue.discipline": ["droptail", "nope"]}, workers=1, progress=False)
