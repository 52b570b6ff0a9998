//! RCP's sender (Dukkipati and McKeown, "Why Flow-Completion Time is the Right Metric for
//! Congestion Control", CCR 2006, Section 3; Dukkipati, Kobayashi, Zhang-Shen and McKeown,
//! "Processor Sharing Flows in the Internet", IWQoS 2005). The routers pick one rate for
//! every flow through them; the sender sends at the smallest along its path:
//!
//! 1. **Header**: every data segment carries the rate it would like, `R_p` (a large number:
//!    "infinity"), and its RTT estimate (0 before the first sample). Each router lowers
//!    `R_p` to its own rate when that is smaller; the receiver copies it into its ACKs.
//! 2. **Rate**: each ACK of new data that echoes a rate sets the sending rate; the sender
//!    paces its segments at it (`Controller::pacing_rate`, bytes on the wire per second).
//! 3. **Window**: the pacing decides; the window is kept at twice the rate times the
//!    smoothed RTT (at least two segments), so that it never holds the rate back.
//! 4. **Before any rate**: the initial window leaves as the window allows, and until an ACK
//!    echoes a rate the window grows by Reno's rules (a path without RCP routers echoes the
//!    sender's own "infinity", which sets nothing). Losses are recovered as NewReno's; the
//!    window they leave is reset by the next rate.
//!
//! It has no keys of its own: the routers' parameters are the `rcp` discipline's
//! (`queue/rcp.rs`).

use super::spec::{CcContext, EcnUse, Recovery, Registration};
use super::{Ack, CcConfig, Controller, Event, NewRenoConfig, Signal, Window};
use crate::packet::explicit::{rtt_field, RcpHeader};
use crate::packet::Explicit;
use crate::settings::table::{SettingError, Table};

/// The rate a sender asks for, bytes per second: more than any router grants.
pub const DESIRED: f32 = 1.0e15;

/// RCP's parameters: the window's rules before the first rate and for losses.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RcpConfig {
    pub window: NewRenoConfig,
}

impl RcpConfig {
    /// An RCP sender with an initial window of `init_cwnd` segments of `mss` bytes.
    pub fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> Rcp {
        Rcp { w: self.window.window(mss, init_cwnd, init_ssthresh), rate: None, srtt_us: 0 }
    }
}

/// RCP's sender state.
#[derive(Clone, Debug, PartialEq)]
pub struct Rcp {
    w: Window,
    /// The rate the routers granted, bytes per second (rule 2).
    rate: Option<f64>,
    /// The smoothed RTT the header carries, microseconds (0: none yet).
    srtt_us: u32,
}

impl Controller for Rcp {
    fn window(&self) -> &Window {
        &self.w
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    /// Rule 4: Reno's growth until a rate is known.
    fn on_ack(&mut self, ack: &Ack) {
        if let Some(s) = ack.srtt {
            self.srtt_us = rtt_field(s.as_nanos() / 1000).max(1);
        }
        if self.rate.is_none() {
            self.w.grow(ack);
        }
    }

    fn reduce(&mut self, ev: &Event, _signal: Signal) -> u32 {
        self.w.reduce(ev)
    }

    /// Rule 1.
    fn header(&self) -> Option<Explicit> {
        Some(Explicit::Rcp(RcpHeader { rate: DESIRED, rtt_us: self.srtt_us }))
    }

    /// Rules 2 and 3.
    fn on_feedback(&mut self, echo: Explicit) {
        let Explicit::Rcp(h) = echo else { return };
        if !(h.rate > 0.0 && h.rate < DESIRED) {
            return;
        }
        let rate = h.rate as f64;
        self.rate = Some(rate);
        if self.srtt_us > 0 && !self.w.recovering() {
            let bdp = 2.0 * rate * self.srtt_us as f64 * 1e-6;
            self.w.cwnd = bdp.clamp(2.0 * self.w.mss() as f64, (u32::MAX / 2) as f64) as u32;
        }
    }

    fn paces(&self) -> bool {
        true
    }

    fn pacing_rate(&self) -> Option<f64> {
        self.rate
    }
}

/// `tcp.variant = "rcp"`.
pub const REGISTRATION: Registration = Registration { name: "rcp", recovery: Recovery::NewReno, ecn: EcnUse::Optional, keys: Vec::new, build };

fn build(_: &Table, ctx: &CcContext) -> Result<CcConfig, SettingError> {
    Ok(CcConfig::Rcp(RcpConfig { window: ctx.window.clone() }))
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::sim::Dur;

    fn rate(r: f32) -> Explicit {
        Explicit::Rcp(RcpHeader { rate: r, rtt_us: 0 })
    }

    #[test]
    fn the_echoed_rate_sets_pacing_and_a_window_that_does_not_hold_it_back() {
        let mut c = RcpConfig::default().build(MSS, 2, u32::MAX / 2);
        assert!(c.paces());
        assert_eq!(c.pacing_rate(), None, "no rate yet: the window decides");
        c.on_ack(&Ack { srtt: Some(Dur::from_millis(100)), ..ack(MSS, MSS) });
        assert_eq!(c.cwnd(), 3 * MSS, "Reno's slow start before the first rate");
        assert_eq!(c.header(), Some(Explicit::Rcp(RcpHeader { rate: DESIRED, rtt_us: 100_000 })));
        c.on_feedback(rate(125_000.0));
        assert_eq!(c.pacing_rate(), Some(125_000.0));
        assert_eq!(c.cwnd(), 25_000, "2 x 125 kB/s x 100 ms");
        c.on_ack(&Ack { srtt: Some(Dur::from_millis(100)), ..ack(MSS, MSS) });
        assert_eq!(c.cwnd(), 25_000, "no growth of its own once the routers decide");
        c.on_feedback(rate(1000.0));
        assert_eq!(c.cwnd(), 2 * MSS, "at least two segments");
    }

    #[test]
    fn an_echo_no_router_lowered_sets_nothing() {
        let mut c = RcpConfig::default().build(MSS, 2, u32::MAX / 2);
        c.on_feedback(rate(DESIRED));
        c.on_feedback(Explicit::Xcp(crate::packet::explicit::XcpHeader { cwnd: 0.0, rtt_us: 0, feedback: 5.0 }));
        assert_eq!((c.pacing_rate(), c.cwnd()), (None, 2 * MSS));
    }
}
