//! Queue disciplines and the egress FIFO they guard.
//!
//! A discipline answers one question per arriving packet (a [`Verdict`]): admit it, signal
//! congestion early, signal it because the average is past the maximum threshold, or report
//! that there is no room. It never decides *how* congestion is signalled: that is the
//! router's [`SignalPolicy`](crate::signal::SignalPolicy). This is the split of Linux's
//! `red.h` (`DONT_MARK` / `PROB_MARK` / `HARD_MARK`) and `sch_red.c`.

pub mod adaptive;
pub mod droptail;
pub mod fifo;
pub mod red;
pub mod rtred;

pub use adaptive::{AdaptiveRed, AredVariant};
pub use droptail::TailDrop;
pub use fifo::{EgressQueue, Limit, QueueStats};
pub use red::{Red, RedParams, RedState};
pub use rtred::Rtred;

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
    /// Called after every departure with the occupancy left behind.
    fn on_departure(&mut self, _occ: Occupancy, _now: SimTime) {}
    /// Internal state for series and tests.
    fn probe(&self) -> Probe {
        Probe::default()
    }
}

/// The disciplines ccsim knows, dispatched without dynamic allocation.
#[derive(Clone, Debug)]
pub enum Discipline {
    TailDrop(TailDrop),
    Red(Red),
    AdaptiveRed(AdaptiveRed),
    Rtred(Rtred),
}

impl Discipline {
    pub fn as_aqm(&mut self) -> &mut dyn Aqm {
        match self {
            Discipline::TailDrop(d) => d,
            Discipline::Red(d) => d,
            Discipline::AdaptiveRed(d) => d,
            Discipline::Rtred(d) => d,
        }
    }
    pub fn probe(&self) -> Probe {
        match self {
            Discipline::TailDrop(d) => d.probe(),
            Discipline::Red(d) => d.probe(),
            Discipline::AdaptiveRed(d) => d.probe(),
            Discipline::Rtred(d) => d.probe(),
        }
    }
}
