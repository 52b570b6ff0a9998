//! TCP: a sender with Reno (RFC 5681), NewReno (RFC 6582) or SACK (RFC 2018, RFC 6675) loss
//! recovery, RTO per RFC 6298 and ECN per RFC 3168, its congestion window computed by a
//! controller (`cc`: Reno, NewReno, CUBIC, DCTCP, ...), Accurate ECN feedback (RFC 9768,
//! `accecn`), and a receiver with cumulative ACKs, out-of-order buffering, optional SACK
//! blocks, optional delayed ACKs and optional duplicate-ACK suppression (DAS).
//!
//! There is no handshake: like ns-2's one-way agents, a connection is established at time
//! zero and the sender starts sending when its application starts. Sequence numbers are
//! bytes, 32-bit and wrapping, starting at a configurable initial sequence number.

pub mod accecn;
pub mod cc;
#[cfg(test)]
mod properties;
pub mod prr;
pub mod rack;
pub mod rate;
pub mod receiver;
pub mod rto;
pub mod sack;
pub mod sender;

pub use crate::packet::Seq;
pub use cc::{CcConfig, CubicConfig, DctcpConfig, FullAck, NewRenoConfig, Recovery, RenoConfig, SsthreshFrom};
pub use receiver::{EcnEcho, ReceiverConfig, ReceiverStats, TcpReceiver};
pub use rto::{RtoMinOn, RttArithmetic};
pub use sender::{SenderStats, TcpSender};

pub use crate::packet::Endpoints;
use crate::sim::Dur;
use std::num::NonZeroU32;

/// When NewReno restarts the retransmission timer during fast recovery (RFC 6582 section 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialAckTimer {
    /// Only on the first partial ACK (RFC 6582's rule, and ns-2.35's NewReno with its
    /// default `newreno_changes1_ 1`, `partialnewack_helper()`): a window with many losses
    /// falls back to a timeout.
    Impatient,
    /// On every partial ACK, as ns-2's NewReno with `newreno_changes1_ 0` (its default
    /// before May 2003): one hole is repaired per round trip however many there are.
    SlowButSteady,
}

/// How long an ECN-Echo's reduction answers the congestion that follows it (RFC 3168 6.1.2:
/// the window is reduced once for "a series of dropped and/or CE packets from a single window
/// of data", and a timeout within the round trip keeps ssthresh).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnAnswered {
    /// For the data sent before the reduction (the RFC's window).
    Window,
    /// Until the next reduction of any kind, however much later: ns-2's
    /// `last_cwnd_action_ == CWND_ACTION_ECN` in `dupack_action()` and `timeout()`.
    NextReduction,
}

/// How an ECN sender answers an ECN-Echo (`SenderConfig::ecn_response`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnResponse {
    /// RFC 3168 6.1.2: the controller's reduction at once; the window grows again on the next
    /// ACK without ECN-Echo.
    Immediate,
    /// Linux's `tcp_enter_cwr()` and ns-3.37's `CA_CWR`: the controller sets ssthresh, and
    /// for one round trip (until the data sent before the echo is acknowledged) the window
    /// does not grow; with `prr` the window comes down to ssthresh over that round trip by
    /// RFC 6937, otherwise at once.
    Cwr,
}

/// Sender parameters. Defaults follow the RFCs (an initial window of one segment, RFC 5681's
/// lower bound): NewReno recovery with NewReno's window (`tcp.variant = "newreno"`). The
/// scenario's `ns2` profile changes several (`settings::profile`).
#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub recovery: Recovery,
    /// The congestion-control algorithm and its parameters.
    pub cc: CcConfig,
    /// Maximum segment size: payload bytes per segment.
    pub mss: u32,
    /// Initial congestion window IW, in segments (RFC 5681 3.1), whatever the algorithm.
    pub init_cwnd: u32,
    /// Initial slow-start threshold, bytes (RFC 5681 3.1: arbitrarily high).
    pub init_ssthresh: u32,
    pub min_rto: Dur,
    pub max_rto: Dur,
    pub initial_rto: Dur,
    /// Clock granularity G of RFC 6298.
    pub clock_granularity: Dur,
    pub dupack_threshold: u32,
    pub partial_ack_timer: PartialAckTimer,
    /// How RTT samples become the RTO: RFC 6298, or ns-2's whole ticks of
    /// `clock_granularity` (`tcp/rto.rs`).
    pub rtt_arithmetic: RttArithmetic,
    /// Where `min_rto` bounds the timeout: the whole RTO (RFC 6298 (2.4)) or, as Linux, the
    /// variance term added to SRTT (`tcp/rto.rs`).
    pub rto_min_on: RtoMinOn,
    /// Limited Transmit (RFC 3042; ns-2's `singledup_`): each of the first two duplicate
    /// ACKs sends one new segment if the receiver's window allows and no more than cwnd plus
    /// the duplicates would be in flight.
    pub limited_transmit: bool,
    /// While going back N after a timeout, Limited Transmit sends the next segment in
    /// sequence, resent even if the receiver may hold it (ns-2's `send_one()` sends
    /// `t_seqno_`); otherwise it sends only new data.
    pub limited_transmit_resends: bool,
    /// Reno recovery checks `recover` before a fast retransmit, as NewReno always does (RFC
    /// 6582 step 2; ns-2's `bugFix_`, on for every variant): duplicates of data sent before
    /// the last fast retransmit or timeout start no second one.
    pub reno_recover_check: bool,
    /// Fast retransmit restarts the retransmission timer and abandons the RTT measurement in
    /// progress (ns-2's `reset_rtx_timer()`); otherwise the timer runs on from the last new
    /// ACK (RFC 6298) and only a retransmission of the timed segment stops its measurement.
    pub fast_retransmit_resets_timer: bool,
    /// Every retransmission of the first unacknowledged segment (a fast retransmit, a resend
    /// of a lost retransmission, a partial ACK's) restarts the retransmission timer, as
    /// Linux's `tcp_xmit_retransmit_queue()` does; the RTT measurement goes on (Karn's rule).
    pub head_retransmit_resets_timer: bool,
    /// With RACK: a segment deemed lost and resent, not yet delivered, starts a recovery
    /// outside one as a segment newly lost does (Linux's `tcp_time_to_recover()` tests
    /// `lost_out`), so that a recovery ending while a segment sent during it is still lost
    /// is followed at once by another, with another reduction. Off: RFC 8985's rule, a
    /// recovery only for a segment newly deemed lost.
    pub recover_again: bool,
    /// How long an ECN-Echo's reduction answers later losses and timeouts.
    pub ecn_answered_until: EcnAnswered,
    /// The first ECN-Echo after a timeout is answered at once, whatever data its ACK covers
    /// (ns-2.35's `ecn()`: `last_cwnd_action_ == CWND_ACTION_TIMEOUT`); otherwise only an
    /// echo for data sent after the timeout is (RFC 3168 6.1.2: once per window of data).
    pub ecn_at_once_after_timeout: bool,
    /// The CWR that follows every window reduction of an ECN sender may go on a retransmitted
    /// segment (ns-2's `SetCWRonRetransmit_`); otherwise on the first new data packet after
    /// the reduction (RFC 3168 6.1.2).
    pub cwr_on_retransmit: bool,
    /// An ECN sender's retransmissions are ECN-capable too (ns-2 marks every data packet
    /// ECT; DCTCP needs every packet marked, as Linux's `TCP_CONG_NEEDS_ECN` has it);
    /// otherwise they go out Not-ECT, as RFC 3168 6.1.5 requires ("the TCP data sender MUST
    /// NOT set either an ECT codepoint or the CE codepoint ... on retransmitted data
    /// packets"), so a congested router drops them rather than marks them.
    pub ect_on_retransmit: bool,
    /// SACK loss recovery (RFC 6675, on the SACK blocks of RFC 2018): a scoreboard of the
    /// data the receiver holds out of order, recovery entered on the duplicate-ACK threshold
    /// or when the first unacknowledged segment is deemed lost, and, in recovery, sending
    /// while `cwnd - pipe >= SMSS` (`tcp/sender.rs`). Replaces `recovery` and
    /// `partial_ack_timer`; the receiver must send SACK blocks (`ReceiverConfig::sack`).
    pub sack: bool,
    /// With `sack`: clear the scoreboard at a retransmission timeout (RFC 2018 section 8)
    /// rather than keep it (RFC 6675 5.1 with Errata 1610, Linux, ns-3; the default).
    pub sack_clear_on_timeout: bool,
    /// Proportional Rate Reduction (RFC 6937, PRR-SSRB) sets what SACK recovery, and a `cwr`
    /// ECN response, send on each ACK: in proportion to the data delivered while pipe is
    /// above ssthresh, then up to ssthresh by at most one segment more than delivered.
    /// Otherwise SACK recovery sends while `cwnd - pipe >= SMSS` (RFC 6675).
    pub prr: bool,
    /// With `sack`: RACK-TLP loss detection (RFC 8985, `tcp/rack.rs`): segments are deemed
    /// lost by their transmit times (a lost retransmission included) rather than by
    /// DupThresh, a reordering timer waits for the others, and a tail loss probe goes out
    /// after 2 SRTT without an ACK instead of waiting for the retransmission timeout.
    pub rack: bool,
    /// How an ECN-Echo is answered.
    pub ecn_response: EcnResponse,
    /// RFC 7323 timestamps on every segment (12 bytes of option each), and RTT samples from
    /// the ACKs' TSecr (`packet/timestamps.rs`). The receiver echoes them once it sees them
    /// (`tcp/receiver.rs`).
    pub timestamps: bool,
    /// Initial sequence number.
    pub isn: u32,
    /// The sending application's socket buffer, bytes of payload: new data is sent only
    /// while the data from the oldest unacknowledged byte to the end of the new segment fits
    /// in it (a bulk sender's buffer is always full, so the buffer bounds `SND.NXT -
    /// SND.UNA`, as the receiver's window does). None: no limit.
    pub send_buffer: Option<NonZeroU32>,
    /// Set ECT on data packets and react to ECE (RFC 3168).
    pub ecn: bool,
    /// ECN-capable packets carry ECT(1), the L4S identifier (RFC 9331 4.1), rather than ECT(0).
    pub ect1: bool,
    /// The handshake negotiated Accurate ECN feedback (RFC 9768, `tcp/accecn.rs`): the
    /// sender reads the CE count from each ACK's ACE field and sends no CWR.
    pub accecn: bool,
    /// Carry the congestion state in every data packet and obey ACC control messages.
    pub acc: bool,
    /// Bytes to send, or None for a bulk sender that always has data.
    pub data_bytes: Option<u64>,
    /// Initial TTL of the packets sent.
    pub ttl: u8,
}

impl Default for SenderConfig {
    fn default() -> Self {
        SenderConfig {
            recovery: Recovery::NewReno,
            cc: CcConfig::default(),
            mss: 1000,
            init_cwnd: 1,
            init_ssthresh: u32::MAX / 2,
            min_rto: Dur::from_millis(200),
            max_rto: Dur::from_secs(60),
            initial_rto: Dur::from_secs(1),
            clock_granularity: Dur::from_millis(1),
            dupack_threshold: 3,
            partial_ack_timer: PartialAckTimer::Impatient,
            rtt_arithmetic: RttArithmetic::Rfc6298,
            rto_min_on: RtoMinOn::Rto,
            limited_transmit: false,
            limited_transmit_resends: false,
            reno_recover_check: false,
            fast_retransmit_resets_timer: false,
            head_retransmit_resets_timer: false,
            recover_again: false,
            ecn_answered_until: EcnAnswered::Window,
            ecn_at_once_after_timeout: false,
            cwr_on_retransmit: false,
            ect_on_retransmit: false,
            sack: false,
            sack_clear_on_timeout: false,
            prr: false,
            rack: false,
            ecn_response: EcnResponse::Immediate,
            timestamps: false,
            isn: 0,
            send_buffer: None,
            ecn: false,
            ect1: false,
            accecn: false,
            acc: false,
            data_bytes: None,
            ttl: 64,
        }
    }
}
