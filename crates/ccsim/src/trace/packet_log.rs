//! The per-packet event log: what happened to each packet, where and when, as ns-2's trace
//! file (`+ - d r`) and ns-3's queue and device trace sources tell it. Opt-in (a scenario's
//! `[packet_log]` table), filtered by place, flow and event before anything is kept, and
//! bounded: after `max_events` records, later events are counted and not kept.
//!
//! # Events
//!
//! | event | when | node | link |
//! |---|---|---|---|
//! | `enqueue` | a packet joins a link's egress queue (ns-2 `+`) | the link's sending node | the link |
//! | `dequeue` | it leaves the queue and starts transmission (ns-2 `-`) | the link's sending node | the link |
//! | `mark` | the queue sets ECN CE on it as it joins (it is also enqueued) | the link's sending node | the link |
//! | `drop` | it is lost, with the reason below (ns-2 `d`) | where | the link, if any |
//! | `receive` | it reaches the far end of a link (ns-2 `r`) | the link's receiving node | the link |
//!
//! Drop reasons: `overflow`, `early`, `forced` (the queue's verdict at enqueue, as in the
//! queue table's drop counters; `overflow` also for the packets a discipline that owns its
//! buffer pushes out to make room, as FQ-CoDel does), `dequeue` (a discipline that decides at
//! dequeue, such as CoDel, dropped it as it left the queue), `down` (the link was down, or went down while the packet was queued,
//! being sent or propagating), `wire` (the link's random loss), `no_route`, `ttl`, and
//! `discarded` (a router mechanism absorbed it, such as a needless retransmission that the
//! ACK spoofer discards).
//!
//! For a discipline that decides at enqueue, a packet's dequeue time is known when it is
//! queued (links are FIFO with a fixed rate, see `net::link`), so it is logged then; if the
//! link goes down before that time, the record is withdrawn. A discipline that decides at
//! dequeue logs the dequeue (and a mark made then) when the packet leaves. Records are therefore kept in the order they were logged and sorted by
//! time (stably: events of one instant stay in the order they happened) when taken out.
//!
//! # Cost
//!
//! The engine holds an `Option<Box<PacketLog>>`: without a log, each hook point costs one
//! test of a pointer that is always null. With one, a record is 40 bytes pushed to a
//! vector reserved up front (no allocation per packet); the filters are lookups in
//! per-link, per-node and per-flow tables made when the scenario is built.
//!
//! # Binary form
//!
//! [`PacketLog::to_bytes`] gives the records as consecutive little-endian structs of
//! [`RECORD_BYTES`] bytes, sorted by time, which the Python package reads with NumPy (one
//! `frombuffer`) and writes to Parquet:
//!
//! | bytes | field |
//! |---|---|
//! | 0-7 | time, ns (u64) |
//! | 8-11 | node index (u32) |
//! | 12-15 | link index (u32; `u32::MAX` for none) |
//! | 16-19 | flow index (u32; `u32::MAX` for none) |
//! | 20-23 | sequence number (u32, TCP; 0 otherwise) |
//! | 24-27 | acknowledgement number (u32, TCP; 0 otherwise) |
//! | 28-31 | size on the wire, bytes (u32) |
//! | 32 | event ([`Event`] as u8) |
//! | 33 | drop reason ([`DropReason`] as u8; 0 for none) |
//! | 34 | packet kind ([`PACKET_KINDS`] index) |
//! | 35 | ECN codepoint of the IP header (0-3; [`ECN_CODEPOINTS`] names them) |
//! | 36-39 | zero |

use crate::net::{Kind, LinkId, NodeId, Packet};
use crate::sim::SimTime;

/// What happened to a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Event {
    Enqueue = 0,
    Dequeue = 1,
    Drop = 2,
    Mark = 3,
    Receive = 4,
}

/// Event names, by `Event as u8`: the scenario's `events` keys and the Parquet column.
pub const EVENTS: [&str; 5] = ["enqueue", "dequeue", "drop", "mark", "receive"];

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum DropReason {
    None = 0,
    Overflow = 1,
    Early = 2,
    Forced = 3,
    Down = 4,
    Wire = 5,
    NoRoute = 6,
    Ttl = 7,
    Discarded = 8,
    /// A discipline that decides at dequeue (CoDel) dropped it as it left the queue.
    Dequeue = 9,
}

impl DropReason {
    /// The reason of a drop at enqueue, from the queue's verdict.
    pub fn of(verdict: crate::signal::Verdict) -> DropReason {
        match verdict {
            crate::signal::Verdict::Early => DropReason::Early,
            crate::signal::Verdict::Forced => DropReason::Forced,
            _ => DropReason::Overflow,
        }
    }
}

/// Drop reason names, by `DropReason as u8` (empty for none).
pub const DROP_REASONS: [&str; 10] = ["", "overflow", "early", "forced", "down", "wire", "no_route", "ttl", "discarded", "dequeue"];

/// Packet kind names, in the order of the kind byte.
pub const PACKET_KINDS: [&str; 7] = ["tcp_data", "tcp_ack", "spoofed_ack", "acc_control", "udp", "rdp_data", "rdp_ack"];

/// ECN codepoint names, by the value of the IP header's ECN field (RFC 3168 Section 5):
/// `ect1` is ECT(1), L4S's identifier (RFC 9331).
pub const ECN_CODEPOINTS: [&str; 4] = ["not_ect", "ect1", "ect0", "ce"];

/// Bytes per record in [`PacketLog::to_bytes`].
pub const RECORD_BYTES: usize = 40;

/// Records kept by default before the log stops keeping them (40 MB).
pub const DEFAULT_MAX_EVENTS: usize = 1_000_000;

/// One logged event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub t: SimTime,
    pub node: NodeId,
    /// `u32::MAX` for an event at no link.
    pub link: u32,
    /// `u32::MAX` for a packet of no flow.
    pub flow: u32,
    pub seq: u32,
    pub ack: u32,
    pub size: u32,
    pub event: Event,
    pub reason: DropReason,
    /// Index into [`PACKET_KINDS`].
    pub kind: u8,
    pub ecn: u8,
}

/// `link` or `flow` of a [`Record`] that has none.
pub const NONE: u32 = u32::MAX;

/// Which records a log keeps. Empty selections keep everything of their dimension.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// By event (index `Event as u8`); all when None.
    pub events: Option<[bool; 5]>,
    /// Places: a record is kept if its link is selected or its node is; all when both None.
    pub links: Option<Vec<bool>>,
    pub nodes: Option<Vec<bool>>,
    /// By flow index; packets of no flow are kept only when this is None.
    pub flows: Option<Vec<bool>>,
}

#[derive(Clone, Debug)]
pub struct PacketLog {
    filter: Filter,
    max_events: usize,
    records: Vec<Record>,
    /// Events that passed the filter but were not kept (past `max_events`).
    pub not_kept: u64,
}

impl PacketLog {
    pub fn new(filter: Filter, max_events: usize) -> PacketLog {
        // Reserve up front what a short run needs; longer ones grow by doubling.
        PacketLog { filter, max_events, records: Vec::with_capacity(max_events.min(1 << 16)), not_kept: 0 }
    }

    /// Records kept so far.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Whether the bound was reached and events were left out.
    pub fn truncated(&self) -> bool {
        self.not_kept > 0
    }

    fn wanted(&self, event: Event, node: NodeId, link: u32, flow: u32) -> bool {
        let f = &self.filter;
        if f.events.is_some_and(|e| !e[event as usize]) {
            return false;
        }
        if f.links.is_some() || f.nodes.is_some() {
            let at_link = link != NONE && f.links.as_ref().is_some_and(|l| l[link as usize]);
            let at_node = f.nodes.as_ref().is_some_and(|n| n[node as usize]);
            if !at_link && !at_node {
                return false;
            }
        }
        match &f.flows {
            None => true,
            Some(sel) => sel.get(flow as usize).copied().unwrap_or(false),
        }
    }

    /// Logs `event` for `pkt` at `node` (and `link`, if the event happened at one), at `t`.
    pub fn log(&mut self, t: SimTime, event: Event, reason: DropReason, node: NodeId, link: Option<LinkId>, pkt: &Packet) {
        let link = link.unwrap_or(NONE);
        if !self.wanted(event, node, link, pkt.flow) {
            return;
        }
        if self.records.len() >= self.max_events {
            self.not_kept += 1;
            return;
        }
        let tcp = matches!(pkt.kind, Kind::TcpData | Kind::TcpAck | Kind::SpoofedAck);
        self.records.push(Record {
            t,
            node,
            link,
            flow: pkt.flow,
            seq: if tcp { pkt.seq.0 } else { 0 },
            ack: if tcp { pkt.ack.0 } else { 0 },
            size: pkt.size,
            event,
            reason,
            kind: kind_index(pkt.kind),
            ecn: pkt.ecn as u8,
        });
    }

    /// Withdraws the dequeues logged for `link` after `now`: the link went down and its
    /// queued packets never started transmission (they are logged as drops instead).
    pub fn withdraw_dequeues(&mut self, link: LinkId, now: SimTime) {
        self.records.retain(|r| !(r.event == Event::Dequeue && r.link == link && r.t > now));
    }

    /// The records of events up to `now` (a dequeue is logged ahead of its time), sorted
    /// by time, stably: events of one instant in the order they happened.
    pub fn records(&self, now: SimTime) -> Vec<Record> {
        let mut sorted: Vec<Record> = self.records.iter().filter(|r| r.t <= now).copied().collect();
        sorted.sort_by_key(|r| r.t);
        sorted
    }

    /// [`records`](Self::records) as [`RECORD_BYTES`]-byte little-endian structs.
    pub fn to_bytes(&self, now: SimTime) -> Vec<u8> {
        let sorted = self.records(now);
        let mut out = Vec::with_capacity(sorted.len() * RECORD_BYTES);
        for r in &sorted {
            out.extend_from_slice(&r.t.as_nanos().to_le_bytes());
            for v in [r.node, r.link, r.flow, r.seq, r.ack, r.size] {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(&[r.event as u8, r.reason as u8, r.kind, r.ecn, 0, 0, 0, 0]);
        }
        out
    }
}

fn kind_index(kind: Kind) -> u8 {
    match kind {
        Kind::TcpData => 0,
        Kind::TcpAck => 1,
        Kind::SpoofedAck => 2,
        Kind::AccControl => 3,
        Kind::Udp => 4,
        Kind::RdpData => 5,
        Kind::RdpAck => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Seq;
    use crate::packet::{Endpoints, Packet};

    fn pkt(flow: u32) -> Packet {
        let ends = Endpoints { flow, sender: 0, receiver: 3, sport: 1, dport: 2 };
        Packet::tcp_data(&ends, Seq(1000), 1000, 64, SimTime::ZERO)
    }

    fn at(ns: u64) -> SimTime {
        SimTime(ns)
    }

    fn events(log: &PacketLog) -> Vec<(u64, u8, u32)> {
        log.to_bytes(SimTime::MAX)
            .chunks(RECORD_BYTES)
            .map(|c| (u64::from_le_bytes(c[0..8].try_into().unwrap()), c[32], u32::from_le_bytes(c[12..16].try_into().unwrap())))
            .collect()
    }

    #[test]
    fn records_are_sorted_by_time_stably_and_laid_out_as_documented() {
        let mut log = PacketLog::new(Filter::default(), 10);
        let p = pkt(2);
        log.log(at(5), Event::Enqueue, DropReason::None, 1, Some(4), &p);
        log.log(at(9), Event::Dequeue, DropReason::None, 1, Some(4), &p);
        log.log(at(5), Event::Mark, DropReason::None, 1, Some(4), &p);
        log.log(at(7), Event::Drop, DropReason::Early, 2, None, &p);
        assert_eq!(events(&log), [(5, 0, 4), (5, 3, 4), (7, 2, NONE), (9, 1, 4)]);
        let b = log.to_bytes(SimTime::MAX);
        assert_eq!(b.len(), 4 * RECORD_BYTES);
        let drop = &b[2 * RECORD_BYTES..3 * RECORD_BYTES];
        assert_eq!(u32::from_le_bytes(drop[8..12].try_into().unwrap()), 2, "node");
        assert_eq!(u32::from_le_bytes(drop[16..20].try_into().unwrap()), 2, "flow");
        assert_eq!(u32::from_le_bytes(drop[20..24].try_into().unwrap()), 1000, "seq");
        assert_eq!(u32::from_le_bytes(drop[28..32].try_into().unwrap()), 1040, "size on the wire");
        assert_eq!(&drop[32..36], &[Event::Drop as u8, DropReason::Early as u8, 0, 0]);
        assert_eq!(DROP_REASONS[DropReason::Early as usize], "early");
        assert_eq!(EVENTS[Event::Receive as usize], "receive");
    }

    #[test]
    fn each_ecn_codepoint_is_kept_as_on_the_wire_and_named() {
        use crate::packet::Ecn;
        let mut log = PacketLog::new(Filter::default(), 10);
        let codepoints = [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce];
        for (i, ecn) in codepoints.into_iter().enumerate() {
            log.log(at(i as u64), Event::Enqueue, DropReason::None, 1, Some(4), &Packet { ecn, ..pkt(2) });
        }
        let bytes = log.to_bytes(SimTime::MAX);
        let names: Vec<&str> = bytes.chunks(RECORD_BYTES).map(|c| ECN_CODEPOINTS[c[35] as usize]).collect();
        assert_eq!(names, ["not_ect", "ect1", "ect0", "ce"]);
        assert_eq!(ECN_CODEPOINTS[Ecn::Ect1 as usize], "ect1");
    }

    #[test]
    fn filters_select_events_places_and_flows() {
        let filter = Filter {
            events: Some([true, false, true, true, true]),
            links: Some(vec![false, true]),
            nodes: Some(vec![false, false, true]),
            flows: Some(vec![true, false]),
        };
        let mut log = PacketLog::new(filter, 100);
        log.log(at(1), Event::Enqueue, DropReason::None, 0, Some(1), &pkt(0)); // kept: link 1
        log.log(at(2), Event::Dequeue, DropReason::None, 0, Some(1), &pkt(0)); // no dequeues
        log.log(at(3), Event::Enqueue, DropReason::None, 0, Some(0), &pkt(0)); // link 0 at node 0
        log.log(at(4), Event::Drop, DropReason::NoRoute, 2, None, &pkt(0)); // kept: node 2
        log.log(at(5), Event::Enqueue, DropReason::None, 0, Some(1), &pkt(1)); // flow 1
        log.log(at(6), Event::Enqueue, DropReason::None, 0, Some(1), &pkt(7)); // no such flow
        assert_eq!(events(&log).iter().map(|e| e.0).collect::<Vec<_>>(), [1, 4]);
    }

    #[test]
    fn the_bound_keeps_the_first_events_and_counts_the_rest() {
        let mut log = PacketLog::new(Filter::default(), 3);
        for t in 0..10 {
            log.log(at(t), Event::Receive, DropReason::None, 0, Some(0), &pkt(0));
        }
        assert_eq!((log.len(), log.not_kept, log.truncated()), (3, 7, true));
        assert_eq!(events(&log).len(), 3);
        assert_eq!(log.records(at(1)).len(), 2, "events up to a time");
    }

    #[test]
    fn a_link_going_down_withdraws_its_future_dequeues_only() {
        let mut log = PacketLog::new(Filter::default(), 10);
        let p = pkt(0);
        log.log(at(1), Event::Dequeue, DropReason::None, 0, Some(0), &p);
        log.log(at(8), Event::Dequeue, DropReason::None, 0, Some(0), &p);
        log.log(at(9), Event::Dequeue, DropReason::None, 0, Some(1), &p);
        log.log(at(9), Event::Enqueue, DropReason::None, 0, Some(0), &p);
        log.withdraw_dequeues(0, at(5));
        assert_eq!(events(&log), [(1, 1, 0), (9, 1, 1), (9, 0, 0)]);
    }
}
