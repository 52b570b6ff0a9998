//! The congestion headers of the explicit-feedback protocols, as a TCP segment carries them:
//! XCP's (Katabi, Handley and Rohrs, SIGCOMM 2002, Section 3.1: `H_cwnd`, `H_rtt`,
//! `H_feedback`) and RCP's (Dukkipati and McKeown, CCR 2006: the rate the routers grant and
//! the sender's RTT estimate).
//!
//! The sender writes its header on every data segment; each router on the path may lower
//! the feedback (XCP: to its own, when smaller; RCP: the rate, to its own, when smaller); the
//! receiver echoes it in its ACKs ([`Gathered`]). Only the protocols' own ends and
//! disciplines read it: a TCP segment of any other variant carries no header, and a router
//! passes it by.
//!
//! A packet carries the header in its variable area (`Packet::rdp_var`, three 32-bit
//! words that an RDP segment uses for its own fields and a TCP segment otherwise leaves
//! empty), so the packet is no larger for it: word 0 is the kind (2 bits) and the RTT in
//! microseconds (30 bits, up to 1073 s); word 1 XCP's `H_cwnd` (bytes) or RCP's rate (bytes
//! per second); word 2 XCP's `H_feedback` (bytes of window), each an `f32`. Kind 3 is no
//! congestion header but the timestamps option ([`super::timestamps`]). A trace shows
//! none of it: the pcap writer writes the TCP/IP headers, and the header is counted in no
//! packet's size (as ns-2.35, whose `hdr_xcp` adds nothing to `hdr_cmn::size()`).

use super::{Packet, Protocol, VarArea};

/// XCP's congestion header (Katabi et al. 2002, Section 3.1, Figure 2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XcpHeader {
    /// `H_cwnd`: the sender's congestion window, bytes (0 in an ACK's echo).
    pub cwnd: f32,
    /// `H_rtt`: the sender's RTT estimate, microseconds; 0 before it has one (routers then
    /// give no feedback) and in an ACK's echo.
    pub rtt_us: u32,
    /// `H_feedback`: the change of window the routers allow, bytes (negative: a decrease).
    /// The sender writes what it would like (a large number: as much as allowed); routers
    /// lower it; the ACK echoes what arrived.
    pub feedback: f32,
}

/// RCP's congestion header (Dukkipati and McKeown 2006, Section 3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RcpHeader {
    /// The rate the routers grant, bytes per second: the sender writes what it would like
    /// (a large number), each router lowers it to its own rate; the ACK echoes it.
    pub rate: f32,
    /// The sender's RTT estimate, microseconds (0 before it has one, and in an ACK's echo).
    pub rtt_us: u32,
}

/// A TCP segment's congestion header.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Explicit {
    Xcp(XcpHeader),
    Rcp(RcpHeader),
}

pub(super) const KIND_SHIFT: u32 = 30;
const RTT_MASK: u32 = (1 << KIND_SHIFT) - 1;
const XCP: u32 = 1;
const RCP: u32 = 2;
/// Word 0's kind when the area holds RFC 7323's timestamps instead ([`super::timestamps`]).
pub(super) const TIMESTAMPS: u32 = 3;

/// An RTT in microseconds as word 0 holds it (saturated at 30 bits).
pub fn rtt_field(rtt_us: u64) -> u32 {
    rtt_us.min(RTT_MASK as u64) as u32
}

impl Explicit {
    /// The variable area holding the header.
    pub fn to_area(self) -> VarArea {
        match self {
            Explicit::Xcp(h) => VarArea::from_words([XCP << KIND_SHIFT | h.rtt_us & RTT_MASK, h.cwnd.to_bits(), h.feedback.to_bits()]),
            Explicit::Rcp(h) => VarArea::from_words([RCP << KIND_SHIFT | h.rtt_us & RTT_MASK, h.rate.to_bits(), 0]),
        }
    }

    /// The header a TCP segment's variable area holds, if any.
    pub fn from_area(a: VarArea) -> Option<Explicit> {
        let [w0, w1, w2] = a.words();
        let rtt_us = w0 & RTT_MASK;
        match w0 >> KIND_SHIFT {
            XCP => Some(Explicit::Xcp(XcpHeader { cwnd: f32::from_bits(w1), rtt_us, feedback: f32::from_bits(w2) })),
            RCP => Some(Explicit::Rcp(RcpHeader { rate: f32::from_bits(w1), rtt_us })),
            _ => None,
        }
    }
}

/// What a receiver gathers for its next ACK's echo: XCP's feedback summed over the segments
/// since its last ACK (ns-2.35's `XcpTcpSink` adds every segment's feedback up and sends the
/// sum with its next ACK, so that a delayed ACK loses none), or RCP's latest rate. Held in
/// 32 bits, so that a receiver keeps it in room it had spare (a receiver is three cache
/// lines): 0 for nothing gathered; otherwise the two low bits say whose (1: XCP, 2: RCP) and
/// the rest are the upper 30 bits of the `f32` (a precision of 2^-21, against the header's
/// 2^-23).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Gathered(u32);

impl Gathered {
    pub const NONE: Gathered = Gathered(0);

    fn of(kind: u32, v: f32) -> Gathered {
        Gathered(v.to_bits() & !3 | kind)
    }

    fn value(self) -> f32 {
        f32::from_bits(self.0 & !3)
    }

    /// The echo once a data segment carrying `data` arrived.
    pub fn with(self, data: Explicit) -> Gathered {
        match data {
            Explicit::Xcp(d) if self.0 & 3 == XCP => Gathered::of(XCP, self.value() + d.feedback),
            Explicit::Xcp(d) => Gathered::of(XCP, d.feedback),
            Explicit::Rcp(d) => Gathered::of(RCP, d.rate),
        }
    }

    /// The header an ACK carries for what was gathered, if anything; gathers anew.
    pub fn take(&mut self) -> Option<Explicit> {
        let g = std::mem::take(self);
        match g.0 & 3 {
            XCP => Some(Explicit::Xcp(XcpHeader { cwnd: 0.0, rtt_us: 0, feedback: g.value() })),
            RCP => Some(Explicit::Rcp(RcpHeader { rate: g.value(), rtt_us: 0 })),
            _ => None,
        }
    }
}

impl Packet {
    /// Whether a TCP segment carries an option in its spare area: a congestion header or
    /// timestamps (one test for both, where neither is the rule).
    #[inline]
    pub fn has_tcp_option(&self) -> bool {
        self.rdp_var.words()[0] >> KIND_SHIFT != 0 && self.is_tcp()
    }

    /// The congestion header of a TCP segment, if it carries one.
    #[inline]
    pub fn explicit(&self) -> Option<Explicit> {
        if self.rdp_var.words()[0] >> KIND_SHIFT == 0 || self.protocol() != Protocol::Tcp {
            return None;
        }
        Explicit::from_area(self.rdp_var)
    }

    /// Gives a TCP segment the congestion header `h`.
    pub fn set_explicit(&mut self, h: Explicit) {
        debug_assert!(self.is_tcp(), "only a TCP segment carries a congestion header");
        self.rdp_var = h.to_area();
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Endpoints, Seq};
    use super::*;
    use crate::sim::SimTime;

    const ENDS: Endpoints = Endpoints { flow: 0, sender: 1, receiver: 2, sport: 1, dport: 2 };

    #[test]
    fn headers_round_trip_through_the_packet_and_leave_its_size_alone() {
        let mut p = Packet::tcp_data(&ENDS, Seq(0), 1000, 64, SimTime::ZERO);
        assert_eq!(p.explicit(), None, "a plain segment carries none");
        let x = Explicit::Xcp(XcpHeader { cwnd: 14_600.0, rtt_us: 80_123, feedback: -312.5 });
        p.set_explicit(x);
        assert_eq!((p.explicit(), p.size), (Some(x), 1040));
        let r = Explicit::Rcp(RcpHeader { rate: 1.25e6, rtt_us: 1 << 29 });
        p.set_explicit(r);
        assert_eq!(p.explicit(), Some(r));
        assert_eq!(rtt_field(u64::MAX), RTT_MASK, "an RTT too long saturates");
        // An RDP segment's area is RDP's own, whatever its bits.
        let f = super::super::Fields { var: VarArea::eacks(u64::MAX), ..Default::default() };
        let rdp = Packet::rdp(super::super::Kind::RdpAck, &ENDS, f, 0, 64, SimTime::ZERO);
        assert_eq!(rdp.explicit(), None);
        assert_eq!(rdp.rdp_var.eack_bits(), u64::MAX, "RDP's 64 bits are intact");
    }

    /// A packet is 104 bytes, with or without a congestion header: every queued or
    /// propagating packet is one, so growing it costs every run.
    #[test]
    fn the_packet_stays_104_bytes() {
        assert_eq!(std::mem::size_of::<Packet>(), 104);
    }

    #[test]
    fn the_echo_sums_xcp_feedback_and_keeps_rcp_s_latest_rate() {
        let x = |f: f32| Explicit::Xcp(XcpHeader { cwnd: 5000.0, rtt_us: 100, feedback: f });
        let mut g = Gathered::NONE.with(x(100.0)).with(x(-30.0));
        assert_eq!(g.take(), Some(Explicit::Xcp(XcpHeader { cwnd: 0.0, rtt_us: 0, feedback: 70.0 })));
        assert_eq!((g, g.take()), (Gathered::NONE, None), "taken: gathered anew");
        let mut g = Gathered::NONE.with(x(0.0));
        assert_eq!(g.take(), Some(Explicit::Xcp(XcpHeader { cwnd: 0.0, rtt_us: 0, feedback: 0.0 })), "a zero sum is still an echo");
        let r = |rate: f32| Explicit::Rcp(RcpHeader { rate, rtt_us: 100 });
        let mut g = Gathered::NONE.with(r(5.0)).with(r(3.0));
        assert_eq!(g.take(), Some(Explicit::Rcp(RcpHeader { rate: 3.0, rtt_us: 0 })));
        let mut g = Gathered::NONE.with(x(1.0 / 3.0));
        let Some(Explicit::Xcp(h)) = g.take() else { panic!() };
        assert!((h.feedback - 1.0 / 3.0).abs() < 1e-6, "{}", h.feedback);
    }
}
