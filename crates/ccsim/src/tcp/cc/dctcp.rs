//! DCTCP's window arithmetic (RFC 8257), on the window's.
//!
//! DCTCP needs three parts: a switch that marks CE on an instantaneous queue above K (the
//! `step` discipline, `queue/step.rs`), a receiver that echoes each packet's CE exactly
//! (RFC 8257 3.2, `tcp/receiver.rs` with [`EcnEcho::PerPacket`](crate::tcp::receiver::EcnEcho)),
//! and this sender side (3.3, 3.4):
//!
//! - The estimate (3.3): over each observation window of about one RTT (from the ACK that
//!   opens it until SND.UNA passes the SND.MAX recorded then), count the bytes acknowledged
//!   and the bytes acknowledged by ACKs carrying ECN-Echo; at its end
//!   `α = (1 - g) α + g M`, `M` the marked fraction. `g = 1/16` and `α` starts at 1 (3.3:
//!   "the sender SHOULD initialize DCTCP.Alpha to 1"; a flow then starts as cautiously as
//!   a Reno flow would at its first mark); a scenario sets them in `tcp.dctcp` (`g`,
//!   `init_alpha`).
//! - The reduction (3.4): on the ECN-Echo the sender answers (at most once per window of
//!   data, the sender's rule), `cwnd = cwnd (1 - α / 2)`, and ssthresh the same, at least
//!   two segments; the window at least one.
//! - Marked ACKs may grow the window: DCTCP replaces RFC 3168's response to ECN-Echo, whose
//!   "no increase" rule belongs to it (Linux's DCTCP grows on them too).
//! - Loss (3.5): as the underlying TCP, here RFC 6582's fast retransmit and recovery and
//!   RFC 5681's timeout, the window's rules.
//!
//! The estimate counts every ACK of new data, in fast recovery too, so that its fraction
//! covers the whole window.

use super::spec::{CcContext, EcnUse, Recovery, Registration};
use super::{Ack, CcConfig, Controller, Event, NewRenoConfig, Signal, Window};
use crate::settings::table::{keys_of, read, SettingError, Table};
use serde::Deserialize;

/// DCTCP's parameters (RFC 8257).
#[derive(Clone, Debug, PartialEq)]
pub struct DctcpConfig {
    /// `g`, the weight of a new window's fraction in α: 1/16 (RFC 8257 3.3, and 4.2's
    /// discussion of `g`).
    pub g: f64,
    /// `α` before the first observation window ends: 1 (RFC 8257 3.3).
    pub init_alpha: f64,
    /// Slow start, losses and fast recovery: the window's rules.
    pub window: NewRenoConfig,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig { g: 1.0 / 16.0, init_alpha: 1.0, window: NewRenoConfig::default() }
    }
}

impl DctcpConfig {
    /// A DCTCP window of `init_cwnd` segments of `mss` bytes, threshold `init_ssthresh`.
    pub fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> Dctcp {
        Dctcp { w: self.window.window(mss, init_cwnd, init_ssthresh), alpha: self.init_alpha, window_end: None, acked: 0, marked: 0, g: self.g }
    }
}

/// DCTCP's state: the window and threshold, and the congestion estimate.
#[derive(Clone, Debug, PartialEq)]
pub struct Dctcp {
    w: Window,
    alpha: f64,
    /// The SND.MAX recorded when the current observation window began.
    window_end: Option<u64>,
    /// Bytes acknowledged in this observation window, and those by ACKs with ECN-Echo.
    acked: u64,
    marked: u64,
    g: f64,
}

impl Dctcp {
    /// The congestion estimate α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// RFC 8257 3.3: counts an ACK of new data into the observation window, and updates α
    /// when the window is over.
    fn observe(&mut self, ack: &Ack) {
        self.acked += ack.acked;
        if ack.ece {
            self.marked += ack.acked;
        }
        let end = *self.window_end.get_or_insert(ack.max);
        if ack.una > end {
            let fraction = if self.acked == 0 { 0.0 } else { self.marked as f64 / self.acked as f64 };
            self.alpha = (1.0 - self.g) * self.alpha + self.g * fraction;
            self.window_end = Some(ack.max);
            self.acked = 0;
            self.marked = 0;
        }
    }
}

impl Controller for Dctcp {
    fn window(&self) -> &Window {
        &self.w
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    fn on_ack(&mut self, ack: &Ack) {
        self.observe(ack);
        self.w.grow(&Ack { ece: false, ..*ack });
    }

    /// RFC 8257 3.4 for an ECN-Echo: `cwnd (1 - α / 2)`, at least one segment, and ssthresh
    /// the same, at least two; a loss or a timeout: the window's reduction (3.5).
    fn reduce(&mut self, ev: &Event, signal: Signal) -> u32 {
        if signal != Signal::Ecn {
            return self.w.reduce(ev);
        }
        let cwnd = ((self.w.cwnd as f64 * (1.0 - self.alpha / 2.0)) as u32).max(self.w.mss());
        self.w.ssthresh = cwnd.max(self.w.min_ssthresh());
        cwnd
    }

    fn on_partial_ack(&mut self, ack: &Ack) {
        self.observe(ack);
        self.w.deflate(ack);
    }

    fn on_recovery_end(&mut self, ack: &Ack) {
        self.observe(ack);
        self.w.end_recovery(ack);
    }

    /// The cut of [`reduce`](Controller::reduce), whatever the window was.
    fn on_ecn_echo(&mut self, ev: &Event) {
        self.w.cwnd = self.reduce(ev, Signal::Ecn);
    }
}

/// DCTCP's own keys, `tcp.dctcp.*`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DctcpSpec {
    /// `g`, the weight of the newest window's marked fraction in α; default 1/16 (RFC 8257 3.3).
    pub g: Option<f64>,
    /// α before the first observation window ends; default 1 (RFC 8257 3.3).
    pub init_alpha: Option<f64>,
}

/// `tcp.variant = "dctcp"`: RFC 6582's loss recovery, ECN on with per-packet echo.
pub const REGISTRATION: Registration = Registration { name: "dctcp", recovery: Recovery::NewReno, ecn: EcnUse::PerPacket, keys: keys_of::<DctcpSpec>, build };

fn build(table: &Table, ctx: &CcContext) -> Result<CcConfig, SettingError> {
    let spec = read::<DctcpSpec>(table)?;
    let (g, init_alpha) = estimate_keys(spec.g, spec.init_alpha)?;
    Ok(CcConfig::Dctcp(DctcpConfig { g, init_alpha, window: ctx.window.clone() }))
}

/// The keys of a DCTCP-style estimate (`g`, `init_alpha`), with DCTCP's defaults, checked:
/// `g` in (0, 1], `init_alpha` in [0, 1]. TCP Prague's estimate takes the same.
pub(super) fn estimate_keys(g: Option<f64>, init_alpha: Option<f64>) -> Result<(f64, f64), SettingError> {
    let d = DctcpConfig::default();
    let g = g.unwrap_or(d.g);
    if !(g > 0.0 && g <= 1.0) {
        return Err(SettingError::new("g", format!("must be in (0, 1], got {g}")));
    }
    let init_alpha = init_alpha.unwrap_or(d.init_alpha);
    if !(0.0..=1.0).contains(&init_alpha) {
        return Err(SettingError::new("init_alpha", format!("must be in [0, 1], got {init_alpha}")));
    }
    Ok((g, init_alpha))
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    fn dctcp(cwnd_segs: u32) -> Dctcp {
        DctcpConfig::default().build(MSS, cwnd_segs, 5 * MSS)
    }

    /// One observation window of `segs` ACKs of one segment each, `marked` of them with
    /// ECN-Echo, starting at `una`; returns the new `una`.
    fn window(d: &mut Dctcp, una: u64, segs: u64, marked: u64) -> u64 {
        let max = una + segs * MSS as u64;
        for i in 0..segs {
            let a = Ack { una: una + (i + 1) * MSS as u64, max, ece: i < marked, ..ack(MSS, 0) };
            d.on_ack(&a);
        }
        max
    }

    #[test]
    fn alpha_is_the_moving_average_of_the_marked_fraction() {
        let mut d = dctcp(10);
        assert_eq!(d.alpha(), 1.0, "RFC 8257 3.3: starts at 1");
        // The first ACK opens the window; the ACK that passes its end closes it.
        let mut una = window(&mut d, 0, 10, 0);
        una = window(&mut d, una, 10, 0);
        let unmarked = d.alpha();
        assert!((unmarked - 15.0 / 16.0).abs() < 1e-12, "one window with M = 0: {unmarked}");
        // Each window's fraction is counted from the ACK after the one that closed the last:
        // the first marked window's count holds nine unmarked ACKs and one marked.
        let mut expected = unmarked;
        for i in 0..80 {
            una = window(&mut d, una, 10, 5);
            let m = if i == 0 { 0.1 } else { 0.5 };
            expected = expected * 15.0 / 16.0 + m / 16.0;
        }
        assert!((d.alpha() - expected).abs() < 1e-9, "α {} follows the moving average {expected}", d.alpha());
        assert!((d.alpha() - 0.5).abs() < 0.01, "α {} converges to M = 0.5", d.alpha());
    }

    #[test]
    fn a_mark_cuts_the_window_by_alpha_over_two() {
        let mut d = dctcp(100);
        d.alpha = 0.2;
        d.on_ecn_echo(&event(100 * MSS, 0));
        assert_eq!((d.cwnd(), d.ssthresh()), (90 * MSS, 90 * MSS), "cwnd (1 - 0.2 / 2)");
        d.alpha = 1.0;
        d.on_ecn_echo(&event(90 * MSS, 0));
        assert_eq!(d.cwnd(), 45 * MSS, "α = 1 halves, as Reno");
        d.alpha = 0.0;
        d.on_ecn_echo(&event(45 * MSS, 0));
        assert_eq!(d.cwnd(), 45 * MSS, "no marks, no cut");
        let mut d = dctcp(1);
        d.on_ecn_echo(&event(MSS, 0));
        assert_eq!((d.cwnd(), d.ssthresh()), (MSS, 2 * MSS), "floors: one segment, threshold two");
    }

    #[test]
    fn marked_acks_grow_the_window_and_losses_are_renos() {
        let mut d = dctcp(10);
        d.on_ack(&Ack { ece: true, ..ack(MSS, 10 * MSS) });
        assert_eq!(d.cwnd(), 10 * MSS + MSS / 10, "congestion avoidance on a marked ACK");
        d.on_fast_retransmit(&event(10 * MSS, 3));
        assert_eq!(d.ssthresh(), 5 * MSS);
    }

    #[test]
    fn its_keys_set_g_and_the_first_alpha_within_their_bounds() {
        let ctx = CcContext { window: NewRenoConfig::default(), full_ack_given: false, profile: Default::default() };
        let t = |s: &str| -> Table { s.parse().unwrap() };
        let CcConfig::Dctcp(c) = build(&t("g = 0.5\ninit_alpha = 0.0"), &ctx).unwrap() else { panic!("not DCTCP") };
        assert_eq!((c.g, c.init_alpha), (0.5, 0.0));
        assert_eq!(c.build(MSS, 10, 5 * MSS).alpha(), 0.0);
        assert_eq!(build(&t("g = 0"), &ctx).unwrap_err().key, "g");
        assert_eq!(build(&t("init_alpha = 1.5"), &ctx).unwrap_err().key, "init_alpha");
    }
}
