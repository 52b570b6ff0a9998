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
//! The engine's files, by concern:
//!
//! - this one: the [`Simulation`], its events and the run loop that dispatches them, with
//!   its stop conditions (the time, an event budget, the watchdog, the memory guard);
//! - `flow` and `transport`: a flow, and its two end hosts behind one seam;
//! - `forward`: nodes and links (forwarding, queues, drops, arrivals, failures);
//! - `hosts`: packets delivered to and sent by the end hosts, flow starts, the ends' timers;
//! - `hooks`: router mechanisms called at their hook points, and the effects they ask for;
//! - `measure`: counters, the warm-up's snapshot, series, the packet log;
//! - `in_network`, `warm`, `memory`: a flow's segments in the network, warming the caches
//!   ahead of events, the memory guard.

use crate::net::{LinkId, Network, Packet};
use crate::router::{Effects, Mechanism, Timer};
use crate::sim::{stop, EventQueue, SimTime};
use crate::stats::{Series, SeriesSpec};
use crate::trace::packet_log::PacketLog;

mod flow;
mod forward;
mod hooks;
mod hosts;
mod in_network;
mod measure;
pub mod memory;
#[cfg(test)]
mod tests;
mod transport;
mod warm;
pub use flow::{Flow, FlowNetStats, Origins};
use hooks::HookLists;
pub use measure::Snapshot;
pub use memory::MemoryGuard;
use transport::End;
pub use transport::Transport;

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

/// Events at one instant beyond which the watchdog stops a run (plus a few per flow, link
/// and series, which may all legitimately act at one instant, such as time zero).
pub const WATCHDOG_EVENTS: u64 = 10_000_000;

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
    /// A request to stop ([`stop`]) came in the middle of an event's work, which was left
    /// undone.
    Interrupted,
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
            StallReason::Interrupted => format!(
                "the run was interrupted at {:.6} s simulated, in the middle of an event's work; it cannot go on",
                self.at.as_secs_f64()
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
    /// Effects of the hook being applied (see `hooks`).
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

    /// Schedules `ev` at `at`, as tests of the run loop need.
    #[cfg(test)]
    fn schedule_for_test(&mut self, at: SimTime, ev: Event) {
        self.events.schedule(at, ev);
    }

    /// Sets the watchdog's limit of events at one instant, as tests of it need.
    #[cfg(test)]
    fn set_watchdog_limit(&mut self, events: u64) {
        self.watchdog.limit = events;
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
    /// [`advance_links`](Self::advance_links) once it is done. That is a read of every link,
    /// a share of the run at scale (`benchmarks/README.md`, "the links read after every
    /// slice"). Links are brought up to date lazily, whenever something reads them, so where
    /// slices end changes no result.
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
            if self.events_processed.is_multiple_of(stop::CHECK_EVENTS) && stop::requested() {
                self.stop_requested();
                break;
            }
        }
        if reached {
            self.now = self.now.max(limit);
        }
        reached
    }

    /// A request to stop came ([`stop`]): the slice ends; if a loop left work undone for it,
    /// the run cannot go on and is marked stopped.
    #[cold]
    fn stop_requested(&mut self) {
        if stop::was_cut() {
            self.stalled =
                Some(Stall { at: self.now, events: self.events_processed, path: String::new(), what: String::new(), reason: StallReason::Interrupted });
        }
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
            Some(l) => (self.origins.of_link(top as LinkId), format!("{} packets in the network, {} of them in link {}", total, packets, l.name)),
            None => (String::new(), format!("{total} packets in the network")),
        };
        self.stalled = Some(Stall { at: now, events: self.events_processed, path, what, reason: StallReason::Memory { grown, limit, why } });
    }

    /// The watchdog's report, `ev` being the event at which it stopped the run.
    fn stall(&self, ev: Event) -> Stall {
        let o = &self.origins;
        let flow = |f: FlowIdx, what: &str| (o.of_flow(f), format!("{what} of flow {}", self.flows.get(f as usize).map_or_else(|| f.to_string(), Flow::name)));
        let link = |l: LinkId, what: &str| (o.of_link(l), format!("{what} link {}", self.net.links[l as usize].name));
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

    /// Dispatches one event to its handler. Called from the run loop alone, and kept inside
    /// it: a call per event costs the loop its registers.
    #[inline(always)]
    fn handle(&mut self, ev: Event) {
        match ev {
            Event::TxDone { link, epoch } => self.on_tx_done(link, epoch),
            Event::Arrive { link, epoch } => self.on_arrive(link, epoch),
            Event::FlowStart(f) => self.on_flow_start(f),
            Event::FlowStop(f) => self.flows[f as usize].stopped = true,
            Event::Rto(f) => self.on_end_timer(f, End::Sender),
            Event::DelAck(f) => self.on_end_timer(f, End::Receiver),
            Event::Emit(f) => self.on_emit(f),
            Event::UdpSend(f) => self.on_udp_send(f),
            Event::WarmupEnd => self.begin_measurement(),
            Event::Sample(i) => self.on_sample(i),
            Event::LinkDown(l) => self.set_link(l, false),
            Event::LinkUp(l) => self.set_link(l, true),
            Event::Timer { mechanism, kind, a, b } => self.on_mechanism_timer(mechanism, Timer { kind, a, b }),
        }
    }

    /// Flushes the capture files (when the scenario has any). Call it at the end of a run:
    /// writing errors met during the run are reported here, as (the field path
    /// `pcap[i].file`, the message naming the file). Captures not finished this way are
    /// removed when the simulation is dropped.
    pub fn finish_traces(&mut self) -> Result<(), (String, String)> {
        self.trace.as_mut().map_or(Ok(()), |t| t.finish())
    }
}
