"""Reports of paper reproductions: a verdict table at the top (claim, verdict, our number
with its interval, the paper's number), then sections of prose, tables and figures, rendered
as Markdown (figures as PNG files beside it) and as one self-contained HTML page (figures
inlined), so a report can be mailed or archived as a single file.

Figures are given as `ccsim.plot.FigureSpec`s and drawn in one place (`Report.figure`), so
that another renderer can draw the same specs."""

from __future__ import annotations

import base64
import html
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .verdicts import FAILS, FEW, HOLDS, INCONCLUSIVE, MIN_RUNS, OUTCOMES, PARTLY

__all__ = ["Claim", "Report", "html_page", "verdict_rows", "text_table", "HOLDS", "FAILS", "PARTLY", "INCONCLUSIVE"]

#: What the outcomes mean, for the reports.
LEGEND = (
    f"**{HOLDS}**: the 95% interval of our number lies wholly on the side the paper states; "
    f"**{FAILS}**: wholly on the other side; **{PARTLY}**: some parts of the claim hold and others do not; "
    f"**{INCONCLUSIVE}**: the interval cannot decide. With/without comparisons pair the runs by replication "
    f"(the same seed for both). {FEW} marks a number from fewer than {MIN_RUNS} runs, too few for an interval that decides: "
    f'such a claim is "{INCONCLUSIVE} (too few runs)".'
)


@dataclass
class Claim:
    """One claim of the paper, checked against our numbers under one profile."""

    text: str
    verdict: str
    ours: str
    paper: str = ""
    evidence: str = ""
    profile: str = ""
    #: The same claim under the other profile, when its verdict differs.
    other: Claim | None = None

    def __post_init__(self) -> None:
        if self.verdict not in OUTCOMES:
            raise ValueError(f"not an outcome: {self.verdict!r}")


@dataclass
class Block:
    kind: str  # "text", "table", "figure", "heading", "verdicts"
    data: Any


@dataclass
class Report:
    """A paper's reproduction report, built section by section."""

    paper: str
    title: str
    out: Path
    citation: str = ""
    profile: str = ""
    quick: bool = False
    blocks: list[Block] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    figures: list[Path] = field(default_factory=list)
    #: Lines shown under the title (profile, mode, what was run).
    facts: list[str] = field(default_factory=list)
    #: Whether `out` holds simulator runs or sweeps for an interactive page (`view.html`);
    #: False for a report on other measurements (live runs), which has none to make.
    view: bool = True

    def heading(self, text: str) -> None:
        self.blocks.append(Block("heading", text))

    def text(self, text: str) -> None:
        self.blocks.append(Block("text", text.strip()))

    def table(self, header: Sequence[str], rows: Sequence[Sequence[Any]], caption: str = "") -> None:
        self.blocks.append(Block("table", (list(header), [list(r) for r in rows], caption)))

    def figure(self, spec, name: str, caption: str) -> Path:
        """Draws a `ccsim.plot.FigureSpec` as `name`.png beside the report."""
        from ..plot import render

        path = self.out / f"{name}.png"
        fig = render(spec)
        fig.savefig(path, dpi=100)
        self.figures.append(path)
        self.blocks.append(Block("figure", (path, caption)))
        return path

    def set_claims(self, main: list[Claim], other: Sequence[Claim | None] | None = None) -> None:
        """The claims under the report's profile; `other`, the same claims (same order and
        texts, None for one not checked) under the other profile, is attached where its
        verdict differs."""
        if other is not None:
            if len(other) != len(main) or any(o is not None and o.text != c.text for c, o in zip(main, other)):
                raise ValueError("the claims under the two profiles differ")
            for c, o in zip(main, other):
                if o is not None and o.verdict != c.verdict:
                    c.other = o
        self.claims = main

    def verdicts(self, claims: Sequence[Claim], note: str) -> None:
        """A verdict table of claims that are not the paper's (ours, in a section of their
        own), with `note` saying what they are and how each was reached. They stay out of
        the paper's verdict table at the top."""
        self.blocks.append(Block("verdicts", (list(claims), note)))

    def assumptions(self, items: Sequence[tuple[str, str]], section: str) -> None:
        self.heading("Assumed values")
        self.text(
            f"Values the paper does not state, as ccsim's `docs/scenarios.md` (section \"{section}\") sets them, and ccsim's own choices:"
        )
        self.table(["what", "value"], items)

    # ---- rendering ----

    def markdown(self, level: int = 1) -> str:
        h = "#" * level
        lines = [f"{h} {self.title}", ""]
        if self.citation:
            lines += [f"*Paper:* {self.citation}", ""]
        lines += [f"- {f}" for f in self.facts] + ([""] if self.facts else [])
        if self.claims:
            lines += [f"{h}# Verdicts", ""] + md_table(["claim of the paper", "verdict", "ours", "paper"], verdict_rows(self.claims)) + [""]
            lines += [LEGEND, ""]
        for b in self.blocks:
            if b.kind == "heading":
                lines += [f"{h}# {b.data}", ""]
            elif b.kind == "text":
                lines += [b.data, ""]
            elif b.kind == "table":
                header, rows, caption = b.data
                if caption:
                    lines += [f"*{caption}*", ""]
                lines += md_table(header, rows) + [""]
            elif b.kind == "figure":
                path, caption = b.data
                lines += [f"![{caption}]({path.name})", "", f"*{caption}*", ""]
            elif b.kind == "verdicts":
                claims, note = b.data
                lines += md_table(["our claim", "verdict", "ours"], [[c.text, verdict_text(c), c.ours] for c in claims]) + ["", note, ""]
                lines += [f"- **{c.text}** ({c.verdict}): {c.evidence}" for c in claims] + [""]
        if self.claims:
            lines += [f"{h}# How each verdict was reached", ""]
            for c in self.claims:
                lines.append(f"- **{c.text}** ({c.verdict}): {c.evidence}")
                if c.other:
                    lines.append(f"  - under the {c.other.profile} profile ({c.other.verdict}): {c.other.evidence}")
            lines.append("")
        return "\n".join(lines)

    def html_body(self, level: int = 1) -> str:
        parts = [f"<h{level} id='{self.paper}'>{html.escape(self.title)}</h{level}>"]
        sub = min(level + 1, 6)
        if self.citation:
            parts.append(f"<p><em>Paper:</em> {html.escape(self.citation)}</p>")
        if self.facts:
            parts.append("<ul>" + "".join(f"<li>{_inline(f)}</li>" for f in self.facts) + "</ul>")
        if self.claims:
            parts.append(f"<h{sub}>Verdicts</h{sub}>")
            parts.append(html_table(["claim of the paper", "verdict", "ours", "paper"], verdict_rows(self.claims), verdict_col=1))
            parts.append(f"<p>{_inline(LEGEND)}</p>")
        for b in self.blocks:
            if b.kind == "heading":
                parts.append(f"<h{sub}>{html.escape(b.data)}</h{sub}>")
            elif b.kind == "text":
                parts += [f"<p>{_inline(p)}</p>" for p in b.data.split("\n\n")]
            elif b.kind == "table":
                header, rows, caption = b.data
                parts.append(html_table(header, rows, caption=caption))
            elif b.kind == "figure":
                path, caption = b.data
                data = base64.b64encode(path.read_bytes()).decode()
                parts.append(
                    f"<figure><img src='data:image/png;base64,{data}' alt='{html.escape(caption)}'><figcaption>{html.escape(caption)}</figcaption></figure>"
                )
            elif b.kind == "verdicts":
                claims, note = b.data
                parts.append(
                    html_table(["our claim", "verdict", "ours"], [[c.text, verdict_text(c), c.ours] for c in claims], verdict_col=1)
                )
                parts.append(f"<p>{_inline(note)}</p><ul>")
                parts += [
                    f"<li><strong>{html.escape(c.text)}</strong> ({html.escape(c.verdict)}): {html.escape(c.evidence)}</li>" for c in claims
                ]
                parts.append("</ul>")
        if self.claims:
            parts.append(f"<h{sub}>How each verdict was reached</h{sub}><ul>")
            for c in self.claims:
                extra = ""
                if c.other:
                    extra = f"<ul><li>under the {html.escape(c.other.profile)} profile ({html.escape(c.other.verdict)}): {html.escape(c.other.evidence)}</li></ul>"
                parts.append(
                    f"<li><strong>{html.escape(c.text)}</strong> ({html.escape(c.verdict)}): {html.escape(c.evidence)}{extra}</li>"
                )
            parts.append("</ul>")
        return "\n".join(parts)

    def write(self) -> Path:
        """Writes report.md and report.html into `out`; returns the Markdown path."""
        from .._files import atomic_write_text

        md = self.out / "report.md"
        link = write_view(self.out) if self.view else False
        title, _, rest = self.markdown().partition("\n")
        atomic_write_text(md, f"{title}\n\n{VIEW_NOTE_MD}\n{rest}" if link else f"{title}\n{rest}")
        atomic_write_text(self.out / "report.html", html_page(self.title, (VIEW_NOTE_HTML if link else "") + self.html_body()))
        return md


VIEW_NOTE_MD = "Interactive figures of every run and sweep behind this report (offline: zoom, values under the cursor, legend toggles): [view.html](view.html)."
VIEW_NOTE_HTML = (
    "<p><a href='view.html'>Interactive figures</a> of every run and sweep behind this report"
    " (offline: zoom, values under the cursor, legend toggles).</p>"
)


def write_view(out: Path) -> bool:
    """Writes `out/view.html`, the interactive page of `ccsim view` for the sweeps below
    `out`; False (with a warning) when there is nothing it can draw."""
    import warnings

    from ..viewer.pages import ViewError, write

    try:
        write(out)
    except ViewError as e:
        warnings.warn(f"{out}: no interactive page: {e}", stacklevel=2)
        return False
    return True


def verdict_rows(claims: Sequence[Claim], paper: str | None = None) -> list[list[str]]:
    """Rows (claim, verdict, ours, paper) of a verdict table, with a row under each claim
    whose verdict differs under the other profile; with `paper`, that column first."""
    rows = []
    for c in claims:
        rows.append(([paper] if paper else []) + [c.text, verdict_text(c, bool(c.other)), c.ours, c.paper])
        if c.other:
            o = c.other
            rows.append(([paper] if paper else []) + ["  (same claim)", verdict_text(o, True), o.ours, o.paper])
    return rows


#: What an undecided verdict adds when a number it rests on is from too few runs (LEGEND).
TOO_FEW = "too few runs"


def verdict_text(c: Claim, profile: bool = False) -> str:
    """The verdict as the tables show it: an inconclusive one says "too few runs" when one
    of its numbers is marked so (not an interval that straddles the line), and with
    `profile` the profile."""
    notes = [TOO_FEW] if c.verdict == INCONCLUSIVE and FEW in c.ours else []
    if profile:
        notes.append(c.profile)
    return f"{c.verdict} ({'; '.join(notes)})" if notes else c.verdict


def md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(map(_md, header)) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_md(_fmt(c)) for c in r) + " |" for r in rows]
    return lines


def html_table(header: Sequence[str], rows: Sequence[Sequence[Any]], caption: str = "", verdict_col: int | None = None) -> str:
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    out = [f"<table>{cap}<tr>" + "".join(f"<th>{html.escape(str(x))}</th>" for x in header) + "</tr>"]
    for r in rows:
        cells = []
        for i, c in enumerate(r):
            text = html.escape(_fmt(c))
            if i == verdict_col:
                word = str(c).split(" (")[0]
                cls = {HOLDS: "ok", FAILS: "bad", PARTLY: "mid", INCONCLUSIVE: "unk"}.get(word, "")
                text = f"<span class='{cls}'>{text}</span>"
            cells.append(f"<td>{text}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]], widths: Sequence[int]) -> str:
    """A plain-text table for the terminal, each column wrapped to its width."""
    lines = []
    for r in [list(header)] + [list(map(str, r)) for r in rows]:
        cols = [textwrap.wrap(c, w) or [""] for c, w in zip(r, widths)]
        for i in range(max(len(c) for c in cols)):
            lines.append("  ".join((c[i] if i < len(c) else "").ljust(w) for c, w in zip(cols, widths)).rstrip())
        if r == list(header):
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


STYLE = """body{font-family:sans-serif;max-width:75em;margin:2em auto;line-height:1.4;padding:0 1em}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#eee}caption{caption-side:top;font-style:italic;text-align:left}
.ok{color:#064;font-weight:bold}.bad{color:#a00;font-weight:bold}.mid{color:#a60;font-weight:bold}.unk{color:#555;font-weight:bold}
img{max-width:100%}figcaption{font-style:italic}"""


def html_page(title: str, body: str) -> str:
    return f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title><style>{STYLE}</style></head><body>{body}</body></html>"


def _inline(text: str) -> str:
    """Escaped text with Markdown's **bold**, `code` and [links](url)."""
    import re

    s = html.escape(text)
    s = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", s)
    s = re.sub(r"`([^`]+)`", r"<code>\1</code>", s)
    s = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r"<a href='\2'>\1</a>", s)
    return s


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        if x != x:
            return "-"
        return f"{x:.4g}" if abs(x) < 1e5 else f"{x:,.0f}"
    return str(x)


def _md(s: Any) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")
