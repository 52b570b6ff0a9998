//! Router mechanisms: what a router runs beside forwarding. Each is one module that
//! implements [`RouterMechanism`], and one line of [`mechanisms!`] below registers it; the
//! run loop (`crate::engine`) calls the hooks and applies what they ask for, and names none
//! of the mechanisms.
//!
//! - [`ack_spoof`]: ACK spoofing, with its partial per-flow state in a [`flow_table`].
//! - [`acc`]: Active Congestion Control's monitor and upstream filters; its decisions are in
//!   [`acc::decide`], free of simulator types, so that a live router can run the same code.
//! - [`crate::net::frr`]: IP fast reroute (detection, hold-down, reconvergence).
//!
//! # Hooks
//!
//! A hook sees one event at one router or link and answers with a decision (forward or
//! discard, the next hop, the action for a queue's verdict) and effects it asks of the
//! engine through [`Cx`]: packets to send from a node, timers to set. The engine applies the
//! effects after the hook returns, in the order they were asked for, so a mechanism never
//! re-enters the engine. The hook points, in the order a packet meets them:
//!
//! | hook | when | answer |
//! |---|---|---|
//! | [`on_arrival`](RouterMechanism::on_arrival) | a packet reaches a router it is not addressed to, TTL decremented | forward or discard; packets to send before or after it |
//! | [`next_hop`](RouterMechanism::next_hop) | a node picks the link for a packet | the link (the routing table's by default) |
//! | [`on_verdict`](RouterMechanism::on_verdict) | a queue's discipline and signal policy have decided | the action to commit |
//! | [`on_queue_drop`](RouterMechanism::on_queue_drop) | a queue dropped a packet | packets to send |
//! | [`claims_loss`](RouterMechanism::claims_loss) | the network lost a packet anywhere | whether it was the mechanism's own packet |
//! | [`on_link_change`](RouterMechanism::on_link_change) | a link went down or came up | timers, route changes |
//! | [`on_timer`](RouterMechanism::on_timer) | a timer it set expired | timers, route changes |
//!
//! A mechanism says which hooks it implements ([`Hooks`]); the engine calls only those, so a
//! mechanism costs nothing on the paths it does not watch, and a scenario without mechanisms
//! pays one empty-list check per hook point. Statistics follow the engine's warm-up
//! ([`begin_measurement`](RouterMechanism::begin_measurement)) and go into the run's report
//! ([`report`](RouterMechanism::report)).

pub mod acc;
pub mod ack_spoof;
pub mod flow_table;
#[cfg(test)]
mod probe;

pub use ack_spoof::{AckSpoofer, AckSpoofing, Burst, SpoofConfig, SpoofStats};
pub use flow_table::{FlowKey, FlowTable};

use crate::net::{LinkId, Network, NodeId, Packet};
use crate::queue::Verdict;
use crate::report::Report;
use crate::scenario::build::{BuildContext, BuildError};
use crate::signal::Action;
use crate::sim::SimTime;

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

    /// The warm-up ended: counters restart from here.
    fn begin_measurement(&mut self) {}

    /// Writes the mechanism's section of the run's report.
    fn report(&self, _net: &Network, _out: &mut Report) {}
}

/// A registered mechanism type, found among a simulation's mechanisms by
/// `Simulation::mechanism` (for tests and for readers of its state).
pub trait Registered: Sized {
    fn find(m: &Mechanism) -> Option<&Self>;
}

/// The registry: one line per mechanism, `Variant => path::Type`. Each type implements
/// [`RouterMechanism`] and `fn build(cx: &BuildContext) -> Result<Option<Self>, BuildError>`,
/// which returns None when the scenario does not use it. Mechanisms are built, and their
/// hooks called, in the order listed here.
macro_rules! mechanisms {
    ($($(#[$attr:meta])* $variant:ident => $ty:ty,)*) => {
        /// A router mechanism of the simulation, dispatched without dynamic allocation.
        #[derive(Clone, Debug)]
        pub enum Mechanism {
            $($(#[$attr])* $variant($ty),)*
        }

        impl Mechanism {
            /// Every mechanism the scenario uses, in registration order.
            pub fn build_all(cx: &BuildContext) -> Result<Vec<Mechanism>, BuildError> {
                let mut out = Vec::new();
                $(
                    $(#[$attr])*
                    if let Some(m) = <$ty>::build(cx)? {
                        out.push(Mechanism::$variant(m));
                    }
                )*
                Ok(out)
            }

            fn as_dyn(&self) -> &dyn RouterMechanism {
                match self {
                    $($(#[$attr])* Mechanism::$variant(m) => m,)*
                }
            }
        }

        $(
            $(#[$attr])*
            impl Registered for $ty {
                fn find(m: &Mechanism) -> Option<&Self> {
                    match m {
                        Mechanism::$variant(x) => Some(x),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }
            }
        )*

        impl RouterMechanism for Mechanism {
            fn hooks(&self) -> Hooks {
                self.as_dyn().hooks()
            }
            fn on_arrival(&mut self, node: NodeId, pkt: &Packet, cx: &mut Cx) -> Passage {
                match self {
                    $($(#[$attr])* Mechanism::$variant(m) => m.on_arrival(node, pkt, cx),)*
                }
            }
            fn next_hop(&mut self, node: NodeId, pkt: &mut Packet, chosen: Option<LinkId>, cx: &mut Cx) -> Option<LinkId> {
                match self {
                    $($(#[$attr])* Mechanism::$variant(m) => m.next_hop(node, pkt, chosen, cx),)*
                }
            }
            fn on_verdict(&mut self, link: LinkId, pkt: &Packet, verdict: Verdict, action: Action, cx: &mut Cx) -> Action {
                match self {
                    $($(#[$attr])* Mechanism::$variant(m) => m.on_verdict(link, pkt, verdict, action, cx),)*
                }
            }
            fn on_queue_drop(&mut self, link: LinkId, pkt: &Packet, cx: &mut Cx) {
                match self {
                    $($(#[$attr])* Mechanism::$variant(m) => m.on_queue_drop(link, pkt, cx),)*
                }
            }
            fn claims_loss(&mut self, pkt: &Packet) -> bool {
                match self {
                    $($(#[$attr])* Mechanism::$variant(m) => m.claims_loss(pkt),)*
                }
            }
            fn on_link_change(&mut self, link: LinkId, up: bool, cx: &mut Cx) {
                match self {
                    $($(#[$attr])* Mechanism::$variant(m) => m.on_link_change(link, up, cx),)*
                }
            }
            fn on_timer(&mut self, timer: Timer, cx: &mut Cx) {
                match self {
                    $($(#[$attr])* Mechanism::$variant(m) => m.on_timer(timer, cx),)*
                }
            }
            fn settle(&mut self, now: SimTime) {
                match self {
                    $($(#[$attr])* Mechanism::$variant(m) => m.settle(now),)*
                }
            }
            fn begin_measurement(&mut self) {
                match self {
                    $($(#[$attr])* Mechanism::$variant(m) => m.begin_measurement(),)*
                }
            }
            fn report(&self, net: &Network, out: &mut Report) {
                self.as_dyn().report(net, out)
            }
        }
    };
}

mechanisms! {
    FastReroute => crate::net::frr::FastReroute,
    Acc => acc::Acc,
    AckSpoofing => ack_spoof::AckSpoofing,
    #[cfg(test)]
    Probe => probe::Probe,
}
