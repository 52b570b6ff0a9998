//! The TCP sender: loss detection, fast retransmit and fast recovery in the Reno (RFC 5681)
//! or NewReno (RFC 6582) flavour, RTO per RFC 6298 with Karn's rule, the ECN sender side of
//! RFC 3168, and the endpoint side of ACC/TCP (Faber, "Experience with Active Congestion
//! Control", Sections 1 and 3.1). The congestion window (slow start, congestion avoidance,
//! each reduction and fast recovery's inflation and deflation) is computed by a controller
//! (`tcp/cc`), which the sender calls at the points `cc/mod.rs` lists.
//!
//! It is a pure state machine: inputs are ACKs, timer expiries and the start of the
//! application; outputs are packets pushed to an outbox and a retransmission deadline that
//! the engine polls (so restarting the timer on every ACK costs no event).
//!
//! Internally the stream is tracked with 64-bit byte offsets from the initial sequence number;
//! the 32-bit wrapping sequence numbers exist only on the wire.
//!
//! # SACK loss recovery (RFC 6675 section 5), with `SenderConfig::sack`
//!
//! The scoreboard and the routines `Update()`, `IsLost()`, `SetPipe()` and `NextSeg()` are
//! in `tcp/sack.rs`; RecoveryPoint is `recover`, HighRxt `high_rxt`, RescueRxt
//! `rescue_rxt`. Rule by rule:
//!
//! - Every ACK's SACK blocks update the scoreboard; the cumulative ACK drops what it covers.
//! - Duplicate ACKs (section 2): an ACK that leaves the cumulative ACK where it was is a
//!   duplicate when its SACK blocks SACK bytes not SACKed before; an ACK without any (from
//!   a peer or a router that sends none, such as a spoofed ACK) is a duplicate as RFC 5681
//!   says. A cumulative ACK resets DupAcks; outside recovery a duplicate adds one.
//! - On a duplicate outside recovery: (1) DupAcks >= DupThresh or (2) IsLost(HighACK + 1)
//!   enter recovery (4), unless the cumulative ACK is still below the RecoveryPoint of the
//!   last recovery or timeout (section 5.1: "a new recovery phase [...] MUST NOT be
//!   initiated until HighACK is greater than or equal to the new value of RecoveryPoint"; the
//!   `recover` check of RFC 6582, at RFC 6675's boundary) or below an obeyed ACC control's.
//!   Otherwise (3), with `limited_transmit`, HighRxt = HighACK and new segments go out while
//!   `cwnd - pipe >= SMSS` and the receiver's window allows (Limited Transmit by pipe).
//! - Entering recovery (4): (4.1) RecoveryPoint = HighData; (4.2) the controller's
//!   `on_fast_retransmit` sets ssthresh from the FlightSize, (4.3) the segment at HighACK + 1
//!   is retransmitted (up to the first SACKed byte) and HighRxt set to its end, then
//!   `on_sack_recovery_start` sets cwnd = ssthresh; (4.4) SetPipe and step (C).
//! - In recovery, on every ACK: (A) a cumulative ACK at or beyond RecoveryPoint ends it
//!   (the controller's `on_recovery_end`); the scoreboard above it is kept. (B) Otherwise
//!   Update() and SetPipe(), then (C) while `cwnd - pipe >= SMSS`, NextSeg() and send: a
//!   retransmission by rule (1) or (3) moves HighRxt to its end (C.2), new data moves
//!   HighData (C.3), the rescue retransmission of rule (4) sets RescueRxt = RecoveryPoint and
//!   leaves HighRxt; pipe grows by the bytes sent (C.4). Nothing else sends in recovery: the
//!   window is neither inflated by duplicates nor deflated by partial ACKs.
//! - The retransmission timer restarts on every ACK of new data (RFC 6298 (5.3); RFC 6675
//!   has no partial-ACK timer rule like RFC 6582 section 4).
//! - A retransmission timeout ends recovery; RecoveryPoint = HighData (section 5.1) and the
//!   sender goes back N as without SACK, skipping the ranges SACKed ("a TCP sender SHOULD
//!   use this SACK information when determining what data should be sent in each segment
//!   following an RTO", section 5.1). The scoreboard is kept by default, as RFC 6675 5.1
//!   notes may be done "as long as robust tests for reneging are present" (Errata 1610), as
//!   Linux and ns-3 (`TcpTxBuffer::SetSentListLost(false)`) do, and as is safe here: the
//!   receiver never discards data it has SACKed. `SenderConfig::sack_clear_on_timeout`
//!   clears it instead, as RFC 2018 section 8 has it ("the data sender SHOULD turn off all
//!   of the SACKed bits"); the receiver then reports only three blocks per ACK, and after a
//!   window with many holes the sender resends much of what had arrived. So does go-back-N
//!   after an ACC control.
//! - ECN-Echo is not answered in recovery, as in fast recovery (RFC 3168 6.1.2).
//! - With `SenderConfig::prr`, step (C) sends while `pipe + SMSS` fits in PRR's window
//!   (`tcp/prr.rs`, RFC 6937) instead of cwnd: each ACK's DeliveredData is the change in
//!   the cumulative ACK plus the change in the bytes SACKed, RecoverFS the FlightSize when
//!   recovery starts, and the retransmission of (4.3) the first byte of `prr_out`.
//! - With `SenderConfig::rack`, RACK-TLP (`tcp/rack.rs`, RFC 8985) deems segments lost:
//!   recovery starts on an ACK or reordering timer that finds one lost, not on DupThresh or
//!   `IsLost()`; (4.3) resends the lowest lost segment, NextSeg() the lost segments (a lost
//!   retransmission again) then new data, and pipe counts RACK's marks. Its reordering timer
//!   and tail loss probe share the sender's timer ([`deadline`](TcpSender::deadline)).
//!
//! # The CWR state (`SenderConfig::ecn_response`)
//!
//! With `cwr`, an ECN-Echo's reduction (the controller's ssthresh and window) starts a CWR
//! state, Linux's `tcp_enter_cwr()` and ns-3.37's `CA_CWR`, which lasts until an ACK passes
//! the data sent before the echo (ns-3's `m_recover`, Linux's `high_seq`): meanwhile the
//! controller sees every ACK as one that the window did not limit (so it does not grow; DCTCP
//! still counts the marks), and with `prr` the sender sends what PRR allows, with pipe the
//! bytes in flight, rather than the reduced window at once. A loss found meanwhile starts
//! recovery as usual, which ends the state (Linux; ns-3.37 starts no fast recovery in CWR).

use super::cc::{Ack, AnyController, Controller, Event};
use super::prr::{Bound, Prr};
use super::rack::{Rack, RackTimer};
use super::rate::RateSampler;
use super::rto::RtoEstimator;
use super::sack::{NextRule, Scoreboard, Window};
use super::{accecn, EcnAnswered, EcnResponse, Endpoints, PartialAckTimer, Recovery, SenderConfig};
use crate::packet::timestamps::{self, Timestamps};
use crate::packet::Seq;
use crate::packet::{flags, AccState, Ecn, Packet};
use crate::sim::{Dur, SimTime};
use crate::stats::counters;

counters! {
    /// Cumulative counters of one sender.
    pub struct SenderStats {
        /// Data packets sent, retransmissions included.
        pub packets_sent: u64,
        pub bytes_sent: u64,
        pub retransmitted_packets: u64,
        pub retransmitted_bytes: u64,
        pub fast_retransmits: u64,
        pub timeouts: u64,
        /// Congestion-window reductions (fast retransmit, timeout, ECN echo, ACC control).
        pub window_reductions: u64,
        /// Sum of the bytes each reduction took off the window.
        pub window_reduction_bytes: u64,
        pub ecn_reductions: u64,
        /// ACC control messages received, obeyed or not.
        pub acc_controls: u64,
        /// Reductions an ACC router asked for (a subset of `window_reductions`), and their
        /// bytes.
        pub acc_reductions: u64,
        pub acc_reduction_bytes: u64,
        pub rtt_samples: u64,
        pub rtt_sum_ns: u128,
        pub acks_received: u64,
        pub dupacks_received: u64,
    }
}

/// Why the window was reduced; kept per event for the ACC paper's close statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReductionCause {
    FastRetransmit,
    Timeout,
    EcnEcho,
    /// An ACC control message from a congested router.
    AccControl,
}

#[derive(Clone, Debug)]
pub struct TcpSender {
    pub cfg: SenderConfig,
    pub ends: Endpoints,
    isn: Seq,
    // Byte offsets from the ISN.
    una: u64,
    nxt: u64,
    max: u64,
    recover: u64,
    ecn_recover: u64,
    /// The last reduction was an ECN-Echo's: a loss among the data sent before it
    /// (below `ecn_recover`) is retransmitted without a second reduction.
    ecn_answered: bool,
    /// `max` when the last ACC control was obeyed (the `recover` of RFC 6582 section 4,
    /// set as after a timeout: the data below it is being resent by go-back-N).
    acc_recover: u64,
    /// The congestion window and its threshold.
    cc: AnyController,
    dupacks: u32,
    in_recovery: bool,
    partial_acks: u32,
    /// SACK: the ranges SACKed above `una` (RFC 6675's scoreboard).
    scoreboard: Scoreboard,
    /// SACK: one past RFC 6675's HighRxt, the highest byte retransmitted in this recovery.
    high_rxt: u64,
    /// SACK: RFC 6675's RescueRxt, the RecoveryPoint of the last rescue retransmission.
    rescue_rxt: Option<u64>,
    peer_wnd: u32,
    rto: RtoEstimator,
    /// The segment being timed for an RTT sample: (start, end, time sent).
    timed: Option<(u64, u64, SimTime)>,
    rto_deadline: Option<SimTime>,
    cwr_pending: bool,
    /// A reduction spread over a round trip (`prr`, `ecn_response = "cwr"`).
    spread: Option<Box<Spread>>,
    started: bool,
    /// When the last byte of a finite transfer was acknowledged.
    pub completed_at: Option<SimTime>,
    pub stats: SenderStats,
    /// The most recent window reduction, for observers (engine statistics, ACC).
    pub last_reduction: Option<(SimTime, ReductionCause, u32)>,
    /// The most recent RTT sample, for observers (the `rtt` series).
    pub last_rtt: Option<Dur>,
    /// What a controller that samples delivery rates or paces needs; None for the others,
    /// which then pay one test per send and per ACK.
    extras: Option<Box<Extras>>,
}

/// The sender's state for controllers that sample delivery rates, pace or stamp a
/// congestion header, and for Accurate ECN: a sender without any of them reads none of it.
#[derive(Clone, Debug, Default)]
struct Extras {
    /// Delivery-rate sampling (`tcp/rate.rs`), for a controller that wants it.
    rate: Option<RateSampler>,
    /// Pacing: the earliest time the next new segment may leave.
    pace_next: SimTime,
    /// Pacing: a send held back until then (the engine's timer for it).
    pacing_deadline: Option<SimTime>,
    /// AccECN: `s.cep`, the CE count the ACKs have reported (RFC 9768 3.2.2.5), and the
    /// marks reported since the last ACK of new data, for the controller's next [`Ack`].
    s_cep: u32,
    ce_unreported: u32,
    /// The controller stamps a congestion header on every data segment
    /// ([`Controller::header`]).
    stamps: bool,
    /// Timestamps: the TSval of the newest ACK, which data segments echo (RFC 7323's
    /// `TS.Recent`; 0 before the first).
    ts_recent: u32,
    /// RACK-TLP's records and state (`SenderConfig::rack`).
    rack: Option<Box<Rack>>,
}

/// The state of a window reduction spread over a round trip, boxed: a sender with neither
/// `prr` nor `ecn_response = "cwr"` reads none of it.
#[derive(Clone, Debug, Default)]
struct Spread {
    /// `ecn_response = "cwr"`: SND.MAX at the ECN-Echo's reduction while the CWR state
    /// lasts (until an ACK passes it).
    cwr_until: Option<u64>,
    /// Proportional Rate Reduction's state (`SenderConfig::prr`).
    prr: Prr,
}

impl TcpSender {
    pub fn new(mut cfg: SenderConfig, ends: Endpoints, peer_wnd: u32) -> TcpSender {
        let rto =
            RtoEstimator::with_arithmetic(cfg.min_rto, cfg.max_rto, cfg.initial_rto, cfg.clock_granularity, cfg.rtt_arithmetic).with_min_on(cfg.rto_min_on);
        let cc = cfg.cc.build(cfg.mss, cfg.init_cwnd, cfg.init_ssthresh);
        // PRR spreads a reduction the controller made; one that sets the window on every
        // ACK, recovery included, has none for it to spread.
        cfg.prr &= !cc.sets_window_in_recovery();
        let stamps = cc.header().is_some();
        let extras = (cc.wants_rate_samples() || cc.paces() || cfg.accecn || stamps || cfg.timestamps || cfg.rack).then(|| {
            let rate = cc.wants_rate_samples().then(RateSampler::default);
            let rack = cfg.rack.then(Box::default);
            Box::new(Extras { rate, s_cep: accecn::CEP_INIT, stamps, rack, ..Extras::default() })
        });
        TcpSender {
            isn: Seq(cfg.isn),
            una: 0,
            nxt: 0,
            max: 0,
            recover: 0,
            ecn_recover: 0,
            ecn_answered: false,
            acc_recover: 0,
            cc,
            dupacks: 0,
            in_recovery: false,
            partial_acks: 0,
            scoreboard: Scoreboard::default(),
            high_rxt: 0,
            rescue_rxt: None,
            peer_wnd,
            rto,
            timed: None,
            rto_deadline: None,
            cwr_pending: false,
            spread: (cfg.prr || cfg.ecn_response == EcnResponse::Cwr).then(Box::default),
            started: false,
            completed_at: None,
            stats: SenderStats::default(),
            last_reduction: None,
            last_rtt: None,
            extras,
            cfg,
            ends,
        }
    }

    // ---- observers ----

    pub fn cwnd(&self) -> u32 {
        self.cc.cwnd()
    }
    pub fn ssthresh(&self) -> u32 {
        self.cc.ssthresh()
    }
    /// AccECN: `s.cep`, the count of CE marks the ACKs have reported, from 5 (RFC 9768
    /// 3.2.2.5); None without AccECN.
    pub fn accecn_count(&self) -> Option<u32> {
        self.extras.as_ref().filter(|_| self.cfg.accecn).map(|e| e.s_cep)
    }
    /// The congestion controller, for observers that know the algorithm.
    pub fn controller(&self) -> &AnyController {
        &self.cc
    }
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    /// A window reduction of an ECN sender whose CWR has not been sent yet (it goes on the
    /// next new segment, or the next segment with `cwr_on_retransmit`).
    pub fn cwr_pending(&self) -> bool {
        self.cwr_pending
    }
    pub fn snd_una(&self) -> Seq {
        self.seq_at(self.una)
    }
    pub fn snd_nxt(&self) -> Seq {
        self.seq_at(self.nxt)
    }
    pub fn snd_max(&self) -> Seq {
        self.seq_at(self.max)
    }
    /// Bytes sent and not yet acknowledged (RFC 5681 FlightSize).
    pub fn flight_size(&self) -> u32 {
        (self.max - self.una) as u32
    }
    pub fn rto(&self) -> Dur {
        self.rto.rto()
    }
    pub fn srtt(&self) -> Option<Dur> {
        self.rto.srtt()
    }
    /// The controller's pacing rate, bytes per second of payload and 40 header bytes per
    /// segment (None: not paced; see `Controller::pacing_rate`).
    pub fn pacing_rate(&self) -> Option<f64> {
        self.cc.pacing_rate()
    }
    pub fn rto_deadline(&self) -> Option<SimTime> {
        self.rto_deadline
    }
    /// A paced sender: when new data held back by pacing may leave (call
    /// [`on_pacing_timer`](Self::on_pacing_timer) then).
    pub fn pacing_deadline(&self) -> Option<SimTime> {
        self.extras.as_ref().and_then(|e| e.pacing_deadline)
    }
    /// The sender's one timer for the run loop: the retransmission timeout, or for a paced
    /// sender or one with RACK-TLP whichever of it, the pacing deadline and RACK's timer
    /// comes first (call [`on_deadline`](Self::on_deadline) then).
    #[inline]
    pub fn deadline(&self) -> Option<SimTime> {
        let Some(e) = &self.extras else { return self.rto_deadline };
        let rack = e.rack.as_ref().and_then(|r| r.timer()).map(|t| t.0);
        [self.rto_deadline, e.pacing_deadline, rack].into_iter().flatten().min()
    }
    /// RACK-TLP's state, with `SenderConfig::rack`.
    pub fn rack(&self) -> Option<&Rack> {
        self.extras.as_ref().and_then(|e| e.rack.as_deref())
    }
    fn rack_mut(&mut self) -> Option<&mut Rack> {
        self.extras.as_mut().and_then(|e| e.rack.as_deref_mut())
    }
    /// The delivery-rate sampler, for a controller that asked for samples.
    pub fn rate_sampler(&self) -> Option<&RateSampler> {
        self.extras.as_ref().and_then(|e| e.rate.as_ref())
    }
    pub fn is_started(&self) -> bool {
        self.started
    }
    /// SACK: the SACKed ranges above `snd_una`, as byte offsets from the ISN.
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.scoreboard
    }
    /// SACK: RFC 6675's pipe, the bytes estimated to be in the network (with RACK-TLP, by
    /// its marks of what is lost).
    pub fn pipe(&self) -> u64 {
        match self.rack() {
            None => self.scoreboard.pipe(&self.window()),
            Some(r) => r.pipe(),
        }
    }

    /// Whether the sender has any optional rule's state (`Extras`, `Spread`): the common
    /// path tests this once where it would test each rule.
    #[inline(always)]
    fn optional(&self) -> bool {
        self.extras.is_some() || self.spread.is_some()
    }

    /// Calls `f` with the delivery-rate sampler, if the controller wants samples, and the
    /// FlightSize and pipe it is given ([`sampled_pipe`](Self::sampled_pipe)).
    fn with_rate_sampler(&mut self, f: impl FnOnce(&mut RateSampler, u64, u64)) {
        if self.extras.as_ref().is_some_and(|e| e.rate.is_some()) {
            let (flight, pipe) = (self.max - self.una, self.sampled_pipe());
            if let Some(r) = self.extras.as_mut().and_then(|e| e.rate.as_mut()) {
                f(r, flight, pipe);
            }
        }
    }

    /// The data in the network a delivery-rate sample records besides the FlightSize
    /// (draft-ietf-ccwg-bbr's `C.inflight`, Linux's `tcp_packets_in_flight`): with SACK RFC
    /// 6675's pipe, which leaves out what the receiver holds and what is deemed lost and not
    /// resent; without it the FlightSize.
    fn sampled_pipe(&self) -> u64 {
        if self.cfg.sack {
            self.pipe()
        } else {
            self.max - self.una
        }
    }

    fn seq_at(&self, off: u64) -> Seq {
        self.isn + off as u32
    }

    /// Offset of a sequence number received in an ACK, relative to `una`; may be negative
    /// for stale ACKs.
    fn offset_of(&self, s: Seq) -> i64 {
        self.una as i64 + s.diff(self.seq_at(self.una)) as i64
    }

    fn data_end(&self) -> u64 {
        self.cfg.data_bytes.unwrap_or(u64::MAX)
    }

    /// What the controller is told of the sender when it is not acknowledging new data.
    fn event(&self, now: SimTime) -> Event {
        Event { now, flight: self.flight_size(), dupacks: self.dupacks, backoffs: self.rto.backoffs(), rwnd: self.peer_wnd, ecn_answered: self.ecn_answered() }
    }

    /// Whether the last reduction was an ECN-Echo's and still answers what happens now: for
    /// the data sent before it, or until any other reduction (`SenderConfig::ecn_answered_until`).
    fn ecn_answered(&self) -> bool {
        self.ecn_answered && (self.cfg.ecn_answered_until == EcnAnswered::NextReduction || self.una < self.ecn_recover)
    }

    /// With `ecn_at_once_after_timeout`: the last reduction was a timeout's, so an ECN-Echo
    /// is answered whatever data its ACK covers (ns-2's `ecn()`); the answer is a reduction
    /// of its own, so only the first echo after the timeout is.
    fn answers_ecn_after_timeout(&self) -> bool {
        self.cfg.ecn_at_once_after_timeout && matches!(self.last_reduction, Some((_, ReductionCause::Timeout, _)))
    }

    // ---- inputs ----

    /// The application starts: send the initial window.
    pub fn start(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if !self.started {
            self.started = true;
            self.send_available(now, out);
        }
    }

    pub fn on_ack(&mut self, pkt: &Packet, now: SimTime, out: &mut Vec<Packet>) {
        self.stats.acks_received += 1;
        let ack = self.offset_of(pkt.ack);
        if ack < self.una as i64 || ack > self.max as i64 {
            // Stale, or acknowledges data never sent: ignore (RFC 5681 / RFC 793).
            return;
        }
        let ack = ack as u64;
        let new_data = ack > self.una;
        let una_before = self.una;
        let optional = self.optional();
        let (ece, sacked_before) = if optional { self.ack_arrives(pkt, ack, new_data, now) } else { (self.cfg.ecn && pkt.has_flag(flags::ECE), 0) };
        if self.cfg.sack {
            self.on_sack_ack(pkt, ack, ece, sacked_before, now, out);
        } else if new_data {
            self.on_new_ack(ack, ece, now, out);
        } else if self.max > self.una && pkt.payload == 0 && pkt.wnd == self.peer_wnd {
            self.on_dupack(now, out);
        }
        let delivered = if optional { self.ack_processed(pkt, new_data, una_before, sacked_before) } else { self.una - una_before };
        self.peer_wnd = pkt.wnd;
        if ece && !self.in_recovery && (self.una > self.ecn_recover || self.answers_ecn_after_timeout()) {
            self.ecn_reduce(now, delivered);
        }
        if optional {
            let marked = self.marked_lost();
            if let Some(rs) = self.extras.as_mut().and_then(|e| e.rate.as_mut()).and_then(|r| r.end_ack(now, marked)) {
                self.cc.on_rate_sample(&rs);
            }
        }
        if !(self.cfg.sack && self.in_recovery) {
            self.send_available(now, out);
        }
    }

    /// The sender's timer ([`deadline`](Self::deadline)) fired at `now`: the retransmission
    /// timeout if it is due, then the pacing deadline if it is (each checks its own time, so
    /// an event for a deadline since moved does nothing).
    pub fn on_deadline(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        // RACK-TLP's timer first: a probe timeout capped at the RTO goes before it (and
        // restarts it, RFC 8985 7.3).
        if let Some(timer) = self.rack_mut().and_then(|r| r.fired(now)) {
            self.on_rack_timer(timer, now, out);
        }
        self.on_timeout(now, out);
        if self.pacing_deadline().is_some_and(|p| p <= now) {
            self.on_pacing_timer(now, out);
        }
    }

    /// Bytes RACK-TLP has marked lost so far (Linux's `tp->lost`), which a rate sample's
    /// `losses` are the rise of; 0 without RACK-TLP.
    fn marked_lost(&self) -> u64 {
        self.rack().map_or(0, Rack::lost_bytes)
    }

    /// The optional rules' part of an ACK's arrival, before the ACK is processed: AccECN's
    /// counter (or the ECE flag), the delivery-rate sample's start, the bytes SACKed before
    /// (for PRR's DeliveredData) and the timestamps. Returns whether the ACK echoes
    /// congestion, and the bytes SACKed before.
    #[inline(never)]
    fn ack_arrives(&mut self, pkt: &Packet, ack: u64, new_data: bool, now: SimTime) -> (bool, u64) {
        let ece = if self.cfg.accecn { self.read_ace(pkt, ack) > 0 } else { self.cfg.ecn && pkt.has_flag(flags::ECE) };
        let marked = self.marked_lost();
        self.with_rate_sampler(|r, flight, pipe| r.begin_ack(flight, pipe, marked));
        let sacked_before = self.sacked_for_prr();
        if self.cfg.timestamps {
            self.read_timestamps(pkt, new_data, now);
        }
        (ece, sacked_before)
    }

    /// The optional rules' part of an ACK once it is processed: the routers' feedback an
    /// ACK of new data echoes (ns-2.35's XCP applies it in `recv_newack_helper`, after the
    /// ACK's own processing), and the CWR state's end or PRR's step. Returns the ACK's
    /// DeliveredData.
    #[inline(never)]
    fn ack_processed(&mut self, pkt: &Packet, new_data: bool, una_before: u64, sacked_before: u64) -> u64 {
        if new_data && self.extras.as_ref().is_some_and(|e| e.stamps) {
            if let Some(echo) = pkt.explicit() {
                self.cc.on_feedback(echo);
            }
        }
        let delivered = self.delivered(self.una - una_before, sacked_before);
        if let Some(until) = self.cwr_until() {
            if self.una > until || self.in_recovery {
                self.end_cwr();
            } else if self.active_prr().is_some() && delivered > 0 {
                self.prr_ack(delivered, self.max - self.una);
            }
        }
        delivered
    }

    /// AccECN: the CE marks `pkt`'s ACE field reports beyond those counted, the cumulative
    /// ACK being `ack` (RFC 9768 Appendix A.2.1: with 8 or more packets newly acknowledged,
    /// as many marks as they allow). They wait for the controller's next [`Ack`].
    fn read_ace(&mut self, pkt: &Packet, ack: u64) -> u32 {
        let newly = (ack.saturating_sub(self.una)).div_ceil(self.cfg.mss as u64) as u32;
        let Some(e) = self.extras.as_mut() else { return 0 };
        let delta = accecn::ce_delta(accecn::ace(pkt), e.s_cep, newly);
        e.s_cep = e.s_cep.wrapping_add(delta);
        e.ce_unreported += delta;
        delta
    }

    /// Timestamps: `TS.Recent` takes the ACK's TSval, and an ACK of new data times the
    /// segment its TSecr echoes (RFC 7323 section 4.1), a retransmission included: the
    /// receiver echoes the TSval of the segment that advanced its window, so the sample is
    /// not ambiguous and Karn's rule has nothing to discard. The sample goes where a timed
    /// segment's would ([`on_new_ack`](Self::on_new_ack) takes it).
    fn read_timestamps(&mut self, pkt: &Packet, new_data: bool, now: SimTime) {
        let Some(ts) = pkt.timestamps() else { return };
        if let Some(e) = self.extras.as_mut() {
            if e.ts_recent == 0 || timestamps::at_or_after(ts.val, e.ts_recent) {
                e.ts_recent = ts.val;
            }
        }
        if let Some(rtt) = timestamps::elapsed(ts.ecr, now).filter(|_| new_data) {
            self.timed = Some((self.una, self.una, SimTime(now.0.saturating_sub(rtt.0))));
        }
    }

    /// A paced sender's timer: data held back by pacing may leave now (in SACK recovery,
    /// what RFC 6675's NextSeg() picks).
    pub fn on_pacing_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if let Some(e) = self.extras.as_mut() {
            e.pacing_deadline = None;
        }
        if self.in_recovery && self.cfg.sack {
            self.sack_transmit(now, out);
        } else {
            self.send_available(now, out);
        }
    }

    /// An ACK in range, with SACK on (see the module documentation).
    ///
    /// Out of line, as are [`on_dupack`](Self::on_dupack) and [`ecn_reduce`](Self::ecn_reduce):
    /// `on_ack`'s path for an ACK of new data without SACK stays a few cache lines of code.
    #[inline(never)]
    fn on_sack_ack(&mut self, pkt: &Packet, ack: u64, ece: bool, sacked_before: u64, now: SimTime, out: &mut Vec<Packet>) {
        self.scoreboard.advance(ack);
        let mut newly_sacked = 0;
        for (left, right) in pkt.sack.iter() {
            let (left, right) = (self.offset_of(left), self.offset_of(right));
            if left < right && right > ack as i64 {
                newly_sacked += self.scoreboard.update(left.max(ack as i64) as u64, right as u64, ack, self.max);
                if let Some(r) = self.extras.as_mut().and_then(|e| e.rate.as_mut()) {
                    r.on_sack(left.max(ack as i64) as u64, right as u64, now);
                }
            }
        }
        // RFC 6675 section 2: a duplicate leaves the cumulative ACK where it was (RFC 5681's
        // (a)-(e)) and, carrying SACK blocks, SACKs new data; an ACK that also advances the
        // cumulative ACK is not one.
        let same = ack == self.una && self.max > self.una && pkt.payload == 0;
        let duplicate = same && if pkt.sack.is_empty() { pkt.wnd == self.peer_wnd } else { newly_sacked > 0 };
        self.peer_wnd = pkt.wnd;
        let delivered = self.delivered(ack - self.una, sacked_before);
        let (was_in_recovery, recover_before) = (self.in_recovery, self.recover);
        let advanced = ack > self.una;
        if advanced {
            self.on_new_ack(ack, ece, now, out);
        }
        if self.rack().is_some() {
            self.rack_ack(pkt, advanced, same && pkt.sack.is_empty(), delivered, now, out);
        }
        if duplicate {
            self.stats.dupacks_received += 1;
            if !self.in_recovery {
                self.dupacks += 1;
                self.on_sack_dupack(delivered, now, out);
            }
        }
        // A recovery under way before this ACK and not ended by it (one may end and the next
        // begin on one ACK: `recover_again`); `recover` is the ended one's RecoveryPoint.
        let same_recovery = was_in_recovery && ack < recover_before;
        self.recovery_step(same_recovery, delivered, now, out);
    }

    /// SACK recovery's step on an ACK or RACK's timer: PRR takes the `delivered` bytes if
    /// recovery was already under way, then step (C) sends.
    fn recovery_step(&mut self, was_in_recovery: bool, delivered: u64, now: SimTime, out: &mut Vec<Packet>) {
        if self.in_recovery {
            if was_in_recovery && self.active_prr().is_some() {
                let pipe = self.pipe();
                self.prr_ack(delivered, pipe);
            }
            self.sack_transmit(now, out);
        }
    }

    /// The optional rules' part of an ACK of new data up to `ack`: whether the sender is in
    /// the CWR state, the delivery-rate sampler's cumulative ACK, and AccECN's marks for the
    /// controller.
    #[inline(never)]
    fn new_ack_arrives(&mut self, ack: u64, now: SimTime) -> (bool, Option<u32>) {
        let in_cwr = self.cwr_until().is_some_and(|until| ack <= until);
        if let Some(r) = self.extras.as_mut().and_then(|e| e.rate.as_mut()) {
            r.on_cumulative(ack, now);
        }
        let ce = if self.cfg.accecn { self.extras.as_mut().map(|e| std::mem::take(&mut e.ce_unreported)) } else { None };
        (in_cwr, ce)
    }

    fn on_new_ack(&mut self, ack: u64, ece: bool, now: SimTime, out: &mut Vec<Packet>) {
        let acked = ack - self.una;
        // Whether the window is what limits sending (as Linux's tcp_is_cwnd_limited, in the
        // spirit of RFC 7661): the controller grows only a window the flow uses.
        // In the CWR state the window does not grow (ns-3.37 calls no `IncreaseWindow()` in
        // `CA_CWR`; Linux's `tcp_cong_control()` reduces instead of growing).
        let (in_cwr, ce) = if self.optional() { self.new_ack_arrives(ack, now) } else { (false, None) };
        let cwnd_limited = !in_cwr && self.flight_size() as u64 + self.cfg.mss as u64 > self.cc.cwnd() as u64;
        let mut rtt = None;
        if let Some((_, end, sent)) = self.timed {
            if ack >= end {
                let sample = now - sent;
                self.rto.sample_between(sent, now, ack, self.max);
                self.stats.rtt_samples += 1;
                self.stats.rtt_sum_ns += sample.as_nanos() as u128;
                self.timed = None;
                self.last_rtt = Some(sample);
                rtt = Some(sample);
            }
        }
        self.una = ack;
        if self.nxt < self.una {
            self.nxt = self.una;
        }
        let info = Ack { now, acked, una: self.una, max: self.max, ece, ce, cwnd_limited, rtt, srtt: self.rto.srtt() };
        let mut restart_timer = true;
        if self.in_recovery {
            // RFC 5681: any new ACK ends fast recovery; RFC 6582 step 3 and RFC 6675 (A):
            // only a full one.
            let full = (self.cfg.recovery == Recovery::Reno && !self.cfg.sack) || ack >= self.recover;
            if full {
                self.cc.on_recovery_end(&info);
                self.stop_prr();
                self.in_recovery = false;
                self.dupacks = 0;
            } else if self.cfg.sack {
                // RFC 6675 (B): the caller updates the scoreboard and sends by pipe; the
                // timer restarts (RFC 6298 (5.3)).
            } else {
                // RFC 6582 step 3, partial ACK: retransmit the first unacknowledged segment
                // (the controller then deflates the window) and restart the timer on the
                // first partial ACK (section 4; ns-2.35's `newreno_changes1_ 1`), or on every
                // one (slow-but-steady, ns-2's `newreno_changes1_ 0`).
                self.retransmit_una(now, out);
                self.cc.on_partial_ack(&info);
                self.partial_acks += 1;
                restart_timer = self.partial_acks == 1 || self.cfg.partial_ack_timer == PartialAckTimer::SlowButSteady;
            }
        } else {
            self.dupacks = 0;
            self.cc.on_ack(&info);
        }
        if self.una >= self.max {
            self.rto_deadline = None; // RFC 6298 (5.2)
        } else if restart_timer {
            self.rto_deadline = Some(now + self.rto.rto()); // (5.3)
        }
        if self.cfg.data_bytes.is_some() && self.una >= self.data_end() && self.completed_at.is_none() {
            self.completed_at = Some(now);
        }
    }

    #[inline(never)]
    fn on_dupack(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.stats.dupacks_received += 1;
        self.dupacks += 1;
        if self.in_recovery {
            // Fast recovery: each further duplicate stands for a segment that left the network.
            self.cc.on_recovery_dupack(&self.event(now));
            return;
        }
        if self.dupacks < self.cfg.dupack_threshold && self.cfg.limited_transmit {
            self.limited_transmit(now, out);
        }
        if self.dupacks != self.cfg.dupack_threshold {
            return;
        }
        // Duplicates of data sent before an obeyed ACC control belong to the congestion
        // event the control answered, and go-back-N is resending that data already: no fast
        // retransmit, no second cut (RFC 6582 section 4's rule after a timeout, either recovery).
        if self.una < self.acc_recover {
            return;
        }
        // A loss in a window whose ECN-Echo was already answered: retransmit and recover,
        // but do not reduce again (RFC 3168 6.1.2; ns-2's `dupack_action()` after
        // `CWND_ACTION_ECN`).
        if self.ecn_answered() {
            self.ecn_answered = false;
            self.start_recovery(now, out);
            self.cc.on_loss_in_answered_window(&self.event(now));
            return;
        }
        // RFC 6582 step 2: only if the cumulative ACK covers more than `recover`
        // (otherwise these duplicates belong to a window already recovered). ns-2's Reno
        // checks the same with `bugFix_` (its fast recovery has ended at the first new ACK,
        // `CWND_ACTION_EXITED`, so `allow_fast_retransmit()` does not apply).
        let check = self.cfg.recovery == Recovery::NewReno || self.cfg.reno_recover_check;
        if check && self.una <= self.recover && self.recover > 0 {
            return;
        }
        // RFC 5681 3.2: step 2 (the controller's response, ssthresh), then step 3: retransmit
        // and enter fast recovery (the controller's window for it).
        let before = self.cc.cwnd();
        self.cc.on_fast_retransmit(&self.event(now));
        self.note_reduction(now, ReductionCause::FastRetransmit, before.saturating_sub(self.cc.ssthresh()));
        self.start_recovery(now, out);
        self.cc.on_recovery_start(&self.event(now));
    }

    /// Fast retransmit: the first unacknowledged segment goes again and fast recovery
    /// starts, up to what has been sent (`recover`, RFC 6582 step 2).
    fn start_recovery(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.begin_recovery(now);
        self.retransmit_una(now, out);
    }

    /// The state of fast recovery, whichever loss recovery runs it: `recover` (RFC 6582
    /// step 2; RFC 6675's RecoveryPoint, (4.1)), no ECN response until it is passed, and the
    /// timer as the configuration has it.
    fn begin_recovery(&mut self, now: SimTime) {
        self.end_cwr();
        self.recover = self.max;
        self.ecn_recover = self.max;
        self.ecn_answered = false;
        self.in_recovery = true;
        self.partial_acks = 0;
        self.stats.fast_retransmits += 1;
        if self.cfg.fast_retransmit_resets_timer {
            self.timed = None;
            self.rto_deadline = Some(now + self.rto.rto());
        }
    }

    /// SACK: a duplicate ACK outside recovery (DupAcks already counted): RFC 6675 section 5
    /// steps (1) to (4).
    fn on_sack_dupack(&mut self, delivered: u64, now: SimTime, out: &mut Vec<Packet>) {
        let (mss, thresh) = (self.cfg.mss as u64, self.cfg.dupack_threshold);
        // With RACK-TLP, RACK alone starts recovery (`rack_ack`).
        if self.rack().is_none() && (self.dupacks >= thresh || self.scoreboard.is_lost(self.una, mss, thresh)) {
            // Section 5.1 (and RFC 6582's `recover`): no new recovery for data sent before
            // the last one's RecoveryPoint, a timeout's, or an obeyed ACC control's.
            if self.una < self.recover || self.una < self.acc_recover {
                return;
            }
            self.enter_sack_recovery(delivered, now, out);
        } else if self.cfg.limited_transmit {
            // (3): Limited Transmit by pipe; a paced sender no faster than its pacing rate
            // (Linux sends these through `tcp_write_xmit()`, which paces).
            self.high_rxt = self.una;
            let mut pipe = self.pipe();
            let may_pace = self.extras.is_some();
            while self.cc.cwnd() as u64 >= pipe + mss {
                let len = self.new_data_len();
                if len == 0 || (may_pace && self.held_by_pacing(now)) {
                    break;
                }
                self.emit_new(len, now, out);
                if may_pace {
                    self.paced(now, len as u32);
                }
                pipe += len;
            }
        }
    }

    /// SACK: RFC 6675 section 5 step (4), up to (C), which the caller runs.
    /// A loss in the window an ECN-Echo answered keeps the threshold that echo set (RFC
    /// 3168 6.1.2): no second reduction.
    fn enter_sack_recovery(&mut self, delivered: u64, now: SimTime, out: &mut Vec<Packet>) {
        let before = self.cc.cwnd();
        let answered = self.ecn_answered();
        if !answered {
            self.cc.on_fast_retransmit(&self.event(now)); // (4.2): ssthresh
            self.note_reduction(now, ReductionCause::FastRetransmit, before.saturating_sub(self.cc.ssthresh()));
        }
        // (4.1): RecoveryPoint = HighData; (4.3): the segment at HighACK + 1, up to the first
        // SACKed byte.
        self.begin_recovery(now);
        if self.cfg.prr {
            // RFC 6937: RecoverFS = snd.nxt - snd.una; this ACK's sndcnt covers (4.3).
            self.high_rxt = self.una;
            let (pipe, flight) = (self.pipe(), self.max - self.una);
            self.start_prr(flight, delivered, pipe);
        }
        let end = self.scoreboard.next_sacked(self.una).unwrap_or(self.max);
        let lost = self.rack_mut().map(|r| {
            r.on_recovery();
            r.first_lost()
        });
        let first = match lost {
            Some(Some((s, e))) => Some((s, e - s)), // RACK: the lowest segment lost
            // RACK, every segment lost already resent (a recovery begun by `recover_again`):
            // step (C) sends what there is to send.
            Some(None) => None,
            None => Some((self.una, (self.cfg.mss as u64).min(end - self.una))),
        };
        if let Some((start, len)) = first {
            self.emit(start, len as u32, now, out);
            self.high_rxt = start + len;
        }
        self.cc.on_sack_recovery_start(&self.event(now)); // (4.2): cwnd = ssthresh
    }

    // ---- RACK-TLP (`tcp/rack.rs`) ----

    /// An ACK in range with RACK-TLP, its cumulative ACK taken (`advanced`: it acknowledged
    /// new data; `pure_dup`: a duplicate without SACK blocks): RFC 8985 6.2's steps on the
    /// segments it delivers, the probe's outcome (7.4), loss detection and, for a segment
    /// lost, recovery; then the probe timeout an ACK of new data arms (7.2).
    fn rack_ack(&mut self, pkt: &Packet, advanced: bool, pure_dup: bool, delivered: u64, now: SimTime, out: &mut Vec<Packet>) {
        let (una, max) = (self.una as i64, self.max as i64);
        let mut blocks = [(0u64, 0u64); crate::packet::SackBlocks::MAX];
        for (b, (left, right)) in blocks.iter_mut().zip(pkt.sack.iter()) {
            let (left, right) = (self.offset_of(left).max(una), self.offset_of(right).min(max));
            if left < right {
                *b = (left as u64, right as u64);
            }
        }
        let ack = self.una;
        let Some(r) = self.rack_mut() else { return };
        r.on_ack(ack, blocks.into_iter().filter(|b| b.0 < b.1), now);
        if r.probe_acked(ack, pure_dup) {
            self.probe_repaired(now);
        }
        self.rack_detect(delivered, now, out);
        if advanced || !self.scoreboard.is_empty() {
            self.schedule_probe(now); // (with something SACKed, no probe)
        }
    }

    /// RACK's loss detection at `now` (an ACK that delivered `delivered` bytes, or the
    /// reordering timer): a segment lost starts recovery, as DupThresh would without RACK
    /// (not below the last recovery's or timeout's RecoveryPoint, RFC 6675 5.1). After a
    /// timeout, while going back N, a segment lost again (its resend lost) is resent at once
    /// as the window allows, as Linux's loss state resends what RACK marks.
    fn rack_detect(&mut self, delivered: u64, now: SimTime, out: &mut Vec<Packet>) {
        let recovering = self.in_recovery || self.una < self.recover;
        let (srtt, thresh, again) = (self.rto.srtt(), self.cfg.dupack_threshold, self.cfg.recover_again);
        let Some(r) = self.rack_mut() else { return };
        let reo_wnd = r.reo_wnd(srtt, recovering, thresh);
        // A segment newly lost (RFC 8985), or with `recover_again` one deemed lost and not yet
        // delivered though resent: Linux's `tcp_time_to_recover()` tests `lost_out` on every
        // ACK outside recovery, so a recovery that ends while a segment sent during it is
        // still lost starts another, with another reduction.
        let lost = r.detect_loss(now, reo_wnd) || (again && r.lost_outstanding());
        if !lost || self.in_recovery {
            return;
        }
        if self.una >= self.recover && self.una >= self.acc_recover {
            self.enter_sack_recovery(delivered, now, out);
            return;
        }
        let cwnd = self.cc.cwnd() as u64;
        while let Some((start, end)) = self.rack().and_then(Rack::first_lost).filter(|l| l.0 < self.nxt) {
            if self.pipe() + (end - start) > cwnd {
                break;
            }
            self.emit(start, (end - start) as u32, now, out);
        }
    }

    /// RFC 8985 7.2: the probe timeout restarts, outside fast and RTO recovery with nothing
    /// SACKed.
    fn schedule_probe(&mut self, now: SimTime) {
        self.schedule_probe_with(now, self.max - self.una);
    }

    /// [`schedule_probe`](Self::schedule_probe) with `flight` bytes outstanding (a new
    /// segment being sent has not yet moved SND.MAX).
    fn schedule_probe_with(&mut self, now: SimTime, flight: u64) {
        let allowed = !self.in_recovery && self.una >= self.recover && self.scoreboard.is_empty() && flight > 0;
        let (srtt, mss, rto_at) = (self.rto.srtt(), self.cfg.mss as u64, self.rto_deadline);
        if let Some(r) = self.rack_mut() {
            r.schedule_probe(now, allowed, srtt, flight, mss, rto_at);
        }
    }

    /// RACK's reordering timer or TLP's probe timeout fired.
    fn on_rack_timer(&mut self, timer: RackTimer, now: SimTime, out: &mut Vec<Packet>) {
        match timer {
            RackTimer::Reorder => {
                let was_in_recovery = self.in_recovery;
                self.rack_detect(0, now, out);
                self.recovery_step(was_in_recovery, 0, now, out);
            }
            RackTimer::Probe => self.send_probe(now, out),
        }
    }

    /// RFC 8985 7.3: with no probe outstanding, a new segment if the receiver's window
    /// allows one (whatever cwnd says), else the highest segment sent again; then the
    /// retransmission timer restarts.
    fn send_probe(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.una >= self.max || self.in_recovery {
            return;
        }
        if self.rack().is_some_and(Rack::may_probe) {
            let new = self.new_data_len();
            let last = self.rack().and_then(Rack::last_segment);
            let retrans = new == 0;
            match last {
                _ if new > 0 => self.emit_new(new, now, out),
                Some((start, end)) => self.emit(start, (end - start) as u32, now, out),
                None => return,
            }
            let max = self.max;
            if let Some(r) = self.rack_mut() {
                r.probe_sent(max, retrans);
            }
        }
        self.rto_deadline = Some(now + self.rto.rto());
    }

    /// RFC 8985 7.4: the ACK of a retransmitted probe shows it repaired a loss: the window
    /// is reduced once, as by a fast retransmit whose recovery ends at once (Linux's CWR
    /// state for it).
    fn probe_repaired(&mut self, now: SimTime) {
        if self.in_recovery || self.ecn_answered() {
            return;
        }
        let before = self.cc.cwnd();
        self.cc.on_fast_retransmit(&self.event(now));
        self.note_reduction(now, ReductionCause::FastRetransmit, before.saturating_sub(self.cc.ssthresh()));
        self.cc.on_sack_recovery_start(&self.event(now));
        let info = Ack { now, acked: 0, una: self.una, max: self.max, ece: false, ce: None, cwnd_limited: false, rtt: None, srtt: self.rto.srtt() };
        self.cc.on_recovery_end(&info);
    }

    /// SACK, in recovery: step (C), sending NextSeg() while `cwnd - pipe >= SMSS` (with PRR,
    /// PRR's window for cwnd); a paced sender paces retransmissions as new data (as Linux
    /// paces every segment).
    fn sack_transmit(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let mss = self.cfg.mss as u64;
        let mut pipe = self.pipe();
        let wnd = self.active_prr().map_or(self.cc.cwnd() as u64, Prr::window);
        while wnd >= pipe + mss {
            let rescue = self.rescue_rxt.is_none_or(|r| self.una > r);
            let next = match self.rack() {
                None => self.scoreboard.next_seg(&self.window(), self.new_data_len(), rescue),
                Some(r) => r.next_seg(self.max, self.new_data_len()),
            };
            let Some(seg) = next else { break };
            if self.extras.is_some() && self.held_by_pacing(now) {
                break;
            }
            match seg.rule {
                NextRule::New => self.emit_new(seg.len, now, out), // (C.3)
                rule => {
                    self.emit(seg.start, seg.len as u32, now, out);
                    match rule {
                        NextRule::Rescue => self.rescue_rxt = Some(self.recover),
                        _ => self.high_rxt = seg.start + seg.len, // (C.2)
                    }
                }
            }
            if self.extras.is_some() {
                self.paced(now, seg.len as u32);
            }
            pipe += seg.len; // (C.4)
        }
    }

    /// What RFC 6675's routines see of the sender.
    fn window(&self) -> Window {
        Window { una: self.una, max: self.max, high_rxt: self.high_rxt.max(self.una), mss: self.cfg.mss as u64, dupthresh: self.cfg.dupack_threshold }
    }

    /// Bytes of new data one segment may carry from `max` (0 when there is none or the
    /// receiver's window is full): NextSeg() rule (2).
    /// What may be outstanding beside the congestion window, from SND.UNA: the receiver's
    /// window, and the send buffer where there is one.
    #[inline]
    fn send_window(&self) -> u64 {
        self.cfg.send_buffer.map_or(self.peer_wnd, |b| b.get().min(self.peer_wnd)) as u64
    }

    fn new_data_len(&self) -> u64 {
        let len = (self.cfg.mss as u64).min(self.data_end().saturating_sub(self.max));
        if self.started && self.nxt >= self.max && len > 0 && self.max + len <= self.una + self.send_window() {
            len
        } else {
            0
        }
    }

    /// An ACC control message (`Kind::AccControl`) from a congested router that dropped the
    /// segment starting at `pkt.seq`. The sender takes the router's window and threshold
    /// and, as the paper's endpoint "assum[es] the unsent packets to be negatively
    /// acknowledged", presumes that segment and everything sent after it lost (the router
    /// dropped the first, its filter is removing the rest) and resends them by go-back-N as
    /// the new window allows, as after a timeout but without slow start.
    ///
    /// The control's slow-start flag says how the sender continues: with it, from one
    /// segment up to the router's threshold (a timeout's slow start); without it (what ACC's
    /// routers send, Section 3.1: a single loss with the ACK clock intact, like a fast
    /// retransmission), from the router's window.
    ///
    /// Like any congestion signal a control is obeyed at most once per window of data: not
    /// for a segment sent before the last reduction's recovery point, and not during fast
    /// recovery, which already answers this window's congestion. It never opens the window.
    /// Senders without `cfg.acc` ignore controls.
    pub fn on_acc_control(&mut self, pkt: &Packet, now: SimTime) {
        let Some(ctl) = pkt.acc.filter(|_| self.cfg.acc) else { return };
        self.stats.acc_controls += 1;
        let dropped = self.offset_of(pkt.seq);
        let covered = self.recover.max(self.acc_recover).max(self.una);
        let before = self.cc.cwnd();
        if dropped < covered as i64 || dropped >= self.max as i64 || self.in_recovery || ctl.cwnd >= before {
            return;
        }
        // A control that asks for slow start sets the loss window, as after a timeout;
        // otherwise the router's window, in congestion avoidance when it is not below the
        // router's threshold (what ACC's controls ask for: `router/acc/decide.rs`).
        let cwnd = if ctl.slow_start { self.cfg.mss } else { ctl.cwnd };
        self.cc.on_acc_control(&self.event(now), cwnd, ctl.ssthresh);
        self.acc_recover = self.max;
        self.ecn_recover = self.max;
        self.ecn_answered = false;
        self.nxt = dropped as u64;
        let cut = before.saturating_sub(self.cc.cwnd());
        self.stats.acc_reductions += 1;
        self.stats.acc_reduction_bytes += cut as u64;
        self.note_reduction(now, ReductionCause::AccControl, cut);
    }

    #[inline(never)]
    fn ecn_reduce(&mut self, now: SimTime, delivered: u64) {
        let before = self.cc.cwnd();
        self.cc.on_ecn_echo(&self.event(now));
        if self.cfg.ecn_response == EcnResponse::Cwr {
            let flight = self.max - self.una;
            if let Some(s) = self.spread.as_mut() {
                s.cwr_until = Some(self.max);
            }
            if self.cfg.prr {
                self.start_prr(flight, delivered, flight);
            }
        }
        self.ecn_recover = self.max;
        self.ecn_answered = true;
        self.stats.ecn_reductions += 1;
        self.note_reduction(now, ReductionCause::EcnEcho, before.saturating_sub(self.cc.cwnd()));
    }

    /// The CWR state is over (an ACK passed its data, or a loss recovery or timeout took over).
    fn end_cwr(&mut self) {
        if self.spread.as_mut().and_then(|s| s.cwr_until.take()).is_some() {
            self.stop_prr();
        }
    }

    /// The bytes SACKed, for PRR's DeliveredData (0 for a sender that does not spread its
    /// reductions: the sum is not taken on every ACK).
    fn sacked_for_prr(&self) -> u64 {
        if self.spread.is_some() {
            self.scoreboard.sacked_bytes()
        } else {
            0
        }
    }

    /// RFC 6937's DeliveredData of an ACK that moves SND.UNA by `una_advance`, the bytes
    /// SACKed having been `sacked_before` ([`sacked_for_prr`](Self::sacked_for_prr)): the
    /// change in SND.UNA plus the change in the bytes SACKed.
    fn delivered(&self, una_advance: u64, sacked_before: u64) -> u64 {
        (una_advance + self.sacked_for_prr()).saturating_sub(sacked_before)
    }

    /// The end of the CWR state, if the sender is in it (`ecn_response = "cwr"`).
    fn cwr_until(&self) -> Option<u64> {
        self.spread.as_ref().and_then(|s| s.cwr_until)
    }

    /// PRR's state while it paces a reduction.
    fn active_prr(&self) -> Option<&Prr> {
        self.spread.as_ref().map(|s| &s.prr).filter(|p| p.active())
    }

    /// PRR starts a reduction of `flight` bytes, and takes this ACK's `delivered` at `pipe`.
    fn start_prr(&mut self, flight: u64, delivered: u64, pipe: u64) {
        if let Some(s) = self.spread.as_mut() {
            s.prr.start(flight);
        }
        self.prr_ack(delivered, pipe);
    }

    /// An ACK delivered `delivered` bytes with `pipe` in flight, for PRR.
    fn prr_ack(&mut self, delivered: u64, pipe: u64) {
        let (ssthresh, mss) = (self.cc.ssthresh() as u64, self.cfg.mss as u64);
        if let Some(s) = self.spread.as_mut() {
            s.prr.on_ack(delivered, pipe, ssthresh, mss, Bound::SlowStart);
        }
    }

    fn stop_prr(&mut self) {
        if let Some(s) = self.spread.as_mut() {
            s.prr.stop();
        }
    }

    /// The retransmission timer fired (the engine calls this once the deadline is reached).
    pub fn on_timeout(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        match self.rto_deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        if self.una >= self.max {
            self.rto_deadline = None;
            return;
        }
        self.stats.timeouts += 1;
        if let Some(r) = self.rack_mut() {
            r.on_rto();
        }
        let before = self.cc.cwnd();
        let mut ev = self.event(now);
        // What the timeout halves leaves out the data the receiver holds by SACK (ns-3's
        // `BytesInFlight()` at an RTO; nothing without SACK): counted to SND.MAX, FlightSize
        // after a window with many holes (SACK recovery sends new data meanwhile) would set
        // ssthresh above the window that lost them, and slow start would overshoot again.
        ev.flight = (ev.flight as u64 - self.scoreboard.sacked_bytes()) as u32;
        self.cc.on_timeout(&ev);
        self.note_reduction(now, ReductionCause::Timeout, before.saturating_sub(self.cc.cwnd()));
        self.in_recovery = false;
        self.stop_prr();
        self.end_cwr();
        self.dupacks = 0;
        // RFC 2018 section 8: "the data sender SHOULD turn off all of the SACKed bits"; kept
        // by default (see the module documentation).
        if self.cfg.sack_clear_on_timeout {
            self.scoreboard.clear();
        }
        // RFC 6582 section 4 (RFC 6675 section 5.1 for SACK): remember the highest sequence
        // sent so that duplicate ACKs for data sent before the timeout do not start another
        // fast retransmit.
        self.recover = self.max;
        self.ecn_recover = self.max;
        self.ecn_answered = false;
        self.timed = None; // Karn: no sample from anything sent before the retransmission
        self.rto.back_off(); // (5.5)
        self.nxt = self.una; // go back N: everything unacknowledged is resent as the window opens
        self.rto_deadline = Some(now + self.rto.rto()); // (5.6)
        self.send_available(now, out);
    }

    /// Every reduction of the window, whatever its cause, is announced to an ECN receiver
    /// with CWR on the next packet that may carry it (RFC 3168 6.1.2: "When an ECN-Capable
    /// TCP sender reduces its congestion window for any reason (because of a retransmit
    /// timeout, a Fast Retransmit, or in response to an ECN Notification), the TCP sender
    /// sets the CWR flag"; ns-2's `slowdown()` sets `cong_action_` for each). Without it a
    /// receiver that saw CE after the last ECN reduction echoes ECE until the sender reduces
    /// for ECN again, and a sender that ignores that echo (it answers no echo for data sent
    /// before a timeout) never grows its window meanwhile.
    fn note_reduction(&mut self, now: SimTime, cause: ReductionCause, bytes: u32) {
        self.cwr_pending |= self.cfg.ecn && !self.cfg.accecn; // under AccECN, CWR is a bit of the ACE field
        self.stats.window_reductions += 1;
        self.stats.window_reduction_bytes += bytes as u64;
        self.last_reduction = Some((now, cause, bytes));
    }

    // ---- output ----

    fn retransmit_una(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let len = (self.cfg.mss as u64).min(self.data_end() - self.una) as u32;
        if len > 0 {
            self.emit(self.una, len, now, out);
        }
    }

    /// Limited Transmit (RFC 3042 section 2; ns-2's `send_one()`): one new segment on a
    /// duplicate ACK below the threshold, if the receiver's window allows it and at most cwnd
    /// plus the duplicates so far would be in flight. While going back N after a timeout,
    /// with `limited_transmit_resends`, the next segment in sequence instead, as ns-2 sends
    /// `t_seqno_` whether or not the receiver holds it.
    fn limited_transmit(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let len = (self.cfg.mss as u64).min(self.data_end().saturating_sub(self.nxt));
        let allowed = (self.cc.cwnd() as u64 + self.dupacks as u64 * self.cfg.mss as u64).min(self.send_window());
        if !(self.started && len > 0 && self.nxt + len <= self.una + allowed) {
            return;
        }
        if self.nxt >= self.max {
            self.emit_new(len, now, out);
        } else if self.cfg.limited_transmit_resends {
            self.emit(self.nxt, len as u32, now, out);
            self.nxt += len;
            self.max = self.max.max(self.nxt);
        }
    }

    /// Sends `len` bytes of new data, from SND.MAX (= SND.NXT when nothing is being resent).
    fn emit_new(&mut self, len: u64, now: SimTime, out: &mut Vec<Packet>) {
        self.emit(self.max, len as u32, now, out);
        self.max += len;
        self.nxt = self.max;
    }

    /// Sends every full segment the window allows (a last short segment only at the end of
    /// a finite transfer); a paced sender, no faster than its controller's pacing rate.
    fn send_available(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if !self.started {
            return;
        }
        // In the CWR state with PRR, PRR's window (pipe there is the bytes in flight).
        let cwnd = self.active_prr().map_or(self.cc.cwnd() as u64, Prr::window);
        let wnd = cwnd.min(self.send_window());
        let may_pace = self.extras.is_some();
        loop {
            let mut len = (self.cfg.mss as u64).min(self.data_end().saturating_sub(self.nxt));
            if self.cfg.sack && self.nxt < self.max {
                // Going back N: skip what the receiver has SACKed, and stop short of it.
                self.nxt = self.scoreboard.skip(self.nxt);
                len = len.min(self.data_end().saturating_sub(self.nxt));
                if let Some(next) = self.scoreboard.next_sacked(self.nxt) {
                    len = len.min(next - self.nxt);
                }
            }
            if len == 0 || self.nxt + len > self.una + wnd {
                if len == 0 && self.nxt + (self.cfg.mss as u64) <= self.una + wnd {
                    self.app_limited();
                }
                break;
            }
            if may_pace && self.held_by_pacing(now) {
                break;
            }
            self.emit(self.nxt, len as u32, now, out);
            self.nxt += len;
            self.max = self.max.max(self.nxt);
            if may_pace {
                self.paced(now, len as u32);
            }
        }
    }

    /// The flow had less to send than its window allowed (delivery-rate sampling's
    /// application-limited mark, draft section 3.4).
    fn app_limited(&mut self) {
        let flight = self.max - self.una;
        if let Some(r) = self.extras.as_mut().and_then(|e| e.rate.as_mut()) {
            r.on_app_limited(flight);
        }
    }

    /// A paced sender's next segment must wait: its timer is set.
    fn held_by_pacing(&mut self, now: SimTime) -> bool {
        let paced = self.cc.pacing_rate().is_some();
        let Some(e) = self.extras.as_mut().filter(|e| paced && now < e.pace_next) else { return false };
        e.pacing_deadline = Some(e.pace_next);
        true
    }

    /// A segment of `payload` bytes left at `now`: the next may leave `size / rate` later,
    /// `size` being the payload and the 40 bytes of the TCP/IP headers (Linux's
    /// `tcp_update_skb_after_send`, from now or from the last departure if that is later).
    /// Options (timestamps) are not counted: Linux paces the payload at a rate its
    /// controllers compute from payload, which a controller here states with 40 header bytes
    /// per segment (`Controller::pacing_rate`).
    fn paced(&mut self, now: SimTime, payload: u32) {
        let Some(rate) = self.cc.pacing_rate().filter(|r| *r > 0.0) else { return };
        if let Some(e) = self.extras.as_mut() {
            let size = payload + crate::packet::TCP_IP_HEADER;
            let gap = Dur((size as f64 * 1e9 / rate).ceil() as u64);
            e.pace_next = e.pace_next.max(now) + gap;
        }
    }

    fn emit(&mut self, off: u64, len: u32, now: SimTime, out: &mut Vec<Packet>) {
        let retransmission = off < self.max;
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += len as u64;
        if retransmission {
            self.stats.retransmitted_packets += 1;
            self.stats.retransmitted_bytes += len as u64;
            if let Some((s, e, _)) = self.timed {
                if off < e && off + len as u64 > s {
                    self.timed = None; // Karn's rule
                }
            }
            if off == self.una && self.cfg.head_retransmit_resets_timer {
                self.rto_deadline = Some(now + self.rto.rto());
            }
        } else if self.timed.is_none() {
            self.timed = Some((off, off + len as u64, now));
        }
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rto.rto()); // (5.1)
        }
        let mut f = flags::ACK;
        if self.cwr_pending && (!retransmission || self.cfg.cwr_on_retransmit) {
            f |= flags::CWR;
            self.cwr_pending = false;
        }
        let acc = self.cfg.acc.then(|| AccState {
            cwnd: self.cc.cwnd(),
            ssthresh: self.cc.ssthresh(),
            srtt_us: self.rto.srtt().map_or(0, |d| (d.as_nanos() / 1000) as u32),
            slow_start: self.cc.cwnd() < self.cc.ssthresh(),
            fast_recovery: self.in_recovery,
        });
        let mut pkt = Packet::tcp_data(&self.ends, self.seq_at(off), len, self.cfg.ttl, now);
        pkt.flags = f;
        if self.cfg.ecn && (!retransmission || self.cfg.ect_on_retransmit) {
            pkt.ecn = if self.cfg.ect1 { Ecn::Ect1 } else { Ecn::Ect0 };
        }
        pkt.acc = acc;
        // Pushed before the optional rules touch it in place (see `TcpReceiver::send_ack`).
        out.push(pkt);
        if self.optional() {
            if let Some(pkt) = out.last_mut() {
                self.emit_extras(off, len as u64, retransmission, pkt, now);
            }
        }
    }

    /// What [`emit`](Self::emit) does for the sender's optional rules (one test on the
    /// common path): the segment goes to the delivery-rate sampler, RACK's records and
    /// PRR's count, and carries AccECN's counter, the controller's congestion header and
    /// the timestamps.
    #[inline(never)]
    fn emit_extras(&mut self, off: u64, len: u64, retransmission: bool, pkt: &mut Packet, now: SimTime) {
        self.with_rate_sampler(|r, flight, pipe| r.on_send(off, len, flight, pipe, now));
        if let Some(s) = self.spread.as_mut() {
            s.prr.on_sent(len);
        }
        if let Some(r) = self.rack_mut() {
            r.on_send(off, len, now);
            if !retransmission {
                // RFC 8985 7.2: new data (re)arms the probe timeout.
                self.schedule_probe_with(now, off + len - self.una);
            }
        }
        if let Some(e) = &self.extras {
            if self.cfg.accecn {
                // The count of CE on the reverse direction, whose ACKs are Not-ECT: its start.
                accecn::set_ace(pkt, accecn::CEP_INIT);
            }
            if e.stamps {
                if let Some(h) = self.cc.header() {
                    pkt.set_explicit(h);
                }
            }
            if self.cfg.timestamps {
                pkt.set_timestamps(Timestamps { val: timestamps::clock(now), ecr: e.ts_recent });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Kind, SackBlocks};
    use crate::tcp::{CcConfig, NewRenoConfig, RenoConfig, SsthreshFrom};

    const MSS: u32 = 1000;

    fn ends() -> Endpoints {
        Endpoints { flow: 0, sender: 0, receiver: 1, sport: 1, dport: 2 }
    }

    /// The scenario's `tcp.variant`: each recovery with the controller of the same name.
    fn config(recovery: Recovery) -> SenderConfig {
        let cc = match recovery {
            Recovery::Reno => CcConfig::Reno(NewRenoConfig::reno()),
            Recovery::NewReno => CcConfig::Reno(NewRenoConfig::default()),
        };
        SenderConfig { recovery, cc, mss: MSS, ..SenderConfig::default() }
    }

    fn sender(recovery: Recovery, isn: u32) -> TcpSender {
        TcpSender::new(SenderConfig { isn, ..config(recovery) }, ends(), 1 << 30)
    }

    fn ack(s: &TcpSender, ackno: u32) -> Packet {
        Packet::tcp_ack(&ends(), Seq(s.cfg.isn.wrapping_add(ackno)), 1 << 30, 64, SimTime::ZERO)
    }

    fn t(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    /// Opens the window to `segs` segments by acknowledging one segment at a time.
    fn grow_to(s: &mut TcpSender, segs: u32, out: &mut Vec<Packet>) -> u32 {
        s.start(t(0), out);
        let mut acked = 0;
        let mut now = 10;
        while s.cwnd() < segs * MSS {
            acked += MSS;
            s.on_ack(&ack(s, acked), t(now), out);
            now += 1;
        }
        acked
    }

    /// An XCP sender stamps every segment with its header and moves its window by the
    /// feedback an ACK of new data echoes; a duplicate's echo moves nothing.
    #[test]
    fn an_explicit_feedback_sender_stamps_segments_and_applies_the_echo_of_new_acks() {
        use crate::packet::explicit::XcpHeader;
        use crate::packet::Explicit;
        let cfg = SenderConfig { cc: CcConfig::Xcp(crate::tcp::cc::xcp::XcpConfig::default()), init_cwnd: 4, ..config(Recovery::Reno) };
        let mut s = TcpSender::new(cfg, ends(), 1 << 30);
        let mut out = Vec::new();
        s.start(t(0), &mut out);
        assert_eq!(out.len(), 4);
        assert!(out.iter().all(|p| matches!(p.explicit(), Some(Explicit::Xcp(h)) if h.cwnd == 4000.0)), "{:?}", out[0].explicit());
        let echo = |fb: f32| Explicit::Xcp(XcpHeader { cwnd: 0.0, rtt_us: 0, feedback: fb });
        let mut a = ack(&s, MSS);
        a.set_explicit(echo(1500.0));
        s.on_ack(&a, t(100), &mut out);
        assert_eq!(s.cwnd(), 5500, "4000 + 1500, no slow start of its own");
        a.set_explicit(echo(1000.0));
        s.on_ack(&a, t(101), &mut out);
        assert_eq!(s.cwnd(), 5500, "a duplicate's echo is not applied");
        // Plain senders carry no header and ignore an echo.
        let mut plain = sender(Recovery::Reno, 0);
        out.clear();
        plain.start(t(0), &mut out);
        assert_eq!(out[0].explicit(), None);
        let mut a = ack(&plain, MSS);
        a.set_explicit(echo(1500.0));
        plain.on_ack(&a, t(100), &mut out);
        assert_eq!(plain.cwnd(), 2 * MSS);
    }

    #[test]
    fn slow_start_doubles_per_round_trip() {
        let mut s = sender(Recovery::NewReno, 0);
        let mut out = Vec::new();
        s.start(t(0), &mut out);
        assert_eq!(out.len(), 1);
        out.clear();
        s.on_ack(&ack(&s, MSS), t(100), &mut out);
        assert_eq!(s.cwnd(), 2 * MSS);
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn third_dupack_fast_retransmits_with_half_the_flight() {
        let mut s = sender(Recovery::Reno, 0);
        let mut out = Vec::new();
        let acked = grow_to(&mut s, 10, &mut out);
        let flight = s.flight_size();
        out.clear();
        for i in 0..2 {
            s.on_ack(&ack(&s, acked), t(200 + i), &mut out);
            assert!(out.is_empty(), "no retransmission before the third duplicate");
        }
        s.on_ack(&ack(&s, acked), t(203), &mut out);
        assert_eq!(s.stats.fast_retransmits, 1);
        assert_eq!(s.ssthresh(), (flight / 2).max(2 * MSS));
        assert_eq!(s.cwnd(), s.ssthresh() + 3 * MSS);
        assert_eq!(out[0].seq, Seq(acked), "retransmits the first unacknowledged segment");
        assert!(s.in_recovery());
    }

    #[test]
    fn fast_retransmission_goes_out_between_rfc5681_steps_2_and_3() {
        // Step 2 sets ssthresh, step 3 retransmits and sets cwnd: the retransmitted segment
        // carries (in its ACC state) the new threshold and the window before the cut.
        let mut s = acc_sender(Recovery::NewReno);
        let mut out = Vec::new();
        let acked = grow_to(&mut s, 10, &mut out);
        let before = s.cwnd();
        out.clear();
        for i in 0..3 {
            s.on_ack(&ack(&s, acked), t(200 + i), &mut out);
        }
        let state = out[0].acc.expect("ACC state");
        assert_eq!((state.cwnd, state.ssthresh), (before, s.ssthresh()));
        assert_eq!(s.cwnd(), s.ssthresh() + 3 * MSS);
    }

    #[test]
    fn ssthresh_is_at_least_two_segments() {
        let mut s = sender(Recovery::Reno, 0);
        let mut out = Vec::new();
        s.start(t(0), &mut out);
        s.on_ack(&ack(&s, MSS), t(10), &mut out); // cwnd 2, flight 2 segments
        s.on_ack(&ack(&s, 2 * MSS), t(11), &mut out); // cwnd 3, flight 3
        for i in 0..3 {
            s.on_ack(&ack(&s, 2 * MSS), t(20 + i), &mut out);
        }
        assert_eq!(s.ssthresh(), 2 * MSS);
    }

    #[test]
    fn newreno_partial_ack_retransmits_next_hole_and_stays_in_recovery() {
        let mut s = sender(Recovery::NewReno, 0);
        let mut out = Vec::new();
        let acked = grow_to(&mut s, 10, &mut out);
        let recover = s.snd_max();
        for i in 0..3 {
            s.on_ack(&ack(&s, acked), t(200 + i), &mut out);
        }
        out.clear();
        // Partial ACK: covers the retransmitted segment but not everything up to `recover`.
        s.on_ack(&ack(&s, acked + 2 * MSS), t(300), &mut out);
        assert!(s.in_recovery());
        assert_eq!(out[0].seq, Seq(acked + 2 * MSS), "retransmits the next hole");
        assert_eq!(s.stats.fast_retransmits, 1);
        // Full ACK ends recovery with cwnd <= ssthresh.
        s.on_ack(&ack(&s, recover.0), t(400), &mut out);
        assert!(!s.in_recovery());
        assert!(s.cwnd() <= s.ssthresh());
    }

    #[test]
    fn partial_ack_timer_variants() {
        for (variant, restarted) in [(PartialAckTimer::Impatient, false), (PartialAckTimer::SlowButSteady, true)] {
            let cfg = SenderConfig { mss: MSS, partial_ack_timer: variant, ..SenderConfig::default() };
            let mut s = TcpSender::new(cfg, ends(), 1 << 30);
            let mut out = Vec::new();
            let acked = grow_to(&mut s, 10, &mut out);
            for i in 0..3 {
                s.on_ack(&ack(&s, acked), t(200 + i), &mut out);
            }
            s.on_ack(&ack(&s, acked + MSS), t(300), &mut out);
            let first = s.rto_deadline().unwrap();
            assert_eq!(first, t(300) + s.rto(), "the first partial ACK always restarts the timer");
            s.on_ack(&ack(&s, acked + 2 * MSS), t(350), &mut out);
            assert_eq!(s.rto_deadline().unwrap() != first, restarted, "{variant:?}");
        }
    }

    #[test]
    fn reno_partial_ack_ends_recovery() {
        let mut s = sender(Recovery::Reno, 0);
        let mut out = Vec::new();
        let acked = grow_to(&mut s, 10, &mut out);
        for i in 0..3 {
            s.on_ack(&ack(&s, acked), t(200 + i), &mut out);
        }
        s.on_ack(&ack(&s, acked + 2 * MSS), t(300), &mut out);
        assert!(!s.in_recovery());
        assert_eq!(s.cwnd(), s.ssthresh());
    }

    #[test]
    fn rto_doubles_on_each_backoff_and_retransmits() {
        let mut s = sender(Recovery::NewReno, 0);
        let mut out = Vec::new();
        grow_to(&mut s, 4, &mut out);
        let rto0 = s.rto();
        let d0 = s.rto_deadline().unwrap();
        out.clear();
        s.on_timeout(d0, &mut out);
        assert_eq!(s.stats.timeouts, 1);
        assert_eq!(s.cwnd(), MSS);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].seq, s.snd_una());
        assert_eq!(s.rto(), rto0.saturating_mul(2));
        let d1 = s.rto_deadline().unwrap();
        assert_eq!(d1, d0 + rto0.saturating_mul(2));
        s.on_timeout(d1, &mut out);
        assert_eq!(s.rto(), rto0.saturating_mul(4));
        // An early poll of the timer does nothing.
        s.on_timeout(d1, &mut out);
        assert_eq!(s.stats.timeouts, 2);
    }

    #[test]
    fn retransmitted_segments_give_no_rtt_sample() {
        let mut s = sender(Recovery::NewReno, 0);
        let mut out = Vec::new();
        s.start(t(0), &mut out);
        let d = s.rto_deadline().unwrap();
        s.on_timeout(d, &mut out); // the only segment is retransmitted
        let samples = s.stats.rtt_samples;
        s.on_ack(&ack(&s, MSS), d + Dur::from_millis(5), &mut out);
        assert_eq!(s.stats.rtt_samples, samples, "Karn: ambiguous sample ignored");
        // The next, never-retransmitted segment is timed.
        let now = d + Dur::from_millis(10);
        s.on_ack(&ack(&s, 2 * MSS), now + Dur::from_millis(50), &mut out);
        assert_eq!(s.stats.rtt_samples, samples + 1);
    }

    /// With timestamps every segment carries the option and echoes the newest ACK's TSval;
    /// an ACK of new data gives an RTT sample from its TSecr, even for a retransmission
    /// (Karn's rule discards that one without timestamps), and a duplicate gives none.
    #[test]
    fn timestamps_time_every_ack_of_new_data_retransmissions_included() {
        use crate::packet::Timestamps;
        let mut s = TcpSender::new(SenderConfig { timestamps: true, ..config(Recovery::NewReno) }, ends(), 1 << 30);
        let mut out = Vec::new();
        s.start(t(0), &mut out);
        let first = out[0].timestamps().unwrap();
        assert_eq!((first, out[0].size), (Timestamps { val: 1, ecr: 0 }, MSS + 52));
        let d = s.rto_deadline().unwrap();
        out.clear();
        s.on_timeout(d, &mut out); // the only segment is retransmitted
        let resent = out[0].timestamps().unwrap();
        assert_eq!(resent.val, timestamps::clock(d));
        let mut a = ack(&s, MSS);
        a.set_timestamps(Timestamps { val: 777, ecr: resent.val });
        out.clear();
        s.on_ack(&a, d + Dur::from_millis(30), &mut out);
        assert_eq!(s.stats.rtt_samples, 1, "the retransmission is timed by its echo");
        assert_eq!(s.last_rtt, Some(Dur::from_millis(30)));
        assert!(out.iter().all(|p| p.timestamps().unwrap().ecr == 777), "data echoes the ACK's TSval");
        // A duplicate ACK gives no sample, and an older TSval leaves TS.Recent alone.
        let mut dup = ack(&s, MSS);
        dup.set_timestamps(Timestamps { val: 700, ecr: resent.val });
        s.on_ack(&dup, d + Dur::from_millis(40), &mut out);
        assert_eq!(s.stats.rtt_samples, 1);
        let mut next = ack(&s, 2 * MSS);
        next.set_timestamps(Timestamps { val: 800, ecr: timestamps::clock(d + Dur::from_millis(30)) });
        out.clear();
        s.on_ack(&next, d + Dur::from_millis(75), &mut out);
        assert_eq!((s.stats.rtt_samples, s.last_rtt), (2, Some(Dur::from_millis(45))));
        assert!(out.iter().all(|p| p.timestamps().unwrap().ecr == 800));
        let plain = sender(Recovery::NewReno, 0);
        assert!(plain.extras.is_none(), "off: no state, no option");
    }

    #[test]
    fn sequence_numbers_wrap() {
        let mut s = sender(Recovery::NewReno, u32::MAX - 1500);
        let mut out = Vec::new();
        let acked = grow_to(&mut s, 8, &mut out);
        assert!(s.snd_una().0 < 10_000, "wrapped past zero: {:?}", s.snd_una());
        for i in 0..3 {
            s.on_ack(&ack(&s, acked), t(500 + i), &mut out);
        }
        assert_eq!(s.stats.fast_retransmits, 1);
        // A stale ACK from before the wrap is ignored.
        let before = s.cwnd();
        s.on_ack(&ack(&s, 0), t(600), &mut out);
        assert_eq!(s.cwnd(), before);
    }

    /// AccECN (RFC 9768): the sender reads each ACK's ACE field as a count modulo 8, gives
    /// the controller the marks newly reported (those on duplicate ACKs with the next ACK of
    /// new data), assumes the most marks possible when 8 or more packets are acknowledged at
    /// once, reduces once per window, sends no CWR, and its data carry ECT(1) and ACE = 5.
    #[test]
    fn accecn_counts_the_marks_each_ack_reports() {
        use crate::tcp::accecn::{ace, set_ace};
        use crate::tcp::cc::probe::ProbeConfig;
        let cfg = SenderConfig { mss: MSS, ecn: true, accecn: true, ect1: true, cc: CcConfig::Probe(ProbeConfig::default()), ..SenderConfig::default() };
        let mut s = TcpSender::new(cfg, ends(), 1 << 30);
        let mut out = Vec::new();
        let reported = |s: &mut TcpSender, a: u32, count: u32, out: &mut Vec<Packet>| {
            let mut p = ack(s, a);
            set_ace(&mut p, count);
            s.on_ack(&p, t(1000 + a as u64), out);
        };
        s.start(t(0), &mut out);
        let mut acked = 0;
        while s.cwnd() < 20 * MSS {
            acked += MSS;
            reported(&mut s, acked, 5, &mut out);
        }
        assert_eq!(s.stats.ecn_reductions, 0, "ACE = 5, the initial count: no marks");
        out.clear();
        acked += MSS;
        reported(&mut s, acked, 7, &mut out);
        assert_eq!(s.stats.ecn_reductions, 1, "two marks: a reduction");
        acked += 10 * MSS;
        reported(&mut s, acked, 7, &mut out);
        assert_eq!(s.stats.ecn_reductions, 1, "once per window");
        reported(&mut s, acked, 8, &mut out); // a duplicate ACK reporting one more mark
        acked += MSS;
        reported(&mut s, acked, 8, &mut out);
        let AnyController::Probe(p) = s.controller() else { panic!("probe") };
        let n = p.ce.len();
        assert!(p.ce[..n - 3].iter().all(|c| *c == Some(0)));
        assert_eq!(p.ce[n - 3..], [Some(2), Some(8), Some(1)], "2; 0 or 8 on ten packets: 8; the duplicate's 1");
        assert!(!out.is_empty() && out.iter().all(|p| p.ecn == Ecn::Ect1 && ace(p) == 5 && !p.has_flag(flags::CWR)), "ECT(1), ACE 5, never CWR");
    }

    #[test]
    fn ecn_echo_halves_once_per_window_and_sets_cwr() {
        let cfg = SenderConfig { mss: MSS, ecn: true, ..SenderConfig::default() };
        let mut s = TcpSender::new(cfg, ends(), 1 << 30);
        let mut out = Vec::new();
        let mut acked = grow_to(&mut s, 10, &mut out);
        out.clear();
        let echo = |s: &mut TcpSender, a: u32, out: &mut Vec<Packet>| {
            let mut p = ack(s, a);
            p.flags |= flags::ECE;
            s.on_ack(&p, t(1000 + a as u64), out);
        };
        acked += MSS;
        echo(&mut s, acked, &mut out);
        let after_first = s.cwnd();
        assert_eq!(s.stats.ecn_reductions, 1);
        acked += MSS;
        echo(&mut s, acked, &mut out);
        assert_eq!(s.stats.ecn_reductions, 1, "at most one reduction per window");
        assert_eq!(s.cwnd(), after_first, "no growth on an ACK carrying ECE");
        // The window is now smaller than the flight: plain ACKs drain it until data flows.
        while out.is_empty() {
            acked += MSS;
            s.on_ack(&ack(&s, acked), t(5000 + acked as u64), &mut out);
        }
        assert!(out[0].has_flag(flags::CWR), "CWR on the first new data packet");
        assert!(out[1..].iter().all(|p| !p.has_flag(flags::CWR)), "and only on it");
        assert!(out.iter().all(|p| p.ecn == Ecn::Ect0));
    }

    /// After a timeout an ECN-Echo for data sent before it is answered at once only with
    /// `ecn_at_once_after_timeout` (ns-2's `ecn()`), and then only the first such echo.
    #[test]
    fn an_echo_after_a_timeout_is_answered_at_once_only_with_the_ns2_rule() {
        for at_once in [false, true] {
            let cfg = SenderConfig { ecn: true, ecn_at_once_after_timeout: at_once, ..config(Recovery::NewReno) };
            let mut s = TcpSender::new(cfg, ends(), 1 << 30);
            let mut out = Vec::new();
            let acked = grow_to(&mut s, 10, &mut out);
            let d = s.rto_deadline().unwrap();
            s.on_timeout(d, &mut out);
            let ssthresh = s.ssthresh();
            let mut echo = |s: &mut TcpSender, a: u32| {
                let mut p = ack(s, a);
                p.flags |= flags::ECE;
                s.on_ack(&p, d + Dur::from_millis(a as u64 / 100), &mut out);
            };
            echo(&mut s, acked + MSS);
            assert_eq!(s.stats.ecn_reductions, at_once as u64, "at once: {at_once}");
            assert_eq!(s.ssthresh() < ssthresh, at_once, "the answer halves again");
            echo(&mut s, acked + 2 * MSS);
            assert_eq!(s.stats.ecn_reductions, at_once as u64, "one answer per timeout");
        }
    }

    /// RFC 3168 6.1.2: CWR follows a reduction "for any reason (because of a retransmit
    /// timeout, a Fast Retransmit, or in response to an ECN Notification)", as ns-2's
    /// `slowdown()` sets `cong_action_` for each. After a timeout the receiver may still be
    /// echoing a CE that arrived after the last ECN reduction; without CWR it echoes on, and
    /// the sender, which answers no echo for data sent before the timeout and grows on no
    /// ACK that carries one, keeps its window of one segment.
    #[test]
    fn cwr_follows_a_timeout_and_a_fast_retransmit() {
        let with =
            |ecn: bool, on_retransmit: bool| TcpSender::new(SenderConfig { ecn, cwr_on_retransmit: on_retransmit, ..config(Recovery::Reno) }, ends(), 1 << 30);
        let cwr = |out: &[Packet]| out.iter().map(|p| p.has_flag(flags::CWR)).collect::<Vec<_>>();
        // A timeout: the retransmission carries CWR, or (RFC 3168's rule) the first new
        // segment after it.
        for (ecn, on_retransmit) in [(true, true), (true, false), (false, true)] {
            let mut s = with(ecn, on_retransmit);
            let mut out = Vec::new();
            let acked = grow_to(&mut s, 4, &mut out);
            let max = s.snd_max().0;
            out.clear();
            let d = s.rto_deadline().unwrap();
            s.on_timeout(d, &mut out);
            assert_eq!((out.len(), out[0].seq), (1, Seq(acked)), "one segment, the first unacknowledged");
            assert_eq!(cwr(&out), [ecn && on_retransmit], "ecn {ecn}, on retransmit {on_retransmit}");
            // The receiver held the rest: its ACK covers everything sent and new data follows.
            out.clear();
            s.on_ack(&ack(&s, max), d + Dur::from_millis(100), &mut out);
            assert_eq!(out.len(), 2, "slow start from one segment");
            assert_eq!(cwr(&out), [ecn && !on_retransmit, false], "ecn {ecn}, on retransmit {on_retransmit}");
        }
        // A fast retransmit: the retransmission itself may carry it (ns-2), else the next
        // new segment.
        for on_retransmit in [true, false] {
            let mut s = with(true, on_retransmit);
            let mut out = Vec::new();
            let acked = grow_to(&mut s, 10, &mut out);
            out.clear();
            for i in 0..3 {
                s.on_ack(&ack(&s, acked), t(200 + i), &mut out);
            }
            let rexmit = out.iter().position(|p| p.seq == Seq(acked)).expect("fast retransmit");
            assert_eq!(out[rexmit].has_flag(flags::CWR), on_retransmit);
            assert_eq!(s.cwr_pending(), !on_retransmit);
        }
    }

    /// RFC 3168 6.1.5: "the TCP data sender MUST NOT set either an ECT codepoint or the CE
    /// codepoint in the ECN field of the IP header ... on retransmitted data packets"; ns-2
    /// (and DCTCP) mark them ECT like any other.
    #[test]
    fn retransmissions_are_not_ect_unless_asked() {
        for ect_on_retransmit in [false, true] {
            let cfg = SenderConfig { ecn: true, ect_on_retransmit, ..config(Recovery::NewReno) };
            // A fast retransmit, then the new data the next ACK lets out.
            let mut s = TcpSender::new(cfg.clone(), ends(), 1 << 30);
            let mut out = Vec::new();
            let acked = grow_to(&mut s, 10, &mut out);
            assert!(out.iter().all(|p| p.ecn == Ecn::Ect0), "first transmissions are ECT");
            out.clear();
            for i in 0..3 {
                s.on_ack(&ack(&s, acked), t(200 + i), &mut out);
            }
            let rexmit = out.iter().find(|p| p.seq == Seq(acked)).expect("fast retransmit");
            assert_eq!(rexmit.ecn == Ecn::Ect0, ect_on_retransmit, "fast retransmit, ect_on_retransmit {ect_on_retransmit}");
            assert!(out.iter().filter(|p| p.seq != Seq(acked)).all(|p| p.ecn == Ecn::Ect0), "new data stays ECT");
            // A timeout's retransmission.
            let mut s = TcpSender::new(cfg, ends(), 1 << 30);
            let mut out = Vec::new();
            grow_to(&mut s, 4, &mut out);
            out.clear();
            let d = s.rto_deadline().unwrap();
            s.on_timeout(d, &mut out);
            assert_eq!(out[0].ecn == Ecn::Ect0, ect_on_retransmit, "timeout, ect_on_retransmit {ect_on_retransmit}");
        }
    }

    /// RFC 3168 6.1.2: "the TCP sender's congestion window should be reduced only once in
    /// response to a series of dropped and/or CE packets from a single window of data".
    #[test]
    fn a_loss_in_the_window_an_ecn_echo_answered_is_repaired_without_a_second_cut() {
        for recovery in [Recovery::Reno, Recovery::NewReno] {
            let mut s = TcpSender::new(SenderConfig { ecn: true, ..config(recovery) }, ends(), 1 << 30);
            let mut out = Vec::new();
            let acked = grow_to(&mut s, 20, &mut out);
            let mut echo = ack(&s, acked + MSS);
            echo.flags |= flags::ECE;
            s.on_ack(&echo, t(100), &mut out);
            let (cwnd, ssthresh) = (s.cwnd(), s.ssthresh());
            assert_eq!(s.stats.window_reductions, 1);
            // The next segment of the same window was lost: three duplicates.
            out.clear();
            for i in 0..3 {
                s.on_ack(&ack(&s, acked + MSS), t(110 + i), &mut out);
            }
            assert_eq!(out[0].seq, Seq(acked + MSS), "{recovery:?}: retransmitted");
            assert!(s.in_recovery());
            assert_eq!((s.stats.fast_retransmits, s.stats.window_reductions, s.ssthresh()), (1, 1, ssthresh), "{recovery:?}: no second cut");
            assert_eq!(s.cwnd(), cwnd + 3 * MSS, "{recovery:?}: fast recovery from the window the echo left");
            // A loss in the next window is a new congestion event.
            let max = s.snd_max().0;
            s.on_ack(&ack(&s, max), t(200), &mut out);
            s.on_ack(&ack(&s, max + MSS), t(210), &mut out);
            let una = s.snd_una().0;
            for i in 0..3 {
                s.on_ack(&ack(&s, una), t(300 + i), &mut out);
            }
            assert_eq!((s.stats.fast_retransmits, s.stats.window_reductions), (2, 2), "{recovery:?}");
        }
    }

    /// ns-2's Reno with `bugFix_`: once fast recovery has ended (at the first new ACK), the
    /// duplicates of a second hole in the same window start no second fast retransmit, nor
    /// do duplicates of data sent before a timeout; without the check both do.
    #[test]
    fn renos_recover_check_keeps_a_second_fast_retransmit_out_of_a_window() {
        let reno = |check: bool| TcpSender::new(SenderConfig { reno_recover_check: check, ..config(Recovery::Reno) }, ends(), 1 << 30);
        for (check, expected) in [(false, 2), (true, 1)] {
            let mut s = reno(check);
            let mut out = Vec::new();
            let acked = grow_to(&mut s, 20, &mut out);
            for i in 0..3 {
                s.on_ack(&ack(&s, acked), t(200 + i), &mut out);
            }
            s.on_ack(&ack(&s, acked + 3 * MSS), t(300), &mut out);
            assert!(!s.in_recovery());
            for i in 0..3 {
                s.on_ack(&ack(&s, acked + 3 * MSS), t(310 + i), &mut out);
            }
            assert_eq!(s.stats.fast_retransmits, expected, "check {check}");
        }
        for (check, expected) in [(false, 1), (true, 0)] {
            let mut s = reno(check);
            let mut out = Vec::new();
            let acked = grow_to(&mut s, 20, &mut out);
            let d = s.rto_deadline().unwrap();
            s.on_timeout(d, &mut out);
            for i in 0..3 {
                s.on_ack(&ack(&s, acked), d + Dur::from_millis(1 + i), &mut out);
            }
            assert_eq!(s.stats.fast_retransmits, expected, "check {check}");
        }
    }

    #[test]
    fn window_does_not_grow_when_the_receiver_window_limits() {
        let cfg = SenderConfig { mss: MSS, ..SenderConfig::default() };
        let mut s = TcpSender::new(cfg, ends(), 4 * MSS); // the receiver allows 4 segments
        let mut out = Vec::new();
        s.start(t(0), &mut out);
        let mut acked = 0;
        for i in 0..50 {
            acked += MSS;
            let mut a = ack(&s, acked);
            a.wnd = 4 * MSS;
            s.on_ack(&a, t(10 + i), &mut out);
        }
        assert!(s.flight_size() <= 4 * MSS);
        assert!(s.cwnd() <= 5 * MSS, "cwnd {} grew past what the flow could use", s.cwnd());
    }

    #[test]
    fn finite_transfer_records_completion() {
        let cfg = SenderConfig { mss: MSS, data_bytes: Some(2500), ..SenderConfig::default() };
        let mut s = TcpSender::new(cfg, ends(), 1 << 30);
        let mut out = Vec::new();
        s.start(t(0), &mut out);
        s.on_ack(&ack(&s, 1000), t(10), &mut out);
        assert_eq!(out.last().unwrap().payload, 500, "last segment is short");
        s.on_ack(&ack(&s, 2500), t(20), &mut out);
        assert_eq!(s.completed_at, Some(t(20)));
        assert_eq!(s.rto_deadline(), None);
    }

    fn acc_sender(recovery: Recovery) -> TcpSender {
        TcpSender::new(SenderConfig { acc: true, ..config(recovery) }, ends(), 1 << 30)
    }

    /// A control for the segment at byte offset `dropped`, asking for `segs` segments.
    fn control(s: &TcpSender, dropped: u32, segs: u32) -> Packet {
        let mut p = ack(s, 0);
        p.kind = Kind::AccControl;
        p.seq = Seq(s.cfg.isn.wrapping_add(dropped));
        p.acc = Some(AccState { cwnd: segs * MSS, ssthresh: segs * MSS, srtt_us: 100_000, ..AccState::default() });
        p
    }

    #[test]
    fn acc_control_sets_the_window_and_resends_from_the_dropped_segment() {
        for recovery in [Recovery::Reno, Recovery::NewReno] {
            let mut s = acc_sender(recovery);
            let mut out = Vec::new();
            let acked = grow_to(&mut s, 10, &mut out);
            assert!(out.iter().all(|p| p.acc.is_some_and(|a| a.cwnd > 0)), "data carries the state");
            let max = s.snd_max().0;
            let dropped = acked + 4 * MSS;
            s.on_acc_control(&control(&s, dropped, 5), t(300));
            assert_eq!((s.cwnd(), s.ssthresh()), (5 * MSS, 5 * MSS));
            assert_eq!(s.snd_nxt(), Seq(dropped), "the dropped segment and all after it are presumed unsent");
            assert_eq!((s.stats.acc_reductions, s.stats.window_reductions), (1, 1));
            assert_eq!(s.last_reduction.map(|r| r.1), Some(ReductionCause::AccControl));
            assert_eq!(s.stats.acc_reduction_bytes, s.stats.window_reduction_bytes);
            // Four segments below the dropped one are still in flight, so one ACK lets the
            // dropped segment go again, then the next.
            out.clear();
            s.on_ack(&ack(&s, acked + MSS), t(310), &mut out);
            let seqs: Vec<u32> = out.iter().map(|p| p.seq.0).collect();
            assert_eq!(seqs, vec![dropped, dropped + MSS], "{recovery:?}");
            assert!(dropped + MSS < max);
            assert_eq!(s.stats.retransmitted_packets, 2);
        }
    }

    #[test]
    fn acc_state_carries_slow_start_and_fast_recovery_and_a_control_may_ask_for_slow_start() {
        let mut s = acc_sender(Recovery::NewReno);
        let mut out = Vec::new();
        s.start(t(0), &mut out);
        assert!(out[0].acc.is_some_and(|a| a.slow_start && !a.fast_recovery), "slow start at first");
        let acked = grow_to(&mut s, 10, &mut out);
        out.clear();
        for i in 0..3 {
            s.on_ack(&ack(&s, acked), t(200 + i), &mut out);
        }
        let state = out[0].acc.expect("the retransmission carries the state");
        assert!(state.fast_recovery && !state.slow_start, "{state:?}");
        // A control asking for slow start (no ACC router sends one; the flag is honoured):
        // the loss window, and the router's threshold to grow to.
        let mut s = acc_sender(Recovery::Reno);
        let acked = grow_to(&mut s, 10, &mut out);
        let mut c = control(&s, acked + 2 * MSS, 5);
        c.acc = c.acc.map(|a| AccState { slow_start: true, ..a });
        s.on_acc_control(&c, t(300));
        assert_eq!((s.cwnd(), s.ssthresh()), (MSS, 5 * MSS));
    }

    #[test]
    fn dupacks_after_an_acc_control_do_not_cut_the_window_again() {
        for recovery in [Recovery::Reno, Recovery::NewReno] {
            let mut s = acc_sender(recovery);
            let mut out = Vec::new();
            let acked = grow_to(&mut s, 10, &mut out);
            s.on_acc_control(&control(&s, acked, 5), t(300));
            let max = s.snd_max().0;
            for i in 0..6 {
                s.on_ack(&ack(&s, acked), t(310 + i), &mut out);
            }
            assert_eq!(s.stats.fast_retransmits, 0, "{recovery:?}: go-back-N resends the hole");
            assert_eq!((s.stats.window_reductions, s.cwnd(), s.ssthresh()), (1, 5 * MSS, 5 * MSS), "{recovery:?}");
            // Once the data sent before the control is acknowledged, a new loss is a new
            // congestion event and TCP answers it as usual.
            s.on_ack(&ack(&s, max), t(400), &mut out);
            let una = s.snd_una().0;
            for i in 0..3 {
                s.on_ack(&ack(&s, una), t(500 + i), &mut out);
            }
            assert_eq!((s.stats.fast_retransmits, s.stats.window_reductions), (1, 2), "{recovery:?}");
            assert_eq!(s.last_reduction.map(|r| r.1), Some(ReductionCause::FastRetransmit));
        }
    }

    #[test]
    fn acc_control_is_obeyed_at_most_once_per_window() {
        let mut s = acc_sender(Recovery::NewReno);
        let mut out = Vec::new();
        let acked = grow_to(&mut s, 10, &mut out);
        s.on_acc_control(&control(&s, acked + MSS, 5), t(300));
        s.on_acc_control(&control(&s, acked + 2 * MSS, 2), t(301));
        assert_eq!((s.stats.acc_controls, s.stats.acc_reductions, s.cwnd()), (2, 1, 5 * MSS), "same window");
        // Controls that would open the window, or that concern data already acknowledged,
        // change nothing.
        let max = s.snd_max().0;
        s.on_ack(&ack(&s, max), t(400), &mut out);
        s.on_acc_control(&control(&s, s.snd_max().0 - MSS, 50), t(401));
        s.on_acc_control(&control(&s, acked, 2), t(402));
        assert_eq!(s.stats.acc_reductions, 1);
        // During the sender's own fast recovery the window's congestion is already
        // answered, even for data sent in recovery (above `recover`).
        let (una, recover) = (s.snd_una().0, s.snd_max().0);
        for i in 0..10 {
            s.on_ack(&ack(&s, una), t(500 + i), &mut out);
        }
        assert!(s.in_recovery() && s.snd_max().0 > recover, "recovery sends new data");
        let cwnd = s.cwnd();
        s.on_acc_control(&control(&s, recover, 2), t(520));
        assert_eq!((s.stats.acc_reductions, s.stats.window_reductions, s.cwnd()), (1, 2, cwnd));
        // A sender without ACC carries no state and ignores controls altogether.
        let mut plain = sender(Recovery::NewReno, 0);
        let mut out = Vec::new();
        let acked = grow_to(&mut plain, 10, &mut out);
        assert!(out.iter().all(|p| p.acc.is_none()));
        plain.on_acc_control(&control(&plain, acked, 2), t(300));
        assert_eq!((plain.stats.acc_controls, plain.cwnd()), (0, 10 * MSS));
    }

    #[test]
    fn without_controls_an_acc_sender_is_plain_tcp() {
        // Fail-safe: a sender whose controls are lost sees only ACKs and must behave
        // exactly like TCP, through fast retransmit, recovery and a timeout.
        let script = |s: &mut TcpSender| -> Vec<(u32, u32, Vec<Seq>)> {
            let mut trace = Vec::new();
            let mut out = Vec::new();
            let acked = grow_to(s, 12, &mut out);
            let feed = |s: &mut TcpSender, a: u32, ms: u64, trace: &mut Vec<_>| {
                let mut out = Vec::new();
                s.on_ack(&ack(s, a), t(ms), &mut out);
                trace.push((s.cwnd(), s.ssthresh(), out.iter().map(|p| p.seq).collect()));
            };
            for i in 0..4 {
                feed(s, acked, 300 + i, &mut trace);
            }
            feed(s, acked + 3 * MSS, 400, &mut trace);
            feed(s, s.snd_max().0, 500, &mut trace);
            let d = s.rto_deadline().unwrap_or(t(600));
            s.on_timeout(d, &mut out);
            trace.push((s.cwnd(), s.ssthresh(), out.iter().map(|p| p.seq).collect()));
            trace
        };
        for recovery in [Recovery::Reno, Recovery::NewReno] {
            let (mut a, mut b) = (acc_sender(recovery), sender(recovery, 0));
            assert_eq!(script(&mut a), script(&mut b), "{recovery:?}");
            assert_eq!(a.stats.window_reductions, b.stats.window_reductions);
            assert!(a.stats.window_reductions >= 1);
        }
    }

    // ---- SACK (RFC 2018, RFC 6675) ----

    fn sack_sender(recovery: Recovery) -> TcpSender {
        TcpSender::new(SenderConfig { sack: true, ..config(recovery) }, ends(), 1 << 30)
    }

    /// An ACK of `ackno` carrying SACK blocks (byte offsets from the ISN), most recent first.
    fn sack_ack(s: &TcpSender, ackno: u32, blocks: &[(u32, u32)]) -> Packet {
        let mut p = ack(s, ackno);
        let mut b = SackBlocks::NONE;
        for &(l, r) in blocks {
            b.push(Seq(s.cfg.isn.wrapping_add(l)), Seq(s.cfg.isn.wrapping_add(r)));
        }
        p.set_sack(b);
        p
    }

    /// Segment `i` of the window that starts at `base`: its SACK block.
    fn segs(base: u32, from: u32, to: u32) -> (u32, u32) {
        (base + from * MSS, base + to * MSS)
    }

    #[test]
    fn sack_third_duplicate_enters_recovery_with_cwnd_at_ssthresh() {
        let mut s = sack_sender(Recovery::NewReno);
        let mut out = Vec::new();
        let a = grow_to(&mut s, 10, &mut out);
        assert_eq!(s.flight_size(), 10 * MSS);
        out.clear();
        // Segment 0 of the window is lost; 1, 2, 3 arrive.
        s.on_ack(&sack_ack(&s, a, &[segs(a, 1, 2)]), t(200), &mut out);
        s.on_ack(&sack_ack(&s, a, &[segs(a, 1, 3)]), t(201), &mut out);
        assert!(out.is_empty() && !s.in_recovery(), "two duplicates and 2 SMSS SACKed: not yet");
        s.on_ack(&sack_ack(&s, a, &[segs(a, 1, 4)]), t(202), &mut out);
        assert!(s.in_recovery());
        assert_eq!(s.stats.fast_retransmits, 1);
        // (4.2) ssthresh = cwnd = FlightSize / 2; (4.3) HighACK + 1 retransmitted.
        assert_eq!((s.ssthresh(), s.cwnd()), (5 * MSS, 5 * MSS));
        assert_eq!(out.iter().map(|p| p.seq.0).collect::<Vec<_>>(), [a]);
        // (4.4) pipe: segments 4-9 in flight and the retransmission: 7 > cwnd, nothing more.
        assert_eq!(s.pipe(), 7 * MSS as u64);
        assert_eq!(s.scoreboard().ranges(), [(a as u64 + MSS as u64, a as u64 + 4 * MSS as u64)]);
        // Each further SACK takes a segment out of the pipe; once cwnd - pipe >= SMSS new
        // data goes out (no inflation: cwnd stays at ssthresh).
        for k in 4..8 {
            s.on_ack(&sack_ack(&s, a, &[segs(a, 1, k + 1)]), t(203 + k as u64), &mut out);
        }
        assert_eq!(s.cwnd(), 5 * MSS, "duplicates do not inflate the window");
        assert_eq!(s.pipe(), 5 * MSS as u64);
        let sent: Vec<u32> = out.iter().skip(1).map(|p| (p.seq.0 - a) / MSS).collect();
        assert_eq!(sent, [10, 11], "new data once 3 segments left the pipe, then 1 per SACK");
        // The cumulative ACK covering RecoveryPoint ends recovery (A).
        s.on_ack(&sack_ack(&s, a + 10 * MSS, &[]), t(300), &mut out);
        assert!(!s.in_recovery());
        assert_eq!(s.stats.timeouts, 0);
    }

    #[test]
    fn sack_islost_enters_recovery_before_the_third_duplicate() {
        // One ACK SACKs three segments at once (the ACKs between were lost): IsLost(HighACK
        // + 1) holds on the first duplicate (RFC 6675 section 5 step (2)).
        let mut s = sack_sender(Recovery::NewReno);
        let mut out = Vec::new();
        let a = grow_to(&mut s, 10, &mut out);
        out.clear();
        s.on_ack(&sack_ack(&s, a, &[segs(a, 1, 4)]), t(200), &mut out);
        assert!(s.in_recovery());
        assert_eq!(out[0].seq, Seq(a));
    }

    #[test]
    fn sack_recovery_retransmits_every_lost_segment_of_a_window_at_once() {
        // Segments 0, 2, 4 and 6 of a window of 10 are lost; the others SACKed. RFC 6582
        // would retransmit one hole per round trip; RFC 6675 sends every hole IsLost marks
        // as pipe allows, here within the same ACKs.
        let mut s = sack_sender(Recovery::NewReno);
        let mut out = Vec::new();
        let a = grow_to(&mut s, 10, &mut out);
        out.clear();
        let mut blocks: Vec<(u32, u32)> = Vec::new();
        for (i, k) in [1, 3, 5, 7, 8, 9].into_iter().enumerate() {
            // Most recent first, three at most, as the receiver sends them.
            blocks.insert(0, segs(a, k, k + 1));
            blocks.truncate(3);
            s.on_ack(&sack_ack(&s, a, &blocks), t(200 + i as u64), &mut out);
        }
        let rexmits: Vec<u32> = out.iter().filter(|p| p.seq.0 < a + 10 * MSS).map(|p| (p.seq.0 - a) / MSS).collect();
        assert_eq!(rexmits, [0, 2, 4, 6], "every hole once, in order, before any ACK of new data");
        assert_eq!(s.stats.fast_retransmits, 1);
        assert_eq!(s.stats.retransmitted_packets, 4);
    }

    #[test]
    fn sack_partial_ack_keeps_recovery_and_does_not_deflate() {
        for recovery in [Recovery::Reno, Recovery::NewReno] {
            let mut s = sack_sender(recovery);
            let mut out = Vec::new();
            let a = grow_to(&mut s, 10, &mut out);
            for k in 2..5 {
                s.on_ack(&sack_ack(&s, a, &[segs(a, 1, 2), segs(a, 3, k + 1)]), t(200 + k as u64), &mut out);
            }
            // Loss of 0 and 2; 3 segments SACKed above 2 and 0.
            assert!(s.in_recovery());
            let cwnd = s.cwnd();
            // The retransmission of 0 arrives: a partial ACK up to the second hole.
            s.on_ack(&sack_ack(&s, a + 2 * MSS, &[segs(a, 3, 5)]), t(300), &mut out);
            assert!(s.in_recovery(), "{recovery:?}: RFC 6675 (A): only RecoveryPoint ends recovery");
            assert_eq!(s.cwnd(), cwnd, "{recovery:?}: no deflation");
            assert_eq!(s.rto_deadline(), Some(t(300) + s.rto()), "{recovery:?}: the timer restarts on new data (RFC 6298 5.3)");
        }
    }

    #[test]
    fn sack_timeout_clears_the_scoreboard_and_go_back_n_skips_what_is_sacked_again() {
        let mut s = sack_sender(Recovery::NewReno);
        s.cfg.sack_clear_on_timeout = true;
        let mut out = Vec::new();
        let a = grow_to(&mut s, 10, &mut out);
        for k in 1..4 {
            s.on_ack(&sack_ack(&s, a, &[segs(a, 1, k + 1)]), t(200 + k as u64), &mut out);
        }
        assert!(s.in_recovery() && !s.scoreboard().is_empty());
        out.clear();
        let d = s.rto_deadline().unwrap();
        s.on_timeout(d, &mut out);
        assert!(s.scoreboard().is_empty(), "RFC 2018 section 8");
        assert!(!s.in_recovery());
        assert_eq!(out.iter().map(|p| p.seq.0).collect::<Vec<_>>(), [a], "one segment: the loss window");
        // The receiver still holds 1-3 and says so; the retransmission of 0 arrives and the
        // ACK moves on to 4. Going back N resends 4 and 5 (slow start: 2 segments), not 1-3.
        out.clear();
        s.on_ack(&sack_ack(&s, a, &[segs(a, 1, 4)]), d + Dur::from_millis(1), &mut out);
        assert_eq!(s.stats.fast_retransmits, 1, "no new recovery for data sent before the timeout");
        s.on_ack(&sack_ack(&s, a + 4 * MSS, &[]), d + Dur::from_millis(2), &mut out);
        let sent: Vec<u32> = out.iter().map(|p| (p.seq.0 - a) / MSS).collect();
        assert_eq!(sent, [4, 5]);
        // With segment 6 SACKed, going back N jumps over it.
        out.clear();
        s.on_ack(&sack_ack(&s, a + 5 * MSS, &[segs(a, 6, 7)]), d + Dur::from_millis(3), &mut out);
        let sent: Vec<u32> = out.iter().map(|p| (p.seq.0 - a) / MSS).collect();
        assert!(!sent.contains(&6) && sent[0] == 7, "{sent:?}");
    }

    /// By default the scoreboard survives a timeout (RFC 6675 5.1, Errata 1610): going back
    /// N skips what the receiver holds at once, without waiting for it to be reported again.
    #[test]
    fn sack_timeout_keeps_the_scoreboard_by_default() {
        let mut s = sack_sender(Recovery::NewReno);
        let mut out = Vec::new();
        let a = grow_to(&mut s, 10, &mut out);
        for k in 1..4 {
            s.on_ack(&sack_ack(&s, a, &[segs(a, 1, k + 1)]), t(200 + k as u64), &mut out);
        }
        let board = s.scoreboard().ranges().to_vec();
        let d = s.rto_deadline().unwrap();
        s.on_timeout(d, &mut out);
        assert_eq!(s.scoreboard().ranges(), board.as_slice());
        // The retransmission of 0 arrives: the ACK moves to 4 (1-3 were held) and going back
        // N sends 4 and 5, never 1-3.
        out.clear();
        s.on_ack(&sack_ack(&s, a + 4 * MSS, &[]), d + Dur::from_millis(2), &mut out);
        let sent: Vec<u32> = out.iter().map(|p| (p.seq.0 - a) / MSS).collect();
        assert_eq!(sent, [4, 5]);
    }

    /// A timeout halves what the receiver does not hold: the SACKed data is not in flight.
    #[test]
    fn sack_timeout_halves_the_unsacked_flight() {
        let mut s = sack_sender(Recovery::NewReno);
        let mut out = Vec::new();
        let a = grow_to(&mut s, 20, &mut out);
        let flight = s.flight_size();
        // Segment 0 lost, 1-12 held by the receiver.
        s.on_ack(&sack_ack(&s, a, &[segs(a, 1, 13)]), t(200), &mut out);
        let d = s.rto_deadline().unwrap();
        s.on_timeout(d, &mut out);
        let held = 12 * MSS;
        assert!(s.flight_size() >= flight, "SND.MAX has not moved back");
        assert_eq!(s.ssthresh(), (s.flight_size() - held) / 2, "FlightSize less the SACKed bytes, halved");
    }

    /// The sender of RFC 6937 section 3.1's examples: SACK, Limited Transmit, ssthresh half
    /// the window (cwnd = FlightSize = 20 segments, "so ssthresh will be set to 10"), with or
    /// without PRR; grown to 20 segments in flight.
    fn prr_sender(prr: bool, out: &mut Vec<Packet>) -> (TcpSender, u32) {
        let reno = RenoConfig { ssthresh_from: SsthreshFrom::Window, ..RenoConfig::default() };
        let cc = CcConfig::Reno(NewRenoConfig { reno, ..NewRenoConfig::default() });
        let cfg = SenderConfig { sack: true, prr, limited_transmit: true, cc, ..config(Recovery::NewReno) };
        let mut s = TcpSender::new(cfg, ends(), 1 << 30);
        let a = grow_to(&mut s, 20, out);
        assert_eq!(s.flight_size(), 20 * MSS);
        out.clear();
        (s, a)
    }

    /// BBR sets its window on every ACK, in recovery too: `prr` does not apply to it (Linux's
    /// `tcp_cong_control()` calls BBR's `cong_control` instead of PRR's
    /// `tcp_cwnd_reduction()`); to NewReno it does.
    #[test]
    fn prr_leaves_a_controller_that_sets_its_window_in_recovery_alone() {
        for (cc, spreads) in [(CcConfig::Bbr(Box::default()), false), (CcConfig::Bbr3(Box::default()), false), (CcConfig::Reno(NewRenoConfig::default()), true)]
        {
            let cfg = SenderConfig { sack: true, prr: true, cc, ..config(Recovery::NewReno) };
            let s = TcpSender::new(cfg, ends(), 1 << 30);
            assert_eq!(s.cfg.prr, spreads, "{:?}", s.controller());
        }
    }

    /// RFC 6937 section 3.1, the burst: segments 0 to 14 of the 20 are lost and the ACKs of
    /// 15 to 19 return. The first two send new data by Limited Transmit; the third starts
    /// recovery with pipe = 4 segments. The RFC's rows: PRR-SSRB sends two retransmissions
    /// on each of the last three ACKs, pipe 4, 5, 6; RFC 6675 sends 6 at once (cwnd 10 here:
    /// the RFC's row has cwnd 11 and 7).
    #[test]
    fn prr_follows_rfc6937s_burst_loss_example() {
        for (prr, sent) in [(true, vec![2, 2, 2]), (false, vec![6, 1, 1])] {
            let mut out = Vec::new();
            let (mut s, a) = prr_sender(prr, &mut out);
            let mut rows = Vec::new();
            for seg in 15..20 {
                out.clear();
                s.on_ack(&sack_ack(&s, a, &[segs(a, 15, seg + 1)]), t(500 + seg as u64), &mut out);
                rows.push((s.pipe() / MSS as u64 - out.len() as u64, out.len(), out.iter().all(|p| p.seq.0 < a + 15 * MSS)));
            }
            // ACKs 15 and 16: Limited Transmit, one new segment each (pipe 19 before it).
            assert_eq!(&rows[..2], &[(19, 1, false), (19, 1, false)], "prr {prr}");
            let sends: Vec<usize> = rows[2..].iter().map(|r| r.1).collect();
            assert_eq!(sends, sent, "prr {prr}: {rows:?}");
            assert!(rows[2..].iter().all(|r| r.2), "only retransmissions: {rows:?}");
            if prr {
                let pipes: Vec<u64> = rows[2..].iter().map(|r| r.0).collect();
                assert_eq!(pipes, vec![4, 5, 6]);
            }
            assert_eq!(s.ssthresh(), 10 * MSS);
        }
    }

    /// RFC 6937 section 3.1, one loss: segment 0 of 20 is lost. PRR spreads the reduction
    /// over the round trip, one segment for about every two delivered, where RFC 6675 sends
    /// nothing on the ACKs of segments 4 to 11 and then one segment per ACK. By RFC 6937's
    /// arithmetic (RecoverFS = snd.nxt - snd.una = 22 segments after Limited Transmit,
    /// sndcnt = ceil(prr_delivered * 10 / 22) - prr_out): the retransmission on the ACK of 3,
    /// new segments on the ACKs of 5, 7, 9, 11, 14 and 16; on the ACK of 18 pipe (RFC 6675's
    /// SetPipe(): the retransmission, 19 to 21 and six new segments) is down to ssthresh, so
    /// the reduction bound sends ssthresh - pipe = 0, and one segment on the ACK of 19.
    #[test]
    fn prr_spreads_the_reduction_of_rfc6937s_single_loss_example() {
        let mut out = Vec::new();
        let (mut s, a) = prr_sender(true, &mut out);
        let mut sending = Vec::new();
        for seg in 1..20 {
            out.clear();
            s.on_ack(&sack_ack(&s, a, &[segs(a, 1, seg + 1)]), t(500 + seg as u64), &mut out);
            assert!(out.len() <= 1, "ack {seg}: {} segments", out.len());
            if !out.is_empty() && seg >= 3 {
                sending.push(seg);
            }
        }
        assert_eq!(sending, vec![3, 5, 7, 9, 11, 14, 16, 19]);
        // The round trip ends with ssthresh in the network.
        assert_eq!(s.pipe(), 10 * MSS as u64);
        // The full ACK ends recovery (RFC 6582 option 1: min(ssthresh, the 7 new segments
        // still in flight + 1)).
        s.on_ack(&ack(&s, a + 22 * MSS), t(600), &mut out);
        assert!(!s.in_recovery() && s.active_prr().is_none());
        assert_eq!(s.cwnd(), 8 * MSS);
    }

    /// `ecn_response = "cwr"`: after the echo's reduction the window does not grow until an
    /// ACK passes the data sent before it (ns-3.37's `CA_CWR`); `immediate` grows on the next
    /// ACK without ECE. With PRR, the window comes down over that round trip instead of at
    /// once: one segment for every two delivered when ssthresh is half the flight.
    #[test]
    fn cwr_state_holds_the_window_for_a_round_trip() {
        let run = |response: EcnResponse, prr: bool| {
            let cfg = SenderConfig { mss: MSS, ecn: true, ecn_response: response, prr, ..SenderConfig::default() };
            let mut s = TcpSender::new(cfg, ends(), 1 << 30);
            let mut out = Vec::new();
            let mut acked = grow_to(&mut s, 10, &mut out);
            // Get into congestion avoidance at 10 segments with 10 in flight.
            s.cc.window_mut().ssthresh = 10 * MSS;
            out.clear();
            let max = s.snd_max().0;
            acked += MSS;
            let mut p = ack(&s, acked);
            p.flags |= flags::ECE;
            s.on_ack(&p, t(1000), &mut out);
            let mut rows = vec![(s.cwnd() / MSS, out.len())];
            // The rest of the window's ACKs, without ECE, then one past it.
            while acked < max + MSS {
                acked += MSS;
                out.clear();
                s.on_ack(&ack(&s, acked), t(1000 + acked as u64), &mut out);
                rows.push((s.cwnd() / MSS, out.len()));
            }
            (rows, s)
        };
        let (immediate, _) = run(EcnResponse::Immediate, false);
        let (cwr, s) = run(EcnResponse::Cwr, false);
        // The same cut at once (FlightSize / 2 of the 9 segments then in flight), nothing sent.
        assert_eq!(immediate[0], (4, 0));
        assert_eq!(cwr[0], (4, 0));
        assert!(immediate.iter().skip(1).any(|r| r.0 > 4), "immediate grows in the round trip: {immediate:?}");
        let last = cwr.len() - 1;
        assert!(cwr[1..last].iter().all(|r| r.0 == 4), "no growth in CWR: {cwr:?}");
        assert!(s.cwr_until().is_none(), "the ACK past the echo's data ends the state");
        // PRR in CWR: one segment on the echo's ACK (forced, as Linux and ns-3), then one for
        // every two delivered, where the immediate cut sends nothing until the flight is
        // below the window: five sent over the round trip, one on every other ACK.
        let (prr, s) = run(EcnResponse::Cwr, true);
        let sent: Vec<usize> = prr.iter().map(|r| r.1).collect();
        assert_eq!(sent, vec![1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0], "{prr:?}");
        assert_eq!(cwr.iter().map(|r| r.1).take(5).sum::<usize>(), 0, "{cwr:?}");
        assert!(s.active_prr().is_none());
    }

    #[test]
    fn sack_ack_without_blocks_counts_as_rfc5681_duplicate() {
        // A peer or router that sends no SACK blocks (a spoofed ACK): RFC 5681's duplicates.
        let mut s = sack_sender(Recovery::NewReno);
        let mut out = Vec::new();
        let a = grow_to(&mut s, 10, &mut out);
        for i in 0..3 {
            s.on_ack(&ack(&s, a), t(200 + i), &mut out);
        }
        assert_eq!((s.stats.fast_retransmits, s.cwnd()), (1, 5 * MSS));
        // With blocks, an ACK that SACKs nothing new is no duplicate (RFC 6675 section 2).
        let mut s = sack_sender(Recovery::NewReno);
        let a = grow_to(&mut s, 10, &mut out);
        for i in 0..4 {
            s.on_ack(&sack_ack(&s, a, &[segs(a, 1, 2)]), t(200 + i), &mut out);
        }
        assert_eq!((s.stats.dupacks_received, s.stats.fast_retransmits), (1, 0));
    }

    /// ns-2's `send_one()` after a timeout: the first two duplicate ACKs each send the next
    /// segment of the go-back-N pass, though it is a resend; RFC 3042 sends only new data.
    #[test]
    fn limited_transmit_after_a_timeout_resends_the_next_segment_only_with_the_ns2_rule() {
        for resends in [false, true] {
            let cfg = SenderConfig { limited_transmit: true, limited_transmit_resends: resends, ..config(Recovery::NewReno) };
            let mut s = TcpSender::new(cfg, ends(), 1 << 30);
            let mut out = Vec::new();
            let a = grow_to(&mut s, 10, &mut out);
            let max = s.snd_max().0;
            let d = s.rto_deadline().unwrap();
            out.clear();
            s.on_timeout(d, &mut out);
            let first: Vec<u32> = out.iter().map(|p| (p.seq.0 - a) / MSS).collect();
            assert_eq!(first, [0], "the timeout resends segment 0");
            let mut sent = Vec::new();
            for i in 1..=3 {
                out.clear();
                s.on_ack(&ack(&s, a), d + Dur::from_millis(i), &mut out);
                sent.push(out.iter().map(|p| (p.seq.0 - a) / MSS).collect::<Vec<u32>>());
            }
            let expected: [&[u32]; 3] = if resends { [&[1], &[2], &[]] } else { [&[], &[], &[]] };
            assert_eq!(sent, expected, "resends {resends}");
            assert_eq!(s.snd_max().0, max, "nothing new is sent");
            assert_eq!(s.stats.retransmitted_packets, if resends { 3 } else { 1 });
            assert_eq!(s.stats.fast_retransmits, 0, "duplicates of data sent before the timeout start no fast retransmit");
        }
    }

    #[test]
    fn sack_limited_transmit_sends_by_pipe() {
        let cfg = SenderConfig { sack: true, limited_transmit: true, ..config(Recovery::NewReno) };
        let mut s = TcpSender::new(cfg, ends(), 1 << 30);
        let mut out = Vec::new();
        let a = grow_to(&mut s, 10, &mut out);
        let max = s.snd_max().0;
        out.clear();
        s.on_ack(&sack_ack(&s, a, &[segs(a, 1, 2)]), t(200), &mut out);
        s.on_ack(&sack_ack(&s, a, &[segs(a, 1, 3)]), t(201), &mut out);
        assert_eq!(out.iter().map(|p| p.seq.0).collect::<Vec<_>>(), [max, max + MSS], "one new segment per SACKed one");
    }

    #[test]
    fn sack_rescue_retransmits_the_last_segment_once_per_recovery() {
        // A finite transfer of 10 segments, all sent, loses the first and the last: no new
        // data to send and no hole below the highest SACKed byte but the first, so rule (4)
        // resends the tail once the pipe allows, once.
        let cfg = SenderConfig { sack: true, init_cwnd: 10, data_bytes: Some(10 * MSS as u64), ..config(Recovery::NewReno) };
        let mut s = TcpSender::new(cfg, ends(), 1 << 30);
        let mut out = Vec::new();
        s.start(t(0), &mut out);
        assert_eq!(s.snd_max().0, 10 * MSS);
        out.clear();
        for k in 1..9 {
            s.on_ack(&sack_ack(&s, 0, &[(MSS, (k + 1) * MSS)]), t(100 + k as u64), &mut out);
        }
        let sent: Vec<u32> = out.iter().map(|p| p.seq.0 / MSS).collect();
        assert_eq!(sent, [0, 9], "the first hole, then the rescue of the last segment");
        assert_eq!((s.stats.fast_retransmits, s.stats.retransmitted_packets), (1, 2));
    }

    /// A sender and a SACK receiver joined by a path of 10 ms each way (no bottleneck: a
    /// window leaves at one instant) that drops the first transmission of the segments listed.
    /// Returns the sender when `bytes` are acknowledged, the time spent in recovery, and when
    /// the last retransmission left after recovery began.
    fn lossy_transfer(cfg: SenderConfig, bytes: u64, drop: &[u32]) -> (TcpSender, Dur, Dur) {
        transfer(cfg, bytes, |seg, nth| (nth > 1 || !drop.contains(&seg)).then_some(Dur::ZERO))
    }

    /// The path of [`lossy_transfer`], where `fate(segment, nth transmission)` of each data
    /// segment is None to drop it or the delay it takes beyond the 10 ms.
    fn transfer(cfg: SenderConfig, bytes: u64, mut fate: impl FnMut(u32, u32) -> Option<Dur>) -> (TcpSender, Dur, Dur) {
        use crate::tcp::{ReceiverConfig, TcpReceiver};
        let sack = cfg.sack;
        let mut tx = TcpSender::new(SenderConfig { data_bytes: Some(bytes), ..cfg }, ends(), 1 << 30);
        let mut rx = TcpReceiver::new(ReceiverConfig { sack, ..ReceiverConfig::default() }, ends(), tx.cfg.isn);
        let one_way = Dur::from_millis(10);
        let mut wire: Vec<(SimTime, u64, Packet)> = Vec::new();
        let (mut order, mut now, mut out) = (0, SimTime::ZERO, Vec::new());
        let mut sent = std::collections::HashMap::new();
        let (mut in_recovery, mut recovering_since, mut recovering, mut last_rexmit) = (false, now, Dur::ZERO, Dur::ZERO);
        tx.start(now, &mut out);
        while tx.completed_at.is_none() {
            if tx.in_recovery() && !in_recovery {
                recovering_since = now;
            }
            for p in out.drain(..) {
                let nth = if p.payload > 0 { *sent.entry(p.seq.0).and_modify(|n| *n += 1).or_insert(1) } else { 0 };
                if nth > 1 && tx.in_recovery() {
                    last_rexmit = now - recovering_since;
                }
                let Some(extra) = (if nth > 0 { fate(p.seq.0 / MSS, nth) } else { Some(Dur::ZERO) }) else { continue };
                wire.push((now + one_way + extra, order, p));
                order += 1;
            }
            if tx.in_recovery() != in_recovery {
                in_recovery = tx.in_recovery();
                if !in_recovery {
                    recovering = recovering + (now - recovering_since);
                }
            }
            let next = wire.iter().enumerate().min_by_key(|(_, w)| (w.0, w.1)).map(|(i, w)| (w.0, i));
            match (next, tx.deadline()) {
                (Some((at, i)), d) if d.is_none_or(|d| at <= d) => {
                    now = at;
                    let (_, _, p) = wire.swap_remove(i);
                    if p.payload > 0 {
                        rx.on_data(&p, now, &mut out);
                    } else {
                        tx.on_ack(&p, now, &mut out);
                    }
                }
                (_, Some(d)) => {
                    now = d;
                    tx.on_deadline(now, &mut out);
                }
                _ => panic!("stalled"),
            }
            assert!(now < t(60_000), "not done after a minute");
        }
        (tx, recovering, last_rexmit)
    }

    #[test]
    fn sack_repairs_six_losses_in_one_window_in_one_round_trip_of_retransmissions() {
        // Segments 40, 43, ..., 55 of a slow-start flight of 32 are lost (the path has no
        // bottleneck, so each flight leaves at one instant and its ACKs return at one
        // instant). With SACK every hole is retransmitted as the pipe allows: the first two
        // on the ACKs of the flight, the rest on the next ACKs, one round trip (20 ms) later;
        // recovery ends a round trip after that, without a timeout. NewReno repairs one hole
        // per round trip (slow-but-steady, so that no timeout cuts it short): six.
        let drop = [40, 43, 46, 49, 52, 55];
        let bytes = 200 * MSS as u64;
        let (sack, sack_time, sack_last) = lossy_transfer(SenderConfig { sack: true, ..config(Recovery::NewReno) }, bytes, &drop);
        let cfg = SenderConfig { partial_ack_timer: PartialAckTimer::SlowButSteady, ..config(Recovery::NewReno) };
        let (newreno, newreno_time, newreno_last) = lossy_transfer(cfg, bytes, &drop);
        for (name, s) in [("sack", &sack), ("newreno", &newreno)] {
            assert_eq!((s.stats.fast_retransmits, s.stats.timeouts), (1, 0), "{name}");
            assert_eq!(s.stats.retransmitted_packets, 6, "{name}: each lost segment once, nothing else");
        }
        assert_eq!((sack_last, sack_time), (Dur::from_millis(20), Dur::from_millis(40)), "SACK");
        assert_eq!((newreno_last, newreno_time), (Dur::from_millis(100), Dur::from_millis(120)), "NewReno");
        assert!(sack.completed_at < newreno.completed_at);
    }

    #[test]
    fn many_holes_in_slow_start_end_in_a_timeout_unless_every_partial_ack_restarts_the_timer() {
        // Slow start's flight of 64 (segments 63 to 126, sent at 120 ms) loses every other
        // segment from 64 to 122: 30 holes; the fast retransmit leaves at 140 ms. The round
        // trip is 20 ms, the RTO its 200 ms floor. Restarted on every partial ACK, the timer
        // never expires and NewReno repairs one hole per round trip: the last ACK comes 30
        // round trips after the fast retransmit. Restarted on the first partial ACK only (RFC
        // 6582, and ns-2.35's NewReno with its default `newreno_changes1_ 1`), it expires 200
        // ms after that ACK, and going back N in slow start resends the rest sooner.
        let drop: Vec<u32> = (64..=122).step_by(2).collect();
        let bytes = 300 * MSS as u64;
        let run = |rule| lossy_transfer(SenderConfig { partial_ack_timer: rule, ..config(Recovery::NewReno) }, bytes, &drop);
        let (steady, _, _) = run(PartialAckTimer::SlowButSteady);
        assert_eq!((steady.stats.fast_retransmits, steady.stats.timeouts), (1, 0));
        assert_eq!(steady.stats.retransmitted_packets, 30, "each hole once");
        assert_eq!(steady.completed_at, Some(t(140 + 30 * 20)));
        let (impatient, recovering, _) = run(PartialAckTimer::Impatient);
        assert_eq!((impatient.stats.fast_retransmits, impatient.stats.timeouts), (1, 1));
        assert_eq!(recovering, Dur::from_millis(20 + 200), "the first partial ACK, then the RTO");
        assert_eq!(impatient.completed_at, Some(t(560)));
    }

    // ---- RACK-TLP (RFC 8985) ----

    /// A SACK sender of ten segments at once, with or without RACK-TLP.
    fn rack_cfg(rack: bool) -> SenderConfig {
        SenderConfig { sack: true, rack, init_cwnd: 10, ..config(Recovery::NewReno) }
    }

    /// `fate` for [`transfer`]: the first `times` transmissions of the segments in `lost`
    /// are dropped.
    fn drop_first(lost: &[u32], times: u32) -> impl FnMut(u32, u32) -> Option<Dur> + '_ {
        move |seg, nth| (nth > times || !lost.contains(&seg)).then_some(Dur::ZERO)
    }

    /// Ten segments leave at once and segment 8 arrives `late` after the others, after 9
    /// (one duplicate ACK). min_RTT is 20 ms, so the reordering window is 5 ms: 8 is deemed
    /// lost 25 ms after it left. 2 ms late it is left alone; 10 ms late it is resent.
    #[test]
    fn rack_leaves_a_segment_reordered_within_the_window_alone() {
        for (late, resent) in [(2, 0), (10, 1)] {
            let fate = |seg, _| Some(if seg == 8 { Dur::from_millis(late) } else { Dur::ZERO });
            let (s, _, _) = transfer(rack_cfg(true), 10 * MSS as u64, fate);
            assert_eq!((s.stats.retransmitted_packets, s.stats.fast_retransmits, s.stats.timeouts), (resent, resent, 0), "{late} ms late");
            assert_eq!(s.rack().unwrap().reordering_seen(), late == 2, "delivered after 9 without a retransmission: reordering");
        }
    }

    /// Segment 8 of 10 is lost: 9's SACK is the only duplicate ACK. RACK deems 8 lost at
    /// 25 ms (it left at 0 with 9, whose round trip took 20 ms, plus the 5 ms window) and
    /// resends it; the transfer ends at 45 ms. Without RACK one duplicate starts nothing and
    /// the retransmission timer resends it.
    #[test]
    fn rack_finds_a_loss_a_round_trip_and_window_after_it_left_without_three_duplicates() {
        let (rack, _, _) = transfer(rack_cfg(true), 10 * MSS as u64, drop_first(&[8], 1));
        assert_eq!((rack.stats.fast_retransmits, rack.stats.retransmitted_packets, rack.stats.timeouts), (1, 1, 0));
        assert_eq!(rack.completed_at, Some(t(45)));
        assert_eq!(rack.rack().unwrap().stats.reorder_timeouts, 1);
        let (plain, _, _) = transfer(rack_cfg(false), 10 * MSS as u64, drop_first(&[8], 1));
        assert_eq!((plain.stats.fast_retransmits, plain.stats.timeouts), (0, 1));
    }

    /// RFC 8985's tail loss: the last two of ten segments are lost, so no ACK says anything
    /// of them. The ACKs of 0-7 come at 20 ms (SRTT 20 ms); the probe timeout, 2 SRTT later,
    /// resends 9; its SACK at 80 ms shows 8 lost (it left before 9's probe), which goes at
    /// once, and the transfer ends at 100 ms. Without TLP the retransmission timer fires.
    #[test]
    fn tlp_recovers_a_lost_tail_with_a_probe_not_a_timeout() {
        let (rack, _, _) = transfer(rack_cfg(true), 10 * MSS as u64, drop_first(&[8, 9], 1));
        let r = rack.rack().unwrap().stats;
        assert_eq!((r.probes, r.probe_retransmissions), (1, 1));
        assert_eq!((rack.stats.retransmitted_packets, rack.stats.fast_retransmits, rack.stats.timeouts), (2, 1, 0));
        assert_eq!(rack.completed_at, Some(t(100)));
        let (plain, _, _) = transfer(rack_cfg(false), 10 * MSS as u64, drop_first(&[8, 9], 1));
        assert_eq!(plain.stats.timeouts, 1);
    }

    /// The last segment alone is lost: the probe timeout (2 SRTT + 200 ms with one segment
    /// out) is capped at the RTO, 200 ms after the ACKs of 0-8 at 20 ms, and the probe goes
    /// then instead of the timeout: no window collapse, done at 240 ms.
    #[test]
    fn tlp_capped_at_the_rto_goes_instead_of_it() {
        let (rack, _, _) = transfer(rack_cfg(true), 10 * MSS as u64, drop_first(&[9], 1));
        assert_eq!((rack.rack().unwrap().stats.probes, rack.stats.timeouts, rack.stats.retransmitted_packets), (1, 0, 1));
        assert_eq!(rack.completed_at, Some(t(240)));
    }

    /// A lost retransmission: segment 40's first two transmissions are dropped. RACK deems
    /// the retransmission lost once new data sent after it is SACKed, and resends it again;
    /// RFC 6675 alone waits for the retransmission timer.
    #[test]
    fn rack_resends_a_lost_retransmission_without_a_timeout() {
        let (rack, _, _) = transfer(rack_cfg(true), 200 * MSS as u64, drop_first(&[40], 2));
        assert_eq!((rack.stats.retransmitted_packets, rack.stats.fast_retransmits, rack.stats.timeouts), (2, 1, 0));
        let (plain, _, _) = transfer(rack_cfg(false), 200 * MSS as u64, drop_first(&[40], 2));
        assert_eq!(plain.stats.timeouts, 1);
    }

    /// After a timeout: the first window and the probe are lost (no RTT sample yet, so the
    /// probe goes at 1 s, the timeout at 2 s); going back N, the resend of segment 1 is lost
    /// too. Once 2, resent after it, is SACKed, RACK deems 1 lost again and it goes at once,
    /// not at a second timeout (2 s after the ACK of 0, backed off).
    #[test]
    fn rack_resends_a_lost_resend_after_a_timeout_without_another() {
        let fate = |seg, nth| if (seg <= 10 && nth == 1) || (seg == 1 && nth == 2) { None } else { Some(Dur::ZERO) };
        let (s, _, _) = transfer(rack_cfg(true), 20 * MSS as u64, fate);
        assert_eq!((s.rack().unwrap().stats.probes, s.stats.timeouts), (1, 1));
        assert!(s.completed_at.is_some_and(|d| d < t(2500)), "{:?}", s.completed_at);
    }

    /// Segment 0 of ten and its retransmission are lost; nothing advances the cumulative ACK
    /// (no RTT sample: the RTO is the initial 1 s, armed at 0). RACK resends 0 on the third
    /// SACK at 20 ms and again once data sent after that resend is SACKed at 40 ms. RFC 6298
    /// keeps the timer; a fast retransmit that restarts it does so at 20 ms; Linux's rule
    /// restarts it at every resend of the first segment, the last at 40 ms.
    #[test]
    fn every_resend_of_the_first_segment_restarts_the_timer_under_linux_rule() {
        let rules = [(false, false, t(1000)), (true, false, t(1020)), (false, true, t(1040))];
        for (fast, head, deadline) in rules {
            let cfg = SenderConfig { fast_retransmit_resets_timer: fast, head_retransmit_resets_timer: head, ..rack_cfg(true) };
            let mut s = TcpSender::new(cfg, ends(), 1 << 30);
            let mut out = Vec::new();
            s.start(t(0), &mut out);
            out.clear();
            for k in 1..10 {
                s.on_ack(&sack_ack(&s, 0, &[(MSS, (k + 1) * MSS)]), t(20), &mut out);
            }
            let sent: Vec<u32> = out.iter().map(|p| p.seq.0 / MSS).collect();
            assert_eq!(sent[0], 0, "RACK resends 0 at 20 ms");
            let high = s.snd_max().0;
            out.clear();
            for k in 11..=high / MSS {
                s.on_ack(&sack_ack(&s, 0, &[(MSS, k * MSS)]), t(40), &mut out);
            }
            assert_eq!(out.first().map(|p| p.seq.0), Some(0), "and again at 40 ms");
            assert_eq!(s.rto_deadline(), Some(deadline), "fast {fast}, head {head}");
        }
    }

    /// With `rack` off the sender keeps no records (no `Extras` for a plain SACK sender).
    #[test]
    fn without_rack_a_sack_sender_keeps_no_records() {
        let s = TcpSender::new(rack_cfg(false), ends(), 1 << 30);
        assert!(s.extras.is_none() && s.rack().is_none());
        assert!(TcpSender::new(rack_cfg(true), ends(), 1 << 30).rack().is_some());
    }

    /// A sender whose controller records rate samples (and paces at `pacing`, bytes/s).
    fn probe_sender(pacing: Option<f64>, init_cwnd: u32) -> TcpSender {
        let cfg = SenderConfig { cc: CcConfig::Probe(crate::tcp::cc::probe::ProbeConfig { pacing }), init_cwnd, ..config(Recovery::NewReno) };
        TcpSender::new(cfg, ends(), 1 << 20)
    }

    fn samples(s: &TcpSender) -> &[crate::tcp::rate::RateSample] {
        match s.controller() {
            crate::tcp::cc::AnyController::Probe(p) => &p.samples,
            _ => unreachable!(),
        }
    }

    #[test]
    fn acks_give_the_controller_delivery_rate_samples() {
        // A window of 4 segments; each ACK one RTT (10 ms) after its segment, ACK clocked.
        let mut s = probe_sender(None, 4);
        let mut out = Vec::new();
        s.start(t(0), &mut out);
        assert_eq!(out.len(), 4);
        let mut sent: Vec<(u32, u64)> = out.drain(..).map(|p| (p.seq.0 + p.payload, 0)).collect();
        let mut now = 0;
        for _ in 0..40 {
            let (end, at) = sent.remove(0);
            now = at + 10;
            s.on_ack(&ack(&s, end), t(now), &mut out);
            sent.extend(out.drain(..).map(|p| (p.seq.0 + p.payload, now)));
        }
        let last = *samples(&s).last().unwrap();
        assert_eq!(samples(&s).len(), 40, "one sample per ACK that delivered data");
        assert_eq!(last.rtt, Some(Dur::from_millis(10)));
        // Slow start doubles the window each RTT: the last sample's rate is what the last
        // RTT delivered over 10 ms.
        let rate = last.rate_bps().unwrap();
        assert_eq!(rate, last.delivered as f64 / 0.010);
        assert!(last.delivered >= 4 * MSS as u64 && now > 10, "{last:?}");
    }

    #[test]
    fn a_paced_sender_spaces_new_segments_at_the_pacing_rate() {
        // 1,040,000 bytes/s: one 1040-byte segment (1000 + 40 of headers) per ms.
        let mut s = probe_sender(Some(1_040_000.0), 10);
        let mut out = Vec::new();
        s.start(t(0), &mut out);
        assert_eq!(out.len(), 1, "the window allows 10, pacing one");
        assert_eq!(s.pacing_deadline(), Some(t(1)));
        s.on_pacing_timer(t(1), &mut out);
        assert_eq!((out.len(), s.pacing_deadline()), (2, Some(t(2))));
        // A timer that fires late sends one segment and paces the next from then.
        s.on_pacing_timer(t(5), &mut out);
        assert_eq!((out.len(), s.pacing_deadline()), (3, Some(t(6))));
        // An unpaced sender sends the whole window at once and sets no timer.
        let mut u = probe_sender(None, 10);
        let mut burst = Vec::new();
        u.start(t(0), &mut burst);
        assert_eq!((burst.len(), u.pacing_deadline()), (10, None));
    }

    #[test]
    fn a_full_send_buffer_holds_new_data_until_snd_una_advances() {
        // A window of 10 segments and a buffer of 3: three leave. An ACK of the first frees
        // one segment of buffer, and one more leaves; a hole at the second holds it.
        let cfg = SenderConfig { init_cwnd: 10, send_buffer: std::num::NonZeroU32::new(3 * MSS), ..config(Recovery::NewReno) };
        let mut s = TcpSender::new(cfg, ends(), 1 << 30);
        let mut out = Vec::new();
        s.start(t(0), &mut out);
        assert_eq!(out.len(), 3);
        out.clear();
        s.on_ack(&ack(&s, MSS), t(10), &mut out);
        assert_eq!(out.iter().map(|p| p.seq.0).collect::<Vec<_>>(), [3 * MSS]);
        out.clear();
        s.on_ack(&ack(&s, MSS), t(11), &mut out);
        assert!(out.is_empty(), "a duplicate ACK: the buffer still holds three segments");
    }

    #[test]
    fn a_timestamped_sender_paces_its_payload_as_linux_does() {
        // Timestamps make each segment 1052 bytes on the wire; the pacing gap still counts
        // 1000 + 40 (Linux paces `skb->len` at a rate computed from payload): one per ms.
        let cfg = SenderConfig { timestamps: true, ..probe_sender(Some(1_040_000.0), 10).cfg };
        let mut s = TcpSender::new(cfg, ends(), 1 << 20);
        let mut out = Vec::new();
        s.start(t(0), &mut out);
        assert_eq!((out.len(), out[0].size), (1, 1052));
        assert_eq!(s.pacing_deadline(), Some(t(1)), "not 1.0115 ms");
    }

    #[test]
    fn with_sack_rate_samples_count_the_pipe_beside_the_flight_size() {
        // 20 segments out; the first is lost and the others are SACKed one by one. Each
        // sample's pipe is RFC 6675's before its ACK: what is SACKed, and the hole once
        // deemed lost, leave it, while the FlightSize stays 20 segments.
        let cfg = SenderConfig { sack: true, ..probe_sender(None, 20).cfg };
        let mut s = TcpSender::new(cfg, ends(), 1 << 20);
        let mut out = Vec::new();
        s.start(t(0), &mut out);
        assert_eq!(out.len(), 20);
        let mut seen = Vec::new();
        for i in 2..=20 {
            let (pipe, flight) = (s.pipe(), s.flight_size() as u64);
            s.on_ack(&sack_ack(&s, 0, &[segs(0, 1, i)]), t(100 + i as u64), &mut out);
            let last = *samples(&s).last().unwrap();
            assert_eq!((last.prior_pipe, last.prior_in_flight), (pipe, flight), "ACK {i}");
            seen.push((pipe, flight));
        }
        // (Recovery's window of 10 segments then keeps the pipe at 10 with new data.)
        assert!(seen.iter().all(|&(_, f)| f >= 20 * MSS as u64));
        assert_eq!(seen.last().unwrap().0, 10 * MSS as u64, "{seen:?}");
        // The retransmission of the hole left with the pipe then, itself included.
        s.on_ack(&ack(&s, 20 * MSS), t(150), &mut out);
        let last = *samples(&s).last().unwrap();
        assert!(last.tx_pipe < 20 * MSS as u64 && last.tx_in_flight >= 20 * MSS as u64, "{last:?}");
        // Without SACK both are the FlightSize.
        let mut n = probe_sender(None, 4);
        n.start(t(0), &mut out);
        n.on_ack(&ack(&n, MSS), t(10), &mut out);
        let last = *samples(&n).last().unwrap();
        assert_eq!((last.prior_pipe, last.prior_in_flight), (4 * MSS as u64, 4 * MSS as u64));
    }

    /// A SACK sender paced at a segment per ms under a window of `cwnd` segments, with 20
    /// segments out (the last at 19 ms).
    fn paced_sack_sender(cwnd: u32, adjust: impl FnOnce(SenderConfig) -> SenderConfig) -> TcpSender {
        let cfg = adjust(SenderConfig { sack: true, ..probe_sender(Some(1_040_000.0), cwnd).cfg });
        let mut s = TcpSender::new(cfg, ends(), 1 << 20);
        let mut out = Vec::new();
        s.start(t(0), &mut out);
        for ms in 1..20 {
            s.on_pacing_timer(t(ms), &mut out);
        }
        assert_eq!(out.len(), 20);
        s
    }

    #[test]
    fn a_paced_sender_paces_sack_recoverys_retransmissions() {
        // 20 segments out, one per ms; the first four are lost, the other 16 SACKed.
        let mut s = paced_sack_sender(20, |c| c);
        let mut out = Vec::new();
        for i in 5..=20 {
            s.on_ack(&sack_ack(&s, 0, &[segs(0, 4, i)]), t(100), &mut out);
        }
        assert!(s.in_recovery());
        // The first retransmission leaves at once (RFC 6675 (4.3)); NextSeg()'s next one,
        // paced, then one per pacing interval while the window allows more.
        let isn = s.cfg.isn;
        let rtx = |out: &[Packet]| out.iter().map(|p| p.seq.0.wrapping_sub(isn) / MSS).collect::<Vec<_>>();
        assert_eq!(rtx(&out), [0, 1]);
        assert_eq!(s.pacing_deadline(), Some(t(101)));
        s.on_pacing_timer(t(101), &mut out);
        assert_eq!(rtx(&out), [0, 1, 2]);
        assert_eq!(s.pacing_deadline(), Some(t(102)));
    }

    #[test]
    fn a_paced_sender_paces_limited_transmit() {
        // 20 segments out, one per ms, under a window of 40; segment 0 is lost and the ACK
        // of 1 SACKs it. With RACK the duplicate starts no recovery yet (0 is not yet deemed
        // lost), and Limited Transmit by pipe may send up to the window: paced, one segment
        // now and the next a pacing interval later, not 20 at once.
        let mut s = paced_sack_sender(40, |c| SenderConfig { rack: true, limited_transmit: true, ..c });
        let mut out = Vec::new();
        s.on_ack(&sack_ack(&s, 0, &[segs(0, 1, 2)]), t(25), &mut out);
        assert!(!s.in_recovery());
        assert_eq!(out.len(), 1, "one new segment, paced");
        assert_eq!(s.pacing_deadline(), Some(t(26)));
    }

    /// Segment 40 is lost, and so are 85, sent before the recovery for 40 began, and 90,
    /// sent during it. RACK deems 90 lost and resends it while the recovery for 40 and 85
    /// goes on; that recovery ends (the cumulative ACK passes its RecoveryPoint) while 90's
    /// resend is in flight. Under RFC 8985 that is the end of it: one recovery, one reduction.
    /// Linux's rule (`recover_again`) finds a segment still lost at once and starts another
    /// recovery, with a second reduction and no further resend. A loss below the
    /// RecoveryPoint alone (85) starts no second recovery either way.
    #[test]
    fn a_recovery_that_ends_with_a_resend_in_flight_starts_another_under_linux_rule() {
        let run = |again: bool, drops: &[u32]| {
            let cfg = SenderConfig { recover_again: again, ..rack_cfg(true) };
            transfer(cfg, 300 * MSS as u64, drop_first(drops, 1)).0
        };
        let (rfc, linux) = (run(false, &[40, 85, 90]), run(true, &[40, 85, 90]));
        assert_eq!((rfc.stats.fast_retransmits, rfc.stats.window_reductions), (1, 1));
        assert_eq!((linux.stats.fast_retransmits, linux.stats.window_reductions), (2, 2));
        assert_eq!(linux.stats.retransmitted_packets, rfc.stats.retransmitted_packets, "no resend of its own");
        assert!(linux.completed_at > rfc.completed_at, "the smaller window takes longer");
        assert_eq!((linux.stats.timeouts, rfc.stats.timeouts), (0, 0));
        for again in [false, true] {
            assert_eq!(run(again, &[40, 85]).stats.fast_retransmits, 1, "recover_again {again}");
        }
    }
}
