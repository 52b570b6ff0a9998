//! RED: Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1(4), 1993), shaped like Linux `include/net/red.h`:
//! configuration ([`RedParams`]) and mutable state ([`RedState`]) are separate, and the
//! algorithm returns a [`Verdict`] that the router's signalling policy turns into a drop or
//! a mark. There is no counters struct: the FIFO already counts signals by kind.
//!
//! Per arriving packet (F&J Fig. 2, the RTRED paper's equations (1)-(3)):
//!
//! - `avg <- (1 - w_q) avg + w_q q`, `q` the queue the packet finds (packets, or bytes /
//!   `mean_packet_size` in byte mode). If it finds the queue empty, idle since `t0`, `avg` first
//!   decays as `avg <- (1 - w_q)^m avg`, `m = (now - t0) / s`, `s` the transmission time of a
//!   mean-size packet. `m` is fractional: F&J ask for a linear function of the idle time;
//!   ns-2 truncates it to an integer, which forgets idle periods shorter than one packet time.
//!   As in ns-2 the arrival's own sample (`q = 0`) follows the decay.
//! - `avg < min_th`: admit, `count = -1`, so the first packet past `min_th` has `count = 0`.
//! - `min_th <= avg < max_th`: `count += 1`, `p_b = max_p (avg - min_th) / (max_th - min_th)`
//!   (byte mode: `p_b *= size / mean_packet_size`; F&J divide by the maximum packet size, ns-2
//!   by the mean), `p_a = p_b / (1 - count p_b)`, at most 1; signal with probability `p_a`,
//!   then `count = 0`. As in F&J's Fig. 2 and ns-2, `count` includes the arriving packet, so
//!   at a fixed `avg` the gap between signals is uniform on `1..=1/p_b - 1` and the signal
//!   rate is `2 p_b` (F&J's Section 7 analysis counts only earlier packets, which gives
//!   `1..=1/p_b` and `2 p_b / (1 + p_b)`; the pseudo-code is what implementations follow).
//! - `avg >= max_th`: forced signal, `count = 0`. Gentle RED (Floyd 2000, "Recommendation on
//!   using the gentle variant of RED") instead takes `p_b = max_p + (1 - max_p)(avg - max_th)
//!   / max_th` up to `2 max_th` with the same count rule, and forces only beyond.
//! - `wait` is ns-2's `wait_` (`red.cc`, `modify_p`): no signal while `count p_b < 1`, then
//!   `p_a = p_b / (2 - count p_b)` while `count p_b < 2`, then 1; gaps become uniform on
//!   `1/p_b..=2/p_b - 1`.
//!
//! ns-2.35's rules (`queue/red.cc`, `enque()` and `drop_early()`) where they differ from
//! F&J, each an option the `ns2` profile turns on:
//!
//! - `overload = "early"` (ns-2's `use_mark_p_ true`): the region where every arrival is
//!   signalled (`avg >= max_th`, gentle: `>= 2 max_th`) is not a forced signal but an early
//!   one with `p_b = 1`: it goes through the count rule (always a signal, since `count >= 1`
//!   there) and is counted as an early drop. F&J's (`"forced"`, the default): a forced
//!   signal.
//! - `mark_p` (ns-2's `mark_p_`, 0.1): an early signal with `p_b > mark_p` drops even an
//!   ECN-capable packet ([`Verdict::EarlyDrop`]). The default, 1, lets the `ecn` policy mark
//!   every early signal.
//! - `entry_grace` (always on in ns-2): no signal while the queue holds at most one packet,
//!   and none for the first arrival after `avg` reaches `min_th` (or after such a short
//!   queue), which restarts `count` at 1; a full buffer's drop resets `count` to 0 as a
//!   signal does and counts as forced (an overflow) even when RED had chosen the packet for
//!   an early drop (ns-2's `qlen >= qlim` check comes last), but leaves an arrival outside
//!   the region (`avg < min_th` or a short queue) outside: the next one past `min_th` is
//!   still an entry (ns-2 zeroes `count_`, not `old_`). None of this is in F&J.
//! - `byte_rule = "ns2"` (byte mode only): ns-2's `modify_p()` spreads the unscaled `p_b` by a
//!   count of the bytes since the last signal in whole mean-size packets (`count_bytes /
//!   mean_pktsize`, integer division), then scales the result (when below 1) by `size /
//!   mean_packet_size`; the `mark_p` test reads the unscaled `p_b`. The default (`"scale"`)
//!   scales `p_b` first and counts packets.
//! - Automatic parameters (`min_th`, `max_th`, `w_q` = `"auto"`, and the `ns2` profile's
//!   defaults): ns-2.35's `initialize_params()` (Floyd's 2001 automatic settings, ns-2's
//!   `thresh_ 0`, `maxthresh_ 0`, `q_weight_ -1`). With `C` the link's capacity in mean-size
//!   packets per second: `min_th = max(5, C * 5 ms / 2)` (half the queue of ns-2's
//!   `targetdelay_`), `max_th = 3 min_th`, and `w_q = 1 - exp(-1 / (10 R C))`, `R = max(100 ms,
//!   3 (delay + 1 / C))` a round trip guessed from the link's delay: the average's time
//!   constant is ten round trips.
//! - `idle = "ns2"`: the idle period starts when the last packet *finishes* transmission
//!   (ns-2's `deque()` finds the queue empty then), and `m` is truncated to whole mean-packet
//!   times (ns-2's `int(ptc * (now - idletime_))`); F&J's linear function of the idle time
//!   (`"linear"`, the default) starts when the queue empties and keeps the fraction.

use super::spec::{boxed, keys_of, read, Registration, SettingError, Table};
use super::{Aqm, Discipline, Occupancy, Probe, QueueContext, Verdict};
use crate::packet::Packet;
use crate::settings::profile::Profile;
use crate::settings::units::num;
use crate::sim::{Rng, SimTime};
use serde::Deserialize;

/// Default `w_q`: the weight of Floyd & Jacobson's 1993 simulations.
pub const DEFAULT_W_Q: f64 = 0.002;
/// Default `max_p`: Floyd, "RED: Discussions of Setting Parameters" (1997), "Set max_p to
/// 0.1" (the 1993 simulations used 0.02); also ns-2's default (`linterm_ 10`).
pub const DEFAULT_MAX_P: f64 = 0.1;
/// Default mean packet size on the wire, bytes: ccsim's choice, the default segment size
/// (ns-2's `mean_pktsize_` is 500).
pub const DEFAULT_MEAN_PACKET_SIZE: u32 = 1000;
/// The `ns2` profile's mean packet size: ns-2.35's `mean_pktsize_`.
pub const NS2_MEAN_PACKET_SIZE: u32 = 500;
/// The `ns2` profile's `mark_p`: ns-2.35's `mark_p_`.
pub const NS2_MARK_P: f64 = 0.1;
/// ns-2.35's `targetdelay_`: the automatic `min_th` is half the queue that drains in it.
pub const NS2_TARGET_DELAY_S: f64 = 0.005;

/// ns-2.35's automatic RED parameters (`initialize_params()`) for a link of `link_bps` and
/// `delay_s` seconds of propagation, with `mean_packet_size`-byte packets: `(min_th, max_th,
/// w_q)`, thresholds in mean-size packets.
pub fn ns2_automatic(link_bps: u64, delay_s: f64, mean_packet_size: u32) -> (f64, f64, f64) {
    let ptc = link_bps as f64 / (8.0 * mean_packet_size as f64);
    let min_th = (NS2_TARGET_DELAY_S * ptc / 2.0).max(5.0);
    let rtt = (3.0 * (delay_s + 1.0 / ptc)).max(0.1);
    (min_th, 3.0 * min_th, 1.0 - (-1.0 / (10.0 * rtt * ptc)).exp())
}

/// A RED key that takes a number or `"auto"` (ns-2's automatic value).
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(untagged, expecting = "a number or \"auto\"")]
pub enum NumOrAuto {
    Num(f64),
    Auto(AutoWord),
}

/// The word `auto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AutoWord {
    Auto,
}

/// RED's configuration. Thresholds are in packets (of `mean_packet_size` in byte mode).
#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    pub min_th: f64,
    pub max_th: f64,
    /// Probability at `avg = max_th`; the starting value when a variant adapts it.
    pub max_p: f64,
    /// EWMA weight of each sample.
    pub w_q: f64,
    pub gentle: bool,
    /// Queue measured in bytes, `p_b` scaled by packet size.
    pub byte_mode: bool,
    /// ns-2's `wait_` spacing between signals.
    pub wait: bool,
    /// Rate of the link the queue feeds, bit/s (idle-time correction).
    pub link_bps: u64,
    /// Mean packet size on the wire, bytes (idle-time correction and byte mode).
    pub mean_packet_size: u32,
    /// An early signal with `p_b` above it drops even an ECN-capable packet (ns-2's
    /// `mark_p_`); 1: every early signal may be a mark.
    pub mark_p: f64,
    /// The region where every arrival is signalled gives early signals with `p_b = 1`
    /// (ns-2's `use_mark_p_`), not forced ones.
    pub overload_early: bool,
    /// ns-2's grace: no signal with at most one packet queued or on entering the signalling
    /// region; overflow resets `count`.
    pub entry_grace: bool,
    /// Idle time as ns-2 counts it: from the end of the last transmission, in whole packets.
    pub ns2_idle: bool,
    /// Byte mode as ns-2's `modify_p()`: count in mean-size packets of bytes, the spread
    /// probability scaled by size.
    pub ns2_bytes: bool,
}

impl RedParams {
    /// F&J's RED: `w_q` = [`DEFAULT_W_Q`], gentle, byte mode, wait and ns-2's rules off.
    pub fn new(min_th: f64, max_th: f64, max_p: f64, link_bps: u64, mean_packet_size: u32) -> RedParams {
        let (gentle, byte_mode, wait) = (false, false, false);
        RedParams {
            min_th,
            max_th,
            max_p,
            w_q: DEFAULT_W_Q,
            gentle,
            byte_mode,
            wait,
            link_bps,
            mean_packet_size,
            mark_p: 1.0,
            overload_early: false,
            entry_grace: false,
            ns2_idle: false,
            ns2_bytes: false,
        }
    }

    /// Rejects parameters the algorithm cannot run with, naming the key. The one place of
    /// each bound that needs nothing but the parameters.
    pub fn validate(&self) -> Result<(), SettingError> {
        let (min_th, max_th) = (self.min_th, self.max_th);
        if !(min_th >= 0.0 && min_th < max_th) {
            return Err(SettingError::new("min_th", format!("must satisfy 0 <= min_th < max_th (min_th = {}, max_th = {})", num(min_th), num(max_th))));
        }
        if !max_th.is_finite() {
            return Err(SettingError::new("max_th", format!("must be finite, got {}", num(max_th))));
        }
        if !(self.max_p > 0.0 && self.max_p <= 1.0) {
            return Err(SettingError::new("max_p", format!("must be in (0, 1], got {}", num(self.max_p))));
        }
        if !(self.w_q > 0.0 && self.w_q <= 1.0) {
            return Err(SettingError::new("w_q", format!("must be in (0, 1], got {}", num(self.w_q))));
        }
        if !(self.mark_p > 0.0 && self.mark_p <= 1.0) {
            return Err(SettingError::new("mark_p", format!("must be in (0, 1], got {}", self.mark_p)));
        }
        if self.mean_packet_size == 0 {
            return Err(SettingError::new("mean_packet_size", "must be positive"));
        }
        if self.link_bps == 0 {
            return Err(SettingError::new("", "RED needs a link rate of at least 1 bit/s (idle-time decay)"));
        }
        Ok(())
    }
}

/// The keys of the RED family: all of `red`'s, and those `ared` and `rtred` share with it.
/// Resolved by [`RedSpec::resolve`] into [`RedParams`].
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    /// Minimum threshold of the average queue, packets (mean-size packets in byte mode), or
    /// `"auto"`: ns-2.35's automatic value, [`ns2_automatic`]. Required: F&J tie the
    /// thresholds to the average queue the network wants, so RED has no default (`ns2`
    /// profile: `"auto"`, ns-2's `thresh_ 0`).
    pub min_th: Option<NumOrAuto>,
    /// Maximum threshold, in the unit of `min_th`; at most the buffer; or `"auto"` (3
    /// `min_th`, ns-2's). Required (`ns2` profile: `"auto"`, `maxthresh_ 0`).
    pub max_th: Option<NumOrAuto>,
    /// Signal probability at `avg = max_th` (the initial value for `ared` and `rtred`);
    /// default [`DEFAULT_MAX_P`].
    pub max_p: Option<f64>,
    /// EWMA weight of the average queue, or `"auto"` (ns-2's `q_weight_ -1`, from the link's
    /// capacity and delay: [`ns2_automatic`]); default [`DEFAULT_W_Q`] (`ns2` profile:
    /// `"auto"`).
    pub w_q: Option<NumOrAuto>,
    /// Gentle RED (Floyd 2000): the probability rises from `max_p` to 1 between `max_th`
    /// and `2 max_th`. Default false, F&J's algorithm (Floyd recommends true; the `ns2`
    /// profile's default is true, ns-2.35's `gentle_`).
    pub gentle: Option<bool>,
    /// ns-2's `wait_` spacing between signals. Default false, F&J's algorithm (`ns2`
    /// profile: true, ns-2's default).
    pub wait: Option<bool>,
    /// An early signal with `p_b` above this drops even an ECN-capable packet (ns-2's
    /// `mark_p_`). Default 1: any early signal may be a mark (`ns2` profile: 0.1).
    pub mark_p: Option<f64>,
    /// Where every arrival is signalled (`avg >= max_th`; gentle: `2 max_th`): `forced`
    /// (F&J, the default) or `early` (ns-2's `use_mark_p_`: an early signal with `p_b = 1`;
    /// the `ns2` profile's).
    pub overload: Option<String>,
    /// ns-2's grace rules (no signal with at most one packet queued, none for the first
    /// arrival in the signalling region; overflow resets `count`). Default false (`ns2`
    /// profile: true).
    pub entry_grace: Option<bool>,
    /// The idle-time decay: `linear` (F&J, the default) or `ns2` (from the end of the last
    /// transmission, in whole packet times; the `ns2` profile's).
    pub idle: Option<String>,
    /// Queue measured in bytes, probability scaled by packet size. Default false: packet
    /// mode, as F&J's simulations and SCENARIOS.md (`ns2` profile: true, ns-2.35's `bytes_`
    /// and `queue_in_bytes_`).
    pub byte_mode: Option<bool>,
    /// How byte mode scales the probability: `scale` (`p_b` times size / mean packet size,
    /// then the count's spread over packets; the default) or `ns2` (ns-2's `modify_p()`: the
    /// count in mean-size packets of bytes, the spread probability scaled by size; the `ns2`
    /// profile's).
    pub byte_rule: Option<String>,
    /// Mean packet size on the wire, bytes, for the idle-time decay and byte mode; default
    /// [`DEFAULT_MEAN_PACKET_SIZE`] (`ns2` profile: [`NS2_MEAN_PACKET_SIZE`],
    /// `mean_pktsize_`).
    pub mean_packet_size: Option<u32>,
}

impl RedSpec {
    /// The parameters for a queue in `ctx`: defaults filled in (those of the scenario's
    /// profile), every bound checked.
    pub fn resolve(&self, ctx: &QueueContext) -> Result<RedParams, SettingError> {
        let ns2 = ctx.profile == Profile::Ns2;
        // The ns2 profile leaves every automatic parameter to ns-2's rules; the rfc profile
        // requires the thresholds.
        let implicit = if ns2 { Some(NumOrAuto::Auto(AutoWord::Auto)) } else { None };
        let (Some(min_th), Some(max_th)) = (self.min_th.or(implicit), self.max_th.or(implicit)) else {
            let missing = if self.min_th.is_none() { "min_th" } else { "max_th" };
            return Err(SettingError::new(missing, "required (RED's thresholds have no default; \"auto\" gives ns-2's)"));
        };
        let max_p = self.max_p.unwrap_or(DEFAULT_MAX_P);
        let mean = self.mean_packet_size.unwrap_or(if ns2 { NS2_MEAN_PACKET_SIZE } else { DEFAULT_MEAN_PACKET_SIZE });
        if mean == 0 {
            return Err(SettingError::new("mean_packet_size", "must be positive"));
        }
        let (auto_min, _, auto_w) = ns2_automatic(ctx.link_bps.max(1), ctx.delay.as_secs_f64(), mean);
        let min_th = match min_th {
            NumOrAuto::Num(x) => x,
            NumOrAuto::Auto(_) => auto_min,
        };
        let (max_th, max_th_given) = match max_th {
            NumOrAuto::Num(x) => (x, true),
            // ns-2: 3 min_th, whether min_th was given or automatic.
            NumOrAuto::Auto(_) => (3.0 * min_th, false),
        };
        let mut p = RedParams::new(min_th, max_th, max_p, ctx.link_bps, mean);
        p.w_q = match self.w_q.or(implicit) {
            None => p.w_q,
            Some(NumOrAuto::Num(w)) => w,
            Some(NumOrAuto::Auto(_)) => auto_w,
        };
        p.gentle = self.gentle.unwrap_or(ns2);
        p.wait = self.wait.unwrap_or(ns2);
        p.byte_mode = self.byte_mode.unwrap_or(ns2);
        p.ns2_bytes = two_way("byte_rule", self.byte_rule.as_deref(), ns2, ["scale", "ns2"], "rule")?;
        p.mark_p = self.mark_p.unwrap_or(if ns2 { NS2_MARK_P } else { 1.0 });
        p.overload_early = two_way("overload", self.overload.as_deref(), ns2, ["forced", "early"], "rule")?;
        p.entry_grace = self.entry_grace.unwrap_or(ns2);
        p.ns2_idle = two_way("idle", self.idle.as_deref(), ns2, ["linear", "ns2"], "idle rule")?;
        p.validate()?;
        let capacity = ctx.capacity_packets(mean);
        // ns-2's automatic max_th may exceed the buffer (the buffer then overflows first).
        if max_th_given && max_th > capacity {
            return Err(SettingError::new("max_th", format!("must not exceed the buffer limit ({}), got {}", num(capacity), num(max_th))));
        }
        Ok(p)
    }
}

/// A key that names one of two rules, `[off, on]`: true for `on`, `default` when absent; any
/// other value is an error naming `key` and the `what` it is.
fn two_way(key: &str, value: Option<&str>, default: bool, [off, on]: [&str; 2], what: &str) -> Result<bool, SettingError> {
    match value {
        None => Ok(default),
        Some(v) if v == off => Ok(false),
        Some(v) if v == on => Ok(true),
        Some(other) => Err(SettingError::new(key, format!("unknown {what} {other:?} (expected {off:?} or {on:?})"))),
    }
}

/// The family name messages use for keys every member takes.
pub const FAMILY: &str = "RED";

pub const REGISTRATION: Registration =
    Registration { name: "red", aliases: &[], family: Some(FAMILY), keys: keys_of::<RedSpec>, footprint: boxed::<Red>, build };

fn build(table: &Table, ctx: &QueueContext) -> Result<Discipline, SettingError> {
    Ok(Discipline::Red(Box::new(Red::new(read::<RedSpec>(table)?.resolve(ctx)?)?)))
}

/// RED's mutable state.
#[derive(Clone, Debug, PartialEq)]
pub struct RedState {
    /// Average queue, in the unit of the thresholds.
    pub avg: f64,
    /// Arrivals since the last signal (-1 while `avg < min_th`).
    pub count: i64,
    /// Bytes of those arrivals (ns-2's `count_bytes`, read by `byte_rule = "ns2"`).
    pub count_bytes: u64,
    /// When the queue was last seen empty; only read while it is still empty.
    pub idle_since: SimTime,
    /// The `max_p` in force (changed by Adaptive RED and RTRED).
    pub max_p: f64,
    /// The signal probability computed for the last arrival.
    pub prob: f64,
    /// The queue the last arrival found, in the unit of the thresholds.
    pub found: f64,
}

#[derive(Clone, Debug)]
pub struct Red {
    params: RedParams,
    state: RedState,
}

impl Red {
    pub fn new(params: RedParams) -> Result<Red, SettingError> {
        params.validate()?;
        let state = RedState { avg: 0.0, count: -1, count_bytes: 0, idle_since: SimTime::ZERO, max_p: params.max_p, prob: 0.0, found: 0.0 };
        Ok(Red { params, state })
    }
    pub fn params(&self) -> &RedParams {
        &self.params
    }
    pub fn state(&self) -> &RedState {
        &self.state
    }
    /// For the variants that choose `max_p` before [`decide`](Self::decide).
    pub(super) fn set_max_p(&mut self, max_p: f64) {
        self.state.max_p = max_p;
    }

    /// The queue in the unit of the thresholds.
    pub fn queue_len(&self, occ: Occupancy) -> f64 {
        if self.params.byte_mode {
            occ.bytes as f64 / self.params.mean_packet_size as f64
        } else {
            occ.packets as f64
        }
    }

    /// Updates `avg` for a packet arriving to `occ` (idle decay, then the EWMA sample).
    pub fn update_avg(&mut self, occ: Occupancy, now: SimTime) {
        let q = self.queue_len(occ);
        let (p, s) = (&self.params, &mut self.state);
        s.found = q;
        if occ.packets == 0 {
            let pkt_time = p.mean_packet_size as f64 * 8.0 / p.link_bps as f64;
            if p.ns2_idle {
                // ns-2: whole packet times since the end of the last transmission (none
                // while it is still being sent).
                if now > s.idle_since {
                    let m = ((now - s.idle_since).as_secs_f64() / pkt_time) as i32;
                    s.avg *= (1.0 - p.w_q).powi(m);
                }
            } else {
                let m = (now - s.idle_since).as_secs_f64() / pkt_time;
                s.avg *= (1.0 - p.w_q).powf(m);
            }
            // If this packet is not queued the queue stays idle from now on.
            s.idle_since = s.idle_since.max(now);
        }
        s.avg = (1.0 - p.w_q) * s.avg + p.w_q * q;
    }

    /// RED's decision at the current `avg` and `max_p` for a packet of `pkt_bytes` that finds
    /// `occ` queued.
    pub fn decide(&mut self, occ: Occupancy, pkt_bytes: u32, rng: &mut Rng) -> Verdict {
        let (p, s) = (&self.params, &mut self.state);
        if s.avg < p.min_th || (p.entry_grace && occ.packets <= 1) {
            s.count = -1;
            s.count_bytes = 0;
            s.prob = 0.0;
            return Verdict::Admit;
        }
        if p.entry_grace && s.count < 0 {
            // ns-2's `old == 0`: the first arrival in the region only restarts the count.
            s.count = 1;
            s.count_bytes = pkt_bytes as u64;
            s.prob = 0.0;
            return Verdict::Admit;
        }
        let p_b = if s.avg < p.max_th {
            s.max_p * (s.avg - p.min_th) / (p.max_th - p.min_th)
        } else if p.gentle && s.avg < 2.0 * p.max_th {
            s.max_p + (1.0 - s.max_p) * (s.avg - p.max_th) / p.max_th
        } else if p.overload_early {
            1.0
        } else {
            s.count = 0;
            s.count_bytes = 0;
            s.prob = 1.0;
            return Verdict::Forced;
        };
        s.count += 1;
        s.count_bytes += pkt_bytes as u64;
        let scale = pkt_bytes as f64 / p.mean_packet_size as f64;
        let p_b = if p.byte_mode && p.ns2_bytes {
            // ns-2's `modify_p()`: the count in whole mean-size packets of bytes, the spread
            // probability scaled by size when below 1; `mark_p` reads the unscaled p_b.
            let count = (s.count_bytes / p.mean_packet_size as u64) as i64;
            let p_a = spread(p_b, count, p.wait);
            s.prob = if p_a < 1.0 { (p_a * scale).min(1.0) } else { p_a };
            p_b
        } else {
            let p_b = if p.byte_mode { p_b * scale } else { p_b };
            s.prob = spread(p_b, s.count, p.wait);
            p_b
        };
        if rng.bernoulli(s.prob) {
            s.count = 0;
            s.count_bytes = 0;
            if p_b > p.mark_p {
                Verdict::EarlyDrop
            } else {
                Verdict::Early
            }
        } else {
            Verdict::Admit
        }
    }

    /// The arriving packet found the buffer full: under ns-2's rules that drop resets
    /// `count` as a signal does, and counts as forced (an overflow) whatever the verdict.
    /// An arrival that RED left outside its signalling region (`avg < min_th`, or at most
    /// one packet queued: `count` parked at -1) stays outside: ns-2 zeroes `count_` but not
    /// `old_`, so the next arrival in the region is still an entry, not a candidate.
    pub fn on_overflow(&mut self) -> bool {
        if self.params.entry_grace && self.state.count >= 0 {
            self.state.count = 0;
            self.state.count_bytes = 0;
        }
        self.params.entry_grace
    }

    /// A packet left for the link, `pkt_bytes` long, leaving `occ` behind.
    pub fn on_departure(&mut self, occ: Occupancy, pkt_bytes: u32, now: SimTime) {
        if occ.packets == 0 {
            self.state.idle_since = if self.params.ns2_idle {
                let tx = pkt_bytes as u128 * 8 * 1_000_000_000 / self.params.link_bps as u128;
                now + crate::sim::Dur(tx as u64)
            } else {
                now
            };
        }
    }
}

/// `p_a` from `p_b`: grows with `count` so that signals are evenly spaced, not geometric.
fn spread(p_b: f64, count: i64, wait: bool) -> f64 {
    let c = count as f64 * p_b;
    let p_a = match (wait, c) {
        (false, c) if c < 1.0 => p_b / (1.0 - c),
        (true, c) if c < 1.0 => 0.0,
        (true, c) if c < 2.0 => p_b / (2.0 - c),
        _ => 1.0,
    };
    p_a.min(1.0)
}

impl Aqm for Red {
    fn on_arrival(&mut self, pkt: &Packet, occ: Occupancy, now: SimTime, rng: &mut Rng) -> Verdict {
        self.update_avg(occ, now);
        self.decide(occ, pkt.size, rng)
    }
    fn on_departure(&mut self, occ: Occupancy, now: SimTime) {
        Red::on_departure(self, occ, 0, now);
    }
    fn on_departure_of(&mut self, occ: Occupancy, departed_bytes: u32, now: SimTime) {
        Red::on_departure(self, occ, departed_bytes, now);
    }
    fn on_overflow(&mut self) -> bool {
        Red::on_overflow(self)
    }
    fn probe(&self) -> Probe {
        Probe { avg: self.state.avg, max_p: self.state.max_p, prob: self.state.prob }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::queue::testing::sized;
    use crate::queue::Limit;

    /// An occupancy of `packets` packets of 1000 bytes.
    pub fn occ(packets: u32) -> Occupancy {
        Occupancy { packets, bytes: packets as u64 * 1000 }
    }
    pub fn at_ms(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    /// min_th 5, max_th 15, w_q = 1 so that avg is the queue the packet finds.
    fn instant(max_p: f64) -> Red {
        Red::new(RedParams { w_q: 1.0, ..RedParams::new(5.0, 15.0, max_p, 10_000_000, 1000) }).unwrap()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn average_is_the_ewma_of_the_queue_seen_by_arrivals() {
        let mut red = Red::new(RedParams { w_q: 0.5, ..RedParams::new(50.0, 60.0, 0.1, 10_000_000, 1000) }).unwrap();
        let mut rng = Rng::from_seed(1);
        for q in [2, 4, 8, 8] {
            red.on_arrival(&sized(1000), occ(q), SimTime::ZERO, &mut rng);
        }
        // 0 -> 1 -> 2.5 -> 5.25 -> 6.625
        assert!(close(red.state().avg, 6.625), "{}", red.state().avg);
        assert_eq!(red.state().count, -1);
    }

    #[test]
    fn below_min_th_admits_and_parks_count() {
        let mut red = instant(0.1);
        let mut rng = Rng::from_seed(1);
        for _ in 0..1000 {
            assert_eq!(red.on_arrival(&sized(1000), occ(4), SimTime::ZERO, &mut rng), Verdict::Admit);
        }
        assert_eq!(red.state().count, -1);
        assert_eq!(red.probe().prob, 0.0);
    }

    #[test]
    fn p_a_follows_equations_2_and_3_with_count_growth() {
        let mut red = instant(0.1);
        let mut rng = Rng::from_seed(7);
        red.on_arrival(&sized(1000), occ(0), SimTime::ZERO, &mut rng);
        let p_b = 0.1 * (12.0 - 5.0) / (15.0 - 5.0);
        let (mut count, mut signals) = (-1i64, 0);
        for _ in 0..10_000 {
            let v = red.on_arrival(&sized(1000), occ(12), SimTime::ZERO, &mut rng);
            count += 1;
            let c = count as f64 * p_b;
            let p_a = if c < 1.0 { (p_b / (1.0 - c)).min(1.0) } else { 1.0 };
            assert!(close(red.probe().prob, p_a), "count {count}: {} vs {p_a}", red.probe().prob);
            if v == Verdict::Early {
                signals += 1;
                count = 0;
            }
            assert_eq!(red.state().count, count, "count resets to 0 after a signal only");
        }
        assert!(signals > 1000);
    }

    #[test]
    fn spread_values() {
        // Equation (3), p_b = 0.05.
        assert!(close(spread(0.05, 0, false), 0.05));
        assert!(close(spread(0.05, 10, false), 0.1));
        assert!(close(spread(0.05, 18, false), 0.5));
        assert!(spread(0.05, 19, false) > 1.0 - 1e-9);
        assert_eq!(spread(0.05, 25, false), 1.0);
        // ns-2 wait_, p_b = 0.1.
        assert_eq!(spread(0.1, 9, true), 0.0);
        assert!(close(spread(0.1, 10, true), 0.1));
        assert!(close(spread(0.1, 15, true), 0.2));
        assert_eq!(spread(0.1, 20, true), 1.0);
        // A byte-mode p_b above 1 is still a probability.
        assert_eq!(spread(1.5, 0, false), 1.0);
    }

    #[test]
    fn idle_time_decays_the_average_per_mean_packet_time() {
        // 125-byte packets at 1 Mb/s take 1 ms.
        let w = 0.1;
        let mut red = Red::new(RedParams { w_q: w, ..RedParams::new(50.0, 60.0, 0.1, 1_000_000, 125) }).unwrap();
        let mut rng = Rng::from_seed(1);
        red.state.avg = 8.0;
        red.on_departure(occ(0), 125, at_ms(1000));
        red.on_arrival(&sized(125), occ(0), at_ms(1010), &mut rng);
        // Ten packet times of decay, then the arrival's own sample of 0.
        let expected = 8.0 * (1.0 - w).powi(10) * (1.0 - w);
        assert!(close(red.state().avg, expected), "{} vs {expected}", red.state().avg);

        // m is fractional: 2.5 ms idle.
        red.state.avg = 8.0;
        red.on_departure(occ(0), 125, at_ms(2000));
        red.on_arrival(&sized(125), occ(0), SimTime(2_002_500_000), &mut rng);
        let expected = 8.0 * (1.0 - w).powf(2.5) * (1.0 - w);
        assert!(close(red.state().avg, expected), "{} vs {expected}", red.state().avg);
    }

    #[test]
    fn idle_decay_only_for_arrivals_to_an_empty_queue() {
        let w = 0.1;
        let mut red = Red::new(RedParams { w_q: w, ..RedParams::new(50.0, 60.0, 0.1, 1_000_000, 125) }).unwrap();
        let mut rng = Rng::from_seed(1);
        red.state.avg = 8.0;
        red.on_departure(occ(0), 125, at_ms(0));
        red.on_departure(occ(3), 125, at_ms(5)); // busy again: no new idle period
        red.on_arrival(&sized(125), occ(3), at_ms(20), &mut rng);
        assert!(close(red.state().avg, 0.9 * 8.0 + 0.1 * 3.0));

        // An arrival to an empty queue that is not queued leaves it idle from that instant.
        red.state.avg = 8.0;
        red.on_departure(occ(0), 125, at_ms(100));
        red.on_arrival(&sized(125), occ(0), at_ms(104), &mut rng);
        red.on_arrival(&sized(125), occ(0), at_ms(110), &mut rng);
        let expected = 8.0 * (1.0 - w).powi(4 + 1 + 6 + 1);
        assert!(close(red.state().avg, expected), "{} vs {expected}", red.state().avg);
    }

    #[test]
    fn above_max_th_forces_unless_gentle() {
        let mut red = instant(0.1);
        let mut rng = Rng::from_seed(1);
        red.on_arrival(&sized(1000), occ(12), SimTime::ZERO, &mut rng);
        for q in [15, 16, 40] {
            assert_eq!(red.on_arrival(&sized(1000), occ(q), SimTime::ZERO, &mut rng), Verdict::Forced);
            assert_eq!(red.state().count, 0);
            assert_eq!(red.probe().prob, 1.0);
        }
    }

    #[test]
    fn gentle_slope_from_max_p_at_max_th_to_one_at_twice_max_th() {
        let params = RedParams { w_q: 1.0, gentle: true, ..RedParams::new(4.0, 10.0, 0.1, 10_000_000, 1000) };
        let mut rng = Rng::from_seed(1);
        // p_b = max_p + (1 - max_p)(avg - max_th) / max_th, read at count 0 (p_a = p_b).
        for (q, p_b) in [(10, 0.1), (15, 0.1 + 0.9 * 0.5), (19, 0.1 + 0.9 * 0.9)] {
            let mut red = Red::new(params.clone()).unwrap();
            red.on_arrival(&sized(1000), occ(q), SimTime::ZERO, &mut rng);
            assert!(close(red.probe().prob, p_b), "q {q}: {} vs {p_b}", red.probe().prob);
        }
        let mut red = Red::new(params).unwrap();
        assert_eq!(red.on_arrival(&sized(1000), occ(20), SimTime::ZERO, &mut rng), Verdict::Forced);
        assert_eq!(red.on_arrival(&sized(1000), occ(35), SimTime::ZERO, &mut rng), Verdict::Forced);
    }

    #[test]
    fn byte_mode_measures_bytes_and_scales_p_b_by_size() {
        let params = RedParams { w_q: 1.0, byte_mode: true, ..RedParams::new(5.0, 15.0, 0.1, 10_000_000, 500) };
        let mut rng = Rng::from_seed(1);
        // 5000 bytes = 10 mean-size packets: p_b = 0.05 for a mean-size packet.
        let found = Occupancy { packets: 3, bytes: 5000 };
        for (size, p_b) in [(500, 0.05), (1000, 0.1), (250, 0.025)] {
            let mut red = Red::new(params.clone()).unwrap();
            red.on_arrival(&sized(size), found, SimTime::ZERO, &mut rng);
            assert!(close(red.state().avg, 10.0));
            assert!(close(red.probe().prob, p_b), "size {size}: {}", red.probe().prob);
        }
    }

    /// Gaps between signals at a fixed avg, in arrivals.
    fn gaps(red: &mut Red, arrivals: usize, seed: u64) -> Vec<usize> {
        let mut rng = Rng::from_seed(seed);
        let (mut gaps, mut since) = (Vec::new(), 0);
        for _ in 0..arrivals {
            since += 1;
            if red.on_arrival(&sized(1000), occ(10), SimTime::ZERO, &mut rng) == Verdict::Early {
                gaps.push(since);
                since = 0;
            }
        }
        gaps.remove(0); // the first gap starts from count = -1
        gaps
    }

    /// Checks that gaps are uniform on lo..=hi: the range, the mean, and each value's share.
    fn assert_uniform(gaps: &[usize], lo: usize, hi: usize) {
        assert_eq!(*gaps.iter().min().unwrap(), lo);
        assert_eq!(*gaps.iter().max().unwrap(), hi);
        let n = gaps.len() as f64;
        let mean = gaps.iter().sum::<usize>() as f64 / n;
        let expected = (lo + hi) as f64 / 2.0;
        assert!((mean / expected - 1.0).abs() < 0.01, "mean gap {mean} vs {expected}");
        let share = n / (hi - lo + 1) as f64;
        for g in lo..=hi {
            let seen = gaps.iter().filter(|x| **x == g).count() as f64;
            assert!((seen / share - 1.0).abs() < 0.15, "gap {g}: {seen} vs {share}");
        }
    }

    #[test]
    fn signals_are_uniformly_spaced_at_a_fixed_average() {
        // avg 10 between 5 and 15 with max_p 0.1: p_b = 0.05. Gaps are uniform on 1..=19, so
        // the rate is 1/10 = 2 p_b, where independent coin flips would give geometric gaps.
        let gaps = gaps(&mut instant(0.1), 600_000, 3);
        assert_uniform(&gaps, 1, 19);
        let rate = gaps.len() as f64 / gaps.iter().sum::<usize>() as f64;
        assert!((rate / 0.1 - 1.0).abs() < 0.01, "rate {rate}");
    }

    #[test]
    fn wait_spaces_signals_between_one_and_two_over_p_b() {
        let mut red = instant(0.1);
        red.params.wait = true;
        assert_uniform(&gaps(&mut red, 1_000_000, 4), 20, 39);
    }

    #[test]
    fn invalid_parameters_are_rejected_with_the_key_named() {
        let ok = RedParams::new(5.0, 15.0, 0.1, 1_000_000, 500);
        assert!(Red::new(ok.clone()).is_ok());
        assert!(Red::new(RedParams { w_q: 1.0, min_th: 0.0, max_p: 1.0, ..ok.clone() }).is_ok(), "the closed ends of the bounds");
        let cases = [
            (RedParams { min_th: 20.0, ..ok.clone() }, "min_th", "must satisfy 0 <= min_th < max_th (min_th = 20, max_th = 15)"),
            (RedParams { max_th: 5.0, ..ok.clone() }, "min_th", "must satisfy 0 <= min_th < max_th (min_th = 5, max_th = 5)"),
            (RedParams { min_th: -1.0, ..ok.clone() }, "min_th", "must satisfy 0 <= min_th < max_th (min_th = -1, max_th = 15)"),
            (RedParams { min_th: f64::NAN, ..ok.clone() }, "min_th", "must satisfy 0 <= min_th < max_th (min_th = NaN, max_th = 15)"),
            (RedParams { max_th: f64::INFINITY, ..ok.clone() }, "max_th", "must be finite, got inf"),
            (RedParams { max_p: 0.0, ..ok.clone() }, "max_p", "must be in (0, 1], got 0"),
            (RedParams { max_p: 1.5, ..ok.clone() }, "max_p", "must be in (0, 1], got 1.5"),
            (RedParams { w_q: 0.0, ..ok.clone() }, "w_q", "must be in (0, 1], got 0"),
            (RedParams { w_q: 1.01, ..ok.clone() }, "w_q", "must be in (0, 1], got 1.01"),
            (RedParams { w_q: f64::NAN, ..ok.clone() }, "w_q", "must be in (0, 1], got NaN"),
            (RedParams { mean_packet_size: 0, ..ok.clone() }, "mean_packet_size", "must be positive"),
            (RedParams { link_bps: 0, ..ok }, "", "RED needs a link rate of at least 1 bit/s (idle-time decay)"),
        ];
        for (params, key, message) in cases {
            assert_eq!(Red::new(params).unwrap_err(), SettingError::new(key, message));
        }
    }

    fn ctx(limit: Limit) -> QueueContext {
        QueueContext { link_bps: 10_000_000, limit, profile: Default::default(), delay: crate::sim::Dur::ZERO }
    }

    #[test]
    fn spec_defaults_are_the_documented_ones() {
        let spec = RedSpec { min_th: Some(num(5.0)), max_th: Some(num(15.0)), ..RedSpec::default() };
        let p = spec.resolve(&ctx(Limit::Packets(100))).unwrap();
        let expected = RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: false,
            byte_mode: false,
            wait: false,
            link_bps: 10_000_000,
            mean_packet_size: 1000,
            mark_p: 1.0,
            overload_early: false,
            entry_grace: false,
            ns2_idle: false,
            ns2_bytes: false,
        };
        assert_eq!(p, expected);
        let spec =
            RedSpec { max_p: Some(0.5), w_q: Some(num(0.1)), gentle: Some(true), wait: Some(true), byte_mode: Some(true), mean_packet_size: Some(500), ..spec };
        let p = spec.resolve(&ctx(Limit::Packets(100))).unwrap();
        assert_eq!(p, RedParams { max_p: 0.5, w_q: 0.1, gentle: true, wait: true, byte_mode: true, mean_packet_size: 500, ..expected });
    }

    #[test]
    fn ns2_profile_defaults_are_ns2s_and_explicit_values_win() {
        let ns2 = QueueContext { profile: Profile::Ns2, ..ctx(Limit::Packets(100)) };
        let spec = RedSpec { min_th: Some(num(5.0)), max_th: Some(num(15.0)), ..RedSpec::default() };
        let p = spec.resolve(&ns2).unwrap();
        // gentle_ true, wait_ true, mean_pktsize_ 500, use_mark_p_ with mark_p_ 0.1, ns-2's
        // grace and idle rules, byte mode with ns-2's rule (bytes_, queue_in_bytes_) and the
        // automatic weight (q_weight_ -1); thresholds and max_p as given.
        let rfc = spec.resolve(&ctx(Limit::Packets(100))).unwrap();
        let (_, _, w_q) = ns2_automatic(10_000_000, 0.0, 500);
        let expected = RedParams {
            gentle: true,
            wait: true,
            mean_packet_size: 500,
            mark_p: 0.1,
            overload_early: true,
            entry_grace: true,
            ns2_idle: true,
            byte_mode: true,
            ns2_bytes: true,
            w_q,
            ..rfc.clone()
        };
        assert_eq!(p, expected);
        let spec = RedSpec {
            w_q: Some(num(0.002)),
            byte_mode: Some(false),
            byte_rule: Some("scale".into()),
            gentle: Some(false),
            wait: Some(false),
            mean_packet_size: Some(1000),
            mark_p: Some(0.2),
            overload: Some("forced".into()),
            entry_grace: Some(false),
            idle: Some("linear".into()),
            ..spec
        };
        assert_eq!(spec.resolve(&ns2).unwrap(), RedParams { mark_p: 0.2, ..rfc.clone() });
        let bad = RedSpec { byte_rule: Some("bytes".into()), ..spec.clone() };
        assert_eq!(bad.resolve(&ns2).unwrap_err(), SettingError::new("byte_rule", "unknown rule \"bytes\" (expected \"scale\" or \"ns2\")"));
        let spec = RedSpec { idle: Some("ns3".into()), ..spec };
        assert_eq!(spec.resolve(&ns2).unwrap_err().key, "idle");
        let spec = RedSpec { idle: None, mark_p: Some(0.0), ..spec };
        assert_eq!(spec.resolve(&ns2).unwrap_err(), SettingError::new("mark_p", "must be in (0, 1], got 0"));
    }

    fn num(x: f64) -> NumOrAuto {
        NumOrAuto::Num(x)
    }

    const AUTO: NumOrAuto = NumOrAuto::Auto(AutoWord::Auto);

    #[test]
    fn automatic_parameters_are_ns2s() {
        // 10 Mb/s in 500-byte packets: C = 2500 packets/s. min_th = max(5, 2500 * 0.005 / 2
        // = 6.25), max_th = 18.75. With 20 ms of delay R = 3 (0.02 + 0.0004) = 61.2 ms, below
        // ns-2's floor of 100 ms: w_q = 1 - exp(-1 / (10 * 0.1 * 2500)) = 3.9992e-4.
        let (min_th, max_th, w_q) = ns2_automatic(10_000_000, 0.020, 500);
        assert!(close(min_th, 6.25) && close(max_th, 18.75), "{min_th} {max_th}");
        assert!(close(w_q, 1.0 - (-1.0f64 / 2500.0).exp()), "{w_q}");
        // 1.5 Mb/s: C = 375; min_th = 5 (375 * 0.005 / 2 < 5). 100 ms: R = 3 (0.1 + 1/375).
        let (min_th, max_th, w_q) = ns2_automatic(1_500_000, 0.1, 500);
        assert_eq!((min_th, max_th), (5.0, 15.0));
        let r = 3.0 * (0.1 + 1.0 / 375.0);
        assert!(close(w_q, 1.0 - (-1.0f64 / (10.0 * r * 375.0)).exp()), "{w_q}");
        // Under the ns2 profile a RED with no keys gets them; "auto" asks for them under rfc.
        let c = QueueContext { link_bps: 10_000_000, limit: Limit::Packets(50), profile: Profile::Ns2, delay: crate::sim::Dur::from_millis(20) };
        let p = RedSpec::default().resolve(&c).unwrap();
        assert_eq!((p.min_th, p.max_th, p.w_q, p.byte_mode, p.ns2_bytes), (6.25, 18.75, ns2_automatic(10_000_000, 0.02, 500).2, true, true));
        let rfc = QueueContext { profile: Profile::Rfc, ..c };
        let spec = RedSpec { min_th: Some(AUTO), max_th: Some(AUTO), w_q: Some(AUTO), mean_packet_size: Some(500), ..RedSpec::default() };
        let q = spec.resolve(&rfc).unwrap();
        assert_eq!((q.min_th, q.max_th, q.w_q, q.byte_mode), (p.min_th, p.max_th, p.w_q, false));
        // An explicit min_th with an automatic max_th: 3 min_th, as ns-2; the automatic
        // max_th may exceed the buffer, a given one may not.
        let spec = RedSpec { min_th: Some(num(20.0)), ..RedSpec::default() };
        assert_eq!(spec.resolve(&c).unwrap().max_th, 60.0);
        let spec = RedSpec { max_th: Some(num(60.0)), ..spec };
        assert_eq!(spec.resolve(&c).unwrap_err().key, "max_th");
        // Under rfc the thresholds stay required.
        let err = RedSpec::default().resolve(&rfc).unwrap_err();
        assert_eq!(err, SettingError::new("min_th", "required (RED's thresholds have no default; \"auto\" gives ns-2's)"));
    }

    #[test]
    fn a_threshold_is_a_number_or_auto() {
        let read = |text: &str| crate::settings::table::read::<RedSpec>(&text.parse::<Table>().unwrap());
        assert_eq!(read("min_th = \"auto\"\nmax_th = 15").unwrap().min_th, Some(AUTO));
        assert_eq!(read("w_q = 0.01").unwrap().w_q, Some(num(0.01)));
        let err = read("w_q = \"automatic\"").unwrap_err();
        assert_eq!(err.key, "w_q");
        assert!(err.message.contains("a number or \"auto\""), "{}", err.message);
    }

    #[test]
    fn ns2_byte_rule_counts_bytes_in_mean_packets_and_scales_after_the_spread() {
        // min_th 5, max_th 15, max_p 0.1, avg = 10 mean-size (500-byte) packets: p_b = 0.05.
        let params = RedParams { w_q: 1.0, byte_mode: true, ns2_bytes: true, ..RedParams::new(5.0, 15.0, 0.1, 10_000_000, 500) };
        let found = Occupancy { packets: 5, bytes: 5000 };
        let mut rng = Rng::from_seed(1);
        let mut red = Red::new(params.clone()).unwrap();
        red.state.count = 0;
        // A 1000-byte arrival: count_bytes 1000 = 2 mean packets; p_a = 0.05 / (1 - 0.1) =
        // 0.0556, then scaled by 1000 / 500.
        red.on_arrival(&sized(1000), found, SimTime::ZERO, &mut rng);
        assert!(close(red.probe().prob, 0.05 / 0.9 * 2.0), "{}", red.probe().prob);
        // A 250-byte one after it: 1250 bytes = 2 packets (integer division), scaled by 0.5.
        red.state.count_bytes = 1000;
        red.on_arrival(&sized(250), found, SimTime::ZERO, &mut rng);
        assert!(close(red.probe().prob, 0.05 / 0.9 * 0.5), "{}", red.probe().prob);
        // The rule scale-first: p_b = 0.05 * 2 = 0.1 spread over 1 packet: 0.1 / 0.9.
        let mut red = Red::new(RedParams { ns2_bytes: false, ..params.clone() }).unwrap();
        red.state.count = 0;
        red.on_arrival(&sized(1000), found, SimTime::ZERO, &mut rng);
        assert!(close(red.probe().prob, 0.1 / 0.9), "{}", red.probe().prob);
        // mark_p reads the unscaled p_b: 0.05 <= mark_p 0.06 marks a 1000-byte packet, which
        // the scale-first rule (p_b 0.1) would drop.
        let marking = RedParams { mark_p: 0.06, ..params };
        let mut red = Red::new(marking.clone()).unwrap();
        let verdict = (0..1000).map(|_| red.on_arrival(&sized(1000), found, SimTime::ZERO, &mut rng)).find(|v| *v != Verdict::Admit);
        assert_eq!(verdict, Some(Verdict::Early));
        let mut red = Red::new(RedParams { ns2_bytes: false, ..marking }).unwrap();
        let verdict = (0..1000).map(|_| red.on_arrival(&sized(1000), found, SimTime::ZERO, &mut rng)).find(|v| *v != Verdict::Admit);
        assert_eq!(verdict, Some(Verdict::EarlyDrop));
        // A signal restarts the byte count.
        assert_eq!(red.state().count_bytes, 0);
    }

    /// RED with ns-2's rules, `w_q = 1` (avg is the queue found), min_th 5, max_th 15.
    fn ns2_instant(max_p: f64, gentle: bool) -> Red {
        let params = RedParams { w_q: 1.0, gentle, mark_p: 0.1, overload_early: true, entry_grace: true, ..RedParams::new(5.0, 15.0, max_p, 10_000_000, 1000) };
        Red::new(params).unwrap()
    }

    #[test]
    fn ns2_rules_signal_early_with_certainty_past_max_th_and_drop_past_mark_p() {
        let mut rng = Rng::from_seed(1);
        // Non-gentle: avg >= max_th is an early signal with p_b = 1, not a forced one, and
        // it drops even what ECN could mark (p_b > mark_p).
        let mut red = ns2_instant(0.1, false);
        assert_eq!(red.on_arrival(&sized(1000), occ(16), SimTime::ZERO, &mut rng), Verdict::Admit, "the first arrival in the region");
        assert_eq!(red.state().count, 1);
        for q in [16, 20, 40] {
            assert_eq!(red.on_arrival(&sized(1000), occ(q), SimTime::ZERO, &mut rng), Verdict::EarlyDrop);
            assert_eq!(red.state().count, 0);
        }
        // In the linear region p_b <= max_p <= mark_p: a signal is an ordinary early one.
        let mut red = ns2_instant(0.1, false);
        let mut kinds = std::collections::BTreeSet::new();
        for _ in 0..2000 {
            kinds.insert(format!("{:?}", red.on_arrival(&sized(1000), occ(14), SimTime::ZERO, &mut rng)));
        }
        assert_eq!(kinds.into_iter().collect::<Vec<_>>(), ["Admit", "Early"]);
        // Gentle with max_p 0.05: p_b crosses mark_p (0.1) at avg = 15 (1 + 0.05 / 0.95) =
        // 15.79; below it signals may be marks, above it they drop.
        for (q, want) in [(15, Verdict::Early), (17, Verdict::EarlyDrop), (29, Verdict::EarlyDrop), (30, Verdict::EarlyDrop)] {
            let mut red = ns2_instant(0.05, true);
            red.on_arrival(&sized(1000), occ(q), SimTime::ZERO, &mut rng);
            let got = (0..200).map(|_| red.on_arrival(&sized(1000), occ(q), SimTime::ZERO, &mut rng)).find(|v| *v != Verdict::Admit);
            assert_eq!(got, Some(want), "q {q}");
        }
    }

    #[test]
    fn ns2_rules_give_grace_to_short_queues_and_entries_and_reset_count_on_overflow() {
        let mut rng = Rng::from_seed(1);
        let mut red = ns2_instant(0.1, false);
        // avg = 40 but the queue holds one packet: no signal, and the next arrival with a
        // longer queue is an entry again.
        assert_eq!(red.on_arrival(&sized(1000), Occupancy { packets: 1, bytes: 1000 }, SimTime::ZERO, &mut rng), Verdict::Admit);
        red.state.avg = 40.0;
        let mut red2 = red.clone();
        red2.state.count = 7;
        red2.state.avg = 40.0;
        assert_eq!(red2.decide(Occupancy { packets: 1, bytes: 1000 }, 1000, &mut rng), Verdict::Admit);
        assert_eq!(red2.state().count, -1);
        assert_eq!(red2.decide(occ(20), 1000, &mut rng), Verdict::Admit, "entry");
        assert_eq!(red2.decide(occ(20), 1000, &mut rng), Verdict::EarlyDrop);
        red2.state.count = 5;
        assert!(red2.on_overflow(), "counted as an overflow whatever the verdict");
        assert_eq!(red2.state().count, 0);
        // A full buffer while avg < min_th: the drop is an overflow, and the next arrival
        // past min_th is still an entry (ns-2's `old_` stays 0), then a candidate.
        let mut red3 = ns2_instant(1.0, false);
        assert_eq!(red3.on_arrival(&sized(1000), occ(4), SimTime::ZERO, &mut rng), Verdict::Admit);
        assert!(red3.on_overflow());
        assert_eq!(red3.state().count, -1);
        assert_eq!(red3.on_arrival(&sized(1000), occ(14), SimTime::ZERO, &mut rng), Verdict::Admit, "entry after the overflow");
        assert_eq!(red3.state().count, 1);
        // p_b = 0.9 and count 2: p_a = 1.
        assert_eq!(red3.on_arrival(&sized(1000), occ(14), SimTime::ZERO, &mut rng), Verdict::EarlyDrop);
        // In the region the overflow resets count as a signal does.
        red3.state.count = 3;
        assert!(red3.on_overflow());
        assert_eq!(red3.state().count, 0);
        // Without the rules an overflow leaves count alone.
        let mut plain = instant(0.1);
        plain.state.count = 5;
        assert!(!plain.on_overflow());
        assert_eq!(plain.state().count, 5);
    }

    #[test]
    fn ns2_idle_counts_whole_packet_times_from_the_end_of_transmission() {
        // 125-byte packets at 1 Mb/s take 1 ms; the last one leaves at 1000 ms, so the queue
        // is idle from 1001 ms.
        let w = 0.1;
        let params = RedParams { w_q: w, ns2_idle: true, ..RedParams::new(50.0, 60.0, 0.1, 1_000_000, 125) };
        let mut red = Red::new(params).unwrap();
        let mut rng = Rng::from_seed(1);
        red.state.avg = 8.0;
        red.on_departure(occ(0), 125, at_ms(1000));
        red.on_arrival(&sized(125), occ(0), SimTime(1_000_500_000), &mut rng);
        assert!(close(red.state().avg, 8.0 * (1.0 - w)), "during the transmission: no decay");
        red.state.avg = 8.0;
        red.on_arrival(&sized(125), occ(0), SimTime(1_003_700_000), &mut rng);
        assert!(close(red.state().avg, 8.0 * (1.0 - w).powi(2) * (1.0 - w)), "2.7 packet times count 2: {}", red.state().avg);
    }

    #[test]
    fn spec_needs_both_thresholds_and_max_th_within_the_buffer() {
        let c = ctx(Limit::Packets(30));
        let spec = RedSpec { min_th: Some(num(5.0)), ..RedSpec::default() };
        assert_eq!(spec.resolve(&c).unwrap_err(), SettingError::new("max_th", "required (RED's thresholds have no default; \"auto\" gives ns-2's)"));
        let spec = RedSpec { max_th: Some(num(15.0)), ..RedSpec::default() };
        assert_eq!(spec.resolve(&c).unwrap_err().key, "min_th");
        let spec = RedSpec { min_th: Some(num(5.0)), max_th: Some(num(30.0)), ..RedSpec::default() };
        assert!(spec.resolve(&c).is_ok(), "max_th may equal the buffer");
        let spec = RedSpec { max_th: Some(num(31.0)), ..spec };
        assert_eq!(spec.resolve(&c).unwrap_err(), SettingError::new("max_th", "must not exceed the buffer limit (30), got 31"));
        // A byte limit counts in mean-size packets: 15,000 bytes of 500 are 30 packets.
        let spec = RedSpec { max_th: Some(num(30.0)), mean_packet_size: Some(500), ..spec };
        assert!(spec.resolve(&ctx(Limit::Bytes(15_000))).is_ok());
        assert_eq!(spec.resolve(&ctx(Limit::Bytes(14_999))).unwrap_err().key, "max_th");
        // Context-free bounds come from RedParams::validate.
        let spec = RedSpec { w_q: Some(num(0.0)), ..spec };
        assert_eq!(spec.resolve(&ctx(Limit::Bytes(15_000))).unwrap_err(), SettingError::new("w_q", "must be in (0, 1], got 0"));
    }
}
