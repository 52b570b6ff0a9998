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
