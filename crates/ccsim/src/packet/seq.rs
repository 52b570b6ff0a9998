//! 32-bit TCP sequence numbers, wrapping, compared modulo 2^32 (RFC 793 section 3.3).

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, Sub};

#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Seq(pub u32);

impl Seq {
    /// Signed distance from `o` to `self`, valid while the two are less than 2^31 apart.
    pub fn diff(self, o: Seq) -> i32 {
        self.0.wrapping_sub(o.0) as i32
    }
    pub fn max(self, o: Seq) -> Seq {
        if self > o {
            self
        } else {
            o
        }
    }
}

impl PartialOrd for Seq {
    fn partial_cmp(&self, o: &Seq) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Seq {
    fn cmp(&self, o: &Seq) -> Ordering {
        self.diff(*o).cmp(&0)
    }
}

impl Add<u32> for Seq {
    type Output = Seq;
    fn add(self, n: u32) -> Seq {
        Seq(self.0.wrapping_add(n))
    }
}
impl Sub<u32> for Seq {
    type Output = Seq;
    fn sub(self, n: u32) -> Seq {
        Seq(self.0.wrapping_sub(n))
    }
}
/// Bytes from `o` up to `self`; callers guarantee `self >= o`.
impl Sub<Seq> for Seq {
    type Output = u32;
    fn sub(self, o: Seq) -> u32 {
        self.0.wrapping_sub(o.0)
    }
}

impl fmt::Debug for Seq {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        // Sequence arithmetic across the 2^32 wrap (RFC 793 section 3.3): for any base,
        // near the wrap or not, and any distance below 2^31, order and distance hold.
        #[test]
        fn order_and_distance_hold_across_the_wrap(base in prop_oneof![any::<u32>(), (u32::MAX - 100_000)..=u32::MAX], d in 1u32..(1 << 31)) {
            let (a, b) = (Seq(base), Seq(base) + d);
            prop_assert_eq!(b.cmp(&a), std::cmp::Ordering::Greater);
            prop_assert_eq!(a.cmp(&b), std::cmp::Ordering::Less);
            prop_assert_eq!(b - a, d);
            prop_assert_eq!(b.diff(a), d as i32);
            prop_assert_eq!(a.diff(b), (d as i32).wrapping_neg());
            prop_assert_eq!(a.max(b), b);
            prop_assert_eq!(b - d, a);
            prop_assert_eq!((a + d) + 0, b);
        }

        #[test]
        fn steps_add_up_across_the_wrap(base in (u32::MAX - 10_000)..=u32::MAX, steps in proptest::collection::vec(0u32..5_000, 1..50)) {
            let mut s = Seq(base);
            let mut total = 0u64;
            for step in steps {
                let next = s + step;
                prop_assert!(next >= s);
                s = next;
                total += step as u64;
            }
            prop_assert_eq!((s - Seq(base)) as u64, total);
        }
    }

    #[test]
    fn comparison_wraps() {
        let near_top = Seq(u32::MAX - 10);
        let wrapped = near_top + 100;
        assert_eq!(wrapped.0, 89);
        assert!(wrapped > near_top);
        assert_eq!(wrapped - near_top, 100);
        assert_eq!(near_top.max(wrapped), wrapped);
    }
}
