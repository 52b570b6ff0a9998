"""The `ccsim` command, run as a subprocess like a user would."""

import importlib.metadata
import json
import os
import subprocess
import sys

import pytest

from conftest import DUMBBELL, SHORT_ARGS, ccsim_cli

NONDETERMINISTIC = ("wall_time_s", "events_per_second")


def run_json(*extra):
    p = ccsim_cli("run", DUMBBELL, *SHORT_ARGS, "--json", *extra)
    assert p.returncode == 0, p.stderr
    return p.stdout


def strip(text):
    d = json.loads(text)
    for k in NONDETERMINISTIC:
        del d[k]
    return json.dumps(d)


def test_text_summary():
    p = ccsim_cli("run", DUMBBELL, *SHORT_ARGS)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("dumbbell: seed 1, 3 s simulated (1 s warm-up, 2 s measured)")
    for word in ("totals", "goodput", "Jain fairness", "flow groups", "bulk", "queues that dropped", "R1->R2"):
        assert word in p.stdout
    assert p.stderr == ""  # no progress bar: stderr is not a terminal


def test_json_is_the_report_plus_two_fields():
    d = json.loads(run_json())
    assert list(d)[-2:] == list(NONDETERMINISTIC)
    assert d["scenario"] == "dumbbell" and d["duration_s"] == 3.0
    assert len(d["flows"]) == 10
    assert d["events_per_second"] > 0


def test_json_is_deterministic():
    a, b = run_json(), run_json()
    assert strip(a) == strip(b)
    # ... byte for byte, apart from the two timing fields at the end
    a_prefix = a[: a.index('"wall_time_s"')]
    b_prefix = b[: b.index('"wall_time_s"')]
    assert a_prefix == b_prefix


def test_seed_option():
    a = json.loads(run_json("--seed", "5"))
    b = json.loads(run_json("--seed", "6"))
    assert a["seed"] == 5 and b["seed"] == 6
    assert a["flows"] != b["flows"]


def test_cli_matches_api():
    import ccsim

    api = ccsim.run(DUMBBELL, overrides=["duration=3s", "warmup=1s"])
    assert strip(run_json()) == strip(api.to_json())


def test_out_writes_parquet(tmp_path):
    out = tmp_path / "res"
    p = ccsim_cli("run", DUMBBELL, *SHORT_ARGS, "--out", out, "--quiet")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "" and p.stderr == ""
    summary = json.loads((out / "summary.json").read_text())
    assert summary["scenario"] == "dumbbell"

    import polars as pl

    flows = pl.read_parquet(out / "flows.parquet")
    assert flows.height == 10 and flows["goodput_bps"].sum() == pytest.approx(summary["totals"]["goodput_bps"])
    queues = pl.read_parquet(out / "queues.parquet")
    assert queues.filter(pl.col("link") == "R1->R2")["drops"][0] == summary["totals"]["queue_drops"]
    assert pl.read_parquet(out / "links.parquet").height == 42
    assert pl.read_parquet(out / "nodes.parquet").height == 22
    series = pl.read_parquet(out / "series.parquet")
    assert series.columns == ["name", "t", "value"] and series["name"].unique().to_list() == ["queue R1->R2"]


def test_out_with_duckdb(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    out = tmp_path / "res"
    assert ccsim_cli("run", DUMBBELL, *SHORT_ARGS, "--out", out, "-q").returncode == 0
    con = duckdb.connect()
    n, goodput = con.execute(f"select count(*), sum(goodput_bps) from '{out / 'flows.parquet'}'").fetchone()
    assert n == 10 and goodput > 0
    drops = con.execute(f"select drops from '{out / 'queues.parquet'}' where link = 'R1->R2'").fetchone()[0]
    assert drops > 0
    assert con.execute(f"select count(distinct name) from '{out / 'series.parquet'}'").fetchone()[0] == 1


def test_out_with_pandas(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    out = tmp_path / "res"
    assert ccsim_cli("run", DUMBBELL, *SHORT_ARGS, "--out", out, "-q").returncode == 0
    flows = pd.read_parquet(out / "flows.parquet")
    assert len(flows) == 10 and flows["goodput_bps"].gt(0).all()
    assert len(pd.read_parquet(out / "links.parquet")) == 42


def test_out_and_json_together(tmp_path):
    out = tmp_path / "res"
    p = ccsim_cli("run", DUMBBELL, *SHORT_ARGS, "--out", out, "--json")
    assert p.returncode == 0, p.stderr
    assert strip(p.stdout) == strip((out / "summary.json").read_text())


def test_out_text_summary_mentions_directory(tmp_path):
    p = ccsim_cli("run", DUMBBELL, *SHORT_ARGS, "--out", tmp_path / "r")
    assert p.returncode == 0 and "wrote" in p.stdout and str(tmp_path / "r") in p.stdout


@pytest.fixture
def bad_files(tmp_path):
    (tmp_path / "bad.toml").write_text('duration = "1s"\nhosts = [\n')
    (tmp_path / "binary.toml").write_bytes(b"\xff\xfe\x00")
    (tmp_path / "unknown.toml").write_text(DUMBBELL.read_text() + "\nbogus = 1\n")
    (tmp_path / "afile").write_text("x")
    return tmp_path


ERROR_CASES = {
    "missing file": (["run", "{t}/nope.toml"], "nope.toml: no such file"),
    "directory": (["run", "{t}"], "is a directory"),
    "bad TOML": (["run", "{t}/bad.toml"], "bad.toml: line 3: not valid TOML"),
    "not UTF-8": (["run", "{t}/binary.toml"], "not UTF-8"),
    "unknown field": (["run", "{t}/unknown.toml"], "bogus: unknown field `bogus`"),
    "unknown field by override": (["run", str(DUMBBELL), "--set", "links.1.bogus=1"], "links[1].bogus: unknown field"),
    "override without =": (["run", str(DUMBBELL), "--set", "duration"], "is not of the form key.path=value"),
    "override index": (["run", str(DUMBBELL), "--set", "flows.3.count=1"], "index 3 out of range"),
    "override bad value": (["run", str(DUMBBELL), "--set", "links.1.rate=fast"], 'links[1].rate: invalid rate "fast"'),
    "seed not a number": (["run", str(DUMBBELL), "--seed", "abc"], "--seed: 'abc' is not an integer"),
    "seed negative": (["run", str(DUMBBELL), "--seed=-1"], "--seed: -1 is not between"),
    "seed too large": (["run", str(DUMBBELL), "--seed", str(2**64)], "is not between 0 and"),
    "out is a file": (["run", str(DUMBBELL), *SHORT_ARGS, "--out", "{t}/afile"], "afile: exists and is not a directory"),
    "unknown option": (["run", str(DUMBBELL), "--frobnicate"], "unrecognized arguments"),
    "rate with a lower-case prefix": (
        ["run", str(DUMBBELL), "--set", "links.1.rate=10mbps"],
        'links[1].rate: invalid rate "10mbps": did you mean "10Mbps"?',
    ),
    "discipline with a dash": (["run", str(DUMBBELL), "--set", "links.1.queue.discipline=fq-codel"], 'did you mean "fq_codel"?'),
    "key path too deep": (["run", str(DUMBBELL), "--set", ".".join(["a"] * 21_700) + "=1"], "21700 keys, more than 64"),
    "override not UTF-8": (["run", str(DUMBBELL), "--set", "flows.0.name=\udcff"], "overrides[0]: not UTF-8 text"),
    "unknown command": (["frobnicate"], "invalid choice"),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_user_errors_exit_2_without_traceback(case, bad_files):
    args, expected = ERROR_CASES[case]
    p = ccsim_cli(*[a.format(t=bad_files) for a in args])
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    assert p.stdout == ""
    assert any(line.startswith("error: ") for line in p.stderr.splitlines()), p.stderr
    assert expected in p.stderr


def test_a_bare_number_for_a_duration_is_run_as_seconds_with_a_warning():
    p = ccsim_cli("run", DUMBBELL, *SHORT_ARGS, "--set", "links.1.delay=20", "--set", "links.0.delay=0", "--quiet")
    assert p.returncode == 0, p.stderr
    assert p.stderr.splitlines() == [
        'warning: links[1].delay = 20 is read as 20 s (a bare number is seconds); write "20s", or "20ms" if milliseconds are meant'
    ]
    p = ccsim_cli("run", DUMBBELL, *SHORT_ARGS, "--set", "links.1.delay=20ms", "--quiet")
    assert p.returncode == 0 and p.stderr == "", p.stderr


def test_no_command_prints_help():
    p = ccsim_cli()
    assert p.returncode == 2 and "run" in p.stderr and "examples:" in p.stderr


def test_help_has_examples():
    top = ccsim_cli("--help")
    assert top.returncode == 0 and "examples:" in top.stdout and "run" in top.stdout
    run = ccsim_cli("run", "--help")
    assert run.returncode == 0
    for text in ("examples:", "--set", "--seed", "--json", "--out", "--quiet", "wall_time_s"):
        assert text in run.stdout


def test_version_option():
    import ccsim

    p = ccsim_cli("--version")
    assert p.returncode == 0 and p.stdout.strip() == f"ccsim {ccsim.__version__} ({ccsim._core.build()} build)"
    assert ccsim._core.build() in ("profile-guided", "instrumented", "plain")


def test_console_script_is_declared():
    try:
        scripts = importlib.metadata.entry_points(group="console_scripts")
    except TypeError:  # Python 3.9
        scripts = importlib.metadata.entry_points()["console_scripts"]
    ours = [e for e in scripts if e.name == "ccsim"]
    assert ours and ours[0].value == "ccsim.cli:main"


def test_main_returns_status(capsys):
    from ccsim.cli import main

    assert main(["run", str(DUMBBELL), *SHORT_ARGS, "--quiet"]) == 0
    assert main(["run", "no-such-file.toml"]) == 2
    assert capsys.readouterr().err == "error: no-such-file.toml: no such file\n"


def test_progress_line_on_a_terminal_after_two_seconds():
    """On a terminal, a run longer than about 2 s shows simulated time, events/s and an ETA
    on stderr (and clears it at the end)."""
    import fcntl
    import pty
    import struct
    import termios
    import time

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a terminal has a size
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ccsim", "run", str(DUMBBELL), "--set", "duration=4000s", "--set", "warmup=0s"],
        stdout=subprocess.PIPE,
        stderr=slave,
        env=env,
    )
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    out, _ = proc.communicate(timeout=300)
    os.close(master)
    wall = time.perf_counter() - started
    assert proc.returncode == 0 and b"dumbbell: seed 1" in out
    if wall < 3.0:
        pytest.skip(f"the run took {wall:.1f} s: too fast on this machine for the progress line")
    text = seen.decode(errors="replace")
    assert "s simulated" in text and "events/s" in text and "ETA" in text, text


@pytest.mark.slow
def test_a_plain_status_line_when_stderr_is_not_a_terminal(tmp_path):
    """In a log (stderr a file), a run prints `ccsim: simulating: ...` lines every
    CCSIM_STATUS_INTERVAL seconds (30 by default) instead of a bar; a sweep `ccsim: sweep:
    N of M runs done`; --quiet prints none."""
    import re

    env = dict(os.environ, CCSIM_STATUS_INTERVAL="0")
    env.pop("PYTHONPATH", None)
    log = tmp_path / "log"
    with open(log, "w") as err:
        r = subprocess.run(
            [sys.executable, "-m", "ccsim", "run", str(DUMBBELL), *SHORT_ARGS], stdout=subprocess.PIPE, stderr=err, env=env, timeout=300
        )
    assert r.returncode == 0
    lines = log.read_text().splitlines()
    assert lines and all(
        re.fullmatch(
            r"ccsim: simulating: [\d.]+ of 3 s simulated, [\d.]+ [kMG]? ?events/s \(\d+%\), 0:\d\d elapsed(, about 0:\d\d left)?", ln
        )
        for ln in lines
    ), lines[:3]
    assert "\r" not in log.read_text() and "\x1b" not in log.read_text()
    quiet = subprocess.run(
        [sys.executable, "-m", "ccsim", "run", str(DUMBBELL), *SHORT_ARGS, "--quiet"], capture_output=True, text=True, env=env
    )
    assert quiet.returncode == 0 and quiet.stderr == ""
    (tmp_path / "s.toml").write_text(f'scenario = "{DUMBBELL}"\nreplications = 2\npoints = [{{ duration = "3s", warmup = "1s" }}]\n')
    sweep = subprocess.run(
        [sys.executable, "-m", "ccsim", "sweep", "s.toml", "--workers", "1"], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert sweep.returncode == 0, sweep.stderr
    assert re.search(r"^ccsim: sweep: 1 of 2 runs done \(50%\), 0:\d\d elapsed, about 0:\d\d left$", sweep.stderr, re.M), sweep.stderr


def test_commands_name_their_shared_options_alike():
    """--out DIR, --workers N, --scheduler ADDRESS, --seed N, --set KEY.PATH=VALUE: one
    placeholder per option across every command's --help."""
    import argparse

    from ccsim.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    seen: dict[str, set] = {}
    for name, p in sub.choices.items():
        for a in p._actions:
            for opt in a.option_strings:
                if opt.startswith("--") and a.metavar is not None:
                    seen.setdefault(opt, set()).add((a.metavar, name))
    # --out is a directory, except for the commands that write one file (an image, a page).
    seen["--out"] = {(m, c) for m, c in seen["--out"] if (m, c) not in {("FILE", "plot"), ("FILE", "view")}}
    for opt in ("--out", "--workers", "--scheduler", "--seed", "--set"):
        metavars = {m for m, _ in seen.get(opt, ())}
        assert len(metavars) <= 1, f"{opt}: {sorted(seen[opt])}"
