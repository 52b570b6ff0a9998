//! Proportional Rate Reduction (RFC 6937 section 3): how much a sender in a window reduction
//! (SACK loss recovery, or Linux's and ns-3's CWR state after an ECN-Echo) sends on each ACK.
//!
//! At the start of the reduction: `prr_delivered = prr_out = 0` and `RecoverFS` = the
//! FlightSize (`snd.nxt - snd.una`, as RFC 6937 and ns-3.37's `TcpPrrRecovery` take it;
//! Linux's `tcp_init_cwnd_reduction()` takes the window before the cut). On every ACK:
//! `prr_delivered += DeliveredData` (the change in SND.UNA plus the change in the bytes
//! SACKed), then
//!
//! - while pipe > ssthresh: `sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out`
//!   (the window comes down in proportion to what is delivered);
//! - otherwise `sndcnt = MIN(ssthresh - pipe, limit)`, with `limit = MAX(prr_delivered -
//!   prr_out, DeliveredData) + SMSS` (PRR-SSRB, the RFC's recommended bound) or `prr_delivered
//!   - prr_out` (PRR-CRB, the conservative bound).
//!
//! The proportional target `CEIL(...)` is rounded up to whole segments, as the RFC's
//! examples count (in segments) and Linux's `tcp_cwnd_reduction()` does (in packets); ns-3.37
//! rounds it up to a byte, so with ssthresh half of RecoverFS its sends come one ACK later
//! (it sends a segment once the window allows a whole one).
//!
//! As Linux's `tcp_cwnd_reduction()` and ns-3.37's `DoRecovery()` do, `sndcnt` is at least
//! one segment while nothing has been sent in the reduction (the fast retransmission; in the
//! CWR state, one segment on the echo's ACK). Every byte sent meanwhile adds to `prr_out`.
//! The sender may then have `pipe + sndcnt` bytes in the network ([`Prr::window`]): Linux
//! and ns-3 set cwnd to that.
//!
//! ns-3.37 and Linux apply the slow-start bound only on ACKs that acknowledge retransmitted
//! data (and, in Linux, report no lost retransmission), and `MIN(ssthresh - pipe,
//! DeliveredData)` on the others: the rule of the later draft that became RFC 9937. ccsim
//! follows RFC 6937, which applies it on every ACK.

/// The reduction bound used once pipe is at or below ssthresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// PRR-SSRB: one segment more than delivered on each ACK (slow start up to ssthresh).
    SlowStart,
    /// PRR-CRB: never more than delivered over the reduction (the strong packet
    /// conservation bound of RFC 6937 Appendix A).
    Conservative,
}

/// PRR's state during one reduction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    active: bool,
    /// `prr_delivered`: bytes delivered to the receiver since the reduction began.
    delivered: u64,
    /// `prr_out`: bytes sent since the reduction began.
    out: u64,
    /// `RecoverFS`: the FlightSize when it began.
    recover_fs: u64,
    /// `pipe + sndcnt` of the last ACK.
    window: u64,
}

impl Prr {
    /// A reduction begins with `flight` bytes outstanding.
    pub fn start(&mut self, flight: u64) {
        *self = Prr { active: true, recover_fs: flight.max(1), ..Prr::default() };
    }

    /// The reduction is over (its window no longer limits sending).
    pub fn stop(&mut self) {
        self.active = false;
    }

    pub fn active(&self) -> bool {
        self.active
    }

    /// `prr_out += bytes` (any transmission during the reduction).
    pub fn on_sent(&mut self, bytes: u64) {
        if self.active {
            self.out += bytes;
        }
    }

    /// An ACK that delivered `delivered` bytes, with `pipe` bytes then in the network (RFC
    /// 6675's SetPipe()) and the controller's `ssthresh`: returns `sndcnt`, the bytes the
    /// sender may send in answer, and keeps `pipe + sndcnt` as the [`window`](Self::window).
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, ssthresh: u64, mss: u64, bound: Bound) -> u64 {
        self.delivered += delivered;
        let banked = self.delivered.saturating_sub(self.out);
        let sndcnt = if pipe > ssthresh {
            // Proportional Rate Reduction, rounded up to whole segments.
            let target = (self.delivered as u128 * ssthresh as u128).div_ceil(self.recover_fs as u128 * mss as u128) as u64 * mss;
            target.saturating_sub(self.out)
        } else {
            let limit = match bound {
                Bound::SlowStart => banked.max(delivered) + mss,
                Bound::Conservative => banked,
            };
            (ssthresh - pipe).min(limit)
        };
        let sndcnt = if self.out == 0 { sndcnt.max(mss) } else { sndcnt };
        self.window = pipe + sndcnt;
        sndcnt
    }

    /// The bytes the sender may have in the network after the last ACK: `pipe + sndcnt`.
    pub fn window(&self) -> u64 {
        self.window
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// RFC 6937 section 3.1, the second example: cwnd = FlightSize = pipe = 20 segments,
    /// ssthresh 10, Limited Transmit; segments 0 to 14 are lost, so only the ACKs of 15 to
    /// 19 return. The first two send new data by Limited Transmit (22 segments outstanding),
    /// the third starts recovery with pipe = 22 - 3 SACKed - 15 lost = 4 segments. The RFC's
    /// rows: PRR-CRB sends one retransmission per ACK (pipe 4, 4, 4; bound "b"), PRR-SSRB two
    /// (pipe 4, 5, 6; bounds "bd", "d", "d").
    fn burst(bound: Bound) -> Vec<(u64, u64)> {
        let mut prr = Prr::default();
        prr.start(22 * MSS);
        let mut pipe = 4 * MSS;
        let mut rows = Vec::new();
        for _ack in 17..=19 {
            let sndcnt = prr.on_ack(MSS, pipe, 10 * MSS, MSS, bound);
            rows.push((pipe / MSS, sndcnt / MSS));
            prr.on_sent(sndcnt);
            pipe += sndcnt;
            pipe -= MSS; // the next ACK SACKs one more segment
        }
        rows
    }

    #[test]
    fn rfc6937_burst_loss_example_crb_and_ssrb() {
        assert_eq!(burst(Bound::Conservative), vec![(4, 1), (4, 1), (4, 1)]);
        assert_eq!(burst(Bound::SlowStart), vec![(4, 2), (5, 2), (6, 2)]);
    }

    /// RFC 6937 section 3.1, the first example (one segment lost of 20, ssthresh 10, RecoverFS
    /// 20 segments): while pipe exceeds ssthresh PRR sends one segment for every two
    /// delivered, the retransmission first, "spread[ing] the voluntary window reduction
    /// across an entire RTT", and pipe comes down to ssthresh, 10, on the ACK of 19 (the
    /// RFC's pipe row ends at 10 there too).
    #[test]
    fn rfc6937_single_loss_sends_one_segment_per_two_delivered() {
        let mut prr = Prr::default();
        prr.start(20 * MSS);
        // The ACK of segment 3 starts recovery: pipe = 20 - 3 SACKed - 1 lost = 16 segments
        // of the original flight, plus the two new segments Limited Transmit sent.
        let mut pipe = 18 * MSS;
        let mut sent = Vec::new();
        for ack in 3..=19 {
            let sndcnt = prr.on_ack(MSS, pipe, 10 * MSS, MSS, Bound::SlowStart);
            let n = sndcnt / MSS;
            sent.push((ack, n));
            prr.on_sent(n * MSS);
            pipe = pipe + n * MSS - MSS;
        }
        let sending: Vec<u64> = sent.iter().filter(|(_, n)| *n > 0).map(|(a, _)| *a).collect();
        assert_eq!(sending, vec![3, 5, 7, 9, 11, 13, 15, 17]);
        assert!(sent.iter().all(|(_, n)| *n <= 1), "{sent:?}");
        assert_eq!(pipe, 9 * MSS, "10 when the ACK of 19 arrived, nothing sent on it");
    }

    #[test]
    fn at_most_the_target_is_sent_when_pipe_is_below_it_and_the_first_send_is_forced() {
        let mut prr = Prr::default();
        prr.start(10 * MSS);
        // Nothing delivered yet, pipe above ssthresh: the fast retransmission still goes.
        assert_eq!(prr.on_ack(0, 9 * MSS, 5 * MSS, MSS, Bound::SlowStart), MSS);
        assert_eq!(prr.window(), 10 * MSS);
        prr.on_sent(MSS);
        // Pipe one segment under ssthresh: SSRB would allow 3, ssthresh - pipe caps it at 1.
        assert_eq!(prr.on_ack(2 * MSS, 4 * MSS, 5 * MSS, MSS, Bound::SlowStart), MSS);
        // Inactive state counts nothing sent.
        prr.stop();
        prr.on_sent(5 * MSS);
        assert!(!prr.active());
    }
}
