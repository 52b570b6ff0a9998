//! A flow as the engine keeps it: its transport ([`Transport`]: the two end hosts), what the
//! run loop keeps beside it (its data segments in the network, its timers as scheduled, its
//! sender's jitter buffer), what the network did to its packets ([`FlowNetStats`]), and where
//! flows come from in the scenario ([`Origins`]).

use super::in_network::InNetwork;
use super::{FlowIdx, Transport};
use crate::app::UdpSource;
use crate::net::{Kind, LinkId, NodeId, Packet};
use crate::sim::{Dur, Rng, SimTime};
use crate::stats::counters;
use crate::tcp::{TcpReceiver, TcpSender};
use std::collections::VecDeque;

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

/// The fields are laid out in this order (`repr(C)`, the flow aligned to a cache line): first
/// what an event at one of the flow's ends reads of the flow itself (its segments in the
/// network, its timers) and the transport's tag, on two lines; then the transport, whose TCP
/// ends are held here rather than boxed; then what set-up, jitter, drops and the report read.
/// Warming asks for the first two lines ([`Flow::prefetch`]), then for the end an event is at.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Flow {
    /// The flow's data segments on links (see `in_network`).
    pub(super) in_network: InNetwork,
    pub(super) stopped: bool,
    /// Whether the sender's packets are jittered (`jitter` above zero).
    pub(super) jittered: bool,
    pub src: NodeId,
    pub dst: NodeId,
    /// The earliest timer event pending of each end, by `transport::End` (see `hosts`).
    pub(super) scheduled: [Option<SimTime>; 2],
    pub transport: Transport,
    /// The flow group (scenario `[[flows]]` entry) this flow belongs to.
    pub group: String,
    /// Index within its group.
    pub index: u32,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub net: FlowNetStats,
    /// Maximum per-packet send jitter (ns-2's `overhead_`), zero for none.
    pub(super) jitter: Dur,
    pub(super) jitter_rng: Rng,
    /// The sender's packets held back by their jitter, with the time each leaves.
    pub(super) pending: VecDeque<(SimTime, Packet)>,
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
            scheduled: [None; 2],
            stopped: false,
        }
    }

    /// Bytes from the start of a flow that an event at one of its ends reads before its
    /// transport, whose tag (`repr(u8)`: its first byte) comes next.
    pub(super) const HOT_BYTES: usize = std::mem::offset_of!(Flow, transport);

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
        self.transport.tcp_sender()
    }
    pub fn receiver(&self) -> Option<&TcpReceiver> {
        self.transport.tcp_receiver()
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
    pub(super) fn of_flow(&self, f: FlowIdx) -> String {
        let i = self.flow_groups.partition_point(|&(first, _)| first <= f);
        self.flow_groups.get(i.wrapping_sub(1)).map_or_else(String::new, |g| g.1.clone())
    }

    /// The path of link `l`'s scenario table, empty if unknown.
    pub(super) fn of_link(&self, l: LinkId) -> String {
        self.links.get(l as usize).cloned().unwrap_or_default()
    }
}

/// A data segment of a flow's sender (TCP or RDP): what the engine follows through the
/// network to tell a false fast retransmit.
#[inline]
pub(super) fn is_data_segment(p: &Packet) -> bool {
    matches!(p.kind, Kind::TcpData | Kind::RdpData) && p.payload > 0
}

#[cfg(test)]
mod tests {
    /// A flow is twenty cache lines: what a new setting or algorithm adds to the sender or
    /// receiver belongs in their boxes (`Extras`, `Spread`), so that a flow that does not use
    /// it does not carry it (`benchmarks/README.md`: the memory a large network reads).
    #[test]
    fn a_flow_is_twenty_cache_lines() {
        assert!(std::mem::size_of::<super::Flow>() <= 1280, "{} bytes", std::mem::size_of::<super::Flow>());
    }
}
