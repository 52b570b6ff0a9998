"""Reproductions of the papers ccsim implements, one module per paper.

Each module has `TITLE` and `CITATION`, scenario builders (mirrored by files in
`scenarios/`), the paper's published numbers, the values `docs/scenarios.md` assumes, a
`claims(...)` function that states each claim's test (`verdicts`), and `reproduce(Options)
-> Report`, which runs the replicated sweeps under both profiles and writes report.md,
report.html, figures and a summary into `Options.out`."""

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
from .report import LEGEND, VIEW_NOTE_HTML, VIEW_NOTE_MD, Report, html_page, html_table, md_table, text_table, verdict_rows, write_view

# Paper name on the command line -> module.
PAPERS = {"rtred": "rtred", "das": "das", "ackspoof": "ackspoof", "acc": "acc"}
# Reproductions on real sockets (`ccsim live`): not deterministic and not simulated, so not
# part of `reproduce all` nor of the recorded results.
LIVE = {"acc-live": "acc_live"}


def module(paper: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{PAPERS.get(paper) or LIVE[paper]}")


def reproduce(paper: str, opt: Options) -> tuple[Report, float]:
    """Runs one paper's reproduction into `opt.out`; returns its report and wall time."""
    opt.out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    rep = module(paper).reproduce(opt)
    return rep, time.perf_counter() - start


def verdict_table(done: list[tuple[str, Report]]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the verdict table of several papers' reports."""
    rows = []
    for p, rep in done:
        rows += verdict_rows(rep.claims, paper=p)
    return ["paper", "claim of the paper", "verdict", "ours", "paper's"], rows


def print_verdicts(done: list[tuple[str, Report]], file=None) -> None:
    """The verdict table as plain text, for the terminal."""
    header, rows = verdict_table(done)
    print(text_table(header, rows, [8, 46, 22, 42, 24]), file=file)


def reproduce_all(opt: Options, papers: list[str] | None = None) -> tuple[Path, list[tuple[str, Report, float]]]:
    """Every paper into `opt.out/<paper>/`, plus one combined report (Markdown and a
    self-contained HTML page, the verdict table of every paper at the top) in `opt.out`.
    Returns the combined report's path and (paper, report, seconds) of each paper."""
    from .. import __version__

    papers = papers or list(PAPERS)
    done = []
    for p in papers:
        sub = Options(
            out=opt.out / p,
            quick=opt.quick,
            workers=opt.workers,
            scheduler=opt.scheduler,
            progress=opt.progress,
            profile=opt.profile,
            kernel=opt.kernel,
        )
        rep, seconds = reproduce(p, sub)
        done.append((p, rep, seconds))
    mode = "quick" if opt.quick else "full"
    main, other = opt.profiles
    about = [
        ("ccsim", __version__),
        ("python", sys.version.split()[0]),
        ("platform", platform.platform()),
        ("mode", f"{mode} (--quick uses fewer replications and points)"),
        ("profile", f"{main} (every claim also checked under {other}; the verdict table shows both where they differ)"),
        ("seeds", "base seed 1 for every sweep; replication r uses the same derived seed at every point and under both profiles"),
    ] + [(f"run time: {p}", f"{s:.1f} s") for p, _, s in done]
    header, rows = verdict_table([(p, rep) for p, rep, _ in done])
    md = ["# ccsim: reproductions of the papers", "", "## Verdicts", ""] + md_table(header, rows) + ["", LEGEND, "", "## Contents", ""]
    md += [f"- [{rep.title}](#{p}) (details in `{p}/report.md`)" for p, rep, _ in done]
    md += ["", "## About this run", "", "| | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in about] + [""]
    for p, rep, _ in done:
        body = rep.markdown(level=2).replace("](", f"]({p}/")
        md += [f'<a id="{p}"></a>', "", body, ""]
    link = write_view(opt.out)
    if link:
        md[md.index("## Verdicts") : md.index("## Verdicts")] = [VIEW_NOTE_MD, ""]
    atomic_write_text(opt.out / "report.md", "\n".join(md))
    toc = "".join(f"<li><a href='#{p}'>{rep.title}</a></li>" for p, rep, _ in done)
    about_html = "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in about)
    body = (
        "<h1>ccsim: reproductions of the papers</h1>"
        + (VIEW_NOTE_HTML if link else "")
        + "<h2>Verdicts</h2>"
        + html_table(header, rows, verdict_col=2)
    )
    body += f"<h2>Contents</h2><ul>{toc}</ul><h2>About this run</h2><table>{about_html}</table>"
    body += "".join(rep.html_body(level=2) for _, rep, _ in done)
    atomic_write_text(opt.out / "report.html", html_page("ccsim reproductions", body))
    verdicts = {
        p: [
            {
                "claim": c.text,
                "verdict": c.verdict,
                "profile": c.profile,
                "ours": c.ours,
                "paper": c.paper,
                "evidence": c.evidence,
                "other_profile": None
                if c.other is None
                else {"profile": c.other.profile, "verdict": c.other.verdict, "ours": c.other.ours, "evidence": c.other.evidence},
            }
            for c in rep.claims
        ]
        for p, rep, _ in done
    }
    atomic_write_text(opt.out / "verdicts.json", json.dumps(verdicts, indent=2))
    return opt.out / "report.md", done
