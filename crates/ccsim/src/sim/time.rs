//! Simulated time: integer nanoseconds, never floating point, so that a run is exact and
//! reproducible on any machine.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in simulated time, in nanoseconds since the start of the run.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SimTime(pub u64);

/// A span of simulated time, in nanoseconds.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Dur(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub fn from_secs_f64(s: f64) -> SimTime {
        SimTime(Dur::from_secs_f64(s).0)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    pub fn as_nanos(self) -> u64 {
        self.0
    }
    /// Time elapsed since `earlier` (zero if `earlier` is later).
    pub fn since(self, earlier: SimTime) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

impl Dur {
    pub const ZERO: Dur = Dur(0);
    /// The clock's resolution, 1 ns: the least time anything that must take time takes.
    pub const TICK: Dur = Dur(1);

    pub const fn from_nanos(n: u64) -> Dur {
        Dur(n)
    }
    pub const fn from_micros(us: u64) -> Dur {
        Dur(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Dur {
        Dur(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Dur {
        Dur(s * 1_000_000_000)
    }
    /// Rounds to the nearest nanosecond; negative and NaN inputs give zero.
    pub fn from_secs_f64(s: f64) -> Dur {
        if s.is_nan() || s <= 0.0 {
            Dur(0)
        } else {
            Dur((s * 1e9).round() as u64)
        }
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    pub fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn saturating_mul(self, k: u64) -> Dur {
        Dur(self.0.saturating_mul(k))
    }
}

impl Add<Dur> for SimTime {
    type Output = SimTime;
    fn add(self, d: Dur) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for SimTime {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<SimTime> for SimTime {
    type Output = Dur;
    fn sub(self, o: SimTime) -> Dur {
        self.since(o)
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, o: Dur) -> Dur {
        Dur(self.0.saturating_add(o.0))
    }
}

impl fmt::Debug for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}
impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{:.6}s", self.as_secs_f64())
    }
}
impl fmt::Debug for Dur {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}

/// Serialization time of `bits` on a link of `rate_bps`, carrying the sub-nanosecond
/// remainder from one packet to the next so that back-to-back packets never drift from the
/// exact line rate however long the run.
///
/// A transmission takes at least [`Dur::TICK`] (1 ns): time advances with every packet a
/// link sends, whatever its rate, so that no exchange of packets can loop at one instant.
/// Below 1 ns per packet (a 40-byte ACK above 320 Gbit/s) the link is slower than its rate.
/// A rate of zero is treated as 1 bit/s (the scenario builder accepts nothing below it).
#[derive(Clone, Copy, Debug, Default)]
pub struct Serializer {
    remainder: u64,
}

impl Serializer {
    pub fn tx_time(&mut self, bits: u64, rate_bps: u64) -> Dur {
        let rate_bps = rate_bps.max(1);
        let exact = self.exact_tx_time(bits, rate_bps);
        exact.max(Dur::TICK)
    }

    fn exact_tx_time(&mut self, bits: u64, rate_bps: u64) -> Dur {
        // 64-bit division whenever the numerator fits (any packet size in practice): the
        // 128-bit one is a library call several times slower.
        if let Some(numerator) = bits.checked_mul(1_000_000_000).and_then(|x| x.checked_add(self.remainder)) {
            self.remainder = numerator % rate_bps;
            return Dur(numerator / rate_bps);
        }
        let numerator = bits as u128 * 1_000_000_000u128 + self.remainder as u128;
        let rate = rate_bps as u128;
        self.remainder = (numerator % rate) as u64;
        Dur((numerator / rate) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_has_no_drift() {
        // 592-byte packets at 0.7 Mb/s take 6_765_714.2857 ns each.
        let mut s = Serializer::default();
        let total: u64 = (0..7_000).map(|_| s.tx_time(592 * 8, 700_000).0).sum();
        let exact = 7_000u128 * 592 * 8 * 1_000_000_000 / 700_000;
        assert_eq!(total as u128, exact);
    }

    #[test]
    fn every_transmission_takes_at_least_a_tick() {
        assert_eq!(Serializer::default().tx_time(320, 1_000_000_000_000), Dur(1), "a 40-byte ACK at 1 Tbit/s");
        assert_eq!(Serializer::default().tx_time(0, 10), Dur(1));
        assert_eq!(Serializer::default().tx_time(8, 0), Dur(8_000_000_000), "rate 0 is 1 bit/s, no division by zero");
    }

    #[test]
    fn conversions_round_trip() {
        assert_eq!(Dur::from_secs_f64(0.0015), Dur::from_micros(1500));
        assert_eq!(SimTime::from_secs_f64(2.0).as_nanos(), 2_000_000_000);
        assert_eq!(SimTime(5) - SimTime(9), Dur::ZERO);
    }
}
