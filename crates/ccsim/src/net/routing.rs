//! Shortest-path routing by link cost, with per-destination next hops.
//!
//! Ties between equal-cost next hops are broken by the lowest link index, so routes are a
//! pure function of the topology.
//!
//! The tables are linear in the size of the networks simulated most, hosts hanging off
//! routers, instead of one entry per node and destination:
//!
//! - A *stub* destination, one whose only link in comes from another node `r` (a host
//!   hanging off a router), is reached through `r` by every other node, and by `r` over
//!   that last link: it shares `r`'s column, its *anchor*. Tables have one column per
//!   anchor (a destination that is not a stub, or a node stubs hang off).
//! - A *single-homed* node, one whose only link out goes to a node with several (a host on
//!   one uplink), has no table: it sends every packet for another node over its uplink,
//!   provided its router reaches the destination. "Reaches" as the router's table stood
//!   when the node's routes were computed: the node keeps a reference to that row.
//! - Every other node with a link out has a row of next hops, one per column.
//!
//! A dumbbell of 100,000 flows has two rows (its routers) of two columns. Which destinations
//! are stubs and which nodes are single-homed depends on the links, not on which of them
//! are up, so that routes computed before and after a failure have the same shape and a
//! node's routes can be replaced by its routes in another computation
//! ([`Routes::install_row`], IP fast reroute). What depends on the links that are up is in
//! the rows: next hops, whether a stub's last link was up, whether an uplink was.

use super::link::{Link, LinkId};
use crate::packet::NodeId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub const NO_ROUTE: LinkId = LinkId::MAX;
const NONE: u32 = u32::MAX;

/// How one node routes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum NodeRoute {
    /// No link out: no route anywhere.
    #[default]
    Nowhere,
    /// Single-homed: everything over `link` to `router`, for destinations the router's row
    /// `view` reaches; nothing if the link was down.
    Uplink { link: LinkId, router: NodeId, view: u32, up: bool },
    /// Its own row of next hops.
    Row(u32),
}

/// A destination's column and, for a stub, its anchor and last link.
#[derive(Clone, Copy, Debug)]
struct Dest {
    column: u32,
    anchor: NodeId,
    /// The stub's only link in (from `anchor`), or `NO_ROUTE` for a destination that is its
    /// own anchor.
    last: LinkId,
}

const NOT_A_DESTINATION: Dest = Dest { column: NONE, anchor: NONE, last: NO_ROUTE };

/// Next-hop tables: `next_hop(node, dst)` for every node and every destination of interest.
#[derive(Clone, Debug, Default)]
pub struct Routes {
    node: Vec<NodeRoute>,
    dest: Vec<Dest>,
    columns: usize,
    /// Rows of `columns` next hops, by row number. Rows replaced by [`install_row`]
    /// (Self::install_row) stay: single-homed nodes may still look at them.
    table: Vec<LinkId>,
    /// For each row, the last links of stubs that were down when it was computed, sorted
    /// (almost always none).
    stubs_cut: Vec<Vec<LinkId>>,
    /// Whether any row has a stub cut off (most runs have none: the lookup then skips them).
    any_cut: bool,
}

impl Routes {
    /// Computes routes toward every node in `destinations` over the links that are up: one
    /// Dijkstra per column (see the module documentation).
    pub fn compute(n_nodes: usize, links: &[Link], destinations: &[NodeId]) -> Routes {
        let (mut out_count, mut in_count) = (vec![0u32; n_nodes], vec![0u32; n_nodes]);
        let mut last_in = vec![NO_ROUTE; n_nodes];
        let mut first_out = vec![NO_ROUTE; n_nodes];
        for (i, l) in links.iter().enumerate() {
            out_count[l.from as usize] += 1;
            in_count[l.to as usize] += 1;
            last_in[l.to as usize] = i as LinkId;
            if first_out[l.from as usize] == NO_ROUTE {
                first_out[l.from as usize] = i as LinkId;
            }
        }

        // Columns: one per anchor.
        let mut dest = vec![NOT_A_DESTINATION; n_nodes];
        let mut column_of = vec![NONE; n_nodes];
        let mut anchors = Vec::new();
        for &d in destinations {
            let d = d as usize;
            if dest[d].column != NONE {
                continue;
            }
            let li = last_in[d];
            let stub = in_count[d] == 1 && links[li as usize].cost > 0 && links[li as usize].from as usize != d;
            let (anchor, last) = if stub { (links[li as usize].from, li) } else { (d as NodeId, NO_ROUTE) };
            if column_of[anchor as usize] == NONE {
                column_of[anchor as usize] = anchors.len() as u32;
                anchors.push(anchor);
            }
            dest[d] = Dest { column: column_of[anchor as usize], anchor, last };
        }
        let columns = anchors.len();

        // Rows: one per node with links out that is not single-homed.
        let single_homed = |u: usize| out_count[u] == 1 && out_count[links[first_out[u] as usize].to as usize] > 1;
        let mut node = vec![NodeRoute::Nowhere; n_nodes];
        let mut rows = 0u32;
        for u in 0..n_nodes {
            if out_count[u] > 0 && !single_homed(u) {
                node[u] = NodeRoute::Row(rows);
                rows += 1;
            }
        }
        for u in 0..n_nodes {
            if single_homed(u) {
                let l = &links[first_out[u] as usize];
                let NodeRoute::Row(view) = node[l.to as usize] else { unreachable!("a router has a row") };
                node[u] = NodeRoute::Uplink { link: first_out[u], router: l.to, view, up: l.up };
            }
        }

        let mut table = vec![NO_ROUTE; rows as usize * columns];
        let cut: Vec<LinkId> = {
            let mut v: Vec<LinkId> = dest.iter().filter(|d| d.last != NO_ROUTE && !links[d.last as usize].up).map(|d| d.last).collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let mut trees = Trees::new(n_nodes, links);
        for (col, &a) in anchors.iter().enumerate() {
            let hops = trees.toward(a as usize);
            for (u, r) in node.iter().enumerate() {
                if let NodeRoute::Row(r) = *r {
                    table[r as usize * columns + col] = hops[u];
                }
            }
        }
        let any_cut = rows > 0 && !cut.is_empty();
        Routes { node, dest, columns, table, stubs_cut: vec![cut; rows as usize], any_cut }
    }

    /// The most bytes [`Routes::compute`] holds at once for `nodes` nodes and `links` links,
    /// with `rows` nodes that keep a row (not single-homed) and `columns` anchors among the
    /// destinations (see the module documentation): the table, the per-node routes and
    /// destinations, and the work vectors of one computation (one Dijkstra at a time). Beside
    /// `compute` so that the scenario's memory estimate follows the tables' layout.
    pub fn peak_bytes(nodes: u64, links: u64, rows: u64, columns: u64) -> u64 {
        let id = std::mem::size_of::<LinkId>() as u64;
        let table = rows * columns * id + rows * std::mem::size_of::<Vec<LinkId>>() as u64;
        let per_node = (std::mem::size_of::<NodeRoute>() + std::mem::size_of::<Dest>()) as u64;
        // out/in counts, last link in, first link out, column of, and one tree's distances,
        // hops and heap entries.
        let work = nodes * (5 * 4 + 8 + id + 16) + links * 16;
        table + nodes * per_node + work
    }

    /// The link `node` forwards packets for `dst` on, or None if `dst` is unreachable.
    #[inline(always)]
    pub fn next_hop(&self, node: NodeId, dst: NodeId) -> Option<LinkId> {
        if node == dst {
            return None;
        }
        match *self.node.get(node as usize)? {
            NodeRoute::Row(row) => self.lookup(row, node, dst),
            NodeRoute::Uplink { link, router, view, up } => {
                let reached = up && (router == dst || self.lookup(view, router, dst).is_some());
                reached.then_some(link)
            }
            NodeRoute::Nowhere => None,
        }
    }

    /// Prefetches what [`next_hop`](Self::next_hop) reads first for `node` and `dst` (their
    /// entries; a router's row is read after them).
    #[inline]
    pub fn prefetch_next_hop(&self, node: NodeId, dst: NodeId) {
        crate::sim::prefetch::line(self.node.as_ptr().wrapping_add(node as usize));
        crate::sim::prefetch::line(self.dest.as_ptr().wrapping_add(dst as usize));
    }

    /// `node`'s next hop for `dst` in row `row` (`node` is not `dst`).
    #[inline]
    fn lookup(&self, row: u32, node: NodeId, dst: NodeId) -> Option<LinkId> {
        let d = *self.dest.get(dst as usize)?;
        if d.column == NONE {
            return None;
        }
        if d.last != NO_ROUTE {
            if self.any_cut && self.stubs_cut[row as usize].binary_search(&d.last).is_ok() {
                return None;
            }
            if node == d.anchor {
                return Some(d.last);
            }
        }
        let l = self.table[row as usize * self.columns + d.column as usize];
        (l != NO_ROUTE).then_some(l)
    }

    /// Replaces `node`'s routes with its routes in `other` (computed for the same
    /// destinations over the same links, some of them perhaps down).
    pub fn install_row(&mut self, other: &Routes, node: NodeId) {
        let copy_row = |this: &mut Routes, row: u32| -> u32 {
            let at = row as usize * other.columns;
            this.table.extend_from_slice(&other.table[at..at + other.columns]);
            this.stubs_cut.push(other.stubs_cut[row as usize].clone());
            this.any_cut |= !other.stubs_cut[row as usize].is_empty();
            (this.stubs_cut.len() - 1) as u32
        };
        self.node[node as usize] = match other.node[node as usize] {
            NodeRoute::Row(row) => NodeRoute::Row(copy_row(self, row)),
            NodeRoute::Uplink { link, router, view, up } => NodeRoute::Uplink { link, router, view: copy_row(self, view), up },
            NodeRoute::Nowhere => NodeRoute::Nowhere,
        };
    }

    /// The sequence of links from `src` to `dst`, or None if there is no loop-free path.
    pub fn path(&self, links: &[Link], src: NodeId, dst: NodeId) -> Option<Vec<LinkId>> {
        let mut path = Vec::new();
        let mut at = src;
        while at != dst {
            let l = self.next_hop(at, dst)?;
            path.push(l);
            at = links[l as usize].to;
            if path.len() > links.len() {
                return None;
            }
        }
        Some(path)
    }
}

/// Shortest-path trees toward single nodes over the links that are up.
struct Trees<'a> {
    links: &'a [Link],
    /// Links that are up into each node: `incoming[start[v]..start[v + 1]]`.
    start: Vec<u32>,
    incoming: Vec<LinkId>,
    dist: Vec<u64>,
    hops: Vec<LinkId>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
}

impl<'a> Trees<'a> {
    fn new(n_nodes: usize, links: &'a [Link]) -> Trees<'a> {
        let mut start = vec![0u32; n_nodes + 1];
        for l in links.iter().filter(|l| l.up) {
            start[l.to as usize + 1] += 1;
        }
        for v in 0..n_nodes {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut incoming = vec![0; start[n_nodes] as usize];
        for (i, l) in links.iter().enumerate().filter(|(_, l)| l.up) {
            incoming[fill[l.to as usize] as usize] = i as LinkId;
            fill[l.to as usize] += 1;
        }
        Trees { links, start, incoming, dist: vec![u64::MAX; n_nodes], hops: vec![NO_ROUTE; n_nodes], heap: BinaryHeap::new() }
    }

    /// Every node's next hop toward `target` (`NO_ROUTE` for `target` itself and for nodes
    /// that cannot reach it); ties go to the lowest link index.
    fn toward(&mut self, target: usize) -> &[LinkId] {
        let (links, dist, heap) = (self.links, &mut self.dist, &mut self.heap);
        dist.iter_mut().for_each(|d| *d = u64::MAX);
        dist[target] = 0;
        heap.push(Reverse((0u64, target as u32)));
        while let Some(Reverse((d, u))) = heap.pop() {
            if d > dist[u as usize] {
                continue;
            }
            for &li in &self.incoming[self.start[u as usize] as usize..self.start[u as usize + 1] as usize] {
                let l = &links[li as usize];
                let nd = d + l.cost as u64;
                let v = l.from as usize;
                if nd < dist[v] {
                    dist[v] = nd;
                    heap.push(Reverse((nd, v as u32)));
                }
            }
        }
        self.hops.iter_mut().for_each(|h| *h = NO_ROUTE);
        for (li, l) in links.iter().enumerate() {
            if !l.up || dist[l.to as usize] == u64::MAX || l.from as usize == target {
                continue;
            }
            let u = l.from as usize;
            if dist[l.to as usize] + l.cost as u64 == dist[u] && self.hops[u] == NO_ROUTE {
                self.hops[u] = li as LinkId;
            }
        }
        &self.hops
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{Discipline, EgressQueue, Limit, TailDrop};
    use crate::signal::SignalPolicy;
    use crate::sim::{Dur, Rng};

    fn link(from: NodeId, to: NodeId, cost: u32) -> Link {
        let q = EgressQueue::new(Limit::Packets(10), Discipline::TailDrop(Box::new(TailDrop)), SignalPolicy::Drop, Rng::from_seed(1), vec![]);
        Link::new(format!("{from}->{to}"), from, to, 1_000_000, Dur::from_millis(1), cost, 0.0, q, Rng::from_seed(2))
    }

    /// One Dijkstra per destination, no sharing: what `compute` must equal.
    fn reference(n: usize, links: &[Link], dst: NodeId) -> Vec<LinkId> {
        let mut dist = vec![u64::MAX; n];
        dist[dst as usize] = 0;
        // Bellman-Ford: small graphs, obviously correct.
        for _ in 0..n {
            for l in links.iter().filter(|l| l.up) {
                if dist[l.to as usize] != u64::MAX {
                    dist[l.from as usize] = dist[l.from as usize].min(dist[l.to as usize] + l.cost as u64);
                }
            }
        }
        (0..n)
            .map(|u| {
                if u == dst as usize {
                    return NO_ROUTE;
                }
                links
                    .iter()
                    .enumerate()
                    .find(|(_, l)| l.up && l.from as usize == u && dist[l.to as usize] != u64::MAX && dist[l.to as usize] + l.cost as u64 == dist[u])
                    .map_or(NO_ROUTE, |(i, _)| i as LinkId)
            })
            .collect()
    }

    #[test]
    fn shared_trees_equal_one_dijkstra_per_destination() {
        // Routers 0..4 in a ring with a chord and unequal costs; hosts 5..9 hang off them
        // (host 9 is dual-homed); link 4->6... is down in the second round.
        let mut links = Vec::new();
        for (a, b, c) in [(0, 1, 1), (1, 2, 2), (2, 3, 1), (3, 0, 3), (0, 2, 3), (1, 3, 1)] {
            links.push(link(a, b, c));
            links.push(link(b, a, c));
        }
        for (h, r) in [(5, 0), (6, 1), (7, 2), (8, 2), (9, 3), (9, 1)] {
            links.push(link(h, r, 1));
            links.push(link(r, h, 2));
        }
        let n = 10;
        let dests: Vec<NodeId> = (0..n as NodeId).collect();
        for round in 0..2 {
            if round == 1 {
                links[0].up = false; // 0->1
                links[13].up = false; // 0->5: host 5 unreachable
            }
            let routes = Routes::compute(n, &links, &dests);
            for &d in &dests {
                let want = reference(n, &links, d);
                for (u, &hop) in want.iter().enumerate() {
                    assert_eq!(routes.next_hop(u as NodeId, d).unwrap_or(NO_ROUTE), hop, "round {round}, from {u} to {d}");
                }
            }
        }
    }
    fn check_all(routes: &Routes, n: usize, links: &[Link], what: &str) {
        for d in 0..n as NodeId {
            let want = reference(n, links, d);
            for (u, &hop) in want.iter().enumerate() {
                assert_eq!(routes.next_hop(u as NodeId, d).unwrap_or(NO_ROUTE), hop, "{what}: from {u} to {d}");
            }
        }
    }

    #[test]
    fn random_networks_of_routers_and_hosts_route_as_one_dijkstra_per_destination() {
        // Routers with random links and costs; hosts on one or two routers (single-homed
        // hosts and stubs, dual-homed ones, a host behind a host); random links down.
        let mut rng = crate::sim::Rng::from_seed(3);
        for round in 0..40 {
            let routers = 2 + (rng.uniform() * 6.0) as u32;
            let hosts = 1 + (rng.uniform() * 12.0) as u32;
            let mut links = Vec::new();
            let cost = |rng: &mut crate::sim::Rng| 1 + (rng.uniform() * 3.0) as u32;
            for a in 0..routers {
                for b in a + 1..routers {
                    if rng.uniform() < 0.5 || b == a + 1 {
                        let c = cost(&mut rng);
                        links.push(link(a, b, c));
                        links.push(link(b, a, if rng.uniform() < 0.5 { c } else { cost(&mut rng) }));
                    }
                }
            }
            for h in routers..routers + hosts {
                let r = (rng.uniform() * routers as f64) as u32;
                let up = if h > routers && rng.uniform() < 0.15 { h - 1 } else { r }; // behind a host
                links.push(link(h, up, cost(&mut rng)));
                links.push(link(up, h, cost(&mut rng)));
                if rng.uniform() < 0.2 {
                    let r2 = (rng.uniform() * routers as f64) as u32;
                    links.push(link(h, r2, cost(&mut rng)));
                    links.push(link(r2, h, cost(&mut rng)));
                }
            }
            let n = (routers + hosts) as usize;
            let dests: Vec<NodeId> = (0..n as NodeId).collect();
            for l in links.iter_mut() {
                l.up = rng.uniform() > 0.1;
            }
            let routes = Routes::compute(n, &links, &dests);
            check_all(&routes, n, &links, &format!("round {round}"));
        }
    }

    #[test]
    fn installed_rows_take_their_routes_and_single_homed_views_stay_as_computed() {
        // Routers 0 - 1 - 2 in a line, hosts 3 (on 0), 4 (on 1), 5 (on 2).
        let mut links = Vec::new();
        for (a, b) in [(0, 1), (1, 2), (3, 0), (4, 1), (5, 2)] {
            links.push(link(a, b, 1));
            links.push(link(b, a, 1));
        }
        let n = 6;
        let dests: Vec<NodeId> = (0..n as NodeId).collect();
        let before = Routes::compute(n, &links, &dests);
        links[2].up = false; // 1->2: 2 and 5 unreachable from 0, 1, 3, 4
        let after = Routes::compute(n, &links, &dests);
        check_all(&after, n, &links, "after");
        let mut mixed = before.clone();
        mixed.install_row(&after, 1);
        assert_eq!(mixed.next_hop(1, 5), None, "router 1 has the new table");
        assert_eq!(mixed.next_hop(0, 5), Some(0), "router 0 keeps its old one");
        assert_eq!(mixed.next_hop(4, 5), Some(6), "host 4 still sends to 1 as its routes stood");
        mixed.install_row(&after, 4);
        assert_eq!(mixed.next_hop(4, 5), None, "and now as they stand");
        assert_eq!(mixed.next_hop(4, 0), Some(6));
        for u in 0..n as NodeId {
            mixed.install_row(&after, u);
        }
        check_all(&mixed, n, &links, "all installed");
    }

    #[test]
    fn a_dumbbell_has_two_rows_of_two_columns() {
        let mut links = vec![link(0, 1, 1), link(1, 0, 1)];
        let n = 2 + 2 * 1000;
        for i in 0..1000u32 {
            let (s, d) = (2 + i, 1002 + i);
            links.extend([link(s, 0, 1), link(0, s, 1), link(1, d, 1), link(d, 1, 1)]);
        }
        let dests: Vec<NodeId> = (2..n as NodeId).collect();
        let routes = Routes::compute(n, &links, &dests);
        assert_eq!((routes.columns, routes.table.len()), (2, 4));
        assert_eq!(routes.path(&links, 2, 1002), Some(vec![2, 0, 4]));
        assert_eq!(routes.path(&links, 1002, 2), Some(vec![5, 1, 3]));
    }
}
