"""Your own algorithm in Python: congestion controls, queue disciplines and router
mechanisms written as classes, run by the simulator at packet level like the built-in ones.

    import ccsim

    class Halve(ccsim.QueueDiscipline):
        def __init__(self, limit=20):
            self.k = limit

        def on_arrival(self, pkt, queue):
            return ccsim.EARLY if queue.packets >= self.k else ccsim.ADMIT

    ccsim.register_queue("halve", Halve)   # then `discipline = "halve"` in a scenario

A scenario chooses a plug-in by the name it was registered under, as a built-in
(`tcp.variant = "mycc"`, `discipline = "myaqm"`, a `[[mechanisms]]` table with
`name = "mymech"`); the keys of its table are passed to the class's `__init__` as keyword
arguments. The scenario's `plugins = ["mymodule"]` key imports the modules that register
them before it is built, in every process that runs it (sweeps, Dask workers).

Each kind mirrors its seam in the Rust core (docs/architecture.md, "The seams"); hooks a
class does not define keep the core's standard rule. Randomness comes from `self.rng`,
the run's named random stream for that flow, link or mechanism, so the same scenario and
seed give the same results. An exception in a hook stops the run with `ccsim.PluginError`
(the traceback, the simulated time, the flow or link, the hook); a hook that leaves a value
the core cannot use (a negative window, NaN, an unknown verdict) stops it with a one-line
`PluginError` naming it. docs/plugins.md is the tutorial.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from . import _core
from ._core import AccInfo, AckInfo, EventInfo, HeadInfo, Packet, PacketError, PluginError, QueueInfo, Random, RateInfo

# Verdicts of a queue discipline (the core's `Verdict`).
#: No congestion signal: the packet is queued.
ADMIT = 0
#: An early signal: the queue's `signal` policy drops the packet or marks it (ECN).
EARLY = 1
#: A forced signal (the average is past the point where every arrival is signalled).
FORCED = 2
#: An early signal that drops the packet even where the policy would mark it.
EARLY_DROP = 3

# Actions of a router mechanism's `on_verdict` (the core's `Action`).
ENQUEUE = 0
MARK = 1
DROP = 2
ENQUEUE_AND_SPOOF = 3
DROP_AND_SPOOF = 4


class CongestionControl(_core.CongestionControlBase):
    """A congestion control: the window arithmetic of one TCP flow's sender.

    The sender owns loss detection, recovery and the retransmission timer; the class owns
    `self.cwnd` and `self.ssthresh` (bytes) and changes them in its hooks. `self.mss` is the
    segment size, `self.flow` the flow (`"bulk[0]"`), `self.rng` its random stream; the three
    are set before the first hook (`mss` is 0 in `__init__`). A hook the class does not
    define is the standard rule (RFC 5681, RFC 6582, RFC 3168), so an empty subclass is
    NewReno.

    Class attributes: `recovery` (`"newreno"`, or `"reno"`: RFC 5681's recovery, leaving it
    with cwnd = ssthresh), `ecn` (`"optional"`: as the scenario's `tcp.ecn` says, or
    `"per-packet"`: on, with the receiver echoing every CE, as DCTCP needs), `paces`
    (True: the sender paces new data at `self.pacing_rate`, bytes per second counting each
    segment as its payload and 40 header bytes, or sends as the window allows while it is
    None).
    """

    recovery = "newreno"
    ecn = "optional"
    paces = False

    # Each hook below is the standard rule of RFC 5681 as the "rfc" profile has it, written
    # in Python so that a subclass may call `super()`; a class that does not define a hook
    # gets the core's own rule (the same, and the profile's variants of it) without a call
    # into Python.

    def on_ack(self, ack: AckInfo) -> None:
        """New data acknowledged outside fast recovery: the window's growth. `ack` has `now`,
        `acked`, `una`, `max`, `flight`, `ece`, `cwnd_limited`, `rtt` and `srtt` (seconds,
        or None). Standard rule: slow start below ssthresh, then one MSS per window, neither
        on an ECN-Echo nor when the window did not limit sending."""
        if ack.ece or not ack.cwnd_limited:
            return
        if self.cwnd < self.ssthresh:
            self.cwnd += min(ack.acked, self.mss)
        else:
            self.cwnd += max(self.mss * self.mss // self.cwnd, 1)

    def reduce(self, event: EventInfo, signal: str) -> int:
        """The decrease for `signal` (`"loss"`, `"ecn"` or `"timeout"`): sets
        `self.ssthresh` and returns the window to leave (fast recovery inflates it from
        there). `event` has `now`, `flight`, `dupacks`, `backoffs`, `rwnd`,
        `ecn_answered`. Standard rule: ssthresh = max(flight / 2, 2 MSS)."""
        self.ssthresh = max(event.flight // 2, 2 * self.mss)
        return self.ssthresh

    def on_loss(self, event: EventInfo) -> None:
        """Three duplicate ACKs: a loss, before the retransmission. Fast recovery then
        starts from the `self.cwnd` this leaves. Standard rule: `reduce(event, "loss")`."""
        self.cwnd = self.reduce(event, "loss")

    def on_ecn(self, event: EventInfo) -> None:
        """An ECN-Echo the sender answers (once per window). Standard rule:
        `reduce(event, "ecn")`, and cwnd no larger than what it returns."""
        self.cwnd = min(self.cwnd, self.reduce(event, "ecn"))

    def on_timeout(self, event: EventInfo) -> None:
        """The retransmission timer expired; everything outstanding will be resent. Standard
        rule: `reduce(event, "timeout")` on the first expiry, then cwnd = 1 MSS."""
        if event.backoffs == 0 and not event.ecn_answered:
            self.reduce(event, "timeout")
        self.cwnd = self.mss

    def on_rate_sample(self, rs: RateInfo) -> None:
        """After each ACK that delivered data (only for a class that defines it): the
        delivery-rate sample, `now` (the ACK's time, seconds: in SACK recovery no other
        hook is called), `delivered`, `interval`, `delivery_rate` (bytes/s), `rtt`,
        `prior_in_flight`, `is_app_limited`, `total_delivered`."""


class QueueDiscipline(_core.QueueDisciplineBase):
    """A queue discipline of one link's egress queue.

    `self.link` (`"R1->R2"`), `self.link_bps`, `self.limit_packets` or `self.limit_bytes` and
    `self.rng` (the link's stream, the one built-in disciplines draw from) are set before
    `__init__` runs. The queue keeps the packets, the counts and the limit; the discipline
    gives a verdict, and the queue's `signal` (`"drop"`, `"ecn"`) turns a signal into a drop
    or a mark.
    """

    def on_arrival(self, pkt: Packet, queue: QueueInfo) -> int:
        """A packet arrives (read-only: `size`, `flow`, `kind`, `ecn`, `ect`, `seq`, ...);
        `queue` has `packets` and `bytes` before it is added, `now` (seconds) and `now_ns`.
        Returns `ADMIT`, `EARLY`, `FORCED` or `EARLY_DROP`. Required."""
        raise NotImplementedError

    def on_departure(self, queue: QueueInfo, departed_bytes: int) -> None:
        """A packet of `departed_bytes` left; `queue` is what it left behind."""

    def on_dequeue(self, head: HeadInfo | None, now: float) -> int:
        """A class that defines it decides at dequeue too (CoDel): the packet at the head,
        taken out (`sojourn` seconds, `bytes_left`), or None when the queue is empty.
        Returns a verdict; after a drop the next head is offered."""
        return ADMIT

    def on_overflow(self) -> bool:
        """An arrival found the buffer full (after `on_arrival`): True counts the drop as an
        overflow whatever the verdict was."""
        return False


class RouterMechanism(_core.RouterMechanismBase):
    """A router mechanism: hooks at the routers and queues of the whole network, as
    `router/hooks.rs`. Nodes and links are numbers; `self.nodes` and `self.links` map names
    to them and `self.link_ends[link]` is a link's (head, tail) nodes (set before `__init__`
    runs). Effects are asked for during a hook and applied after it returns:
    `self.send(node, pkt)`, `self.send_first(node, pkt)` (in `on_arrival`: before the
    arriving packet), `self.set_timer(at, a, b)` (calls `on_timer(a, b, now)`).
    `self.rng` is its random stream, `self.now_ns` the hook's time in nanoseconds. A scenario
    runs it with a `[[mechanisms]]` table. `self.link_delay_ns[link]` is a link's propagation
    delay and `self.node_kinds[node]` `"host"` or `"router"`; during a hook given a time,
    `self.route(node, dst)` is the link a node's routing table gives for `dst` now and
    `self.path(src, dst)` the links from `src` to `dst`.

    In `next_hop` the packet's routing fields may be rewritten, as fast reroute's tunnel does:
    `pkt.tunnel` (the repair path it is tunnelled along, 0 for none) and `pkt.ttl` (1 to 255);
    every other packet is read-only.

    A hook may send a packet it was given, or one it builds as the Rust mechanisms do,
    stamped with the hook's time:

    - `self.spoofed_ack(of, ack, wnd, seq=0)`: a TCP ACK toward the sender of `of`'s flow
      (`of` a TCP packet of the flow, either direction), from its receiver's address, as ACK
      spoofing makes them (kind `"spoofed_ack"`);
    - `self.acc_control(node, dropped, cwnd, ssthresh, srtt, slow_start=False,
      fast_recovery=False)`: an ACC control datagram from router `node` to the sender of
      the data packet `dropped`, asking for that congestion state (`srtt` in seconds).

    A field out of range, a packet of the wrong kind or a node that does not exist raises
    `ccsim.PacketError` (a `ValueError`); in a run it stops the run with a one-line
    `PluginError` naming the field."""

    def on_arrival(self, node: int, pkt: Packet, now: float) -> bool | None:
        """A packet reached router `node`, not its destination (TTL decremented). Returns
        True to discard it (a drop of its flow), False or None to forward it."""

    def next_hop(self, node: int, pkt: Packet, chosen: int | None, now: float) -> int | None:
        """`node` sends `pkt` on `chosen` (the routing table's link, or None): returns the
        link to use."""
        return chosen

    def on_verdict(self, link: int, pkt: Packet, verdict: str, action: int, now: float) -> int:
        """`link`'s queue gave `verdict` (`"admit"`, `"early"`, `"forced"`, `"early_drop"`,
        `"overflow"`) and its policy chose `action`: returns the action to commit
        (`ENQUEUE`, `MARK`, `DROP`, `ENQUEUE_AND_SPOOF`, `DROP_AND_SPOOF`)."""
        return action

    def on_queue_drop(self, link: int, pkt: Packet, now: float) -> None:
        """`link`'s queue dropped `pkt`."""

    def on_link_change(self, link: int, up: bool, now: float) -> None:
        """`link` went down (`up` False) or came up."""

    def on_timer(self, a: int, b: int, now: float) -> None:
        """A timer set with `set_timer(at, a, b)` expired."""

    def claims_loss(self, pkt: Packet) -> bool | None:
        """The network lost `pkt` anywhere (a queue, the wire, a failure, no route, TTL, a
        discard). True if it was the mechanism's own packet (one it built), so that the loss
        is not charged to the packet's flow. Given no time (the core's hook has none): a
        failure here names the packet instead, and `route`, `path` and effects are refused."""
        return False

    def settle(self, now: float) -> None:
        """Before statistics are read (once when the run is built, at the end of the
        warm-up, whenever a report is taken): brings time-dependent state up to `now`. No
        effects."""

    def begin_measurement(self) -> None:
        """The warm-up ended (`self.now_ns` is its end): counters restart from here, as the
        built-in mechanisms keep their counters as of now and report what they count after
        them. Not called without a warm-up. No effects."""


_CC_HOOKS = ("on_ack", "reduce", "on_loss", "on_ecn", "on_timeout", "on_rate_sample")
_QUEUE_HOOKS = ("on_arrival", "on_departure", "on_dequeue", "on_overflow")
_MECHANISM_HOOKS = (
    "on_arrival",
    "next_hop",
    "on_verdict",
    "on_queue_drop",
    "on_link_change",
    "on_timer",
    "claims_loss",
    "settle",
    "begin_measurement",
)


def _defined(cls: type, base: type, hooks: tuple[str, ...]) -> list[str]:
    """The hooks `cls` defines itself (not inherited from `base`)."""
    return [h for h in hooks if getattr(cls, h, None) is not getattr(base, h)]


def _check(name: Any, cls: Any, base: type) -> None:
    if not isinstance(name, str) or not name:
        raise TypeError(f"a plug-in's name must be a non-empty string, not {name!r}")
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise TypeError(f"{name!r}: {cls!r} is not a subclass of ccsim.{base.__name__}")


def register_cc(name: str, cls: type[CongestionControl]) -> None:
    """Registers `cls` as the congestion control `tcp.variant = name` selects; registering a
    name again replaces the class. A built-in name (`"reno"`) raises `ValueError`."""
    _check(name, cls, CongestionControl)
    _core.register_cc(name, cls, cls.recovery, cls.ecn, _defined(cls, CongestionControl, _CC_HOOKS), bool(cls.paces))


def register_queue(name: str, cls: type[QueueDiscipline]) -> None:
    """Registers `cls` as the queue discipline `discipline = name` selects; registering a
    name again replaces the class. A built-in name (`"red"`) raises `ValueError`."""
    _check(name, cls, QueueDiscipline)
    _core.register_queue(name, cls, _defined(cls, QueueDiscipline, _QUEUE_HOOKS))


def register_mechanism(name: str, cls: type[RouterMechanism]) -> None:
    """Registers `cls` as the router mechanism a `[[mechanisms]]` table with `name = name`
    runs."""
    _check(name, cls, RouterMechanism)
    _core.register_mechanism(name, cls, _defined(cls, RouterMechanism, _MECHANISM_HOOKS))


def import_modules(text: str, origin: str = "<string>") -> list[str]:
    """Imports the modules the scenario's `plugins` key names (the simulator calls this
    before building a scenario that has the key). A module is looked up on `sys.path`, then
    in the scenario file's folder and the current folder. Raises `ScenarioError` naming
    `plugins[i]` for a module that cannot be imported."""
    from ._scenario import scenario_error

    try:
        import tomllib  # type: ignore[import-not-found]
    except ImportError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        names = tomllib.loads(text).get("plugins", [])
    except tomllib.TOMLDecodeError:
        return []  # the core reports the syntax error
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise scenario_error(origin, "plugins", "must be a list of module names")
    for i, name in enumerate(names):
        try:
            _import(name, origin)
        except Exception as e:
            raise scenario_error(origin, f"plugins[{i}]", f"cannot import {name!r}: {type(e).__name__}: {e}") from e
    return names


def _import(name: str, origin: str) -> None:
    if name in sys.modules:
        return
    try:
        importlib.import_module(name)
        return
    except ModuleNotFoundError as e:
        if e.name != name.split(".")[0]:
            raise
    folders = [os.getcwd()]
    if not origin.startswith("<"):
        folders.insert(0, os.path.dirname(os.path.abspath(origin)))
    for folder in folders:
        if folder not in sys.path:
            sys.path.append(folder)
    importlib.import_module(name)


__all__ = [
    "ADMIT",
    "EARLY",
    "FORCED",
    "EARLY_DROP",
    "ENQUEUE",
    "MARK",
    "DROP",
    "ENQUEUE_AND_SPOOF",
    "DROP_AND_SPOOF",
    "AccInfo",
    "AckInfo",
    "CongestionControl",
    "EventInfo",
    "HeadInfo",
    "Packet",
    "PacketError",
    "PluginError",
    "QueueDiscipline",
    "QueueInfo",
    "Random",
    "RateInfo",
    "RouterMechanism",
    "import_modules",
    "register_cc",
    "register_mechanism",
    "register_queue",
]
