//! RDP at the live hosts: the core's RDP state machines (`ccsim::rdp`, the simulator's own)
//! driven by a node's clock and socket, and what a router reads of an RDP segment.
//!
//! A host node keeps, for each flow it sends, the `RdpSender` the scenario builder made, and
//! for each flow it receives, the `RdpReceiver`; both are the simulated twin's. Segments go
//! on the wire in RDP's own format (`ccsim::rdp::wire`), inside the overlay's datagrams.
//! The simulator carries no data bytes; a live sender fills segment `s` of flow `f` with a
//! pattern of `(f, s)`, and the receiver checks every byte of every segment that arrives and
//! that what it delivers comes once and in order (`delivery_errors` counts any failure).
//!
//! Times are nanoseconds since the run's start, passed to the state machines as `SimTime`.
//! A sender opens its connection at its flow's start and stops (Close: its RST) at its
//! flow's stop or at the end of the run's duration.

use crate::plan::Plan;
use crate::report::FlowReport;
use crate::wire::{Control, Type, UdpBody, UDP_BODY};
use ccsim::app::UdpSource;
use ccsim::packet::Seq;
use ccsim::packet::{AccState, Kind, Packet};
use ccsim::rdp::{flags, wire as rw, RdpReceiver, RdpSender};
use ccsim::sim::SimTime;

/// What a router reads of an RDP segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RdpView {
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    /// The segment carries data (not a SYN, RST, NUL or bare acknowledgement).
    pub data: bool,
    /// The sender's congestion state, if it carries it.
    pub acc: Option<AccState>,
}

/// Reads an RDP segment (its whole structure and checksum checked by `ccsim::rdp::wire`);
/// None if it is not one.
pub fn view(seg: &[u8]) -> Option<RdpView> {
    let (h, data) = rw::decode(seg).ok()?;
    let f = h.fields;
    let data = !data.is_empty() && f.flags & (flags::SYN | flags::RST | flags::NUL) == 0;
    Some(RdpView { sport: h.sport, dport: h.dport, seq: f.seq.0, data, acc: f.acc })
}

/// Datagram bodies the hosts of a node want sent: (type, destination address, body) in
/// order: RDP segments and UDP sources' datagrams.
#[derive(Default)]
pub struct Outbox {
    data: Vec<u8>,
    segs: Vec<(Type, u32, u32, u32)>,
}

impl Outbox {
    /// An RDP segment.
    pub fn push(&mut self, dst: u32, seg: &[u8]) {
        self.push_body(Type::Rdp, dst, seg);
    }

    pub fn push_body(&mut self, ty: Type, dst: u32, body: &[u8]) {
        let start = self.data.len() as u32;
        self.data.extend_from_slice(body);
        self.segs.push((ty, dst, start, self.data.len() as u32));
    }

    /// Takes every body, in order.
    pub fn drain(&mut self, mut f: impl FnMut(Type, u32, &[u8])) {
        for &(ty, dst, a, b) in &self.segs {
            f(ty, dst, &self.data[a as usize..b as usize]);
        }
        self.segs.clear();
        self.data.clear();
    }
}

/// Byte `i` of segment `seq` of flow `flow`.
fn pattern(flow: u32, seq: u32, i: usize) -> u8 {
    (seq.wrapping_mul(0x9e37_79b1) >> 24) as u8 ^ (i as u8).wrapping_mul(31) ^ flow as u8
}

struct Sending {
    flow: usize,
    tx: RdpSender,
    started: bool,
    closed: bool,
    start: u64,
    stop: u64,
}

/// A UDP source here: the simulator's, sending at its own schedule's times.
struct UdpSending {
    flow: usize,
    src: UdpSource,
    started: bool,
    next: u64,
    start: u64,
    stop: u64,
}

struct UdpReceiving {
    flow: usize,
    bytes_in_window: u64,
    errors: u64,
}

struct Receiving {
    flow: usize,
    rx: RdpReceiver,
    /// The next segment due for delivery, once the first has been.
    next: Option<Seq>,
    bytes_in_window: u64,
    errors: u64,
}

/// The RDP connections whose one end is this node.
pub struct Hosts {
    me: u32,
    /// Virtual address by node.
    addr: Vec<u32>,
    /// (name, group, src, dst, sport, dport) by flow.
    flows: Vec<(String, String, u32, u32, u16, u16)>,
    senders: Vec<Sending>,
    receivers: Vec<Receiving>,
    udp_senders: Vec<UdpSending>,
    udp_receivers: Vec<UdpReceiving>,
    out: Vec<Packet>,
    seg: Vec<u8>,
    data: Vec<u8>,
    window: (u64, u64),
    pub malformed: u64,
}

impl Hosts {
    pub fn new(plan: &Plan, me: u32) -> Hosts {
        let mut senders = Vec::new();
        let mut receivers = Vec::new();
        let mut udp_senders = Vec::new();
        let mut udp_receivers = Vec::new();
        for (i, f) in plan.flows.iter().enumerate() {
            let stop = f.stop.map_or(plan.duration.0, |s| s.0.min(plan.duration.0));
            if f.src == me {
                if let Some(rdp) = &f.rdp {
                    senders.push(Sending { flow: i, tx: rdp.tx.clone(), started: false, closed: false, start: f.start.0, stop });
                }
                if let Some(u) = &f.udp {
                    udp_senders.push(UdpSending { flow: i, src: u.clone(), started: false, next: f.start.0, start: f.start.0, stop });
                }
            }
            if f.dst == me {
                if let Some(rdp) = &f.rdp {
                    receivers.push(Receiving { flow: i, rx: rdp.rx.clone(), next: None, bytes_in_window: 0, errors: 0 });
                }
                if f.udp.is_some() {
                    udp_receivers.push(UdpReceiving { flow: i, bytes_in_window: 0, errors: 0 });
                }
            }
        }
        Hosts {
            me,
            addr: plan.nodes.iter().map(|n| n.addr).collect(),
            flows: plan.flows.iter().map(|f| (f.name.clone(), f.group.clone(), f.src, f.dst, f.sport, f.dport)).collect(),
            senders,
            receivers,
            udp_senders,
            udp_receivers,
            out: Vec::with_capacity(64),
            seg: vec![0; rw::MAX_HEADER + 65_536],
            data: vec![0; 65_536],
            window: (plan.warmup.0, plan.duration.0),
            malformed: 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.senders.is_empty() && self.receivers.is_empty() && self.udp_senders.is_empty() && self.udp_receivers.is_empty()
    }

    /// A UDP source's datagram from the node with address `src` arrived.
    pub fn on_udp(&mut self, src: u32, d: &UdpBody, now: u64) {
        let (flows, addr) = (&self.flows, &self.addr);
        let Some(r) = self.udp_receivers.iter_mut().find(|r| {
            let f = &flows[r.flow];
            f.4 == d.sport && f.5 == d.dport && addr[f.2 as usize] == src
        }) else {
            return;
        };
        if d.payload.iter().enumerate().any(|(i, &b)| b != pattern(r.flow as u32, d.seq, i)) {
            r.errors += 1;
        } else if (self.window.0..self.window.1).contains(&now) {
            r.bytes_in_window += d.payload.len() as u64;
        }
    }

    /// A segment from the node with address `src` arrived.
    pub fn on_segment(&mut self, src: u32, seg: &[u8], now: u64, out: &mut Outbox) {
        let Ok((h, data)) = rw::decode(seg) else {
            self.malformed += 1;
            return;
        };
        let t = SimTime(now);
        let flows = &self.flows;
        let addr = &self.addr;
        let me = self.me;
        if let Some(r) = self.receivers.iter_mut().find(|r| {
            let f = &flows[r.flow];
            f.4 == h.sport && f.5 == h.dport && addr[f.2 as usize] == src
        }) {
            let f = &flows[r.flow];
            let pkt = h.packet(Kind::RdpData, r.flow as u32, f.2, me, data.len() as u32, 64, t);
            if pkt.payload > 0
                && pkt.flags & (flags::SYN | flags::RST | flags::NUL) == 0
                && data.iter().enumerate().any(|(i, &b)| b != pattern(r.flow as u32, pkt.seq.0, i))
            {
                r.errors += 1;
                return;
            }
            let d = r.rx.on_segment(&pkt, t, &mut self.out);
            if d.segments > 0 {
                if r.next.is_some_and(|n| n != d.first) {
                    r.errors += 1;
                }
                r.next = Some(d.first + d.segments);
                if (self.window.0..self.window.1).contains(&now) {
                    r.bytes_in_window += d.bytes;
                }
            }
        } else if let Some(s) = self.senders.iter_mut().find(|s| {
            let f = &flows[s.flow];
            f.5 == h.sport && f.4 == h.dport && addr[f.3 as usize] == src
        }) {
            let f = &flows[s.flow];
            let pkt = h.packet(Kind::RdpAck, s.flow as u32, f.3, me, data.len() as u32, 64, t);
            s.tx.on_segment(&pkt, t, &mut self.out);
        }
        self.flush(out);
    }

    /// An authenticated control arrived; false if no sender here has its connection.
    pub fn on_control(&mut self, c: &Control, now: u64) -> bool {
        let (flows, addr, me) = (&self.flows, &self.addr, self.me);
        let Some(s) = self.senders.iter_mut().find(|s| {
            let f = &flows[s.flow];
            addr[me as usize] == c.conn.src && addr[f.3 as usize] == c.conn.dst && f.4 == c.conn.sport && f.5 == c.conn.dport
        }) else {
            return false;
        };
        let f = &flows[s.flow];
        let mut dropped = Packet::rdp(Kind::RdpData, &s.tx.ends, ccsim::rdp::Fields { seq: Seq(c.seq), ..Default::default() }, 0, 64, SimTime(now));
        dropped.src = f.2;
        let state = AccState { cwnd: c.cwnd, ssthresh: c.ssthresh, srtt_us: c.srtt_us, slow_start: c.slow_start, fast_recovery: false };
        let ctl = Packet::acc_control(f.3, &dropped, state, SimTime(now));
        s.tx.on_acc_control(&ctl, SimTime(now));
        true
    }

    /// Opens, times out and closes connections at `now`.
    pub fn poll(&mut self, now: u64, out: &mut Outbox) {
        let t = SimTime(now);
        for s in &mut self.senders {
            if !s.started && now >= s.start {
                s.started = true;
                s.tx.start(t, &mut self.out);
            }
            if s.started && !s.closed && now >= s.stop {
                s.closed = true;
                s.tx.close(t, &mut self.out);
            }
            if s.tx.deadline().is_some_and(|d| d <= t) {
                s.tx.on_timer(t, &mut self.out);
            }
        }
        for r in &mut self.receivers {
            if r.rx.deadline().is_some_and(|d| d <= t) {
                r.rx.on_timer(t);
            }
        }
        self.flush(out);
        // UDP sources send at their schedule's times (a late wake-up sends what was due).
        for u in &mut self.udp_senders {
            if !u.started && now >= u.start {
                u.started = true;
                u.next = u.src.start(SimTime(u.start)).0;
            }
            while u.started && u.next <= now && u.next < u.stop {
                let seq = u.src.stats.packets_sent as u32;
                self.out.clear();
                u.next = u.src.send(SimTime(u.next), &mut self.out).0;
                let f = &self.flows[u.flow];
                let n = u.src.payload as usize;
                self.data[0..2].copy_from_slice(&f.4.to_be_bytes());
                self.data[2..4].copy_from_slice(&f.5.to_be_bytes());
                self.data[4..8].copy_from_slice(&seq.to_be_bytes());
                for i in 0..n {
                    self.data[UDP_BODY + i] = pattern(u.flow as u32, seq, i);
                }
                out.push_body(Type::Udp, self.addr[f.3 as usize], &self.data[..UDP_BODY + n]);
            }
        }
        self.out.clear();
    }

    /// Encodes what the state machines sent, with the data pattern, into `out`.
    fn flush(&mut self, out: &mut Outbox) {
        for pkt in self.out.drain(..) {
            let n = pkt.payload as usize;
            if n > self.data.len() {
                continue;
            }
            for (i, b) in self.data[..n].iter_mut().enumerate() {
                *b = pattern(pkt.flow, pkt.seq.0, i);
            }
            let h = rw::Header::of(&pkt);
            if let Ok(len) = rw::encode(&h, &self.data[..n], &mut self.seg) {
                out.push(self.addr[pkt.dst as usize], &self.seg[..len]);
            }
        }
    }

    pub fn next_wake(&self) -> Option<u64> {
        let s = self.senders.iter().filter_map(|s| match (s.started, s.closed) {
            (false, _) => Some(s.start),
            (true, false) => Some(s.tx.deadline().map_or(s.stop, |d| d.0.min(s.stop))),
            (true, true) => s.tx.deadline().map(|d| d.0),
        });
        let r = self.receivers.iter().filter_map(|r| r.rx.deadline().map(|d| d.0));
        let u = self.udp_senders.iter().filter_map(|u| match u.started {
            false => Some(u.start),
            true => (u.next < u.stop).then_some(u.next),
        });
        s.chain(r).chain(u).min()
    }

    /// One row per connection end here (the caller merges a flow's two ends).
    pub fn flows(&self, window: (u64, u64)) -> Vec<FlowReport> {
        let secs = (window.1 - window.0) as f64 / 1e9;
        let mut rows = Vec::new();
        for s in &self.senders {
            let st = &s.tx.stats;
            rows.push(FlowReport {
                name: self.flows[s.flow].0.clone(),
                group: self.flows[s.flow].1.clone(),
                segments_sent: st.packets_sent,
                retransmissions: st.retransmitted_packets,
                timeouts: st.timeouts,
                fast_retransmits: st.fast_retransmits,
                acc_controls_received: st.acc_controls,
                acc_controls_obeyed: st.acc_reductions,
                ..FlowReport::default()
            });
        }
        for u in &self.udp_senders {
            rows.push(FlowReport {
                name: self.flows[u.flow].0.clone(),
                group: self.flows[u.flow].1.clone(),
                segments_sent: u.src.stats.packets_sent,
                ..FlowReport::default()
            });
        }
        let received = |flow: usize, bytes: u64, errors: u64| FlowReport {
            name: self.flows[flow].0.clone(),
            group: self.flows[flow].1.clone(),
            bytes_delivered: bytes,
            goodput_bps: if secs > 0.0 { bytes as f64 * 8.0 / secs } else { 0.0 },
            delivery_errors: errors,
            ..FlowReport::default()
        };
        rows.extend(self.udp_receivers.iter().map(|r| received(r.flow, r.bytes_in_window, r.errors)));
        rows.extend(self.receivers.iter().map(|r| received(r.flow, r.bytes_in_window, r.errors)));
        rows
    }
}
