//! The router seam: the hooks a router mechanism implements, what a hook sees of the
//! simulation ([`Cx`]) and what it may ask of the engine, and what a mechanism sees of the
//! scenario when it is built ([`BuildContext`]). See the parent module for the hook points.

use crate::net::{LinkId, Network, NodeId, Packet};
use crate::settings::schema::{QueueSpec, Scenario};
use crate::signal::Action;
use crate::signal::Verdict;
use crate::sim::SimTime;
use std::collections::HashMap;

/// The hooks a mechanism implements, as a bit set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hooks(u8);

impl Hooks {
    pub const ARRIVAL: Hooks = Hooks(1);
    pub const NEXT_HOP: Hooks = Hooks(2);
    pub const VERDICT: Hooks = Hooks(4);
    pub const QUEUE_DROP: Hooks = Hooks(8);
    pub const LOSS: Hooks = Hooks(16);
    pub const LINK_CHANGE: Hooks = Hooks(32);

    pub const fn union(self, other: Hooks) -> Hooks {
        Hooks(self.0 | other.0)
    }
    pub const fn contains(self, other: Hooks) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for Hooks {
    type Output = Hooks;
    fn bitor(self, rhs: Hooks) -> Hooks {
        self.union(rhs)
    }
}

/// A timer a mechanism sets: its own `kind` and two numbers, given back to
/// [`on_timer`](RouterMechanism::on_timer) when it expires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timer {
    pub kind: u8,
    pub a: u32,
    pub b: u32,
}

/// What happens to a packet arriving at a router, as one mechanism decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passage {
    Forward,
    /// The router discards it (counted as a drop of its flow).
    Discard,
}

/// A packet a mechanism asks the engine to send from a node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Emit {
    pub from: NodeId,
    pub pkt: Packet,
    /// In [`on_arrival`](RouterMechanism::on_arrival): sent before the arriving packet is
    /// forwarded (otherwise after it).
    pub first: bool,
}

/// Effects a hook asks for, gathered by the engine and applied after the hook returns.
#[derive(Debug, Default)]
pub struct Effects {
    pub emits: Vec<Emit>,
    pub timers: Vec<(SimTime, Timer)>,
}

/// What a hook sees of the simulation and how it asks for effects.
pub struct Cx<'a> {
    pub now: SimTime,
    /// The network: nodes, links, routes. Mechanisms that change routing (fast reroute)
    /// install tables here; nothing else should change it.
    pub net: &'a mut Network,
    pub(crate) effects: &'a mut Effects,
}

impl<'a> Cx<'a> {
    pub fn new(now: SimTime, net: &'a mut Network, effects: &'a mut Effects) -> Cx<'a> {
        Cx { now, net, effects }
    }
    /// Sends `pkt` from `from` once the hook returns (after the packet being handled).
    pub fn send(&mut self, from: NodeId, pkt: Packet) {
        self.effects.emits.push(Emit { from, pkt, first: false });
    }
    /// In `on_arrival`: sends `pkt` from `from` before the arriving packet goes on.
    pub fn send_first(&mut self, from: NodeId, pkt: Packet) {
        self.effects.emits.push(Emit { from, pkt, first: true });
    }
    /// Calls this mechanism's [`on_timer`](RouterMechanism::on_timer) with `timer` at `at`.
    pub fn set_timer(&mut self, at: SimTime, timer: Timer) {
        self.effects.timers.push((at, timer));
    }
}

/// The interface of a router mechanism. Every hook has a no-op default; [`hooks`](Self::hooks)
/// names those the mechanism implements.
pub trait RouterMechanism {
    /// The hooks the engine should call.
    fn hooks(&self) -> Hooks;

    /// `pkt` reached router `node`, which is not its destination; its TTL has been
    /// decremented and is not zero.
    fn on_arrival(&mut self, _node: NodeId, _pkt: &Packet, _cx: &mut Cx) -> Passage {
        Passage::Forward
    }

    /// `node` sends `pkt` on; `chosen` is the link chosen so far (the routing table's, or an
    /// earlier mechanism's), None if there is no route. May rewrite the packet's routing
    /// fields (a tunnel).
    fn next_hop(&mut self, _node: NodeId, _pkt: &mut Packet, chosen: Option<LinkId>, _cx: &mut Cx) -> Option<LinkId> {
        chosen
    }

    /// `link`'s queue reached `verdict` for `pkt` and its signal policy chose `action`.
    /// Returns the action to commit.
    fn on_verdict(&mut self, _link: LinkId, _pkt: &Packet, _verdict: Verdict, action: Action, _cx: &mut Cx) -> Action {
        action
    }

    /// `link`'s queue dropped `pkt`.
    fn on_queue_drop(&mut self, _link: LinkId, _pkt: &Packet, _cx: &mut Cx) {}

    /// The network lost `pkt` (queue, wire, failure, no route, TTL, a mechanism's discard).
    /// True if the packet was this mechanism's own, so it is not charged to its flow.
    fn claims_loss(&mut self, _pkt: &Packet) -> bool {
        false
    }

    /// `link` went down (`up` false) or came up; the link has already changed state.
    fn on_link_change(&mut self, _link: LinkId, _up: bool, _cx: &mut Cx) {}

    /// A timer set with [`Cx::set_timer`] expired.
    fn on_timer(&mut self, _timer: Timer, _cx: &mut Cx) {}

    /// Brings time-dependent state up to `now` before statistics are read.
    fn settle(&mut self, _now: SimTime) {}

    /// The warm-up ended: counters restart from here (a mechanism keeps its counters as of
    /// now and reports what it counts after them).
    fn begin_measurement(&mut self) {}
}

/// What a router mechanism sees of the scenario when it is built (see `crate::router`):
/// the parsed scenario, the network with its links and routes, and the names.
pub struct BuildContext<'a> {
    pub scenario: &'a Scenario,
    pub net: &'a Network,
    /// The run's seed, for the mechanism's own random streams.
    pub seed: u64,
    pub node_ids: &'a HashMap<String, NodeId>,
    pub link_ids: &'a HashMap<String, LinkId>,
    /// For each link, in link order: the field path of its queue table
    /// (`links[i].queue` or `links[i].queue_reverse`) and the table, if the scenario gave one.
    pub link_queues: &'a [(String, Option<QueueSpec>)],
}
