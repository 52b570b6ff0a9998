//! The egress queue of a link: a bounded buffer, its discipline, the router's signalling
//! policy and the queue's statistics.
//!
//! The buffer is one FIFO, unless the discipline owns its buffer (FQ-CoDel's flow queues):
//! then every packet goes to it and it chooses the next to leave. A discipline decides at
//! enqueue ([`classify`](EgressQueue::classify) then [`commit`](EgressQueue::commit)) and,
//! if it decides at dequeue, once more for each packet that leaves
//! ([`next_departure`](EgressQueue::next_departure) then
//! [`finish_departure`](EgressQueue::finish_departure)); either way the signal policy turns
//! its verdict into an action, and the counters below say which decision it was.

//!
//! The time integrals of the length (packet x ns, byte x ns) are not advanced at every
//! arrival and departure: the integral of the length is the sum of the time each packet
//! spends in the buffer, so each packet that leaves it (sent, dropped at dequeue, evicted or
//! lost with the link) adds its sojourn and [`EgressQueue::settle`] adds the sojourns so far
//! of the packets still queued: the same numbers, integer for integer, for less work per
//! packet.
use super::{Discipline, Head, Occupancy, Queued, Verdict};
use crate::packet::{Ecn, Packet};
use crate::signal::{Action, SignalPolicy};
use crate::sim::{Dur, Rng, SimTime};
use crate::stats::counters;
use crate::stats::histogram::{BinRun, LogHistogram};
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
    /// Cumulative counters of one egress queue. Laid out as declared (`repr(C)`): the four a
    /// packet's passage adds to come first (see [`EgressQueue`]).
    #[repr(C)]
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
        /// Packets dropped at dequeue by a dequeue-time discipline (CoDel's sojourn time).
        pub drops_dequeue: u64,
        /// Packets marked CE at dequeue by a dequeue-time discipline.
        pub marks_dequeue: u64,
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
        self.drops_overflow + self.drops_early + self.drops_forced + self.drops_dequeue + self.drops_link_down
    }
}

/// A queue's distributions since the start of measurement (complete after
/// [`EgressQueue::settle`]).
#[derive(Clone, Debug, Default)]
pub struct Distributions {
    /// The sojourns (ns) of the departures that waited (a packet that passed straight through
    /// waited 0 and is not added: the report counts those as departures less this total).
    pub delay_hist: LogHistogram,
    /// Nanoseconds spent at each length above 0 (packets).
    pub len_hist: LogHistogram,
}

/// The fields are laid out in this order (`repr(C)`): first those every packet through the
/// queue reads or writes, the discipline's tag and box, and the counters a packet's passage
/// adds to ([`HOT_BYTES`](Self::HOT_BYTES): 96 bytes), then the buffer, what the queued
/// packets' sojourns add to, and what the report reads. On a network larger than the caches
/// a packet's passage through a link whose queue stays empty then touches two lines of the
/// queue rather than most of its seven (see `engine::warm`).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct EgressQueue {
    packets: u32,
    /// Longest queue (packets) since the start of measurement.
    pub max_packets: u32,
    bytes: u64,
    pub limit: Limit,
    pub policy: SignalPolicy,
    /// What the discipline is, asked once (its kind never changes): whether it keeps its
    /// own buffer, and whether it decides at dequeue; in the padding before it.
    owns_buffer: bool,
    at_dequeue: bool,
    /// Whether the queue keeps [`Distributions`] (see
    /// [`keep_no_distributions`](Self::keep_no_distributions)); in the same padding.
    keeps_dist: bool,
    discipline: Discipline,
    pub stats: QueueStats,
    /// The FIFO (empty when the discipline owns the buffer).
    buf: VecDeque<Queued>,
    /// When the length last changed or was settled: the time at the current length counts
    /// from here.
    len_since: SimTime,
    /// The runs of the length and delay histograms (see [`BinRun`]). The length's run is on
    /// the buffer's line, which an arrival that waits reads anyway; the delay's beside the
    /// areas, which a departure adds to anyway.
    len_run: BinRun,
    /// What the report's percentiles and length distribution are read from, boxed, off the
    /// lines a packet's passage reads; a packet that waits adds to the runs, and reaches the
    /// box only when a run changes bin. Empty when the queue keeps none.
    dist: Box<Distributions>,
    /// Sum of the sojourns of the packets that have left the buffer, ns, and the same
    /// weighted by their sizes, byte x ns.
    left_area_packets: u128,
    left_area_bytes: u128,
    delay_run: BinRun,
    /// The longest sojourn since the start of measurement.
    max_delay: Dur,
    /// When the packet [`next_departure`](Self::next_departure) took out was queued.
    leaving_since: SimTime,
    rng: Rng,
    /// Drops by the instantaneous queue length (packets) at the drop: area `i` counts drops
    /// with `bounds[i-1] <= len < bounds[i]`.
    area_bounds: Vec<u32>,
    pub drop_areas: [u64; MAX_AREAS],
    /// Packets the discipline dropped from the buffer to admit arrivals (FQ-CoDel's
    /// overflow), for the router to account; see [`take_evicted`](Self::take_evicted).
    evicted: Vec<Packet>,
}

impl EgressQueue {
    /// Bytes from the start of the queue that hold what a packet that finds it empty reads
    /// and writes: down to the counters of arrivals and departures, the first of
    /// [`QueueStats`] (a discipline that keeps state reads its box as well).
    pub const HOT_BYTES: usize = std::mem::offset_of!(EgressQueue, stats) + std::mem::offset_of!(QueueStats, drops_overflow);

    /// The bytes, from the start of the queue, that an arrival that waits reads and writes
    /// beyond [`HOT_BYTES`](Self::HOT_BYTES): the buffer's header and the length's run.
    pub const WAITING_BYTES: std::ops::Range<usize> =
        std::mem::offset_of!(EgressQueue, buf)..std::mem::offset_of!(EgressQueue, len_run) + std::mem::size_of::<BinRun>();

    /// The buffer a new queue of `limit` allocates, in packets (see [`EgressQueue::new`]).
    /// Bytes a new queue holds (for the scenario's memory estimate): no buffer until a
    /// packet waits (each then costs [`bytes_per_packet`](Self::bytes_per_packet)).
    pub fn footprint(_limit: Limit) -> u64 {
        std::mem::size_of::<EgressQueue>() as u64
    }

    /// Bytes each queued packet takes.
    pub fn bytes_per_packet() -> u64 {
        std::mem::size_of::<Queued>() as u64
    }

    pub fn new(limit: Limit, discipline: Discipline, policy: SignalPolicy, rng: Rng, area_bounds: Vec<u32>) -> EgressQueue {
        assert!(area_bounds.len() < MAX_AREAS);
        // No buffer until the first packet waits: a queue allocates only when it reaches a
        // new maximum length, which stops happening once it has seen its peak; most queues
        // of a large network (a host's uplink, the downlinks to hosts) never hold a packet,
        // since a packet that finds the transmitter free goes straight to it.
        EgressQueue {
            owns_buffer: discipline.own_buffer_ref().is_some(),
            at_dequeue: discipline.decides_at_dequeue(),
            keeps_dist: true,
            buf: VecDeque::new(),
            packets: 0,
            bytes: 0,
            limit,
            discipline,
            policy,
            rng,
            stats: QueueStats::default(),
            max_packets: 0,
            area_bounds,
            drop_areas: [0; MAX_AREAS],
            left_area_packets: 0,
            left_area_bytes: 0,
            evicted: Vec::new(),
            leaving_since: SimTime::ZERO,
            dist: Box::default(),
            len_since: SimTime::ZERO,
            len_run: BinRun::default(),
            delay_run: BinRun::default(),
            max_delay: Dur::ZERO,
        }
    }

    /// From now on the queue keeps no [`Distributions`]: a packet's passage adds nothing to a
    /// histogram (what the report's percentiles and length distribution cost, for a run that
    /// reads neither).
    pub fn keep_no_distributions(&mut self) {
        self.keeps_dist = false;
    }

    /// The distributions since the start of measurement (complete after
    /// [`settle`](Self::settle)), if the queue keeps them.
    pub fn distributions(&self) -> Option<&Distributions> {
        self.keeps_dist.then_some(&*self.dist)
    }

    pub fn occupancy(&self) -> Occupancy {
        Occupancy { packets: self.packets, bytes: self.bytes }
    }
    pub fn len(&self) -> usize {
        self.packets as usize
    }
    pub fn is_empty(&self) -> bool {
        self.packets == 0
    }
    pub fn area_bounds(&self) -> &[u32] {
        &self.area_bounds
    }
    /// The queued packets: in FIFO order, or flow queue by flow queue.
    pub fn iter(&self) -> impl Iterator<Item = &Packet> {
        let owned = self.discipline.own_buffer_ref().map(|b| b.packets().map(|q| &q.pkt));
        let fifo = owned.is_none().then(|| self.buf.iter().map(|q| &q.pkt));
        owned.into_iter().flatten().chain(fifo.into_iter().flatten())
    }
    /// Whether the link must let the discipline decide at each transmission opportunity
    /// (then the buffer's order is not fixed at enqueue either).
    pub fn decides_at_dequeue(&self) -> bool {
        self.at_dequeue
    }
    /// The discipline, to read (its kind is fixed when the queue is made).
    pub fn discipline(&self) -> &Discipline {
        &self.discipline
    }

    /// Whether a packet of `size` bytes fits. A discipline that owns its buffer admits
    /// every packet and makes room itself (FQ-CoDel drops from its fattest flow).
    fn has_room(&self, size: u32) -> bool {
        self.owns_buffer || self.fits(size)
    }

    fn fits(&self, size: u32) -> bool {
        match self.limit {
            Limit::Packets(n) => self.packets < n,
            Limit::Bytes(b) => self.bytes + size as u64 <= b,
        }
    }

    /// The area of the drop histogram for the current length.
    fn count_drop_area(&mut self) {
        let len = self.packets;
        let area = self.area_bounds.iter().take_while(|b| len >= **b).count();
        self.drop_areas[area] += 1;
    }

    /// Asks the discipline and the policy what to do with `pkt`. Updates the discipline's
    /// state (average, count) but not the buffer; follow with [`commit`](Self::commit).
    #[inline]
    pub fn classify(&mut self, pkt: &Packet, now: SimTime) -> (Verdict, Action) {
        let occ = self.occupancy();
        let room = self.has_room(pkt.size);
        let mut verdict = self.discipline.on_arrival(pkt, occ, now, &mut self.rng);
        if !room && (self.discipline.on_overflow() || verdict == Verdict::Admit) {
            verdict = Verdict::Overflow;
        }
        (verdict, self.policy.act(verdict, pkt, room))
    }

    /// Applies `action` (possibly changed by a router extension) to `pkt`. Returns true if
    /// the packet was queued.
    pub fn commit(&mut self, mut pkt: Packet, verdict: Verdict, action: Action, now: SimTime) -> bool {
        let admitted = self.admit(&mut pkt, verdict, action);
        if admitted {
            self.push(&pkt, now);
        }
        admitted
    }

    /// The first half of [`commit`](Self::commit): counts the arrival and carries out
    /// `action` on `pkt` (a drop is counted; a mark sets CE). True if the packet is to be
    /// queued: follow with [`push`](Self::push), or [`pass`](Self::pass) when the
    /// transmitter is free and the buffer empty (a discipline that decides at enqueue only).
    #[inline(always)]
    pub fn admit(&mut self, pkt: &mut Packet, verdict: Verdict, action: Action) -> bool {
        self.stats.arrivals += 1;
        self.stats.arrival_bytes += pkt.size as u64;
        if action.spoofs() {
            self.stats.spoof_signals += 1;
        }
        if !action.enqueues() {
            match verdict {
                Verdict::Early | Verdict::EarlyDrop => self.stats.drops_early += 1,
                Verdict::Forced => self.stats.drops_forced += 1,
                Verdict::Overflow | Verdict::Admit => self.stats.drops_overflow += 1,
            }
            self.count_drop_area();
            return false;
        }
        if action == crate::signal::Action::MarkAndEnqueue {
            pkt.ecn = Ecn::Ce;
            match verdict {
                Verdict::Forced => self.stats.marks_forced += 1,
                _ => self.stats.marks_early += 1,
            }
        }
        true
    }

    /// The length is about to change at `now`: the time at the current one goes to the
    /// length histogram.
    #[inline]
    fn length_changes(&mut self, now: SimTime) {
        if !self.keeps_dist {
            return;
        }
        if self.packets > 0 && now > self.len_since {
            self.len_run.add(&mut self.dist.len_hist, self.packets as u64, now.since(self.len_since).as_nanos());
        }
        self.len_since = now;
    }

    /// Queues an admitted packet: at the tail, or in the discipline's own buffer.
    pub fn push(&mut self, pkt: &Packet, now: SimTime) {
        self.length_changes(now);
        self.bytes += pkt.size as u64;
        self.packets += 1;
        // The entry is made where it is stored: one made before the branch lives on the stack,
        // and its copy right after its narrow stores stalls.
        if let Some(own) = self.owns_buffer.then(|| self.discipline.own_buffer()).flatten() {
            own.enqueue(Queued { pkt: *pkt, enqueued_at: now });
            let over = match self.limit {
                Limit::Packets(n) => self.packets > n,
                Limit::Bytes(b) => self.bytes > b,
            };
            if over {
                self.evict(now);
            }
        } else {
            self.buf.push_back(Queued { pkt: *pkt, enqueued_at: now });
        }
        self.max_packets = self.max_packets.max(self.packets);
    }

    /// An admitted packet that finds the buffer empty and the transmitter free leaves at
    /// once: everything is counted as if it had been queued and dequeued at `now` (the
    /// buffer held it for no time), without moving it through the buffer.
    #[inline]
    pub fn pass(&mut self, pkt: &Packet, now: SimTime) {
        debug_assert!(self.is_empty() && !self.decides_at_dequeue());
        self.max_packets = self.max_packets.max(1);
        self.depart(pkt.size, None, now);
    }

    /// A packet queued at `since` leaves the buffer at `now` (sent or not): its sojourn adds
    /// to the time integrals of the length.
    #[inline]
    fn leave(&mut self, size: u32, since: SimTime, now: SimTime) {
        let (packets, bytes) = area(size, since, now);
        self.left_area_packets += packets;
        self.left_area_bytes += bytes;
    }

    /// The buffer is over its limit with a packet just added: the discipline that owns it
    /// drops to make room, and the drops count as overflow.
    fn evict(&mut self, now: SimTime) {
        // Called from `push` at the same `now`: the time at the length before is counted.
        let Some(own) = self.discipline.own_buffer() else { return };
        let mut out = Vec::new();
        own.evict(&mut out);
        for q in out {
            self.leave(q.pkt.size, q.enqueued_at, now);
            self.packets -= 1;
            self.bytes -= q.pkt.size as u64;
            self.stats.drops_overflow += 1;
            self.count_drop_area();
            self.evicted.push(q.pkt);
        }
    }

    /// The packets dropped from the buffer to admit arrivals since the last call, for the
    /// router to account as drops (only a discipline that owns its buffer evicts).
    pub fn take_evicted(&mut self) -> Option<std::vec::Drain<'_, Packet>> {
        (!self.evicted.is_empty()).then(|| self.evicted.drain(..))
    }

    /// The head packet leaves the FIFO for the transmitter, on a link whose discipline
    /// decides at enqueue.
    pub fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        let pkt = *self.head()?;
        self.remove_head(now);
        Some(pkt)
    }

    /// The head packet, the next to leave, on a link whose discipline decides at enqueue.
    #[inline]
    pub fn head(&self) -> Option<&Packet> {
        self.buf.front().map(|q| &q.pkt)
    }

    /// The head packet (read with [`head`](Self::head)) leaves for the transmitter: what
    /// [`dequeue`](Self::dequeue) does, without handing it back.
    #[inline]
    pub fn remove_head(&mut self, now: SimTime) {
        let Some(q) = self.buf.pop_front() else { return };
        self.length_changes(now);
        self.packets -= 1;
        self.bytes -= q.pkt.size as u64;
        self.leave(q.pkt.size, q.enqueued_at, now);
        self.depart(q.pkt.size, Some(q.enqueued_at), now);
    }

    /// Counts the departure of `pkt` for the transmitter, queued at `since` (`None`: it
    /// passed straight through, its sojourn zero), and tells the discipline.
    #[inline(always)]
    fn depart(&mut self, size: u32, since: Option<SimTime>, now: SimTime) {
        self.stats.departures += 1;
        self.stats.departure_bytes += size as u64;
        let waited = since.map_or(Dur::ZERO, |since| now - since);
        self.stats.delay_sum_ns += waited.as_nanos() as u128;
        if since.is_some() {
            if self.keeps_dist {
                self.delay_run.add(&mut self.dist.delay_hist, waited.as_nanos(), 1);
            }
            self.max_delay = self.max_delay.max(waited);
        }
        let occ = self.occupancy();
        self.discipline.on_departure_waited(occ, size, waited, now);
    }

    /// At a transmission opportunity of a link whose discipline decides at dequeue: takes
    /// the next packet out of the buffer and returns it with the discipline's verdict and
    /// the policy's action (`Enqueue`: send it). Follow with
    /// [`finish_departure`](Self::finish_departure); after a drop, call again.
    pub fn next_departure(&mut self, now: SimTime) -> Option<(Packet, Verdict, crate::signal::Action)> {
        let (q, verdict) = match self.discipline.own_buffer() {
            Some(own) => own.dequeue(now)?,
            None => {
                let q = self.buf.pop_front();
                let left = self.bytes - q.map_or(0, |q| q.pkt.size as u64);
                let head = q.map(|q| Head { sojourn: now.since(q.enqueued_at), bytes_left: left });
                let verdict = self.discipline.as_aqm().on_dequeue(head, now);
                (q?, verdict)
            }
        };
        self.length_changes(now);
        self.packets -= 1;
        self.bytes -= q.pkt.size as u64;
        self.leave(q.pkt.size, q.enqueued_at, now);
        self.leaving_since = q.enqueued_at;
        Some((q.pkt, verdict, self.policy.act(verdict, &q.pkt, true)))
    }

    /// Applies `action` (possibly changed by a router extension) to the packet
    /// [`next_departure`](Self::next_departure) took out. Returns it, marked if asked, if it
    /// is to be sent; `None` if it was dropped.
    pub fn finish_departure(&mut self, mut pkt: Packet, verdict: Verdict, action: crate::signal::Action, now: SimTime) -> Option<Packet> {
        let signalled = verdict != Verdict::Admit;
        let sent = action.enqueues();
        match self.discipline.own_buffer() {
            Some(own) => own.complete(signalled, sent, pkt.size),
            None if signalled => self.discipline.as_aqm().after_dequeue_signal(!sent),
            None => {}
        }
        if action.spoofs() {
            self.stats.spoof_signals += 1;
        }
        if !sent {
            self.stats.drops_dequeue += 1;
            self.count_drop_area();
            return None;
        }
        if action == crate::signal::Action::MarkAndEnqueue {
            pkt.ecn = Ecn::Ce;
            self.stats.marks_dequeue += 1;
        }
        self.depart(pkt.size, Some(self.leaving_since), now);
        Some(pkt)
    }

    /// Empties the buffer (the link went down), calling `lost` for each packet.
    pub fn flush(&mut self, now: SimTime, mut lost: impl FnMut(&Packet)) {
        self.length_changes(now);
        let (mut n, mut area_packets, mut area_bytes) = (0, 0u128, 0u128);
        let mut gone = |q: &Queued| {
            let (packets, bytes) = area(q.pkt.size, q.enqueued_at, now);
            n += 1;
            area_packets += packets;
            area_bytes += bytes;
            lost(&q.pkt)
        };
        if let Some(own) = self.discipline.own_buffer() {
            own.drain(&mut |q| gone(&q));
        }
        for q in self.buf.drain(..) {
            gone(&q);
        }
        self.stats.drops_link_down += n;
        self.left_area_packets += area_packets;
        self.left_area_bytes += area_bytes;
        self.packets = 0;
        self.bytes = 0;
        let occ = self.occupancy();
        self.discipline.as_aqm().on_departure(occ, now);
    }

    /// Brings the time integrals up to `now` (before a snapshot or the final report): the
    /// sojourns of the packets that left, and those so far of the packets still queued.
    pub fn settle(&mut self, now: SimTime) {
        let (mut packets, mut bytes) = (self.left_area_packets, self.left_area_bytes);
        let owned = self.discipline.own_buffer_ref().map(|b| b.packets());
        for q in owned.into_iter().flatten().chain(self.buf.iter()) {
            let (p, b) = area(q.pkt.size, q.enqueued_at, now);
            packets += p;
            bytes += b;
        }
        self.stats.len_area_packets = packets;
        self.stats.len_area_bytes = bytes;
        self.length_changes(now);
        self.len_run.fold(&mut self.dist.len_hist);
        self.delay_run.fold(&mut self.dist.delay_hist);
    }

    /// The longest sojourn since the start of measurement.
    pub fn max_delay(&self) -> Dur {
        self.max_delay
    }

    /// Starts a measurement period (after [`settle`](Self::settle)): maxima, drop areas and
    /// the histograms restart from the current state.
    pub fn begin_measurement(&mut self) {
        self.max_packets = self.packets;
        self.drop_areas = [0; MAX_AREAS];
        self.len_run = BinRun::default();
        self.delay_run = BinRun::default();
        self.dist.delay_hist.clear();
        self.max_delay = Dur::ZERO;
        self.dist.len_hist.clear();
    }
}

/// What a packet of `size` bytes queued from `since` to `now` adds to the time integrals of
/// the length: (packet x ns, byte x ns).
#[inline]
fn area(size: u32, since: SimTime, now: SimTime) -> (u128, u128) {
    let sojourn = (now - since).as_nanos() as u128;
    (sojourn, sojourn * size as u128)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Endpoints;
    use crate::packet::Seq;
    use crate::queue::{Red, RedParams, TailDrop};

    /// A TCP data packet of `payload` bytes (40 more on the wire), numbered `seq`.
    fn data(seq: u32, payload: u32) -> Packet {
        let ends = Endpoints { flow: 0, sender: 0, receiver: 1, sport: 10_000, dport: 80 };
        Packet::tcp_data(&ends, Seq(seq), payload, 64, SimTime::ZERO)
    }

    fn ms(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    fn taildrop(limit: Limit, areas: Vec<u32>) -> EgressQueue {
        EgressQueue::new(limit, Discipline::TailDrop(Box::new(TailDrop)), SignalPolicy::Drop, Rng::from_seed(1), areas)
    }

    /// RED whose average is the queue found (w_q = 1) and past max_th from one packet on:
    /// the first arrival to an empty queue is admitted, every later one gets a forced signal.
    fn forcing_red(policy: SignalPolicy) -> EgressQueue {
        let params = RedParams { w_q: 1.0, ..RedParams::new(0.0, 0.5, 0.1, 10_000_000, 1000) };
        EgressQueue::new(Limit::Packets(10), Discipline::Red(Box::new(Red::new(params).unwrap())), policy, Rng::from_seed(1), vec![])
    }

    /// Classifies and commits `pkt` as the router does without extensions.
    fn offer(q: &mut EgressQueue, pkt: Packet, now: SimTime) -> (Verdict, Action, bool) {
        let (verdict, action) = q.classify(&pkt, now);
        (verdict, action, q.commit(pkt, verdict, action, now))
    }

    fn red_idle_since(q: &EgressQueue) -> SimTime {
        match q.discipline() {
            Discipline::Red(r) => r.state().idle_since,
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_packet_limit_admits_up_to_the_limit_then_overflows() {
        let mut q = taildrop(Limit::Packets(3), vec![]);
        for i in 0..5 {
            let (verdict, action, queued) = offer(&mut q, data(i, 1000), ms(0));
            if i < 3 {
                assert_eq!((verdict, action, queued), (Verdict::Admit, Action::Enqueue, true), "packet {i}");
            } else {
                assert_eq!((verdict, action, queued), (Verdict::Overflow, Action::Drop, false), "packet {i}");
            }
        }
        assert_eq!(q.occupancy(), Occupancy { packets: 3, bytes: 3 * 1040 });
        assert_eq!((q.stats.arrivals, q.stats.arrival_bytes), (5, 5 * 1040));
        assert_eq!((q.stats.drops_overflow, q.stats.drops()), (2, 2));
        assert_eq!(q.stats.drops_early + q.stats.drops_forced + q.stats.drops_link_down, 0);
        assert_eq!(q.max_packets, 3);
        // The limit counts packets whatever their size.
        let mut q = taildrop(Limit::Packets(2), vec![]);
        assert!(offer(&mut q, data(0, 60_000), ms(0)).2 && offer(&mut q, data(1, 60_000), ms(0)).2);
        assert!(!offer(&mut q, data(2, 0), ms(0)).2);
    }

    #[test]
    fn a_byte_limit_counts_the_arriving_packet_and_admits_an_exact_fit() {
        let mut q = taildrop(Limit::Bytes(2520), vec![]);
        assert!(offer(&mut q, data(0, 1000), ms(0)).2);
        assert!(offer(&mut q, data(1, 1000), ms(0)).2); // 2080 bytes
        assert_eq!(offer(&mut q, data(2, 1000), ms(0)).0, Verdict::Overflow, "3120 > 2520");
        assert!(offer(&mut q, data(3, 400), ms(0)).2, "2080 + 440 = 2520 fits exactly");
        assert_eq!(offer(&mut q, data(4, 0), ms(0)).0, Verdict::Overflow, "a 40-byte packet no longer fits");
        assert_eq!(q.occupancy(), Occupancy { packets: 3, bytes: 2520 });
        assert_eq!(q.stats.drops_overflow, 2);
        // Room frees as packets leave.
        q.dequeue(ms(1));
        assert!(offer(&mut q, data(5, 1000), ms(1)).2);
        assert_eq!(q.occupancy().bytes, 2520);
    }

    #[test]
    fn classify_decides_without_changing_the_buffer_or_the_counters() {
        let mut q = taildrop(Limit::Packets(1), vec![]);
        offer(&mut q, data(0, 1000), ms(0));
        let before = (q.occupancy(), q.stats);
        assert_eq!(q.classify(&data(1, 1000), ms(1)), (Verdict::Overflow, Action::Drop));
        assert_eq!((q.occupancy(), q.stats), before);
    }

    #[test]
    fn departures_leave_in_order_with_their_queueing_delay() {
        let mut q = taildrop(Limit::Packets(10), vec![]);
        offer(&mut q, data(0, 1000), ms(0));
        offer(&mut q, data(1, 500), ms(1));
        assert_eq!(q.dequeue(ms(3)).unwrap().seq, Seq(0));
        assert_eq!(q.dequeue(ms(4)).unwrap().seq, Seq(1));
        assert_eq!((q.stats.departures, q.stats.departure_bytes), (2, 1040 + 540));
        assert_eq!(q.stats.delay_sum_ns, 3_000_000 + 3_000_000);
        let before = q.stats;
        assert!(q.dequeue(ms(5)).is_none());
        assert_eq!(q.stats, before, "dequeue on an empty queue changes nothing");
        assert!(q.is_empty());
    }

    #[test]
    fn time_integrals_of_the_length_in_packets_and_bytes() {
        let mut q = taildrop(Limit::Packets(10), vec![]);
        offer(&mut q, data(0, 1000), ms(1)); // 1 packet from 1 ms
        offer(&mut q, data(1, 500), ms(2)); // 2 from 2 ms
        offer(&mut q, data(2, 1000), ms(3)); // 3 from 3 ms
        q.dequeue(ms(6)); // 2 from 6 ms (the 1040-byte packet left)
        q.settle(ms(10));
        // Packets: 1 x 1 + 2 x 1 + 3 x 3 + 2 x 4 = 20 packet-ms.
        assert_eq!(q.stats.len_area_packets, 20 * 1_000_000);
        // Bytes: 1040 x 1 + 1580 x 1 + 2620 x 3 + 1580 x 4 = 16800 byte-ms.
        assert_eq!(q.stats.len_area_bytes, 16_800 * 1_000_000);
        q.settle(ms(10));
        assert_eq!(q.stats.len_area_packets, 20 * 1_000_000, "settling twice at one instant adds nothing");
        // Drops change no length, so they add no area of their own.
        let mut q = taildrop(Limit::Packets(1), vec![]);
        offer(&mut q, data(0, 1000), ms(0));
        offer(&mut q, data(1, 1000), ms(5));
        q.settle(ms(10));
        assert_eq!(q.stats.len_area_packets, 10 * 1_000_000);
    }

    #[test]
    fn histograms_of_the_sojourns_and_of_the_time_at_each_length() {
        let mut q = taildrop(Limit::Packets(10), vec![]);
        // One passes straight through (sojourn 0, not in the histogram); three wait.
        q.pass(&data(9, 1000), ms(0));
        offer(&mut q, data(0, 1000), ms(1)); // 1 packet from 1 ms
        offer(&mut q, data(1, 500), ms(2)); // 2 from 2 ms
        offer(&mut q, data(2, 1000), ms(3)); // 3 from 3 ms
        q.dequeue(ms(6)); // waited 5 ms; 2 from 6 ms
        q.dequeue(ms(7)); // waited 5 ms; 1 from 7 ms
        q.dequeue(ms(10)); // waited 7 ms; empty from 10 ms
        q.settle(ms(20));
        assert_eq!(q.stats.departures, 4);
        assert_eq!(q.distributions().unwrap().delay_hist.total(), 3);
        assert_eq!(q.max_delay(), Dur::from_millis(7));
        // The median of {0, 5, 5, 7} ms is 5 ms (to the histogram's resolution).
        let p50 = q.distributions().unwrap().delay_hist.quantile(0.5, 1);
        assert!((p50 / 5e6 - 1.0).abs() < 0.02, "{p50}");
        assert_eq!(q.distributions().unwrap().delay_hist.quantile(0.25, 1), 0.0);
        // Time at length 1: 1-2 ms and 7-10 ms; at 2: 2-3 and 6-7; at 3: 3-6.
        let bins: Vec<_> = q.distributions().unwrap().len_hist.bins().collect();
        assert_eq!(bins, [(1, 1, 4_000_000), (2, 2, 2_000_000), (3, 3, 3_000_000)]);
        // A new measurement period forgets both, and the maximum delay.
        q.begin_measurement();
        assert_eq!((q.distributions().unwrap().delay_hist.total(), q.distributions().unwrap().len_hist.total(), q.max_delay()), (0, 0, Dur::ZERO));
        // The time at the current length counts from the last change or settle.
        offer(&mut q, data(3, 1000), ms(21));
        q.settle(ms(25));
        assert_eq!(q.distributions().unwrap().len_hist.bins().collect::<Vec<_>>(), [(1, 1, 4_000_000)]);
    }

    #[test]
    fn drops_are_counted_by_verdict_and_binned_by_the_queue_length_found() {
        // Areas [0, 2), [2, 4), [4, ...).
        let mut q = taildrop(Limit::Packets(10), vec![2, 4]);
        let verdicts = [Verdict::Early, Verdict::Forced, Verdict::Overflow, Verdict::Admit, Verdict::Early, Verdict::Forced];
        for (len, verdict) in verdicts.into_iter().enumerate() {
            // A drop when the queue holds `len` packets, then one more packet queued.
            assert!(!q.commit(data(100, 1000), verdict, Action::Drop, ms(0)));
            assert!(q.commit(data(len as u32, 1000), Verdict::Admit, Action::Enqueue, ms(0)));
        }
        assert_eq!(&q.drop_areas[..3], &[2, 2, 2]);
        assert!(q.drop_areas[3..].iter().all(|n| *n == 0));
        // An admitted packet that ends up dropped can only have found no room.
        assert_eq!((q.stats.drops_early, q.stats.drops_forced, q.stats.drops_overflow), (2, 2, 2));
        assert_eq!(q.stats.arrivals, 12);
        assert_eq!(q.area_bounds(), &[2, 4]);
        // No boundaries: one area for every drop.
        let mut q = taildrop(Limit::Packets(1), vec![]);
        for i in 0..4 {
            offer(&mut q, data(i, 1000), ms(0));
        }
        assert_eq!(q.drop_areas[0], 3);
    }

    #[test]
    fn marks_set_ce_and_count_by_verdict() {
        let mut q = forcing_red(SignalPolicy::Ecn);
        let ect = Packet { ecn: Ecn::Ect0, ..data(0, 1000) };
        assert_eq!(offer(&mut q, ect, ms(0)), (Verdict::Admit, Action::Enqueue, true));
        assert_eq!(offer(&mut q, ect, ms(0)), (Verdict::Forced, Action::MarkAndEnqueue, true));
        assert_eq!(offer(&mut q, data(1, 1000), ms(0)), (Verdict::Forced, Action::Drop, false), "not ECN-capable");
        assert!(q.commit(ect, Verdict::Early, Action::MarkAndEnqueue, ms(0)));
        let ecn: Vec<Ecn> = q.iter().map(|p| p.ecn).collect();
        assert_eq!(ecn, [Ecn::Ect0, Ecn::Ce, Ecn::Ce]);
        assert_eq!((q.stats.marks_forced, q.stats.marks_early), (1, 1));
        assert_eq!((q.stats.drops_forced, q.stats.drops()), (1, 1));
    }

    /// A packet an earlier hop marked is marked again, not dropped: a second marking queue on
    /// the path passes the first one's marks on (Linux's `INET_ECN_set_ce` on a CE packet).
    #[test]
    fn a_packet_already_ce_is_queued_and_counted_as_marked() {
        let mut q = forcing_red(SignalPolicy::Ecn);
        let ce = Packet { ecn: Ecn::Ce, ..data(0, 1000) };
        assert_eq!(offer(&mut q, ce, ms(0)), (Verdict::Admit, Action::Enqueue, true));
        assert_eq!(offer(&mut q, ce, ms(0)), (Verdict::Forced, Action::MarkAndEnqueue, true));
        assert_eq!(q.iter().map(|p| p.ecn).collect::<Vec<_>>(), [Ecn::Ce, Ecn::Ce]);
        assert_eq!((q.stats.marks_forced, q.stats.drops()), (1, 0));
    }

    #[test]
    fn spoof_signals_are_counted_whether_or_not_the_packet_is_queued() {
        let mut q = forcing_red(SignalPolicy::Spoof);
        offer(&mut q, data(0, 1000), ms(0));
        assert_eq!(offer(&mut q, data(1, 1000), ms(0)), (Verdict::Forced, Action::EnqueueAndSpoof, true));
        assert!(!q.commit(data(2, 1000), Verdict::Overflow, Action::DropAndSpoof, ms(0)));
        assert_eq!(q.stats.spoof_signals, 2);
        assert_eq!((q.len(), q.stats.drops_overflow, q.stats.drops_forced), (2, 1, 0));
    }

    #[test]
    fn flush_loses_every_queued_packet_and_leaves_an_idle_queue() {
        let mut q = forcing_red(SignalPolicy::Ecn);
        for i in 0..3 {
            let ect = Packet { ecn: Ecn::Ect0, ..data(i, 1000) };
            assert!(offer(&mut q, ect, ms(0)).2);
        }
        q.dequeue(ms(1));
        let mut lost = Vec::new();
        q.flush(ms(4), |p| lost.push(p.seq));
        assert_eq!(lost, [Seq(1), Seq(2)], "in queue order");
        assert_eq!(q.occupancy(), Occupancy::default());
        assert_eq!((q.stats.drops_link_down, q.stats.drops()), (2, 2));
        assert!(q.drop_areas.iter().all(|n| *n == 0), "losses on a failed link are not queue drops");
        // 3 packets for 1 ms, then 2 for 3 ms: 9 packet-ms, and nothing after the flush.
        q.settle(ms(10));
        assert_eq!(q.stats.len_area_packets, 9 * 1_000_000);
        // The discipline sees the queue empty from the flush on.
        assert_eq!(red_idle_since(&q), ms(4));
        // And the buffer works again.
        assert_eq!(offer(&mut q, data(9, 1000), ms(11)), (Verdict::Admit, Action::Enqueue, true));
        assert_eq!(q.occupancy(), Occupancy { packets: 1, bytes: 1040 });
    }

    #[test]
    fn the_discipline_sees_every_departure() {
        let mut q = forcing_red(SignalPolicy::Ecn);
        offer(&mut q, Packet { ecn: Ecn::Ect0, ..data(0, 1000) }, ms(0));
        offer(&mut q, Packet { ecn: Ecn::Ect0, ..data(1, 1000) }, ms(0));
        q.dequeue(ms(2));
        assert_eq!(red_idle_since(&q), ms(0), "not empty yet");
        q.dequeue(ms(3));
        assert_eq!(red_idle_since(&q), ms(3), "idle from the last departure");
    }

    #[test]
    fn measurement_restarts_the_maxima_and_the_drop_areas_only() {
        let mut q = taildrop(Limit::Packets(3), vec![1]);
        for i in 0..4 {
            offer(&mut q, data(i, 1000), ms(0));
        }
        q.dequeue(ms(1));
        assert_eq!((q.max_packets, q.drop_areas[1]), (3, 1));
        q.begin_measurement();
        assert_eq!((q.max_packets, q.drop_areas[1]), (2, 0), "the maximum restarts from the current length");
        assert_eq!((q.stats.arrivals, q.stats.drops_overflow), (4, 1), "cumulative counters are kept");
    }

    fn codel(policy: SignalPolicy) -> EgressQueue {
        let d = Discipline::Codel(Box::new(crate::queue::Codel::new(crate::queue::CodelParams::default()).unwrap()));
        EgressQueue::new(Limit::Packets(100), d, policy, Rng::from_seed(1), vec![10])
    }

    /// Takes packets at `now` until one is to be sent, as the link does at a transmission
    /// opportunity; returns it (None if the queue emptied) and the packets dropped.
    fn opportunity(q: &mut EgressQueue, now: SimTime) -> (Option<Packet>, Vec<u32>) {
        let mut dropped = Vec::new();
        while let Some((p, v, a)) = q.next_departure(now) {
            match q.finish_departure(p, v, a, now) {
                Some(sent) => return (Some(sent), dropped),
                None => dropped.push(p.seq.0),
            }
        }
        (None, dropped)
    }

    #[test]
    fn a_dequeue_time_discipline_drops_at_dequeue_and_counts_it_apart() {
        let mut q = codel(SignalPolicy::Drop);
        assert!(q.decides_at_dequeue() && !taildrop(Limit::Packets(1), vec![]).decides_at_dequeue());
        for i in 0..40 {
            offer(&mut q, data(i, 1000), ms(0));
        }
        // 50 ms of sojourn: the first head starts the interval; 100 ms later CoDel drops
        // the head it finds and sends the next.
        assert_eq!(opportunity(&mut q, ms(50)), (Some(data(0, 1000)), vec![]));
        let (sent, dropped) = opportunity(&mut q, ms(150));
        assert_eq!((sent.map(|p| p.seq.0), dropped), (Some(2), vec![1]));
        assert_eq!((q.stats.drops_dequeue, q.stats.drops(), q.stats.departures), (1, 1, 2));
        assert_eq!(q.drop_areas[..2], [0, 1], "dropped with 38 packets left, at or above 10");
        assert_eq!(q.stats.delay_sum_ns, (50 + 150) * 1_000_000);
        assert_eq!(q.occupancy(), Occupancy { packets: 37, bytes: 37 * 1040 });
        // With ECN, an ECN-capable head is marked and sent instead.
        let mut q = codel(SignalPolicy::Ecn);
        for i in 0..40 {
            offer(&mut q, Packet { ecn: Ecn::Ect0, ..data(i, 1000) }, ms(0));
        }
        opportunity(&mut q, ms(50));
        let (sent, dropped) = opportunity(&mut q, ms(150));
        assert_eq!((sent.map(|p| (p.seq.0, p.ecn)), dropped), (Some((1, Ecn::Ce)), vec![]));
        assert_eq!((q.stats.marks_dequeue, q.stats.drops()), (1, 0));
        // An empty queue gives nothing, and tells CoDel.
        let mut q = codel(SignalPolicy::Drop);
        assert_eq!(opportunity(&mut q, ms(1)), (None, vec![]));
    }

    #[test]
    fn a_discipline_that_owns_its_buffer_admits_then_evicts_from_its_fattest_flow() {
        let fq = crate::queue::FqCodel::new(crate::queue::FqCodelParams::default()).unwrap();
        let mut q = EgressQueue::new(Limit::Packets(10), Discipline::FqCodel(Box::new(fq)), SignalPolicy::Drop, Rng::from_seed(1), vec![]);
        let other = |i: u32| {
            let ends = Endpoints { flow: 1, sender: 2, receiver: 3, sport: 20_000, dport: 80 };
            Packet::tcp_data(&ends, Seq(i), 1000, 64, SimTime::ZERO)
        };
        for i in 0..8 {
            assert_eq!(offer(&mut q, data(i, 1000), ms(0)), (Verdict::Admit, Action::Enqueue, true));
        }
        offer(&mut q, other(0), ms(0));
        offer(&mut q, other(1), ms(0));
        assert!(q.take_evicted().is_none(), "10 packets fit");
        // The 11th is admitted; flow 0 (8 packets, the fattest) loses its 4 oldest.
        assert!(offer(&mut q, other(2), ms(0)).2);
        let evicted: Vec<u32> = q.take_evicted().unwrap().map(|p| p.seq.0).collect();
        assert_eq!(evicted, vec![0, 1, 2, 3]);
        assert_eq!((q.stats.drops_overflow, q.len(), q.stats.arrivals), (4, 7, 11));
        assert_eq!(q.iter().count(), 7);
        // Both flows are served, the new ones first.
        let sent: Vec<u32> = (0..7).map(|_| opportunity(&mut q, ms(1)).0.unwrap().flow).collect();
        assert_eq!(sent.iter().filter(|f| **f == 1).count(), 3);
        assert!(q.is_empty());
        // A flush empties the flow queues too.
        offer(&mut q, data(0, 1000), ms(2));
        let mut lost = 0;
        q.flush(ms(3), |_| lost += 1);
        assert_eq!((lost, q.len(), q.stats.drops_link_down), (1, 0, 1));
        assert_eq!(opportunity(&mut q, ms(4)), (None, vec![]));
    }
}
