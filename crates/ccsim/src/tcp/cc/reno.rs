//! Reno's window arithmetic (RFC 5681), with the reactions to ECN-Echo (RFC 3168) and to
//! ACC control messages (Faber, "Experience with Active Congestion Control", Section 3.1).
//!
//! Rule by rule:
//!
//! - Slow start (RFC 5681 3.1, eq. (2)): while `cwnd < ssthresh`, each ACK of new data adds
//!   `min(N, SMSS)`, N the bytes it acknowledges.
//! - Congestion avoidance (eq. (3)): otherwise each ACK adds `SMSS * SMSS / cwnd`, at least
//!   one byte, which is about one SMSS per window of data; rounded down to whole bytes, or
//!   exactly with the fraction carried over ([`RenoConfig::exact_increase`]).
//! - Neither on an ACK carrying ECN-Echo (RFC 3168 6.1.2: "the congestion window [...]
//!   should not be increased"), nor when the window did not limit sending (the ACK's
//!   `cwnd_limited`).
//! - Fast retransmit (3.2 steps 2 and 3): `ssthresh = max(FlightSize / 2, 2 * SMSS)`
//!   (eq. (4)), then, once the segment is retransmitted, `cwnd = ssthresh + 3 * SMSS`: the
//!   duplicates that triggered it stand for segments that left the network.
//! - Fast recovery (step 4): each further duplicate adds one SMSS; the ACK of new data that
//!   ends it sets `cwnd = ssthresh` (step 6).
//! - SACK loss recovery (RFC 6675 section 5 step (4.2)): "ssthresh = cwnd = (FlightSize /
//!   2)": ssthresh as for a fast retransmit, then `cwnd` = the reduced window, without the
//!   duplicates' inflation, which pipe replaces.
//! - Retransmission timeout (3.1): eq. (4) on the first timeout of a segment, not on later
//!   backoffs; `cwnd` = the loss window, one SMSS.
//! - ECN-Echo (RFC 3168 6.1.2): as for a loss, without the loss: eq. (4), and `cwnd` no
//!   larger than the new `ssthresh`. A loss in the window it answered starts fast recovery
//!   from the window it left, without a second reduction (6.1.2: once per window "for a
//!   series of dropped and/or CE packets").
//! - ACC control: the router's window, at least one SMSS, and its threshold, at least two.
//!
//! What a reduction halves is [`RenoConfig::ssthresh_from`]. [`SsthreshFrom::Flight`] is RFC
//! 5681's rule above. [`SsthreshFrom::Window`] is ns-2.35's (`tcp.cc`, `slowdown()` with
//! `precisionReduce_`, the default): half of `window()`, the smaller of cwnd and the
//! receiver's window, where during fast recovery cwnd is the window without the duplicates'
//! inflation (ns-2 keeps the inflation apart, in `dupwnd_`); ssthresh is that half rounded
//! down to whole segments (ns-2's `ssthresh_` is an integer number of packets), at least two,
//! and the window after a fast retransmit or an ECN-Echo is the unrounded half, which is also
//! what fast recovery inflates and what it leaves with. A timeout sets ssthresh so at every
//! expiry, backoffs included: after a second expiry ssthresh is two segments (ns-2's
//! `TcpAgent::timeout` calls `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)` each time).

use super::{Ack, Controller, Event};

/// What a congestion event halves to set ssthresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsthreshFrom {
    /// RFC 5681 eq. (4): `max(FlightSize / 2, 2 * SMSS)`; a timeout sets it only on the first
    /// expiry for a segment.
    Flight,
    /// ns-2.35: half of `min(cwnd, rwnd)` in whole segments, at every reduction and every
    /// timeout expiry.
    Window,
}

/// Reno's parameters, in segments of the connection's MSS. The defaults are RFC 5681's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenoConfig {
    /// The smallest ssthresh a congestion event may set: RFC 5681 eq. (4),
    /// `ssthresh = max(FlightSize / 2, 2 * SMSS)`. Default 2.
    pub min_ssthresh: u32,
    /// The loss window LW, cwnd after a retransmission timeout: "one full-sized segment"
    /// (RFC 5681 3.1). Default 1.
    pub loss_window: u32,
    /// What a reduction halves: default [`SsthreshFrom::Flight`] (RFC 5681).
    pub ssthresh_from: SsthreshFrom,
    /// Congestion avoidance adds `SMSS * SMSS / cwnd` exactly, carrying the fraction of a
    /// byte to the next ACK (ns-2's real-valued `cwnd_ += 1 / cwnd_`), instead of rounding
    /// each increment down to whole bytes (at least one), which with small segments and
    /// large windows grows the window up to half as fast. Default false.
    pub exact_increase: bool,
}

impl Default for RenoConfig {
    fn default() -> Self {
        RenoConfig { min_ssthresh: 2, loss_window: 1, ssthresh_from: SsthreshFrom::Flight, exact_increase: false }
    }
}

impl RenoConfig {
    /// A Reno window of `init_cwnd` segments of `mss` bytes, threshold `init_ssthresh` bytes.
    pub fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> Reno {
        Reno { cwnd: init_cwnd * mss, ssthresh: init_ssthresh, mss, base: 0, recovering: false, carry: 0, cfg: self.clone() }
    }
}

/// Reno's window: `cwnd` and `ssthresh` in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reno {
    pub(super) cwnd: u32,
    pub(super) ssthresh: u32,
    pub(super) mss: u32,
    /// The window the last reduction left, which fast recovery inflates and leaves with:
    /// ssthresh under RFC 5681, the unrounded half window under ns-2's rule (its `cwnd_`
    /// beside `dupwnd_`). NewReno's partial ACKs may lower it.
    pub(super) base: u32,
    /// In fast recovery: `cwnd` holds the inflation, `base` the window under it.
    pub(super) recovering: bool,
    /// With `exact_increase`: the remainder of the last increment, in 1/cwnd bytes.
    carry: u64,
    pub(super) cfg: RenoConfig,
}

impl Reno {
    /// RFC 5681 eq. (4) for the given FlightSize.
    fn halve(&self, flight: u32) -> u32 {
        (flight / 2).max(self.cfg.min_ssthresh * self.mss)
    }

    /// A reduction: sets ssthresh and returns the window it leaves (see the module doc).
    fn reduce(&mut self, ev: &Event) -> u32 {
        match self.cfg.ssthresh_from {
            SsthreshFrom::Flight => {
                self.ssthresh = self.halve(ev.flight);
                self.ssthresh
            }
            SsthreshFrom::Window => {
                let window = if self.recovering { self.base } else { self.cwnd };
                let half = window.min(ev.rwnd) / 2;
                self.ssthresh = (half / self.mss).max(self.cfg.min_ssthresh) * self.mss;
                half.max(self.mss)
            }
        }
    }

    /// Fast recovery is over (the sender left it, or a timeout ended it).
    pub(super) fn leave_recovery(&mut self) {
        self.recovering = false;
    }
}

impl Controller for Reno {
    fn cwnd(&self) -> u32 {
        self.cwnd
    }

    fn ssthresh(&self) -> u32 {
        self.ssthresh
    }

    fn on_ack(&mut self, ack: &Ack) {
        if ack.ece || !ack.cwnd_limited {
            return;
        }
        let mss = self.mss;
        if self.cwnd < self.ssthresh {
            self.cwnd = self.cwnd.saturating_add(ack.acked.min(mss as u64) as u32);
        } else if self.cfg.exact_increase {
            let num = mss as u64 * mss as u64 + self.carry;
            self.carry = num % self.cwnd as u64;
            self.cwnd = self.cwnd.saturating_add((num / self.cwnd as u64) as u32);
        } else {
            let inc = ((mss as u64 * mss as u64) / self.cwnd as u64).max(1);
            self.cwnd = self.cwnd.saturating_add(inc as u32);
        }
    }

    fn on_fast_retransmit(&mut self, ev: &Event) {
        self.base = self.reduce(ev);
    }

    fn on_recovery_start(&mut self, ev: &Event) {
        self.cwnd = self.base + ev.dupacks * self.mss;
        self.recovering = true;
    }

    fn on_sack_recovery_start(&mut self, _ev: &Event) {
        self.cwnd = self.base;
        self.recovering = true;
    }

    fn on_recovery_dupack(&mut self, _ev: &Event) {
        self.cwnd = self.cwnd.saturating_add(self.mss);
    }

    fn on_recovery_end(&mut self, _ack: &Ack) {
        self.cwnd = self.base;
        self.recovering = false;
    }

    fn on_timeout(&mut self, ev: &Event) {
        if !ev.ecn_answered && (ev.backoffs == 0 || self.cfg.ssthresh_from == SsthreshFrom::Window) {
            self.reduce(ev);
        }
        self.cwnd = self.cfg.loss_window * self.mss;
        self.recovering = false;
    }

    fn on_ecn_echo(&mut self, ev: &Event) {
        let left = self.reduce(ev);
        self.cwnd = left.min(self.cwnd);
    }

    fn on_loss_in_answered_window(&mut self, ev: &Event) {
        // The window the ECN-Echo left is fast recovery's base (ns-2: `dupwnd_ =
        // numdupacks_` on the unchanged `cwnd_`).
        self.base = self.cwnd;
        self.cwnd = self.base + ev.dupacks * self.mss;
        self.recovering = true;
    }

    fn on_acc_control(&mut self, _ev: &Event, cwnd: u32, ssthresh: u32) {
        self.cwnd = cwnd.max(self.mss);
        self.ssthresh = ssthresh.max(self.cfg.min_ssthresh * self.mss);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    fn reno(cwnd_segs: u32, ssthresh: u32) -> Reno {
        RenoConfig::default().build(MSS, cwnd_segs, ssthresh)
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
        let mut r = RenoConfig { ssthresh_from: SsthreshFrom::Window, ..RenoConfig::default() }.build(MSS, 17, u32::MAX / 2);
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
    fn recovery_ends_with_cwnd_equal_to_ssthresh() {
        let mut r = reno(20, u32::MAX / 2);
        r.on_fast_retransmit(&event(20 * MSS, 3));
        r.on_recovery_start(&event(20 * MSS, 3));
        for d in 4..10 {
            r.on_recovery_dupack(&event(20 * MSS, d));
        }
        r.on_recovery_end(&ack(MSS, 19 * MSS));
        assert_eq!((r.cwnd(), r.ssthresh()), (10 * MSS, 10 * MSS), "RFC 5681 step 6, whatever the flight");
        // Reno has no partial ACKs: the hook changes nothing.
        r.on_partial_ack(&ack(MSS, 5 * MSS));
        assert_eq!(r.cwnd(), 10 * MSS);
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
}
