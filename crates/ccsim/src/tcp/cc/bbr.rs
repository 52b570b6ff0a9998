//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR: Congestion-Based
//! Congestion Control", ACM Queue 14(5), 2016), with the rules as Linux's `tcp_bbr.c` (v1)
//! and ns-3.37's `TcpBbr` model them. The model: `BtlBw`, the largest delivery rate over the
//! last 10 round trips, and `RTprop`, the smallest RTT over the last 10 s; the sender paces
//! at `pacing_gain * BtlBw` and keeps at most `cwnd_gain * BtlBw * RTprop` in flight.
//!
//! Rule by rule (all on [`on_rate_sample`](Controller::on_rate_sample), after each ACK that
//! delivered data, as Linux's `bbr_main`):
//!
//! - Rounds are counted by delivered data (`bbr_update_bw`): a round ends when a packet sent
//!   after the previous round's end is delivered. A sample raises the max filter unless it is
//!   application-limited and below the filter's value; the filter forgets a sample older than
//!   `bw_window_rounds` rounds (Linux's `minmax` keeps a sample while `round - its round <=
//!   10`; this filter is exact where `minmax` is an approximation by three sub-windows).
//! - Startup: pacing and cwnd gain `high_gain` (2/ln 2). The pipe is full when the max
//!   filter grew by less than `full_bw_growth` (25 %) in `full_bw_rounds` (3) rounds in a
//!   row, counted at round starts on samples not application-limited.
//! - Drain: pacing gain `1 / high_gain`, cwnd gain `high_gain`, until the data in flight is
//!   at most the target of gain 1; then ProbeBW.
//! - ProbeBW: pacing gains [1.25, 0.75, 1, 1, 1, 1, 1, 1], cwnd gain `cwnd_gain` (2). A
//!   phase lasts at least RTprop; the 1.25 phase lasts until the data in flight reached its
//!   target (or a loss), the 0.75 phase ends early when the data in flight fell to the target
//!   of gain 1 (`bbr_is_next_cycle_phase`). The first phase is any but the 0.75 one, as
//!   Linux draws it; here it is drawn deterministically from the delivered count (see below).
//! - RTprop takes an RTT sample at most as large as it (so an equal one renews its stamp),
//!   or any sample once it is `min_rtt_window` old (`bbr_update_min_rtt`).
//! - ProbeRTT: when RTprop was not refreshed for `min_rtt_window` (10 s), cwnd is capped at
//!   `min_cwnd` (4 packets) for at least `probe_rtt_duration` (200 ms) counted from when the
//!   data in flight fell to it, and at least one round; then RTprop's stamp is renewed, the
//!   window before ProbeRTT is restored and the mode is Startup (pipe not yet full) or
//!   ProbeBW.
//! - cwnd: the target is `cwnd_gain * BtlBw * RTprop` in packets, rounded up, plus the
//!   quantisation allowance, rounded up to even, plus 2 in the 1.25 phase
//!   (`bbr_quantization_budget`); without an RTT yet, the initial window (10 packets, as
//!   Linux's `TCP_INIT_CWND`). Once the pipe is full `cwnd = min(cwnd + acked, target)`;
//!   before, cwnd grows by what each ACK delivered while below the target or while less than
//!   the initial window was delivered. Never below `min_cwnd`.
//! - Pacing rate: `pacing_gain * BtlBw * (1 - pacing_margin)` (Linux's 1 % margin), on the
//!   wire (the 40 bytes of TCP/IP header added to each segment); before the pipe is full
//!   only raised. Before any bandwidth sample: `high_gain` times the initial window over the
//!   smoothed RTT, or over 1 ms without one (`bbr_init_pacing_rate_from_rtt`).
//! - Loss (`bbr_set_cwnd_to_recover_or_restore`): entering fast recovery saves the window
//!   (`bbr_save_cwnd`) and conserves packets for one round: cwnd is what is in flight plus
//!   one segment per packet that left the network (the duplicate ACKs, and the partial ACKs'
//!   deflation, as the window's rules count them); after that round the target rule above
//!   applies; leaving recovery restores at least the saved window. A timeout saves the
//!   window, sets cwnd to the loss window (1 segment), forgets the full-pipe estimate's
//!   reference bandwidth (`full_bw = 0`), grows by what is delivered, and restores at least
//!   the saved window when what was outstanding at the timeout is delivered (Linux: leaving
//!   `TCP_CA_Loss`). ECN-Echo is ignored (v1 does not respond to ECN).
//!
//! Simplifications, each a departure from Linux v1:
//!
//! - The quantisation allowance is 3 packets (`quantum_packets`), where Linux adds three
//!   TSO send quanta (`3 * bbr_tso_segs_goal`, 2 to 64 packets by the pacing rate).
//! - No long-term bandwidth sampling (the policer detector `lt_bw`), no ACK-aggregation
//!   allowance (`extra_acked`), no idle restart, no application-limited marking in ProbeRTT.
//! - ProbeBW's first phase is `(8 - r) mod 8` with `r = (delivered / MSS) mod 7`, a
//!   deterministic stand-in for Linux's `prandom_u32_max(7)`.
//! - The data in flight after an ACK is the sample's prior data in flight less what the ACK
//!   delivered; the time of a sample is that of the ACK's last hook (`on_ack`, a partial ACK,
//!   the end of recovery), so an ACK that calls none of them (SACK recovery) reuses the time
//!   of the last.
//! - Entering SACK recovery sets cwnd to the FlightSize less one segment per duplicate ACK,
//!   plus one: an estimate of RFC 6675's `pipe` plus the segment the ACK let out.

use super::spec::{CcContext, EcnUse, Recovery, Registration};
use super::{Ack, CcConfig, Controller, Event, NewRenoConfig, Signal, Window};
use crate::packet::TCP_IP_HEADER;
use crate::settings::table::{keys_of, read, SettingError, Table};
use crate::settings::units::Duration;
use crate::sim::{Dur, SimTime};
use crate::tcp::rate::RateSample;
use serde::Deserialize;
use std::collections::VecDeque;

/// ProbeBW's pacing gains, phase by phase (Linux `bbr_pacing_gain`, the paper's
/// "[5/4, 3/4, 1, 1, 1, 1, 1, 1]").
pub const GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];

/// Linux's `TCP_INIT_CWND`: the target without an RTT, and the data delivered before
/// Startup's growth needs the target.
const INIT_CWND_PACKETS: u32 = 10;

/// BBR's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct BbrConfig {
    /// Startup's pacing and cwnd gain, Drain's cwnd gain and the inverse of its pacing gain:
    /// 2/ln 2 = 2.885 (Linux `bbr_high_gain`, the paper's `2/ln2`).
    pub high_gain: f64,
    /// ProbeBW's cwnd gain: 2 (Linux `bbr_cwnd_gain`).
    pub cwnd_gain: f64,
    /// Rounds the bandwidth max filter spans: 10 (Linux `bbr_bw_rtts`, `CYCLE_LEN + 2`).
    pub bw_window_rounds: u64,
    /// The min-RTT filter's window, and the time without a new min RTT that starts ProbeRTT:
    /// 10 s (Linux `bbr_min_rtt_win_sec`).
    pub min_rtt_window: Dur,
    /// ProbeRTT's shortest stay at the minimum window: 200 ms (Linux `bbr_probe_rtt_mode_ms`).
    pub probe_rtt_duration: Dur,
    /// The smallest window, and ProbeRTT's window, packets: 4 (Linux `bbr_cwnd_min_target`).
    pub min_cwnd: u32,
    /// The growth of the max filter that counts as not yet full: 1.25 (Linux
    /// `bbr_full_bw_thresh`).
    pub full_bw_growth: f64,
    /// Rounds in a row without that growth that mean the pipe is full: 3 (Linux
    /// `bbr_full_bw_cnt`).
    pub full_bw_rounds: u32,
    /// The share taken off the pacing rate: 0.01 (Linux `bbr_pacing_margin_percent`).
    pub pacing_margin: f64,
    /// Packets added to the target window for the send quantum: 3 (Linux: three TSO quanta).
    pub quantum_packets: u32,
    /// The window's rules: the loss window after a timeout.
    pub window: NewRenoConfig,
}

impl Default for BbrConfig {
    fn default() -> Self {
        BbrConfig {
            high_gain: 2.885,
            cwnd_gain: 2.0,
            bw_window_rounds: 10,
            min_rtt_window: Dur::from_secs(10),
            probe_rtt_duration: Dur::from_millis(200),
            min_cwnd: 4,
            full_bw_growth: 1.25,
            full_bw_rounds: 3,
            pacing_margin: 0.01,
            quantum_packets: 3,
            window: NewRenoConfig::default(),
        }
    }
}

impl BbrConfig {
    /// BBR at the start of a connection: an initial window of `init_cwnd` segments of `mss`
    /// bytes (`init_ssthresh` is kept and unused).
    pub fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> Bbr {
        let mut b = Bbr {
            w: self.window.window(mss, init_cwnd, init_ssthresh),
            cfg: self.clone(),
            mode: Mode::Startup,
            now: SimTime::ZERO,
            bw: VecDeque::new(),
            round: 0,
            next_round_delivered: 0,
            round_start: false,
            delivered: 0,
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            pacing_gain: self.high_gain,
            cwnd_gain: self.high_gain,
            cycle_idx: 0,
            cycle_stamp: SimTime::ZERO,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_reached: false,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            conserving: false,
            loss_until: None,
            lost: false,
            srtt_seen: false,
            pacing: 0.0,
        };
        b.pacing = b.rate_for(init_cwnd as f64 * mss as f64 / 1e-3, self.high_gain);
        b
    }
}

/// BBR's state machine (the paper's Figure; Linux `enum bbr_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// BBR's state: the window, the model and the mode.
#[derive(Clone, Debug, PartialEq)]
pub struct Bbr {
    w: Window,
    cfg: BbrConfig,
    mode: Mode,
    /// The time of the ACK being processed.
    now: SimTime,
    /// The max filter: (round, bandwidth in bytes/s), bandwidths decreasing from the front.
    bw: VecDeque<(u64, f64)>,
    round: u64,
    next_round_delivered: u64,
    round_start: bool,
    /// The connection's delivered count at the last sample.
    delivered: u64,
    min_rtt: Option<Dur>,
    min_rtt_stamp: SimTime,
    pacing_gain: f64,
    cwnd_gain: f64,
    cycle_idx: usize,
    cycle_stamp: SimTime,
    full_bw: f64,
    full_bw_count: u32,
    full_bw_reached: bool,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    /// The window saved on a loss or on entering ProbeRTT, restored after.
    prior_cwnd: u32,
    /// Packet conservation: the first round of fast recovery.
    conserving: bool,
    /// After a timeout: the delivered count at which what was outstanding is delivered.
    loss_until: Option<u64>,
    /// A loss since the last sample (ends ProbeBW's 1.25 phase).
    lost: bool,
    srtt_seen: bool,
    /// The pacing rate, bytes per second on the wire.
    pacing: f64,
}

impl Bbr {
    /// The mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The max filter's bandwidth, bytes per second of payload (0 before a sample).
    pub fn max_bw(&self) -> f64 {
        self.bw.front().map_or(0.0, |&(_, b)| b)
    }

    /// The min-RTT estimate.
    pub fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt
    }

    /// ProbeBW's current pacing gain phase.
    pub fn cycle_index(&self) -> usize {
        self.cycle_idx
    }

    /// The pipe was found full (Startup ended).
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    fn mss(&self) -> u32 {
        self.w.mss()
    }

    /// The pacing rate on the wire for `bw` bytes/s of payload at `gain`.
    fn rate_for(&self, bw: f64, gain: f64) -> f64 {
        let mss = self.mss() as f64;
        bw * gain * (1.0 - self.cfg.pacing_margin) * (mss + TCP_IP_HEADER as f64) / mss
    }

    /// The window for `bw` at `gain`, bytes: the BDP in packets rounded up, with the
    /// quantisation allowance (Linux `bbr_bdp` then `bbr_quantization_budget`).
    fn target(&self, bw: f64, gain: f64) -> u32 {
        let bdp = match self.min_rtt {
            None => INIT_CWND_PACKETS,
            Some(rtt) => (bw * rtt.as_secs_f64() * gain / self.mss() as f64).ceil() as u32,
        };
        let mut pkts = bdp + self.cfg.quantum_packets;
        pkts += pkts % 2;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            pkts += 2;
        }
        pkts.saturating_mul(self.mss())
    }

    /// Linux `bbr_save_cwnd`.
    fn save_cwnd(&mut self) {
        if !self.w.recovering() && self.loss_until.is_none() && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.w.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.w.cwnd);
        }
    }

    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        let Some(bw) = rs.rate_bps() else { return };
        if rs.total_delivered.saturating_sub(rs.delivered) >= self.next_round_delivered {
            self.next_round_delivered = rs.total_delivered;
            self.round += 1;
            self.round_start = true;
            self.conserving = false;
        }
        let round = self.round;
        let window = self.cfg.bw_window_rounds;
        while self.bw.front().is_some_and(|&(r, _)| round - r > window) {
            self.bw.pop_front();
        }
        if !rs.is_app_limited || bw >= self.max_bw() {
            while self.bw.back().is_some_and(|&(_, b)| b <= bw) {
                self.bw.pop_back();
            }
            self.bw.push_back((round, bw));
        }
    }

    fn advance_cycle(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % GAIN_CYCLE.len();
        self.cycle_stamp = self.now;
    }

    /// Linux `bbr_is_next_cycle_phase`.
    fn update_cycle_phase(&mut self, rs: &RateSample) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        let full_length = self.min_rtt.is_some_and(|m| self.now - self.cycle_stamp > m);
        let gain = GAIN_CYCLE[self.cycle_idx];
        let inflight = rs.prior_in_flight;
        let next = if gain == 1.0 {
            full_length
        } else if gain > 1.0 {
            full_length && (self.lost || inflight >= self.target(self.max_bw(), gain) as u64)
        } else {
            full_length || inflight <= self.target(self.max_bw(), 1.0) as u64
        };
        if next {
            self.advance_cycle();
        }
    }

    /// Linux `bbr_check_full_bw_reached`.
    fn check_full_bw(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.max_bw() >= self.full_bw * self.cfg.full_bw_growth {
            self.full_bw = self.max_bw();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_reached = self.full_bw_count >= self.cfg.full_bw_rounds;
    }

    /// ProbeBW from its first phase: any but the 0.75 one.
    fn enter_probe_bw(&mut self) {
        self.mode = Mode::ProbeBw;
        let r = (self.delivered / self.mss() as u64 % 7) as usize;
        self.cycle_idx = GAIN_CYCLE.len() - 1 - r;
        self.advance_cycle();
    }

    /// Linux `bbr_check_drain`.
    fn check_drain(&mut self, inflight: u64) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
        }
        if self.mode == Mode::Drain && inflight <= self.target(self.max_bw(), 1.0) as u64 {
            self.enter_probe_bw();
        }
    }

    /// Linux `bbr_update_min_rtt`, with ProbeRTT's entry and exit.
    fn update_min_rtt(&mut self, rs: &RateSample, inflight: u64) {
        let expired = self.now > self.min_rtt_stamp + self.cfg.min_rtt_window;
        if let Some(rtt) = rs.rtt {
            if self.min_rtt.is_none_or(|m| rtt <= m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = self.now;
            }
        }
        if self.cfg.probe_rtt_duration > Dur::ZERO && expired && self.mode != Mode::ProbeRtt {
            self.save_cwnd();
            self.mode = Mode::ProbeRtt;
            self.probe_rtt_done = None;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        match self.probe_rtt_done {
            None if inflight <= (self.cfg.min_cwnd * self.mss()) as u64 => {
                self.probe_rtt_done = Some(self.now + self.cfg.probe_rtt_duration);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = self.delivered;
            }
            Some(done) => {
                self.probe_rtt_round_done |= self.round_start;
                if self.probe_rtt_round_done && self.now > done {
                    self.min_rtt_stamp = self.now;
                    self.w.cwnd = self.w.cwnd.max(self.prior_cwnd);
                    if self.full_bw_reached {
                        self.enter_probe_bw();
                    } else {
                        self.mode = Mode::Startup;
                    }
                }
            }
            None => {}
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.cfg.high_gain, self.cfg.high_gain),
            Mode::Drain => (1.0 / self.cfg.high_gain, self.cfg.high_gain),
            Mode::ProbeBw => (GAIN_CYCLE[self.cycle_idx], self.cfg.cwnd_gain),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// Linux `bbr_set_pacing_rate`.
    fn set_pacing_rate(&mut self) {
        let bw = self.max_bw();
        if bw <= 0.0 {
            return;
        }
        let rate = self.rate_for(bw, self.pacing_gain);
        if self.full_bw_reached || rate > self.pacing {
            self.pacing = rate;
        }
    }

    /// Linux `bbr_set_cwnd`, its recovery part in the loss hooks.
    fn set_cwnd(&mut self, acked: u64) {
        let min = self.cfg.min_cwnd * self.mss();
        if acked > 0 && !self.conserving {
            let mut cwnd = self.w.cwnd;
            if self.loss_until.is_some_and(|end| self.delivered >= end) {
                self.loss_until = None;
                cwnd = cwnd.max(self.prior_cwnd);
            }
            let target = self.target(self.max_bw(), self.cwnd_gain);
            let grown = cwnd.saturating_add(acked.min(u32::MAX as u64) as u32);
            if self.full_bw_reached {
                cwnd = grown.min(target);
            } else if cwnd < target || self.delivered < (INIT_CWND_PACKETS * self.mss()) as u64 {
                cwnd = grown;
            }
            self.w.cwnd = cwnd.max(min);
        }
        if self.mode == Mode::ProbeRtt {
            self.w.cwnd = self.w.cwnd.min(min);
        }
    }

    /// Fast recovery starts: save the window, conserve packets for a round.
    fn enter_recovery(&mut self, ev: &Event) {
        self.now = ev.now;
        self.save_cwnd();
        self.lost = true;
        self.conserving = true;
        self.next_round_delivered = self.delivered;
        let mss = self.mss();
        self.w.set_base((ev.flight + mss).saturating_sub(ev.dupacks * mss).max(mss));
    }
}

impl Controller for Bbr {
    fn window(&self) -> &Window {
        &self.w
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    /// The window is set per rate sample; an ACK gives the time and the first smoothed RTT
    /// (the initial pacing rate).
    fn on_ack(&mut self, ack: &Ack) {
        self.now = ack.now;
        if let (false, Some(srtt)) = (self.srtt_seen, ack.srtt) {
            self.srtt_seen = true;
            if self.bw.is_empty() && srtt > Dur::ZERO {
                let init = (self.w.cwnd / self.mss()).max(1);
                self.pacing = self.rate_for(init as f64 * self.mss() as f64 / srtt.as_secs_f64(), self.cfg.high_gain);
            }
        }
    }

    /// Linux `bbr_ssthresh`: the window is saved, not reduced.
    fn reduce(&mut self, _ev: &Event, _signal: Signal) -> u32 {
        self.save_cwnd();
        self.w.cwnd
    }

    fn on_fast_retransmit(&mut self, ev: &Event) {
        self.enter_recovery(ev);
    }

    fn on_loss_in_answered_window(&mut self, ev: &Event) {
        self.enter_recovery(ev);
        self.w.start_recovery(ev.dupacks);
    }

    fn on_partial_ack(&mut self, ack: &Ack) {
        self.now = ack.now;
        if self.conserving {
            self.w.deflate(ack);
        }
    }

    fn on_recovery_end(&mut self, ack: &Ack) {
        self.now = ack.now;
        let cwnd = self.w.cwnd;
        self.w.end_recovery(ack);
        self.w.cwnd = cwnd.max(self.prior_cwnd);
        self.conserving = false;
    }

    fn on_timeout(&mut self, ev: &Event) {
        self.now = ev.now;
        if ev.backoffs == 0 {
            self.save_cwnd();
        }
        self.loss_until = Some(self.delivered + ev.flight as u64);
        self.w.collapse();
        self.conserving = false;
        self.lost = true;
        self.full_bw = 0.0;
    }

    /// BBR v1 does not respond to ECN.
    fn on_ecn_echo(&mut self, ev: &Event) {
        self.now = ev.now;
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    /// Linux `bbr_main`: the model, the mode, the pacing rate and the window.
    fn on_rate_sample(&mut self, rs: &RateSample) {
        let acked = rs.total_delivered.saturating_sub(self.delivered);
        self.delivered = rs.total_delivered;
        let inflight = rs.prior_in_flight.saturating_sub(acked);
        self.update_bw(rs);
        self.update_cycle_phase(rs);
        self.check_full_bw(rs);
        self.check_drain(inflight);
        self.update_min_rtt(rs, inflight);
        self.update_gains();
        self.set_pacing_rate();
        self.set_cwnd(acked);
        self.lost = false;
    }

    fn paces(&self) -> bool {
        true
    }

    fn pacing_rate(&self) -> Option<f64> {
        Some(self.pacing)
    }
}

/// BBR's own keys, `tcp.bbr.*`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BbrSpec {
    /// Startup's gain; default 2.885.
    pub high_gain: Option<f64>,
    /// ProbeBW's cwnd gain; default 2.
    pub cwnd_gain: Option<f64>,
    /// The bandwidth filter's window in rounds; default 10.
    pub bw_window_rounds: Option<u64>,
    /// The min-RTT filter's window; default 10 s.
    pub min_rtt_window: Option<Duration>,
    /// ProbeRTT's shortest stay; default 200 ms.
    pub probe_rtt_duration: Option<Duration>,
    /// The smallest window, packets; default 4.
    pub min_cwnd: Option<u32>,
    /// Growth below which a round counts towards a full pipe; default 1.25.
    pub full_bw_growth: Option<f64>,
    /// Rounds without growth that mean a full pipe; default 3.
    pub full_bw_rounds: Option<u32>,
    /// The share taken off the pacing rate; default 0.01.
    pub pacing_margin: Option<f64>,
    /// The target window's allowance for the send quantum, packets; default 3.
    pub quantum_packets: Option<u32>,
}

/// `tcp.variant = "bbr"`: RFC 6582's loss recovery decides what is retransmitted; BBR sets
/// the window.
pub const REGISTRATION: Registration = Registration { name: "bbr", recovery: Recovery::NewReno, ecn: EcnUse::Optional, keys: keys_of::<BbrSpec>, build };

fn build(table: &Table, ctx: &CcContext) -> Result<CcConfig, SettingError> {
    let spec = read::<BbrSpec>(table)?;
    let d = BbrConfig::default();
    let above_one = |key: &str, v: Option<f64>, dflt: f64| match v.unwrap_or(dflt) {
        x if x.is_finite() && x > 1.0 => Ok(x),
        x => Err(SettingError::new(key, format!("must be a number above 1, got {x}"))),
    };
    let at_least_one = |key: &str, v: u64| if v >= 1 { Ok(v) } else { Err(SettingError::new(key, "must be at least 1, got 0")) };
    let pacing_margin = spec.pacing_margin.unwrap_or(d.pacing_margin);
    if !(0.0..1.0).contains(&pacing_margin) {
        return Err(SettingError::new("pacing_margin", format!("must be in [0, 1), got {pacing_margin}")));
    }
    Ok(CcConfig::Bbr(Box::new(BbrConfig {
        high_gain: above_one("high_gain", spec.high_gain, d.high_gain)?,
        cwnd_gain: above_one("cwnd_gain", spec.cwnd_gain, d.cwnd_gain)?,
        bw_window_rounds: at_least_one("bw_window_rounds", spec.bw_window_rounds.unwrap_or(d.bw_window_rounds))?,
        min_rtt_window: spec.min_rtt_window.map_or(d.min_rtt_window, Duration::dur),
        probe_rtt_duration: spec.probe_rtt_duration.map_or(d.probe_rtt_duration, Duration::dur),
        min_cwnd: at_least_one("min_cwnd", spec.min_cwnd.unwrap_or(d.min_cwnd) as u64)? as u32,
        full_bw_growth: above_one("full_bw_growth", spec.full_bw_growth, d.full_bw_growth)?,
        full_bw_rounds: at_least_one("full_bw_rounds", spec.full_bw_rounds.unwrap_or(d.full_bw_rounds) as u64)? as u32,
        pacing_margin,
        quantum_packets: spec.quantum_packets.unwrap_or(d.quantum_packets),
        window: ctx.window.clone(),
    })))
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    const RTT: Dur = Dur::from_millis(40);

    /// Drives a controller with hand-built ACKs and rate samples.
    #[derive(Clone)]
    struct Drive {
        c: Bbr,
        now: SimTime,
        delivered: u64,
    }

    impl Drive {
        fn new() -> Drive {
            Drive { c: BbrConfig::default().build(MSS, 10, u32::MAX / 2), now: SimTime::ZERO, delivered: 0 }
        }

        /// One ACK at `now + gap` delivering `acked` bytes with `flight` outstanding before
        /// it, its sample `bw` bytes/s, `rtt` its RTT.
        fn ack(&mut self, gap: Dur, acked: u64, flight: u64, bw: f64, rtt: Dur) {
            self.now += gap;
            self.delivered += acked;
            let mut a = ack(acked as u32, flight.saturating_sub(acked) as u32);
            a.now = self.now;
            a.srtt = Some(rtt);
            self.c.on_ack(&a);
            // The packet acknowledged was sent when `flight` before it was outstanding: the
            // sample spans that much data, at `bw`.
            let delivered = flight.clamp(acked, self.delivered);
            let interval = Dur::from_secs_f64(delivered as f64 / bw);
            let rs = RateSample::new(delivered, interval, Some(rtt), flight, false, self.delivered);
            self.c.on_rate_sample(&rs);
        }

        /// A round: enough ACKs of one packet each to deliver everything sent before it.
        fn round(&mut self, bw: f64, flight: u64) {
            let end = self.delivered + flight.max(MSS as u64);
            let per = RTT.as_nanos() / (flight / MSS as u64).max(1);
            while self.delivered < end {
                self.ack(Dur::from_nanos(per), MSS as u64, flight, bw, RTT);
            }
        }
    }

    #[test]
    fn startup_paces_and_grows_at_high_gain_and_leaves_on_a_plateau_of_three_rounds() {
        let mut d = Drive::new();
        assert_eq!(d.c.mode(), Mode::Startup);
        // Before any sample: high_gain times 10 packets per millisecond, on the wire.
        let init = 2.885 * 10.0 * 1040.0 / 1e-3 * 0.99;
        assert!((d.c.pacing_rate().unwrap() / init - 1.0).abs() < 1e-9);
        // Bandwidth doubling each round: Startup stays.
        let mut bw = 50_000.0;
        for _ in 0..6 {
            d.round(bw, 20 * MSS as u64);
            bw *= 2.0;
            assert_eq!(d.c.mode(), Mode::Startup);
        }
        let top = d.c.max_bw();
        let rate = d.c.pacing_rate().unwrap();
        assert!((rate / (2.885 * top * 0.99 * 1.04) - 1.0).abs() < 1e-9, "pacing = high_gain * bw: {rate}");
        // A plateau 10 % above the last round's: three rounds without 25 % growth end
        // Startup; 20 packets in flight are below the BDP, so Drain ends at once.
        for i in 0..3 {
            assert!(!d.c.full_bw_reached(), "round {i} of the plateau");
            d.round(top * 1.1, 20 * MSS as u64);
        }
        assert!(d.c.full_bw_reached());
        assert_eq!(d.c.mode(), Mode::ProbeBw);
    }

    #[test]
    fn drain_lasts_until_inflight_is_at_most_one_bdp() {
        let mut d = Drive::new();
        for _ in 0..6 {
            d.round(1_000_000.0, 200 * MSS as u64);
        }
        // 1 MB/s * 40 ms = 40 packets; the target at gain 1 is 40 + 3, rounded up to 44.
        assert!(d.c.full_bw_reached());
        assert_eq!(d.c.mode(), Mode::Drain, "200 packets in flight is above the BDP");
        assert!((d.c.pacing_rate().unwrap() / (1_000_000.0 / 2.885 * 0.99 * 1.04) - 1.0).abs() < 1e-9, "drain's pacing gain is 1/high_gain");
        d.ack(Dur::from_millis(1), MSS as u64, 46 * MSS as u64, 1_000_000.0, RTT);
        assert_eq!(d.c.mode(), Mode::Drain, "45 packets left in flight: still draining");
        d.ack(Dur::from_millis(1), MSS as u64, 45 * MSS as u64, 1_000_000.0, RTT);
        assert_eq!(d.c.mode(), Mode::ProbeBw, "44 packets: one BDP with the allowance");
        assert_ne!(d.c.cycle_index(), 1, "ProbeBW never starts in the 0.75 phase");
    }

    #[test]
    fn probe_bw_advances_a_phase_each_min_rtt_through_the_gain_cycle() {
        let mut d = Drive::new();
        for _ in 0..6 {
            d.round(1_000_000.0, 40 * MSS as u64);
        }
        assert_eq!(d.c.mode(), Mode::ProbeBw);
        let mut seen = vec![d.c.cycle_index()];
        // Acks every 10 ms with one BDP in flight: a gain-1 phase lasts 5 ACKs (more than
        // 40 ms); the 1.25 phase needs its inflight target, the 0.75 phase ends at once.
        for _ in 0..200 {
            let before = d.c.cycle_index();
            let flight = if GAIN_CYCLE[before] > 1.0 { 60 * MSS } else { 40 * MSS } as u64;
            d.ack(Dur::from_millis(10), MSS as u64, flight, 1_000_000.0, RTT);
            if d.c.cycle_index() != before {
                assert_eq!(d.c.cycle_index(), (before + 1) % 8, "phases advance one by one");
                seen.push(d.c.cycle_index());
            }
        }
        assert!(seen.len() > 16, "two cycles and more: {seen:?}");
        // The pacing rate follows the phase's gain.
        let gain = GAIN_CYCLE[d.c.cycle_index()];
        assert!((d.c.pacing_rate().unwrap() / (gain * 1_000_000.0 * 0.99 * 1.04) - 1.0).abs() < 1e-9);
        // A gain-1 phase lasts more than one min RTT: 5 ACKs 10 ms apart.
        let mut d2 = d.clone();
        loop {
            let before = d2.c.cycle_index();
            d2.ack(Dur::from_millis(10), MSS as u64, 40 * MSS as u64, 1_000_000.0, RTT);
            if d2.c.cycle_index() != before && GAIN_CYCLE[d2.c.cycle_index()] == 1.0 {
                break;
            }
        }
        let at = d2.c.cycle_index();
        let mut acks = 0;
        while d2.c.cycle_index() == at {
            d2.ack(Dur::from_millis(10), MSS as u64, 40 * MSS as u64, 1_000_000.0, RTT);
            acks += 1;
        }
        assert_eq!(acks, 5, "just over 40 ms: 5 ACKs 10 ms apart");
    }

    #[test]
    fn probe_rtt_after_ten_seconds_without_a_new_min_rtt_then_back() {
        let mut d = Drive::new();
        for _ in 0..6 {
            d.round(1_000_000.0, 40 * MSS as u64);
        }
        assert_eq!(d.c.mode(), Mode::ProbeBw);
        let cwnd = d.c.cwnd();
        // RTT samples above the minimum for 10 s: ProbeRTT, window at 4 packets.
        let slow = Dur::from_millis(50);
        let last_min = d.now;
        while d.now + Dur::from_millis(10) <= last_min + Dur::from_secs(10) {
            d.ack(Dur::from_millis(10), MSS as u64, 40 * MSS as u64, 1_000_000.0, slow);
            assert_eq!(d.c.mode(), Mode::ProbeBw);
        }
        d.ack(Dur::from_millis(10), MSS as u64, 40 * MSS as u64, 1_000_000.0, slow);
        assert_eq!(d.c.mode(), Mode::ProbeRtt);
        assert_eq!(d.c.cwnd(), 4 * MSS);
        assert_eq!(d.c.min_rtt(), Some(slow), "the expired filter takes the new sample");
        // 200 ms from when 4 packets are in flight, and a round: then ProbeBW, window back.
        d.ack(Dur::from_millis(10), MSS as u64, 5 * MSS as u64, 1_000_000.0, slow);
        let start = d.now;
        while d.c.mode() == Mode::ProbeRtt {
            d.ack(Dur::from_millis(10), MSS as u64, 4 * MSS as u64, 1_000_000.0, slow);
            assert!(d.c.mode() != Mode::ProbeRtt || d.c.cwnd() == 4 * MSS);
        }
        let stayed = d.now - start;
        assert!(stayed > Dur::from_millis(200) && stayed <= Dur::from_millis(210), "{stayed:?}");
        assert_eq!(d.c.mode(), Mode::ProbeBw);
        assert!(d.c.cwnd() >= cwnd, "the window before ProbeRTT is restored: {} < {cwnd}", d.c.cwnd());
    }

    #[test]
    fn the_bandwidth_filter_forgets_a_peak_after_ten_rounds() {
        let mut d = Drive::new();
        d.round(2_000_000.0, 10 * MSS as u64);
        let peak = d.c.max_bw();
        // Ten further rounds at half the rate keep the peak; the eleventh drops it.
        for i in 1..=10 {
            d.round(1_000_000.0, 10 * MSS as u64);
            assert_eq!(d.c.max_bw(), peak, "round {i} after the peak");
        }
        d.round(1_000_000.0, 10 * MSS as u64);
        assert!(d.c.max_bw() < peak, "{} after 11 rounds", d.c.max_bw());
        // An application-limited sample below the filter does not count.
        let low = d.c.max_bw();
        let rs = RateSample::new(10, RTT, Some(RTT), MSS as u64, true, d.delivered + MSS as u64);
        d.c.on_rate_sample(&rs);
        assert_eq!(d.c.max_bw(), low);
    }

    #[test]
    fn recovery_conserves_packets_and_restores_the_window_and_a_timeout_restarts_at_one() {
        let mut d = Drive::new();
        for _ in 0..6 {
            d.round(1_000_000.0, 40 * MSS as u64);
        }
        let cwnd = d.c.cwnd();
        // Fast retransmit with 40 packets out after 3 duplicates: one new packet may go.
        d.c.on_fast_retransmit(&event(40 * MSS, 3));
        d.c.on_recovery_start(&event(40 * MSS, 3));
        assert_eq!(d.c.cwnd(), 41 * MSS);
        d.c.on_recovery_dupack(&event(40 * MSS, 4));
        assert_eq!(d.c.cwnd(), 42 * MSS, "one packet per duplicate");
        let mut end = ack(10 * MSS, 30 * MSS);
        end.now = d.now;
        d.c.on_recovery_end(&end);
        assert_eq!(d.c.cwnd(), cwnd.max(42 * MSS), "the saved window comes back");
        // A timeout: one segment, and the window back when what was out is delivered.
        d.c.on_timeout(&event(30 * MSS, 0));
        assert_eq!(d.c.cwnd(), MSS);
        d.ack(Dur::from_millis(1), MSS as u64, 30 * MSS as u64, 1_000_000.0, RTT);
        assert_eq!(d.c.cwnd(), 4 * MSS, "two segments, raised to min_cwnd");
        for _ in 0..29 {
            d.ack(Dur::from_millis(1), MSS as u64, 30 * MSS as u64, 1_000_000.0, RTT);
        }
        assert!(d.c.cwnd() >= cwnd, "{} < {cwnd}", d.c.cwnd());
    }

    #[test]
    fn keys_are_checked_by_name() {
        let ctx = CcContext { window: NewRenoConfig::default(), full_ack_given: false };
        assert_eq!(build(&Table::new(), &ctx).unwrap(), CcConfig::Bbr(Box::default()));
        let t: Table = "high_gain = 0.5".parse().unwrap();
        assert_eq!(build(&t, &ctx).unwrap_err().key, "high_gain");
        let t: Table = "min_cwnd = 0".parse().unwrap();
        assert_eq!(build(&t, &ctx).unwrap_err().key, "min_cwnd");
        let t: Table = "probe_rtt_duration = \"100ms\"".parse().unwrap();
        let CcConfig::Bbr(c) = build(&t, &ctx).unwrap() else { panic!() };
        assert_eq!(c.probe_rtt_duration, Dur::from_millis(100));
    }
}
