"""Profile-guided optimisation of the extension, for `pip install .` (ccsim_backend.py).

LLVM inlines and lays out code better when it knows which way a run's branches go. So the
build compiles the core three steps at a time:

1. instrumented (`-Cprofile-generate`), into a wheel of its own under target/pgo/;
2. that wheel runs the training set (pgo_train.py: the canonical scenarios, each queue
   discipline and TCP variant, DUMBBELL-N from 10 to 100,000 flows), which writes counts;
3. llvm-profdata merges the counts, and the real build uses them (`-Cprofile-use`).

Results do not depend on it: Rust has no fast-math, so the same scenario and seed give
byte-identical results whichever way the core is compiled (`scripts/golden.py check`
passes on both). Only the speed changes: benchmarks/README.md, "A profile-guided build, and the links read after every slice".

It needs an llvm-profdata of rustc's own LLVM version: rustup's `llvm-tools` component
(added here when rustup is there) or `llvm-profdata-<major>` on PATH. Without one, with
CCSIM_PGO=0 (a quicker build for development), or if a step fails, the build is the plain
one, and it says why on stderr (`pip install -v` shows it)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import maturin

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "target" / "pgo"


_STARTED = time.monotonic()


def _note(message: str) -> None:
    """A line of the build's progress on stderr, with the time since the build began
    (`pip install -v` shows them)."""
    seconds = int(time.monotonic() - _STARTED)
    sys.stderr.write(f"ccsim build: [{seconds // 60}:{seconds % 60:02d}] {message}\n")
    sys.stderr.flush()


def _timed(hook, directory, config_settings, metadata_directory, what: str):
    _note(f"{what} (cargo's progress follows)")
    name = hook(directory, config_settings, metadata_directory)
    _note(f"built {name}")
    return name


def _llvm_major(text: str) -> int | None:
    m = re.search(r"LLVM version:? (\d+)", text)
    return int(m.group(1)) if m else None


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def profdata_tool(add: bool = True) -> tuple[str | None, str]:
    """An llvm-profdata whose LLVM is rustc's, or None and why there is none; with `add`,
    rustup's component is added if it is missing."""
    try:
        about = _run(["rustc", "-vV"], check=True, timeout=60).stdout
        sysroot = _run(["rustc", "--print", "sysroot"], check=True, timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"rustc did not say its LLVM version ({e})"
    major = _llvm_major(about)
    host = re.search(r"host: (\S+)", about)
    if major is None or host is None:
        return None, "rustc -vV names no LLVM version or host"
    exe = "llvm-profdata.exe" if os.name == "nt" else "llvm-profdata"
    bundled = Path(sysroot) / "lib" / "rustlib" / host.group(1) / "bin" / exe
    if add and not bundled.exists() and shutil.which("rustup"):
        _note("adding rustup's llvm-tools component (llvm-profdata) for a profile-guided build")
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            _run(["rustup", "component", "add", "llvm-tools"], timeout=300)
    for candidate in (str(bundled), shutil.which(f"llvm-profdata-{major}"), shutil.which("llvm-profdata")):
        if not candidate or not os.path.exists(candidate):
            continue
        try:
            version = _run([candidate, "--version"], timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        if _llvm_major(version) == major:
            return candidate, ""
    return None, f"no llvm-profdata of LLVM {major}, rustc's (`rustup component add llvm-tools` adds one)"


@contextlib.contextmanager
def _rustflags(flag: str, target_dir: Path | None = None):
    """The environment of a cargo build with `flag` added to the user's own flags."""
    saved = {k: os.environ.get(k) for k in ("RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_TARGET_DIR")}
    try:
        encoded = saved["CARGO_ENCODED_RUSTFLAGS"]
        if encoded is not None:
            # Cargo reads these in place of RUSTFLAGS whenever they are set, even empty.
            os.environ["CARGO_ENCODED_RUSTFLAGS"] = "\x1f".join(f for f in (encoded, flag) if f)
        else:
            os.environ["RUSTFLAGS"] = f"{saved['RUSTFLAGS'] or ''} {flag}".strip()
        if target_dir is not None:
            os.environ["CARGO_TARGET_DIR"] = str(target_dir)
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _train(tool: str, config_settings) -> Path:
    """Steps 1 and 2: the merged profile."""
    raw, wheels, site = WORK / "raw", WORK / "wheel", WORK / "site"
    for d in (raw, wheels, site):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
    _note("profile-guided build, step 1 of 3: the instrumented core (cargo's progress follows)")
    with _rustflags(f"-Cprofile-generate={raw}", target_dir=WORK / "generate"):
        name = maturin.build_wheel(str(wheels), config_settings, None)
    with zipfile.ZipFile(wheels / name) as z:
        z.extractall(site)
    _note("profile-guided build, step 2 of 3: the training set (packaging/pgo_train.py, seconds)")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), env.get("PYTHONPATH", "")) if p)
    env["LLVM_PROFILE_FILE"] = str(raw / "train-%p.profraw")
    r = _run([sys.executable, str(ROOT / "packaging" / "pgo_train.py"), str(ROOT)], env=env, cwd=WORK, timeout=3600)
    if r.returncode != 0:
        raise RuntimeError(f"the training set failed: {r.stderr.strip()[-2000:]}")
    counts = sorted(raw.glob("train-*.profraw"))
    if not counts:
        raise RuntimeError("the training set wrote no counts")
    profile = WORK / "ccsim.profdata"
    r = _run([tool, "merge", "-o", str(profile), *map(str, counts)], timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"llvm-profdata merge failed: {r.stderr.strip()[-2000:]}")
    return profile


def build(hook, directory, config_settings=None, metadata_directory=None):
    """Runs maturin's `hook` (its build_wheel or build_editable) profile-guided when it can;
    the instrumented core is always a wheel."""
    global _STARTED
    _STARTED = time.monotonic()
    if os.environ.get("CCSIM_PGO", "1") == "0":
        return _timed(hook, directory, config_settings, metadata_directory, "the plain core (CCSIM_PGO=0), in release mode")
    if "--zig" in maturin.get_maturin_pep517_args(config_settings):
        # zig's linker cannot link the profiling runtime; and an instrumented core linked
        # otherwise gave a profile that the zig build's compiled code did not match.
        _note("building without profile-guided optimisation: the build links with zig (--zig)")
        return _timed(hook, directory, config_settings, metadata_directory, "the plain core, in release mode")
    tool, why = profdata_tool()
    profile = None
    if tool is not None:
        try:
            profile = _train(tool, config_settings)
        except (OSError, RuntimeError, subprocess.SubprocessError, zipfile.BadZipFile) as e:
            why = str(e)
        except SystemExit:
            why = "the instrumented build failed (its output is above)"
    if profile is None:
        _note(f"building without profile-guided optimisation: {why}")
        return _timed(hook, directory, config_settings, metadata_directory, "the plain core, in release mode")
    with _rustflags(f"-Cprofile-use={profile}"):
        return _timed(
            hook, directory, config_settings, metadata_directory, "profile-guided build, step 3 of 3: the core, optimised with the counts"
        )
