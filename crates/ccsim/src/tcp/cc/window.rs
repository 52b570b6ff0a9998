//! The window every controller keeps, with the standard rules that act on it: RFC 5681's
//! slow start, congestion avoidance, reduction and fast recovery, RFC 6582's deflation and
//! exit, RFC 3168's response to ECN-Echo, and ACC's control (Faber, Section 3.1).
//!
//! A controller owns one [`Window`] and composes its algorithm from these rules: the
//! [`Controller`](super::Controller) trait's hooks default to them, and an algorithm
//! overrides a hook by calling the rules it keeps and adding its own (CUBIC's epoch, DCTCP's
//! estimate, RDP's whole packets). Nothing here is forwarded by hand from one algorithm to
//! another.
//!
//! Rule by rule:
//!
//! - Slow start (RFC 5681 3.1, eq. (2)): while `cwnd < ssthresh`, each ACK of new data adds
//!   `min(N, SMSS)`, N the bytes it acknowledges ([`grow`](Window::grow)).
//! - Congestion avoidance (eq. (3)): otherwise each ACK adds `SMSS * SMSS / cwnd`, at least
//!   one byte, which is about one SMSS per window of data; rounded down to whole bytes, or
//!   exactly with the fraction carried over ([`RenoConfig::exact_increase`]).
//! - Neither on an ACK carrying ECN-Echo (RFC 3168 6.1.2: "the congestion window [...]
//!   should not be increased"), nor when the window did not limit sending (the ACK's
//!   `cwnd_limited`).
//! - A reduction (3.2 step 2, [`reduce`](Window::reduce)): `ssthresh = max(FlightSize / 2,
//!   2 * SMSS)` (eq. (4)); it returns the window fast recovery starts from.
//! - Fast recovery (steps 3 to 6): `cwnd` = that window plus one SMSS per duplicate
//!   ([`start_recovery`](Window::start_recovery), [`inflate`](Window::inflate)); SACK's
//!   recovery (RFC 6675 section 5 step (4.2)) starts at the reduced window without inflation
//!   ([`start_sack_recovery`](Window::start_sack_recovery)).
//! - A partial ACK (RFC 6582 3.2 step 3, [`deflate`](Window::deflate)): "Deflate the
//!   congestion window by the amount of new data acknowledged [...]. If the partial ACK
//!   acknowledges at least one SMSS of new data, then add back SMSS bytes"; never below one
//!   SMSS. (ns-2's `partialnewack()` takes the deflation off the duplicates' inflation first
//!   and off the window under it only for the rest; `base` follows that.)
//! - Leaving recovery ([`end_recovery`](Window::end_recovery), [`FullAck`]): option (1) of
//!   RFC 6582 3.2 step 3, `cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS)`, or option (2),
//!   `cwnd` = the reduced window: RFC 5681's step 6, Reno's and ns-2.35's rule.
//! - Retransmission timeout (3.1): eq. (4) on the first timeout of a segment, not on later
//!   backoffs ([`timeout_reduces`](Window::timeout_reduces)); `cwnd` = the loss window, one
//!   SMSS ([`collapse`](Window::collapse)).
//! - ECN-Echo (RFC 3168 6.1.2): as for a loss, without the loss: a reduction, and `cwnd` no
//!   larger than what it leaves ([`cut_to`](Window::cut_to)). A loss in the window it
//!   answered starts fast recovery from the window it left, without a second reduction
//!   ([`recover_without_reduction`](Window::recover_without_reduction); 6.1.2: once per
//!   window "for a series of dropped and/or CE packets").
//! - ACC control ([`obey`](Window::obey)): the router's window, at least one SMSS, and its
//!   threshold, at least two.
//!
//! What a reduction halves is [`RenoConfig::ssthresh_from`]. [`SsthreshFrom::Flight`] is RFC
//! 5681's rule above. [`SsthreshFrom::Window`] is ns-2.35's (`tcp.cc`, `slowdown()` with
//! `precisionReduce_`, the default): half of `window()`, the smaller of cwnd and the
//! receiver's window, where during fast recovery cwnd is the window without the duplicates'
//! inflation (ns-2 keeps the inflation apart, in `dupwnd_`); ssthresh is that half rounded
//! down to whole segments (ns-2's `ssthresh_` is an integer number of packets), at least two,
//! and the window after a fast retransmit or an ECN-Echo is the unrounded half, which is also
//! what fast recovery inflates and what it leaves with. A timeout sets ssthresh so at every
//! expiry, backoffs included: after a second expiry ssthresh is two segments (ns-2's
//! `TcpAgent::timeout` calls `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)` each time).
//! [`SsthreshFrom::Cwnd`] is Linux's (`tcp_reno_ssthresh()`): half of cwnd without fast
//! recovery's inflation, at least two segments, a timeout setting it on the first expiry only
//! (`tcp_enter_loss()`); in bytes (Linux halves whole segments).

use super::{Ack, Event};

/// What a congestion event halves to set ssthresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsthreshFrom {
    /// RFC 5681 eq. (4): `max(FlightSize / 2, 2 * SMSS)`; a timeout sets it only on the first
    /// expiry for a segment.
    Flight,
    /// ns-2.35: half of `min(cwnd, rwnd)` in whole segments, at every reduction and every
    /// timeout expiry.
    Window,
    /// Linux: half of cwnd, a timeout setting it only on the first expiry for a segment.
    Cwnd,
}

/// The window on leaving fast recovery (RFC 6582 3.2 step 3, full acknowledgment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FullAck {
    /// Option (1): `min(ssthresh, max(FlightSize, SMSS) + SMSS)`.
    MinFlight,
    /// Option (2): the reduced window (`ssthresh`), as RFC 5681 step 6 and ns-2.
    Ssthresh,
}

/// The window rules' parameters, in segments of the connection's MSS. The defaults are RFC
/// 5681's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenoConfig {
    /// The smallest ssthresh a congestion event may set: RFC 5681 eq. (4),
    /// `ssthresh = max(FlightSize / 2, 2 * SMSS)`. Default 2.
    pub min_ssthresh: u32,
    /// The loss window LW, cwnd after a retransmission timeout: "one full-sized segment"
    /// (RFC 5681 3.1). Default 1.
    pub loss_window: u32,
    /// What a reduction halves: default [`SsthreshFrom::Flight`] (RFC 5681).
    pub ssthresh_from: SsthreshFrom,
    /// Congestion avoidance adds `SMSS * SMSS / cwnd` exactly, carrying the fraction of a
    /// byte to the next ACK (ns-2's real-valued `cwnd_ += 1 / cwnd_`), instead of rounding
    /// each increment down to whole bytes (at least one), which with small segments and
    /// large windows grows the window up to half as fast. Default false.
    pub exact_increase: bool,
    /// Every segment an ACK acknowledges counts, as Linux's `tcp_slow_start()` and
    /// `tcp_cong_avoid_ai()` count them (RFC 3465's byte counting without its limit L):
    /// slow start adds the bytes acknowledged, up to ssthresh, and congestion avoidance the
    /// rest times `SMSS / cwnd` (carried exactly), so that a delayed or stretch ACK grows the
    /// window as ACKs of each segment would. Default false: RFC 5681's increase per ACK, at
    /// most one SMSS in slow start.
    pub byte_counting: bool,
}

impl Default for RenoConfig {
    fn default() -> Self {
        RenoConfig { min_ssthresh: 2, loss_window: 1, ssthresh_from: SsthreshFrom::Flight, exact_increase: false, byte_counting: false }
    }
}

/// The rules of a window: RFC 5681's, in `reno`, and the exit from recovery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewRenoConfig {
    /// Slow start, congestion avoidance and the reductions.
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
    /// Reno's rules: RFC 5681's, leaving recovery with the reduced window (step 6).
    pub fn reno() -> NewRenoConfig {
        NewRenoConfig { full_ack: FullAck::Ssthresh, ..NewRenoConfig::default() }
    }

    /// A window of `init_cwnd` segments of `mss` bytes, threshold `init_ssthresh` bytes.
    pub fn window(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> Window {
        Window { cwnd: init_cwnd * mss, ssthresh: init_ssthresh, mss, base: 0, recovering: false, carry: 0, rules: self.reno.clone(), full_ack: self.full_ack }
    }
}

/// A congestion window and slow-start threshold, in bytes, with the standard rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// The congestion window, bytes.
    pub cwnd: u32,
    /// The slow-start threshold, bytes.
    pub ssthresh: u32,
    mss: u32,
    /// The window the last reduction left, which fast recovery inflates and leaves with:
    /// ssthresh under RFC 5681, the unrounded half window under ns-2's rule (its `cwnd_`
    /// beside `dupwnd_`). Partial ACKs may lower it.
    base: u32,
    /// In fast recovery: `cwnd` holds the inflation, `base` the window under it.
    recovering: bool,
    /// With `exact_increase`: the remainder of the last increment, in 1/cwnd bytes.
    carry: u64,
    rules: RenoConfig,
    full_ack: FullAck,
}

impl Window {
    /// Bytes per segment.
    pub fn mss(&self) -> u32 {
        self.mss
    }

    /// The rules' parameters.
    pub fn rules(&self) -> &RenoConfig {
        &self.rules
    }

    /// In slow start: `cwnd < ssthresh`.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// In fast recovery (between a recovery's start and its end or a timeout).
    pub fn recovering(&self) -> bool {
        self.recovering
    }

    /// The window under fast recovery's inflation (`cwnd` outside recovery).
    pub fn uninflated(&self) -> u32 {
        if self.recovering {
            self.base
        } else {
            self.cwnd
        }
    }

    /// The smallest ssthresh a reduction may set, bytes (RFC 5681 eq. (4): two segments).
    pub fn min_ssthresh(&self) -> u32 {
        self.rules.min_ssthresh * self.mss
    }

    /// Sets the window fast recovery starts from (after a reduction of the algorithm's own).
    pub fn set_base(&mut self, left: u32) {
        self.base = left;
    }

    /// For an algorithm with a congestion avoidance of its own: slow start for `ack` if the
    /// window is in it, and otherwise whether `ack` may grow the window at all (not on an
    /// ECN-Echo, and only when the window limited sending). True: the algorithm's own
    /// avoidance applies to this ACK.
    pub fn avoidance_applies(&mut self, ack: &Ack) -> bool {
        if self.in_slow_start() {
            if !self.rules.byte_counting {
                self.grow(ack);
            } else if !ack.ece && ack.cwnd_limited {
                // What passes ssthresh is the controller's next ACK's to grow by.
                self.slow_start_bytes(ack.acked);
            }
            return false;
        }
        !ack.ece && ack.cwnd_limited
    }

    /// Slow start and congestion avoidance for `ack` (RFC 5681 eq. (2) and (3)); no growth
    /// on ECN-Echo or when the window did not limit sending.
    pub fn grow(&mut self, ack: &Ack) {
        if ack.ece || !ack.cwnd_limited {
            return;
        }
        let mss = self.mss;
        if self.rules.byte_counting {
            self.grow_by_bytes(ack.acked);
        } else if self.cwnd < self.ssthresh {
            self.cwnd = self.cwnd.saturating_add(ack.acked.min(mss as u64) as u32);
        } else if self.rules.exact_increase {
            self.avoid_exactly(mss as u64);
        } else {
            let inc = ((mss as u64 * mss as u64) / self.cwnd as u64).max(1);
            self.cwnd = self.cwnd.saturating_add(inc as u32);
        }
    }

    /// [`RenoConfig::byte_counting`]'s slow start for `acked` bytes newly acknowledged:
    /// the window grows by them up to ssthresh; returns the bytes left over.
    fn slow_start_bytes(&mut self, acked: u64) -> u64 {
        if self.cwnd >= self.ssthresh {
            return acked;
        }
        let add = acked.min((self.ssthresh - self.cwnd) as u64);
        self.cwnd += add as u32;
        acked - add
    }

    /// [`RenoConfig::byte_counting`]'s growth for `acked` bytes newly acknowledged.
    fn grow_by_bytes(&mut self, acked: u64) {
        let acked = self.slow_start_bytes(acked);
        if acked > 0 {
            self.avoid_exactly(acked);
        }
    }

    /// Congestion avoidance's `SMSS * acked / cwnd` for `acked` bytes, the remainder carried
    /// to the next ACK.
    fn avoid_exactly(&mut self, acked: u64) {
        let num = self.mss as u64 * acked + self.carry;
        self.carry = num % self.cwnd as u64;
        self.cwnd = self.cwnd.saturating_add((num / self.cwnd as u64) as u32);
    }

    /// A reduction (RFC 5681 eq. (4), or ns-2's by [`RenoConfig::ssthresh_from`]): sets
    /// ssthresh and returns the window it leaves.
    pub fn reduce(&mut self, ev: &Event) -> u32 {
        match self.rules.ssthresh_from {
            SsthreshFrom::Flight => {
                self.ssthresh = (ev.flight / 2).max(self.min_ssthresh());
                self.ssthresh
            }
            SsthreshFrom::Cwnd => {
                self.ssthresh = (self.uninflated() / 2).max(self.min_ssthresh());
                self.ssthresh
            }
            SsthreshFrom::Window => {
                let half = self.uninflated().min(ev.rwnd) / 2;
                self.ssthresh = (half / self.mss).max(self.rules.min_ssthresh) * self.mss;
                half.max(self.mss)
            }
        }
    }

    /// Fast recovery starts with the lost segment retransmitted: the reduced window plus one
    /// SMSS per duplicate (RFC 5681 3.2 step 3).
    pub fn start_recovery(&mut self, dupacks: u32) {
        self.cwnd = self.base + dupacks * self.mss;
        self.recovering = true;
    }

    /// SACK's loss recovery starts: `cwnd` = the reduced window (RFC 6675 (4.2)).
    pub fn start_sack_recovery(&mut self) {
        self.cwnd = self.base;
        self.recovering = true;
    }

    /// A further duplicate in fast recovery: one SMSS more (RFC 5681 3.2 step 4).
    pub fn inflate(&mut self) {
        self.cwnd = self.cwnd.saturating_add(self.mss);
    }

    /// A partial ACK's deflation (RFC 6582 3.2 step 3).
    pub fn deflate(&mut self, ack: &Ack) {
        let add_back = if ack.acked >= self.mss as u64 { self.mss } else { 0 };
        self.cwnd = ((self.cwnd as u64).saturating_sub(ack.acked) as u32 + add_back).max(self.mss);
        if self.rules.ssthresh_from == SsthreshFrom::Window {
            // ns-2: what the deflation took beyond the inflation comes off the window under it.
            self.base = self.base.min(self.cwnd.saturating_sub(self.mss)).max(self.mss);
        }
    }

    /// The ACK that ends fast recovery (RFC 6582 3.2 step 3 by [`FullAck`]; RFC 5681 step 6).
    pub fn end_recovery(&mut self, ack: &Ack) {
        self.cwnd = match self.full_ack {
            FullAck::MinFlight => self.ssthresh.min(ack.flight().max(self.mss) + self.mss),
            FullAck::Ssthresh => self.base,
        };
        self.recovering = false;
    }

    /// Whether a timeout sets ssthresh (RFC 5681 3.1: on the first expiry for a segment;
    /// ns-2's rule: at every expiry), unless an ECN-Echo's reduction still answers it.
    pub fn timeout_reduces(&self, ev: &Event) -> bool {
        !ev.ecn_answered && (ev.backoffs == 0 || self.rules.ssthresh_from == SsthreshFrom::Window)
    }

    /// After a timeout: the loss window, and fast recovery over (RFC 5681 3.1).
    pub fn collapse(&mut self) {
        self.cwnd = self.rules.loss_window * self.mss;
        self.recovering = false;
    }

    /// An ECN-Echo's window: no larger than what its reduction left (RFC 3168 6.1.2).
    pub fn cut_to(&mut self, left: u32) {
        self.cwnd = left.min(self.cwnd);
    }

    /// A loss in a window an ECN-Echo already answered: fast recovery from the window the
    /// echo left, inflated by the duplicates, without a second reduction (ns-2:
    /// `dupwnd_ = numdupacks_` on the unchanged `cwnd_`).
    pub fn recover_without_reduction(&mut self, dupacks: u32) {
        self.base = self.cwnd;
        self.start_recovery(dupacks);
    }

    /// An ACC control: the router's window, at least one SMSS, and threshold, at least two.
    pub fn obey(&mut self, cwnd: u32, ssthresh: u32) {
        self.cwnd = cwnd.max(self.mss);
        self.ssthresh = ssthresh.max(self.min_ssthresh());
    }
}
