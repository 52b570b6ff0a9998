//! Delivery-rate sampling: per ACK, how fast the network delivered the flow's data, as the
//! delivery-rate estimation draft (Cheng, Cardwell, Hassas Yeganeh, Jacobson,
//! draft-cheng-iccrg-delivery-rate-estimation-02) and Linux's `tcp_rate.c` compute it, with
//! the RTT and the data in flight the sample saw. BBR and Prague need it; a controller asks
//! for it ([`Controller::wants_rate_samples`](super::cc::Controller::wants_rate_samples)),
//! and a sender whose controller does not keeps no record and pays one branch per send and
//! per ACK.
//!
//! The rules (section 3 of the draft):
//!
//! - The connection counts `delivered`, the bytes cumulatively or selectively acknowledged
//!   so far, and `delivered_time`, when that count last grew; `first_sent_time` is when the
//!   packet most recently delivered was sent, the start of the current send interval.
//! - Each transmission records the connection's `delivered`, `delivered_time` and
//!   `first_sent_time` then, its own send time and whether the flow was application-limited
//!   (3.2). A transmission with nothing outstanding restarts both intervals at now.
//! - A sample reports the data in flight before its ACK and when its packet left, twice: as
//!   the FlightSize (SND.MAX - SND.UNA: `prior_in_flight`, `tx_in_flight`) and as what the
//!   sender estimates to be in the network (`prior_pipe`, `tx_pipe`): with SACK RFC 6675's
//!   pipe, which leaves out what the receiver holds and what is deemed lost and not yet
//!   resent (the BBR draft's `C.inflight`, Linux's `tcp_packets_in_flight`); without SACK
//!   the FlightSize again.
//! - When data is delivered, the most recently sent of the packets it covers gives the
//!   sample (3.3): `delivered` = the connection's count now less the packet's,
//!   `send_elapsed` = its send time less its `first_sent_time`, `ack_elapsed` = now less its
//!   `delivered_time`, and the rate is `delivered / max(send_elapsed, ack_elapsed)`: the
//!   longer of the two intervals, so that neither a burst of sends nor a compressed burst
//!   of ACKs makes the rate exceed what the bottleneck delivered.
//! - A sample whose interval is shorter than the smallest RTT seen is not a rate (Linux:
//!   "Normally we expect interval_us >= min-rtt"; [`RateSample::rate_bps`] is None).
//! - The flow is application-limited (3.4) when it had less to send than the window
//!   allowed; samples taken until the data in flight then is delivered say so
//!   (`is_app_limited`), and a controller may ignore their low rates.
//!
//! Records are kept per transmitted byte range, in sequence order; a retransmission
//! refreshes the records it covers, and a SACK delivers the ranges it covers once.
//!
//! Losses, as Linux's `tcp_rate.c` gives them to BBR v3 (`rs->lost`, `rs->tx_in_flight`):
//! the connection counts `lost`, the bytes it resent (a range is resent once the sender has
//! judged it lost: fast retransmit, SACK's NextSeg(), the timer); each transmission records
//! that count and the data in flight with it, and a sample says how much was lost since its
//! packet was sent and how much was in flight then.

use crate::sim::{Dur, SimTime};
use std::collections::VecDeque;

/// One rate sample, as an ACK gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSample {
    /// When the ACK that gave the sample arrived.
    pub now: SimTime,
    /// Bytes delivered over the sample's interval.
    pub delivered: u64,
    /// The sample's interval: the longer of its send and ACK intervals.
    pub interval: Dur,
    /// The round-trip time of the most recently sent packet the ACK delivered, if that
    /// packet was not retransmitted.
    pub rtt: Option<Dur>,
    /// Bytes in flight before this ACK (the FlightSize).
    pub prior_in_flight: u64,
    /// Bytes estimated in the network before this ACK (RFC 6675's pipe with SACK).
    pub prior_pipe: u64,
    /// The sample's data was sent while the flow was application-limited.
    pub is_app_limited: bool,
    /// The connection's delivered count after this ACK.
    pub total_delivered: u64,
    /// Bytes resent (judged lost) since the sample's packet was sent.
    pub lost: u64,
    /// Bytes in flight when the sample's packet was sent, itself included (the FlightSize).
    pub tx_in_flight: u64,
    /// Bytes estimated in the network when the sample's packet was sent, itself included
    /// (RFC 6675's pipe with SACK).
    pub tx_pipe: u64,
    /// The connection's count of bytes resent, after this ACK.
    pub total_lost: u64,
    /// Bytes the loss detector newly marked lost while processing this ACK (Linux's
    /// `rs->losses`): RACK-TLP's marks; 0 without RACK-TLP.
    pub losses: u64,
    /// The smallest interval a rate may have: the smallest RTT seen so far.
    min_rtt: Option<Dur>,
}

impl RateSample {
    /// A hand-built sample for the controllers' tests: `delivered` bytes over `interval`,
    /// no smallest RTT to check the interval against, taken at time zero ([`Self::at`]).
    #[cfg(test)]
    pub(crate) fn new(delivered: u64, interval: Dur, rtt: Option<Dur>, prior_in_flight: u64, is_app_limited: bool, total_delivered: u64) -> RateSample {
        RateSample {
            now: SimTime::ZERO,
            delivered,
            interval,
            rtt,
            prior_in_flight,
            prior_pipe: prior_in_flight,
            is_app_limited,
            total_delivered,
            lost: 0,
            tx_in_flight: prior_in_flight,
            tx_pipe: prior_in_flight,
            total_lost: 0,
            losses: 0,
            min_rtt: None,
        }
    }

    /// The same with losses: `lost` since the packet was sent with `tx_in_flight` out, and
    /// the connection's `total_lost`.
    #[cfg(test)]
    #[allow(dead_code)] // for the controllers' tests
    pub(crate) fn with_loss(self, lost: u64, tx_in_flight: u64, total_lost: u64) -> RateSample {
        RateSample { lost, tx_in_flight, tx_pipe: tx_in_flight, total_lost, ..self }
    }

    /// The same taken by an ACK at `now`.
    #[cfg(test)]
    pub(crate) fn at(self, now: SimTime) -> RateSample {
        RateSample { now, ..self }
    }

    /// The same with `losses` bytes newly marked lost by its ACK.
    #[cfg(test)]
    pub(crate) fn with_losses(self, losses: u64) -> RateSample {
        RateSample { losses, ..self }
    }

    /// The delivery rate, bytes per second, or None for an interval shorter than the
    /// smallest RTT seen (or empty).
    pub fn rate_bps(&self) -> Option<f64> {
        let ns = self.interval.as_nanos();
        if ns == 0 || self.min_rtt.is_some_and(|m| self.interval < m) {
            return None;
        }
        Some(self.delivered as f64 * 1e9 / ns as f64)
    }
}

/// A transmitted byte range and the connection's state when it was last sent.
#[derive(Clone, Copy, Debug)]
struct Sent {
    start: u64,
    end: u64,
    sent_time: SimTime,
    delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    app_limited: bool,
    retransmitted: bool,
    /// Already counted as delivered (by a SACK).
    sacked: bool,
    /// The connection's `lost` when it was sent.
    lost: u64,
    /// Bytes in flight when it was sent, itself included: the FlightSize and the pipe.
    tx_in_flight: u64,
    tx_pipe: u64,
}

/// The per-connection state of delivery-rate sampling.
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    /// Nonzero while application-limited: the delivered count at which that ends.
    app_limited_until: u64,
    min_rtt: Option<Dur>,
    sent: VecDeque<Sent>,
    /// The newest record delivered since the last sample (the sample's source).
    newest: Option<Sent>,
    /// Bytes in flight when the ACK being processed arrived: the FlightSize and the pipe.
    prior_in_flight: u64,
    prior_pipe: u64,
    /// Bytes resent so far.
    lost: u64,
    /// The loss detector's count of bytes marked lost when the ACK being processed arrived.
    marked_before: u64,
}

impl RateSampler {
    /// Bytes delivered so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// `[off, off + len)` is (re)transmitted at `now` with `in_flight` bytes sent and not
    /// acknowledged before it (the FlightSize: none means the connection was idle) and
    /// `pipe` of them estimated in the network (section 3.2).
    pub fn on_send(&mut self, off: u64, len: u64, in_flight: u64, pipe: u64, now: SimTime) {
        if in_flight == 0 {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let resent = self.sent.back().is_some_and(|last| off < last.end);
        if resent {
            self.lost += len;
        }
        let rec = Sent {
            start: off,
            end: off + len,
            sent_time: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: self.app_limited_until != 0,
            retransmitted: false,
            sacked: false,
            lost: self.lost,
            tx_in_flight: in_flight + len,
            tx_pipe: pipe + len,
        };
        if !resent {
            self.sent.push_back(rec);
            return;
        }
        for s in self.sent.iter_mut().filter(|s| s.start < off + len && off < s.end && !s.sacked) {
            *s = Sent { start: s.start, end: s.end, retransmitted: true, ..rec };
        }
    }

    /// The sender had less to send than its window allowed, with `in_flight` bytes out
    /// (section 3.4).
    pub fn on_app_limited(&mut self, in_flight: u64) {
        self.app_limited_until = (self.delivered + in_flight).max(1);
    }

    /// An ACK arrives with `in_flight` bytes outstanding before it, `pipe` of them estimated
    /// in the network: starts a sample.
    pub fn begin_ack(&mut self, in_flight: u64, pipe: u64, marked_lost: u64) {
        self.prior_in_flight = in_flight;
        self.prior_pipe = pipe;
        self.marked_before = marked_lost;
        self.newest = None;
    }

    /// The cumulative ACK moved to `una`: every record below it is delivered.
    pub fn on_cumulative(&mut self, una: u64, now: SimTime) {
        while let Some(s) = self.sent.front().copied().filter(|s| s.end <= una) {
            self.sent.pop_front();
            if !s.sacked {
                self.deliver(s, now);
            }
        }
        // A record the ACK covers in part: what it covers is delivered, the rest stays.
        if let Some(s) = self.sent.front_mut().filter(|s| s.start < una) {
            let part = *s;
            s.start = una;
            if !part.sacked {
                self.deliver(Sent { end: una, ..part }, now);
            }
        }
    }

    /// A SACK block `[left, right)`: the records inside it are delivered, once.
    pub fn on_sack(&mut self, left: u64, right: u64, now: SimTime) {
        for i in 0..self.sent.len() {
            let s = self.sent[i];
            if !s.sacked && left <= s.start && s.end <= right {
                self.sent[i].sacked = true;
                self.deliver(s, now);
            }
        }
    }

    fn deliver(&mut self, s: Sent, now: SimTime) {
        self.delivered += s.end - s.start;
        self.delivered_time = now;
        // The most recently sent packet gives the sample (its `delivered` is the largest).
        if self.newest.is_none_or(|n| s.delivered > n.delivered || (s.delivered == n.delivered && s.sent_time >= n.sent_time)) {
            self.newest = Some(s);
            self.first_sent_time = s.sent_time;
        }
    }

    /// The ACK is processed: its sample, if it delivered anything (section 3.3).
    pub fn end_ack(&mut self, now: SimTime, marked_lost: u64) -> Option<RateSample> {
        let s = self.newest.take()?;
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        let rtt = (!s.retransmitted).then(|| now - s.sent_time);
        if let Some(r) = rtt {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        }
        let send_elapsed = s.sent_time - s.first_sent_time;
        let ack_elapsed = now - s.delivered_time;
        Some(RateSample {
            now,
            delivered: self.delivered - s.delivered,
            interval: send_elapsed.max(ack_elapsed),
            rtt,
            prior_in_flight: self.prior_in_flight,
            prior_pipe: self.prior_pipe,
            is_app_limited: s.app_limited,
            total_delivered: self.delivered,
            lost: self.lost - s.lost,
            tx_in_flight: s.tx_in_flight,
            tx_pipe: s.tx_pipe,
            total_lost: self.lost,
            losses: marked_lost - self.marked_before,
            min_rtt: self.min_rtt,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ms(t: u64) -> SimTime {
        SimTime(t * 1_000_000)
    }

    /// One ACK: cumulative to `una` at `now`, with `in_flight` outstanding before it.
    fn ack(r: &mut RateSampler, una: u64, in_flight: u64, now: SimTime) -> Option<RateSample> {
        r.begin_ack(in_flight, in_flight, 0);
        r.on_cumulative(una, now);
        r.end_ack(now, 0)
    }

    #[test]
    fn an_ack_clocked_window_samples_window_over_rtt() {
        // A window of ten segments, first sent at once at t = 0 and returned one ACK per ms
        // after a 20 ms RTT (a bottleneck of one segment per ms); each ACK sends the next
        // segment (ACK clocking), so each window leaves 20 ms after the last.
        let mut r = RateSampler::default();
        for i in 0..10 {
            r.on_send(i * MSS, MSS, i * MSS, i * MSS, ms(0));
        }
        let mut windows = Vec::new();
        for w in 1..=3u64 {
            let mut rates = Vec::new();
            for i in 1..=10u64 {
                let now = ms(20 * w + i);
                let s = ack(&mut r, (10 * (w - 1) + i) * MSS, 10 * MSS, now).unwrap();
                rates.push((s.delivered, s.interval, s.rtt, s.rate_bps()));
                r.on_send((10 * w + i - 1) * MSS, MSS, 9 * MSS, 9 * MSS, now);
            }
            windows.push(rates);
        }
        // The first window's last ACK: ten segments since delivered_time 0, over 30 ms.
        assert_eq!(windows[0][9].0, 10 * MSS);
        assert_eq!(windows[0][9].1, Dur::from_millis(30));
        // From the third window on, each ACK delivers a window (10 segments) over an RTT
        // (20 ms, both intervals): the rate of a window-limited flow, cwnd / RTT.
        for &(delivered, interval, rtt, rate) in &windows[2] {
            assert_eq!((delivered, interval, rtt), (10 * MSS, Dur::from_millis(20), Some(Dur::from_millis(20))));
            assert_eq!(rate, Some(10.0 * MSS as f64 / 0.020));
        }
    }

    #[test]
    fn the_longer_interval_wins_so_compressed_acks_do_not_inflate_the_rate() {
        // Two segments sent 10 ms apart, their ACKs compressed into the same instant.
        let mut r = RateSampler::default();
        r.on_send(0, MSS, 0, 0, ms(0));
        r.on_send(MSS, MSS, MSS, MSS, ms(10));
        let s = ack(&mut r, 2 * MSS, 2 * MSS, ms(30)).unwrap();
        assert_eq!(s.delivered, 2 * MSS);
        assert_eq!(s.interval, Dur::from_millis(30), "ack_elapsed since delivered_time 0");
        // A second ACK compressed at the same instant delivers more but its interval is the
        // send interval (10 ms): not shorter than it.
        r.on_send(2 * MSS, MSS, 0, 0, ms(30));
        r.on_send(3 * MSS, MSS, MSS, MSS, ms(40));
        let s = ack(&mut r, 4 * MSS, 2 * MSS, ms(60)).unwrap();
        assert_eq!((s.delivered, s.interval), (2 * MSS, Dur::from_millis(30)));
    }

    #[test]
    fn an_interval_below_the_smallest_rtt_gives_no_rate() {
        let mut r = RateSampler::default();
        r.on_send(0, MSS, 0, 0, ms(0));
        let s = ack(&mut r, MSS, MSS, ms(20)).unwrap();
        assert_eq!(s.rate_bps(), Some(MSS as f64 / 0.020));
        // Intervals shorter than an RTT come only from spurious retransmissions (a record
        // refreshed just before the original's ACK): such a sample is no rate.
        let short = RateSample { interval: Dur::from_millis(5), ..s };
        assert_eq!(short.rate_bps(), None);
        assert_eq!(RateSample { interval: Dur::ZERO, ..s }.rate_bps(), None);
    }

    #[test]
    fn sack_delivers_once_and_retransmissions_give_no_rtt() {
        let mut r = RateSampler::default();
        for i in 0..4 {
            r.on_send(i * MSS, MSS, i * MSS, i * MSS, ms(0));
        }
        // Segment 0 lost; 1..4 SACKed at 20 ms.
        r.begin_ack(4 * MSS, 4 * MSS, 0);
        r.on_sack(MSS, 4 * MSS, ms(20));
        let s = r.end_ack(ms(20), 0).unwrap();
        assert_eq!((s.delivered, s.rtt), (3 * MSS, Some(Dur::from_millis(20))));
        // Segment 0 retransmitted at 25 ms, acked cumulatively at 45 ms: only its own bytes
        // count (the SACKed ones were delivered already), and no RTT from a retransmission.
        r.on_send(0, MSS, MSS, MSS, ms(25));
        let s = ack(&mut r, 4 * MSS, MSS, ms(45)).unwrap();
        assert_eq!((s.total_delivered, s.rtt), (4 * MSS, None));
        assert_eq!(r.delivered(), 4 * MSS);
    }

    #[test]
    fn samples_count_the_bytes_resent_since_their_packet_left_and_its_flight() {
        let mut r = RateSampler::default();
        for i in 0..10 {
            r.on_send(i * MSS, MSS, i * MSS, i * MSS, ms(i));
        }
        // Segments 0 and 1 lost; 2..10 SACKed: nothing resent yet.
        r.begin_ack(10 * MSS, 10 * MSS, 0);
        r.on_sack(2 * MSS, 10 * MSS, ms(30));
        let s = r.end_ack(ms(30), 0).unwrap();
        assert_eq!((s.lost, s.tx_in_flight, s.total_lost), (0, 10 * MSS, 0));
        // Both resent, then a new segment: the resent segment 0's sample counts the resend
        // of 1 that followed it; the new segment left after both, so its sample counts none.
        r.on_send(0, MSS, 2 * MSS, 2 * MSS, ms(31));
        r.on_send(MSS, MSS, 2 * MSS, 2 * MSS, ms(32));
        r.on_send(10 * MSS, MSS, 2 * MSS, 2 * MSS, ms(33));
        let s = ack(&mut r, MSS, 3 * MSS, ms(51)).unwrap();
        assert_eq!((s.lost, s.tx_in_flight, s.total_lost), (MSS, 3 * MSS, 2 * MSS));
        r.begin_ack(2 * MSS, 2 * MSS, 0);
        r.on_sack(10 * MSS, 11 * MSS, ms(53));
        let s = r.end_ack(ms(53), 0).unwrap();
        assert_eq!((s.lost, s.tx_in_flight, s.total_lost), (0, 3 * MSS, 2 * MSS));
    }

    #[test]
    fn samples_after_an_application_limited_period_say_so_until_it_is_delivered() {
        let mut r = RateSampler::default();
        r.on_send(0, MSS, 0, 0, ms(0));
        r.on_app_limited(MSS);
        r.on_send(MSS, MSS, MSS, MSS, ms(1));
        assert!(!ack(&mut r, MSS, 2 * MSS, ms(20)).unwrap().is_app_limited, "sent before the flow ran out of data");
        assert!(ack(&mut r, 2 * MSS, MSS, ms(21)).unwrap().is_app_limited);
        r.on_send(2 * MSS, MSS, 0, 0, ms(30));
        assert!(!ack(&mut r, 3 * MSS, MSS, ms(50)).unwrap().is_app_limited, "the marker was passed");
    }

    #[test]
    fn an_ack_that_delivers_nothing_gives_no_sample() {
        let mut r = RateSampler::default();
        r.on_send(0, MSS, 0, 0, ms(0));
        assert!(ack(&mut r, 0, MSS, ms(5)).is_none());
    }
}
