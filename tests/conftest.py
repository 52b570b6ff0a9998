import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Tests that compile the Rust core themselves (a release wheel with zig, the tutorial's copy
#: of the workspace) run only with CCSIM_TEST_RUST_BUILDS=1 (`bash scripts/test.sh --all`):
#: each is minutes of compiling on two cores, on top of the package's own build.
RUST_BUILDS = os.environ.get("CCSIM_TEST_RUST_BUILDS") == "1"
RUST_BUILDS_SKIPPED = "compiles the Rust core again (minutes): `bash scripts/test.sh --all` (CCSIM_TEST_RUST_BUILDS=1) runs it"


def pytest_configure(config):
    config.addinivalue_line("markers", f"rust_build: {RUST_BUILDS_SKIPPED}")
    config.addinivalue_line("markers", "slow: takes more than a few seconds; `bash scripts/test.sh --fast` leaves it out")
    config.addinivalue_line(
        "markers", "install: checks how the package was installed; `bash scripts/test.sh --fast`, which installs nothing, leaves it out"
    )


def pytest_collection_modifyitems(config, items):
    if RUST_BUILDS:
        return
    skip = pytest.mark.skip(reason=RUST_BUILDS_SKIPPED)
    for item in items:
        if "rust_build" in item.keywords:
            item.add_marker(skip)


DUMBBELL = ROOT / "scenarios" / "dumbbell.toml"
#: The example shortened so that a test run takes milliseconds.
SHORT = ["duration=3s", "warmup=1s"]
SHORT_ARGS = ["--set", "duration=3s", "--set", "warmup=1s"]


@pytest.fixture
def dumbbell() -> Path:
    return DUMBBELL


def ccsim_cli(*args, cwd=None, input=None):
    """Runs `python -m ccsim ARGS` and returns the CompletedProcess (text mode)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # the installed package, not a source tree
    return subprocess.run(
        [sys.executable, "-m", "ccsim", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        input=input,
        env=env,
        timeout=300,
    )


@pytest.fixture(autouse=True, scope="session")
def _temporary_files_under_pytest(tmp_path_factory):
    """Temporary files of the code under test (`ccsim.sweep` without `out` makes a
    `ccsim-sweep-*` folder) go under pytest's own temporary directory, which pytest prunes,
    instead of piling up in the system's; subprocesses get the same TMPDIR."""
    import tempfile

    base = tmp_path_factory.mktemp("tmp")
    old_dir, old_env = tempfile.tempdir, os.environ.get("TMPDIR")
    tempfile.tempdir = str(base)
    os.environ["TMPDIR"] = str(base)
    try:
        yield base
    finally:
        tempfile.tempdir = old_dir
        if old_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = old_env
