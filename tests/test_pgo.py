"""The profile-guided build (packaging/pgo.py): its training set still runs against the
package as it is (a scenario key renamed would otherwise turn every install into a plain
build without a failing test), and where the toolchain can build profile-guided, the
installed core was."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "packaging"))
import pgo

import ccsim


def test_llvm_versions_are_read_from_both_tools():
    assert pgo._llvm_major("binary: rustc\nLLVM version: 22.1.2\n") == 22
    assert pgo._llvm_major("LLVM (http://llvm.org/):\n  LLVM version 22.1.2-rust-1.95.0-stable\n") == 22
    assert pgo._llvm_major("nothing here") is None


@pytest.mark.slow
def test_the_training_set_runs_on_the_installed_package(tmp_path):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    r = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "pgo_train.py"), str(ROOT)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.install
def test_the_installed_core_is_profile_guided_where_it_can_be():
    if os.environ.get("CCSIM_PGO") == "0":
        pytest.skip("CCSIM_PGO=0: built without a profile on purpose")
    tool, why = pgo.profdata_tool(add=False)
    if tool is None:
        pytest.skip(f"this toolchain cannot build profile-guided: {why}")
    assert ccsim._core.build() == "profile-guided", "pip install . built the core without its profile: see `pip install -v .`"
