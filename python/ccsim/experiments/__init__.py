"""Reproductions of the papers ccsim implements, one module per paper.

Each module has `TITLE`, scenario builders (mirrored by files in `scenarios/`), the paper's
published numbers, the values `shared/SCENARIOS.md` assumes, and `reproduce(Options) ->
Report`, which runs the replicated sweeps and writes report.md, report.html, figures and a
summary into `Options.out`."""

from __future__ import annotations

import importlib
import json
import platform
import sys
import time
from pathlib import Path
from types import ModuleType

from .._files import atomic_write_text
from .common import Options
from .report import Report, html_page

# Paper name on the command line -> module.
PAPERS = {"rtred": "rtred", "das": "das", "ackspoof": "ackspoof", "acc": "acc"}


def module(paper: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{PAPERS[paper]}")


def reproduce(paper: str, opt: Options) -> tuple[Report, float]:
    """Runs one paper's reproduction into `opt.out`; returns its report and wall time."""
    opt.out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    rep = module(paper).reproduce(opt)
    return rep, time.perf_counter() - start


def reproduce_all(opt: Options, papers: list[str] | None = None) -> Path:
    """Every paper into `opt.out/<paper>/`, plus one combined report (Markdown and a
    self-contained HTML page) in `opt.out`."""
    from .. import __version__

    papers = papers or list(PAPERS)
    done = []
    for p in papers:
        sub = Options(out=opt.out / p, quick=opt.quick, workers=opt.workers, scheduler=opt.scheduler, progress=opt.progress)
        rep, seconds = reproduce(p, sub)
        done.append((p, rep, seconds))
    mode = "quick" if opt.quick else "full"
    about = [
        ("ccsim", __version__),
        ("python", sys.version.split()[0]),
        ("platform", platform.platform()),
        ("mode", f"{mode} (--quick uses fewer replications and points)"),
        ("seeds", "base seed 1 for every sweep; replication r uses the same derived seed at every point"),
    ] + [(f"run time: {p}", f"{s:.1f} s") for p, _, s in done]
    md = ["# ccsim: reproductions of the papers", "", "## Contents", ""]
    md += [f"- [{rep.title}](#{p}) (details in `{p}/report.md`)" for p, rep, _ in done]
    md += ["", "## About this run", "", "| | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in about] + [""]
    for p, rep, _ in done:
        body = rep.markdown(level=2).replace("](", f"]({p}/")
        md += [f'<a id="{p}"></a>', "", body, ""]
    atomic_write_text(opt.out / "report.md", "\n".join(md))
    toc = "".join(f"<li><a href='#{p}'>{rep.title}</a></li>" for p, rep, _ in done)
    about_html = "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in about)
    body = f"<h1>ccsim: reproductions of the papers</h1><h2>Contents</h2><ul>{toc}</ul><h2>About this run</h2><table>{about_html}</table>"
    body += "".join(rep.html_body(level=2) for _, rep, _ in done)
    atomic_write_text(opt.out / "report.html", html_page("ccsim reproductions", body))
    verdicts = {p: [{"claim": c.text, "verdict": c.verdict, "evidence": c.evidence} for c in rep.claims] for p, rep, _ in done}
    atomic_write_text(opt.out / "verdicts.json", json.dumps(verdicts, indent=2))
    return opt.out / "report.md"
