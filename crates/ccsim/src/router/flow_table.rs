//! A fixed-capacity table of per-flow state, for router extensions that keep state for a few
//! flows only (partial per-flow state).
//!
//! Set-associative, like a hardware cache: a key hashes to one bucket of [`WAYS`] slots,
//! searched linearly; inserting into a full bucket evicts the bucket's least-recently-used
//! entry. The tags (key and last use) are stored apart from the values, so a search reads
//! a few cache lines of tags and only the value it finds. Nothing is allocated after
//! construction. The hash uses the low 16 bits of the two IPv4 addresses and the two ports,
//! as the ACK-spoofing paper suggests (high address bits are hierarchical and ports are
//! few, so neither spreads flows on its own); tags hold the whole 4-tuple, so flows that
//! collide never share state.

use crate::packet::node_addr;
use crate::packet::NodeId;

/// Slots per bucket. Eight keep conflict evictions rare up to half occupancy (with four,
/// a few per cent of the flows of a half-full table find their bucket full).
pub const WAYS: usize = 8;

/// A TCP connection, named in its data direction (sender to receiver).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct FlowKey {
    pub src: u32,
    pub dst: u32,
    pub sport: u16,
    pub dport: u16,
}

impl FlowKey {
    /// The key of the connection whose data goes from `(src, sport)` to `(dst, dport)`.
    pub fn new(src: NodeId, dst: NodeId, sport: u16, dport: u16) -> FlowKey {
        let addr = |n| u32::from_be_bytes(node_addr(n));
        FlowKey { src: addr(src), dst: addr(dst), sport, dport }
    }

    /// Fibonacci hashing: the high bits of the product depend on every bit of the key.
    fn hash(&self) -> u64 {
        let k = (self.src & 0xffff) as u64 | ((self.dst & 0xffff) as u64) << 16 | (self.sport as u64) << 32 | (self.dport as u64) << 48;
        k.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Tag {
    key: FlowKey,
    /// Value of the table's clock at the last use; 0 for an empty slot.
    used: u64,
}

#[derive(Clone, Debug)]
pub struct FlowTable<V> {
    tags: Vec<Tag>,
    values: Vec<V>,
    /// log2 of the number of buckets.
    bucket_bits: u32,
    clock: u64,
    len: usize,
}

impl<V: Copy + Default> FlowTable<V> {
    /// Bytes a table of `capacity` entries takes (for the scenario's memory estimate).
    pub fn footprint(capacity: usize) -> u64 {
        let slots = capacity.div_ceil(WAYS).max(1).next_power_of_two() as u64 * WAYS as u64;
        slots * (std::mem::size_of::<Tag>() + std::mem::size_of::<V>()) as u64
    }

    /// A table of at least `capacity` entries (rounded up to a power of two, at least [`WAYS`]).
    pub fn new(capacity: usize) -> FlowTable<V> {
        let buckets = capacity.div_ceil(WAYS).max(1).next_power_of_two();
        let slots = buckets * WAYS;
        FlowTable { tags: vec![Tag::default(); slots], values: vec![V::default(); slots], bucket_bits: buckets.trailing_zeros(), clock: 0, len: 0 }
    }

    pub fn capacity(&self) -> usize {
        self.tags.len()
    }
    /// Entries in use.
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.tags.iter().zip(&self.values).filter(|(t, _)| t.used != 0).map(|(_, v)| v)
    }

    fn bucket(&self, key: &FlowKey) -> std::ops::Range<usize> {
        let b = key.hash().checked_shr(64 - self.bucket_bits).unwrap_or(0) as usize;
        b * WAYS..(b + 1) * WAYS
    }

    fn find(&self, key: &FlowKey) -> Option<usize> {
        self.bucket(key).find(|&i| self.tags[i].used != 0 && self.tags[i].key == *key)
    }

    fn touch(&mut self, i: usize) -> &mut V {
        self.clock += 1;
        self.tags[i].used = self.clock;
        &mut self.values[i]
    }

    /// The entry of `key`, if present (marked as used).
    pub fn get_mut(&mut self, key: &FlowKey) -> Option<&mut V> {
        let i = self.find(key)?;
        Some(self.touch(i))
    }

    /// The entry of `key`, inserted with the default value if absent. When that evicts
    /// another entry, its value is returned too.
    pub fn entry(&mut self, key: &FlowKey) -> (&mut V, Option<V>) {
        if let Some(i) = self.find(key) {
            return (self.touch(i), None);
        }
        // An empty slot has `used == 0`, so the minimum is an empty slot if there is one.
        let i = self.bucket(key).min_by_key(|&i| self.tags[i].used).expect("buckets are not empty");
        let evicted = (self.tags[i].used != 0).then_some(self.values[i]);
        if evicted.is_none() {
            self.len += 1;
        }
        self.tags[i].key = *key;
        self.values[i] = V::default();
        (self.touch(i), evicted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: u32) -> FlowKey {
        FlowKey::new(i, 1000 + i, 10_000 + i as u16, 80)
    }

    #[test]
    fn capacity_rounds_up_to_whole_buckets() {
        assert_eq!(FlowTable::<u32>::new(1024).capacity(), 1024);
        assert_eq!(FlowTable::<u32>::new(1000).capacity(), 1024);
        assert_eq!(FlowTable::<u32>::new(1).capacity(), WAYS);
        assert_eq!(FlowTable::<u32>::new(3 * WAYS).capacity(), 4 * WAYS);
    }

    #[test]
    fn finds_what_it_stored_and_nothing_else() {
        let mut t = FlowTable::<u32>::new(64);
        for i in 0..20 {
            *t.entry(&key(i)).0 = i;
        }
        assert_eq!(t.len(), 20);
        for i in 0..20 {
            assert_eq!(t.get_mut(&key(i)).copied(), Some(i));
        }
        assert_eq!(t.get_mut(&key(99)), None);
        let reversed = FlowKey::new(1000, 0, 80, 10_000);
        assert_eq!(t.get_mut(&reversed), None, "direction matters");
    }

    #[test]
    fn the_hash_spreads_similar_flows_over_the_buckets() {
        // Consecutive addresses and ports, as scenarios number them: a half-full table
        // must not evict.
        let mut t = FlowTable::<u32>::new(1024);
        let evicted = (0..512).filter(|&i| t.entry(&key(i)).1.is_some()).count();
        assert_eq!((evicted, t.len()), (0, 512));
    }

    #[test]
    fn a_full_bucket_evicts_its_least_recently_used_entry() {
        // One bucket: every key collides.
        let mut t = FlowTable::<u32>::new(WAYS);
        for i in 0..WAYS as u32 {
            assert_eq!(t.entry(&key(i)).1, None);
            *t.get_mut(&key(i)).unwrap() = i;
        }
        t.get_mut(&key(0)); // key(1) is now the least recently used
        let (v, evicted) = t.entry(&key(50));
        assert_eq!((*v, evicted), (0, Some(1)));
        assert_eq!(t.get_mut(&key(1)), None);
        assert!(t.get_mut(&key(0)).is_some());
        assert_eq!(t.len(), WAYS);
    }

    #[test]
    fn keys_differing_only_in_high_address_bits_collide_but_stay_apart() {
        // Nodes 0 and 254 * 256 share the low 16 address bits (10.0.0.1 and 10.1.0.1).
        let (a, b) = (FlowKey::new(0, 5, 1, 2), FlowKey::new(254 * 256, 5, 1, 2));
        assert_ne!(a, b);
        assert_eq!(a.hash(), b.hash());
        let mut t = FlowTable::<u32>::new(2 * WAYS);
        *t.entry(&a).0 = 1;
        *t.entry(&b).0 = 2;
        assert_eq!((t.get_mut(&a).copied(), t.get_mut(&b).copied()), (Some(1), Some(2)));
    }
}
