//! Prefetch hints: ask the memory for a cache line that will be read soon. A hint never
//! faults and never changes what a program computes, whatever the address (an address past
//! an allocation is fine), so these are safe to call on any pointer. On targets without a
//! prefetch instruction they do nothing.

/// Bytes in a cache line (x86-64 and most ARM cores).
pub const LINE: usize = 64;

/// Prefetches the cache line holding `p` (into every level).
#[inline(always)]
pub fn line<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it reads nothing the program sees and cannot fault.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const i8)
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Prefetches every cache line of the `len` bytes from `p`. The lines are asked for at `p`,
/// every [`LINE`] bytes after it and at the last byte: consecutive addresses lie at most a line
/// apart, so each line of the range holds one of them, and their number depends on `len` alone
/// (a constant `len` unrolls the loop). A start aligned to a line needs no last address.
#[inline(always)]
pub fn range<T>(p: *const T, len: usize) {
    let p = p as *const u8;
    each_line(len, std::mem::align_of::<T>().is_multiple_of(LINE), |offset| line(p.wrapping_add(offset)));
}

/// Calls `at` with offsets into `len` bytes such that each cache line the bytes touch holds
/// one of them (when `aligned`, the bytes start a line).
#[inline(always)]
fn each_line(len: usize, aligned: bool, mut at: impl FnMut(usize)) {
    if len == 0 {
        return;
    }
    let mut offset = 0;
    while offset < len {
        at(offset);
        offset += LINE;
    }
    if !aligned {
        at(len - 1);
    }
}

/// Prefetches every cache line of `value`.
#[inline(always)]
pub fn value<T>(value: &T) {
    range(value as *const T, std::mem::size_of::<T>());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn every_line_of_a_range_is_asked_for() {
        for len in 0..300 {
            for start in 0..2 * LINE {
                let aligned = start.is_multiple_of(LINE);
                let want: BTreeSet<usize> = (start..start + len).map(|b| b / LINE).collect();
                let mut got = BTreeSet::new();
                each_line(len, aligned, |offset| {
                    assert!(offset < len, "offset {offset} past {len} bytes");
                    got.insert((start + offset) / LINE);
                });
                assert_eq!(got, want, "{len} bytes from {start}");
                // Unaligned treatment is right for aligned starts too.
                let mut got = BTreeSet::new();
                each_line(len, false, |offset| {
                    got.insert((start + offset) / LINE);
                });
                assert_eq!(got, want, "{len} bytes from {start}, taken as unaligned");
            }
        }
    }
}
