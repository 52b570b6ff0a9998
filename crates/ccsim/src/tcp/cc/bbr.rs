//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR: Congestion-Based
//! Congestion Control", ACM Queue 14(5), 2016), with the rules as Linux's `tcp_bbr.c` (v1)
//! and ns-3.37's `TcpBbr` model them. The model: `BtlBw`, the largest delivery rate over the
//! last 10 round trips, and `RTprop`, the smallest RTT over the last 10 s; the sender paces
//! at `pacing_gain * BtlBw` and keeps at most `cwnd_gain * BtlBw * RTprop` in flight.
//!
//! The rules BBR v3 keeps (rounds, the full-pipe estimator, pacing, the window's growth and
//! its rules around loss) are in `bbr_core.rs`, which both versions compose.
//!
//! Rule by rule (all on each rate sample, after each ACK that delivered data, as Linux's
//! `bbr_main`):
//!
//! - Rounds are counted by delivered data (`bbr_update_bw`): a round ends when a packet sent
//!   after the previous round's end is delivered. A sample raises the max filter unless it is
//!   application-limited and below the filter's value; when it takes one, the filter forgets
//!   a sample older than `bw_window_rounds` rounds (Linux's `minmax` keeps a sample while
//!   `round - its round <= 10`, and ages only on the samples it takes; this filter is exact
//!   where `minmax` is an approximation by three sub-windows).
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
//! - Pacing rate: `pacing_gain * BtlBw * (1 - pacing_margin)` (Linux's 1 % margin), with the
//!   40 bytes of TCP/IP header of each segment, not its options (Linux paces payload;
//!   `Controller::pacing_rate`); before the pipe is full
//!   only raised. Before any bandwidth sample: `high_gain` times the initial window over the
//!   smoothed RTT, or over 1 ms without one (`bbr_init_pacing_rate_from_rtt`).
//! - Loss (`bbr_set_cwnd_to_recover_or_restore`): the bytes a sample's ACK found lost come
//!   off the window before it grows (`cwnd - rs->losses`, [`RateSample::losses`]). Entering
//!   fast recovery saves the window (`bbr_save_cwnd`) and conserves packets for one round:
//!   cwnd is what is in flight plus one segment per packet that left the network (the
//!   duplicate ACKs, and the partial ACKs' deflation, as the window's rules count them);
//!   after that round the target rule above applies; leaving recovery restores at least the
//!   saved window. The window is BBR's in recovery too: Proportional Rate Reduction
//!   (`tcp.prr`) does not apply (Linux's `tcp_cong_control()` calls BBR's `cong_control`
//!   instead of `tcp_cwnd_reduction()`). A timeout saves the
//!   window, sets cwnd to the loss window (1 segment), forgets the full-pipe estimate's
//!   reference bandwidth (`full_bw = 0`), grows by what is delivered, and restores at least
//!   the saved window when what was outstanding at the timeout is delivered (Linux: leaving
//!   `TCP_CA_Loss`). ECN-Echo is ignored (v1 does not respond to ECN).
//!
//! Simplifications, each a departure from Linux v1:
//!
//! - The losses a sample takes off the window are those RACK-TLP marked while its ACK was
//!   processed (`tcp.rack`, the `linux` profile's; RACK's reordering timer marks some between
//!   ACKs, which no sample reports, as in Linux); without RACK-TLP none, where ns-3.37's
//!   `TcpBbr` subtracts the bytes its scoreboard newly deems lost (`m_bytesLoss`).
//! - The quantisation allowance is 3 packets (`quantum_packets`, ns-3.37's one-segment send
//!   quantum) unless `tso_quanta` (the `linux` profile's default) takes Linux's three TSO
//!   send quanta (`3 * bbr_tso_segs_goal`, by the pacing rate). Segments still leave one at
//!   a time, paced: the quanta count only in the window and in ProbeBW's phase ends.
//! - Long-term bandwidth sampling (the policer detector `lt_bw`, `bbr_lt_bw_sampling`) only
//!   with `long_term_bw` (the `linux` profile's default; ns-3.37 has none). No
//!   ACK-aggregation allowance (`extra_acked`), no idle restart, no application-limited
//!   marking in ProbeRTT (Linux's `bbr_update_min_rtt()` sets `tp->app_limited` there;
//!   docs/validation.md, "ProbeRTT": tried, not kept).
//! - ProbeBW's first phase is `(8 - r) mod 8` with `r = (delivered / MSS) mod 7`, a
//!   deterministic stand-in for Linux's `prandom_u32_max(7)`.
//! - The data in flight after an ACK is the sample's prior data in flight less what the ACK
//!   delivered: the FlightSize, where Linux counts `tcp_packets_in_flight()` (RFC 6675's
//!   pipe), but for ProbeRTT's wait for the flight to fall to `min_cwnd`, which takes the
//!   pipe (in loss recovery the FlightSize holds what the receiver has SACKed, and at a
//!   window of 4 packets takes seconds to fall).
//! - Entering SACK recovery sets cwnd to the FlightSize less one segment per duplicate ACK,
//!   plus one: an estimate of RFC 6675's `pipe` plus the segment the ACK let out, where
//!   Linux starts from `tcp_packets_in_flight()` (docs/validation.md: with the pipe itself
//!   the table against ns-3.37 agreed less).

use super::bbr_core::{BbrFamily, Core, MaxFilter};
use super::spec::{CcContext, EcnUse, Recovery, Registration};
use super::{CcConfig, NewRenoConfig};
use crate::settings::profile::Profile;
use crate::settings::table::{keys_of, read, SettingError, Table};
use crate::settings::units::Duration;
use crate::sim::{Dur, SimTime};
use crate::tcp::rate::RateSample;
use serde::Deserialize;

/// ProbeBW's pacing gains, phase by phase (Linux `bbr_pacing_gain`, the paper's
/// "[5/4, 3/4, 1, 1, 1, 1, 1, 1]").
pub const GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];

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
    /// What the target window adds for the send quantum.
    pub quantum: Quantum,
    /// Long-term bandwidth sampling (Linux `bbr_lt_bw_sampling`): off; on under `linux`.
    pub long_term_bw: bool,
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
            quantum: Quantum::Packets(3),
            long_term_bw: false,
            window: NewRenoConfig::default(),
        }
    }
}

impl BbrConfig {
    /// BBR at the start of a connection: an initial window of `init_cwnd` segments of `mss`
    /// bytes (`init_ssthresh` is kept and unused).
    pub fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> Bbr {
        Bbr {
            c: Core::new(self.window.window(mss, init_cwnd, init_ssthresh), self.high_gain, self.pacing_margin),
            cfg: self.clone(),
            mode: Mode::Startup,
            bw: MaxFilter::new(self.bw_window_rounds),
            pacing_gain: self.high_gain,
            cwnd_gain: self.high_gain,
            cycle_idx: 0,
            cycle_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            lt: LongTerm::default(),
        }
    }
}

/// The packets the target window adds for the send quantum (Linux
/// `bbr_quantization_budget`), before rounding up to even.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantum {
    /// A fixed number: 3, one segment per quantum (ns-3.37's `m_sendQuantum`).
    Packets(u32),
    /// Three of Linux's TSO send quanta (`3 * bbr_tso_segs_goal`, [`Core::tso_segs_goal`]):
    /// 6 packets at 10 Mbit/s, 12 at 50 Mbit/s with 1448-byte segments. A sender without TSO
    /// still sends one segment at a time; only the window counts them.
    TsoGoal,
}

/// BBR's state machine (the paper's Figure; Linux `enum bbr_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// BBR's state: the shared core (window, rounds, min RTT, pacing, loss rules), the
/// bandwidth filter and the mode.
#[derive(Clone, Debug, PartialEq)]
pub struct Bbr {
    c: Core,
    cfg: BbrConfig,
    mode: Mode,
    /// The max filter of bandwidth (bytes/s) over rounds.
    bw: MaxFilter,
    pacing_gain: f64,
    cwnd_gain: f64,
    cycle_idx: usize,
    cycle_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    lt: LongTerm,
}

/// Linux's long-term bandwidth sampling (a policer detector): after the first loss,
/// intervals of 4 to 16 rounds each ending on a loss; two in a row with a loss rate of at
/// least 50/256 and delivery rates within 1/8 (or 4 kbit/s) of each other make BBR pace
/// at their average, gain 1, for 48 rounds of ProbeBW.
#[derive(Clone, Debug, Default, PartialEq)]
struct LongTerm {
    is_sampling: bool,
    use_bw: bool,
    /// The previous interval's rate, or the rate in use, bytes/s (0: none).
    bw: f64,
    rounds: u32,
    last_stamp: SimTime,
    last_delivered: u64,
    last_lost: u64,
}

/// `bbr_lt_intvl_min_rtts`, `bbr_lt_loss_thresh` (of 256), `bbr_lt_bw_ratio`,
/// `bbr_lt_bw_diff` (bytes/s), `bbr_lt_bw_max_rtts`.
const LT_MIN_ROUNDS: u32 = 4;
const LT_LOSS_THRESH: f64 = 50.0 / 256.0;
const LT_BW_RATIO: f64 = 1.0 / 8.0;
const LT_BW_DIFF: f64 = 4000.0 / 8.0;
const LT_MAX_ROUNDS: u32 = 48;

impl Bbr {
    /// The mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The max filter's bandwidth, bytes per second of payload (0 before a sample).
    pub fn max_bw(&self) -> f64 {
        self.bw.best()
    }

    /// The bandwidth BBR paces and sizes its window by (Linux `bbr_bw`): the long-term rate
    /// while it is in use, else the max filter's.
    pub fn bw(&self) -> f64 {
        if self.lt.use_bw {
            self.lt.bw
        } else {
            self.max_bw()
        }
    }

    /// Whether the long-term rate is in use.
    #[cfg(test)]
    fn long_term_in_use(&self) -> bool {
        self.lt.use_bw
    }

    /// Linux `bbr_reset_lt_bw_sampling_interval`.
    fn lt_new_interval(&mut self, rs: &RateSample) {
        self.lt.last_stamp = self.c.now;
        self.lt.last_delivered = rs.total_delivered;
        self.lt.last_lost = rs.total_lost;
        self.lt.rounds = 0;
    }

    /// Linux `bbr_reset_lt_bw_sampling`.
    fn lt_reset(&mut self, rs: &RateSample) {
        self.lt.bw = 0.0;
        self.lt.use_bw = false;
        self.lt.is_sampling = false;
        self.lt_new_interval(rs);
    }

    /// Linux `bbr_lt_bw_sampling` and `bbr_lt_bw_interval_done`.
    fn lt_sample(&mut self, rs: &RateSample) {
        if self.lt.use_bw {
            if self.mode == Mode::ProbeBw && self.c.round_start {
                self.lt.rounds += 1;
                if self.lt.rounds >= LT_MAX_ROUNDS {
                    self.lt_reset(rs);
                    self.enter_probe_bw();
                }
            }
            return;
        }
        if !self.lt.is_sampling {
            if !self.c.lost {
                return;
            }
            self.lt_new_interval(rs);
            self.lt.is_sampling = true;
        }
        if rs.is_app_limited {
            return self.lt_reset(rs);
        }
        if self.c.round_start {
            self.lt.rounds += 1;
        }
        if self.lt.rounds < LT_MIN_ROUNDS {
            return;
        }
        if self.lt.rounds > 4 * LT_MIN_ROUNDS {
            return self.lt_reset(rs);
        }
        if !self.c.lost {
            return;
        }
        let lost = rs.total_lost.saturating_sub(self.lt.last_lost) as f64;
        let delivered = rs.total_delivered.saturating_sub(self.lt.last_delivered) as f64;
        if delivered == 0.0 || lost < LT_LOSS_THRESH * delivered {
            return;
        }
        let t = (self.c.now - self.lt.last_stamp).as_secs_f64();
        if t < 1e-3 {
            return;
        }
        let bw = delivered / t;
        if self.lt.bw > 0.0 {
            let diff = (bw - self.lt.bw).abs();
            if diff <= LT_BW_RATIO * self.lt.bw || diff <= LT_BW_DIFF {
                self.lt.bw = (bw + self.lt.bw) / 2.0;
                self.lt.use_bw = true; // ProbeBW's gain is 1 from here (`update_gains`)
                self.lt.rounds = 0;
                return;
            }
        }
        self.lt.bw = bw;
        self.lt_new_interval(rs);
    }

    /// The min-RTT estimate.
    pub fn min_rtt(&self) -> Option<Dur> {
        self.c.min_rtt
    }

    /// ProbeBW's current pacing gain phase.
    pub fn cycle_index(&self) -> usize {
        self.cycle_idx
    }

    /// The pipe was found full (Startup ended).
    pub fn full_bw_reached(&self) -> bool {
        self.c.full_bw_reached
    }

    /// The window for `bw` at `gain`, bytes: the BDP in packets rounded up, with the
    /// quantisation allowance (Linux `bbr_bdp` then `bbr_quantization_budget`).
    fn target(&self, bw: f64, gain: f64) -> u32 {
        let quantum = match self.cfg.quantum {
            Quantum::Packets(n) => n,
            Quantum::TsoGoal => 3 * self.c.tso_segs_goal(),
        };
        let mut pkts = self.c.bdp_packets(bw, gain) + quantum;
        pkts += pkts % 2;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            pkts += 2;
        }
        pkts.saturating_mul(self.c.mss())
    }

    fn update_bw(&mut self, rs: &RateSample) {
        self.c.round_start = false;
        let Some(bw) = rs.rate_bps() else { return };
        self.c.update_round(rs);
        if self.cfg.long_term_bw {
            self.lt_sample(rs);
        }
        // The filter moves only with the samples it takes (Linux's `minmax_running_max()`,
        // the draft's `update_windowed_max_filter()`): an application-limited stretch ages
        // nothing out.
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.expire(self.c.round);
            self.bw.push(self.c.round, bw);
        }
    }

    fn advance_cycle(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % GAIN_CYCLE.len();
        self.cycle_stamp = self.c.now;
    }

    /// Linux `bbr_is_next_cycle_phase`.
    fn update_cycle_phase(&mut self, rs: &RateSample) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        let full_length = self.c.min_rtt.is_some_and(|m| self.c.now - self.cycle_stamp > m);
        let gain = GAIN_CYCLE[self.cycle_idx];
        let inflight = rs.prior_in_flight;
        let next = if gain == 1.0 {
            full_length
        } else if gain > 1.0 {
            full_length && (self.c.lost || inflight >= self.target(self.max_bw(), gain) as u64)
        } else {
            full_length || inflight <= self.target(self.max_bw(), 1.0) as u64
        };
        if next {
            self.advance_cycle();
        }
    }

    /// ProbeBW from its first phase: any but the 0.75 one.
    fn enter_probe_bw(&mut self) {
        self.mode = Mode::ProbeBw;
        let r = (self.c.delivered / self.c.mss() as u64 % 7) as usize;
        self.cycle_idx = GAIN_CYCLE.len() - 1 - r;
        self.advance_cycle();
    }

    /// Linux `bbr_check_drain`.
    fn check_drain(&mut self, inflight: u64) {
        if self.mode == Mode::Startup && self.c.full_bw_reached {
            self.mode = Mode::Drain;
        }
        if self.mode == Mode::Drain && inflight <= self.target(self.max_bw(), 1.0) as u64 {
            self.enter_probe_bw();
        }
    }

    /// Linux `bbr_update_min_rtt`, with ProbeRTT's entry and exit.
    fn update_min_rtt(&mut self, rs: &RateSample, inflight: u64) {
        let c = &mut self.c;
        let expired = c.now > c.min_rtt_stamp + self.cfg.min_rtt_window;
        if let Some(rtt) = rs.rtt {
            if c.min_rtt.is_none_or(|m| rtt <= m) || expired {
                c.min_rtt = Some(rtt);
                c.min_rtt_stamp = c.now;
            }
        }
        if self.cfg.probe_rtt_duration > Dur::ZERO && expired && self.mode != Mode::ProbeRtt {
            self.c.save_cwnd(false);
            self.mode = Mode::ProbeRtt;
            self.probe_rtt_done = None;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        match self.probe_rtt_done {
            None if inflight <= (self.cfg.min_cwnd * self.c.mss()) as u64 => {
                self.probe_rtt_done = Some(self.c.now + self.cfg.probe_rtt_duration);
                self.probe_rtt_round_done = false;
                self.c.next_round_delivered = self.c.delivered;
            }
            Some(done) => {
                self.probe_rtt_round_done |= self.c.round_start;
                if self.probe_rtt_round_done && self.c.now > done {
                    self.c.min_rtt_stamp = self.c.now;
                    self.c.w.cwnd = self.c.w.cwnd.max(self.c.prior_cwnd);
                    if self.c.full_bw_reached {
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
            Mode::ProbeBw if self.lt.use_bw => (1.0, self.cfg.cwnd_gain),
            Mode::ProbeBw => (GAIN_CYCLE[self.cycle_idx], self.cfg.cwnd_gain),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// Linux `bbr_set_cwnd`, its recovery part in the loss hooks.
    fn set_cwnd(&mut self, acked: u64, losses: u64) {
        let min = self.cfg.min_cwnd * self.c.mss();
        let target = self.target(self.bw(), self.cwnd_gain);
        self.c.grow_cwnd(acked, losses, target, min);
        if self.mode == Mode::ProbeRtt {
            self.c.w.cwnd = self.c.w.cwnd.min(min);
        }
    }
}

impl BbrFamily for Bbr {
    fn core(&self) -> &Core {
        &self.c
    }

    fn core_mut(&mut self) -> &mut Core {
        &mut self.c
    }

    fn in_probe_rtt(&self) -> bool {
        self.mode == Mode::ProbeRtt
    }

    /// Linux `bbr_main`: the model, the mode, the pacing rate and the window.
    fn on_sample(&mut self, rs: &RateSample) {
        let acked = rs.total_delivered.saturating_sub(self.c.delivered);
        self.c.delivered = rs.total_delivered;
        let inflight = rs.prior_in_flight.saturating_sub(acked);
        self.update_bw(rs);
        self.update_cycle_phase(rs);
        let (growth, rounds) = (self.cfg.full_bw_growth, self.cfg.full_bw_rounds);
        self.c.check_full_bw(rs, self.bw.best(), growth, rounds);
        self.check_drain(inflight);
        // ProbeRTT waits for what is in the network (Linux: `tcp_packets_in_flight()`), not
        // the FlightSize, which in loss recovery holds what the receiver has SACKed.
        self.update_min_rtt(rs, rs.prior_pipe.saturating_sub(acked));
        self.update_gains();
        if self.bw() > 0.0 {
            self.c.set_pacing(self.c.rate_for(self.bw(), self.pacing_gain));
        }
        self.set_cwnd(acked, rs.losses);
        self.c.lost = false;
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
    /// The allowance as Linux's, three TSO send quanta by the pacing rate; default under the
    /// `linux` profile.
    pub tso_quanta: Option<bool>,
    /// Linux's long-term bandwidth sampling; default under the `linux` profile.
    pub long_term_bw: Option<bool>,
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
    let quantum = match (spec.tso_quanta, spec.quantum_packets) {
        (Some(true), Some(_)) => return Err(SettingError::new("tso_quanta", "cannot be true with quantum_packets set")),
        (Some(true), None) => Quantum::TsoGoal,
        (None, None) if ctx.profile == Profile::Linux => Quantum::TsoGoal,
        (_, n) => n.map_or(d.quantum, Quantum::Packets),
    };
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
        quantum,
        long_term_bw: spec.long_term_bw.unwrap_or(ctx.profile == Profile::Linux),
        window: ctx.window.clone(),
    })))
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{Controller, NewRenoConfig};
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
            let rs = RateSample::new(delivered, interval, Some(rtt), flight, false, self.delivered).at(a.now);
            self.c.on_rate_sample(&rs);
        }

        /// A flow after `rounds` rounds of 40 packets at 1 MB/s.
        fn after_rounds(rounds: usize) -> Drive {
            let mut d = Drive::new();
            for _ in 0..rounds {
                d.round(1_000_000.0, 40 * MSS as u64);
            }
            d
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
        let rs = RateSample::new(10, RTT, Some(RTT), MSS as u64, true, d.delivered + MSS as u64).at(d.now);
        d.c.on_rate_sample(&rs);
        assert_eq!(d.c.max_bw(), low);
    }

    #[test]
    fn probe_rtt_waits_for_the_pipe_not_the_flight_size() {
        // In loss recovery the FlightSize holds what the receiver SACKed: 40 packets
        // outstanding, 4 of them in the network. ProbeRTT counts its 200 ms from there.
        let mut d = Drive::after_rounds(6);
        let slow = Dur::from_millis(50);
        let last_min = d.now;
        while d.now <= last_min + Dur::from_secs(10) {
            d.ack(Dur::from_millis(10), MSS as u64, 40 * MSS as u64, 1_000_000.0, slow);
        }
        assert_eq!(d.c.mode(), Mode::ProbeRtt);
        let start = d.now;
        while d.c.mode() == Mode::ProbeRtt && d.now < start + Dur::from_secs(1) {
            d.now += Dur::from_millis(10);
            d.delivered += MSS as u64;
            let mut rs = RateSample::new(40 * MSS as u64, RTT, Some(slow), 40 * MSS as u64, false, d.delivered).at(d.now);
            rs.prior_pipe = 4 * MSS as u64;
            d.c.on_rate_sample(&rs);
        }
        assert_eq!(d.c.mode(), Mode::ProbeBw, "left ProbeRTT after {:?}", d.now - start);
    }

    #[test]
    fn application_limited_rounds_age_nothing_out_of_the_bandwidth_filter() {
        // Twenty rounds of application-limited samples at a tenth of the peak: the filter
        // takes none of them, and keeps its peak (Linux's `minmax` ages on the
        // samples it takes). The next sample it takes ages the peak out.
        let mut d = Drive::after_rounds(6);
        let peak = d.c.max_bw();
        let span = 40 * MSS as u64;
        let sample = |d: &mut Drive, app_limited: bool| {
            d.now += Dur::from_millis(1);
            d.delivered += MSS as u64;
            let interval = Dur::from_secs_f64(span as f64 / (peak / 10.0));
            RateSample::new(span, interval, Some(RTT), span, app_limited, d.delivered).at(d.now)
        };
        for _ in 0..20 * 40 {
            let rs = sample(&mut d, true);
            d.c.on_rate_sample(&rs);
        }
        assert!(d.c.c.round >= 20);
        assert_eq!(d.c.max_bw(), peak);
        let rs = sample(&mut d, false);
        d.c.on_rate_sample(&rs);
        assert!(d.c.max_bw() < peak / 5.0, "{} of {peak}", d.c.max_bw());
    }

    #[test]
    fn recovery_conserves_packets_and_restores_the_window_and_a_timeout_restarts_at_one() {
        let mut d = Drive::after_rounds(6);
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
    fn in_sack_recovery_a_sample_alone_moves_probe_bws_phases_by_its_own_time() {
        // An ACK in SACK recovery calls no window hook, only the rate sample: its time must
        // end a phase a min_rtt after it began (Linux `bbr_main` on every ACK, with
        // `tp->delivered_mstamp`).
        let mut d = Drive::after_rounds(12);
        assert_eq!(d.c.mode(), Mode::ProbeBw);
        d.c.on_fast_retransmit(&event(40 * MSS, 3));
        d.c.on_recovery_start(&event(40 * MSS, 3));
        let mut phases = std::collections::BTreeSet::new();
        for _ in 0..40 {
            d.now += Dur::from_nanos(RTT.as_nanos() / 4);
            d.delivered += MSS as u64;
            let rs = RateSample::new(40 * MSS as u64, RTT, Some(RTT), 40 * MSS as u64, false, d.delivered).at(d.now);
            d.c.on_rate_sample(&rs);
            phases.insert(d.c.cycle_idx);
        }
        // Ten min_rtts in recovery: the gain-1 phases (no condition but their length) turn.
        assert!(phases.len() >= 4, "phases seen: {phases:?}");
    }

    #[test]
    fn a_sample_whose_ack_marked_losses_takes_them_off_the_window_before_it_grows() {
        // Linux `bbr_set_cwnd_to_recover_or_restore`: `cwnd - rs->losses`, then
        // `min(cwnd + acked, target)`. At the target, an ACK of one packet whose processing
        // marked three lost leaves the window two packets under it.
        let mut d = Drive::after_rounds(12);
        let target = d.c.cwnd();
        assert!(d.c.c.full_bw_reached && target > 10 * MSS, "{target}");
        d.delivered += MSS as u64;
        let rs = RateSample::new(40 * MSS as u64, RTT, Some(RTT), 40 * MSS as u64, false, d.delivered).at(d.now);
        d.c.on_rate_sample(&rs.with_losses(3 * MSS as u64));
        assert_eq!(d.c.cwnd(), target - 2 * MSS);
        // The next ACK marked none: the window grows by what it delivered.
        d.delivered += MSS as u64;
        let rs = RateSample::new(40 * MSS as u64, RTT, Some(RTT), 40 * MSS as u64, false, d.delivered).at(d.now);
        d.c.on_rate_sample(&rs);
        assert_eq!(d.c.cwnd(), target - MSS);
    }

    #[test]
    fn two_lossy_intervals_at_one_rate_pace_at_their_average_for_48_rounds() {
        // bbr_lt_bw_sampling on hand-set rounds and losses: each interval lasts 4 rounds
        // (40 ms) and ends on a loss, 1,000,000 bytes delivered and 250,000 lost (25 %).
        let mut b = BbrConfig { long_term_bw: true, ..BbrConfig::default() }.build(MSS, 10, u32::MAX / 2);
        b.mode = Mode::ProbeBw;
        /// One sample at `ms` delivering `d` bytes of which `l` were lost, the totals in
        /// the controller's interval bookkeeping kept by `totals`.
        fn step(b: &mut Bbr, totals: &mut (u64, u64), ms: u64, round: bool, loss: bool, d: u64, l: u64) {
            totals.0 += d;
            totals.1 += l;
            b.c.now = SimTime::ZERO + Dur::from_millis(ms);
            b.c.round_start = round;
            b.c.lost = loss;
            let mut rs = RateSample::new(d, Dur::from_millis(10), None, 0, false, totals.0);
            rs.total_lost = totals.1;
            b.lt_sample(&rs);
        }
        let mut t = (0u64, 0u64);
        step(&mut b, &mut t, 0, false, true, 0, 0); // the first loss starts sampling
        for (i, ms) in [10, 20, 30, 40].into_iter().enumerate() {
            step(&mut b, &mut t, ms, true, i == 3, 250_000, 62_500);
        }
        assert!(!b.long_term_in_use(), "one interval: its rate kept, not used");
        assert_eq!(b.lt.bw, 25_000_000.0);
        for (i, ms) in [50, 60, 70, 80].into_iter().enumerate() {
            step(&mut b, &mut t, ms, true, i == 3, 240_000, 60_000);
        }
        assert!(b.long_term_in_use(), "a second interval within 1/8: policed");
        assert_eq!((b.lt.bw, b.bw()), (24_500_000.0, 24_500_000.0));
        b.update_gains();
        assert_eq!(b.pacing_gain, 1.0, "no probing while the long-term rate is in use");
        for r in 0..48 {
            assert!(b.long_term_in_use(), "round {r}");
            step(&mut b, &mut t, 90 + 10 * r, true, false, 240_000, 0);
        }
        assert!(!b.long_term_in_use() && b.lt.bw == 0.0, "48 rounds later: back to the max filter");

        // A loss rate under 50/256 keeps waiting; a rate off by more than 1/8 starts over.
        let mut c = BbrConfig { long_term_bw: true, ..BbrConfig::default() }.build(MSS, 10, u32::MAX / 2);
        t = (0, 0);
        step(&mut c, &mut t, 0, false, true, 0, 0);
        for (i, ms) in [10, 20, 30, 40].into_iter().enumerate() {
            step(&mut c, &mut t, ms, true, i == 3, 250_000, 25_000);
        }
        assert_eq!(c.lt.bw, 0.0, "10 % loss: no interval yet");
        let mut d = BbrConfig { long_term_bw: true, ..BbrConfig::default() }.build(MSS, 10, u32::MAX / 2);
        t = (0, 0);
        step(&mut d, &mut t, 0, false, true, 0, 0);
        for (ms, rate) in [(10, 250_000), (20, 250_000), (30, 250_000), (40, 250_000), (50, 150_000), (60, 150_000), (70, 150_000), (80, 150_000)] {
            step(&mut d, &mut t, ms, true, ms % 40 == 0, rate, rate / 4);
        }
        assert!(!d.long_term_in_use() && d.lt.bw == 15_000_000.0, "the second rate replaces the first");
    }

    #[test]
    fn the_send_quantum_is_three_tso_quanta_by_the_pacing_rate_under_linux() {
        let ctx = |profile| CcContext { window: NewRenoConfig::default(), full_ack_given: false, profile };
        let quantum = |t: &str, profile| match build(&t.parse().unwrap(), &ctx(profile)) {
            Ok(CcConfig::Bbr(c)) => Ok(c.quantum),
            Ok(_) => unreachable!(),
            Err(e) => Err(e.key),
        };
        assert_eq!(quantum("", Profile::Rfc), Ok(Quantum::Packets(3)));
        assert_eq!(quantum("", Profile::Linux), Ok(Quantum::TsoGoal));
        assert_eq!(quantum("quantum_packets = 5", Profile::Linux), Ok(Quantum::Packets(5)));
        assert_eq!(quantum("tso_quanta = true", Profile::Rfc), Ok(Quantum::TsoGoal));
        assert_eq!(quantum("tso_quanta = false", Profile::Linux), Ok(Quantum::Packets(3)));
        assert_eq!(quantum("tso_quanta = true\nquantum_packets = 5", Profile::Rfc), Err("tso_quanta".to_string()));

        // bbr_tso_segs_goal on payload rates (bytes/s), 1000-byte segments: the payload of
        // 2^-10 s in whole segments, at least 2 (1 below 150,000 B/s), at most 65,215 bytes.
        let mut c = BbrConfig { quantum: Quantum::TsoGoal, ..BbrConfig::default() }.build(MSS, 10, u32::MAX / 2);
        let goal = |c: &mut Bbr, payload: f64| {
            c.c.pacing = payload * (MSS + 40) as f64 / MSS as f64;
            c.c.tso_segs_goal()
        };
        assert_eq!(goal(&mut c, 6_000_000.0), 5, "5859 bytes");
        assert_eq!(goal(&mut c, 1_250_000.0), 2, "1220 bytes: one segment, raised to 2");
        assert_eq!(goal(&mut c, 100_000.0), 1, "below 1.2 Mbit/s");
        assert_eq!(goal(&mut c, 1e9), 65, "65,215 bytes at most");

        // The target window: BDP 50 packets, plus 15 rather than 3, rounded up to even.
        c.c.min_rtt = Some(Dur::from_millis(10));
        let bw = 5_000_000.0;
        goal(&mut c, 6_000_000.0);
        let fixed = Bbr { cfg: BbrConfig::default(), ..c.clone() };
        assert_eq!((fixed.target(bw, 1.0) / MSS, c.target(bw, 1.0) / MSS), (54, 66));
    }

    #[test]
    fn keys_are_checked_by_name() {
        let ctx = CcContext { window: NewRenoConfig::default(), full_ack_given: false, profile: Default::default() };
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
