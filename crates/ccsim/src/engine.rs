//! The run loop: events, packet forwarding between nodes, and the glue between the network
//! and the end-host state machines (TCP, RDP, UDP). Router mechanisms (`crate::router`) are
//! called through their hooks; this module names none of them.
//!
//! A watchdog stops a run whose simulated time stops advancing (see [`Stall`]): more
//! events at one instant than any scenario makes there ([`WATCHDOG_EVENTS`] plus a few per
//! flow, link and series) mean a loop that handles events without time passing. Nothing in
//! the simulator should allow one (every transmission, gap and period takes at least 1 ns),
//! so the watchdog is the guard, not the mechanism.
//!
//! Timers of the TCP and RDP state machines are polled, not cancelled: a sender exposes its
//! retransmission deadline and the engine keeps at most one pending event per deadline it has
//! already scheduled, so restarting the timer on every ACK costs no heap operation. An RDP
//! sender's one timer (SYN, retransmission, CLOSE-WAIT) rides on `Event::Rto`, its
//! receiver's (CLOSE-WAIT) on `Event::DelAck`.

use crate::app::{UdpSource, UdpStats};
use crate::net::{Kind, LinkId, LinkStats, Network, NodeId, NodeKind, NodeStats, Packet};
use crate::queue::QueueStats;
use crate::rdp::{RdpReceiver, RdpSender};
use crate::router::{Cx, Effects, Hooks, Mechanism, Passage, Registered, RouterMechanism, Timer};
use crate::sim::{Dur, EventQueue, Rng, SimTime};
use crate::stats::{counters, Series, SeriesSpec, SeriesTarget};
use crate::tcp::{ReceiverStats, SenderStats, TcpReceiver, TcpSender};
use crate::trace::packet_log::{DropReason, Event as LogEvent, PacketLog};
use std::collections::VecDeque;

mod in_network;
pub mod memory;
mod warm;
use in_network::InNetwork;
pub use memory::MemoryGuard;

pub type FlowIdx = u32;

/// Events between two looks at the process's memory (a read of `/proc/self/status`).
const MEMORY_CHECK_EVENTS: u64 = 1 << 20;

#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A link finished serializing a packet. Links replay their transmissions lazily (see
    /// `net::link`); only a capture needs to see each one as it happens, so that frames are
    /// written in time order across the links of a file, and a link whose discipline decides
    /// at dequeue, which starts its next transmission then.
    TxDone {
        link: LinkId,
        epoch: u32,
    },
    /// The packet at the head of a link's pipe reaches the far end.
    Arrive {
        link: LinkId,
        epoch: u32,
    },
    FlowStart(FlowIdx),
    FlowStop(FlowIdx),
    Rto(FlowIdx),
    DelAck(FlowIdx),
    /// The sender's next jittered packet leaves the host.
    Emit(FlowIdx),
    UdpSend(FlowIdx),
    WarmupEnd,
    Sample(u32),
    LinkDown(LinkId),
    LinkUp(LinkId),
    /// A timer of router mechanism `mechanism` (an index into `Simulation::mechanisms`).
    Timer {
        mechanism: u8,
        kind: u8,
        a: u32,
        b: u32,
    },
}

counters! {
    /// What the network did to one flow's packets.
    pub struct FlowNetStats {
        /// Forward-direction packets (data, datagrams) lost anywhere in the network.
        pub forward_dropped: u64,
        /// Reverse-direction packets (ACKs) lost anywhere in the network.
        pub reverse_dropped: u64,
        /// Fast retransmits of a segment that had in fact arrived at the receiver or was still
        /// in the network when it was retransmitted.
        pub false_fast_retransmits: u64,
        /// Spoofed ACKs routers sent to the flow's sender.
        pub spoofed_acks: u64,
    }
}

#[derive(Clone, Debug)]
#[repr(u8)]
#[allow(clippy::large_enum_variant)] // on purpose: TCP's ends are in the flow (below)
pub enum Transport {
    /// TCP's two ends are held in the flow itself, not boxed: an event at either end then
    /// reads one place in memory rather than two, 0.93 of the run at 10,000 flows and 0.98
    /// at 100,000 (`benchmarks/README.md`). A UDP or RDP flow carries the room for them
    /// unused (a kilobyte); those transports stay boxed.
    Tcp {
        tx: TcpSender,
        rx: TcpReceiver,
    },
    Udp(Box<UdpSource>),
    /// RDP (`crate::rdp`): the sender's and the receiver's state machines.
    Rdp {
        tx: Box<RdpSender>,
        rx: Box<RdpReceiver>,
    },
}

/// The fields are laid out in this order (`repr(C)`, the flow aligned to a cache line): first
/// what an event at one of the flow's ends reads of the flow itself (its segments in the
/// network, its timers) and the transport's tag, on two lines; then the transport, whose TCP
/// ends are held here rather than boxed; then what set-up, jitter, drops and the report read.
/// Warming asks for the first two lines ([`Flow::prefetch`]), then for the end an event is at.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Flow {
    /// The flow's data segments on links (see `in_network`).
    in_network: InNetwork,
    stopped: bool,
    /// Whether the sender's packets are jittered (`jitter` above zero).
    jittered: bool,
    pub src: NodeId,
    pub dst: NodeId,
    rto_scheduled: Option<SimTime>,
    delack_scheduled: Option<SimTime>,
    pub transport: Transport,
    /// The flow group (scenario `[[flows]]` entry) this flow belongs to.
    pub group: String,
    /// Index within its group.
    pub index: u32,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub net: FlowNetStats,
    /// Maximum per-packet send jitter (ns-2's `overhead_`), zero for none.
    jitter: Dur,
    jitter_rng: Rng,
    pending: VecDeque<(SimTime, Packet)>,
}

impl Flow {
    #[allow(clippy::too_many_arguments)] // the flow's parts, each with its own meaning
    pub fn new(
        group: String,
        index: u32,
        src: NodeId,
        dst: NodeId,
        start: SimTime,
        stop: Option<SimTime>,
        transport: Transport,
        jitter: Dur,
        jitter_rng: Rng,
    ) -> Flow {
        Flow {
            group,
            index,
            src,
            dst,
            start,
            stop,
            transport,
            net: FlowNetStats::default(),
            jittered: jitter > Dur::ZERO,
            jitter,
            jitter_rng,
            pending: VecDeque::new(),
            in_network: InNetwork::default(),
            rto_scheduled: None,
            delack_scheduled: None,
            stopped: false,
        }
    }

    /// Bytes from the start of a flow that an event at one of its ends reads before its
    /// transport, whose tag (`repr(u8)`: its first byte) comes next.
    const HOT_BYTES: usize = std::mem::offset_of!(Flow, transport);

    /// Prefetches what an event at one of the flow's ends reads of it first, the transport's
    /// tag included (see `engine::warm`).
    #[inline]
    pub fn prefetch(&self) {
        crate::sim::prefetch::range(self, Self::HOT_BYTES + 1);
    }

    /// Maximum per-packet send jitter (ns-2's `overhead_`), zero for none.
    pub fn jitter(&self) -> Dur {
        self.jitter
    }

    pub fn sender(&self) -> Option<&TcpSender> {
        match &self.transport {
            Transport::Tcp { tx, .. } => Some(tx),
            _ => None,
        }
    }
    pub fn receiver(&self) -> Option<&TcpReceiver> {
        match &self.transport {
            Transport::Tcp { rx, .. } => Some(rx),
            _ => None,
        }
    }
    pub fn name(&self) -> String {
        format!("{}[{}]", self.group, self.index)
    }

    /// Bytes a new flow of a group named with `group_len` bytes holds (for the scenario's
    /// memory estimate): the flow with its TCP sender and receiver in it, or the flow and its
    /// boxed UDP source, and the events it keeps pending.
    pub fn footprint(tcp: bool, group_len: usize) -> u64 {
        use std::mem::size_of;
        let boxed = if tcp { 0 } else { size_of::<UdpSource>() + 16 };
        // Allocator overhead of the name, and about four pending events.
        (size_of::<Flow>() + boxed + group_len + 16 + 4 * 32) as u64
    }
}

/// Events at one instant beyond which the watchdog stops a run (plus a few per flow, link
/// and series, which may all legitimately act at one instant, such as time zero).
pub const WATCHDOG_EVENTS: u64 = 10_000_000;

/// Where the parts of a simulation come from in its scenario, for messages about the run:
/// field paths such as `flows[2]`. Empty for simulations made in code.
#[derive(Clone, Debug, Default)]
pub struct Origins {
    /// (first flow, path) of each flow group, in flow order.
    pub flow_groups: Vec<(FlowIdx, String)>,
    /// The path of each link's scenario table, by link.
    pub links: Vec<String>,
    /// The path of each series' scenario table, by series.
    pub series: Vec<String>,
}

impl Origins {
    fn of_flow(&self, f: FlowIdx) -> String {
        let i = self.flow_groups.partition_point(|&(first, _)| first <= f);
        self.flow_groups.get(i.wrapping_sub(1)).map_or_else(String::new, |g| g.1.clone())
    }
}

/// A run stopped before its end: by the watchdog (simulated time did not advance for
/// `events` events), or by the memory guard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stall {
    pub at: SimTime,
    pub events: u64,
    /// The field path of the source of the last event (`flows[0]`, `links[1]`), or of the
    /// link holding most packets when memory ran out; empty if unknown.
    pub path: String,
    /// What the last event was, or what the link held, for the message.
    pub what: String,
    pub reason: StallReason,
}

/// Why a run was stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StallReason {
    /// Simulated time stopped advancing.
    TimeStopped,
    /// The process grew by `grown` bytes since the scenario was built, more than `limit`
    /// (`why` says what set it: see [`MemoryGuard`]).
    Memory { grown: u64, limit: u64, why: &'static str },
}

impl Stall {
    /// The message, without the path.
    pub fn message(&self) -> String {
        match &self.reason {
            StallReason::TimeStopped => format!(
                "simulated time stopped advancing at {:.9} s: {} events at that instant, the last {}; the run was stopped",
                self.at.as_secs_f64(),
                self.events,
                self.what
            ),
            StallReason::Memory { grown, limit, why } => format!(
                "the run's memory grew by {}, more than the {} it may use ({why}), at {:.6} s simulated with {}; the run was stopped (--force runs without this guard)",
                crate::settings::units::bytes_text(*grown as f64),
                crate::settings::units::bytes_text(*limit as f64),
                self.at.as_secs_f64(),
                self.what
            ),
        }
    }
}

/// Counts events at the current instant.
#[derive(Clone, Copy, Debug, Default)]
struct Watchdog {
    at: SimTime,
    count: u64,
    limit: u64,
}

/// Every cumulative counter of the run, taken at the end of the warm-up.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub at: SimTime,
    pub links: Vec<LinkStats>,
    pub queues: Vec<QueueStats>,
    pub nodes: Vec<NodeStats>,
    pub senders: Vec<SenderStats>,
    pub receivers: Vec<ReceiverStats>,
    pub udp: Vec<UdpStats>,
    pub flow_net: Vec<FlowNetStats>,
}

pub struct Simulation {
    pub name: String,
    pub seed: u64,
    /// The scenario's profile, for the report (the builder applied its defaults).
    pub profile: crate::settings::profile::Profile,
    pub now: SimTime,
    pub stop_at: SimTime,
    pub warmup: SimTime,
    pub net: Network,
    pub flows: Vec<Flow>,
    pub series_specs: Vec<SeriesSpec>,
    pub series: Vec<Series>,
    /// Last cumulative value for rate series (bytes), by series index.
    series_last: Vec<u64>,
    pub baseline: Snapshot,
    pub events_processed: u64,
    /// Router mechanisms, in the order their hooks are called (see `crate::router`).
    pub mechanisms: Vec<Mechanism>,
    /// For each hook point, the mechanisms that implement it (indices into `mechanisms`).
    hooked: HookLists,
    /// Effects of the hook being applied; see [`Simulation::run_hooks`].
    effects: Effects,
    /// Packet captures of chosen links (None: no `[[pcap]]` in the scenario).
    pub trace: Option<Box<crate::trace::Tracer>>,
    /// The per-packet event log (None: no `[packet_log]` in the scenario).
    pub packet_log: Option<Box<PacketLog>>,
    events: EventQueue<Event>,
    outbox: Vec<Packet>,
    /// Packets a link's replay found lost on the wire, to count as drops.
    wire_lost: Vec<Packet>,
    /// Where the parts of the simulation come from in the scenario (for messages).
    pub origins: Origins,
    watchdog: Watchdog,
    /// Stops the run if the process grows past what it may use (set by the scenario
    /// builder unless forced; see [`MemoryGuard`]).
    pub memory_guard: Option<MemoryGuard>,
    /// Set when the watchdog stopped the run; the run cannot go on.
    pub stalled: Option<Stall>,
    /// When each of `wire_lost` was lost (for the packet log).
    wire_lost_at: Vec<SimTime>,
    /// Links with random loss: the only ones where a packet can be lost on the wire before
    /// its loss is replayed.
    lossy_links: Vec<LinkId>,
    /// Whether the run prefetches the state of the events due next (see `warm`).
    warm_ahead: bool,
}

impl Simulation {
    /// Wires a simulation from its parts and schedules the initial events.
    #[allow(clippy::too_many_arguments)] // the scenario builder's parts, each named
    pub fn new(
        name: String,
        seed: u64,
        net: Network,
        flows: Vec<Flow>,
        stop_at: SimTime,
        warmup: SimTime,
        series_specs: Vec<SeriesSpec>,
        link_events: Vec<(SimTime, LinkId, bool)>,
    ) -> Simulation {
        let series = series_specs
            .iter()
            .map(|s| {
                let expected = (stop_at.as_nanos() / s.interval_ns.max(1)) as usize + 1;
                Series::new(s.name.clone(), expected.min(s.max_points))
            })
            .collect();
        let warm_ahead = warm::state_bytes(&net.links, &flows) > warm::threshold_bytes();
        let mut sim = Simulation {
            name,
            seed,
            profile: Default::default(),
            now: SimTime::ZERO,
            stop_at,
            warmup,
            net,
            flows,
            series_last: vec![0; series_specs.len()],
            series_specs,
            series,
            baseline: Snapshot::default(),
            events_processed: 0,
            memory_guard: None,
            mechanisms: Vec::new(),
            hooked: HookLists::default(),
            effects: Effects::default(),
            trace: None,
            packet_log: None,
            events: EventQueue::default(),
            outbox: Vec::with_capacity(64),
            wire_lost: Vec::new(),
            origins: Origins::default(),
            watchdog: Watchdog::default(),
            stalled: None,
            wire_lost_at: Vec::new(),
            lossy_links: Vec::new(),
            warm_ahead,
        };
        let parts = (sim.flows.len() + sim.net.links.len() + sim.series_specs.len()) as u64;
        sim.watchdog.limit = WATCHDOG_EVENTS + 8 * parts;
        sim.lossy_links = (0..sim.net.links.len() as LinkId).filter(|&l| sim.net.links[l as usize].is_lossy()).collect();
        sim.baseline = sim.snapshot();
        for (i, f) in sim.flows.iter().enumerate() {
            sim.events.schedule(f.start, Event::FlowStart(i as FlowIdx));
            if let Some(stop) = f.stop {
                sim.events.schedule(stop, Event::FlowStop(i as FlowIdx));
            }
        }
        if warmup > SimTime::ZERO {
            sim.events.schedule(warmup, Event::WarmupEnd);
        }
        for i in 0..sim.series_specs.len() {
            sim.events.schedule(SimTime::ZERO, Event::Sample(i as u32));
        }
        for (t, link, up) in link_events {
            sim.events.schedule(t, if up { Event::LinkUp(link) } else { Event::LinkDown(link) });
        }
        sim
    }

    /// Turns warming ahead on or off (by default it is on when the network's state exceeds
    /// what the caches hold; see `engine::warm`). It changes only how fast a run goes.
    pub fn set_warm_ahead(&mut self, on: bool) {
        self.warm_ahead = on;
    }

    /// Whether the run warms the caches ahead of its events.
    pub fn warms_ahead(&self) -> bool {
        self.warm_ahead
    }

    /// Adds a router mechanism; its hooks are called after those of the mechanisms added
    /// before it.
    pub fn add_mechanism(&mut self, m: Mechanism) {
        let i = u8::try_from(self.mechanisms.len()).expect("at most 255 router mechanisms");
        self.hooked.add(i, m.hooks());
        self.mechanisms.push(m);
    }

    /// Schedules `ev` at `at`, as tests of the run loop need.
    #[cfg(test)]
    pub(crate) fn schedule_for_test(&mut self, at: SimTime, ev: Event) {
        self.events.schedule(at, ev);
    }

    /// Sets the watchdog's limit of events at one instant, as tests of it need.
    #[cfg(test)]
    pub(crate) fn set_watchdog_limit(&mut self, events: u64) {
        self.watchdog.limit = events;
    }

    /// The simulation's mechanism of type `T`, if the scenario uses it.
    pub fn mechanism<T: Registered>(&self) -> Option<&T> {
        self.mechanisms.iter().find_map(T::find)
    }

    /// Attaches the packet captures: the links they record replay the end of every
    /// transmission (a capture records each packet as its transmission ends).
    pub fn set_trace(&mut self, trace: Option<Box<crate::trace::Tracer>>) {
        for (i, l) in self.net.links.iter_mut().enumerate() {
            l.replay_ends = trace.as_ref().is_some_and(|t| t.records(i as LinkId));
        }
        self.trace = trace;
    }

    /// Runs until simulated time `t` (or the stop time, whichever is earlier), or until the
    /// watchdog stops it ([`Simulation::stalled`]).
    pub fn run_until(&mut self, t: SimTime) {
        self.run_until_at_most(t, u64::MAX);
    }

    /// [`run_until`](Self::run_until), handling at most `max_events` events; returns true
    /// when the run reached `t` (or the stop time), false when it stopped for the event
    /// count or the watchdog. Callers that must stay responsive (to Ctrl-C, a progress bar)
    /// run in such slices.
    pub fn run_until_at_most(&mut self, t: SimTime, max_events: u64) -> bool {
        let reached = self.run_slice(t, max_events);
        // Whoever looks at the network between runs sees every link as of now.
        self.advance_links();
        reached
    }

    /// [`run_until_at_most`](Self::run_until_at_most) without bringing every link up to now
    /// at the end, for a caller that runs in slices and reads no link between them: it calls
    /// [`advance_links`](Self::advance_links) once it is done. That is a read of every link:
    /// at 100,000 flows (400,000 links) after every 2^19 events, it took a tenth of the run.
    /// Links are brought up to date lazily, whenever something reads them, so where slices
    /// end changes no result.
    pub fn run_slice(&mut self, t: SimTime, max_events: u64) -> bool {
        let limit = t.min(self.stop_at);
        let mut left = max_events;
        let mut reached = false;
        while self.stalled.is_none() {
            if left == 0 {
                break;
            }
            let Some((time, ev)) = self.events.pop_until(limit) else {
                reached = true;
                break;
            };
            if time == self.watchdog.at {
                self.watchdog.count += 1;
                if self.watchdog.count > self.watchdog.limit {
                    self.stalled = Some(self.stall(ev));
                    break;
                }
            } else {
                self.watchdog = Watchdog { at: time, count: 1, limit: self.watchdog.limit };
            }
            left -= 1;
            self.now = time;
            self.events_processed += 1;
            if self.warm_ahead {
                self.warm_ahead();
            }
            self.handle(ev);
            if self.events_processed.is_multiple_of(MEMORY_CHECK_EVENTS) {
                self.check_memory();
            }
        }
        if reached {
            self.now = self.now.max(limit);
        }
        reached
    }

    /// Stops the run if the memory guard says the process has grown too much, naming the
    /// link that holds most packets (what grows without bound is a queue).
    #[cold]
    fn check_memory(&mut self) {
        let Some((grown, limit, why)) = self.memory_guard.as_ref().and_then(MemoryGuard::exceeded) else { return };
        self.advance_links();
        let now = self.now;
        // The fullest link (the first of equals) and the packets of all, in one pass.
        let (mut top, mut packets, mut total) = (0, 0, 0);
        for (i, l) in self.net.links.iter().enumerate() {
            let n = l.packets(&self.net.pipes, now).count();
            total += n;
            if n > packets {
                (top, packets) = (i, n);
            }
        }
        let (path, what) = match self.net.links.get(top) {
            Some(l) => {
                (self.origins.links.get(top).cloned().unwrap_or_default(), format!("{} packets in the network, {} of them in link {}", total, packets, l.name))
            }
            None => (String::new(), format!("{total} packets in the network")),
        };
        self.stalled = Some(Stall { at: now, events: self.events_processed, path, what, reason: StallReason::Memory { grown, limit, why } });
    }

    /// The watchdog's report, `ev` being the event at which it stopped the run.
    fn stall(&self, ev: Event) -> Stall {
        let o = &self.origins;
        let flow = |f: FlowIdx, what: &str| (o.of_flow(f), format!("{what} of flow {}", self.flows.get(f as usize).map_or_else(|| f.to_string(), Flow::name)));
        let link = |l: LinkId, what: &str| (o.links.get(l as usize).cloned().unwrap_or_default(), format!("{what} link {}", self.net.links[l as usize].name));
        let (path, what) = match ev {
            Event::TxDone { link: l, .. } => link(l, "the end of a transmission on"),
            Event::Arrive { link: l, .. } => link(l, "an arrival over"),
            Event::LinkDown(l) => link(l, "a failure of"),
            Event::LinkUp(l) => link(l, "a repair of"),
            Event::FlowStart(f) => flow(f, "the start"),
            Event::FlowStop(f) => flow(f, "the stop"),
            Event::Rto(f) => flow(f, "a retransmission timeout"),
            Event::DelAck(f) => flow(f, "a delayed ACK"),
            Event::Emit(f) => flow(f, "a jittered send"),
            Event::UdpSend(f) => flow(f, "a UDP send"),
            Event::WarmupEnd => (String::from("warmup"), "the end of the warm-up".into()),
            Event::Sample(i) => (o.series.get(i as usize).cloned().unwrap_or_default(), format!("a sample of series {}", self.series_specs[i as usize].name)),
            Event::Timer { mechanism, .. } => (String::new(), format!("a timer of router mechanism {}", self.mechanisms[mechanism as usize].name())),
        };
        Stall { at: self.now, events: self.watchdog.count, path, what, reason: StallReason::TimeStopped }
    }

    pub fn run(&mut self) {
        self.run_until(self.stop_at);
    }

    pub fn is_finished(&self) -> bool {
        self.now >= self.stop_at
    }

    fn handle(&mut self, ev: Event) {
        match ev {
            Event::TxDone { link, epoch } => self.on_tx_done(link, epoch),
            Event::Arrive { link, epoch } => self.on_arrive(link, epoch),
            Event::FlowStart(f) => self.on_flow_start(f),
            Event::FlowStop(f) => self.flows[f as usize].stopped = true,
            Event::Rto(f) => self.on_rto(f),
            Event::DelAck(f) => self.on_delack(f),
            Event::Emit(f) => self.on_emit(f),
            Event::UdpSend(f) => self.on_udp_send(f),
            Event::WarmupEnd => self.begin_measurement(),
            Event::Sample(i) => self.on_sample(i),
            Event::LinkDown(l) => self.set_link(l, false),
            Event::LinkUp(l) => self.set_link(l, true),
            Event::Timer { mechanism, kind, a, b } => {
                let mark = self.effects.emits.len();
                self.mechanisms[mechanism as usize].on_timer(Timer { kind, a, b }, &mut Cx::new(self.now, &mut self.net, &mut self.effects));
                self.schedule_timers(mechanism);
                self.send_emits(mark);
            }
        }
    }

    // ---- router mechanisms ----
    //
    // Hooks gather their effects in `self.effects`. Timers are scheduled as soon as the hook
    // returns (they carry the index of the mechanism that set them). Packets are sent once
    // the engine is done with the packet that caused them: from a mark taken before the
    // hooks ran to the end of the buffer, which is then truncated back to the mark. Sending
    // runs further hooks, whose effects go after (and are gone before) those being sent, so
    // nothing is allocated per packet.

    /// Schedules the timers mechanism `by` has just set.
    fn schedule_timers(&mut self, by: u8) {
        for (at, t) in self.effects.timers.drain(..) {
            self.events.schedule(at, Event::Timer { mechanism: by, kind: t.kind, a: t.a, b: t.b });
        }
    }

    /// Sends the packets mechanisms asked for since `mark` (in `on_arrival`, those not sent
    /// first) and forgets them.
    fn send_emits(&mut self, mark: usize) {
        let end = self.effects.emits.len();
        for i in mark..end {
            let e = self.effects.emits[i];
            if !e.first {
                self.emit(e.from, e.pkt);
            }
        }
        self.effects.emits.truncate(mark);
    }

    /// Sends the packets asked for since `mark` to go before the packet being handled.
    fn send_emits_first(&mut self, mark: usize) {
        let end = self.effects.emits.len();
        for i in mark..end {
            let e = self.effects.emits[i];
            if e.first {
                self.emit(e.from, e.pkt);
            }
        }
    }

    /// A router sends a packet it made for a flow.
    fn emit(&mut self, from: NodeId, pkt: Packet) {
        if pkt.kind == Kind::SpoofedAck {
            if let Some(f) = self.flows.get_mut(pkt.flow as usize) {
                f.net.spoofed_acks += 1;
            }
        }
        self.forward(from, &mut { pkt });
    }

    // ---- forwarding ----

    /// A host or router hands `pkt` to the link toward its destination.
    fn forward(&mut self, node: NodeId, pkt: &mut Packet) {
        let mut link = self.net.routes.next_hop(node, pkt.dst);
        if !self.hooked.next_hop.is_empty() {
            let mark = self.effects.emits.len();
            for k in 0..self.hooked.next_hop.len() {
                let i = self.hooked.next_hop[k];
                link = self.mechanisms[i as usize].next_hop(node, pkt, link, &mut Cx::new(self.now, &mut self.net, &mut self.effects));
                self.schedule_timers(i);
            }
            self.send_emits(mark);
        }
        let Some(link) = link else {
            self.net.nodes[node as usize].stats.no_route += 1;
            self.log(LogEvent::Drop, DropReason::NoRoute, node, None, pkt);
            self.count_drop(pkt);
            return;
        };
        self.enqueue(link, pkt);
    }

    /// Offers `pkt` to `link`'s queue. The packet is passed by reference down the forwarding
    /// path (a discipline's ECN mark is set in place) and copied once, into the link.
    fn enqueue(&mut self, link: LinkId, pkt: &mut Packet) {
        let now = self.now;
        let l = &mut self.net.links[link as usize];
        if !l.up {
            l.stats.lost_down += 1;
            let from = l.from;
            self.log(LogEvent::Drop, DropReason::Down, from, Some(link), pkt);
            self.count_drop(pkt);
            return;
        }
        // The discipline must see the queue as of now: without the packets that have started
        // transmission since the link was last touched.
        self.advance_link(link);
        let (verdict, mut action) = self.net.links[link as usize].queue.classify(pkt, now);
        let mark = self.effects.emits.len();
        for k in 0..self.hooked.verdict.len() {
            let i = self.hooked.verdict[k];
            action = self.mechanisms[i as usize].on_verdict(link, pkt, verdict, action, &mut Cx::new(now, &mut self.net, &mut self.effects));
            self.schedule_timers(i);
        }
        // The log shows the packet as offered (an ECN mark is an entry of its own).
        let offered = self.packet_log.is_some().then_some(*pkt);
        let l = &mut self.net.links[link as usize];
        if l.queue.decides_at_dequeue() {
            if l.queue.commit(*pkt, verdict, action, now) {
                self.log_enqueue(link, pkt, action);
            } else {
                self.queue_drop(link, pkt, DropReason::of(verdict));
            }
            self.account_evicted(link);
            if self.net.links[link as usize].is_idle(now) {
                self.transmit_next(link);
            }
        } else if l.queue.admit(pkt, verdict, action) {
            let s = l.accept(&mut self.net.pipes, pkt, now);
            let epoch = l.epoch;
            if let Some(offered) = offered {
                self.log_enqueue(link, &offered, action);
                // The packet's departure is known now (see `trace::packet_log`).
                self.log_at(s.tx_start, LogEvent::Dequeue, DropReason::None, link, &offered);
            }
            if let Some(at) = s.arrival {
                self.events.schedule(at, Event::Arrive { link, epoch });
            }
            if self.trace.as_ref().is_some_and(|t| t.records(link)) {
                self.events.schedule(s.tx_end, Event::TxDone { link, epoch });
            }
        } else {
            self.queue_drop(link, pkt, DropReason::of(verdict));
        }
        if self.effects.emits.len() > mark {
            self.send_emits(mark);
        }
    }

    /// `link`'s queue dropped `pkt`: charged to its flow, and seen by the mechanisms that
    /// watch queue drops (their emits are left to the caller to send).
    fn queue_drop(&mut self, link: LinkId, pkt: &Packet, reason: DropReason) {
        if self.packet_log.is_some() {
            self.log_at(self.now, LogEvent::Drop, reason, link, pkt);
        }
        self.count_drop(pkt);
        for k in 0..self.hooked.queue_drop.len() {
            let i = self.hooked.queue_drop[k];
            self.mechanisms[i as usize].on_queue_drop(link, pkt, &mut Cx::new(self.now, &mut self.net, &mut self.effects));
            self.schedule_timers(i);
        }
    }

    /// Accounts the packets `link`'s discipline dropped from its buffer to admit an arrival.
    fn account_evicted(&mut self, link: LinkId) {
        let Some(evicted) = self.net.links[link as usize].queue.take_evicted() else { return };
        let mut lost = std::mem::take(&mut self.wire_lost);
        lost.extend(evicted);
        for p in &lost {
            self.queue_drop(link, p, DropReason::Overflow);
        }
        lost.clear();
        self.wire_lost = lost;
    }

    /// A transmission opportunity of `link`, whose discipline decides at dequeue (the link
    /// is advanced to now and its transmitter free): the discipline decides on head packets
    /// until one is sent or the queue is empty; the sent one starts transmission, and its end
    /// is the next opportunity.
    fn transmit_next(&mut self, link: LinkId) {
        let now = self.now;
        let mark = self.effects.emits.len();
        while let Some((pkt, verdict, mut action)) = self.net.links[link as usize].queue.next_departure(now) {
            if verdict != crate::signal::Verdict::Admit {
                for k in 0..self.hooked.verdict.len() {
                    let i = self.hooked.verdict[k];
                    action = self.mechanisms[i as usize].on_verdict(link, &pkt, verdict, action, &mut Cx::new(now, &mut self.net, &mut self.effects));
                    self.schedule_timers(i);
                }
            }
            let l = &mut self.net.links[link as usize];
            let Some(pkt) = l.queue.finish_departure(pkt, verdict, action, now) else {
                self.queue_drop(link, &pkt, DropReason::Dequeue);
                continue;
            };
            if self.packet_log.is_some() {
                if action == crate::signal::Action::MarkAndEnqueue {
                    self.log_at(now, LogEvent::Mark, DropReason::None, link, &pkt);
                }
                self.log_at(now, LogEvent::Dequeue, DropReason::None, link, &pkt);
            }
            let l = &mut self.net.links[link as usize];
            let s = l.start_now(&mut self.net.pipes, pkt, now);
            let epoch = l.epoch;
            if let Some(at) = s.arrival {
                self.events.schedule(at, Event::Arrive { link, epoch });
            }
            self.events.schedule(s.tx_end, Event::TxDone { link, epoch });
            break;
        }
        if self.effects.emits.len() > mark {
            self.send_emits(mark);
        }
    }

    /// Replays `link`'s departures and ends of transmission up to now: captures record
    /// their frames and packets lost on the wire count as drops.
    #[inline]
    fn advance_link(&mut self, link: LinkId) {
        let now = self.now;
        if self.net.links[link as usize].is_current(now) {
            return;
        }
        self.replay_link(link);
    }

    /// [`advance_link`](Self::advance_link)'s replay, for a link with something to replay.
    #[inline(never)]
    fn replay_link(&mut self, link: LinkId) {
        let now = self.now;
        let (trace, wire_lost, wire_lost_at) = (&mut self.trace, &mut self.wire_lost, &mut self.wire_lost_at);
        self.net.links[link as usize].advance(&mut self.net.pipes, now, |t, pkt, lost| {
            if let Some(tr) = trace {
                // The capture point: the packet has left the transmitter.
                tr.record(link, t, pkt);
            }
            if lost {
                wire_lost.push(*pkt);
                wire_lost_at.push(t);
            }
        });
        if !self.wire_lost.is_empty() {
            let lost = std::mem::take(&mut self.wire_lost);
            for (p, &t) in lost.iter().zip(&self.wire_lost_at.clone()) {
                if self.packet_log.is_some() {
                    self.log_at(t, LogEvent::Drop, DropReason::Wire, link, p);
                }
                self.count_drop(p);
            }
            self.wire_lost = lost;
            self.wire_lost.clear();
            self.wire_lost_at.clear();
        }
    }

    /// Brings every link up to now, counters included (after [`run_slice`](Self::run_slice)).
    pub fn advance_links(&mut self) {
        for link in 0..self.net.links.len() {
            self.observe_link(link as LinkId);
        }
    }

    /// Brings `link` up to now, counters included, for a reader of its state.
    fn observe_link(&mut self, link: LinkId) {
        self.advance_link(link);
        self.net.links[link as usize].sync(&self.net.pipes, self.now);
    }

    fn on_tx_done(&mut self, link: LinkId, epoch: u32) {
        if self.net.links[link as usize].epoch == epoch {
            self.advance_link(link);
            let l = &self.net.links[link as usize];
            if l.queue.decides_at_dequeue() && l.is_idle(self.now) {
                self.transmit_next(link);
            }
        }
    }

    fn on_arrive(&mut self, link: LinkId, epoch: u32) {
        if self.net.links[link as usize].epoch != epoch {
            return;
        }
        // The arriving packet is in the link's pipe once its transmission has started; if
        // that has not been replayed yet, replay. Otherwise the link's replay can wait until
        // it is next offered a packet (or observed): nothing between here and there reads
        // it. Captures are written as transmissions end, so a captured link is replayed.
        if !self.net.links[link as usize].arrival_ready() || self.trace.is_some() {
            self.advance_link(link);
        }
        let l = &mut self.net.links[link as usize];
        let (mut pkt, next) = l.deliver(&mut self.net.pipes);
        // The link is FIFO with one delay: one pending arrival per link, for the earliest
        // packet still to arrive.
        if let Some(next) = next {
            self.events.schedule(next, Event::Arrive { link, epoch });
        }
        let node = l.to;
        self.log(LogEvent::Receive, DropReason::None, node, Some(link), &pkt);
        if pkt.dst == node {
            self.deliver(pkt);
            return;
        }
        let n = &mut self.net.nodes[node as usize];
        if n.kind == NodeKind::Host {
            n.stats.no_route += 1;
            self.log(LogEvent::Drop, DropReason::NoRoute, node, None, &pkt);
            self.count_drop(&pkt);
            return;
        }
        pkt.ttl = pkt.ttl.saturating_sub(1);
        if pkt.ttl == 0 {
            n.stats.ttl_expired += 1;
            self.log(LogEvent::Drop, DropReason::Ttl, node, None, &pkt);
            self.count_drop(&pkt);
            return;
        }
        let mut passage = Passage::Forward;
        let mark = self.effects.emits.len();
        for k in 0..self.hooked.arrival.len() {
            let i = self.hooked.arrival[k];
            passage = self.mechanisms[i as usize].on_arrival(node, &pkt, &mut Cx::new(self.now, &mut self.net, &mut self.effects));
            self.schedule_timers(i);
            if passage == Passage::Discard {
                break;
            }
        }
        let emitted = self.effects.emits.len() > mark;
        if emitted {
            self.send_emits_first(mark);
        }
        match passage {
            Passage::Discard => {
                self.log(LogEvent::Drop, DropReason::Discarded, node, None, &pkt);
                self.count_drop(&pkt);
            }
            Passage::Forward => {
                self.net.nodes[node as usize].stats.forwarded += 1;
                self.forward(node, &mut pkt);
            }
        }
        if emitted {
            self.send_emits(mark);
        }
    }

    /// Logs `event` for `pkt` at `node` (and `link`) now, if the scenario keeps a packet log.
    #[inline]
    fn log(&mut self, event: LogEvent, reason: DropReason, node: NodeId, link: Option<LinkId>, pkt: &Packet) {
        if let Some(log) = &mut self.packet_log {
            log.log(self.now, event, reason, node, link, pkt);
        }
    }

    /// Logs an event of `link`'s queue (at its sending node) at `t`.
    fn log_at(&mut self, t: SimTime, event: LogEvent, reason: DropReason, link: LinkId, pkt: &Packet) {
        let from = self.net.links[link as usize].from;
        if let Some(log) = &mut self.packet_log {
            log.log(t, event, reason, from, Some(link), pkt);
        }
    }

    /// Logs `pkt` joining `link`'s queue now (and its ECN mark, if the queue set one).
    fn log_enqueue(&mut self, link: LinkId, pkt: &Packet, action: crate::signal::Action) {
        if self.packet_log.is_some() {
            self.log_at(self.now, LogEvent::Enqueue, DropReason::None, link, pkt);
            if action == crate::signal::Action::MarkAndEnqueue {
                self.log_at(self.now, LogEvent::Mark, DropReason::None, link, pkt);
            }
        }
    }

    /// The network lost `pkt`: charged to its flow unless a mechanism claims it as its own.
    fn count_drop(&mut self, pkt: &Packet) {
        if is_data_segment(pkt) {
            if let Some(f) = self.flows.get_mut(pkt.flow as usize) {
                f.in_network.leave(pkt.seq);
            }
        }
        for k in 0..self.hooked.loss.len() {
            if self.mechanisms[self.hooked.loss[k] as usize].claims_loss(pkt) {
                return;
            }
        }
        if let Some(f) = self.flows.get_mut(pkt.flow as usize) {
            if pkt.is_reverse() {
                f.net.reverse_dropped += 1;
            } else {
                f.net.forward_dropped += 1;
            }
        }
    }

    // ---- end hosts ----

    /// `pkt` reached its destination host. A packet of no flow (one a router mechanism
    /// made for no flow) is absorbed.
    fn deliver(&mut self, pkt: Packet) {
        let now = self.now;
        let fi = pkt.flow;
        let Some(f) = self.flows.get_mut(fi as usize) else { return };
        if is_data_segment(&pkt) {
            f.in_network.leave(pkt.seq);
        }
        let mut out = std::mem::take(&mut self.outbox);
        match (&mut f.transport, pkt.kind) {
            (Transport::Tcp { rx, .. }, Kind::TcpData) => {
                rx.on_data(&pkt, now, &mut out);
                self.arm_delack(fi);
                self.send_all(fi, &mut out, false);
            }
            (Transport::Tcp { tx, rx }, Kind::TcpAck | Kind::SpoofedAck) if !f.stopped => {
                let fast_retransmits = tx.stats.fast_retransmits;
                tx.on_ack(&pkt, now, &mut out);
                if tx.stats.fast_retransmits > fast_retransmits {
                    let una = tx.snd_una();
                    let received = rx.has_received(una, 1);
                    #[cfg(debug_assertions)]
                    debug_assert_eq!(self.data_in_network(fi, una), self.data_in_network_scan(fi, una), "flow {fi}, segment {una:?}");
                    if received || self.data_in_network(fi, una) {
                        self.flows[fi as usize].net.false_fast_retransmits += 1;
                    }
                }
                self.arm_rto(fi);
                self.send_all(fi, &mut out, true);
            }
            (Transport::Tcp { tx, .. }, Kind::AccControl) if !f.stopped => tx.on_acc_control(&pkt, now),
            (Transport::Udp(src), Kind::Udp) => src.receive(&pkt),
            (Transport::Rdp { rx, .. }, Kind::RdpData) => {
                rx.on_segment(&pkt, now, &mut out);
                self.arm_delack(fi);
                self.send_all(fi, &mut out, false);
            }
            (Transport::Rdp { tx, rx }, Kind::RdpAck) if !f.stopped => {
                let fast_retransmits = tx.stats.fast_retransmits;
                tx.on_segment(&pkt, now, &mut out);
                if tx.stats.fast_retransmits > fast_retransmits {
                    let una = tx.snd_una();
                    if rx.has_received(una) || self.data_in_network(fi, una) {
                        self.flows[fi as usize].net.false_fast_retransmits += 1;
                    }
                }
                self.arm_rto(fi);
                self.send_all(fi, &mut out, true);
            }
            (Transport::Rdp { tx, .. }, Kind::AccControl) if !f.stopped => tx.on_acc_control(&pkt, now),
            _ => {}
        }
        self.outbox = out;
    }

    /// Sends the packets an end host produced; the sender's go through its jitter.
    fn send_all(&mut self, fi: FlowIdx, out: &mut Vec<Packet>, from_sender: bool) {
        // In place, then cleared: each packet is copied once more, into the link.
        for pkt in out.iter_mut() {
            let f = &mut self.flows[fi as usize];
            if from_sender && f.jittered {
                let draw = Dur::from_secs_f64(f.jitter_rng.uniform() * f.jitter.as_secs_f64());
                let last = f.pending.back().map_or(SimTime::ZERO, |p| p.0);
                let at = (self.now + draw).max(last);
                if f.pending.is_empty() {
                    self.events.schedule(at, Event::Emit(fi));
                }
                f.pending.push_back((at, *pkt));
            } else {
                self.inject(fi, pkt);
            }
        }
        out.clear();
    }

    /// A host of flow `fi` hands `pkt` to the network.
    fn inject(&mut self, fi: FlowIdx, pkt: &mut Packet) {
        if is_data_segment(pkt) {
            self.flows[fi as usize].in_network.enter(pkt.seq);
        }
        self.forward(pkt.src, pkt);
    }

    fn on_emit(&mut self, fi: FlowIdx) {
        let f = &mut self.flows[fi as usize];
        let Some((_, pkt)) = f.pending.pop_front() else { return };
        if let Some(&(next, _)) = f.pending.front() {
            self.events.schedule(next, Event::Emit(fi));
        }
        self.inject(fi, &mut { pkt });
    }

    fn on_flow_start(&mut self, fi: FlowIdx) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.outbox);
        match &mut self.flows[fi as usize].transport {
            Transport::Tcp { tx, .. } => {
                tx.start(now, &mut out);
                self.arm_rto(fi);
                self.send_all(fi, &mut out, true);
            }
            Transport::Udp(src) => {
                let first = src.start(now);
                self.events.schedule(first, Event::UdpSend(fi));
            }
            Transport::Rdp { tx, .. } => {
                tx.start(now, &mut out);
                self.arm_rto(fi);
                self.send_all(fi, &mut out, true);
            }
        }
        self.outbox = out;
    }

    fn on_udp_send(&mut self, fi: FlowIdx) {
        let now = self.now;
        let f = &mut self.flows[fi as usize];
        if f.stopped {
            return;
        }
        let Transport::Udp(src) = &mut f.transport else { return };
        let mut out = std::mem::take(&mut self.outbox);
        let next = src.send(now, &mut out);
        self.events.schedule(next, Event::UdpSend(fi));
        self.send_all(fi, &mut out, true);
        self.outbox = out;
    }

    fn arm_rto(&mut self, fi: FlowIdx) {
        let f = &mut self.flows[fi as usize];
        let deadline = match &f.transport {
            Transport::Tcp { tx, .. } => tx.rto_deadline(),
            Transport::Rdp { tx, .. } => tx.deadline(),
            Transport::Udp(_) => return,
        };
        if let Some(d) = deadline {
            if f.rto_scheduled.is_none_or(|s| s > d) {
                f.rto_scheduled = Some(d);
                self.events.schedule(d, Event::Rto(fi));
            }
        }
    }

    fn arm_delack(&mut self, fi: FlowIdx) {
        let f = &mut self.flows[fi as usize];
        let deadline = match &f.transport {
            Transport::Tcp { rx, .. } => rx.delack_deadline(),
            Transport::Rdp { rx, .. } => rx.deadline(),
            Transport::Udp(_) => return,
        };
        if let Some(d) = deadline {
            if f.delack_scheduled.is_none_or(|s| s > d) {
                f.delack_scheduled = Some(d);
                self.events.schedule(d, Event::DelAck(fi));
            }
        }
    }

    fn on_rto(&mut self, fi: FlowIdx) {
        let now = self.now;
        let f = &mut self.flows[fi as usize];
        if f.rto_scheduled == Some(now) {
            f.rto_scheduled = None;
        }
        if f.stopped {
            return;
        }
        let mut out = std::mem::take(&mut self.outbox);
        match &mut f.transport {
            Transport::Tcp { tx, .. } => tx.on_timeout(now, &mut out),
            Transport::Rdp { tx, .. } => tx.on_timer(now, &mut out),
            Transport::Udp(_) => {}
        }
        self.arm_rto(fi);
        self.send_all(fi, &mut out, true);
        self.outbox = out;
    }

    fn on_delack(&mut self, fi: FlowIdx) {
        let now = self.now;
        let f = &mut self.flows[fi as usize];
        if f.delack_scheduled == Some(now) {
            f.delack_scheduled = None;
        }
        let mut out = std::mem::take(&mut self.outbox);
        match &mut f.transport {
            Transport::Tcp { rx, .. } => rx.on_delack_timeout(now, &mut out),
            Transport::Rdp { rx, .. } => rx.on_timer(now),
            Transport::Udp(_) => {}
        }
        self.arm_delack(fi);
        self.send_all(fi, &mut out, false);
        self.outbox = out;
    }

    // ---- failures ----

    fn set_link(&mut self, link: LinkId, up: bool) {
        let now = self.now;
        let mut lost = Vec::new();
        self.advance_link(link);
        let l = &mut self.net.links[link as usize];
        if up {
            l.come_up();
        } else {
            l.go_down(&mut self.net.pipes, now, |p| lost.push(*p));
        }
        if let Some(log) = &mut self.packet_log {
            log.withdraw_dequeues(link, now);
        }
        for p in &lost {
            if self.packet_log.is_some() {
                self.log_at(now, LogEvent::Drop, DropReason::Down, link, p);
            }
            self.count_drop(p);
        }
        let mark = self.effects.emits.len();
        for k in 0..self.hooked.link_change.len() {
            let i = self.hooked.link_change[k];
            self.mechanisms[i as usize].on_link_change(link, up, &mut Cx::new(now, &mut self.net, &mut self.effects));
            self.schedule_timers(i);
        }
        self.send_emits(mark);
    }

    // ---- statistics ----

    fn settle(&mut self) {
        self.advance_links();
        let now = self.now;
        for l in &mut self.net.links {
            l.settle(&self.net.pipes, now);
        }
        for m in &mut self.mechanisms {
            m.settle(now);
        }
    }

    pub fn snapshot(&mut self) -> Snapshot {
        self.settle();
        let mut s = Snapshot { at: self.now, ..Snapshot::default() };
        for l in &self.net.links {
            s.links.push(l.stats);
            s.queues.push(l.queue.stats);
        }
        s.nodes = self.net.nodes.iter().map(|n| n.stats).collect();
        for f in &self.flows {
            match &f.transport {
                Transport::Tcp { tx, rx } => {
                    s.senders.push(tx.stats);
                    s.receivers.push(rx.stats);
                    s.udp.push(UdpStats::default());
                }
                Transport::Udp(src) => {
                    s.senders.push(SenderStats::default());
                    s.receivers.push(ReceiverStats::default());
                    s.udp.push(src.stats);
                }
                Transport::Rdp { tx, rx } => {
                    s.senders.push(tx.stats);
                    s.receivers.push(rx.stats);
                    s.udp.push(UdpStats::default());
                }
            }
            s.flow_net.push(f.net);
        }
        s
    }

    fn begin_measurement(&mut self) {
        self.baseline = self.snapshot();
        for l in &mut self.net.links {
            l.queue.begin_measurement();
        }
        for m in &mut self.mechanisms {
            m.begin_measurement();
        }
    }

    fn on_sample(&mut self, i: u32) {
        let spec = &self.series_specs[i as usize];
        let interval = spec.interval_ns;
        if let SeriesTarget::QueueLen { link }
        | SeriesTarget::QueueAvg { link }
        | SeriesTarget::MaxP { link }
        | SeriesTarget::DropProb { link }
        | SeriesTarget::LinkRate { link }
        | SeriesTarget::Drops { link } = spec.target
        {
            self.observe_link(link);
        }
        let spec = &self.series_specs[i as usize];
        let t = self.now.as_secs_f64();
        let value = match spec.target {
            SeriesTarget::Cwnd { flow } => match &self.flows[flow as usize].transport {
                Transport::Tcp { tx, .. } => tx.cwnd() as f64 / tx.cfg.mss as f64,
                Transport::Rdp { tx, .. } => tx.cwnd_packets() as f64,
                Transport::Udp(_) => f64::NAN,
            },
            SeriesTarget::Ssthresh { flow } => match self.flows[flow as usize].sender() {
                // The initial threshold is "arbitrarily high" (RFC 5681): no number to plot.
                Some(tx) if tx.ssthresh() < 1 << 30 => tx.ssthresh() as f64 / tx.cfg.mss as f64,
                _ => f64::NAN,
            },
            SeriesTarget::Rtt { flow } => self.flows[flow as usize].sender().and_then(|tx| tx.last_rtt).map_or(f64::NAN, |d| d.as_secs_f64() * 1e3),
            SeriesTarget::Srtt { flow } => self.flows[flow as usize].sender().and_then(|tx| tx.srtt()).map_or(f64::NAN, |d| d.as_secs_f64() * 1e3),
            SeriesTarget::QueueLen { link } => self.net.links[link as usize].queue.len() as f64,
            SeriesTarget::QueueAvg { link } => self.net.links[link as usize].queue.discipline.probe().avg,
            SeriesTarget::MaxP { link } => self.net.links[link as usize].queue.discipline.probe().max_p,
            SeriesTarget::DropProb { link } => self.net.links[link as usize].queue.discipline.probe().prob,
            SeriesTarget::Goodput { flow } => {
                let total = match &self.flows[flow as usize].transport {
                    Transport::Tcp { rx, .. } => rx.stats.delivered_bytes,
                    Transport::Rdp { rx, .. } => rx.stats.delivered_bytes,
                    Transport::Udp(src) => src.stats.bytes_received,
                };
                self.rate_since_last(i, total, interval)
            }
            SeriesTarget::LinkRate { link } => {
                let total = self.net.links[link as usize].stats.tx_bytes;
                self.rate_since_last(i, total, interval)
            }
            SeriesTarget::Drops { link } => {
                let total = self.net.links[link as usize].queue.stats.drops();
                (total - std::mem::replace(&mut self.series_last[i as usize], total)) as f64
            }
        };
        let spec = &self.series_specs[i as usize];
        self.series[i as usize].push(t, value, spec.max_points);
        if !self.series[i as usize].truncated {
            self.events.schedule(self.now + Dur(interval), Event::Sample(i));
        }
    }

    /// bit/s over the last interval of a cumulative byte count.
    fn rate_since_last(&mut self, i: u32, total: u64, interval_ns: u64) -> f64 {
        let last = std::mem::replace(&mut self.series_last[i as usize], total);
        if self.now == SimTime::ZERO {
            0.0
        } else {
            (total - last) as f64 * 8.0 / (interval_ns as f64 * 1e-9)
        }
    }

    /// Whether a data packet of flow `fi` starting at `seq` is queued or on a link: one of
    /// the copies the flow's sender handed to the network and that has not left it, unless
    /// a lossy link has lost it on the wire by now (losses are replayed lazily).
    fn data_in_network(&self, fi: FlowIdx, seq: crate::packet::Seq) -> bool {
        let copies = self.flows[fi as usize].in_network.copies(seq);
        if copies == 0 || self.lossy_links.is_empty() {
            return copies > 0;
        }
        let hit = |p: &Packet| p.flow == fi && is_data_segment(p) && p.seq == seq;
        let lost: usize = self.lossy_links.iter().map(|&l| self.net.links[l as usize].lost_unreplayed(self.now, hit)).sum();
        copies > lost
    }

    /// [`data_in_network`](Self::data_in_network) by a scan of every link: what the per-flow
    /// record must agree with (checked in debug builds).
    #[cfg(debug_assertions)]
    fn data_in_network_scan(&self, fi: FlowIdx, seq: crate::packet::Seq) -> bool {
        let hit = |p: &Packet| p.flow == fi && is_data_segment(p) && p.seq == seq;
        self.net.links.iter().any(|l| l.holds(&self.net.pipes, self.now, hit))
    }

    /// Packets of flow `fi` still queued, being transmitted, propagating, or waiting in the
    /// sender's jitter buffer: (forward, reverse). ACC control messages are the routers'
    /// packets and are not counted.
    pub fn packets_in_network(&self, fi: FlowIdx) -> (u64, u64) {
        let mut fwd = 0;
        let mut rev = 0;
        let mut count = |p: &Packet| {
            if p.flow == fi && p.kind != Kind::AccControl {
                if p.is_reverse() {
                    rev += 1
                } else {
                    fwd += 1
                }
            }
        };
        for l in &self.net.links {
            l.packets(&self.net.pipes, self.now).for_each(&mut count);
        }
        self.flows[fi as usize].pending.iter().for_each(|(_, p)| count(p));
        (fwd, rev)
    }
}

/// For each hook point, the indices of the mechanisms that implement it, in order.
#[derive(Clone, Debug, Default)]
struct HookLists {
    arrival: Vec<u8>,
    next_hop: Vec<u8>,
    verdict: Vec<u8>,
    queue_drop: Vec<u8>,
    loss: Vec<u8>,
    link_change: Vec<u8>,
}

impl HookLists {
    fn add(&mut self, i: u8, hooks: Hooks) {
        for (hook, list) in [
            (Hooks::ARRIVAL, &mut self.arrival),
            (Hooks::NEXT_HOP, &mut self.next_hop),
            (Hooks::VERDICT, &mut self.verdict),
            (Hooks::QUEUE_DROP, &mut self.queue_drop),
            (Hooks::LOSS, &mut self.loss),
            (Hooks::LINK_CHANGE, &mut self.link_change),
        ] {
            if hooks.contains(hook) {
                list.push(i);
            }
        }
    }
}

/// A data segment of a flow's sender (TCP or RDP): what the engine follows through the
/// network to tell a false fast retransmit.
#[inline]
fn is_data_segment(p: &Packet) -> bool {
    matches!(p.kind, Kind::TcpData | Kind::RdpData) && p.payload > 0
}

impl Simulation {
    /// Flushes the capture files (when the scenario has any). Call it at the end of a run:
    /// writing errors met during the run are reported here, as (the field path
    /// `pcap[i].file`, the message naming the file). Captures not finished this way are
    /// removed when the simulation is dropped.
    pub fn finish_traces(&mut self) -> Result<(), (String, String)> {
        self.trace.as_mut().map_or(Ok(()), |t| t.finish())
    }
}
