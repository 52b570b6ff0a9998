//! Reno (RFC 5681) and NewReno (RFC 6582): the [`Window`]'s rules, unchanged. One controller
//! serves both; their registrations pair it with its loss recovery and its exit from
//! recovery (`cc/mod.rs`, "Where Reno and NewReno differ"):
//!
//! - `reno`: RFC 5681's recovery (any new ACK ends it) and exit, `cwnd = ssthresh` (step 6).
//!   `tcp.full_ack` is refused: the exit is RFC 5681's.
//! - `newreno` (the default variant): RFC 6582's recovery (partial ACKs deflate the window and
//!   retransmit the next hole) and exit, `tcp.full_ack` (option (1) by default).
//!
//! Neither has keys of its own: the window's rules are the keys every variant shares
//! (`tcp.ssthresh_from`, `tcp.ca_increase`, `tcp.full_ack`).

use super::spec::{CcContext, EcnUse, Recovery, Registration};
use super::{Ack, CcConfig, Controller, Event, FullAck, NewRenoConfig, Signal, Window};
use crate::settings::table::{SettingError, Table};

/// The window of Reno or NewReno.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reno {
    w: Window,
}

impl NewRenoConfig {
    /// A Reno window of `init_cwnd` segments of `mss` bytes, threshold `init_ssthresh` bytes.
    pub fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> Reno {
        Reno { w: self.window(mss, init_cwnd, init_ssthresh) }
    }
}

impl Controller for Reno {
    fn window(&self) -> &Window {
        &self.w
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    fn on_ack(&mut self, ack: &Ack) {
        self.w.grow(ack);
    }

    fn reduce(&mut self, ev: &Event, _signal: Signal) -> u32 {
        self.w.reduce(ev)
    }
}

/// `tcp.variant = "reno"`.
pub const RENO: Registration = Registration { name: "reno", recovery: Recovery::Reno, ecn: EcnUse::Optional, keys: Vec::new, build: build_reno };

/// `tcp.variant = "newreno"`.
pub const NEWRENO: Registration = Registration { name: "newreno", recovery: Recovery::NewReno, ecn: EcnUse::Optional, keys: Vec::new, build: build_newreno };

fn build_reno(_: &Table, ctx: &CcContext) -> Result<CcConfig, SettingError> {
    if ctx.full_ack_given {
        return Err(SettingError::new("full_ack", "not for `variant = \"reno\"` (Reno leaves recovery with cwnd = ssthresh)"));
    }
    Ok(CcConfig::Reno(NewRenoConfig { full_ack: FullAck::Ssthresh, ..ctx.window.clone() }))
}

fn build_newreno(_: &Table, ctx: &CcContext) -> Result<CcConfig, SettingError> {
    Ok(CcConfig::Reno(ctx.window.clone()))
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{RenoConfig, SsthreshFrom};
    use super::*;

    /// Reno's window: RFC 5681's rules and exit.
    fn reno(cwnd_segs: u32, ssthresh: u32) -> Reno {
        NewRenoConfig { full_ack: FullAck::Ssthresh, ..NewRenoConfig::default() }.build(MSS, cwnd_segs, ssthresh)
    }

    #[test]
    fn slow_start_adds_the_bytes_acknowledged_up_to_one_mss_per_ack() {
        let mut r = reno(1, u32::MAX / 2);
        r.on_ack(&ack(MSS, 0));
        assert_eq!(r.cwnd(), 2 * MSS);
        r.on_ack(&ack(MSS / 2, 0));
        assert_eq!(r.cwnd(), 2 * MSS + MSS / 2, "a short ACK adds what it acknowledges");
        r.on_ack(&ack(3 * MSS, 0));
        assert_eq!(r.cwnd(), 3 * MSS + MSS / 2, "a stretch ACK adds one MSS (no ABC)");
        // Doubling per round trip: a window of w segments acknowledged one by one.
        let mut r = reno(4, u32::MAX / 2);
        for _ in 0..4 {
            r.on_ack(&ack(MSS, 0));
        }
        assert_eq!(r.cwnd(), 8 * MSS);
    }

    #[test]
    fn congestion_avoidance_adds_about_one_mss_per_window() {
        let mut r = reno(10, 5 * MSS);
        let start = r.cwnd();
        for _ in 0..10 {
            r.on_ack(&ack(MSS, 10 * MSS));
        }
        let grown = r.cwnd() - start;
        // Each ACK adds MSS^2 / cwnd with cwnd growing meanwhile: just under one MSS.
        assert!((950..=MSS).contains(&grown), "grew {grown} bytes over a window");
        // The increment is MSS^2 / cwnd exactly, and at least one byte for huge windows.
        let mut r = reno(8, 0);
        r.on_ack(&ack(MSS, 0));
        assert_eq!(r.cwnd(), 8 * MSS + MSS / 8);
        let mut r = reno(2_000_000, 0);
        r.on_ack(&ack(MSS, 0));
        assert_eq!(r.cwnd(), 2_000_000 * MSS + 1);
    }

    #[test]
    fn no_growth_on_ecn_echo_or_when_the_window_did_not_limit() {
        let mut r = reno(4, u32::MAX / 2);
        r.on_ack(&Ack { ece: true, ..ack(MSS, 0) });
        r.on_ack(&Ack { cwnd_limited: false, ..ack(MSS, 0) });
        assert_eq!(r.cwnd(), 4 * MSS);
    }

    #[test]
    fn fast_retransmit_halves_the_flight_then_inflates_by_the_duplicates() {
        let mut r = reno(20, u32::MAX / 2);
        r.on_fast_retransmit(&event(17 * MSS, 3));
        assert_eq!((r.cwnd(), r.ssthresh()), (20 * MSS, 8 * MSS + MSS / 2), "step 2: ssthresh = FlightSize / 2, cwnd not yet");
        r.on_recovery_start(&event(17 * MSS, 3));
        assert_eq!(r.cwnd(), 8 * MSS + MSS / 2 + 3 * MSS, "step 3: ssthresh + 3 MSS");
        r.on_recovery_dupack(&event(17 * MSS, 4));
        r.on_recovery_dupack(&event(17 * MSS, 5));
        assert_eq!(r.cwnd(), 8 * MSS + MSS / 2 + 5 * MSS, "step 4: one MSS per further duplicate");
    }

    #[test]
    fn sack_recovery_starts_with_cwnd_equal_to_ssthresh() {
        // RFC 6675 (4.2): ssthresh = cwnd = FlightSize / 2, and no inflation.
        let mut r = reno(20, u32::MAX / 2);
        r.on_fast_retransmit(&event(17 * MSS, 3));
        r.on_sack_recovery_start(&event(17 * MSS, 3));
        assert_eq!((r.cwnd(), r.ssthresh()), (8 * MSS + MSS / 2, 8 * MSS + MSS / 2));
        r.on_recovery_end(&ack(MSS, 10 * MSS));
        assert_eq!(r.cwnd(), 8 * MSS + MSS / 2);
        // ns-2's rule: the unrounded half window, ssthresh in whole segments.
        let rules = RenoConfig { ssthresh_from: SsthreshFrom::Window, ..RenoConfig::default() };
        let mut r = NewRenoConfig { reno: rules, full_ack: FullAck::Ssthresh }.build(MSS, 17, u32::MAX / 2);
        r.on_fast_retransmit(&event(17 * MSS, 3));
        r.on_sack_recovery_start(&event(17 * MSS, 3));
        assert_eq!((r.cwnd(), r.ssthresh()), (8 * MSS + MSS / 2, 8 * MSS));
    }

    #[test]
    fn ssthresh_is_half_the_flight_but_at_least_two_segments() {
        // RFC 5681 eq. (4): half the FlightSize, not half the (possibly larger) cwnd.
        for (flight, expected) in [(30 * MSS, 15 * MSS), (5 * MSS, 2 * MSS + MSS / 2), (3 * MSS, 2 * MSS), (MSS, 2 * MSS), (0, 2 * MSS)] {
            let mut r = reno(40, u32::MAX / 2);
            r.on_fast_retransmit(&event(flight, 3));
            assert_eq!(r.ssthresh(), expected, "fast retransmit, FlightSize {flight}");
            let mut r = reno(40, u32::MAX / 2);
            r.on_timeout(&event(flight, 0));
            assert_eq!(r.ssthresh(), expected, "timeout, FlightSize {flight}");
            let mut r = reno(40, u32::MAX / 2);
            r.on_ecn_echo(&event(flight, 0));
            assert_eq!(r.ssthresh(), expected, "ECN-Echo, FlightSize {flight}");
        }
    }

    #[test]
    fn byte_counting_grows_on_delayed_acks_as_on_one_ack_per_segment() {
        // A delayed ACK for every second segment. RFC 5681 counts ACKs: slow start adds one
        // SMSS per ACK (1.5 times the window per round trip) and congestion avoidance half a
        // segment per round trip. Counting the segments acknowledged, as Linux does, slow
        // start doubles the window and avoidance adds one segment per round trip.
        let round = |r: &mut Reno| {
            let segments = r.cwnd() / MSS;
            for i in (0..segments).step_by(2) {
                r.on_ack(&ack(MSS * (segments - i).min(2), r.cwnd()));
            }
        };
        let counting = RenoConfig { byte_counting: true, ..RenoConfig::default() };
        let mut per_ack = reno(10, 40 * MSS);
        let mut per_segment = NewRenoConfig { reno: counting.clone(), full_ack: FullAck::MinFlight }.build(MSS, 10, 40 * MSS);
        round(&mut per_ack);
        round(&mut per_segment);
        assert_eq!((per_ack.cwnd(), per_segment.cwnd()), (15 * MSS, 20 * MSS), "slow start");
        // Slow start stops at ssthresh; what an ACK acknowledges beyond it goes to avoidance.
        let mut r = NewRenoConfig { reno: counting.clone(), full_ack: FullAck::MinFlight }.build(MSS, 39, 40 * MSS);
        r.on_ack(&ack(2 * MSS, 39 * MSS));
        assert_eq!(r.cwnd(), 40 * MSS + MSS / 40, "one segment to reach ssthresh, one at 1/40");
        let (mut per_ack, mut per_segment) = (reno(40, 10 * MSS), NewRenoConfig { reno: counting, full_ack: FullAck::MinFlight }.build(MSS, 40, 10 * MSS));
        for _ in 0..10 {
            round(&mut per_ack);
            round(&mut per_segment);
        }
        // From 40 segments over ten round trips (a little under the round numbers: the window
        // grows during each round, so each acknowledged segment adds a little less).
        let segments = |r: &Reno| r.cwnd() as f64 / MSS as f64;
        assert!((segments(&per_segment) - 50.0).abs() < 0.5, "a segment per round trip: {}", segments(&per_segment));
        assert!((segments(&per_ack) - 45.0).abs() < 0.5, "half a segment per round trip: {}", segments(&per_ack));
    }

    #[test]
    fn linux_halves_the_window_whatever_is_in_flight() {
        // Sixty segments outstanding (most of them SACKed above a hole) under a window of 20:
        // RFC 5681 halves the FlightSize, Linux's tcp_reno_ssthresh() the window.
        let rules = RenoConfig { ssthresh_from: SsthreshFrom::Cwnd, ..RenoConfig::default() };
        let linux = || NewRenoConfig { reno: rules.clone(), full_ack: FullAck::Ssthresh }.build(MSS, 20, u32::MAX / 2);
        let mut r = linux();
        r.on_fast_retransmit(&event(60 * MSS, 3));
        r.on_sack_recovery_start(&event(60 * MSS, 3));
        assert_eq!((r.cwnd(), r.ssthresh()), (10 * MSS, 10 * MSS));
        let mut r = linux();
        r.on_timeout(&event(60 * MSS, 0));
        assert_eq!((r.cwnd(), r.ssthresh()), (MSS, 10 * MSS));
        let mut r = reno(20, u32::MAX / 2);
        r.on_fast_retransmit(&event(60 * MSS, 3));
        assert_eq!(r.ssthresh(), 30 * MSS);
    }

    #[test]
    fn recovery_ends_with_cwnd_equal_to_ssthresh() {
        let mut r = reno(20, u32::MAX / 2);
        r.on_fast_retransmit(&event(20 * MSS, 3));
        r.on_recovery_start(&event(20 * MSS, 3));
        for d in 4..10 {
            r.on_recovery_dupack(&event(20 * MSS, d));
        }
        r.on_recovery_end(&ack(MSS, 19 * MSS));
        assert_eq!((r.cwnd(), r.ssthresh()), (10 * MSS, 10 * MSS), "RFC 5681 step 6, whatever the flight");
    }

    #[test]
    fn timeout_sets_the_loss_window_and_keeps_ssthresh_on_backoffs() {
        let mut r = reno(20, u32::MAX / 2);
        r.on_timeout(&event(16 * MSS, 0));
        assert_eq!((r.cwnd(), r.ssthresh()), (MSS, 8 * MSS));
        r.on_timeout(&Event { backoffs: 1, ..event(16 * MSS, 0) });
        assert_eq!((r.cwnd(), r.ssthresh()), (MSS, 8 * MSS), "a backoff is not a new congestion event");
        // Slow start again up to ssthresh, then congestion avoidance.
        for _ in 0..7 {
            r.on_ack(&ack(MSS, 0));
        }
        assert_eq!(r.cwnd(), 8 * MSS);
        r.on_ack(&ack(MSS, 0));
        assert_eq!(r.cwnd(), 8 * MSS + MSS / 8);
    }

    #[test]
    fn ecn_echo_never_opens_the_window() {
        let mut r = reno(4, u32::MAX / 2);
        r.on_ecn_echo(&event(20 * MSS, 0)); // a flight larger than cwnd (after an ACC cut, say)
        assert_eq!((r.cwnd(), r.ssthresh()), (4 * MSS, 10 * MSS));
        r.on_ecn_echo(&event(4 * MSS, 0));
        assert_eq!((r.cwnd(), r.ssthresh()), (2 * MSS, 2 * MSS));
    }

    #[test]
    fn a_loss_after_an_ecn_echo_recovers_without_a_second_cut() {
        let mut r = reno(20, u32::MAX / 2);
        r.on_ecn_echo(&event(20 * MSS, 0));
        assert_eq!((r.cwnd(), r.ssthresh()), (10 * MSS, 10 * MSS));
        r.on_loss_in_answered_window(&event(20 * MSS, 3));
        assert_eq!((r.cwnd(), r.ssthresh()), (13 * MSS, 10 * MSS), "inflated by the duplicates, not halved");
        r.on_recovery_dupack(&event(20 * MSS, 4));
        r.on_recovery_end(&ack(MSS, 10 * MSS));
        assert_eq!((r.cwnd(), r.ssthresh()), (10 * MSS, 10 * MSS), "leaves with the window the echo left");
    }

    #[test]
    fn acc_control_sets_the_routers_window_with_floors() {
        let mut r = reno(20, u32::MAX / 2);
        r.on_acc_control(&event(20 * MSS, 0), 6 * MSS, 5 * MSS);
        assert_eq!((r.cwnd(), r.ssthresh()), (6 * MSS, 5 * MSS));
        r.on_acc_control(&event(6 * MSS, 0), 10, 10);
        assert_eq!((r.cwnd(), r.ssthresh()), (MSS, 2 * MSS), "one segment, and a threshold of two");
    }

    /// A NewReno window in fast recovery after a fast retransmit with 20 segments in flight:
    /// ssthresh 10 segments, cwnd 13.
    fn recovering() -> Reno {
        let mut n = NewRenoConfig::default().build(MSS, 20, u32::MAX / 2);
        n.on_fast_retransmit(&event(20 * MSS, 3));
        n.on_recovery_start(&event(20 * MSS, 3));
        assert_eq!((n.cwnd(), n.ssthresh()), (13 * MSS, 10 * MSS));
        n
    }

    #[test]
    fn partial_ack_deflates_by_the_bytes_acknowledged_and_adds_back_one_mss() {
        let mut n = recovering();
        n.on_partial_ack(&ack(4 * MSS, 15 * MSS));
        assert_eq!(n.cwnd(), 13 * MSS - 4 * MSS + MSS);
        // Less than one MSS acknowledged: nothing added back.
        n.on_partial_ack(&ack(MSS / 2, 15 * MSS));
        assert_eq!(n.cwnd(), 10 * MSS - MSS / 2);
        // Exactly one MSS: deflate and add back, no change.
        n.on_partial_ack(&ack(MSS, 14 * MSS));
        assert_eq!(n.cwnd(), 10 * MSS - MSS / 2);
        // A partial ACK of more than the window leaves one MSS.
        n.on_partial_ack(&ack(30 * MSS, 2 * MSS));
        assert_eq!(n.cwnd(), MSS);
        assert_eq!(n.ssthresh(), 10 * MSS, "deflation leaves ssthresh alone");
    }

    #[test]
    fn deflation_leaves_about_ssthresh_in_the_network() {
        // Segments 0 and 8 of a window of 20 are lost: 18 duplicates come back, 3 start
        // recovery and 15 inflate the window.
        let mut n = recovering();
        for d in 4..=18 {
            n.on_recovery_dupack(&event(20 * MSS, d));
        }
        assert_eq!(n.cwnd(), 28 * MSS, "inflated by every duplicate");
        // The retransmission of segment 0 is acknowledged up to the second hole.
        n.on_partial_ack(&ack(8 * MSS, 20 * MSS));
        assert_eq!(n.cwnd(), 21 * MSS);
        // Of that window, the 11 segments above the second hole sit in the receiver's
        // buffer: what the network may hold is ssthresh.
        assert_eq!(n.cwnd() - 11 * MSS, n.ssthresh());
    }

    #[test]
    fn full_ack_exit_is_min_of_ssthresh_and_flight_plus_one_mss() {
        // Much in flight (new data sent during recovery): cwnd = ssthresh.
        let mut n = recovering();
        n.on_recovery_end(&ack(10 * MSS, 12 * MSS));
        assert_eq!(n.cwnd(), 10 * MSS);
        // Little in flight: FlightSize + MSS, no burst on leaving recovery.
        let mut n = recovering();
        n.on_recovery_end(&ack(19 * MSS, 3 * MSS));
        assert_eq!(n.cwnd(), 4 * MSS);
        // Nothing in flight: max(FlightSize, SMSS) + SMSS = two segments.
        let mut n = recovering();
        n.on_recovery_end(&ack(20 * MSS, 0));
        assert_eq!(n.cwnd(), 2 * MSS);
        assert_eq!(n.ssthresh(), 10 * MSS);
    }
}
