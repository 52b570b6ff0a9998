"""Router mechanisms written as plug-ins (tests/test_plugin_mechanisms.py): ACK spoofing as
`router/ack_spoof.rs` has it, Active Congestion Control as `router/acc/` has it, a detour
around failed links (the hooks `next_hop` and `on_link_change`), a tunnel, and mechanisms that
ask for packets the simulator cannot send."""

from __future__ import annotations

from dataclasses import dataclass

import ccsim

MOD = 1 << 32


def seq_diff(a: int, b: int) -> int:
    """The signed distance from `b` to `a`, sequence numbers modulo 2^32 (`Seq::diff`)."""
    d = (a - b) % MOD
    return d - MOD if d >= 1 << 31 else d


@dataclass
class RealAck:
    ack: int
    wnd: int
    seq: int


@dataclass
class FlowState:
    """A flow's entry of the router's table (`ack_spoof.rs`, `FlowState`); times in ns."""

    last: RealAck | None = None
    mss: int = 0
    pending_since: int | None = None
    spoofed: tuple[int, int] | None = None
    unanswered: int = 0
    asymmetric: bool = False
    discard: tuple[int, int] | None = None


STATS = (
    "signals",
    "spoof_events",
    "spoofed_acks_sent",
    "signals_absorbed",
    "pending_set",
    "pending_resolved",
    "pending_expired",
    "retransmissions_discarded",
    "fallback_drops",
    "asymmetric_detected",
)


class Spoofer:
    """One router's spoofer (`AckSpoofer`), its flows in a dict (the Rust table's buckets
    never fill in the tests' networks, so nothing is evicted)."""

    def __init__(self, cfg: PyAckSpoofing):
        self.cfg = cfg
        self.flows: dict[tuple[int, int, int, int], FlowState] = {}
        self.armed = 0
        self.stats = dict.fromkeys(STATS, 0)

    def expire(self, st: FlowState, now: int) -> None:
        def stale(t: int) -> bool:
            return now - t > self.cfg.timeout

        if st.pending_since is not None and stale(st.pending_since):
            st.pending_since = None
            self.stats["pending_expired"] += 1
        if st.spoofed is not None and stale(st.spoofed[1]):
            st.spoofed = None
        if st.discard is not None and stale(st.discard[1]):
            st.discard = None
            self.armed -= 1

    def burst(self, st: FlowState, of: ccsim.Packet, acked: RealAck, now: int) -> ccsim.Packet:
        cfg = self.cfg
        self.stats["spoof_events"] += 1
        self.stats["spoofed_acks_sent"] += cfg.dupacks
        st.spoofed = (acked.ack, now)
        if cfg.discard:
            self.armed += st.discard is None
            st.discard = (1 if st.discard is None else st.discard[0] + 1, now)
        return cfg.spoofed_ack(of, ack=acked.ack, wnd=acked.wnd, seq=acked.seq)

    def on_signal(self, pkt: ccsim.Packet, action: int, now: int) -> tuple[int, ccsim.Packet | None]:
        cfg = self.cfg
        self.stats["signals"] += 1
        st = self.flows.setdefault((pkt.src, pkt.dst, pkt.sport, pkt.dport), FlowState())
        self.expire(st, now)
        st.mss = max(st.mss, pkt.payload)
        if st.asymmetric or st.unanswered >= cfg.asymmetric_threshold:
            if not st.asymmetric:
                st.asymmetric = True
                self.stats["asymmetric_detected"] += 1
                if st.pending_since is not None:
                    st.pending_since = None
                    self.stats["pending_expired"] += 1
            self.stats["fallback_drops"] += 1
            return ccsim.DROP, None
        st.unanswered += 1
        if st.pending_since is not None or st.spoofed is not None:
            self.stats["signals_absorbed"] += 1
            return action, None
        if st.last is not None and not cfg.below:
            return action, self.burst(st, pkt, st.last, now)
        st.pending_since = now
        self.stats["pending_set"] += 1
        return action, None

    def on_real_ack(self, pkt: ccsim.Packet, now: int) -> tuple[ccsim.Packet | None, bool]:
        """The burst to send, if any, and whether it goes before the ACK."""
        st = self.flows.get((pkt.dst, pkt.src, pkt.dport, pkt.sport))
        if st is None:
            return None, False
        self.expire(st, now)
        previous = st.last
        real = RealAck(pkt.ack, pkt.wnd, pkt.seq)
        if previous is None or seq_diff(real.ack, previous.ack) >= 0:
            st.last = real
        st.unanswered = 0
        st.asymmetric = False
        out: tuple[ccsim.Packet | None, bool] = (None, False)
        if st.pending_since is not None:
            st.pending_since = None
            self.stats["pending_resolved"] += 1
            if self.cfg.below:
                below = previous or RealAck((real.ack - st.mss) % MOD, real.wnd, real.seq)
                out = (self.burst(st, pkt, below, now), True)
            else:
                out = (self.burst(st, pkt, st.last or real, now), False)
        if st.spoofed is not None and seq_diff(real.ack, st.spoofed[0]) > 0:
            st.spoofed = None
        return out

    def needless(self, pkt: ccsim.Packet, now: int) -> bool:
        """A data packet the receiver has acknowledged, while a burst's discard is armed."""
        st = self.flows.get((pkt.src, pkt.dst, pkt.sport, pkt.dport))
        if st is None:
            return False
        self.expire(st, now)
        if st.discard is None or st.last is None or seq_diff((pkt.seq + pkt.payload) % MOD, st.last.ack) > 0:
            return False
        left, since = st.discard
        st.discard = (left - 1, since) if left > 1 else None
        self.armed -= st.discard is None
        self.stats["retransmissions_discarded"] += 1
        return True


class PyAckSpoofing(ccsim.RouterMechanism):
    """ACK spoofing (Xu & Molle) as `router/ack_spoof.rs`: the congestion signals of the
    queues of `links` (whose `signal` is "drop") become spoofs, as `signal = "spoof"` makes
    them, and a spoofer at each of their heads answers them with duplicate ACKs it builds.
    The buffer is assumed never to overflow: the hook does not see whether an early signal
    found room, which the built-in policy does."""

    def __init__(
        self,
        links,
        dupacks=3,
        spoof_below_real_ack=True,
        discard_retransmission=None,
        asymmetric_threshold=3,
        pending_timeout=0.5,
    ):
        self.dupacks, self.below = dupacks, spoof_below_real_ack
        self.discard = spoof_below_real_ack if discard_retransmission is None else discard_retransmission
        self.asymmetric_threshold = asymmetric_threshold
        self.timeout = round(pending_timeout * 1e9)
        self.signalling = {self.links[name] for name in links}
        self.spoofers = {self.link_ends[link][0]: Spoofer(self) for link in self.signalling}

    def send_burst(self, node, pkt, first=False):
        for _ in range(self.dupacks):
            (self.send_first if first else self.send)(node, pkt)

    def on_arrival(self, node, pkt, now):
        sp = self.spoofers.get(node)
        if sp is None:
            return False
        if pkt.kind == "tcp_ack":
            burst, first = sp.on_real_ack(pkt, self.now_ns)
            if burst is not None:
                self.send_burst(node, burst, first)
        elif pkt.kind == "tcp_data" and sp.armed > 0:
            return sp.needless(pkt, self.now_ns)
        return False

    def on_verdict(self, link, pkt, verdict, action, now):
        if link not in self.signalling or action == ccsim.ENQUEUE or pkt.kind != "tcp_data":
            return action
        # What `signal = "spoof"` makes of the verdict, for a buffer with room.
        action = ccsim.ENQUEUE_AND_SPOOF if verdict in ("early", "forced", "early_drop") else ccsim.DROP_AND_SPOOF
        node = self.link_ends[link][0]
        action, burst = self.spoofers[node].on_signal(pkt, action, self.now_ns)
        if burst is not None:
            self.send_burst(node, burst)
        return action

    def counters(self):
        """Each spoofer's counters, by router name."""
        names = {n: name for name, n in self.nodes.items()}
        return {names[node]: sp.stats for node, sp in self.spoofers.items()}


class Detour(ccsim.RouterMechanism):
    """A fast reroute by hand: while a link of `detours` ("R1->R2" = "R1->R3") is down,
    its head sends what the routing table gives that link on the detour instead."""

    instances: list[Detour] = []

    def __init__(self, detours):
        self.detours = {self.links[a]: self.links[b] for a, b in detours.items()}
        self.down: set[int] = set()
        self.changes: list[tuple[str, bool, float]] = []
        self.detoured = 0
        Detour.instances.append(self)

    def on_link_change(self, link, up, now):
        name = next(n for n, i in self.links.items() if i == link)
        self.changes.append((name, up, now))
        (self.down.discard if up else self.down.add)(link)

    def next_hop(self, node, pkt, chosen, now):
        if chosen in self.down and chosen in self.detours:
            self.detoured += 1
            return self.detours[chosen]
        return chosen


class AccHalver(ccsim.RouterMechanism):
    """For each data packet of an ACC sender the queue of `link` drops, a control from the
    link's head asking the sender for half the window the packet carried."""

    seen: list[ccsim.AccInfo] = []

    def __init__(self, link):
        self.link = self.links[link]
        self.router = self.link_ends[self.link][0]

    def on_queue_drop(self, link, pkt, now):
        state = pkt.acc
        if link != self.link or state is None:
            return
        AccHalver.seen.append(state)
        half = max(state.cwnd // 2, 2000)
        self.send(self.router, self.acc_control(self.router, pkt, cwnd=half, ssthresh=half, srtt=state.srtt))


ACC_STATS = (
    "acc_drops",
    "below_rtt_floor",
    "controls_sent",
    "controls_lost",
    "filters_installed",
    "filters_removed_count",
    "filters_removed_behaviour",
    "filters_removed_timeout",
    "filters_replaced",
    "packets_filtered",
)


@dataclass
class AccFilter:
    """A filter at work on one flow (`decide::FilterState`); times in ns."""

    flow: int
    start: int
    until: int
    carried: int
    remaining: int


def acc_carried(pkt: ccsim.Packet) -> tuple[ccsim.AccInfo, int] | None:
    """The state a data packet carries and its windows' segment (`acc::carried`)."""
    state = pkt.acc
    if state is None:
        return None
    if pkt.kind == "tcp_data":
        return state, pkt.payload
    if pkt.kind == "rdp_data" and pkt.payload > 0:
        return state, 1
    return None


class PyAcc(ccsim.RouterMechanism):
    """Active Congestion Control in the routers as `router/acc/` has it: a monitor on the
    queues of `links` (what `acc = true` in their queue tables asks for), with `rtt_floor`
    and `filter_timeout` in seconds, and the filters it installs upstream. Counters per node,
    measured from the end of the warm-up, as the report's `acc` section has them."""

    last: PyAcc | None = None

    def __init__(self, links, rtt_floor=0.0, filter_timeout=None):
        self.floor = round(rtt_floor * 1e9)
        self.timeout = None if filter_timeout is None else round(filter_timeout * 1e9)
        self.monitored = {self.links[name] for name in links}
        self.last_control: dict[tuple[int, int], int] = {}
        n = len(self.node_kinds)
        self.filters: list[list[AccFilter]] = [[] for _ in range(n)]
        self.stats = [dict.fromkeys(ACC_STATS, 0) for _ in range(n)]
        self.baseline = [dict.fromkeys(ACC_STATS, 0) for _ in range(n)]
        PyAcc.last = self

    def on_queue_drop(self, link, pkt, now):
        carried = acc_carried(pkt) if link in self.monitored else None
        if carried is None:
            return
        state, seg = carried
        router, now = self.link_ends[link][0], self.now_ns
        stats = self.stats[router]
        stats["acc_drops"] += 1
        srtt_us = round(state.srtt * 1e6)
        srtt = srtt_us * 1000
        if srtt < self.floor:
            stats["below_rtt_floor"] += 1
            return
        last = self.last_control.get((link, pkt.flow))
        if srtt == 0 or state.fast_recovery or (last is not None and now < last + srtt):
            return
        seg = max(seg, 1)
        cwnd = max(state.cwnd // 2, 2 * seg)
        if cwnd >= state.cwnd:
            return
        stats["controls_sent"] += 1
        self.last_control[(link, pkt.flow)] = now
        remaining = (state.cwnd - cwnd) // seg
        if remaining > 0:
            site, delay = self.filter_site(link, pkt)
            lifetime = 2 * srtt if self.timeout is None else self.timeout
            self.install(site, AccFilter(pkt.flow, now + delay, now + delay + lifetime, state.cwnd, remaining))
        self.send(router, self.acc_control(router, pkt, cwnd, cwnd, state.srtt))

    def filter_site(self, link, pkt):
        """The router before the congested one on the flow's path and the delay of the link
        between them, or the congested router itself at once (`acc::filter_site`)."""
        path = self.path(pkt.src, pkt.dst) or []
        if link in path and path.index(link) > 0:
            previous = path[path.index(link) - 1]
            head = self.link_ends[previous][0]
            if self.node_kinds[head] == "router":
                return head, self.link_delay_ns[previous]
        return self.link_ends[link][0], 0

    def install(self, node, new):
        filters, stats = self.filters[node], self.stats[node]
        stats["filters_installed"] += 1
        for i, f in enumerate(filters):
            if f.flow == new.flow:
                stats["filters_replaced"] += 1
                filters[i] = new
                return
        filters.append(new)

    def on_arrival(self, node, pkt, now):
        filters = self.filters[node]
        carried = acc_carried(pkt) if filters else None
        if carried is None:
            return False
        now = self.now_ns
        i = next((i for i, f in enumerate(filters) if f.flow == pkt.flow and f.start <= now), None)
        if i is None:
            return False
        f, stats = filters[i], self.stats[node]
        discard, ended = False, None
        if now >= f.until:
            ended = "filters_removed_timeout"
        elif carried[0].cwnd < f.carried:
            ended = "filters_removed_behaviour"
        else:
            f.remaining = max(f.remaining - 1, 0)
            discard = True
            stats["packets_filtered"] += 1
            ended = "filters_removed_count" if f.remaining == 0 else None
        if ended is not None:
            stats[ended] += 1
            last = filters.pop()  # Vec::swap_remove
            if i < len(filters):
                filters[i] = last
        return discard

    def claims_loss(self, pkt):
        if pkt.kind != "acc_control":
            return False
        self.stats[pkt.src]["controls_lost"] += 1
        return True

    def settle(self, now):
        for node, filters in enumerate(self.filters):
            kept = [f for f in filters if f.until > self.now_ns]
            self.stats[node]["filters_removed_timeout"] += len(filters) - len(kept)
            self.filters[node] = kept

    def begin_measurement(self):
        self.baseline = [dict(s) for s in self.stats]

    def report(self):
        """The report's `acc` section: every router's counters since the warm-up."""
        names = {n: name for name, n in self.nodes.items()}
        return [
            {"router": names[n], **{k: s[k] - b[k] for k in ACC_STATS}, "filters_active": len(self.filters[n])}
            for n, (s, b) in enumerate(zip(self.stats, self.baseline))
            if self.node_kinds[n] == "router"
        ]


class Tunnel(ccsim.RouterMechanism):
    """Fast reroute's explicit repair paths by hand (`router/frr.rs` with `lfa = false` and
    failures shorter than its hold-down): while a link of `repairs` ("R1->R2" = ["R1", "R3",
    "R2"], nodes from its head) is down, its head tunnels the packets routed over it along
    the path, IP in IP (the routers inside leave the TTL alone). `seen` records
    (node, tunnel, ttl) as each router on a path finds a tunnelled packet."""

    instances: list[Tunnel] = []

    def __init__(self, repairs):
        self.repairs = {}  # link -> (tunnel, hops)
        for i, (link, path) in enumerate(repairs.items()):
            self.repairs[self.links[link]] = (i + 1, [self.links[f"{a}->{b}"] for a, b in zip(path, path[1:])])
        self.hops = {tunnel: hops for tunnel, hops in self.repairs.values()}
        self.down: set[int] = set()
        self.seen: list[tuple[int, int, int]] = []
        Tunnel.instances.append(self)

    def on_link_change(self, link, up, now):
        (self.down.discard if up else self.down.add)(link)

    def next_hop(self, node, pkt, chosen, now):
        if pkt.tunnel:
            self.seen.append((node, pkt.tunnel, pkt.ttl))
            hop = next((h for h in self.hops[pkt.tunnel] if self.link_ends[h][0] == node), None)
            if hop is not None:
                pkt.ttl += 1  # inside the tunnel: undo this router's decrement
                return hop
            pkt.tunnel = 0  # the tail: routed normally from here
        if chosen in self.down and chosen in self.repairs:
            pkt.tunnel, hops = self.repairs[chosen]
            return hops[0]
        return chosen


class BadPacket(ccsim.RouterMechanism):
    """At the first data packet it sees, asks for `call` (below), which the simulator refuses."""

    def __init__(self, call):
        self.call = call

    def on_verdict(self, link, pkt, verdict, action, now):
        if pkt.kind != "tcp_data":
            return action
        if self.call == "negative_ack":
            self.spoofed_ack(pkt, ack=-1, wnd=1000)
        elif self.call == "float_wnd":
            self.spoofed_ack(pkt, ack=1, wnd=1.5)
        elif self.call == "udp_ack":
            self.spoofed_ack(self.acc_control(0, pkt, 1, 1, 0.1), ack=1, wnd=1000)
        elif self.call == "no_node":
            self.send(len(self.nodes), pkt)
        elif self.call == "not_a_packet":
            self.send(0, "a packet")
        elif self.call == "srtt":
            self.acc_control(0, pkt, 1, 1, float("nan"))
        return action


class Misbehaving(ccsim.RouterMechanism):
    """Does `what` (below) in its hook, which stops the run."""

    def __init__(self, what):
        self.what = what
        self.kept = None

    def claims_loss(self, pkt):
        if self.what == "raise_in_claims_loss":
            raise KeyError(pkt.flow)
        if self.what == "claims_loss_returns":
            return "yes"
        return False

    def settle(self, now):
        if self.what == "send_in_settle" and now > 0:
            self.set_timer(now + 1)
        elif self.what == "route_in_settle":
            self.route(0, 1)

    def begin_measurement(self):
        if self.what == "raise_in_begin_measurement":
            raise RuntimeError("counters")

    def on_arrival(self, node, pkt, now):
        if self.what == "ttl_in_on_arrival":
            pkt.ttl = 5
        elif self.what == "ttl_after_next_hop" and self.kept is not None:
            self.kept.ttl = 5

    def next_hop(self, node, pkt, chosen, now):
        self.kept = pkt
        if self.what == "ttl_zero":
            pkt.ttl = 0
        elif self.what == "tunnel_too_big":
            pkt.tunnel = 65536
        return chosen


ccsim.register_mechanism("py_ack_spoofing", PyAckSpoofing)
ccsim.register_mechanism("detour", Detour)
ccsim.register_mechanism("acc_halver", AccHalver)
ccsim.register_mechanism("py_acc", PyAcc)
ccsim.register_mechanism("misbehaving", Misbehaving)
ccsim.register_mechanism("tunnel", Tunnel)
ccsim.register_mechanism("bad_packet", BadPacket)
