//! Tables a caller sizes, allocated without aborting and without touching
//! their pages.
//!
//! `vec![0u64; n]` takes the allocator's zeroed path, so the operating system
//! hands out pages only as they are written: a table of 2^34 bits costs
//! nothing until it is filled. But it aborts the process when the allocator
//! refuses. These helpers take the same zeroed path (through `bytemuck`) and
//! return [`OutOfMemory`] instead, so every constructor can turn an
//! impossible size into its own typed error.
//!
//! ```
//! use bloomlab_core::alloc::{OutOfMemory, zeroed_words};
//!
//! assert_eq!(zeroed_words(4).unwrap(), vec![0u64; 4]);
//! // 2^61 words are more than any machine has.
//! assert_eq!(zeroed_words(1 << 61), Err(OutOfMemory { bytes: 1 << 64 }));
//! ```

use std::fmt;
use std::sync::atomic::AtomicU64;

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
    bytemuck::allocation::try_zeroed_vec(n).map_err(|()| OutOfMemory {
        bytes: n as u128 * size_of::<T>() as u128,
    })
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
