//! Retransmission timeout estimation (RFC 6298), with Karn's rule applied by the caller
//! (samples are only taken for segments never retransmitted) and exponential backoff that
//! persists until the next valid sample.
//!
//! Two arithmetics, [`RttArithmetic`]: RFC 6298's, in nanoseconds with the clock
//! granularity G only as the floor of the variance term; or ns-2.35's (`tcp.cc`,
//! `rtt_update()`, `rtt_timeout()`, `rtt_backoff()`), on a clock that ticks every `tcpTick_`:
//!
//! - A sample is the number of tick boundaries between the segment's send time and its
//!   ACK on a clock whose phase is random per connection (ns-2's `boot_time_`), at least
//!   one tick.
//! - SRTT and RTTVAR are integers in ticks with 3 and 2 fractional bits, updated with RFC
//!   6298's gains by shifts, truncating (`delta = rtt - (srtt8 >> 3); srtt8 += delta;
//!   rttvar4 += |delta| - (rttvar4 >> 2)`, each at least 1); the first sample sets SRTT to
//!   it and RTTVAR to half of it.
//! - RTO = `(srtt8 + 8 rttvar4) >> 3` whole ticks (SRTT + 4 RTTVAR, rounded down), before the
//!   first sample the initial RTO; `min_rto` applies before the backoff, `max_rto` after it,
//!   and the timeout is at least two ticks.
//! - A backoff past 8 times clears SRTT into RTTVAR (`rttvar4 += srtt8 >> 3; srtt8 = 0`), so
//!   that the next sample starts the estimate afresh.

use crate::sim::{Dur, SimTime};

/// How samples become SRTT, RTTVAR and the RTO.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RttArithmetic {
    /// RFC 6298 in nanoseconds; G (the clock granularity) floors the variance term.
    Rfc6298,
    /// ns-2.35's integer arithmetic on a clock of `tick`s (the clock granularity) whose
    /// boundaries fall at `phase + k * tick`.
    Ns2Ticks { phase: Dur },
}

/// ns-2's estimator state, in ticks: `srtt8` is 8 SRTT, `rttvar4` is 4 RTTVAR.
#[derive(Clone, Copy, Debug)]
struct Ticks {
    tick: u64,
    phase: u64,
    srtt8: i64,
    rttvar4: i64,
    /// SRTT + 4 RTTVAR in whole ticks, once there is a sample.
    rto_ticks: Option<u64>,
}

#[derive(Clone, Debug)]
pub struct RtoEstimator {
    srtt_ns: Option<f64>,
    rttvar_ns: f64,
    min_rto: Dur,
    max_rto: Dur,
    initial_rto: Dur,
    granularity: Dur,
    ticks: Option<Ticks>,
    /// Number of doublings applied since the last valid sample.
    backoffs: u32,
}

impl RtoEstimator {
    pub fn new(min_rto: Dur, max_rto: Dur, initial_rto: Dur, granularity: Dur) -> RtoEstimator {
        RtoEstimator { srtt_ns: None, rttvar_ns: 0.0, min_rto, max_rto, initial_rto, granularity, ticks: None, backoffs: 0 }
    }

    /// The estimator with `arithmetic` (RFC 6298 is [`new`](Self::new)'s).
    pub fn with_arithmetic(min_rto: Dur, max_rto: Dur, initial_rto: Dur, granularity: Dur, arithmetic: RttArithmetic) -> RtoEstimator {
        let mut e = RtoEstimator::new(min_rto, max_rto, initial_rto, granularity);
        if let RttArithmetic::Ns2Ticks { phase } = arithmetic {
            let tick = granularity.as_nanos().max(1);
            e.ticks = Some(Ticks { tick, phase: phase.as_nanos() % tick, srtt8: 0, rttvar4: 0, rto_ticks: None });
        }
        e
    }

    /// RFC 6298 (2.2) and (2.3) for a segment sent at `sent` and acknowledged at `now`; a
    /// valid sample also ends any backoff.
    pub fn sample_between(&mut self, sent: SimTime, now: SimTime) {
        match &mut self.ticks {
            None => self.sample(now - sent),
            Some(t) => {
                let k = |at: SimTime| (at.as_nanos() + t.phase) / t.tick;
                let rtt = ((k(now) - k(sent)) as i64).max(1);
                if t.srtt8 != 0 {
                    let mut delta = rtt - (t.srtt8 >> 3);
                    t.srtt8 = (t.srtt8 + delta).max(1);
                    delta = delta.abs() - (t.rttvar4 >> 2);
                    t.rttvar4 = (t.rttvar4 + delta).max(1);
                } else {
                    t.srtt8 = rtt << 3;
                    t.rttvar4 = rtt << 1;
                }
                t.rto_ticks = Some((((t.rttvar4 << 3) + t.srtt8) >> 3) as u64);
                self.srtt_ns = Some(((t.srtt8 as u64 * t.tick) >> 3) as f64);
                self.backoffs = 0;
            }
        }
    }

    /// RFC 6298 (2.2) and (2.3); a valid sample also ends any backoff.
    pub fn sample(&mut self, rtt: Dur) {
        let r = rtt.as_nanos() as f64;
        match self.srtt_ns {
            None => {
                self.srtt_ns = Some(r);
                self.rttvar_ns = r / 2.0;
            }
            Some(srtt) => {
                self.rttvar_ns = 0.75 * self.rttvar_ns + 0.25 * (srtt - r).abs();
                self.srtt_ns = Some(0.875 * srtt + 0.125 * r);
            }
        }
        self.backoffs = 0;
    }

    /// RFC 6298 (5.5): double the timeout.
    pub fn back_off(&mut self) {
        self.backoffs = (self.backoffs + 1).min(30);
        if let Some(t) = &mut self.ticks {
            if self.backoffs > 3 {
                t.rttvar4 += t.srtt8 >> 3;
                t.srtt8 = 0;
            }
        }
    }

    pub fn backoffs(&self) -> u32 {
        self.backoffs
    }

    pub fn srtt(&self) -> Option<Dur> {
        self.srtt_ns.map(|s| Dur(s as u64))
    }

    /// The current timeout, backoff included, clamped to [min_rto, max_rto].
    pub fn rto(&self) -> Dur {
        if let Some(t) = &self.ticks {
            let base = t.rto_ticks.map_or(self.initial_rto, |n| Dur(n * t.tick)).max(self.min_rto);
            let rto = Dur(base.as_nanos().saturating_mul(1u64 << self.backoffs)).min(self.max_rto);
            return rto.max(Dur(2 * t.tick));
        }
        let base = match self.srtt_ns {
            None => self.initial_rto,
            Some(srtt) => {
                let var = (4.0 * self.rttvar_ns).max(self.granularity.as_nanos() as f64);
                Dur((srtt + var) as u64)
            }
        };
        let base = base.max(self.min_rto);
        Dur(base.as_nanos().saturating_mul(1u64 << self.backoffs)).min(self.max_rto)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RtoEstimator {
        RtoEstimator::new(Dur::from_millis(200), Dur::from_secs(60), Dur::from_secs(1), Dur::from_millis(1))
    }

    #[test]
    fn first_and_later_samples_follow_rfc6298() {
        let mut e = est();
        assert_eq!(e.rto(), Dur::from_secs(1));
        e.sample(Dur::from_millis(100));
        // SRTT = 100, RTTVAR = 50, RTO = 100 + 4*50 = 300 ms.
        assert_eq!(e.rto(), Dur::from_millis(300));
        e.sample(Dur::from_millis(100));
        // RTTVAR = 0.75*50 + 0 = 37.5, SRTT = 100: RTO = 250 ms.
        assert_eq!(e.rto(), Dur::from_micros(250_000));
    }

    #[test]
    fn backoff_doubles_until_a_new_sample_and_is_capped() {
        let mut e = est();
        e.sample(Dur::from_millis(100));
        let base = e.rto();
        e.back_off();
        assert_eq!(e.rto(), base.saturating_mul(2));
        e.back_off();
        assert_eq!(e.rto(), base.saturating_mul(4));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), Dur::from_secs(60));
        e.sample(Dur::from_millis(100));
        assert!(e.rto() < Dur::from_millis(300));
    }

    #[test]
    fn min_rto_applies() {
        let mut e = est();
        e.sample(Dur::from_millis(1));
        assert_eq!(e.rto(), Dur::from_millis(200));
    }
}
