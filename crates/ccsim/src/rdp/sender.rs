//! The sending end of an RDP connection: the active Open and its SYN, data segments under the
//! receiver's flow control and the congestion window, cumulative ACKs and EACKs, fast
//! retransmit and recovery, the retransmission timer, ACC controls, and Close. The rules and
//! where they come from are in the module documentation of [`super`].
//!
//! Segments are tracked by 64-bit offsets: data segment `k` (from 0) has sequence number
//! `ISS + 1 + k`, 32-bit and wrapping, on the wire only. The congestion controller counts in
//! bytes, a packet being `segment_size` of them, so that `tcp/cc` serves both transports; the
//! windows this sender reports and carries are in packets.

use super::{flags, wire, Fields, State, SynParams, VarArea};
use crate::packet::Seq;
use crate::packet::{AccState, Endpoints, Kind, Packet};
use crate::sim::{Dur, SimTime};
use crate::stats::counters;
use crate::tcp::cc::{Ack, AnyController, CcConfig, Controller, Event, PacketRenoConfig};
use crate::tcp::rto::RtoEstimator;
use crate::tcp::sender::{ReductionCause, SenderStats};

/// The sender's settings. Defaults are the TCP sender's where the two share a rule (RFC 6298
/// timers as ns-2 and Linux bound them, RFC 5681's thresholds), and the paper's window.
#[derive(Clone, Debug)]
pub struct SenderConfig {
    /// Data bytes of each segment: one application message (RFC 908 3.3).
    pub segment_size: u32,
    /// The most unacknowledged segments this end accepts, said in its SYN (`RCV.MAX`; it
    /// receives no data, so nothing depends on it).
    pub max_outstanding: u16,
    /// The congestion-control algorithm: `PacketReno`, the paper's window in whole packets.
    pub cc: CcConfig,
    /// Initial congestion window, packets (RFC 5681 3.1's IW, ns-2's one segment).
    pub init_cwnd: u32,
    /// Initial slow-start threshold, packets ("arbitrarily high").
    pub init_ssthresh: u32,
    pub min_rto: Dur,
    pub max_rto: Dur,
    pub initial_rto: Dur,
    /// Clock granularity G of RFC 6298.
    pub clock_granularity: Dur,
    pub dupack_threshold: u32,
    /// Initial sequence number (`SND.ISS`), the SYN's.
    pub isn: u32,
    /// Carry the congestion state in every data segment and obey ACC controls.
    pub acc: bool,
    /// With `acc`: obey the controls (false: a misbehaving sender, which carries its state
    /// and counts the controls it receives but never shrinks its window for one).
    pub obey_acc: bool,
    /// Bytes to send, or None for a bulk sender that always has data. A finite transfer
    /// closes the connection once every segment is acknowledged.
    pub data_bytes: Option<u64>,
    /// How long CLOSE-WAIT lasts after a Close or a received RST.
    pub close_wait: Dur,
    /// Initial TTL of the packets sent.
    pub ttl: u8,
}

impl Default for SenderConfig {
    fn default() -> Self {
        SenderConfig {
            segment_size: 1000,
            max_outstanding: 1024,
            cc: CcConfig::PacketReno(PacketRenoConfig::default()),
            init_cwnd: 1,
            init_ssthresh: 65_535,
            min_rto: Dur::from_millis(200),
            max_rto: Dur::from_secs(60),
            initial_rto: Dur::from_secs(1),
            clock_granularity: Dur::from_millis(1),
            dupack_threshold: 3,
            isn: 0,
            acc: true,
            obey_acc: true,
            data_bytes: None,
            close_wait: Dur::from_secs(1),
            ttl: 64,
        }
    }
}

counters! {
    /// RDP's own counters of one sender (the rest are in its `SenderStats`).
    pub struct RdpSenderStats {
        /// SYNs sent, retransmissions included.
        pub syns_sent: u64,
        /// Segments without data sent: ACKs (of the SYN-ACK, or of an unacceptable segment)
        /// and RSTs.
        pub control_sent: u64,
        /// Segments the receiver had EACKed, and which go-back-N therefore did not resend.
        pub eack_skips: u64,
        /// Segments newly EACKed.
        pub eacked: u64,
        /// RSTs received from the receiver.
        pub resets_received: u64,
    }
}

#[derive(Clone, Debug)]
pub struct RdpSender {
    pub cfg: SenderConfig,
    pub ends: Endpoints,
    state: State,
    iss: Seq,
    /// The receiver's initial sequence number and the last of its segments received in
    /// sequence (`RCV.CUR`; it sends none with data, so they stay equal).
    rcv_cur: Seq,
    /// The receiver's maximum outstanding segments (`SND.MAX`), from its SYN-ACK.
    snd_max: u32,
    /// Data bytes per segment: `segment_size`, or less if the receiver accepts less.
    seg_bytes: u32,
    /// Offsets of the oldest unacknowledged segment (`SND.UNA`), the next to send
    /// (`SND.NXT`), and one past the highest ever sent.
    una: u64,
    nxt: u64,
    max: u64,
    /// `max` when the last fast retransmit or timeout happened (RFC 6582's `recover`).
    recover: u64,
    /// `max` when the last ACC control was obeyed.
    acc_recover: u64,
    /// Segments in `[una, max)` that the receiver EACKed: a ring of bits indexed by offset,
    /// `2 * SND.MAX` or more long (the acceptance window).
    eacked: Vec<u64>,
    eacked_count: u64,
    cc: AnyController,
    dupacks: u32,
    in_recovery: bool,
    partial_acks: u32,
    rto: RtoEstimator,
    /// The segment being timed for an RTT sample: (offset, time sent).
    timed: Option<(u64, SimTime)>,
    /// When the SYN went, while it has not been retransmitted (Karn's rule).
    syn_sent_at: Option<SimTime>,
    /// The one timer: the SYN's retransmission in SYN-SENT, the retransmission timeout when
    /// OPEN, CLOSE-WAIT's end.
    deadline: Option<SimTime>,
    /// When the last segment of a finite transfer was acknowledged.
    pub completed_at: Option<SimTime>,
    pub stats: SenderStats,
    pub rdp_stats: RdpSenderStats,
    /// The most recent window reduction: (when, why, bytes taken off).
    pub last_reduction: Option<(SimTime, ReductionCause, u32)>,
}

impl RdpSender {
    pub fn new(cfg: SenderConfig, ends: Endpoints) -> RdpSender {
        let rto = RtoEstimator::new(cfg.min_rto, cfg.max_rto, cfg.initial_rto, cfg.clock_granularity);
        let unit = cfg.segment_size.max(1);
        let ssthresh = (cfg.init_ssthresh as u64 * unit as u64).min(u32::MAX as u64 / 2) as u32;
        let cc = cfg.cc.build(unit, cfg.init_cwnd.max(1), ssthresh);
        RdpSender {
            state: State::Closed,
            iss: Seq(cfg.isn),
            rcv_cur: Seq(0),
            snd_max: 0,
            seg_bytes: unit,
            una: 0,
            nxt: 0,
            max: 0,
            recover: 0,
            acc_recover: 0,
            eacked: Vec::new(),
            eacked_count: 0,
            cc,
            dupacks: 0,
            in_recovery: false,
            partial_acks: 0,
            rto,
            timed: None,
            syn_sent_at: None,
            deadline: None,
            completed_at: None,
            stats: SenderStats::default(),
            rdp_stats: RdpSenderStats::default(),
            last_reduction: None,
            cfg,
            ends,
        }
    }

    // ---- observers ----

    pub fn state(&self) -> State {
        self.state
    }
    /// The congestion window, bytes of the controller's unit (packets times `segment_size`).
    pub fn cwnd(&self) -> u32 {
        self.cc.cwnd()
    }
    /// The congestion window, packets.
    pub fn cwnd_packets(&self) -> u32 {
        (self.cc.cwnd() / self.unit()).max(1)
    }
    /// The slow-start threshold, packets.
    pub fn ssthresh_packets(&self) -> u32 {
        self.cc.ssthresh() / self.unit()
    }
    /// The congestion controller, for observers that know the algorithm.
    pub fn controller(&self) -> &AnyController {
        &self.cc
    }
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    /// `SND.UNA`: the oldest unacknowledged segment.
    pub fn snd_una(&self) -> Seq {
        self.seq_at(self.una)
    }
    /// `SND.NXT`: the next segment to send (behind the highest sent after a timeout).
    pub fn snd_nxt(&self) -> Seq {
        self.seq_at(self.nxt)
    }
    /// One past the highest segment sent.
    pub fn highest_sent(&self) -> Seq {
        self.seq_at(self.max)
    }
    /// Segments sent and not cumulatively acknowledged (RFC 5681's FlightSize, in segments).
    pub fn flight(&self) -> u64 {
        self.max - self.una
    }
    /// Segments sent and neither acknowledged nor EACKed: what RDP's flow control counts.
    pub fn outstanding(&self) -> u64 {
        self.flight() - self.eacked_count
    }
    /// `SND.MAX`, the receiver's maximum outstanding segments (0 before it is known).
    pub fn max_outstanding(&self) -> u32 {
        self.snd_max
    }
    /// Whether the receiver has EACKed segment `seq` (which is not yet acknowledged).
    pub fn is_eacked(&self, seq: Seq) -> bool {
        let off = self.offset_of(seq);
        off >= self.una as i64 && off < self.max as i64 && self.eacked_at(off as u64)
    }
    pub fn srtt(&self) -> Option<Dur> {
        self.rto.srtt()
    }
    pub fn rto(&self) -> Dur {
        self.rto.rto()
    }
    /// When [`on_timer`](RdpSender::on_timer) is next due.
    pub fn deadline(&self) -> Option<SimTime> {
        self.deadline
    }

    fn unit(&self) -> u32 {
        self.cfg.segment_size.max(1)
    }

    fn seq_at(&self, off: u64) -> Seq {
        self.iss + 1 + off as u32
    }

    /// The offset of a data segment's sequence number, relative to `una` (negative below
    /// it).
    fn offset_of(&self, s: Seq) -> i64 {
        self.una as i64 + s.diff(self.seq_at(self.una)) as i64
    }

    /// Data segments to send: unbounded for a bulk sender.
    fn total(&self) -> u64 {
        self.cfg.data_bytes.map_or(u64::MAX, |b| b.div_ceil(self.seg_bytes as u64))
    }

    fn len_of(&self, off: u64) -> u32 {
        match self.cfg.data_bytes {
            Some(b) => (b - off * self.seg_bytes as u64).min(self.seg_bytes as u64) as u32,
            None => self.seg_bytes,
        }
    }

    fn event(&self, now: SimTime) -> Event {
        let flight = (self.flight() * self.unit() as u64).min(u32::MAX as u64) as u32;
        // What limits sending besides cwnd: the outstanding segments the receiver allows
        // (none said yet before the SYN exchange).
        let rwnd = match self.snd_max {
            0 => u32::MAX,
            n => (n as u64 * self.unit() as u64).min(u32::MAX as u64) as u32,
        };
        Event { now, flight, dupacks: self.dupacks, backoffs: self.rto.backoffs(), rwnd, ecn_answered: false }
    }

    // ---- the EACK scoreboard ----

    fn slot(&self, off: u64) -> (usize, u32) {
        let i = (off as usize) & (self.eacked.len() * 64 - 1);
        (i / 64, (i % 64) as u32)
    }

    fn eacked_at(&self, off: u64) -> bool {
        if self.eacked.is_empty() {
            return false;
        }
        let (w, b) = self.slot(off);
        self.eacked[w] >> b & 1 == 1
    }

    /// Marks `off` EACKed; true if it was not.
    fn mark_eacked(&mut self, off: u64) -> bool {
        let (w, b) = self.slot(off);
        let new = self.eacked[w] >> b & 1 == 0;
        self.eacked[w] |= 1 << b;
        new
    }

    /// The cumulative ACK moved `una` to `to`: the EACKs below it are spent.
    fn forget_eacks(&mut self, to: u64) {
        if self.eacked_count == 0 {
            return;
        }
        for off in self.una..to {
            let (w, b) = self.slot(off);
            if self.eacked[w] >> b & 1 == 1 {
                self.eacked[w] &= !(1 << b);
                self.eacked_count -= 1;
            }
        }
    }

    // ---- inputs ----

    /// The Open request (active): sends the SYN.
    pub fn start(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.state == State::Closed && self.rdp_stats.syns_sent == 0 {
            self.state = State::SynSent;
            self.syn_sent_at = Some(now);
            self.send_syn(now, out);
        }
    }

    /// A segment from the receiver.
    pub fn on_segment(&mut self, pkt: &Packet, now: SimTime, out: &mut Vec<Packet>) {
        self.stats.acks_received += 1;
        let has = |f: u8| pkt.flags & f != 0;
        match self.state {
            State::SynSent => {
                if has(flags::ACK) && pkt.ack != self.iss {
                    if !has(flags::RST) {
                        self.reset(pkt.ack + 1, now, out);
                    }
                } else if has(flags::RST) {
                    if has(flags::ACK) {
                        self.state = State::Closed; // connection refused
                        self.deadline = None;
                        self.rdp_stats.resets_received += 1;
                    }
                } else if has(flags::SYN) && has(flags::ACK) {
                    self.open(pkt, now, out);
                }
            }
            State::Open => self.on_open_segment(pkt, now, out),
            State::CloseWait => {
                if has(flags::RST) {
                    self.state = State::Closed;
                    self.deadline = None;
                    self.rdp_stats.resets_received += 1;
                }
            }
            State::Closed | State::Listen | State::SynRcvd => {
                if !has(flags::RST) && self.rdp_stats.syns_sent > 0 {
                    // RFC 908 3.7.2, CLOSED: nothing is open here.
                    if has(flags::ACK) || has(flags::NUL) {
                        self.reset(pkt.ack + 1, now, out);
                    } else {
                        self.reset(Seq(0), now, out);
                    }
                }
            }
        }
    }

    /// The SYN-ACK (SYN-SENT, `SEG.ACK = SND.ISS`): the connection is OPEN.
    fn open(&mut self, pkt: &Packet, now: SimTime, out: &mut Vec<Packet>) {
        let p = pkt.rdp_var.syn_params();
        self.rcv_cur = pkt.seq;
        self.snd_max = (p.max_outstanding as u32).max(1);
        let header = wire::FIXED_HEADER + if self.cfg.acc { wire::ACC_AREA } else { 0 };
        self.seg_bytes = self.unit().min((p.max_segment as u32).saturating_sub(header as u32)).max(1);
        let bits = (2 * self.snd_max as usize).next_power_of_two().max(64);
        self.eacked = vec![0; bits / 64];
        self.state = State::Open;
        self.deadline = None;
        if let Some(sent) = self.syn_sent_at.take() {
            self.sample_rtt(now - sent);
        }
        self.send_available(now, out);
        if self.max == 0 {
            self.send_ack(now, out); // no data may go: the SYN-ACK is acknowledged alone
        }
    }

    fn on_open_segment(&mut self, pkt: &Packet, now: SimTime, out: &mut Vec<Packet>) {
        let has = |f: u8| pkt.flags & f != 0;
        let d = pkt.seq.diff(self.rcv_cur) as i64;
        if !(1..=2 * self.cfg.max_outstanding as i64).contains(&d) {
            // Unacceptable (RFC 908 3.7.2): a duplicate SYN-ACK, or a stray segment.
            if !has(flags::RST) {
                self.send_ack(now, out);
            }
            return;
        }
        if has(flags::RST) {
            self.rdp_stats.resets_received += 1;
            self.enter_close_wait(now);
            return;
        }
        if has(flags::SYN) {
            self.reset(pkt.ack + 1, now, out);
            self.state = State::Closed;
            self.deadline = None;
            return;
        }
        if has(flags::NUL) {
            if d == 1 {
                self.rcv_cur = pkt.seq;
            }
            self.send_ack(now, out);
            return;
        }
        if has(flags::ACK) {
            self.on_ack(pkt, now, out);
        }
        self.send_available(now, out);
    }

    fn on_ack(&mut self, pkt: &Packet, now: SimTime, out: &mut Vec<Packet>) {
        // SEG.ACK names the last segment received in sequence: SND.UNA becomes SEG.ACK + 1
        // (RFC 1151).
        let to = self.offset_of(pkt.ack) + 1;
        if to < self.una as i64 || to > self.max as i64 {
            return; // stale, or acknowledges what was never sent
        }
        let to = to as u64;
        let advanced = to > self.una;
        if advanced {
            self.on_new_ack(to, now, out);
        }
        if pkt.flags & flags::EAK != 0 {
            for s in super::eacked(pkt.ack, pkt.rdp_var.eack_bits()) {
                let off = self.offset_of(s);
                if off > self.una as i64 && off < self.max as i64 && self.mark_eacked(off as u64) {
                    self.eacked_count += 1;
                    self.rdp_stats.eacked += 1;
                }
            }
        }
        if !advanced && self.max > self.una && pkt.payload == 0 && self.state == State::Open {
            self.on_dupack(now, out);
        }
    }

    fn on_new_ack(&mut self, to: u64, now: SimTime, out: &mut Vec<Packet>) {
        let acked = to - self.una;
        let unit = self.unit() as u64;
        let cwnd_limited = self.flight() + 1 > self.cwnd_packets() as u64;
        let mut rtt = None;
        if let Some((off, sent)) = self.timed {
            if to > off {
                self.timed = None;
                rtt = Some(now - sent);
                self.sample_rtt(now - sent);
            }
        }
        self.forget_eacks(to);
        self.una = to;
        self.nxt = self.nxt.max(to);
        let info = Ack { now, acked: acked * unit, una: to * unit, max: self.max * unit, ece: false, ce: None, cwnd_limited, rtt, srtt: self.rto.srtt() };
        let mut restart_timer = true;
        if self.in_recovery {
            if self.una >= self.recover {
                self.cc.on_recovery_end(&info);
                self.in_recovery = false;
                self.dupacks = 0;
            } else {
                // A partial ACK (RFC 6582 3.2 step 3): the next hole goes at once, and the
                // timer restarts on the first partial ACK only (section 4).
                self.retransmit_una(now, out);
                self.cc.on_partial_ack(&info);
                self.partial_acks += 1;
                restart_timer = self.partial_acks == 1;
            }
        } else {
            self.dupacks = 0;
            self.cc.on_ack(&info);
        }
        if self.una >= self.max {
            self.deadline = None; // RFC 6298 (5.2)
        } else if restart_timer {
            self.deadline = Some(now + self.rto.rto()); // (5.3)
        }
        if self.una >= self.total() && self.completed_at.is_none() {
            self.completed_at = Some(now);
            self.close(now, out);
        }
    }

    fn on_dupack(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.stats.dupacks_received += 1;
        self.dupacks += 1;
        if self.in_recovery {
            self.cc.on_recovery_dupack(&self.event(now));
            return;
        }
        // Not before the threshold, not for data sent before an obeyed ACC control (that
        // congestion is answered and go-back-N resends it), and once per window of data
        // (RFC 6582 section 3.2 step 2: only when the cumulative ACK covers `recover`).
        if self.dupacks != self.cfg.dupack_threshold || self.una < self.acc_recover || self.una < self.recover {
            return;
        }
        let before = self.cc.cwnd();
        self.cc.on_fast_retransmit(&self.event(now));
        self.recover = self.max;
        self.in_recovery = true;
        self.partial_acks = 0;
        self.stats.fast_retransmits += 1;
        self.retransmit_una(now, out);
        self.cc.on_recovery_start(&self.event(now));
        self.note_reduction(now, ReductionCause::FastRetransmit, before.saturating_sub(self.cc.ssthresh()));
    }

    /// An ACC control message (`Kind::AccControl`) from a congested router that dropped the
    /// segment `pkt.seq`, asking for the window `pkt.acc` (packets). Obeyed as the TCP sender
    /// obeys one (`TcpSender::on_acc_control`): at most once per window of data, never in
    /// fast recovery, never to open the window; the dropped segment and those after it are
    /// presumed lost and resent as the new window allows, except those the receiver EACKed.
    /// Senders without `cfg.acc` ignore controls.
    pub fn on_acc_control(&mut self, pkt: &Packet, now: SimTime) {
        let Some(ctl) = pkt.acc.filter(|_| self.cfg.acc && self.state == State::Open) else { return };
        self.stats.acc_controls += 1;
        if !self.cfg.obey_acc {
            return;
        }
        let dropped = self.offset_of(pkt.seq);
        let covered = self.recover.max(self.acc_recover).max(self.una);
        if dropped < covered as i64 || dropped >= self.max as i64 || self.in_recovery || ctl.cwnd >= self.cwnd_packets() {
            return;
        }
        let before = self.cc.cwnd();
        let unit = self.unit();
        self.cc.on_acc_control(&self.event(now), ctl.cwnd.saturating_mul(unit), ctl.ssthresh.saturating_mul(unit));
        self.acc_recover = self.max;
        self.nxt = dropped as u64;
        let cut = before.saturating_sub(self.cc.cwnd());
        self.stats.acc_reductions += 1;
        self.stats.acc_reduction_bytes += cut as u64;
        self.note_reduction(now, ReductionCause::AccControl, cut);
    }

    /// The timer fired: call once [`deadline`](RdpSender::deadline) is reached (an early
    /// call does nothing).
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        match self.deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        match self.state {
            State::SynSent => {
                self.syn_sent_at = None; // Karn: the SYN-ACK may answer either SYN
                self.rto.back_off();
                self.send_syn(now, out);
            }
            State::Open => self.on_timeout(now, out),
            _ => {
                self.state = State::Closed;
                self.deadline = None;
            }
        }
    }

    fn on_timeout(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.una >= self.max {
            self.deadline = None;
            return;
        }
        self.stats.timeouts += 1;
        let before = self.cc.cwnd();
        self.cc.on_timeout(&self.event(now));
        self.note_reduction(now, ReductionCause::Timeout, before.saturating_sub(self.cc.cwnd()));
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = self.max; // RFC 6582 section 4
        self.timed = None; // Karn
        self.rto.back_off(); // RFC 6298 (5.5)
        self.nxt = self.una; // everything unacknowledged and not EACKed goes again
        self.deadline = Some(now + self.rto.rto()); // (5.6)
        self.send_available(now, out);
    }

    /// The Close request: `<SEQ=SND.NXT><RST>`, then CLOSE-WAIT (or CLOSED from SYN-SENT).
    pub fn close(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        match self.state {
            State::Open => {
                self.reset(self.seq_at(self.max), now, out);
                self.enter_close_wait(now);
            }
            State::SynSent => {
                self.reset(self.seq_at(self.max), now, out);
                self.state = State::Closed;
                self.deadline = None;
            }
            _ => {}
        }
    }

    fn enter_close_wait(&mut self, now: SimTime) {
        self.state = State::CloseWait;
        self.deadline = Some(now + self.cfg.close_wait);
    }

    fn sample_rtt(&mut self, sample: Dur) {
        self.rto.sample(sample);
        self.stats.rtt_samples += 1;
        self.stats.rtt_sum_ns += sample.as_nanos() as u128;
    }

    fn note_reduction(&mut self, now: SimTime, cause: ReductionCause, bytes: u32) {
        self.stats.window_reductions += 1;
        self.stats.window_reduction_bytes += bytes as u64;
        self.last_reduction = Some((now, cause, bytes));
    }

    // ---- output ----

    fn send_syn(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.rdp_stats.syns_sent += 1;
        self.deadline = Some(now + self.rto.rto());
        let params = SynParams { max_outstanding: self.cfg.max_outstanding, max_segment: wire::MAX_HEADER as u16, sequenced: true };
        let f = Fields { flags: flags::SYN, seq: self.iss, ack: Seq(0), var: VarArea::syn(params), acc: None };
        out.push(Packet::rdp(Kind::RdpData, &self.ends, f, 0, self.cfg.ttl, now));
    }

    fn send_ack(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.rdp_stats.control_sent += 1;
        let f = Fields { flags: flags::ACK, seq: self.seq_at(self.max), ack: self.rcv_cur, ..Fields::default() };
        out.push(Packet::rdp(Kind::RdpData, &self.ends, f, 0, self.cfg.ttl, now));
    }

    fn reset(&mut self, seq: Seq, now: SimTime, out: &mut Vec<Packet>) {
        self.rdp_stats.control_sent += 1;
        let f = Fields { flags: flags::RST, seq, ..Fields::default() };
        out.push(Packet::rdp(Kind::RdpData, &self.ends, f, 0, self.cfg.ttl, now));
    }

    fn retransmit_una(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.una < self.max && !self.eacked_at(self.una) {
            self.emit(self.una, now, out);
        }
    }

    /// Sends what the windows allow: the congestion window over `[SND.UNA, SND.NXT)`, and
    /// for new segments RDP's flow control (RFC 908 3.5): fewer than `SND.MAX` outstanding,
    /// and within the receiver's acceptance window. Segments the receiver EACKed are skipped.
    fn send_available(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.state != State::Open {
            return;
        }
        let total = self.total();
        let cwnd = self.cwnd_packets() as u64;
        let snd_max = self.snd_max as u64;
        loop {
            while self.nxt < self.max && self.eacked_at(self.nxt) {
                self.nxt += 1;
                self.rdp_stats.eack_skips += 1;
            }
            if self.nxt >= total || self.nxt - self.una >= cwnd {
                break;
            }
            if self.nxt == self.max && (self.outstanding() >= snd_max || self.nxt - self.una >= 2 * snd_max) {
                break;
            }
            self.emit(self.nxt, now, out);
            self.nxt += 1;
            self.max = self.max.max(self.nxt);
        }
    }

    fn emit(&mut self, off: u64, now: SimTime, out: &mut Vec<Packet>) {
        let len = self.len_of(off);
        let retransmission = off < self.max;
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += len as u64;
        if retransmission {
            self.stats.retransmitted_packets += 1;
            self.stats.retransmitted_bytes += len as u64;
            if self.timed.is_some_and(|(t, _)| t == off) {
                self.timed = None; // Karn's rule
            }
        } else if self.timed.is_none() {
            self.timed = Some((off, now));
        }
        if self.deadline.is_none() {
            self.deadline = Some(now + self.rto.rto()); // RFC 6298 (5.1)
        }
        let acc = self.cfg.acc.then(|| AccState {
            cwnd: self.cwnd_packets(),
            ssthresh: self.ssthresh_packets(),
            srtt_us: self.rto.srtt().map_or(0, |d| (d.as_nanos() / 1000) as u32),
            slow_start: self.cc.cwnd() < self.cc.ssthresh(),
            fast_recovery: self.in_recovery,
        });
        let f = Fields { flags: flags::ACK, seq: self.seq_at(off), ack: self.rcv_cur, var: VarArea::NONE, acc };
        out.push(Packet::rdp(Kind::RdpData, &self.ends, f, len, self.cfg.ttl, now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEG: u32 = 1000;

    fn ends() -> Endpoints {
        Endpoints { flow: 0, sender: 0, receiver: 1, sport: 1, dport: 2 }
    }

    fn t(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    /// The receiver's ISS in these tests.
    const RISS: u32 = 5000;

    fn from_receiver(f: Fields) -> Packet {
        Packet::rdp(Kind::RdpAck, &ends(), f, 0, 64, SimTime::ZERO)
    }

    fn syn_ack(s: &RdpSender, max_outstanding: u16) -> Packet {
        let var = VarArea::syn(SynParams { max_outstanding, max_segment: u16::MAX, sequenced: true });
        from_receiver(Fields { flags: flags::SYN | flags::ACK, seq: Seq(RISS), ack: s.iss, var, acc: None })
    }

    /// An ACK of every segment below offset `upto` (`upto` = 0 acknowledges none), EACKing
    /// the segments at the offsets `eacks` (each at least `upto + 1`).
    fn ack(s: &RdpSender, upto: u64, eacks: &[u64]) -> Packet {
        let ackno = s.iss + upto as u32; // the last in sequence: data offset upto - 1
        let mut bits = 0u64;
        for &e in eacks {
            bits |= 1 << (e - upto - 1);
        }
        let fl = if bits == 0 { flags::ACK } else { flags::ACK | flags::EAK };
        from_receiver(Fields { flags: fl, seq: Seq(RISS + 1), ack: ackno, var: VarArea::eacks(bits), acc: None })
    }

    fn offsets(s: &RdpSender, out: &[Packet]) -> Vec<u64> {
        out.iter().filter(|p| p.payload > 0).map(|p| p.seq.diff(s.iss + 1) as u64).collect()
    }

    fn config() -> SenderConfig {
        SenderConfig { segment_size: SEG, isn: 100, ..SenderConfig::default() }
    }

    /// A sender OPEN at 100 ms with the given receiver window.
    fn open(cfg: SenderConfig, max_outstanding: u16, out: &mut Vec<Packet>) -> RdpSender {
        let mut s = RdpSender::new(cfg, ends());
        s.start(t(0), out);
        let syn_ack = syn_ack(&s, max_outstanding);
        s.on_segment(&syn_ack, t(100), out);
        s
    }

    /// Acknowledges one segment at a time until the window is `pkts` packets; returns the
    /// offset acknowledged up to.
    fn grow_to(s: &mut RdpSender, pkts: u32, out: &mut Vec<Packet>) -> u64 {
        let mut upto = 0;
        let mut now = 200;
        while s.cwnd_packets() < pkts {
            upto += 1;
            let a = ack(s, upto, &[]);
            s.on_segment(&a, t(now), out);
            now += 1;
        }
        upto
    }

    #[test]
    fn syn_exchange_opens_and_the_first_data_acknowledges_the_syn_ack() {
        let mut out = Vec::new();
        let mut s = RdpSender::new(config(), ends());
        s.start(t(0), &mut out);
        let syn = out[0];
        assert_eq!((syn.kind, syn.flags, syn.seq, syn.payload), (Kind::RdpData, flags::SYN, Seq(100), 0));
        let p = syn.rdp_var.syn_params();
        assert_eq!((p.max_outstanding, p.sequenced), (1024, true));
        assert_eq!(s.state(), State::SynSent);
        assert_eq!(s.deadline(), Some(t(1000)), "the initial RTO");
        out.clear();
        s.on_segment(&syn_ack(&s, 20), t(100), &mut out);
        assert_eq!(s.state(), State::Open);
        assert_eq!(s.srtt(), Some(Dur::from_millis(100)), "the SYN's round trip is the first sample");
        assert_eq!(out.len(), 1, "one data segment (initial window 1), carrying the ACK");
        let d = out[0];
        assert_eq!((d.flags, d.seq, d.ack, d.payload), (flags::ACK, Seq(101), Seq(RISS), SEG));
        assert_eq!(d.size, 20 + 18 + 16 + SEG, "IP, RDP and ACC headers");
        let acc = d.acc.expect("the ACC state");
        assert_eq!((acc.cwnd, acc.slow_start, acc.srtt_us), (1, true, 100_000));
        assert_eq!(s.max_outstanding(), 20);
    }

    #[test]
    fn a_lost_syn_is_retransmitted_with_backoff_and_gives_no_rtt_sample() {
        let mut out = Vec::new();
        let mut s = RdpSender::new(config(), ends());
        s.start(t(0), &mut out);
        s.on_timer(t(999), &mut out);
        assert_eq!(out.len(), 1, "an early poll does nothing");
        s.on_timer(t(1000), &mut out);
        assert_eq!((out.len(), out[1].flags, out[1].seq), (2, flags::SYN, Seq(100)));
        assert_eq!(s.deadline(), Some(t(3000)), "RTO doubled");
        s.on_segment(&syn_ack(&s, 20), t(1100), &mut out);
        assert_eq!((s.state(), s.srtt(), s.rdp_stats.syns_sent), (State::Open, None, 2));
    }

    #[test]
    fn syn_sent_resets_an_ack_of_something_else_and_closes_on_rst() {
        let mut out = Vec::new();
        let mut s = RdpSender::new(config(), ends());
        s.start(t(0), &mut out);
        out.clear();
        let mut wrong = syn_ack(&s, 20);
        wrong.ack = Seq(7);
        s.on_segment(&wrong, t(10), &mut out);
        assert_eq!((out[0].flags, out[0].seq, s.state()), (flags::RST, Seq(8), State::SynSent), "<SEQ=SEG.ACK+1><RST>");
        let rst = from_receiver(Fields { flags: flags::RST | flags::ACK, ack: Seq(100), ..Fields::default() });
        s.on_segment(&rst, t(20), &mut out);
        assert_eq!((s.state(), s.deadline()), (State::Closed, None), "connection refused");
    }

    #[test]
    fn cumulative_ack_moves_snd_una_past_the_acknowledged_segment() {
        let mut out = Vec::new();
        let mut s = open(config(), 100, &mut out);
        grow_to(&mut s, 4, &mut out);
        let una = s.snd_una();
        // RFC 1151: SEG.ACK is the last segment received in sequence; SND.UNA is the next.
        let a = ack(&s, 2 + una.diff(s.iss + 1) as u64, &[]);
        s.on_segment(&a, t(300), &mut out);
        assert_eq!(s.snd_una(), a.ack + 1);
        // A stale ACK, and one of a segment never sent, change nothing.
        let before = (s.snd_una(), s.cwnd());
        s.on_segment(&ack(&s, 0, &[]), t(301), &mut out);
        let beyond = ack(&s, s.highest_sent().diff(s.iss + 1) as u64 + 5, &[]);
        s.on_segment(&beyond, t(302), &mut out);
        assert_eq!((s.snd_una(), s.cwnd()), before);
    }

    #[test]
    fn eacked_segments_are_not_resent_after_a_timeout() {
        let mut out = Vec::new();
        let mut s = open(config(), 100, &mut out);
        let upto = grow_to(&mut s, 8, &mut out);
        assert_eq!(s.flight(), 8);
        // Segments upto+1, upto+3 and upto+4 arrived out of sequence; upto and upto+2 did not.
        s.on_segment(&ack(&s, upto, &[upto + 1, upto + 3, upto + 4]), t(300), &mut out);
        assert_eq!((s.outstanding(), s.rdp_stats.eacked), (5, 3));
        assert!(s.is_eacked(s.iss + 1 + (upto + 3) as u32));
        out.clear();
        let d = s.deadline().unwrap();
        s.on_timer(d, &mut out);
        assert_eq!((s.stats.timeouts, s.cwnd_packets()), (1, 1));
        assert_eq!(offsets(&s, &out), vec![upto], "window 1: the first hole");
        out.clear();
        // The hole is filled (the receiver held upto + 1): window 2 sends the second hole; the
        // two EACKed segments after it take their place in the window but are not resent.
        let ms = d.as_nanos() / 1_000_000;
        s.on_segment(&ack(&s, upto + 2, &[upto + 3, upto + 4]), t(ms + 50), &mut out);
        assert_eq!(offsets(&s, &out), vec![upto + 2]);
        assert_eq!(s.rdp_stats.eack_skips, 3, "upto + 1, upto + 3 and upto + 4 were not resent");
        out.clear();
        s.on_segment(&ack(&s, upto + 5, &[]), t(ms + 100), &mut out);
        assert_eq!(offsets(&s, &out), vec![upto + 5, upto + 6, upto + 7], "window 3 from the next unacknowledged");
        assert_eq!(s.stats.retransmitted_packets, 5, "upto, upto + 2 and the three never EACKed");
    }

    #[test]
    fn third_duplicate_ack_fast_retransmits_and_partial_acks_fill_the_next_hole() {
        let mut out = Vec::new();
        let mut s = open(config(), 100, &mut out);
        let upto = grow_to(&mut s, 10, &mut out);
        let flight = s.flight();
        assert_eq!(flight, 10);
        out.clear();
        // Segments upto and upto+3 lost; EACKs come for the others.
        let mut held = vec![];
        for (i, e) in [upto + 1, upto + 2].iter().enumerate() {
            held.push(*e);
            s.on_segment(&ack(&s, upto, &held), t(300 + i as u64), &mut out);
            assert!(out.is_empty(), "no retransmission before the third duplicate");
        }
        held.push(upto + 4);
        s.on_segment(&ack(&s, upto, &held), t(303), &mut out);
        assert_eq!((s.stats.fast_retransmits, s.in_recovery()), (1, true));
        assert_eq!(s.ssthresh_packets(), 5, "half the flight of 10");
        assert_eq!(s.cwnd_packets(), 8, "ssthresh + 3");
        assert_eq!(offsets(&s, &out), vec![upto]);
        // The retransmission arrives: the ACK covers up to the second hole (partial).
        out.clear();
        s.on_segment(&ack(&s, upto + 3, &[upto + 4]), t(400), &mut out);
        assert!(s.in_recovery());
        assert_eq!(offsets(&s, &out)[0], upto + 3, "the next hole goes at once");
        // Everything sent before the loss acknowledged: recovery ends, the window no larger
        // than ssthresh nor than the flight (none) plus one (RFC 6582's full ACK).
        let hi = s.highest_sent().diff(s.iss + 1) as u64;
        s.on_segment(&ack(&s, hi, &[]), t(500), &mut out);
        assert!(!s.in_recovery());
        assert_eq!((s.cwnd_packets(), s.ssthresh_packets()), (2, 5));
        assert_eq!(s.stats.window_reductions, 1, "one congestion event, one reduction");
    }

    #[test]
    fn window_grows_by_whole_packets_one_per_window_of_acks() {
        let mut out = Vec::new();
        let cfg = SenderConfig { init_ssthresh: 4, ..config() };
        let mut s = open(cfg, 1000, &mut out);
        let mut upto = grow_to(&mut s, 4, &mut out);
        assert!(s.cwnd().is_multiple_of(SEG));
        // Congestion avoidance: four ACKs leave the window at 4, the fourth makes it 5.
        for i in 0..4 {
            assert_eq!(s.cwnd(), 4 * SEG, "ACK {i}: the fraction is held");
            upto += 1;
            s.on_segment(&ack(&s, upto, &[]), t(400 + i), &mut out);
        }
        assert_eq!(s.cwnd(), 5 * SEG);
        // The window limits sending to whole packets: never more than cwnd in flight.
        assert!(s.flight() <= 5);
    }

    #[test]
    fn flow_control_caps_outstanding_segments_and_the_acceptance_window() {
        let mut out = Vec::new();
        let cfg = SenderConfig { init_cwnd: 50, ..config() };
        let mut s = open(cfg, 4, &mut out);
        assert_eq!(offsets(&s, &out), vec![0, 1, 2, 3], "SND.MAX = 4 outstanding");
        out.clear();
        // Segment 0 is lost; 1..3 are EACKed, so one is outstanding and three more may go.
        s.on_segment(&ack(&s, 0, &[1, 2, 3]), t(200), &mut out);
        assert_eq!(offsets(&s, &out), vec![4, 5, 6]);
        out.clear();
        s.on_segment(&ack(&s, 0, &[1, 2, 3, 4, 5, 6]), t(201), &mut out);
        assert_eq!(offsets(&s, &out), vec![7], "nothing beyond SND.UNA - 1 + 2 * SND.MAX (offset 7)");
        out.clear();
        s.on_segment(&ack(&s, 0, &[1, 2, 3, 4, 5, 6, 7]), t(202), &mut out);
        assert_eq!(offsets(&s, &out), vec![0], "the third duplicate resends the hole; the right edge holds the rest");
    }

    /// A control from a router that dropped segment `off`, asking for `pkts` packets.
    fn control(s: &RdpSender, off: u64, pkts: u32) -> Packet {
        let dropped = Packet::rdp(Kind::RdpData, &ends(), Fields { seq: s.iss + 1 + off as u32, ..Fields::default() }, SEG, 64, SimTime::ZERO);
        let state = AccState { cwnd: pkts, ssthresh: pkts, srtt_us: 100_000, slow_start: false, fast_recovery: false };
        Packet::acc_control(9, &dropped, state, SimTime::ZERO)
    }

    #[test]
    fn acc_control_sets_the_window_in_packets_and_resends_from_the_dropped_segment() {
        let mut out = Vec::new();
        let mut s = open(config(), 100, &mut out);
        let upto = grow_to(&mut s, 10, &mut out);
        s.on_segment(&ack(&s, upto, &[upto + 6]), t(300), &mut out);
        s.on_acc_control(&control(&s, upto + 4, 5), t(300));
        assert_eq!((s.cwnd_packets(), s.ssthresh_packets()), (5, 5));
        assert_eq!(s.snd_nxt(), s.iss + 1 + (upto + 4) as u32);
        assert_eq!((s.stats.acc_reductions, s.stats.window_reductions, s.stats.acc_controls), (1, 1, 1));
        assert_eq!(s.last_reduction.map(|r| r.1), Some(ReductionCause::AccControl));
        // Once below the new window, the dropped segment goes again, then the next, skipping
        // the EACKed one.
        out.clear();
        s.on_segment(&ack(&s, upto + 2, &[upto + 6]), t(310), &mut out);
        assert_eq!(offsets(&s, &out), vec![upto + 4, upto + 5]);
        out.clear();
        s.on_segment(&ack(&s, upto + 3, &[upto + 6]), t(311), &mut out);
        assert_eq!(offsets(&s, &out), vec![upto + 7]);
        // The same window's congestion is not answered twice, nor are duplicates of data
        // sent before the control a fast retransmit.
        s.on_acc_control(&control(&s, upto + 5, 2), t(320));
        for i in 0..5 {
            s.on_segment(&ack(&s, upto + 3, &[upto + 6]), t(330 + i), &mut out);
        }
        assert_eq!((s.stats.acc_reductions, s.stats.fast_retransmits, s.cwnd_packets()), (1, 0, 5));
        // A sender without ACC carries no state and ignores controls.
        let mut pout = Vec::new();
        let mut plain = open(SenderConfig { acc: false, ..config() }, 100, &mut pout);
        let u = grow_to(&mut plain, 10, &mut pout);
        plain.on_acc_control(&control(&plain, u + 2, 2), t(300));
        assert_eq!((plain.stats.acc_controls, plain.cwnd_packets()), (0, 10));
        assert!(pout.iter().filter(|p| p.payload > 0).all(|p| p.acc.is_none() && p.size == 20 + 18 + SEG));
        // A misbehaving sender carries its state and counts the control, but keeps its window.
        let mut mout = Vec::new();
        let mut bad = open(SenderConfig { obey_acc: false, ..config() }, 100, &mut mout);
        let u = grow_to(&mut bad, 10, &mut mout);
        bad.on_acc_control(&control(&bad, u + 2, 2), t(300));
        assert_eq!((bad.stats.acc_controls, bad.stats.acc_reductions, bad.cwnd_packets()), (1, 0, 10));
        assert!(mout.iter().filter(|p| p.payload > 0).all(|p| p.acc.is_some()));
    }

    #[test]
    fn finite_transfer_completes_and_closes_with_rst() {
        let mut out = Vec::new();
        let mut s = open(SenderConfig { data_bytes: Some(2500), ..config() }, 100, &mut out);
        s.on_segment(&ack(&s, 1, &[]), t(200), &mut out);
        s.on_segment(&ack(&s, 3, &[]), t(300), &mut out);
        let lens: Vec<u32> = out.iter().filter(|p| p.payload > 0).map(|p| p.payload).collect();
        assert_eq!(lens, vec![SEG, SEG, 500], "the last segment is short");
        assert_eq!(s.completed_at, Some(t(300)));
        let rst = out.last().unwrap();
        assert_eq!((rst.flags, rst.seq), (flags::RST, s.iss + 4), "<SEQ=SND.NXT><RST>");
        assert_eq!((s.state(), s.deadline()), (State::CloseWait, Some(t(1300))));
        s.on_timer(t(1300), &mut out);
        assert_eq!(s.state(), State::Closed);
    }

    #[test]
    fn unacceptable_segments_are_answered_with_an_ack_and_a_syn_resets() {
        let mut out = Vec::new();
        let mut s = open(config(), 100, &mut out);
        out.clear();
        s.on_segment(&syn_ack(&s, 100), t(200), &mut out);
        assert_eq!((out.len(), out[0].flags, out[0].ack, s.state()), (1, flags::ACK, Seq(RISS), State::Open), "a duplicate SYN-ACK");
        out.clear();
        let syn = from_receiver(Fields { flags: flags::SYN, seq: Seq(RISS + 1), ack: Seq(41), ..Fields::default() });
        s.on_segment(&syn, t(300), &mut out);
        assert_eq!((out[0].flags, out[0].seq, s.state()), (flags::RST, Seq(42), State::Closed));
    }
}
