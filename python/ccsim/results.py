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

#: The two fields of the summary that the Python side adds and that differ between two
#: runs of the same scenario and seed; everything else is deterministic.
NONDETERMINISTIC_FIELDS = ("wall_time_s", "events_per_second")

TABLES = ("flows", "queues", "links", "nodes")

# Column types, in the report's order. Counts are Int64 (not UInt64) so that differences of
# counts behave; no count comes near 2^63.
_S, _I, _F, _LI = "str", "int", "float", "list[int]"
_SCHEMAS: dict[str, dict[str, str]] = {
    "flows": {
        "flow": _S,
        "group": _S,
        "index": _I,
        "src": _S,
        "dst": _S,
        "transport": _S,
        "start_s": _F,
        "packets_sent": _I,
        "bytes_sent": _I,
        "new_packets_sent": _I,
        "new_bytes_sent": _I,
        "retransmitted_packets": _I,
        "fast_retransmits": _I,
        "timeouts": _I,
        "window_reductions": _I,
        "mean_window_reduction_segments": _F,
        "ecn_reductions": _I,
        "mean_rtt_ms": _F,
        "delivered_bytes": _I,
        "goodput_bps": _F,
        "out_of_order_packets": _I,
        "dupacks_sent": _I,
        "dupacks_suppressed": _I,
        "forward_dropped": _I,
        "reverse_dropped": _I,
        "completion_time_s": _F,
        "final_cwnd_segments": _F,
    },
    "queues": {
        "link": _S,
        "arrivals": _I,
        "departures": _I,
        "drops": _I,
        "drops_overflow": _I,
        "drops_early": _I,
        "drops_forced": _I,
        "drops_link_down": _I,
        "marks_early": _I,
        "marks_forced": _I,
        "mean_len_packets": _F,
        "mean_len_bytes": _F,
        "mean_delay_ms": _F,
        "max_len_packets": _I,
        "final_len_packets": _I,
        "drop_area_bounds": _LI,
        "drop_areas": _LI,
    },
    "links": {
        "link": _S,
        "from": _S,
        "to": _S,
        "rate_bps": _I,
        "delay_ms": _F,
        "tx_packets": _I,
        "tx_bytes": _I,
        "utilisation": _F,
        "lost_random": _I,
        "lost_down": _I,
        "failures": _I,
    },
    "nodes": {"node": _S, "kind": _S, "forwarded": _I, "ttl_expired": _I, "no_route": _I},
}


def _dtype(name: str) -> pl.DataType:
    import polars as pl

    return {_S: pl.Utf8, _I: pl.Int64, _F: pl.Float64, _LI: pl.List(pl.Int64)}[name]


def _frame(rows: list[dict[str, Any]], schema: dict[str, str]) -> pl.DataFrame:
    import polars as pl

    columns = list(schema)
    for r in rows:  # fields a newer core adds come after the known ones, types inferred
        columns.extend(k for k in r if k not in schema and k not in columns)
    series = []
    for c in columns:
        values = [r.get(c) for r in rows]
        dtype = _dtype(schema[c]) if c in schema else None
        series.append(pl.Series(c, values, dtype=dtype, strict=False))
    return pl.DataFrame(series)


class Results:
    """What `ccsim.run` returns.

    - `summary`: the whole report as a dict (JSON types), the same as `ccsim run --json`.
    - `flows`, `queues`, `links`, `nodes`: one row per flow, egress queue, link, node.
    - `series`: sampled time series, name -> DataFrame with columns `t` (s) and `value`.
    - `totals`: the run's totals as a dict.
    """

    def __init__(self, summary: dict[str, Any]):
        self.summary = summary
        self._tables: dict[str, pl.DataFrame] = {}
        self._series: dict[str, pl.DataFrame] | None = None

    @classmethod
    def from_json(cls, text: str) -> Results:
        return cls(json.loads(text))

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> Results:
        """Results saved by `to_parquet` (or `ccsim run --out`), from their summary.json."""
        return cls.from_json((Path(directory) / "summary.json").read_text(encoding="utf-8"))

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
            self._tables[name] = _frame(self.summary.get(name, []), _SCHEMAS[name])
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
        Parquet files, and summary.json, into `directory` (created if needed)."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        for name in TABLES:
            self._table(name).write_parquet(out / f"{name}.parquet")
        self.series_long().write_parquet(out / "series.parquet")
        (out / "summary.json").write_text(self.to_json() + "\n", encoding="utf-8")
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
