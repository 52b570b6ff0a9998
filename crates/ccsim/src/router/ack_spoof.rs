//! ACK spoofing (Xu & Molle, "RED with ACK Spoofing"): a router signals congestion to a TCP
//! sender by sending it duplicate ACKs that it makes itself, so that fast retransmit and
//! fast recovery halve the sender's window without a packet being lost and without ECN.
//!
//! # What the router keeps
//!
//! Partial per-flow state in a [`FlowTable`]: an entry is created when a queue of this
//! router signals congestion for one of the flow's data packets, and from then on every real
//! ACK of the flow that passes updates it, until the entry is evicted (least recently used
//! of its bucket). Per flow: the highest real ACK number seen (modulo 2^32) with its
//! advertised window (the paper's `th_ack`, `th_win`), the largest payload seen (the MSS),
//! whether a spoof is pending, the number of the last spoofs until a new ACK passes, the
//! signals since the last real ACK, the asymmetric flag and the retransmissions still to
//! discard.
//!
//! # On a congestion signal for a data packet ([`AckSpoofer::on_signal`])
//!
//! - If the flow is asymmetric (see below), the signal becomes a plain drop.
//! - If a spoof for the flow is pending, or was sent and no real ACK above its number has
//!   passed since, the signal is absorbed: the sender is already being told, and until a
//!   new ACK reaches it after the spoofs it is in the fast recovery they started, where
//!   more duplicates would only inflate its window.
//! - Otherwise, when the flow's `th_ack`/`th_win` are known and `spoof_below_real_ack` is
//!   off, `dupacks` spoofed ACKs numbered `th_ack` go to the sender at once (the paper's
//!   Fig. 1 and 2: data 301 signalled while the highest ACK seen is 201 gives three ACKs
//!   201). Else the spoof is pending until the flow's next real ACK passes this router.
//!
//! # On the flow's next real ACK `A` ([`AckSpoofer::on_arrival`])
//!
//! Without `spoof_below_real_ack`, the real ACK is forwarded and the spoofs follow it,
//! numbered with the highest ACK seen (now `A`). With it (the default), the spoofs go just
//! *before* the real ACK, numbered one segment below it: the previous real ACK of the flow
//! when the router saw one, else `A - MSS`.
//!
//! # Spoofing below the real ACK, against a standard sender
//!
//! The paper hopes the sender then reduces its window "but without sending a wasted
//! duplicate packet (because of the real ACK)". Against an RFC 5681 (or RFC 6582) sender:
//!
//! - The spoofs are duplicates only if they carry exactly the sender's `snd_una` when they
//!   arrive, which is the flow's previous ACK. That is `A - MSS` when the receiver
//!   acknowledges every full segment; with delayed ACKs or after a hole is filled it is
//!   not, and `A - MSS` would be a new ACK (and no signal). Hence the previous real ACK is
//!   used whenever the router has seen it.
//! - The window is halved: the third duplicate sets `ssthresh = FlightSize / 2`, and the
//!   real ACK that follows at once ends a Reno sender's fast recovery with
//!   `cwnd = ssthresh`.
//! - The needless retransmission is *not* avoided: RFC 5681 retransmits `snd_una` on the
//!   third duplicate, before the real ACK arrives. What the real ACK gives is proof that
//!   the retransmission is needless (the receiver acknowledged past it), so the router can
//!   drop it safely. "No needless retransmission reaches the receiver" thus holds only
//!   with `discard_retransmission`, which is why that option defaults to the value of
//!   `spoof_below_real_ack`.
//! - A NewReno sender (RFC 6582) takes the real ACK as a *partial* ACK (it is below
//!   `recover`, the highest sequence sent), stays in fast recovery and retransmits the
//!   next segment, and again on every ACK up to `recover`: up to a window of needless
//!   retransmissions per spoof, of which the router discards only the first. ACK spoofing
//!   as the paper describes it assumes Reno, the paper's sender (Stevens' model
//!   implementation).
//!
//! Spoofs are duplicates only while the router sees the same ACK stream as the sender: an
//! ACK lost between the router and the sender, or reordered, makes them new or stale ACKs
//! at the sender, and the signal is lost.
//!
//! # Discarding the needless retransmission
//!
//! With `discard_retransmission`, each burst lets the router discard one data packet of the
//! flow that is provably needless: its whole segment lies below the highest real ACK seen,
//! so the receiver has it. The retransmission a burst provokes (of the spoofed ACK number)
//! is such a packet as soon as the receiver has acknowledged past it, which below the real
//! ACK is at once; a packet the receiver may still need (the original on its way, or a
//! retransmission of a real loss) is never discarded. Counting discards rather than
//! remembering one sequence number per flow keeps two bursts close together (the second
//! before the first retransmission arrives) from losing one discard. Discards not used
//! within `pending_timeout` of the last burst are forgotten. The engine counts a discard
//! as a drop of the flow, so packet conservation holds.
//!
//! # Asymmetric paths
//!
//! A flow whose real ACKs do not pass this router cannot be spoofed. After
//! `asymmetric_threshold` signals of the flow with no real ACK of it passing in between
//! (the first of them set a spoof pending, or sent one), the flow is treated as asymmetric:
//! its pending spoof expires and every later signal falls back to a drop, until the first
//! real ACK of the flow clears it.
//!
//! A count cannot tell an asymmetric path from a train of signals on a symmetric one: once
//! the average queue is past `max_th` every arrival is signalled, and a slow-start train of
//! a flow can reach the router with none of its ACKs in between. That flow then gets drops
//! until its next ACK passes (P1 Network 1 with the default threshold of 3: about sixty
//! such detections in the start-up, one or two in 15 s of steady state). A larger threshold
//! trades slower detection for fewer of them.
//!
//! # Pending spoofs that expire
//!
//! A pending spoof *expires* when it ends without spoofs being sent: its entry is evicted,
//! or it is older than `pending_timeout` when the flow is next seen (a signal or a real
//! ACK), or the flow is declared asymmetric. An expiry is detected lazily, so a pending spoof
//! whose flow is never seen again stays pending (reported as `pending_now`).

use super::flow_table::{FlowKey, FlowTable};
use super::hooks::{BuildContext, Cx, Hooks, Passage as Verdict, RouterMechanism};
use crate::net::{LinkId, NodeId, NodeKind};
use crate::packet::Seq;
use crate::packet::{Endpoints, Kind, Packet};
use crate::queue;
use crate::settings::error::{fail, BuildError};
use crate::settings::schema::AckSpoofingSpec;
use crate::signal::{Action, SignalPolicy};
use crate::sim::{Dur, SimTime};
use crate::stats::counters;

/// TTL of the ACKs a router makes.
pub const SPOOF_TTL: u8 = crate::packet::ROUTER_TTL;

#[derive(Clone, Debug, PartialEq)]
pub struct SpoofConfig {
    /// Spoofed duplicates per signal: the sender's duplicate-ACK threshold (RFC 5681: 3).
    pub dupacks: u32,
    /// Send the spoofs just before the flow's next real ACK, one segment below it.
    pub below_real_ack: bool,
    /// Drop the needless retransmission a spoof provokes, once, when it passes.
    pub discard_retransmission: bool,
    /// Flow-table entries (rounded up to a power of two).
    pub table_size: usize,
    /// Signals without a real ACK after which a flow is treated as asymmetric.
    pub asymmetric_threshold: u32,
    /// Age at which a pending spoof or an armed discard is given up.
    pub pending_timeout: Dur,
}

impl Default for SpoofConfig {
    fn default() -> Self {
        SpoofConfig {
            dupacks: 3,
            below_real_ack: true,
            discard_retransmission: true,
            table_size: 1024,
            asymmetric_threshold: 3,
            // A few round trips of the paper's networks, and above the 200 ms minimum RTO.
            pending_timeout: Dur::from_millis(500),
        }
    }
}

counters! {
    /// Cumulative counters of one router's spoofer.
    pub struct SpoofStats {
        /// Congestion signals handed to the spoofer (`EnqueueAndSpoof`, `DropAndSpoof`).
        pub signals: u64,
        /// Bursts of spoofed duplicates sent (a spoof event).
        pub spoof_events: u64,
        /// Spoofed ACKs sent (a burst is `dupacks` ACKs).
        pub spoofed_acks_sent: u64,
        /// Signals that sent nothing new: a spoof for the flow was pending, or sent and not
        /// yet followed by a real ACK above its number.
        pub signals_absorbed: u64,
        /// Signals that had to wait for the flow's next real ACK.
        pub pending_set: u64,
        /// Pending spoofs sent when the flow's next real ACK passed.
        pub pending_resolved: u64,
        /// Pending spoofs that ended unsent (evicted, older than the timeout, or the flow
        /// declared asymmetric).
        pub pending_expired: u64,
        /// Needless retransmissions dropped at the router (counted as the flow's drops).
        pub retransmissions_discarded: u64,
        /// Signals turned into plain drops because the flow is asymmetric.
        pub fallback_drops: u64,
        /// Times a flow was declared asymmetric.
        pub asymmetric_detected: u64,
        /// Entries evicted from the full buckets of the flow table.
        pub evictions: u64,
    }
}

/// `count` copies of a spoofed ACK to send.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Burst {
    pub pkt: Packet,
    pub count: u32,
}

/// What the router does with a packet arriving at it, before forwarding.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Passage {
    Forward,
    /// Drop it: a needless retransmission.
    Discard,
    /// Send the burst, then forward the packet.
    SpoofBefore(Burst),
    /// Forward the packet, then send the burst.
    SpoofAfter(Burst),
}

/// The last real ACK of a flow: number, window and the receiver's sequence number.
#[derive(Clone, Copy, Debug)]
struct RealAck {
    ack: Seq,
    wnd: u32,
    seq: Seq,
}

#[derive(Clone, Copy, Debug, Default)]
struct FlowState {
    /// The highest real ACK seen (`th_ack`, `th_win`).
    last: Option<RealAck>,
    /// Largest payload seen on the flow's data packets.
    mss: u32,
    pending_since: Option<SimTime>,
    /// The number of the last spoofs and when they were sent, until a real ACK above it
    /// passes.
    spoofed: Option<(Seq, SimTime)>,
    /// Signals since the last real ACK of the flow.
    unanswered: u32,
    asymmetric: bool,
    /// Needless data packets still to discard, and when the last burst armed them.
    discard: Option<(u32, SimTime)>,
}

#[derive(Clone, Debug)]
pub struct AckSpoofer {
    cfg: SpoofConfig,
    table: FlowTable<FlowState>,
    /// Entries with discards armed: data packets are looked up only while there are some.
    armed: u32,
    pub stats: SpoofStats,
}

fn key(e: &Endpoints) -> FlowKey {
    FlowKey::new(e.sender, e.receiver, e.sport, e.dport)
}

impl AckSpoofer {
    pub fn new(cfg: SpoofConfig) -> AckSpoofer {
        AckSpoofer { table: FlowTable::new(cfg.table_size), cfg, armed: 0, stats: SpoofStats::default() }
    }

    pub fn config(&self) -> &SpoofConfig {
        &self.cfg
    }
    pub fn table_occupancy(&self) -> usize {
        self.table.len()
    }
    pub fn table_capacity(&self) -> usize {
        self.table.capacity()
    }
    /// Flows with a spoof pending now.
    pub fn pending_now(&self) -> usize {
        self.table.values().filter(|s| s.pending_since.is_some()).count()
    }

    /// A queue of this router signalled congestion with `action` (`EnqueueAndSpoof` or
    /// `DropAndSpoof`) for data packet `pkt`. Returns the action to commit (a plain drop for
    /// an asymmetric flow) and the spoofs to send now, if any.
    pub fn on_signal(&mut self, pkt: &Packet, action: Action, now: SimTime) -> (Action, Option<Burst>) {
        let AckSpoofer { cfg, table, armed, stats } = self;
        stats.signals += 1;
        let ends = Endpoints::of_forward(pkt);
        let (st, evicted) = table.entry(&key(&ends));
        if let Some(old) = evicted {
            stats.evictions += 1;
            stats.pending_expired += old.pending_since.is_some() as u64;
            *armed -= old.discard.is_some() as u32;
        }
        expire(st, cfg, stats, armed, now);
        st.mss = st.mss.max(pkt.payload);
        if st.asymmetric || st.unanswered >= cfg.asymmetric_threshold {
            if !st.asymmetric {
                st.asymmetric = true;
                stats.asymmetric_detected += 1;
                stats.pending_expired += st.pending_since.take().is_some() as u64;
            }
            stats.fallback_drops += 1;
            return (Action::Drop, None);
        }
        st.unanswered += 1;
        if st.pending_since.is_some() || st.spoofed.is_some() {
            stats.signals_absorbed += 1;
            return (action, None);
        }
        match st.last {
            Some(last) if !cfg.below_real_ack => (action, Some(burst(st, cfg, stats, armed, ends, last, now))),
            _ => {
                st.pending_since = Some(now);
                stats.pending_set += 1;
                (action, None)
            }
        }
    }

    /// A packet arrives at this router (not addressed to it), before it is forwarded: real
    /// ACKs update their flow's state and release pending spoofs; data packets are checked
    /// against armed discards.
    pub fn on_arrival(&mut self, pkt: &Packet, now: SimTime) -> Passage {
        match pkt.kind {
            Kind::TcpAck => self.on_real_ack(pkt, now),
            Kind::TcpData if self.armed > 0 => self.check_retransmission(pkt, now),
            _ => Passage::Forward,
        }
    }

    fn on_real_ack(&mut self, pkt: &Packet, now: SimTime) -> Passage {
        let AckSpoofer { cfg, table, armed, stats } = self;
        let ends = Endpoints::of_reverse(pkt);
        let Some(st) = table.get_mut(&key(&ends)) else { return Passage::Forward };
        expire(st, cfg, stats, armed, now);
        let previous = st.last;
        let real = RealAck { ack: pkt.ack, wnd: pkt.wnd, seq: pkt.seq };
        if previous.is_none_or(|p| real.ack >= p.ack) {
            st.last = Some(real);
        }
        st.unanswered = 0;
        st.asymmetric = false;
        let passage = if st.pending_since.take().is_none() {
            Passage::Forward
        } else {
            stats.pending_resolved += 1;
            if cfg.below_real_ack {
                let below = previous.unwrap_or(RealAck { ack: real.ack - st.mss, ..real });
                Passage::SpoofBefore(burst(st, cfg, stats, armed, ends, below, now))
            } else {
                Passage::SpoofAfter(burst(st, cfg, stats, armed, ends, st.last.unwrap_or(real), now))
            }
        };
        // A new ACK reaching the sender after the spoofs ends the fast recovery they start.
        if st.spoofed.is_some_and(|(n, _)| real.ack > n) {
            st.spoofed = None;
        }
        passage
    }

    fn check_retransmission(&mut self, pkt: &Packet, now: SimTime) -> Passage {
        let AckSpoofer { cfg, table, armed, stats } = self;
        let Some(st) = table.get_mut(&key(&Endpoints::of_forward(pkt))) else { return Passage::Forward };
        expire(st, cfg, stats, armed, now);
        let Some((left, since)) = st.discard else { return Passage::Forward };
        // Needless only if the receiver has acknowledged all of it.
        let needless = st.last.is_some_and(|l| pkt.seq + pkt.payload <= l.ack);
        if !needless {
            return Passage::Forward;
        }
        st.discard = (left > 1).then_some((left - 1, since));
        *armed -= st.discard.is_none() as u32;
        stats.retransmissions_discarded += 1;
        Passage::Discard
    }
}

/// Gives up a pending spoof or an armed discard older than the timeout.
fn expire(st: &mut FlowState, cfg: &SpoofConfig, stats: &mut SpoofStats, armed: &mut u32, now: SimTime) {
    let stale = |t: SimTime| now.since(t) > cfg.pending_timeout;
    if st.pending_since.is_some_and(stale) {
        st.pending_since = None;
        stats.pending_expired += 1;
    }
    if st.spoofed.is_some_and(|(_, t)| stale(t)) {
        st.spoofed = None;
    }
    if st.discard.is_some_and(|(_, t)| stale(t)) {
        st.discard = None;
        *armed -= 1;
    }
}

/// The spoofed duplicates of `acked` for the flow `ends`, arming the discard of the
/// retransmission they provoke.
fn burst(st: &mut FlowState, cfg: &SpoofConfig, stats: &mut SpoofStats, armed: &mut u32, ends: Endpoints, acked: RealAck, now: SimTime) -> Burst {
    stats.spoof_events += 1;
    stats.spoofed_acks_sent += cfg.dupacks as u64;
    st.spoofed = Some((acked.ack, now));
    if cfg.discard_retransmission {
        *armed += st.discard.is_none() as u32;
        st.discard = Some((st.discard.map_or(1, |(left, _)| left + 1), now));
    }
    let pkt = Packet::spoofed_ack(&ends, acked.seq, acked.ack, acked.wnd, now);
    Burst { pkt, count: cfg.dupacks }
}

impl SpoofConfig {
    /// Bytes one router's spoofer takes with a table of `table_size` entries (for the
    /// scenario's memory estimate).
    pub fn footprint(table_size: usize) -> u64 {
        FlowTable::<FlowState>::footprint(table_size) + std::mem::size_of::<AckSpoofer>() as u64
    }

    /// The configuration the scenario's `[ack_spoofing]` table gives, each option checked.
    pub fn from_spec(spec: &AckSpoofingSpec) -> Result<SpoofConfig, BuildError> {
        let p = "ack_spoofing";
        let mut cfg = SpoofConfig::default();
        if let Some(n) = spec.dupacks {
            if !(1..=64).contains(&n) {
                return fail(format!("{p}.dupacks"), format!("must be between 1 and 64, got {n}"));
            }
            cfg.dupacks = n;
        }
        cfg.below_real_ack = spec.spoof_below_real_ack.unwrap_or(cfg.below_real_ack);
        cfg.discard_retransmission = spec.discard_retransmission.unwrap_or(cfg.below_real_ack);
        if let Some(n) = spec.table_size {
            if !(1..=1 << 24).contains(&n) {
                return fail(format!("{p}.table_size"), format!("must be between 1 and 16777216 entries, got {n}"));
            }
            cfg.table_size = n as usize;
        }
        if let Some(n) = spec.asymmetric_threshold {
            if n == 0 {
                return fail(format!("{p}.asymmetric_threshold"), "must be at least 1 signal");
            }
            cfg.asymmetric_threshold = n;
        }
        if let Some(t) = spec.pending_timeout {
            if t.0 <= 0.0 {
                return fail(format!("{p}.pending_timeout"), "must be positive");
            }
            cfg.pending_timeout = t.dur();
        }
        Ok(cfg)
    }
}

/// ACK spoofing as a router mechanism: one [`AckSpoofer`] at every router with a spoofing
/// queue, fed each real ACK and data packet passing the router and each spoofing signal of
/// its queues. A spoofing signal at a node without a spoofer sends nothing.
#[derive(Clone, Debug)]
pub struct AckSpoofing {
    /// By node.
    spoofers: Vec<Option<AckSpoofer>>,
    /// Counters of each router's spoofer at the end of the warm-up (zero before).
    baseline: Vec<SpoofStats>,
}

impl AckSpoofing {
    /// A spoofer at each of `routers`, configured by `cfg`, in a network of `n_nodes`.
    pub fn new(cfg: &SpoofConfig, routers: impl IntoIterator<Item = NodeId>, n_nodes: usize) -> AckSpoofing {
        let mut spoofers = vec![None; n_nodes];
        for r in routers {
            spoofers[r as usize].get_or_insert_with(|| AckSpoofer::new(cfg.clone()));
        }
        AckSpoofing { spoofers, baseline: vec![SpoofStats::default(); n_nodes] }
    }

    /// Spoofers at the routers whose queues signal by spoofing; None when no queue does.
    /// The `[ack_spoofing]` options are checked even then.
    pub fn build(cx: &BuildContext) -> Result<Option<AckSpoofing>, BuildError> {
        let cfg = cx.scenario.ack_spoofing.as_ref().map_or(Ok(SpoofConfig::default()), SpoofConfig::from_spec)?;
        let mut heads = Vec::new();
        for (l, link) in cx.net.links.iter().enumerate() {
            if link.queue.policy != SignalPolicy::Spoof {
                continue;
            }
            let head = &cx.net.nodes[link.from as usize];
            if head.kind == NodeKind::Host {
                return fail(
                    format!("{}.signal", cx.link_queues[l].0),
                    format!("\"spoof\" is for routers: the queue of {} is at host {:?}", link.name, head.name),
                );
            }
            heads.push(link.from);
        }
        Ok((!heads.is_empty()).then(|| AckSpoofing::new(&cfg, heads, cx.net.nodes.len())))
    }

    /// The counters of `node`'s spoofer since the end of the warm-up.
    pub fn measured(&self, node: NodeId) -> Option<SpoofStats> {
        Some(self.at(node)?.stats.delta(&self.baseline[node as usize]))
    }

    /// The spoofers with their nodes, in node order.
    pub fn by_node(&self) -> impl Iterator<Item = (NodeId, &AckSpoofer)> {
        self.spoofers.iter().enumerate().filter_map(|(n, sp)| Some((n as NodeId, sp.as_ref()?)))
    }

    /// The spoofers, in node order.
    pub fn spoofers(&self) -> impl Iterator<Item = &AckSpoofer> {
        self.spoofers.iter().flatten()
    }

    /// The spoofer of router `node`, if it has one.
    pub fn at(&self, node: NodeId) -> Option<&AckSpoofer> {
        self.spoofers.get(node as usize)?.as_ref()
    }

    fn send(cx: &mut Cx, node: NodeId, b: Burst, first: bool) {
        for _ in 0..b.count {
            if first {
                cx.send_first(node, b.pkt);
            } else {
                cx.send(node, b.pkt);
            }
        }
    }
}

impl RouterMechanism for AckSpoofing {
    fn hooks(&self) -> Hooks {
        Hooks::ARRIVAL | Hooks::VERDICT
    }

    fn on_arrival(&mut self, node: NodeId, pkt: &Packet, cx: &mut Cx) -> Verdict {
        let Some(sp) = self.spoofers[node as usize].as_mut() else { return Verdict::Forward };
        match sp.on_arrival(pkt, cx.now) {
            Passage::Forward => Verdict::Forward,
            Passage::Discard => Verdict::Discard,
            Passage::SpoofBefore(b) => {
                Self::send(cx, node, b, true);
                Verdict::Forward
            }
            Passage::SpoofAfter(b) => {
                Self::send(cx, node, b, false);
                Verdict::Forward
            }
        }
    }

    fn on_verdict(&mut self, link: LinkId, pkt: &Packet, _verdict: queue::Verdict, action: Action, cx: &mut Cx) -> Action {
        if !action.spoofs() {
            return action;
        }
        let node = cx.net.links[link as usize].from;
        let Some(sp) = self.spoofers[node as usize].as_mut() else { return action };
        let (action, burst) = sp.on_signal(pkt, action, cx.now);
        if let Some(b) = burst {
            Self::send(cx, node, b, false);
        }
        action
    }

    fn begin_measurement(&mut self) {
        for (base, sp) in self.baseline.iter_mut().zip(&self.spoofers) {
            *base = sp.as_ref().map_or_else(SpoofStats::default, |sp| sp.stats);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{flags, TCP_IP_HEADER};

    const MSS: u32 = 100;
    const WND: u32 = 8000;

    fn t(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    const ENDS: Endpoints = Endpoints { flow: 7, sender: 1, receiver: 2, sport: 10_000, dport: 80 };

    fn data(seq: u32) -> Packet {
        Packet::tcp_data(&ENDS, Seq(seq), MSS, 63, SimTime::ZERO)
    }

    fn ack(n: u32) -> Packet {
        Packet { ttl: 63, ..Packet::tcp_ack(&ENDS, Seq(n), WND, 64, SimTime::ZERO) }
    }

    fn spoofer(below: bool) -> AckSpoofer {
        AckSpoofer::new(SpoofConfig { below_real_ack: below, discard_retransmission: true, ..SpoofConfig::default() })
    }

    /// The burst of a passage, whatever its side.
    fn burst_of(p: Passage) -> Option<Burst> {
        match p {
            Passage::SpoofBefore(b) | Passage::SpoofAfter(b) => Some(b),
            _ => None,
        }
    }

    fn signal(sp: &mut AckSpoofer, seq: u32, now: SimTime) -> (Action, Option<Burst>) {
        sp.on_signal(&data(seq), Action::EnqueueAndSpoof, now)
    }

    /// Makes the router learn the flow: a signal on data 1 (spoofed at real ACK 101), then
    /// real ACK 201 passes.
    fn learn_201(sp: &mut AckSpoofer) {
        assert_eq!(signal(sp, 1, t(0)), (Action::EnqueueAndSpoof, None), "nothing known yet: pending");
        assert!(burst_of(sp.on_arrival(&ack(101), t(1))).is_some());
        assert_eq!(sp.on_arrival(&ack(201), t(1)), Passage::Forward);
    }

    #[test]
    fn fig2_data_301_signalled_after_ack_201_spoofs_three_acks_201() {
        let mut sp = spoofer(false);
        learn_201(&mut sp);
        let (action, burst) = signal(&mut sp, 301, t(2));
        assert_eq!(action, Action::EnqueueAndSpoof, "the packet is still queued");
        let b = burst.expect("th_ack and th_win known: spoof at once");
        assert_eq!(b.count, 3);
        let p = b.pkt;
        assert_eq!((p.kind, p.ack, p.wnd), (Kind::SpoofedAck, Seq(201), WND));
        assert_eq!((p.src, p.dst, p.sport, p.dport, p.flow), (2, 1, 80, 10_000, 7), "from the receiver to the sender");
        assert_eq!((p.ttl, p.size, p.payload, p.flags), (SPOOF_TTL, TCP_IP_HEADER, 0, flags::ACK));
    }

    #[test]
    fn fig2_unknown_state_waits_for_the_next_real_ack() {
        // Plain: after the real ACK, numbered with it (the highest seen).
        let mut sp = spoofer(false);
        assert_eq!(signal(&mut sp, 301, t(0)).1, None);
        assert_eq!(sp.stats.pending_set, 1);
        match sp.on_arrival(&ack(301), t(1)) {
            Passage::SpoofAfter(b) => assert_eq!((b.pkt.ack, b.pkt.wnd, b.count), (Seq(301), WND, 3)),
            other => panic!("{other:?}"),
        }
        // Below the real ACK: before it, one MSS below.
        let mut sp = spoofer(true);
        signal(&mut sp, 301, t(0));
        match sp.on_arrival(&ack(301), t(1)) {
            Passage::SpoofBefore(b) => assert_eq!((b.pkt.ack, b.pkt.wnd), (Seq(201), WND)),
            other => panic!("{other:?}"),
        }
        assert_eq!((sp.stats.pending_resolved, sp.stats.spoof_events, sp.stats.spoofed_acks_sent), (1, 1, 3));
        assert_eq!(sp.on_arrival(&ack(401), t(2)), Passage::Forward, "resolved: nothing more");
    }

    #[test]
    fn below_real_ack_uses_the_previous_ack_when_it_saw_one() {
        // With delayed ACKs the real ACK jumps two segments: 301 -> 501. Only 301 is a
        // duplicate for the sender; 501 - MSS = 401 would be a new ACK.
        let mut sp = spoofer(true);
        signal(&mut sp, 101, t(0));
        sp.on_arrival(&ack(301), t(1));
        signal(&mut sp, 501, t(2));
        assert_eq!(burst_of(sp.on_arrival(&ack(501), t(3))).unwrap().pkt.ack, Seq(301));
    }

    #[test]
    fn ack_numbers_wrap_modulo_2_32() {
        let top = u32::MAX - 49; // 2^32 - 50
        let mut sp = spoofer(false);
        signal(&mut sp, top - 100, t(0));
        sp.on_arrival(&ack(top), t(1));
        sp.on_arrival(&ack(top.wrapping_add(MSS)), t(2)); // wraps to 50
        sp.on_arrival(&ack(top), t(3)); // reordered, older: not the highest
        let b = signal(&mut sp, 150, t(4)).1.unwrap();
        assert_eq!(b.pkt.ack, Seq(50), "highest across the wrap");
        // Below the real ACK, with no previous ACK known: one MSS below, across zero.
        let mut sp = spoofer(true);
        signal(&mut sp, 0, t(0));
        assert_eq!(burst_of(sp.on_arrival(&ack(50), t(1))).unwrap().pkt.ack, Seq(top));
    }

    #[test]
    fn signals_while_a_spoof_is_outstanding_are_absorbed() {
        let mut sp = spoofer(false);
        learn_201(&mut sp);
        assert_eq!(signal(&mut sp, 301, t(2)).1.unwrap().pkt.ack, Seq(201));
        assert_eq!(signal(&mut sp, 401, t(3)), (Action::EnqueueAndSpoof, None), "no real ACK since the burst");
        sp.on_arrival(&ack(201), t(4));
        assert_eq!(signal(&mut sp, 501, t(5)).1, None, "a real duplicate does not end the sender's recovery");
        sp.on_arrival(&ack(301), t(6));
        assert_eq!(signal(&mut sp, 601, t(7)).1.unwrap().pkt.ack, Seq(301), "a new ACK does");
        assert_eq!(sp.stats.signals_absorbed, 2);
    }

    #[test]
    fn asymmetric_flow_falls_back_to_drops_until_a_real_ack_passes() {
        let mut sp = spoofer(true);
        for (i, seq) in [101, 201, 301].into_iter().enumerate() {
            assert_eq!(signal(&mut sp, seq, t(i as u64)), (Action::EnqueueAndSpoof, None));
        }
        assert_eq!((sp.stats.pending_set, sp.stats.signals_absorbed), (1, 2));
        // The threshold (3) of signals went unanswered: later ones drop, overflow included.
        assert_eq!(signal(&mut sp, 401, t(3)), (Action::Drop, None));
        assert_eq!(sp.on_signal(&data(501), Action::DropAndSpoof, t(4)), (Action::Drop, None));
        assert_eq!((sp.stats.asymmetric_detected, sp.stats.fallback_drops, sp.stats.pending_expired), (1, 2, 1));
        assert_eq!(sp.pending_now(), 0);
        // A reverse packet of the flow clears it; the expired pending sends nothing.
        assert_eq!(sp.on_arrival(&ack(201), t(5)), Passage::Forward);
        assert_eq!(signal(&mut sp, 601, t(6)), (Action::EnqueueAndSpoof, None));
        assert_eq!(sp.stats.pending_set, 2);
        assert!(burst_of(sp.on_arrival(&ack(301), t(7))).is_some());
    }

    #[test]
    fn needless_retransmission_is_discarded_once_and_only_if_acknowledged() {
        let mut sp = spoofer(true);
        signal(&mut sp, 201, t(0));
        let b = burst_of(sp.on_arrival(&ack(301), t(1))).unwrap();
        assert_eq!(b.pkt.ack, Seq(201));
        assert_eq!(sp.on_arrival(&data(401), t(2)), Passage::Forward, "new data");
        assert_eq!(sp.on_arrival(&data(201), t(3)), Passage::Discard, "the receiver acknowledged 201..301");
        assert_eq!(sp.on_arrival(&data(201), t(4)), Passage::Forward, "one discard per burst");
        assert_eq!(sp.stats.retransmissions_discarded, 1);
        // Two bursts before either retransmission arrives: two discards.
        for (seq, real) in [(401, 501), (501, 601)] {
            signal(&mut sp, seq, t(5));
            assert!(burst_of(sp.on_arrival(&ack(real), t(6))).is_some());
        }
        assert_eq!(sp.on_arrival(&data(401), t(7)), Passage::Discard);
        assert_eq!(sp.on_arrival(&data(501), t(7)), Passage::Discard);
        assert_eq!(sp.on_arrival(&data(501), t(7)), Passage::Forward);
        // Spoofing at once with th_ack 301: a packet 301 may be the original or a needed
        // retransmission, since nothing above 301 was acknowledged. It passes, until the
        // receiver acknowledges past it.
        let mut sp = spoofer(false);
        signal(&mut sp, 101, t(0));
        sp.on_arrival(&ack(301), t(1));
        assert_eq!(sp.on_arrival(&data(301), t(2)), Passage::Forward);
        sp.on_arrival(&ack(401), t(3));
        assert_eq!(sp.on_arrival(&data(301), t(4)), Passage::Discard);
    }

    #[test]
    fn pending_spoofs_and_discards_expire() {
        let mut sp = spoofer(true);
        signal(&mut sp, 201, t(0));
        assert_eq!(sp.on_arrival(&ack(301), t(501)), Passage::Forward, "older than 500 ms: given up");
        assert_eq!((sp.stats.pending_expired, sp.stats.pending_resolved), (1, 0));
        signal(&mut sp, 301, t(600));
        sp.on_arrival(&ack(401), t(601));
        assert_eq!(sp.on_arrival(&data(301), t(1200)), Passage::Forward, "discard given up too");
    }

    #[test]
    fn evictions_are_counted_and_expire_their_pending_spoofs() {
        let mut sp = AckSpoofer::new(SpoofConfig { table_size: 1, ..SpoofConfig::default() });
        assert_eq!(sp.table_capacity(), crate::router::flow_table::WAYS);
        for port in 0..10 {
            sp.on_signal(&Packet { sport: port, ..data(1) }, Action::EnqueueAndSpoof, t(0));
        }
        let s = sp.stats;
        assert_eq!(sp.table_occupancy(), sp.table_capacity());
        assert_eq!(s.evictions, 10 - sp.table_capacity() as u64);
        assert_eq!(s.pending_set, s.pending_expired + sp.pending_now() as u64);
    }
}
