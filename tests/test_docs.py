"""Docs that cannot drift: every code block of the README and of docs/ runs here, in order,
in a fresh folder (see tests/doc_blocks.py for the rules and the directives), and the
sample outputs they print are compared with what the commands print now.

`CCSIM_DOCS_UPDATE=1 python -m pytest tests/test_docs.py` rewrites the sample outputs that
differ from the current ones."""

from __future__ import annotations

import pytest

from doc_blocks import ROOT, blocks, run_document

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_every_block_runs(doc, tmp_path):
    run = run_document(doc, tmp_path)
    for reason in run.skipped:
        print("not run:", reason)
    for seconds, where in sorted(run.timings, reverse=True)[:5]:
        print(f"{seconds:6.2f} s  {where}")


def test_every_skip_has_a_reason_and_every_rust_block_a_directive():
    for doc in DOCS:
        for b in blocks(doc):
            if b.directive.startswith("skip"):
                assert b.directive[len("skip") :].strip(" :"), f"{b.where}: skip without a reason"
            if b.lang == "rust":
                assert b.directive, f"{b.where}: a Rust block needs a directive"
