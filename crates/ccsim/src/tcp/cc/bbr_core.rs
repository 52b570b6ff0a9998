//! What BBR v1 (`bbr.rs`) and BBR v3 (`bbr3.rs`) share, composed into each: the windowed
//! max filter of the bandwidth model, round counting by delivered data, the full-pipe
//! estimator, the pacing rate on the wire, the window's growth towards its target, and the
//! window's rules around loss (Linux `tcp_bbr.c`'s `bbr_save_cwnd`,
//! `bbr_set_cwnd_to_recover_or_restore`; draft-ietf-ccwg-bbr's "Modulating cwnd in Loss
//! Recovery"). An algorithm keeps its state machine and model in its own file and hands the
//! rest to a [`Core`]; implementing [`BbrFamily`] makes it a [`Controller`], its rate samples
//! going to [`BbrFamily::on_sample`].

use super::{Ack, Controller, Event, Signal, Window};
use crate::packet::TCP_IP_HEADER;
use crate::sim::{Dur, SimTime};
use crate::tcp::rate::RateSample;
use std::collections::VecDeque;

/// Linux's `TCP_INIT_CWND`: the window target without an RTT, and the data delivered before
/// Startup's growth needs the target.
pub const INIT_CWND_PACKETS: u32 = 10;

/// A windowed max filter on a clock that only grows (rounds, or ProbeBW cycles): a sample
/// is forgotten once the clock is more than `window` past it. Exact, where Linux's `minmax`
/// approximates it with three sub-windows.
#[derive(Clone, Debug, PartialEq)]
pub struct MaxFilter {
    window: u64,
    /// (clock, value), values decreasing from the front.
    samples: VecDeque<(u64, f64)>,
}

impl MaxFilter {
    pub fn new(window: u64) -> MaxFilter {
        MaxFilter { window, samples: VecDeque::new() }
    }

    /// The largest value kept (0 before any).
    pub fn best(&self) -> f64 {
        self.samples.front().map_or(0.0, |&(_, b)| b)
    }

    /// Nothing kept yet.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Forgets what is older than the window at `clock`.
    pub fn expire(&mut self, clock: u64) {
        while self.samples.front().is_some_and(|&(c, _)| clock - c > self.window) {
            self.samples.pop_front();
        }
    }

    /// Takes `value` at `clock`.
    pub fn push(&mut self, clock: u64, value: f64) {
        while self.samples.back().is_some_and(|&(_, b)| b <= value) {
            self.samples.pop_back();
        }
        self.samples.push_back((clock, value));
    }
}

/// The state both versions keep: the window, the time, rounds, the min RTT, the full-pipe
/// estimate, the pacing rate and the window saved around losses.
#[derive(Clone, Debug, PartialEq)]
pub struct Core {
    pub w: Window,
    /// The time of the ACK being processed.
    pub now: SimTime,
    /// The connection's delivered count at the last sample.
    pub delivered: u64,
    pub round: u64,
    pub next_round_delivered: u64,
    pub round_start: bool,
    pub min_rtt: Option<Dur>,
    pub min_rtt_stamp: SimTime,
    pub full_bw: f64,
    pub full_bw_count: u32,
    /// The pipe was found full since the estimator last started (BBR v3's `full_bw_now`).
    pub full_bw_now: bool,
    /// The pipe was ever found full (Startup ended).
    pub full_bw_reached: bool,
    /// The window saved on a loss or on entering ProbeRTT, restored after.
    pub prior_cwnd: u32,
    /// Packet conservation: the first round of fast recovery.
    pub conserving: bool,
    /// After a timeout: the delivered count at which what was outstanding is delivered.
    pub loss_until: Option<u64>,
    /// A loss since the last sample.
    pub lost: bool,
    srtt_seen: bool,
    /// The pacing rate, bytes per second of payload and TCP/IP headers (`Controller::pacing_rate`).
    pub pacing: f64,
    /// The share taken off the pacing rate.
    pacing_margin: f64,
    /// Startup's pacing gain, for the rate before any bandwidth sample.
    startup_gain: f64,
}

impl Core {
    /// The state at the start of a connection whose window is `w`, paced at `startup_gain`
    /// times the initial window per millisecond until an RTT is known.
    pub fn new(w: Window, startup_gain: f64, pacing_margin: f64) -> Core {
        let init = w.cwnd as f64;
        let mut c = Core {
            w,
            now: SimTime::ZERO,
            delivered: 0,
            round: 0,
            next_round_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_now: false,
            full_bw_reached: false,
            prior_cwnd: 0,
            conserving: false,
            loss_until: None,
            lost: false,
            srtt_seen: false,
            pacing: 0.0,
            pacing_margin,
            startup_gain,
        };
        c.pacing = c.rate_for(init / 1e-3, startup_gain);
        c
    }

    pub fn mss(&self) -> u32 {
        self.w.mss()
    }

    /// The pacing rate for `bw` bytes/s of payload at `gain`, with 40 header bytes per segment
    /// (`Controller::pacing_rate`; Linux `bbr_rate_bytes_per_sec`, which paces payload).
    pub fn rate_for(&self, bw: f64, gain: f64) -> f64 {
        let mss = self.mss() as f64;
        bw * gain * (1.0 - self.pacing_margin) * (mss + TCP_IP_HEADER as f64) / mss
    }

    /// Linux's TSO send quantum, packets (`bbr_tso_segs_goal`): the payload the pacing rate
    /// sends in 2^-10 s (`sk_pacing_shift`), in whole segments, at least 2 (1 below 1.2 Mbit/s,
    /// `bbr_min_tso_segs`), its bytes at most 64 KiB less 321 (`GSO_LEGACY_MAX_SIZE - 1 -
    /// MAX_TCP_HEADER`), at most 127 segments.
    pub fn tso_segs_goal(&self) -> u32 {
        let mss = self.mss() as f64;
        let payload_rate = (self.pacing * mss / (mss + TCP_IP_HEADER as f64)) as u64;
        let min_segs = if payload_rate < 1_200_000 / 8 { 1 } else { 2 };
        let bytes = (payload_rate >> 10).min(65_536 - 1 - 320);
        ((bytes / self.mss() as u64) as u32).max(min_segs).min(0x7f)
    }

    /// `gain` times the BDP of `bw`, whole packets rounded up (Linux `bbr_bdp`); the initial
    /// window without an RTT.
    pub fn bdp_packets(&self, bw: f64, gain: f64) -> u32 {
        match self.min_rtt {
            None => INIT_CWND_PACKETS,
            Some(rtt) => (bw * rtt.as_secs_f64() * gain / self.mss() as f64).ceil() as u32,
        }
    }

    /// Linux `bbr_save_cwnd`: outside loss recovery and ProbeRTT the window, else the larger.
    pub fn save_cwnd(&mut self, in_probe_rtt: bool) {
        if !self.w.recovering() && self.loss_until.is_none() && !in_probe_rtt {
            self.prior_cwnd = self.w.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.w.cwnd);
        }
    }

    /// Rounds by delivered data (Linux `bbr_update_bw`): a round ends when a packet sent
    /// after the previous round's end is delivered; a new round ends packet conservation.
    pub fn update_round(&mut self, rs: &RateSample) {
        if rs.total_delivered.saturating_sub(rs.delivered) >= self.next_round_delivered {
            self.next_round_delivered = rs.total_delivered;
            self.round += 1;
            self.round_start = true;
            self.conserving = false;
        }
    }

    /// The full-pipe estimator (Linux `bbr_check_full_bw_reached`, the draft's
    /// `CheckFullBWReached`): `bw` grew by less than `growth` over `rounds` rounds in a row,
    /// counted at round starts on samples not application-limited.
    pub fn check_full_bw(&mut self, rs: &RateSample, bw: f64, growth: f64, rounds: u32) {
        if self.full_bw_now || !self.round_start || rs.is_app_limited {
            return;
        }
        if bw >= self.full_bw * growth {
            self.full_bw = bw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= rounds;
        self.full_bw_reached |= self.full_bw_now;
    }

    /// The estimator starts again from `bw` (the draft's `ResetFullBW`).
    pub fn reset_full_bw(&mut self, bw: f64) {
        self.full_bw = bw;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    /// Paces at `rate` (bytes/s of payload and headers); before the pipe is full, only faster (Linux
    /// `bbr_set_pacing_rate`).
    pub fn set_pacing(&mut self, rate: f64) {
        if rate > 0.0 && (self.full_bw_reached || rate > self.pacing) {
            self.pacing = rate;
        }
    }

    /// The window after `acked` bytes were delivered (Linux `bbr_set_cwnd` outside packet
    /// conservation): `losses` bytes off first; after a timeout's recovery the saved window
    /// back; once the pipe is full `min(cwnd + acked, target)`; before, growth by `acked`
    /// while below the target or while less than the initial window was delivered. Never
    /// below `min`.
    pub fn grow_cwnd(&mut self, acked: u64, losses: u64, target: u32, min: u32) {
        if acked == 0 || self.conserving {
            return;
        }
        // An ACK for P packets releases at most 2P: first what it found lost comes off
        // (`cwnd - rs->losses`).
        let mut cwnd = (self.w.cwnd as u64).saturating_sub(losses).max(self.mss() as u64) as u32;
        if self.loss_until.is_some_and(|end| self.delivered >= end) {
            self.loss_until = None;
            cwnd = cwnd.max(self.prior_cwnd);
        }
        let grown = cwnd.saturating_add(acked.min(u32::MAX as u64) as u32);
        if self.full_bw_reached {
            cwnd = grown.min(target);
        } else if cwnd < target || self.delivered < (INIT_CWND_PACKETS * self.mss()) as u64 {
            cwnd = grown;
        }
        self.w.cwnd = cwnd.max(min);
    }

    /// Fast recovery starts: save the window, conserve packets for a round. The window is
    /// the FlightSize less one segment per duplicate ACK, plus one.
    pub fn enter_recovery(&mut self, ev: &Event, in_probe_rtt: bool) {
        self.now = ev.now;
        self.save_cwnd(in_probe_rtt);
        self.lost = true;
        self.conserving = true;
        self.next_round_delivered = self.delivered;
        let mss = self.mss();
        self.w.set_base((ev.flight + mss).saturating_sub(ev.dupacks * mss).max(mss));
    }
}

/// A BBR: its [`Core`] and what it does with each rate sample. Every such type is a
/// [`Controller`] whose window rules around loss are the core's.
pub trait BbrFamily {
    fn core(&self) -> &Core;
    fn core_mut(&mut self) -> &mut Core;
    /// The mode that caps the window at its minimum (ProbeRTT).
    fn in_probe_rtt(&self) -> bool;
    /// The model, the mode, the pacing rate and the window, from one sample (Linux
    /// `bbr_main`, the draft's `UpdateOnACK`).
    fn on_sample(&mut self, rs: &RateSample);
    /// An ACK of new data outside fast recovery, after the core took its time.
    fn on_new_ack(&mut self, _ack: &Ack) {}
    /// ECN-Echo the sender answers; v1 ignores it.
    fn on_ecn(&mut self, _ev: &Event) {}
    /// A timeout, after the core's rule.
    fn on_loss_timeout(&mut self, _ev: &Event) {}
}

impl<T: BbrFamily> Controller for T {
    fn window(&self) -> &Window {
        &self.core().w
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.core_mut().w
    }

    /// The window is set per rate sample; an ACK gives the time and the first smoothed RTT
    /// (the initial pacing rate before any bandwidth sample, that is in round 0; Linux
    /// `bbr_init_pacing_rate_from_rtt`).
    fn on_ack(&mut self, ack: &Ack) {
        let c = self.core_mut();
        c.now = ack.now;
        if let (false, Some(srtt)) = (c.srtt_seen, ack.srtt) {
            c.srtt_seen = true;
            if c.round == 0 && srtt > Dur::ZERO {
                let init = (c.w.cwnd / c.mss()).max(1);
                c.pacing = c.rate_for(init as f64 * c.mss() as f64 / srtt.as_secs_f64(), c.startup_gain);
            }
        }
        self.on_new_ack(ack);
    }

    /// Linux `bbr_ssthresh`: the window is saved, not reduced.
    fn reduce(&mut self, _ev: &Event, _signal: Signal) -> u32 {
        let probe_rtt = self.in_probe_rtt();
        let c = self.core_mut();
        c.save_cwnd(probe_rtt);
        c.w.cwnd
    }

    fn on_fast_retransmit(&mut self, ev: &Event) {
        let probe_rtt = self.in_probe_rtt();
        self.core_mut().enter_recovery(ev, probe_rtt);
    }

    fn on_loss_in_answered_window(&mut self, ev: &Event) {
        let probe_rtt = self.in_probe_rtt();
        let c = self.core_mut();
        c.enter_recovery(ev, probe_rtt);
        c.w.start_recovery(ev.dupacks);
    }

    fn on_partial_ack(&mut self, ack: &Ack) {
        let c = self.core_mut();
        c.now = ack.now;
        if c.conserving {
            c.w.deflate(ack);
        }
    }

    /// Leaving recovery restores at least the saved window.
    fn on_recovery_end(&mut self, ack: &Ack) {
        let c = self.core_mut();
        c.now = ack.now;
        let cwnd = c.w.cwnd;
        c.w.end_recovery(ack);
        c.w.cwnd = cwnd.max(c.prior_cwnd);
        c.conserving = false;
    }

    /// A timeout saves the window, sets it to the loss window, forgets the full-pipe
    /// reference (`full_bw = 0`) and restores at least the saved window when what was
    /// outstanding is delivered (Linux: leaving `TCP_CA_Loss`).
    fn on_timeout(&mut self, ev: &Event) {
        let probe_rtt = self.in_probe_rtt();
        let c = self.core_mut();
        c.now = ev.now;
        if ev.backoffs == 0 {
            c.save_cwnd(probe_rtt);
        }
        c.loss_until = Some(c.delivered + ev.flight as u64);
        c.w.collapse();
        c.conserving = false;
        c.lost = true;
        c.full_bw = 0.0;
        self.on_loss_timeout(ev);
    }

    fn on_ecn_echo(&mut self, ev: &Event) {
        self.core_mut().now = ev.now;
        self.on_ecn(ev);
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    /// Every ACK that delivers data gives a sample, and with it the time (Linux's
    /// `tp->delivered_mstamp`): in SACK recovery too, where no other hook is called.
    fn on_rate_sample(&mut self, rs: &RateSample) {
        self.core_mut().now = rs.now;
        self.on_sample(rs);
    }

    fn paces(&self) -> bool {
        true
    }

    /// The window is the sample's, in recovery too (Linux `bbr_main`, BBR's `cong_control`):
    /// no PRR.
    fn sets_window_in_recovery(&self) -> bool {
        true
    }

    fn pacing_rate(&self) -> Option<f64> {
        Some(self.core().pacing)
    }
}
