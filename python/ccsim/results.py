"""The results of one run: the core's report as a dict, and its tables as Polars data frames.

Every field is documented in `docs/results-schema.md`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # polars is imported on first use: `ccsim run --json` does not need it
    import polars as pl

#: The two fields of the summary that the Python side adds to the core's report, (name,
#: type, meaning). They differ between two runs of the same scenario and seed; everything
#: else is deterministic.
ADDED_FIELDS = (
    ("wall_time_s", "float", "Wall-clock time spent building and running the simulation, seconds (**not deterministic**)."),
    ("events_per_second", "float", "`events_processed / wall_time_s` (**not deterministic**)."),
)
NONDETERMINISTIC_FIELDS = tuple(name for name, _, _ in ADDED_FIELDS)

#: The tables written as Parquet files by `to_parquet` (with `series.parquet`).
TABLES = ("flows", "queues", "links", "nodes")

# Column types come from the core's report schema (`ccsim.schema`). Counts are Int64 (not
# UInt64) so that differences of counts behave; no count comes near 2^63.


def _dtype(kind: str) -> pl.DataType:
    import polars as pl

    from . import schema

    return {
        schema.STR: pl.Utf8,
        schema.INT: pl.Int64,
        schema.FLOAT: pl.Float64,
        schema.BOOL: pl.Boolean,
        schema.LIST_INT: pl.List(pl.Int64),
        schema.LIST_FLOAT: pl.List(pl.Float64),
    }[kind]


def table_schema(name: str) -> dict[str, pl.DataType]:
    """{column: Polars type} of one of the report's tables (`flows`, `queues`, `links`,
    `nodes`, `acc`, `spoofers`), in the report's order."""
    from . import schema

    return {c: _dtype(kind) for c, kind in schema.columns(name).items()}


def _frame(rows: list[dict[str, Any]], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    import polars as pl

    columns = list(schema)
    for r in rows:  # a report of another build of the core: its extra fields, types inferred
        columns.extend(k for k in r if k not in schema and k not in columns)
    return pl.DataFrame([pl.Series(c, [r.get(c) for r in rows], dtype=schema.get(c), strict=False) for c in columns])


class Results:
    """What `ccsim.run` returns.

    - `summary`: the whole report as a dict (JSON types), the same as `ccsim run --json`.
    - `flows`, `queues`, `links`, `nodes`: one row per flow, egress queue, link, node;
      `acc`, `spoofers`: one row per ACC router, per router with an ACK spoofer.
    - `series`: sampled time series, name -> DataFrame with columns `t` (s) and `value`.
    - `totals`: the run's totals as a dict.
    - `packets`: the per-packet event log (`ccsim.packet_log`), None when the scenario keeps
      none; `packets_not_kept`: the events past its `max_events`.
    """

    def __init__(self, summary: dict[str, Any], packets: pl.DataFrame | None = None, packets_not_kept: int = 0):
        self.summary = summary
        self._tables: dict[str, pl.DataFrame] = {}
        self._series: dict[str, pl.DataFrame] | None = None
        self.packets = packets
        self.packets_not_kept = packets_not_kept
        #: (text, origin, overrides, seed) of the scenario, when `ccsim.run` made these
        #: results: `to_parquet` then also writes the expanded scenario (`scenario.json`).
        self.source: tuple[str, str, list[str], int | None] | None = None

    @classmethod
    def from_json(cls, text: str) -> Results:
        return cls(json.loads(text))

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> Results:
        """Results saved by `to_parquet` (or `ccsim run --out`), from their summary.json
        (and packets.parquet, when there is one)."""
        res = cls.from_json((Path(directory) / "summary.json").read_text(encoding="utf-8"))
        packets = Path(directory) / "packets.parquet"
        if packets.exists():
            import polars as pl

            res.packets = pl.read_parquet(packets)
        return res

    # --- scalars ----------------------------------------------------------------------------

    @property
    def totals(self) -> dict[str, Any]:
        return self.summary["totals"]

    @property
    def scenario(self) -> str:
        return self.summary["scenario"]

    @property
    def seed(self) -> int:
        return self.summary["seed"]

    # --- tables -----------------------------------------------------------------------------

    def _table(self, name: str) -> pl.DataFrame:
        if name not in self._tables:
            self._tables[name] = _frame(self.summary.get(name, []), table_schema(name))
        return self._tables[name]

    @property
    def flows(self) -> pl.DataFrame:
        return self._table("flows")

    @property
    def queues(self) -> pl.DataFrame:
        return self._table("queues")

    @property
    def links(self) -> pl.DataFrame:
        return self._table("links")

    @property
    def nodes(self) -> pl.DataFrame:
        return self._table("nodes")

    @property
    def acc(self) -> pl.DataFrame:
        """One row per router when some queue runs ACC (else empty)."""
        return self._table("acc")

    @property
    def spoofers(self) -> pl.DataFrame:
        """One row per router with an ACK spoofer (else empty)."""
        return self._table("spoofers")

    @property
    def series(self) -> dict[str, pl.DataFrame]:
        if self._series is None:
            import polars as pl

            self._series = {
                s["name"]: pl.DataFrame(
                    {
                        "t": pl.Series("t", s["t"], dtype=pl.Float64, strict=False),
                        "value": pl.Series("value", s["value"], dtype=pl.Float64, strict=False),
                    }
                )
                for s in self.summary.get("series", [])
            }
        return self._series

    def series_long(self) -> pl.DataFrame:
        """All series in one frame with columns name, t, value."""
        import polars as pl

        frames = [df.select(pl.lit(name, dtype=pl.Utf8).alias("name"), "t", "value") for name, df in self.series.items()]
        if not frames:
            return pl.DataFrame(schema={"name": pl.Utf8, "t": pl.Float64, "value": pl.Float64})
        return pl.concat(frames)

    # --- output -----------------------------------------------------------------------------

    def to_json(self) -> str:
        """The summary as one line of JSON (what `ccsim run --json` prints)."""
        return json.dumps(self.summary, separators=(",", ":"))

    def to_parquet(self, directory: str | os.PathLike[str]) -> Path:
        """Writes flows, queues, links, nodes and series (long format: name, t, value) as
        Parquet files, the packet log as packets.parquet if there is one, the expanded
        scenario as scenario.json (`ccsim show --json`) for results of `ccsim.run`, and
        summary.json, into `directory` (created if needed). Each file is written whole or not
        at all, summary.json last."""
        from ._files import atomic_write, atomic_write_text

        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        for name in TABLES:
            atomic_write(out / f"{name}.parquet", self._table(name).write_parquet)
        atomic_write(out / "series.parquet", self.series_long().write_parquet)
        if self.packets is not None:
            atomic_write(out / "packets.parquet", self.packets.write_parquet)
        if self.source is not None:
            from ._core import describe

            text, origin, overrides, seed = self.source
            atomic_write_text(out / "scenario.json", describe(text, origin, overrides, seed) + "\n")
        atomic_write_text(out / "summary.json", self.to_json() + "\n")
        return out

    def to_pandas(self) -> dict[str, Any]:
        """The tables (and the long series table, as "series") as pandas DataFrames; needs
        pandas and pyarrow."""
        frames = {name: self._table(name).to_pandas() for name in TABLES}
        frames["series"] = self.series_long().to_pandas()
        return frames

    def describe(self) -> str:
        """A short human-readable summary (what `ccsim run` prints)."""
        from ._format import describe

        return describe(self.summary)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<Results {s.get('scenario')!r} seed={s.get('seed')} {len(s.get('flows', []))} flows, "
            f"{s.get('duration_s')} s simulated, goodput {s.get('totals', {}).get('goodput_bps', 0):.4g} b/s>"
        )
