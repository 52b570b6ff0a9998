//! End hosts: a packet delivered to its flow's end, the packets the ends send (the sender's
//! through its jitter), a flow's start, and the ends' timers. Each transport answers through
//! the [`Transport`](super::Transport) seam; this file names none of them.
//!
//! Timers of the ends are polled, not cancelled: an end exposes its deadline and the engine
//! keeps at most one pending event per deadline it has already scheduled (`Event::Rto` for
//! the sender's, which for a paced TCP sender is also its next departure, `Event::DelAck` for
//! the receiver's), so restarting the timer on every ACK
//! costs no heap operation. An event that finds the deadline moved later does nothing but
//! rearm it.

use super::flow::is_data_segment;
use super::transport::{End, Taken};
use super::{Event, FlowIdx, Simulation};
use crate::net::Packet;
use crate::sim::{Dur, SimTime};

impl Simulation {
    /// `pkt` reached its destination host. A packet of no flow (one a router mechanism
    /// made for no flow) is absorbed.
    pub(super) fn deliver(&mut self, pkt: &Packet) {
        let now = self.now;
        let fi = pkt.flow;
        let Some(f) = self.flows.get_mut(fi as usize) else { return };
        if is_data_segment(pkt) {
            f.in_network.leave(pkt.seq);
        }
        let mut out = std::mem::take(&mut self.outbox);
        match f.transport.deliver(pkt, now, f.stopped, &mut out) {
            Taken::Nothing => {}
            Taken::ByReceiver => {
                self.arm(fi, End::Receiver);
                self.send_all(fi, &mut out, End::Receiver);
            }
            Taken::BySender { fast_retransmit } => {
                if let Some((una, received)) = fast_retransmit {
                    #[cfg(debug_assertions)]
                    debug_assert_eq!(self.data_in_network(fi, una), self.data_in_network_scan(fi, una), "flow {fi}, segment {una:?}");
                    if received || self.data_in_network(fi, una) {
                        self.flows[fi as usize].net.false_fast_retransmits += 1;
                    }
                }
                self.arm(fi, End::Sender);
                self.send_all(fi, &mut out, End::Sender);
            }
        }
        self.outbox = out;
    }

    /// Sends the packets `end` produced; the sender's go through its jitter.
    fn send_all(&mut self, fi: FlowIdx, out: &mut Vec<Packet>, end: End) {
        // In place, then cleared: each packet is copied once more, into the link.
        for pkt in out.iter_mut() {
            let f = &mut self.flows[fi as usize];
            if end == End::Sender && f.jittered {
                let draw = Dur::from_secs_f64(f.jitter_rng.uniform() * f.jitter.as_secs_f64());
                let last = f.pending.back().map_or(SimTime::ZERO, |p| p.0);
                let at = (self.now + draw).max(last);
                if f.pending.is_empty() {
                    self.events.schedule(at, Event::Emit(fi));
                }
                f.pending.push_back((at, *pkt));
            } else {
                self.inject(fi, pkt);
            }
        }
        out.clear();
    }

    /// A host of flow `fi` hands `pkt` to the network.
    fn inject(&mut self, fi: FlowIdx, pkt: &mut Packet) {
        if is_data_segment(pkt) {
            self.flows[fi as usize].in_network.enter(pkt.seq);
        }
        self.forward(pkt.src, pkt);
    }

    /// The sender's next jittered packet leaves the host.
    pub(super) fn on_emit(&mut self, fi: FlowIdx) {
        let f = &mut self.flows[fi as usize];
        let Some((_, pkt)) = f.pending.pop_front() else { return };
        if let Some(&(next, _)) = f.pending.front() {
            self.events.schedule(next, Event::Emit(fi));
        }
        self.inject(fi, &mut { pkt });
    }

    pub(super) fn on_flow_start(&mut self, fi: FlowIdx) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.outbox);
        if let Some(first) = self.flows[fi as usize].transport.start(now, &mut out) {
            self.events.schedule(first, Event::UdpSend(fi));
        }
        self.arm(fi, End::Sender);
        self.send_all(fi, &mut out, End::Sender);
        self.outbox = out;
    }

    /// A UDP source's send time came.
    pub(super) fn on_udp_send(&mut self, fi: FlowIdx) {
        let now = self.now;
        let f = &mut self.flows[fi as usize];
        if f.stopped {
            return;
        }
        let mut out = std::mem::take(&mut self.outbox);
        if let Some(next) = f.transport.send_datagrams(now, &mut out) {
            self.events.schedule(next, Event::UdpSend(fi));
            self.send_all(fi, &mut out, End::Sender);
        }
        self.outbox = out;
    }

    /// Schedules the timer event of `end` if its deadline is earlier than the one pending
    /// (or none is). Inlined where it is called, with `end` known there: it runs after every
    /// packet an end takes.
    #[inline(always)]
    fn arm(&mut self, fi: FlowIdx, end: End) {
        let f = &mut self.flows[fi as usize];
        let Some(d) = f.transport.deadline(end) else { return };
        let scheduled = &mut f.scheduled[end as usize];
        if scheduled.is_none_or(|s| s > d) {
            *scheduled = Some(d);
            let ev = match end {
                End::Sender => Event::Rto(fi),
                End::Receiver => Event::DelAck(fi),
            };
            self.events.schedule(d, ev);
        }
    }

    /// The timer event of `end`. A stopped flow's sender does nothing.
    pub(super) fn on_end_timer(&mut self, fi: FlowIdx, end: End) {
        let now = self.now;
        let f = &mut self.flows[fi as usize];
        let scheduled = &mut f.scheduled[end as usize];
        if *scheduled == Some(now) {
            *scheduled = None;
        }
        if end == End::Sender && f.stopped {
            return;
        }
        let mut out = std::mem::take(&mut self.outbox);
        f.transport.on_timer(end, now, &mut out);
        self.arm(fi, end);
        self.send_all(fi, &mut out, end);
        self.outbox = out;
    }
}
