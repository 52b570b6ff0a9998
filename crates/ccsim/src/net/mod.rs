//! The network: nodes (hosts and routers), unidirectional links with their egress queues,
//! and routing tables.

pub mod link;
pub mod pipe;
pub mod routing;

pub use crate::packet::{Ecn, FlowId, Kind, NodeId, Packet, SackBlocks};
pub use link::{Link, LinkId, LinkStats, Scheduled};
pub use pipe::PipeStore;
pub use routing::Routes;

use crate::stats::counters;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Router,
}

counters! {
    /// Cumulative counters of one node.
    pub struct NodeStats {
        /// Packets a router forwarded.
        pub forwarded: u64,
        /// Packets discarded because their TTL reached zero.
        pub ttl_expired: u64,
        /// Packets discarded for want of a route.
        pub no_route: u64,
        /// Packets a router sent over an IP fast-reroute backup (alternate or tunnel).
        pub backup_forwarded: u64,
    }
}

#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    pub stats: NodeStats,
}

/// Nodes, links and routes, indexed by `NodeId` and `LinkId`.
#[derive(Clone, Debug, Default)]
pub struct Network {
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    /// The packets propagating on the links (each link holds where its own are).
    pub pipes: PipeStore,
    pub routes: Routes,
    /// Destinations routes are computed for.
    pub destinations: Vec<NodeId>,
}

impl Network {
    pub fn recompute_routes(&mut self) {
        self.routes = Routes::compute(self.nodes.len(), &self.links, &self.destinations);
    }

    pub fn node_id(&self, name: &str) -> Option<NodeId> {
        self.nodes.iter().position(|n| n.name == name).map(|i| i as NodeId)
    }
}
