"""A scenario as the builder expands it, without running it: `ccsim show FILE` and
`ccsim.show.expand(...)`.

`expand` returns the core's description (`ccsim::scenario::describe`) as a dict: every node
(name, kind, address), every link (rate, delay, loss, cost, and its queue: discipline,
limit, signal, resolved settings), every flow (end points, start, route both ways, the
transport's resolved settings), the router mechanisms, series, captures and packet log,
and the profile whose defaults are in force. `text` formats it as `ccsim show` prints it.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict, deque
from typing import Any

from ._format import rate, table

#: What the cost section says until the scenario builder estimates memory and events.
COST_PLACEHOLDER = "not estimated yet: the scenario builder gives no estimate of memory and events in this version"


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


def _indent(block: str, by: str = "    ") -> list[str]:
    return [by + line for line in block.splitlines()]


def text(d: dict[str, Any]) -> str:
    """The description as `ccsim show` prints it."""
    out: list[str] = []
    out.append(f"{d['scenario']}: profile {d['profile']}, seed {d['seed']}, {d['duration_s']:g} s simulated ({d['warmup_s']:g} s warm-up)")
    hosts = [n for n in d["nodes"] if n["kind"] == "host"]
    routers = [n for n in d["nodes"] if n["kind"] == "router"]
    out += ["", f"nodes: {len(d['nodes'])} ({len(hosts)} hosts, {len(routers)} routers)"]
    out += table(["node", "kind", "address"], [[n["name"], n["kind"], n["address"]] for n in d["nodes"]], left=3)
    neck = set(bottlenecks(d))
    out += ["", f"links: {len(d['links'])} (* the bottleneck of some flow)"]
    rows = [
        [
            lk["name"] + (" *" if lk["name"] in neck else ""),
            _queue(lk["queue"]),
            rate(lk["rate_bps"]),
            _ms(lk["delay_s"]),
            f"{lk['loss']:g}",
            str(lk["cost"]),
        ]
        for lk in d["links"]
    ]
    out += table(["link", "queue", "rate", "delay", "loss", "cost"], rows, left=2)
    out += ["", f"flows: {len(d['flows'])} (routes: forward; back for TCP)"]
    rows = []
    for f in d["flows"]:
        route = " -> ".join(f["route"] or ["unreachable"])
        back = " -> ".join(f["reverse_route"]) if f.get("reverse_route") else ""
        rows.append([f["flow"], f["transport"], f"{f['start_s']:.6g} s", route + (f"  (back {back})" if back else "")])
    out += table(["flow", "transport", "start", "route"], rows, left=4)
    out += ["", "settings in force (the builder's resolved values)"]
    by_queue: dict[str, list[str]] = defaultdict(list)
    for lk in d["links"]:
        if lk["queue"]["settings"]:
            by_queue[f"{lk['queue']['discipline']}\n{lk['queue']['settings']}"].append(lk["name"])
    for key, names in by_queue.items():
        kind, settings = key.split("\n", 1)
        out.append(f"  queue {kind} at {', '.join(names)}:")
        out += _indent(settings)
    by_flow: dict[str, list[str]] = defaultdict(list)
    for f in d["flows"]:
        by_flow[json.dumps(f["settings"], sort_keys=True)].append(f["flow"])
    for key, names in by_flow.items():
        settings = json.loads(key)
        out.append(f"  flows {_span(names)}:")
        for part, block in settings.items():
            out.append(f"    {part}:")
            out += _indent(block, "      ")
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
    out += ["", f"cost: {COST_PLACEHOLDER}"]
    return "\n".join(out)
