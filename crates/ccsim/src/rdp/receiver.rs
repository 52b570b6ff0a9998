//! The receiving end of an RDP connection: the passive Open (LISTEN), the SYN-ACK, the
//! acceptance window, sequenced delivery, and an ACK with EACKs for every data segment. The
//! rules and where they come from are in the module documentation of [`super`].
//!
//! Segments received out of sequence wait in a ring of `2 * RCV.MAX` slots (the acceptance
//! window), allocated once; a slot holds the segment's data length, zero when empty.

use super::{flags, Fields, State, SynParams, VarArea, EACK_SPAN};
use crate::packet::Seq;
use crate::packet::{Endpoints, Kind, Packet};
use crate::sim::{Dur, SimTime};
use crate::stats::counters;
use crate::tcp::receiver::ReceiverStats;

/// The receiver's settings.
#[derive(Clone, Debug)]
pub struct ReceiverConfig {
    /// The most unacknowledged segments the sender may send (`RCV.MAX`, said in the
    /// SYN-ACK): the receiver buffers up to twice as many out of sequence.
    pub max_outstanding: u16,
    /// The largest segment it accepts, bytes of RDP header and data (`RBUF.MAX`).
    pub max_segment: u16,
    /// Initial sequence number (`SND.ISS`), the SYN-ACK's.
    pub isn: u32,
    /// How long CLOSE-WAIT lasts after a received RST.
    pub close_wait: Dur,
    /// Initial TTL of the packets sent.
    pub ttl: u8,
}

impl Default for ReceiverConfig {
    fn default() -> Self {
        ReceiverConfig { max_outstanding: 1024, max_segment: u16::MAX, isn: 0, close_wait: Dur::from_secs(1), ttl: 64 }
    }
}

counters! {
    /// RDP's own counters of one receiver (the rest are in its `ReceiverStats`).
    pub struct RdpReceiverStats {
        /// Segments without data received: SYN, RST, NUL, ACK.
        pub control_received: u64,
        /// ACKs sent with EACKs.
        pub eacks_sent: u64,
        /// RSTs sent.
        pub resets_sent: u64,
    }
}

/// What one arriving segment gave the application: `segments` segments in sequence from
/// `first`, `bytes` bytes of data (none when the segment filled no gap at the front).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delivered {
    pub first: Seq,
    pub segments: u32,
    pub bytes: u64,
}

#[derive(Clone, Debug)]
pub struct RdpReceiver {
    pub cfg: ReceiverConfig,
    pub ends: Endpoints,
    state: State,
    iss: Seq,
    /// The last segment received in sequence (`RCV.CUR`) and the sender's SYN (`RCV.IRS`).
    rcv_cur: Seq,
    rcv_irs: Seq,
    /// Data lengths of the segments `RCV.CUR + 1 ..= RCV.CUR + 2 * RCV.MAX` received, zero
    /// for none; `head` is the slot of `RCV.CUR + 1`.
    slots: Vec<u16>,
    head: usize,
    /// Segments held out of sequence.
    held: u32,
    deadline: Option<SimTime>,
    pub stats: ReceiverStats,
    pub rdp_stats: RdpReceiverStats,
}

impl RdpReceiver {
    /// A receiver listening for the flow's SYN (the passive Open).
    pub fn new(cfg: ReceiverConfig, ends: Endpoints) -> RdpReceiver {
        let slots = vec![0; 2 * (cfg.max_outstanding.max(1) as usize)];
        RdpReceiver {
            state: State::Listen,
            iss: Seq(cfg.isn),
            rcv_cur: Seq(0),
            rcv_irs: Seq(0),
            slots,
            head: 0,
            held: 0,
            deadline: None,
            stats: ReceiverStats::default(),
            rdp_stats: RdpReceiverStats::default(),
            cfg,
            ends,
        }
    }

    pub fn state(&self) -> State {
        self.state
    }
    /// `RCV.CUR`: the last segment received in sequence.
    pub fn rcv_cur(&self) -> Seq {
        self.rcv_cur
    }
    /// Segments held out of sequence.
    pub fn held(&self) -> u32 {
        self.held
    }
    /// Whether segment `seq` has arrived (delivered, or held out of sequence).
    pub fn has_received(&self, seq: Seq) -> bool {
        let d = seq.diff(self.rcv_cur) as i64;
        d <= 0 || (d as usize <= self.slots.len() && self.slots[self.slot(d as usize)] != 0)
    }
    /// When [`on_timer`](RdpReceiver::on_timer) is next due (CLOSE-WAIT's end).
    pub fn deadline(&self) -> Option<SimTime> {
        self.deadline
    }

    fn max_outstanding(&self) -> i64 {
        self.cfg.max_outstanding.max(1) as i64
    }

    /// The ring slot of segment `RCV.CUR + d`, `1 <= d <= 2 * RCV.MAX`.
    fn slot(&self, d: usize) -> usize {
        (self.head + d - 1) % self.slots.len()
    }

    /// A segment from the sender. Returns the data it let the application have.
    pub fn on_segment(&mut self, pkt: &Packet, now: SimTime, out: &mut Vec<Packet>) -> Delivered {
        let has = |f: u8| pkt.flags & f != 0;
        let data = pkt.payload > 0 && !has(flags::SYN | flags::RST | flags::NUL);
        if data {
            self.stats.packets_received += 1;
            self.stats.bytes_received += pkt.payload as u64;
        } else {
            self.rdp_stats.control_received += 1;
        }
        match self.state {
            State::Listen => {
                if has(flags::RST) {
                } else if has(flags::ACK) || has(flags::NUL) {
                    self.reset(pkt.ack + 1, now, out);
                } else if has(flags::SYN) {
                    self.rcv_cur = pkt.seq;
                    self.rcv_irs = pkt.seq;
                    self.state = State::SynRcvd;
                    self.send_syn_ack(now, out);
                }
            }
            State::SynRcvd => {
                if has(flags::SYN) && pkt.seq == self.rcv_irs && !has(flags::ACK) {
                    // The sender's SYN again: the SYN-ACK was lost, or is late.
                    self.send_syn_ack(now, out);
                    return Delivered::default();
                }
                let d = pkt.seq.diff(self.rcv_cur) as i64;
                if pkt.seq.diff(self.rcv_irs) <= 0 || d > 2 * self.max_outstanding() {
                    if !has(flags::RST) {
                        self.send_ack(false, now, out);
                    }
                } else if has(flags::RST) {
                    self.state = State::Listen; // back to the passive Open
                } else if has(flags::SYN) || has(flags::EAK) {
                    self.reset(pkt.ack + 1, now, out);
                    if has(flags::SYN) {
                        self.state = State::Closed;
                    }
                } else if has(flags::ACK) && pkt.ack == self.iss {
                    self.state = State::Open;
                    return self.on_open_segment(pkt, now, out);
                } else if has(flags::ACK) {
                    self.reset(pkt.ack + 1, now, out);
                }
            }
            State::Open => return self.on_open_segment(pkt, now, out),
            State::CloseWait => {
                if has(flags::RST) {
                    self.state = State::Closed;
                    self.deadline = None;
                }
            }
            State::Closed | State::SynSent => {
                if has(flags::RST) {
                } else if has(flags::ACK) || has(flags::NUL) {
                    self.reset(pkt.ack + 1, now, out);
                } else {
                    self.reset(Seq(0), now, out);
                }
            }
        }
        Delivered::default()
    }

    fn on_open_segment(&mut self, pkt: &Packet, now: SimTime, out: &mut Vec<Packet>) -> Delivered {
        let has = |f: u8| pkt.flags & f != 0;
        let d = pkt.seq.diff(self.rcv_cur) as i64;
        if !(1..=2 * self.max_outstanding()).contains(&d) {
            // Unacceptable (RFC 908 3.7.2): a duplicate, below RCV.CUR, or beyond the window.
            if !has(flags::RST) {
                if d <= 0 && pkt.payload > 0 {
                    self.stats.duplicate_packets += 1;
                }
                self.send_ack(false, now, out);
            }
            return Delivered::default();
        }
        if has(flags::RST) {
            self.state = State::CloseWait;
            self.deadline = Some(now + self.cfg.close_wait);
            return Delivered::default();
        }
        if has(flags::SYN) {
            self.reset(pkt.ack + 1, now, out);
            self.state = State::Closed;
            return Delivered::default();
        }
        if has(flags::NUL) {
            // In sequence it takes its number (and releases what was held behind it); it is
            // no data itself.
            let mut delivered = Delivered::default();
            if d == 1 {
                delivered = self.advance(pkt.seq, 0);
                delivered.first = delivered.first + 1;
                delivered.segments -= 1;
            }
            self.send_ack(d == 1, now, out);
            return delivered;
        }
        if pkt.payload == 0 {
            return Delivered::default(); // an ACK of data this end never sends
        }
        let accepted = (self.cfg.max_segment as u32).saturating_sub(super::wire::header_len(&pkt.rdp_fields()) as u32);
        if pkt.payload > accepted.min(u16::MAX as u32) {
            // RFC 908 3.3: more data than this end accepts aborts the connection.
            self.reset(self.iss + 1, now, out);
            self.state = State::CloseWait;
            self.deadline = Some(now + self.cfg.close_wait);
            return Delivered::default();
        }
        let delivered = if d == 1 {
            self.advance(pkt.seq, pkt.payload as u16)
        } else {
            let slot = self.slot(d as usize);
            if self.slots[slot] == 0 {
                self.slots[slot] = pkt.payload as u16;
                self.held += 1;
                self.stats.out_of_order_packets += 1;
            } else {
                self.stats.duplicate_packets += 1;
            }
            Delivered::default()
        };
        self.send_ack(delivered.segments > 0, now, out);
        delivered
    }

    /// Segment `seq` (`RCV.CUR + 1`, `len` bytes) arrived: it and the segments held after it
    /// go to the application, in sequence.
    fn advance(&mut self, seq: Seq, len: u16) -> Delivered {
        let mut delivered = Delivered { first: seq, segments: 1, bytes: len as u64 };
        self.slots[self.head] = 0;
        self.head = (self.head + 1) % self.slots.len();
        self.rcv_cur = seq;
        while self.held > 0 && self.slots[self.head] != 0 {
            delivered.segments += 1;
            delivered.bytes += self.slots[self.head] as u64;
            self.slots[self.head] = 0;
            self.held -= 1;
            self.head = (self.head + 1) % self.slots.len();
            self.rcv_cur = self.rcv_cur + 1;
        }
        self.stats.delivered_bytes += delivered.bytes;
        delivered
    }

    /// The EACK map: the segments held among `RCV.CUR + 2 ..= RCV.CUR + 1 + EACK_SPAN`.
    fn eack_bits(&self) -> u64 {
        if self.held == 0 {
            return 0;
        }
        let reach = (EACK_SPAN as usize).min(self.slots.len() - 1);
        (0..reach).filter(|&i| self.slots[self.slot(i + 2)] != 0).fold(0, |bits, i| bits | 1 << i)
    }

    /// The receiver's CLOSE-WAIT timer: call once [`deadline`](RdpReceiver::deadline) is
    /// reached (an early call does nothing).
    pub fn on_timer(&mut self, now: SimTime) {
        if self.deadline.is_some_and(|d| d <= now) {
            self.deadline = None;
            self.state = State::Closed;
        }
    }

    // ---- output ----

    fn push(&mut self, f: Fields, now: SimTime, out: &mut Vec<Packet>) {
        self.stats.acks_sent += 1;
        out.push(Packet::rdp(Kind::RdpAck, &self.ends, f, 0, self.cfg.ttl, now));
    }

    fn send_syn_ack(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let params = SynParams { max_outstanding: self.cfg.max_outstanding, max_segment: self.cfg.max_segment, sequenced: true };
        let f = Fields { flags: flags::SYN | flags::ACK, seq: self.iss, ack: self.rcv_cur, var: VarArea::syn(params), acc: None };
        self.push(f, now, out);
    }

    /// `<SEQ=SND.NXT><ACK=RCV.CUR><ACK>`, with the EACKs of the segments held.
    fn send_ack(&mut self, advanced: bool, now: SimTime, out: &mut Vec<Packet>) {
        let bits = self.eack_bits();
        let fl = if bits == 0 { flags::ACK } else { flags::ACK | flags::EAK };
        if bits != 0 {
            self.rdp_stats.eacks_sent += 1;
        }
        if !advanced {
            self.stats.dupacks_sent += 1;
        }
        let f = Fields { flags: fl, seq: self.iss + 1, ack: self.rcv_cur, var: VarArea::eacks(bits), acc: None };
        self.push(f, now, out);
    }

    fn reset(&mut self, seq: Seq, now: SimTime, out: &mut Vec<Packet>) {
        self.rdp_stats.resets_sent += 1;
        self.push(Fields { flags: flags::RST, seq, ..Fields::default() }, now, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SISS: u32 = 100;
    const SEG: u32 = 1000;

    fn ends() -> Endpoints {
        Endpoints { flow: 0, sender: 0, receiver: 1, sport: 1, dport: 2 }
    }

    fn from_sender(f: Fields, payload: u32) -> Packet {
        Packet::rdp(Kind::RdpData, &ends(), f, payload, 64, SimTime::ZERO)
    }

    fn syn() -> Packet {
        let var = VarArea::syn(SynParams { max_outstanding: 8, max_segment: 100, sequenced: true });
        from_sender(Fields { flags: flags::SYN, seq: Seq(SISS), var, ..Fields::default() }, 0)
    }

    /// Data segment `k` (from 0), acknowledging the receiver's SYN.
    fn data(r: &RdpReceiver, k: u32) -> Packet {
        from_sender(Fields { flags: flags::ACK, seq: Seq(SISS + 1 + k), ack: r.iss, ..Fields::default() }, SEG)
    }

    fn open(max_outstanding: u16) -> RdpReceiver {
        let mut r = RdpReceiver::new(ReceiverConfig { max_outstanding, isn: 7000, ..ReceiverConfig::default() }, ends());
        let mut out = Vec::new();
        r.on_segment(&syn(), SimTime::ZERO, &mut out);
        r
    }

    /// The ACK number and the EACKed sequence numbers of an ACK.
    fn acked(p: &Packet) -> (u32, Vec<u32>) {
        let eacks = if p.flags & flags::EAK != 0 { super::super::eacked(p.ack, p.rdp_var.eack_bits()).map(|s| s.0).collect() } else { vec![] };
        (p.ack.0, eacks)
    }

    #[test]
    fn listen_answers_a_syn_with_its_parameters_and_opens_on_the_ack_of_its_syn() {
        let mut r = RdpReceiver::new(ReceiverConfig { max_outstanding: 30, max_segment: 1100, isn: 7000, ..ReceiverConfig::default() }, ends());
        assert_eq!(r.state(), State::Listen);
        let mut out = Vec::new();
        r.on_segment(&syn(), SimTime::ZERO, &mut out);
        let sa = out[0];
        assert_eq!((sa.kind, sa.flags, sa.seq, sa.ack), (Kind::RdpAck, flags::SYN | flags::ACK, Seq(7000), Seq(SISS)));
        assert_eq!(sa.rdp_var.syn_params(), SynParams { max_outstanding: 30, max_segment: 1100, sequenced: true });
        assert_eq!((sa.src, sa.dst, sa.sport, sa.dport), (1, 0, 2, 1));
        assert_eq!(r.state(), State::SynRcvd);
        // The SYN again (its SYN-ACK lost): the SYN-ACK again.
        out.clear();
        r.on_segment(&syn(), SimTime::ZERO, &mut out);
        assert_eq!((out.len(), out[0].flags, r.state()), (1, flags::SYN | flags::ACK, State::SynRcvd));
        // The first data segment acknowledges the SYN-ACK: OPEN, delivered, acknowledged.
        out.clear();
        let d = r.on_segment(&data(&r, 0), SimTime::ZERO, &mut out);
        assert_eq!(r.state(), State::Open);
        assert_eq!(d, Delivered { first: Seq(SISS + 1), segments: 1, bytes: SEG as u64 });
        assert_eq!((out[0].flags, out[0].seq, out[0].ack), (flags::ACK, Seq(7001), Seq(SISS + 1)), "<SEQ=SND.NXT><ACK=RCV.CUR><ACK>");
    }

    #[test]
    fn listen_and_syn_rcvd_reset_what_they_cannot_accept() {
        let mut r = RdpReceiver::new(ReceiverConfig::default(), ends());
        let mut out = Vec::new();
        r.on_segment(&from_sender(Fields { flags: flags::ACK, seq: Seq(5), ack: Seq(41), ..Fields::default() }, 10), SimTime::ZERO, &mut out);
        assert_eq!((out[0].flags, out[0].seq, r.state()), (flags::RST, Seq(42), State::Listen), "<SEQ=SEG.ACK+1><RST>");
        let mut r = open(8);
        out.clear();
        let mut wrong = data(&r, 0);
        wrong.ack = Seq(3);
        r.on_segment(&wrong, SimTime::ZERO, &mut out);
        assert_eq!((out[0].flags, out[0].seq, r.state()), (flags::RST, Seq(4), State::SynRcvd), "an ACK of something but the SYN-ACK");
        r.on_segment(&from_sender(Fields { flags: flags::RST, seq: Seq(SISS + 1), ..Fields::default() }, 0), SimTime::ZERO, &mut out);
        assert_eq!(r.state(), State::Listen, "a reset SYN-RCVD listens again");
    }

    #[test]
    fn out_of_sequence_segments_are_eacked_held_and_delivered_in_order() {
        // RFC 908 section 5.3: 101 lost, 102 and 103 EACKed, then 101 delivers all three.
        let mut r = open(8);
        let mut out = Vec::new();
        r.on_segment(&data(&r, 0), SimTime::ZERO, &mut out);
        for k in [2, 3] {
            let d = r.on_segment(&data(&r, k), SimTime::ZERO, &mut out);
            assert_eq!(d.segments, 0);
        }
        let acks: Vec<_> = out.iter().map(acked).collect();
        assert_eq!(acks, vec![(101, vec![]), (101, vec![103]), (101, vec![103, 104])]);
        assert_eq!((r.held(), r.stats.out_of_order_packets, r.stats.dupacks_sent, r.rdp_stats.eacks_sent), (2, 2, 2, 2));
        assert!(r.has_received(Seq(104)) && !r.has_received(Seq(102)));
        out.clear();
        let d = r.on_segment(&data(&r, 1), SimTime::ZERO, &mut out);
        assert_eq!(d, Delivered { first: Seq(102), segments: 3, bytes: 3 * SEG as u64 });
        assert_eq!(acked(&out[0]), (104, vec![]), "one cumulative ACK, no EACK left");
        assert_eq!((r.held(), r.rcv_cur(), r.stats.delivered_bytes), (0, Seq(104), 4 * SEG as u64));
    }

    #[test]
    fn duplicates_and_segments_beyond_the_window_are_acknowledged_and_dropped() {
        let mut r = open(2);
        let mut out = Vec::new();
        r.on_segment(&data(&r, 0), SimTime::ZERO, &mut out);
        r.on_segment(&data(&r, 2), SimTime::ZERO, &mut out);
        out.clear();
        // Below RCV.CUR, held already, beyond RCV.CUR + 2 * RCV.MAX (= 105).
        for k in [0, 2, 5] {
            let d = r.on_segment(&data(&r, k), SimTime::ZERO, &mut out);
            assert_eq!(d.segments, 0);
        }
        let acks: Vec<_> = out.iter().map(acked).collect();
        assert_eq!(acks, vec![(101, vec![103]); 3]);
        assert_eq!((r.stats.duplicate_packets, r.held()), (2, 1));
        // Just inside the window: held.
        r.on_segment(&data(&r, 3), SimTime::ZERO, &mut out);
        assert_eq!(r.held(), 2);
        let d = r.on_segment(&data(&r, 1), SimTime::ZERO, &mut out);
        assert_eq!((d.segments, r.rcv_cur()), (3, Seq(104)));
    }

    #[test]
    fn eacks_name_only_the_first_64_above_the_hole() {
        let mut r = open(100);
        let mut out = Vec::new();
        r.on_segment(&data(&r, 0), SimTime::ZERO, &mut out);
        for k in 2..=80 {
            r.on_segment(&data(&r, k), SimTime::ZERO, &mut out);
        }
        let (ack, eacks) = acked(out.last().unwrap());
        assert_eq!((ack, eacks.len(), eacks[0], *eacks.last().unwrap()), (101, 64, 103, 166));
        assert_eq!(r.held(), 79);
    }

    #[test]
    fn rst_closes_through_close_wait_and_oversized_data_aborts() {
        let mut r = open(8);
        let mut out = Vec::new();
        r.on_segment(&data(&r, 0), SimTime::ZERO, &mut out);
        let rst = from_sender(Fields { flags: flags::RST, seq: Seq(SISS + 2), ..Fields::default() }, 0);
        r.on_segment(&rst, SimTime(10), &mut out);
        assert_eq!((r.state(), r.deadline()), (State::CloseWait, Some(SimTime(10) + Dur::from_secs(1))));
        r.on_timer(SimTime(11));
        assert_eq!(r.state(), State::CloseWait);
        r.on_timer(SimTime(10) + Dur::from_secs(1));
        assert_eq!(r.state(), State::Closed);
        let mut r = RdpReceiver::new(ReceiverConfig { max_segment: 18 + 500, ..ReceiverConfig::default() }, ends());
        r.on_segment(&syn(), SimTime::ZERO, &mut out);
        out.clear();
        r.on_segment(&data(&r, 0), SimTime::ZERO, &mut out);
        assert_eq!((out[0].flags, r.state(), r.stats.delivered_bytes), (flags::RST, State::CloseWait, 0));
    }

    #[test]
    fn a_nul_in_sequence_takes_its_number_and_one_out_of_sequence_does_not() {
        let mut r = open(8);
        let mut out = Vec::new();
        let nul = |k: u32| from_sender(Fields { flags: flags::NUL | flags::ACK, seq: Seq(SISS + 1 + k), ack: Seq(7000), ..Fields::default() }, 0);
        r.on_segment(&nul(3), SimTime::ZERO, &mut out);
        assert_eq!((r.rcv_cur(), r.state()), (Seq(SISS), State::Open));
        r.on_segment(&nul(0), SimTime::ZERO, &mut out);
        assert_eq!(r.rcv_cur(), Seq(SISS + 1));
        assert_eq!(out.len(), 2, "both acknowledged");
    }
}
