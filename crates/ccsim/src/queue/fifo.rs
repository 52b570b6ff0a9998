//! The egress FIFO of a link: a bounded buffer, its discipline, the router's signalling
//! policy and the queue's statistics.

use super::{Discipline, Occupancy, Verdict};
use crate::net::packet::{Ecn, Packet};
use crate::signal::{Action, SignalPolicy};
use crate::sim::{Rng, SimTime};
use crate::stats::{counters, TimeIntegral};
use std::collections::VecDeque;

/// The buffer's hard limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Packets(u32),
    Bytes(u64),
}

/// Most drop areas a histogram can have (boundaries + 1).
pub const MAX_AREAS: usize = 8;

counters! {
    /// Cumulative counters of one egress queue.
    pub struct QueueStats {
        pub arrivals: u64,
        pub arrival_bytes: u64,
        pub departures: u64,
        pub departure_bytes: u64,
        pub drops_overflow: u64,
        pub drops_early: u64,
        pub drops_forced: u64,
        /// Packets lost from the buffer because the link went down.
        pub drops_link_down: u64,
        pub marks_early: u64,
        pub marks_forced: u64,
        /// Signals turned into ACK spoofing (the packet may also have been dropped).
        pub spoof_signals: u64,
        /// Sum over departures of the time spent queued, ns.
        pub delay_sum_ns: u128,
        /// Time integral of the length in packets (packet x ns).
        pub len_area_packets: u128,
        /// Time integral of the length in bytes (byte x ns).
        pub len_area_bytes: u128,
    }
}

impl QueueStats {
    pub fn drops(&self) -> u64 {
        self.drops_overflow + self.drops_early + self.drops_forced + self.drops_link_down
    }
}

#[derive(Clone, Copy, Debug)]
struct Queued {
    pkt: Packet,
    enqueued_at: SimTime,
}

#[derive(Clone, Debug)]
pub struct EgressQueue {
    buf: VecDeque<Queued>,
    bytes: u64,
    pub limit: Limit,
    pub discipline: Discipline,
    pub policy: SignalPolicy,
    rng: Rng,
    pub stats: QueueStats,
    /// Longest queue (packets) since the start of measurement.
    pub max_packets: u32,
    /// Drops by the instantaneous queue length (packets) at the drop: area `i` counts drops
    /// with `bounds[i-1] <= len < bounds[i]`.
    area_bounds: Vec<u32>,
    pub drop_areas: [u64; MAX_AREAS],
    len_packets: TimeIntegral,
    len_bytes: TimeIntegral,
}

impl EgressQueue {
    pub fn new(limit: Limit, discipline: Discipline, policy: SignalPolicy, rng: Rng, area_bounds: Vec<u32>) -> EgressQueue {
        assert!(area_bounds.len() < MAX_AREAS);
        // Start small: a queue allocates only when it reaches a new maximum length, which
        // stops happening once it has seen its peak; preallocating every buffer's full limit
        // would cost hundreds of megabytes in networks of thousands of links.
        let cap = match limit {
            Limit::Packets(n) => (n as usize).min(64),
            Limit::Bytes(b) => ((b / 1500) as usize).clamp(1, 64),
        };
        EgressQueue {
            buf: VecDeque::with_capacity(cap),
            bytes: 0,
            limit,
            discipline,
            policy,
            rng,
            stats: QueueStats::default(),
            max_packets: 0,
            area_bounds,
            drop_areas: [0; MAX_AREAS],
            len_packets: TimeIntegral::default(),
            len_bytes: TimeIntegral::default(),
        }
    }

    pub fn occupancy(&self) -> Occupancy {
        Occupancy { packets: self.buf.len() as u32, bytes: self.bytes }
    }
    pub fn len(&self) -> usize {
        self.buf.len()
    }
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
    pub fn area_bounds(&self) -> &[u32] {
        &self.area_bounds
    }
    pub fn iter(&self) -> impl Iterator<Item = &Packet> {
        self.buf.iter().map(|q| &q.pkt)
    }

    fn has_room(&self, size: u32) -> bool {
        match self.limit {
            Limit::Packets(n) => (self.buf.len() as u32) < n,
            Limit::Bytes(b) => self.bytes + size as u64 <= b,
        }
    }

    /// Asks the discipline and the policy what to do with `pkt`. Updates the discipline's
    /// state (average, count) but not the buffer; follow with [`commit`](Self::commit).
    pub fn classify(&mut self, pkt: &Packet, now: SimTime) -> (Verdict, Action) {
        let occ = self.occupancy();
        let room = self.has_room(pkt.size);
        let mut verdict = self.discipline.as_aqm().on_arrival(occ, pkt.size, now, &mut self.rng);
        if verdict == Verdict::Admit && !room {
            verdict = Verdict::Overflow;
        }
        (verdict, self.policy.act(verdict, pkt, room))
    }

    /// Applies `action` (possibly changed by a router extension) to `pkt`. Returns true if
    /// the packet was queued.
    pub fn commit(&mut self, mut pkt: Packet, verdict: Verdict, action: Action, now: SimTime) -> bool {
        self.stats.arrivals += 1;
        self.stats.arrival_bytes += pkt.size as u64;
        if action.spoofs() {
            self.stats.spoof_signals += 1;
        }
        if !action.enqueues() {
            match verdict {
                Verdict::Early => self.stats.drops_early += 1,
                Verdict::Forced => self.stats.drops_forced += 1,
                Verdict::Overflow | Verdict::Admit => self.stats.drops_overflow += 1,
            }
            let len = self.buf.len() as u32;
            let area = self.area_bounds.iter().take_while(|b| len >= **b).count();
            self.drop_areas[area] += 1;
            return false;
        }
        if action == crate::signal::Action::MarkAndEnqueue {
            pkt.ecn = Ecn::Ce;
            match verdict {
                Verdict::Forced => self.stats.marks_forced += 1,
                _ => self.stats.marks_early += 1,
            }
        }
        self.account(now);
        self.bytes += pkt.size as u64;
        self.buf.push_back(Queued { pkt, enqueued_at: now });
        self.max_packets = self.max_packets.max(self.buf.len() as u32);
        true
    }

    pub fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        if self.buf.is_empty() {
            return None; // nothing changes: the time integrals need no update
        }
        self.account(now);
        let q = self.buf.pop_front()?;
        self.bytes -= q.pkt.size as u64;
        self.stats.departures += 1;
        self.stats.departure_bytes += q.pkt.size as u64;
        self.stats.delay_sum_ns += (now - q.enqueued_at).as_nanos() as u128;
        let occ = self.occupancy();
        self.discipline.as_aqm().on_departure(occ, now);
        Some(q.pkt)
    }

    /// Empties the buffer (the link went down), calling `lost` for each packet.
    pub fn flush(&mut self, now: SimTime, mut lost: impl FnMut(&Packet)) {
        self.account(now);
        for q in self.buf.drain(..) {
            self.stats.drops_link_down += 1;
            lost(&q.pkt);
        }
        self.bytes = 0;
        let occ = self.occupancy();
        self.discipline.as_aqm().on_departure(occ, now);
    }

    fn account(&mut self, now: SimTime) {
        self.len_packets.advance(self.buf.len() as u64, now.as_nanos());
        self.len_bytes.advance(self.bytes, now.as_nanos());
        self.stats.len_area_packets = self.len_packets.area;
        self.stats.len_area_bytes = self.len_bytes.area;
    }

    /// Brings the time integrals up to `now` (before a snapshot or the final report).
    pub fn settle(&mut self, now: SimTime) {
        self.account(now);
    }

    /// Starts a measurement period: maxima and drop areas restart from the current state.
    pub fn begin_measurement(&mut self) {
        self.max_packets = self.buf.len() as u32;
        self.drop_areas = [0; MAX_AREAS];
    }
}
