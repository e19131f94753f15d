//! A filter's lookups under a shape fixed at compile time: no choice of
//! fingerprint width and arity left for each lookup to make.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{BuildHasher, Hash};

use bloomlab_core::batch;

use crate::filter::BinaryFuseFilter;
use crate::table::{Fingerprint, passes};

/// The type a fingerprint is stored in: `u8`, `u16` or `u32`, for 8-, 16-
/// and 32-bit fingerprints. Sealed: the crate implements it for those
/// three alone.
pub trait Width: Fingerprint {}

impl Width for u8 {}
impl Width for u16 {}
impl Width for u32 {}

/// The lookups of a [`BinaryFuseFilter`] whose fingerprints are of type `W`
/// and whose keys have `A` slots, borrowed from it by
/// [`BinaryFuseFilter::shaped`].
///
/// A filter's shape is chosen when it is built, so each of its own
/// lookups starts by finding which of the six shapes it has. Where the
/// shape is known when the program is compiled, this view makes that
/// choice once: its lookups are the reads and the comparison alone. The
/// answers are the filter's, item for item.
///
/// ```
/// use bloomlab_fuse::BinaryFuseFilter;
///
/// let keys: Vec<u64> = (0..10_000).collect();
/// let filter = BinaryFuseFilter::<u64>::builder_with_bits(8)
///     .arity(3)
///     .build(&keys)?;
/// let lookups = filter.shaped::<u8, 3>().expect("8-bit 3-wise");
/// assert!(keys.iter().all(|k| lookups.contains(k)));
/// assert_eq!(lookups.contains(&123_456), filter.contains(&123_456));
/// // Another shape is not this filter's.
/// assert!(filter.shaped::<u16, 3>().is_none());
/// assert!(filter.shaped::<u8, 4>().is_none());
/// # Ok::<(), bloomlab_fuse::BuildError>(())
/// ```
pub struct Shaped<'a, T: ?Sized, S, W, const A: usize> {
    filter: &'a BinaryFuseFilter<T, S>,
    fingerprints: &'a [W],
}

impl<T: ?Sized, S, W, const A: usize> Clone for Shaped<'_, T, S, W, A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized, S, W, const A: usize> Copy for Shaped<'_, T, S, W, A> {}

/// The filter's shape and length, as its own `Debug` shows them.
impl<T: ?Sized, S, W, const A: usize> fmt::Debug for Shaped<'_, T, S, W, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Shaped").field(self.filter).finish()
    }
}

impl<T: ?Sized, S> BinaryFuseFilter<T, S> {
    /// The filter's lookups under its shape: fingerprints of type `W`
    /// (`u8`, `u16`, `u32`) and `A` slots a key (3 or 4), or `None` if
    /// that is not the filter's shape. See [`Shaped`].
    pub fn shaped<W: Width, const A: usize>(&self) -> Option<Shaped<'_, T, S, W, A>> {
        if A != self.layout.arity as usize {
            return None;
        }
        Some(Shaped::new(self, W::of_table(&self.table)?))
    }
}

impl<'a, T: ?Sized, S, W: Width, const A: usize> Shaped<'a, T, S, W, A> {
    /// The lookups of `filter`, whose array is `fingerprints` and whose
    /// arity is `A`.
    pub(crate) fn new(filter: &'a BinaryFuseFilter<T, S>, fingerprints: &'a [W]) -> Self {
        debug_assert_eq!(filter.layout.arity as usize, A);
        Shaped {
            filter,
            fingerprints,
        }
    }

    /// The filter these are the lookups of.
    pub fn filter(&self) -> &'a BinaryFuseFilter<T, S> {
        self.filter
    }

    /// The array of fingerprints.
    pub fn fingerprints(&self) -> &'a [W] {
        self.fingerprints
    }

    /// Whether the item whose hash is `hash` passes: as
    /// [`BinaryFuseFilter::contains_hash`].
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        let layout = &self.filter.layout;
        self.filter
            .with_seed(|seed| passes::<W, A>(layout, self.fingerprints, hash, seed))
    }

    /// The slots a lookup of the item whose hash is `hash` reads: as
    /// [`BinaryFuseFilter::slots_of_hash`].
    #[inline]
    pub fn slots_of_hash(&self, hash: u64) -> [usize; A] {
        self.filter.slots_of::<A>(hash)
    }

    /// Starts loading the slots of the item of `hash`.
    #[inline]
    pub(crate) fn prefetch(&self, hash: u64) {
        for slot in self.slots_of_hash(hash) {
            if let Some(fingerprint) = self.fingerprints.get(slot) {
                batch::prefetch(fingerprint);
            }
        }
    }
}

impl<T: ?Sized, S: BuildHasher, W: Width, const A: usize> Shaped<'_, T, S, W, A> {
    /// As [`BinaryFuseFilter::contains`].
    #[inline]
    pub fn contains<Q>(&self, item: &Q) -> bool
    where
        T: Borrow<Q>,
        Q: Hash + ?Sized,
    {
        self.contains_hash(self.filter.hasher.hash_one(item))
    }

    /// As [`BinaryFuseFilter::contains_batch`].
    pub fn contains_batch<Q>(&self, items: &[Q]) -> Vec<bool>
    where
        T: Borrow<Q>,
        Q: Hash,
    {
        let ahead = batch::ahead(self.filter.memory_bytes(), A);
        batch::contains(
            &self.filter.hasher,
            items,
            ahead,
            |hash| self.prefetch(hash),
            |hash| self.contains_hash(hash),
        )
    }
}
