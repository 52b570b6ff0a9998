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
//! written to the socket) one propagation delay after its transmission ends.

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
    queue: VecDeque<Pkt>,
    free_at: u64,
    ser: Serializer,
    /// Packets whose transmission has ended, waiting out the propagation delay: (due, pkt).
    line: VecDeque<(u64, Pkt)>,
    rng: Rng,
    pub stats: EgressStats,
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
            queue: VecDeque::with_capacity(limit.min(4096) as usize + 1),
            free_at: 0,
            ser: Serializer::default(),
            line: VecDeque::with_capacity(1024),
            rng,
            stats: EgressStats::default(),
        }
    }

    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    /// Offers `pkt` at `now`; gives it back if the threshold refuses it.
    pub fn enqueue(&mut self, pkt: Pkt, now: u64, window: (u64, u64), freed: &mut impl FnMut(Pkt)) -> Result<(), Pkt> {
        self.advance(now, window, freed);
        if self.queue.len() >= self.limit as usize {
            self.stats.dropped += 1;
            if (window.0..window.1).contains(&now) {
                self.stats.drops_in_window += 1;
            }
            return Err(pkt);
        }
        self.stats.enqueued += 1;
        self.queue.push_back(Pkt { at: now, ..pkt });
        self.stats.max_queue = self.stats.max_queue.max(self.queue.len() as u32);
        Ok(())
    }

    /// Starts the transmissions due by `now`, in schedule order; a packet the wire loses is
    /// handed to `freed` at the end of its transmission time.
    pub fn advance(&mut self, now: u64, window: (u64, u64), freed: &mut impl FnMut(Pkt)) {
        while let Some(front) = self.queue.front() {
            let start = self.free_at.max(front.at);
            if start > now {
                break;
            }
            let pkt = self.queue.pop_front().expect("front exists");
            let bytes = wire_bytes(pkt.len);
            let tx = self.ser.tx_time(bytes * 8, self.rate_bps).0;
            self.free_at = start + tx;
            if (window.0..window.1).contains(&start) {
                self.stats.busy_ns_in_window += tx;
                self.stats.scheduled_bytes_in_window += bytes;
            }
            if self.loss > 0.0 && self.rng.bernoulli(self.loss) {
                self.stats.lost += 1;
                freed(pkt);
                continue;
            }
            self.line.push_back((self.free_at + self.delay.0, pkt));
        }
    }

    /// The packets due to leave by `now`, in order (the caller writes them to the socket).
    pub fn due(&mut self, now: u64, window: (u64, u64)) -> Option<Pkt> {
        let &(due, pkt) = self.line.front()?;
        if due > now {
            return None;
        }
        self.line.pop_front();
        let bytes = wire_bytes(pkt.len);
        self.stats.sent += 1;
        self.stats.sent_bytes += bytes;
        if (window.0..window.1).contains(&now) {
            self.stats.sent_bytes_in_window += bytes;
            self.stats.sent_in_window += 1;
            let late = now - due;
            self.stats.lateness_ns_sum += late;
            self.stats.lateness_ns_max = self.stats.lateness_ns_max.max(late);
        }
        Some(pkt)
    }

    /// When this egress next has something to do, if ever.
    pub fn next_wake(&self) -> Option<u64> {
        let start = self.queue.front().map(|p| self.free_at.max(p.at));
        let due = self.line.front().map(|&(d, _)| d);
        match (start, due) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether the transmitter has room for a packet made at this node now (the node's own
    /// senders block, as on a host whose socket buffer is full, instead of overflowing it).
    pub fn has_room(&self) -> bool {
        self.queue.len() < self.limit as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(len: u16) -> Pkt {
        Pkt { buf: 0, len, from: u32::MAX, at: 0 }
    }

    const ALL: (u64, u64) = (0, u64::MAX);

    #[test]
    fn departures_follow_the_rate_exactly_whatever_the_wake_ups() {
        // 972-byte datagrams are 1000 bytes on the wire: 800 us each at 10 Mb/s.
        let mut e = Egress::new(0, 1, 10_000_000, Dur::from_millis(5), 0.0, 100, Rng::from_seed(1));
        let mut none = |_| panic!("nothing is lost");
        for _ in 0..10 {
            e.enqueue(pkt(972), 0, ALL, &mut none).unwrap();
        }
        // Wake very late: every packet's schedule is still 800 us apart.
        e.advance(50_000_000, ALL, &mut none);
        let mut dues = vec![];
        while let Some(p) = e.due(u64::MAX, ALL) {
            dues.push(p.len);
        }
        assert_eq!(dues.len(), 10);
        assert_eq!(e.stats.busy_ns_in_window, 8_000_000);
        assert_eq!(e.free_at, 8_000_000);
    }

    #[test]
    fn a_packet_leaves_one_transmission_and_one_delay_after_it_arrives() {
        let mut e = Egress::new(0, 1, 8_000_000, Dur::from_millis(5), 0.0, 100, Rng::from_seed(1));
        let mut none = |_| panic!();
        e.enqueue(pkt(972), 1_000, ALL, &mut none).unwrap();
        e.advance(1_000, ALL, &mut none);
        assert_eq!(e.next_wake(), Some(1_000 + 1_000_000 + 5_000_000));
        assert!(e.due(6_000_999, ALL).is_none());
        assert!(e.due(6_001_000, ALL).is_some());
    }

    #[test]
    fn the_threshold_refuses_the_packet_that_would_exceed_it() {
        let mut e = Egress::new(0, 1, 1_000_000, Dur::ZERO, 0.0, 3, Rng::from_seed(1));
        let mut none = |_| panic!();
        // The first starts transmission at once and leaves the queue; three more wait.
        for i in 0..4 {
            assert!(e.enqueue(pkt(100), 0, ALL, &mut none).is_ok(), "{i}");
        }
        assert_eq!(e.queue_len(), 3);
        assert!(!e.has_room());
        assert!(e.enqueue(pkt(100), 0, ALL, &mut none).is_err());
        assert_eq!((e.stats.enqueued, e.stats.dropped), (4, 1));
    }
}
