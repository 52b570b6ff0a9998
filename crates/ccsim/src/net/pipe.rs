//! Links' propagation pipes: the packets whose transmission has started and that have not
//! yet reached the far end, held for every link of a network in one store.
//!
//! A link's pipe is a FIFO (one rate, one delay: packets arrive in the order they started).
//! Each link keeps only its pipe's first and last entry ([`Pipe`], 12 bytes in the link);
//! the entries themselves live in the network's [`PipeStore`], each linked to the next of
//! its pipe. A freed entry is the first to be reused, so the packet a link sends is written
//! where the packet that just arrived somewhere was read: a line the cache holds. With a
//! buffer per link, the packet was written into that link's own buffer, which at 100,000
//! flows no cache holds (`benchmarks/README.md`, "One store for every link's pipe").
//!
//! Where a packet is stored never changes what a run computes: the order of each pipe is
//! the order packets entered it.

use crate::packet::Packet;
use crate::sim::SimTime;

/// No entry.
const NIL: u32 = u32::MAX;

/// A packet in a pipe, and the next entry of the same pipe with when that one reaches the far
/// end, so that a packet's arrival learns when the next is due without reading the next
/// entry. (When the packet itself arrives is its predecessor's `next_at`, or the time its
/// link scheduled the arrival at: nothing reads it here.) Two cache lines, aligned to them.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Entry {
    pkt: Packet,
    next: u32,
    next_at: SimTime,
}

/// The entries of every pipe of a network; freed entries are reused, the last freed first.
#[derive(Clone, Debug, Default)]
pub struct PipeStore {
    entries: Vec<Entry>,
    free: Vec<u32>,
}

impl PipeStore {
    /// Bytes each packet in a pipe takes (its entry and its place in the free list).
    pub const BYTES_PER_PACKET: usize = std::mem::size_of::<Entry>() + std::mem::size_of::<u32>();

    /// Prefetches the entry the next packet to enter a pipe will be written to (for warming
    /// caches ahead; see `engine::warm`).
    #[inline]
    pub fn prefetch_next(&self) {
        if let Some(&i) = self.free.last() {
            crate::sim::prefetch::value(&self.entries[i as usize]);
        }
    }

    /// Packets in every pipe.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.len() - self.free.len()
    }
}

/// One link's pipe: its first and last entries in the [`PipeStore`], and how many.
#[derive(Clone, Copy, Debug)]
pub struct Pipe {
    head: u32,
    tail: u32,
    len: u32,
}

impl Default for Pipe {
    fn default() -> Pipe {
        Pipe { head: NIL, tail: NIL, len: 0 }
    }
}

impl Pipe {
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `pkt` enters the pipe, to reach the far end at `at`.
    #[inline(always)]
    pub fn push_back(&mut self, store: &mut PipeStore, at: SimTime, pkt: &Packet) {
        let i = match store.free.pop() {
            Some(i) => {
                // Written in place, field by field: no entry is built on the stack and copied.
                let e = &mut store.entries[i as usize];
                e.pkt = *pkt;
                e.next = NIL;
                i
            }
            None => {
                store.entries.push(Entry { pkt: *pkt, next: NIL, next_at: SimTime::ZERO });
                (store.entries.len() - 1) as u32
            }
        };
        if self.tail == NIL {
            self.head = i;
        } else {
            let t = &mut store.entries[self.tail as usize];
            t.next = i;
            t.next_at = at;
        }
        self.tail = i;
        self.len += 1;
    }

    /// The first packet leaves the pipe (which must not be empty).
    #[inline(always)]
    pub fn pop_front(&mut self, store: &mut PipeStore) -> Packet {
        let i = self.head;
        let e = &store.entries[i as usize];
        self.head = e.next;
        if self.head == NIL {
            self.tail = NIL;
        }
        self.len -= 1;
        store.free.push(i);
        store.entries[i as usize].pkt
    }

    /// When the packet after the first reaches the far end (read from the first's entry).
    #[inline]
    pub fn second_at(&self, store: &PipeStore) -> Option<SimTime> {
        let first = store.entries.get(self.head as usize)?;
        (first.next != NIL).then_some(first.next_at)
    }

    /// The first packet.
    #[inline]
    pub fn front<'a>(&self, store: &'a PipeStore) -> Option<&'a Packet> {
        store.entries.get(self.head as usize).map(|e| &e.pkt)
    }

    /// The last packet to have entered.
    #[inline]
    pub fn back<'a>(&self, store: &'a PipeStore) -> Option<&'a Packet> {
        store.entries.get(self.tail as usize).map(|e| &e.pkt)
    }

    /// The packets, first to last.
    pub fn iter<'a>(&self, store: &'a PipeStore) -> impl Iterator<Item = &'a Packet> + 'a {
        let mut at = self.head;
        std::iter::from_fn(move || {
            let e = store.entries.get(at as usize)?;
            at = e.next;
            Some(&e.pkt)
        })
    }

    /// Every packet leaves the pipe, first to last; `f` sees each.
    pub fn drain(&mut self, store: &mut PipeStore, mut f: impl FnMut(&Packet)) {
        while !self.is_empty() {
            f(&self.pop_front(store));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Endpoints;
    use crate::packet::Seq;
    use crate::sim::Dur;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    const ENDS: Endpoints = Endpoints { flow: 0, sender: 0, receiver: 1, sport: 1, dport: 2 };

    fn pkt(i: u32) -> Packet {
        Packet::tcp_data(&ENDS, Seq(i), 960, 64, SimTime::ZERO)
    }

    proptest! {
        /// Pipes sharing a store behave each as its own FIFO, whatever the interleaving.
        #[test]
        fn pipes_sharing_a_store_are_each_a_fifo(ops in proptest::collection::vec((0usize..4, any::<bool>()), 0..300)) {
            let mut store = PipeStore::default();
            let mut pipes = [Pipe::default(); 4];
            let mut model: [VecDeque<(SimTime, u32)>; 4] = Default::default();
            for (n, (k, push)) in ops.into_iter().enumerate() {
                let at = SimTime::ZERO + Dur::from_nanos(n as u64);
                if push {
                    pipes[k].push_back(&mut store, at, &pkt(n as u32));
                    model[k].push_back((at, n as u32));
                } else if let Some(m) = model[k].pop_front() {
                    prop_assert_eq!(pipes[k].second_at(&store), model[k].front().map(|m| m.0));
                    prop_assert_eq!(pipes[k].pop_front(&mut store).seq.0, m.1);
                }
                for j in 0..4 {
                    prop_assert_eq!(pipes[j].len(), model[j].len());
                    prop_assert_eq!(pipes[j].front(&store).map(|p| p.seq.0), model[j].front().map(|m| m.1));
                    prop_assert_eq!(pipes[j].back(&store).map(|p| p.seq.0), model[j].back().map(|m| m.1));
                    let all: Vec<u32> = pipes[j].iter(&store).map(|p| p.seq.0).collect();
                    prop_assert_eq!(all, model[j].iter().map(|m| m.1).collect::<Vec<_>>());
                }
                prop_assert_eq!(store.len(), model.iter().map(VecDeque::len).sum::<usize>());
            }
        }
    }

    #[test]
    fn a_freed_entry_is_reused_first() {
        let mut store = PipeStore::default();
        let (mut a, mut b) = (Pipe::default(), Pipe::default());
        a.push_back(&mut store, SimTime::ZERO, &pkt(1));
        a.push_back(&mut store, SimTime::ZERO, &pkt(2));
        a.pop_front(&mut store);
        b.push_back(&mut store, SimTime::ZERO, &pkt(3));
        assert_eq!(store.entries.len(), 2, "the entry pkt(1) left was reused");
        let mut seen = vec![];
        a.drain(&mut store, |p| seen.push(p.seq.0));
        assert_eq!((seen, a.is_empty(), store.len()), (vec![2], true, 1));
    }
}
