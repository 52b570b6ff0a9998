//! ACC's decisions, free of the simulator: what a congested router tells a sender, what it
//! asks an upstream filter to remove, and what a filter does with each packet of the flow.
//!
//! Inputs are the congestion state a data packet carries ([`AccState`]), its payload, the
//! time (a [`SimTime`]: nanoseconds from any origin the caller keeps) and the state kept
//! between calls; outputs are decisions. Nothing here knows of links, events or the
//! network, so the simulated router ([`super::Acc`]) and a router on real sockets call the
//! same functions.
//!
//! Units: `cwnd`, `ssthresh` and `seg` share one unit. ACC/TCP counts bytes (`seg` is the
//! dropped packet's payload, a router seeing no MSS option); a transport whose window is
//! counted in packets passes `seg = 1`.
//!
//! The rules (Faber, "Experience with Active Congestion Control", Sections 2 and 3.1; where
//! the paper is silent, the choice is marked):
//!
//! - The window TCP would choose after a loss is half the carried one, and at least two
//!   segments; `ssthresh` takes the same value (RFC 5681's reaction to a loss).
//! - Slow start: the control says *not* to slow-start (its `slow_start` is false, and cwnd =
//!   ssthresh puts the sender in congestion avoidance), whatever the carried state. Section
//!   3.1: a timeout halves the window and slow-starts, a fast retransmission halves it and
//!   does not, "because this pacing information has not been lost"; a router's drop of one
//!   packet leaves the ACK clock running as a fast retransmission does. A sender carrying
//!   `slow_start` (still opening its window, or recovering from a timeout) leaves slow start
//!   at half its window, as TCP's fast retransmission would take it out.
//! - Fast retransmission state: no control for a packet sent while its sender is in fast
//!   recovery. The sender is already halving its window for a loss in this window, which is
//!   all TCP does for one window (and the window it carries is inflated by the duplicate
//!   ACKs, not one to halve); the sender would ignore such a control, and a filter for it
//!   would discard packets of a flow that will not react. *(choice)*
//! - No control when that does not close the window (it is already two segments): TCP
//!   would not close it either. *(choice)*
//! - At most one control per flow per carried srtt, per queue; a packet that carries no
//!   RTT estimate yet (srtt 0) gets none, since the spacing could not be sized. *(choice)*
//! - An optional RTT floor (Section 3.2's remedy for low bandwidth-delay products): no
//!   control and no filter for flows whose carried srtt is below it.
//! - The filter removes what the sender would not have sent: the carried window minus the
//!   new one, in segments, unless the sender reacts first.
//! - A packet shows the sender has reacted when it carries a smaller window than the dropped
//!   packet did: between reductions a TCP window only grows. Comparing with the new window
//!   instead misses most reactions, because congestion avoidance has grown the window a
//!   little past it by the time the sender, silent until its flight has drained to the new
//!   window, sends again. *(choice)*
//! - A filter times out two carried RTTs after it starts working, unless configured
//!   otherwise. *(choice)*

use crate::packet::AccState;
use crate::sim::{Dur, SimTime};

/// The ACC settings of one congested queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MonitorConfig {
    /// Flows whose carried srtt is below this get no control (zero: every flow does).
    pub rtt_floor: Dur,
    /// How long a filter works once installed; None: two carried RTTs.
    pub filter_timeout: Option<Dur>,
}

/// What a congested router does about one dropped data packet of an ACC flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The flow's carried srtt is below the RTT floor.
    BelowFloor,
    /// No control: no RTT estimate yet, the sender is in fast recovery, a control went out
    /// less than an srtt ago, or the window cannot close further.
    Ignore,
    /// Tell the sender `state`; if `filter` is given, ask the upstream router to filter.
    Control { state: AccState, filter: Option<FilterRequest> },
}

/// What an upstream filter is asked to do for one flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilterRequest {
    /// The window the dropped packet carried: a packet carrying less shows the sender reacted.
    pub carried: u32,
    /// Packets to discard.
    pub remaining: u32,
    /// How long the filter works once it is in place.
    pub lifetime: Dur,
}

/// The monitor's decision for a data packet carrying `carried`, with `seg` its payload, that
/// a queue configured with `cfg` dropped at `now`; `last_control` is when this queue last
/// sent the flow a control.
pub fn on_drop(cfg: &MonitorConfig, carried: &AccState, seg: u32, last_control: Option<SimTime>, now: SimTime) -> Decision {
    let srtt = Dur::from_micros(carried.srtt_us as u64);
    if srtt < cfg.rtt_floor {
        return Decision::BelowFloor;
    }
    if srtt == Dur::ZERO || carried.fast_recovery || last_control.is_some_and(|t| now < t + srtt) {
        return Decision::Ignore;
    }
    let seg = seg.max(1);
    let cwnd = (carried.cwnd / 2).max(2 * seg);
    if cwnd >= carried.cwnd {
        return Decision::Ignore;
    }
    let state = AccState { cwnd, ssthresh: cwnd, srtt_us: carried.srtt_us, slow_start: false, fast_recovery: false };
    let remaining = (carried.cwnd - cwnd) / seg;
    let filter = (remaining > 0).then(|| FilterRequest { carried: carried.cwnd, remaining, lifetime: cfg.filter_timeout.unwrap_or(srtt.saturating_mul(2)) });
    Decision::Control { state, filter }
}

/// A filter at work on one flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilterState {
    /// When it starts working (the request's arrival).
    pub from: SimTime,
    pub until: SimTime,
    pub carried: u32,
    pub remaining: u32,
}

impl FilterState {
    /// The filter `req` asks for, starting to work at `from`.
    pub fn new(req: &FilterRequest, from: SimTime) -> FilterState {
        FilterState { from, until: from + req.lifetime, carried: req.carried, remaining: req.remaining }
    }

    /// Whether it is working at `now` (installed, not expired).
    pub fn active(&self, now: SimTime) -> bool {
        self.from <= now && now < self.until
    }
}

/// Why a filter ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterEnd {
    /// It discarded its count of packets.
    Count,
    /// A packet showed the sender had reduced its window.
    Behaviour,
    Timeout,
}

/// What a filter does with one data packet of its flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilterVerdict {
    pub discard: bool,
    /// The filter ends with this packet.
    pub ended: Option<FilterEnd>,
}

/// A data packet carrying window `cwnd` meets the filter `f` (installed by `now`).
pub fn filter(f: &mut FilterState, cwnd: u32, now: SimTime) -> FilterVerdict {
    if now >= f.until {
        return FilterVerdict { discard: false, ended: Some(FilterEnd::Timeout) };
    }
    if cwnd < f.carried {
        return FilterVerdict { discard: false, ended: Some(FilterEnd::Behaviour) };
    }
    f.remaining = f.remaining.saturating_sub(1);
    FilterVerdict { discard: true, ended: (f.remaining == 0).then_some(FilterEnd::Count) }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEG: u32 = 1000;

    fn carried(segs: u32, srtt_ms: u32) -> AccState {
        AccState { cwnd: segs * SEG, ssthresh: u32::MAX, srtt_us: srtt_ms * 1000, ..AccState::default() }
    }

    fn ms(t: u64) -> SimTime {
        SimTime::ZERO + Dur::from_millis(t)
    }

    #[test]
    fn control_halves_the_window_and_filters_the_difference() {
        let d = on_drop(&MonitorConfig::default(), &carried(20, 100), SEG, None, ms(0));
        let Decision::Control { state, filter: Some(f) } = d else { panic!("{d:?}") };
        assert_eq!((state.cwnd, state.ssthresh, state.slow_start), (10 * SEG, 10 * SEG, false));
        assert_eq!((f.carried, f.remaining, f.lifetime), (20 * SEG, 10, Dur::from_millis(200)));
    }

    #[test]
    fn control_leaves_slow_start_and_none_goes_to_a_sender_in_fast_recovery() {
        let cfg = MonitorConfig::default();
        let slow = AccState { slow_start: true, ssthresh: 64 * SEG, ..carried(16, 100) };
        let Decision::Control { state, .. } = on_drop(&cfg, &slow, SEG, None, ms(0)) else { panic!() };
        assert_eq!((state.cwnd, state.ssthresh, state.slow_start, state.fast_recovery), (8 * SEG, 8 * SEG, false, false));
        let recovering = AccState { fast_recovery: true, ..carried(16, 100) };
        assert_eq!(on_drop(&cfg, &recovering, SEG, None, ms(0)), Decision::Ignore);
    }

    #[test]
    fn at_least_two_segments_and_no_control_at_two() {
        let Decision::Control { state, filter } = on_drop(&MonitorConfig::default(), &carried(3, 100), SEG, None, ms(0)) else { panic!() };
        assert_eq!((state.cwnd, filter.map(|f| f.remaining)), (2 * SEG, Some(1)));
        assert_eq!(on_drop(&MonitorConfig::default(), &carried(2, 100), SEG, None, ms(0)), Decision::Ignore);
    }

    #[test]
    fn one_control_per_carried_rtt() {
        let cfg = MonitorConfig::default();
        assert_eq!(on_drop(&cfg, &carried(20, 100), SEG, Some(ms(0)), ms(99)), Decision::Ignore);
        assert!(matches!(on_drop(&cfg, &carried(20, 100), SEG, Some(ms(0)), ms(100)), Decision::Control { .. }));
        assert_eq!(on_drop(&cfg, &carried(20, 0), SEG, None, ms(0)), Decision::Ignore, "no RTT estimate");
    }

    #[test]
    fn rtt_floor_and_configured_lifetime() {
        let cfg = MonitorConfig { rtt_floor: Dur::from_millis(50), filter_timeout: Some(Dur::from_millis(30)) };
        assert_eq!(on_drop(&cfg, &carried(20, 49), SEG, None, ms(0)), Decision::BelowFloor);
        let Decision::Control { filter: Some(f), .. } = on_drop(&cfg, &carried(20, 50), SEG, None, ms(0)) else { panic!() };
        assert_eq!(f.lifetime, Dur::from_millis(30));
    }

    #[test]
    fn packet_counted_windows_use_a_segment_of_one() {
        let s = AccState { cwnd: 9, ssthresh: 100, srtt_us: 100_000, ..AccState::default() };
        let Decision::Control { state, filter: Some(f) } = on_drop(&MonitorConfig::default(), &s, 1, None, ms(0)) else { panic!() };
        assert_eq!((state.cwnd, f.remaining), (4, 5));
    }

    #[test]
    fn filter_discards_its_count_then_ends() {
        let req = FilterRequest { carried: 6 * SEG, remaining: 2, lifetime: Dur::from_millis(100) };
        let mut f = FilterState::new(&req, ms(5));
        assert!(!f.active(ms(4)) && f.active(ms(5)));
        assert_eq!(filter(&mut f, 6 * SEG, ms(6)), FilterVerdict { discard: true, ended: None });
        assert_eq!(filter(&mut f, 7 * SEG, ms(7)), FilterVerdict { discard: true, ended: Some(FilterEnd::Count) });
    }

    #[test]
    fn filter_ends_on_a_reaction_or_a_timeout_and_lets_that_packet_pass() {
        let req = FilterRequest { carried: 40 * SEG, remaining: 20, lifetime: Dur::from_millis(30) };
        let mut f = FilterState::new(&req, ms(5));
        assert_eq!(filter(&mut f, 21 * SEG, ms(6)), FilterVerdict { discard: false, ended: Some(FilterEnd::Behaviour) });
        let mut f = FilterState::new(&req, ms(5));
        assert_eq!(filter(&mut f, 40 * SEG, ms(35)), FilterVerdict { discard: false, ended: Some(FilterEnd::Timeout) });
    }
}
