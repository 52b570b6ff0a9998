//! RFC 7323's timestamps option (TSopt), on every TCP segment of a flow with
//! `tcp.timestamps`: TSval, the sender's timestamp clock when the segment left, and TSecr,
//! the TSval the other end last took into `TS.Recent` (section 3.2).
//!
//! On the wire the option is 12 bytes, NOP, NOP, kind 8, length 10, TSval, TSecr (RFC 7323
//! Appendix A's layout, as Linux and ns-3 send it), counted in the segment's size. A packet
//! holds the two values in its variable area (`Packet::rdp_var`, the room XCP's and RCP's
//! congestion headers use, [`super::explicit`]): word 0 is the kind 3 in its two top bits,
//! word 1 TSval, word 2 TSecr. So the packet is no larger for it, and a flow carries either
//! a congestion header or timestamps, never both (a scenario asking for both is refused).
//!
//! The timestamp clock ticks once a microsecond of simulated time, starting at 1 (so that
//! 0 stays "nothing echoed yet", a TSecr the sender takes no sample from). RFC 7323 section
//! 5.4 suggests 1 ms to 1 s a tick; a finer clock changes nothing on the wire but the values,
//! and makes the RTT samples as exact as ns-2.35's (its `ts_` is the simulated time itself).
//! It wraps after 71 minutes; every comparison is modulo 2^32 (section 5.2).

use super::explicit::{KIND_SHIFT, TIMESTAMPS};
use super::{Packet, VarArea};
use crate::sim::{Dur, SimTime};

/// Bytes the option adds to a TCP segment on the wire: two NOPs and the 10-byte option.
pub const OPTION_BYTES: u32 = 12;

/// The two values of a segment's timestamps option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timestamps {
    /// TSval: the sending end's clock ([`clock`]).
    pub val: u32,
    /// TSecr: the echoed timestamp (0: nothing to echo yet).
    pub ecr: u32,
}

/// The timestamp clock at `now`: microseconds plus one, modulo 2^32, never 0.
#[inline]
pub fn clock(now: SimTime) -> u32 {
    match ((now.0 / 1000) as u32).wrapping_add(1) {
        0 => 1,
        v => v,
    }
}

/// Whether timestamp `a` is at or after `b`, modulo 2^32 (RFC 7323 section 5.2).
#[inline]
pub fn at_or_after(a: u32, b: u32) -> bool {
    a.wrapping_sub(b) as i32 >= 0
}

/// The time since the clock read `ecr`, for an RTT sample at `now` (RFC 7323 section 4.1:
/// the current clock less TSecr); None for a TSecr of 0, which echoes nothing.
#[inline]
pub fn elapsed(ecr: u32, now: SimTime) -> Option<Dur> {
    (ecr != 0).then(|| Dur::from_micros(clock(now).wrapping_sub(ecr) as u64))
}

impl Packet {
    /// The timestamps option of a TCP segment, if it carries one.
    #[inline]
    pub fn timestamps(&self) -> Option<Timestamps> {
        let [w0, val, ecr] = self.rdp_var.words();
        (w0 >> KIND_SHIFT == TIMESTAMPS && self.is_tcp()).then_some(Timestamps { val, ecr })
    }

    /// Gives a TCP segment the timestamps option `ts`; its size on the wire grows by
    /// [`OPTION_BYTES`] the first time.
    pub fn set_timestamps(&mut self, ts: Timestamps) {
        debug_assert!(self.is_tcp() && (self.explicit().is_none()), "a congestion header and timestamps share their room");
        if self.timestamps().is_none() {
            self.size += OPTION_BYTES;
        }
        self.rdp_var = VarArea::from_words([TIMESTAMPS << KIND_SHIFT, ts.val, ts.ecr]);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Endpoints, Seq, TCP_IP_HEADER};
    use super::*;

    const ENDS: Endpoints = Endpoints { flow: 0, sender: 1, receiver: 2, sport: 1, dport: 2 };

    #[test]
    fn the_option_rides_in_the_variable_area_and_adds_twelve_bytes_on_the_wire() {
        let mut p = Packet::tcp_data(&ENDS, Seq(0), 1000, 64, SimTime::ZERO);
        assert_eq!((p.timestamps(), p.size), (None, 1040));
        let ts = Timestamps { val: 7, ecr: 3 };
        p.set_timestamps(ts);
        assert_eq!((p.timestamps(), p.size), (Some(ts), 1052), "ns-3's 1054 bytes less its 2-byte PPP header");
        p.set_timestamps(Timestamps { val: 8, ecr: 3 });
        assert_eq!(p.size, 1052, "set twice, counted once");
        assert_eq!(p.explicit(), None, "no congestion header");
        let mut a = Packet::tcp_ack(&ENDS, Seq(1000), 65_535, 64, SimTime::ZERO);
        a.set_timestamps(ts);
        assert_eq!(a.size, TCP_IP_HEADER + OPTION_BYTES);
    }

    #[test]
    fn the_clock_ticks_in_microseconds_from_one_and_compares_modulo_2_32() {
        assert_eq!(clock(SimTime::ZERO), 1);
        assert_eq!(clock(SimTime(1_999)), 2);
        assert_eq!(clock(SimTime((u32::MAX as u64) * 1000)), 1, "wraps past 0");
        assert!(at_or_after(5, 5) && at_or_after(2, u32::MAX) && !at_or_after(u32::MAX, 2));
        let sent = SimTime(3_000_000);
        assert_eq!(elapsed(clock(sent), sent + Dur::from_millis(40)), Some(Dur::from_millis(40)));
        assert_eq!(elapsed(0, sent), None);
    }
}
