//! TCP Prague (draft-briscoe-iccrg-prague-congestion-control-04), the scalable congestion
//! control of L4S, on the window's rules; the reference implementation's exact rules are
//! Linux's out-of-tree `tcp_prague.c`, which the draft describes.
//!
//! Prague is DCTCP adapted to the public Internet (the draft's introduction): it sends every
//! packet ECT(1), the L4S identifier (RFC 9331), reads the congestion signal from Accurate ECN
//! feedback (RFC 9768), and responds to the fraction of packets marked rather than to the
//! fact of a mark. Its registration ([`EcnUse::L4s`]) asks the sender for ECT(1) on every
//! packet and for AccECN in the handshake (a receiver without it gives RFC 3168's feedback;
//! one without ECN turns ECN off, and Prague then runs as Reno would, as Linux's
//! `prague-reno` fallback).
//!
//! - **The estimate α** (the draft's "The Congestion Response": DCTCP's EWMA): over each
//!   round (from the ACK that opens it until SND.UNA passes the SND.MAX recorded then), count
//!   the packets delivered and those reported CE-marked (AccECN's count, `Ack::ce`; under RFC
//!   3168's feedback, every packet an ECE-bearing ACK acknowledges); at the round's end
//!   `α = (1 − g) α + g F`, `F` the marked fraction, g = 1/16. α starts at 1 and is not
//!   updated before the first CE mark (Linux: `saw_ce`, "proof that there's an AQM on the
//!   path"), so a flow meets its first mark as cautiously as Reno.
//! - **The reduction** for ECN: at most once per round trip (the sender answers ECN at most
//!   once per window), `cwnd ← cwnd (1 − α/2)`, kept in fractions of a byte so that the
//!   small, frequent reductions of a low marking probability add up exactly (the draft,
//!   "fractional window"; Linux `cwnd_cnt`); ssthresh follows the window, so a mark ends
//!   slow start. The window is never below 2 segments (Linux `MIN_CWND`).
//! - **Additive increase** on every ACK, marked or not (the draft: the increase is not held
//!   back while congestion is signalled, since an L4S AQM marks continually), for the packets
//!   it acknowledges that were not marked (so the increase over a round is proportional to
//!   `1 − p`, "unsaturated marking"): `ai` segments per window of data.
//! - **RTT independence** (the draft's "Reduced RTT Dependence", Linux's default
//!   `RTT_CONTROL_RATE`): a flow whose smoothed RTT is below the reference RTT (25 ms, Linux
//!   `prague_rtt_target`) grows by `ai = (srtt / ref)²` segments per round, so that its rate
//!   grows by one segment per reference RTT per reference RTT whatever its own RTT; α is then
//!   updated, and the window cut for ECN, at most once per reference RTT. It applies once a
//!   flow has spent `rtt_transition` rounds (500, Linux `prague_rtt_transition`) out of slow
//!   start, since it slows short flows.
//! - **Pacing** (the draft's "Pacing"): at `cwnd / srtt` on the wire in congestion avoidance
//!   (100 %), twice that in slow start while `cwnd < ssthresh / 2` (Linux
//!   `prague_update_pacing_rate`); until the first RTT sample, the window alone.
//! - **Loss** (the draft's "Loss Response", the classic fallback): the window's RFC 5681 and
//!   RFC 6582 rules, a halving, as Reno; a timeout likewise.
//!
//! Departures from Linux: the fractional window is in bytes (Linux counts segments with
//! 20-bit fractions); no TSO/GSO burst sizing (ccsim sends segments one by one); the classic
//! ECN AQM detection (`prague_ecn_fallback`, off by default in Linux) is not modelled.

use super::spec::{CcContext, EcnUse, Recovery, Registration};
use super::{Ack, CcConfig, Controller, Event, NewRenoConfig, Signal, Window};
use crate::packet::TCP_IP_HEADER;
use crate::settings::table::{keys_of, one_of, read, SettingError, Table};
use crate::settings::units::Duration;
use crate::sim::{Dur, SimTime};
use serde::Deserialize;

/// Prague's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct PragueConfig {
    /// g, the weight of a round's marked fraction in α: 1/16 (the draft, as DCTCP's RFC 8257
    /// 3.3; Linux `PRAGUE_SHIFT_G` = 4).
    pub g: f64,
    /// α before the first update: 1 (Linux `PRAGUE_MAX_ALPHA` at `prague_init`).
    pub init_alpha: f64,
    /// The reference RTT of RTT independence: 25 ms (the draft; Linux `prague_rtt_target`).
    pub rtt_target: Dur,
    /// RTT independence on (Linux's default `RTT_CONTROL_RATE`) or off (`RTT_CONTROL_NONE`).
    pub rtt_scaling: bool,
    /// Rounds out of slow start before RTT independence applies: 500 (Linux
    /// `prague_rtt_transition`).
    pub rtt_transition: u32,
    /// Slow start, losses and fast recovery: the window's rules.
    pub window: NewRenoConfig,
}

impl Default for PragueConfig {
    fn default() -> Self {
        PragueConfig {
            g: 1.0 / 16.0,
            init_alpha: 1.0,
            rtt_target: Dur::from_millis(25),
            rtt_scaling: true,
            rtt_transition: 500,
            window: NewRenoConfig::default(),
        }
    }
}

impl PragueConfig {
    /// A Prague window of `init_cwnd` segments of `mss` bytes, threshold `init_ssthresh`.
    pub fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> Prague {
        Prague {
            w: self.window.window(mss, init_cwnd, init_ssthresh),
            cfg: self.clone(),
            alpha: self.init_alpha,
            saw_ce: false,
            carry: 0.0,
            round_end: None,
            delivered: 0.0,
            marked: 0.0,
            rounds: 0,
            alpha_at: SimTime::ZERO,
            cut_at: None,
            srtt: None,
        }
    }
}

/// Prague's state: the window, the estimate and its round, the fraction of the window.
#[derive(Clone, Debug, PartialEq)]
pub struct Prague {
    w: Window,
    cfg: PragueConfig,
    alpha: f64,
    /// A CE mark has been reported: α is updated from now on.
    saw_ce: bool,
    /// The fraction of a byte the window holds beyond `w.cwnd` (negative: owed), kept across
    /// increases and reductions.
    carry: f64,
    /// The SND.MAX recorded when the current round began.
    round_end: Option<u64>,
    /// Packets delivered in this round, and those reported CE-marked.
    delivered: f64,
    marked: f64,
    /// Rounds since slow start ended.
    rounds: u32,
    /// When α was last updated.
    alpha_at: SimTime,
    /// When the window was last cut for ECN.
    cut_at: Option<SimTime>,
    /// The smoothed RTT of the last ACK.
    srtt: Option<Dur>,
}

impl Prague {
    /// The congestion estimate α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The fractional window, segments.
    pub fn cwnd_segments(&self) -> f64 {
        (self.w.cwnd as f64 + self.carry) / self.w.mss() as f64
    }

    fn min_cwnd(&self) -> u32 {
        2 * self.w.mss()
    }

    /// RTT independence applies: on, out of slow start, past the transition.
    fn rtt_independent(&self) -> bool {
        self.cfg.rtt_scaling && !self.w.in_slow_start() && self.rounds >= self.cfg.rtt_transition
    }

    /// The additive increase, segments per window of data acknowledged: 1, or `(srtt /
    /// ref)²` for a flow that is RTT-independent with an RTT below the reference.
    pub fn ai(&self) -> f64 {
        match self.srtt {
            Some(srtt) if self.rtt_independent() && srtt < self.cfg.rtt_target && srtt > Dur::ZERO => {
                let r = srtt.as_nanos() as f64 / self.cfg.rtt_target.as_nanos() as f64;
                r * r
            }
            _ => 1.0,
        }
    }

    /// Moves whole bytes of `carry` into the window, no lower than 2 segments.
    fn settle(&mut self) {
        let whole = self.carry.trunc();
        self.carry -= whole;
        let cwnd = self.w.cwnd as f64 + whole;
        if cwnd < self.min_cwnd() as f64 {
            self.w.cwnd = self.min_cwnd();
            self.carry = 0.0;
        } else {
            self.w.cwnd = cwnd.min(u32::MAX as f64) as u32;
        }
    }

    /// The packets `ack` acknowledges, and those it reports CE-marked.
    fn counts(&self, ack: &Ack) -> (f64, f64) {
        let packets = ack.acked as f64 / self.w.mss() as f64;
        let marked = match ack.ce {
            Some(ce) => ce as f64,
            None if ack.ece => packets,
            None => 0.0,
        };
        (packets, marked.min(packets))
    }

    /// Counts `ack` into the round, and at the round's end updates α (once a mark has been
    /// seen, and with RTT independence at most once per reference RTT) and starts the next.
    fn observe(&mut self, ack: &Ack, packets: f64, marked: f64) {
        self.srtt = ack.srtt.or(self.srtt);
        self.saw_ce |= marked > 0.0;
        self.delivered += packets;
        self.marked += marked;
        let end = *self.round_end.get_or_insert(ack.max);
        if ack.una <= end {
            return;
        }
        if self.saw_ce {
            if self.rtt_independent() && ack.now - self.alpha_at < self.cfg.rtt_target {
                return; // the round runs on until a reference RTT has passed
            }
            let fraction = if self.delivered > 0.0 { self.marked / self.delivered } else { 0.0 };
            self.alpha = ((1.0 - self.cfg.g) * self.alpha + self.cfg.g * fraction).min(1.0);
            self.alpha_at = ack.now;
        }
        self.round_end = Some(ack.max);
        self.delivered = 0.0;
        self.marked = 0.0;
        if !self.w.in_slow_start() {
            self.rounds = self.rounds.saturating_add(1);
        }
    }

    /// Growth for `ack`: slow start, or the additive increase, for its unmarked packets.
    fn grow(&mut self, ack: &Ack, packets: f64, marked: f64) {
        let unmarked = packets - marked;
        if unmarked <= 0.0 || !ack.cwnd_limited {
            return;
        }
        let mss = self.w.mss() as f64;
        if self.w.in_slow_start() {
            self.w.grow(&Ack { ece: false, acked: (unmarked * mss).round() as u64, ..*ack });
            return;
        }
        // ai segments per window: unmarked × ai × MSS / cwnd_segments bytes.
        self.carry += unmarked * self.ai() * mss * mss / self.w.cwnd.max(1) as f64;
        self.settle();
    }
}

impl Controller for Prague {
    fn window(&self) -> &Window {
        &self.w
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    fn on_ack(&mut self, ack: &Ack) {
        let (packets, marked) = self.counts(ack);
        self.observe(ack, packets, marked);
        self.grow(ack, packets, marked);
    }

    /// For ECN: `cwnd (1 − α/2)` with its fraction, ssthresh the window, at least 2 segments
    /// (with RTT independence, at most once per reference RTT); a loss or a timeout: the
    /// window's halving, the classic fallback.
    fn reduce(&mut self, ev: &Event, signal: Signal) -> u32 {
        if signal != Signal::Ecn {
            self.carry = 0.0;
            return self.w.reduce(ev);
        }
        let rested = self.cut_at.is_none_or(|t| ev.now - t >= self.cfg.rtt_target);
        if self.rtt_independent() && !rested {
            return self.w.cwnd;
        }
        self.cut_at = Some(ev.now);
        self.carry -= (self.w.cwnd as f64 + self.carry) * self.alpha / 2.0;
        self.settle();
        self.w.ssthresh = self.w.cwnd.max(self.w.min_ssthresh());
        self.w.cwnd
    }

    fn on_partial_ack(&mut self, ack: &Ack) {
        let (packets, marked) = self.counts(ack);
        self.observe(ack, packets, marked);
        self.w.deflate(ack);
    }

    fn on_recovery_end(&mut self, ack: &Ack) {
        let (packets, marked) = self.counts(ack);
        self.observe(ack, packets, marked);
        self.w.end_recovery(ack);
    }

    /// The cut of [`reduce`](Controller::reduce), whatever the window was.
    fn on_ecn_echo(&mut self, ev: &Event) {
        self.w.cwnd = self.reduce(ev, Signal::Ecn);
    }

    fn paces(&self) -> bool {
        true
    }

    /// `cwnd / srtt` on the wire, twice that while `cwnd < ssthresh / 2`.
    fn pacing_rate(&self) -> Option<f64> {
        let srtt = self.srtt.filter(|d| *d > Dur::ZERO)?;
        let mss = self.w.mss() as f64;
        let wire = self.w.cwnd as f64 / mss * (mss + TCP_IP_HEADER as f64);
        let ratio = if self.w.cwnd < self.w.ssthresh / 2 { 2.0 } else { 1.0 };
        Some(ratio * wire / srtt.as_secs_f64())
    }
}

/// Prague's own keys, `tcp.prague.*`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PragueSpec {
    /// `g`, the weight of the newest round's marked fraction in α; default 1/16.
    pub g: Option<f64>,
    /// α before the first update; default 1.
    pub init_alpha: Option<f64>,
    /// The reference RTT of RTT independence; default 25 ms.
    pub rtt_target: Option<Duration>,
    /// RTT independence: `rate` (default, Linux `RTT_CONTROL_RATE`) or `none`.
    pub rtt_scaling: Option<String>,
    /// Rounds out of slow start before RTT independence applies; default 500.
    pub rtt_transition: Option<u32>,
}

/// `tcp.variant = "prague"`: RFC 6582's loss recovery, ECT(1) and Accurate ECN.
pub const REGISTRATION: Registration = Registration { name: "prague", recovery: Recovery::NewReno, ecn: EcnUse::L4s, keys: keys_of::<PragueSpec>, build };

fn build(table: &Table, ctx: &CcContext) -> Result<CcConfig, SettingError> {
    let spec = read::<PragueSpec>(table)?;
    let d = PragueConfig::default();
    let (g, init_alpha) = super::dctcp::estimate_keys(spec.g, spec.init_alpha)?;
    let rtt_target = match spec.rtt_target {
        Some(t) if !(t.0 > 0.0 && t.0.is_finite()) => return Err(SettingError::new("rtt_target", format!("must be a positive duration, got {}s", t.0))),
        Some(t) => t.dur(),
        None => d.rtt_target,
    };
    let rtt_scaling = match spec.rtt_scaling.as_deref() {
        None | Some("rate") => true,
        Some("none") => false,
        Some(other) => {
            return Err(SettingError::new(
                "rtt_scaling",
                format!("unknown value {other:?} (expected {})", one_of(&["\"rate\"".into(), "\"none\"".into()], "or")),
            ))
        }
    };
    let rtt_transition = spec.rtt_transition.unwrap_or(d.rtt_transition);
    Ok(CcConfig::Prague(PragueConfig { g, init_alpha, rtt_target, rtt_scaling, rtt_transition, window: ctx.window.clone() }))
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    fn prague(cwnd_segs: u32, ssthresh_segs: u32) -> Prague {
        PragueConfig::default().build(MSS, cwnd_segs, ssthresh_segs * MSS)
    }

    /// One round of `segs` ACKs of one segment each, `marked` of them reporting one CE mark
    /// by AccECN, at `now`, starting at `una`; returns the new `una`.
    fn round(p: &mut Prague, una: u64, segs: u64, marked: u64, now: SimTime, srtt: Dur) -> u64 {
        let max = una + segs * MSS as u64;
        for i in 0..segs {
            let ce = (i < marked) as u32;
            let a = Ack { now, una: una + (i + 1) * MSS as u64, max, ce: Some(ce), ece: ce > 0, srtt: Some(srtt), ..ack(MSS, 0) };
            p.on_ack(&a);
        }
        max
    }

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + Dur::from_millis(ms)
    }

    #[test]
    fn alpha_starts_at_one_waits_for_a_mark_and_then_follows_the_marked_fraction() {
        let mut p = prague(10, 5);
        let rtt = Dur::from_millis(40);
        let mut una = round(&mut p, 0, 10, 0, at(0), rtt);
        una = round(&mut p, una, 10, 0, at(40), rtt);
        assert_eq!(p.alpha(), 1.0, "no mark yet: no update");
        // Rounds with 2 of 10 packets marked (AccECN's exact count): α tends to 0.2. The
        // first update's round also holds the ACK that closed the one before.
        let mut expected = 1.0;
        for i in 0..100 {
            una = round(&mut p, una, 10, 2, at(80 + 40 * i), rtt);
            if i > 0 {
                expected = expected * 15.0 / 16.0 + 0.2 / 16.0;
            }
        }
        assert!((p.alpha() - 0.2).abs() < 0.01, "α {} converges to F = 0.2", p.alpha());
        assert!(p.alpha() >= 0.2 && (p.alpha() - expected).abs() < 0.02, "α {} follows the average {expected}", p.alpha());
    }

    #[test]
    fn a_mark_cuts_by_alpha_over_two_with_the_fraction_kept() {
        let mut p = prague(100, 200);
        p.alpha = 0.1;
        p.on_ecn_echo(&Event { now: at(0), ..event(100 * MSS, 0) });
        assert_eq!((p.cwnd(), p.ssthresh()), (95 * MSS, 95 * MSS), "cwnd (1 − 0.1/2); ssthresh follows, slow start ends");
        // A tiny α: the cut is a fraction of a byte short of whole, and the fractions add.
        p.alpha = 0.000_01;
        let before = p.cwnd_segments();
        for i in 1..=10 {
            p.on_ecn_echo(&Event { now: at(i * 100), ..event(95 * MSS, 0) });
        }
        let expected = before * (1.0 - 0.000_005f64).powi(10);
        assert!((p.cwnd_segments() - expected).abs() < 1e-6, "{} = {expected}", p.cwnd_segments());
        assert!(p.cwnd() < 95 * MSS, "4.75 bytes taken in all");
        let mut small = prague(3, 2);
        small.alpha = 1.0;
        small.on_ecn_echo(&Event { now: at(0), ..event(3 * MSS, 0) });
        assert_eq!(small.cwnd(), 2 * MSS, "never below 2 segments");
    }

    #[test]
    fn additive_increase_counts_unmarked_packets_only() {
        let mut p = prague(10, 5);
        let rtt = Dur::from_millis(40);
        p.on_ack(&Ack { now: at(0), ce: Some(0), srtt: Some(rtt), ..ack(MSS, 10 * MSS) });
        assert_eq!(p.cwnd(), 10 * MSS + MSS / 10, "one segment per window: MSS/10 per ACK");
        let mut q = prague(10, 5);
        q.on_ack(&Ack { now: at(0), ce: Some(1), ece: true, srtt: Some(rtt), ..ack(MSS, 10 * MSS) });
        assert_eq!(q.cwnd(), 10 * MSS, "the packet was marked: no increase");
        let mut r = prague(10, 5);
        r.on_ack(&Ack { now: at(0), acked: 2 * MSS as u64, ce: Some(1), ece: true, srtt: Some(rtt), ..ack(MSS, 10 * MSS) });
        assert_eq!(r.cwnd(), 10 * MSS + MSS / 10, "two acknowledged, one marked: one counts");
        // Under RFC 3168's feedback (no count), an ECE ACK counts all it acknowledges marked.
        let mut s = prague(10, 5);
        s.on_ack(&Ack { now: at(0), ce: None, ece: true, srtt: Some(rtt), ..ack(MSS, 10 * MSS) });
        assert_eq!(s.cwnd(), 10 * MSS);
        // Slow start: one MSS per ACK for the unmarked.
        let mut t = prague(2, 100);
        t.on_ack(&Ack { now: at(0), ce: Some(0), ..ack(MSS, 2 * MSS) });
        assert_eq!(t.cwnd(), 3 * MSS);
    }

    #[test]
    fn rtt_independence_scales_the_increase_and_the_updates_to_the_reference_rtt() {
        let cfg = PragueConfig { rtt_transition: 0, ..PragueConfig::default() };
        let mut p = cfg.build(MSS, 10, 5 * MSS);
        let rtt = Dur::from_millis(5);
        p.srtt = Some(rtt);
        assert!((p.ai() - 0.04).abs() < 1e-12, "(5/25)² = 0.04 segments per round, {}", p.ai());
        let long = PragueConfig { rtt_transition: 0, ..PragueConfig::default() }.build(MSS, 10, 5 * MSS);
        let mut long = long;
        long.srtt = Some(Dur::from_millis(50));
        assert_eq!(long.ai(), 1.0, "at or above the reference RTT: unscaled");
        let mut off = PragueConfig { rtt_scaling: false, rtt_transition: 0, ..PragueConfig::default() }.build(MSS, 10, 5 * MSS);
        off.srtt = Some(rtt);
        assert_eq!(off.ai(), 1.0);
        let mut young = PragueConfig::default().build(MSS, 10, 5 * MSS);
        young.srtt = Some(rtt);
        assert_eq!(young.ai(), 1.0, "not before 500 rounds out of slow start");
        // Rate: per reference RTT (5 rounds of 5 ms), the window grows by 5 × 0.04 = 0.2
        // segments, 0.2 / 5 ms = 40 segments/s per 25 ms: as a 25 ms flow's 1/25 ms per 25 ms.
        let before = p.cwnd_segments();
        let mut una = 0;
        for i in 0..5 {
            una = round(&mut p, una, 10, 0, at(5 * i), rtt);
        }
        let grown = p.cwnd_segments() - before;
        assert!((grown - 0.2).abs() < 0.01, "{grown}");
        // The estimate: rounds of 5 ms update α only once per 25 ms.
        p.saw_ce = true;
        p.alpha_at = at(25);
        let a0 = p.alpha();
        una = round(&mut p, una, 10, 5, at(30), rtt);
        una = round(&mut p, una, 10, 5, at(35), rtt);
        assert_eq!(p.alpha(), a0, "within 25 ms of the last update");
        round(&mut p, una, 10, 5, at(50), rtt);
        assert!(p.alpha() < a0, "after 25 ms: updated");
        // And the window is cut for ECN at most once per reference RTT.
        p.alpha = 0.5;
        let w = p.cwnd();
        p.on_ecn_echo(&Event { now: at(100), ..event(10 * MSS, 0) });
        let cut = p.cwnd();
        assert!(cut < w);
        p.on_ecn_echo(&Event { now: at(110), ..event(10 * MSS, 0) });
        assert_eq!(p.cwnd(), cut, "10 ms later: no second cut");
        p.on_ecn_echo(&Event { now: at(125), ..event(10 * MSS, 0) });
        assert!(p.cwnd() < cut);
    }

    #[test]
    fn loss_halves_as_reno_and_it_paces_at_the_window_per_rtt() {
        let mut p = prague(20, 10);
        p.on_fast_retransmit(&event(20 * MSS, 3));
        assert_eq!(p.ssthresh(), 10 * MSS, "classic fallback: FlightSize / 2");
        let mut q = prague(10, 100);
        assert!(q.paces());
        assert_eq!(q.pacing_rate(), None, "no RTT yet");
        q.srtt = Some(Dur::from_millis(10));
        let wire = 10.0 * (MSS + TCP_IP_HEADER) as f64 / 0.010;
        assert!((q.pacing_rate().unwrap() - 2.0 * wire).abs() < 1e-6, "slow start, cwnd < ssthresh/2: twice");
        q.w.ssthresh = 10 * MSS;
        assert!((q.pacing_rate().unwrap() - wire).abs() < 1e-6, "congestion avoidance: 100 %");
    }

    #[test]
    fn its_keys_are_checked() {
        let ctx = CcContext { window: NewRenoConfig::default(), full_ack_given: false, profile: Default::default() };
        let t = |s: &str| -> Table { s.parse().unwrap() };
        let CcConfig::Prague(c) = build(&t("g = 0.25\nrtt_target = \"15ms\"\nrtt_scaling = \"none\"\nrtt_transition = 8"), &ctx).unwrap() else {
            panic!("not Prague")
        };
        assert_eq!((c.g, c.rtt_target, c.rtt_scaling, c.rtt_transition), (0.25, Dur::from_millis(15), false, 8));
        assert_eq!(build(&t("g = 0"), &ctx).unwrap_err().key, "g");
        assert_eq!(build(&t("init_alpha = 2"), &ctx).unwrap_err().key, "init_alpha");
        assert_eq!(build(&t("rtt_target = \"0s\""), &ctx).unwrap_err().key, "rtt_target");
        assert_eq!(build(&t("rtt_scaling = \"fast\""), &ctx).unwrap_err().key, "rtt_scaling");
    }
}
