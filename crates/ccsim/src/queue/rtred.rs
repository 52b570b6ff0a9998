//! RTRED: Risk Threshold RED (Hamadneh, Dixon, Cole & Murray, "A Third Drop Level for
//! TCP-RED Congestion Control Strategy", Section IV.B; SCENARIOS.md P2).
//!
//! On each arrival the average is computed as [`Red`] does; then `max_p` is chosen from the
//! queue `q` the packet finds (packets, in the unit of the thresholds) and RED's rule runs
//! with it. The paper's rules, with `m` its initial `max_p`:
//!
//! | area of `q`                       | paper                                    | here    |
//! |-----------------------------------|------------------------------------------|---------|
//! | unfair `[0, min_th)`              | `m / 5`                                  | `m / 5` |
//! | normal `[min_th, max_th)`         | `m / 2` when also `min_th <= avg < max_th` | `m / 2` |
//! | normal, `avg` outside that band   | silent                                   | `m / 2` |
//! | safe `[max_th, risk_th)`          | silent                                   | `m / 2` |
//! | timeout `[risk_th, buffer]`       | `m`                                      | `m`     |
//!
//! The choices for the silent cases, and why:
//!
//! - Safe area: `m / 2`. The paper calls it the area where "the queue can fluctuate safely
//!   without any congestion indicator to absorb bursty traffic", says RTRED "stabilizes the
//!   queue size at the safe area" and that it defers "using the high initial max_p parameter
//!   until the actual queue size exceeds the risk_th". So not `m`; and not `m / 5`, which
//!   the paper reserves for the unfair area below `min_th`.
//! - Normal area with `avg` outside `[min_th, max_th)`: `m / 2`, the normal area's value.
//!   With `avg < min_th` RED admits whatever `max_p` is; with `avg >= max_th` plain RED forces
//!   whatever `max_p` is; only gentle RED reads `max_p` there, and the paper gives no reason to
//!   signal harder (`m`) or softer (`m / 5`) than in the rest of the normal area.
//!
//! So `max_p` depends on `q` alone, and the paper's condition on `avg` in the normal area
//! changes nothing; `avg` still decides, through RED's rule, whether and how hard to signal.

use super::red::{Red, RedParams, RedSpec, FAMILY};
use super::spec::{boxed, keys_of, read, Registration, SettingError, Table};
use super::{Aqm, Discipline, Occupancy, Probe, QueueContext, Verdict};
use crate::packet::Packet;
use crate::settings::units::num;
use crate::sim::{Rng, SimTime};
use serde::Deserialize;

#[derive(Clone, Debug)]
pub struct Rtred {
    red: Red,
    /// Queue (packets) from which the initial `max_p` applies.
    risk_th: f64,
}

impl Rtred {
    /// `params.max_p` is the paper's initial `max_p`; `risk_th` is in packets, at least `max_th`.
    pub fn new(params: RedParams, risk_th: f64) -> Result<Rtred, SettingError> {
        let red = Red::new(params)?;
        let max_th = red.params().max_th;
        if !(risk_th >= max_th && risk_th.is_finite()) {
            return Err(SettingError::new("risk_th", format!("must be at least max_th ({}), got {}", num(max_th), num(risk_th))));
        }
        Ok(Rtred { red, risk_th })
    }

    pub fn risk_th(&self) -> f64 {
        self.risk_th
    }
    pub fn red(&self) -> &Red {
        &self.red
    }

    /// The `max_p` RED uses for a packet that finds `q` queued.
    pub fn max_p_for(&self, q: f64) -> f64 {
        let p = self.red.params();
        if q >= self.risk_th {
            p.max_p
        } else if q < p.min_th {
            p.max_p / 5.0
        } else {
            p.max_p / 2.0
        }
    }
}

/// The key RTRED adds to the RED family's ([`RedSpec`]).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RtredSpec {
    /// The risk threshold on the actual queue, packets: from it up to the buffer limit
    /// (the paper's timeout area) the initial `max_p` applies. Required: the paper gives no
    /// default, only its scenarios' values (28, 95 and 40 for buffers of 30, 100 and 50,
    /// Table I).
    pub risk_th: Option<f64>,
}

impl RtredSpec {
    /// `risk_th` for a queue in `ctx` with RED parameters `red`: at most the buffer (in
    /// the thresholds' unit); [`Rtred::new`] checks that it is at least `max_th`.
    pub fn resolve(&self, red: &RedParams, ctx: &QueueContext) -> Result<f64, SettingError> {
        let Some(risk_th) = self.risk_th else { return Err(SettingError::new("risk_th", "required for discipline \"rtred\"")) };
        let capacity = ctx.capacity_packets(red.mean_packet_size);
        if risk_th > capacity {
            return Err(SettingError::new("risk_th", format!("must not exceed the buffer limit ({}), got {}", num(capacity), num(risk_th))));
        }
        Ok(risk_th)
    }
}

pub const REGISTRATION: Registration = Registration { name: "rtred", aliases: &[], family: Some(FAMILY), keys, footprint: boxed::<Rtred>, build };

fn keys() -> Vec<&'static str> {
    [keys_of::<RedSpec>(), keys_of::<RtredSpec>()].concat()
}

fn build(table: &Table, ctx: &QueueContext) -> Result<Discipline, SettingError> {
    let params = read::<RedSpec>(table)?.resolve(ctx)?;
    let risk_th = read::<RtredSpec>(table)?.resolve(&params, ctx)?;
    Ok(Discipline::Rtred(Box::new(Rtred::new(params, risk_th)?)))
}

impl Aqm for Rtred {
    fn on_arrival(&mut self, pkt: &Packet, occ: Occupancy, now: SimTime, rng: &mut Rng) -> Verdict {
        self.red.update_avg(occ, now);
        self.red.set_max_p(self.max_p_for(self.red.queue_len(occ)));
        self.red.decide(occ, pkt.size, rng)
    }
    fn on_departure(&mut self, occ: Occupancy, now: SimTime) {
        self.red.on_departure(occ, 0, now);
    }
    fn on_departure_of(&mut self, occ: Occupancy, departed_bytes: u32, now: SimTime) {
        self.red.on_departure(occ, departed_bytes, now);
    }
    fn on_overflow(&mut self) -> bool {
        self.red.on_overflow()
    }
    fn probe(&self) -> Probe {
        self.red.probe()
    }
}

#[cfg(test)]
mod tests {
    use super::super::red::tests::occ;
    use super::*;
    use crate::queue::testing::sized;

    /// Scenario S1 of the paper: min_th 12, max_th 25, max_p 0.05, risk_th 28 (buffer 30),
    /// with w_q = 1/2 so that the average after each arrival is easy to compute by hand.
    fn s1(gentle: bool) -> Rtred {
        let params = RedParams { w_q: 0.5, gentle, ..RedParams::new(12.0, 25.0, 0.05, 700_000, 592) };
        Rtred::new(params, 28.0).unwrap()
    }

    /// Feeds arrivals finding each of `qs` packets; returns the last verdict.
    fn feed(r: &mut Rtred, qs: &[u32]) -> Verdict {
        let mut rng = Rng::from_seed(5);
        let mut v = Verdict::Admit;
        for q in qs {
            v = r.on_arrival(&sized(592), occ(*q), SimTime::ZERO, &mut rng);
        }
        v
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn max_p_by_area_of_the_actual_queue() {
        let r = s1(false);
        let expect = [
            (0, 0.01),
            (11, 0.01), // unfair: m / 5
            (12, 0.025),
            (24, 0.025), // normal: m / 2
            (25, 0.025),
            (27, 0.025), // safe (silent): m / 2
            (28, 0.05),
            (30, 0.05),
            (40, 0.05), // timeout: m
        ];
        for (q, max_p) in expect {
            assert!(close(r.max_p_for(q as f64), max_p), "q {q}: {}", r.max_p_for(q as f64));
        }
    }

    #[test]
    fn red_rule_runs_with_the_chosen_max_p() {
        // avg 0 -> 9 (priming arrival finding 18; avg < min_th, count -1), then a packet
        // finding q takes avg to (9 + q) / 2; at count 0, p_a = p_b = max_p (avg - 12) / 13.
        for (q, max_p) in [(28, 0.05), (26, 0.025), (20, 0.025)] {
            let mut r = s1(false);
            feed(&mut r, &[18, q]);
            let avg = (9.0 + q as f64) / 2.0;
            assert!(close(r.probe().avg, avg));
            assert!(close(r.probe().max_p, max_p), "q {q}: {}", r.probe().max_p);
            let p_b = max_p * (avg - 12.0) / 13.0;
            assert!(close(r.probe().prob, p_b), "q {q}: {} vs {p_b}", r.probe().prob);
        }
        // Unfair area with a high average: avg 0 -> 30 (forced, count 0) -> 20.5, q = 11,
        // count 1.
        let mut r = s1(false);
        feed(&mut r, &[60, 11]);
        assert!(close(r.probe().max_p, 0.01));
        let p_b = 0.01 * (20.5 - 12.0) / 13.0;
        assert!(close(r.probe().prob, p_b / (1.0 - p_b)), "{}", r.probe().prob);
    }

    #[test]
    fn normal_queue_with_average_below_min_th_admits_at_half_max_p() {
        let mut r = s1(false);
        assert_eq!(feed(&mut r, &[20]), Verdict::Admit); // avg 10
        assert!(close(r.probe().max_p, 0.025));
        assert_eq!(r.probe().prob, 0.0);
        assert_eq!(r.red().state().count, -1);
    }

    #[test]
    fn normal_queue_with_average_past_max_th_uses_half_max_p() {
        // avg 0 -> 30 -> 25 with q = 20: plain RED forces whatever max_p is.
        let mut r = s1(false);
        assert_eq!(feed(&mut r, &[60, 20]), Verdict::Forced);
        assert!(close(r.probe().max_p, 0.025));
        // Gentle: avg 0 -> 35 -> 27.5, q = 20, count 1 after the first in-slope arrival.
        let mut r = s1(true);
        feed(&mut r, &[70, 20]);
        let p_b = 0.025 + (1.0 - 0.025) * (27.5 - 25.0) / 25.0;
        assert!(close(r.probe().prob, p_b / (1.0 - p_b)), "{} vs {}", r.probe().prob, p_b / (1.0 - p_b));
    }

    #[test]
    fn risk_th_below_max_th_is_rejected() {
        let params = RedParams::new(12.0, 25.0, 0.05, 700_000, 592);
        assert_eq!(Rtred::new(params.clone(), 20.0).unwrap_err(), SettingError::new("risk_th", "must be at least max_th (25), got 20"));
        assert_eq!(Rtred::new(params.clone(), f64::NAN).unwrap_err().key, "risk_th");
        assert!(Rtred::new(params, 25.0).is_ok());
    }

    #[test]
    fn spec_requires_risk_th_within_the_buffer() {
        let params = RedParams::new(12.0, 25.0, 0.05, 700_000, 592);
        let ctx = QueueContext { link_bps: 700_000, limit: crate::queue::Limit::Packets(30), profile: Default::default(), delay: crate::sim::Dur::ZERO };
        let spec = |risk_th: Option<f64>| RtredSpec { risk_th }.resolve(&params, &ctx);
        assert_eq!(spec(None).unwrap_err(), SettingError::new("risk_th", "required for discipline \"rtred\""));
        assert_eq!(spec(Some(28.0)), Ok(28.0));
        assert_eq!(spec(Some(30.0)), Ok(30.0), "up to the buffer limit");
        assert_eq!(spec(Some(31.0)).unwrap_err(), SettingError::new("risk_th", "must not exceed the buffer limit (30), got 31"));
    }
}
