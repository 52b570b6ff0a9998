//! NewReno's window arithmetic (RFC 6582): Reno's (RFC 5681) with the two window rules of
//! NewReno's fast recovery. The rest of RFC 6582 (the partial ACK's retransmission, its timer
//! and the `recover` check before a fast retransmit) is loss recovery, in the sender.
//!
//! - Partial acknowledgment (RFC 6582 3.2 step 3): "Deflate the congestion window by the
//!   amount of new data acknowledged [...]. If the partial ACK acknowledges at least one
//!   SMSS of new data, then add back SMSS bytes", so that about ssthresh is outstanding when
//!   recovery ends. The window never falls below one SMSS. (ns-2's `partialnewack()` takes
//!   the deflation off the duplicates' inflation first and off the window under it only
//!   for the rest; [`Reno`]'s `base` follows that.)
//! - Full acknowledgment (step 3), [`NewRenoConfig::full_ack`]: of the two choices the RFC
//!   offers, option (1), `cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS)`, FlightSize as
//!   it is after the ACK (the default: the window is not larger than what is in flight plus
//!   one segment, so leaving recovery sends no burst), or option (2), `cwnd = ssthresh`,
//!   [`Reno`]'s rule and ns-2.35's (`exit_recovery_fix_ 0`: the inflation is dropped and the
//!   window under it stays, whatever is in flight).

use super::reno::SsthreshFrom;
use super::{Ack, Controller, Event, Reno, RenoConfig};

/// The window on leaving fast recovery (RFC 6582 3.2 step 3, full acknowledgment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FullAck {
    /// Option (1): `min(ssthresh, max(FlightSize, SMSS) + SMSS)`.
    MinFlight,
    /// Option (2): the reduced window (`ssthresh`), as Reno and ns-2.
    Ssthresh,
}

/// NewReno's parameters: RFC 5681's, in `reno`, and the exit rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewRenoConfig {
    /// Slow start, congestion avoidance and the reductions, as RFC 6582 keeps them.
    pub reno: RenoConfig,
    /// The window on leaving recovery; default [`FullAck::MinFlight`].
    pub full_ack: FullAck,
}

impl Default for NewRenoConfig {
    fn default() -> Self {
        NewRenoConfig { reno: RenoConfig::default(), full_ack: FullAck::MinFlight }
    }
}

impl NewRenoConfig {
    /// A NewReno window of `init_cwnd` segments of `mss` bytes, threshold `init_ssthresh`
    /// bytes.
    pub fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> NewReno {
        NewReno { reno: self.reno.build(mss, init_cwnd, init_ssthresh), full_ack: self.full_ack }
    }
}

/// NewReno's window: [`Reno`]'s, with RFC 6582's deflation and exit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewReno {
    pub(super) reno: Reno,
    full_ack: FullAck,
}

impl Controller for NewReno {
    fn cwnd(&self) -> u32 {
        self.reno.cwnd
    }

    fn ssthresh(&self) -> u32 {
        self.reno.ssthresh
    }

    fn on_ack(&mut self, ack: &Ack) {
        self.reno.on_ack(ack)
    }

    fn on_fast_retransmit(&mut self, ev: &Event) {
        self.reno.on_fast_retransmit(ev)
    }

    fn on_recovery_start(&mut self, ev: &Event) {
        self.reno.on_recovery_start(ev)
    }

    fn on_sack_recovery_start(&mut self, ev: &Event) {
        self.reno.on_sack_recovery_start(ev)
    }

    fn on_recovery_dupack(&mut self, ev: &Event) {
        self.reno.on_recovery_dupack(ev)
    }

    fn on_partial_ack(&mut self, ack: &Ack) {
        let r = &mut self.reno;
        let add_back = if ack.acked >= r.mss as u64 { r.mss } else { 0 };
        r.cwnd = ((r.cwnd as u64).saturating_sub(ack.acked) as u32 + add_back).max(r.mss);
        if r.cfg.ssthresh_from == SsthreshFrom::Window {
            // ns-2: what the deflation took beyond the inflation comes off the window under it.
            r.base = r.base.min(r.cwnd.saturating_sub(r.mss)).max(r.mss);
        }
    }

    fn on_recovery_end(&mut self, ack: &Ack) {
        match self.full_ack {
            FullAck::MinFlight => {
                let r = &mut self.reno;
                r.cwnd = r.ssthresh.min(ack.flight().max(r.mss) + r.mss);
                r.leave_recovery();
            }
            FullAck::Ssthresh => self.reno.on_recovery_end(ack),
        }
    }

    fn on_timeout(&mut self, ev: &Event) {
        self.reno.on_timeout(ev)
    }

    fn on_ecn_echo(&mut self, ev: &Event) {
        self.reno.on_ecn_echo(ev)
    }

    fn on_loss_in_answered_window(&mut self, ev: &Event) {
        self.reno.on_loss_in_answered_window(ev)
    }

    fn on_acc_control(&mut self, ev: &Event, cwnd: u32, ssthresh: u32) {
        self.reno.on_acc_control(ev, cwnd, ssthresh)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    /// A NewReno window in fast recovery after a fast retransmit with 20 segments in flight:
    /// ssthresh 10 segments, cwnd 13.
    fn recovering() -> NewReno {
        let mut n = NewRenoConfig::default().build(MSS, 20, u32::MAX / 2);
        n.on_fast_retransmit(&event(20 * MSS, 3));
        n.on_recovery_start(&event(20 * MSS, 3));
        assert_eq!((n.cwnd(), n.ssthresh()), (13 * MSS, 10 * MSS));
        n
    }

    #[test]
    fn partial_ack_deflates_by_the_bytes_acknowledged_and_adds_back_one_mss() {
        let mut n = recovering();
        n.on_partial_ack(&ack(4 * MSS, 15 * MSS));
        assert_eq!(n.cwnd(), 13 * MSS - 4 * MSS + MSS);
        // Less than one MSS acknowledged: nothing added back.
        n.on_partial_ack(&ack(MSS / 2, 15 * MSS));
        assert_eq!(n.cwnd(), 10 * MSS - MSS / 2);
        // Exactly one MSS: deflate and add back, no change.
        n.on_partial_ack(&ack(MSS, 14 * MSS));
        assert_eq!(n.cwnd(), 10 * MSS - MSS / 2);
        // A partial ACK of more than the window leaves one MSS.
        n.on_partial_ack(&ack(30 * MSS, 2 * MSS));
        assert_eq!(n.cwnd(), MSS);
        assert_eq!(n.ssthresh(), 10 * MSS, "deflation leaves ssthresh alone");
    }

    #[test]
    fn deflation_leaves_about_ssthresh_in_the_network() {
        // Segments 0 and 8 of a window of 20 are lost: 18 duplicates come back, 3 start
        // recovery and 15 inflate the window.
        let mut n = recovering();
        for d in 4..=18 {
            n.on_recovery_dupack(&event(20 * MSS, d));
        }
        assert_eq!(n.cwnd(), 28 * MSS, "inflated by every duplicate");
        // The retransmission of segment 0 is acknowledged up to the second hole.
        n.on_partial_ack(&ack(8 * MSS, 20 * MSS));
        assert_eq!(n.cwnd(), 21 * MSS);
        // Of that window, the 11 segments above the second hole sit in the receiver's
        // buffer: what the network may hold is ssthresh.
        assert_eq!(n.cwnd() - 11 * MSS, n.ssthresh());
    }

    #[test]
    fn full_ack_exit_is_min_of_ssthresh_and_flight_plus_one_mss() {
        // Much in flight (new data sent during recovery): cwnd = ssthresh.
        let mut n = recovering();
        n.on_recovery_end(&ack(10 * MSS, 12 * MSS));
        assert_eq!(n.cwnd(), 10 * MSS);
        // Little in flight: FlightSize + MSS, no burst on leaving recovery.
        let mut n = recovering();
        n.on_recovery_end(&ack(19 * MSS, 3 * MSS));
        assert_eq!(n.cwnd(), 4 * MSS);
        // Nothing in flight: max(FlightSize, SMSS) + SMSS = two segments.
        let mut n = recovering();
        n.on_recovery_end(&ack(20 * MSS, 0));
        assert_eq!(n.cwnd(), 2 * MSS);
        assert_eq!(n.ssthresh(), 10 * MSS);
    }

    #[test]
    fn everything_else_is_renos() {
        let cfg = RenoConfig::default();
        let mut n = NewRenoConfig { reno: cfg.clone(), ..NewRenoConfig::default() }.build(MSS, 2, 6 * MSS);
        let mut r = cfg.build(MSS, 2, 6 * MSS);
        let acks = [ack(MSS, 4 * MSS), Ack { ece: true, ..ack(MSS, 4 * MSS) }, ack(MSS / 3, 4 * MSS)];
        for i in 0..40 {
            let a = acks[i % acks.len()];
            n.on_ack(&a);
            r.on_ack(&a);
            assert_eq!((n.cwnd(), n.ssthresh()), (r.cwnd(), r.ssthresh()));
        }
        for c in [&mut n as &mut dyn Controller, &mut r] {
            c.on_timeout(&event(9 * MSS, 0));
            c.on_ecn_echo(&event(3 * MSS, 0));
            c.on_acc_control(&event(3 * MSS, 0), MSS, 3 * MSS);
        }
        assert_eq!((n.cwnd(), n.ssthresh()), (r.cwnd(), r.ssthresh()));
    }
}
