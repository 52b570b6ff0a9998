"""A scenario as the builder expands it, without running it: `ccsim show FILE` and
`ccsim.show.expand(...)`.

`expand` returns the core's description (`ccsim::scenario::describe`) as a dict: every node
(name, kind, address), every one-way link (rate, delay, loss, cost, `table`: the index of
the `[[links]]` table it comes from, as `--set links.N` counts them, and its queue:
discipline, limit, signal, resolved settings), every flow (end points, start, route both
ways, the transport's resolved settings), the router mechanisms, series, captures and
packet log, the profile whose defaults are in force, and the `cost` a run's checks estimate
(`memory_bytes`, `events`). `text` formats it as `ccsim show` prints it, the settings named
by the scenario's keys (`settings_keys`).
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict, deque
from typing import Any

from ._format import rate, table


def expand(scenario: Any, overrides: Any = None, seed: int | None = None) -> dict[str, Any]:
    """The expanded scenario (see the module docs). `scenario`, `overrides` and `seed` are
    as for `ccsim.run`; raises `ccsim.ScenarioError` as a run would."""
    from ._core import describe
    from ._scenario import check_seed, normalize_overrides, resolve

    text, origin = resolve(scenario)
    return json.loads(describe(text, origin, normalize_overrides(overrides, origin), check_seed(seed, origin)))


def _routes(d: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Each flow's route as its one-way links (empty for a flow without a route)."""
    by_hop = {(lk["from"], lk["to"]): lk for lk in d["links"]}
    out = []
    for f in d["flows"]:
        route = f.get("route") or []
        out.append([by_hop[(a, b)] for a, b in zip(route, route[1:]) if (a, b) in by_hop])
    return out


def bottlenecks(d: dict[str, Any]) -> list[str]:
    """The links where some flow's packets can queue for want of rate, in link order. On
    each flow's route, the links of the lowest rate are candidates; a candidate out of a
    router is one only when packets can reach it faster than it sends them (the links that
    feed it, on the routes that cross it, are faster together), and one out of the sending
    host only when it is slower than every other link of the route. Among the candidates of
    a route, the one that the most flows cross, then one whose queue is not Tail Drop (an
    AQM marks the queue the scenario studies), then the first. A network of equal links
    where no two routes meet has none."""
    routes = _routes(d)
    load: dict[str, int] = defaultdict(int)
    feeds: dict[str, dict[str, float]] = defaultdict(dict)
    for hops in routes:
        for prev, h in zip([None, *hops], hops):
            load[h["name"]] += 1
            if prev is not None:
                feeds[h["name"]][prev["name"]] = prev["rate_bps"]
    found: set[str] = set()
    for hops in routes:
        if not hops:
            continue
        low = min(h["rate_bps"] for h in hops)
        slowest = [h for h in hops if h["rate_bps"] == low]
        if slowest == [hops[0]]:
            found.add(hops[0]["name"])  # the sender's own link, slower than the rest (or alone)
            continue
        real = [h for h in slowest if h is not hops[0] and sum(feeds[h["name"]].values()) > h["rate_bps"]]
        if real:
            best = max(real, key=lambda h: (load[h["name"]], h["queue"]["discipline"] != "droptail", -hops.index(h)))
            found.add(best["name"])
    return [lk["name"] for lk in d["links"] if lk["name"] in found]


def capacity_bps(d: dict[str, Any]) -> float | None:
    """The most the scenario's flows can deliver together, bit/s: the maximum flow over the
    links' rates from their senders to their receivers (a bound on the total goodput).
    None for a network too large to compute it quickly (more than 20,000 links)."""
    if len(d["links"]) > 20_000 or not d["flows"]:
        return None
    source, sink = ("", "source"), ("", "sink")
    cap: dict[Any, dict[Any, float]] = defaultdict(lambda: defaultdict(float))
    for lk in d["links"]:
        cap[lk["from"]][lk["to"]] += float(lk["rate_bps"])
    for f in d["flows"]:
        cap[source][f["from"]] = math.inf
        cap[f["to"]][sink] = math.inf
    total = 0.0
    while True:
        # Edmonds-Karp: a shortest path with room left, breadth first.
        parent: dict[Any, Any] = {source: None}
        queue = deque([source])
        while queue and sink not in parent:
            a = queue.popleft()
            for b, c in cap[a].items():
                if c > 0 and b not in parent:
                    parent[b] = a
                    queue.append(b)
        if sink not in parent:
            break
        path, b = [], sink
        while parent[b] is not None:
            path.append((parent[b], b))
            b = parent[b]
        room = min(cap[a][b] for a, b in path)
        if math.isinf(room):
            return None  # a flow from a host to itself: no bound
        for a, b in path:
            cap[a][b] -= room
            cap[b][a] += room
        total += room
    return total


# ---- the builder's settings as scenario keys ------------------------------------------------
#
# The core describes each queue's and flow's resolved settings with Rust's `{:#?}` form of
# its own structures. `settings_keys` reads that text and names each value by the key of the
# scenario that sets it (`tcp.ca_increase = "exact"`, not `exact_increase: true`), written as
# TOML; the values no key sets (fixed by the variant or the profile) are listed apart.

_TOKEN = re.compile(
    r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<num>-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)(?P<secs>s\b)?|(?P<id>[A-Za-z_]\w*)|(?P<p>[{}()\[\],:]))'
)


class _Seconds(float):
    pass


class _Variant(str):
    """An enum's variant without data (`Impatient`), or the name of one with data."""


def _parse_debug(text: str) -> Any:
    """Rust's `{:#?}` text as Python values: a struct as a dict (its type under "__type__"),
    a tuple variant `Some(x)` as {"__type__": "Some", "__args__": [...]}, a bare variant
    or `None` as a `_Variant`, a `0.2s` duration as `_Seconds`."""
    tokens = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError(f"unreadable settings at {text[pos : pos + 20]!r}")
        pos = m.end()
        kind = m.lastgroup if m.lastgroup != "secs" else "num"
        tokens.append((kind, m.group(kind), m.group("secs")))
    at = 0

    def value() -> Any:
        nonlocal at
        kind, tok, secs = tokens[at]
        at += 1
        if kind == "str":
            return json.loads(tok)
        if kind == "num":
            if secs:
                return _Seconds(float(tok))
            return float(tok) if any(c in tok for c in ".e") else int(tok)
        if kind == "p" and tok == "[":
            return items("]")
        if kind == "id":
            if tok in ("true", "false"):
                return tok == "true"
            if at < len(tokens) and tokens[at][1] == "{":
                at += 1
                out: dict[str, Any] = {"__type__": tok}
                while tokens[at][1] != "}":
                    name = tokens[at][1]
                    at += 2  # the name and ':'
                    out[name] = value()
                    if tokens[at][1] == ",":
                        at += 1
                at += 1
                return out
            if at < len(tokens) and tokens[at][1] == "(":
                at += 1
                return {"__type__": tok, "__args__": items(")")}
            return _Variant(tok)
        raise ValueError(f"unexpected {tok!r} in the settings")

    def items(close: str) -> list[Any]:
        nonlocal at
        out = []
        while tokens[at][1] != close:
            out.append(value())
            if tokens[at][1] == ",":
                at += 1
        at += 1
        return out

    first = value()
    rest = []
    while at < len(tokens):  # "risk_th: 28" after a struct: more fields
        name = tokens[at][1]
        at += 2
        rest.append((name, value()))
    if rest:
        first = dict(first) if isinstance(first, dict) else {"__type__": "", "__args__": [first]}
        first.update(rest)
    return first


#: Fields of the core's structures whose scenario key has another name, and how their
#: values read there: (key, {value: what the key says}) or (key, None).
_RENAMED: dict[str, tuple[str, dict[Any, Any] | None]] = {
    "exact_increase": ("ca_increase", {True: "exact", False: "floor"}),
    "sack_clear_on_timeout": ("sack_after_timeout", {True: "clear", False: "keep"}),
    "ecn_answered_until": ("ecn_answered", None),
    "ecn_at_once_after_timeout": ("ecn_after_timeout", {True: "at-once", False: "next-window"}),
    "overload_early": ("overload", {True: "early", False: "forced"}),
    "ns2_idle": ("idle", {True: "ns2", False: "linear"}),
    "data_bytes": ("bytes", None),
}
#: The variant names that a key's values are spelt otherwise.
_SPELLING = {"Ns2Ticks": "ns2", "Rfc6298": "rfc6298", "FloydGummadiShenker": "fgs", "Feng": "feng", "NewReno": "newreno", "Dctcp": "dctcp"}
#: Keys of the scenario's `tcp`, `rdp` tables and of queues (docs/scenario-format.md).
_TCP_KEYS = {
    "variant", "mss", "init_cwnd", "min_rto", "initial_rto", "clock_granularity", "rtt_arithmetic", "rto_min_on", "ssthresh_from", "ca_increase",
    "full_ack", "reno_recover_check", "limited_transmit", "fast_retransmit_resets_timer", "head_retransmit_resets_timer", "recover_again", "byte_counting", "rwnd", "delayed_ack", "ecn",
    "ecn_answered", "ecn_after_timeout", "cwr_on_retransmit", "ect_on_retransmit", "accecn", "partial_ack_timer", "acc", "das", "sack", "sack_after_timeout",
    "prr", "rack", "ecn_response", "isn", "timestamps", "send_buffer",
}  # fmt: skip
_RDP_KEYS = {"segment_size", "max_outstanding", "init_cwnd", "min_rto", "initial_rto", "acc", "isn", "close_wait"}
_QUEUE_KEYS = {
    "min_th", "max_th", "max_p", "w_q", "gentle", "wait", "byte_mode", "mean_packet_size", "overload", "mark_p", "entry_grace",
    "idle", "adapt", "interval", "update", "risk_th", "k", "target", "tupdate", "flows", "quantum",
}  # fmt: skip
#: The keys of a congestion-control variant's own table (`tcp.cubic.beta`), and the
#: window keys a variant refuses (its value is then the variant's, set by no key).
_VARIANT_KEYS = {
    "cubic": {"c", "beta", "fast_convergence", "reno_friendly", "reno_alpha", "target_rtt"},
    "dctcp": {"g", "init_alpha"},
    "prague": {"g", "init_alpha", "rtt_target", "rtt_scaling", "rtt_transition"},
}
_NOT_FOR = {"reno": {"full_ack"}}
#: Keys of a flow itself (`flows.N.ttl`), not of its transport's table; `settings_keys`
#: names them with this prefix.
_FLOW_KEYS = {"ttl", "bytes"}
_FLOW_PREFIX = "flow."
#: Running state, not settings.
_STATE = {"state"}


def _kebab(name: str) -> str:
    if name in _SPELLING:
        return _SPELLING[name]
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name).lower()


def _toml(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, _Seconds):
        for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
            if v >= scale or unit == "ns":
                return f'"{float(v) / scale:.9g}{unit}"' if v else '"0s"'
    if isinstance(v, int) and v >= 2**31 - 1:
        return "unlimited"
    if isinstance(v, float):
        return f"{v:.9g}"
    if isinstance(v, str):
        return json.dumps(v)
    return str(v)


def _leaves(v: Any, name: str, out: list[tuple[str, Any]]) -> None:
    """The named values of a parsed structure, flattened: a nested structure gives its
    fields, an enum's variant its spelling, `Some(x)` x, `None` none."""
    if name in _STATE:
        return
    if isinstance(v, dict) and "__args__" in v:
        kind, args = v["__type__"], v["__args__"]
        if kind == "Some" and len(args) == 1:
            _leaves(args[0], name, out)
            return
        if name in ("cc", "variant"):  # the congestion controller: the variant, then its settings
            out.append(("variant", _kebab(kind)))
        for a in args:
            _leaves(a, name, out)
        return
    if isinstance(v, dict):
        if name and name in _TCP_KEYS | _RDP_KEYS | _QUEUE_KEYS | set(_RENAMED):  # an enum variant with data
            out.append((name, _kebab(v["__type__"])))
            return
        if v["__type__"] in _SPELLING and not name:  # ARED's adaptation: a variant with settings
            out.append(("adapt", _SPELLING[v["__type__"]]))
        for k, x in v.items():
            if k != "__type__":
                _leaves(x, k, out)
        return
    if isinstance(v, _Variant):
        value: Any = False if (str(v) == "None" and name == "delayed_ack") else None if str(v) == "None" else _kebab(str(v))
        out.append((name, value))
        return
    out.append((name, v))


def settings_keys(text: str, keys: set[str]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(scenario keys, values no key sets) of a settings text of the core, each as (name,
    TOML value), in the core's order. `keys`: the keys of the table the text is of."""
    if not text.strip():
        return [], []
    try:
        parsed = _parse_debug(text)
    except (ValueError, IndexError):
        return [], [("settings", text)]
    leaves: list[tuple[str, Any]] = []
    _leaves(parsed, "", leaves)
    keyed: dict[str, str] = {}
    fixed: dict[str, str] = {}
    variant = next((v for n, v in leaves if n == "variant"), None)
    own = {f"{variant}.{k}" for k in _VARIANT_KEYS.get(variant, ())} if "variant" in keys else set()
    keys = (keys | own) - _NOT_FOR.get(variant, set())
    for name, v in leaves:
        if f"{variant}.{name}" in own:
            name = f"{variant}.{name}"
        if name in _RENAMED:
            name, spelling = _RENAMED[name]
            if spelling is not None:
                v = spelling.get(v, v)
        if v is None and name not in keys:
            continue  # an option that is off and has no key (RDP's data_bytes of a bulk flow)
        if name in keys or name in _FLOW_KEYS:
            if v is not None:
                keyed.setdefault(name if name in keys else f"{_FLOW_PREFIX}{name}", _toml(v))
        else:
            fixed.setdefault(name, "none" if v is None else _toml(v))
    if keyed.get("sack") == "false":
        keyed.pop("sack_after_timeout", None)  # a key only with `sack = true`
    return list(keyed.items()), list(fixed.items())


def _pairs(items: list[tuple[str, str]], indent: str, width: int = 100) -> list[str]:
    """`key = value` pairs, several to a line."""
    lines, line = [], ""
    for k, v in items:
        part = f"{k} = {v}"
        if line and len(indent) + len(line) + 2 + len(part) > width:
            lines.append(indent + line)
            line = part
        else:
            line = f"{line}, {part}" if line else part
    if line:
        lines.append(indent + line)
    return lines


def _block(texts: dict[str, str], keys: set[str], indent: str) -> list[str]:
    """The lines of one queue's or flow's settings (`texts`: by part, as the sender's and
    the receiver's): its keys, then the values no key sets. A key's value that differs
    between the parts is the first part's; the other's is listed as set by no key."""
    keyed: list[tuple[str, str]] = []
    fixed: list[tuple[str, str]] = []
    for part, t in texts.items():
        k, f = settings_keys(t, keys)
        known = dict(keyed)
        keyed += [x for x in k if x[0] not in known]
        fixed += [(f"{part}'s {n}", v) for n, v in k if n in known and known[n] != v]
        fixed += [x for x in f if x[0] not in dict(fixed)]
    out = _pairs(keyed, indent)
    if fixed:
        out.append(f"{indent}set by no key (the variant's or the profile's values):")
        out += _pairs(fixed, indent + "  ")
    return out


def _ms(s: float) -> str:
    return f"{s * 1e3:g} ms"


def _queue(q: dict[str, Any]) -> str:
    text = f"{q['discipline']}, {q['limit']} {q['limit_unit']}"
    if q["signal"] != "drop":
        text += f", signal {q['signal']}"
    return text


def _span(names: list[str]) -> str:
    """`bulk[0..9]` for a run of a group's flows, else the names."""
    return names[0] if len(names) == 1 else f"{names[0]} .. {names[-1]} ({len(names)})"


def text(d: dict[str, Any]) -> str:
    """The description as `ccsim show` prints it."""
    out: list[str] = []
    out.append(f"{d['scenario']}: profile {d['profile']}, seed {d['seed']}, {d['duration_s']:g} s simulated ({d['warmup_s']:g} s warm-up)")
    hosts = [n for n in d["nodes"] if n["kind"] == "host"]
    routers = [n for n in d["nodes"] if n["kind"] == "router"]
    out += ["", f"nodes: {len(d['nodes'])} ({len(hosts)} hosts, {len(routers)} routers)"]
    out += table(["node", "kind", "address"], [[n["name"], n["kind"], n["address"]] for n in d["nodes"]], left=3)
    neck = set(bottlenecks(d))
    out += ["", f"links: {len(d['links'])} (* the bottleneck of some flow; table: the [[links]] table, `--set links.N...`)"]
    rows = [
        [
            lk["name"] + (" *" if lk["name"] in neck else ""),
            "-" if lk.get("table") is None else f"links.{lk['table']}",
            _queue(lk["queue"]),
            rate(lk["rate_bps"]),
            _ms(lk["delay_s"]),
            f"{lk['loss']:g}",
            str(lk["cost"]),
        ]
        for lk in d["links"]
    ]
    out += table(["link", "table", "queue", "rate", "delay", "loss", "cost"], rows, left=3)
    out += ["", f"flows: {len(d['flows'])} (routes: forward; back for TCP)"]
    rows = []
    for f in d["flows"]:
        route = " -> ".join(f["route"] or ["unreachable"])
        back = " -> ".join(f["reverse_route"]) if f.get("reverse_route") else ""
        rows.append([f["flow"], f["transport"], f"{f['start_s']:.6g} s", route + (f"  (back {back})" if back else "")])
    out += table(["flow", "transport", "start", "route"], rows, left=4)
    out += ["", "settings in force (the builder's resolved values, as the scenario's keys)"]
    by_queue: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for lk in d["links"]:
        if lk["queue"]["settings"]:
            where = "" if lk.get("table") is None else f"links.{lk['table']}.queue"
            by_queue[(lk["queue"]["discipline"], where, *_block({"queue": lk["queue"]["settings"]}, _QUEUE_KEYS, "    "))].append(
                lk["name"]
            )
    for (kind, where, *lines), names in by_queue.items():
        out.append(f"  queue {kind} at {', '.join(names)}" + (f" ({where})" if where else "") + ":")
        out += lines
    by_flow: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for f in d["flows"]:
        keys = {"tcp": _TCP_KEYS, "rdp": _RDP_KEYS}.get(f["transport"], set())
        where = f"flows.{f['group']}.{f['transport']}" if keys else f"flows.{f['group']}"
        # RDP's `max_outstanding` is the receiver's: its settings come first.
        parts = dict(sorted(f["settings"].items(), key=lambda kv: kv[0] != "receiver")) if f["transport"] == "rdp" else f["settings"]
        by_flow[(where, *_block(parts, keys, "    "))].append(f["flow"])
    for (where, *lines), names in by_flow.items():
        out.append(f"  flows {_span(names)} ({where}):")
        group = where.split(".")[1]
        out += [ln.replace(_FLOW_PREFIX, f"flows.{group}.") for ln in lines]
    if d["router_mechanisms"]:
        out.append(f"  router mechanisms: {', '.join(d['router_mechanisms'])}")
    extras = []
    if d["series"]:
        extras.append(f"{len(d['series'])} series")
    if d["pcap"]:
        extras.append(", ".join(f"capture {p['file']}" for p in d["pcap"]))
    if d["packet_log"]:
        extras.append("a packet log")
    out += ["", "records: " + (", ".join(extras) if extras else "the report only")]
    cost = d.get("cost")
    if cost:
        out += [
            "",
            f"cost: about {_bytes(cost['memory_bytes'])} of memory and {_count(cost['events'])} events (the estimates `ccsim run` checks)",
        ]
    return "\n".join(out)


def _bytes(b: float) -> str:
    for scale, unit in ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if b >= scale:
            return f"{b / scale:.3g} {unit}"
    return f"{b:.0f} bytes"


def _count(n: float) -> str:
    for scale, unit in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if n >= scale:
            return f"{n / scale:.3g}{unit}"
    return f"{n:.0f}"
