//! Queue disciplines and the egress FIFO they guard.
//!
//! A discipline answers one question per arriving packet (a [`Verdict`]): admit it, signal
//! congestion early, signal it because the average is past the maximum threshold, or report
//! that there is no room. It never decides *how* congestion is signalled: that is the
//! router's [`SignalPolicy`](crate::signal::SignalPolicy). This is the split of Linux's
//! `red.h` (`DONT_MARK` / `PROB_MARK` / `HARD_MARK`) and `sch_red.c`.
//!
//! Each discipline owns its settings as a scenario writes them (its keys, their defaults,
//! their bounds) and registers itself in [`REGISTRY`]; [`spec`] says how, and how the
//! disciplines still to come (step marking, PIE, CoDel, FQ-CoDel) fit.

pub mod adaptive;
pub mod droptail;
pub mod fifo;
pub mod red;
pub mod rtred;
pub mod spec;

pub use adaptive::{AdaptiveRed, AredVariant};
pub use droptail::TailDrop;
pub use fifo::{EgressQueue, Limit, QueueStats};
pub use red::{Red, RedParams, RedState};
pub use rtred::Rtred;
pub use spec::{QueueContext, Registration, SettingError};

use crate::sim::{Rng, SimTime};

/// A discipline's answer for one arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No congestion signal.
    Admit,
    /// A probabilistic early signal (RED's drop/mark with probability p_a).
    Early,
    /// A forced signal: the average queue is past the point where every arrival is signalled.
    Forced,
    /// An early signal that must drop the packet even where the policy would mark it: ns-2's
    /// RED (`use_mark_p_`) drops rather than marks once `p_b` exceeds `mark_p`, and counts the
    /// drop as early (see `red.rs`).
    EarlyDrop,
    /// The buffer is full (decided by the FIFO's hard limit, not by the discipline).
    Overflow,
}

/// The FIFO's occupancy as a discipline sees it when a packet arrives (before it is added)
/// or after one departs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Occupancy {
    pub packets: u32,
    pub bytes: u64,
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

/// The hooks a queue discipline implements. Only `on_arrival` is required.
pub trait Aqm {
    /// Called for every arriving packet before it is queued.
    fn on_arrival(&mut self, occ: Occupancy, pkt_bytes: u32, now: SimTime, rng: &mut Rng) -> Verdict;
    /// Called after every departure (the start of the packet's transmission) with the
    /// occupancy left behind and the departing packet's size (0 when the buffer is
    /// flushed).
    fn on_departure(&mut self, _occ: Occupancy, _pkt_bytes: u32, _now: SimTime) {}
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
}

/// Declares the disciplines: the [`Discipline`] enum, its dispatch, and the [`REGISTRY`] of
/// their registrations, one line per discipline (`Variant(Type) = module::REGISTRATION`).
macro_rules! disciplines {
    ($($variant:ident($ty:ty) = $registration:expr,)*) => {
        /// The disciplines ccsim knows, dispatched without dynamic allocation.
        #[derive(Clone, Debug)]
        pub enum Discipline {
            $($variant($ty),)*
        }

        impl Discipline {
            pub fn as_aqm(&mut self) -> &mut dyn Aqm {
                match self {
                    $(Discipline::$variant(d) => d,)*
                }
            }
            pub fn probe(&self) -> Probe {
                match self {
                    $(Discipline::$variant(d) => d.probe(),)*
                }
            }
        }

        /// Every discipline a scenario can name, in the order messages list them.
        pub const REGISTRY: &[spec::Registration] = &[$($registration,)*];
    };
}

disciplines! {
    TailDrop(TailDrop) = droptail::REGISTRATION,
    Red(Red) = red::REGISTRATION,
    AdaptiveRed(AdaptiveRed) = adaptive::REGISTRATION,
    Rtred(Rtred) = rtred::REGISTRATION,
}
