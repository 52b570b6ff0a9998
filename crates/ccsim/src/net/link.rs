//! Unidirectional links: an egress queue at the sending node, a transmitter that serializes
//! one packet at a time at the link rate, and a propagation pipe.
//!
//! The link is FIFO with a fixed rate and delay, so a packet's whole journey is known when it
//! is queued: it starts transmission when the transmitter frees (or at once), ends one
//! serialization time later and arrives one delay after that. The link therefore needs no
//! event per transmission. It records each queued packet's schedule ([`Slot`]) and the engine
//! schedules only arrivals, one pending at a time, for the earliest packet still to arrive.
//! Departures from the queue (queue statistics, the discipline's idle detection) are replayed
//! in time order by [`Link::advance`] whenever the link is offered a packet, so that the
//! discipline sees the queue as it is at that time. A transmission is counted (packets,
//! bytes, busy time) when it starts, whole; [`Link::sync`] takes off the part of the one in
//! progress when the counters are read. Its end is replayed only where something happens
//! then: a packet lost on the wire is dropped, a captured link writes its frame.
//!
//! A packet offered to an idle link (nothing queued, the transmitter free) starts its
//! transmission at once without passing through the queue's buffer
//! ([`EgressQueue::pass`]): on most links of a large network, and on every link that is not
//! a bottleneck, that is nearly every packet.
//!
//! A discipline that decides at dequeue (CoDel drops by sojourn time; FQ-CoDel chooses which
//! flow sends next) breaks the premise: which packet leaves next, and when, is only known at
//! each transmission opportunity. Such a link keeps no schedule of queued packets. Its
//! transmitter is started packet by packet with [`Link::start_now`], by the run loop, at each
//! opportunity: when a packet arrives to an idle link, and at the end of each transmission
//! (the run loop schedules an event there for these links only). So a dequeue-time discipline
//! costs one event per transmission and every other discipline still costs none; the
//! replay, the pipe and the arrival events are shared by both kinds.

use super::pipe::{Pipe, PipeStore};
use crate::packet::{NodeId, Packet};
use crate::queue::{EgressQueue, QueueStats};
use crate::sim::{Dur, Rng, Serializer, SimTime};
use crate::stats::counters;
use std::collections::VecDeque;

pub type LinkId = u32;

counters! {
    /// Cumulative counters of one link.
    pub struct LinkStats {
        /// Packets that finished serialization.
        pub tx_packets: u64,
        pub tx_bytes: u64,
        /// Time the transmitter was busy (ns).
        pub busy_ns: u128,
        /// Packets lost to the link's random loss.
        pub lost_random: u64,
        /// Packets lost in transmission or propagation when the link went down, or offered
        /// to the link while it was down.
        pub lost_down: u64,
        /// Times the link went down.
        pub failures: u64,
    }
}

/// The transmission of one packet, fixed when it was queued.
#[derive(Clone, Copy, Debug)]
struct Slot {
    start: SimTime,
    end: SimTime,
    /// Lost on the wire (the random loss is drawn when the packet is queued, in the same
    /// per-link order as the transmissions).
    lost: bool,
    /// The serializer after this packet: restored when the link goes down, so that the
    /// packets lost from the queue leave no trace in later serialization times.
    serializer: Serializer,
}

impl Slot {
    /// Whether the packet has been lost on the wire by `now`.
    fn lost_by(&self, now: SimTime) -> bool {
        self.lost && self.end <= now
    }
}

/// What queueing a packet committed the link to.
#[derive(Clone, Copy, Debug)]
pub struct Scheduled {
    /// When its transmission starts (it leaves the queue), unless the link fails first.
    pub tx_start: SimTime,
    /// When its transmission ends.
    pub tx_end: SimTime,
    /// When it reaches the far end, if the engine must schedule that arrival: it will
    /// arrive and no earlier packet's arrival is pending.
    pub arrival: Option<SimTime>,
}

/// The fields are laid out in this order (`repr(C)`, the link aligned to a cache line): first
/// those a packet's passage reads or writes (the transmitter, the pipe, the schedule, the
/// counters of started transmissions), then the queue (its own such fields first), then what
/// only set-up, failures, random loss, captures and the report read. The first part is four
/// cache lines: [`prefetch`](Self::prefetch) asks for them.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Link {
    pub up: bool,
    /// Whether every end of transmission is replayed (a capture records the link).
    pub replay_ends: bool,
    /// Whether an arrival event is pending (for the earliest packet still to arrive).
    arrival_pending: bool,
    /// Whether the link loses packets at random (`loss` above zero): only then, or with
    /// `replay_ends`, is a transmission's end kept to replay (`ending`).
    lossy: bool,
    /// Bumped when the link goes down so that events for lost packets are ignored.
    pub epoch: u32,
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: Dur,
    /// When the transmitter frees after every scheduled packet.
    free_at: SimTime,
    serializer: Serializer,
    /// The serializer after the last packet that started transmission.
    started_serializer: Serializer,
    pipe: Pipe,
    /// The schedule of each packet in `queue`, in the same order (empty when the queue's
    /// discipline decides at dequeue: then nothing is scheduled before it starts).
    slots: VecDeque<Slot>,
    /// The last transmission started (as of the last `advance`): in progress at `t` while
    /// its end is after `t`. Its packet is at the back of the pipe (it is the next to enter it
    /// and nothing overtakes it there), which saves moving every packet twice; unless it is to
    /// be lost on the wire: then it waits in `lost_on_wire` for the end of its transmission.
    last_tx: Option<Slot>,
    /// Transmissions started: packets, bytes and their whole serialization times, ns.
    started_packets: u64,
    started_bytes: u64,
    started_busy_ns: u64,
    /// Packets whose transmission has not started (as of the last [`advance`](Self::advance)).
    pub queue: EgressQueue,
    pub name: String,
    /// Routing cost (shortest paths minimise the sum).
    pub cost: u32,
    /// Probability that a transmitted packet is lost on the wire.
    loss: f64,
    /// A started transmission whose end is still to be replayed: one lost on the wire, or
    /// any on a link whose ends are replayed (`replay_ends`). Read through
    /// [`ending`](Self::ending), which on the other links does not touch its line.
    ending: Option<Slot>,
    pub stats: LinkStats,
    loss_rng: Rng,
    lost_on_wire: Option<Packet>,
}

impl Link {
    /// Bytes from the start of a link that hold what a packet's passage through it reads and
    /// writes (its queue's part included).
    const HOT_BYTES: usize = std::mem::offset_of!(Link, queue) + EgressQueue::HOT_BYTES;

    /// Prefetches what a packet's passage through the link will read (see `engine::warm`).
    #[inline]
    pub fn prefetch(&self) {
        crate::sim::prefetch::range(self, Self::HOT_BYTES);
    }

    /// Bytes a new link named with `name_len` bytes holds, its queue of `limit` included (for
    /// the scenario's memory estimate).
    pub fn footprint(name_len: usize, limit: crate::queue::Limit) -> u64 {
        (std::mem::size_of::<Link>() - std::mem::size_of::<EgressQueue>() + name_len) as u64 + EgressQueue::footprint(limit)
    }

    /// Bytes each packet in the link takes (queued, or in transmission and propagation).
    pub fn bytes_per_packet() -> u64 {
        EgressQueue::bytes_per_packet().max((std::mem::size_of::<Slot>() + PipeStore::BYTES_PER_PACKET) as u64)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn new(name: String, from: NodeId, to: NodeId, rate_bps: u64, delay: Dur, cost: u32, loss: f64, queue: EgressQueue, loss_rng: Rng) -> Link {
        Link {
            name,
            from,
            to,
            rate_bps,
            delay,
            cost,
            loss,
            lossy: loss > 0.0,
            up: true,
            epoch: 0,
            queue,
            stats: LinkStats::default(),
            loss_rng,
            serializer: Serializer::default(),
            slots: VecDeque::new(),
            last_tx: None,
            ending: None,
            lost_on_wire: None,
            replay_ends: false,
            started_serializer: Serializer::default(),
            free_at: SimTime::ZERO,
            pipe: Pipe::default(),
            arrival_pending: false,
            started_packets: 0,
            started_bytes: 0,
            started_busy_ns: 0,
        }
    }

    /// Probability that a transmitted packet is lost on the wire.
    pub fn loss(&self) -> f64 {
        self.loss
    }

    /// Sets the probability that a transmitted packet is lost on the wire (before the run:
    /// a live run's simulated twin moves a flakeway's loss onto the links into its node).
    pub fn set_loss(&mut self, loss: f64) {
        self.loss = loss;
        self.lossy = loss > 0.0;
    }

    /// Whether the link loses packets at random.
    pub fn is_lossy(&self) -> bool {
        self.lossy
    }

    /// The started transmission whose end is still to be replayed, if any. Only a lossy link
    /// or one whose ends are replayed keeps one; on the others (most links) the answer comes
    /// from the first cache line, without reading `ending`'s.
    #[inline(always)]
    fn ending(&self) -> Option<Slot> {
        if self.lossy || self.replay_ends {
            self.kept_ending()
        } else {
            debug_assert!(self.ending.is_none());
            None
        }
    }

    /// `ending`, read out of line. Inlined, the read is one the compiler may move before the
    /// test of the flags (it is a safe read), and a profile-guided build did: every packet
    /// offered to a link then waited for a line no cache held (`benchmarks/README.md`, "A
    /// profile-guided build, and the links read after every slice"). Out of line is how
    /// this crate keeps a read off the common path; `docs/architecture.md` says so once.
    #[inline(never)]
    fn kept_ending(&self) -> Option<Slot> {
        self.ending
    }

    /// Checks the precondition of the methods that read the link as it is at `now`: it has
    /// been advanced to `now` ([`advance`](Self::advance)), so nothing due by then is still
    /// to be replayed. Checked in debug builds and tests; free in a release build.
    #[inline(always)]
    fn expect_current(&self, now: SimTime) {
        debug_assert!(self.is_current(now), "link {} read at {now:?} before it was advanced to then", self.name);
    }

    /// The transmission in progress at `now` (the link must have been advanced to now).
    fn in_progress(&self, now: SimTime) -> Option<Slot> {
        self.expect_current(now);
        self.last_tx.filter(|s| s.end > now)
    }

    /// The packet being serialized at `now`, if any (the link must have been advanced to now).
    pub fn transmitting_packet<'a>(&'a self, pipes: &'a PipeStore, now: SimTime) -> Option<&'a Packet> {
        match self.in_progress(now)? {
            s if s.lost => self.lost_on_wire.as_ref(),
            _ => self.pipe.back(pipes),
        }
    }

    /// Takes a packet the queue has admitted (the link must have been advanced to now): it
    /// goes straight to the transmitter if the link is idle, else to the tail of the queue.
    #[inline]
    pub fn accept(&mut self, pipes: &mut PipeStore, pkt: &Packet, now: SimTime) -> Scheduled {
        self.expect_current(now);
        if self.queue.is_empty() && self.free_at <= now {
            self.queue.pass(pkt, now);
            let slot = self.next_slot(pkt.size, now);
            self.start(pipes, slot, pkt);
            self.arrival(slot)
        } else {
            self.queue.push(pkt, now);
            self.schedule(pkt.size, now)
        }
    }

    /// Fixes the transmission of the packet of `size` bytes just committed to the tail of
    /// the queue.
    pub fn schedule(&mut self, size: u32, now: SimTime) -> Scheduled {
        let slot = self.next_slot(size, now);
        self.slots.push_back(slot);
        self.arrival(slot)
    }

    /// The transmission of the next packet of `size` bytes offered at `now`: after those
    /// already scheduled; the loss on the wire is drawn now, in the order packets come.
    #[inline]
    fn next_slot(&mut self, size: u32, now: SimTime) -> Slot {
        let start = now.max(self.free_at);
        let end = start + self.serializer.tx_time(size as u64 * 8, self.rate_bps);
        let lost = self.lossy && self.loss_rng.bernoulli(self.loss);
        self.free_at = end;
        Slot { start, end, lost, serializer: self.serializer }
    }

    /// What the engine must schedule for a packet just given `slot`.
    #[inline]
    fn arrival(&mut self, slot: Slot) -> Scheduled {
        let arrival = if !slot.lost && !self.arrival_pending {
            self.arrival_pending = true;
            Some(slot.end + self.delay)
        } else {
            None
        };
        Scheduled { tx_start: slot.start, tx_end: slot.end, arrival }
    }

    /// Whether the transmitter is free at `now` (the link must have been advanced to now).
    pub fn is_idle(&self, now: SimTime) -> bool {
        self.expect_current(now);
        self.free_at <= now
    }

    /// Starts transmitting `pkt` at `now`, on a link whose queue decides at dequeue (the
    /// packet has already left the queue; the transmitter must be free).
    pub fn start_now(&mut self, pipes: &mut PipeStore, pkt: Packet, now: SimTime) -> Scheduled {
        debug_assert!(self.slots.is_empty() && self.is_idle(now));
        let slot = self.next_slot(pkt.size, now);
        self.start(pipes, slot, &pkt);
        self.arrival(slot)
    }

    /// `pkt` starts its transmission (`slot`).
    #[inline(always)]
    fn start(&mut self, pipes: &mut PipeStore, slot: Slot, pkt: &Packet) {
        Self::place(&mut self.pipe, &mut self.lost_on_wire, pipes, slot, self.delay, pkt);
        self.started(slot, pkt.size);
    }

    /// Where a packet starting its transmission (`slot`) goes: into the pipe, or aside if
    /// the wire is to lose it.
    #[inline(always)]
    fn place(pipe: &mut Pipe, lost_on_wire: &mut Option<Packet>, pipes: &mut PipeStore, slot: Slot, delay: Dur, pkt: &Packet) {
        if slot.lost {
            *lost_on_wire = Some(*pkt);
        } else {
            pipe.push_back(pipes, slot.end + delay, pkt);
        }
    }

    /// The counters and the replay state of a transmission of `size` bytes starting (`slot`).
    #[inline(always)]
    fn started(&mut self, slot: Slot, size: u32) {
        self.started_serializer = slot.serializer;
        self.started_packets += 1;
        self.started_bytes += size as u64;
        self.started_busy_ns += (slot.end - slot.start).as_nanos();
        if slot.lost || self.replay_ends {
            self.ending = Some(slot);
        }
        self.last_tx = Some(slot);
    }

    /// Whether [`advance`](Self::advance) to `now` has nothing to replay: no end of
    /// transmission due and no queued packet whose transmission has started. Most links,
    /// most of the time.
    #[inline]
    pub fn is_current(&self, now: SimTime) -> bool {
        match self.ending() {
            Some(s) => s.end > now,
            None => self.slots.front().is_none_or(|s| s.start > now),
        }
    }

    /// Replays, in time order, the departures from the queue up to `now` (inclusive), and
    /// the ends of transmission that must be: `tx_end` sees each packet lost on the wire,
    /// and with `replay_ends` each packet that finished transmission, with the time it did
    /// and whether it was lost.
    #[inline]
    pub fn advance(&mut self, pipes: &mut PipeStore, now: SimTime, mut tx_end: impl FnMut(SimTime, &Packet, bool)) {
        loop {
            if let Some(slot) = self.ending() {
                if slot.end > now {
                    return; // the next packet cannot start before this one ends
                }
                self.ending = None;
                if slot.lost {
                    let pkt = self.lost_on_wire.take().expect("a packet lost on the wire");
                    self.stats.lost_random += 1;
                    tx_end(slot.end, &pkt, true);
                } else {
                    tx_end(slot.end, self.pipe.back(pipes).expect("the transmitted packet"), false);
                }
            }
            match self.slots.front() {
                Some(s) if s.start <= now => {
                    let slot = self.slots.pop_front().expect("front");
                    // Copied from the queue's buffer straight into the pipe, then removed: a
                    // packet returned by value is copied through the stack, and reading those
                    // copies back so soon after writing them stalls.
                    let pkt = self.queue.head().expect("a slot without a queued packet");
                    let size = pkt.size;
                    Self::place(&mut self.pipe, &mut self.lost_on_wire, pipes, slot, self.delay, pkt);
                    self.queue.remove_head(slot.start);
                    self.started(slot, size);
                }
                _ => return,
            }
        }
    }

    /// Brings the transmission counters up to `now` (the link must have been advanced to
    /// now): the transmissions started, less what remains of the one in progress.
    pub fn sync(&mut self, pipes: &PipeStore, now: SimTime) {
        let (mut packets, mut bytes, mut busy) = (self.started_packets, self.started_bytes, self.started_busy_ns);
        if let Some(s) = self.in_progress(now) {
            packets -= 1;
            bytes -= self.transmitting_packet(pipes, now).expect("in progress").size as u64;
            busy -= (s.end - now).as_nanos();
        }
        self.stats.tx_packets = packets;
        self.stats.tx_bytes = bytes;
        self.stats.busy_ns = busy as u128;
    }

    /// Whether the packet due to arrive next can be delivered without a further
    /// [`advance`](Self::advance): the pipe holds the packets whose transmission has started,
    /// in the order they arrive; but if the end of the last of them is still to be replayed
    /// (`replay_ends`), it must stay there until it is.
    #[inline]
    pub fn arrival_ready(&self) -> bool {
        match self.ending() {
            Some(s) if !s.lost => self.pipe.len() > 1,
            _ => !self.pipe.is_empty(),
        }
    }

    /// The packet due to arrive next, if it has started transmission: what the link's
    /// pending arrival will deliver (for warming caches ahead of it; see `engine::warm`).
    pub fn next_to_arrive<'a>(&self, pipes: &'a PipeStore) -> Option<&'a Packet> {
        self.pipe.front(pipes)
    }

    /// The packet at the head of the pipe reaches the far end (the link must have been
    /// advanced far enough for it to be there: see [`arrival_ready`](Self::arrival_ready)).
    /// Returns it and the next arrival to schedule, if any.
    pub fn deliver(&mut self, pipes: &mut PipeStore) -> (Packet, Option<SimTime>) {
        assert!(!self.pipe.is_empty(), "arrival without a packet");
        debug_assert!(self.arrival_ready(), "link {}: an arrival before its end of transmission was replayed", self.name);
        // The next arrival, read before the packet leaves (which then goes straight to the
        // caller): the next packet in the pipe, else the first scheduled transmission that
        // will not be lost on the wire.
        let next = self.pipe.second_at(pipes).or_else(|| self.slots.iter().find(|s| !s.lost).map(|s| s.end + self.delay));
        self.arrival_pending = next.is_some();
        (self.pipe.pop_front(pipes), next)
    }

    /// Takes the link down at `now` (the link must have been advanced to now): the packet
    /// being serialized, those propagating and those queued are lost; `lost` sees each of
    /// them.
    pub fn go_down(&mut self, pipes: &mut PipeStore, now: SimTime, mut lost: impl FnMut(&Packet)) {
        self.expect_current(now);
        if !self.up {
            return;
        }
        self.up = false;
        self.epoch = self.epoch.wrapping_add(1);
        self.stats.failures += 1;
        // The transmission in progress ends now: it was counted whole when it started, and
        // does not count as transmitted.
        if let Some(slot) = self.in_progress(now) {
            self.started_packets -= 1;
            self.started_bytes -= self.transmitting_packet(pipes, now).expect("in progress").size as u64;
            self.started_busy_ns -= (slot.end - now).as_nanos();
        }
        self.last_tx = None;
        self.ending = None;
        // The packet being serialized: in the pipe, or here if it was to be lost anyway.
        if let Some(p) = self.lost_on_wire.take() {
            self.stats.lost_down += 1;
            lost(&p);
        }
        let stats = &mut self.stats;
        self.pipe.drain(pipes, |p| {
            stats.lost_down += 1;
            lost(p);
        });
        self.queue.flush(now, lost);
        self.slots.clear();
        // The queued packets never started: the transmitter is free and its serializer is
        // as the last transmission left it.
        self.free_at = now;
        self.serializer = self.started_serializer;
        self.arrival_pending = false;
    }

    pub fn come_up(&mut self) {
        self.up = true;
    }

    /// The packets the link holds at `now`: queued, being transmitted or propagating,
    /// without those already lost on the wire (whatever the last `advance`).
    pub fn packets<'a>(&'a self, pipes: &'a PipeStore, now: SimTime) -> impl Iterator<Item = &'a Packet> {
        // Without random loss no packet is lost on the wire: the schedule need not be read.
        let lossy = self.lossy;
        let queued = self.queue.iter().enumerate().filter(move |&(i, _)| !lossy || !self.slots[i].lost_by(now)).map(|(_, p)| p);
        let sending = self.lost_on_wire.iter().filter(move |_| self.ending().is_some_and(|s| !s.lost_by(now)));
        queued.chain(sending).chain(self.pipe.iter(pipes))
    }

    /// Whether some packet of [`packets`](Self::packets) satisfies `hit`. Written out rather
    /// than chained: the engine asks it of every link at each fast retransmit, and most links
    /// hold nothing.
    pub fn holds(&self, pipes: &PipeStore, now: SimTime, hit: impl Fn(&Packet) -> bool) -> bool {
        if !self.queue.is_empty() {
            let lossy = self.lossy;
            if self.queue.iter().enumerate().any(|(i, p)| hit(p) && !(lossy && self.slots[i].lost_by(now))) {
                return true;
            }
        }
        if let (Some(p), Some(s)) = (&self.lost_on_wire, self.ending()) {
            if hit(p) && !s.lost_by(now) {
                return true;
            }
        }
        !self.pipe.is_empty() && self.pipe.iter(pipes).any(hit)
    }

    /// How many packets satisfying `hit` the link has lost on the wire by `now` whose loss
    /// the last [`advance`](Self::advance) has not yet replayed.
    pub fn lost_unreplayed(&self, now: SimTime, hit: impl Fn(&Packet) -> bool) -> usize {
        let sending = match (&self.lost_on_wire, self.ending()) {
            (Some(p), Some(s)) => (s.lost_by(now) && hit(p)) as usize,
            _ => 0,
        };
        let queued = self.queue.iter().zip(&self.slots).filter(|(p, s)| s.lost_by(now) && hit(p)).count();
        sending + queued
    }

    /// The link's and its queue's counters as of `now`, without changing the link: the
    /// departures and transmissions not yet replayed are replayed on a copy. For readers
    /// outside the run loop (it copies the queued packets); the engine itself advances links.
    pub fn counters_at(&self, pipes: &PipeStore, now: SimTime) -> (LinkStats, QueueStats) {
        // The copy's pipe starts with the last packet that entered this one: the counters
        // read only that one (the transmission in progress) and those the replay starts.
        let mut copy = self.clone();
        let mut store = PipeStore::default();
        copy.pipe = Pipe::default();
        if let Some(p) = self.pipe.back(pipes) {
            copy.pipe.push_back(&mut store, SimTime::ZERO, p);
        }
        copy.advance(&mut store, now, |_, _, _| {});
        copy.settle(&store, now);
        (copy.stats, copy.queue.stats)
    }

    /// Brings the counters and time integrals up to `now` (the link must have been advanced
    /// to now).
    pub fn settle(&mut self, pipes: &PipeStore, now: SimTime) {
        self.sync(pipes, now);
        self.queue.settle(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Endpoints;
    use crate::packet::Seq;
    use crate::queue::{Discipline, Limit, TailDrop, Verdict};
    use crate::signal::{Action, SignalPolicy};

    const ENDS: Endpoints = Endpoints { flow: 0, sender: 0, receiver: 1, sport: 1, dport: 2 };

    /// A 1 Mb/s link with 10 ms of delay: a 1000-byte packet takes 8 ms to serialize.
    fn link(loss: f64, limit: u32) -> Alone {
        let q = EgressQueue::new(Limit::Packets(limit), Discipline::TailDrop(Box::new(TailDrop)), SignalPolicy::Drop, Rng::from_seed(1), vec![]);
        let link = Link::new("A->B".into(), 0, 1, 1_000_000, Dur::from_millis(10), 1, loss, q, Rng::from_seed(7));
        Alone { link, pipes: PipeStore::default() }
    }

    /// A link with a pipe store of its own: the link's methods without the store argument.
    struct Alone {
        link: Link,
        pipes: PipeStore,
    }

    impl std::ops::Deref for Alone {
        type Target = Link;
        fn deref(&self) -> &Link {
            &self.link
        }
    }

    impl std::ops::DerefMut for Alone {
        fn deref_mut(&mut self) -> &mut Link {
            &mut self.link
        }
    }

    impl Alone {
        fn advance(&mut self, now: SimTime, tx_end: impl FnMut(SimTime, &Packet, bool)) {
            self.link.advance(&mut self.pipes, now, tx_end)
        }
        fn accept(&mut self, pkt: &Packet, now: SimTime) -> Scheduled {
            self.link.accept(&mut self.pipes, pkt, now)
        }
        fn start_now(&mut self, pkt: Packet, now: SimTime) -> Scheduled {
            self.link.start_now(&mut self.pipes, pkt, now)
        }
        fn deliver(&mut self) -> (Packet, Option<SimTime>) {
            self.link.deliver(&mut self.pipes)
        }
        fn go_down(&mut self, now: SimTime, lost: impl FnMut(&Packet)) {
            self.link.go_down(&mut self.pipes, now, lost)
        }
        fn sync(&mut self, now: SimTime) {
            self.link.sync(&self.pipes, now)
        }
        fn settle(&mut self, now: SimTime) {
            self.link.settle(&self.pipes, now)
        }
        fn transmitting_packet(&self, now: SimTime) -> Option<&Packet> {
            self.link.transmitting_packet(&self.pipes, now)
        }
        fn packets(&self, now: SimTime) -> impl Iterator<Item = &Packet> {
            self.link.packets(&self.pipes, now)
        }
        fn holds(&self, now: SimTime, hit: impl Fn(&Packet) -> bool) -> bool {
            self.link.holds(&self.pipes, now, hit)
        }
        fn counters_at(&self, now: SimTime) -> (LinkStats, QueueStats) {
            self.link.counters_at(&self.pipes, now)
        }
    }

    fn pkt(i: u32) -> Packet {
        Packet::tcp_data(&ENDS, Seq(i * 960), 960, 64, SimTime::ZERO) // 1000 bytes on the wire
    }

    fn ms(t: u64) -> SimTime {
        SimTime::ZERO + Dur::from_millis(t)
    }

    /// Offers `p` at `now` as the engine does: advance, classify, commit, schedule.
    fn offer(l: &mut Alone, p: Packet, now: SimTime) -> Option<Scheduled> {
        l.advance(now, |_, _, _| {});
        let (v, a) = l.queue.classify(&p, now);
        l.queue.commit(p, v, a, now).then(|| l.schedule(p.size, now))
    }

    #[test]
    fn a_packets_passage_reads_four_lines_of_a_link() {
        // What warming asks for (see `Link::prefetch`): the link's own per-packet fields,
        // then its queue's, with no discipline's state or report-only counters between, on
        // four whole cache lines.
        assert_eq!(Link::HOT_BYTES, 256, "{} bytes: a field was added to the hot part, or moved", Link::HOT_BYTES);
        assert_eq!(std::mem::align_of::<Link>(), crate::sim::prefetch::LINE);
        assert!(std::mem::size_of::<Link>() <= 15 * 64, "a link is {} bytes", std::mem::size_of::<Link>());
    }

    #[test]
    fn a_packet_that_waits_reads_one_more_line() {
        let line = crate::sim::prefetch::LINE;
        let waiting = EgressQueue::WAITING_BYTES;
        let (first, last) = (std::mem::offset_of!(Link, queue) + waiting.start, std::mem::offset_of!(Link, queue) + waiting.end - 1);
        assert_eq!(first / line, last / line, "the buffer's header and the length's run span bytes {first} to {last}");
    }

    #[test]
    fn packets_are_serialized_back_to_back_and_arrive_one_delay_later() {
        let mut l = link(0.0, 10);
        let a = offer(&mut l, pkt(0), ms(0)).unwrap();
        assert_eq!((a.tx_end, a.arrival), (ms(8), Some(ms(18))));
        // The second waits for the transmitter; its arrival is not scheduled while the
        // first one's is pending (one arrival event per link).
        let b = offer(&mut l, pkt(1), ms(1)).unwrap();
        assert_eq!((b.tx_end, b.arrival), (ms(16), None));
        l.advance(ms(18), |_, _, _| {});
        let (p, next) = l.deliver();
        assert_eq!((p.seq, next), (Seq(0), Some(ms(26))));
        l.advance(ms(26), |_, _, _| {});
        let (p, next) = l.deliver();
        assert_eq!((p.seq, next), (Seq(960), None));
        // Idle, a later packet starts at once.
        let c = offer(&mut l, pkt(2), ms(100)).unwrap();
        assert_eq!((c.tx_end, c.arrival), (ms(108), Some(ms(118))));
    }

    #[test]
    fn replay_reports_each_end_of_transmission_in_order_with_its_time() {
        let mut l = link(0.0, 10);
        l.replay_ends = true;
        for i in 0..3 {
            offer(&mut l, pkt(i), ms(0));
        }
        let mut ends = Vec::new();
        l.advance(ms(20), |t, p, lost| ends.push((t, p.seq, lost)));
        assert_eq!(ends, vec![(ms(8), Seq(0), false), (ms(16), Seq(960), false)]);
        assert_eq!((l.queue.len(), l.transmitting_packet(ms(20)).map(|p| p.seq)), (0, Some(Seq(1920))));
        l.sync(ms(20));
        assert_eq!((l.stats.tx_packets, l.stats.tx_bytes, l.stats.busy_ns), (2, 2000, 20_000_000), "the third is half sent");
        l.advance(ms(24), |t, p, _| ends.push((t, p.seq, false)));
        assert_eq!(ends.last(), Some(&(ms(24), Seq(1920), false)));
        l.sync(ms(24));
        assert_eq!((l.stats.tx_packets, l.stats.tx_bytes), (3, 3000));
        // Without `replay_ends`, only losses are replayed; the counters are the same.
        let mut quiet = link(0.0, 10);
        for i in 0..3 {
            offer(&mut quiet, pkt(i), ms(0));
        }
        quiet.advance(ms(24), |_, _, _| panic!("no end to replay"));
        quiet.sync(ms(24));
        assert_eq!(quiet.stats, l.stats);
    }

    #[test]
    fn an_idle_link_takes_a_packet_straight_to_the_transmitter_as_if_queued() {
        // The same packets offered through the buffer and through `accept`: the same
        // schedule, link counters and queue counters.
        let (mut queued, mut direct) = (link(0.0, 10), link(0.0, 10));
        for (i, t) in [(0, 0), (1, 3), (2, 30), (3, 31), (4, 100)] {
            let a = offer(&mut queued, pkt(i), ms(t)).unwrap();
            direct.advance(ms(t), |_, _, _| {});
            let mut p = pkt(i);
            let (v, act) = direct.queue.classify(&p, ms(t));
            assert!(direct.queue.admit(&mut p, v, act));
            let b = direct.accept(&p, ms(t));
            assert_eq!((a.tx_end, a.arrival), (b.tx_end, b.arrival), "packet {i}");
        }
        for l in [&mut queued, &mut direct] {
            l.advance(ms(200), |_, _, _| {});
            l.settle(ms(200));
        }
        assert_eq!((queued.stats, queued.queue.stats, queued.queue.max_packets), (direct.stats, direct.queue.stats, direct.queue.max_packets));
        assert_eq!(direct.queue.stats.delay_sum_ns, 5_000_000 + 7_000_000, "packets 1 and 3 waited");
    }

    #[test]
    fn counters_can_be_read_without_changing_the_link() {
        let mut l = link(0.0, 10);
        for i in 0..4 {
            offer(&mut l, pkt(i), ms(0));
        }
        let (ls, qs) = l.counters_at(ms(20));
        assert_eq!((l.stats.tx_packets, l.queue.stats.departures), (0, 1), "replayed only up to 0 ms");
        assert_eq!((ls.tx_packets, qs.departures, ls.busy_ns), (2, 3, 20_000_000));
        l.advance(ms(20), |_, _, _| {});
        l.settle(ms(20));
        assert_eq!((l.stats, l.queue.stats), (ls, qs));
    }

    #[test]
    fn busy_time_and_mean_queue_are_integrated() {
        let mut l = link(0.0, 10);
        for i in 0..3 {
            offer(&mut l, pkt(i), ms(0));
        }
        l.advance(ms(40), |_, _, _| {});
        l.settle(ms(40));
        assert_eq!(l.stats.busy_ns, 24_000_000, "3 x 8 ms busy");
        // Queue (not counting the packet in transmission): 2 for 8 ms, 1 for 8 ms.
        assert_eq!(l.queue.stats.len_area_packets, (2 * 8 + 8) as u128 * 1_000_000);
        assert_eq!(l.queue.stats.delay_sum_ns, (8 + 16) as u128 * 1_000_000);
    }

    #[test]
    fn random_loss_happens_on_the_wire_after_transmission() {
        let mut l = link(0.5, 1000);
        let (mut arrivals, mut replayed) = (0, 0);
        for i in 0..400 {
            l.advance(ms(8 * i as u64), |_, _, lost| replayed += lost as u64);
            let s = offer(&mut l, pkt(i), ms(8 * i as u64)).unwrap();
            arrivals += s.arrival.is_some() as u32;
        }
        l.advance(ms(100_000), |_, _, lost| replayed += lost as u64);
        l.sync(ms(100_000));
        let lost = l.stats.lost_random;
        assert_eq!(replayed, lost, "each loss replayed");
        assert_eq!(l.stats.tx_packets, 400);
        assert!((150..250).contains(&lost), "about half lost: {lost}");
        assert_eq!(l.packets(ms(100_000)).count() as u64, 400 - lost, "the others are in the pipe");
        assert!(arrivals >= 1);
    }

    #[test]
    fn going_down_loses_everything_aboard_and_frees_the_transmitter() {
        let mut l = link(0.0, 10);
        for i in 0..4 {
            offer(&mut l, pkt(i), ms(0));
        }
        l.advance(ms(12), |_, _, _| {}); // packet 0 propagating, 1 transmitting, 2 and 3 queued
        assert_eq!(l.packets(ms(12)).count(), 4);
        assert!(l.holds(ms(12), |p| p.seq == Seq(1920)) && !l.holds(ms(12), |p| p.seq == Seq(99)));
        let mut lost = Vec::new();
        l.go_down(ms(12), |p| lost.push(p.seq.0 / 960));
        lost.sort_unstable();
        assert_eq!(lost, vec![0, 1, 2, 3]);
        assert_eq!((l.stats.lost_down, l.queue.stats.drops_link_down, l.stats.failures), (2, 2, 1));
        assert_eq!(l.packets(ms(12)).count(), 0);
        // Back up, a new packet starts at once and takes the full serialization time.
        l.come_up();
        let s = offer(&mut l, pkt(9), ms(12)).unwrap();
        assert_eq!((s.tx_end, s.arrival), (ms(20), Some(ms(30))));
    }

    #[test]
    fn a_full_buffer_drops_the_arrival() {
        let mut l = link(0.0, 2);
        let got: Vec<bool> = (0..4).map(|i| offer(&mut l, pkt(i), ms(0)).is_some()).collect();
        // The first leaves the buffer for the transmitter at once; the second and third fill
        // the buffer, and the fourth finds no room.
        assert_eq!(got, vec![true, true, true, false]);
        assert_eq!(l.queue.stats.drops_overflow, 1);
        let (v, a) = l.queue.classify(&pkt(5), ms(0));
        assert_eq!((v, a), (Verdict::Overflow, Action::Drop));
    }

    #[test]
    fn a_transmission_started_by_hand_occupies_the_transmitter_and_arrives_one_delay_later() {
        let mut l = link(0.0, 10);
        assert!(l.is_idle(ms(0)));
        let s = l.start_now(pkt(0), ms(0));
        assert_eq!((s.tx_end, s.arrival), (ms(8), Some(ms(18))));
        assert!(!l.is_idle(ms(7)) && l.is_idle(ms(8)));
        assert_eq!(l.transmitting_packet(ms(0)).map(|p| p.seq), Some(Seq(0)));
        // The next one, started when the first ends, waits for the first's arrival event.
        l.advance(ms(8), |_, _, _| {});
        let s = l.start_now(pkt(1), ms(8));
        assert_eq!((s.tx_end, s.arrival), (ms(16), None));
        l.advance(ms(18), |_, _, _| {});
        assert_eq!(l.deliver().1, Some(ms(26)));
        l.advance(ms(40), |_, _, _| {});
        l.settle(ms(40));
        assert_eq!((l.stats.tx_packets, l.stats.busy_ns), (2, 16_000_000));
        assert_eq!(l.packets(ms(40)).count(), 1, "the second is still propagating");
    }
}
