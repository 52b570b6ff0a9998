//! The TCP receiver: cumulative ACKs, out-of-order buffering, an immediate duplicate ACK for
//! every out-of-order segment (RFC 5681 4.2), optional delayed ACKs (every second full
//! segment or after a timeout), ECN echo ([`EcnEcho`]: RFC 3168's, ECE on every ACK from a CE
//! arrival until a CWR arrives, DCTCP's exact echo of each packet's CE, RFC 8257 3.2, or
//! Accurate ECN's count of CE packets in the ACE field, RFC 9768),
//! optional selective acknowledgements (SACK, RFC 2018) and optional duplicate-ACK
//! suppression (DAS).
//!
//! The advertised window is constant: the application reads data as soon as it is in order.
//!
//! # SACK (RFC 2018 section 4), with `ReceiverConfig::sack`
//!
//! There is no handshake, so no SACK-permitted option: the scenario turns SACK on at both
//! ends (`tcp.sack`). Rule by rule:
//!
//! - "If sent at all, SACK options SHOULD be included in all ACKs which do not ACK the
//!   highest sequence number in the data receiver's queue": every ACK sent while
//!   out-of-order data is buffered carries the option, delayed ACKs and ACKs of duplicates
//!   included; no other ACK does.
//! - "The first SACK block [...] MUST specify the contiguous block of data containing the
//!   segment which triggered this ACK, unless that segment advanced the Acknowledgment
//!   Number field": an out-of-order segment's ACK starts with the buffered range that holds
//!   it (after merging with its neighbours).
//! - "The data receiver SHOULD include as many distinct SACK blocks as possible", up to
//!   [`SackBlocks::MAX`] here.
//! - "The SACK option SHOULD be filled out by repeating the most recently reported SACK
//!   blocks [...] that are not subsets of a SACK block already included": the receiver
//!   remembers the blocks of the last option it sent (a fixed array, no allocation) and,
//!   after the first block, repeats each that is still buffered, as the range that now holds
//!   it (ranges only grow by merging, so an old block is a subset of exactly one), skipping
//!   those already in the option and those the cumulative ACK has passed. Any room left goes
//!   to the other buffered ranges, lowest first.
//!
//! No D-SACK (RFC 2883): a duplicate below the cumulative ACK is not reported. The receiver
//! never reneges (it keeps out-of-order data until it is delivered).
//!
//! # Timestamps (RFC 7323 section 4.3)
//!
//! Once a data segment carrying the timestamps option has arrived (`packet/timestamps.rs`;
//! a sender with `tcp.timestamps` puts it on every segment, as after a handshake that
//! negotiated it), every ACK carries it too: TSval the receiver's clock, TSecr `TS.Recent`.
//! The first such segment sets `TS.Recent`, as the SYN would. A data segment's TSval becomes `TS.Recent` when it is not older
//! and the segment starts at or below `Last.ACK.sent`, the acknowledgement number of the last
//! ACK sent (rule (2); see `take_timestamp` for the one case judged otherwise). So a delayed ACK echoes the earlier of the two segments it covers
//! (the second starts above `Last.ACK.sent`), an out-of-order segment's ACK echoes the last
//! segment that advanced the window, and the segment that fills a hole (it starts at
//! `Last.ACK.sent`) is echoed by the ACK that acknowledges it: the sender's RTT samples then
//! count the time the data waited, and a retransmission's ACK times the retransmission.

use super::Endpoints;
use crate::packet::explicit::Gathered;
use crate::packet::timestamps::{self, Timestamps};
use crate::packet::Seq;
use crate::packet::{flags, Ecn, Packet, SackBlocks};
use crate::sim::{Dur, SimTime};
use crate::stats::counters;

/// How the receiver tells the sender of CE marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnEcho {
    /// RFC 3168 6.1.3: from a CE arrival, ECE on every ACK until a packet with CWR arrives.
    Rfc3168,
    /// RFC 8257 3.2 (DCTCP): each ACK's ECE says whether the packets it acknowledges were
    /// CE-marked. With delayed ACKs, a change of the CE state first acknowledges the packets
    /// received before it at once, with the old state, so that no ACK covers packets of
    /// both. CWR is ignored.
    PerPacket,
    /// Accurate ECN (RFC 9768, `tcp/accecn.rs`): every ACK carries the count of CE-marked
    /// packets received, from 5, modulo 8 in its ACE field (AE, CWR, ECE). With delayed
    /// ACKs, an ACK leaves at once when a CE packet follows one that was not CE, and when 2
    /// CE marks have arrived since the last ACK (3.2.2.5.1, change-triggered ACKs, so that
    /// the 3-bit counter cannot wrap between two ACKs). CWR is part of the counter, not a
    /// signal.
    AccEcn,
}

#[derive(Clone, Debug)]
pub struct ReceiverConfig {
    /// Advertised window, bytes.
    pub rwnd: u32,
    /// Delayed ACKs: acknowledge every second segment, or after this timeout. None: ACK
    /// every segment.
    pub delayed_ack: Option<Dur>,
    /// Duplicate-ACK suppression on a rise in TTL (the DAS paper, Section II).
    pub das: bool,
    /// Selective acknowledgements: SACK blocks on the ACKs sent while out-of-order data is
    /// buffered (RFC 2018, see the module documentation).
    pub sack: bool,
    pub ttl: u8,
    /// How CE marks are echoed (default RFC 3168's).
    pub ecn_echo: EcnEcho,
}

impl Default for ReceiverConfig {
    fn default() -> Self {
        ReceiverConfig { rwnd: 1 << 20, delayed_ack: None, das: false, sack: false, ttl: 64, ecn_echo: EcnEcho::Rfc3168 }
    }
}

counters! {
    /// Cumulative counters of one receiver.
    pub struct ReceiverStats {
        pub packets_received: u64,
        pub bytes_received: u64,
        /// Bytes delivered to the application in order (goodput).
        pub delivered_bytes: u64,
        pub out_of_order_packets: u64,
        /// Segments entirely below rcv_nxt (already received).
        pub duplicate_packets: u64,
        pub acks_sent: u64,
        pub dupacks_sent: u64,
        pub dupacks_suppressed: u64,
        pub ce_received: u64,
    }
}

/// `TcpReceiver::delack_deadline` when no delayed ACK is pending.
const NO_DEADLINE: SimTime = SimTime(u64::MAX);

#[derive(Clone, Debug)]
pub struct TcpReceiver {
    pub cfg: ReceiverConfig,
    pub ends: Endpoints,
    rcv_nxt: Seq,
    /// Out-of-order data above rcv_nxt: disjoint, sorted [start, end) ranges.
    ooo: Vec<(Seq, Seq)>,
    unacked_segments: u16,
    /// The delayed-ACK timer, [`NO_DEADLINE`] when none runs (no `Option`, whose tag would
    /// cost the receiver a fourth cache line).
    delack_deadline: SimTime,
    ece_pending: bool,
    /// A segment carried a TCP option (a congestion header or timestamps): ACKs may carry
    /// one (`add_options`).
    options: bool,
    /// AccECN: `r.cep`, the CE-marked packets received, from 5 (RFC 9768 3.2.2.1), modulo
    /// 256 (the ACE field carries it modulo 8), and the CE marks since the last ACK (counted
    /// to 255: only whether it reached 2 matters).
    r_cep: u8,
    ce_unacked: u8,
    // DAS state (paper, Section II).
    dup_ack_suppress: bool,
    last_in_order_ttl: Option<u8>,
    /// SACK: the blocks of the last option sent, most recent first.
    sack_sent: SackBlocks,
    /// The congestion-header echo gathered since the last ACK (XCP, RCP).
    echo: Gathered,
    /// Timestamps: RFC 7323's `TS.Recent`; 0 until a segment with the option arrives, and
    /// then ACKs carry it.
    ts_recent: u32,
    pub stats: ReceiverStats,
}

impl TcpReceiver {
    pub fn new(cfg: ReceiverConfig, ends: Endpoints, isn: u32) -> TcpReceiver {
        TcpReceiver {
            cfg,
            ends,
            rcv_nxt: Seq(isn),
            ooo: Vec::new(),
            unacked_segments: 0,
            delack_deadline: NO_DEADLINE,
            ece_pending: false,
            options: false,
            r_cep: super::accecn::CEP_INIT as u8,
            ce_unacked: 0,
            dup_ack_suppress: false,
            last_in_order_ttl: None,
            sack_sent: SackBlocks::NONE,
            echo: Gathered::NONE,
            ts_recent: 0,
            stats: ReceiverStats::default(),
        }
    }

    pub fn rcv_nxt(&self) -> Seq {
        self.rcv_nxt
    }
    pub fn delack_deadline(&self) -> Option<SimTime> {
        (self.delack_deadline != NO_DEADLINE).then_some(self.delack_deadline)
    }
    /// DAS: the TTL of the last in-order packet (None until one arrives or with DAS off).
    pub fn last_in_order_ttl(&self) -> Option<u8> {
        self.last_in_order_ttl
    }
    /// Whether `seq..seq+len` has been received (in order or buffered).
    pub fn has_received(&self, seq: Seq, len: u32) -> bool {
        let end = seq + len;
        end <= self.rcv_nxt || self.ooo.iter().any(|&(s, e)| s <= seq && end <= e)
    }

    pub fn on_data(&mut self, pkt: &Packet, now: SimTime, out: &mut Vec<Packet>) {
        self.stats.packets_received += 1;
        self.stats.bytes_received += pkt.payload as u64;
        let ce = pkt.ecn == Ecn::Ce;
        if ce {
            self.stats.ce_received += 1;
        }
        let mut ack_now = false;
        match self.cfg.ecn_echo {
            EcnEcho::AccEcn => {
                if ce {
                    self.r_cep = self.r_cep.wrapping_add(1);
                    self.ce_unacked = self.ce_unacked.saturating_add(1);
                }
                ack_now = (ce && !self.ece_pending) || self.ce_unacked >= 2;
                self.ece_pending = ce;
            }
            EcnEcho::Rfc3168 => {
                if pkt.has_flag(flags::CWR) {
                    self.ece_pending = false;
                }
                self.ece_pending |= ce;
            }
            EcnEcho::PerPacket => {
                if ce != self.ece_pending && self.unacked_segments > 0 {
                    self.send_ack(now, out, false, None); // the packets before, with the old state
                }
                self.ece_pending = ce;
            }
        }
        if pkt.has_tcp_option() {
            self.take_options(pkt);
        }
        let start = pkt.seq;
        let end = pkt.seq + pkt.payload;
        if end <= self.rcv_nxt {
            self.stats.duplicate_packets += 1;
            self.send_ack(now, out, false, None);
        } else if start <= self.rcv_nxt {
            self.on_in_order(end, pkt.ttl, ack_now, now, out);
        } else {
            self.on_out_of_order(start, end, pkt.ttl, now, out);
        }
    }

    /// A segment's options: a congestion header is gathered for the echo ([`Gathered`]);
    /// timestamps follow RFC 7323 section 4.3 rule (2): `TS.Recent` takes the segment's TSval if it is not
    /// older and the segment starts at or below `Last.ACK.sent`. That is `rcv_nxt` while no
    /// ACK is pending; while a delayed ACK is, it lies below `rcv_nxt`, so no segment that
    /// could advance the window qualifies, and neither (unlike the RFC, which would compare
    /// it) does an old duplicate: the ACK then echoes the first segment it acknowledges.
    /// Kept so, the receiver needs no `Last.ACK.sent` and stays three cache lines.
    #[inline(never)]
    fn take_options(&mut self, pkt: &Packet) {
        self.options = true;
        if let Some(h) = pkt.explicit() {
            self.echo = self.echo.with(h);
        }
        let Some(ts) = pkt.timestamps() else { return };
        let rule = timestamps::at_or_after(ts.val, self.ts_recent) && self.unacked_segments == 0 && pkt.seq <= self.rcv_nxt;
        if rule || self.ts_recent == 0 {
            self.ts_recent = ts.val;
        }
    }

    /// In-order data up to `end`; `ack_now` when AccECN's change-triggered ACK is due.
    fn on_in_order(&mut self, end: Seq, ttl: u8, ack_now: bool, now: SimTime, out: &mut Vec<Packet>) {
        if self.cfg.das {
            self.dup_ack_suppress = false;
            self.last_in_order_ttl = Some(ttl);
        }
        let filled_gap = !self.ooo.is_empty();
        let mut new_nxt = end;
        // Pull in buffered ranges that are now contiguous.
        let mut consumed = 0;
        for &(s, e) in &self.ooo {
            if s > new_nxt {
                break;
            }
            new_nxt = new_nxt.max(e);
            consumed += 1;
        }
        self.ooo.drain(..consumed);
        self.stats.delivered_bytes += (new_nxt - self.rcv_nxt) as u64;
        self.rcv_nxt = new_nxt;
        self.unacked_segments = self.unacked_segments.saturating_add(1);
        match self.cfg.delayed_ack {
            // RFC 5681 4.2: ACK at once when a segment fills a gap, or on every second segment.
            Some(timeout) if !filled_gap && !ack_now && self.unacked_segments < 2 => {
                if self.delack_deadline == NO_DEADLINE {
                    self.delack_deadline = now + timeout;
                }
            }
            _ => self.send_ack(now, out, false, None),
        }
    }

    fn on_out_of_order(&mut self, start: Seq, end: Seq, ttl: u8, now: SimTime, out: &mut Vec<Packet>) {
        self.stats.out_of_order_packets += 1;
        self.insert_ooo(start, end);
        if self.cfg.das && self.das_suppresses(ttl) {
            self.stats.dupacks_suppressed += 1;
            return;
        }
        self.send_ack(now, out, true, Some(start));
    }

    /// Lines 4-12 of the DAS pseudocode for an out-of-order packet: true if no duplicate
    /// ACK is to be generated.
    fn das_suppresses(&mut self, current_ttl: u8) -> bool {
        let Some(last) = self.last_in_order_ttl else { return false };
        if current_ttl > last {
            // Lines 5-8: a rise in TTL means a switch from the backup path to the primary.
            self.dup_ack_suppress = true;
            true
        } else {
            if current_ttl == last && self.dup_ack_suppress {
                self.dup_ack_suppress = false; // lines 9-10
            }
            false
        }
    }

    fn insert_ooo(&mut self, start: Seq, end: Seq) {
        let pos = self.ooo.iter().position(|&(s, _)| s > start).unwrap_or(self.ooo.len());
        self.ooo.insert(pos, (start, end));
        // Merge overlapping or touching neighbours.
        let mut merged: usize = 0;
        for i in 1..self.ooo.len() {
            if self.ooo[i].0 <= self.ooo[merged].1 {
                self.ooo[merged].1 = self.ooo[merged].1.max(self.ooo[i].1);
            } else {
                merged += 1;
                self.ooo[merged] = self.ooo[i];
            }
        }
        self.ooo.truncate(merged + 1);
    }

    /// The delayed-ACK timer fired.
    pub fn on_delack_timeout(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        match self.delack_deadline() {
            Some(d) if d <= now => self.send_ack(now, out, false, None),
            _ => {}
        }
    }

    /// The SACK blocks of the next ACK (RFC 2018 section 4, see the module documentation):
    /// first the buffered range holding `trigger`, the start of the out-of-order segment the
    /// ACK answers, then the ranges holding the blocks last reported, then any other.
    fn sack_blocks(&mut self, trigger: Option<Seq>) -> SackBlocks {
        let mut blocks = SackBlocks::NONE;
        let holding = |x: Seq| self.ooo.iter().copied().find(|&(s, e)| s <= x && x < e);
        if let Some(range) = trigger.and_then(holding) {
            blocks.push(range.0, range.1);
        }
        for (left, _) in self.sack_sent.iter() {
            match holding(left) {
                Some(range) if !blocks.contains(range) => {
                    blocks.push(range.0, range.1);
                }
                _ => {}
            }
        }
        for &range in &self.ooo {
            if blocks.len() == SackBlocks::MAX {
                break;
            }
            if !blocks.contains(range) {
                blocks.push(range.0, range.1);
            }
        }
        self.sack_sent = blocks;
        blocks
    }

    /// Sends an ACK; `trigger` is the start of the out-of-order segment it answers, if any.
    fn send_ack(&mut self, now: SimTime, out: &mut Vec<Packet>, duplicate: bool, trigger: Option<Seq>) {
        self.unacked_segments = 0;
        self.delack_deadline = NO_DEADLINE;
        self.stats.acks_sent += 1;
        if duplicate {
            self.stats.dupacks_sent += 1;
        }
        let mut ack = Packet::tcp_ack(&self.ends, self.rcv_nxt, self.cfg.rwnd, self.cfg.ttl, now);
        if self.cfg.ecn_echo == EcnEcho::AccEcn {
            super::accecn::set_ace(&mut ack, self.r_cep as u32);
            self.ce_unacked = 0;
        } else if self.ece_pending {
            ack.flags |= flags::ECE;
        }
        if self.cfg.sack {
            let blocks = self.sack_blocks(trigger);
            ack.set_sack(blocks);
        }
        // Pushed before the rare options are added in place: a packet whose address is taken
        // is built on the stack, and copying it so soon after its narrow stores stalls.
        out.push(ack);
        if self.options {
            if let Some(ack) = out.last_mut() {
                self.add_options(ack, now);
            }
        }
    }

    /// The options an ACK carries once a segment with one arrived: the congestion-header
    /// echo gathered since the last ACK, and the timestamps.
    #[inline(never)]
    fn add_options(&mut self, ack: &mut Packet, now: SimTime) {
        if let Some(echo) = self.echo.take() {
            ack.set_explicit(echo);
        }
        if self.ts_recent != 0 {
            ack.set_timestamps(Timestamps { val: timestamps::clock(now), ecr: self.ts_recent });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 100;

    fn ends() -> Endpoints {
        Endpoints { flow: 0, sender: 0, receiver: 1, sport: 1, dport: 2 }
    }

    fn seg(i: u32, ttl: u8) -> Packet {
        Packet { wnd: 0, ..Packet::tcp_data(&ends(), Seq(i * MSS), MSS, ttl, SimTime::ZERO) }
    }

    fn receiver(cfg: ReceiverConfig) -> TcpReceiver {
        TcpReceiver::new(cfg, ends(), 0)
    }

    /// Feeds segments (index, ttl) and returns the ACK numbers sent, in segments.
    fn acks(r: &mut TcpReceiver, segs: &[(u32, u8)]) -> Vec<u32> {
        let mut out = Vec::new();
        for &(i, ttl) in segs {
            r.on_data(&seg(i, ttl), SimTime::ZERO, &mut out);
        }
        out.iter().map(|p| p.ack.0 / MSS).collect()
    }

    #[test]
    fn out_of_order_segments_get_immediate_duplicate_acks() {
        let mut r = receiver(ReceiverConfig::default());
        assert_eq!(acks(&mut r, &[(0, 60), (2, 60), (3, 60), (1, 60)]), vec![1, 1, 1, 4]);
        assert_eq!(r.stats.dupacks_sent, 2);
        assert_eq!(r.stats.delivered_bytes, 4 * MSS as u64);
    }

    #[test]
    fn old_duplicates_are_acknowledged() {
        let mut r = receiver(ReceiverConfig::default());
        assert_eq!(acks(&mut r, &[(0, 60), (1, 60), (0, 60)]), vec![1, 2, 2]);
        assert_eq!(r.stats.duplicate_packets, 1);
    }

    /// The echo an explicit-feedback receiver gathers lives in room the receiver had spare:
    /// it stays three cache lines.
    #[test]
    fn a_receiver_is_three_cache_lines() {
        assert!(std::mem::size_of::<TcpReceiver>() <= 192, "{} bytes", std::mem::size_of::<TcpReceiver>());
    }

    /// RFC 7323 section 4.3: a delayed ACK echoes the earlier segment it covers, a duplicate
    /// ACK for a segment above a hole echoes the last segment that advanced the window, and
    /// the segment that fills the hole is echoed by its ACK.
    #[test]
    fn acks_echo_ts_recent_by_rfc_7323_rule_2() {
        use crate::packet::Timestamps;
        let delayed = ReceiverConfig { delayed_ack: Some(Dur::from_millis(100)), ..ReceiverConfig::default() };
        let mut r = receiver(delayed);
        let mut out = Vec::new();
        let data = |r: &mut TcpReceiver, i: u32, val: u32, out: &mut Vec<Packet>| {
            let mut p = seg(i, 64);
            p.set_timestamps(Timestamps { val, ecr: 0 });
            r.on_data(&p, SimTime(val as u64 * 1000), out);
        };
        let echoes = |out: &[Packet]| out.iter().map(|a| (a.ack.0 / MSS, a.timestamps().unwrap().ecr)).collect::<Vec<_>>();
        data(&mut r, 0, 10, &mut out);
        data(&mut r, 1, 11, &mut out);
        assert_eq!(echoes(&out), [(2, 10)], "the delayed ACK echoes the first of its two segments");
        assert_eq!(out[0].timestamps().unwrap().val, 12, "TSval is the receiver's clock");
        assert_eq!(out[0].size, 52);
        out.clear();
        data(&mut r, 3, 13, &mut out); // segment 2 is lost
        data(&mut r, 4, 14, &mut out);
        assert_eq!(echoes(&out), [(2, 10), (2, 10)], "out of order: the last segment that advanced the window");
        out.clear();
        data(&mut r, 2, 20, &mut out); // the retransmission fills the hole
        assert_eq!(echoes(&out), [(5, 20)], "the segment that filled the hole");
        out.clear();
        data(&mut r, 1, 15, &mut out); // an old duplicate, older than TS.Recent
        assert_eq!(echoes(&out), [(5, 20)], "an older TSval does not replace TS.Recent");
        let mut plain = receiver(ReceiverConfig::default());
        assert_eq!(acks(&mut plain, &[(0, 64)]), [1]);
        let mut out = Vec::new();
        plain.on_data(&seg(1, 64), SimTime::ZERO, &mut out);
        assert_eq!((out[0].timestamps(), out[0].size), (None, 40), "segments without the option: ACKs without it");
    }

    /// An ACK echoes the sum of the XCP feedback of the segments since the previous ACK
    /// (two with delayed ACKs), then starts again from nothing; plain segments, no echo.
    #[test]
    fn acks_echo_the_feedback_gathered_since_the_last_ack() {
        use crate::packet::explicit::XcpHeader;
        use crate::packet::Explicit;
        let cfg = ReceiverConfig { delayed_ack: Some(Dur::from_millis(100)), ..ReceiverConfig::default() };
        let mut r = receiver(cfg);
        let with = |i: u32, fb: f32| {
            let mut p = seg(i, 60);
            p.set_explicit(Explicit::Xcp(XcpHeader { cwnd: 5000.0, rtt_us: 1000, feedback: fb }));
            p
        };
        let mut out = Vec::new();
        for (i, fb) in [(0, 30.0), (1, -5.0), (2, 7.0), (3, 1.0)] {
            r.on_data(&with(i, fb), SimTime::ZERO, &mut out);
        }
        let fb = |p: &Packet| match p.explicit() {
            Some(Explicit::Xcp(h)) => (h.feedback, h.cwnd, h.rtt_us),
            other => panic!("{other:?}"),
        };
        assert_eq!(out.iter().map(fb).collect::<Vec<_>>(), [(25.0, 0.0, 0), (8.0, 0.0, 0)]);
        r.on_data(&seg(4, 60), SimTime::ZERO, &mut out);
        r.on_data(&seg(5, 60), SimTime::ZERO, &mut out);
        assert_eq!(out[2].explicit(), None);
    }

    #[test]
    fn delayed_acks_every_second_segment_or_timeout() {
        let cfg = ReceiverConfig { delayed_ack: Some(Dur::from_millis(100)), ..ReceiverConfig::default() };
        let mut r = receiver(cfg);
        assert_eq!(acks(&mut r, &[(0, 60)]), Vec::<u32>::new());
        assert_eq!(r.delack_deadline(), Some(SimTime(100_000_000)));
        assert_eq!(acks(&mut r, &[(1, 60)]), vec![2]);
        assert_eq!(acks(&mut r, &[(2, 60)]), Vec::<u32>::new());
        let mut out = Vec::new();
        r.on_delack_timeout(SimTime(100_000_000), &mut out);
        assert_eq!(out[0].ack, Seq(3 * MSS));
        // Out of order: immediate duplicate; filling the gap: immediate ACK.
        assert_eq!(acks(&mut r, &[(4, 60), (3, 60)]), vec![3, 5]);
    }

    #[test]
    fn ecn_echo_until_cwr() {
        let mut r = receiver(ReceiverConfig::default());
        let mut out = Vec::new();
        let mut p = seg(0, 60);
        p.ecn = Ecn::Ce;
        r.on_data(&p, SimTime::ZERO, &mut out);
        r.on_data(&seg(1, 60), SimTime::ZERO, &mut out);
        let mut p = seg(2, 60);
        p.flags |= flags::CWR;
        r.on_data(&p, SimTime::ZERO, &mut out);
        let ece: Vec<bool> = out.iter().map(|p| p.has_flag(flags::ECE)).collect();
        assert_eq!(ece, vec![true, true, false]);
    }

    /// RFC 8257 3.2: ECE follows each packet's CE exactly, CWR changes nothing, and with
    /// delayed ACKs a change of CE state first acknowledges what came before at once.
    #[test]
    fn per_packet_echo_follows_each_packets_ce() {
        let ce_seg = |i: u32, ce: bool, cwr: bool| {
            let mut p = seg(i, 60);
            p.ecn = if ce { Ecn::Ce } else { Ecn::Ect0 };
            if cwr {
                p.flags |= flags::CWR;
            }
            p
        };
        let mut r = receiver(ReceiverConfig { ecn_echo: EcnEcho::PerPacket, ..ReceiverConfig::default() });
        let mut out = Vec::new();
        for (i, (ce, cwr)) in [(true, false), (false, false), (true, true), (true, false), (false, false)].into_iter().enumerate() {
            r.on_data(&ce_seg(i as u32, ce, cwr), SimTime::ZERO, &mut out);
        }
        let ece: Vec<bool> = out.iter().map(|p| p.has_flag(flags::ECE)).collect();
        assert_eq!(ece, vec![true, false, true, true, false]);
        // Delayed ACKs: segments 0, 1 unmarked (one ACK for both); 2 marked: the ACK for 0-1
        // is already out; 3 marked (ACK for 2-3 with ECE); 4 unmarked: nothing pending, so
        // it waits; 5 marked: first the ACK for 4 without ECE, then 5 waits for the timer.
        let mut r = receiver(ReceiverConfig { ecn_echo: EcnEcho::PerPacket, delayed_ack: Some(Dur::from_millis(100)), ..ReceiverConfig::default() });
        let mut out = Vec::new();
        for (i, ce) in [false, false, true, true, false, true].into_iter().enumerate() {
            r.on_data(&ce_seg(i as u32, ce, false), SimTime::ZERO, &mut out);
        }
        let acks: Vec<(u32, bool)> = out.iter().map(|p| (p.ack.0 / MSS, p.has_flag(flags::ECE))).collect();
        assert_eq!(acks, vec![(2, false), (4, true), (5, false)]);
        r.on_delack_timeout(SimTime::ZERO + Dur::from_millis(100), &mut out);
        assert_eq!(out.last().map(|p| (p.ack.0 / MSS, p.has_flag(flags::ECE))), Some((6, true)));
        // Under RFC 3168's rule the same arrivals echo until a CWR.
        let mut r = receiver(ReceiverConfig::default());
        let mut out = Vec::new();
        for (i, ce) in [true, false, false].into_iter().enumerate() {
            r.on_data(&ce_seg(i as u32, ce, false), SimTime::ZERO, &mut out);
        }
        assert!(out.iter().all(|p| p.has_flag(flags::ECE)));
    }

    /// RFC 9768: every ACK carries the CE count from 5 modulo 8 (it wraps), CWR on a data
    /// packet changes nothing, and with delayed ACKs a CE after a non-CE packet, or a second
    /// CE since the last ACK, is acknowledged at once.
    #[test]
    fn accecn_acks_count_ce_packets_exactly_and_wrap() {
        let ce_seg = |i: u32, ce: bool| {
            let mut p = seg(i, 60);
            p.ecn = if ce { Ecn::Ce } else { Ecn::Ect1 };
            p.flags |= flags::CWR;
            p
        };
        let marks = [false, true, true, false, true, true, true, true, true, false, true, true, true];
        let mut r = receiver(ReceiverConfig { ecn_echo: EcnEcho::AccEcn, ..ReceiverConfig::default() });
        let mut out = Vec::new();
        for (i, &ce) in marks.iter().enumerate() {
            r.on_data(&ce_seg(i as u32, ce), SimTime::ZERO, &mut out);
        }
        let mut count = crate::tcp::accecn::CEP_INIT;
        for (p, &ce) in out.iter().zip(&marks) {
            count += ce as u32;
            assert_eq!(crate::tcp::accecn::ace(p) as u32, count % 8, "ACK of {}", p.ack.0 / MSS);
        }
        assert_eq!(count - 5, 10, "ten marks: the field wrapped");
        assert_eq!(r.stats.ce_received, 10);
        // Delayed ACKs: 0 waits; 1 is CE after non-CE: ACK at once; 2 (CE after CE) waits,
        // 3 completes a pair; 4 is CE after non-CE: at once; 5 waits; 6 is the second CE
        // since the last ACK: at once.
        let mut r = receiver(ReceiverConfig { ecn_echo: EcnEcho::AccEcn, delayed_ack: Some(Dur::from_millis(100)), ..ReceiverConfig::default() });
        let mut out = Vec::new();
        for (i, ce) in [false, true, true, false, true, true, true].into_iter().enumerate() {
            r.on_data(&ce_seg(i as u32, ce), SimTime::ZERO, &mut out);
        }
        let acks: Vec<(u32, u8)> = out.iter().map(|p| (p.ack.0 / MSS, crate::tcp::accecn::ace(p))).collect();
        assert_eq!(acks, vec![(2, 6), (4, 7), (5, 0), (7, 2)]);
    }
    #[test]
    fn sequence_numbers_wrap_in_the_reorder_buffer() {
        let isn = u32::MAX - 150;
        let mut r = TcpReceiver::new(ReceiverConfig::default(), ends(), isn);
        let mut out = Vec::new();
        let at = |k: u32| {
            let mut p = seg(0, 60);
            p.seq = Seq(isn.wrapping_add(k * MSS));
            p
        };
        r.on_data(&at(1), SimTime::ZERO, &mut out); // straddles the wrap, out of order
        r.on_data(&at(2), SimTime::ZERO, &mut out);
        r.on_data(&at(0), SimTime::ZERO, &mut out);
        assert_eq!(r.rcv_nxt(), Seq(isn.wrapping_add(3 * MSS)));
        assert_eq!(r.stats.delivered_bytes, 3 * MSS as u64);
    }

    // The DAS paper's Fig. 5/6: pkt_0..pkt_4 travel the backup path (TTL 61), pkt_5 and
    // later the primary (TTL 62); everything before pkt_0 arrived in order over the backup.
    // Segment k here is pkt_(k - 10), so pkt_0 is segment 10.
    const BACKUP: u8 = 61;
    const PRIMARY: u8 = 62;

    fn das_receiver_after_backup_prefix() -> TcpReceiver {
        let mut r = receiver(ReceiverConfig { das: true, ..ReceiverConfig::default() });
        let prefix: Vec<(u32, u8)> = (0..10).map(|i| (i, BACKUP)).collect();
        acks(&mut r, &prefix);
        r
    }

    #[test]
    fn das_fig6a_path_switch_sends_no_duplicate_ack() {
        let mut r = das_receiver_after_backup_prefix();
        let sent = acks(&mut r, &[(15, PRIMARY), (16, PRIMARY), (17, PRIMARY), (10, BACKUP), (11, BACKUP), (12, BACKUP), (13, BACKUP), (14, BACKUP)]);
        // ack_k acknowledges pkt_k, i.e. asks for segment k + 11.
        assert_eq!(sent, vec![11, 12, 13, 14, 18]);
        assert_eq!(r.stats.dupacks_sent, 0);
        assert_eq!(r.stats.dupacks_suppressed, 3);
    }

    #[test]
    fn das_fig6b_loss_on_the_backup_path_still_gets_duplicate_acks() {
        let mut r = das_receiver_after_backup_prefix();
        // pkt_1 is lost on the backup path.
        let sent = acks(&mut r, &[(15, PRIMARY), (16, PRIMARY), (17, PRIMARY), (10, BACKUP), (12, BACKUP), (13, BACKUP), (14, BACKUP)]);
        assert_eq!(sent, vec![11, 11, 11, 11], "ack_0, then three duplicates of ack_0");
        assert_eq!(r.stats.dupacks_sent, 3);
    }

    #[test]
    fn das_fig6c_pseudocode_keeps_suppressing_after_a_primary_path_loss() {
        // pkt_5 is lost on the primary path. The paper says the receiver "will go back to
        // normal" once the delayed packets are in and send ack_5 duplicates; its pseudocode,
        // which this receiver follows exactly, does not: last_in_order_ttl stays at the
        // backup TTL, so every later primary packet (higher TTL) is suppressed, and the loss
        // is left to the retransmission timeout.
        let mut r = das_receiver_after_backup_prefix();
        let sent = acks(
            &mut r,
            &[(16, PRIMARY), (17, PRIMARY), (10, BACKUP), (11, BACKUP), (12, BACKUP), (13, BACKUP), (14, BACKUP), (18, PRIMARY), (19, PRIMARY), (20, PRIMARY)],
        );
        assert_eq!(sent, vec![11, 12, 13, 14, 15]);
        assert_eq!(r.stats.dupacks_suppressed, 5);
        // Without DAS the same arrivals give ack_5 duplicates (and the two earlier ones).
        let mut plain = receiver(ReceiverConfig::default());
        acks(&mut plain, &(0..10).map(|i| (i, BACKUP)).collect::<Vec<_>>());
        let sent = acks(
            &mut plain,
            &[(16, PRIMARY), (17, PRIMARY), (10, BACKUP), (11, BACKUP), (12, BACKUP), (13, BACKUP), (14, BACKUP), (18, PRIMARY), (19, PRIMARY), (20, PRIMARY)],
        );
        assert_eq!(sent, vec![10, 10, 11, 12, 13, 14, 15, 15, 15, 15]);
    }

    #[test]
    fn das_equal_ttl_with_suppression_on_sends_the_duplicate_and_clears_the_flag() {
        // Pseudocode lines 9-10.
        let mut r = das_receiver_after_backup_prefix();
        let sent = acks(&mut r, &[(12, PRIMARY), (13, BACKUP), (14, BACKUP)]);
        assert_eq!(sent, vec![10, 10], "the first is suppressed, equal-TTL ones are not");
        assert!(!r.dup_ack_suppress);
    }

    #[test]
    fn das_with_delayed_acks_suppresses_only_duplicates() {
        let cfg = ReceiverConfig { das: true, delayed_ack: Some(Dur::from_millis(100)), ..ReceiverConfig::default() };
        let mut r = receiver(cfg);
        assert_eq!(acks(&mut r, &[(0, BACKUP), (1, BACKUP)]), vec![2]);
        assert_eq!(acks(&mut r, &[(3, PRIMARY), (2, BACKUP)]), vec![4], "suppressed duplicate, then the gap-filling ACK at once");
    }

    /// The ACK number and SACK blocks of each ACK, for 500-byte segments at the given
    /// sequence numbers (RFC 2018 section 6's examples).
    fn sack_acks(r: &mut TcpReceiver, seqs: &[u32]) -> Vec<(u32, Vec<(u32, u32)>)> {
        let mut out = Vec::new();
        for &sq in seqs {
            let p = Packet::tcp_data(&ends(), Seq(sq), 500, 64, SimTime::ZERO);
            r.on_data(&p, SimTime::ZERO, &mut out);
        }
        out.iter().map(|a| (a.ack.0, a.sack.iter().map(|b| (b.0 .0, b.1 .0)).collect())).collect()
    }

    #[test]
    fn sack_blocks_follow_rfc2018_section_6_case_3() {
        // Eight 500-byte segments from 5000; the 2nd, 4th, 6th and 8th are dropped.
        let mut r = TcpReceiver::new(ReceiverConfig { sack: true, ..ReceiverConfig::default() }, ends(), 5000);
        let sent = sack_acks(&mut r, &[5000, 6000, 7000, 8000]);
        assert_eq!(
            sent,
            [(5500, vec![]), (5500, vec![(6000, 6500)]), (5500, vec![(7000, 7500), (6000, 6500)]), (5500, vec![(8000, 8500), (7000, 7500), (6000, 6500)]),]
        );
        // "Suppose at this point, the 4th packet is received out of order": the first block
        // is the one that holds it, merged; the others are repeated unless now covered.
        assert_eq!(sack_acks(&mut r, &[6500]), [(5500, vec![(6000, 7500), (8000, 8500)])]);
        // "Suppose at this point, the 2nd segment is received": the ACK moves to 7500.
        assert_eq!(sack_acks(&mut r, &[5500]), [(7500, vec![(8000, 8500)])]);
        // The last hole filled: no option.
        let ack = sack_acks(&mut r, &[7500]);
        assert_eq!(ack, [(8500, vec![])]);
        let mut out = Vec::new();
        r.on_data(&Packet::tcp_data(&ends(), Seq(9000), 500, 64, SimTime::ZERO), SimTime::ZERO, &mut out);
        assert_eq!(out[0].size, 40 + 12, "one block: 2 NOPs, kind, length, 8 bytes");
    }

    #[test]
    fn sack_blocks_repeat_the_most_recent_and_fill_with_the_rest() {
        let mut r = TcpReceiver::new(ReceiverConfig { sack: true, ..ReceiverConfig::default() }, ends(), 0);
        sack_acks(&mut r, &[0, 1000, 2000, 3000]);
        // A fourth block: the oldest reported one (1000) drops out of the option.
        assert_eq!(sack_acks(&mut r, &[4000]), [(500, vec![(4000, 4500), (3000, 3500), (2000, 2500)])]);
        // 2500 joins 2000 and 3000 into one block: it comes first, then the last reported
        // ones not inside it (4000), then a block not reported lately (1000), lowest first.
        assert_eq!(sack_acks(&mut r, &[2500]), [(500, vec![(2000, 3500), (4000, 4500), (1000, 1500)])]);
        // A duplicate of buffered data is answered with its block first.
        assert_eq!(sack_acks(&mut r, &[1000]), [(500, vec![(1000, 1500), (2000, 3500), (4000, 4500)])]);
        // A duplicate below the cumulative ACK (no D-SACK) repeats the last option.
        assert_eq!(sack_acks(&mut r, &[0]), [(500, vec![(1000, 1500), (2000, 3500), (4000, 4500)])]);
    }

    #[test]
    fn sack_blocks_with_delayed_acks_and_never_without_sack() {
        let cfg = ReceiverConfig { sack: true, delayed_ack: Some(Dur::from_millis(100)), ..ReceiverConfig::default() };
        let mut r = TcpReceiver::new(cfg, ends(), 0);
        // In order: delayed, no block. Out of order: at once, with its block. In order below
        // the hole: at once (RFC 5681 4.2), still reporting the block.
        assert_eq!(sack_acks(&mut r, &[0, 1500, 500]), [(500, vec![(1500, 2000)]), (1000, vec![(1500, 2000)])]);
        let mut plain = TcpReceiver::new(ReceiverConfig::default(), ends(), 0);
        let sent = sack_acks(&mut plain, &[0, 1000, 2000]);
        assert!(sent.iter().all(|a| a.1.is_empty()));
        let mut out = Vec::new();
        plain.on_data(&Packet::tcp_data(&ends(), Seq(3000), 500, 64, SimTime::ZERO), SimTime::ZERO, &mut out);
        assert_eq!(out[0].size, 40);
    }

    #[test]
    fn das_suppression_with_sack_sends_no_block_for_the_suppressed_duplicate() {
        // DAS still decides which duplicates go out; those that do carry the blocks.
        let mut r = receiver(ReceiverConfig { das: true, sack: true, ..ReceiverConfig::default() });
        acks(&mut r, &(0..10).map(|i| (i, BACKUP)).collect::<Vec<_>>());
        let mut out = Vec::new();
        for (i, ttl) in [(12, PRIMARY), (13, BACKUP)] {
            r.on_data(&seg(i, ttl), SimTime::ZERO, &mut out);
        }
        assert_eq!(r.stats.dupacks_suppressed, 1);
        assert_eq!(out.len(), 1);
        let blocks: Vec<(u32, u32)> = out[0].sack.iter().map(|b| (b.0 .0, b.1 .0)).collect();
        assert_eq!(blocks, [(1200, 1400)], "the segment that triggered it, merged with the suppressed one's");
    }
}
