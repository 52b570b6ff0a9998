"""A paper's question against a real stack: its scenario rerun with the Linux kernel's TCP
senders and receivers (`ccsim kernel run`, docs/kernel.md) through the same router code
(links, queue disciplines, ACK spoofing) the simulator uses, as a section of the paper's
report.

A paper module names the configurations to compare (`Config`: a label and the scenario as a
dict), the numbers to read from each run (`metrics`), and its questions as claims decided
by `verdicts` from runs paired by replication: replication r of every configuration uses
the same seed, hence the same start times, and the configurations of one replication run
one after the other, so a change in the machine's load falls on both members of a pair.

Kernel runs are real time and not deterministic: they are cached in `kernel/runs.jsonl` of
the paper's folder (a rerun into the same folder reuses them) and never part of the
recorded results. Where kernel runs cannot work (not root, no TUN device, no `ip`), or
`Options.kernel` is off, the section says so and why instead.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .common import Options, show
from .report import Claim, Report

#: What every kernel section says of its verdicts.
OURS = (
    "The verdicts of this section are **our questions, not the paper's claims**: each compares two configurations "
    "by the difference within each replication (the same seed, hence the same start times, for both; the runs of "
    "one replication back to back), with a 95% t interval, and holds only where the interval excludes the opposite."
)


@dataclass(frozen=True)
class Config:
    """One configuration: a label for tables and the scenario as `ccsim kernel run` takes it
    (a dict written as TOML), given the replication's seed."""

    label: str
    scenario: Callable[[int], dict]


def unavailable(opt: Options) -> str | None:
    """Why this reproduction runs no kernel section (None: it runs one)."""
    if not getattr(opt, "kernel", True):
        return "kernel runs were turned off (`ccsim reproduce --no-kernel`)"
    from .. import kernel

    why = kernel.unavailable()
    return f"kernel runs are not available on this machine: {why}" if why else None


def _toml(doc: dict) -> str:
    import tomli_w

    return tomli_w.dumps(doc)


def run_one(doc: dict, cache: Path, metrics: Callable[[dict], dict]) -> dict:
    """One kernel run of the scenario `doc` (cached in `cache`, a JSON-lines file, by the
    scenario's text; a failed one is not); its metrics with the load average before and
    after, or `error`."""
    from .. import kernel

    text = _toml(doc)
    key = hashlib.sha256(text.encode()).hexdigest()[:16]
    if cache.exists():
        for line in cache.read_text().splitlines():
            row = json.loads(line)
            if row["key"] == key:
                return row
    row: dict[str, Any] = {"key": key}
    with tempfile.TemporaryDirectory(prefix="ccsim-reproduce-kernel-") as tmp:
        path = Path(tmp) / f"{doc.get('name', 'kernel')}.toml"
        path.write_text(text)
        try:
            s = kernel.run(path)
        except kernel.KernelError as e:
            row["error"] = str(e)
        else:
            row |= metrics(s)
            m = s.get("machine", {})
            row["load_before"] = (m.get("load_average_before") or [None])[0]
            row["load_after"] = (m.get("load_average_after") or [None])[0]
            row["realtime"] = s["router"].get("realtime")
            # A flow that could not connect (every SYN lost) or send is an outcome of the
            # configuration, counted, not a failed run.
            row["flow_errors"] = [f["error"] for f in s["flows"] if f.get("error")]
            row["flows_failed"] = len(row["flow_errors"])
    if "error" not in row:  # a failed run is tried again by a rerun
        cache.parent.mkdir(parents=True, exist_ok=True)
        with cache.open("a") as f:
            f.write(json.dumps(row) + "\n")
    return row


def run(opt: Options, configs: Mapping[str, Sequence[Config]], reps: int, metrics: Callable[[dict], dict]) -> dict:
    """Every configuration of every case (`configs`: case -> configurations), replications
    0..reps-1 with seed r + 1, the configurations of a replication back to back;
    {(case, label): {replication: metrics}} of the runs that succeeded, and a line per
    failed run under "errors"."""
    cache = opt.out / "kernel" / "runs.jsonl"
    data: dict = {"errors": []}
    for r in range(reps):
        for case, cs in configs.items():
            for c in cs:
                row = run_one(c.scenario(r + 1), cache, metrics)
                if "error" in row:
                    data["errors"].append(f"{case} {c.label} run {r}: {row['error']}")
                    continue
                data.setdefault((case, c.label), {})[r] = row
    return data


def loads(data: dict) -> list[float]:
    return [x for k, runs in data.items() if k != "errors" for m in runs.values() for x in (m.get("load_before"), m.get("load_after")) if x]


def skipped(rep: Report, opt: Options, title: str) -> bool:
    """Whether the kernel section `title` does not run here; if so, the section with the
    reason is written into `rep`."""
    why = unavailable(opt)
    if why:
        rep.heading(title)
        rep.text(f"Skipped: {why}. Kernel runs need Linux, root, `/dev/net/tun` and iproute2 (docs/kernel.md).")
    return why is not None


def section(
    rep: Report,
    title: str,
    intro: str,
    data: dict,
    cases: Sequence[str],
    labels: Sequence[str],
    measures: Sequence[tuple[str, str, tuple[float | None, float | None]]],
    claims: list[Claim],
) -> None:
    """The section: what was run, a table of every measure per case and configuration
    (mean ± 95% CI or the runs) and of the flows that failed (could not connect or send),
    the machine's load, the failed runs, and the verdicts."""
    measures = [*measures, ("flows_failed", "flows that failed", (0.0, None))]
    rep.heading(title)
    rep.text(intro)
    rows = []
    for case in cases:
        for label in labels:
            runs = data.get((case, label), {})
            rows.append([case, label, len(runs)] + [show({r: m[k] for r, m in runs.items()}, bounds) for k, _, bounds in measures])
    rep.table(["case", "configuration", "runs"] + [name for _, name, _ in measures], rows, "kernel runs: mean ± 95% CI (or the runs)")
    ls = loads(data)
    failed = Counter(e for k, runs in data.items() if k != "errors" for m in runs.values() for e in m.get("flow_errors", []))
    rt = [m.get("realtime") for k, runs in data.items() if k != "errors" for m in runs.values()]
    rep.text(
        "Measured on a shared machine: load average (1 min) around the runs "
        + (f"{min(ls):.1f} to {max(ls):.1f}" if ls else "not recorded")
        + f" on {os.cpu_count()} cores; the router "
        + ("ran at a real-time priority in every run" if rt and all(rt) else "did not always get a real-time priority")
        + ". Times and rates from a loaded machine; the comparisons pair runs made back to back."
        + (f" Failed runs, left out ({len(data['errors'])}): " + "; ".join(data["errors"][:3]) + "." if data["errors"] else "")
        + (f" Flows that failed, by what failed: {', '.join(f'{e} ({n})' for e, n in failed.most_common(3))}." if failed else "")
    )
    rep.verdicts(claims, OURS)
