//! The event queue: a priority queue keyed by (time, insertion sequence), so that events at
//! the same instant run in the order they were scheduled and a run is a pure function of its
//! inputs. Time and sequence are packed into one `u128` key: one comparison per step.
//!
//! It is a timing wheel, a calendar queue with fixed-width buckets (R. Brown, "Calendar
//! queues: a fast O(1) priority queue implementation for the simulation event set problem",
//! CACM 31(10), 1988), with a second, coarser wheel behind it (G. Varghese and T. Lauck,
//! "Hashed and hierarchical timing wheels", SOSP 1987). Time is cut into buckets of
//! 2^`SHIFT` ns and buckets into blocks of 2^`BLOCK_SHIFT`. The ring holds every event of
//! the block being drained and the next one, each bucket an unsorted list: scheduling there
//! is a push; the bucket reached next is sorted once, when it becomes the current one, and
//! drained from its start. Events of the following `SLOTS` blocks wait in the second wheel, a
//! list per block, and move into the ring, in one pass over the list, when their block
//! becomes the next one. Events further ahead wait in a binary heap and move into the
//! wheels as they turn. Bitmaps of occupied buckets and blocks find the next one without
//! visiting empty ones. Keys are unique, so the order is the keys' whatever the lists.
//!
//! Link arrivals and ends of serialization, most of the events, fall within the ring (tens
//! of microseconds to tens of milliseconds ahead); retransmission and delayed-ACK timers of
//! hundreds of milliseconds fall in the second wheel (up to 34 s ahead). Against the binary
//! heap each replaced, the order of events is the same: only the cost changes (with a timer
//! per flow, popping a heap of every flow's timer waits on a miss at each of its levels;
//! `benchmarks/README.md`, "The event queue's second wheel").

use super::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// log2 of a bucket's width in ns: 65.5 us. (Narrower buckets, more of them, were measured
/// slower: the ring's buckets, each its own small allocation, spread over more memory;
/// `benchmarks/README.md`, "The third speed pass".)
const SHIFT: u32 = 16;
/// Buckets in the ring (a power of two): with `SHIFT`, 67 ms.
const BUCKETS: usize = 1 << 10;
const WORDS: usize = BUCKETS / 64;
/// log2 of the buckets in a block, the second wheel's unit (33.5 ms): the ring holds two
/// blocks, the current one and the next.
const BLOCK_SHIFT: u32 = 9;
/// Blocks in the second wheel (a power of two): 34 s after the ring's.
const SLOTS: usize = 1 << 10;
const SLOT_WORDS: usize = SLOTS / 64;
const _: () = assert!(2 << BLOCK_SHIFT <= BUCKETS, "the ring must hold two blocks");

/// An event beyond the second wheel, in the overflow heap.
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
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest key first.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        o.key.cmp(&self.key)
    }
}

/// Sorts a bucket that becomes the current one by ascending key.
#[inline]
fn sort_bucket<E>(bucket: &mut [(u128, E)]) {
    match bucket.len() {
        0 | 1 => {}
        2 => {
            if bucket[0].0 > bucket[1].0 {
                bucket.swap(0, 1);
            }
        }
        _ => sort_ascending(bucket),
    }
}

/// Events are mostly scheduled in the order they fall due (arrivals one delay after their
/// transmission): a bucket is nearly in ascending order, which the sort passes over with
/// few moves.
#[inline(never)]
fn sort_ascending<E>(bucket: &mut [(u128, E)]) {
    bucket.sort_unstable_by_key(|e| e.0);
}

#[inline]
fn time_of(key: u128) -> SimTime {
    SimTime((key >> 64) as u64)
}

/// The bucket (absolute number) of a key. Bucket 0 is before every time: the queue starts
/// there, so that the events scheduled before the first pop wait in the ring like any others
/// and are sorted once, when the first pop turns to their bucket (inserted one by one into
/// the current bucket, the starts of 100,000 flows all at 0 took 1.6 s, quadratic in the
/// flows).
#[inline]
fn bucket_of(key: u128) -> u64 {
    (((key >> 64) as u64) >> SHIFT) + 1
}

/// The block (absolute number) of a bucket.
#[inline]
fn block_of(bucket: u64) -> u64 {
    bucket >> BLOCK_SHIFT
}

/// The first set bit of `bits` at or after `start`, going round, as a distance from `start`.
#[inline]
fn first_set_from<const N: usize>(bits: &[u64; N], start: usize) -> Option<usize> {
    let size = N * 64;
    let mut w = start / 64;
    let mut word = bits[w] & (!0u64 << (start % 64));
    for _ in 0..=N {
        if word != 0 {
            let i = w * 64 + word.trailing_zeros() as usize;
            return Some((i + size - start) % size);
        }
        w = (w + 1) % N;
        word = bits[w];
    }
    None
}

/// A deterministic priority queue of future events.
pub struct EventQueue<E> {
    /// Absolute number of the bucket being drained.
    cur: u64,
    /// The events of the current block and the next one, the buckets from `cur` on, each at
    /// its absolute number modulo `BUCKETS`. The current bucket is sorted by ascending key,
    /// its events before `head` already taken, and also holds any event scheduled before
    /// it; the others are unsorted.
    ring: Box<[Vec<(u128, E)>; BUCKETS]>,
    /// The next event of the current bucket: its index there.
    head: usize,
    /// Which ring buckets after the current one hold events.
    occupied: [u64; WORDS],
    /// The second wheel: the events of blocks `far_base .. far_base + SLOTS`, unsorted, each
    /// block at its absolute number modulo `SLOTS`.
    far: Box<[Vec<(u128, E)>; SLOTS]>,
    /// Which blocks of the second wheel hold events.
    far_occupied: [u64; SLOT_WORDS],
    /// The first block the second wheel holds: two after the current one.
    far_base: u64,
    /// Events past the second wheel.
    overflow: BinaryHeap<Entry<E>>,
    next_seq: u64,
    len: usize,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            cur: 0,
            head: 0,
            ring: Box::new(std::array::from_fn(|_| Vec::new())),
            occupied: [0; WORDS],
            far: Box::new(std::array::from_fn(|_| Vec::new())),
            far_occupied: [0; SLOT_WORDS],
            far_base: 2,
            overflow: BinaryHeap::new(),
            next_seq: 0,
            len: 0,
        }
    }
}

impl<E: Copy> EventQueue<E> {
    #[inline(always)]
    pub fn schedule(&mut self, time: SimTime, event: E) {
        let key = (time.as_nanos() as u128) << 64 | self.next_seq as u128;
        self.next_seq += 1;
        self.len += 1;
        let b = bucket_of(key);
        if b <= self.cur {
            // Into the bucket being drained (or before it: then it is the earliest event).
            self.insert_current(key, event);
        } else {
            self.place(b, key, event);
        }
    }

    /// Inserts an event into the bucket being drained, in key order among the events not yet
    /// taken (more than half of a large network's events: each arrival on a busy link
    /// schedules the next one, microseconds later). The search runs from the head, the
    /// earliest: a linear scan, whose branches the processor predicts, passes over the few
    /// events between faster than a binary search waits on its loads. The slot before the
    /// head (taken) is free: when the new event's place is nearer the head than the end, the
    /// events before it move back one slot into it, rather than those after it forward.
    #[inline(never)]
    fn insert_current(&mut self, key: u128, event: E) {
        let current = &mut self.ring[self.cur as usize % BUCKETS];
        let ahead = &current[self.head..];
        let at = self.head + ahead.iter().position(|e| e.0 > key).unwrap_or(ahead.len());
        if self.head > 0 && at - self.head < current.len() - at {
            current.copy_within(self.head..at, self.head - 1);
            self.head -= 1;
            current[at - 1] = (key, event);
        } else {
            current.insert(at, (key, event));
        }
    }

    /// Puts an event of a bucket after the current one in the ring, the second wheel or the
    /// heap, by its block.
    #[inline(always)]
    fn place(&mut self, b: u64, key: u128, event: E) {
        let block = block_of(b);
        if block < self.far_base {
            self.push_ring(b, key, event);
        } else if block < self.far_base + SLOTS as u64 {
            let i = block as usize % SLOTS;
            self.far[i].push((key, event));
            self.far_occupied[i / 64] |= 1 << (i % 64);
        } else {
            self.overflow.push(Entry { key, event });
        }
    }

    // Inlined: out of line, its time went to reading back the event its caller had just
    // stored on the stack (`benchmarks/README.md`, "Warming ahead").
    #[inline(always)]
    fn push_ring(&mut self, b: u64, key: u128, event: E) {
        let i = b as usize % BUCKETS;
        self.ring[i].push((key, event));
        self.occupied[i / 64] |= 1 << (i % 64);
    }

    /// The first occupied ring bucket after `cur`, as an absolute number.
    #[inline]
    fn next_occupied(&self) -> Option<u64> {
        let start = (self.cur + 1) as usize % BUCKETS;
        first_set_from(&self.occupied, start).map(|d| self.cur + 1 + d as u64)
    }

    /// The first block of the second wheel that holds events, as an absolute number.
    #[inline]
    fn first_far_block(&self) -> Option<u64> {
        first_set_from(&self.far_occupied, self.far_base as usize % SLOTS).map(|d| self.far_base + d as u64)
    }

    /// Makes the next bucket holding events the current one (the current one is drained and
    /// cleared). False if no event is left.
    fn turn(&mut self) -> bool {
        // Every event in the ring is before every event in the second wheel, and those before
        // every event in the heap. A block's first bucket may be empty: then the next turn
        // moves on.
        let next = match self.next_occupied() {
            Some(b) => b,
            None => match self.first_far_block() {
                Some(block) => block << BLOCK_SHIFT,
                None => match self.overflow.peek() {
                    Some(e) => bucket_of(e.key),
                    None => return false,
                },
            },
        };
        self.cur = next;
        // The ring now holds the blocks up to the one after `next`'s: the second wheel's
        // events up to there join it, then the heap's up to the second wheel's new end move.
        let base = block_of(next) + 2;
        if base > self.far_base {
            while let Some(block) = self.first_far_block().filter(|&b| b < base) {
                let i = block as usize % SLOTS;
                self.far_occupied[i / 64] &= !(1 << (i % 64));
                // The list is freed, not kept: a block's worth of timers (one per flow of a
                // large network) kept by each of the blocks the run passes through adds up to
                // tens of megabytes on a large network.
                for (key, event) in std::mem::take(&mut self.far[i]) {
                    self.push_ring(bucket_of(key), key, event);
                }
            }
            self.far_base = base;
        }
        while let Some(e) = self.overflow.peek() {
            let b = bucket_of(e.key);
            if block_of(b) >= base + SLOTS as u64 {
                break;
            }
            let e = self.overflow.pop().expect("peeked");
            self.place(b, e.key, e.event);
        }
        let i = next as usize % BUCKETS;
        self.occupied[i / 64] &= !(1 << (i % 64));
        sort_bucket(&mut self.ring[i]);
        true
    }

    /// Removes and returns the earliest event if it is due at or before `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: SimTime) -> Option<(SimTime, E)> {
        loop {
            let current = &mut self.ring[self.cur as usize % BUCKETS];
            if let Some(&(key, event)) = current.get(self.head) {
                if time_of(key) > limit {
                    return None;
                }
                self.head += 1;
                self.len -= 1;
                return Some((time_of(key), event));
            }
            current.clear();
            self.head = 0;
            if !self.turn() {
                return None;
            }
        }
    }

    /// The events of the bucket being drained, the next one first: what the run is about to
    /// touch, for warming caches ahead of it. Events scheduled meanwhile may come between,
    /// so it is a hint, never a promise.
    #[inline]
    pub fn ahead(&self) -> impl Iterator<Item = &E> {
        self.ring[self.cur as usize % BUCKETS][self.head..].iter().map(|e| &e.1)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
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
    fn ahead_sees_the_events_of_the_current_bucket_in_order() {
        let mut q = EventQueue::default();
        for (t, e) in [(30, 'c'), (10, 'a'), (20, 'b'), (5 << SHIFT, 'z')] {
            q.schedule(SimTime(t), e);
        }
        assert_eq!(q.pop_until(SimTime::MAX), Some((SimTime(10), 'a')));
        assert_eq!((q.ahead().next(), q.ahead().nth(1), q.ahead().nth(2)), (Some(&'b'), Some(&'c'), None), "'z' is in a later bucket");
        q.schedule(SimTime(25), 'x');
        assert_eq!(q.ahead().nth(1), Some(&'x'));
    }

    #[test]
    fn events_scheduled_before_the_first_pop_and_then_into_the_current_bucket_keep_their_order() {
        // Many at the first instant (every flow of a large network starting at 0), then,
        // between pops, some due within the bucket being drained, near its end and far from it.
        let mut q = EventQueue::default();
        let mut rng = crate::sim::Rng::from_seed(3);
        let mut id = 0u32;
        for _ in 0..20_000 {
            let t = if rng.uniform() < 0.5 { 0 } else { (rng.uniform() * 1000.0) as u64 };
            q.schedule(SimTime(t), (t, id));
            id += 1;
        }
        let mut out = Vec::new();
        while let Some((t, e)) = q.pop_until(SimTime::MAX) {
            assert_eq!(t.as_nanos(), e.0);
            out.push(e);
            if id < 40_000 {
                let ahead = if id.is_multiple_of(2) { 2 } else { (rng.uniform() * 5000.0) as u64 };
                q.schedule(SimTime(t.as_nanos() + ahead), (t.as_nanos() + ahead, id));
                id += 1;
            }
        }
        assert_eq!(out.len(), id as usize);
        assert!(out.windows(2).all(|w| w[0] < w[1]), "not in (time, insertion) order");
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
    #[test]
    fn events_past_the_ring_and_in_the_current_bucket_keep_their_order() {
        // Times from the current bucket to many turns of the ring ahead and past the second
        // wheel, interleaved with pops: the output must be sorted by (time, schedule order).
        let mut q = EventQueue::default();
        let mut rng = crate::sim::Rng::from_seed(11);
        let horizon = (BUCKETS as u64) << SHIFT;
        let far = (SLOTS as u64) << (BLOCK_SHIFT + SHIFT);
        let mut out = Vec::new();
        let mut now = 0u64;
        let mut id = 0u32;
        for round in 0..50_000 {
            let span = match round % 5 {
                0 => 1 << SHIFT,  // the current bucket or the next
                1 => horizon,     // anywhere in the ring
                2 => 5 * horizon, // past it, in the second wheel
                3 => 3 * far,     // past the second wheel too
                _ => 10,          // the same few ns
            };
            let t = now + (rng.uniform() * span as f64) as u64;
            q.schedule(SimTime(t), (t, id));
            id += 1;
            if round % 3 != 0 {
                if let Some((t, e)) = q.pop_until(SimTime::MAX) {
                    assert_eq!(t.as_nanos(), e.0);
                    now = t.as_nanos();
                    out.push(e);
                }
            }
        }
        while let Some((_, e)) = q.pop_until(SimTime::MAX) {
            out.push(e);
        }
        assert_eq!((out.len(), q.len()), (id as usize, 0));
        let mut sorted = out.clone();
        sorted.sort_unstable();
        assert_eq!(out, sorted, "not in (time, insertion) order");
    }
}
