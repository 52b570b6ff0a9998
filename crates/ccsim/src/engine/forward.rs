//! Forwarding: a node hands a packet to the link toward its destination, the link's queue
//! admits or drops it, the link carries it to the far end, and the node there takes it
//! (its destination), drops it (TTL, no route) or forwards it. Links replay their
//! transmissions lazily (`net::link`): a link is brought up to now whenever something reads
//! it. Also what the network loses, and links going down and coming up.

use super::flow::is_data_segment;
use super::hooks::Hook;
use super::{Event, Simulation};
use crate::net::{LinkId, NodeId, NodeKind, Packet};
use crate::router::{Passage, RouterMechanism};
use crate::signal::{Action, Verdict};
use crate::trace::packet_log::{DropReason, Event as LogEvent};

impl Simulation {
    /// A host or router hands `pkt` to the link toward its destination.
    pub(super) fn forward(&mut self, node: NodeId, pkt: &mut Packet) {
        let mut link = self.net.routes.next_hop(node, pkt.dst);
        if !self.hooked.at(Hook::NextHop).is_empty() {
            let mark = self.effects.emits.len();
            self.run_hooks(Hook::NextHop, |m, cx| link = m.next_hop(node, pkt, link, cx));
            self.send_emits(mark);
        }
        let Some(link) = link else {
            self.net.nodes[node as usize].stats.no_route += 1;
            self.log(LogEvent::Drop, DropReason::NoRoute, node, None, pkt);
            self.count_drop(pkt);
            return;
        };
        self.enqueue(link, pkt);
    }

    /// Offers `pkt` to `link`'s queue. The packet is passed by reference down the forwarding
    /// path (a discipline's ECN mark is set in place) and copied once, into the link.
    fn enqueue(&mut self, link: LinkId, pkt: &mut Packet) {
        let now = self.now;
        let l = &mut self.net.links[link as usize];
        if !l.up {
            l.stats.lost_down += 1;
            let from = l.from;
            self.log(LogEvent::Drop, DropReason::Down, from, Some(link), pkt);
            self.count_drop(pkt);
            return;
        }
        // The discipline must see the queue as of now: without the packets that have started
        // transmission since the link was last touched.
        self.advance_link(link);
        let (verdict, mut action) = self.net.links[link as usize].queue.classify(pkt, now);
        let mark = self.effects.emits.len();
        self.run_hooks(Hook::Verdict, |m, cx| action = m.on_verdict(link, pkt, verdict, action, cx));
        // The log shows the packet as offered (an ECN mark is an entry of its own).
        let offered = self.packet_log.is_some().then_some(*pkt);
        let l = &mut self.net.links[link as usize];
        if l.queue.decides_at_dequeue() {
            if l.queue.commit(*pkt, verdict, action, now) {
                self.log_enqueue(link, pkt, action);
            } else {
                self.queue_drop(link, pkt, DropReason::of(verdict));
            }
            self.account_evicted(link);
            if self.net.links[link as usize].is_idle(now) {
                self.transmit_next(link);
            }
        } else if l.queue.admit(pkt, verdict, action) {
            let s = l.accept(&mut self.net.pipes, pkt, now);
            let epoch = l.epoch;
            if let Some(offered) = offered {
                self.log_enqueue(link, &offered, action);
                // The packet's departure is known now (see `trace::packet_log`).
                self.log_at(s.tx_start, LogEvent::Dequeue, DropReason::None, link, &offered);
            }
            if let Some(at) = s.arrival {
                self.events.schedule(at, Event::Arrive { link, epoch });
            }
            if self.trace.as_ref().is_some_and(|t| t.records(link)) {
                self.events.schedule(s.tx_end, Event::TxDone { link, epoch });
            }
        } else {
            self.queue_drop(link, pkt, DropReason::of(verdict));
        }
        if self.effects.emits.len() > mark {
            self.send_emits(mark);
        }
    }

    /// `link`'s queue dropped `pkt`: charged to its flow, and seen by the mechanisms that
    /// watch queue drops (their emits are left to the caller to send).
    fn queue_drop(&mut self, link: LinkId, pkt: &Packet, reason: DropReason) {
        if self.packet_log.is_some() {
            self.log_at(self.now, LogEvent::Drop, reason, link, pkt);
        }
        self.count_drop(pkt);
        self.run_hooks(Hook::QueueDrop, |m, cx| m.on_queue_drop(link, pkt, cx));
    }

    /// Accounts the packets `link`'s discipline dropped from its buffer to admit an arrival.
    fn account_evicted(&mut self, link: LinkId) {
        let Some(evicted) = self.net.links[link as usize].queue.take_evicted() else { return };
        let mut lost = std::mem::take(&mut self.wire_lost);
        lost.extend(evicted);
        for p in &lost {
            self.queue_drop(link, p, DropReason::Overflow);
        }
        lost.clear();
        self.wire_lost = lost;
    }

    /// A transmission opportunity of `link`, whose discipline decides at dequeue (the link
    /// is advanced to now and its transmitter free): the discipline decides on head packets
    /// until one is sent or the queue is empty; the sent one starts transmission, and its end
    /// is the next opportunity.
    fn transmit_next(&mut self, link: LinkId) {
        let now = self.now;
        let mark = self.effects.emits.len();
        while let Some((pkt, verdict, mut action)) = self.net.links[link as usize].queue.next_departure(now) {
            if verdict != Verdict::Admit {
                self.run_hooks(Hook::Verdict, |m, cx| action = m.on_verdict(link, &pkt, verdict, action, cx));
            }
            let l = &mut self.net.links[link as usize];
            let Some(pkt) = l.queue.finish_departure(pkt, verdict, action, now) else {
                self.queue_drop(link, &pkt, DropReason::Dequeue);
                continue;
            };
            if self.packet_log.is_some() {
                if action == Action::MarkAndEnqueue {
                    self.log_at(now, LogEvent::Mark, DropReason::None, link, &pkt);
                }
                self.log_at(now, LogEvent::Dequeue, DropReason::None, link, &pkt);
            }
            let l = &mut self.net.links[link as usize];
            let s = l.start_now(&mut self.net.pipes, pkt, now);
            let epoch = l.epoch;
            if let Some(at) = s.arrival {
                self.events.schedule(at, Event::Arrive { link, epoch });
            }
            self.events.schedule(s.tx_end, Event::TxDone { link, epoch });
            break;
        }
        if self.effects.emits.len() > mark {
            self.send_emits(mark);
        }
    }

    /// Replays `link`'s departures and ends of transmission up to now: captures record
    /// their frames and packets lost on the wire count as drops.
    #[inline]
    pub(super) fn advance_link(&mut self, link: LinkId) {
        let now = self.now;
        if self.net.links[link as usize].is_current(now) {
            return;
        }
        self.replay_link(link);
    }

    /// [`advance_link`](Self::advance_link)'s replay, for a link with something to replay.
    #[inline(never)]
    fn replay_link(&mut self, link: LinkId) {
        let now = self.now;
        let (trace, wire_lost, wire_lost_at) = (&mut self.trace, &mut self.wire_lost, &mut self.wire_lost_at);
        self.net.links[link as usize].advance(&mut self.net.pipes, now, |t, pkt, lost| {
            if let Some(tr) = trace {
                // The capture point: the packet has left the transmitter.
                tr.record(link, t, pkt);
            }
            if lost {
                wire_lost.push(*pkt);
                wire_lost_at.push(t);
            }
        });
        if !self.wire_lost.is_empty() {
            let lost = std::mem::take(&mut self.wire_lost);
            for (p, &t) in lost.iter().zip(&self.wire_lost_at.clone()) {
                if self.packet_log.is_some() {
                    self.log_at(t, LogEvent::Drop, DropReason::Wire, link, p);
                }
                self.count_drop(p);
            }
            self.wire_lost = lost;
            self.wire_lost.clear();
            self.wire_lost_at.clear();
        }
    }

    /// Brings every link up to now, counters included (after [`run_slice`](Self::run_slice)).
    pub fn advance_links(&mut self) {
        for link in 0..self.net.links.len() {
            self.observe_link(link as LinkId);
        }
    }

    /// Brings `link` up to now, counters included, for a reader of its state.
    pub(super) fn observe_link(&mut self, link: LinkId) {
        self.advance_link(link);
        self.net.links[link as usize].sync(&self.net.pipes, self.now);
    }

    pub(super) fn on_tx_done(&mut self, link: LinkId, epoch: u32) {
        if self.net.links[link as usize].epoch == epoch {
            self.advance_link(link);
            let l = &self.net.links[link as usize];
            if l.queue.decides_at_dequeue() && l.is_idle(self.now) {
                self.transmit_next(link);
            }
        }
    }

    pub(super) fn on_arrive(&mut self, link: LinkId, epoch: u32) {
        if self.net.links[link as usize].epoch != epoch {
            return;
        }
        // The arriving packet is in the link's pipe once its transmission has started; if
        // that has not been replayed yet, replay. Otherwise the link's replay can wait until
        // it is next offered a packet (or observed): nothing between here and there reads
        // it. Captures are written as transmissions end, so a captured link is replayed.
        if !self.net.links[link as usize].arrival_ready() || self.trace.is_some() {
            self.advance_link(link);
        }
        let l = &mut self.net.links[link as usize];
        let (mut pkt, next) = l.deliver(&mut self.net.pipes);
        // The link is FIFO with one delay: one pending arrival per link, for the earliest
        // packet still to arrive.
        if let Some(next) = next {
            self.events.schedule(next, Event::Arrive { link, epoch });
        }
        let node = l.to;
        self.log(LogEvent::Receive, DropReason::None, node, Some(link), &pkt);
        if pkt.dst == node {
            self.deliver(&pkt);
            return;
        }
        let n = &mut self.net.nodes[node as usize];
        if n.kind == NodeKind::Host {
            n.stats.no_route += 1;
            self.log(LogEvent::Drop, DropReason::NoRoute, node, None, &pkt);
            self.count_drop(&pkt);
            return;
        }
        pkt.ttl = pkt.ttl.saturating_sub(1);
        if pkt.ttl == 0 {
            n.stats.ttl_expired += 1;
            self.log(LogEvent::Drop, DropReason::Ttl, node, None, &pkt);
            self.count_drop(&pkt);
            return;
        }
        let mark = self.effects.emits.len();
        let discarded = self.run_hooks(Hook::Arrival, |m, cx| m.on_arrival(node, &pkt, cx) == Passage::Discard);
        let emitted = self.effects.emits.len() > mark;
        if emitted {
            self.send_emits_first(mark);
        }
        if discarded {
            self.log(LogEvent::Drop, DropReason::Discarded, node, None, &pkt);
            self.count_drop(&pkt);
        } else {
            self.net.nodes[node as usize].stats.forwarded += 1;
            self.forward(node, &mut pkt);
        }
        if emitted {
            self.send_emits(mark);
        }
    }

    /// The network lost `pkt`: charged to its flow unless a mechanism claims it as its own.
    pub(super) fn count_drop(&mut self, pkt: &Packet) {
        if is_data_segment(pkt) {
            if let Some(f) = self.flows.get_mut(pkt.flow as usize) {
                f.in_network.leave(pkt.seq);
            }
        }
        if self.run_hooks(Hook::Loss, |m, _| m.claims_loss(pkt)) {
            return;
        }
        if let Some(f) = self.flows.get_mut(pkt.flow as usize) {
            if pkt.is_reverse() {
                f.net.reverse_dropped += 1;
            } else {
                f.net.forward_dropped += 1;
            }
        }
    }

    /// `link` goes down (`up` false) or comes up: the packets it held are lost, and the
    /// mechanisms that watch links are told.
    pub(super) fn set_link(&mut self, link: LinkId, up: bool) {
        let now = self.now;
        let mut lost = Vec::new();
        self.advance_link(link);
        let l = &mut self.net.links[link as usize];
        if up {
            l.come_up();
        } else {
            l.go_down(&mut self.net.pipes, now, |p| lost.push(*p));
        }
        if let Some(log) = &mut self.packet_log {
            log.withdraw_dequeues(link, now);
        }
        for p in &lost {
            if self.packet_log.is_some() {
                self.log_at(now, LogEvent::Drop, DropReason::Down, link, p);
            }
            self.count_drop(p);
        }
        let mark = self.effects.emits.len();
        self.run_hooks(Hook::LinkChange, |m, cx| m.on_link_change(link, up, cx));
        self.send_emits(mark);
    }
}
