//! Shortest-path routing by link cost, with per-destination next hops.
//!
//! Ties between equal-cost next hops are broken by the lowest link index, so routes are a
//! pure function of the topology.

use super::link::{Link, LinkId};
use super::packet::NodeId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub const NO_ROUTE: LinkId = LinkId::MAX;

/// Next-hop tables: `next_hop(node, dst)` for every node and every destination of interest.
#[derive(Clone, Debug, Default)]
pub struct Routes {
    /// Index into `table` columns for each node that is a destination; `u32::MAX` if none.
    dst_column: Vec<u32>,
    columns: usize,
    table: Vec<LinkId>,
}

impl Routes {
    /// Computes routes toward every node in `destinations` over the links that are up.
    ///
    /// One Dijkstra per distinct tree: a destination whose only incoming link comes from
    /// node `r` (a host hanging off a router) is reached through `r` by every other node, so
    /// its column is `r`'s column plus that last link; all the hosts behind one router share
    /// one shortest-path computation.
    pub fn compute(n_nodes: usize, links: &[Link], destinations: &[NodeId]) -> Routes {
        let mut dst_column = vec![u32::MAX; n_nodes];
        let mut columns = 0usize;
        for &d in destinations {
            if dst_column[d as usize] == u32::MAX {
                dst_column[d as usize] = columns as u32;
                columns += 1;
            }
        }
        // Incoming links per node, for Dijkstra from the destination backwards.
        let mut incoming: Vec<Vec<LinkId>> = vec![Vec::new(); n_nodes];
        for (i, l) in links.iter().enumerate() {
            if l.up {
                incoming[l.to as usize].push(i as LinkId);
            }
        }
        let mut table = vec![NO_ROUTE; n_nodes * columns];
        let mut trees = Trees { incoming: &incoming, links, dist: vec![u64::MAX; n_nodes], heap: BinaryHeap::new(), cache: vec![None; n_nodes] };
        for (node, &col) in dst_column.iter().enumerate() {
            if col == u32::MAX {
                continue;
            }
            let col = col as usize;
            let stub = match incoming[node][..] {
                [li] if links[li as usize].cost > 0 && links[li as usize].from as usize != node => Some(li),
                _ => None,
            };
            match stub {
                Some(last) => {
                    let r = links[last as usize].from as usize;
                    let base = trees.toward(r);
                    for (u, &hop) in base.iter().enumerate() {
                        table[u * columns + col] = hop;
                    }
                    table[r * columns + col] = last;
                    table[node * columns + col] = NO_ROUTE;
                }
                None => {
                    let base = trees.toward(node);
                    for (u, &hop) in base.iter().enumerate() {
                        table[u * columns + col] = hop;
                    }
                }
            }
        }
        Routes { dst_column, columns, table }
    }

    /// The most bytes [`Routes::compute`] holds at once for `nodes` nodes and `links` links,
    /// toward `columns` destinations that share `trees` shortest-path trees (a host with one
    /// upstream router shares its router's): the table, one column per destination, and the
    /// cached trees. Beside `compute` so that the scenario's memory estimate follows the
    /// tables' layout.
    pub fn peak_bytes(nodes: u64, links: u64, columns: u64, trees: u64) -> u64 {
        let id = std::mem::size_of::<LinkId>() as u64;
        let table = nodes * columns * id;
        let incoming = nodes * std::mem::size_of::<Vec<LinkId>>() as u64 + links * id;
        let cache = nodes * std::mem::size_of::<Option<Vec<LinkId>>>() as u64 + trees * nodes * id;
        let work = nodes * (8 + 4) + links * 16;
        table + incoming + cache + work
    }

    /// The link `node` forwards packets for `dst` on, or None if `dst` is unreachable.
    pub fn next_hop(&self, node: NodeId, dst: NodeId) -> Option<LinkId> {
        let col = *self.dst_column.get(dst as usize)?;
        if col == u32::MAX {
            return None;
        }
        let l = self.table[node as usize * self.columns + col as usize];
        (l != NO_ROUTE).then_some(l)
    }

    /// Replaces `node`'s table with its table in `other` (computed for the same destinations).
    pub fn install_row(&mut self, other: &Routes, node: NodeId) {
        let row = node as usize * self.columns..(node as usize + 1) * self.columns;
        self.table[row.clone()].copy_from_slice(&other.table[row]);
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

/// Shortest-path trees toward single nodes, computed once each.
struct Trees<'a> {
    incoming: &'a [Vec<LinkId>],
    links: &'a [Link],
    dist: Vec<u64>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    cache: Vec<Option<Vec<LinkId>>>,
}

impl Trees<'_> {
    /// Every node's next hop toward `target` (`NO_ROUTE` for `target` itself and for nodes
    /// that cannot reach it); ties go to the lowest link index.
    fn toward(&mut self, target: usize) -> &[LinkId] {
        if self.cache[target].is_none() {
            let (links, dist, heap) = (self.links, &mut self.dist, &mut self.heap);
            dist.iter_mut().for_each(|d| *d = u64::MAX);
            dist[target] = 0;
            heap.push(Reverse((0u64, target as u32)));
            while let Some(Reverse((d, u))) = heap.pop() {
                if d > dist[u as usize] {
                    continue;
                }
                for &li in &self.incoming[u as usize] {
                    let l = &links[li as usize];
                    let nd = d + l.cost as u64;
                    let v = l.from as usize;
                    if nd < dist[v] {
                        dist[v] = nd;
                        heap.push(Reverse((nd, v as u32)));
                    }
                }
            }
            let mut hops = vec![NO_ROUTE; dist.len()];
            for (li, l) in links.iter().enumerate() {
                if !l.up || dist[l.to as usize] == u64::MAX || l.from as usize == target {
                    continue;
                }
                let u = l.from as usize;
                if dist[l.to as usize] + l.cost as u64 == dist[u] && hops[u] == NO_ROUTE {
                    hops[u] = li as LinkId;
                }
            }
            self.cache[target] = Some(hops);
        }
        self.cache[target].as_deref().expect("just computed")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{Discipline, EgressQueue, Limit, TailDrop};
    use crate::signal::SignalPolicy;
    use crate::sim::{Dur, Rng};

    fn link(from: NodeId, to: NodeId, cost: u32) -> Link {
        let q = EgressQueue::new(Limit::Packets(10), Discipline::TailDrop(TailDrop), SignalPolicy::Drop, Rng::from_seed(1), vec![]);
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
}
