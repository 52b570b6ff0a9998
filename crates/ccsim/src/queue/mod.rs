//! Queue disciplines and the egress FIFO they guard.
//!
//! A discipline answers one question per arriving packet (a [`Verdict`]): admit it, signal
//! congestion early, signal it because the average is past the maximum threshold, or report
//! that there is no room. It never decides *how* congestion is signalled: that is the
//! router's [`SignalPolicy`](crate::signal::SignalPolicy). This is the split of Linux's
//! `red.h` (`DONT_MARK` / `PROB_MARK` / `HARD_MARK`) and `sch_red.c`.
//!
//! Each discipline owns its settings as a scenario writes them (its keys, their defaults,
//! their bounds) and registers itself in [`REGISTRY`]; [`spec`] says how.
//!
//! ## Where a discipline decides
//!
//! Most disciplines decide when a packet arrives (Tail Drop, the RED family, PIE, the step
//! marker): [`Aqm::on_arrival`]. CoDel decides when a packet leaves, from the time it spent
//! queued ([`Aqm::on_dequeue`], for each head packet in turn until one is sent), and FQ-CoDel
//! owns its buffer (per-flow queues, [`fq_codel`]) and runs CoDel on each. Either way the
//! verdict goes through the same signal policy. The link lets a dequeue-time discipline
//! decide at each transmission opportunity; the others keep the link's schedule fixed at
//! enqueue, with no event per transmission (see `net::link`).

pub mod adaptive;
pub mod choose;
pub mod codel;
pub mod droptail;
pub mod dualpi2;
pub mod external;
pub mod fifo;
pub mod fq_codel;
pub mod pie;
#[cfg(test)]
pub mod random_drop;
pub mod rcp;
pub mod red;
pub mod rtred;
pub mod spec;
pub mod stamping;
pub mod step;
pub mod xcp;

pub use adaptive::{AdaptiveRed, AredVariant};
pub use codel::{Codel, CodelParams};
pub use droptail::TailDrop;
pub use fifo::{EgressQueue, Limit, QueueStats};
pub use fq_codel::{FqCodel, FqCodelParams};
pub use pie::{Pie, PieParams};
pub use red::{Red, RedParams, RedState};
pub use rtred::Rtred;
pub use spec::{QueueContext, Registration, SettingError};
pub use step::StepMarker;

use crate::packet::Packet;
pub use crate::signal::Verdict;
use crate::sim::{Dur, Rng, SimTime};

/// The FIFO's occupancy as a discipline sees it when a packet arrives (before it is added)
/// or after one departs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Occupancy {
    pub packets: u32,
    pub bytes: u64,
}

/// The packet at the head of a queue as a dequeue-time discipline sees it: already taken
/// out of the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    /// Time it spent queued.
    pub sojourn: Dur,
    /// Bytes left in the queue behind it.
    pub bytes_left: u64,
}

/// A discipline's internal state for sampled series; `NaN` where it has no such notion.
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    pub avg: f64,
    pub max_p: f64,
    pub prob: f64,
}

impl Default for Probe {
    fn default() -> Self {
        Probe { avg: f64::NAN, max_p: f64::NAN, prob: f64::NAN }
    }
}

/// A packet in the buffer, with the time it was queued.
#[derive(Clone, Copy, Debug)]
pub struct Queued {
    pub pkt: Packet,
    pub enqueued_at: SimTime,
}

/// The buffer of a discipline that keeps its own (per-flow queues, as FQ-CoDel's, or one
/// queue per class, as a dual queue's): the egress queue hands it every admitted packet and
/// asks it for the next to send, as Linux's `Qdisc_ops` enqueue, dequeue and peek. The
/// egress queue keeps the counts (packets, bytes), the limit and the statistics; the
/// discipline keeps the order.
pub trait OwnBuffer {
    /// Takes an admitted packet.
    fn enqueue(&mut self, q: Queued);
    /// The buffer is over its limit with a packet just added: drops what makes room (into
    /// `out`; FQ-CoDel drops from its fattest flow).
    fn evict(&mut self, out: &mut Vec<Queued>);
    /// At a transmission opportunity: the next packet, taken out, with the discipline's
    /// verdict on it (a dequeue-time AQM's), or None if the buffer is empty.
    fn dequeue(&mut self, now: SimTime) -> Option<(Queued, Verdict)>;
    /// What became of the packet [`dequeue`](Self::dequeue) returned: it was given a signal
    /// (`signalled`), and sent (`sent`) or dropped.
    fn complete(&mut self, signalled: bool, sent: bool, size: u32);
    /// The packet [`dequeue`](Self::dequeue) would consider first, left in place.
    fn peek(&self) -> Option<&Queued>;
    /// The queued packets, in the buffer's own order.
    fn packets(&self) -> Box<dyn Iterator<Item = &Queued> + '_>;
    /// Empties the buffer (the link went down), handing each packet to `lost`.
    fn drain(&mut self, lost: &mut dyn FnMut(Queued));
}

/// The hooks a queue discipline implements. Only `on_arrival` is required.
pub trait Aqm {
    /// Called for every arriving packet before it is queued, with the occupancy it finds.
    fn on_arrival(&mut self, pkt: &Packet, occ: Occupancy, now: SimTime, rng: &mut Rng) -> Verdict;
    /// Called after every departure with the occupancy left behind, and when the buffer is
    /// emptied because the link went down.
    fn on_departure(&mut self, _occ: Occupancy, _now: SimTime) {}
    /// Called after every departure with the size of the packet that left as well (for a
    /// discipline that measures the departure rate); by default [`on_departure`](Self::on_departure).
    fn on_departure_of(&mut self, occ: Occupancy, _departed_bytes: u32, now: SimTime) {
        self.on_departure(occ, now);
    }
    /// Called after every departure with the time the packet spent queued as well (for a
    /// discipline that takes the queueing delay from timestamps); by default
    /// [`on_departure_of`](Self::on_departure_of).
    fn on_departure_waited(&mut self, occ: Occupancy, departed_bytes: u32, _waited: Dur, now: SimTime) {
        self.on_departure_of(occ, departed_bytes, now);
    }
    /// Whether the discipline decides at dequeue ([`on_dequeue`](Self::on_dequeue), or its
    /// own buffer's dequeue); the link then asks it at each transmission opportunity. A
    /// discipline with its own buffer always does.
    fn decides_at_dequeue(&self) -> bool {
        self.own_buffer_ref().is_some()
    }
    /// A dequeue-time discipline's verdict on the packet just taken from the head of the
    /// queue (`None`: the queue is empty). After a signal the queue reports what became of
    /// the packet ([`after_dequeue_signal`](Self::after_dequeue_signal)); after a drop it
    /// asks again for the next head, within the same transmission opportunity.
    fn on_dequeue(&mut self, _head: Option<Head>, _now: SimTime) -> Verdict {
        Verdict::Admit
    }
    /// The packet given a signal at dequeue was dropped (`true`) or marked and sent.
    fn after_dequeue_signal(&mut self, _dropped: bool) {}
    /// Called when an arriving packet finds no room and is dropped, after `on_arrival`.
    /// Returns true if the drop is to be counted as an overflow whatever the verdict was
    /// (ns-2's RED: a full buffer makes every drop "forced"); the action is a drop either way.
    fn on_overflow(&mut self) -> bool {
        false
    }
    /// Internal state for series and tests.
    fn probe(&self) -> Probe {
        Probe::default()
    }
    /// Work the discipline does every period on its own schedule (PIE's and DualPI2's
    /// controller updates, even when they run lazily), and the key that sets the period:
    /// the scenario's event estimate counts `duration / period` of them.
    fn update_period(&self) -> Option<(Dur, &'static str)> {
        None
    }
    /// The discipline's own buffer, if it keeps one (then it decides at dequeue too, and
    /// the egress queue's FIFO stays empty).
    fn own_buffer(&mut self) -> Option<&mut dyn OwnBuffer> {
        None
    }
    /// The same, to read.
    fn own_buffer_ref(&self) -> Option<&dyn OwnBuffer> {
        None
    }
}

/// Declares the disciplines: the [`Discipline`] enum, its dispatch, and the [`REGISTRY`] of
/// their registrations, one line per discipline (`Variant(Type) = module::REGISTRATION`).
macro_rules! disciplines {
    ($($(#[$attr:meta])* $variant:ident($ty:ty) = $registration:expr,)*) => {
        /// The disciplines ccsim knows, dispatched by a match (no trait object). Each one's
        /// state is boxed, so that every link carries 16 bytes for it whatever the
        /// discipline, and a packet through a tail-drop link (most links of a large network)
        /// reads none of it; a box of [`TailDrop`], which has no state, allocates nothing.
        #[derive(Clone, Debug)]
        pub enum Discipline {
            $($(#[$attr])* $variant(Box<$ty>),)*
            /// A plug-in (`external.rs`), found by name when no registration has it.
            External(Box<external::External>),
        }

        impl Discipline {
            pub fn as_aqm(&mut self) -> &mut dyn Aqm {
                match self {
                    $($(#[$attr])* Discipline::$variant(d) => &mut **d,)*
                    Discipline::External(d) => &mut **d,
                }
            }
            pub fn as_aqm_ref(&self) -> &dyn Aqm {
                match self {
                    $($(#[$attr])* Discipline::$variant(d) => &**d,)*
                    Discipline::External(d) => &**d,
                }
            }
            pub fn probe(&self) -> Probe {
                self.as_aqm_ref().probe()
            }
            /// Whether the link must let the discipline decide at each transmission
            /// opportunity (CoDel, FQ-CoDel).
            #[inline]
            pub fn decides_at_dequeue(&self) -> bool {
                match self {
                    $($(#[$attr])* Discipline::$variant(d) => Aqm::decides_at_dequeue(&**d),)*
                    Discipline::External(d) => Aqm::decides_at_dequeue(&**d),
                }
            }
            // The hooks every packet passes through, dispatched statically (a match the
            // compiler can inline through) rather than through `as_aqm`'s trait object.
            /// [`Aqm::on_arrival`].
            #[inline(always)]
            pub fn on_arrival(&mut self, pkt: &Packet, occ: Occupancy, now: SimTime, rng: &mut Rng) -> Verdict {
                match self {
                    $($(#[$attr])* Discipline::$variant(d) => Aqm::on_arrival(&mut **d, pkt, occ, now, rng),)*
                    Discipline::External(d) => Aqm::on_arrival(&mut **d, pkt, occ, now, rng),
                }
            }
            /// [`Aqm::own_buffer`].
            #[inline]
            pub fn own_buffer(&mut self) -> Option<&mut dyn OwnBuffer> {
                match self {
                    $($(#[$attr])* Discipline::$variant(d) => Aqm::own_buffer(&mut **d),)*
                    Discipline::External(d) => Aqm::own_buffer(&mut **d),
                }
            }
            /// [`Aqm::own_buffer_ref`].
            #[inline]
            pub fn own_buffer_ref(&self) -> Option<&dyn OwnBuffer> {
                match self {
                    $($(#[$attr])* Discipline::$variant(d) => Aqm::own_buffer_ref(&**d),)*
                    Discipline::External(d) => Aqm::own_buffer_ref(&**d),
                }
            }
            /// [`Aqm::on_overflow`].
            #[inline]
            pub fn on_overflow(&mut self) -> bool {
                match self {
                    $($(#[$attr])* Discipline::$variant(d) => Aqm::on_overflow(&mut **d),)*
                    Discipline::External(d) => Aqm::on_overflow(&mut **d),
                }
            }
            /// [`Aqm::on_departure_waited`].
            #[inline(always)]
            pub fn on_departure_waited(&mut self, occ: Occupancy, departed_bytes: u32, waited: Dur, now: SimTime) {
                match self {
                    $($(#[$attr])* Discipline::$variant(d) => Aqm::on_departure_waited(&mut **d, occ, departed_bytes, waited, now),)*
                    Discipline::External(d) => Aqm::on_departure_waited(&mut **d, occ, departed_bytes, waited, now),
                }
            }
            /// The name of the discipline: its registration's, or the plug-in's.
            pub fn name(&self) -> &str {
                match self {
                    $($(#[$attr])* Discipline::$variant(_) => $registration.name,)*
                    Discipline::External(d) => d.0.name(),
                }
            }
        }

        /// Every discipline a scenario can name, in the order messages list them.
        pub const REGISTRY: &[spec::Registration] = &[$($(#[$attr])* $registration,)*];
    };
}

disciplines! {
    TailDrop(TailDrop) = droptail::REGISTRATION,
    Red(Red) = red::REGISTRATION,
    AdaptiveRed(AdaptiveRed) = adaptive::REGISTRATION,
    Rtred(Rtred) = rtred::REGISTRATION,
    Step(StepMarker) = step::REGISTRATION,
    Pie(Pie) = pie::REGISTRATION,
    Codel(Codel) = codel::REGISTRATION,
    FqCodel(FqCodel) = fq_codel::REGISTRATION,
    DualPi2(dualpi2::DualPi2) = dualpi2::REGISTRATION,
    Xcp(xcp::Xcp) = xcp::REGISTRATION,
    Rcp(rcp::Rcp) = rcp::REGISTRATION,
    #[cfg(test)]
    RandomDrop(random_drop::RandomDrop) = random_drop::REGISTRATION,
}

/// Hand-built packets for the disciplines' tests.
#[cfg(test)]
pub(crate) mod testing {
    use crate::packet::{Endpoints, Packet, Seq};
    use crate::sim::SimTime;

    /// A TCP data packet of `bytes` on the wire (headers included).
    pub fn sized(bytes: u32) -> Packet {
        let ends = Endpoints { flow: 0, sender: 0, receiver: 1, sport: 10_000, dport: 80 };
        let mut p = Packet::tcp_data(&ends, Seq(0), 1000, 64, SimTime::ZERO);
        p.size = bytes;
        p
    }
}
