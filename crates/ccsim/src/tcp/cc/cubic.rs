//! CUBIC's window arithmetic (RFC 9438), on the window's slow start and fast recovery.
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
//!   `cwnd` and no higher than `1.5 cwnd`. `target_rtt = "min"` takes the least RTT sampled
//!   instead, as Linux's `bictcp_update()` (`delay_min`) and ns-3.37's `TcpCubic` do.
//! - The Reno-friendly region (4.3): `W_est += α_cubic * segments_acked / cwnd` per ACK,
//!   eq. (4), with `α_cubic = 3 (1 - β_cubic) / (1 + β_cubic)` until `W_est` reaches
//!   `cwnd_prior` (the window before the last reduction), then 1. Where
//!   `W_cubic(t) < W_est`, `cwnd = W_est`. `reno_alpha = "rfc8312"` keeps `α_cubic` all
//!   the epoch, as RFC 8312 4.2 and Linux's `tcp_friendliness` (`beta_scale`) do.
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
//! convergence on; a scenario sets them in `tcp.cubic` (`c`, `beta`, `fast_convergence`,
//! `reno_friendly`, `reno_alpha`, `target_rtt`). Under `profile = "linux"` the last two
//! default to Linux's rules (`rfc8312`, `min`). RFC 9438 4.6 allows the reduction from FlightSize instead of cwnd; this
//! takes cwnd, as the RFC's pseudocode, Linux and ns-3's `TcpCubic` do.

use super::spec::{CcContext, EcnUse, Recovery, Registration};
use super::{Ack, CcConfig, Controller, Event, NewRenoConfig, Signal, Window};
use crate::settings::profile::Profile;
use crate::settings::table::{keys_of, read, SettingError, Table};
use crate::sim::SimTime;
use serde::Deserialize;

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
    /// `α_cubic` becomes 1 once `W_est` reaches `cwnd_prior` (RFC 9438 4.3): on; off keeps
    /// it all the epoch (RFC 8312 4.2, Linux).
    pub alpha_to_one: bool,
    /// The target looks one least RTT ahead (Linux's `delay_min`, ns-3.37) instead of one
    /// smoothed RTT (RFC 9438 4.2): off.
    pub target_min_rtt: bool,
    /// Slow start, fast recovery and the timeout's loss window: the window's rules.
    pub window: NewRenoConfig,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            alpha_to_one: true,
            target_min_rtt: false,
            window: NewRenoConfig::default(),
        }
    }
}

impl CubicConfig {
    /// A CUBIC window of `init_cwnd` segments of `mss` bytes, threshold `init_ssthresh`.
    pub fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> Cubic {
        Cubic {
            w: self.window.window(mss, init_cwnd, init_ssthresh),
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: NO_EPOCH,
            k: 0.0,
            w_est: 0.0,
            carry: 0.0,
            min_rtt: f64::INFINITY,
            cfg: self.clone(),
        }
    }

    /// `α_cubic` of RFC 9438 eq. (4): the Reno-friendly increase per window.
    pub fn alpha(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }
}

/// The epoch of a [`Cubic`] with none running (no epoch starts at the end of time).
const NO_EPOCH: SimTime = SimTime::MAX;

/// CUBIC's state: the window and threshold, and the cubic function's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Cubic {
    w: Window,
    /// `W_max`, segments: the window before the last reduction (fast convergence may lower it).
    w_max: f64,
    /// `cwnd_prior`, segments: the window at the last reduction.
    cwnd_prior: f64,
    /// The start of the current congestion-avoidance epoch; [`NO_EPOCH`] when none is running.
    epoch: SimTime,
    /// `K`, seconds.
    k: f64,
    /// `W_est`, segments.
    w_est: f64,
    /// The fraction of a byte the last increase left over.
    carry: f64,
    /// The least RTT sampled, seconds (infinite before the first), for `target_min_rtt`.
    min_rtt: f64,
    cfg: CubicConfig,
}

impl Cubic {
    fn mss(&self) -> f64 {
        self.w.mss() as f64
    }

    fn segments(&self) -> f64 {
        self.w.cwnd as f64 / self.mss()
    }

    /// `W_cubic(t)`, eq. (1), segments.
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.cfg.c * (t - self.k).powi(3) + self.w_max
    }

    /// Starts an epoch at `now` with the current window (RFC 9438 4.2, 4.8).
    fn start_epoch(&mut self, now: SimTime) {
        let w = self.segments();
        self.epoch = now;
        self.w_est = w;
        self.carry = 0.0;
        if self.w_max <= w {
            self.w_max = w;
            self.k = 0.0;
        } else {
            self.k = ((self.w_max - w) / self.cfg.c).cbrt();
        }
    }

    /// `max(w * β_cubic, 2)` in bytes, the threshold a reduction of window `w` sets (4.6).
    fn beta_of(&self, w: u32) -> u32 {
        ((w as f64 * self.cfg.beta) as u32).max(self.w.min_ssthresh())
    }
}

impl Controller for Cubic {
    fn window(&self) -> &Window {
        &self.w
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    fn on_ack(&mut self, ack: &Ack) {
        if self.cfg.target_min_rtt {
            if let Some(r) = ack.rtt {
                self.min_rtt = self.min_rtt.min(r.as_secs_f64());
            }
        }
        if !self.w.avoidance_applies(ack) {
            return;
        }
        if self.epoch == NO_EPOCH {
            self.start_epoch(ack.now);
        }
        let t = (ack.now - self.epoch).as_secs_f64();
        let rtt = if self.cfg.target_min_rtt && self.min_rtt.is_finite() { self.min_rtt } else { ack.srtt.or(ack.rtt).map_or(0.0, |d| d.as_secs_f64()) };
        let w = self.segments();
        let acked = ack.acked as f64 / self.mss();
        let mut next = w;
        if self.cfg.reno_friendly {
            let alpha = if self.cfg.alpha_to_one && self.w_est >= self.cwnd_prior { 1.0 } else { self.cfg.alpha() };
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
        self.w.cwnd = self.w.cwnd.saturating_add(whole.min(u32::MAX as f64) as u32);
    }

    /// The multiplicative decrease and fast convergence (RFC 9438 4.6, 4.7) for a loss or an
    /// ECN-Echo: sets `W_max`, `cwnd_prior` and ssthresh, ends the epoch, and leaves
    /// ssthresh, at least two segments after a loss and one after an ECN-Echo. A timeout's
    /// is ssthresh by β of the window under fast recovery's inflation (4.8), the curve
    /// restarted by [`on_timeout`](Controller::on_timeout).
    fn reduce(&mut self, _ev: &Event, signal: Signal) -> u32 {
        if signal == Signal::Timeout {
            self.w.ssthresh = self.beta_of(self.w.uninflated());
            return self.w.ssthresh;
        }
        let w = self.segments();
        self.w_max = if self.cfg.fast_convergence && w < self.w_max { w * (1.0 + self.cfg.beta) / 2.0 } else { w };
        self.cwnd_prior = w;
        self.epoch = NO_EPOCH;
        self.w.ssthresh = self.beta_of(self.w.cwnd);
        let floor = if signal == Signal::Ecn { 1 } else { 2 };
        self.w.ssthresh.max(floor * self.w.mss())
    }

    /// RFC 9438 4.8: ssthresh by β on the first expiry for a segment (as RFC 5681, whatever
    /// the profile's rule for later expiries), the loss window, and the next epoch with
    /// `K = 0` and `W_max` its own starting window.
    fn on_timeout(&mut self, ev: &Event) {
        if ev.backoffs == 0 && !ev.ecn_answered {
            self.reduce(ev, Signal::Timeout);
        }
        self.w.collapse();
        self.w_max = 0.0;
        self.epoch = NO_EPOCH;
    }

    /// The router's window; the curve restarts from it.
    fn on_acc_control(&mut self, _ev: &Event, cwnd: u32, ssthresh: u32) {
        self.w.obey(cwnd, ssthresh);
        self.epoch = NO_EPOCH;
    }
}

/// CUBIC's own keys, `tcp.cubic.*`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CubicSpec {
    /// `C`, segments per second cubed; default 0.4 (RFC 9438 section 5).
    pub c: Option<f64>,
    /// `β_cubic`, the window kept at a reduction; default 0.7 (RFC 9438 4.6).
    pub beta: Option<f64>,
    /// Fast convergence (RFC 9438 4.7); default true.
    pub fast_convergence: Option<bool>,
    /// The Reno-friendly region (RFC 9438 4.3); default true.
    pub reno_friendly: Option<bool>,
    /// `"rfc9438"`: α_cubic becomes 1 once W_est reaches cwnd_prior (4.3); `"rfc8312"`: it
    /// stays 3(1 - β)/(1 + β) (RFC 8312 4.2, Linux). Default `"rfc9438"`, `"rfc8312"` under
    /// the `linux` profile.
    pub reno_alpha: Option<RenoAlpha>,
    /// `"srtt"`: the target is W_cubic one smoothed RTT ahead (RFC 9438 4.2); `"min"`: one
    /// least RTT ahead (Linux's `delay_min`, ns-3.37). Default `"srtt"`, `"min"` under the
    /// `linux` profile.
    pub target_rtt: Option<TargetRtt>,
}

/// `tcp.cubic.reno_alpha`: how α_cubic of the Reno-friendly estimate runs over an epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RenoAlpha {
    /// RFC 9438 4.3: 1 once W_est reaches cwnd_prior.
    Rfc9438,
    /// RFC 8312 4.2 and Linux: 3(1 - β)/(1 + β) all the epoch.
    Rfc8312,
}

/// `tcp.cubic.target_rtt`: how far ahead the target looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetRtt {
    /// One smoothed RTT (RFC 9438 4.2).
    Srtt,
    /// One least RTT sampled (Linux's `delay_min`, ns-3.37).
    Min,
}

/// `tcp.variant = "cubic"`: RFC 6582's loss recovery, as RFC 9438 leaves it.
pub const REGISTRATION: Registration = Registration { name: "cubic", recovery: Recovery::NewReno, ecn: EcnUse::Optional, keys: keys_of::<CubicSpec>, build };

fn build(table: &Table, ctx: &CcContext) -> Result<CcConfig, SettingError> {
    let spec = read::<CubicSpec>(table)?;
    let d = CubicConfig::default();
    let c = spec.c.unwrap_or(d.c);
    if !(c.is_finite() && c > 0.0) {
        return Err(SettingError::new("c", format!("must be a positive number, got {c}")));
    }
    let beta = spec.beta.unwrap_or(d.beta);
    if !(beta > 0.0 && beta < 1.0) {
        return Err(SettingError::new("beta", format!("must be between 0 and 1 (exclusive), got {beta}")));
    }
    let linux = ctx.profile == Profile::Linux;
    let alpha_to_one = spec.reno_alpha.unwrap_or(if linux { RenoAlpha::Rfc8312 } else { RenoAlpha::Rfc9438 }) == RenoAlpha::Rfc9438;
    let target_min_rtt = spec.target_rtt.unwrap_or(if linux { TargetRtt::Min } else { TargetRtt::Srtt }) == TargetRtt::Min;
    Ok(CcConfig::Cubic(CubicConfig {
        c,
        beta,
        fast_convergence: spec.fast_convergence.unwrap_or(d.fast_convergence),
        reno_friendly: spec.reno_friendly.unwrap_or(d.reno_friendly),
        alpha_to_one,
        target_min_rtt,
        window: ctx.window.clone(),
    }))
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

    /// Segments per RTT the window grew in each of `rounds` round trips of `rtt_ms`, one ACK
    /// per segment, from a reduction at a window of `from` segments.
    fn growth_per_round(cfg: CubicConfig, from: u32, rounds: usize, rtt_ms: u64) -> Vec<f64> {
        let mut c = cfg.build(MSS, from, 10 * MSS);
        c.on_fast_retransmit(&event(from * MSS, 3));
        c.on_recovery_start(&event(from * MSS, 3));
        c.on_recovery_end(&ack(MSS, from * MSS * 7 / 10));
        let mut now_us = 0;
        let mut out = Vec::new();
        for _ in 0..rounds {
            let (w, before) = (c.cwnd() / MSS, c.cwnd());
            for _ in 0..w {
                now_us += rtt_ms * 1000 / w as u64;
                let mut a = ack_at(0, rtt_ms);
                a.now = SimTime::ZERO + Dur::from_micros(now_us);
                c.on_ack(&a);
            }
            out.push((c.cwnd() - before) as f64 / MSS as f64);
        }
        out
    }

    #[test]
    fn rfc8312s_alpha_stays_once_w_est_passes_cwnd_prior() {
        // RTT 1 ms: the curve is far slower than W_est. From 14 segments (a reduction at 20)
        // W_est reaches cwnd_prior = 20 after about 11 rounds at α = 0.53; then RFC 9438
        // grows a segment per round, RFC 8312 and Linux stay at α.
        let rfc9438 = growth_per_round(CubicConfig::default(), 20, 40, 1);
        let rfc8312 = growth_per_round(CubicConfig { alpha_to_one: false, ..CubicConfig::default() }, 20, 40, 1);
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let alpha = CubicConfig::default().alpha();
        assert!((mean(&rfc9438[..10]) - alpha).abs() < 0.1, "before cwnd_prior: {:.3}", mean(&rfc9438[..10]));
        assert!((mean(&rfc8312[..10]) - alpha).abs() < 0.1, "before cwnd_prior: {:.3}", mean(&rfc8312[..10]));
        assert!((mean(&rfc9438[20..]) - 1.0).abs() < 0.1, "RFC 9438 after cwnd_prior: {:.3}", mean(&rfc9438[20..]));
        assert!((mean(&rfc8312[20..]) - alpha).abs() < 0.1, "RFC 8312 after cwnd_prior: {:.3}", mean(&rfc8312[20..]));
    }

    #[test]
    fn the_target_looks_one_least_rtt_ahead_when_asked() {
        // In the convex region, with samples of 100 ms and a smoothed RTT of 300 ms (a queue
        // came and went), the target is W_cubic(t + 0.1) rather than W_cubic(t + 0.3).
        let run = |min: bool| {
            let mut c = CubicConfig { reno_friendly: false, target_min_rtt: min, ..CubicConfig::default() }.build(MSS, 100, 10 * MSS);
            c.on_fast_retransmit(&event(100 * MSS, 3));
            c.on_recovery_start(&event(100 * MSS, 3));
            c.on_recovery_end(&ack(MSS, 70 * MSS));
            let sample = |ms: u64| Ack { rtt: Some(Dur::from_millis(100)), ..ack_at(ms, 300) };
            c.on_ack(&sample(0));
            let t = 6.0; // K = 4.2 s: beyond it
            let (w, before) = (c.segments(), c.cwnd());
            c.on_ack(&sample((t * 1000.0) as u64));
            let target = |ahead: f64| c.w_cubic(t + ahead).clamp(w, 1.5 * w);
            ((c.cwnd() - before) as f64 / MSS as f64, (target(0.1) - w) / w, (target(0.3) - w) / w)
        };
        let (grew, by_min, by_srtt) = run(true);
        assert!((grew - by_min).abs() < 0.01 && by_min < by_srtt, "min RTT: grew {grew:.4}, expected {by_min:.4} (srtt's {by_srtt:.4})");
        let (grew, by_min, by_srtt) = run(false);
        assert!((grew - by_srtt).abs() < 0.01 && by_min < by_srtt, "srtt: grew {grew:.4}, expected {by_srtt:.4}");
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

    #[test]
    fn its_keys_set_c_and_beta_within_their_bounds() {
        let ctx = CcContext { window: NewRenoConfig::reno(), full_ack_given: false, profile: Default::default() };
        let t = |s: &str| -> Table { s.parse().unwrap() };
        let CcConfig::Cubic(c) = build(&t("c = 0.8\nbeta = 0.5\nfast_convergence = false"), &ctx).unwrap() else { panic!("not CUBIC") };
        assert_eq!((c.c, c.beta, c.fast_convergence, c.reno_friendly), (0.8, 0.5, false, true));
        assert_eq!(c.window, NewRenoConfig::reno(), "the window's rules are the shared keys'");
        assert_eq!(build(&t("beta = 1.0"), &ctx).unwrap_err().key, "beta");
        assert_eq!(build(&t("c = 0"), &ctx).unwrap_err().key, "c");
        assert_eq!(build(&t("c = nan"), &ctx).unwrap_err().key, "c");
    }

    #[test]
    fn the_linux_profile_takes_linuxs_alpha_and_target() {
        let t = |s: &str| -> Table { s.parse().unwrap() };
        let of = |table: &str, profile: Profile| {
            let ctx = CcContext { window: NewRenoConfig::reno(), full_ack_given: false, profile };
            match build(&t(table), &ctx) {
                Ok(CcConfig::Cubic(c)) => Ok((c.alpha_to_one, c.target_min_rtt)),
                Ok(_) => panic!("not CUBIC"),
                Err(e) => Err(e.key),
            }
        };
        assert_eq!(of("", Profile::Rfc), Ok((true, false)), "RFC 9438's rules");
        assert_eq!(of("", Profile::Ns2), Ok((true, false)));
        assert_eq!(of("", Profile::Linux), Ok((false, true)), "tcp_cubic.c's rules");
        assert_eq!(of("reno_alpha = \"rfc9438\"\ntarget_rtt = \"srtt\"", Profile::Linux), Ok((true, false)), "the keys win");
        assert_eq!(of("reno_alpha = \"rfc8312\"\ntarget_rtt = \"min\"", Profile::Rfc), Ok((false, true)));
        assert_eq!(of("reno_alpha = \"linux\"", Profile::Rfc), Err("reno_alpha".into()));
        assert_eq!(of("target_rtt = \"max\"", Profile::Rfc), Err("target_rtt".into()));
    }
}
