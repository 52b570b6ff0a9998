"""What a user hands to `ccsim.run` (a path, TOML text or a dict) turned into scenario text
and the origin name that error messages show; plus the seed and override arguments."""

from __future__ import annotations

import math
import numbers
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Union

from ._core import ScenarioError

ScenarioLike = Union[str, "os.PathLike[str]", Mapping]

U64_MAX = 2**64 - 1
I64_MIN, I64_MAX = -(2**63), 2**63 - 1


def scenario_error(origin: str, path: str, message: str) -> ScenarioError:
    """A `ScenarioError` built on the Python side, shaped like the ones the core raises."""
    err = ScenarioError(f"{origin}: {path}: {message}" if path else f"{origin}: {message}")
    err.origin, err.path, err.message = origin, path, message
    return err


def resolve(scenario: Any) -> tuple[str, str]:
    """Returns (TOML text, origin) for a path, a TOML string or a dict."""
    if isinstance(scenario, os.PathLike):
        return read_file(scenario)
    if isinstance(scenario, Mapping):
        return to_toml(scenario), "<dict>"
    if isinstance(scenario, str):
        if _looks_like_path(scenario):
            return read_file(scenario)
        return scenario, "<string>"
    raise TypeError(f"scenario must be a path, TOML text or a dict, not {type(scenario).__name__}")


def _looks_like_path(s: str) -> bool:
    # TOML text always has a `key = value` line; a file name rarely has '=' or a newline.
    if "\n" in s:
        return False
    return "=" not in s or os.path.isfile(s)


def read_file(path: str | os.PathLike[str]) -> tuple[str, str]:
    origin = os.fspath(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise scenario_error(origin, "", "no such file") from None
    except IsADirectoryError:
        raise scenario_error(origin, "", "is a directory, not a scenario file") from None
    except PermissionError:
        raise scenario_error(origin, "", "permission denied") from None
    except OSError as e:
        raise scenario_error(origin, "", f"cannot read: {e.strerror or e}") from None
    try:
        return data.decode("utf-8"), origin
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise scenario_error(origin, f"line {line}", "not UTF-8 text") from None


def check_seed(seed: Any, origin: str) -> int | None:
    """None, or an integer from 0 to 2^64-1."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= int(seed) <= U64_MAX:
        raise scenario_error(origin, "seed", f"must be an integer from 0 to {U64_MAX}, got {seed!r}")
    return int(seed)


def normalize_overrides(overrides: Any, origin: str) -> list[str]:
    """`key.path=value` strings from None, a list of such strings, or a dict {key.path: value}
    (values given as Python objects are written as TOML; None removes the key, as in sweeps)."""
    if overrides is None:
        return []
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, Mapping):
        out = []
        for key, value in overrides.items():
            if not isinstance(key, str):
                raise scenario_error(origin, "", f"override key {key!r} is not a string")
            out.append(f"{key}=" if value is None else f"{key}={toml_value(value, key)}")
        return out
    out = []
    for o in overrides:
        if not isinstance(o, str):
            raise scenario_error(origin, "", f"override {o!r} is not a string of the form key.path=value")
        out.append(o)
    return out


#: File name of a capture given by link and node names only.
DEFAULT_PCAP_FILE = "trace.pcapng"


def pcap_overrides(pcap: Any, origin: str) -> list[str]:
    """`pcap+=...` overrides that add captures to the scenario's `[[pcap]]` tables.

    `pcap`: None; a string of comma-separated link names ("R1->R2") and node names ("R1");
    a list of such names; a dict shaped like one `[[pcap]]` table; or a list of dicts. Names
    alone make one pcapng capture written to `trace.pcapng`."""
    if pcap is None:
        return []
    if isinstance(pcap, Mapping):
        return [f"pcap+={toml_value(dict(pcap), 'pcap')}"]
    if isinstance(pcap, str):
        pcap = [p for p in pcap.split(",")]
    if not isinstance(pcap, (list, tuple)) or not pcap:
        raise scenario_error(origin, "pcap", f"expected link or node names or [[pcap]] tables, got {pcap!r}")
    if all(isinstance(p, Mapping) for p in pcap):
        return [o for p in pcap for o in pcap_overrides(p, origin)]
    if not all(isinstance(p, str) for p in pcap):
        raise scenario_error(origin, "pcap", f"expected link or node names or [[pcap]] tables, got {pcap!r}")
    names = [p.strip() for p in pcap if p.strip()]
    if not names:
        raise scenario_error(origin, "pcap", "no link or node to capture")
    table = {"file": DEFAULT_PCAP_FILE, "links": [n for n in names if "->" in n], "nodes": [n for n in names if "->" not in n]}
    return pcap_overrides(table, origin)


# --- a small TOML writer, enough for scenario dicts -----------------------------------------

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _string(s: str) -> str:
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _key(k: Any, path: str) -> str:
    if not isinstance(k, str):
        raise scenario_error("<dict>", path, f"key {k!r} is not a string")
    return k if _BARE_KEY.match(k) else _string(k)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _is_array(v: Any) -> bool:
    return isinstance(v, (list, tuple)) or (hasattr(v, "tolist") and hasattr(v, "ndim") and getattr(v, "ndim", 0) > 0)


def _is_table_array(v: Any) -> bool:
    return isinstance(v, (list, tuple)) and len(v) > 0 and all(isinstance(e, Mapping) for e in v)


def toml_value(v: Any, path: str = "") -> str:
    """One value as TOML (tables inline)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, numbers.Integral):
        i = int(v)
        if not I64_MIN <= i <= I64_MAX:
            raise scenario_error("<dict>", path, f"integer {i} does not fit in 64 bits")
        return str(i)
    if isinstance(v, numbers.Real):
        f = float(v)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        r = repr(f)
        return r if any(c in r for c in ".en") else r + ".0"
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, os.PathLike):
        return _string(os.fspath(v))
    if isinstance(v, Mapping):
        items = [f"{_key(k, path)} = {toml_value(x, _join(path, str(k)))}" for k, x in v.items()]
        return "{ " + ", ".join(items) + " }" if items else "{}"
    if _is_array(v):
        seq = v.tolist() if hasattr(v, "tolist") and not isinstance(v, (list, tuple)) else v
        return "[" + ", ".join(toml_value(x, f"{path}[{i}]") for i, x in enumerate(seq)) + "]"
    if v is None:
        raise scenario_error("<dict>", path, "None has no TOML form: leave the key out instead")
    raise scenario_error("<dict>", path, f"cannot write a {type(v).__name__} as TOML")


def to_toml(d: Mapping) -> str:
    """A scenario dict as TOML text: plain keys, then [tables], then [[arrays of tables]]."""
    lines: list[str] = []
    _table(d, [], "", lines)
    return "\n".join(lines) + "\n"


def _table(d: Mapping, header: list[str], path: str, lines: list[str]) -> None:
    tables = []
    arrays = []
    for k, v in d.items():
        key = _key(k, path)
        sub = _join(path, str(k))
        if v is None:
            raise scenario_error("<dict>", sub, "None has no TOML form: leave the key out instead")
        if isinstance(v, Mapping):
            tables.append((key, v, sub))
        elif _is_table_array(v):
            arrays.append((key, v, sub))
        else:
            lines.append(f"{key} = {toml_value(v, sub)}")
    for key, v, sub in tables:
        lines.append("")
        lines.append("[" + ".".join(header + [key]) + "]")
        _table(v, header + [key], sub, lines)
    for key, v, sub in arrays:
        for i, elem in enumerate(v):
            lines.append("")
            lines.append("[[" + ".".join(header + [key]) + "]]")
            _table(elem, header + [key], f"{sub}[{i}]", lines)
