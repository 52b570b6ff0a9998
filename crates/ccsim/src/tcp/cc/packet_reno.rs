//! A window counted in whole packets: the congestion control of Faber's RDP ("Experience with
//! Active Congestion Control", Section 4.2.1), which the RDP sender (`rdp/sender.rs`) uses.
//!
//! "The system behaves like Reno TCP, but with a congestion window sized by packets, not
//! bytes. The implementation increases the window by the inverse of the window size for each
//! acknowledgment as TCP does, but until the fractional packet size reaches one packet, that
//! capacity is unused. Either RDP can send a full sized packet, or it cannot send any sized
//! packet."
//!
//! So the arithmetic is Reno's, and this controller takes it from the [`Window`]'s rules
//! rather than restating it, changing two things:
//!
//! - Congestion avoidance counts ACKs: each ACK of new data adds 1/cwnd of a packet, held
//!   until the fractions make a whole packet, so after cwnd ACKs the window grows by one
//!   packet (the count restarts there and at every reduction). RFC 5681's eq. (3) adds
//!   `SMSS * SMSS / cwnd` bytes per ACK, which a byte-counting window can use at once.
//! - Every window and threshold is a whole number of packets: after each reduction both are
//!   rounded down to whole packets (RFC 5681's eq. (4) halves an odd flight into a half
//!   packet), at least one packet for the window.
//!
//! Slow start (one packet per ACK), fast retransmit and recovery (ssthresh = half the flight,
//! at least two packets; cwnd = ssthresh + 3, one more per duplicate), NewReno's partial ACKs
//! and exit (RFC 6582), the timeout and the ACC control are the window's, in packets. The
//! unit is the `mss` the controller is built with: `cwnd()` is packets times it, so the
//! sender's byte-counted hooks need nothing else, and the RDP sender divides by it.

use super::{Ack, Controller, Event, NewRenoConfig, Signal, Window};

/// The parameters: the window's rules (RFC 5681's minimum ssthresh and loss window, in
/// packets).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PacketRenoConfig {
    pub window: NewRenoConfig,
}

impl PacketRenoConfig {
    /// A window of `init_cwnd` packets of `mss` bytes, threshold `init_ssthresh` bytes.
    pub fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> PacketReno {
        PacketReno { w: self.window.window(mss, init_cwnd, init_ssthresh), acks: 0 }
    }
}

/// The window in whole packets, growing by counted ACKs in congestion avoidance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PacketReno {
    w: Window,
    /// ACKs counted toward the next packet of congestion avoidance.
    acks: u32,
}

impl PacketReno {
    /// The window in packets.
    pub fn packets(&self) -> u32 {
        self.w.cwnd / self.w.mss()
    }

    /// After a reduction: whole packets, and the fraction counted so far forgotten.
    fn whole(&mut self) {
        let mss = self.w.mss();
        self.w.cwnd = (self.w.cwnd / mss * mss).max(mss);
        self.w.ssthresh = self.w.ssthresh / mss * mss;
        self.acks = 0;
    }
}

impl Controller for PacketReno {
    fn window(&self) -> &Window {
        &self.w
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    fn on_ack(&mut self, ack: &Ack) {
        if self.w.in_slow_start() {
            self.w.grow(ack); // slow start: min(acked, one packet)
            let mss = self.w.mss();
            self.w.cwnd = self.w.cwnd / mss * mss;
            return;
        }
        if ack.ece || !ack.cwnd_limited {
            return;
        }
        self.acks += 1;
        if self.acks >= self.packets() {
            self.acks = 0;
            self.w.cwnd = self.w.cwnd.saturating_add(self.w.mss());
        }
    }

    fn reduce(&mut self, ev: &Event, _signal: Signal) -> u32 {
        self.w.reduce(ev)
    }

    fn on_fast_retransmit(&mut self, ev: &Event) {
        let left = self.w.reduce(ev);
        self.w.set_base(left);
        self.whole();
    }

    fn on_recovery_start(&mut self, ev: &Event) {
        self.w.start_recovery(ev.dupacks);
        self.whole();
    }

    fn on_sack_recovery_start(&mut self, _ev: &Event) {
        self.w.start_sack_recovery();
        self.whole();
    }

    fn on_partial_ack(&mut self, ack: &Ack) {
        self.w.deflate(ack);
        self.whole();
    }

    fn on_recovery_end(&mut self, ack: &Ack) {
        self.w.end_recovery(ack);
        self.whole();
    }

    fn on_timeout(&mut self, ev: &Event) {
        if self.w.timeout_reduces(ev) {
            self.w.reduce(ev);
        }
        self.w.collapse();
        self.whole();
    }

    fn on_ecn_echo(&mut self, ev: &Event) {
        let left = self.w.reduce(ev);
        self.w.cut_to(left);
        self.whole();
    }

    fn on_acc_control(&mut self, _ev: &Event, cwnd: u32, ssthresh: u32) {
        self.w.obey(cwnd, ssthresh);
        self.whole();
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    fn pr(cwnd: u32, ssthresh: u32) -> PacketReno {
        PacketRenoConfig::default().build(MSS, cwnd, ssthresh * MSS)
    }

    #[test]
    fn slow_start_adds_one_packet_per_ack() {
        let mut c = pr(1, 100);
        for w in 2..=6 {
            c.on_ack(&ack(MSS, 0));
            assert_eq!(c.cwnd(), w * MSS);
        }
        c.on_ack(&ack(MSS / 2, 0));
        assert_eq!(c.cwnd(), 6 * MSS, "a part of a packet adds nothing: whole packets only");
    }

    #[test]
    fn congestion_avoidance_adds_one_packet_after_cwnd_acks_and_nothing_before() {
        let mut c = pr(5, 5);
        for w in 5..9 {
            for i in 0..w {
                assert_eq!(c.cwnd(), w * MSS, "window {w}, ACK {i}: the fraction is held");
                c.on_ack(&ack(MSS, w * MSS));
            }
        }
        assert_eq!(c.cwnd(), 9 * MSS);
        // A byte-counted Reno has grown by as much, but in fractions all along.
        let mut r = super::super::NewRenoConfig::reno().build(MSS, 5, 5 * MSS);
        r.on_ack(&ack(MSS, 5 * MSS));
        assert_eq!(r.cwnd(), 5 * MSS + MSS / 5);
    }

    #[test]
    fn acks_that_the_window_did_not_limit_or_with_ece_count_nothing() {
        let mut c = pr(3, 3);
        for _ in 0..10 {
            c.on_ack(&Ack { cwnd_limited: false, ..ack(MSS, 0) });
            c.on_ack(&Ack { ece: true, ..ack(MSS, 3 * MSS) });
        }
        assert_eq!(c.cwnd(), 3 * MSS);
    }

    #[test]
    fn reductions_are_renos_in_whole_packets_and_restart_the_count() {
        let mut c = pr(20, 20);
        c.on_ack(&ack(MSS, 20 * MSS)); // one ACK of twenty counted
        c.on_fast_retransmit(&event(17 * MSS, 3));
        assert_eq!(c.ssthresh(), 8 * MSS, "half of 17 packets, rounded down");
        c.on_recovery_start(&event(17 * MSS, 3));
        assert_eq!(c.cwnd(), 11 * MSS, "ssthresh + 3");
        c.on_recovery_dupack(&event(17 * MSS, 4));
        assert_eq!(c.cwnd(), 12 * MSS);
        c.on_partial_ack(&ack(4 * MSS, 12 * MSS));
        assert_eq!(c.cwnd(), 9 * MSS, "deflated by 4, one added back");
        c.on_recovery_end(&ack(12 * MSS, 10 * MSS));
        assert_eq!(c.cwnd(), 8 * MSS, "min(ssthresh, flight + 1)");
        // The count restarted: eight ACKs to the next packet.
        for _ in 0..7 {
            c.on_ack(&ack(MSS, 8 * MSS));
        }
        assert_eq!(c.cwnd(), 8 * MSS);
        c.on_ack(&ack(MSS, 8 * MSS));
        assert_eq!(c.cwnd(), 9 * MSS);
        c.on_timeout(&event(9 * MSS, 0));
        assert_eq!((c.cwnd(), c.ssthresh()), (MSS, 4 * MSS), "the loss window, and half of 9 rounded down");
        c.on_acc_control(&event(MSS, 0), 3 * MSS, 3 * MSS);
        assert_eq!((c.cwnd(), c.ssthresh()), (3 * MSS, 3 * MSS));
        c.on_ecn_echo(&event(5 * MSS, 0));
        assert_eq!((c.cwnd(), c.ssthresh()), (2 * MSS, 2 * MSS));
    }
}
