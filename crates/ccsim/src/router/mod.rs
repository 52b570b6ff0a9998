//! Router mechanisms: what a router runs beside forwarding. Each is one module that
//! implements [`RouterMechanism`], and one line of [`mechanisms!`] below registers it; the
//! run loop (`crate::engine`) calls the hooks and applies what they ask for, and names none
//! of the mechanisms.
//!
//! - [`ack_spoof`]: ACK spoofing, with its partial per-flow state in a [`flow_table`].
//! - [`acc`]: Active Congestion Control's monitor and upstream filters; its decisions are in
//!   [`acc::decide`], free of simulator types, so that a live router can run the same code.
//! - [`crate::router::frr`]: IP fast reroute (detection, hold-down, reconvergence).
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
//! ([`begin_measurement`](RouterMechanism::begin_measurement)); the run's report
//! (`crate::report`, the results schema) reads each mechanism's counters.

pub mod acc;
pub mod ack_spoof;
pub mod external;
pub mod flow_table;
pub mod frr;
pub mod hooks;
#[cfg(test)]
pub(crate) mod probe;

pub use ack_spoof::{AckSpoofer, AckSpoofing, Burst, SpoofConfig, SpoofStats};
pub use flow_table::{FlowKey, FlowTable};

pub use hooks::{BuildContext, Cx, Effects, Emit, Hooks, Passage, RouterMechanism, Timer};

use crate::net::{LinkId, NodeId, Packet};
use crate::settings::error::BuildError;
use crate::signal::Action;
use crate::signal::Verdict;
use crate::sim::SimTime;

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

            /// Every registered mechanism's name, in registration order.
            pub const NAMES: &[&'static str] = &[$($(#[$attr])* stringify!($variant),)*];

            /// The mechanism's name in the registry (`AckSpoofing`), for messages.
            pub fn name(&self) -> &'static str {
                match self {
                    $($(#[$attr])* Mechanism::$variant(_) => stringify!($variant),)*
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
                match self {
                    $($(#[$attr])* Mechanism::$variant(m) => m.hooks(),)*
                }
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
        }
    };
}

mechanisms! {
    FastReroute => crate::router::frr::FastReroute,
    Acc => acc::Acc,
    AckSpoofing => ack_spoof::AckSpoofing,
    External => external::External,
    #[cfg(test)]
    Probe => probe::Probe,
}
