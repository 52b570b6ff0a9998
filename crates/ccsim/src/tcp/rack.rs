//! RACK-TLP loss detection (RFC 8985), for a SACK sender with `SenderConfig::rack`: the
//! sender (`tcp/sender.rs`) keeps one [`Rack`] (boxed, only when it is on) and calls it on
//! every transmission, every ACK and its timer; RFC 6675's duplicate-ACK threshold and
//! `IsLost()` then start no recovery (section 6.2: RACK detects).
//!
//! # RACK (section 6)
//!
//! - Every transmitted range is a record with its transmit time (`Segment.xmit_ts`), in
//!   sequence order, and flags: SACKed, deemed lost, ever retransmitted (RFC 8985's
//!   `Segment.retransmitted`), and a retransmission in flight (Linux's `TCPCB_SACKED_RETRANS`).
//!   A retransmission of part of a record splits it; the records cover `[SND.UNA, SND.MAX)`.
//! - Each ACK's newly delivered records (cumulatively or selectively) update RACK.xmit_ts,
//!   RACK.end_seq and RACK.rtt with the most recently sent of them (step 2), except a
//!   retransmitted record whose delivery is ambiguous: its RTT would be below the smallest
//!   RTT seen (the min_RTT rule, Linux's `tcp_rack_advance()`). The step's other test, a
//!   TSecr older than the retransmission, is not applied: under RFC 7323 4.3 the receiver
//!   echoes, for data above a hole, the TSval of the last segment in order, so every SACKed
//!   retransmission would look ambiguous and RACK would learn nothing from them. RACK.min_RTT
//!   is the smallest RTT of the records delivered that were never retransmitted.
//! - Reordering (step 3): a record never retransmitted, delivered below RACK.fack (the
//!   highest end delivered so far), sets RACK.reordering_seen.
//! - The reordering window (step 4): `min(min_RTT / 4, SRTT)`, or 0 while no reordering has
//!   been seen and the sender is in recovery (fast or after a timeout) or holds DupThresh
//!   SACKed segments. The DSACK-driven adaptation (`reo_wnd_mult`, section 6.2 step 4) is
//!   not done: ccsim's receiver sends no DSACK blocks.
//! - Loss (step 5): a record not SACKed, sent before RACK's (`RACK_sent_after`: earlier, or
//!   at the same time with a lower end) and not already lost and waiting for its
//!   retransmission, is lost once `xmit_ts + RACK.rtt + reo_wnd <= now`; for the others the
//!   reordering timer is set to when the last of them would be.
//!
//! At a retransmission timeout every record not SACKed is deemed lost (Linux's
//! `tcp_enter_loss()`; the sender goes back N), and a resend RACK then finds lost is resent
//! at once as the window allows (Linux's loss state resends what RACK marks).
//!
//! The sender enters SACK recovery when a record is lost and not yet resent (as RFC 6675's
//! (4) with PRR or `cwnd - pipe`), or with `recover_again` when one deemed lost is not yet
//! delivered, resent or not (Linux's `lost_out`), and in recovery `NextSeg()` sends the lost records first
//! (lowest first, a lost retransmission again), then new data: RFC 6675's rules (1) and (2)
//! with RACK's marks for `IsLost()`; rules (3) and (4) are left to the reordering timer and
//! the loss probe, as in Linux. The pipe is Linux's `tcp_packets_in_flight()`: the bytes
//! outstanding, less those SACKed or lost, plus the retransmissions in flight.
//!
//! # TLP (section 7)
//!
//! - The probe timeout (7.2) is armed after new data is sent (not a probe) and on an ACK of
//!   new data, outside recovery (fast, or after a timeout) with nothing SACKed: `PTO = 2
//!   SRTT`, plus the worst-case delayed ACK ([`MAX_ACK_DELAY`]) when one segment is in
//!   flight, 1 s before any RTT sample, never later than the retransmission timeout (due
//!   together, the probe goes first and restarts the timer). It shares the sender's timer
//!   with the reordering timer, which takes precedence (Linux's one timer does the same).
//! - When it fires (7.3): with no probe outstanding, one new segment if the receiver's window
//!   allows one, whatever cwnd says, else the highest segment sent again; the retransmission
//!   timer restarts.
//! - The probe's ACK (7.4, without DSACK): an ACK beyond a retransmitted probe's end means
//!   the probe repaired a loss, and the sender reduces its window once (as a fast retransmit
//!   that ends at once); a duplicate without SACK blocks means it repaired nothing.

use super::sack::{NextRule, Segment};
use crate::sim::{Dur, SimTime};
use std::collections::VecDeque;

/// RFC 8985 7.2's WCDelAckT, the worst-case delayed-ACK timer a PTO allows for when one
/// segment is in flight (the RFC's recommended 200 ms).
pub const MAX_ACK_DELAY: Dur = Dur::from_millis(200);

/// The PTO before any RTT sample (RFC 8985 7.2).
const PTO_WITHOUT_SRTT: Dur = Dur::from_secs(1);

const SACKED: u8 = 1;
const LOST: u8 = 2;
/// Ever retransmitted (RFC 8985's `Segment.retransmitted`).
const RETRANS: u8 = 4;
/// A retransmission of it is in flight (not yet deemed lost).
const RESENT: u8 = 8;

/// One transmitted range and when it last left.
#[derive(Clone, Copy, Debug)]
struct Record {
    start: u64,
    end: u64,
    xmit_ts: SimTime,
    flags: u8,
}

impl Record {
    fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }

    /// Its bytes in each of the counts [`Tally`] keeps.
    fn tally(&self) -> Tally {
        let len = self.end - self.start;
        let (sacked, lost, resent) = (self.has(SACKED), self.has(LOST), self.has(RESENT));
        Tally {
            out: len,
            sacked: if sacked { len } else { 0 },
            lost: if lost && !sacked { len } else { 0 },
            resent: if resent && !sacked { len } else { 0 },
            unsent_lost: if lost && !resent && !sacked { len } else { 0 },
        }
    }
}

/// Bytes of the records: all, SACKed, lost, retransmitted and in flight, lost and waiting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Tally {
    out: u64,
    sacked: u64,
    lost: u64,
    resent: u64,
    unsent_lost: u64,
}

impl Tally {
    fn add(&mut self, t: Tally) {
        self.out += t.out;
        self.sacked += t.sacked;
        self.lost += t.lost;
        self.resent += t.resent;
        self.unsent_lost += t.unsent_lost;
    }
    fn sub(&mut self, t: Tally) {
        self.out -= t.out;
        self.sacked -= t.sacked;
        self.lost -= t.lost;
        self.resent -= t.resent;
        self.unsent_lost -= t.unsent_lost;
    }
}

/// What the shared timer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RackTimer {
    /// RACK's reordering timer (section 6.2).
    Reorder,
    /// TLP's probe timeout (section 7.2).
    Probe,
}

/// Counters of RACK-TLP's decisions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RackStats {
    /// Records deemed lost (a lost retransmission counts again).
    pub marked_lost: u64,
    /// Reordering timers that fired.
    pub reorder_timeouts: u64,
    /// Loss probes sent, and those that were retransmissions.
    pub probes: u64,
    pub probe_retransmissions: u64,
    /// Probes whose ACK showed they repaired a loss.
    pub probe_repairs: u64,
}

/// RACK-TLP's state (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct Rack {
    records: VecDeque<Record>,
    tally: Tally,
    /// Records SACKed (RACK.segs_sacked) and records ever retransmitted.
    sacked_records: u32,
    retrans_records: u32,
    /// RACK.xmit_ts, RACK.end_seq, RACK.rtt: the most recently sent record delivered.
    xmit_ts: SimTime,
    end_seq: u64,
    rtt: Dur,
    min_rtt: Option<Dur>,
    /// RACK.fack: the highest end delivered.
    fack: u64,
    reordering_seen: bool,
    /// TLP.end_seq (SND.MAX after the probe) while a probe is outstanding, and TLP.is_retrans.
    probe_end: Option<u64>,
    probe_retrans: bool,
    timer: Option<(SimTime, RackTimer)>,
    /// Bytes of the records marked lost by [`detect_loss`](Self::detect_loss), each time.
    lost_bytes: u64,
    pub stats: RackStats,
}

/// RFC 8985's `RACK_sent_after(t1, seq1, t2, seq2)`.
fn sent_after(t1: SimTime, seq1: u64, t2: SimTime, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Rack {
    /// The shared timer: when, and what for.
    pub fn timer(&self) -> Option<(SimTime, RackTimer)> {
        self.timer
    }

    /// RFC 6675's pipe by RACK's marks (Linux's `tcp_packets_in_flight()`).
    pub fn pipe(&self) -> u64 {
        self.tally.out - self.tally.sacked - self.tally.lost + self.tally.resent
    }

    /// Bytes marked lost so far by RFC 8985's rule (not at a timeout), for the losses a
    /// rate sample reports (Linux's `tp->lost`).
    pub fn lost_bytes(&self) -> u64 {
        self.lost_bytes
    }

    /// Some record is lost and not yet resent.
    pub fn has_lost(&self) -> bool {
        self.tally.unsent_lost > 0
    }

    /// Some record deemed lost is not yet delivered, resent or not (Linux's `lost_out`).
    pub fn lost_outstanding(&self) -> bool {
        self.tally.lost > 0
    }

    /// RACK.reordering_seen.
    pub fn reordering_seen(&self) -> bool {
        self.reordering_seen
    }

    /// RACK.min_RTT.
    pub fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt
    }

    /// Applies `f` to record `i`, keeping the tallies.
    fn update(&mut self, i: usize, f: impl FnOnce(&mut Record)) {
        let before = self.records[i];
        let r = &mut self.records[i];
        f(r);
        let after = *r;
        self.tally.sub(before.tally());
        self.tally.add(after.tally());
        self.sacked_records = self.sacked_records + after.has(SACKED) as u32 - before.has(SACKED) as u32;
        self.retrans_records = self.retrans_records + after.has(RETRANS) as u32 - before.has(RETRANS) as u32;
    }

    /// Splits the record holding `at` (inside it, not at its start) in two.
    fn split_at(&mut self, at: u64) {
        let i = self.records.partition_point(|r| r.end <= at);
        if let Some(&r) = self.records.get(i).filter(|r| r.start < at) {
            self.records[i].end = at;
            self.records.insert(i + 1, Record { start: at, ..r });
            self.sacked_records += r.has(SACKED) as u32;
            self.retrans_records += r.has(RETRANS) as u32;
        }
    }

    /// `[off, off + len)` left at `now`: new data is a new record; a retransmission takes
    /// the records it covers (their transmit time, retransmitted and in flight again).
    pub fn on_send(&mut self, off: u64, len: u64, now: SimTime) {
        let end = off + len;
        let top = self.records.back().map_or(off, |r| r.end);
        if off < top {
            self.split_at(off);
            self.split_at(end);
            let first = self.records.partition_point(|r| r.end <= off);
            for i in first..self.records.len() {
                if self.records[i].start >= end {
                    break;
                }
                if !self.records[i].has(SACKED) {
                    self.update(i, |r| {
                        r.xmit_ts = now;
                        r.flags |= RETRANS | RESENT;
                    });
                }
            }
        }
        if end > top {
            let r = Record { start: off.max(top), end, xmit_ts: now, flags: 0 };
            self.tally.add(r.tally());
            self.records.push_back(r);
        }
    }

    /// An ACK moved the cumulative ACK to `ack` and SACKed `blocks` (byte offsets, clipped
    /// to what was sent), at `now`: RFC 8985 6.2 steps 1 to 3 for every record it newly
    /// delivers. Returns whether RACK advanced.
    pub fn on_ack(&mut self, ack: u64, blocks: impl Iterator<Item = (u64, u64)>, now: SimTime) -> bool {
        let mut advanced = false;
        while let Some(&r) = self.records.front() {
            if r.start >= ack {
                break;
            }
            if r.end > ack {
                self.update(0, |r| r.start = ack);
                break;
            }
            self.tally.sub(r.tally());
            self.sacked_records -= r.has(SACKED) as u32;
            self.retrans_records -= r.has(RETRANS) as u32;
            self.records.pop_front();
            if !r.has(SACKED) {
                advanced |= self.delivered(r, now);
            }
        }
        for (left, right) in blocks {
            let mut i = self.records.partition_point(|r| r.end <= left);
            while let Some(&r) = self.records.get(i) {
                if r.start >= right {
                    break;
                }
                if r.start >= left && r.end <= right && !r.has(SACKED) {
                    self.update(i, |r| r.flags |= SACKED);
                    advanced |= self.delivered(r, now);
                }
                i += 1;
            }
        }
        advanced
    }

    /// Record `r` was newly delivered (steps 1 to 3); whether it advanced RACK.
    fn delivered(&mut self, r: Record, now: SimTime) -> bool {
        // Step 3: delivered below RACK.fack without having been resent: reordering.
        if r.end < self.fack && !r.has(RETRANS) {
            self.reordering_seen = true;
        }
        self.fack = self.fack.max(r.end);
        let rtt = now - r.xmit_ts;
        if r.has(RETRANS) {
            // Step 2: an ambiguous delivery of a retransmission says nothing.
            if self.min_rtt.is_some_and(|m| rtt < m) {
                return false;
            }
        } else {
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
        if sent_after(r.xmit_ts, r.end, self.xmit_ts, self.end_seq) {
            (self.xmit_ts, self.end_seq, self.rtt) = (r.xmit_ts, r.end, rtt);
            return true;
        }
        false
    }

    /// RACK.reo_wnd (step 4), with `srtt` the sender's SRTT; `recovering` in fast recovery
    /// or after a timeout; `dupthresh` RFC 6675's DupThresh.
    pub fn reo_wnd(&self, srtt: Option<Dur>, recovering: bool, dupthresh: u32) -> Dur {
        if !self.reordering_seen && (recovering || self.sacked_records >= dupthresh) {
            return Dur::ZERO;
        }
        let quarter = Dur(self.min_rtt.map_or(0, |m| m.as_nanos() / 4));
        srtt.map_or(quarter, |s| quarter.min(s))
    }

    /// Step 5, `RACK_detect_loss_and_arm_timer()`: marks the records lost that are, and sets
    /// the reordering timer for the others sent before RACK's (or clears it). Returns whether
    /// any record is lost and waiting to be resent.
    pub fn detect_loss(&mut self, now: SimTime, reo_wnd: Dur) -> bool {
        let mut wait = Dur::ZERO;
        for i in 0..self.records.len() {
            let r = self.records[i];
            if r.has(SACKED) || (r.has(LOST) && !r.has(RESENT)) {
                continue;
            }
            if !sent_after(self.xmit_ts, self.end_seq, r.xmit_ts, r.end) {
                // First transmissions leave in sequence order: none after this one was sent
                // before RACK's either; only a retransmission further on may have been.
                if !r.has(RETRANS) && self.retrans_records == 0 {
                    break;
                }
                continue;
            }
            let due = r.xmit_ts + self.rtt + reo_wnd;
            if due <= now {
                self.update(i, |r| r.flags = (r.flags | LOST) & !RESENT);
                self.stats.marked_lost += 1;
                self.lost_bytes += r.end - r.start;
            } else {
                wait = wait.max(due - now);
            }
        }
        if wait > Dur::ZERO {
            self.timer = Some((now + wait, RackTimer::Reorder));
        } else if matches!(self.timer, Some((_, RackTimer::Reorder))) {
            self.timer = None;
        }
        self.has_lost()
    }

    /// The shared timer is due at `now`: which it was (and it is cleared), if any.
    pub fn fired(&mut self, now: SimTime) -> Option<RackTimer> {
        let (at, kind) = self.timer?;
        if at > now {
            return None;
        }
        self.timer = None;
        if kind == RackTimer::Reorder {
            self.stats.reorder_timeouts += 1;
        }
        Some(kind)
    }

    /// RFC 6675's `NextSeg()` with RACK's marks: the lowest record lost and not resent,
    /// else `new_len` bytes of new data from `max` (none if 0).
    pub fn next_seg(&self, max: u64, new_len: u64) -> Option<Segment> {
        if let Some(r) = self.first_lost() {
            return Some(Segment { start: r.0, len: r.1 - r.0, rule: NextRule::Lost });
        }
        (new_len > 0).then_some(Segment { start: max, len: new_len, rule: NextRule::New })
    }

    /// The lowest record lost and not yet resent: `(start, end)`.
    pub fn first_lost(&self) -> Option<(u64, u64)> {
        if !self.has_lost() {
            return None;
        }
        self.records.iter().find(|r| r.has(LOST) && !r.has(RESENT) && !r.has(SACKED)).map(|r| (r.start, r.end))
    }

    /// TLP (7.2): arms the probe timeout at `now`, or with `allowed` false (in recovery,
    /// something SACKed, nothing outstanding) clears it; a reordering timer stays. `flight`
    /// and `mss` tell whether one segment is in flight; `rto_at` is the retransmission
    /// timer, which the probe never follows.
    pub fn schedule_probe(&mut self, now: SimTime, allowed: bool, srtt: Option<Dur>, flight: u64, mss: u64, rto_at: Option<SimTime>) {
        if matches!(self.timer, Some((_, RackTimer::Reorder))) {
            return;
        }
        if !allowed {
            self.timer = None;
            return;
        }
        let pto = match srtt {
            Some(s) if flight <= mss => s.saturating_mul(2) + MAX_ACK_DELAY,
            Some(s) => s.saturating_mul(2),
            None => PTO_WITHOUT_SRTT,
        };
        let at = rto_at.map_or(now + pto, |r| r.min(now + pto));
        self.timer = Some((at, RackTimer::Probe));
    }

    /// TLP (7.3): may a probe go now (none is outstanding)?
    pub fn may_probe(&self) -> bool {
        self.probe_end.is_none()
    }

    /// TLP (7.3): the highest segment sent that is not SACKed, for a probe that resends it.
    pub fn last_segment(&self) -> Option<(u64, u64)> {
        self.records.iter().rev().find(|r| !r.has(SACKED)).map(|r| (r.start, r.end))
    }

    /// A probe went out, `retrans` a retransmission, leaving SND.MAX at `max`.
    pub fn probe_sent(&mut self, max: u64, retrans: bool) {
        (self.probe_end, self.probe_retrans) = (Some(max), retrans);
        self.stats.probes += 1;
        self.stats.probe_retransmissions += retrans as u64;
        if matches!(self.timer, Some((_, RackTimer::Probe))) {
            self.timer = None;
        }
    }

    /// TLP (7.4) on an ACK of `ack`: whether it shows that the outstanding probe, a
    /// retransmission, repaired a loss (the sender then reduces its window).
    /// `pure_dup` is a duplicate that carries no SACK blocks.
    pub fn probe_acked(&mut self, ack: u64, pure_dup: bool) -> bool {
        let Some(end) = self.probe_end.filter(|&e| ack >= e) else { return false };
        if !self.probe_retrans || pure_dup {
            self.probe_end = None;
        } else if ack > end {
            self.probe_end = None;
            self.stats.probe_repairs += 1;
            return true;
        }
        false
    }

    /// A loss recovery starts: the probe outstanding is part of it.
    pub fn on_recovery(&mut self) {
        self.probe_end = None;
        if matches!(self.timer, Some((_, RackTimer::Probe))) {
            self.timer = None;
        }
    }

    /// The retransmission timer fired: every record not SACKed is deemed lost (Linux's
    /// `tcp_enter_loss()`; going back N resends them), and the timer and probe are over.
    pub fn on_rto(&mut self) {
        self.timer = None;
        self.probe_end = None;
        for i in 0..self.records.len() {
            if !self.records[i].has(SACKED) {
                self.update(i, |r| r.flags = (r.flags | LOST) & !RESENT);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 100;

    fn t(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    /// Segments `0..n` sent at time 0.
    fn sent(n: u64) -> Rack {
        let mut r = Rack::default();
        for i in 0..n {
            r.on_send(i * MSS, MSS, t(0));
        }
        r
    }

    fn seg(i: u64) -> (u64, u64) {
        (i * MSS, (i + 1) * MSS)
    }

    #[test]
    fn a_segment_sent_before_a_delivered_one_is_lost_after_the_reordering_window() {
        let mut r = sent(4);
        for i in 4..6 {
            r.on_send(i * MSS, MSS, t(10));
        }
        // Segment 0 delivered at 100 ms (min_RTT 100 ms), then 5 (sent at 10 ms) SACKed at
        // 110 ms: RACK.rtt 100 ms; segments 1-4 were sent before 5.
        assert!(r.on_ack(MSS, std::iter::empty(), t(100)));
        assert!(r.on_ack(MSS, [seg(5)].into_iter(), t(110)));
        let reo = r.reo_wnd(Some(Dur::from_millis(100)), false, 3);
        assert_eq!(reo, Dur::from_millis(25), "min_RTT / 4");
        assert!(!r.detect_loss(t(110), reo), "within the window: not lost yet");
        // 1-3 are due at 0 + 100 + 25 ms, 4 at 10 + 100 + 25: the timer waits for the last.
        assert_eq!(r.timer(), Some((t(135), RackTimer::Reorder)));
        assert!(r.detect_loss(t(125), reo));
        assert_eq!(r.first_lost(), Some(seg(1)));
        assert_eq!(r.stats.marked_lost, 3);
        assert_eq!(r.pipe(), MSS, "4 in flight; 1-3 lost, 5 SACKed");
        assert!(r.detect_loss(t(135), reo) && r.stats.marked_lost == 4 && r.timer().is_none());
    }

    #[test]
    fn a_lost_retransmission_is_lost_again_and_resent() {
        let mut r = sent(3);
        r.on_ack(0, [seg(1), seg(2)].into_iter(), t(100));
        assert!(r.detect_loss(t(100), Dur::ZERO));
        assert_eq!(r.lost_bytes(), MSS, "one segment marked lost");
        r.on_send(0, MSS, t(100));
        assert!(!r.has_lost() && r.pipe() == MSS, "the retransmission is in flight");
        // New data sent after the retransmission is SACKed a round trip later: the
        // retransmission, sent before it, is lost again.
        r.on_send(3 * MSS, MSS, t(101));
        r.on_ack(0, [seg(3)].into_iter(), t(201));
        assert!(r.detect_loss(t(201), Dur::ZERO));
        assert_eq!(r.lost_bytes(), 2 * MSS, "marked lost again: counted again, as Linux's tp->lost");
        assert_eq!(r.next_seg(4 * MSS, MSS).map(|s| (s.start, s.rule)), Some((0, NextRule::Lost)));
    }

    #[test]
    fn reordering_is_seen_and_ambiguous_retransmissions_are_not_timed() {
        let mut r = sent(3);
        r.on_ack(0, [seg(2)].into_iter(), t(50));
        assert!(!r.reordering_seen());
        r.on_ack(0, [seg(1)].into_iter(), t(51));
        assert!(r.reordering_seen(), "1 delivered after 2, never resent");
        assert_eq!(r.reo_wnd(Some(Dur::from_millis(50)), true, 3), Dur::from_micros(12_500), "reordering seen: a window even in recovery");
        // Segment 0 resent at 60 ms; the ACK at 70 ms is faster than min_RTT: the original's.
        r.on_send(0, MSS, t(60));
        assert!(!r.on_ack(3 * MSS, std::iter::empty(), t(70)));
        assert_eq!(r.pipe(), 0);
    }

    #[test]
    fn a_partial_retransmission_splits_its_record() {
        let mut r = sent(2);
        r.on_send(50, 100, t(5));
        assert_eq!(r.records.len(), 4);
        assert_eq!(r.pipe(), 300, "three records, 100 bytes of them resent");
        r.on_ack(150, std::iter::empty(), t(20));
        assert_eq!((r.records.len(), r.pipe()), (1, 50));
    }

    #[test]
    fn the_probe_timeout_is_two_srtt_capped_by_the_rto() {
        let mut r = sent(2);
        let srtt = Some(Dur::from_millis(100));
        r.schedule_probe(t(0), true, srtt, 2 * MSS, MSS, Some(t(1000)));
        assert_eq!(r.timer(), Some((t(200), RackTimer::Probe)));
        r.schedule_probe(t(0), true, srtt, MSS, MSS, Some(t(1000)));
        assert_eq!(r.timer(), Some((t(400), RackTimer::Probe)), "one segment: + the delayed ACK");
        r.schedule_probe(t(0), true, srtt, MSS, MSS, Some(t(300)));
        assert_eq!(r.timer(), Some((t(300), RackTimer::Probe)), "never after the RTO");
        r.schedule_probe(t(0), false, srtt, MSS, MSS, None);
        assert_eq!(r.timer(), None);
        // A retransmitted probe whose ACK goes beyond it repaired a loss; one probe at a time.
        r.probe_sent(2 * MSS, true);
        assert!(!r.may_probe());
        assert!(!r.probe_acked(MSS, false) && !r.probe_acked(2 * MSS, false));
        assert!(r.probe_acked(3 * MSS, false) && r.may_probe());
    }
}
