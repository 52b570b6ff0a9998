"""The Python API: ccsim.run, Results, ScenarioError and the low-level Simulation."""

import json
import math
import sys

import polars as pl
import pytest

import ccsim
from conftest import DUMBBELL, SHORT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = pytest.importorskip("tomli")


@pytest.fixture(scope="module")
def res():
    return ccsim.run(DUMBBELL, overrides=SHORT)


def without_wall(summary):
    return {k: v for k, v in summary.items() if k not in ("wall_time_s", "events_per_second")}


def test_version():
    assert ccsim.__version__ == ccsim._core.version()
    assert ccsim.__version__.count(".") == 2


def test_summary_fields(res):
    s = res.summary
    assert s["scenario"] == "dumbbell"
    assert s["seed"] == 1
    assert s["duration_s"] == 3.0 and s["warmup_s"] == 1.0 and s["measured_s"] == 2.0
    assert s["events_processed"] > 1000
    assert s["wall_time_s"] > 0 and s["events_per_second"] > 0
    assert set(res.totals) == {
        "goodput_bps",
        "delivered_bytes",
        "packets_sent",
        "retransmitted_packets",
        "fast_retransmits",
        "timeouts",
        "queue_drops",
        "jain_fairness",
    }
    # 10 flows through a 10 Mb/s bottleneck.
    assert 5e6 < res.totals["goodput_bps"] <= 10e6
    assert 0 < res.totals["jain_fairness"] <= 1


def test_tables(res):
    assert isinstance(res.flows, pl.DataFrame)
    assert res.flows.height == 10
    assert res.flows["flow"].to_list() == [f"bulk[{i}]" for i in range(10)]
    assert res.flows.schema["packets_sent"] == pl.Int64
    assert res.flows.schema["completion_time_s"] == pl.Float64
    assert res.flows["goodput_bps"].sum() == pytest.approx(res.totals["goodput_bps"])
    # 21 duplex links in the dumbbell: 42 one-way links, each with its queue.
    assert res.links.height == res.queues.height == 42
    assert res.nodes.height == 22
    bottleneck = res.queues.filter(pl.col("link") == "R1->R2").row(0, named=True)
    assert bottleneck["drops"] == res.totals["queue_drops"] > 0
    assert res.queues.schema["drop_areas"] == pl.List(pl.Int64)
    link = res.links.filter(pl.col("link") == "R1->R2").row(0, named=True)
    assert link["rate_bps"] == 10_000_000 and link["delay_ms"] == pytest.approx(20)
    assert 0.5 < link["utilisation"] <= 1.0
    assert set(res.nodes["kind"]) == {"host", "router"}


def test_series(res):
    assert list(res.series) == ["queue R1->R2"]
    q = res.series["queue R1->R2"]
    assert q.columns == ["t", "value"]
    assert q.height == 31  # every 100 ms from 0 to 3 s
    assert q["t"][1] == pytest.approx(0.1)
    assert q["value"].max() <= 100
    long = res.series_long()
    assert long.columns == ["name", "t", "value"] and long.height == 31


def test_describe(res):
    text = res.describe()
    assert "goodput" in text and "bulk" in text and "R1->R2" in text
    assert "dumbbell" in repr(res)


def test_scenario_as_path_str_text_and_dict(res):
    text = DUMBBELL.read_text()
    as_str = ccsim.run(str(DUMBBELL), overrides=SHORT, progress=False)
    as_text = ccsim.run(text, overrides=SHORT, progress=False)
    as_dict = ccsim.run(tomllib.loads(text), overrides=SHORT, progress=False)
    for other in (as_str, as_text, as_dict):
        assert without_wall(other.summary) == without_wall(res.summary)


def test_dict_scenario_built_in_python():
    scenario = {
        "name": "two hosts",
        "duration": "2s",
        "hosts": ["A", "B"],
        "links": [{"between": ["A", "B"], "rate": "1Mbps", "delay": "10ms", "queue": {"limit": 20}}],
        "flows": [{"name": "f", "from": "A", "to": "B", "tcp": {"mss": 500}}],
    }
    r = ccsim.run(scenario)
    assert r.scenario == "two hosts"
    assert r.flows.height == 1
    assert 0.5e6 < r.totals["goodput_bps"] <= 1e6


def test_overrides_as_dict():
    a = ccsim.run(DUMBBELL, overrides={"duration": "3s", "warmup": 1, "flows.bulk.count": 1})
    b = ccsim.run(DUMBBELL, overrides=SHORT + ["flows.bulk.count=1"])
    assert without_wall(a.summary) == without_wall(b.summary)


def test_none_in_a_dict_override_removes_the_key():
    # The dumbbell's warm-up is removed: statistics then cover the whole run.
    r = ccsim.run(DUMBBELL, overrides={"duration": "3s", "warmup": None})
    assert r.summary["warmup_s"] == 0 and r.summary["measured_s"] == 3


def test_seed():
    a = ccsim.run(DUMBBELL, overrides=SHORT, seed=7)
    b = ccsim.run(DUMBBELL, overrides=SHORT, seed=7)
    c = ccsim.run(DUMBBELL, overrides=SHORT, seed=8)
    assert a.seed == 7 and c.seed == 8
    assert without_wall(a.summary) == without_wall(b.summary)
    assert a.flows["start_s"].to_list() != c.flows["start_s"].to_list()


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, "3", True])
def test_bad_seed(seed):
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(DUMBBELL, overrides=SHORT, seed=seed)
    assert e.value.path == "seed"


def test_largest_seed():
    assert ccsim.run(DUMBBELL, overrides=SHORT, seed=2**64 - 1).seed == 2**64 - 1


def test_stepping_does_not_change_results(res):
    steps = []
    stepped = ccsim.run(DUMBBELL, overrides=SHORT, progress=lambda now, stop: steps.append((now, stop)))
    assert len(steps) == 200
    assert steps[-1] == (3.0, 3.0)
    assert all(a[0] <= b[0] for a, b in zip(steps, steps[1:]))
    sim = ccsim.Simulation(DUMBBELL.read_text(), "x", SHORT, None)
    sim.run_until(math.inf)
    whole = json.loads(sim.report_json())
    assert whole == without_wall(stepped.summary) == without_wall(res.summary)


def test_scenario_error_attributes():
    text = 'duration = "1s"\n[[links]]\nbetween = ["A", "B"]\nrate = "1Mbps"\ndelay = "1ms"\nbogus = 1\n'
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(text)
    err = e.value
    assert isinstance(err, ValueError)
    assert err.origin == "<string>"
    assert err.path == "links[0].bogus"
    assert "unknown field" in err.message
    assert str(err) == f"{err.origin}: {err.path}: {err.message}"


def test_scenario_error_from_file_names_the_file(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('duration = "1s"\nhosts = ["A"]\n[[links]]\nfrom = "A"\nto = "Z"\nrate = "1Mbps"\ndelay = "1ms"\n')
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(f)
    assert e.value.origin == str(f)
    assert str(e.value).startswith(f"{f}: ")


def test_missing_file():
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run("no/such/file.toml")
    assert e.value.origin == "no/such/file.toml" and e.value.path == ""
    assert str(e.value) == "no/such/file.toml: no such file"


def test_bad_toml_text():
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run('duration = "1s"\nhosts = [\n')
    assert "not valid TOML" in e.value.message
    assert e.value.path.startswith("line ")


def test_bad_override():
    with pytest.raises(ccsim.ScenarioError, match="key.path=value"):
        ccsim.run(DUMBBELL, overrides=["nonsense"])
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(DUMBBELL, overrides=["links.1.rate=fast"])
    assert e.value.path == "links[1].rate"


def test_dict_with_none_is_an_error():
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run({"duration": "1s", "links": [{"rate": None}]})
    assert e.value.origin == "<dict>" and e.value.path == "links[0].rate"


@pytest.mark.parametrize("scenario", [42, None, b'duration = "1s"', ["a"], ("a",), 1.5])
def test_a_value_that_is_no_scenario_is_a_scenario_error(scenario):
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(scenario)
    assert (e.value.origin, e.value.path) == ("<argument>", "scenario")
    assert e.value.message.startswith(f"must be a path, TOML text or a dict, not {type(scenario).__name__}")


@pytest.mark.parametrize(
    "kwargs, path",
    [
        ({"overrides": 5}, "overrides"),
        ({"overrides": ["duration=1s", 5]}, "overrides[1]"),
        ({"overrides": {1: 2}}, "overrides"),
        ({"overrides": ["nonsense"]}, "overrides[0]"),
        ({"overrides": [" =1"]}, "overrides[0]"),
        ({"overrides": ["flows.0.name=\ud800"]}, "overrides[0]"),
        ({"max_events": 0}, "max_events"),
        ({"max_events": "many"}, "max_events"),
        ({"seed": [[[[1]]]]}, "seed"),
        ({"out_dir": "out\ud800"}, "out_dir"),
        ({"out_dir": 5}, "out_dir"),
    ],
)
def test_errors_in_the_arguments_name_the_argument(kwargs, path):
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(DUMBBELL, **kwargs)
    assert e.value.path == path, str(e.value)


def test_a_scenario_without_a_duration_names_the_field():
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run({"hosts": ["A"]})
    assert (e.value.path, e.value.message) == ("duration", "missing field `duration`")


def test_a_deep_key_path_is_refused_without_a_crash():
    # 21,700 parts once overflowed the stack and killed the interpreter.
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(DUMBBELL, overrides=[".".join(["a"] * 21_700) + "=1"])
    assert e.value.path.startswith("a.a.a") and e.value.path.endswith("...") and "21700 keys, more than 64" in e.value.message


def test_a_value_that_contains_itself_is_a_scenario_error():
    loop = {}
    loop["x"] = loop
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run({"duration": "1s", "flows": [{"tcp": loop}]})
    assert e.value.path.startswith("flows[0].tcp.x.x.x") and "nested more than 64 deep" in e.value.message


@pytest.mark.parametrize("rate", ["1Tbps", "1Tbit/s", "1 Tb/s"])
def test_a_terabit_is_a_rate(rate):
    res = ccsim.run(DUMBBELL, overrides=[*SHORT, f"links.0.rate={rate}"])
    assert res.summary["links"][0]["rate_bps"] == 10**12


@pytest.mark.parametrize(
    "override, said",
    [
        ("links.1.rate=10mbps", 'did you mean "10Mbps"?'),
        ('links.1.rate="10 mbit"', 'did you mean "10 Mbit"?'),
        ("links.1.rate=10MBps", '"10MBps" in bytes per second is "80Mbps"'),
        ("links.1.queue.discipline=fq-codel", 'did you mean "fq_codel"?'),
    ],
)
def test_common_slips_get_what_was_probably_meant(override, said):
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(DUMBBELL, overrides=[override])
    assert said in e.value.message, str(e.value)


def test_low_level_simulation():
    sim = ccsim.Simulation(DUMBBELL.read_text(), "dumbbell.toml", SHORT, 3)
    assert sim.now == 0.0 and sim.stop_time == 3.0 and sim.events_processed == 0
    sim.run_until(0.5)
    assert sim.now == 0.5
    n = sim.events_processed
    assert n > 0
    sim.run_until(100.0)  # clamped to the stop time
    assert sim.now == 3.0 and sim.events_processed > n
    report = json.loads(sim.report_json())
    assert report["seed"] == 3 and report["events_processed"] == sim.events_processed
    with pytest.raises(ValueError):
        sim.run_until(float("nan"))


def test_summary_json_is_the_report_without_its_tables():
    sim = ccsim.Simulation(DUMBBELL.read_text(), "dumbbell.toml", SHORT, 3)
    sim.run_until(math.inf)
    full, summary = json.loads(sim.report_json()), json.loads(sim.summary_json(["R1->R2"]))
    assert (summary["flows"], summary["links"], summary["nodes"]) == ([], [], [])
    assert summary["queues"] == [q for q in full["queues"] if q["link"] == "R1->R2"]
    assert summary["totals"] == full["totals"]
    tables = ("flows", "queues", "links", "nodes")
    assert {k: v for k, v in summary.items() if k not in tables} == {k: v for k, v in full.items() if k not in tables}
    assert json.loads(sim.summary_json())["queues"] == []


def test_to_parquet_round_trip(res, tmp_path):
    out = res.to_parquet(tmp_path / "out")
    names = {p.name for p in out.iterdir()}
    assert names == {"flows.parquet", "queues.parquet", "links.parquet", "nodes.parquet", "series.parquet", "summary.json", "scenario.json"}
    assert pl.read_parquet(out / "flows.parquet").equals(res.flows)
    assert pl.read_parquet(out / "queues.parquet").equals(res.queues)
    assert pl.read_parquet(out / "series.parquet").equals(res.series_long())
    again = ccsim.Results.load(out)
    assert again.summary == res.summary
    assert again.links.equals(res.links)


def test_to_pandas(res):
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    frames = res.to_pandas()
    assert set(frames) == {"flows", "queues", "links", "nodes", "series"}
    assert len(frames["flows"]) == 10


def test_run_until_releases_the_gil():
    import threading
    import time

    # About a second of work: 1000 s of the dumbbell (tens of millions of events).
    sim = ccsim.Simulation(DUMBBELL.read_text(), "dumbbell.toml", ["duration=1000s"], None)
    worker = threading.Thread(target=sim.run_until, args=(math.inf,))
    ticks = 0
    started = time.perf_counter()
    worker.start()
    while worker.is_alive():
        ticks += 1
        time.sleep(0.005)
    elapsed = time.perf_counter() - started
    assert sim.now == 1000.0
    # With the GIL held for the whole run this thread would hardly get to run at all.
    if elapsed > 0.3:
        assert ticks >= 20, (ticks, elapsed)
