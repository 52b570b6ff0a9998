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
//!
//! # TTL on a repair path
//!
//! A loop-free alternate is ordinary forwarding: every router on the way decrements the TTL.
//! A packet on an explicit repair path is tunnelled, and [`TunnelTtl`] (`[ipfrr] tunnel_ttl`)
//! says what happens to its TTL there:
//!
//! - `tunnel` (RFC 2003, IP in IP; the `rfc` profile's default): the router at the head
//!   forwards the packet (decrementing its TTL) into the tunnel, the routers inside forward
//!   the outer header and leave the packet's own TTL alone, and the router at the tail
//!   takes it out and forwards it (decrementing). So a repaired packet reaches the receiver
//!   with the TTL the primary path gives it. (The outer header's TTL is not modelled: a
//!   packet entering the tunnel with TTL 1 still expires at the first router inside.)
//! - `per-hop` (the `ns2` profile's default): every router on the repair path decrements the
//!   TTL, as hop-by-hop routing over the detour would, and as a simulator without tunnels
//!   (ns-2) forwards a repair path. The longer detour then lowers the TTL the receiver sees.
//!
//! DAS (the DAS paper, Section II) detects the switch back to the primary path by a *rise*
//! in the TTL of arriving packets, so on an explicit repair path it works only with
//! `per-hop`: through a real tunnel the TTL does not change and DAS sees nothing. The DAS
//! reproduction's #-network (explicit repair path A-B-D-C) therefore uses `per-hop`, as the
//! paper's ns-2 simulation did; its Fig. 2 backup is a loop-free alternate, which this
//! setting does not touch.

use crate::net::{Link, LinkId, NodeKind, Routes};
use crate::packet::{NodeId, Packet};
use crate::router::hooks::{BuildContext, Cx, Hooks, RouterMechanism, Timer};
use crate::settings::error::{fail, BuildError};
use crate::settings::schema::IpFrrSpec;
use crate::sim::{Dur, Rng};

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

/// What a tunnelled packet's TTL does on an explicit repair path (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TunnelTtl {
    /// IP in IP: only the tunnel's head and tail decrement it.
    Tunnel,
    /// Every router on the repair path decrements it.
    PerHop,
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
    pub tunnel_ttl: TunnelTtl,
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

/// Default hold-down timer.
pub const DEFAULT_HOLD_DOWN: Dur = Dur::from_secs(10);

impl FrrConfig {
    /// The configuration `spec` describes for the network of `cx`, every field checked.
    pub fn from_spec(spec: &IpFrrSpec, cx: &BuildContext) -> Result<FrrConfig, BuildError> {
        let p = "ipfrr";
        let (net, seed) = (cx.net, cx.seed);
        if let Some(m) = spec.reconvergence_delay.as_ref().and_then(|d| d.check()) {
            return fail(format!("{p}.reconvergence_delay"), m);
        }
        let reconvergence_delay = net
            .nodes
            .iter()
            .map(|n| spec.reconvergence_delay.map_or(Dur::ZERO, |d| d.draw(&mut Rng::stream(seed, &format!("reconvergence/{}", n.name)))))
            .collect();
        let mut repair_paths = Vec::new();
        for (i, rp) in spec.repair_paths.iter().enumerate() {
            let path = format!("{p}.repair_paths[{i}]");
            let &link = cx.link_ids.get(&rp.link).ok_or_else(|| (format!("{path}.link"), format!("unknown link {:?} (links are named \"A->B\")", rp.link)))?;
            let head = &net.nodes[net.links[link as usize].from as usize].name;
            if rp.path.len() < 2 || &rp.path[0] != head {
                return fail(format!("{path}.path"), format!("must start at the link's head {head:?} and name at least one more node"));
            }
            let mut hops = Vec::new();
            for w in rp.path.windows(2) {
                let name = format!("{}->{}", w[0], w[1]);
                for n in w {
                    if !cx.node_ids.contains_key(n) {
                        return fail(format!("{path}.path"), format!("unknown node {n:?}"));
                    }
                }
                let &l = cx.link_ids.get(&name).ok_or_else(|| (format!("{path}.path"), format!("no link {name:?}")))?;
                if l == link {
                    return fail(format!("{path}.path"), "the repair path uses the link it protects");
                }
                hops.push(l);
            }
            repair_paths.push(RepairPath { link, hops });
        }
        let tunnel_ttl = match spec.tunnel_ttl.as_deref() {
            None => cx.scenario.profile.pick(TunnelTtl::Tunnel, TunnelTtl::PerHop),
            Some("tunnel") => TunnelTtl::Tunnel,
            Some("per-hop") => TunnelTtl::PerHop,
            Some(other) => return fail(format!("{p}.tunnel_ttl"), format!("unknown value {other:?} (expected \"tunnel\" or \"per-hop\")")),
        };
        Ok(FrrConfig {
            tunnel_ttl,
            detection_delay: spec.detection_delay.map_or(Dur::ZERO, |d| d.dur()),
            hold_down: spec.hold_down.map_or(DEFAULT_HOLD_DOWN, |d| d.dur()),
            reconvergence_delay,
            lfa: spec.lfa.unwrap_or(true),
            repair_paths,
        })
    }
}

/// The timers of the state machine (their `kind`).
mod timer {
    /// The router at the head of a failed link notices: `a` the link, `b` its failure
    /// generation.
    pub const DETECT: u8 = 0;
    /// The hold-down of a repair expires: `a` the link, `b` its failure generation.
    pub const HOLD_DOWN: u8 = 1;
    /// A router installs the tables of a reconvergence: `a` the node, `b` the round.
    pub const CONVERGE: u8 = 2;
    /// The last router has converged: repairs give way to the new tables; `b` the round.
    pub const DONE: u8 = 3;
}

/// IP fast reroute for the whole network, as a router mechanism: it picks the backup next
/// hop while a repair is in force ([`next_hop`](RouterMechanism::next_hop)) and runs the
/// state machine of the module documentation on link changes and its timers.
#[derive(Clone, Debug)]
pub struct FastReroute {
    pub cfg: FrrConfig,
    /// Repairs in force, per node.
    active: Vec<Vec<ActiveRepair>>,
    /// Bumped on every failure of a link, so that stale detection and hold-down timers are
    /// recognised.
    generation: Vec<u32>,
    /// Links that were down when the routes in force were computed.
    routed_around: Vec<bool>,
    /// Tables being installed by a reconvergence in progress, and its round number.
    pending: Option<(Routes, u32)>,
    round: u32,
    pub stats: FrrStats,
    /// The counters at the end of the warm-up (zero before).
    baseline: FrrStats,
}

impl FastReroute {
    pub fn new(cfg: FrrConfig, n_nodes: usize, n_links: usize) -> FastReroute {
        FastReroute {
            cfg,
            active: vec![Vec::new(); n_nodes],
            generation: vec![0; n_links],
            routed_around: vec![false; n_links],
            pending: None,
            round: 0,
            stats: FrrStats::default(),
            baseline: FrrStats::default(),
        }
    }

    /// Fast reroute as the scenario's `[ipfrr]` table configures it; None without the table.
    pub fn build(cx: &BuildContext) -> Result<Option<FastReroute>, BuildError> {
        let Some(spec) = &cx.scenario.ipfrr else { return Ok(None) };
        let cfg = FrrConfig::from_spec(spec, cx)?;
        Ok(Some(FastReroute::new(cfg, cx.net.nodes.len(), cx.net.links.len())))
    }

    /// The repair in force at `node` for traffic whose primary next hop is `link`.
    pub fn repair(&self, node: NodeId, link: LinkId) -> Option<&ActiveRepair> {
        self.active.get(node as usize)?.iter().find(|r| r.link == link)
    }

    /// The counters since the end of the warm-up.
    pub fn measured(&self) -> FrrStats {
        self.stats.delta(&self.baseline)
    }

    /// Repairs in force at `node`.
    pub fn repairs_at(&self, node: NodeId) -> usize {
        self.active[node as usize].len()
    }

    /// The router at the head of `link` notices its failure: it installs a backup for every
    /// destination it routes over the link and starts the hold-down.
    fn detect(&mut self, link: LinkId, generation: u32, cx: &mut Cx) {
        let net = &*cx.net;
        if self.generation[link as usize] != generation || net.links[link as usize].up {
            return;
        }
        let head = net.links[link as usize].from;
        let n = net.nodes.len();
        let backups = net
            .destinations
            .iter()
            .filter(|&&d| net.routes.next_hop(head, d) == Some(link))
            .filter_map(|&d| choose_backup(&self.cfg, n, &net.links, link, d).map(|b| (d, b)))
            .collect();
        self.active[head as usize].push(ActiveRepair { link, generation, backups });
        self.stats.detections += 1;
        cx.set_timer(cx.now + self.cfg.hold_down, Timer { kind: timer::HOLD_DOWN, a: link, b: generation });
    }

    /// Every router installs shortest paths over the links now up, each after its own
    /// delay; routers with a repair in force wait for the last one (`timer::DONE`).
    fn start_reconvergence(&mut self, cx: &mut Cx) {
        self.round += 1;
        let round = self.round;
        let net = &*cx.net;
        for (i, l) in net.links.iter().enumerate() {
            self.routed_around[i] = !l.up;
        }
        self.pending = Some((Routes::compute(net.nodes.len(), &net.links, &net.destinations), round));
        let mut last = cx.now;
        let mut timers = Vec::new();
        for (i, node) in net.nodes.iter().enumerate() {
            if node.kind != NodeKind::Router {
                continue;
            }
            let at = cx.now + self.cfg.reconvergence_delay[i];
            last = last.max(at);
            if self.active[i].is_empty() {
                timers.push((at, Timer { kind: timer::CONVERGE, a: i as u32, b: round }));
            }
        }
        for (at, t) in timers {
            cx.set_timer(at, t);
        }
        cx.set_timer(last, Timer { kind: timer::DONE, a: 0, b: round });
    }

    fn converge(&mut self, node: NodeId, round: u32, cx: &mut Cx) {
        if let Some((routes, r)) = &self.pending {
            if *r == round {
                cx.net.routes.install_row(routes, node);
            }
        }
    }

    fn convergence_done(&mut self, round: u32, cx: &mut Cx) {
        let Some((routes, r)) = self.pending.take() else { return };
        if r != round {
            self.pending = Some((routes, r));
            return;
        }
        for (i, repairs) in self.active.iter_mut().enumerate() {
            if !repairs.is_empty() {
                repairs.clear();
                cx.net.routes.install_row(&routes, i as NodeId);
            }
        }
        self.stats.reconvergences += 1;
    }
}

impl RouterMechanism for FastReroute {
    fn hooks(&self) -> Hooks {
        Hooks::NEXT_HOP | Hooks::LINK_CHANGE
    }

    /// A packet in a tunnel follows its repair path while `node` is on it; otherwise a
    /// router with a repair in force for the chosen link sends the packet to its backup.
    fn next_hop(&mut self, node: NodeId, pkt: &mut Packet, chosen: Option<LinkId>, cx: &mut Cx) -> Option<LinkId> {
        if pkt.tunnel != 0 {
            match tunnel_next(&self.cfg.repair_paths[pkt.tunnel as usize - 1], &cx.net.links, node) {
                Some(link) => {
                    if self.cfg.tunnel_ttl == TunnelTtl::Tunnel {
                        // Inside the tunnel the router forwards the outer header: the
                        // packet's own TTL is as it entered (undo this hop's decrement).
                        pkt.ttl = pkt.ttl.saturating_add(1);
                    }
                    return Some(link);
                }
                None => pkt.tunnel = 0, // end of the repair path: routed normally from here
            }
        }
        let link = chosen?;
        let Some(backup) = self.repair(node, link).and_then(|r| r.backup_for(pkt.dst)) else { return Some(link) };
        cx.net.nodes[node as usize].stats.backup_forwarded += 1;
        Some(match backup {
            Backup::Alternate(l) => l,
            Backup::Tunnel(i) => {
                pkt.tunnel = i + 1;
                self.cfg.repair_paths[i as usize].hops[0]
            }
        })
    }

    fn on_link_change(&mut self, link: LinkId, up: bool, cx: &mut Cx) {
        let head = cx.net.links[link as usize].from;
        if cx.net.nodes[head as usize].kind != NodeKind::Router {
            return;
        }
        if up {
            let repairs = &mut self.active[head as usize];
            let before = repairs.len();
            repairs.retain(|r| r.link != link);
            if repairs.len() < before {
                // Repaired before the hold-down expired: transient, traffic returns at once.
                self.stats.transient_repairs += 1;
            } else if self.routed_around[link as usize] {
                self.start_reconvergence(cx);
            }
        } else {
            let g = &mut self.generation[link as usize];
            *g = g.wrapping_add(1);
            cx.set_timer(cx.now + self.cfg.detection_delay, Timer { kind: timer::DETECT, a: link, b: *g });
        }
    }

    fn on_timer(&mut self, t: Timer, cx: &mut Cx) {
        match t.kind {
            timer::DETECT => self.detect(t.a, t.b, cx),
            timer::HOLD_DOWN => {
                let head = cx.net.links[t.a as usize].from as usize;
                if self.active[head].iter().any(|r| r.link == t.a && r.generation == t.b) {
                    self.start_reconvergence(cx);
                }
            }
            timer::CONVERGE => self.converge(t.a, t.b, cx),
            _ => self.convergence_done(t.b, cx),
        }
    }

    fn begin_measurement(&mut self) {
        self.baseline = self.stats;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Network, Node, NodeStats};
    use crate::packet::Endpoints;
    use crate::packet::Seq;
    use crate::queue::{Discipline, EgressQueue, Limit, TailDrop};
    use crate::router::Effects;
    use crate::signal::SignalPolicy;
    use crate::sim::SimTime;

    /// The DAS paper's Fig. 2 network: S - A - C - R with the detour A - B - C; every link
    /// duplex, unit cost. Returns the network and the id of link A->C.
    fn fig2() -> (Network, LinkId) {
        let mut net = Network::default();
        for (name, kind) in [("S", NodeKind::Host), ("R", NodeKind::Host), ("A", NodeKind::Router), ("B", NodeKind::Router), ("C", NodeKind::Router)] {
            net.nodes.push(Node { name: name.into(), kind, stats: NodeStats::default() });
        }
        let (s, r, a, b, c) = (0, 1, 2, 3, 4);
        for (x, y) in [(s, a), (a, c), (c, r), (a, b), (b, c)] {
            for (from, to) in [(x, y), (y, x)] {
                let q = EgressQueue::new(Limit::Packets(10), Discipline::TailDrop(Box::new(TailDrop)), SignalPolicy::Drop, Rng::from_seed(1), vec![]);
                let name = format!("{}->{}", net.nodes[from as usize].name, net.nodes[to as usize].name);
                net.links.push(Link::new(name, from, to, 1_000_000, Dur::from_millis(5), 1, 0.0, q, Rng::from_seed(2)));
            }
        }
        net.destinations = vec![s, r];
        net.recompute_routes();
        let ac = net.links.iter().position(|l| l.name == "A->C").unwrap() as LinkId;
        (net, ac)
    }

    fn config(net: &Network) -> FrrConfig {
        FrrConfig {
            detection_delay: Dur::from_millis(10),
            hold_down: Dur::from_secs(1),
            reconvergence_delay: vec![Dur::from_millis(50); net.nodes.len()],
            lfa: true,
            repair_paths: Vec::new(),
            tunnel_ttl: TunnelTtl::Tunnel,
        }
    }

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + Dur::from_millis(ms)
    }

    /// Runs one hook at `now`; returns the timers it set.
    fn hook(net: &mut Network, now: SimTime, f: impl FnOnce(&mut Cx)) -> Vec<(SimTime, Timer)> {
        let mut effects = Effects::default();
        f(&mut Cx::new(now, net, &mut effects));
        assert!(effects.emits.is_empty(), "fast reroute sends no packets");
        effects.timers
    }

    fn data_to_r(net: &Network) -> Packet {
        let ends = Endpoints { flow: 0, sender: net.node_id("S").unwrap(), receiver: net.node_id("R").unwrap(), sport: 1, dport: 2 };
        Packet::tcp_data(&ends, Seq(0), 1000, 64, SimTime::ZERO)
    }

    /// The link `node` sends a packet to R on, with the mechanism's say.
    fn next(frr: &mut FastReroute, net: &mut Network, node: &str) -> String {
        let (n, mut pkt) = (net.node_id(node).unwrap(), data_to_r(net));
        let primary = net.routes.next_hop(n, pkt.dst);
        let mut chosen = None;
        hook(net, SimTime::ZERO, |cx| chosen = frr.next_hop(n, &mut pkt, primary, cx));
        chosen.map_or("none".into(), |l| net.links[l as usize].name.clone())
    }

    fn fail_link(net: &mut Network, link: LinkId) {
        net.links[link as usize].up = false;
    }

    #[test]
    fn lfa_of_fig2_is_the_detour_through_b() {
        let (net, ac) = fig2();
        let r = net.node_id("R").unwrap();
        let alt = loop_free_alternate(net.nodes.len(), &net.links, ac, r).map(|l| net.links[l as usize].name.clone());
        assert_eq!(alt.as_deref(), Some("A->B"));
        // RFC 5286 inequality 1 for neighbour S of A toward R: dist(S,R) = 3 is not below
        // dist(S,A) + dist(A,R) = 1 + 2, so S, the other neighbour, is no alternate.
        let (s, a) = (net.node_id("S").unwrap(), net.node_id("A").unwrap());
        let to_s = net.links.iter().position(|l| l.from == a && l.to == s).unwrap();
        assert_ne!(alt.as_deref(), Some(net.links[to_s].name.as_str()));
    }

    #[test]
    fn detection_after_the_delay_then_backup_until_a_transient_repair() {
        let (mut net, ac) = fig2();
        let mut frr = FastReroute::new(config(&net), net.nodes.len(), net.links.len());
        assert_eq!(next(&mut frr, &mut net, "A"), "A->C");
        fail_link(&mut net, ac);
        let timers = hook(&mut net, at(100), |cx| frr.on_link_change(ac, false, cx));
        assert_eq!(timers, vec![(at(110), Timer { kind: timer::DETECT, a: ac, b: 1 })]);
        assert_eq!(next(&mut frr, &mut net, "A"), "A->C", "not detected yet: traffic still goes to the dead link");
        let timers = hook(&mut net, at(110), |cx| frr.on_timer(Timer { kind: timer::DETECT, a: ac, b: 1 }, cx));
        assert_eq!(timers, vec![(at(1110), Timer { kind: timer::HOLD_DOWN, a: ac, b: 1 })]);
        assert_eq!((frr.stats.detections, frr.repairs_at(net.node_id("A").unwrap())), (1, 1));
        assert_eq!(next(&mut frr, &mut net, "A"), "A->B");
        assert_eq!(net.nodes[net.node_id("A").unwrap() as usize].stats.backup_forwarded, 1);
        // Up before the hold-down: transient, the primary at once, and the stale hold-down
        // timer does nothing.
        net.links[ac as usize].up = true;
        assert!(hook(&mut net, at(500), |cx| frr.on_link_change(ac, true, cx)).is_empty());
        assert_eq!((frr.stats.transient_repairs, next(&mut frr, &mut net, "A")), (1, "A->C".into()));
        assert!(hook(&mut net, at(1110), |cx| frr.on_timer(Timer { kind: timer::HOLD_DOWN, a: ac, b: 1 }, cx)).is_empty());
        assert_eq!(frr.stats.reconvergences, 0);
    }

    #[test]
    fn a_stale_detection_is_ignored() {
        let (mut net, ac) = fig2();
        let mut frr = FastReroute::new(config(&net), net.nodes.len(), net.links.len());
        fail_link(&mut net, ac);
        hook(&mut net, at(0), |cx| frr.on_link_change(ac, false, cx));
        net.links[ac as usize].up = true;
        hook(&mut net, at(5), |cx| frr.on_link_change(ac, true, cx));
        assert!(hook(&mut net, at(10), |cx| frr.on_timer(Timer { kind: timer::DETECT, a: ac, b: 1 }, cx)).is_empty());
        assert_eq!(frr.stats.detections, 0, "the link came back before detection");
    }

    #[test]
    fn persistent_failure_reconverges_and_the_repair_waits_for_the_last_router() {
        let (mut net, ac) = fig2();
        let mut cfg = config(&net);
        let b = net.node_id("B").unwrap();
        cfg.reconvergence_delay[b as usize] = Dur::from_millis(200);
        let mut frr = FastReroute::new(cfg, net.nodes.len(), net.links.len());
        fail_link(&mut net, ac);
        hook(&mut net, at(0), |cx| frr.on_link_change(ac, false, cx));
        hook(&mut net, at(10), |cx| frr.on_timer(Timer { kind: timer::DETECT, a: ac, b: 1 }, cx));
        let timers = hook(&mut net, at(1010), |cx| frr.on_timer(Timer { kind: timer::HOLD_DOWN, a: ac, b: 1 }, cx));
        // B and C converge after their delays; A, which repairs, waits for the end (1210 ms).
        let (a, c) = (net.node_id("A").unwrap(), net.node_id("C").unwrap());
        assert_eq!(
            timers,
            vec![
                (at(1210), Timer { kind: timer::CONVERGE, a: b, b: 1 }),
                (at(1060), Timer { kind: timer::CONVERGE, a: c, b: 1 }),
                (at(1210), Timer { kind: timer::DONE, a: 0, b: 1 }),
            ]
        );
        for (t, timer) in timers {
            hook(&mut net, t, |cx| frr.on_timer(timer, cx));
        }
        assert_eq!((frr.stats.reconvergences, frr.repairs_at(a)), (1, 0));
        // A's new table routes around the failed link without the repair.
        assert_eq!(next(&mut frr, &mut net, "A"), "A->B");
        assert_eq!(net.nodes[a as usize].stats.backup_forwarded, 0);
        // When the link comes back after the reconvergence, routes are recomputed again.
        net.links[ac as usize].up = true;
        let timers = hook(&mut net, at(5000), |cx| frr.on_link_change(ac, true, cx));
        assert!(timers.iter().any(|(_, t)| t.kind == timer::DONE && t.b == 2));
    }

    #[test]
    fn explicit_repair_path_tunnels_to_its_end() {
        let (mut net, ac) = fig2();
        let mut cfg = config(&net);
        let hops = ["A->B", "B->C"].map(|n| net.links.iter().position(|l| l.name == n).unwrap() as LinkId).to_vec();
        cfg.repair_paths = vec![RepairPath { link: ac, hops }];
        let mut frr = FastReroute::new(cfg, net.nodes.len(), net.links.len());
        fail_link(&mut net, ac);
        hook(&mut net, at(0), |cx| frr.on_link_change(ac, false, cx));
        hook(&mut net, at(10), |cx| frr.on_timer(Timer { kind: timer::DETECT, a: ac, b: 1 }, cx));
        let (a, b) = (net.node_id("A").unwrap(), net.node_id("B").unwrap());
        let mut pkt = data_to_r(&net);
        let primary = net.routes.next_hop(a, pkt.dst);
        let mut chosen = None;
        hook(&mut net, at(20), |cx| chosen = frr.next_hop(a, &mut pkt, primary, cx));
        assert_eq!((chosen.map(|l| net.links[l as usize].name.as_str()), pkt.tunnel), (Some("A->B"), 1));
        // At B the tunnel, not B's table, decides; past the path's end, normal routing.
        hook(&mut net, at(25), |cx| chosen = frr.next_hop(b, &mut pkt, None, cx));
        assert_eq!(chosen.map(|l| net.links[l as usize].name.as_str()), Some("B->C"));
        let c = net.node_id("C").unwrap();
        let primary = net.routes.next_hop(c, pkt.dst);
        hook(&mut net, at(30), |cx| chosen = frr.next_hop(c, &mut pkt, primary, cx));
        assert_eq!((chosen.map(|l| net.links[l as usize].name.as_str()), pkt.tunnel), (Some("C->R"), 0));
    }

    /// The TTL a packet from S reaches R with, through the routers `path`, each decrementing
    /// it on arrival (as the engine does) before the mechanism picks the next hop.
    fn ttl_at_r(frr: &mut FastReroute, net: &mut Network, path: &[&str]) -> u8 {
        let mut pkt = data_to_r(net);
        for name in path {
            let n = net.node_id(name).unwrap();
            pkt.ttl -= 1;
            let primary = net.routes.next_hop(n, pkt.dst);
            hook(net, at(20), |cx| {
                frr.next_hop(n, &mut pkt, primary, cx);
            });
        }
        pkt.ttl
    }

    #[test]
    fn a_real_tunnel_keeps_the_ttl_of_the_primary_path_and_per_hop_lowers_it() {
        for (mode, expected) in [(TunnelTtl::Tunnel, 62), (TunnelTtl::PerHop, 61)] {
            let (mut net, ac) = fig2();
            let mut cfg = config(&net);
            cfg.tunnel_ttl = mode;
            let hops = ["A->B", "B->C"].map(|n| net.links.iter().position(|l| l.name == n).unwrap() as LinkId).to_vec();
            cfg.repair_paths = vec![RepairPath { link: ac, hops }];
            let mut frr = FastReroute::new(cfg, net.nodes.len(), net.links.len());
            assert_eq!(ttl_at_r(&mut frr, &mut net, &["A", "C"]), 62, "the primary path: two routers");
            fail_link(&mut net, ac);
            hook(&mut net, at(0), |cx| frr.on_link_change(ac, false, cx));
            hook(&mut net, at(10), |cx| frr.on_timer(Timer { kind: timer::DETECT, a: ac, b: 1 }, cx));
            // The head (A) and the tail (C) forward the packet itself; B only the tunnel's.
            assert_eq!(ttl_at_r(&mut frr, &mut net, &["A", "B", "C"]), expected, "{mode:?}");
        }
        // A loop-free alternate is plain forwarding: every router decrements.
        let (mut net, ac) = fig2();
        let mut frr = FastReroute::new(config(&net), net.nodes.len(), net.links.len());
        fail_link(&mut net, ac);
        hook(&mut net, at(0), |cx| frr.on_link_change(ac, false, cx));
        hook(&mut net, at(10), |cx| frr.on_timer(Timer { kind: timer::DETECT, a: ac, b: 1 }, cx));
        assert_eq!(ttl_at_r(&mut frr, &mut net, &["A", "B", "C"]), 61);
    }
}
