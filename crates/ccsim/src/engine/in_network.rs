//! The data segments of one flow that are in the network: handed by its sender to the first
//! link and not yet delivered to the receiver or lost. The engine asks at every fast
//! retransmit whether the segment retransmitted is still in the network (a false fast
//! retransmit); keeping the answer per flow makes the question cost the flow's own segments
//! in flight, not a scan of every buffer of the network.
//!
//! Segments are kept in the order they entered the network. Links are FIFO, so on a
//! stable path segments leave in that order too and the one leaving is found at the front;
//! a drop or a path change finds it a few places further on. Copies of one segment (a
//! retransmission while the original is still queued) are interchangeable: only their
//! number matters.
//!
//! The oldest [`INLINE`] segments are held in the record itself, in a ring, and only those
//! after them in a buffer of their own. A flow of a large network rarely has more in flight,
//! so its record is read with the flow rather than from an allocation elsewhere in memory
//! (`benchmarks/README.md`); the order kept, and so every answer, is the same either way.

use crate::packet::Seq;
use std::collections::VecDeque;

/// Segments held in the record itself.
const INLINE: usize = 4;

#[derive(Clone, Debug, Default)]
pub struct InNetwork {
    /// The oldest segments, in order: `ring[(head + i) % INLINE]` for `i < len`.
    ring: [Seq; INLINE],
    head: u8,
    len: u8,
    /// The segments after the ring's, in order. Empty unless the ring is full: a segment
    /// leaving the ring is replaced by the first of these.
    spill: VecDeque<Seq>,
}

impl InNetwork {
    /// Prefetches what a delivery or a drop usually reads beyond the record itself: the
    /// first of the segments held outside it, which then moves into the ring.
    #[inline]
    pub fn prefetch_front(&self) {
        if let Some(s) = self.spill.front() {
            crate::sim::prefetch::line(s);
        }
    }

    /// A data segment starting at `seq` entered the network.
    #[inline]
    pub fn enter(&mut self, seq: Seq) {
        if self.len as usize == INLINE {
            self.spill.push_back(seq);
        } else {
            self.ring[self.slot(self.len as usize)] = seq;
            self.len += 1;
        }
    }

    /// A data segment starting at `seq` left the network (delivered or lost). A segment the
    /// flow's sender did not send (none was recorded) changes nothing.
    #[inline]
    pub fn leave(&mut self, seq: Seq) {
        if self.len > 0 && self.ring[self.head as usize] == seq {
            self.head = self.slot(1) as u8;
            self.len -= 1;
            self.refill();
        } else {
            self.leave_later(seq);
        }
    }

    /// [`leave`](Self::leave) for a segment that is not the oldest: the first copy found,
    /// in order.
    #[inline(never)]
    fn leave_later(&mut self, seq: Seq) {
        let Some(i) = self.iter().position(|s| s == seq) else { return };
        let len = self.len as usize;
        if i >= len {
            self.spill.remove(i - len);
            return;
        }
        for j in i..len - 1 {
            self.ring[self.slot(j)] = self.ring[self.slot(j + 1)];
        }
        self.len -= 1;
        self.refill();
    }

    /// Moves the first segment held outside the ring into it, after one left the ring.
    #[inline]
    fn refill(&mut self) {
        if let Some(s) = self.spill.pop_front() {
            self.ring[self.slot(self.len as usize)] = s;
            self.len += 1;
        }
    }

    /// The ring's index of the `i`-th oldest segment.
    #[inline]
    fn slot(&self, i: usize) -> usize {
        (self.head as usize + i) % INLINE
    }

    /// The segments in the network, oldest first: the ring's, then those held outside it.
    fn iter(&self) -> impl Iterator<Item = Seq> + '_ {
        (0..self.len as usize).map(|i| self.ring[self.slot(i)]).chain(self.spill.iter().copied())
    }

    /// How many copies of the segment starting at `seq` are in the network.
    pub fn copies(&self, seq: Seq) -> usize {
        self.iter().filter(|&s| s == seq).count()
    }

    /// The segments in the network, oldest first.
    #[cfg(test)]
    fn segments(&self) -> Vec<Seq> {
        self.iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn counts_copies_and_forgets_segments_in_any_order() {
        let mut n = InNetwork::default();
        for s in [0, 1000, 2000, 1000] {
            n.enter(Seq(s));
        }
        assert_eq!((n.copies(Seq(1000)), n.copies(Seq(0)), n.copies(Seq(3000))), (2, 1, 0));
        n.leave(Seq(0)); // the front: the common case
        n.leave(Seq(2000)); // a drop further on
        assert_eq!((n.segments().len(), n.copies(Seq(1000))), (2, 2));
        n.leave(Seq(1000));
        assert_eq!(n.copies(Seq(1000)), 1);
        n.leave(Seq(5000)); // never entered: nothing happens
        n.leave(Seq(1000));
        assert!(n.segments().is_empty());
    }

    #[test]
    fn segments_beyond_the_ring_keep_their_order() {
        let mut n = InNetwork::default();
        for s in 0..10 {
            n.enter(Seq(s));
        }
        n.leave(Seq(2)); // inside the ring: the first held outside moves in
        n.leave(Seq(7)); // outside it
        n.leave(Seq(0));
        assert_eq!(n.segments(), [1, 3, 4, 5, 6, 8, 9].map(Seq));
        assert!(!n.spill.is_empty() && n.len as usize == INLINE, "the ring stays full while segments wait outside it");
    }

    proptest! {
        /// The record answers as a plain ordered list of segments would, whatever the order
        /// of entries and departures.
        #[test]
        fn agrees_with_an_ordered_list(ops in proptest::collection::vec((any::<bool>(), 0u32..8), 0..200)) {
            let (mut n, mut model) = (InNetwork::default(), VecDeque::new());
            for (enter, s) in ops {
                let seq = Seq(s * 1000);
                if enter {
                    n.enter(seq);
                    model.push_back(seq);
                } else {
                    n.leave(seq);
                    if let Some(i) = model.iter().position(|&x| x == seq) {
                        model.remove(i);
                    }
                }
                prop_assert_eq!(n.segments(), model.iter().copied().collect::<Vec<_>>());
                prop_assert_eq!(n.copies(seq), model.iter().filter(|&&x| x == seq).count());
            }
        }
    }
}
