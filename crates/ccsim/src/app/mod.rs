//! Traffic sources. TCP applications (bulk, finite transfer) are a property of the sender
//! (`SenderConfig::data_bytes`); this module holds the UDP sources: constant rate, on/off
//! (constant or exponential periods) and Poisson.
//!
//! Every gap between two datagrams and every on or off period lasts at least
//! [`Dur::TICK`] (1 ns), whatever the rate and whatever the draw: a source cannot send two
//! datagrams, or start two periods, at one instant, so simulated time always advances.

use crate::packet::Endpoints;
use crate::packet::{Packet, UDP_IP_HEADER};
use crate::sim::{Dur, Rng, SimTime};
use crate::stats::counters;

/// The length of an on or off period.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Period {
    Constant(Dur),
    Exponential { mean: Dur },
}

impl Period {
    fn draw(&self, rng: &mut Rng) -> Dur {
        let d = match *self {
            Period::Constant(d) => d,
            Period::Exponential { mean } => Dur::from_secs_f64(rng.exponential(mean.as_secs_f64())),
        };
        d.max(Dur::TICK)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UdpPattern {
    /// Constant bit rate, always on.
    Constant,
    /// Constant rate while on; silent while off. Starts with an on period.
    OnOff { on: Period, off: Period },
    /// Exponential gaps between packets, with the configured mean rate.
    Poisson,
}

counters! {
    /// Payload bytes, like TCP's counters (headers are not counted).
    pub struct UdpStats {
        pub packets_sent: u64,
        pub bytes_sent: u64,
        pub packets_received: u64,
        pub bytes_received: u64,
    }
}

#[derive(Clone, Debug)]
pub struct UdpSource {
    pub ends: Endpoints,
    /// Payload bytes per datagram.
    pub payload: u32,
    pub rate_bps: u64,
    pub pattern: UdpPattern,
    pub ttl: u8,
    rng: Rng,
    on_until: SimTime,
    pub stats: UdpStats,
}

impl UdpSource {
    pub fn new(ends: Endpoints, payload: u32, rate_bps: u64, pattern: UdpPattern, ttl: u8, rng: Rng) -> UdpSource {
        UdpSource { ends, payload, rate_bps, pattern, ttl, rng, on_until: SimTime::MAX, stats: UdpStats::default() }
    }

    /// The time between datagrams at the source's rate (at least a tick).
    fn gap(&self) -> Dur {
        let ns = (self.payload + UDP_IP_HEADER) as u128 * 8 * 1_000_000_000 / self.rate_bps.max(1) as u128;
        Dur(u64::try_from(ns).unwrap_or(u64::MAX)).max(Dur::TICK)
    }

    /// The source starts at `now`; returns when it sends its first packet.
    pub fn start(&mut self, now: SimTime) -> SimTime {
        if let UdpPattern::OnOff { on, .. } = self.pattern {
            self.on_until = now + on.draw(&mut self.rng);
        }
        now
    }

    /// Sends one datagram at `now` and returns when the next one is due.
    pub fn send(&mut self, now: SimTime, out: &mut Vec<Packet>) -> SimTime {
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += self.payload as u64;
        out.push(Packet::udp(&self.ends, self.payload, self.ttl, now));
        match self.pattern {
            UdpPattern::Constant => now + self.gap(),
            UdpPattern::Poisson => now + Dur::from_secs_f64(self.rng.exponential(self.gap().as_secs_f64())).max(Dur::TICK),
            UdpPattern::OnOff { on, off } => {
                let next = now + self.gap();
                if next < self.on_until {
                    return next;
                }
                // Skip the off period, then start the next on period.
                let start = self.on_until + off.draw(&mut self.rng);
                self.on_until = start + on.draw(&mut self.rng);
                start
            }
        }
    }

    pub fn receive(&mut self, pkt: &Packet) {
        self.stats.packets_received += 1;
        self.stats.bytes_received += pkt.payload as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ends() -> Endpoints {
        Endpoints { flow: 0, sender: 0, receiver: 1, sport: 1, dport: 2 }
    }

    #[test]
    fn constant_rate_spacing() {
        let mut s = UdpSource::new(ends(), 972, 1_000_000, UdpPattern::Constant, 64, Rng::from_seed(1));
        let mut out = Vec::new();
        let t0 = s.start(SimTime::ZERO);
        // 1000 bytes on the wire at 1 Mb/s: 8 ms.
        assert_eq!(s.send(t0, &mut out), SimTime(8_000_000));
    }

    #[test]
    fn on_off_long_run_rate_is_half_with_equal_means() {
        let mean = Period::Exponential { mean: Dur::from_millis(500) };
        let pattern = UdpPattern::OnOff { on: mean, off: mean };
        let mut s = UdpSource::new(ends(), 972, 1_000_000, pattern, 64, Rng::from_seed(3));
        let mut out = Vec::new();
        let mut t = s.start(SimTime::ZERO);
        let end = SimTime(2_000_000_000_000); // 2000 s
        while t < end {
            t = s.send(t, &mut out);
            out.clear();
        }
        let rate = s.stats.packets_sent as f64 * 1000.0 * 8.0 / 2000.0;
        assert!((rate / 500_000.0 - 1.0).abs() < 0.05, "{rate}");
    }

    #[test]
    fn time_advances_with_every_datagram_and_period() {
        let tick = Period::Exponential { mean: Dur(1) };
        for pattern in [UdpPattern::Constant, UdpPattern::Poisson, UdpPattern::OnOff { on: tick, off: tick }] {
            let mut s = UdpSource::new(ends(), 1, 1_000_000_000_000, pattern, 64, Rng::from_seed(5));
            let mut out = Vec::new();
            let mut t = s.start(SimTime::ZERO);
            for _ in 0..10_000 {
                let next = s.send(t, &mut out);
                assert!(next > t, "{pattern:?}: {next:?} after {t:?}");
                t = next;
            }
        }
    }

    #[test]
    fn poisson_mean_rate() {
        let mut s = UdpSource::new(ends(), 972, 1_000_000, UdpPattern::Poisson, 64, Rng::from_seed(4));
        let mut out = Vec::new();
        let mut t = s.start(SimTime::ZERO);
        while t < SimTime(1_000_000_000_000) {
            t = s.send(t, &mut out);
            out.clear();
        }
        let rate = s.stats.packets_sent as f64 * 1000.0 * 8.0 / 1000.0;
        assert!((rate / 1_000_000.0 - 1.0).abs() < 0.02, "{rate}");
    }
}
