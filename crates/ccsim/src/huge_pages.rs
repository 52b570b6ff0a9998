//! An allocator that asks Linux for huge pages under large allocations.
//!
//! A large network's state (the flows, the links, the routes, the packets in the pipes) is
//! hundreds of megabytes read in an order no cache predicts: with 4 KiB pages nearly every
//! flow or link an event reads is also a miss in the translation buffers, whose page walk
//! comes before the miss to memory can even start (and on a virtual machine walks two sets of
//! tables). Backed by 2 MiB pages, the same state needs 512 times fewer translations.
//!
//! [`HugePages`] is the system allocator, plus one hint: every allocation or reallocation of
//! at least [`MIN_BYTES`] has the 2 MiB-aligned part of its memory marked
//! `madvise(MADV_HUGEPAGE)`, before anything has been written there. Linux then backs it with
//! huge pages when it is first written, if its transparent huge pages are `madvise` (Debian's
//! and most distributions' default) or `always`; with `never`, or on other systems, the hint
//! does nothing. The hint changes how fast the memory is reached, never what is in it: a run
//! computes the same, bit for bit, with or without it.
//!
//! The library does not install it: a program chooses its allocator. The Python module and the
//! benchmark programs do:
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: ccsim::huge_pages::HugePages = ccsim::huge_pages::HugePages;
//! ```
//!
//! It pays on networks whose state is larger than the caches and their translations, and
//! changes nothing on small ones: `benchmarks/README.md` ("Huge pages under the large
//! allocations") has the figures.

use std::alloc::{GlobalAlloc, Layout, System};

/// A huge page on x86-64 and on most 64-bit ARM kernels.
pub const HUGE_PAGE: usize = 2 << 20;

/// Allocations from this size on are marked (smaller ones cannot hold an aligned huge page,
/// or hardly one).
pub const MIN_BYTES: usize = 2 * HUGE_PAGE;

/// The system allocator, marking large allocations for huge pages (see the module
/// documentation).
#[derive(Clone, Copy, Debug, Default)]
pub struct HugePages;

// SAFETY: every call is the system allocator's, with the same arguments; the hint touches no
// memory the caller sees.
unsafe impl GlobalAlloc for HugePages {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        advise(System.alloc(layout), layout.size())
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        advise(System.alloc_zeroed(layout), layout.size())
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    /// A reallocation that grows to a large size is a new allocation, marked before the
    /// contents are copied there: the system's would move the pages written so far
    /// (`mremap`), which stay small pages, and a vector grown by doubling would keep most of
    /// its memory on them. One that shrinks writes no new pages: the system's, in place.
    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size < MIN_BYTES || new_size <= layout.size() {
            return System.realloc(ptr, layout, new_size);
        }
        // SAFETY: as `GlobalAlloc::realloc` requires of the caller, `new_size` rounded to the
        // alignment does not overflow, so the layout is valid.
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        let new = self.alloc(new_layout);
        if !new.is_null() {
            // It grows: the old contents fit.
            std::ptr::copy_nonoverlapping(ptr, new, layout.size());
            System.dealloc(ptr, layout);
        }
        new
    }
}

/// Marks the huge pages that lie wholly within `len` bytes at `ptr`, if `len` is large
/// enough; returns `ptr`.
#[inline]
fn advise(ptr: *mut u8, len: usize) -> *mut u8 {
    if len >= MIN_BYTES && !ptr.is_null() {
        if let Some((start, len)) = aligned_within(ptr as usize, len) {
            mark(start, len);
        }
    }
    ptr
}

/// The largest run of whole huge pages within `len` bytes from `addr`: its start and length.
fn aligned_within(addr: usize, len: usize) -> Option<(usize, usize)> {
    let start = addr.checked_add(HUGE_PAGE - 1)? & !(HUGE_PAGE - 1);
    let end = addr.checked_add(len)? & !(HUGE_PAGE - 1);
    (end > start).then(|| (start, end - start))
}

#[cfg(target_os = "linux")]
#[cold]
fn mark(start: usize, len: usize) {
    // SAFETY: the range lies within one live allocation of ours; MADV_HUGEPAGE changes no
    // content, only how later page faults there are served. A failure (a kernel without
    // transparent huge pages) leaves the memory as it was: nothing to do.
    unsafe {
        libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn mark(_start: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_aligned_huge_pages_are_marked() {
        const H: usize = HUGE_PAGE;
        assert_eq!(aligned_within(H, 2 * H), Some((H, 2 * H)));
        assert_eq!(aligned_within(H + 16, 3 * H), Some((2 * H, 2 * H)));
        assert_eq!(aligned_within(H + 16, H), None);
        assert_eq!(aligned_within(H - 16, H + 32), Some((H, H)));
        assert_eq!(aligned_within(usize::MAX - 8, 3 * H), None);
    }

    #[test]
    fn memory_from_it_holds_what_is_written() {
        let alloc = HugePages;
        for size in [64, MIN_BYTES, MIN_BYTES + 4096 + 8] {
            let layout = Layout::from_size_align(size, 64).unwrap();
            // SAFETY: a fresh allocation of `size` bytes, written and read within them,
            // reallocated and freed with its layouts.
            unsafe {
                let p = alloc.alloc(layout);
                assert!(!p.is_null());
                p.write_bytes(7, size);
                let q = alloc.realloc(p, layout, 2 * size);
                assert!((0..size).step_by(4093).all(|i| *q.add(i) == 7));
                alloc.dealloc(q, Layout::from_size_align(2 * size, 64).unwrap());
                let z = alloc.alloc_zeroed(layout);
                assert!((0..size).step_by(4093).all(|i| *z.add(i) == 0));
                alloc.dealloc(z, layout);
            }
        }
    }
}
