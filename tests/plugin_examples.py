"""Plug-ins the tests run (tests/test_plugins.py): Reno and RED written in Python, as the
core writes them, and a few that fail on purpose. A scenario imports this module with
`plugins = ["plugin_examples"]`."""

from __future__ import annotations

import ccsim


class PyReno(ccsim.CongestionControl):
    """RFC 5681 Reno, as `tcp/cc/reno.rs` with the "rfc" profile's rules: the base class's
    rules in Python, called on every ACK and every reduction."""

    recovery = "reno"

    def on_ack(self, ack):
        super().on_ack(ack)

    def reduce(self, event, signal):
        return super().reduce(event, signal)


class PyRed(ccsim.QueueDiscipline):
    """RED (Floyd and Jacobson 1993) as `queue/red.rs` with the "rfc" profile's rules:
    not gentle, no wait, packet mode, forced drops past max_th, idle time decays the
    average."""

    def __init__(self, min_th, max_th, max_p=0.1, w_q=0.002, mean_packet_size=1000):
        self.min_th, self.max_th, self.max_p, self.w_q = min_th, max_th, max_p, w_q
        self.pkt_time = mean_packet_size * 8.0 / self.link_bps
        self.avg, self.count, self.idle_since_ns = 0.0, -1, 0

    def on_arrival(self, pkt, queue):
        if queue.packets == 0:
            m = (queue.now_ns - self.idle_since_ns) / 1e9 / self.pkt_time
            self.avg *= (1.0 - self.w_q) ** m
            self.idle_since_ns = max(self.idle_since_ns, queue.now_ns)
        self.avg = (1.0 - self.w_q) * self.avg + self.w_q * float(queue.packets)
        if self.avg < self.min_th:
            self.count = -1
            return ccsim.ADMIT
        if self.avg >= self.max_th:
            self.count = 0
            return ccsim.FORCED
        p_b = self.max_p * (self.avg - self.min_th) / (self.max_th - self.min_th)
        self.count += 1
        c = self.count * p_b
        p_a = min(p_b / (1.0 - c) if c < 1.0 else 1.0, 1.0)
        if self.rng.bernoulli(p_a):
            self.count = 0
            return ccsim.EARLY
        return ccsim.ADMIT

    def on_departure(self, queue, departed_bytes):
        if queue.packets == 0:
            self.idle_since_ns = queue.now_ns


class RandomDrop(ccsim.QueueDiscipline):
    """An early signal with probability `p` once `min` packets wait: draws from its stream."""

    def __init__(self, p=0.01, min=5):
        self.p, self.min = p, min

    def on_arrival(self, pkt, queue):
        return ccsim.EARLY if queue.packets >= self.min and self.rng.uniform() < self.p else ccsim.ADMIT


class StandardDecrease(ccsim.CongestionControl):
    """NewReno with its loss, ECN and timeout hooks written in Python (the base class's
    rules): the same windows as the core's rules under the "rfc" profile."""

    def on_loss(self, event):
        super().on_loss(event)

    def on_ecn(self, event):
        super().on_ecn(event)

    def on_timeout(self, event):
        super().on_timeout(event)


class EveryHook(StandardDecrease):
    """StandardDecrease with growth in Python too, and a delivery-rate sample on every ACK,
    paced at twice the rate it measures once it has one."""

    paces = True
    #: Samples seen by every instance (the tests count them), and any that went back in time.
    samples_seen = 0
    samples_back_in_time = 0
    latest_sample_at = 0.0

    def on_ack(self, ack):
        super().on_ack(ack)

    def on_rate_sample(self, rs):
        EveryHook.samples_seen += 1
        if rs.now < getattr(self, "last_sample_at", 0.0):
            EveryHook.samples_back_in_time += 1
        self.last_sample_at = rs.now
        EveryHook.latest_sample_at = max(EveryHook.latest_sample_at, rs.now)
        if rs.delivery_rate > 0 and not rs.is_app_limited:
            self.pacing_rate = 2.0 * rs.delivery_rate


class Boom(ccsim.CongestionControl):
    """Raises in on_ack once simulated time passes `at` seconds."""

    def __init__(self, at=1.0):
        self.at = at

    def on_ack(self, ack):
        if ack.now > self.at:
            raise ZeroDivisionError("the window divided by zero")
        super().on_ack(ack)


class Negative(ccsim.CongestionControl):
    """Leaves a window of `value` on the first loss."""

    def __init__(self, value=-5):
        self.value = value

    def on_loss(self, event):
        self.cwnd = self.value


class BadVerdict(ccsim.QueueDiscipline):
    def on_arrival(self, pkt, queue):
        return "drop"


class Blackhole(ccsim.RouterMechanism):
    """Discards every TCP data segment through `router` between `start` and `stop` seconds."""

    def __init__(self, router, start=2.0, stop=3.0):
        self.node, self.start, self.stop = self.nodes[router], start, stop
        self.discarded = 0

    def on_arrival(self, node, pkt, now):
        if node == self.node and pkt.kind == "tcp_data" and self.start <= now < self.stop:
            self.discarded += 1
            return True
        return False


class Dropper(ccsim.RouterMechanism):
    """Turns the bottleneck queue's actions on flow `flow`'s packets into drops from `start`
    seconds on, until a timer it sets then expires after `length` seconds; counts its hooks."""

    calls = {}

    def __init__(self, flow=0, start=10.0, length=0.5):
        self.link, self.flow, self.start, self.length = self.links["R1->R2"], flow, start, length
        self.until = None

    def on_verdict(self, link, pkt, verdict, action, now):
        Dropper.calls["on_verdict"] = Dropper.calls.get("on_verdict", 0) + 1
        if self.until is None and now >= self.start:
            self.until = float("inf")
            self.set_timer(now + self.length, 7, 8)
        if link == self.link and pkt.flow == self.flow and self.start <= now < self.until:
            return ccsim.DROP
        return action

    def on_timer(self, a, b, now):
        Dropper.calls["on_timer"] = (a, b, now)
        self.until = now


ccsim.register_cc("pyreno", PyReno)
ccsim.register_cc("boom", Boom)
ccsim.register_cc("every_hook", EveryHook)
ccsim.register_cc("standard_decrease", StandardDecrease)
ccsim.register_cc("negative", Negative)
ccsim.register_queue("pyred", PyRed)
ccsim.register_queue("random_drop_py", RandomDrop)
ccsim.register_queue("bad_verdict", BadVerdict)
ccsim.register_mechanism("blackhole", Blackhole)
ccsim.register_mechanism("dropper", Dropper)
