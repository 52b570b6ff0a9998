//! CUBIC's window arithmetic (RFC 9438), on NewReno's slow start and fast recovery.
//!
//! Rule by rule (windows below in segments of the connection's MSS, as the RFC writes them;
//! the controller keeps `cwnd` in bytes):
//!
//! - Slow start (RFC 9438 4.10): RFC 5681's, unchanged (HyStart++ is optional and not
//!   modelled). Congestion avoidance starts a new *epoch* at its first ACK: `t` counts from
//!   there, `cwnd_epoch` is the window then and `W_est = cwnd_epoch`.
//! - The cubic function (4.2): `W_cubic(t) = C (t - K)^3 + W_max`, eq. (1), with
//!   `K = cbrt((W_max - cwnd_epoch) / C)`, eq. (2). When the epoch starts at or above
//!   `W_max` (the first epoch after slow start with no loss yet, or after a timeout, 4.8)
//!   `K = 0` and `W_max` is the window at the start of the epoch.
//! - The target (4.2): `W_cubic(t + RTT)`, RTT the smoothed round-trip time, no lower than
//!   `cwnd` and no higher than `1.5 cwnd`.
//! - The Reno-friendly region (4.3): `W_est += α_cubic * segments_acked / cwnd` per ACK,
//!   eq. (4), with `α_cubic = 3 (1 - β_cubic) / (1 + β_cubic)` until `W_est` reaches
//!   `cwnd_prior` (the window before the last reduction), then 1. Where
//!   `W_cubic(t) < W_est`, `cwnd = W_est`.
//! - Concave and convex regions (4.4, 4.5): otherwise `cwnd` grows by
//!   `(target - cwnd) / cwnd` per segment acknowledged (counted in bytes, so delayed and
//!   stretch ACKs grow it as much as the segments they cover).
//! - No growth while the window does not limit sending (4.2, the ACK's `cwnd_limited`) or on
//!   an ACK carrying ECN-Echo (RFC 3168's rule, as [`Reno`](super::Reno)).
//! - Multiplicative decrease (4.6), on the third duplicate ACK and on the ECN-Echo the sender
//!   answers: `cwnd_prior = cwnd`, `ssthresh = max(cwnd * β_cubic, 2)`, the window left
//!   `ssthresh` (the sender's fast recovery then inflates it by the duplicates, RFC 5681
//!   step 3, and leaves with NewReno's rule); an ECN-Echo leaves `max(ssthresh, 1)`.
//!   The epoch ends.
//! - Fast convergence (4.7): at a reduction, if `cwnd < W_max` the flow is losing share, and
//!   `W_max = cwnd (1 + β_cubic) / 2`; otherwise `W_max = cwnd`.
//! - Timeout (4.8): Reno's loss window, ssthresh by β_cubic as in 4.6 (on the first expiry
//!   for a segment, as RFC 5681; in fast recovery, of the window without the duplicates'
//!   inflation), and the next epoch with `K = 0`, `W_max` its starting window.
//!
//! Defaults are the RFC's constants: `C = 0.4` (section 5), `β_cubic = 0.7` (4.6), fast
//! convergence on. RFC 9438 4.6 allows the reduction from FlightSize instead of cwnd; this
//! takes cwnd, as the RFC's pseudocode, Linux and ns-3's `TcpCubic` do.

use super::{Ack, Controller, Event, NewReno, NewRenoConfig};
use crate::sim::SimTime;

/// CUBIC's parameters (RFC 9438).
#[derive(Clone, Debug, PartialEq)]
pub struct CubicConfig {
    /// `C`, segments per second cubed: 0.4 (RFC 9438 section 5).
    pub c: f64,
    /// `β_cubic`, the multiplicative decrease factor: 0.7 (RFC 9438 4.6).
    pub beta: f64,
    /// Fast convergence (RFC 9438 4.7): on.
    pub fast_convergence: bool,
    /// The Reno-friendly region (RFC 9438 4.3): on.
    pub reno_friendly: bool,
    /// Slow start, fast recovery and the timeout's loss window, as NewReno has them.
    pub newreno: NewRenoConfig,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig { c: 0.4, beta: 0.7, fast_convergence: true, reno_friendly: true, newreno: NewRenoConfig::default() }
    }
}

impl CubicConfig {
    /// A CUBIC window of `init_cwnd` segments of `mss` bytes, threshold `init_ssthresh`.
    pub fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> Cubic {
        Cubic {
            nr: self.newreno.build(mss, init_cwnd, init_ssthresh),
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            k: 0.0,
            w_est: 0.0,
            carry: 0.0,
            cfg: self.clone(),
        }
    }

    /// `α_cubic` of RFC 9438 eq. (4): the Reno-friendly increase per window.
    pub fn alpha(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }
}

/// CUBIC's state: NewReno's window and threshold, and the cubic function's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Cubic {
    nr: NewReno,
    /// `W_max`, segments: the window before the last reduction (fast convergence may lower it).
    w_max: f64,
    /// `cwnd_prior`, segments: the window at the last reduction.
    cwnd_prior: f64,
    /// The start of the current congestion-avoidance epoch, if one is running.
    epoch: Option<SimTime>,
    /// `K`, seconds.
    k: f64,
    /// `W_est`, segments.
    w_est: f64,
    /// The fraction of a byte the last increase left over.
    carry: f64,
    cfg: CubicConfig,
}

impl Cubic {
    fn mss(&self) -> f64 {
        self.nr.reno.mss as f64
    }

    fn segments(&self) -> f64 {
        self.nr.reno.cwnd as f64 / self.mss()
    }

    /// `W_cubic(t)`, eq. (1), segments.
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.cfg.c * (t - self.k).powi(3) + self.w_max
    }

    /// Starts an epoch at `now` with the current window (RFC 9438 4.2, 4.8).
    fn start_epoch(&mut self, now: SimTime) {
        let w = self.segments();
        self.epoch = Some(now);
        self.w_est = w;
        self.carry = 0.0;
        if self.w_max <= w {
            self.w_max = w;
            self.k = 0.0;
        } else {
            self.k = ((self.w_max - w) / self.cfg.c).cbrt();
        }
    }

    /// The multiplicative decrease and fast convergence (RFC 9438 4.6, 4.7): sets `W_max`,
    /// `cwnd_prior` and ssthresh, ends the epoch, and returns the window to leave, bytes.
    fn reduce(&mut self, floor_segments: u32) -> u32 {
        let w = self.segments();
        self.w_max = if self.cfg.fast_convergence && w < self.w_max { w * (1.0 + self.cfg.beta) / 2.0 } else { w };
        self.cwnd_prior = w;
        self.epoch = None;
        let ssthresh = self.beta_of(self.nr.reno.cwnd);
        self.nr.reno.ssthresh = ssthresh;
        ssthresh.max(floor_segments * self.nr.reno.mss)
    }

    /// `max(w * β_cubic, 2)` in bytes, the threshold a reduction of window `w` sets (4.6).
    fn beta_of(&self, w: u32) -> u32 {
        let r = &self.nr.reno;
        ((w as f64 * self.cfg.beta) as u32).max(r.cfg.min_ssthresh * r.mss)
    }
}

impl Controller for Cubic {
    fn cwnd(&self) -> u32 {
        self.nr.cwnd()
    }

    fn ssthresh(&self) -> u32 {
        self.nr.ssthresh()
    }

    fn on_ack(&mut self, ack: &Ack) {
        if self.nr.reno.cwnd < self.nr.reno.ssthresh {
            return self.nr.on_ack(ack); // slow start
        }
        if ack.ece || !ack.cwnd_limited {
            return;
        }
        let epoch = match self.epoch {
            Some(e) => e,
            None => {
                self.start_epoch(ack.now);
                ack.now
            }
        };
        let t = (ack.now - epoch).as_secs_f64();
        let rtt = ack.srtt.or(ack.rtt).map_or(0.0, |d| d.as_secs_f64());
        let w = self.segments();
        let acked = ack.acked as f64 / self.mss();
        let mut next = w;
        if self.cfg.reno_friendly {
            let alpha = if self.w_est >= self.cwnd_prior { 1.0 } else { self.cfg.alpha() };
            self.w_est += alpha * acked / w;
        }
        if self.cfg.reno_friendly && self.w_cubic(t) < self.w_est {
            next = next.max(self.w_est);
        } else {
            let target = self.w_cubic(t + rtt).clamp(w, 1.5 * w);
            next += (target - w) / w * acked;
        }
        let bytes = (next - w) * self.mss() + self.carry;
        let whole = bytes.floor();
        self.carry = bytes - whole;
        let r = &mut self.nr.reno;
        r.cwnd = r.cwnd.saturating_add(whole.min(u32::MAX as f64) as u32);
    }

    fn on_fast_retransmit(&mut self, _ev: &Event) {
        self.nr.reno.base = self.reduce(2);
    }

    fn on_recovery_start(&mut self, ev: &Event) {
        self.nr.on_recovery_start(ev)
    }

    fn on_sack_recovery_start(&mut self, ev: &Event) {
        self.nr.on_sack_recovery_start(ev)
    }

    fn on_recovery_dupack(&mut self, ev: &Event) {
        self.nr.on_recovery_dupack(ev)
    }

    fn on_partial_ack(&mut self, ack: &Ack) {
        self.nr.on_partial_ack(ack)
    }

    fn on_recovery_end(&mut self, ack: &Ack) {
        self.nr.on_recovery_end(ack)
    }

    fn on_timeout(&mut self, ev: &Event) {
        if ev.backoffs == 0 && !ev.ecn_answered {
            // In fast recovery the window is the one under the duplicates' inflation.
            let w = if self.nr.reno.recovering { self.nr.reno.base } else { self.nr.reno.cwnd };
            self.nr.reno.ssthresh = self.beta_of(w);
        }
        let r = &mut self.nr.reno;
        r.cwnd = r.cfg.loss_window * r.mss;
        r.leave_recovery();
        // 4.8: the next epoch starts with K = 0 and W_max its own starting window.
        self.w_max = 0.0;
        self.epoch = None;
    }

    fn on_ecn_echo(&mut self, _ev: &Event) {
        let left = self.reduce(1);
        let r = &mut self.nr.reno;
        r.cwnd = left.min(r.cwnd);
    }

    fn on_loss_in_answered_window(&mut self, ev: &Event) {
        self.nr.on_loss_in_answered_window(ev)
    }

    fn on_acc_control(&mut self, ev: &Event, cwnd: u32, ssthresh: u32) {
        self.nr.on_acc_control(ev, cwnd, ssthresh);
        self.epoch = None;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::sim::Dur;

    fn cubic(cwnd_segs: u32, ssthresh: u32) -> Cubic {
        CubicConfig::default().build(MSS, cwnd_segs, ssthresh)
    }

    fn ack_at(ms: u64, srtt_ms: u64) -> Ack {
        Ack { now: SimTime::ZERO + Dur::from_millis(ms), srtt: Some(Dur::from_millis(srtt_ms)), ..ack(MSS, 50 * MSS) }
    }

    #[test]
    fn alpha_is_the_reno_friendly_constant() {
        // RFC 9438 4.3: 3 (1 - 0.7) / (1 + 0.7) = 0.529...
        assert!((CubicConfig::default().alpha() - 0.5294).abs() < 1e-4);
    }

    #[test]
    fn a_loss_sets_w_max_and_ssthresh_by_beta() {
        let mut c = cubic(100, 10 * MSS);
        c.on_fast_retransmit(&event(100 * MSS, 3));
        assert_eq!(c.ssthresh(), 70 * MSS, "4.6: ssthresh = 0.7 cwnd");
        assert_eq!(c.w_max, 100.0);
        c.on_recovery_start(&event(100 * MSS, 3));
        assert_eq!(c.cwnd(), 73 * MSS, "NewReno's fast recovery: ssthresh + 3 segments");
        c.on_recovery_end(&ack(MSS, 80 * MSS));
        assert_eq!(c.cwnd(), 70 * MSS);
        // A second loss below W_max: fast convergence releases bandwidth (4.7).
        c.on_fast_retransmit(&event(70 * MSS, 3));
        assert!((c.w_max - 70.0 * 1.7 / 2.0).abs() < 1e-9, "W_max {}", c.w_max);
        assert_eq!(c.ssthresh(), 49 * MSS);
        // Without fast convergence W_max is the window itself.
        let mut c = CubicConfig { fast_convergence: false, ..CubicConfig::default() }.build(MSS, 100, 10 * MSS);
        c.on_fast_retransmit(&event(100 * MSS, 3));
        c.on_recovery_start(&event(100 * MSS, 3));
        c.on_recovery_end(&ack(MSS, 80 * MSS));
        c.on_fast_retransmit(&event(70 * MSS, 3));
        assert_eq!(c.w_max, 70.0);
    }

    #[test]
    fn k_is_the_time_to_return_to_w_max() {
        // After a loss at W_max = 100 the window is 70: K = cbrt(30 / 0.4) = 4.217 s, and
        // W_cubic(K) = W_max.
        let mut c = cubic(100, 10 * MSS);
        c.on_fast_retransmit(&event(100 * MSS, 3));
        c.on_recovery_start(&event(100 * MSS, 3));
        c.on_recovery_end(&ack(MSS, 70 * MSS));
        c.on_ack(&ack_at(0, 100));
        assert!((c.k - (30.0f64 / 0.4).cbrt()).abs() < 1e-9, "K {}", c.k);
        assert!((c.w_cubic(c.k) - 100.0).abs() < 1e-9);
        assert!((c.w_cubic(0.0) - 70.0).abs() < 1e-9, "the curve starts at the reduced window");
    }

    #[test]
    fn the_window_follows_the_cubic_curve_concave_then_plateau_then_convex() {
        // A long RTT makes the Reno-friendly estimate slow, so the curve governs: one ACK per
        // segment every RTT/cwnd, and the window read once per RTT follows W_cubic(t)
        // within a segment or two (each ACK aims at W_cubic(t + RTT)).
        let mut c = CubicConfig { reno_friendly: false, ..CubicConfig::default() }.build(MSS, 100, 10 * MSS);
        c.on_fast_retransmit(&event(100 * MSS, 3));
        c.on_recovery_start(&event(100 * MSS, 3));
        c.on_recovery_end(&ack(MSS, 70 * MSS));
        let rtt_ms = 100u64;
        let mut now_us = 0u64;
        let mut rounds = Vec::new();
        for _ in 0..80 {
            let w = c.cwnd() / MSS;
            rounds.push((now_us as f64 / 1e6, c.cwnd() as f64 / MSS as f64));
            for _ in 0..w {
                now_us += rtt_ms * 1000 / w as u64;
                let mut a = ack_at(0, rtt_ms);
                a.now = SimTime::ZERO + Dur::from_micros(now_us);
                c.on_ack(&a);
            }
        }
        for &(t, w) in &rounds[1..] {
            let curve = c.w_cubic(t + 0.1).clamp(0.0, f64::MAX);
            assert!((w - curve).abs() < 2.5, "t {t:.2}: window {w:.1}, W_cubic(t + RTT) {curve:.1}");
        }
        // Concave below W_max, nearly flat near K, convex beyond.
        let growth = |i: usize| rounds[i + 1].1 - rounds[i].1;
        let near_k = rounds.iter().position(|&(t, _)| t >= c.k).unwrap();
        assert!(growth(2) > growth(near_k - 3), "concave: growth slows towards W_max");
        assert!(growth(near_k) < 1.0, "plateau near W_max");
        assert!(growth(78) > growth(near_k + 3), "convex: growth speeds up beyond W_max");
    }

    #[test]
    fn the_reno_friendly_region_grows_like_reno_when_the_curve_is_slower() {
        // A short RTT: W_cubic rises slowly in RTTs, and W_est grows α_cubic segments per
        // RTT until it reaches cwnd_prior.
        let mut c = cubic(20, 10 * MSS);
        c.on_fast_retransmit(&event(20 * MSS, 3));
        c.on_recovery_start(&event(20 * MSS, 3));
        c.on_recovery_end(&ack(MSS, 14 * MSS));
        assert_eq!(c.cwnd(), 14 * MSS);
        let start = c.cwnd();
        let mut now_us = 0;
        for _ in 0..10 {
            let w = c.cwnd() / MSS;
            for _ in 0..w {
                now_us += 1000 / w as u64; // RTT 1 ms
                let mut a = ack_at(0, 1);
                a.now = SimTime::ZERO + Dur::from_micros(now_us);
                c.on_ack(&a);
            }
        }
        let per_rtt = (c.cwnd() - start) as f64 / MSS as f64 / 10.0;
        assert!((per_rtt - CubicConfig::default().alpha()).abs() < 0.08, "{per_rtt:.3} segments per RTT");
    }

    #[test]
    fn no_growth_when_not_window_limited_or_on_ecn_echo() {
        let mut c = cubic(20, 10 * MSS);
        c.on_ack(&Ack { cwnd_limited: false, ..ack_at(10, 100) });
        c.on_ack(&Ack { ece: true, ..ack_at(20, 100) });
        assert_eq!(c.cwnd(), 20 * MSS);
    }

    #[test]
    fn slow_start_is_renos() {
        let mut c = cubic(2, u32::MAX / 2);
        c.on_ack(&ack(MSS, 0));
        c.on_ack(&ack(MSS, 0));
        assert_eq!(c.cwnd(), 4 * MSS);
    }

    #[test]
    fn timeout_takes_the_loss_window_and_ssthresh_by_beta() {
        let mut c = cubic(40, 10 * MSS);
        c.on_timeout(&event(40 * MSS, 0));
        assert_eq!((c.cwnd(), c.ssthresh()), (MSS, 28 * MSS));
        c.on_timeout(&Event { backoffs: 1, ..event(MSS, 0) });
        assert_eq!(c.ssthresh(), 28 * MSS, "a backoff is not a new congestion event");
        // A timeout in fast recovery reduces the window under the inflation, not the inflation.
        let mut r = cubic(40, 10 * MSS);
        r.on_fast_retransmit(&event(40 * MSS, 3));
        r.on_recovery_start(&event(40 * MSS, 3));
        for d in 4..40 {
            r.on_recovery_dupack(&event(40 * MSS, d));
        }
        r.on_timeout(&event(40 * MSS, 0));
        assert_eq!((r.cwnd(), r.ssthresh()), (MSS, 28 * MSS * 7 / 10));
        // The epoch after slow start starts with K = 0 at its own window (4.8).
        for _ in 0..27 {
            c.on_ack(&ack(MSS, 0));
        }
        c.on_ack(&ack_at(1000, 100));
        assert_eq!((c.k, c.w_max), (0.0, 28.0));
    }

    #[test]
    fn ecn_echo_reduces_by_beta_to_at_least_one_segment() {
        let mut c = cubic(10, 5 * MSS);
        c.on_ecn_echo(&event(10 * MSS, 0));
        assert_eq!((c.cwnd(), c.ssthresh()), (7 * MSS, 7 * MSS));
        let mut c = cubic(1, 0);
        c.on_ecn_echo(&event(MSS, 0));
        assert_eq!((c.cwnd(), c.ssthresh()), (MSS, 2 * MSS));
    }
}
