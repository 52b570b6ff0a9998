"""What a user hands to `ccsim.run` (a path, TOML text or a dict) turned into scenario text
and the origin name that error messages show; plus the seed and override arguments."""

from __future__ import annotations

import numbers
import os
import reprlib
import unicodedata
from collections.abc import Iterable, Mapping
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


#: The origin of a `ScenarioError` about an argument that is not a scenario at all.
ARGUMENT = "<argument>"

#: How deep a value handed in may nest (dicts and lists in each other): no scenario field is
#: nearly as deep, TOML files allow no deeper nesting either, and Python would run out of
#: recursion on a value that contains itself.
MAX_DEPTH = 64

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 60, 60


def shown(v: Any) -> str:
    """`repr(v)` cut short, for messages: safe for values nested deep or containing
    themselves."""
    try:
        return _REPR.repr(v)
    except Exception:  # a broken __repr__
        return f"<{type(v).__name__}>"


def printable(text: str) -> str:
    """`text` on one line, for a message: what UTF-8 cannot hold (lone surrogates, as file
    names that are not UTF-8 decode to) and control characters written as escapes."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if not any(unicodedata.category(c) == "Cc" for c in text):
        return text
    return "".join(c.encode("unicode_escape").decode("ascii") if unicodedata.category(c) == "Cc" else c for c in text)


def check_text(text: str, origin: str, path: str) -> str:
    """`text` if UTF-8 can hold it; a `ScenarioError` at `path` naming the first lone
    surrogate (which Python strings may hold and scenario text may not)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        bad = f"not UTF-8 text: a lone surrogate (U+{ord(text[e.start]):04X})"
        if path:
            raise scenario_error(origin, path, f"{bad} at character {e.start + 1}") from None
        line, column = text.count("\n", 0, e.start) + 1, e.start - text.rfind("\n", 0, e.start)
        raise scenario_error(origin, f"line {line}", f"{bad} at column {column}") from None
    return text


def resolve(scenario: Any) -> tuple[str, str]:
    """Returns (TOML text, origin) for a path, a TOML string or a dict."""
    if isinstance(scenario, os.PathLike):
        return read_file(scenario)
    if isinstance(scenario, Mapping):
        return to_toml(scenario), "<dict>"
    if isinstance(scenario, str):
        if _looks_like_path(scenario):
            return read_file(scenario)
        return check_text(scenario, "<string>", ""), "<string>"
    hint = ": decode it to text first" if isinstance(scenario, (bytes, bytearray)) else ""
    raise scenario_error(ARGUMENT, "scenario", f"must be a path, TOML text or a dict, not {type(scenario).__name__}{hint}")


def _looks_like_path(s: str) -> bool:
    # TOML text always has a `key = value` line; a file name rarely has '=' or a newline.
    if "\n" in s:
        return False
    return "=" not in s or os.path.isfile(s)


def read_file(path: str | os.PathLike[str]) -> tuple[str, str]:
    try:
        origin = printable(os.fsdecode(path))
    except (TypeError, UnicodeDecodeError):
        raise scenario_error(ARGUMENT, "scenario", f"{shown(path)} is not a usable path") from None
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
    except UnicodeDecodeError as e:  # (a surrogate's bytes do not decode either)
        line = data[: e.start].count(b"\n") + 1
        raise scenario_error(origin, f"line {line}", "not UTF-8 text") from None


def check_seed(seed: Any, origin: str) -> int | None:
    """None, or an integer from 0 to 2^64-1."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= int(seed) <= U64_MAX:
        raise scenario_error(origin, "seed", f"must be an integer from 0 to {U64_MAX}, got {shown(seed)}")
    return int(seed)


def check_max_events(max_events: Any, origin: str) -> int | None:
    """None, or a positive integer below 2^64."""
    if max_events is None:
        return None
    if isinstance(max_events, bool) or not isinstance(max_events, numbers.Integral) or not 1 <= int(max_events) <= U64_MAX:
        raise scenario_error(origin, "max_events", f"must be an integer from 1 to {U64_MAX}, got {shown(max_events)}")
    return int(max_events)


def check_out_dir(out_dir: Any, origin: str) -> str | None:
    """None, or a directory name the file system can take."""
    if out_dir is None:
        return None
    try:
        name = os.fspath(out_dir)
        os.fsencode(name)
    except (TypeError, UnicodeEncodeError):
        raise scenario_error(origin, "out_dir", f"{shown(out_dir)} is not a usable directory name") from None
    return os.fsdecode(name)


def normalize_overrides(overrides: Any, origin: str) -> list[str]:
    """`key.path=value` strings from None, a list of such strings, or a dict {key.path: value}
    (values given as Python objects are written as TOML; None removes the key, as in sweeps)."""
    if overrides is None:
        return []
    if isinstance(overrides, str):
        return [check_text(overrides, origin, "overrides[0]")]
    if isinstance(overrides, Mapping):
        out = []
        for key, value in overrides.items():
            if not isinstance(key, str):
                raise scenario_error(origin, "overrides", f"override key {shown(key)} is not a string")
            key = check_text(key, origin, printable(key))
            out.append(f"{key}=" if value is None else f"{key}={toml_value(value, key, origin)}")
        return out
    if isinstance(overrides, (bytes, bytearray)) or not isinstance(overrides, Iterable):
        raise scenario_error(origin, "overrides", f"expected key.path=value strings or a dict, got {shown(overrides)}")
    out = []
    for i, o in enumerate(overrides):
        if not isinstance(o, str):
            raise scenario_error(origin, f"overrides[{i}]", f"override {shown(o)} is not a string of the form key.path=value")
        out.append(check_text(o, origin, f"overrides[{i}]"))
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
        return [f"pcap+={toml_value(dict(pcap), 'pcap', origin)}"]
    if isinstance(pcap, str):
        pcap = [p for p in pcap.split(",")]
    if not isinstance(pcap, (list, tuple)) or not pcap:
        raise scenario_error(origin, "pcap", f"expected link or node names or [[pcap]] tables, got {shown(pcap)}")
    if all(isinstance(p, Mapping) for p in pcap):
        return [o for p in pcap for o in pcap_overrides(p, origin)]
    if not all(isinstance(p, str) for p in pcap):
        raise scenario_error(origin, "pcap", f"expected link or node names or [[pcap]] tables, got {shown(pcap)}")
    names = [check_text(p.strip(), origin, "pcap") for p in pcap if p.strip()]
    if not names:
        raise scenario_error(origin, "pcap", "no link or node to capture")
    table = {"file": DEFAULT_PCAP_FILE, "links": [n for n in names if "->" in n], "nodes": [n for n in names if "->" not in n]}
    return pcap_overrides(table, origin)


# --- TOML out: tomli-w, after a check that names the offending key ---------------------


def _plain(v: Any, path: str, origin: str = "<dict>", depth: int = 0) -> Any:
    """`v` as the plain types tomli-w writes (NumPy scalars and arrays, tuples and paths
    turned into int, float, str, list), checked: a value TOML cannot hold raises a
    `ScenarioError` whose path names the key (`links[1].queue.limit`): a value nested more
    than `MAX_DEPTH` deep (or containing itself), a string with a lone surrogate."""
    if depth > MAX_DEPTH:
        raise scenario_error(origin, path, f"nested more than {MAX_DEPTH} deep (does the value contain itself?)")
    if getattr(v, "ndim", None) == 0 and hasattr(v, "item"):  # a NumPy scalar
        v = v.item()
    if isinstance(v, bool):
        return v
    if isinstance(v, str):
        return check_text(v, origin, path or "scenario")
    if isinstance(v, numbers.Integral):
        i = int(v)
        if not I64_MIN <= i <= I64_MAX:
            raise scenario_error(origin, path, f"integer {i} does not fit in 64 bits")
        return i
    if isinstance(v, numbers.Real):
        return float(v)
    if isinstance(v, os.PathLike):
        return _plain(os.fspath(v), path, origin, depth)
    if isinstance(v, Mapping):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str):
                raise scenario_error(origin, path or "scenario", f"key {shown(k)} is not a string")
            key_path = f"{path}.{printable(k)}" if path else printable(k)
            check_text(k, origin, key_path)
            out[k] = _plain(x, key_path, origin, depth + 1)
        return out
    if isinstance(v, (list, tuple)) or (hasattr(v, "tolist") and getattr(v, "ndim", 0) > 0):
        seq = v.tolist() if not isinstance(v, (list, tuple)) else v
        return [_plain(x, f"{path}[{i}]", origin, depth + 1) for i, x in enumerate(seq)]
    if v is None:
        raise scenario_error(origin, path or "scenario", "None has no TOML form: leave the key out instead")
    raise scenario_error(origin, path or "scenario", f"cannot write a {type(v).__name__} as TOML")


def to_toml(d: Mapping) -> str:
    """A scenario dict as TOML text (tomli-w)."""
    import tomli_w

    return tomli_w.dumps(_plain(d, ""))


def toml_value(v: Any, path: str = "", origin: str = "<dict>") -> str:
    """One value as TOML on one line, tables inline: the `value` of a `key=value` override.

    tomli-w writes every scalar and key; arrays and tables are joined here, because
    tomli-w writes a table as a `[section]` and an array over several lines."""
    return _inline(_plain(v, path, origin))


def _inline(v: Any) -> str:
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_inline(x)}" for k, x in v.items()) + " }" if v else "{}"
    if isinstance(v, list):
        return "[" + ", ".join(_inline(x) for x in v) + "]"
    import tomli_w

    return tomli_w.dumps({"v": v})[len("v = ") : -1]


def _toml_key(k: str) -> str:
    import tomli_w

    return tomli_w.dumps({k: 0})[: -len(" = 0\n")]
