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

use crate::tcp::Seq;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct InNetwork {
    segments: VecDeque<Seq>,
}

impl InNetwork {
    /// Prefetches the oldest segment, the one a delivery or a drop usually removes.
    #[inline]
    pub fn prefetch_front(&self) {
        if let Some(s) = self.segments.front() {
            crate::sim::prefetch::line(s);
        }
    }

    /// A data segment starting at `seq` entered the network.
    #[inline]
    pub fn enter(&mut self, seq: Seq) {
        self.segments.push_back(seq);
    }

    /// A data segment starting at `seq` left the network (delivered or lost). A segment the
    /// flow's sender did not send (none was recorded) changes nothing.
    #[inline]
    pub fn leave(&mut self, seq: Seq) {
        if self.segments.front() == Some(&seq) {
            self.segments.pop_front();
        } else if let Some(i) = self.segments.iter().position(|&s| s == seq) {
            self.segments.remove(i);
        }
    }

    /// How many copies of the segment starting at `seq` are in the network.
    pub fn copies(&self, seq: Seq) -> usize {
        self.segments.iter().filter(|&&s| s == seq).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_copies_and_forgets_segments_in_any_order() {
        let mut n = InNetwork::default();
        for s in [0, 1000, 2000, 1000] {
            n.enter(Seq(s));
        }
        assert_eq!((n.copies(Seq(1000)), n.copies(Seq(0)), n.copies(Seq(3000))), (2, 1, 0));
        n.leave(Seq(0)); // the front: the common case
        n.leave(Seq(2000)); // a drop further on
        assert_eq!((n.segments.len(), n.copies(Seq(1000))), (2, 2));
        n.leave(Seq(1000));
        assert_eq!(n.copies(Seq(1000)), 1);
        n.leave(Seq(5000)); // never entered: nothing happens
        n.leave(Seq(1000));
        assert!(n.segments.is_empty());
    }
}
