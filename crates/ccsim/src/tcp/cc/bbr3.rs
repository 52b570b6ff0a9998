//! BBR v3 (draft-ietf-ccwg-bbr, "BBR Congestion Control", Cardwell, Swett, Beshay; Linux's
//! BBRv3 `tcp_bbr.c` as the reference where the draft leaves a choice). What v3 adds to v1
//! (`bbr.rs`), whose rounds, full-pipe estimator, pacing, window growth and loss-recovery
//! rules it shares through `bbr_core.rs`:
//!
//! - A loss response. Each rate sample says how much was lost since its packet was sent
//!   (`RateSample::lost`, the bytes resent) and how much was then in flight (`tx_pipe`);
//!   more than `loss_thresh` (2 %) of that flight lost means the flight was too high
//!   (`IsInflightTooHigh`). While probing (ProbeBW_REFILL and _UP, on samples of data sent
//!   then), that sets the long-term bound `inflight_longterm` ("inflight_hi") to
//!   `max(tx_pipe, beta * min(bdp, cwnd))` with `beta` 0.7, once per probe, and ends
//!   ProbeBW_UP (`HandleInflightTooHigh`); only a sample whose loss rate is safe raises the
//!   bound to its `tx_pipe` (`AdaptLongTermModel`). Outside probing, once per round with a
//!   loss, the short-term bounds ("bw_lo", "inflight_lo") fall to `max(latest, beta *
//!   bound)` (`LossLowerBounds`); ProbeBW_REFILL forgets them.
//! - An ECN response (the draft requires CE to be treated as congestion and leaves the
//!   response open; these are Linux BBRv3's rules): per round, the share of delivered data
//!   that was CE-marked gives `ce_ratio` (with AccECN the marked packets each ACK reports,
//!   `Ack::ce`; with RFC 3168 feedback the data whose ACK carried ECN-Echo); `alpha = (1 -
//!   g) alpha + g ce_ratio` (g = 1/16, alpha from 1); a round with CE cuts
//!   `inflight_shortterm` by `1 - ecn_factor * alpha` (1/3); a round whose `ce_ratio` exceeds
//!   `ecn_thresh` (0.5) is "too high" like a loss rate above 2 %, and two such rounds end
//!   Startup.
//! - Startup ends on a plateau (3 rounds under 25 % growth, as v1) or on loss: in fast
//!   recovery, at the end of a round with at least `startup_full_loss_count` (6) ACKs that
//!   newly found losses and a loss rate above 2 % (`CheckStartupHighLoss`); then
//!   `inflight_longterm = max(bdp, inflight_latest)`. Startup paces at 2.77 (4 ln 2) with a
//!   cwnd gain of 2; Drain paces at 0.5 until the data in flight is at most one BDP, or for at
//!   most 3 rounds.
//! - ProbeBW as four states: DOWN (pacing 0.9, until the flight is at most the BDP and under
//!   `(1 - headroom) inflight_longterm`), CRUISE (1.0, the window kept under that headroom),
//!   REFILL (1.0, one round, the short-term bounds reset), UP (1.25, cwnd gain 2.25, until the
//!   full-pipe estimator sees a plateau or the flight is too high; `inflight_longterm` grows
//!   by 1, 2, 4, ... packets per round while the window is limited by it). Precautionary
//!   probing: after a probe that went too high, the next UP ends as soon as the flight
//!   reaches `inflight_longterm`; if the round of feedback from it shows no loss above the
//!   threshold, REFILL and UP start again at once, this time without that stop. CRUISE or DOWN
//!   move to REFILL after a wait of 2 to 3 s or after `min(target packets, 63)` rounds (Reno
//!   coexistence). The bandwidth filter spans 2 ProbeBW cycles.
//! - ProbeRTT every 5 s without a new minimum RTT (`probe_rtt_interval`), at half the BDP
//!   (`ProbeRTTCwndGain` 0.5) for 200 ms and a round; the min-RTT filter spans 10 s.
//! - The window: `cwnd_gain * bdp`, at least the offload budget (3 packets) and 4 packets,
//!   plus 2 packets in ProbeBW_UP (`QuantizationBudget`); then bounded by `inflight_longterm`
//!   (ProbeBW but CRUISE), by the headroom (CRUISE, ProbeRTT) and by `inflight_shortterm`.
//!   The pacing rate is `pacing_gain * min(max_bw, bw_shortterm) * (1 - 1 %)`.
//!
//! Simplifications: the random draws (`PickProbeWait`) are derived from the delivered count
//! (as v1's ProbeBW phase); the loss threshold is taken on the sample's flight, not solved
//! for the prefix of a burst (`InflightAtLoss`, which matters for offload bursts of many
//! packets, not for single segments), and a loss is known when the sender resends it (the
//! sample's `lost`), not when it is marked; no `extra_acked` allowance, no undo of a
//! spurious recovery, no idle restart. The data in flight v3 reads from the samples
//! (`prior_pipe`, `tx_pipe`) is the draft's `C.inflight`: with SACK RFC 6675's pipe
//! (`tcp/rate.rs`), not the FlightSize, which in recovery counts what the receiver holds
//! and what was lost, and would raise `inflight_longterm` far above the flight that lost.
//! With RFC 3168 feedback ECN-Echo stays on every ACK until the sender's CWR arrives, so a
//! single mark counts as a round of CE; AccECN's counts make `ce_ratio` exact. Marks reported
//! by ACKs that arrive in loss recovery are not counted (the sender answers no ECN there).

use super::bbr_core::{BbrFamily, Core, MaxFilter};
use super::spec::{CcContext, EcnUse, Recovery, Registration};
use super::{Ack, CcConfig, Event, NewRenoConfig};
use crate::settings::table::{keys_of, read, SettingError, Table};
use crate::settings::units::Duration;
use crate::sim::{Dur, SimTime};
use crate::tcp::rate::RateSample;
use serde::Deserialize;

const INF: f64 = f64::INFINITY;

/// BBR v3's parameters (the draft's constants; Linux BBRv3's for ECN).
#[derive(Clone, Debug, PartialEq)]
pub struct Bbr3Config {
    /// Startup's pacing gain: 4 ln 2 = 2.77 (`BBRStartupPacingGain`).
    pub startup_pacing_gain: f64,
    /// Drain's pacing gain: 0.5 (`BBRDrainPacingGain`; Linux BBRv3 0.35).
    pub drain_pacing_gain: f64,
    /// The cwnd gain but in ProbeBW_UP and ProbeRTT: 2 (`BBRDefaultCwndGain`).
    pub cwnd_gain: f64,
    /// The highest loss rate a probe's flight may see: 0.02 (`BBRLossThresh`).
    pub loss_thresh: f64,
    /// The multiplicative decrease per round with loss: 0.7 (`BBRBeta`).
    pub beta: f64,
    /// The share of `inflight_longterm` left free outside probing: 0.15 (`BBRHeadroom`).
    pub headroom: f64,
    /// The smallest window, packets: 4 (`BBRMinPipeCwnd`).
    pub min_cwnd: u32,
    /// The offload budget the window is at least, packets: 3 (three send quanta of one).
    pub offload_packets: u32,
    /// The min-RTT filter's window: 10 s (`BBRMinRTTFilterLen`).
    pub min_rtt_window: Dur,
    /// Time without a new minimum RTT before ProbeRTT: 5 s (`BBRProbeRTTInterval`).
    pub probe_rtt_interval: Dur,
    /// ProbeRTT's shortest stay: 200 ms (`BBRProbeRTTDuration`).
    pub probe_rtt_duration: Dur,
    /// ACKs in a round that found new losses before Startup may end on loss: 6
    /// (`BBRStartupFullLossCnt`).
    pub startup_full_loss_count: u32,
    /// The CE share of a round that is too high: 0.5 (Linux `bbr_ecn_thresh`).
    pub ecn_thresh: f64,
    /// How much of `alpha` a CE round takes off `inflight_shortterm`: 1/3 (Linux
    /// `bbr_ecn_factor`).
    pub ecn_factor: f64,
    /// The gain of `alpha`'s moving average: 1/16 (Linux `bbr_ecn_alpha_gain`).
    pub ecn_alpha_gain: f64,
    /// The share taken off the pacing rate: 0.01 (`BBRPacingMarginPercent`).
    pub pacing_margin: f64,
    /// The window's rules: the loss window after a timeout.
    pub window: NewRenoConfig,
}

impl Default for Bbr3Config {
    fn default() -> Self {
        Bbr3Config {
            startup_pacing_gain: 2.77,
            drain_pacing_gain: 0.5,
            cwnd_gain: 2.0,
            loss_thresh: 0.02,
            beta: 0.7,
            headroom: 0.15,
            min_cwnd: 4,
            offload_packets: 3,
            min_rtt_window: Dur::from_secs(10),
            probe_rtt_interval: Dur::from_secs(5),
            probe_rtt_duration: Dur::from_millis(200),
            startup_full_loss_count: 6,
            ecn_thresh: 0.5,
            ecn_factor: 1.0 / 3.0,
            ecn_alpha_gain: 1.0 / 16.0,
            pacing_margin: 0.01,
            window: NewRenoConfig::default(),
        }
    }
}

/// Rounds of the full-pipe estimator, its growth, and the ECN rounds that end Startup.
const FULL_BW_ROUNDS: u32 = 3;
const FULL_BW_GROWTH: f64 = 1.25;
const STARTUP_ECN_ROUNDS: u32 = 2;
/// ProbeBW_UP's gains, ProbeBW_DOWN's pacing gain, ProbeRTT's cwnd gain.
const UP_PACING_GAIN: f64 = 1.25;
const UP_CWND_GAIN: f64 = 2.25;
const DOWN_PACING_GAIN: f64 = 0.9;
const PROBE_RTT_CWND_GAIN: f64 = 0.5;
/// Startup's cwnd gain (`BBRStartupCwndGain`).
const STARTUP_CWND_GAIN: f64 = 2.0;

impl Bbr3Config {
    /// BBR v3 at the start of a connection.
    pub fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> Bbr3 {
        Bbr3 {
            c: Core::new(self.window.window(mss, init_cwnd, init_ssthresh), self.startup_pacing_gain, self.pacing_margin),
            cfg: self.clone(),
            mode: Mode3::Startup,
            max_bw: MaxFilter::new(1),
            cycle_count: 0,
            bw_shortterm: INF,
            inflight_shortterm: INF,
            inflight_longterm: INF,
            bw_latest: 0.0,
            inflight_latest: 0,
            loss_round_delivered: 0,
            loss_round_start: false,
            loss_in_round: false,
            loss_events: 0,
            total_lost: 0,
            ack_phase: AckPhase::Init,
            is_bw_probe_sample: false,
            prev_probe_too_high: false,
            prev_probe_precautionary: false,
            bw_probe_up_acked: 0,
            probe_up_acked_per_inc: INF,
            bw_probe_up_rounds: 0,
            rounds_since_probe_up: 0,
            bw_probe_wait: Dur::ZERO,
            cycle_stamp: SimTime::ZERO,
            drain_start_round: 0,
            pacing_gain: self.startup_pacing_gain,
            cwnd_gain: STARTUP_CWND_GAIN,
            cwnd_limited: false,
            probe_rtt_min_delay: None,
            probe_rtt_min_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            ecn_alpha: 1.0,
            ce_bytes: 0,
            round_bytes: 0,
            ecn_in_round: false,
            ecn_too_high: false,
            startup_ecn_rounds: 0,
        }
    }
}

/// BBR v3's states (the draft's state machine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode3 {
    Startup,
    Drain,
    Down,
    Cruise,
    Refill,
    Up,
    ProbeRtt,
}

impl Mode3 {
    fn probe_bw(self) -> bool {
        matches!(self, Mode3::Down | Mode3::Cruise | Mode3::Refill | Mode3::Up)
    }

    /// `IsProbingBW`.
    fn probing(self) -> bool {
        matches!(self, Mode3::Startup | Mode3::Refill | Mode3::Up)
    }
}

/// What the ACKs mean with respect to bandwidth probing (`BBR.ack_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// BBR v3's state: the shared core, the two-cycle bandwidth filter, the long- and
/// short-term bounds, the congestion signals of the round, and the mode.
#[derive(Clone, Debug, PartialEq)]
pub struct Bbr3 {
    c: Core,
    cfg: Bbr3Config,
    mode: Mode3,
    max_bw: MaxFilter,
    cycle_count: u64,
    /// Bytes per second; infinite while unset.
    bw_shortterm: f64,
    /// Bytes; infinite while unset.
    inflight_shortterm: f64,
    inflight_longterm: f64,
    bw_latest: f64,
    inflight_latest: u64,
    loss_round_delivered: u64,
    loss_round_start: bool,
    loss_in_round: bool,
    /// ACKs in this round that found new losses.
    loss_events: u32,
    /// The connection's bytes lost at the last sample.
    total_lost: u64,
    ack_phase: AckPhase,
    is_bw_probe_sample: bool,
    /// The last ProbeBW_UP went too high (`BBR.prev_probe_too_high`).
    prev_probe_too_high: bool,
    /// The last ProbeBW_UP stopped at `inflight_longterm` as a precaution
    /// (`BBR.prev_probe_precautionary`).
    prev_probe_precautionary: bool,
    bw_probe_up_acked: u64,
    probe_up_acked_per_inc: f64,
    bw_probe_up_rounds: u32,
    rounds_since_probe_up: u64,
    bw_probe_wait: Dur,
    cycle_stamp: SimTime,
    drain_start_round: u64,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// The last ACK found the window limiting.
    cwnd_limited: bool,
    probe_rtt_min_delay: Option<Dur>,
    probe_rtt_min_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    ecn_alpha: f64,
    /// Bytes acknowledged with ECN-Echo in this round, and all bytes delivered in it.
    ce_bytes: u64,
    round_bytes: u64,
    ecn_in_round: bool,
    ecn_too_high: bool,
    startup_ecn_rounds: u32,
}

impl Bbr3 {
    pub fn mode(&self) -> Mode3 {
        self.mode
    }

    /// The long-term bound on the data in flight ("inflight_hi"), bytes (infinite: unset).
    pub fn inflight_longterm(&self) -> f64 {
        self.inflight_longterm
    }

    /// The short-term bound ("inflight_lo"), bytes (infinite: unset).
    pub fn inflight_shortterm(&self) -> f64 {
        self.inflight_shortterm
    }

    /// The ECN estimate `alpha`.
    pub fn ecn_alpha(&self) -> f64 {
        self.ecn_alpha
    }

    /// `BBR.bw`: the bandwidth filter's, under the short-term bound.
    pub fn bw(&self) -> f64 {
        self.max_bw.best().min(self.bw_shortterm)
    }

    fn mss(&self) -> u64 {
        self.c.mss() as u64
    }

    /// `Inflight(gain)`: `gain` BDPs at `BBR.bw`, at least the offload budget and the
    /// minimum window, plus 2 packets in ProbeBW_UP (`QuantizationBudget`), bytes.
    fn inflight(&self, gain: f64) -> u64 {
        self.inflight_for(self.bw(), gain)
    }

    fn inflight_for(&self, bw: f64, gain: f64) -> u64 {
        let pkts = self.c.bdp_packets(bw, gain).max(self.cfg.offload_packets).max(self.cfg.min_cwnd);
        (pkts + if self.mode == Mode3::Up { 2 } else { 0 }) as u64 * self.mss()
    }

    /// `InflightWithHeadroom`.
    fn with_headroom(&self) -> f64 {
        let hi = self.inflight_longterm;
        let headroom = (self.cfg.headroom * hi).max(self.mss() as f64);
        (hi - headroom).max((self.cfg.min_cwnd as u64 * self.mss()) as f64)
    }

    /// `TargetInflight`: the BDP, unless congestion cut the window.
    fn target_inflight(&self) -> u64 {
        let bdp = (self.c.bdp_packets(self.bw(), 1.0) as u64) * self.mss();
        bdp.min(self.c.w.cwnd as u64)
    }

    fn start_round(&mut self) {
        self.c.next_round_delivered = self.c.delivered;
    }

    /// `IsInflightTooHigh`: more than 2 % of the sample's flight lost, or a round of CE.
    fn too_high(&self, rs: &RateSample) -> bool {
        rs.lost as f64 > rs.tx_pipe as f64 * self.cfg.loss_thresh || self.ecn_too_high
    }

    /// The loss and ECN signals of this sample and of the round it may end.
    fn update_signals(&mut self, rs: &RateSample, acked: u64) {
        if rs.total_lost > self.total_lost {
            self.loss_in_round = true;
            self.loss_events += 1;
        }
        self.total_lost = rs.total_lost;
        self.round_bytes += acked;
        let rate = rs.rate_bps();
        self.bw_latest = self.bw_latest.max(rate.unwrap_or(0.0));
        self.inflight_latest = self.inflight_latest.max(rs.delivered);
        self.loss_round_start = false;
        self.ecn_too_high = false;
        if rs.total_delivered.saturating_sub(rs.delivered) >= self.loss_round_delivered {
            self.loss_round_delivered = self.c.delivered;
            self.loss_round_start = true;
            if self.round_bytes > 0 {
                let ratio = self.ce_bytes as f64 / self.round_bytes as f64;
                let g = self.cfg.ecn_alpha_gain;
                self.ecn_alpha = ((1.0 - g) * self.ecn_alpha + g * ratio).min(1.0);
                self.ecn_in_round = self.ce_bytes > 0;
                self.ecn_too_high = ratio > self.cfg.ecn_thresh;
            }
            (self.ce_bytes, self.round_bytes) = (0, 0);
        }
        // The bandwidth filter, on the rounds of the core.
        self.c.round_start = false;
        if let Some(bw) = rate {
            self.c.update_round(rs);
            if bw >= self.max_bw.best() || !rs.is_app_limited {
                self.max_bw.push(self.cycle_count, bw);
            }
        }
        if self.c.round_start {
            self.rounds_since_probe_up += 1;
        }
        if self.loss_round_start {
            self.adapt_lower_bounds();
            self.loss_in_round = false;
            self.ecn_in_round = false;
        }
    }

    /// `AdaptLowerBoundsFromCongestion`, with Linux's ECN cut: once per round.
    fn adapt_lower_bounds(&mut self) {
        if self.mode.probing() || !(self.loss_in_round || self.ecn_in_round) {
            return;
        }
        if self.bw_shortterm == INF {
            self.bw_shortterm = self.max_bw.best();
        }
        if self.inflight_shortterm == INF {
            self.inflight_shortterm = self.c.w.cwnd as f64;
        }
        let before = self.inflight_shortterm;
        if self.loss_in_round {
            let beta = self.cfg.beta;
            self.bw_shortterm = self.bw_latest.max(beta * self.bw_shortterm);
            self.inflight_shortterm = (self.inflight_latest as f64).max(beta * before);
        }
        if self.ecn_in_round {
            let cut = before * (1.0 - self.cfg.ecn_factor * self.ecn_alpha);
            self.inflight_shortterm = self.inflight_shortterm.min(cut);
        }
    }

    /// Startup ends on high loss or on two rounds of high CE: the flight it had is the
    /// long-term bound (`CheckStartupHighLoss`, Linux `bbr_handle_queue_too_high_in_startup`).
    fn check_startup_done(&mut self, rs: &RateSample) {
        if self.mode == Mode3::Startup && self.loss_round_start {
            if self.ecn_too_high {
                self.startup_ecn_rounds += 1;
            } else {
                self.startup_ecn_rounds = 0;
            }
            let loss = self.c.w.recovering() && self.loss_events >= self.cfg.startup_full_loss_count && self.too_high(rs);
            if loss || self.startup_ecn_rounds >= STARTUP_ECN_ROUNDS {
                self.c.full_bw_reached = true;
                self.c.full_bw_now = true;
                let bdp = (self.c.bdp_packets(self.bw(), 1.0) as u64 * self.mss()) as f64;
                self.inflight_longterm = bdp.max(self.inflight_latest as f64);
            }
        }
        if self.loss_round_start {
            self.loss_events = 0;
        }
        if self.mode == Mode3::Startup && self.c.full_bw_reached {
            self.mode = Mode3::Drain;
            self.drain_start_round = self.c.round;
        }
    }

    fn enter_probe_bw(&mut self) {
        self.start_down();
    }

    /// `StartProbeBW_DOWN`, with `PickProbeWait`'s draws derived from the delivered count.
    fn start_down(&mut self) {
        self.loss_in_round = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0;
        self.probe_up_acked_per_inc = INF;
        let draw = self.c.delivered / self.mss();
        self.rounds_since_probe_up = draw % 2;
        self.bw_probe_wait = Dur::from_secs(2) + Dur::from_millis(draw % 1000);
        self.cycle_stamp = self.c.now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.start_round();
        self.mode = Mode3::Down;
    }

    fn start_refill(&mut self) {
        self.bw_shortterm = INF;
        self.inflight_shortterm = INF;
        self.bw_probe_up_rounds = 0;
        self.bw_probe_up_acked = 0;
        self.prev_probe_precautionary = false;
        self.ack_phase = AckPhase::Refilling;
        self.start_round();
        self.mode = Mode3::Refill;
    }

    fn start_up(&mut self, rs: &RateSample) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.start_round();
        self.c.reset_full_bw(rs.rate_bps().unwrap_or(0.0));
        self.mode = Mode3::Up;
        self.raise_longterm_slope();
    }

    /// `RaiseInflightLongtermSlope`: 1, 2, 4, ... packets more per round.
    fn raise_longterm_slope(&mut self) {
        let growth = 1u64 << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.probe_up_acked_per_inc = ((self.c.w.cwnd as u64 / growth).max(self.mss())) as f64;
    }

    /// `ProbeInflightLongtermUpward`.
    fn probe_longterm_upward(&mut self, acked: u64) {
        if !self.cwnd_limited || (self.c.w.cwnd as f64) < self.inflight_longterm {
            return;
        }
        self.bw_probe_up_acked += acked;
        let per = self.probe_up_acked_per_inc;
        if self.bw_probe_up_acked as f64 >= per {
            let delta = (self.bw_probe_up_acked as f64 / per).floor();
            self.bw_probe_up_acked -= (delta * per) as u64;
            self.inflight_longterm += delta * self.mss() as f64;
        }
        if self.c.round_start {
            self.raise_longterm_slope();
        }
    }

    /// `AdaptLongTermModel`, with `HandleInflightTooHigh`: true when it changed the state.
    fn adapt_longterm(&mut self, rs: &RateSample, acked: u64) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.c.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.c.round_start {
            self.is_bw_probe_sample = false;
            self.ack_phase = AckPhase::Init;
            if self.mode.probe_bw() && !rs.is_app_limited {
                self.cycle_count += 1;
                self.max_bw.expire(self.cycle_count);
            }
            // Precautionary probing, acceleration: the probe that stopped at
            // inflight_longterm saw no loss above the threshold; probe again at once.
            if self.mode.probe_bw() && self.prev_probe_precautionary && !self.prev_probe_too_high {
                self.start_refill();
                return true;
            }
        }
        if self.too_high(rs) {
            // `HandleInflightTooHigh`, once per probe, on samples of data sent while probing.
            if !self.is_bw_probe_sample {
                return false;
            }
            self.prev_probe_too_high = true;
            self.is_bw_probe_sample = false;
            if !rs.is_app_limited {
                let floor = self.target_inflight() as f64 * self.cfg.beta;
                self.inflight_longterm = (rs.tx_pipe as f64).max(floor);
            }
            if self.mode == Mode3::Up {
                self.start_down();
                return true;
            }
            return false;
        }
        // The loss rate is safe: the long-term bound may only rise.
        if self.inflight_longterm == INF {
            return false;
        }
        if rs.tx_pipe as f64 > self.inflight_longterm {
            self.inflight_longterm = rs.tx_pipe as f64;
        }
        if self.mode == Mode3::Up {
            self.probe_longterm_upward(acked);
        }
        false
    }

    /// `IsTimeToProbeBW`: after the wait, or after as many rounds as Reno would need.
    fn time_to_probe(&mut self) -> bool {
        let reno_rounds = (self.target_inflight() / self.mss()).min(63);
        if self.c.now > self.cycle_stamp + self.bw_probe_wait || self.rounds_since_probe_up >= reno_rounds {
            self.start_refill();
            return true;
        }
        false
    }

    /// `UpdateProbeBWCyclePhase`.
    fn update_cycle(&mut self, rs: &RateSample, acked: u64, inflight: u64) {
        if !self.c.full_bw_reached || self.adapt_longterm(rs, acked) || !self.mode.probe_bw() {
            return;
        }
        match self.mode {
            Mode3::Down => {
                let cruise = inflight as f64 <= self.with_headroom_or_inf() && inflight <= self.inflight_for(self.max_bw.best(), 1.0);
                if !self.time_to_probe() && cruise {
                    self.mode = Mode3::Cruise;
                }
            }
            Mode3::Cruise => {
                self.time_to_probe();
            }
            Mode3::Refill => {
                if self.c.round_start {
                    self.is_bw_probe_sample = true;
                    self.start_up(rs);
                }
            }
            _ => {
                // ProbeBW_UP: `IsTimeToGoDown`, precautionary deceleration first: after a
                // probe that went too high, this one stops once the flight (before the ACK,
                // as Linux compares it) reaches the bound that probe set.
                let done = if self.prev_probe_too_high && rs.prior_pipe as f64 >= self.inflight_longterm {
                    self.prev_probe_precautionary = true;
                    true
                } else if self.cwnd_limited && self.c.w.cwnd as f64 >= self.inflight_longterm {
                    self.c.reset_full_bw(rs.rate_bps().unwrap_or(0.0));
                    false
                } else {
                    self.c.full_bw_now
                };
                if done {
                    self.prev_probe_too_high = false;
                    self.start_down();
                }
            }
        }
    }

    fn with_headroom_or_inf(&self) -> f64 {
        if self.inflight_longterm == INF {
            INF
        } else {
            self.with_headroom()
        }
    }

    /// `UpdateMinRTT`, then `CheckProbeRTT` with its entry and exit.
    fn update_min_rtt(&mut self, rs: &RateSample, inflight: u64) {
        let now = self.c.now;
        let probe_rtt_expired = now > self.probe_rtt_min_stamp + self.cfg.probe_rtt_interval;
        if let Some(rtt) = rs.rtt {
            if self.probe_rtt_min_delay.is_none_or(|m| rtt < m) || probe_rtt_expired {
                self.probe_rtt_min_delay = Some(rtt);
                self.probe_rtt_min_stamp = now;
            }
        }
        let min_rtt_expired = now > self.c.min_rtt_stamp + self.cfg.min_rtt_window;
        if let Some(d) = self.probe_rtt_min_delay {
            if self.c.min_rtt.is_none_or(|m| d < m) || min_rtt_expired {
                self.c.min_rtt = Some(d);
                self.c.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
        if self.cfg.probe_rtt_duration > Dur::ZERO && probe_rtt_expired && self.mode != Mode3::ProbeRtt {
            self.c.save_cwnd(false);
            self.mode = Mode3::ProbeRtt;
            self.probe_rtt_done = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.start_round();
        }
        if self.mode != Mode3::ProbeRtt {
            return;
        }
        match self.probe_rtt_done {
            None if inflight <= self.probe_rtt_cwnd() as u64 => {
                self.probe_rtt_done = Some(now + self.cfg.probe_rtt_duration);
                self.probe_rtt_round_done = false;
                self.start_round();
            }
            Some(done) => {
                self.probe_rtt_round_done |= self.c.round_start;
                if self.probe_rtt_round_done && now > done {
                    self.probe_rtt_min_stamp = now;
                    self.c.w.cwnd = self.c.w.cwnd.max(self.c.prior_cwnd);
                    self.bw_shortterm = INF;
                    self.inflight_shortterm = INF;
                    if self.c.full_bw_reached {
                        self.start_down();
                        self.mode = Mode3::Cruise;
                    } else {
                        self.mode = Mode3::Startup;
                    }
                }
            }
            None => {}
        }
    }

    /// `ProbeRTTCwnd`: half the BDP, at least the minimum window, bytes.
    fn probe_rtt_cwnd(&self) -> u32 {
        let bdp = self.c.bdp_packets(self.bw(), PROBE_RTT_CWND_GAIN);
        bdp.max(self.cfg.min_cwnd) * self.c.mss()
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode3::Startup => (self.cfg.startup_pacing_gain, STARTUP_CWND_GAIN),
            Mode3::Drain => (self.cfg.drain_pacing_gain, self.cfg.cwnd_gain),
            Mode3::Down => (DOWN_PACING_GAIN, self.cfg.cwnd_gain),
            Mode3::Cruise | Mode3::Refill => (1.0, self.cfg.cwnd_gain),
            Mode3::Up => (UP_PACING_GAIN, UP_CWND_GAIN),
            Mode3::ProbeRtt => (1.0, PROBE_RTT_CWND_GAIN),
        };
    }

    /// `SetCwnd`: the core's growth to `max_inflight`, then ProbeRTT's and the model's bounds
    /// (`BoundCwndForProbeRTT`, `BoundCwndForModel`).
    fn set_cwnd(&mut self, acked: u64, losses: u64) {
        let min = self.cfg.min_cwnd * self.c.mss();
        let max_inflight = self.inflight(self.cwnd_gain).min(u32::MAX as u64) as u32;
        self.c.grow_cwnd(acked, losses, max_inflight, min);
        if self.mode == Mode3::ProbeRtt {
            self.c.w.cwnd = self.c.w.cwnd.min(self.probe_rtt_cwnd());
        }
        let mut cap = INF;
        if self.mode.probe_bw() && self.mode != Mode3::Cruise {
            cap = self.inflight_longterm;
        } else if matches!(self.mode, Mode3::ProbeRtt | Mode3::Cruise) {
            cap = self.with_headroom_or_inf();
        }
        cap = cap.min(self.inflight_shortterm).max(min as f64);
        if (self.c.w.cwnd as f64) > cap {
            self.c.w.cwnd = cap as u32;
        }
    }
}

impl BbrFamily for Bbr3 {
    fn in_probe_rtt(&self) -> bool {
        self.mode == Mode3::ProbeRtt
    }

    fn core(&self) -> &Core {
        &self.c
    }

    fn core_mut(&mut self) -> &mut Core {
        &mut self.c
    }

    /// The draft's `UpdateModelAndState` and `UpdateControlParameters`.
    fn on_sample(&mut self, rs: &RateSample) {
        let acked = rs.total_delivered.saturating_sub(self.c.delivered);
        self.c.delivered = rs.total_delivered;
        let inflight = rs.prior_pipe.saturating_sub(acked);
        self.update_signals(rs, acked);
        self.c.check_full_bw(rs, self.max_bw.best(), FULL_BW_GROWTH, FULL_BW_ROUNDS);
        self.check_startup_done(rs);
        if self.mode == Mode3::Drain && (inflight <= self.inflight(1.0) || self.c.round > self.drain_start_round + 3) {
            self.enter_probe_bw();
        }
        self.update_cycle(rs, acked, inflight);
        self.update_min_rtt(rs, inflight);
        if self.loss_round_start {
            self.bw_latest = rs.rate_bps().unwrap_or(0.0);
            self.inflight_latest = rs.delivered;
        }
        self.update_gains();
        if self.bw() > 0.0 {
            self.c.set_pacing(self.c.rate_for(self.bw(), self.pacing_gain));
        }
        self.set_cwnd(acked, rs.losses);
        self.c.lost = false;
    }

    /// The window-limited flag for ProbeBW_UP, and the bytes delivered CE-marked: under
    /// AccECN the packets the ACKs report marked (`Ack::ce`, as Linux counts `delivered_ce`),
    /// under RFC 3168 every byte an ACK with ECN-Echo acknowledges.
    fn on_new_ack(&mut self, ack: &Ack) {
        self.cwnd_limited = ack.cwnd_limited;
        self.ce_bytes += match ack.ce {
            Some(marked) => marked as u64 * self.mss(),
            None if ack.ece => ack.acked,
            None => 0,
        };
    }

    /// A timeout is a loss in this round.
    fn on_loss_timeout(&mut self, _ev: &Event) {
        self.loss_in_round = true;
    }
}

/// BBR v3's own keys, `tcp.bbr3.*`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bbr3Spec {
    /// Startup's pacing gain; default 2.77.
    pub startup_pacing_gain: Option<f64>,
    /// Drain's pacing gain; default 0.5.
    pub drain_pacing_gain: Option<f64>,
    /// The cwnd gain outside ProbeBW_UP and ProbeRTT; default 2.
    pub cwnd_gain: Option<f64>,
    /// The loss rate a probe may see; default 0.02.
    pub loss_thresh: Option<f64>,
    /// The decrease per round with loss; default 0.7.
    pub beta: Option<f64>,
    /// The share of inflight_longterm left free; default 0.15.
    pub headroom: Option<f64>,
    /// The smallest window, packets; default 4.
    pub min_cwnd: Option<u32>,
    /// The min-RTT filter's window; default 10 s.
    pub min_rtt_window: Option<Duration>,
    /// Time without a new minimum RTT before ProbeRTT; default 5 s.
    pub probe_rtt_interval: Option<Duration>,
    /// ProbeRTT's shortest stay; default 200 ms.
    pub probe_rtt_duration: Option<Duration>,
    /// ACKs with new losses in a round before Startup ends on loss; default 6.
    pub startup_full_loss_count: Option<u32>,
    /// The CE share of a round that is too high; default 0.5.
    pub ecn_thresh: Option<f64>,
    /// The share of alpha a CE round takes off inflight_shortterm; default 1/3.
    pub ecn_factor: Option<f64>,
    /// The gain of alpha's moving average; default 1/16.
    pub ecn_alpha_gain: Option<f64>,
    /// The share taken off the pacing rate; default 0.01.
    pub pacing_margin: Option<f64>,
}

/// `tcp.variant = "bbr3"`: RFC 6582's (or with SACK RFC 6675's) loss recovery decides what is
/// resent; BBR v3 sets the window and the pacing rate, and answers CE when `tcp.ecn` is on.
pub const REGISTRATION: Registration = Registration { name: "bbr3", recovery: Recovery::NewReno, ecn: EcnUse::Optional, keys: keys_of::<Bbr3Spec>, build };

/// `v`, or `dflt`, within `[lo, hi]` (`lo` excluded when `open`).
fn within(key: &str, v: Option<f64>, dflt: f64, lo: f64, hi: f64, open: bool) -> Result<f64, SettingError> {
    let x = v.unwrap_or(dflt);
    let low_ok = if open { x > lo } else { x >= lo };
    if x.is_finite() && low_ok && x <= hi {
        return Ok(x);
    }
    let range = if open { format!("({lo}, {hi}]") } else { format!("[{lo}, {hi}]") };
    Err(SettingError::new(key, format!("must be in {range}, got {x}")))
}

fn build(table: &Table, ctx: &CcContext) -> Result<CcConfig, SettingError> {
    let s = read::<Bbr3Spec>(table)?;
    let d = Bbr3Config::default();
    let dur = |v: Option<Duration>, dflt: Dur| v.map_or(dflt, Duration::dur);
    let count = |key: &str, v: Option<u32>, dflt: u32| match v.unwrap_or(dflt) {
        0 => Err(SettingError::new(key, "must be at least 1, got 0")),
        n => Ok(n),
    };
    Ok(CcConfig::Bbr3(Box::new(Bbr3Config {
        startup_pacing_gain: within("startup_pacing_gain", s.startup_pacing_gain, d.startup_pacing_gain, 1.0, 100.0, true)?,
        drain_pacing_gain: within("drain_pacing_gain", s.drain_pacing_gain, d.drain_pacing_gain, 0.0, 1.0, true)?,
        cwnd_gain: within("cwnd_gain", s.cwnd_gain, d.cwnd_gain, 1.0, 100.0, false)?,
        loss_thresh: within("loss_thresh", s.loss_thresh, d.loss_thresh, 0.0, 1.0, true)?,
        beta: within("beta", s.beta, d.beta, 0.0, 1.0, true)?,
        headroom: within("headroom", s.headroom, d.headroom, 0.0, 0.99, false)?,
        min_cwnd: count("min_cwnd", s.min_cwnd, d.min_cwnd)?,
        offload_packets: d.offload_packets,
        min_rtt_window: dur(s.min_rtt_window, d.min_rtt_window),
        probe_rtt_interval: dur(s.probe_rtt_interval, d.probe_rtt_interval),
        probe_rtt_duration: dur(s.probe_rtt_duration, d.probe_rtt_duration),
        startup_full_loss_count: count("startup_full_loss_count", s.startup_full_loss_count, d.startup_full_loss_count)?,
        ecn_thresh: within("ecn_thresh", s.ecn_thresh, d.ecn_thresh, 0.0, 1.0, false)?,
        ecn_factor: within("ecn_factor", s.ecn_factor, d.ecn_factor, 0.0, 1.0, false)?,
        ecn_alpha_gain: within("ecn_alpha_gain", s.ecn_alpha_gain, d.ecn_alpha_gain, 0.0, 1.0, true)?,
        pacing_margin: within("pacing_margin", s.pacing_margin, d.pacing_margin, 0.0, 0.99, false)?,
        window: ctx.window.clone(),
    })))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{event, MSS};
    use super::super::{Ack, Controller};
    use super::*;

    const RTT: Dur = Dur::from_millis(50);
    const BW: f64 = 1_000_000.0; // bytes/s: a BDP of 50 packets at RTT

    /// A flow fed hand-built ACKs: one packet per ACK, each sample spanning the flight
    /// before it.
    struct Flow {
        c: Bbr3,
        now: SimTime,
        delivered: u64,
        lost: u64,
    }

    impl Flow {
        fn new() -> Flow {
            Flow { c: Bbr3Config::default().build(MSS, 10, u32::MAX / 2), now: SimTime::ZERO, delivered: 0, lost: 0 }
        }

        /// One ACK `gap` after the last, of one packet sent with `flight` out; `ece` its
        /// ECN-Echo, `lost` bytes resent since that packet left.
        fn ack(&mut self, gap: Dur, flight: u64, bw: f64, ece: bool, lost: u64) {
            self.ack_reporting(gap, flight, bw, ece, None, lost);
        }

        /// The same with AccECN's count of packets newly reported CE-marked (`Ack::ce`).
        fn ack_reporting(&mut self, gap: Dur, flight: u64, bw: f64, ece: bool, ce: Option<u32>, lost: u64) {
            self.now += gap;
            self.delivered += MSS as u64;
            self.lost += lost;
            let a = Ack {
                now: self.now,
                acked: MSS as u64,
                una: self.delivered,
                max: self.delivered + flight - MSS as u64,
                ece,
                ce,
                cwnd_limited: true,
                rtt: Some(RTT),
                srtt: Some(RTT),
            };
            self.c.on_ack(&a);
            let span = flight.clamp(MSS as u64, self.delivered);
            let rs = RateSample::new(span, Dur::from_secs_f64(span as f64 / bw), Some(RTT), flight, false, self.delivered)
                .with_loss(lost, flight, self.lost)
                .at(a.now);
            self.c.on_rate_sample(&rs);
        }

        /// A round of ACKs (one per packet of `flight`) over one RTT.
        fn round(&mut self, flight: u64, bw: f64, ece: bool) {
            let n = (flight / MSS as u64).max(1);
            for _ in 0..n {
                self.ack(Dur::from_nanos(RTT.as_nanos() / n), flight, bw, ece, 0);
            }
        }

        /// Startup on a 1 MB/s path until ProbeBW.
        fn to_probe_bw() -> Flow {
            let mut f = Flow::new();
            for _ in 0..10 {
                f.round(50 * MSS as u64, BW, false);
            }
            assert!(f.c.mode().probe_bw(), "{:?}", f.c.mode());
            f
        }

        /// ACKs at one BDP of flight until the mode is `m` (at most `limit` rounds).
        fn until(&mut self, m: Mode3, limit: usize) {
            for _ in 0..limit {
                if self.c.mode() == m {
                    return;
                }
                self.round(50 * MSS as u64, BW, false);
            }
            panic!("not {m:?} after {limit} rounds: {:?}", self.c.mode());
        }
    }

    fn gain(f: &Flow) -> f64 {
        f.c.pacing_rate().unwrap() / (f.c.bw() * 0.99 * 1.04)
    }

    #[test]
    fn startup_drains_then_probe_bw_cycles_down_cruise_refill_up() {
        let mut f = Flow::new();
        assert_eq!(f.c.mode(), Mode3::Startup);
        // A plateau: three rounds without 25 % growth end Startup, with 100 packets in
        // flight (two BDPs). Drain at 0.5 lasts while the flight is above the BDP, 3 rounds
        // at most; ProbeBW_DOWN at 0.9 while it is.
        for _ in 0..3 {
            f.round(100 * MSS as u64, BW, false);
        }
        assert_eq!(f.c.mode(), Mode3::Startup);
        assert!((gain(&f) - 2.77).abs() < 1e-9);
        f.round(100 * MSS as u64, BW, false);
        assert_eq!(f.c.mode(), Mode3::Drain);
        assert!((gain(&f) - 0.5).abs() < 1e-9);
        for _ in 0..4 {
            f.round(100 * MSS as u64, BW, false);
        }
        assert_eq!(f.c.mode(), Mode3::Down, "Drain ends after 3 rounds");
        assert!((gain(&f) - 0.9).abs() < 1e-9, "DOWN paces at 0.9: {}", gain(&f));
        // DOWN: the flight of one BDP is no more than the BDP: CRUISE at 1.0.
        f.round(50 * MSS as u64, BW, false);
        assert_eq!(f.c.mode(), Mode3::Cruise);
        assert!((gain(&f) - 1.0).abs() < 1e-9);
        // CRUISE waits 2 to 3 s, or min(target, 63) = 50 rounds of 50 ms: 2.5 s at most.
        let start = f.now;
        f.until(Mode3::Refill, 80);
        let waited = f.now - start;
        assert!(waited >= Dur::from_millis(1900) && waited <= Dur::from_millis(3100), "{waited:?}");
        // REFILL lasts a round, then UP at 1.25 with a cwnd gain of 2.25.
        f.until(Mode3::Up, 2);
        assert!((gain(&f) - 1.25).abs() < 1e-9);
        let cwnd = f.c.cwnd();
        assert!(cwnd >= 2 * 50 * MSS, "UP's window: {cwnd}");
        // UP ends on a plateau (the full-pipe estimator, three rounds) in DOWN, which the
        // flight of one BDP leaves for CRUISE at once.
        let mut rounds = 0;
        while f.c.mode() == Mode3::Up {
            f.round(50 * MSS as u64, BW, false);
            rounds += 1;
        }
        assert!((3..=4).contains(&rounds), "{rounds} rounds of UP");
        assert_eq!(f.c.mode(), Mode3::Cruise);
    }

    #[test]
    fn a_probe_losing_more_than_two_percent_sets_inflight_longterm_and_goes_down() {
        let mut f = Flow::to_probe_bw();
        f.until(Mode3::Up, 100);
        assert_eq!(f.c.inflight_longterm(), INF);
        // 1 % of the flight lost: below the threshold, UP goes on.
        let mut g = Flow { c: f.c.clone(), ..f };
        g.ack(Dur::from_millis(1), 62 * MSS as u64, BW, false, 0);
        let flight = 62 * MSS as u64;
        f.ack(Dur::from_millis(1), flight, BW, false, flight / 100);
        assert_eq!(f.c.mode(), Mode3::Up);
        assert_eq!(f.c.inflight_longterm(), INF);
        // 3 %: too high. inflight_longterm = max(tx_in_flight, 0.7 * min(bdp, cwnd)).
        f.ack(Dur::from_millis(1), flight, BW, false, 3 * flight / 100);
        assert_eq!(f.c.mode(), Mode3::Down);
        assert_eq!(f.c.inflight_longterm(), flight as f64);
        // The window is held under it from then on, in DOWN.
        f.round(50 * MSS as u64, BW, false);
        assert!(f.c.cwnd() as f64 <= f.c.inflight_longterm(), "{} > {}", f.c.cwnd(), f.c.inflight_longterm());
        // Once per probe: a second lossy sample does not move it again, nor does one sent
        // with more in flight: only a sample whose loss rate is safe raises the bound.
        let hi = f.c.inflight_longterm();
        f.ack(Dur::from_millis(1), 30 * MSS as u64, BW, false, 10 * MSS as u64);
        assert_eq!(f.c.inflight_longterm(), hi);
        f.ack(Dur::from_millis(1), 70 * MSS as u64, BW, false, 10 * MSS as u64);
        assert_eq!(f.c.inflight_longterm(), hi);
        f.ack(Dur::from_millis(1), 70 * MSS as u64, BW, false, 0);
        assert_eq!(f.c.inflight_longterm(), (70 * MSS) as f64);
    }

    #[test]
    fn after_a_probe_that_went_too_high_the_next_stops_at_the_bound_then_probes_again_at_once() {
        let mut f = Flow::to_probe_bw();
        f.c.cfg.probe_rtt_interval = Dur::from_secs(60); // no ProbeRTT in between
        f.until(Mode3::Up, 100);
        let flight = 62 * MSS as u64;
        f.ack(Dur::from_millis(1), flight, BW, false, 3 * flight / 100);
        assert_eq!((f.c.mode(), f.c.inflight_longterm()), (Mode3::Down, flight as f64));
        // The next probe: UP ends as soon as the flight reaches the bound, before any plateau
        // or loss (precautionary deceleration).
        f.until(Mode3::Up, 100);
        f.round(50 * MSS as u64, BW, false);
        assert_eq!(f.c.mode(), Mode3::Up, "below the bound");
        f.ack(Dur::from_millis(1), f.c.inflight_longterm() as u64, BW, false, 0);
        assert_eq!(f.c.mode(), Mode3::Down, "the flight reached inflight_longterm");
        // A round of feedback without loss: REFILL at once (acceleration), not CRUISE for
        // seconds, and the UP after it is not stopped at the bound.
        let start = f.now;
        f.until(Mode3::Refill, 3);
        assert!(f.now - start < Dur::from_millis(200), "{:?}", f.now - start);
        f.until(Mode3::Up, 2);
        for _ in 0..2 {
            f.ack(Dur::from_millis(1), flight + 2 * MSS as u64, BW, false, 0);
        }
        assert_eq!(f.c.mode(), Mode3::Up);
    }

    #[test]
    fn loss_outside_probing_lowers_the_short_term_bounds_by_beta_per_round() {
        let mut f = Flow::to_probe_bw();
        f.until(Mode3::Cruise, 10);
        let cwnd = f.c.cwnd() as f64;
        // A loss in a CRUISE round: at the round's end inflight_shortterm = max(latest
        // delivered, 0.7 cwnd).
        f.ack(Dur::from_millis(1), 50 * MSS as u64, BW, false, MSS as u64);
        f.round(50 * MSS as u64, BW, false);
        let lo = f.c.inflight_shortterm();
        assert!((lo - (0.7 * cwnd).max(50.0 * MSS as f64)).abs() < 1.0, "{lo} from {cwnd}");
        assert!(f.c.cwnd() as f64 <= lo);
    }

    #[test]
    fn ce_marks_cut_inflight_shortterm_by_alpha_over_three_and_alpha_decays() {
        let mut f = Flow::to_probe_bw();
        f.until(Mode3::Cruise, 10);
        // To a round's start, then a round of ECN-Echo on every ACK and the ACK that ends
        // it: ce_ratio 1.
        while !f.c.loss_round_start {
            f.ack(Dur::from_millis(1), 50 * MSS as u64, BW, false, 0);
        }
        let a0 = f.c.ecn_alpha();
        assert!(a0 < 1.0, "alpha decays from 1 in rounds without CE: {a0}");
        let cwnd = f.c.cwnd() as f64;
        f.ack(Dur::from_millis(1), 50 * MSS as u64, BW, true, 0);
        while !f.c.loss_round_start {
            f.ack(Dur::from_millis(1), 50 * MSS as u64, BW, true, 0);
        }
        let alpha = f.c.ecn_alpha();
        assert!((alpha - (a0 * 15.0 / 16.0 + 1.0 / 16.0)).abs() < 1e-9, "{alpha}");
        let lo = f.c.inflight_shortterm();
        assert!((lo - cwnd * (1.0 - alpha / 3.0)).abs() < 1.0, "{lo} from {cwnd}, alpha {alpha}");
        // A round without CE: alpha falls by 1/16 of itself.
        f.round(50 * MSS as u64, BW, false);
        assert!((f.c.ecn_alpha() - alpha * 15.0 / 16.0).abs() < 1e-9);
    }

    #[test]
    fn with_accecn_the_ce_ratio_is_the_share_of_packets_reported_marked() {
        // The same rounds under both feedbacks: one packet in four CE-marked. RFC 3168's
        // ECN-Echo stays on every ACK (the receiver echoes until CWR), a ratio of 1; AccECN
        // reports one mark every fourth ACK, a ratio of 1/4.
        let run = |accecn: bool| {
            let mut f = Flow::to_probe_bw();
            f.until(Mode3::Cruise, 10);
            while !f.c.loss_round_start {
                f.ack(Dur::from_millis(1), 50 * MSS as u64, BW, false, 0);
            }
            let (a0, cwnd) = (f.c.ecn_alpha(), f.c.cwnd() as f64);
            let mut i = 0u32;
            loop {
                let ce = i.is_multiple_of(4) as u32;
                let (ece, count) = if accecn { (ce > 0, Some(ce)) } else { (true, None) };
                f.ack_reporting(Dur::from_millis(1), 50 * MSS as u64, BW, ece, count, 0);
                i += 1;
                if f.c.loss_round_start {
                    break;
                }
            }
            (a0, f.c.ecn_alpha(), cwnd, f.c.inflight_shortterm(), i)
        };
        let (a0, alpha, cwnd, lo, n) = run(true);
        let ratio = n.div_ceil(4) as f64 / n as f64;
        assert!((ratio - 0.25).abs() < 0.05, "{n} ACKs in the round");
        assert!((alpha - (a0 * 15.0 / 16.0 + ratio / 16.0)).abs() < 1e-9, "{alpha} from {a0}");
        assert!((lo - cwnd * (1.0 - alpha / 3.0)).abs() < 1.0, "{lo} from {cwnd}, alpha {alpha}");
        let (b0, beta, ..) = run(false);
        assert!((beta - (b0 * 15.0 / 16.0 + 1.0 / 16.0)).abs() < 1e-9, "ECN-Echo on every ACK: {beta}");
        // Every packet reported marked: a ratio above ecn_thresh, a round "too high", which
        // ends Startup after two.
        let mut s = Flow::new();
        let mut bw = 100_000.0;
        for _ in 0..3 {
            for _ in 0..20 {
                s.ack_reporting(Dur::from_nanos(RTT.as_nanos() / 20), 20 * MSS as u64, bw, true, Some(1), 0);
            }
            bw *= 2.0;
        }
        assert_ne!(s.c.mode(), Mode3::Startup, "two rounds of CE on every packet end Startup");
    }

    #[test]
    fn startup_ends_on_two_rounds_of_high_ce_or_on_high_loss_in_recovery() {
        // Bandwidth still doubling: no plateau, but every ACK ECN-Echoed.
        let mut f = Flow::new();
        let mut bw = 100_000.0;
        for _ in 0..3 {
            f.round(20 * MSS as u64, bw, true);
            bw *= 2.0;
        }
        assert_ne!(f.c.mode(), Mode3::Startup, "two CE rounds end Startup");
        assert!(f.c.inflight_longterm().is_finite());
        // Losses: 6 ACKs finding new losses in a round of fast recovery, 10 % of the flight.
        let mut g = Flow::new();
        bw = 100_000.0;
        for _ in 0..3 {
            g.round(20 * MSS as u64, bw, false);
            bw *= 2.0;
        }
        assert_eq!(g.c.mode(), Mode3::Startup);
        g.c.on_fast_retransmit(&event(20 * MSS, 3));
        g.c.on_recovery_start(&event(20 * MSS, 3));
        for i in 0..20 {
            let lost = if i < 6 { 2 * MSS as u64 / 6 + 1 } else { 0 };
            g.ack(Dur::from_nanos(2_500_000), 20 * MSS as u64, bw, false, lost);
        }
        g.ack(Dur::from_nanos(2_500_000), 20 * MSS as u64, bw, false, MSS as u64);
        assert_ne!(g.c.mode(), Mode3::Startup, "high loss in recovery ends Startup");
    }

    #[test]
    fn probe_rtt_every_five_seconds_at_half_the_bdp() {
        let mut f = Flow::to_probe_bw();
        let mut entered = Vec::new();
        let mut was = f.c.mode();
        while f.now < SimTime::ZERO + Dur::from_secs(16) {
            let flight = (f.c.cwnd() as u64).min(50 * MSS as u64);
            f.round(flight, BW, false);
            if f.c.mode() == Mode3::ProbeRtt && was != Mode3::ProbeRtt {
                entered.push(f.now);
                assert_eq!(f.c.cwnd(), 25 * MSS, "half the BDP of 50 packets");
            }
            was = f.c.mode();
        }
        assert!(entered.len() >= 2, "{entered:?}");
        for w in entered.windows(2) {
            let gap = (w[1] - w[0]).as_secs_f64();
            assert!((5.0..5.6).contains(&gap), "ProbeRTT every 5 s: {entered:?}");
        }
    }

    #[test]
    fn keys_are_checked_by_name() {
        let ctx = CcContext { window: NewRenoConfig::default(), full_ack_given: false, profile: Default::default() };
        assert_eq!(build(&Table::new(), &ctx).unwrap(), CcConfig::Bbr3(Box::default()));
        for bad in ["loss_thresh = 0", "beta = 1.5", "min_cwnd = 0", "drain_pacing_gain = 2", "headroom = 1"] {
            let t: Table = bad.parse().unwrap();
            assert_eq!(build(&t, &ctx).unwrap_err().key, bad.split(' ').next().unwrap());
        }
        let t: Table = "probe_rtt_interval = \"2s\"\nloss_thresh = 0.05".parse().unwrap();
        let CcConfig::Bbr3(c) = build(&t, &ctx).unwrap() else { panic!() };
        assert_eq!((c.probe_rtt_interval, c.loss_thresh), (Dur::from_secs(2), 0.05));
    }
}
