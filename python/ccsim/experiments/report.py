"""Reports of paper reproductions: sections of prose, tables, figures and claim verdicts,
rendered as Markdown (figures as PNG files beside it) and as one self-contained HTML page
(figures inlined), so a report can be mailed or archived as a single file."""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HOLDS = "holds"
FAILS = "does not hold"
PARTLY = "partly holds"


@dataclass
class Claim:
    """One claim of the paper, checked against our numbers."""

    text: str
    verdict: str
    evidence: str


@dataclass
class Block:
    kind: str  # "text", "table", "figure", "claims", "heading"
    data: Any


@dataclass
class Report:
    """A paper's reproduction report, built section by section."""

    paper: str
    title: str
    out: Path
    blocks: list[Block] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    figures: list[Path] = field(default_factory=list)

    def heading(self, text: str) -> None:
        self.blocks.append(Block("heading", text))

    def text(self, text: str) -> None:
        self.blocks.append(Block("text", text.strip()))

    def table(self, header: Sequence[str], rows: Sequence[Sequence[Any]], caption: str = "") -> None:
        self.blocks.append(Block("table", (list(header), [list(r) for r in rows], caption)))

    def figure(self, fig, name: str, caption: str) -> Path:
        """Saves a matplotlib figure as `name`.png beside the report."""
        path = self.out / f"{name}.png"
        fig.savefig(path, dpi=110, bbox_inches="tight")
        import matplotlib.pyplot as plt  # loaded by the experiment that drew `fig`

        plt.close(fig)
        self.figures.append(path)
        self.blocks.append(Block("figure", (path, caption)))
        return path

    def claim(self, text: str, verdict: str, evidence: str) -> None:
        self.claims.append(Claim(text, verdict, evidence))

    def assumptions(self, items: Sequence[tuple[str, str]]) -> None:
        self.heading("Assumed values")
        self.text("Values the paper does not state, as chosen in `shared/SCENARIOS.md` and by ccsim:")
        self.table(["what", "value"], items)

    # ---- rendering ----

    def markdown(self, level: int = 1) -> str:
        h = "#" * level
        lines = [f"{h} {self.title}", ""]
        if self.claims:
            lines += [f"{h}# Verdicts", "", "| claim of the paper | verdict | our numbers |", "|---|---|---|"]
            lines += [f"| {_md(c.text)} | **{c.verdict}** | {_md(c.evidence)} |" for c in self.claims]
            lines.append("")
        for b in self.blocks:
            if b.kind == "heading":
                lines += [f"{h}# {b.data}", ""]
            elif b.kind == "text":
                lines += [b.data, ""]
            elif b.kind == "table":
                header, rows, caption = b.data
                if caption:
                    lines += [f"*{caption}*", ""]
                lines.append("| " + " | ".join(map(_md, header)) + " |")
                lines.append("|" + "---|" * len(header))
                lines += ["| " + " | ".join(_md(_fmt(c)) for c in r) + " |" for r in rows]
                lines.append("")
            elif b.kind == "figure":
                path, caption = b.data
                lines += [f"![{caption}]({path.name})", "", f"*{caption}*", ""]
        return "\n".join(lines)

    def html_body(self, level: int = 1) -> str:
        parts = [f"<h{level} id='{self.paper}'>{html.escape(self.title)}</h{level}>"]
        sub = min(level + 1, 6)
        if self.claims:
            parts.append(f"<h{sub}>Verdicts</h{sub}><table><tr><th>claim of the paper</th><th>verdict</th><th>our numbers</th></tr>")
            for c in self.claims:
                cls = {HOLDS: "ok", FAILS: "bad"}.get(c.verdict, "mid")
                parts.append(
                    f"<tr><td>{html.escape(c.text)}</td><td class='{cls}'>{html.escape(c.verdict)}</td><td>{html.escape(c.evidence)}</td></tr>"
                )
            parts.append("</table>")
        for b in self.blocks:
            if b.kind == "heading":
                parts.append(f"<h{sub}>{html.escape(b.data)}</h{sub}>")
            elif b.kind == "text":
                parts += [f"<p>{html.escape(p)}</p>" for p in b.data.split("\n\n")]
            elif b.kind == "table":
                header, rows, caption = b.data
                cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
                parts.append(f"<table>{cap}<tr>" + "".join(f"<th>{html.escape(str(x))}</th>" for x in header) + "</tr>")
                parts += ["<tr>" + "".join(f"<td>{html.escape(_fmt(c))}</td>" for c in r) + "</tr>" for r in rows]
                parts.append("</table>")
            elif b.kind == "figure":
                path, caption = b.data
                data = base64.b64encode(path.read_bytes()).decode()
                parts.append(
                    f"<figure><img src='data:image/png;base64,{data}' alt='{html.escape(caption)}'><figcaption>{html.escape(caption)}</figcaption></figure>"
                )
        return "\n".join(parts)

    def write(self) -> Path:
        """Writes report.md and report.html into `out`; returns the Markdown path."""
        from .._files import atomic_write_text

        md = self.out / "report.md"
        atomic_write_text(md, self.markdown())
        atomic_write_text(self.out / "report.html", html_page(self.title, self.html_body()))
        return md


STYLE = """body{font-family:sans-serif;max-width:70em;margin:2em auto;line-height:1.4;padding:0 1em}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.25em .6em;text-align:left}
th{background:#eee}caption{caption-side:top;font-style:italic;text-align:left}
.ok{color:#064;font-weight:bold}.bad{color:#a00;font-weight:bold}.mid{color:#a60;font-weight:bold}
img{max-width:100%}figcaption{font-style:italic}"""


def html_page(title: str, body: str) -> str:
    return f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title><style>{STYLE}</style></head><body>{body}</body></html>"


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        if x != x:
            return "-"
        return f"{x:.4g}" if abs(x) < 1e5 else f"{x:,.0f}"
    return str(x)


def _md(s: Any) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")
