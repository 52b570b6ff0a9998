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

/// Prefetches every cache line of the `len` bytes from `p`.
#[inline(always)]
pub fn range<T>(p: *const T, len: usize) {
    let start = p as usize;
    let mut at = start & !(LINE - 1);
    while at < start + len {
        line(at as *const u8);
        at += LINE;
    }
}

/// Prefetches every cache line of `value`.
#[inline(always)]
pub fn value<T>(value: &T) {
    range(value as *const T, std::mem::size_of::<T>());
}
