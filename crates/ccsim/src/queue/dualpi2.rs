//! DualPI2, the DualQ Coupled AQM of L4S (RFC 9332, its Appendix A): two FIFOs, one for
//! L4S traffic and one for Classic traffic, served by a scheduler that favours the L4S
//! queue, and one PI controller whose base probability `p'` drives both: Classic packets are
//! signalled with `p'^2`, L4S packets marked with `k p'` (the coupling), or with certainty
//! once they have queued past a shallow step. A Classic (Reno-like) flow's rate goes as
//! `1/sqrt(p)` and a scalable (DCTCP-like) flow's as `1/p`, so the square makes the two
//! share the link (RFC 9332 Section 2.1).
//!
//! DualPI2 keeps its own buffer ([`OwnBuffer`]): the egress queue hands it every packet and
//! asks it for the next to send, and it decides at dequeue. The rules, with RFC 9332's
//! names:
//!
//! 1. **Classifier** (Section 2.3; Appendix A.1's `dualpi2_enqueue`): a packet whose ECN
//!    field is ECT(1) or CE joins the L4S queue (`lq`); Not-ECT and ECT(0) join the Classic
//!    queue (`cq`).
//! 2. **Buffer** (Appendix A.1): one limit for both queues, the queue's `limit` (packets)
//!    or `limit_bytes`: an arrival that does not fit is dropped (an overflow), whichever
//!    queue it was for.
//! 3. **Base PI controller** (Appendix A.1's `dualpi2_update`), every `tupdate`:
//!    `p' += alpha (qdelay - target) + beta (qdelay - qdelay_old)`, bounded to [0, 1], then
//!    `qdelay_old = qdelay`. `qdelay` is the larger of the two queues' delays, each the time
//!    the packet at its head has waited so far (0 for an empty queue): the sojourn-time
//!    estimate, as Linux's `sch_dualpi2.c` and the overload-aware variant of Appendix A.2
//!    take it (Appendix A.1 reads the Classic queue alone; the two differ only while the L4S
//!    queue holds more delay than the Classic one, which the step prevents unless L4S
//!    traffic is unresponsive). The gains are per second of delay error, applied once per
//!    update (Appendix A.1: `alpha = 0.1 Tupdate / RTT_max^2`, `beta = 0.3 / RTT_max`,
//!    `Tupdate` and `alpha` for `RTT_max` = 100 ms as Linux sets them).
//! 4. **Coupling** (Section 2.1, Appendix A.1): the Classic probability is `p_C = p'^2`, the
//!    coupled L4S probability `p_CL = k p'`.
//! 5. **Dequeue, Classic packet** (Appendix A.1's `dualpi2_dequeue`): a signal with
//!    probability `p_C`, which the signal policy makes a drop, or a CE mark of an ECT(0)
//!    packet with `signal = "ecn"`.
//! 6. **Dequeue, L4S packet**: the native L4S AQM is a step (Appendix A.1's ramp with
//!    `minTh = maxTh`): a packet that waited at least `step_thresh` is marked, unless the L4S
//!    queue held fewer than `step_min_packets` packets with it (Appendix A.1's `Th_len` of
//!    1 packet: a queue of one packet is never marked, so that the serialisation of one
//!    packet at a slow link does not count as queueing). Otherwise it is marked with
//!    probability `p_CL` (the combining function `p_L = max(p'_L, p_CL)`).
//! 7. **Overload** (Section 4.2.2, Appendix A.2, and Linux's `drop_overload`): once
//!    `p_CL >= 1`, marking cannot say more, so with `drop_overload` an L4S packet is dropped
//!    with probability `p_C` (and otherwise marked) and a Classic signal drops even an
//!    ECN-capable packet; without `drop_overload`, `p'` is kept at most `1/k` and the
//!    queues may grow to the buffer's limit instead.
//! 8. **Small queues** (Linux's `must_drop()`): no signal from `p'` (rules 5, 6's coupled
//!    mark, 7) while both queues together hold less than two MTUs (3000 bytes) once the
//!    leaving packet is out; the step still applies.
//!
//! Probabilities become decisions as Appendix A.1's `recur()` makes them, one accumulator
//! per queue: each packet adds the probability, and when the sum passes 1 the packet is
//! signalled and 1 is taken off. This spaces the signals evenly (no random draws, so a
//! dequeue needs no random number generator), as the RFC's pseudocode does; Linux draws a
//! random number per packet. A step mark leaves the accumulator as `recur()` with a
//! probability of 1 does.
//!
//! **Scheduler**: Linux's weighted round robin with credit (`c_protection`), not the
//! RFC's time-shifted FIFO (Appendix A.1 allows either). The L4S queue is served while the
//! credit is not positive or the Classic queue is empty; an L4S packet sent while the
//! Classic queue holds packets adds `c_protection x size` to the credit, a Classic packet
//! sent while the L4S queue holds packets takes `(100 - c_protection) x size` off it. When
//! both queues are backlogged the Classic queue gets `c_protection` percent of the bytes
//! (10 %, Linux's default), so that unresponsive L4S traffic cannot starve it; otherwise
//! the L4S queue has priority. The credit starts at `MTU x (2 c_protection - 100)`
//! (negative: the L4S queue first) and returns there whenever both queues are empty.
//!
//! The update every `tupdate` needs no timer: as PIE's, it runs lazily, on the next arrival
//! or departure at or after each due time (the first at `tupdate`), with the queues as they
//! were since the previous event; the head of each queue at a due time is the one it held
//! since that event, so the result is as if it had run on time. While both queues are
//! empty and `p'` and `qdelay_old` are 0, the updates change nothing and are skipped. When
//! the link goes down and the buffer is emptied, the updates that fell due since the last
//! packet event see the queues empty (the egress queue does not say when it was emptied).
//!
//! Defaults (Appendix A.1, as Linux's `sch_dualpi2.c` sets them): `target` 15 ms,
//! `tupdate` 16 ms, `alpha` 0.16 /s, `beta` 3.2 /s, `k` 2, step 1 ms, `Th_len` 1 packet,
//! `c_protection` 10 %, `drop_overload` on.
//!
//! Signals go through the queue's signal policy as every discipline's do: DualPI2 is meant
//! for `signal = "ecn"` (with `signal = "drop"` every mark, L4S ones included, is a drop).
//! A packet that arrives already CE (marked upstream) and is signalled is dropped under
//! `signal = "ecn"`, as for every discipline (`crate::signal`, rule 4); Linux leaves it CE.

use super::spec::{boxed, keys_of, read, Registration, SettingError, Table};
use super::{Aqm, Discipline, Limit, Occupancy, OwnBuffer, Probe, QueueContext, Queued, Verdict};
use crate::packet::{Ecn, Packet};
use crate::settings::units::{num, Duration};
use crate::sim::{Dur, Rng, SimTime};
use serde::Deserialize;
use std::collections::VecDeque;

/// RFC 9332 Appendix A.1: the Classic queueing delay target, 15 ms.
pub const TARGET: Dur = Dur::from_millis(15);
/// RFC 9332 Appendix A.1 (`min(target, RTT_max / 3)`, 16 ms in Linux): the period of the PI
/// update.
pub const TUPDATE: Dur = Dur::from_millis(16);
/// RFC 9332 Appendix A.1: the integral gain, 0.16 per second (`0.1 Tupdate / RTT_max^2`).
pub const ALPHA: f64 = 0.16;
/// RFC 9332 Appendix A.1: the proportional gain, 3.2 per second (Linux's value).
pub const BETA: f64 = 3.2;
/// RFC 9332 Section 2.1 and Appendix A.1: the coupling factor `k`, 2.
pub const COUPLING: f64 = 2.0;
/// RFC 9332 Appendix A.1 (a step at 1 ms, as Linux's default): the L4S marking threshold.
pub const STEP_THRESH: Dur = Dur::from_millis(1);
/// RFC 9332 Appendix A.1 (`Th_len` = 1 packet): the L4S queue marks only when it holds
/// more than one packet, the leaving one included.
pub const STEP_MIN_PACKETS: u32 = 2;
/// Linux's `c_protection`: the Classic queue's share of the bytes, percent, 10.
pub const C_PROTECTION: u32 = 10;
/// The MTU of the small-queue rule and of the scheduler's initial credit, bytes.
pub const MTU: u64 = 1500;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DualPi2Params {
    pub target: Dur,
    pub tupdate: Dur,
    /// Per second.
    pub alpha: f64,
    /// Per second.
    pub beta: f64,
    /// `k`.
    pub coupling: f64,
    pub step_thresh: Dur,
    pub step_min_packets: u32,
    /// The Classic queue's weight, percent.
    pub c_protection: u32,
    pub drop_overload: bool,
}

impl Default for DualPi2Params {
    fn default() -> Self {
        DualPi2Params {
            target: TARGET,
            tupdate: TUPDATE,
            alpha: ALPHA,
            beta: BETA,
            coupling: COUPLING,
            step_thresh: STEP_THRESH,
            step_min_packets: STEP_MIN_PACKETS,
            c_protection: C_PROTECTION,
            drop_overload: true,
        }
    }
}

impl DualPi2Params {
    pub fn validate(&self) -> Result<(), SettingError> {
        if self.target == Dur::ZERO {
            return Err(SettingError::new("target", "must be positive"));
        }
        if self.tupdate == Dur::ZERO {
            return Err(SettingError::new("tupdate", "must be positive"));
        }
        for (key, v) in [("alpha", self.alpha), ("beta", self.beta), ("coupling", self.coupling)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(SettingError::new(key, format!("must be positive and finite, got {}", num(v))));
            }
        }
        if self.c_protection > 100 {
            return Err(SettingError::new("c_protection", format!("must be a percentage from 0 to 100, got {}", self.c_protection)));
        }
        Ok(())
    }

    /// The largest `p'`: 1, or `1/k` without `drop_overload` (rule 7).
    fn max_p(&self) -> f64 {
        if self.drop_overload {
            1.0
        } else {
            (1.0 / self.coupling).min(1.0)
        }
    }

    /// The scheduler's credit when both queues are empty.
    fn initial_credit(&self) -> i64 {
        MTU as i64 * (2 * self.c_protection as i64 - 100)
    }
}

/// The queue a packet joins (rule 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    L4s,
    Classic,
}

/// Rule 1: ECT(1) and CE are L4S, Not-ECT and ECT(0) Classic.
pub fn classify(pkt: &Packet) -> Class {
    match pkt.ecn {
        Ecn::Ect1 | Ecn::Ce => Class::L4s,
        Ecn::NotEct | Ecn::Ect0 => Class::Classic,
    }
}

/// The controller's and the scheduler's variables (the RFC's names where it has them).
#[derive(Clone, Debug, PartialEq)]
pub struct DualPi2State {
    /// The base probability `p'`.
    pub p: f64,
    /// `qdelay_old`, seconds: the delay the last update saw.
    pub qdelay_old: f64,
    /// When the next update is due.
    pub next_update: SimTime,
    /// The scheduler's credit: the L4S queue is served while it is not positive.
    pub credit: i64,
    /// `recur()`'s accumulators, L4S and Classic.
    pub count_l: f64,
    pub count_c: f64,
}

/// The packet [`OwnBuffer::dequeue`] took out, until [`OwnBuffer::complete`]: the credit
/// it changes if it is sent.
#[derive(Clone, Copy, Debug)]
struct Leaving {
    credit_change: i64,
}

#[derive(Clone, Debug)]
pub struct DualPi2 {
    params: DualPi2Params,
    state: DualPi2State,
    /// The buffer's limit, both queues together (rule 2).
    limit: Limit,
    lq: VecDeque<Queued>,
    cq: VecDeque<Queued>,
    /// Bytes in the two queues.
    bytes: u64,
    leaving: Option<Leaving>,
    /// L4S packets marked by the step (rule 6), for tests and statistics.
    pub step_marks: u64,
}

impl DualPi2 {
    pub fn new(params: DualPi2Params, limit: Limit) -> Result<DualPi2, SettingError> {
        params.validate()?;
        let state =
            DualPi2State { p: 0.0, qdelay_old: 0.0, next_update: SimTime::ZERO + params.tupdate, credit: params.initial_credit(), count_l: 0.0, count_c: 0.0 };
        Ok(DualPi2 { params, state, limit, lq: VecDeque::new(), cq: VecDeque::new(), bytes: 0, leaving: None, step_marks: 0 })
    }
    pub fn params(&self) -> &DualPi2Params {
        &self.params
    }
    pub fn state(&self) -> &DualPi2State {
        &self.state
    }
    /// Packets in the L4S and the Classic queue.
    pub fn lengths(&self) -> (usize, usize) {
        (self.lq.len(), self.cq.len())
    }

    /// Runs the updates due by `now`, on the queues as they have been since the last event.
    fn catch_up(&mut self, now: SimTime) {
        while self.state.next_update <= now {
            let t = self.state.next_update;
            if self.bytes == 0 && self.state.p == 0.0 && self.state.qdelay_old == 0.0 {
                // Every update until the next packet leaves p' and qdelay_old at 0.
                let periods = now.since(t).as_nanos() / self.params.tupdate.as_nanos() + 1;
                self.state.next_update += self.params.tupdate.saturating_mul(periods);
                break;
            }
            let waited = |q: &VecDeque<Queued>| q.front().map_or(0.0, |h| t.since(h.enqueued_at).as_secs_f64());
            let qdelay = waited(&self.lq).max(waited(&self.cq));
            self.update(qdelay);
            self.state.next_update += self.params.tupdate;
        }
    }

    /// Rule 3: one update of `p'` with the queueing delay `qdelay`, seconds.
    fn update(&mut self, qdelay: f64) {
        let p = &self.params;
        let s = &mut self.state;
        let delta = p.alpha * (qdelay - p.target.as_secs_f64()) + p.beta * (qdelay - s.qdelay_old);
        s.p = (s.p + delta).clamp(0.0, p.max_p());
        s.qdelay_old = qdelay;
    }

    /// Rules 4 to 8: the verdict on a packet of `class` that waited `sojourn` and has just
    /// left its queue.
    fn decide(&mut self, class: Class, sojourn: Dur) -> Verdict {
        let k = self.params.coupling;
        let s = &mut self.state;
        let (p_c, p_cl) = (s.p * s.p, k * s.p);
        let overload = p_cl >= 1.0;
        let small = self.bytes < 2 * MTU;
        match class {
            Class::Classic => {
                if small || !recur(&mut s.count_c, p_c) {
                    Verdict::Admit
                } else if overload {
                    Verdict::EarlyDrop
                } else {
                    Verdict::Early
                }
            }
            Class::L4s => {
                if !small && overload {
                    if self.params.drop_overload && recur(&mut s.count_l, p_c) {
                        return Verdict::EarlyDrop;
                    }
                    return Verdict::Early;
                }
                let queued = self.lq.len() as u64 + 1;
                if sojourn >= self.params.step_thresh && queued >= self.params.step_min_packets as u64 {
                    self.step_marks += 1;
                    return Verdict::Early;
                }
                if !small && recur(&mut s.count_l, p_cl) {
                    Verdict::Early
                } else {
                    Verdict::Admit
                }
            }
        }
    }

    /// Whether the scheduler serves the L4S queue next (both queues may be empty).
    fn l4s_next(&self) -> bool {
        !self.lq.is_empty() && (self.cq.is_empty() || self.state.credit <= 0)
    }
}

/// Appendix A.1's `recur()`: adds `likelihood` to `count`; true (and 1 taken off) once the
/// sum passes 1.
fn recur(count: &mut f64, likelihood: f64) -> bool {
    *count += likelihood;
    if *count > 1.0 {
        *count -= 1.0;
        return true;
    }
    false
}

impl OwnBuffer for DualPi2 {
    fn enqueue(&mut self, q: Queued) {
        self.bytes += q.pkt.size as u64;
        match classify(&q.pkt) {
            Class::L4s => self.lq.push_back(q),
            Class::Classic => self.cq.push_back(q),
        }
    }
    /// Arrivals over the limit are refused at arrival (rule 2); should the buffer be over
    /// it all the same, the packet just added goes.
    fn evict(&mut self, out: &mut Vec<Queued>) {
        let newest = match (self.lq.back(), self.cq.back()) {
            (Some(l), Some(c)) if l.enqueued_at > c.enqueued_at => self.lq.pop_back(),
            (Some(_), None) => self.lq.pop_back(),
            _ => self.cq.pop_back(),
        };
        if let Some(q) = newest {
            self.bytes -= q.pkt.size as u64;
            out.push(q);
        }
    }
    fn dequeue(&mut self, now: SimTime) -> Option<(Queued, Verdict)> {
        self.catch_up(now);
        let (q, class, credit_change) = if self.l4s_next() {
            let q = self.lq.pop_front()?;
            let change = if self.cq.is_empty() { 0 } else { self.params.c_protection as i64 * q.pkt.size as i64 };
            (q, Class::L4s, change)
        } else if let Some(q) = self.cq.pop_front() {
            let change = if self.lq.is_empty() { 0 } else { -((100 - self.params.c_protection) as i64) * q.pkt.size as i64 };
            (q, Class::Classic, change)
        } else {
            self.state.credit = self.params.initial_credit();
            return None;
        };
        self.bytes -= q.pkt.size as u64;
        self.leaving = Some(Leaving { credit_change });
        let verdict = self.decide(class, now.since(q.enqueued_at));
        Some((q, verdict))
    }
    /// A packet dropped at dequeue changes no credit (Linux's `dualpi2_qdisc_dequeue`).
    fn complete(&mut self, _signalled: bool, sent: bool, _size: u32) {
        if let Some(l) = self.leaving.take() {
            if sent {
                self.state.credit += l.credit_change;
            }
        }
    }
    fn peek(&self) -> Option<&Queued> {
        if self.l4s_next() {
            self.lq.front()
        } else {
            self.cq.front()
        }
    }
    fn packets(&self) -> Box<dyn Iterator<Item = &Queued> + '_> {
        Box::new(self.lq.iter().chain(self.cq.iter()))
    }
    fn drain(&mut self, lost: &mut dyn FnMut(Queued)) {
        self.lq.drain(..).chain(self.cq.drain(..)).for_each(lost);
        self.bytes = 0;
        self.leaving = None;
        self.state.credit = self.params.initial_credit();
    }
}

impl Aqm for DualPi2 {
    fn update_period(&self) -> Option<(Dur, &'static str)> {
        Some((self.params.tupdate, "tupdate"))
    }
    /// Rule 2, and the updates due (rule 3).
    fn on_arrival(&mut self, pkt: &Packet, occ: Occupancy, now: SimTime, _: &mut Rng) -> Verdict {
        self.catch_up(now);
        let fits = match self.limit {
            Limit::Packets(n) => occ.packets < n,
            Limit::Bytes(b) => occ.bytes + pkt.size as u64 <= b,
        };
        if fits {
            Verdict::Admit
        } else {
            Verdict::Overflow
        }
    }
    fn own_buffer(&mut self) -> Option<&mut dyn OwnBuffer> {
        Some(self)
    }
    fn own_buffer_ref(&self) -> Option<&dyn OwnBuffer> {
        Some(self)
    }
    /// `prob` is `p'`.
    fn probe(&self) -> Probe {
        Probe { prob: self.state.p, ..Probe::default() }
    }
}

/// DualPI2's keys.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DualPi2Spec {
    /// The Classic queueing delay the PI controller steers to; default [`TARGET`].
    pub target: Option<Duration>,
    /// The period of the PI update; default [`TUPDATE`].
    pub tupdate: Option<Duration>,
    /// The integral gain, per second; default [`ALPHA`].
    pub alpha: Option<f64>,
    /// The proportional gain, per second; default [`BETA`].
    pub beta: Option<f64>,
    /// The coupling factor `k`; default [`COUPLING`].
    pub coupling: Option<f64>,
    /// The L4S step: packets that waited this long are marked; default [`STEP_THRESH`].
    pub step_thresh: Option<Duration>,
    /// The L4S queue marks by the step only when it holds this many packets, the leaving
    /// one included; default [`STEP_MIN_PACKETS`].
    pub step_min_packets: Option<u32>,
    /// The Classic queue's share of the bytes when both are backlogged, percent; default
    /// [`C_PROTECTION`].
    pub c_protection: Option<u32>,
    /// On overload, drop L4S packets with probability `p'^2` and ECN-capable Classic ones
    /// rather than mark them; default true.
    pub drop_overload: Option<bool>,
}

impl DualPi2Spec {
    pub fn resolve(&self) -> Result<DualPi2Params, SettingError> {
        let d = DualPi2Params::default();
        let dur = |v: Option<Duration>, default: Dur| v.map_or(default, |t| t.dur());
        let params = DualPi2Params {
            target: dur(self.target, d.target),
            tupdate: dur(self.tupdate, d.tupdate),
            alpha: self.alpha.unwrap_or(d.alpha),
            beta: self.beta.unwrap_or(d.beta),
            coupling: self.coupling.unwrap_or(d.coupling),
            step_thresh: dur(self.step_thresh, d.step_thresh),
            step_min_packets: self.step_min_packets.unwrap_or(d.step_min_packets),
            c_protection: self.c_protection.unwrap_or(d.c_protection),
            drop_overload: self.drop_overload.unwrap_or(d.drop_overload),
        };
        params.validate()?;
        Ok(params)
    }
}

pub const REGISTRATION: Registration =
    Registration { name: "dualpi2", aliases: &[], family: None, keys: keys_of::<DualPi2Spec>, footprint: boxed::<DualPi2>, build };

fn build(table: &Table, ctx: &QueueContext) -> Result<Discipline, SettingError> {
    let params = read::<DualPi2Spec>(table)?.resolve()?;
    Ok(Discipline::DualPi2(Box::new(DualPi2::new(params, ctx.limit)?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testing::sized;
    use crate::queue::EgressQueue;
    use crate::signal::{Action, SignalPolicy};

    fn ms(t: u64) -> SimTime {
        SimTime(t * 1_000_000)
    }
    fn us(t: u64) -> SimTime {
        SimTime(t * 1_000)
    }
    /// A 1000-byte packet with codepoint `ecn`.
    fn pkt(ecn: Ecn) -> Packet {
        Packet { ecn, ..sized(1000) }
    }
    fn at(ecn: Ecn, t: SimTime) -> Queued {
        Queued { pkt: pkt(ecn), enqueued_at: t }
    }
    fn dualpi2() -> DualPi2 {
        DualPi2::new(DualPi2Params::default(), Limit::Packets(1000)).unwrap()
    }
    /// Dequeues one packet and sends it (whatever the verdict), returning both.
    fn send(d: &mut DualPi2, now: SimTime) -> Option<(Queued, Verdict)> {
        let (q, v) = OwnBuffer::dequeue(d, now)?;
        d.complete(v != Verdict::Admit, v != Verdict::EarlyDrop, q.pkt.size);
        Some((q, v))
    }

    #[test]
    fn ect1_and_ce_go_to_the_l4s_queue_the_rest_to_the_classic_one() {
        assert_eq!(classify(&pkt(Ecn::Ect1)), Class::L4s);
        assert_eq!(classify(&pkt(Ecn::Ce)), Class::L4s);
        assert_eq!(classify(&pkt(Ecn::Ect0)), Class::Classic);
        assert_eq!(classify(&pkt(Ecn::NotEct)), Class::Classic);
        let mut d = dualpi2();
        for e in [Ecn::Ect1, Ecn::Ect0, Ecn::Ce, Ecn::NotEct, Ecn::Ect0] {
            OwnBuffer::enqueue(&mut d, at(e, ms(0)));
        }
        assert_eq!(d.lengths(), (2, 3));
        assert_eq!(d.bytes, 5 * 1000);
        // The L4S queue first (the credit starts negative), each queue in FIFO order.
        let order: Vec<Ecn> = (0..5).map(|_| send(&mut d, ms(0)).unwrap().0.pkt.ecn).collect();
        assert_eq!(order, [Ecn::Ect1, Ecn::Ce, Ecn::Ect0, Ecn::NotEct, Ecn::Ect0]);
        assert!(send(&mut d, ms(0)).is_none());
    }

    #[test]
    fn the_pi_update_follows_a_hand_computed_sequence() {
        let mut d = dualpi2();
        // qdelay 0.030 s: 0.16 x (0.030 - 0.015) + 3.2 x (0.030 - 0) = 0.0024 + 0.096.
        d.update(0.030);
        assert!((d.state.p - 0.0984).abs() < 1e-12, "{}", d.state.p);
        assert_eq!(d.state.qdelay_old, 0.030);
        // 0.040 s: + 0.16 x 0.025 + 3.2 x 0.010 = 0.004 + 0.032.
        d.update(0.040);
        assert!((d.state.p - 0.1344).abs() < 1e-12, "{}", d.state.p);
        // 0.020 s: + 0.16 x 0.005 - 3.2 x 0.020 = 0.0008 - 0.064.
        d.update(0.020);
        assert!((d.state.p - 0.0712).abs() < 1e-12, "{}", d.state.p);
        // 0 s: + 0.16 x -0.015 - 3.2 x 0.020 = -0.0664.
        d.update(0.0);
        assert!((d.state.p - 0.0048).abs() < 1e-12, "{}", d.state.p);
        // 0 s twice: -0.0024 each, the second bounded at 0.
        d.update(0.0);
        assert!((d.state.p - 0.0024).abs() < 1e-12, "{}", d.state.p);
        d.update(0.0);
        d.update(0.0);
        assert_eq!(d.state.p, 0.0);
        // Bounded at 1 above.
        d.update(1.0);
        assert_eq!(d.state.p, 1.0);
        // Without drop_overload, at 1/k.
        let mut d = DualPi2::new(DualPi2Params { drop_overload: false, ..DualPi2Params::default() }, Limit::Packets(10)).unwrap();
        d.update(1.0);
        assert_eq!(d.state.p, 0.5);
    }

    #[test]
    fn updates_run_every_tupdate_on_the_head_delays_of_both_queues() {
        let mut d = dualpi2();
        let mut rng = Rng::from_seed(1);
        let occ = Occupancy::default();
        // A Classic packet queued at 1 ms, an L4S one at 10 ms.
        OwnBuffer::enqueue(&mut d, at(Ecn::NotEct, ms(1)));
        OwnBuffer::enqueue(&mut d, at(Ecn::Ect1, ms(10)));
        d.on_arrival(&pkt(Ecn::NotEct), occ, us(15_999), &mut rng);
        assert_eq!(d.state.qdelay_old, 0.0, "no update before 16 ms");
        // The update due at 16 ms sees the larger head delay, the Classic one's: 15 ms.
        d.on_arrival(&pkt(Ecn::NotEct), occ, ms(20), &mut rng);
        assert!((d.state.qdelay_old - 0.015).abs() < 1e-12);
        assert!((d.state.p - 3.2 * 0.015).abs() < 1e-12);
        // At a dequeue, the updates due before it (32 and 48 ms) see the heads as they were.
        OwnBuffer::dequeue(&mut d, ms(50)).unwrap();
        assert!((d.state.qdelay_old - 0.047).abs() < 1e-12, "{}", d.state.qdelay_old);
        assert_eq!(d.state.next_update, ms(64));
        // Idle with p' at 0: the updates are skipped, and the next is still on the grid.
        let mut d = dualpi2();
        d.on_arrival(&pkt(Ecn::NotEct), occ, SimTime(10_000_000_123), &mut rng);
        assert_eq!((d.state.p, d.state.next_update), (0.0, ms(10_016)));
    }

    /// Sends `n` packets of codepoint `ecn` through a DualPI2 whose `p'` is `p`, with a
    /// standing queue above two MTUs and no step; counts the marks (`Early`) and the drops
    /// (`EarlyDrop`).
    fn signals_at(p: f64, ecn: Ecn, n: usize) -> (usize, usize) {
        let mut d = dualpi2();
        d.state.p = p;
        d.state.next_update = SimTime::MAX;
        let mut counts = (0, 0);
        for _ in 0..n {
            while d.lengths().0 + d.lengths().1 < 8 {
                OwnBuffer::enqueue(&mut d, at(ecn, ms(1)));
            }
            match send(&mut d, ms(1)).unwrap().1 {
                Verdict::Early => counts.0 += 1,
                Verdict::EarlyDrop => counts.1 += 1,
                _ => {}
            }
        }
        counts
    }

    #[test]
    fn classic_packets_see_the_square_and_l4s_packets_the_coupled_probability() {
        // p' = 0.1: Classic 0.01, L4S k p' = 0.2, spaced evenly by recur().
        let (marks, drops) = signals_at(0.1, Ecn::Ect0, 10_000);
        assert!((99..=100).contains(&marks) && drops == 0, "p_C = p'^2: {marks}");
        let (marks, drops) = signals_at(0.1, Ecn::Ect1, 10_000);
        assert!((1999..=2000).contains(&marks) && drops == 0, "p_CL = k p': {marks}");
        // p' = 0.3: 0.09 and 0.6.
        assert!((899..=900).contains(&signals_at(0.3, Ecn::NotEct, 10_000).0));
        assert!((5999..=6000).contains(&signals_at(0.3, Ecn::Ect1, 10_000).0));
        // k is a key: k = 1 couples p_CL = p'.
        let mut d = DualPi2::new(DualPi2Params { coupling: 1.0, ..DualPi2Params::default() }, Limit::Packets(100)).unwrap();
        d.state.p = 0.25;
        d.state.next_update = SimTime::MAX;
        for _ in 0..8 {
            OwnBuffer::enqueue(&mut d, at(Ecn::Ect1, ms(1)));
        }
        let verdicts: Vec<Verdict> = (0..5).map(|_| send(&mut d, ms(1)).unwrap().1).collect();
        assert_eq!(verdicts.iter().filter(|v| **v == Verdict::Early).count(), 1, "{verdicts:?}");
    }

    #[test]
    fn on_overload_l4s_packets_are_dropped_with_the_square_and_classic_ecn_is_off() {
        // p' = 0.6: k p' = 1.2 >= 1. L4S: drop with p'^2 = 0.36, mark the rest; Classic:
        // signals with 0.36, every one a drop.
        let (marks, drops) = signals_at(0.6, Ecn::Ect1, 10_000);
        assert_eq!(marks + drops, 10_000, "every L4S packet is signalled");
        assert!((3599..=3600).contains(&drops), "{drops}");
        let (marks, drops) = signals_at(0.6, Ecn::Ect0, 10_000);
        assert!(marks == 0 && (3599..=3600).contains(&drops), "{marks} {drops}");
        // Without drop_overload p' stops at 1/k, where L4S packets are all marked.
        let mut d = DualPi2::new(DualPi2Params { drop_overload: false, ..DualPi2Params::default() }, Limit::Packets(100)).unwrap();
        d.update(1.0);
        d.state.next_update = SimTime::MAX;
        for _ in 0..8 {
            OwnBuffer::enqueue(&mut d, at(Ecn::Ect1, ms(1)));
        }
        assert!((0..5).all(|_| send(&mut d, ms(1)).unwrap().1 == Verdict::Early));
    }

    #[test]
    fn no_signal_from_p_while_the_queues_hold_under_two_mtus() {
        let mut d = dualpi2();
        d.state.p = 0.9;
        d.state.next_update = SimTime::MAX;
        for _ in 0..3 {
            OwnBuffer::enqueue(&mut d, at(Ecn::Ect0, ms(0)));
        }
        // 2000 bytes left behind the first: under 3000.
        for _ in 0..3 {
            assert_eq!(send(&mut d, ms(0)).unwrap().1, Verdict::Admit);
        }
    }

    #[test]
    fn the_step_marks_l4s_packets_that_waited_its_threshold_in_a_queue_of_two() {
        let mut d = dualpi2();
        d.state.next_update = SimTime::MAX;
        // Two L4S packets queued at 0: the first leaves at 999 us (unmarked), the second at
        // exactly 1 ms (marked).
        OwnBuffer::enqueue(&mut d, at(Ecn::Ect1, ms(0)));
        OwnBuffer::enqueue(&mut d, at(Ecn::Ect1, ms(0)));
        OwnBuffer::enqueue(&mut d, at(Ecn::Ect1, ms(0)));
        assert_eq!(send(&mut d, us(999)).unwrap().1, Verdict::Admit);
        assert_eq!(send(&mut d, us(1000)).unwrap().1, Verdict::Early);
        // The last one alone in the queue: not marked however long it waited.
        assert_eq!(send(&mut d, ms(5)).unwrap().1, Verdict::Admit);
        assert_eq!(d.step_marks, 1);
        // Classic packets have no step.
        OwnBuffer::enqueue(&mut d, at(Ecn::Ect0, ms(0)));
        OwnBuffer::enqueue(&mut d, at(Ecn::Ect0, ms(0)));
        assert_eq!(send(&mut d, ms(10)).unwrap().1, Verdict::Admit);
        // step_min_packets = 1 marks a lone packet too; the threshold is a key.
        let params = DualPi2Params { step_min_packets: 1, step_thresh: Dur::from_micros(500), ..DualPi2Params::default() };
        let mut d = DualPi2::new(params, Limit::Packets(10)).unwrap();
        d.state.next_update = SimTime::MAX;
        OwnBuffer::enqueue(&mut d, at(Ecn::Ect1, ms(0)));
        assert_eq!(send(&mut d, us(500)).unwrap().1, Verdict::Early);
    }

    #[test]
    fn the_scheduler_gives_classic_its_c_protection_share_and_l4s_the_rest() {
        for wc in [10, 30, 50] {
            let mut d = DualPi2::new(DualPi2Params { c_protection: wc, ..DualPi2Params::default() }, Limit::Packets(10_000)).unwrap();
            d.state.next_update = SimTime::MAX;
            for _ in 0..3000 {
                OwnBuffer::enqueue(&mut d, at(Ecn::Ect1, ms(0)));
                OwnBuffer::enqueue(&mut d, at(Ecn::Ect0, ms(0)));
            }
            let classic = (0..2000).filter(|_| classify(&send(&mut d, ms(0)).unwrap().0.pkt) == Class::Classic).count();
            let share = classic as f64 / 2000.0;
            assert!((share - wc as f64 / 100.0).abs() < 0.01, "c_protection {wc}: {share}");
        }
        // One queue alone is served whatever the credit, and its packets change no credit.
        let mut d = dualpi2();
        let start = d.state.credit;
        assert_eq!(start, 1500 * (20 - 100));
        for _ in 0..5 {
            OwnBuffer::enqueue(&mut d, at(Ecn::Ect0, ms(0)));
        }
        assert!((0..5).all(|_| send(&mut d, ms(0)).is_some()));
        assert_eq!(d.state.credit, start);
        // peek shows what dequeue takes.
        OwnBuffer::enqueue(&mut d, at(Ecn::Ect0, ms(1)));
        OwnBuffer::enqueue(&mut d, at(Ecn::Ect1, ms(2)));
        assert_eq!(OwnBuffer::peek(&d).unwrap().pkt.ecn, Ecn::Ect1);
        assert_eq!(send(&mut d, ms(3)).unwrap().0.pkt.ecn, Ecn::Ect1);
    }

    #[test]
    fn through_the_egress_queue_l4s_marks_are_ce_and_the_limit_refuses_arrivals() {
        let d = DualPi2::new(DualPi2Params::default(), Limit::Packets(4)).unwrap();
        let mut q = EgressQueue::new(Limit::Packets(4), Discipline::DualPi2(Box::new(d)), SignalPolicy::Ecn, Rng::from_seed(1), vec![]);
        assert!(q.decides_at_dequeue());
        let offer = |q: &mut EgressQueue, ecn: Ecn, t: SimTime| {
            let p = pkt(ecn);
            let (v, a) = q.classify(&p, t);
            (v, a, q.commit(p, v, a, t))
        };
        for _ in 0..4 {
            assert_eq!(offer(&mut q, Ecn::Ect1, ms(0)), (Verdict::Admit, Action::Enqueue, true));
        }
        assert_eq!(offer(&mut q, Ecn::Ect0, ms(0)), (Verdict::Overflow, Action::Drop, false));
        assert_eq!(q.stats.drops_overflow, 1);
        // Dequeued at 2 ms: past the step, three of them in a queue of at least two.
        let mut sent = Vec::new();
        while let Some((p, v, a)) = q.next_departure(ms(2)) {
            sent.push(q.finish_departure(p, v, a, ms(2)).unwrap().ecn);
        }
        assert_eq!(sent, [Ecn::Ce, Ecn::Ce, Ecn::Ce, Ecn::Ect1]);
        assert_eq!((q.stats.marks_dequeue, q.stats.departures), (3, 4));
        // A byte limit counts the arriving packet.
        let d = DualPi2::new(DualPi2Params::default(), Limit::Bytes(2500)).unwrap();
        let mut q = EgressQueue::new(Limit::Bytes(2500), Discipline::DualPi2(Box::new(d)), SignalPolicy::Ecn, Rng::from_seed(1), vec![]);
        assert!(offer(&mut q, Ecn::NotEct, ms(0)).2 && offer(&mut q, Ecn::Ect1, ms(0)).2);
        assert_eq!(offer(&mut q, Ecn::NotEct, ms(0)).0, Verdict::Overflow);
        // A flush empties both queues.
        let mut lost = 0;
        q.flush(ms(1), |_| lost += 1);
        assert_eq!((lost, q.len()), (2, 0));
        assert!(q.next_departure(ms(2)).is_none());
    }

    #[test]
    fn a_classic_signal_drops_not_ect_and_marks_ect0_through_the_policy() {
        let mut d = DualPi2::new(DualPi2Params::default(), Limit::Packets(100)).unwrap();
        d.state.p = 0.45; // p_C = 0.2025, not overloaded (k p' < 1)
        d.state.count_c = 0.9; // the next Classic packet is signalled
        d.state.next_update = SimTime::MAX;
        let mut q = EgressQueue::new(Limit::Packets(100), Discipline::DualPi2(Box::new(d)), SignalPolicy::Ecn, Rng::from_seed(1), vec![]);
        for e in [Ecn::Ect0, Ecn::Ect0, Ecn::Ect0, Ecn::Ect0] {
            let p = pkt(e);
            let (v, a) = q.classify(&p, ms(0));
            q.commit(p, v, a, ms(0));
        }
        let (p, v, a) = q.next_departure(ms(1)).unwrap();
        assert_eq!((v, a), (Verdict::Early, Action::MarkAndEnqueue));
        assert_eq!(q.finish_departure(p, v, a, ms(1)).unwrap().ecn, Ecn::Ce);
        assert_eq!(SignalPolicy::Ecn.act(Verdict::Early, &pkt(Ecn::NotEct), true), Action::Drop);
    }

    #[test]
    fn keys_resolve_to_the_rfc_defaults_and_are_checked() {
        let ctx = QueueContext { link_bps: 100_000_000, limit: Limit::Packets(100), profile: Default::default(), delay: crate::sim::Dur::ZERO };
        let t = |s: &str| -> Table { s.parse().unwrap() };
        let Discipline::DualPi2(d) = build(&t(""), &ctx).unwrap() else { panic!() };
        assert_eq!(*d.params(), DualPi2Params::default());
        assert_eq!(d.limit, Limit::Packets(100));
        let text = "target = \"20ms\"\ntupdate = \"10ms\"\nalpha = 0.1\nbeta = 2\ncoupling = 1.5\nstep_thresh = \"2ms\"\nstep_min_packets = 1\nc_protection = 30\ndrop_overload = false";
        let Discipline::DualPi2(d) = build(&t(text), &ctx).unwrap() else { panic!() };
        let expected = DualPi2Params {
            target: Dur::from_millis(20),
            tupdate: Dur::from_millis(10),
            alpha: 0.1,
            beta: 2.0,
            coupling: 1.5,
            step_thresh: Dur::from_millis(2),
            step_min_packets: 1,
            c_protection: 30,
            drop_overload: false,
        };
        assert_eq!(*d.params(), expected);
        for (text, key) in [
            ("target = \"0s\"", "target"),
            ("tupdate = \"0s\"", "tupdate"),
            ("alpha = 0", "alpha"),
            ("beta = -1", "beta"),
            ("coupling = 0", "coupling"),
            ("c_protection = 101", "c_protection"),
            ("step_min_packets = -1", "step_min_packets"),
        ] {
            assert_eq!(build(&t(text), &ctx).unwrap_err().key, key, "{text}");
        }
        assert_eq!(build(&t("coupling = 0"), &ctx).unwrap_err().message, "must be positive and finite, got 0");
    }
}
