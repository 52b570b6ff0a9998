"""Plug-ins written in Python (python/ccsim/plugins.py): the path itself is checked by Reno
and RED written as plug-ins, which must give byte-identical reports to the built-in ones;
then determinism, errors, the CLI, router mechanisms and sweeps."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ccsim
import plugin_examples

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BASE = (ROOT / "scenarios" / "dumbbell.toml").read_text().split("[[series]]")[0]


def scenario(variant: str = "newreno", queue: str = 'discipline = "droptail", limit = 100', extra: str = "") -> str:
    text = BASE.replace('variant = "newreno"', f'variant = "{variant}"')
    text = text.replace('queue = { discipline = "droptail", limit = 100 }', f"queue = {{ {queue} }}")
    return 'plugins = ["plugin_examples"]\n' + text + extra


def report(text: str, seed: int | None = None) -> str:
    sim = ccsim.Simulation(text, "<test>", [], seed)
    sim.run_until(float("inf"))
    return sim.report_json()


def bottleneck(rep: str) -> dict:
    return next(q for q in json.loads(rep)["queues"] if q["link"] == "R1->R2")


def test_reno_as_a_plugin_gives_the_built_in_renos_report_byte_for_byte():
    builtin = report(scenario("reno"))
    assert report(scenario("pyreno")) == builtin
    assert bottleneck(builtin)["drops"] > 0, "losses exercise reduce and fast recovery"


def test_red_as_a_plugin_gives_the_built_in_reds_report_byte_for_byte():
    red = 'discipline = "red", limit = 100, min_th = 5, max_th = 15'
    builtin = report(scenario(queue=red))
    assert report(scenario(queue=red.replace('"red"', '"pyred"'))) == builtin
    q = bottleneck(builtin)
    assert q["drops_early"] > 0 and q["drops_forced"] > 0, "both of RED's signals are exercised"


def test_a_plugin_draws_from_its_named_stream_so_a_seed_gives_one_result():
    text = scenario(queue='discipline = "random_drop_py", p = 0.05')
    first = report(text, seed=3)
    assert report(text, seed=3) == first
    assert report(text, seed=4) != first
    assert bottleneck(first)["drops_early"] > 0


def test_an_empty_subclass_is_newreno():
    class Plain(ccsim.CongestionControl):
        pass

    ccsim.register_cc("plain_newreno", Plain)
    assert report(scenario("plain_newreno")) == report(scenario("newreno"))


def test_loss_ecn_and_timeout_hooks_in_python_give_the_core_rules_results():
    red_ecn = 'discipline = "red", limit = 100, min_th = 5, max_th = 15, signal = "ecn"'
    for queue in ['discipline = "droptail", limit = 20', red_ecn]:
        text = scenario(queue=queue).replace("mss = 1000 }", "mss = 1000, ecn = true }")
        builtin = report(text)
        assert report(text.replace('variant = "newreno"', 'variant = "standard_decrease"')) == builtin
    flows = json.loads(builtin)["flows"]
    assert sum(f["ecn_reductions"] for f in flows) > 0


def test_rate_samples_reach_a_plugin_that_asks_and_it_may_pace():
    plugin_examples.EveryHook.samples_seen = 0
    plugin_examples.EveryHook.samples_back_in_time = 0
    rep = json.loads(report(scenario("every_hook")))
    assert plugin_examples.EveryHook.samples_seen > 1000
    assert plugin_examples.EveryHook.samples_back_in_time == 0
    assert plugin_examples.EveryHook.latest_sample_at > 1.0  # seconds of the run
    assert rep["totals"]["goodput_bps"] > 5e6


def test_an_exception_in_a_hook_stops_the_run_with_its_traceback_time_flow_and_hook():
    sim = ccsim.Simulation(scenario("boom"), "<test>", [], None)
    with pytest.raises(ccsim.PluginError) as info:
        sim.run_until(float("inf"))
    e = info.value
    assert (e.plugin, e.hook) == ("boom", "on_ack")
    assert e.site.startswith("flow bulk[") and 1.0 < e.time < 1.1
    text = str(e)
    assert text.startswith(
        f'plug-in "boom" failed in on_ack at t = {e.time} s ({e.site}): ZeroDivisionError: the window divided by zero\nTraceback'
    )
    assert "plugin_examples.py" in text and "raise ZeroDivisionError" in text
    with pytest.raises(ccsim.PluginError, match="cannot go on"):
        sim.run_until(float("inf"))


@pytest.mark.parametrize(("value", "shown"), [("-5", "cwnd = -5"), ("nan", "cwnd = NaN"), ("1099511627776", "cwnd = 1099511627776")])
def test_a_bad_window_is_one_line_naming_it(value, shown):
    text = scenario("negative").replace('variant = "negative"', f'variant = "negative", negative = {{ value = {value} }}')
    with pytest.raises(ccsim.PluginError) as info:
        report(text)
    message = str(info.value)
    assert "\n" not in message and info.value.hook == "on_loss"
    assert message.endswith(f"({info.value.site}): {shown}: must be a number of bytes from 1 to 4294967295")


def test_a_bad_verdict_is_one_line_naming_it():
    with pytest.raises(ccsim.PluginError) as info:
        report(scenario(queue='discipline = "bad_verdict"'))
    assert str(info.value).endswith("(link R1->R2): on_arrival returned 'drop': expected ADMIT, EARLY, FORCED or EARLY_DROP")


def test_settings_go_to_init_and_its_errors_name_the_table():
    with pytest.raises(ccsim.ScenarioError) as info:
        ccsim.Simulation(scenario(queue='discipline = "pyred", max_th = 15'), "<test>", [], None)
    assert info.value.path == "links[1].queue"
    assert "PyRed raised TypeError" in info.value.message and "min_th" in info.value.message
    with pytest.raises(ccsim.ScenarioError) as info:
        ccsim.Simulation(scenario("boom").replace('variant = "boom"', 'variant = "boom", boom = { when = 2 }'), "<test>", [], None)
    assert info.value.path == "flows[0].tcp.boom"


def test_a_built_in_name_or_a_class_of_another_kind_is_refused():
    with pytest.raises(ValueError, match="built-in congestion control"):
        ccsim.register_cc("reno", plugin_examples.PyReno)
    with pytest.raises(ValueError, match="built-in queue discipline"):
        ccsim.register_queue("codel", plugin_examples.PyRed)
    with pytest.raises(TypeError, match="not a subclass of ccsim.QueueDiscipline"):
        ccsim.register_queue("reno_as_queue", plugin_examples.PyReno)


def test_an_unknown_module_names_the_plugins_entry():
    with pytest.raises(ccsim.ScenarioError) as info:
        ccsim.Simulation('plugins = ["no_such_module_here"]\n' + BASE, "<test>", [], None)
    assert info.value.path == "plugins[0]" and "ModuleNotFoundError" in info.value.message


def test_a_router_mechanism_discards_and_the_flows_see_it():
    text = scenario(extra='\n[[mechanisms]]\nname = "blackhole"\nrouter = "R1"\nstart = 10.0\nstop = 10.5\n')
    flows = json.loads(report(text))["flows"]
    plain = json.loads(report(scenario()))["flows"]
    assert sum(f["forward_dropped"] for f in flows) > sum(f["forward_dropped"] for f in plain)
    assert sum(f["timeouts"] for f in flows) > sum(f["timeouts"] for f in plain)


def test_a_mechanism_changes_actions_until_its_timer_expires():
    plugin_examples.Dropper.calls.clear()
    text = scenario(extra='\n[[mechanisms]]\nname = "dropper"\nflow = 3\n')
    flows = json.loads(report(text))["flows"]
    plain = json.loads(report(scenario()))["flows"]
    assert flows[3]["forward_dropped"] > plain[3]["forward_dropped"]
    a, b, at = plugin_examples.Dropper.calls["on_timer"]
    assert (a, b) == (7, 8) and 10.5 <= at < 10.6
    assert plugin_examples.Dropper.calls["on_verdict"] > 1000


def test_an_unknown_mechanism_names_its_table():
    with pytest.raises(ccsim.ScenarioError) as info:
        ccsim.Simulation(scenario(extra='\n[[mechanisms]]\nname = "nothing"\n'), "<test>", [], None)
    assert info.value.path == "mechanisms[0].name" and "blackhole" in info.value.message


def test_the_cli_prints_the_failure_and_exits_1(tmp_path):
    (tmp_path / "s.toml").write_text(scenario("boom"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "ccsim", "run", "s.toml"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert done.returncode == 1, done.stderr
    assert 'error: plug-in "boom" failed in on_ack at t = ' in done.stderr
    assert "ZeroDivisionError: the window divided by zero" in done.stderr and "Traceback" in done.stderr


def test_a_module_beside_the_scenario_is_found(tmp_path):
    (tmp_path / "beside.py").write_text(
        "import ccsim\n\nclass Tail(ccsim.QueueDiscipline):\n    def on_arrival(self, pkt, queue):\n        return ccsim.ADMIT\n\nccsim.register_queue('beside_tail', Tail)\n"
    )
    path = tmp_path / "s.toml"
    path.write_text(
        scenario(queue='discipline = "beside_tail", limit = 100').replace('plugins = ["plugin_examples"]', 'plugins = ["beside"]')
    )
    res = ccsim.run(path)
    assert res.totals["goodput_bps"] > 0


def test_a_sweep_runs_plugins_in_its_workers_with_the_same_results(tmp_path):
    reports = []
    for workers in (1, 2):
        sw = ccsim.sweep(
            scenario(queue='discipline = "pyred", limit = 100, min_th = 5, max_th = 15'),
            grid={"links.1.queue.max_p": [0.05, 0.2]},
            out=tmp_path / f"sw{workers}",
            workers=workers,
            progress=False,
        )
        assert sw.runs.height == 2 and set(sw.runs["status"].to_list()) == {"ok"}, sw.runs
        reports.append([report for _, report in sw.summaries()])
    assert reports[0] == reports[1]
