"""Installing without a compiler: the manylinux wheel is built (maturin with zig, as the
release workflow builds it), is tagged manylinux and stripped, installs into a fresh venv
whose PATH has no cargo or rustc, and runs a scenario there. And `pip install .` without
cargo stops with a message instead of downloading a Rust toolchain.

The wheel build compiles the core in release mode into target/wheel (a few minutes the
first time on two cores, seconds after), so the tests that need the wheel are marked
`rust_build` and run with `bash scripts/test.sh --all` (the release workflow builds and
installs the same wheel); the check of `pip install .` without cargo stops before any
compiling and always runs. Installing the wheel's dependencies in the fresh venv needs the
package index (or pip's cache)."""

from __future__ import annotations

import os
import platform
import re
import shutil
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or platform.machine() != "x86_64", reason="the manylinux wheel test runs on x86-64 Linux"
)


#: The zig build of the wheel, with a cold target folder, on two cores; pytest's timeout
#: counts the fixture's time.
WHEEL_BUILD_TIMEOUT = 3000


def _path_without_rust() -> str:
    """PATH minus every directory that holds cargo or rustc."""
    keep = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d and not any((Path(d) / t).exists() for t in ("cargo", "rustc"))]
    return os.pathsep.join(keep)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    pytest.importorskip("ziglang", reason="ziglang is not installed (pip install '.[test]')")
    if shutil.which("cargo") is None:
        pytest.skip("building the wheel needs cargo")
    out = tmp_path_factory.mktemp("wheelhouse")
    env = dict(os.environ)
    # maturin finds zig through `python -m ziglang`: the interpreter's bin first on PATH.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    cmd = [
        sys.executable, "-m", "maturin", "build", "--release", "--strip", "--zig", "--compatibility", "manylinux2014",
        "--target-dir", str(ROOT / "target" / "wheel"), "--out", str(out), "--interpreter", sys.executable,
    ]  # fmt: skip
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=WHEEL_BUILD_TIMEOUT)
    assert r.returncode == 0, r.stderr[-4000:]
    wheels = list(out.glob("*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.mark.rust_build
@pytest.mark.timeout(WHEEL_BUILD_TIMEOUT + 600)
def test_the_wheel_is_manylinux_abi3_and_stripped(wheel):
    assert "-cp39-abi3-" in wheel.name and "manylinux_2_17_x86_64" in wheel.name and "manylinux2014_x86_64" in wheel.name, wheel.name
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        so = [n for n in names if n.startswith("ccsim/_core") and n.endswith(".so")]
        assert len(so) == 1, names
        assert "ccsim/viewer/static/uPlot.iife.min.js" in names and "ccsim/viewer/static/viewer.js" in names
        data = z.read(so[0])
    assert len(data) < 8_000_000, f"{len(data) / 1e6:.1f} MB: not stripped?"
    sections = elf_sections(data)
    assert ".dynsym" in sections and ".text" in sections, sections
    assert not [s for s in sections if s == ".symtab" or s.startswith(".debug")], f"symbols or debug info left: {sections}"
    # manylinux2014: no glibc symbol version above 2.17.
    versions = {tuple(map(int, m)) for m in re.findall(rb"GLIBC_(\d+)\.(\d+)", data)}
    assert versions and max(versions) <= (2, 17), sorted(versions)


def elf_sections(data: bytes) -> list[str]:
    """Section names of a 64-bit little-endian ELF file."""
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)

    def header(i):
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)

    strtab = header(shstrndx)
    names_at = strtab[4]
    out = []
    for i in range(shnum):
        name = header(i)[0]
        end = data.index(b"\0", names_at + name)
        out.append(data[names_at + name : end].decode())
    return out


@pytest.mark.rust_build
@pytest.mark.timeout(WHEEL_BUILD_TIMEOUT + 2400)
def test_the_wheel_installs_and_runs_without_rust(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "CARGO_HOME", "RUSTUP_HOME")}
    env["PATH"] = os.pathsep.join([str(venv / "bin"), _path_without_rust()])
    assert subprocess.run(["sh", "-c", "command -v cargo || command -v rustc"], env=env, capture_output=True).returncode != 0
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    r = subprocess.run([*pip, str(wheel)], env=env, capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stderr[-4000:]
    # Run from a folder outside the source tree, so that nothing but the wheel is imported.
    work = tmp_path / "work"
    work.mkdir()
    r = subprocess.run(
        ["ccsim", "run", str(ROOT / "scenarios" / "dumbbell.toml"), "--set", "duration=3s", "--set", "warmup=1s", "--out", "out"],
        cwd=work, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "dumbbell: seed 1" in r.stdout and (work / "out" / "summary.json").exists()
    r = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import ccsim; print(ccsim.__file__)"], cwd=work, env=env, capture_output=True, text=True
    )
    assert str(venv) in r.stdout, r.stdout


def test_pip_install_from_source_without_cargo_stops_with_a_message(tmp_path):
    pytest.importorskip("maturin", reason="maturin is not installed (pip install '.[test]')")
    env = {k: v for k, v in os.environ.items() if k not in ("CCSIM_INSTALL_RUST", "MATURIN_NO_INSTALL_RUST")}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), _path_without_rust()])
    # The source tree is copied (without target/): the build must stop before writing anything.
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns("target", ".venv", ".git", "*.so", "__pycache__"))
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--no-build-isolation",
        "--no-deps",
        "--no-index",
        "--dry-run",
        "--disable-pip-version-check",
        str(src),
    ]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode != 0
    out = r.stdout + r.stderr
    assert "needs a Rust toolchain (cargo)" in out and "CCSIM_INSTALL_RUST=1" in out and "pip install ccsim-*.whl" in out, out[-3000:]
    assert "Rust not found, installing" not in out
