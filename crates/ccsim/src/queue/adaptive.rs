//! Adaptive RED: [`Red`] whose `max_p` follows the average queue, in two named variants.
//! The average is updated first, then `max_p` adapts to it, then RED decides with the new
//! `max_p` (the order of ns-2's `red.cc`, where adaptation runs inside the estimator).
//!
//! **Floyd, Gummadi & Shenker 2001** ("Adaptive RED: an algorithm for increasing the
//! robustness of RED's active queue management", Fig. 3; ns-2 `adaptive_ 1`): once per
//! `interval`, with `d = max_th - min_th`,
//! if `avg > min_th + 0.6 d` and `max_p < 0.5`: `max_p += min(0.01, max_p / 4)`;
//! else if `avg < min_th + 0.4 d` and `max_p > 0.01`: `max_p *= 0.9`;
//! the result is clamped to `[0.01, 0.5]` (DESIGN.md; the paper's guards alone let one step
//! overshoot, e.g. 0.495 -> 0.505). The interval is checked lazily on arrivals: the first
//! arrival at or after the next due time adapts, and the next due time is one interval
//! later. Unlike ns-2, which re-checks on every arrival until `max_p` actually changes, an
//! evaluation that leaves `max_p` alone still waits a full interval, as the paper's "every
//! interval seconds" says. The paper's automatic `w_q` and thresholds are not applied: the
//! scenario gives them.
//!
//! `update = "ns2"` (the `ns2` profile's) follows ns-2.35's `updateMaxP()` instead: every
//! arrival more than `interval` after the last *change* of `max_p` evaluates (so an arrival
//! that changes nothing leaves the next one to try again); the guards are ns-2's, `max_p >
//! bottom` to decrease and `max_p < top` to increase, with no clamping (one step may cross
//! a bound); `top` is 0.5 and `bottom` is `min(0.01, 80000 / C)` for a link of `C` bit/s
//! (ns-2's `initialize_params()`: at most one packet of 1000 bytes per 100 ms round trip).
//!
//! **Feng, Kandlur, Saha & Shin 1999** ("A self-configuring RED gateway", INFOCOM): when
//! `avg` *enters* the region below `min_th`, `max_p /= 3`; when it *enters* the region at or
//! above `max_th`, `max_p *= 2`. The regions are RED's own (`avg < min_th`, `avg >= max_th`);
//! moving between them and the band in between is what counts as entering, so staying in a
//! region changes nothing and every fresh entry acts once. The paper and ns-2 call the divisor
//! alpha (3) and the multiplier beta (2); the RTRED paper swaps the names, so the fields here
//! say what they do. Neither bounds `max_p`; here it stays in `[0.001, 1]`: at most 1 because
//! it is a probability, at least 0.001 so that a long run of dips below `min_th` cannot drive
//! it to zero, from which doubling could never recover. The region starts as "below" (the
//! initial `avg` is 0), so the first arrival does not count as an entry.

use super::red::{Red, RedParams, RedSpec, FAMILY};
use super::spec::{boxed, keys_of, read, Registration, SettingError, Table};
use super::{Aqm, Discipline, Occupancy, Probe, QueueContext, Verdict};
use crate::packet::Packet;
use crate::settings::profile::Profile;
use crate::settings::units::{num, Duration};
use crate::sim::{Dur, Rng, SimTime};
use serde::Deserialize;

/// Bounds on `max_p` for Floyd/Gummadi/Shenker.
const FGS_MAX_P: (f64, f64) = (0.01, 0.5);
/// Bounds on `max_p` for Feng et al.
const FENG_MAX_P: (f64, f64) = (0.001, 1.0);

/// FGS's adaptation interval: 0.5 s (Floyd, Gummadi & Shenker 2001, Fig. 3; ns-2's
/// `interval_`).
pub const FGS_INTERVAL: Dur = Dur::from_millis(500);

/// ns-2's guards on `max_p` (`top_`, and `bottom_` as `initialize_params()` sets it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ns2Bounds {
    pub bottom: f64,
    pub top: f64,
}

impl Ns2Bounds {
    /// ns-2's defaults for a link of `link_bps`.
    pub fn for_link(link_bps: u64) -> Ns2Bounds {
        Ns2Bounds { bottom: (80_000.0 / link_bps as f64).min(0.01), top: 0.5 }
    }
}

/// Which adaptation rule drives `max_p`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AredVariant {
    /// Additive increase, multiplicative decrease toward a target band, once per `interval`
    /// (`ns2`: ns-2's timing and guards, with `bottom`; module doc).
    FloydGummadiShenker { interval: Dur, ns2: Option<Ns2Bounds> },
    /// Multiply on entering the region above `max_th`, divide on entering the one below
    /// `min_th`.
    Feng { multiply_above: f64, divide_below: f64 },
}

impl AredVariant {
    /// The published defaults: a 0.5 s interval ([`FGS_INTERVAL`]).
    pub fn floyd_gummadi_shenker() -> AredVariant {
        AredVariant::FloydGummadiShenker { interval: FGS_INTERVAL, ns2: None }
    }
    /// The published defaults (Feng et al. 1999): multiply by 2, divide by 3.
    pub fn feng() -> AredVariant {
        AredVariant::Feng { multiply_above: 2.0, divide_below: 3.0 }
    }
}

/// The keys Adaptive RED adds to the RED family's ([`RedSpec`]).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AredSpec {
    /// The adaptation rule: `fgs` (Floyd, Gummadi & Shenker 2001, ns-2's `adaptive_`; the
    /// default, as SCENARIOS.md's reproductions) or `feng` (Feng et al. 1999, with its
    /// published factors, [`AredVariant::feng`]).
    pub adapt: Option<String>,
    /// `fgs` only: the adaptation interval; default [`FGS_INTERVAL`].
    pub interval: Option<Duration>,
    /// `fgs` only: `paper` (once per interval, `max_p` kept in `[0.01, 0.5]`; the default)
    /// or `ns2` (ns-2's `updateMaxP()`; the `ns2` profile's). See the module doc.
    pub update: Option<String>,
}

impl AredSpec {
    /// The adaptation rule for a queue in `ctx`, defaults filled in.
    pub fn resolve(&self, ctx: &QueueContext) -> Result<AredVariant, SettingError> {
        match self.adapt.as_deref().unwrap_or("fgs") {
            "fgs" => {
                let ns2 = match self.update.as_deref() {
                    None => ctx.profile == Profile::Ns2,
                    Some("paper") => false,
                    Some("ns2") => true,
                    Some(other) => return Err(SettingError::new("update", format!("unknown update rule {other:?} (expected \"paper\" or \"ns2\")"))),
                };
                let interval = self.interval.map_or(FGS_INTERVAL, |i| i.dur());
                Ok(AredVariant::FloydGummadiShenker { interval, ns2: ns2.then(|| Ns2Bounds::for_link(ctx.link_bps)) })
            }
            "feng" if self.interval.is_some() => Err(SettingError::new("interval", "only for adapt = \"fgs\"")),
            "feng" if self.update.is_some() => Err(SettingError::new("update", "only for adapt = \"fgs\"")),
            "feng" => Ok(AredVariant::feng()),
            other => Err(SettingError::new("adapt", format!("unknown adaptation {other:?} (expected \"fgs\" or \"feng\")"))),
        }
    }
}

pub const REGISTRATION: Registration = Registration { name: "ared", aliases: &[], family: Some(FAMILY), keys, footprint: boxed::<AdaptiveRed>, build };

fn keys() -> Vec<&'static str> {
    [keys_of::<RedSpec>(), keys_of::<AredSpec>()].concat()
}

fn build(table: &Table, ctx: &QueueContext) -> Result<Discipline, SettingError> {
    let params = read::<RedSpec>(table)?.resolve(ctx)?;
    let variant = read::<AredSpec>(table)?.resolve(ctx)?;
    Ok(Discipline::AdaptiveRed(Box::new(AdaptiveRed::new(params, variant)?)))
}

/// Where `avg` sits relative to RED's thresholds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Region {
    Below,
    Between,
    Above,
}

#[derive(Clone, Debug)]
pub struct AdaptiveRed {
    red: Red,
    variant: AredVariant,
    /// Floyd/Gummadi/Shenker: the next arrival at or after this time adapts.
    next_due: SimTime,
    /// Feng: the region of `avg` at the last arrival.
    region: Region,
}

impl AdaptiveRed {
    /// `params.max_p` is the starting `max_p`.
    pub fn new(params: RedParams, variant: AredVariant) -> Result<AdaptiveRed, SettingError> {
        match variant {
            AredVariant::FloydGummadiShenker { interval, .. } if interval == Dur::ZERO => {
                return Err(SettingError::new("interval", "must be positive"));
            }
            AredVariant::Feng { multiply_above, divide_below } if !(multiply_above > 1.0 && divide_below > 1.0) => {
                let message = format!("Feng's multiply_above ({}) and divide_below ({}) must exceed 1", num(multiply_above), num(divide_below));
                return Err(SettingError::new("", message));
            }
            _ => {}
        }
        let next_due = match variant {
            AredVariant::FloydGummadiShenker { interval, .. } => SimTime::ZERO + interval,
            AredVariant::Feng { .. } => SimTime::ZERO,
        };
        Ok(AdaptiveRed { red: Red::new(params)?, variant, next_due, region: Region::Below })
    }

    pub fn variant(&self) -> &AredVariant {
        &self.variant
    }
    pub fn red(&self) -> &Red {
        &self.red
    }

    /// The new `max_p` for the current `avg`, if this arrival adapts it.
    fn adapt(&mut self, now: SimTime) -> Option<f64> {
        let (p, avg, max_p) = (self.red.params(), self.red.state().avg, self.red.state().max_p);
        match self.variant {
            AredVariant::FloydGummadiShenker { interval, ns2: Some(b) } => {
                // ns-2: `now > lastset + interval`, lastset moved only by a change.
                if now <= self.next_due {
                    return None;
                }
                let d = p.max_th - p.min_th;
                let new = if avg < p.min_th + 0.4 * d && max_p > b.bottom {
                    max_p * 0.9
                } else if avg > p.max_th - 0.4 * d && b.top > max_p {
                    max_p + (0.25 * max_p).min(0.01)
                } else {
                    return None;
                };
                self.next_due = now + interval;
                Some(new)
            }
            AredVariant::FloydGummadiShenker { interval, ns2: None } => {
                if now < self.next_due {
                    return None;
                }
                self.next_due = now + interval;
                let d = p.max_th - p.min_th;
                let (low, high) = FGS_MAX_P;
                if avg > p.min_th + 0.6 * d && max_p < high {
                    Some((max_p + (max_p / 4.0).min(0.01)).min(high))
                } else if avg < p.min_th + 0.4 * d && max_p > low {
                    Some((max_p * 0.9).max(low))
                } else {
                    None
                }
            }
            AredVariant::Feng { multiply_above, divide_below } => {
                let region = match avg {
                    a if a < p.min_th => Region::Below,
                    a if a >= p.max_th => Region::Above,
                    _ => Region::Between,
                };
                let entered = region != std::mem::replace(&mut self.region, region);
                let (low, high) = FENG_MAX_P;
                match region {
                    Region::Below if entered => Some((max_p / divide_below).max(low)),
                    Region::Above if entered => Some((max_p * multiply_above).min(high)),
                    _ => None,
                }
            }
        }
    }
}

impl Aqm for AdaptiveRed {
    fn on_arrival(&mut self, pkt: &Packet, occ: Occupancy, now: SimTime, rng: &mut Rng) -> Verdict {
        self.red.update_avg(occ, now);
        if let Some(max_p) = self.adapt(now) {
            self.red.set_max_p(max_p);
        }
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
    use super::super::red::tests::{at_ms, occ};
    use super::*;
    use crate::queue::testing::sized;

    /// min_th 5, max_th 15 (FGS target band [9, 11]); w_q = 1 so avg is the queue found.
    fn ared(max_p: f64, variant: AredVariant) -> AdaptiveRed {
        let params = RedParams { w_q: 1.0, ..RedParams::new(5.0, 15.0, max_p, 10_000_000, 1000) };
        AdaptiveRed::new(params, variant).unwrap()
    }

    /// Feeds one arrival finding `q` packets at `ms` and returns the `max_p` in force after it.
    fn feed(a: &mut AdaptiveRed, q: u32, ms: u64) -> f64 {
        let mut rng = Rng::from_seed(ms);
        a.on_arrival(&sized(1000), occ(q), at_ms(ms), &mut rng);
        a.probe().max_p
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn fgs_increases_additively_above_the_target_band() {
        let mut a = ared(0.1, AredVariant::floyd_gummadi_shenker());
        assert!(close(feed(&mut a, 12, 500), 0.11), "step min(0.01, max_p / 4) = 0.01");
        let mut a = ared(0.02, AredVariant::floyd_gummadi_shenker());
        assert!(close(feed(&mut a, 14, 500), 0.025), "step min(0.01, max_p / 4) = 0.005");
    }

    #[test]
    fn fgs_decreases_multiplicatively_below_the_target_band() {
        let mut a = ared(0.1, AredVariant::floyd_gummadi_shenker());
        assert!(close(feed(&mut a, 8, 500), 0.09));
        assert!(close(feed(&mut a, 0, 1000), 0.081));
    }

    #[test]
    fn fgs_leaves_max_p_alone_inside_the_band() {
        let mut a = ared(0.1, AredVariant::floyd_gummadi_shenker());
        for (i, q) in [9, 10, 11].into_iter().enumerate() {
            assert_eq!(feed(&mut a, q, 500 * (i as u64 + 1)), 0.1);
        }
    }

    #[test]
    fn fgs_adapts_at_most_once_per_interval() {
        let mut a = ared(0.1, AredVariant::floyd_gummadi_shenker());
        assert_eq!(feed(&mut a, 14, 0), 0.1, "not before the first interval");
        assert_eq!(feed(&mut a, 14, 499), 0.1);
        assert!(close(feed(&mut a, 14, 700), 0.11));
        assert!(close(feed(&mut a, 14, 800), 0.11));
        assert!(close(feed(&mut a, 14, 1199), 0.11), "next due at 1200 ms");
        assert!(close(feed(&mut a, 14, 1200), 0.12));
        // An evaluation inside the band still uses up its interval.
        assert!(close(feed(&mut a, 10, 1700), 0.12));
        assert!(close(feed(&mut a, 14, 1800), 0.12));
        assert!(close(feed(&mut a, 14, 2200), 0.13));
    }

    #[test]
    fn fgs_keeps_max_p_within_its_bounds() {
        let mut a = ared(0.48, AredVariant::floyd_gummadi_shenker());
        let ups: Vec<f64> = (1..=4).map(|i| feed(&mut a, 14, 500 * i)).collect();
        assert!(close(ups[0], 0.49) && close(ups[1], 0.5) && ups[2] == 0.5 && ups[3] == 0.5, "{ups:?}");
        let mut a = ared(0.0105, AredVariant::floyd_gummadi_shenker());
        assert_eq!(feed(&mut a, 0, 500), 0.01);
        assert_eq!(feed(&mut a, 0, 1000), 0.01);
        // Long runs at either extreme stay inside.
        let mut a = ared(0.1, AredVariant::floyd_gummadi_shenker());
        for i in 1..200 {
            let m = feed(&mut a, if i < 100 { 14 } else { 0 }, 500 * i);
            assert!((0.01..=0.5).contains(&m), "{m}");
        }
        assert_eq!(a.probe().max_p, 0.01);
    }

    #[test]
    fn feng_acts_once_per_entry_into_a_region() {
        let mut a = ared(0.1, AredVariant::feng());
        assert_eq!(feed(&mut a, 2, 0), 0.1, "starting below min_th is not an entry");
        assert_eq!(feed(&mut a, 10, 1), 0.1, "the band changes nothing");
        assert!(close(feed(&mut a, 15, 2), 0.2), "entering avg >= max_th doubles");
        assert!(close(feed(&mut a, 20, 3), 0.2), "staying above does not");
        assert!(close(feed(&mut a, 10, 4), 0.2));
        assert!(close(feed(&mut a, 16, 5), 0.4), "a fresh entry doubles again");
        assert!(close(feed(&mut a, 4, 6), 0.4 / 3.0), "entering avg < min_th divides by 3");
        assert!(close(feed(&mut a, 0, 7), 0.4 / 3.0));
        assert!(close(feed(&mut a, 30, 8), 0.8 / 3.0), "below straight to above");
        assert!(close(feed(&mut a, 1, 9), 0.8 / 9.0), "above straight to below");
    }

    #[test]
    fn feng_keeps_max_p_within_its_bounds() {
        let mut a = ared(0.4, AredVariant::feng());
        assert!(close(feed(&mut a, 20, 0), 0.8));
        assert!(close(feed(&mut a, 0, 1), 0.8 / 3.0));
        assert!(close(feed(&mut a, 20, 2), 1.6 / 3.0));
        feed(&mut a, 10, 3);
        feed(&mut a, 20, 4);
        assert_eq!(a.probe().max_p, 1.0, "1.07 capped to 1");
        for i in 0..40 {
            feed(&mut a, 10, 5 + 2 * i);
            let m = feed(&mut a, 0, 6 + 2 * i);
            assert!(m >= 0.001, "{m}");
        }
        assert_eq!(a.probe().max_p, 0.001);
        assert_eq!(feed(&mut a, 20, 100), 0.002, "and can recover");
    }

    #[test]
    fn decisions_use_the_adapted_max_p() {
        // Doubled to 0.2, then divided by 3; avg 10 then gives p_b = max_p * (10 - 5) / 10,
        // read at count 0 where p_a = p_b.
        let mut a = ared(0.1, AredVariant::feng());
        feed(&mut a, 15, 0);
        feed(&mut a, 0, 1);
        assert!(close(a.probe().max_p, 0.2 / 3.0));
        feed(&mut a, 10, 2);
        assert!(close(a.probe().prob, 0.2 / 3.0 * 0.5), "{}", a.probe().prob);
    }

    #[test]
    fn feng_factors_must_move_max_p_the_right_way() {
        let params = RedParams::new(5.0, 15.0, 0.1, 10_000_000, 1000);
        let bad = AredVariant::Feng { multiply_above: 0.5, divide_below: 3.0 };
        assert!(AdaptiveRed::new(params.clone(), bad).unwrap_err().message.contains("multiply_above"));
        let bad = RedParams { max_th: 1.0, ..params.clone() };
        assert_eq!(AdaptiveRed::new(bad, AredVariant::feng()).unwrap_err().key, "min_th");
        let bad = AredVariant::FloydGummadiShenker { interval: Dur::ZERO, ns2: None };
        assert_eq!(AdaptiveRed::new(params, bad).unwrap_err(), SettingError::new("interval", "must be positive"));
    }

    #[test]
    fn spec_resolves_the_variant_with_its_defaults() {
        let ctx = QueueContext { link_bps: 1_000_000, limit: crate::queue::Limit::Packets(50), profile: Default::default(), delay: crate::sim::Dur::ZERO };
        let spec = |adapt: Option<&str>, interval: Option<f64>| {
            AredSpec { adapt: adapt.map(String::from), interval: interval.map(Duration), update: None }.resolve(&ctx)
        };
        assert_eq!(spec(None, None).unwrap(), AredVariant::FloydGummadiShenker { interval: Dur::from_millis(500), ns2: None });
        assert_eq!(spec(Some("fgs"), Some(0.25)).unwrap(), AredVariant::FloydGummadiShenker { interval: Dur::from_millis(250), ns2: None });
        assert_eq!(spec(Some("feng"), None).unwrap(), AredVariant::Feng { multiply_above: 2.0, divide_below: 3.0 });
        assert_eq!(spec(Some("feng"), Some(1.0)).unwrap_err(), SettingError::new("interval", "only for adapt = \"fgs\""));
        assert_eq!(spec(Some("aimd"), None).unwrap_err(), SettingError::new("adapt", "unknown adaptation \"aimd\" (expected \"fgs\" or \"feng\")"));
    }
}
