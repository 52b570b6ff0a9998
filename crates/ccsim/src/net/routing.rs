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
        let mut dist = vec![u64::MAX; n_nodes];
        let mut heap = BinaryHeap::new();
        for (node, &col) in dst_column.iter().enumerate() {
            if col == u32::MAX {
                continue;
            }
            let col = col as usize;
            dist.iter_mut().for_each(|d| *d = u64::MAX);
            dist[node] = 0;
            heap.push(Reverse((0u64, node as u32)));
            while let Some(Reverse((d, u))) = heap.pop() {
                if d > dist[u as usize] {
                    continue;
                }
                for &li in &incoming[u as usize] {
                    let l = &links[li as usize];
                    let nd = d + l.cost as u64;
                    let v = l.from as usize;
                    if nd < dist[v] {
                        dist[v] = nd;
                        heap.push(Reverse((nd, v as u32)));
                    }
                }
            }
            for (li, l) in links.iter().enumerate() {
                if !l.up || dist[l.to as usize] == u64::MAX || l.from as usize == node {
                    continue;
                }
                let via = dist[l.to as usize] + l.cost as u64;
                let u = l.from as usize;
                if via == dist[u] && table[u * columns + col] == NO_ROUTE {
                    table[u * columns + col] = li as LinkId;
                }
            }
        }
        Routes { dst_column, columns, table }
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
