//! RCP's router (Dukkipati and McKeown, "Why Flow-Completion Time is the Right Metric for
//! Congestion Control", CCR 2006, Section 3, equation (1); Dukkipati, Kobayashi, Zhang-Shen
//! and McKeown, "Processor Sharing Flows in the Internet", IWQoS 2005). A FIFO
//! ([`Stamping`]) with one rate `R` offered to every flow through it:
//!
//! 1. **Average RTT**: each arriving RCP data segment with an RTT moves the moving average
//!    `d` by 2 % of the difference (`d = 0.98 d + 0.02 RTT_p`, the gain of Dukkipati and
//!    Zhang's ns-2 router; the first sample sets it).
//! 2. **Rate, once per interval `T`** (equation (1)):
//!    `R(t) = R(t - T) [1 + (T / d) (alpha (C - y) - beta q / d) / C]`, with `C` the link's
//!    rate, `y` the input rate over the interval just ended (every packet's bytes) and `q`
//!    the queue at the update, bytes; `R` stays within [`C / 1000`, `C`]. `T` is the smaller
//!    of `rcp_interval` and `d` ("T <= d"); before any RTT is known, `rcp_interval`.
//! 3. **Stamping**: a departing RCP data segment whose rate `R_p` is larger than `R` leaves
//!    with `R_p = R` (the smallest rate along the path reaches the receiver).
//!
//! `R` starts at `C`: a flow alone on an idle link gets all of it at once, which is the
//! processor-sharing rate RCP emulates. Defaults: `alpha` 0.1 and `beta` 1 (the papers'
//! simulations), `rcp_interval` 10 ms. The update runs lazily ([`Stamp`]).

use super::spec::{boxed, keys_of, read, Registration, SettingError, Table};
use super::stamping::{Stamp, Stamping};
use super::{Discipline, Probe, QueueContext};
use crate::packet::explicit::RcpHeader;
use crate::packet::{Explicit, Kind, Packet};
use crate::settings::units::Duration;
use crate::sim::{Dur, SimTime};
use serde::Deserialize;

/// The gain on spare bandwidth (the papers' simulations).
pub const ALPHA: f64 = 0.1;
/// The gain on the queue (the papers' simulations).
pub const BETA: f64 = 1.0;
/// The longest update interval.
pub const INTERVAL: Dur = Dur::from_millis(10);
/// The moving average's gain on each RTT sample (Dukkipati and Zhang's ns-2 router's
/// `RTT_GAIN`).
pub const RTT_GAIN: f64 = 0.02;
/// The smallest rate, as a share of the link's.
pub const MIN_SHARE: f64 = 1e-3;

/// RCP's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RcpParams {
    pub alpha: f64,
    pub beta: f64,
    pub interval: Dur,
}

impl Default for RcpParams {
    fn default() -> Self {
        RcpParams { alpha: ALPHA, beta: BETA, interval: INTERVAL }
    }
}

/// The router's state. Rates are bytes per second, times seconds.
#[derive(Clone, Debug)]
pub struct RcpRouter {
    p: RcpParams,
    capacity: f64,
    /// `R`, the rate offered.
    rate: f64,
    /// `d`; 0 before the first sample.
    avg_rtt: f64,
    input_bytes: f64,
    /// The current interval's length and end.
    period: f64,
    due: SimTime,
}

/// RCP's discipline: the FIFO and the router.
pub type Rcp = Stamping<RcpRouter>;

impl RcpRouter {
    pub fn new(p: RcpParams, link_bps: u64) -> RcpRouter {
        let capacity = link_bps as f64 / 8.0;
        RcpRouter { p, capacity, rate: capacity, avg_rtt: 0.0, input_bytes: 0.0, period: p.interval.as_secs_f64(), due: SimTime::ZERO + p.interval }
    }

    /// `R`, bytes per second.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Rule 2 for every update due by `now`, `queued` bytes in the buffer.
    fn catch_up(&mut self, queued: u64, now: SimTime) {
        while self.due <= now {
            let t = self.period;
            let y = self.input_bytes / t;
            let d = if self.avg_rtt > 0.0 { self.avg_rtt } else { t };
            let change = (t / d) * (self.p.alpha * (self.capacity - y) - self.p.beta * queued as f64 / d) / self.capacity;
            self.rate = (self.rate * (1.0 + change)).clamp(MIN_SHARE * self.capacity, self.capacity);
            self.input_bytes = 0.0;
            self.period = if self.avg_rtt > 0.0 { self.p.interval.as_secs_f64().min(self.avg_rtt) } else { self.p.interval.as_secs_f64() };
            self.due += Dur::from_secs_f64(self.period);
        }
    }
}

/// The RCP header of a data segment, if it carries one.
fn rcp_data(pkt: &Packet) -> Option<RcpHeader> {
    match pkt.explicit() {
        Some(Explicit::Rcp(h)) if pkt.kind == Kind::TcpData => Some(h),
        _ => None,
    }
}

impl Stamp for RcpRouter {
    /// Rule 1.
    fn on_arrival(&mut self, pkt: &Packet, queued: u64, now: SimTime) {
        self.catch_up(queued, now);
        self.input_bytes += pkt.size as f64;
        if let Some(h) = rcp_data(pkt).filter(|h| h.rtt_us > 0) {
            let rtt = h.rtt_us as f64 * 1e-6;
            self.avg_rtt = if self.avg_rtt > 0.0 { (1.0 - RTT_GAIN) * self.avg_rtt + RTT_GAIN * rtt } else { rtt };
        }
    }

    /// Rule 3.
    fn on_departure(&mut self, pkt: &mut Packet, queued: u64, now: SimTime) {
        self.catch_up(queued, now);
        if let Some(mut h) = rcp_data(pkt) {
            if h.rate as f64 > self.rate {
                h.rate = self.rate as f32;
                pkt.set_explicit(Explicit::Rcp(h));
            }
        }
    }

    /// `avg`: the rate offered, bytes per second; `prob`: the average RTT, seconds.
    fn probe(&self) -> Probe {
        Probe { avg: self.rate, prob: self.avg_rtt, ..Probe::default() }
    }
}

/// RCP's keys.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RcpSpec {
    /// The gain on spare bandwidth; default [`ALPHA`].
    pub rcp_alpha: Option<f64>,
    /// The gain on the queue; default [`BETA`].
    pub rcp_beta: Option<f64>,
    /// The longest update interval; default [`INTERVAL`].
    pub rcp_interval: Option<Duration>,
}

impl RcpSpec {
    pub fn resolve(&self) -> Result<RcpParams, SettingError> {
        let d = RcpParams::default();
        let p = RcpParams {
            alpha: self.rcp_alpha.unwrap_or(d.alpha),
            beta: self.rcp_beta.unwrap_or(d.beta),
            interval: self.rcp_interval.map_or(d.interval, |t| t.dur()),
        };
        for (key, v) in [("rcp_alpha", p.alpha), ("rcp_beta", p.beta)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(SettingError::new(key, format!("must be zero or positive, not {v}")));
            }
        }
        if p.interval == Dur(0) {
            return Err(SettingError::new("rcp_interval", "must be positive"));
        }
        Ok(p)
    }
}

pub const REGISTRATION: Registration = Registration { name: "rcp", aliases: &[], family: None, keys: keys_of::<RcpSpec>, footprint: boxed::<Rcp>, build };

fn build(table: &Table, ctx: &QueueContext) -> Result<Discipline, SettingError> {
    let params = read::<RcpSpec>(table)?.resolve()?;
    Ok(Discipline::Rcp(Box::new(Stamping::new(RcpRouter::new(params, ctx.link_bps)))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Endpoints, Seq};

    const ENDS: Endpoints = Endpoints { flow: 0, sender: 0, receiver: 1, sport: 1, dport: 2 };
    const LINK: u64 = 10_000_000;
    const C: f64 = 1.25e6;

    fn ms(t: u64) -> SimTime {
        SimTime(t * 1_000_000)
    }

    fn seg(rate: f32, rtt_ms: u32) -> Packet {
        let mut p = Packet::tcp_data(&ENDS, Seq(0), 1000, 64, SimTime::ZERO);
        p.set_explicit(Explicit::Rcp(RcpHeader { rate, rtt_us: rtt_ms * 1000 }));
        p
    }

    fn rate_of(p: &Packet) -> f32 {
        match p.explicit() {
            Some(Explicit::Rcp(h)) => h.rate,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_rate_follows_equation_1() {
        let mut r = RcpRouter::new(RcpParams::default(), LINK);
        // First interval (10 ms, no RTT known before it): 6250 bytes in, nothing queued at
        // the update. y = 625 kB/s; d = 10 ms from the segments' RTTs.
        for i in 0..5 {
            r.on_arrival(&seg(1e15, 10), 0, ms(2 * i));
        }
        r.on_arrival(&Packet { size: 6250 - 5 * 1040, ..seg(1e15, 10) }, 0, ms(9));
        let y = 6250.0 / 0.01;
        r.on_arrival(&seg(1e15, 10), 0, ms(10));
        let expect = C * (1.0 + ALPHA * (C - y) / C);
        assert_eq!(r.rate(), expect.min(C), "R stays at most C");
        // A queue of 12.5 kB at the next update (T = min(10 ms, d) = 10 ms): the rate falls.
        r.on_arrival(&seg(1e15, 10), 12_500, ms(20));
        let expect = C * (1.0 + (ALPHA * (C - 1040.0 / 0.01) - BETA * 12_500.0 / 0.01) / C);
        assert!((r.rate() - expect).abs() < 1e-6 * C, "{} vs {expect}", r.rate());
    }

    #[test]
    fn a_segment_leaves_with_the_smaller_of_its_rate_and_the_router_s() {
        let mut r = RcpRouter::new(RcpParams::default(), LINK);
        r.rate = 300_000.0;
        let mut p = seg(1e15, 50);
        r.on_departure(&mut p, 0, ms(1));
        assert_eq!(rate_of(&p), 300_000.0);
        let mut q = seg(100_000.0, 50);
        r.on_departure(&mut q, 0, ms(1));
        assert_eq!(rate_of(&q), 100_000.0, "an upstream router's smaller rate stands");
        let mut ack = Packet::tcp_ack(&ENDS, Seq(0), 65_535, 64, SimTime::ZERO);
        ack.set_explicit(Explicit::Rcp(RcpHeader { rate: 5e6, rtt_us: 0 }));
        r.on_departure(&mut ack, 0, ms(1));
        assert_eq!(rate_of(&ack), 5e6, "an ACK's echo passes untouched");
    }

    #[test]
    fn the_average_rtt_moves_by_two_percent_per_segment_and_sets_the_interval() {
        let mut r = RcpRouter::new(RcpParams::default(), LINK);
        r.on_arrival(&seg(1e15, 100), 0, ms(1));
        r.on_arrival(&seg(1e15, 200), 0, ms(2));
        assert!((r.avg_rtt - (0.98 * 0.1 + 0.02 * 0.2)).abs() < 1e-12);
        r.on_arrival(&seg(1e15, 200), 0, ms(10));
        assert_eq!(r.period, 0.01, "T = min(rcp_interval, d)");
        let t: Table = "rcp_interval = \"0s\"".parse().unwrap();
        assert_eq!(read::<RcpSpec>(&t).unwrap().resolve().unwrap_err().key, "rcp_interval");
    }
}
