"""The build backend of `pip install .` (pyproject.toml's `build-backend`): maturin's, after
one check. Without cargo on PATH, maturin would download a temporary Rust toolchain of
about 700 MB without asking; this backend stops instead and says what to do: install a
prebuilt wheel, install Rust, or allow the download with CCSIM_INSTALL_RUST=1. The wheel (and
an editable install's extension) is then built profile-guided where the toolchain allows
(pgo.py; CCSIM_PGO=0 builds without)."""

from __future__ import annotations

import os
import shutil
import sys

import maturin
import pgo
from maturin import *  # noqa: F403 (every hook maturin defines, unchanged unless below)

MESSAGE = """\
error: building ccsim from source needs a Rust toolchain (cargo), and there is none on PATH.
  - Install a prebuilt wheel instead, which needs no compiler:
        pip install ccsim-*.whl      (see "Installing" in README.md)
  - Or install Rust (https://rustup.rs, or your system's rustc and cargo packages) and retry.
  - Or let the build download a temporary toolchain (about 700 MB) for this one build:
        CCSIM_INSTALL_RUST=1 pip install .
"""


def _check() -> None:
    if shutil.which("cargo") or os.environ.get("CCSIM_INSTALL_RUST") == "1" or os.environ.get("MATURIN_NO_INSTALL_RUST"):
        return
    sys.stderr.write(MESSAGE)
    raise SystemExit(1)


def get_requires_for_build_wheel(config_settings=None):
    _check()
    return maturin.get_requires_for_build_wheel(config_settings)


def get_requires_for_build_editable(config_settings=None):
    _check()
    return maturin.get_requires_for_build_editable(config_settings)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    _check()
    return maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _check()
    return pgo.build(maturin.build_wheel, wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    _check()
    return pgo.build(maturin.build_editable, wheel_directory, config_settings, metadata_directory)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    _check()
    return maturin.prepare_metadata_for_build_editable(metadata_directory, config_settings)
