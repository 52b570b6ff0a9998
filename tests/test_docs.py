"""Docs that cannot drift: every code block of the README and of docs/ runs here, in order,
in a fresh folder (see tests/doc_blocks.py for the rules and the directives), and the
sample outputs they print are compared with what the commands print now.

`CCSIM_DOCS_UPDATE=1 python -m pytest tests/test_docs.py` rewrites the sample outputs that
differ from the current ones."""

from __future__ import annotations

import pytest

from conftest import RUST_BUILDS, RUST_BUILDS_SKIPPED
from doc_blocks import ROOT, blocks, run_document, time_allowed

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.slow
@pytest.mark.parametrize("doc", [pytest.param(d, id=d.name, marks=pytest.mark.timeout(time_allowed(d))) for d in DOCS])
def test_every_block_runs(doc, tmp_path):
    """Every block runs; a tutorial's `cargo` commands, which compile a copy of the core,
    only with CCSIM_TEST_RUST_BUILDS=1 (otherwise the test ends skipped, naming them, once
    every other block has passed)."""
    run = run_document(doc, tmp_path, cargo=RUST_BUILDS)
    for reason in run.skipped:
        print("not run:", reason)
    for seconds, where in sorted(run.timings, reverse=True)[:5]:
        print(f"{seconds:6.2f} s  {where}")
    if run.cargo_skipped:
        pytest.skip(f"every block ran but {', '.join(run.cargo_skipped)}, which {RUST_BUILDS_SKIPPED}")


def test_a_document_is_allowed_the_time_of_its_rust_builds():
    tutorial = ROOT / "docs" / "tutorial.md"
    plain = ROOT / "docs" / "cli.md"
    from doc_blocks import CARGO_TIMEOUT, COMMAND_TIMEOUT

    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    pytest_timeout = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["timeout"]
    # A command may take as long as a test; a document with cargo commands is given more.
    assert pytest_timeout == COMMAND_TIMEOUT
    assert time_allowed(plain) == COMMAND_TIMEOUT
    assert time_allowed(tutorial) >= COMMAND_TIMEOUT + CARGO_TIMEOUT


def test_every_skip_has_a_reason_and_every_rust_block_a_directive():
    for doc in DOCS:
        for b in blocks(doc):
            if b.directive.startswith("skip"):
                assert b.directive[len("skip") :].strip(" :"), f"{b.where}: skip without a reason"
            if b.lang == "rust":
                assert b.directive, f"{b.where}: a Rust block needs a directive"
