//! AIMD(a, b), the walk-through's congestion control (`docs/architecture.md`, "Adding an
//! algorithm"): in congestion avoidance the window grows by `a` segments per window of data
//! acknowledged and a congestion signal leaves `b` of it (Chiu and Jain's additive increase,
//! multiplicative decrease; Reno is AIMD(1, 1/2)). Slow start, fast recovery and the
//! timeout's loss window are the window's rules.

use super::spec::{CcContext, EcnUse, Recovery, Registration};
use super::{Ack, CcConfig, Controller, Event, NewRenoConfig, Signal, Window};
use crate::settings::table::{keys_of, read, SettingError, Table};
use serde::Deserialize;

/// AIMD's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct AimdConfig {
    /// Segments added per window of data acknowledged: 1.
    pub a: f64,
    /// The share of the window a congestion signal leaves: 0.5.
    pub b: f64,
    /// Slow start, fast recovery and the timeout: the window's rules.
    pub window: NewRenoConfig,
}

impl AimdConfig {
    /// An AIMD window of `init_cwnd` segments of `mss` bytes, threshold `init_ssthresh`.
    pub fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> Aimd {
        Aimd { w: self.window.window(mss, init_cwnd, init_ssthresh), cfg: self.clone() }
    }
}

/// AIMD's state: the window and its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Aimd {
    w: Window,
    cfg: AimdConfig,
}

impl Controller for Aimd {
    fn window(&self) -> &Window {
        &self.w
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    fn on_ack(&mut self, ack: &Ack) {
        if !self.w.avoidance_applies(ack) {
            return;
        }
        let add = self.cfg.a * ack.acked as f64 * self.w.mss() as f64 / self.w.cwnd as f64;
        self.w.cwnd = self.w.cwnd.saturating_add(add.max(1.0) as u32);
    }

    fn reduce(&mut self, _ev: &Event, _signal: Signal) -> u32 {
        self.w.ssthresh = ((self.w.cwnd as f64 * self.cfg.b) as u32).max(self.w.min_ssthresh());
        self.w.ssthresh
    }
}

/// AIMD's own keys, `tcp.aimd.*`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AimdSpec {
    /// Segments added per window; default 1.
    pub a: Option<f64>,
    /// The share of the window a reduction leaves; default 0.5.
    pub b: Option<f64>,
}

/// `tcp.variant = "aimd"`: RFC 6582's loss recovery.
pub const REGISTRATION: Registration = Registration { name: "aimd", recovery: Recovery::NewReno, ecn: EcnUse::Optional, keys: keys_of::<AimdSpec>, build };

fn build(table: &Table, ctx: &CcContext) -> Result<CcConfig, SettingError> {
    let spec = read::<AimdSpec>(table)?;
    let (a, b) = (spec.a.unwrap_or(1.0), spec.b.unwrap_or(0.5));
    if !(a.is_finite() && a > 0.0) {
        return Err(SettingError::new("a", format!("must be a positive number, got {a}")));
    }
    if !(b > 0.0 && b < 1.0) {
        return Err(SettingError::new("b", format!("must be between 0 and 1 (exclusive), got {b}")));
    }
    Ok(CcConfig::Aimd(AimdConfig { a, b, window: ctx.window.clone() }))
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    #[test]
    fn grows_a_segments_per_window_and_keeps_b_of_it() {
        let cfg = AimdConfig { a: 2.0, b: 0.8, window: NewRenoConfig::default() };
        let mut c = cfg.build(MSS, 10, 5 * MSS);
        for _ in 0..10 {
            c.on_ack(&ack(MSS, 10 * MSS));
        }
        // Each ACK adds a * MSS^2 / cwnd, cwnd growing meanwhile: just under two segments.
        assert!((11_700..=12 * MSS).contains(&c.cwnd()), "about two segments in a window: {}", c.cwnd());
        c.on_fast_retransmit(&event(12 * MSS, 3));
        assert_eq!(c.ssthresh(), (c.cwnd() as f64 * 0.8) as u32);
    }
}
