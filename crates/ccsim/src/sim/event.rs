//! The event queue: a binary heap keyed by (time, insertion sequence), so that events at the
//! same instant run in the order they were scheduled and a run is a pure function of its
//! inputs. Time and sequence are packed into one `u128` key: one comparison per step.

use super::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    /// Time (ns) in the high 64 bits, insertion sequence in the low 64.
    key: u128,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
    #[inline]
    fn lt(&self, o: &Self) -> bool {
        o.key < self.key
    }
    #[inline]
    fn le(&self, o: &Self) -> bool {
        o.key <= self.key
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest key first.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        o.key.cmp(&self.key)
    }
}

#[inline]
fn time_of(key: u128) -> SimTime {
    SimTime((key >> 64) as u64)
}

/// A deterministic priority queue of future events.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), next_seq: 0 }
    }
}

impl<E> EventQueue<E> {
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: E) {
        let key = (time.as_nanos() as u128) << 64 | self.next_seq as u128;
        self.next_seq += 1;
        self.heap.push(Entry { key, event });
    }

    /// Removes and returns the earliest event if it is due at or before `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: SimTime) -> Option<(SimTime, E)> {
        if time_of(self.heap.peek()?.key) > limit {
            return None;
        }
        self.heap.pop().map(|e| (time_of(e.key), e.event))
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| time_of(e.key))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_run_in_insertion_order() {
        let mut q = EventQueue::default();
        q.schedule(SimTime(5), 'c');
        q.schedule(SimTime(1), 'a');
        q.schedule(SimTime(5), 'd');
        q.schedule(SimTime(1), 'b');
        let order: Vec<char> = std::iter::from_fn(|| q.pop_until(SimTime::MAX).map(|e| e.1)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
    }

    #[test]
    fn pop_until_respects_the_limit() {
        let mut q = EventQueue::default();
        q.schedule(SimTime(10), ());
        assert!(q.pop_until(SimTime(9)).is_none());
        assert!(q.pop_until(SimTime(10)).is_some());
    }

    #[test]
    fn matches_a_sorted_order_under_churn() {
        // Interleaved schedules and pops with many ties: the output must be sorted by
        // (time, schedule order).
        let mut q = EventQueue::default();
        let mut rng = crate::sim::Rng::from_seed(7);
        let mut out = Vec::new();
        let mut now = 0u64;
        let mut id = 0u32;
        for round in 0..20_000 {
            for _ in 0..(round % 3) + 1 {
                let t = now + (rng.uniform() * 50.0) as u64;
                q.schedule(SimTime(t), (t, id));
                id += 1;
            }
            if let Some((t, e)) = q.pop_until(SimTime::MAX) {
                assert_eq!(t.as_nanos(), e.0);
                now = t.as_nanos();
                out.push(e);
            }
        }
        while let Some((_, e)) = q.pop_until(SimTime::MAX) {
            out.push(e);
        }
        assert_eq!(out.len(), id as usize);
        assert!(out.windows(2).all(|w| w[0] < w[1]), "not in (time, insertion) order");
    }
}
