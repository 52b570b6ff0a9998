//! A FIFO for the routers of the explicit-feedback protocols (XCP: `xcp.rs`, RCP:
//! `rcp.rs`): its discipline sees every packet arrive (its estimates) and rewrites the
//! congestion header of each as it leaves (its feedback), as ns-2.35's `XCPQueue` does in
//! `enque` and `deque`. It keeps its own buffer ([`OwnBuffer`]) because a discipline that
//! decides at arrival sees packets only to read them; the link then asks it for each packet
//! at the packet's transmission opportunity. It never signals: its buffer is tail drop, an
//! arrival over the queue's limit dropped (the egress queue counts it as an overflow).

use super::{Aqm, Occupancy, OwnBuffer, Probe, Queued, Verdict};
use crate::packet::Packet;
use crate::sim::{Rng, SimTime};
use std::collections::VecDeque;
use std::fmt::Debug;

/// A router's control law, as the FIFO drives it. Each hook first brings its periodic work
/// up to `now` (it runs lazily, on the next packet event at or after each due time: the
/// queue between two events is what the earlier one left, so the result is as if it had run
/// on time).
pub trait Stamp: Clone + Debug + 'static {
    /// A packet arrives, `queued` bytes in the buffer (before it is added; it may yet be
    /// dropped for want of room, and counts as input all the same, as in ns-2.35).
    fn on_arrival(&mut self, pkt: &Packet, queued: u64, now: SimTime);
    /// A packet leaves, `queued` bytes in the buffer with it (before it is taken off): the
    /// router writes its feedback into the packet's header.
    fn on_departure(&mut self, pkt: &mut Packet, queued: u64, now: SimTime);
    /// Internal state for series.
    fn probe(&self) -> Probe {
        Probe::default()
    }
}

/// The FIFO and its router.
#[derive(Clone, Debug)]
pub struct Stamping<S> {
    pub router: S,
    buf: VecDeque<Queued>,
    bytes: u64,
}

impl<S> Stamping<S> {
    pub fn new(router: S) -> Stamping<S> {
        Stamping { router, buf: VecDeque::new(), bytes: 0 }
    }
}

impl<S: Stamp> Aqm for Stamping<S> {
    fn on_arrival(&mut self, pkt: &Packet, _: Occupancy, now: SimTime, _: &mut Rng) -> Verdict {
        self.router.on_arrival(pkt, self.bytes, now);
        Verdict::Admit
    }
    fn probe(&self) -> Probe {
        self.router.probe()
    }
    fn own_buffer(&mut self) -> Option<&mut dyn OwnBuffer> {
        Some(self)
    }
    fn own_buffer_ref(&self) -> Option<&dyn OwnBuffer> {
        Some(self)
    }
}

impl<S: Stamp> OwnBuffer for Stamping<S> {
    fn enqueue(&mut self, q: Queued) {
        self.bytes += q.pkt.size as u64;
        self.buf.push_back(q);
    }
    /// Tail drop: the packet just added goes.
    fn evict(&mut self, out: &mut Vec<Queued>) {
        if let Some(q) = self.buf.pop_back() {
            self.bytes -= q.pkt.size as u64;
            out.push(q);
        }
    }
    fn dequeue(&mut self, now: SimTime) -> Option<(Queued, Verdict)> {
        let mut q = self.buf.pop_front()?;
        self.router.on_departure(&mut q.pkt, self.bytes, now);
        self.bytes -= q.pkt.size as u64;
        Some((q, Verdict::Admit))
    }
    fn complete(&mut self, _signalled: bool, _sent: bool, _size: u32) {}
    fn peek(&self) -> Option<&Queued> {
        self.buf.front()
    }
    fn packets(&self) -> Box<dyn Iterator<Item = &Queued> + '_> {
        Box::new(self.buf.iter())
    }
    fn drain(&mut self, lost: &mut dyn FnMut(Queued)) {
        self.buf.drain(..).for_each(lost);
        self.bytes = 0;
    }
}
