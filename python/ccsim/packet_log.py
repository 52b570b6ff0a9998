"""The per-packet event log (a scenario's `[packet_log]` table, `ccsim run --packet-log`) as
a Polars data frame: one row per event, sorted by time.

The core keeps the log as fixed-size binary records (`ccsim::trace::packet_log` documents
them); this module reads them with one `numpy.frombuffer` and turns the indices into names.
`Results.packets` is the frame, `Results.to_parquet` writes it as `packets.parquet`.

Its columns are documented in docs/results-schema.md (packets.parquet), which a test keeps
in step with `COLUMNS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

#: Columns of the frame, in order, with their Polars type names.
COLUMNS = ("t", "t_ns", "event", "reason", "node", "link", "flow", "kind", "seq", "ack", "size", "ecn")


def _dtype():
    import numpy as np

    return np.dtype(
        [
            ("t_ns", "<u8"),
            ("node", "<u4"),
            ("link", "<u4"),
            ("flow", "<u4"),
            ("seq", "<u4"),
            ("ack", "<u4"),
            ("size", "<u4"),
            ("event", "u1"),
            ("reason", "u1"),
            ("kind", "u1"),
            ("ecn", "u1"),
            ("pad", "<u4"),
        ]
    )


def empty() -> pl.DataFrame:
    import polars as pl

    types = {"t": pl.Float64, "t_ns": pl.Int64, "seq": pl.Int64, "ack": pl.Int64, "size": pl.Int64}
    return pl.DataFrame(schema={c: types.get(c, pl.Utf8) for c in COLUMNS})


def frame(raw: dict[str, Any]) -> pl.DataFrame:
    """The frame of a log as `Simulation.packet_log()` returns it."""
    import numpy as np
    import polars as pl

    dt = _dtype()
    if raw["record_bytes"] != dt.itemsize:
        raise RuntimeError(f"packet log records of {raw['record_bytes']} bytes; this package reads {dt.itemsize}")
    rec = np.frombuffer(raw["records"], dtype=dt)
    if len(rec) == 0:
        return empty()

    def names(values: np.ndarray, table: list[str], null: int | None = None) -> pl.Series:
        # An index past the table (NONE: no link, no flow) or equal to `null` is null: it is
        # looked up as the null appended to the table.
        lookup = pl.Series(list(table) + [None], dtype=pl.Utf8)
        idx = values.astype(np.int64)
        off = idx >= len(table)
        if null is not None:
            off |= idx == null
        return lookup.gather(pl.Series(np.where(off, len(table), idx)))

    return pl.DataFrame(
        {
            "t": rec["t_ns"].astype(np.float64) / 1e9,
            "t_ns": rec["t_ns"].astype(np.int64),
            "event": names(rec["event"], raw["events"]),
            "reason": names(rec["reason"], raw["drop_reasons"], null=0),
            "node": names(rec["node"], raw["nodes"]),
            "link": names(rec["link"], raw["links"]),
            "flow": names(rec["flow"], raw["flows"]),
            "kind": names(rec["kind"], raw["packet_kinds"]),
            "seq": rec["seq"].astype(np.int64),
            "ack": rec["ack"].astype(np.int64),
            "size": rec["size"].astype(np.int64),
            "ecn": names(rec["ecn"], raw["ecn_codepoints"]),
        }
    )
