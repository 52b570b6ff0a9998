//! One node's egress onto one virtual link: the congestion-detecting socket's queue, the
//! link's transmitter (a departure schedule at the link's rate) and its propagation delay.
//!
//! The node pulls every datagram from the OS as soon as it can and puts those to forward
//! here, so queueing happens in the node, where it can be seen, and not in the OS (Faber,
//! Section 4.2.2). The queue is drop-tail with the link's `limit` (packets waiting to start
//! transmission) as its threshold; the caller gets the packet it refused, which is the
//! congestion callback.
//!
//! The transmitter is a departure schedule, not a token bucket: each packet starts when the
//! transmitter frees or when it arrived, whichever is later, and takes its size (the
//! datagram plus the 28 bytes of IPv4 and UDP header the underlying network adds) times
//! eight over the rate, with the sub-nanosecond remainder carried from one packet to the next
//! (`ccsim::sim::Serializer`, the simulator's). The schedule is computed from those times,
//! not from when the node happens to wake, so a late wake-up delays a send but never loses
//! link time: the rate holds however coarse the OS timers. A packet leaves the node (is
//! written to the socket) one propagation delay after its transmission ends. Since the
//! queue is FIFO, all three times are known when a packet is taken, so it is scheduled then
//! and the node wakes once per departure; the queue's occupancy at any time is the number
//! of packets whose transmission has not started.

use crate::pool::Pkt;
use ccsim::sim::{Dur, Rng, Serializer};
use std::collections::VecDeque;

/// Counters of one egress; those named `*_in_window` count only the measurement window.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct EgressStats {
    pub enqueued: u64,
    /// Refused by the drop-tail threshold.
    pub dropped: u64,
    /// Lost on the emulated wire (the link's `loss`).
    pub lost: u64,
    pub sent: u64,
    pub sent_bytes: u64,
    pub max_queue: u32,
    /// Transmission time scheduled for packets that started in the window, ns.
    pub busy_ns_in_window: u64,
    /// Bytes (IP size) of the packets that started transmission in the window.
    pub scheduled_bytes_in_window: u64,
    /// Bytes (IP size) written to the socket in the window, and datagrams.
    pub sent_bytes_in_window: u64,
    pub sent_in_window: u64,
    pub drops_in_window: u64,
    /// Time packets spent waiting for the transmitter within the window, summed over the
    /// packets, ns: over the window's length, the mean queue length (packets waiting).
    pub wait_ns_in_window: u64,
    /// How late sends were against the schedule (ns): sum and maximum over the window.
    pub lateness_ns_sum: u64,
    pub lateness_ns_max: u64,
}

pub struct Egress {
    pub link: u32,
    pub to: u32,
    pub rate_bps: u64,
    pub delay: Dur,
    pub loss: f64,
    pub limit: u32,
    /// Every packet not yet written to the socket, in schedule order: waiting for the
    /// transmitter, being transmitted, or propagating.
    slots: VecDeque<Slot>,
    free_at: u64,
    ser: Serializer,
    rng: Rng,
    pub stats: EgressStats,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    /// When its transmission starts.
    start: u64,
    /// When it is written to the socket (or found lost): transmission end plus delay.
    due: u64,
    pkt: Pkt,
    lost: bool,
}

/// Bytes a datagram of `len` bytes occupies on a link.
pub fn wire_bytes(len: u16) -> u64 {
    len as u64 + crate::wire::UDP_IP_OVERHEAD as u64
}

impl Egress {
    pub fn new(link: u32, to: u32, rate_bps: u64, delay: Dur, loss: f64, limit: u32, rng: Rng) -> Egress {
        Egress {
            link,
            to,
            rate_bps: rate_bps.max(1),
            delay,
            loss,
            limit,
            slots: VecDeque::with_capacity(1024),
            free_at: 0,
            ser: Serializer::default(),
            rng,
            stats: EgressStats::default(),
        }
    }

    /// Packets waiting at `now` for the transmitter (the drop-tail queue's occupancy).
    pub fn queue_len(&self, now: u64) -> usize {
        // Start times only grow along the schedule.
        self.slots.len() - self.slots.partition_point(|s| s.start <= now)
    }

    /// Offers `pkt` at `now`; gives it back if the threshold refuses it. A packet taken is
    /// scheduled at once: FIFO, the transmitter's future is known, so its start, its end
    /// and its departure from the node are fixed now, and the node need only wake when it
    /// is due to leave.
    pub fn enqueue(&mut self, pkt: Pkt, now: u64, window: (u64, u64)) -> Result<(), Pkt> {
        let waiting = self.queue_len(now);
        if waiting >= self.limit as usize {
            self.stats.dropped += 1;
            if (window.0..window.1).contains(&now) {
                self.stats.drops_in_window += 1;
            }
            return Err(pkt);
        }
        self.stats.enqueued += 1;
        let start = self.free_at.max(now);
        if start > now {
            self.stats.max_queue = self.stats.max_queue.max(waiting as u32 + 1);
        }
        let bytes = wire_bytes(pkt.len);
        let tx = self.ser.tx_time(bytes * 8, self.rate_bps).0;
        self.free_at = start + tx;
        // It waits from now to its start (both known now, the queue being FIFO).
        self.stats.wait_ns_in_window += start.min(window.1).saturating_sub(now.max(window.0));
        if (window.0..window.1).contains(&start) {
            self.stats.busy_ns_in_window += tx;
            self.stats.scheduled_bytes_in_window += bytes;
        }
        let lost = self.loss > 0.0 && self.rng.bernoulli(self.loss);
        self.slots.push_back(Slot { start, due: self.free_at + self.delay.0, pkt: Pkt { at: now, ..pkt }, lost });
        Ok(())
    }

    /// The next packet due to leave by `now`, in order: `Ok` to write to the socket,
    /// `Err` lost on the wire (the caller frees it).
    pub fn due(&mut self, now: u64, window: (u64, u64)) -> Option<Result<Pkt, Pkt>> {
        let s = *self.slots.front()?;
        if s.due > now {
            return None;
        }
        self.slots.pop_front();
        if s.lost {
            self.stats.lost += 1;
            return Some(Err(s.pkt));
        }
        let bytes = wire_bytes(s.pkt.len);
        self.stats.sent += 1;
        self.stats.sent_bytes += bytes;
        if (window.0..window.1).contains(&now) {
            self.stats.sent_bytes_in_window += bytes;
            self.stats.sent_in_window += 1;
            let late = now - s.due;
            self.stats.lateness_ns_sum += late;
            self.stats.lateness_ns_max = self.stats.lateness_ns_max.max(late);
        }
        Some(Ok(s.pkt))
    }

    /// When this egress next has something to do, if ever.
    pub fn next_wake(&self) -> Option<u64> {
        self.slots.front().map(|s| s.due)
    }

    /// Packets held (waiting, in transmission or propagating).
    pub fn held(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(len: u16) -> Pkt {
        Pkt { buf: 0, len, from: u32::MAX, at: 0 }
    }

    const ALL: (u64, u64) = (0, u64::MAX);

    fn drain(e: &mut Egress, now: u64) -> Vec<u64> {
        let mut out = vec![];
        while let Some(next) = e.next_wake().filter(|&t| t <= now) {
            e.due(now, ALL).unwrap().unwrap();
            out.push(next);
        }
        out
    }

    #[test]
    fn departures_follow_the_rate_exactly_whatever_the_wake_ups() {
        // 972-byte datagrams are 1000 bytes on the wire: 800 us each at 10 Mb/s.
        let mut e = Egress::new(0, 1, 10_000_000, Dur::from_millis(5), 0.0, 100, Rng::from_seed(1));
        for _ in 0..10 {
            e.enqueue(pkt(972), 0, ALL).unwrap();
        }
        // Wake very late: every packet's schedule is still 800 us apart.
        let dues = drain(&mut e, 50_000_000);
        assert_eq!(dues, (1..=10).map(|k| k * 800_000 + 5_000_000).collect::<Vec<_>>());
        assert_eq!(e.stats.busy_ns_in_window, 8_000_000);
        // They waited 0, 0.8, ..., 7.2 ms: 4.5 packets waiting on average over the 8 ms.
        assert_eq!(e.stats.wait_ns_in_window, 36_000_000);
        let mut w = Egress::new(0, 1, 10_000_000, Dur::ZERO, 0.0, 100, Rng::from_seed(1));
        for _ in 0..10 {
            w.enqueue(pkt(972), 0, (2_000_000, 4_000_000)).unwrap();
        }
        // Within [2, 4) ms: the first three start before 2 ms; the fourth to the tenth each
        // wait through [2, min(start, 4)): 0.4 + 1.2 + 2 + 2 + 2 + 2 + 2 ms.
        assert_eq!(w.stats.wait_ns_in_window, 11_600_000);
        assert_eq!(e.stats.lateness_ns_sum, (1..=10).map(|k| 50_000_000 - k * 800_000 - 5_000_000).sum::<u64>());
    }

    #[test]
    fn a_packet_leaves_one_transmission_and_one_delay_after_it_arrives() {
        let mut e = Egress::new(0, 1, 8_000_000, Dur::from_millis(5), 0.0, 100, Rng::from_seed(1));
        e.enqueue(pkt(972), 1_000, ALL).unwrap();
        assert_eq!(e.next_wake(), Some(1_000 + 1_000_000 + 5_000_000));
        assert!(e.due(6_000_999, ALL).is_none());
        assert!(e.due(6_001_000, ALL).is_some());
        // An idle transmitter starts the next packet when it arrives, not when it freed.
        e.enqueue(pkt(972), 20_000_000, ALL).unwrap();
        assert_eq!(e.next_wake(), Some(26_000_000));
    }

    #[test]
    fn the_threshold_refuses_the_packet_that_would_exceed_it() {
        let mut e = Egress::new(0, 1, 1_000_000, Dur::ZERO, 0.0, 3, Rng::from_seed(1));
        // The first starts transmission at once and is not waiting; three more wait.
        for i in 0..4 {
            assert!(e.enqueue(pkt(100), 0, ALL).is_ok(), "{i}");
        }
        assert_eq!(e.queue_len(0), 3);
        assert!(e.enqueue(pkt(100), 0, ALL).is_err());
        assert_eq!((e.stats.enqueued, e.stats.dropped, e.stats.max_queue), (4, 1, 3));
        // 128 bytes take 1.024 ms: by then the second has started and there is room again.
        assert_eq!(e.queue_len(1_024_000), 2);
        assert!(e.enqueue(pkt(100), 1_024_000, ALL).is_ok());
    }

    #[test]
    fn the_wire_loses_packets_at_its_rate_after_their_transmission() {
        let mut e = Egress::new(0, 1, 1_000_000_000, Dur::ZERO, 0.1, 100_000, Rng::from_seed(3));
        for _ in 0..20_000 {
            e.enqueue(pkt(100), 0, ALL).unwrap();
        }
        let mut lost = 0;
        while let Some(r) = e.due(u64::MAX, ALL) {
            lost += r.is_err() as u32;
        }
        assert!((1800..2200).contains(&lost), "{lost}");
        assert_eq!(e.stats.lost, lost as u64);
        assert_eq!(e.stats.busy_ns_in_window, 20_000 * 1024, "lost packets take their transmission time");
    }
}
