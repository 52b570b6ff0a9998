//! XCP's sender (Katabi, Handley and Rohrs, "Congestion Control for High Bandwidth-Delay
//! Product Networks", SIGCOMM 2002, Section 3.2; ns-2.35's `Agent/TCP/Reno/XCP`,
//! `xcp/xcp-end-sys.cc`). The routers decide the window; the sender carries its state to
//! them and applies what they answer:
//!
//! 1. **Header** (Section 3.1): every data segment carries `H_cwnd` (the window, bytes),
//!    `H_rtt` (the smoothed RTT; 0 before the first sample, which routers answer with no
//!    feedback) and `H_feedback`, the increase the sender would like, initialised to a large
//!    number so that the routers' allocation decides (ns-2.35 writes its `MAX_THROUGHPUT`).
//! 2. **Feedback** (Section 3.2): each ACK of new data echoes the feedback of the segments
//!    it answers (summed by the receiver, `packet::explicit`), and the window becomes
//!    `max(cwnd + H_feedback, s)`, `s` one segment (ns-2.35: at least one packet). The
//!    window keeps the fraction of a byte a small feedback leaves, so that many small
//!    answers add up.
//! 3. **No growth of its own**: neither slow start nor congestion avoidance (ns-2.35
//!    overrides `opencwnd()` with nothing); only feedback opens the window.
//! 4. **Losses** are Reno's, as ns-2.35's agent inherits them (Section 3.2: "XCP sender
//!    ... responds to losses similarly to TCP"): fast retransmit halves the window
//!    (`Window::reduce`), the timeout collapses it to one segment, and feedback then opens it
//!    again. Its registration pairs it with Reno's loss recovery (`Agent/TCP/Reno/XCP`).
//!
//! It has no keys of its own: the routers' parameters are the `xcp` discipline's
//! (`queue/xcp.rs`). Where it departs from ns-2.35: the feedback in the header is a change of
//! window in bytes, the paper's unit, where ns-2.35 carries a change of throughput that the
//! sender multiplies by its current smoothed RTT; the two differ only by how much that RTT
//! moved between the segment's departure and its ACK. The RTT is RFC 6298's smoothed RTT
//! (gain 1/8, as ns-2.35's own XCP estimate), unrounded to ns-2's clock tick.

use super::spec::{CcContext, EcnUse, Recovery, Registration};
use super::{Ack, CcConfig, Controller, Event, NewRenoConfig, Signal, Window};
use crate::packet::explicit::{rtt_field, XcpHeader};
use crate::packet::Explicit;
use crate::settings::table::{SettingError, Table};

/// The feedback a sender asks for, bytes: more than any router grants.
pub const DESIRED: f32 = 1.0e15;

/// XCP's parameters: the window's loss rules (the sender has no others).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct XcpConfig {
    /// Fast retransmit and the timeout: the window's rules, Reno's exit.
    pub window: NewRenoConfig,
}

impl XcpConfig {
    /// An XCP window of `init_cwnd` segments of `mss` bytes, threshold `init_ssthresh`.
    pub fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> Xcp {
        Xcp { w: self.window.window(mss, init_cwnd, init_ssthresh), frac: 0.0, srtt_us: 0 }
    }
}

/// XCP's sender state.
#[derive(Clone, Debug, PartialEq)]
pub struct Xcp {
    w: Window,
    /// The fraction of a byte of window the feedback left, in [0, 1).
    frac: f64,
    /// The smoothed RTT the header carries, microseconds (0: none yet).
    srtt_us: u32,
}

impl Xcp {
    fn note_rtt(&mut self, ack: &Ack) {
        if let Some(s) = ack.srtt {
            self.srtt_us = rtt_field(s.as_nanos() / 1000).max(1);
        }
    }
}

impl Controller for Xcp {
    fn window(&self) -> &Window {
        &self.w
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    /// Rule 3: no growth of its own.
    fn on_ack(&mut self, ack: &Ack) {
        self.note_rtt(ack);
    }

    fn on_partial_ack(&mut self, ack: &Ack) {
        self.note_rtt(ack);
        self.w.deflate(ack);
    }

    fn on_recovery_end(&mut self, ack: &Ack) {
        self.note_rtt(ack);
        self.w.end_recovery(ack);
    }

    /// Rule 4: Reno's halving.
    fn reduce(&mut self, ev: &Event, _signal: Signal) -> u32 {
        self.w.reduce(ev)
    }

    /// Rule 1.
    fn header(&self) -> Option<Explicit> {
        let feedback = if self.srtt_us == 0 { 0.0 } else { DESIRED };
        Some(Explicit::Xcp(XcpHeader { cwnd: self.w.cwnd as f32, rtt_us: self.srtt_us, feedback }))
    }

    /// Rule 2.
    fn on_feedback(&mut self, echo: Explicit) {
        let Explicit::Xcp(h) = echo else { return };
        let w = (self.w.cwnd as f64 + self.frac + h.feedback as f64).clamp(self.w.mss() as f64, (u32::MAX / 2) as f64);
        self.w.cwnd = w as u32;
        self.frac = w - w.floor();
    }
}

/// `tcp.variant = "xcp"`.
pub const REGISTRATION: Registration = Registration { name: "xcp", recovery: Recovery::Reno, ecn: EcnUse::Optional, keys: Vec::new, build };

fn build(_: &Table, ctx: &CcContext) -> Result<CcConfig, SettingError> {
    if ctx.full_ack_given {
        return Err(SettingError::new("full_ack", "not for `variant = \"xcp\"` (its loss recovery is Reno's, which leaves with cwnd = ssthresh)"));
    }
    Ok(CcConfig::Xcp(XcpConfig { window: NewRenoConfig { full_ack: super::FullAck::Ssthresh, ..ctx.window.clone() } }))
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::sim::Dur;

    fn fb(bytes: f32) -> Explicit {
        Explicit::Xcp(XcpHeader { cwnd: 0.0, rtt_us: 0, feedback: bytes })
    }

    #[test]
    fn the_header_carries_window_and_rtt_and_asks_for_feedback_once_there_is_an_rtt() {
        let mut x = XcpConfig::default().build(MSS, 2, u32::MAX / 2);
        assert_eq!(x.header(), Some(Explicit::Xcp(XcpHeader { cwnd: 2000.0, rtt_us: 0, feedback: 0.0 })), "no RTT: no feedback asked");
        x.on_ack(&Ack { srtt: Some(Dur::from_millis(80)), ..ack(MSS, MSS) });
        assert_eq!(x.header(), Some(Explicit::Xcp(XcpHeader { cwnd: 2000.0, rtt_us: 80_000, feedback: DESIRED })));
        assert_eq!(x.cwnd(), 2 * MSS, "an ACK alone opens nothing: no slow start");
    }

    #[test]
    fn feedback_moves_the_window_keeps_fractions_and_never_leaves_less_than_a_segment() {
        let mut x = XcpConfig::default().build(MSS, 10, u32::MAX / 2);
        x.on_feedback(fb(250.5));
        assert_eq!(x.cwnd(), 10_250);
        x.on_feedback(fb(0.5));
        assert_eq!(x.cwnd(), 10_251, "two halves make a byte");
        x.on_feedback(fb(-1251.0));
        assert_eq!(x.cwnd(), 9000);
        x.on_feedback(fb(-1.0e6));
        assert_eq!(x.cwnd(), MSS, "max(cwnd + H_feedback, s)");
        x.on_feedback(Explicit::Rcp(crate::packet::explicit::RcpHeader { rate: 1.0, rtt_us: 0 }));
        assert_eq!(x.cwnd(), MSS, "another protocol's echo is not feedback");
    }

    #[test]
    fn a_loss_halves_the_window_as_reno() {
        let mut x = XcpConfig::default().build(MSS, 20, u32::MAX / 2);
        x.on_fast_retransmit(&event(20 * MSS, 3));
        assert_eq!(x.ssthresh(), 10 * MSS);
        x.on_timeout(&event(10 * MSS, 0));
        assert_eq!(x.cwnd(), MSS, "the timeout's loss window; only feedback opens it again");
    }
}
