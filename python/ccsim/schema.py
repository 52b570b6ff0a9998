"""The report's schema: every field of a run's results, its type and its meaning, as the
simulation core declares them.

The core's report types (`crates/ccsim/src/report.rs` and the counters they flatten in)
are the one description of the results. Their JSON Schema (`ccsim._core.report_schema()`,
derived from the Rust types, doc comments as descriptions) is what the tables of
`ccsim.Results` take their column types from, and what `scripts/results_schema.py` writes
the field tables of `docs/results-schema.md` from.

    from ccsim import schema
    schema.fields("flows")      # {"flow": Field(kind="str", ...), "group": ..., ...}
    schema.columns("queues")    # {"link": "str", "arrivals": "int", ...}
"""

from __future__ import annotations

import functools
import json
from typing import Any, NamedTuple

__all__ = [
    "report_schema",
    "fields",
    "columns",
    "tables",
    "Field",
    "STR",
    "INT",
    "FLOAT",
    "BOOL",
    "LIST_INT",
    "LIST_FLOAT",
    "OBJECT",
    "LIST_OBJECT",
]

#: Kinds of a field: what the Python tables make of the JSON Schema's types.
STR, INT, FLOAT, BOOL = "str", "int", "float", "bool"
LIST_INT, LIST_FLOAT = "list[int]", "list[float]"
OBJECT, LIST_OBJECT = "object", "list[object]"


class Field(NamedTuple):
    """One field of an object of the report."""

    name: str
    #: One of the kinds above.
    kind: str
    #: Whether the value may be null (beyond non-finite floats, which JSON writes as null).
    nullable: bool
    #: The core's doc comment, or "".
    description: str
    #: For `object` and `list[object]`: the name of the object's fields (a key of `fields`).
    ref: str | None = None


@functools.lru_cache(maxsize=1)
def report_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the report, as a dict."""
    from ._core import report_schema as core_schema

    return json.loads(core_schema())


def _ref_name(node: dict[str, Any]) -> str | None:
    ref = node.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


@functools.lru_cache(maxsize=1)
def _objects() -> dict[str, tuple[str, dict[str, Any]]]:
    """{name: (definition name, object schema)}: the report itself as "report", and each
    object of it by the report field that holds it (`totals`, `flows`, `acc`, ...)."""
    root = report_schema()
    defs = root.get("$defs", {})
    out: dict[str, tuple[str, dict[str, Any]]] = {"report": ("Report", root)}
    for name, prop in root["properties"].items():
        ref = _ref_name(prop) or _ref_name(prop.get("items", {}))
        if ref is not None:
            out[name] = (ref, defs[ref])
    return out


def _field(name: str, prop: dict[str, Any], defs_to_names: dict[str, str]) -> Field:
    description = " ".join(line.strip() for line in prop.get("description", "").splitlines()).strip()
    ref = _ref_name(prop)
    if ref is not None:
        return Field(name, OBJECT, False, description, defs_to_names.get(ref, ref))
    types = prop.get("type")
    types = [types] if isinstance(types, str) else list(types or [])
    nullable = "null" in types
    types = [t for t in types if t != "null"]
    if types == ["array"]:
        items = prop.get("items", {})
        item_ref = _ref_name(items)
        if item_ref is not None:
            return Field(name, LIST_OBJECT, nullable, description, defs_to_names.get(item_ref, item_ref))
        item = items.get("type")
        kind = {"integer": LIST_INT, "number": LIST_FLOAT}.get(item)
    else:
        kind = {"integer": INT, "number": FLOAT, "string": STR, "boolean": BOOL}.get(types[0]) if len(types) == 1 else None
    if kind is None:
        raise ValueError(f"report schema: field {name!r} has a type the results tables do not know: {prop}")
    return Field(name, kind, nullable, description)


def fields(name: str = "report") -> dict[str, Field]:
    """The fields of one object of the report, in the order of the report's JSON: `report`
    (the top level), or the name of the report field that holds the object (`totals`,
    `ipfrr`, `flows`, `queues`, `links`, `nodes`, `acc`, `spoofers`, `series`)."""
    return dict(_fields(name))


@functools.cache
def _fields(name: str) -> dict[str, Field]:
    objects = _objects()
    if name not in objects:
        raise KeyError(f"the report has no object {name!r} (it has {', '.join(objects)})")
    defs_to_names = {d: n for n, (d, _) in objects.items()}
    _, obj = objects[name]
    return {k: _field(k, p, defs_to_names) for k, p in obj["properties"].items()}


def objects() -> list[str]:
    """The names `fields` accepts: "report", then its objects in the report's order."""
    return list(_objects())


def tables() -> list[str]:
    """The report's arrays of objects whose fields are all scalars or lists of numbers: the
    ones `ccsim.Results` gives as tables (flows, queues, links, nodes, acc, spoofers)."""
    out = []
    for f in fields("report").values():
        if f.kind == LIST_OBJECT and f.ref and all(c.kind not in (OBJECT, LIST_OBJECT, LIST_FLOAT) for c in fields(f.ref).values()):
            out.append(f.ref)
    return out


def columns(table: str) -> dict[str, str]:
    """{column: kind} of one table of the report, in the report's order."""
    return {k: f.kind for k, f in fields(table).items()}
