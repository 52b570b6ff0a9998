//! IP fast reroute (RFC 5714 framework) with loop-free alternates (RFC 5286).
//!
//! When a router detects that one of its links failed (after a configurable detection
//! delay), it sends the traffic whose primary next hop is that link to a precomputed backup:
//! a loop-free alternate neighbour N, one with dist(N, D) < dist(N, S) + dist(S, D)
//! (RFC 5286 inequality 1), or an explicit repair path named in the scenario, along which
//! packets are tunnelled. Other routers are not told, so their tables do not change.
//!
//! A hold-down timer starts at detection. A failure repaired before it expires is transient:
//! traffic returns to the primary path at once and no reconvergence happens. A failure still
//! present when it expires is persistent: every router installs a new shortest-path table,
//! each after its own delay (inconsistent tables in between can form micro-loops, which TTL
//! ends), and the repairing router keeps using its backup until the last router has
//! converged, then moves the affected traffic to the new path (the DAS paper, Fig. 1).

use super::link::{Link, LinkId};
use super::packet::NodeId;
use super::routing::Routes;
use crate::sim::Dur;

/// An explicit repair path for a link: the nodes from the link's head, through the detour,
/// to a node from which normal routing avoids the link.
#[derive(Clone, Debug)]
pub struct RepairPath {
    pub link: LinkId,
    /// The links of the detour, in order.
    pub hops: Vec<LinkId>,
}

/// The backup a router uses for one destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backup {
    /// Forward on this link (to a loop-free alternate).
    Alternate(LinkId),
    /// Tunnel along the explicit repair path with this index.
    Tunnel(u16),
}

#[derive(Clone, Debug)]
pub struct FrrConfig {
    pub detection_delay: Dur,
    pub hold_down: Dur,
    /// Reconvergence delay of each node (routers only are used).
    pub reconvergence_delay: Vec<Dur>,
    /// Compute loop-free alternates from the topology.
    pub lfa: bool,
    pub repair_paths: Vec<RepairPath>,
}

/// Shortest-path distances from every node to `dst` over the links that are up.
fn distances_to(n_nodes: usize, links: &[Link], dst: NodeId) -> Vec<u64> {
    let mut dist = vec![u64::MAX; n_nodes];
    dist[dst as usize] = 0;
    // Bellman-Ford is enough here: this runs once per failure, not per packet.
    loop {
        let mut changed = false;
        for l in links.iter().filter(|l| l.up) {
            let d = dist[l.to as usize];
            if d != u64::MAX && d + (l.cost as u64) < dist[l.from as usize] {
                dist[l.from as usize] = d + l.cost as u64;
                changed = true;
            }
        }
        if !changed {
            return dist;
        }
    }
}

/// The link-protecting loop-free alternate of `failed` for traffic to `dst`: the neighbour
/// reachable on another link that satisfies RFC 5286 inequality 1 with the lowest total cost
/// (ties to the lowest link index), or None.
pub fn loop_free_alternate(n_nodes: usize, links: &[Link], failed: LinkId, dst: NodeId) -> Option<LinkId> {
    let s = links[failed as usize].from;
    // Distances in the topology before the failure (the router's view when it precomputes).
    let mut all_up = links.to_vec();
    for l in &mut all_up {
        l.up = true;
    }
    let dist = distances_to(n_nodes, &all_up, dst);
    let dist_to_s = distances_to(n_nodes, &all_up, s);
    let mut best: Option<(u64, LinkId)> = None;
    for (i, l) in links.iter().enumerate() {
        let n = l.to as usize;
        if l.from != s || i as LinkId == failed || dist[n] == u64::MAX {
            continue;
        }
        if dist[n] < dist_to_s[n].saturating_add(dist[s as usize]) {
            let total = l.cost as u64 + dist[n];
            if best.is_none_or(|(c, _)| total < c) {
                best = Some((total, i as LinkId));
            }
        }
    }
    best.map(|(_, l)| l)
}

/// Which backup `node` uses for `dst` while `failed` is down: the scenario's explicit repair
/// path for that link if there is one, else the loop-free alternate if enabled.
pub fn choose_backup(cfg: &FrrConfig, n_nodes: usize, links: &[Link], failed: LinkId, dst: NodeId) -> Option<Backup> {
    if let Some(i) = cfg.repair_paths.iter().position(|p| p.link == failed) {
        return Some(Backup::Tunnel(i as u16));
    }
    if cfg.lfa {
        return loop_free_alternate(n_nodes, links, failed, dst).map(Backup::Alternate);
    }
    None
}

/// The next link of a tunnelled packet at `node`, or None once it has left the path.
pub fn tunnel_next(path: &RepairPath, links: &[Link], node: NodeId) -> Option<LinkId> {
    path.hops.iter().copied().find(|&l| links[l as usize].from == node)
}

/// A repair in force at a router: the failed link and the backup per destination.
#[derive(Clone, Debug)]
pub struct ActiveRepair {
    pub link: LinkId,
    /// Failure generation of the link when the repair was installed.
    pub generation: u32,
    /// (destination, backup); destinations without a backup are absent (their traffic is lost).
    pub backups: Vec<(NodeId, Backup)>,
}

impl ActiveRepair {
    pub fn backup_for(&self, dst: NodeId) -> Option<Backup> {
        self.backups.iter().find(|(d, _)| *d == dst).map(|(_, b)| *b)
    }
}

crate::stats::counters! {
    /// Network-wide IP fast-reroute counters.
    pub struct FrrStats {
        /// Failures detected by the router at the head of the failed link.
        pub detections: u64,
        /// Failures repaired before the hold-down expired (traffic back on the primary).
        pub transient_repairs: u64,
        /// Global reconvergences completed.
        pub reconvergences: u64,
    }
}

/// The fast-reroute state of the whole network.
#[derive(Clone, Debug)]
pub struct Frr {
    pub cfg: FrrConfig,
    /// Repairs in force, per node.
    pub active: Vec<Vec<ActiveRepair>>,
    /// Bumped on every failure of a link, so that stale detection and hold-down events are
    /// recognised.
    pub generation: Vec<u32>,
    /// Links that were down when the routes in force were computed.
    pub routed_around: Vec<bool>,
    /// Tables being installed by a reconvergence in progress, and its round number.
    pub pending: Option<(Routes, u32)>,
    pub round: u32,
    pub stats: FrrStats,
}

impl Frr {
    pub fn new(cfg: FrrConfig, n_nodes: usize, n_links: usize) -> Frr {
        Frr {
            cfg,
            active: vec![Vec::new(); n_nodes],
            generation: vec![0; n_links],
            routed_around: vec![false; n_links],
            pending: None,
            round: 0,
            stats: FrrStats::default(),
        }
    }

    /// The repair in force at `node` for traffic whose primary next hop is `link`.
    pub fn repair(&self, node: NodeId, link: LinkId) -> Option<&ActiveRepair> {
        self.active.get(node as usize)?.iter().find(|r| r.link == link)
    }
}
