//! Batched lookups and inserts: hash a group of items, ask for the memory each
//! will touch, then probe.
//!
//! One lookup in a table much larger than the cache waits for memory: about
//! 100 ns for each cache line that is not yet cached. Waiting for the lines of
//! several items at once costs little more than waiting for one, because the
//! memory system serves many requests in parallel. The batch methods of every
//! variant (`contains_batch`, `insert_batch`) therefore work [`LANES`] items at
//! a time: they hash the group ([`Hashes::of`]), call [`prefetch`] on each
//! line the group will read, and only then probe, in order. Answers are
//! exactly those of the one-at-a-time methods.
//!
//! ```
//! use bloomlab_core::batch::{Hashes, LANES};
//! use bloomlab_core::DefaultHasher;
//!
//! let hasher = DefaultHasher::from_seed(1);
//! let items: Vec<u64> = (0..40).collect();
//! let sizes: Vec<usize> = items
//!     .chunks(LANES)
//!     .map(|group| Hashes::of(&hasher, group).len())
//!     .collect();
//! assert_eq!(sizes, [LANES, LANES, 40 - 2 * LANES]);
//! ```

use std::hash::{BuildHasher, Hash};
use std::ops::Deref;

/// Items hashed and prefetched ahead of probing. Sixteen is more requests
/// than one core keeps in flight, so the memory system stays busy, and the
/// group's hashes stay on the stack.
pub const LANES: usize = 16;

/// The 64-bit hashes of up to [`LANES`] items, in order.
#[derive(Debug, Clone, Copy)]
pub struct Hashes {
    hashes: [u64; LANES],
    len: usize,
}

impl Hashes {
    /// Hashes the first `min(items.len(), LANES)` items of `items`: meant for
    /// the groups of `items.chunks(LANES)`.
    #[inline]
    pub fn of<T: Hash, S: BuildHasher>(hasher: &S, items: &[T]) -> Self {
        let mut hashes = [0u64; LANES];
        let mut len = 0;
        for (hash, item) in hashes.iter_mut().zip(items) {
            *hash = hasher.hash_one(item);
            len += 1;
        }
        Self { hashes, len }
    }
}

impl Deref for Hashes {
    type Target = [u64];

    #[inline]
    fn deref(&self) -> &[u64] {
        &self.hashes[..self.len]
    }
}

/// The delay line of a pipelined batch: each item's hash goes in when its
/// memory is prefetched and comes out [`LANES`] items later, when that memory
/// should have arrived and the item is probed.
///
/// ```
/// use bloomlab_core::batch::{Pipeline, LANES};
///
/// let mut line = Pipeline::new();
/// let mut probed = Vec::new();
/// for hash in 0..20u64 {
///     // (prefetch the memory of `hash` here)
///     if let Some(ready) = line.push(hash) {
///         probed.push(ready); // (probe it here)
///     }
/// }
/// probed.extend(line.drain());
/// assert_eq!(probed, (0..20).collect::<Vec<u64>>());
/// assert_eq!(LANES, 16);
/// ```
#[derive(Debug, Clone)]
pub struct Pipeline {
    ring: [u64; LANES],
    pushed: usize,
}

impl Pipeline {
    /// An empty delay line.
    #[inline]
    pub fn new() -> Self {
        Self {
            ring: [0; LANES],
            pushed: 0,
        }
    }

    /// Adds `hash`; returns the hash pushed [`LANES`] calls earlier, if any.
    #[inline]
    pub fn push(&mut self, hash: u64) -> Option<u64> {
        let slot = self.pushed % LANES;
        let out = std::mem::replace(&mut self.ring[slot], hash);
        self.pushed += 1;
        (self.pushed > LANES).then_some(out)
    }

    /// The hashes still in the line, oldest first.
    pub fn drain(self) -> impl Iterator<Item = u64> {
        let held = self.pushed.min(LANES);
        let first = self.pushed - held;
        (first..self.pushed).map(move |i| self.ring[i % LANES])
    }
}

impl Default for Pipeline {
    fn default() -> Self {
        Self::new()
    }
}

/// Asks the processor to start loading the cache line that holds `value`,
/// without waiting for it: a hint that never changes what a program computes.
///
/// On x86-64 this is the `prefetcht0` instruction. Elsewhere it does nothing
/// and the batch methods still give the same answers, only without the
/// overlap.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 processor has (it
    // is part of the architecture's baseline, and the standard library's
    // x86-64 targets enable it); the instruction never faults and never
    // reads memory into the program, and the pointer comes from a reference,
    // so it is valid in any case.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(value).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DefaultHasher;

    #[test]
    fn hashes_match_hash_one_in_order() {
        let hasher = DefaultHasher::from_seed(3);
        let items: Vec<u64> = (100..120).collect();
        let group = Hashes::of(&hasher, &items);
        assert_eq!(group.len(), LANES);
        for (hash, item) in group.iter().zip(&items) {
            assert_eq!(*hash, hasher.hash_one(item));
        }
        assert!(Hashes::of(&hasher, &items[..0]).is_empty());
    }

    #[test]
    fn prefetch_changes_nothing() {
        let words = vec![7u64; 1_000];
        for word in &words {
            prefetch(word);
        }
        assert!(words.iter().all(|&w| w == 7));
    }
}
