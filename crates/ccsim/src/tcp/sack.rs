//! The sender's SACK scoreboard (RFC 2018) and the routines RFC 6675 section 4 defines on it:
//! `Update()`, `IsLost()`, `SetPipe()` and `NextSeg()`. The sender (`tcp/sender.rs`) runs
//! the loss recovery of RFC 6675 section 5 with them; the window arithmetic stays the
//! controller's (`tcp/cc`).
//!
//! Positions are the sender's 64-bit byte offsets from the initial sequence number, ranges
//! half-open `[start, end)`. RFC 6675's names map to the sender's state as follows:
//! HighACK + 1 is SND.UNA (`una`), HighData + 1 is SND.MAX (`max`), and `high_rxt` is one
//! past RFC 6675's HighRxt (the end of the highest range retransmitted). The scoreboard holds
//! the SACKed ranges above `una`, sorted and disjoint: a `Vec` that is reused, so it grows only
//! when there are more SACKed ranges (holes) than ever before, never per packet.
//!
//! Rule by rule (RFC 6675 section 4):
//!
//! - `Update()`: each SACK block marks its bytes SACKed; blocks are clipped to `[una, max)`
//!   (a block at or below the cumulative ACK, or beyond what was sent, says nothing new), and
//!   the bytes newly SACKed are counted: an ACK is a duplicate in RFC 6675's sense (section
//!   2) when it SACKs bytes not SACKed before. The cumulative ACK drops what it covers.
//! - `IsLost(SeqNum)`: true when `DupThresh` discontiguous SACKed sequences lie above
//!   SeqNum, or more than `(DupThresh - 1) * SMSS` SACKed bytes do. Segment boundaries are not
//!   remembered, so the "discontiguous SACKed sequences" counted are the scoreboard's disjoint
//!   ranges; with full-sized segments the byte rule decides first (three SACKed segments are
//!   more than two SMSS).
//! - `SetPipe()`: for every byte from `una` to `max` not SACKed, one byte of pipe if it is not
//!   lost (`IsLost` false: it may still be in the network) and one more if it has been
//!   retransmitted (below `high_rxt`: the retransmission may be). Within one hole (the bytes
//!   between two SACKed ranges) `IsLost` is the same for every byte, and it only becomes true
//!   going down, so the pipe is a sum over holes, O(ranges).
//! - `NextSeg()`, rules (1) to (4), one segment of up to SMSS bytes, never into SACKed data:
//!   (1) from the first byte S2 >= `high_rxt` that is not SACKed and `IsLost(S2)`; else (2)
//!   new data from `max`, if there is any and the receiver's window allows (the caller says
//!   how much); else (3) from the first byte S3 >= `high_rxt` not SACKed and below the highest
//!   SACKed byte, lost or not; else (4) the rescue retransmission, once per recovery (the
//!   caller says whether one is allowed: HighACK > RescueRxt): the last segment's worth of
//!   the highest unSACKed bytes.

/// Which rule of `NextSeg()` chose a segment (RFC 6675 section 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextRule {
    /// (1): a lost hole above HighRxt: a retransmission that moves HighRxt.
    Lost,
    /// (2): previously unsent data.
    New,
    /// (3): a hole above HighRxt not yet deemed lost: a retransmission that moves HighRxt.
    Hole,
    /// (4): the rescue retransmission of the highest unSACKed data; HighRxt stays.
    Rescue,
}

/// A segment `NextSeg()` returns: `len` bytes from `start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub start: u64,
    pub len: u64,
    pub rule: NextRule,
}

/// Where the sender stands, for the routines: RFC 6675's HighACK + 1 (`una`), HighData + 1
/// (`max`), HighRxt + 1 (`high_rxt`, at least `una`), SMSS and DupThresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub una: u64,
    pub max: u64,
    pub high_rxt: u64,
    pub mss: u64,
    pub dupthresh: u32,
}

/// The SACKed ranges above the cumulative ACK (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scoreboard {
    ranges: Vec<(u64, u64)>,
}

impl Scoreboard {
    /// The SACKed ranges, sorted, disjoint and not touching.
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Forgets every SACKed range (after a retransmission timeout, RFC 2018 section 8: "the
    /// timeout might indicate that the data receiver has reneged").
    /// Bytes SACKed above the cumulative ACK.
    pub fn sacked_bytes(&self) -> u64 {
        self.ranges.iter().map(|&(s, e)| e - s).sum()
    }

    pub fn clear(&mut self) {
        self.ranges.clear();
    }

    /// The cumulative ACK moved to `una`: what it covers is no longer on the scoreboard.
    pub fn advance(&mut self, una: u64) {
        let covered = self.ranges.iter().take_while(|r| r.1 <= una).count();
        self.ranges.drain(..covered);
        if let Some(first) = self.ranges.first_mut() {
            first.0 = first.0.max(una);
        }
    }

    /// `Update()` for one SACK block `[start, end)`, clipped to `[una, max)`; returns the bytes
    /// it SACKs that were not SACKed before.
    pub fn update(&mut self, start: u64, end: u64, una: u64, max: u64) -> u64 {
        let (start, end) = (start.max(una), end.min(max));
        if start >= end {
            return 0;
        }
        // The ranges that overlap or touch [start, end) are merged with it.
        let first = self.ranges.partition_point(|r| r.1 < start);
        let last = self.ranges.partition_point(|r| r.0 <= end);
        let mut known = 0;
        let (mut lo, mut hi) = (start, end);
        for r in &self.ranges[first..last] {
            known += r.1.min(end).saturating_sub(r.0.max(start));
            lo = lo.min(r.0);
            hi = hi.max(r.1);
        }
        if first == last {
            self.ranges.insert(first, (lo, hi));
        } else {
            self.ranges[first] = (lo, hi);
            self.ranges.drain(first + 1..last);
        }
        (end - start) - known
    }

    /// The end of the SACKed range holding `off`, or `off` if it is not SACKed.
    pub fn skip(&self, off: u64) -> u64 {
        match self.ranges.iter().find(|r| r.1 > off) {
            Some(&(s, e)) if s <= off => e,
            _ => off,
        }
    }

    /// The start of the first SACKed range above `off`, if any.
    pub fn next_sacked(&self, off: u64) -> Option<u64> {
        self.ranges.iter().find(|r| r.0 > off).map(|r| r.0)
    }

    /// `IsLost(seq)`: DupThresh SACKed ranges, or more than (DupThresh - 1) SMSS SACKed bytes,
    /// above byte `seq`.
    pub fn is_lost(&self, seq: u64, mss: u64, dupthresh: u32) -> bool {
        let mut count = 0u32;
        let mut bytes = 0u64;
        for &(s, e) in self.ranges.iter().rev() {
            if e <= seq + 1 {
                break;
            }
            if s > seq {
                count += 1;
            }
            bytes += e - s.max(seq + 1);
        }
        count >= dupthresh || bytes > (dupthresh as u64 - 1) * mss
    }

    /// Bytes below which every byte not SACKed is lost (`IsLost` true): the start of the
    /// highest range that has enough SACKed data from it up; 0 when nothing is lost.
    fn lost_below(&self, mss: u64, dupthresh: u32) -> u64 {
        let (mut count, mut bytes) = (0u32, 0u64);
        for &(s, e) in self.ranges.iter().rev() {
            count += 1;
            bytes += e - s;
            if count >= dupthresh || bytes > (dupthresh as u64 - 1) * mss {
                return s;
            }
        }
        0
    }

    /// The holes: the ranges from `una` to `max` not SACKed, lowest first.
    fn holes(&self, una: u64, max: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        let starts = std::iter::once(una).chain(self.ranges.iter().map(|r| r.1));
        let ends = self.ranges.iter().map(|r| r.0).chain(std::iter::once(max));
        starts.zip(ends).filter(|(s, e)| s < e)
    }

    /// `SetPipe()`: the bytes the sender estimates to be in the network.
    pub fn pipe(&self, w: &Window) -> u64 {
        let lost = self.lost_below(w.mss, w.dupthresh);
        let mut pipe = 0;
        for (s, e) in self.holes(w.una, w.max) {
            if s >= lost {
                pipe += e - s; // (a) not lost
            }
            pipe += e.min(w.high_rxt).saturating_sub(s); // (b) retransmitted
        }
        pipe
    }

    /// `NextSeg()`: the next segment to send in loss recovery, by rules (1) to (4). `new_len`
    /// is how much previously unsent data rule (2) may send from `max` (0 when there is none
    /// or the receiver's window is full; at most SMSS); `rescue` whether rule (4) may
    /// retransmit (HighACK > RescueRxt, or no rescue yet).
    pub fn next_seg(&self, w: &Window, new_len: u64, rescue: bool) -> Option<Segment> {
        let from = w.high_rxt.max(w.una);
        let top = self.ranges.last().map_or(w.una, |r| r.1); // one past the highest SACKed byte
                                                             // The first hole part at or above HighRxt, below the highest SACKed byte.
        let above = self.holes(w.una, top).find(|&(_, e)| e > from).map(|(s, e)| (s.max(from), e));
        if let Some((s, e)) = above {
            if s < self.lost_below(w.mss, w.dupthresh) {
                return Some(Segment { start: s, len: w.mss.min(e - s), rule: NextRule::Lost });
            }
        }
        if new_len > 0 {
            return Some(Segment { start: w.max, len: new_len, rule: NextRule::New });
        }
        if let Some((s, e)) = above {
            return Some(Segment { start: s, len: w.mss.min(e - s), rule: NextRule::Hole });
        }
        if rescue {
            // The highest hole holds the highest unSACKed byte; its last SMSS or less.
            if let Some((s, e)) = self.holes(w.una, w.max).last() {
                let start = s.max(e.saturating_sub(w.mss));
                return Some(Segment { start, len: e - start, rule: NextRule::Rescue });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const MSS: u64 = 100;

    /// A scoreboard with segments `sacked` (indices of MSS-byte segments) SACKed.
    fn board(sacked: &[u64]) -> Scoreboard {
        let mut b = Scoreboard::default();
        for &i in sacked {
            b.update(i * MSS, (i + 1) * MSS, 0, u64::MAX);
        }
        b
    }

    fn window(una_seg: u64, max_seg: u64, high_rxt_seg: u64) -> Window {
        Window { una: una_seg * MSS, max: max_seg * MSS, high_rxt: high_rxt_seg * MSS, mss: MSS, dupthresh: 3 }
    }

    #[test]
    fn update_merges_and_counts_only_new_bytes() {
        let mut b = Scoreboard::default();
        assert_eq!(b.update(300, 400, 100, 1000), 100);
        assert_eq!(b.update(500, 600, 100, 1000), 100);
        assert_eq!(b.update(350, 550, 100, 1000), 100, "only the gap 400..500 is new");
        assert_eq!(b.ranges(), [(300, 600)]);
        assert_eq!(b.update(300, 600, 100, 1000), 0, "a repeated block is no news");
        assert_eq!(b.update(600, 700, 100, 1000), 100);
        assert_eq!(b.ranges(), [(300, 700)], "touching ranges merge");
        // Clipped to [una, max): below the cumulative ACK or beyond what was sent says nothing.
        assert_eq!(b.update(0, 100, 100, 1000), 0);
        assert_eq!(b.update(900, 1500, 100, 1000), 100);
        assert_eq!(b.ranges(), [(300, 700), (900, 1000)]);
        b.advance(350);
        assert_eq!(b.ranges(), [(350, 700), (900, 1000)]);
        b.advance(800);
        assert_eq!(b.ranges(), [(900, 1000)]);
        b.clear();
        assert!(b.is_empty());
    }

    #[test]
    fn is_lost_needs_dupthresh_ranges_or_more_than_two_segments_above() {
        // Segment 0 missing, 1 and 2 SACKed: two segments above, not lost.
        let b = board(&[1, 2]);
        assert!(!b.is_lost(0, MSS, 3));
        // A third SACKed segment: more than (3 - 1) SMSS above.
        let b = board(&[1, 2, 3]);
        assert!(b.is_lost(0, MSS, 3) && b.is_lost(99, MSS, 3));
        assert!(!b.is_lost(200, MSS, 3), "199 SACKed bytes above byte 200");
        // Three discontiguous ranges of small segments (10 bytes each) above.
        let mut small = Scoreboard::default();
        for s in [10, 30, 50] {
            small.update(s, s + 10, 0, 1000);
        }
        assert!(small.is_lost(0, MSS, 3) && small.is_lost(9, MSS, 3));
        assert!(!small.is_lost(20, MSS, 3), "two ranges and 20 bytes above");
        assert!(!Scoreboard::default().is_lost(0, MSS, 3));
    }

    #[test]
    fn pipe_counts_holes_not_lost_and_retransmissions() {
        // 10 segments out; 0 and 4 lost, 1-3 and 5-9 SACKed: 0 is lost, 4 too (5 SACKed
        // segments above it). Nothing retransmitted: nothing in the pipe.
        let b = board(&[1, 2, 3, 5, 6, 7, 8, 9]);
        assert_eq!(b.pipe(&window(0, 10, 0)), 0);
        // Segment 0 retransmitted: one segment in the pipe.
        assert_eq!(b.pipe(&window(0, 10, 1)), MSS);
        // Segments 10 and 11 sent as new data: in the pipe, not lost (nothing SACKed above).
        assert_eq!(b.pipe(&window(0, 12, 1)), 3 * MSS);
        // Only 8 and 9 SACKed: two segments above 0-7, not more than 2 SMSS, so nothing is
        // lost; retransmitting 0-2 adds three.
        let b = board(&[8, 9]);
        assert_eq!(b.pipe(&window(0, 10, 0)), 8 * MSS, "not lost: still in flight");
        assert_eq!(b.pipe(&window(0, 10, 3)), 11 * MSS, "in flight and retransmitted: counted twice");
        // Empty scoreboard: the pipe is the FlightSize.
        assert_eq!(Scoreboard::default().pipe(&window(2, 7, 0)), 5 * MSS);
    }

    #[test]
    fn next_seg_rules_one_to_four() {
        // Segments 0..10 sent; 0, 4 and 8 lost; the others SACKed but 9 (in flight).
        let b = board(&[1, 2, 3, 5, 6, 7]);
        let w = window(0, 10, 0);
        let seg = |w: &Window, new: u64, rescue: bool| b.next_seg(w, new, rescue).map(|s| (s.start / MSS, s.len, s.rule));
        // Rule (1): the first lost hole above HighRxt.
        assert_eq!(seg(&w, MSS, true), Some((0, MSS, NextRule::Lost)));
        // Once it is retransmitted, the next: segment 4 (three segments SACKed above it).
        assert_eq!(seg(&window(0, 10, 1), MSS, true), Some((4, MSS, NextRule::Lost)));
        // Segment 8 has nothing SACKed above: not lost. Rule (2): new data.
        assert_eq!(seg(&window(0, 10, 5), MSS, true), Some((10, MSS, NextRule::New)));
        // Without new data, rule (3): a hole above HighRxt below the highest SACKed byte
        // (segment 8 lies above every SACKed byte, so there is none).
        assert_eq!(seg(&window(0, 10, 5), 0, false), None);
        let b2 = board(&[1, 2, 3, 5, 6, 7, 9]);
        let seg2 = |w: &Window| b2.next_seg(w, 0, false).map(|s| (s.start / MSS, s.len, s.rule));
        assert_eq!(seg2(&window(0, 11, 4)), Some((4, MSS, NextRule::Lost)), "4 has four segments SACKed above");
        assert_eq!(seg2(&window(0, 11, 5)), Some((8, MSS, NextRule::Hole)), "8 has one SACKed segment above: not lost, a hole");
        // Rule (4): nothing else to send, a rescue is allowed: the highest unSACKed segment.
        assert_eq!(seg(&window(0, 10, 5), 0, true), Some((9, MSS, NextRule::Rescue)));
        // A segment never runs into SACKed data: a short hole gives a short segment.
        let mut b3 = Scoreboard::default();
        b3.update(150, 450, 0, 1000);
        assert_eq!(b3.next_seg(&window(0, 10, 0), 0, false), Some(Segment { start: 0, len: MSS, rule: NextRule::Lost }));
        assert_eq!(b3.next_seg(&Window { high_rxt: 100, ..window(0, 10, 0) }, 0, false), Some(Segment { start: 100, len: 50, rule: NextRule::Lost }));
        // Nothing outstanding unSACKed: no rescue.
        let all = board(&[0, 1]);
        assert_eq!(all.next_seg(&window(0, 2, 0), 0, true), None);
    }

    /// A scoreboard from random segments, and the per-byte definitions of RFC 6675 (SetPipe
    /// walking every octet, NextSeg rule (1) testing IsLost octet by octet).
    fn per_byte_pipe(b: &Scoreboard, w: &Window) -> u64 {
        let sacked = |x: u64| b.ranges().iter().any(|r| r.0 <= x && x < r.1);
        (w.una..w.max).filter(|&x| !sacked(x)).map(|x| (!b.is_lost(x, w.mss, w.dupthresh)) as u64 + (x < w.high_rxt) as u64).sum()
    }

    fn per_byte_rule_one(b: &Scoreboard, w: &Window) -> Option<u64> {
        let sacked = |x: u64| b.ranges().iter().any(|r| r.0 <= x && x < r.1);
        (w.high_rxt.max(w.una)..w.max).find(|&x| !sacked(x) && b.is_lost(x, w.mss, w.dupthresh))
    }

    proptest! {
        #[test]
        fn pipe_and_rule_one_agree_with_the_per_byte_definitions(
            blocks in proptest::collection::vec((0u64..60, 1u64..25), 0..8),
            una in 0u64..20,
            rxt in 0u64..70,
            dupthresh in 1u32..5,
        ) {
            let (mss, max) = (10, 70);
            let mut b = Scoreboard::default();
            for (s, len) in blocks {
                b.update(s, s + len, una, max);
            }
            let w = Window { una, max, high_rxt: rxt.max(una), mss, dupthresh };
            prop_assert_eq!(b.pipe(&w), per_byte_pipe(&b, &w));
            let one = b.next_seg(&w, 0, false).filter(|s| s.rule == NextRule::Lost).map(|s| s.start);
            prop_assert_eq!(one, per_byte_rule_one(&b, &w));
        }
    }
}
