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
//!
//! Where `min_rto` applies, [`RtoMinOn`]: to the whole RTO (RFC 6298 (2.4)), or, as Linux
//! (`tcp_rtt_estimator()` and `__tcp_set_rto()` in `net/ipv4/tcp_input.c`), to the variance
//! term, so that the RTO is at least SRTT + `min_rto`. Linux's term, in nanoseconds here:
//!
//! - `mdev` is 4 RTTVAR, updated with RFC 6298's gains, except that a sample below SRTT by
//!   more than `mdev / 4` raises it with an eighth of the gain (1/32); the first sample sets
//!   SRTT to it and `mdev` to twice it (an RTO of three samples).
//! - `mdev_max` is the largest `mdev` of the current round, at least `min_rto`; `rttvar`
//!   rises to it at once and, when a round ends, falls a quarter of the way down to it.
//! - A round ends at the first sample whose ACK covers data sent after the round began
//!   (SND.UNA beyond the SND.NXT it began with); `mdev_max` then starts again from `min_rto`.
//! - RTO = SRTT + `rttvar`.
//!
//! Linux counts in microseconds and rounds the RTO up to jiffies; here nanoseconds, unrounded.

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

/// Where `min_rto` bounds the timeout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RtoMinOn {
    /// RFC 6298 (2.4): RTO = max(SRTT + max(G, 4 RTTVAR), `min_rto`).
    #[default]
    Rto,
    /// Linux: RTO = SRTT + max(its variance term, `min_rto`), so at least SRTT + `min_rto`.
    Variance,
}

/// Linux's estimator state (`RtoMinOn::Variance`), in nanoseconds: `srtt8` is 8 SRTT,
/// `mdev` 4 RTTVAR; `rtt_seq` is SND.NXT when the current round began.
#[derive(Clone, Copy, Debug, Default)]
struct LinuxVar {
    srtt8: i64,
    mdev: i64,
    mdev_max: i64,
    rttvar: i64,
    rtt_seq: u64,
}

impl LinuxVar {
    /// One sample `m` (ns) from an ACK up to `una`, SND.NXT being `nxt`.
    fn sample(&mut self, m: i64, una: u64, nxt: u64, min: i64) {
        let m = m.max(1);
        if self.srtt8 == 0 {
            self.srtt8 = m << 3;
            self.mdev = m << 1;
            self.rttvar = self.mdev.max(min);
            self.mdev_max = self.rttvar;
            self.rtt_seq = nxt;
            return;
        }
        let err = m - (self.srtt8 >> 3);
        self.srtt8 = (self.srtt8 + err).max(1);
        let mut dev = err.abs() - (self.mdev >> 2);
        if err < 0 && dev > 0 {
            dev >>= 3; // a falling RTT raises the deviation slowly
        }
        self.mdev += dev;
        if self.mdev > self.mdev_max {
            self.mdev_max = self.mdev;
            self.rttvar = self.rttvar.max(self.mdev_max);
        }
        if una > self.rtt_seq {
            if self.mdev_max < self.rttvar {
                self.rttvar -= (self.rttvar - self.mdev_max) >> 2;
            }
            self.rtt_seq = nxt;
            self.mdev_max = min;
        }
    }
}

/// The state beyond SRTT and RTTVAR that an arithmetic keeps: none for RFC 6298's.
#[derive(Clone, Copy, Debug)]
enum Arith {
    Rfc6298,
    Ticks(Ticks),
    Linux(LinuxVar),
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
    /// The arithmetic's own state.
    arith: Arith,
    /// Number of doublings applied since the last valid sample.
    backoffs: u32,
}

impl RtoEstimator {
    pub fn new(min_rto: Dur, max_rto: Dur, initial_rto: Dur, granularity: Dur) -> RtoEstimator {
        RtoEstimator { srtt_ns: None, rttvar_ns: 0.0, min_rto, max_rto, initial_rto, granularity, arith: Arith::Rfc6298, backoffs: 0 }
    }

    /// The estimator with `arithmetic` (RFC 6298 is [`new`](Self::new)'s).
    pub fn with_arithmetic(min_rto: Dur, max_rto: Dur, initial_rto: Dur, granularity: Dur, arithmetic: RttArithmetic) -> RtoEstimator {
        let mut e = RtoEstimator::new(min_rto, max_rto, initial_rto, granularity);
        if let RttArithmetic::Ns2Ticks { phase } = arithmetic {
            let tick = granularity.as_nanos().max(1);
            e.arith = Arith::Ticks(Ticks { tick, phase: phase.as_nanos() % tick, srtt8: 0, rttvar4: 0, rto_ticks: None });
        }
        e
    }

    /// Where `min_rto` applies. Linux's rule (`Variance`) is for RFC 6298's arithmetic; the
    /// caller refuses it with ns-2's.
    pub fn with_min_on(mut self, on: RtoMinOn) -> RtoEstimator {
        if on == RtoMinOn::Variance && matches!(self.arith, Arith::Rfc6298) {
            self.arith = Arith::Linux(LinuxVar::default());
        }
        self
    }

    /// RFC 6298 (2.2) and (2.3) for a segment sent at `sent` and acknowledged at `now` by an
    /// ACK up to `una` (SND.NXT being `nxt`: Linux's rounds); a valid sample also ends any
    /// backoff.
    pub fn sample_between(&mut self, sent: SimTime, now: SimTime, una: u64, nxt: u64) {
        match &mut self.arith {
            Arith::Linux(l) => {
                l.sample((now - sent).as_nanos() as i64, una, nxt, self.min_rto.as_nanos() as i64);
                self.srtt_ns = Some((l.srtt8 >> 3) as f64);
                self.backoffs = 0;
            }
            Arith::Ticks(t) => {
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
            Arith::Rfc6298 => self.sample(now - sent),
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
        if let Arith::Ticks(t) = &mut self.arith {
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
        if let Arith::Ticks(t) = &self.arith {
            let base = t.rto_ticks.map_or(self.initial_rto, |n| Dur(n * t.tick)).max(self.min_rto);
            let rto = Dur(base.as_nanos().saturating_mul(1u64 << self.backoffs)).min(self.max_rto);
            return rto.max(Dur(2 * t.tick));
        }
        let base = match (self.srtt_ns, &self.arith) {
            (None, _) => self.initial_rto,
            (Some(_), Arith::Linux(l)) => Dur(((l.srtt8 >> 3) + l.rttvar) as u64),
            (Some(srtt), _) => {
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

    /// A Linux-rule estimator and the samples (ms, ACK up to `una`, SND.NXT `nxt`) it takes.
    fn linux(samples: &[(u64, u64, u64)]) -> RtoEstimator {
        let mut e = est().with_min_on(RtoMinOn::Variance);
        for &(ms, una, nxt) in samples {
            let now = SimTime(10_000_000_000);
            e.sample_between(SimTime(now.0 - ms * 1_000_000), now, una, nxt);
        }
        e
    }

    fn ms(d: Dur) -> f64 {
        d.as_nanos() as f64 / 1e6
    }

    #[test]
    fn steady_rtt_keeps_the_rto_min_rto_above_srtt_under_variance() {
        // 100 ms with a millisecond of jitter, one sample per segment, ten a round.
        let samples: Vec<(u64, u64, u64)> = (0..200).map(|i| (99 + i % 3, i, i + 10)).collect();
        let e = linux(&samples);
        assert!(ms(e.rto()) >= 299.0 && ms(e.rto()) <= 301.0, "SRTT + min_rto: {}", ms(e.rto()));
        let mut r = est();
        for &(m, _, _) in &samples {
            r.sample(Dur::from_millis(m));
        }
        assert_eq!(r.rto(), Dur::from_millis(200), "RFC 6298: min_rto bounds the whole RTO");
    }

    #[test]
    fn first_sample_gives_three_times_it_or_srtt_plus_min_rto() {
        assert_eq!(linux(&[(300, 1, 10)]).rto(), Dur::from_millis(900));
        assert_eq!(linux(&[(50, 1, 10)]).rto(), Dur::from_millis(250));
        assert_eq!(linux(&[(1, 1, 10)]).rto(), Dur::from_millis(201));
    }

    #[test]
    fn variance_rises_at_once_and_falls_a_quarter_a_round() {
        // SRTT 100, mdev 200, rttvar 200; the round ends once SND.UNA passes 10.
        let mut s = vec![(100, 1, 10), (500, 5, 10)];
        // 500 ms: SRTT 150, mdev 200 + 400 - 50 = 550, rttvar up to it within the round.
        assert!((ms(linux(&s).rto()) - 700.0).abs() < 1e-3);
        // 150 ms ends the round: mdev 412.5, below the round's max (550): rttvar stays.
        s.push((150, 11, 20));
        assert!((ms(linux(&s).rto()) - 700.0).abs() < 1e-3);
        // The next round's max is 309.375 (mdev), and rttvar falls a quarter of the way to it.
        s.push((150, 21, 30));
        let want = 150.0 + 550.0 - (550.0 - 309.375) / 4.0;
        assert!((ms(linux(&s).rto()) - want).abs() < 1e-3, "{} vs {want}", ms(linux(&s).rto()));
        // A sample within the round (SND.UNA not past 30) changes no rttvar.
        s.push((150, 25, 40));
        assert!((ms(linux(&s).rto()) - want).abs() < 1e-3);
    }

    #[test]
    fn a_falling_rtt_raises_the_deviation_with_an_eighth_of_the_gain() {
        // SRTT 400 ms, mdev 800; a 100 ms sample: |err| 300 - 800/4 = 100, an eighth of it.
        let mut e = linux(&[(400, 1, 10), (100, 2, 10)]);
        let Arith::Linux(l) = e.arith else { panic!("Linux's estimator") };
        assert_eq!(l.mdev, 800_000_000 + 12_500_000);
        assert_eq!(l.srtt8 >> 3, 362_500_000);
        e.back_off();
        assert_eq!(e.rto(), Dur((362_500_000 + 812_500_000) * 2), "backoff doubles it");
    }

    #[test]
    fn min_rto_applies() {
        let mut e = est();
        e.sample(Dur::from_millis(1));
        assert_eq!(e.rto(), Dur::from_millis(200));
    }
}
