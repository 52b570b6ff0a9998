//! PIE, Proportional Integral controller Enhanced (RFC 8033): a random early signal at
//! enqueue whose probability a PI controller steers so that the queueing delay settles at a
//! target.
//!
//! The rules, by RFC 8033's sections, with its variable names:
//!
//! 1. **Random dropping** (Section 4.1). An arriving packet is signalled with probability
//!    `drop_prob`, except (the safeguards that keep PIE work-conserving) when `qdelay_old <
//!    QDELAY_REF / 2` and `drop_prob < 0.2`, or when the queue holds at most two packets'
//!    worth of bytes (`2 * MEAN_PKTSIZE`; two MTUs, 3000 bytes, here as in Linux, so that two
//!    full-size packets never trigger a signal).
//! 2. **Drop probability** (Section 4.2), every `T_UPDATE`: `p = alpha (current_qdelay -
//!    QDELAY_REF) + beta (current_qdelay - qdelay_old)`, scaled down while `drop_prob` is
//!    small (the auto-tuning: `p / 2048` below 10^-6, `/ 512` below 10^-5, `/ 128` below
//!    10^-4, `/ 32` below 10^-3, `/ 8` below 10^-2, `/ 2` below 10^-1, else `p`), then
//!    `drop_prob += p`; when `current_qdelay` and `qdelay_old` are both 0, `drop_prob *=
//!    0.98` (exponential decay); `drop_prob` is bounded to [0, 1]; `qdelay_old =
//!    current_qdelay`.
//! 3. **Cap drop adjustment** (Section 5.5): when `drop_prob >= 0.1` an update raises it by
//!    at most 0.02.
//! 4. **Latency** (Section 4.3) from the **departure rate** (Section 5.2, Little's law):
//!    `current_qdelay = queue bytes x avg_dq_time / DQ_THRESHOLD`. A measurement cycle starts
//!    at a departure that leaves at least `DQ_THRESHOLD` (16 KB) queued, counts the bytes
//!    that depart after it, and ends once they reach `DQ_THRESHOLD`; the cycle's time
//!    updates `avg_dq_time` as an EWMA with weight `DQ_THRESHOLD / 2^16` (1/4), or sets it
//!    outright the first time. Here the cycle's time is scaled to exactly `DQ_THRESHOLD`
//!    bytes (the last packet overshoots by up to an MTU, about 6 %), as ns-3 does. Until a
//!    cycle has completed the delay is taken as 0. A new cycle starts after a departure
//!    that leaves at least `DQ_THRESHOLD` queued.
//!    With `delay = "timestamp"` (RFC 8033's alternative, a timestamp on every packet;
//!    Linux's default and ns-3.37's, `UseDequeueRateEstimator false`), `current_qdelay` is
//!    instead the time the last departed packet spent queued, or 0 if it left the queue
//!    empty, as ns-3's `DoDequeue()` takes it; each update reads the latest.
//! 5. **Burst tolerance** (Section 4.4): no random signal while `burst_allowance > 0`; it
//!    starts at `MAX_BURST`, each update takes `T_UPDATE` off it, and an arrival resets it to
//!    `MAX_BURST` when `drop_prob == 0` and both `current_qdelay` and `qdelay_old` are below
//!    `QDELAY_REF / 2`.
//!
//! Defaults (Section 4): `QDELAY_REF` 15 ms, `T_UPDATE` 15 ms, `alpha` 0.125 /s, `beta` 1.25
//! /s, `MAX_BURST` 150 ms, `DQ_THRESHOLD` 16 KB (2^14 bytes).
//!
//! Not modelled: de-randomization (Section 5.4, optional) and PIE switching itself off when
//! idle (Section 5.3). ECN (Section 5.1): the verdict is an `Early` signal and the queue's
//! signal policy marks ECN-capable packets whatever `drop_prob` is; the RFC's advice to drop
//! rather than mark above a 10 % `drop_prob` is not applied.
//!
//! The updates every `T_UPDATE` need no timer: they run lazily, on the next arrival or
//! departure at or after each due time (the first at `T_UPDATE`), with the queue as it was
//! since the previous one. Nothing else changes the queue, so the result is as if they ran
//! on time; only a sampled series of `drop_prob` may lag until the next packet. They are
//! still work, one update each: the scenario's event estimate counts `duration / tupdate`
//! of them per PIE queue, and the catch-up looks for a request to stop the run.
//!
//! Where ns-3's `PieQueueDisc` (3.37) differs: by default it takes the latency from packet
//! timestamps (`UseDequeueRateEstimator` false); its rate EWMA weighs the new sample 1/2;
//! its burst-allowance reset follows ns-2's burst states; and its two-packet safeguard
//! counts packets in packet mode. Its `MaxBurstAllowance` is 150 ms, the RFC's, as here
//! (ns-3.36 raised it from 15 ms, "Fix value of MaxBurstAllowance in PIE"; the installed
//! 3.37 library reports 150 ms). The ns-3 comparison (`benchmarks/ns3/aqm.cc`) sets the
//! rate estimator and states the 150 ms burst allowance.

use super::spec::{boxed, keys_of, read, Registration, SettingError, Table};
use super::{Aqm, Discipline, Occupancy, Probe, QueueContext, Verdict};
use crate::packet::Packet;
use crate::settings::units::Duration;
use crate::sim::{stop, Dur, Rng, SimTime};
use serde::Deserialize;

/// RFC 8033 Section 4: the target queueing delay, 15 ms.
pub const QDELAY_REF: Dur = Dur::from_millis(15);
/// RFC 8033 Section 4: the period of the drop-probability update, 15 ms.
pub const T_UPDATE: Dur = Dur::from_millis(15);
/// RFC 8033 Section 4: the proportional gain, 0.125 per second.
pub const ALPHA: f64 = 0.125;
/// RFC 8033 Section 4: the derivative gain, 1.25 per second.
pub const BETA: f64 = 1.25;
/// RFC 8033 Section 4: the burst allowance, 150 ms.
pub const MAX_BURST: Dur = Dur::from_millis(150);
/// RFC 8033 Section 5.2: bytes departed per rate measurement, 2^14.
pub const DQ_THRESHOLD: u64 = 1 << 14;
/// The queue (bytes) at or below which PIE never signals: two MTU-sized packets.
pub const SMALL_QUEUE: u64 = 2 * 1500;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieParams {
    pub qdelay_ref: Dur,
    pub t_update: Dur,
    pub alpha: f64,
    pub beta: f64,
    pub max_burst: Dur,
    pub dq_threshold: u64,
    /// The delay from the last departed packet's timestamp, not from the departure rate.
    pub timestamps: bool,
}

impl Default for PieParams {
    fn default() -> Self {
        PieParams { qdelay_ref: QDELAY_REF, t_update: T_UPDATE, alpha: ALPHA, beta: BETA, max_burst: MAX_BURST, dq_threshold: DQ_THRESHOLD, timestamps: false }
    }
}

impl PieParams {
    pub fn validate(&self) -> Result<(), SettingError> {
        if self.qdelay_ref == Dur::ZERO {
            return Err(SettingError::new("target", "must be positive"));
        }
        if self.t_update == Dur::ZERO {
            return Err(SettingError::new("tupdate", "must be positive"));
        }
        Ok(())
    }
}

/// PIE's variables (the RFC's names).
#[derive(Clone, Debug, Default)]
pub struct PieState {
    pub drop_prob: f64,
    /// Seconds.
    pub current_qdelay: f64,
    /// Seconds.
    pub qdelay_old: f64,
    pub burst_allowance: Dur,
    /// Seconds to send `DQ_THRESHOLD` bytes; 0 until measured.
    pub avg_dq_time: f64,
    /// The departure-rate measurement in progress: its start and the bytes departed since.
    pub measurement: Option<(SimTime, u64)>,
    /// When the next drop-probability update is due.
    pub next_update: SimTime,
    /// Seconds the last departed packet spent queued (0 if it left the queue empty), for
    /// the timestamp estimator.
    pub last_sojourn: f64,
}

#[derive(Clone, Debug)]
pub struct Pie {
    params: PieParams,
    state: PieState,
}

impl Pie {
    pub fn new(params: PieParams) -> Result<Pie, SettingError> {
        params.validate()?;
        let state = PieState { burst_allowance: params.max_burst, next_update: SimTime::ZERO + params.t_update, ..PieState::default() };
        Ok(Pie { params, state })
    }
    pub fn params(&self) -> &PieParams {
        &self.params
    }
    pub fn state(&self) -> &PieState {
        &self.state
    }

    /// Runs the updates due by `now`, the queue having held `bytes` since the last event.
    /// They are many after a long idle spell with a short `tupdate` (the event estimate
    /// counts them): a request to stop the run ([`stop`](crate::sim::stop)) leaves the rest
    /// undone.
    fn catch_up(&mut self, bytes: u64, now: SimTime) {
        let mut steps = 0u64;
        while self.state.next_update <= now {
            self.update(bytes);
            self.state.next_update += self.params.t_update;
            steps += 1;
            if steps.is_multiple_of(stop::CHECK_STEPS) && stop::requested() {
                stop::cut();
                return;
            }
        }
    }

    /// Rules 2 to 5: one drop-probability update with `bytes` queued.
    fn update(&mut self, bytes: u64) {
        let p = &self.params;
        let s = &mut self.state;
        s.current_qdelay = if p.timestamps { s.last_sojourn } else { bytes as f64 * s.avg_dq_time / p.dq_threshold as f64 };
        let target = p.qdelay_ref.as_secs_f64();
        let mut delta = p.alpha * (s.current_qdelay - target) + p.beta * (s.current_qdelay - s.qdelay_old);
        delta /= match s.drop_prob {
            x if x < 1e-6 => 2048.0,
            x if x < 1e-5 => 512.0,
            x if x < 1e-4 => 128.0,
            x if x < 1e-3 => 32.0,
            x if x < 1e-2 => 8.0,
            x if x < 1e-1 => 2.0,
            _ => 1.0,
        };
        if s.drop_prob >= 0.1 && delta > 0.02 {
            delta = 0.02;
        }
        s.drop_prob += delta;
        if s.current_qdelay == 0.0 && s.qdelay_old == 0.0 {
            s.drop_prob *= 0.98;
        }
        s.drop_prob = s.drop_prob.clamp(0.0, 1.0);
        s.qdelay_old = s.current_qdelay;
        s.burst_allowance = Dur(s.burst_allowance.as_nanos().saturating_sub(p.t_update.as_nanos()));
    }
}

impl Aqm for Pie {
    fn update_period(&self) -> Option<(Dur, &'static str)> {
        Some((self.params.t_update, "tupdate"))
    }
    fn on_arrival(&mut self, _: &Packet, occ: Occupancy, now: SimTime, rng: &mut Rng) -> Verdict {
        self.catch_up(occ.bytes, now);
        let half = self.params.qdelay_ref.as_secs_f64() / 2.0;
        let s = &mut self.state;
        if s.drop_prob == 0.0 && s.current_qdelay < half && s.qdelay_old < half {
            s.burst_allowance = self.params.max_burst;
        }
        if s.burst_allowance > Dur::ZERO {
            return Verdict::Admit;
        }
        if (s.qdelay_old < half && s.drop_prob < 0.2) || occ.bytes <= SMALL_QUEUE {
            return Verdict::Admit;
        }
        if rng.uniform() < s.drop_prob {
            Verdict::Early
        } else {
            Verdict::Admit
        }
    }

    fn on_departure(&mut self, occ: Occupancy, now: SimTime) {
        // The buffer was flushed (the link went down): the queue is taken as empty since
        // the last event, and the measurement in progress is abandoned.
        self.catch_up(occ.bytes, now);
        self.state.measurement = None;
    }

    fn on_departure_waited(&mut self, occ: Occupancy, departed_bytes: u32, waited: Dur, now: SimTime) {
        if self.params.timestamps {
            self.catch_up(occ.bytes + departed_bytes as u64, now);
            self.state.last_sojourn = if occ.bytes == 0 { 0.0 } else { waited.as_secs_f64() };
        } else {
            self.on_departure_of(occ, departed_bytes, now);
        }
    }

    fn on_departure_of(&mut self, occ: Occupancy, departed_bytes: u32, now: SimTime) {
        self.catch_up(occ.bytes + departed_bytes as u64, now);
        let threshold = self.params.dq_threshold;
        let s = &mut self.state;
        if let Some((start, count)) = s.measurement.as_mut() {
            *count += departed_bytes as u64;
            if *count >= threshold {
                let dq_time = now.since(*start).as_secs_f64() * threshold as f64 / *count as f64;
                let w = threshold as f64 / 65536.0;
                s.avg_dq_time = if s.avg_dq_time == 0.0 { dq_time } else { dq_time * w + s.avg_dq_time * (1.0 - w) };
                s.measurement = None;
            }
        }
        if s.measurement.is_none() && occ.bytes >= threshold {
            s.measurement = Some((now, 0));
        }
    }

    fn probe(&self) -> Probe {
        Probe { prob: self.state.drop_prob, ..Probe::default() }
    }
}

/// PIE's keys.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieSpec {
    /// The target queueing delay (`QDELAY_REF`); default [`QDELAY_REF`].
    pub target: Option<Duration>,
    /// The period of the drop-probability update (`T_UPDATE`); default [`T_UPDATE`].
    pub tupdate: Option<Duration>,
    /// How PIE measures the queueing delay: `rate` (from the departure rate, Little's law,
    /// RFC 8033 Section 4.3; the default) or `timestamp` (the time the last departed packet
    /// spent queued; Linux's and ns-3.37's default).
    pub delay: Option<String>,
}

impl PieSpec {
    pub fn resolve(&self) -> Result<PieParams, SettingError> {
        let d = PieParams::default();
        let timestamps = match self.delay.as_deref() {
            None | Some("rate") => false,
            Some("timestamp") => true,
            Some(other) => return Err(SettingError::new("delay", format!("unknown estimator {other:?} (expected \"rate\" or \"timestamp\")"))),
        };
        let params =
            PieParams { qdelay_ref: self.target.map_or(d.qdelay_ref, |t| t.dur()), t_update: self.tupdate.map_or(d.t_update, |t| t.dur()), timestamps, ..d };
        params.validate()?;
        Ok(params)
    }
}

pub const REGISTRATION: Registration = Registration { name: "pie", aliases: &[], family: None, keys: keys_of::<PieSpec>, footprint: boxed::<Pie>, build };

fn build(table: &Table, _: &QueueContext) -> Result<Discipline, SettingError> {
    Ok(Discipline::Pie(Box::new(Pie::new(read::<PieSpec>(table)?.resolve()?)?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testing::sized;

    fn ms(t: u64) -> SimTime {
        SimTime(t * 1_000_000)
    }
    fn occ(bytes: u64) -> Occupancy {
        Occupancy { packets: (bytes / 1000) as u32, bytes }
    }
    /// PIE past its burst allowance with a measured drain time of `per_threshold` seconds
    /// per 16 KB.
    fn pie_with_rate(per_threshold: f64) -> Pie {
        let mut p = Pie::new(PieParams::default()).unwrap();
        p.state.avg_dq_time = per_threshold;
        p.state.burst_allowance = Dur::ZERO;
        p
    }

    #[test]
    fn the_update_is_the_pi_law_scaled_by_the_auto_tuning_steps() {
        // 16384 bytes drain in 10 ms: 32768 bytes queued is 20 ms of delay.
        let mut p = pie_with_rate(0.010);
        p.update(32768);
        assert!((p.state.current_qdelay - 0.020).abs() < 1e-12);
        // drop_prob 0: delta = (0.125 * 0.005 + 1.25 * 0.020) / 2048.
        let expected = (0.125 * 0.005 + 1.25 * 0.020) / 2048.0;
        assert!((p.state.drop_prob - expected).abs() < 1e-15, "{}", p.state.drop_prob);
        assert_eq!(p.state.qdelay_old, p.state.current_qdelay);
        // Each band of drop_prob has its divisor.
        for (prob, div) in [(5e-6, 512.0), (5e-5, 128.0), (5e-4, 32.0), (5e-3, 8.0), (5e-2, 2.0), (0.5, 1.0)] {
            let mut p = pie_with_rate(0.010);
            p.state.drop_prob = prob;
            p.state.qdelay_old = 0.020;
            p.update(32768);
            let delta = 0.125 * 0.005 / div;
            assert!((p.state.drop_prob - (prob + delta)).abs() < 1e-12, "{prob}: {}", p.state.drop_prob);
        }
    }

    #[test]
    fn above_ten_percent_an_update_raises_drop_prob_by_at_most_two_points() {
        let mut p = pie_with_rate(0.010);
        p.state.drop_prob = 0.3;
        p.update(16384 * 100); // a second of delay
        assert!((p.state.drop_prob - 0.32).abs() < 1e-12);
        // Decreases are not capped.
        let mut p = pie_with_rate(0.010);
        p.state.drop_prob = 0.3;
        p.state.qdelay_old = 1.0;
        p.update(0);
        assert!(p.state.drop_prob < 0.3 - 0.02);
    }

    #[test]
    fn no_delay_twice_decays_drop_prob_and_it_stays_within_zero_and_one() {
        let mut p = pie_with_rate(0.010);
        p.state.drop_prob = 0.5;
        p.update(0); // qdelay 0, qdelay_old 0
        let after_pi = 0.5 - 0.125 * 0.015;
        assert!((p.state.drop_prob - after_pi * 0.98).abs() < 1e-12);
        let mut p = pie_with_rate(0.010);
        p.state.drop_prob = 0.99;
        p.state.qdelay_old = 0.0;
        p.update(16384 * 1000);
        assert_eq!(p.state.drop_prob, 1.0_f64.min(0.99 + 0.02));
        let mut p = pie_with_rate(0.010);
        p.state.drop_prob = 0.001;
        p.state.qdelay_old = 10.0;
        p.update(0);
        assert_eq!(p.state.drop_prob, 0.0);
    }

    #[test]
    fn updates_run_every_tupdate_on_the_queue_since_the_last_event() {
        let mut p = pie_with_rate(0.010);
        let mut rng = Rng::from_seed(1);
        p.on_arrival(&sized(1000), occ(32768), ms(14), &mut rng);
        assert_eq!(p.state.qdelay_old, 0.0, "no update before 15 ms");
        p.on_arrival(&sized(1000), occ(32768), ms(15), &mut rng);
        assert!((p.state.qdelay_old - 0.020).abs() < 1e-12, "the update due at 15 ms saw 32 KB");
        // Three periods later, three updates, each with the queue the arrival found.
        let before = p.state.drop_prob;
        p.on_arrival(&sized(1000), occ(32768), ms(60), &mut rng);
        assert_eq!(p.state.next_update, ms(75));
        assert!(p.state.drop_prob > before);
        // A departure: the updates due before it saw the queue with the packet still in it.
        let mut q = pie_with_rate(0.010);
        q.on_departure_of(occ(31768), 1000, ms(15));
        assert!((q.state.qdelay_old - 0.020).abs() < 1e-12);
    }

    #[test]
    fn the_timestamp_estimator_takes_the_last_departures_sojourn() {
        let spec = PieSpec { delay: Some("timestamp".into()), ..PieSpec::default() };
        let mut p = Pie::new(spec.resolve().unwrap()).unwrap();
        // No rate measured: the rate estimator would see no delay. A packet that waited
        // 40 ms leaves 20 KB behind: the update at 15 ms reads 40 ms.
        p.on_departure_waited(occ(20_000), 1000, Dur::from_millis(40), ms(14));
        p.on_departure_waited(occ(19_000), 1000, Dur::from_millis(41), ms(15));
        assert_eq!(p.state.qdelay_old, 0.040, "the update due at 15 ms ran before the departure at 15 ms");
        assert_eq!(p.state.last_sojourn, 0.041);
        // A packet that leaves the queue empty sets the delay to 0, whatever it waited.
        p.on_departure_waited(occ(0), 1000, Dur::from_millis(30), ms(20));
        let mut rng = Rng::from_seed(1);
        p.on_arrival(&sized(1000), occ(0), ms(30), &mut rng);
        assert_eq!(p.state.current_qdelay, 0.0);
        // The rate estimator ignores the sojourn.
        let mut r = Pie::new(PieSpec::default().resolve().unwrap()).unwrap();
        r.on_departure_waited(occ(20_000), 1000, Dur::from_millis(40), ms(14));
        r.on_departure_waited(occ(19_000), 1000, Dur::from_millis(41), ms(15));
        assert_eq!(r.state.qdelay_old, 0.0);
        let bad = PieSpec { delay: Some("sojourn".into()), ..PieSpec::default() };
        assert_eq!(bad.resolve().unwrap_err(), SettingError::new("delay", "unknown estimator \"sojourn\" (expected \"rate\" or \"timestamp\")"));
    }

    #[test]
    fn the_departure_rate_is_measured_over_dq_threshold_bytes_once_the_queue_holds_that_much() {
        let mut p = Pie::new(PieParams::default()).unwrap();
        // Departures that leave less than 16 KB start no measurement.
        p.on_departure_of(occ(10_000), 1000, ms(1));
        assert!(p.state.measurement.is_none());
        // One that leaves 20 KB starts one; 1000-byte packets then leave every 80 us
        // (100 Mb/s) until 17 of them (17000 >= 16384 bytes) have gone.
        p.on_departure_of(occ(20_000), 1000, ms(2));
        assert_eq!(p.state.measurement, Some((ms(2), 0)));
        let mut t = ms(2);
        for i in 1..=17u64 {
            t += Dur::from_micros(80);
            p.on_departure_of(occ(20_000 - i * 1000), 1000, t);
        }
        // 17000 bytes in 1.36 ms: 16384 bytes take 1.31 ms; the queue left (3000 bytes) is
        // below the threshold, so no new cycle.
        assert!((p.state.avg_dq_time - 0.00136 * 16384.0 / 17000.0).abs() < 1e-12, "{}", p.state.avg_dq_time);
        assert!(p.state.measurement.is_none());
        // The next cycle weighs its sample 1/4.
        let first = p.state.avg_dq_time;
        p.on_departure_of(occ(17_000), 1000, t);
        for _ in 0..17 {
            t += Dur::from_micros(160);
            p.on_departure_of(occ(17_000), 1000, t);
        }
        let sample = 0.00272 * 16384.0 / 17000.0;
        assert!((p.state.avg_dq_time - (0.25 * sample + 0.75 * first)).abs() < 1e-12);
    }

    #[test]
    fn arrivals_are_spared_by_the_burst_allowance_and_the_safeguards() {
        let mut rng = Rng::from_seed(3);
        // Full drop probability, but burst allowance left.
        let mut p = Pie::new(PieParams::default()).unwrap();
        p.state.drop_prob = 1.0;
        p.state.qdelay_old = 1.0;
        p.state.current_qdelay = 1.0;
        assert_eq!(p.on_arrival(&sized(1000), occ(100_000), ms(1), &mut rng), Verdict::Admit);
        p.state.burst_allowance = Dur::ZERO;
        assert_eq!(p.on_arrival(&sized(1000), occ(100_000), ms(2), &mut rng), Verdict::Early);
        // Two MTUs or less queued: no signal.
        assert_eq!(p.on_arrival(&sized(1000), occ(3000), ms(3), &mut rng), Verdict::Admit);
        // Low delay and a low probability: no signal.
        p.state.qdelay_old = 0.007;
        p.state.drop_prob = 0.19;
        for t in 4..100 {
            assert_eq!(p.on_arrival(&sized(1000), occ(100_000), ms(t / 10), &mut rng), Verdict::Admit);
        }
        // Otherwise signals come with probability drop_prob.
        p.state.qdelay_old = 0.020;
        p.state.drop_prob = 0.25;
        let n = 20_000;
        let signals = (0..n).filter(|_| p.on_arrival(&sized(1000), occ(100_000), ms(9), &mut rng) == Verdict::Early).count();
        let share = signals as f64 / n as f64;
        assert!((share - 0.25).abs() < 0.015, "{share}");
    }

    #[test]
    fn each_update_spends_tupdate_of_the_burst_allowance_and_a_calm_queue_restores_it() {
        let mut p = Pie::new(PieParams::default()).unwrap();
        let mut rng = Rng::from_seed(3);
        assert_eq!(p.state.burst_allowance, MAX_BURST);
        p.state.avg_dq_time = 0.010;
        // Busy (delay 40 ms): the allowance runs out after 10 updates, 150 ms.
        p.on_arrival(&sized(1000), occ(16384 * 4), ms(149), &mut rng);
        assert_eq!(p.state.burst_allowance, Dur::from_millis(15));
        p.on_arrival(&sized(1000), occ(16384 * 4), ms(150), &mut rng);
        assert_eq!(p.state.burst_allowance, Dur::ZERO);
        // Calm: drop_prob back to 0 and both delays under 7.5 ms restore it on arrival.
        p.state.drop_prob = 0.0;
        p.state.qdelay_old = 0.001;
        p.state.current_qdelay = 0.001;
        p.state.next_update = ms(10_000);
        p.on_arrival(&sized(1000), occ(0), ms(151), &mut rng);
        assert_eq!(p.state.burst_allowance, MAX_BURST);
    }

    #[test]
    fn keys_resolve_to_the_rfc_defaults_and_are_checked() {
        let t: Table = "".parse().unwrap();
        assert_eq!(read::<PieSpec>(&t).unwrap().resolve().unwrap(), PieParams::default());
        let t: Table = "target = \"20ms\"\ntupdate = \"30ms\"".parse().unwrap();
        let p = read::<PieSpec>(&t).unwrap().resolve().unwrap();
        assert_eq!((p.qdelay_ref, p.t_update), (Dur::from_millis(20), Dur::from_millis(30)));
        let t: Table = "tupdate = \"0s\"".parse().unwrap();
        assert_eq!(read::<PieSpec>(&t).unwrap().resolve().unwrap_err().key, "tupdate");
    }
}
