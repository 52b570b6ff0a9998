//! XCP's router (Katabi, Handley and Rohrs, "Congestion Control for High Bandwidth-Delay
//! Product Networks", SIGCOMM 2002, Section 3.5; ns-2.35's `Queue/XCP`, `xcp/xcpq.cc`,
//! whose comments number the lines of the paper's Appendix as `L 1` .. `L 36`). A FIFO
//! ([`Stamping`]) whose departing data segments get their `H_feedback` from two
//! controllers that run once per control interval `d`, the average RTT of the traffic:
//!
//! 1. **Estimates, per arriving packet** (L 1-6): the input bytes `y d`; for each XCP data
//!    segment with an RTT, its inter-packet time `x = H_rtt s / H_cwnd` (`s` its size on
//!    the wire) summed, and `min(H_rtt, 1 s) x` summed.
//! 2. **Persistent queue** (L 32-36): the smallest queue a departing packet finds over
//!    each period `Tq = max(2 ms, (d - queue / C) / 2)`, taken at its end.
//! 3. **Efficiency controller, per interval** (L 7-9, paper eq. (1)): `d` becomes the
//!    throughput-weighted average RTT `sum(min(rtt, 1) x) / sum(x)` (50 ms when no segment
//!    carried one); the aggregate feedback is `phi = alpha (C - y) - beta Q / d`, bytes per
//!    second, `C` the link's rate, `y` the input rate over the interval just ended and `Q`
//!    the persistent queue: positive spare bandwidth opens windows, a standing queue closes
//!    them.
//! 4. **Fairness controller: shuffling** (L 10-12, eq. (4)): `h = max(0, gamma y - |phi|)`
//!    is given and taken at once, so that flows converge to fairness even when the link is
//!    full: a positive pool `max(phi, 0) + h` and a negative pool `max(-phi, 0) + h`.
//! 5. **Per-packet scaling** (L 13-14, the paper's `xi_p` and `xi_n`): `Cp = pos / sum(x)`
//!    and `Cn = neg / (y d)`, so that the positive pool is shared equally per flow (each
//!    flow's `x` sums to `d` per interval, whatever its window) and the negative pool in
//!    proportion to throughput (AIMD).
//! 6. **Feedback, per departing data segment** (L 20-31): `p = min(pos left, Cp x)` and
//!    `n = min(neg left, Cn s)`, the feedback `p - n` (a change of throughput; times
//!    `H_rtt`, a change of window in bytes). A router lowers `H_feedback` to it when it is
//!    smaller; otherwise an upstream router allowed less, and this one takes the difference
//!    from its negative pool (L 26-27). What it gave is taken off its pools, and a pool
//!    spent stops its coefficient until the next interval.
//!
//! A segment with no RTT yet (`H_rtt` = 0) leaves with no feedback (ns-2.35); other
//! packets (ACKs, other variants' segments, UDP) count as input only.
//!
//! Defaults (the paper's Section 3.5 and ns-2.35's `xcpq.cc`): `alpha` 0.4 and `beta`
//! 0.226 (stable for any delay, capacity and number of flows: `0 < alpha < pi / (4 sqrt 2)`,
//! `beta = alpha^2 sqrt 2`), shuffling `gamma` 10 %, the first interval 50 ms (ns-2.35's
//! `INITIAL_Te_VALUE`), an interval at least 1 ms. Where it departs from ns-2.35: the two
//! periodic updates run lazily ([`Stamp`]) and their first ones are due at 50 ms exactly,
//! where ns-2.35 draws them from a normal distribution (mean 50 ms, deviation 10 ms) so that
//! routers do not synchronise.

use super::spec::{boxed, keys_of, read, Registration, SettingError, Table};
use super::stamping::{Stamp, Stamping};
use super::{Discipline, Probe, QueueContext};
use crate::packet::explicit::XcpHeader;
use crate::packet::{Explicit, Kind, Packet};
use crate::sim::{Dur, SimTime};
use serde::Deserialize;

/// The efficiency controller's gain on spare bandwidth (paper Section 3.5; ns-2.35 `ALPHA_`).
pub const ALPHA: f64 = 0.4;
/// Its gain on the persistent queue (`alpha^2 sqrt 2`; ns-2.35 `BETA_`).
pub const BETA: f64 = 0.226;
/// The share of the input the fairness controller shuffles per interval (10 %; ns-2.35
/// `GAMMA_`).
pub const GAMMA: f64 = 0.1;
/// The control interval before any RTT is known, seconds (ns-2.35 `INITIAL_Te_VALUE`).
pub const INITIAL_INTERVAL: f64 = 0.05;
/// The shortest control interval, seconds (ns-2.35 `XCP_MIN_INTERVAL`).
pub const MIN_INTERVAL: f64 = 0.001;
/// The longest RTT the average counts, seconds (ns-2.35 `XCP_MAX_INTERVAL`).
pub const MAX_RTT: f64 = 1.0;
/// The shortest period of the persistent-queue estimate, seconds (ns-2.35's `Tq_` floor).
pub const MIN_TQ: f64 = 0.002;

/// XCP's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XcpParams {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
}

impl Default for XcpParams {
    fn default() -> Self {
        XcpParams { alpha: ALPHA, beta: BETA, gamma: GAMMA }
    }
}

/// The router's state. Rates are bytes per second, times seconds.
#[derive(Clone, Debug)]
pub struct XcpRouter {
    p: XcpParams,
    /// `C`, the link's rate.
    capacity: f64,
    /// Rule 1, over the current interval.
    input_bytes: f64,
    sum_x: f64,
    sum_rtt_x: f64,
    /// `d`: the average RTT, and the current interval's length.
    avg_rtt: f64,
    interval: f64,
    interval_due: SimTime,
    /// Rule 2: the persistent queue, the smallest queue of the current period, its length.
    queue_bytes: f64,
    running_min: f64,
    tq: f64,
    tq_due: SimTime,
    /// Rules 4-6.
    pos_left: f64,
    neg_left: f64,
    cp: f64,
    cn: f64,
}

/// XCP's discipline: the FIFO and the router.
pub type Xcp = Stamping<XcpRouter>;

fn later(t: SimTime, secs: f64) -> SimTime {
    t + Dur::from_secs_f64(secs)
}

impl XcpRouter {
    /// A router on a link of `link_bps` bits per second.
    pub fn new(p: XcpParams, link_bps: u64) -> XcpRouter {
        let first = later(SimTime::ZERO, INITIAL_INTERVAL);
        XcpRouter {
            p,
            capacity: link_bps as f64 / 8.0,
            input_bytes: 0.0,
            sum_x: 0.0,
            sum_rtt_x: 0.0,
            avg_rtt: INITIAL_INTERVAL,
            interval: INITIAL_INTERVAL,
            interval_due: first,
            queue_bytes: 0.0,
            running_min: 0.0,
            tq: INITIAL_INTERVAL,
            tq_due: first,
            pos_left: 0.0,
            neg_left: 0.0,
            cp: 0.0,
            cn: 0.0,
        }
    }

    /// The average RTT `d`, seconds.
    pub fn avg_rtt(&self) -> f64 {
        self.avg_rtt
    }

    /// The persistent queue `Q`, bytes.
    pub fn persistent_queue(&self) -> f64 {
        self.queue_bytes
    }

    /// The periodic updates due by `now`, in time order, `queued` bytes in the buffer.
    fn catch_up(&mut self, queued: u64, now: SimTime) {
        while self.tq_due.min(self.interval_due) <= now {
            if self.tq_due <= self.interval_due {
                self.queue_period(queued as f64);
                self.tq_due = later(self.tq_due, self.tq);
            } else {
                self.control();
                self.interval_due = later(self.interval_due, self.interval);
            }
        }
    }

    /// Rule 2, at the end of a period.
    fn queue_period(&mut self, queued: f64) {
        self.queue_bytes = self.running_min;
        self.running_min = queued;
        self.tq = MIN_TQ.max((self.avg_rtt - queued / self.capacity) / 2.0);
    }

    /// Rules 3-5, at the end of a control interval.
    fn control(&mut self) {
        let input_rate = self.input_bytes / self.interval;
        self.avg_rtt = if self.sum_x != 0.0 { self.sum_rtt_x / self.sum_x } else { INITIAL_INTERVAL };
        let (mut phi, mut shuffle) = (0.0, 0.0);
        if self.input_bytes > 0.0 {
            phi = self.p.alpha * (self.capacity - input_rate) - self.p.beta * self.queue_bytes / self.avg_rtt;
            shuffle = (self.p.gamma * input_rate - phi.abs()).max(0.0);
        }
        self.pos_left = phi.max(0.0) + shuffle;
        self.neg_left = (-phi).max(0.0) + shuffle;
        if self.input_bytes > 0.0 {
            self.cp = self.pos_left / if self.sum_x == 0.0 { 1.0 } else { self.sum_x };
            self.cn = self.neg_left / self.input_bytes;
        } else {
            (self.cp, self.cn) = (0.0, 0.0);
        }
        (self.input_bytes, self.sum_x, self.sum_rtt_x) = (0.0, 0.0, 0.0);
        self.interval = self.avg_rtt.max(MIN_INTERVAL);
    }

    /// Rule 6 for one departing data segment of `size` bytes with header `h`.
    fn feedback(&mut self, h: &mut XcpHeader, size: f64) {
        if h.rtt_us == 0 {
            h.feedback = 0.0;
            return;
        }
        let rtt = h.rtt_us as f64 * 1e-6;
        let mut pos = self.pos_left.min(self.cp * inter_packet(h, size));
        let mut neg = self.neg_left.min(self.cn * size);
        let mine = pos - neg;
        let upstream = h.feedback as f64 / rtt;
        if upstream >= mine {
            h.feedback = (mine * rtt) as f32;
        } else {
            neg = self.neg_left.min(neg + (mine - upstream));
            pos = upstream + neg;
        }
        self.pos_left = (self.pos_left - pos).max(0.0);
        self.neg_left = (self.neg_left - neg).max(0.0);
        if self.pos_left == 0.0 {
            self.cp = 0.0;
        }
        if self.neg_left == 0.0 {
            self.cn = 0.0;
        }
    }
}

/// The XCP header of a data segment, if it carries one.
fn xcp_data(pkt: &Packet) -> Option<XcpHeader> {
    match pkt.explicit() {
        Some(Explicit::Xcp(h)) if pkt.kind == Kind::TcpData => Some(h),
        _ => None,
    }
}

/// A segment's inter-packet time `x = rtt s / cwnd`, seconds (0 for a window of nothing).
fn inter_packet(h: &XcpHeader, size: f64) -> f64 {
    if h.cwnd > 0.0 {
        h.rtt_us as f64 * 1e-6 * size / h.cwnd as f64
    } else {
        0.0
    }
}

impl Stamp for XcpRouter {
    fn on_arrival(&mut self, pkt: &Packet, queued: u64, now: SimTime) {
        self.catch_up(queued, now);
        self.input_bytes += pkt.size as f64;
        if let Some(h) = xcp_data(pkt).filter(|h| h.rtt_us != 0) {
            let x = inter_packet(&h, pkt.size as f64);
            self.sum_x += x;
            self.sum_rtt_x += (h.rtt_us as f64 * 1e-6).min(MAX_RTT) * x;
        }
    }

    fn on_departure(&mut self, pkt: &mut Packet, queued: u64, now: SimTime) {
        self.catch_up(queued, now);
        self.running_min = self.running_min.min(queued as f64);
        if let Some(mut h) = xcp_data(pkt) {
            self.feedback(&mut h, pkt.size as f64);
            pkt.set_explicit(Explicit::Xcp(h));
        }
    }

    /// `avg`: the persistent queue, bytes; `prob`: the average RTT, seconds.
    fn probe(&self) -> Probe {
        Probe { avg: self.queue_bytes, prob: self.avg_rtt, ..Probe::default() }
    }
}

/// XCP's keys.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct XcpSpec {
    /// The efficiency controller's gain on spare bandwidth; default [`ALPHA`].
    pub xcp_alpha: Option<f64>,
    /// Its gain on the persistent queue; default [`BETA`].
    pub xcp_beta: Option<f64>,
    /// The share of the input shuffled per interval; default [`GAMMA`].
    pub xcp_gamma: Option<f64>,
}

impl XcpSpec {
    pub fn resolve(&self) -> Result<XcpParams, SettingError> {
        let d = XcpParams::default();
        let p = XcpParams { alpha: self.xcp_alpha.unwrap_or(d.alpha), beta: self.xcp_beta.unwrap_or(d.beta), gamma: self.xcp_gamma.unwrap_or(d.gamma) };
        for (key, v) in [("xcp_alpha", p.alpha), ("xcp_beta", p.beta)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(SettingError::new(key, format!("must be positive, not {v}")));
            }
        }
        if !(0.0..=1.0).contains(&p.gamma) {
            return Err(SettingError::new("xcp_gamma", format!("must be in [0, 1], not {}", p.gamma)));
        }
        Ok(p)
    }
}

pub const REGISTRATION: Registration = Registration { name: "xcp", aliases: &[], family: None, keys: keys_of::<XcpSpec>, footprint: boxed::<Xcp>, build };

fn build(table: &Table, ctx: &QueueContext) -> Result<Discipline, SettingError> {
    let params = read::<XcpSpec>(table)?.resolve()?;
    Ok(Discipline::Xcp(Box::new(Stamping::new(XcpRouter::new(params, ctx.link_bps)))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Endpoints, Seq};
    use crate::queue::{Aqm, OwnBuffer, Queued};

    const ENDS: Endpoints = Endpoints { flow: 0, sender: 0, receiver: 1, sport: 1, dport: 2 };
    /// 10 Mb/s: 1.25e6 bytes per second.
    const LINK: u64 = 10_000_000;

    fn ms(t: u64) -> SimTime {
        SimTime(t * 1_000_000)
    }

    /// A 1040-byte data segment of a sender with window `cwnd` bytes and RTT `rtt_ms`.
    fn seg(cwnd: f32, rtt_ms: u32) -> Packet {
        let mut p = Packet::tcp_data(&ENDS, Seq(0), 1000, 64, SimTime::ZERO);
        p.set_explicit(Explicit::Xcp(XcpHeader { cwnd, rtt_us: rtt_ms * 1000, feedback: 1.0e15 }));
        p
    }

    fn feedback_of(p: &Packet) -> f64 {
        match p.explicit() {
            Some(Explicit::Xcp(h)) => h.feedback as f64,
            other => panic!("{other:?}"),
        }
    }

    /// `n` segments through the router between `from` and `to` (evenly spaced, each leaving
    /// as it arrives); the feedback each got.
    fn pass(r: &mut XcpRouter, n: u32, from: SimTime, to: SimTime, make: impl Fn(u32) -> Packet) -> Vec<f64> {
        (0..n)
            .map(|i| {
                let t = from + Dur((to.0 - from.0) * i as u64 / n as u64);
                let mut p = make(i);
                r.on_arrival(&p, 0, t);
                let size = p.size as u64;
                r.on_departure(&mut p, size, t);
                feedback_of(&p)
            })
            .collect()
    }

    #[test]
    fn spare_bandwidth_opens_windows_by_the_efficiency_controller() {
        let mut r = XcpRouter::new(XcpParams::default(), LINK);
        // Interval 1 (0-50 ms): 30 segments of 1040 bytes, RTT 100 ms, window 10 segments.
        let early = pass(&mut r, 30, ms(0), ms(50), |_| seg(10_000.0, 100));
        assert!(early.iter().all(|f| *f == 0.0), "no pool before the first interval ends");
        // The interval ends at 50 ms: y = 31200 B / 0.05 s = 624000 B/s, d = 100 ms, Q = 0.
        let fb = pass(&mut r, 10, ms(50), ms(60), |_| seg(10_000.0, 100));
        let y = 30.0 * 1040.0 / 0.05;
        let phi = ALPHA * (1.25e6 - y);
        assert!((r.avg_rtt() - 0.1).abs() < 1e-12);
        // Cp = phi / sum(x), x = 0.1 * 1040 / 10000; each segment gets Cp x (B/s) times its
        // RTT in window bytes, minus the shuffle's Cn s.
        let sum_x = 30.0 * 0.1 * 1040.0 / 10_000.0;
        let cp = phi / sum_x;
        let cn = 0.0 / (30.0 * 1040.0);
        let expect = (cp * 0.0104 - cn * 1040.0) * 0.1;
        assert!((fb[0] - expect).abs() < 1e-3 * expect, "{} vs {expect}", fb[0]);
        assert!(fb.iter().all(|f| *f > 0.0));
    }

    #[test]
    fn a_persistent_queue_gives_negative_feedback_in_proportion_to_size() {
        let mut r = XcpRouter::new(XcpParams::default(), LINK);
        // A full link (y = C) for two intervals of 50 ms (RTT 50 ms), every departure
        // finding 21 packets queued, every arrival 20.
        let full = |_| seg(20_000.0, 50);
        let per_interval = (1.25e6 * 0.05 / 1040.0) as u32;
        for k in 0..2 {
            for i in 0..per_interval {
                let t = ms(50 * k) + Dur(50_000_000 * i as u64 / per_interval as u64);
                let mut p = full(i);
                r.on_arrival(&p, 20_800, t);
                r.on_departure(&mut p, 20_800 + 1040, t);
            }
        }
        assert_eq!(r.persistent_queue(), 20_800.0, "the smallest queue of the last period");
        let fb = pass(&mut r, 5, ms(101), ms(102), full);
        assert!(fb.iter().all(|f| *f < 0.0), "{fb:?}");
        // Equal windows, equal sizes: equal feedback (the fairness controller's shares).
        assert!(fb.windows(2).all(|w| (w[0] - w[1]).abs() < 1e-6 * w[0].abs()));
    }

    #[test]
    fn shuffling_moves_bandwidth_from_large_windows_to_small_ones_on_a_full_link() {
        let mut r = XcpRouter::new(XcpParams::default(), LINK);
        // A full link, no queue: phi = 0, h = 0.1 y. Flow A's window is 4x flow B's; both RTT
        // 100 ms, so A sends 4 segments for B's one.
        let mix = |i: u32| if i % 5 == 4 { seg(5_000.0, 100) } else { seg(20_000.0, 100) };
        let per_interval = (1.25e6 * 0.05 / 1040.0) as u32;
        pass(&mut r, per_interval, ms(0), ms(50), mix);
        let fb = pass(&mut r, 10, ms(50), ms(51), mix);
        let (a, b) = (fb[0], fb[4]);
        assert!(b > 0.0 && a < b, "the small window gains more: a {a}, b {b}");
        // Per flow and interval: A sends 4x B's segments, so A's total is 4a against B's b.
        assert!(4.0 * a < b, "A's share of the pool shrinks: 4a {} vs b {b}", 4.0 * a);
    }

    #[test]
    fn a_router_lowers_feedback_and_never_raises_it_and_spares_acks_and_new_senders() {
        let mut r = XcpRouter::new(XcpParams::default(), LINK);
        pass(&mut r, 30, ms(0), ms(50), |_| seg(10_000.0, 100));
        let mut p = seg(10_000.0, 100);
        p.set_explicit(Explicit::Xcp(XcpHeader { cwnd: 10_000.0, rtt_us: 100_000, feedback: -5.0 }));
        r.on_arrival(&p, 0, ms(55));
        let before = r.neg_left;
        r.on_departure(&mut p, 1040, ms(55));
        assert_eq!(feedback_of(&p), -5.0, "an upstream router allowed less");
        assert!(r.neg_left <= before);
        let mut fresh = seg(10_000.0, 0);
        r.on_departure(&mut fresh, 1040, ms(56));
        assert_eq!(feedback_of(&fresh), 0.0, "no RTT, no feedback");
        let mut ack = Packet::tcp_ack(&ENDS, Seq(0), 65_535, 64, SimTime::ZERO);
        let echo = Explicit::Xcp(XcpHeader { cwnd: 0.0, rtt_us: 0, feedback: 77.0 });
        ack.set_explicit(echo);
        r.on_departure(&mut ack, 40, ms(57));
        assert_eq!(ack.explicit(), Some(echo), "an ACK's echo passes untouched");
    }

    #[test]
    fn the_fifo_keeps_order_and_the_discipline_never_signals() {
        let mut q = Stamping::new(XcpRouter::new(XcpParams::default(), LINK));
        let mut rng = crate::sim::Rng::from_seed(1);
        for i in 0..3u32 {
            let mut p = seg(10_000.0, 100);
            p.seq = Seq(i);
            assert_eq!(q.on_arrival(&p, Default::default(), ms(1), &mut rng), crate::queue::Verdict::Admit);
            q.enqueue(Queued { pkt: p, enqueued_at: ms(1) });
        }
        let mut out = Vec::new();
        q.evict(&mut out);
        assert_eq!(out[0].pkt.seq, Seq(2), "tail drop");
        let seqs: Vec<u32> = std::iter::from_fn(|| q.dequeue(ms(2)).map(|(x, _)| x.pkt.seq.0)).collect();
        assert_eq!(seqs, [0, 1]);
    }

    #[test]
    fn keys_are_checked() {
        let t: Table = "xcp_alpha = -1.0".parse().unwrap();
        assert_eq!(read::<XcpSpec>(&t).unwrap().resolve().unwrap_err().key, "xcp_alpha");
        let t: Table = "xcp_gamma = 2.0".parse().unwrap();
        assert_eq!(read::<XcpSpec>(&t).unwrap().resolve().unwrap_err().key, "xcp_gamma");
    }
}
