//! Unidirectional links: an egress queue at the sending node, a transmitter that serializes
//! one packet at a time at the link rate, and a propagation pipe. Because every packet on a
//! link has the same delay, the pipe is a FIFO: events only name the link, and the engine
//! keeps one pending arrival per link, for the head of its pipe.

use super::packet::{NodeId, Packet};
use crate::queue::EgressQueue;
use crate::sim::{Dur, Rng, Serializer, SimTime};
use crate::stats::{counters, TimeIntegral};
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

#[derive(Clone, Debug)]
pub struct Link {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: Dur,
    /// Routing cost (shortest paths minimise the sum).
    pub cost: u32,
    /// Probability that a transmitted packet is lost on the wire.
    pub loss: f64,
    pub up: bool,
    /// Bumped when the link goes down so that events for lost packets are ignored.
    pub epoch: u32,
    pub queue: EgressQueue,
    pub stats: LinkStats,
    loss_rng: Rng,
    serializer: Serializer,
    transmitting: Option<Packet>,
    pipe: VecDeque<(SimTime, Packet)>,
    busy: TimeIntegral,
}

impl Link {
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
            up: true,
            epoch: 0,
            queue,
            stats: LinkStats::default(),
            loss_rng,
            serializer: Serializer::default(),
            transmitting: None,
            pipe: VecDeque::new(),
            busy: TimeIntegral::default(),
        }
    }

    /// The packet being serialized, if any.
    pub fn transmitting_packet(&self) -> Option<&Packet> {
        self.transmitting.as_ref()
    }

    /// Starts serializing the head of the queue if the transmitter is idle. Returns the time
    /// the transmission ends.
    pub fn start_next(&mut self, now: SimTime) -> Option<SimTime> {
        if self.transmitting.is_some() || !self.up {
            return None;
        }
        let pkt = self.queue.dequeue(now)?;
        self.busy.advance(0, now.as_nanos());
        let tx = self.serializer.tx_time(pkt.size as u64 * 8, self.rate_bps);
        self.transmitting = Some(pkt);
        Some(now + tx)
    }

    /// The packet being serialized has left the transmitter. Returns the time it reaches the
    /// far end, or None if it was lost on the wire.
    pub fn finish_tx(&mut self, now: SimTime) -> Option<SimTime> {
        let pkt = self.transmitting.take().expect("tx-done without a packet");
        self.busy.advance(1, now.as_nanos());
        self.stats.busy_ns = self.busy.area;
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += pkt.size as u64;
        if self.loss > 0.0 && self.loss_rng.bernoulli(self.loss) {
            self.stats.lost_random += 1;
            return None;
        }
        let at = now + self.delay;
        self.pipe.push_back((at, pkt));
        Some(at)
    }

    /// The packet at the head of the pipe reaches the far end.
    pub fn deliver(&mut self) -> Packet {
        self.pipe.pop_front().expect("arrival without a packet").1
    }

    /// When the packet now at the head of the pipe reaches the far end.
    pub fn next_arrival(&self) -> Option<SimTime> {
        self.pipe.front().map(|p| p.0)
    }

    /// Packets propagating on the link.
    pub fn pipe_len(&self) -> usize {
        self.pipe.len()
    }

    /// Takes the link down: the packet being serialized, those propagating and those queued
    /// are lost; `lost` sees each of them.
    pub fn go_down(&mut self, now: SimTime, mut lost: impl FnMut(&Packet)) {
        if !self.up {
            return;
        }
        self.up = false;
        self.epoch = self.epoch.wrapping_add(1);
        self.stats.failures += 1;
        if let Some(p) = self.transmitting.take() {
            self.busy.advance(1, now.as_nanos());
            self.stats.busy_ns = self.busy.area;
            self.stats.lost_down += 1;
            lost(&p);
        }
        for (_, p) in self.pipe.drain(..) {
            self.stats.lost_down += 1;
            lost(&p);
        }
        self.queue.flush(now, lost);
    }

    pub fn come_up(&mut self) {
        self.up = true;
    }

    /// Packets in the transmitter and the pipe.
    pub fn in_flight(&self) -> impl Iterator<Item = &Packet> {
        self.transmitting.iter().chain(self.pipe.iter().map(|(_, p)| p))
    }

    /// Brings time integrals up to `now`.
    pub fn settle(&mut self, now: SimTime) {
        self.busy.advance(self.transmitting.is_some() as u64, now.as_nanos());
        self.stats.busy_ns = self.busy.area;
        self.queue.settle(now);
    }
}
