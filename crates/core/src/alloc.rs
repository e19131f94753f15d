//! Tables a caller sizes, allocated without aborting and without touching
//! their pages.
//!
//! Every filter keeps its table in a [`Buffer`]: zeroed, aligned to a
//! 64-byte cache line, and returned as [`OutOfMemory`] rather than aborting
//! the process when the memory is refused, so that every constructor can
//! turn an impossible size into its own typed error. On Linux a table of
//! [`HUGE_PAGE_BYTES`] (2 MiB) or more is a mapping of its own whose pages
//! the kernel hands out only as they are written (a table of 2^34 bits
//! costs nothing until it is filled) and, while [`huge_pages`] is on (the
//! default), starts on a 2 MiB boundary and is marked for transparent huge
//! pages: one TLB entry then covers 2 MiB of the table instead of 4 KiB,
//! which is what a lookup in a table far past the caches pays for.
//!
//! ```
//! use bloomlab_core::alloc::{self, OutOfMemory};
//!
//! let table = alloc::buffer::<u64>(4).unwrap();
//! assert_eq!(&table[..], &[0u64; 4]);
//! assert_eq!(table.as_ptr() as usize % 64, 0); // one cache line
//! // 2^61 words are more than any machine has.
//! assert_eq!(
//!     alloc::buffer::<u64>(1 << 61).unwrap_err(),
//!     OutOfMemory { bytes: 1 << 64 },
//! );
//! ```
//!
//! [`zeroed_words`] and [`zeroed_atomic_words`] give the same zeroed words
//! in a `Vec`, from the global allocator, for code that wants one.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

pub use crate::raw::Buffer;
/// Types whose all-zero bytes are a valid value: what a [`Buffer`] holds.
pub use bytemuck::Zeroable;

/// The allocator refused a table of [`bytes`](Self::bytes) bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OutOfMemory {
    /// Bytes asked for.
    pub bytes: u128,
}

impl fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "could not allocate a table of {} bytes", self.bytes)
    }
}

impl std::error::Error for OutOfMemory {}

/// 64-bit words that hold `units` fields of `bits` bits each, packed end to
/// end: `⌈units · bits / 64⌉`, computed in `u128` so that it cannot
/// overflow.
///
/// ```
/// use bloomlab_core::alloc::packed_words;
///
/// assert_eq!(packed_words(16, 4), 1);
/// assert_eq!(packed_words(17, 4), 2);
/// assert_eq!(packed_words(u64::MAX, 64), u128::from(u64::MAX));
/// ```
pub fn packed_words(units: u64, bits: u64) -> u128 {
    (u128::from(units) * u128::from(bits)).div_ceil(64)
}

/// Tables of this many bytes or more are mapped on their own, on Linux,
/// with huge pages while [`huge_pages`] is on.
pub const HUGE_PAGE_BYTES: usize = crate::raw::HUGE_PAGE;

/// Whether tables made from now on ask for huge pages.
static HUGE_PAGES: AtomicBool = AtomicBool::new(true);

/// Whether tables of [`HUGE_PAGE_BYTES`] or more made from now on ask the
/// kernel for transparent huge pages (`MADV_HUGEPAGE`, Linux only): on by
/// default.
pub fn huge_pages() -> bool {
    HUGE_PAGES.load(Ordering::Relaxed)
}

/// Turns huge pages on or off for the tables made from now on, for the
/// whole process (tables already made keep theirs): off, a large table is
/// marked `MADV_NOHUGEPAGE`, so that it gets 4 KiB pages even where the
/// system's default is to use huge pages everywhere. The benchmarks measure
/// both ways; a program that keeps many large, sparsely written filters
/// may want them off, since a huge page is backed whole once any byte of it
/// is written.
///
/// ```
/// use bloomlab_core::alloc;
///
/// alloc::set_huge_pages(false);
/// let table = alloc::buffer::<u64>(1 << 20).unwrap(); // 8 MiB
/// assert!(!table.huge_pages());
/// alloc::set_huge_pages(true);
/// ```
pub fn set_huge_pages(enabled: bool) {
    HUGE_PAGES.store(enabled, Ordering::Relaxed);
}

/// `len` zeroed values of `T` in a [`Buffer`] (see the module's
/// documentation for where its memory comes from).
///
/// # Errors
///
/// [`OutOfMemory`] when the memory is refused, or `len` values exceed what
/// the platform can address.
pub fn buffer<T: Zeroable>(len: usize) -> Result<Buffer<T>, OutOfMemory> {
    Buffer::zeroed(len, huge_pages()).ok_or_else(|| refused::<T>(len))
}

/// A copy of `values` in a [`Buffer`] of its own.
///
/// # Errors
///
/// As [`buffer`].
pub fn buffer_from<T: Zeroable + Copy>(values: &[T]) -> Result<Buffer<T>, OutOfMemory> {
    Buffer::copied(values, huge_pages()).ok_or_else(|| refused::<T>(values.len()))
}

/// The error for `len` values of `T`.
fn refused<T>(len: usize) -> OutOfMemory {
    OutOfMemory {
        bytes: len as u128 * size_of::<T>() as u128,
    }
}

/// `n` zeroed words, or [`OutOfMemory`] if the allocator cannot provide them.
///
/// # Errors
///
/// [`OutOfMemory`] when the allocator refuses, or `n · 8` bytes exceed what
/// the platform can address.
pub fn zeroed_words(n: usize) -> Result<Vec<u64>, OutOfMemory> {
    zeroed(n)
}

/// `n` zeroed atomic words, as lazily as [`zeroed_words`]: no page is touched
/// until a bit in it is set.
///
/// # Errors
///
/// As [`zeroed_words`].
pub fn zeroed_atomic_words(n: usize) -> Result<Vec<AtomicU64>, OutOfMemory> {
    zeroed(n)
}

/// `n` zeroed values of `T` from the allocator's zeroed path.
fn zeroed<T: bytemuck::Zeroable>(n: usize) -> Result<Vec<T>, OutOfMemory> {
    bytemuck::allocation::try_zeroed_vec(n).map_err(|()| refused::<T>(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn impossible_sizes_are_errors() {
        assert!(zeroed_words(usize::MAX).is_err());
        assert!(zeroed_atomic_words(usize::MAX / 8).is_err());
        assert_eq!(
            zeroed_words(usize::MAX / 4),
            Err(OutOfMemory {
                bytes: (usize::MAX / 4) as u128 * 8
            })
        );
    }

    #[test]
    fn tables_start_at_zero() {
        assert!(zeroed_words(1_000).unwrap().iter().all(|&w| w == 0));
        let atomic = zeroed_atomic_words(1_000).unwrap();
        assert!(atomic.iter().all(|w| w.load(Ordering::Relaxed) == 0));
        assert!(zeroed_words(0).unwrap().is_empty());
    }
}
