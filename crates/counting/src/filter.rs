//! The counting Bloom filter.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;

use bloomlab_classic::BloomFilter;
use bloomlab_core::batch;
use bloomlab_core::by_hash;
use bloomlab_core::hash::{Scheme, SchemePositions};
use bloomlab_core::theory::classic;
use bloomlab_core::{DefaultHasher, InsertBatchError, InsertError, RemoveError};

use crate::builder::Builder;
use crate::counters::Counters;
use crate::error::{BuildError, MergeError};

/// A Bloom filter of small counters instead of bits, so that items can be
/// removed (Fan, Cao, Almeida and Broder, "Summary cache", 2000).
///
/// Each item increments its `k` counters, at the positions
/// [`scheme().positions(hash, m).take(k)`](Scheme::positions) of its one
/// 64-bit hash, and is reported present while all of them are non-zero. The
/// [`scheme`](Self::scheme) is [`Scheme::CURRENT`] for every filter built
/// here; a filter read from a format-version-1 file keeps
/// [`Scheme::Modular`], the positions it was written with, and is written
/// back in version 1. The filter answers
/// exactly as a classic [`BloomFilter`] of `m`
/// bits whose bit i is set when counter i is non-zero, which
/// [`to_bloom`](Self::to_bloom) builds.
///
/// # Deleting safely
///
/// A counter of `w` bits (4 by default, 8 or 16 on request) holds at most
/// `2^w − 1`. Here a counter that reaches that value is **saturated** and
/// stays so: it is never incremented or decremented again, because its true
/// count is no longer known. Decrementing it, as other counting filters do,
/// can bring it to zero while items that hashed to it are still held, and
/// those items are then reported absent. A stuck counter can only keep a
/// position set, so saturation adds false positives and never a false
/// negative. Every other counter holds exactly the increments minus the
/// decrements it received, so as long as only inserted items are removed, no
/// held item is ever reported absent.
///
/// [`remove`](Self::remove) refuses, with [`RemoveError::NotPresent`] and
/// without changing anything, an item whose counters prove it was never
/// inserted (one of them is zero). What the filter cannot detect is the
/// removal of a false positive (an item never inserted whose counters are all
/// non-zero): that decrements counters other items rely on and can make them
/// absent. Remove only what you inserted.
///
/// # How much saturation costs
///
/// [`expected_fpr`](Self::expected_fpr) is the classic rate
/// `(1 − e^{−k·len/m})^k`. With 4-bit counters at design load, the chance
/// that any counter saturates at all is about `1.8e-17 · m` at 1% with the
/// default five hashes, `3.5e-15 · m` with the smallest table's seven
/// ([`theory::counting::saturation_probability`](bloomlab_core::theory::counting::saturation_probability)),
/// under Fan et al.'s bound `3.06e-14 · m` for a counter reaching 15 (they
/// publish `1.37e-15 · m` for reaching 16, which a 4-bit counter cannot hold). Once `s`
/// counters are saturated and items are removed, the rate is at most
/// [`theory::counting::fpr_with_stuck`](bloomlab_core::theory::counting::fpr_with_stuck)
/// `(m, len, k, s)`: at most about `k · (s/m)` above the classic rate.
/// [`saturated_counters`](Self::saturated_counters) reports `s`.
///
/// # Example
///
/// ```
/// use bloomlab_counting::CountingBloomFilter;
/// use bloomlab_core::RemoveError;
///
/// // A filter of `str` items, as a `HashSet<String>` holds names.
/// let mut f: CountingBloomFilter<str> = CountingBloomFilter::builder(1_000, 0.01).seed(1).build()?;
/// f.insert("alice")?; // never fails: the Result every filter's insert has
/// f.insert("alice")?;
/// f.insert("bob")?;
/// assert_eq!(f.count("alice"), 2);
/// f.remove("bob")?;
/// assert!(!f.contains("bob"));
/// assert!(f.contains("alice"));
/// assert_eq!(f.remove("carol"), Err(RemoveError::NotPresent));
/// assert_eq!(f.len(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// The item type is part of the filter, as in a `HashSet<T>`: it is inferred
/// from the first insert, lookups and removes take any borrowed form of it,
/// and another type does not compile.
///
/// ```compile_fail
/// use bloomlab_counting::CountingBloomFilter;
///
/// let mut ids = CountingBloomFilter::new(1_000, 0.01).unwrap();
/// ids.insert(&7u64).unwrap();
/// ids.remove(&7i32); // error: u64 does not borrow as i32
/// ```
pub struct CountingBloomFilter<T: ?Sized, S = DefaultHasher> {
    counters: Counters,
    num_hashes: u32,
    len: usize,
    hasher: S,
    /// How a hash becomes the k positions; stored as the format version.
    scheme: Scheme,
    /// The item type: only what it hashes to is counted.
    item: PhantomData<fn(&T)>,
}

impl<T: ?Sized, S: Clone> Clone for CountingBloomFilter<T, S> {
    fn clone(&self) -> Self {
        Self::from_parts(
            self.counters.clone(),
            self.num_hashes,
            self.len,
            self.hasher.clone(),
            self.scheme,
        )
    }
}

impl<T: ?Sized, S: PartialEq> PartialEq for CountingBloomFilter<T, S> {
    fn eq(&self, other: &Self) -> bool {
        self.counters == other.counters
            && self.num_hashes == other.num_hashes
            && self.len == other.len
            && self.hasher == other.hasher
            && self.scheme == other.scheme
    }
}

impl<T: ?Sized> CountingBloomFilter<T> {
    /// A filter for `expected_items` items at false-positive rate `fpr`, with
    /// 4-bit counters and a random hash key.
    ///
    /// It has as many counters as [`theory::classic::size_for`] gives a classic
    /// filter bits, and the same k.
    ///
    /// # Errors
    ///
    /// [`BuildError::Param`] for zero items, a rate outside (0, 1), or a table
    /// the platform cannot address; [`BuildError::OutOfMemory`] if the
    /// allocator refuses the table (4.9 TB for a trillion items at 1%).
    ///
    /// [`theory::classic::size_for`]: bloomlab_core::theory::classic::size_for
    pub fn new(expected_items: usize, fpr: f64) -> Result<Self, BuildError> {
        Self::builder(expected_items, fpr).build()
    }

    /// A filter of exactly `num_counters` counters of `width` bits and
    /// `num_hashes` hashes, with a random hash key.
    ///
    /// # Errors
    ///
    /// [`Invalid::UnsupportedWidth`](crate::Invalid::UnsupportedWidth) unless `width` is 4, 8 or 16;
    /// [`BuildError::Param`] for zero counters, zero hashes or more than
    /// [`MAX_HASHES`](bloomlab_core::theory::classic::MAX_HASHES), or a table
    /// the platform cannot address; [`BuildError::OutOfMemory`] if the
    /// allocator refuses the table.
    pub fn with_counters(
        num_counters: u64,
        num_hashes: u32,
        width: u32,
    ) -> Result<Self, BuildError> {
        Self::builder_with_counters(num_counters, num_hashes)
            .counter_width(width)
            .build()
    }

    /// A builder for `expected_items` items at rate `fpr`, sized as
    /// [`new`](Self::new). Its options ([`Builder`]):
    /// [`seed`](Builder::seed), [`hasher`](Builder::hasher),
    /// [`counter_width`](Builder::counter_width) (4, 8 or 16 bits),
    /// [`smallest_table`](Builder::smallest_table) and
    /// [`max_bytes`](Builder::max_bytes); then [`build`](Builder::build).
    ///
    /// ```
    /// use bloomlab_counting::CountingBloomFilter;
    ///
    /// let f = CountingBloomFilter::<u64>::builder(10_000, 0.01).seed(7).counter_width(8).build()?;
    /// assert_eq!(f.counter_width(), 8);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn builder(expected_items: usize, fpr: f64) -> Builder<T, DefaultHasher> {
        Builder::target(expected_items, fpr)
    }

    /// A builder for exactly `num_counters` counters and `num_hashes` hashes.
    pub fn builder_with_counters(num_counters: u64, num_hashes: u32) -> Builder<T, DefaultHasher> {
        Builder::exact(num_counters, num_hashes)
    }
}

impl<T: ?Sized, S> CountingBloomFilter<T, S> {
    pub(crate) fn from_parts(
        counters: Counters,
        num_hashes: u32,
        len: usize,
        hasher: S,
        scheme: Scheme,
    ) -> Self {
        Self {
            counters,
            num_hashes,
            len,
            hasher,
            scheme,
            item: PhantomData,
        }
    }

    pub(crate) fn counters(&self) -> &Counters {
        &self.counters
    }

    /// The number of counters, m.
    pub fn num_counters(&self) -> u64 {
        self.counters.len()
    }

    /// The number of hashes per item, k.
    pub fn num_hashes(&self) -> u32 {
        self.num_hashes
    }

    /// Bits per counter: 4, 8 or 16.
    pub fn counter_width(&self) -> u32 {
        self.counters.width()
    }

    /// The value at which a counter saturates: `2^width − 1`.
    pub fn counter_max(&self) -> u32 {
        self.counters.max() as u32
    }

    /// The hasher items are hashed with.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// How an item's hash becomes its k counter positions:
    /// [`Scheme::CURRENT`] for every filter built by this crate, or
    /// [`Scheme::Modular`] for one read from a format-version-1 file, which
    /// keeps its positions and is written back in version 1. Filters of
    /// different schemes cannot be merged ([`MergeError::Scheme`]).
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// Successful inserts minus successful removes.
    ///
    /// A removed false positive counts as a successful remove (the filter
    /// cannot tell it from a member); `len` never goes below zero.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether [`len`](Self::len) is zero.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many counters are saturated: stuck at [`counter_max`](Self::counter_max)
    /// until [`clear`](Self::clear). Each can only add false positives.
    pub fn saturated_counters(&self) -> u64 {
        self.counters.saturated()
    }

    /// The value of counter `index`, or `None` past the last counter.
    pub fn counter(&self, index: u64) -> Option<u32> {
        self.counters.checked_get(index)
    }

    /// The packed counters: counter i in `words[i / (64 / width)]`, at bit
    /// `(i % (64 / width)) · width`.
    pub fn as_words(&self) -> &[u64] {
        self.counters.words()
    }

    /// Bytes of the counter table.
    pub fn memory_bytes(&self) -> usize {
        self.counters.memory_bytes()
    }

    /// The classic rate `(1 − e^{−k·len/m})^k` at the present [`len`](Self::len):
    /// what theory predicts while no counter is stuck (see the type's docs for
    /// the bound when some are). `len` counts an item inserted twice twice,
    /// though it sets its counters only once, so with repeated items this
    /// overstates the rate.
    pub fn expected_fpr(&self) -> f64 {
        classic::fpr(
            self.counters.len() as f64,
            self.len as f64,
            f64::from(self.num_hashes),
        )
    }

    /// Sets every counter to zero (saturated ones too) and `len` to 0; keeps
    /// the size and the hash key.
    pub fn clear(&mut self) {
        self.counters.clear();
        self.len = 0;
    }

    /// The item's positions, `self.scheme.positions(hash, m)`, of which the
    /// first k are used. The loops below run `0..k` and call `next` rather
    /// than iterate a `Take`: in a micro-benchmark of the lookup loop at 1M
    /// items, the `Take` version ran about half as fast.
    #[inline(always)]
    fn positions(&self, hash: u64) -> SchemePositions {
        self.scheme.positions(hash, self.counters.len())
    }

    /// Adds the item of 64-bit hash `hash`: increments each of its counters
    /// that is not saturated. Returns `true` if the item was not reported
    /// present before.
    ///
    /// Inserting the same item twice counts it twice; it stays present until
    /// it has been removed twice.
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        let new = match self.counters.log2_width() {
            2 => self.insert_at::<2>(hash),
            3 => self.insert_at::<3>(hash),
            _ => self.insert_at::<4>(hash),
        };
        self.len = self.len.saturating_add(1);
        new
    }

    #[inline(always)]
    fn insert_at<const L: u32>(&mut self, hash: u64) -> bool {
        let mut present = true;
        let counters = &mut self.counters;
        self.scheme
            .for_each(hash, counters.len(), self.num_hashes, |pos| {
                present &= counters.increment::<L>(pos) != 0;
            });
        !present
    }

    /// Whether the item of 64-bit hash `hash` is probably present (all its
    /// counters non-zero); `false` means definitely absent.
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        match self.counters.log2_width() {
            2 => self.contains_at::<2>(hash),
            3 => self.contains_at::<3>(hash),
            _ => self.contains_at::<4>(hash),
        }
    }

    #[inline(always)]
    fn contains_at<const L: u32>(&self, hash: u64) -> bool {
        self.scheme
            .all(hash, self.counters.len(), self.num_hashes, |pos| {
                self.counters.get_at::<L>(pos) != 0
            })
    }

    /// Removes one occurrence of the item of 64-bit hash `hash`: decrements
    /// each of its counters that is not saturated.
    ///
    /// # Errors
    ///
    /// [`RemoveError::NotPresent`], with nothing changed, if the counters prove
    /// the item absent: one of them is zero, or is lower than the number of
    /// the item's positions that fall on it.
    #[inline]
    pub fn remove_hash(&mut self, hash: u64) -> Result<(), RemoveError> {
        match self.counters.log2_width() {
            2 => self.remove_at::<2>(hash),
            3 => self.remove_at::<3>(hash),
            _ => self.remove_at::<4>(hash),
        }?;
        self.len = self.len.saturating_sub(1);
        Ok(())
    }

    #[inline(always)]
    fn remove_at<const L: u32>(&mut self, hash: u64) -> Result<(), RemoveError> {
        let mut positions = self.positions(hash);
        for done in 0..self.num_hashes {
            let pos = positions.next().unwrap_or_default();
            if !self.counters.decrement::<L>(pos) {
                let mut undo = self.positions(hash);
                for _ in 0..done {
                    let pos = undo.next().unwrap_or_default();
                    self.counters.undo_decrement::<L>(pos);
                }
                return Err(RemoveError::NotPresent);
            }
        }
        Ok(())
    }

    /// The smallest of the item's counters, for the item of 64-bit hash `hash`.
    ///
    /// Below [`counter_max`](Self::counter_max) it is an upper bound on the
    /// item's inserts minus its removes (other items may share every counter).
    /// Equal to it, every counter of the item is saturated and its count is
    /// unknown.
    #[inline]
    pub fn count_hash(&self, hash: u64) -> u32 {
        let mut positions = self.positions(hash);
        (0..self.num_hashes)
            .map(|_| self.counters.get(positions.next().unwrap_or_default()))
            .min()
            .unwrap_or(0) as u32
    }
}

impl<T: ?Sized, S: BuildHasher + Clone> CountingBloomFilter<T, S> {
    /// The classic filter of the non-zero counters: bit i set where counter i
    /// is non-zero, the same m, k, hasher, `len` and [`scheme`](Self::scheme).
    /// It answers every query exactly as this filter does (same positions,
    /// [`scheme().positions(hash, m).take(k)`](Scheme::positions)), in a
    /// quarter of the memory at 4 bits, but can no longer remove.
    ///
    /// ```
    /// use bloomlab_counting::CountingBloomFilter;
    ///
    /// let mut f = CountingBloomFilter::builder(1_000, 0.01).seed(3).build()?;
    /// f.insert("kept");
    /// f.insert("gone");
    /// f.remove("gone")?;
    /// let bloom = f.to_bloom();
    /// assert!(bloom.contains("kept") && !bloom.contains("gone"));
    /// assert_eq!(bloom.memory_bytes() * 4, f.memory_bytes());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Panics
    ///
    /// Never: a counting filter's m (at least 1), k (1 to 64) and bits (none
    /// past m) are always valid for a classic filter.
    pub fn to_bloom(&self) -> BloomFilter<T, S> {
        BloomFilter::from_words(
            self.counters.nonzero_bits(),
            self.counters.len(),
            self.num_hashes,
            self.len,
            self.hasher.clone(),
        )
        .expect("a counting filter's parameters are valid for a classic filter")
        .with_scheme(self.scheme)
    }
}

impl<T: ?Sized, S: BuildHasher> CountingBloomFilter<T, S> {
    /// Adds `item` (see [`insert_hash`](Self::insert_hash)); `Ok(true)` if it
    /// was not reported present before.
    ///
    /// # Errors
    ///
    /// Never: a saturated counter stays put. The `Result` is the one
    /// signature every bloomlab filter's `insert` has (see
    /// [`Membership`](bloomlab_core::Membership)).
    #[inline]
    pub fn insert(&mut self, item: &T) -> Result<bool, InsertError>
    where
        T: Hash,
    {
        by_hash::insert(self, item)
    }

    /// `false`: `item` is definitely absent; `true`: probably present.
    #[inline]
    pub fn contains<Q: ?Sized + Hash>(&self, item: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        by_hash::contains(self, item)
    }

    /// Looks up every item of `items`; the answers, in order, are those of
    /// [`contains`](Self::contains).
    ///
    /// Pipelined for tables larger than the cache ([`batch`](bloomlab_core::batch)): a chunk of
    /// items is hashed first, then each item's `k` counter words are prefetched a few
    /// items ([`ahead`](batch::ahead)) before it is probed, so that many
    /// memory loads are in flight at once. For a table of at most
    /// [`PREFETCH_MIN_BYTES`](batch::PREFETCH_MIN_BYTES), which sits in
    /// cache, the items are probed without prefetching.
    ///
    /// ```
    /// use bloomlab_counting::CountingBloomFilter;
    ///
    /// let mut f = CountingBloomFilter::builder(1_000, 0.01).seed(1).build()?;
    /// assert_eq!(f.insert_batch(&[1, 2, 1]), Ok(2));
    /// f.remove(&2)?;
    /// assert_eq!(f.contains_batch(&[1, 2]), [true, false]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contains_batch<Q: Hash>(&self, items: &[Q]) -> Vec<bool>
    where
        T: Borrow<Q>,
    {
        by_hash::contains_batch(self, items)
    }

    /// Adds every item of `items` in order, as [`insert`](Self::insert)
    /// would, and returns how many were new (not reported present before);
    /// pipelined like [`contains_batch`](Self::contains_batch).
    ///
    /// # Errors
    ///
    /// Never, as [`insert`](Self::insert).
    pub fn insert_batch(&mut self, items: &[T]) -> Result<usize, InsertBatchError>
    where
        T: Hash + Sized,
    {
        by_hash::insert_batch(self, items)
    }

    /// Removes one occurrence of `item` (see [`remove_hash`](Self::remove_hash)).
    ///
    /// Remove only items you inserted. An item never inserted is refused
    /// only when the filter can prove it absent; one that passes as a false
    /// positive (about [`expected_fpr`](Self::expected_fpr) of them) is
    /// "removed" with `Ok(())`, which decrements counters that inserted
    /// items rely on, and some of those are then reported absent. A guard
    /// that deletes on a user's request should check its store first and
    /// remove from the filter only what the store held.
    ///
    /// # Errors
    ///
    /// [`RemoveError::NotPresent`], with nothing changed, if the filter proves
    /// `item` absent.
    #[inline]
    pub fn remove<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<(), RemoveError>
    where
        T: Borrow<Q>,
    {
        by_hash::remove(self, item)
    }

    /// An upper bound on how many times `item` was inserted minus removed
    /// (see [`count_hash`](Self::count_hash)); 0 means absent.
    #[inline]
    pub fn count<Q: ?Sized + Hash>(&self, item: &Q) -> u32
    where
        T: Borrow<Q>,
    {
        self.count_hash(by_hash::hash(self, item))
    }

    /// Adds `other`'s counters to these, each sum saturating at
    /// [`counter_max`](Self::counter_max), and its `len` to this `len`: the
    /// filter then holds both multisets.
    ///
    /// # Errors
    ///
    /// A [`MergeError`], with this filter unchanged, if the filters differ in
    /// counters, hashes, counter width or position [`scheme`](Self::scheme),
    /// or hash items differently (checked by comparing the hashes of a few
    /// fixed probes).
    pub fn union(&mut self, other: &Self) -> Result<(), MergeError> {
        agree(self.counters.len(), other.counters.len(), |ours, theirs| {
            MergeError::NumCounters { ours, theirs }
        })?;
        agree(self.num_hashes, other.num_hashes, |ours, theirs| {
            MergeError::NumHashes { ours, theirs }
        })?;
        agree(
            self.counters.width(),
            other.counters.width(),
            |ours, theirs| MergeError::CounterWidth { ours, theirs },
        )?;
        agree(self.scheme, other.scheme, |ours, theirs| {
            MergeError::Scheme { ours, theirs }
        })?;
        if !same_hashing(&self.hasher, &other.hasher) {
            return Err(MergeError::Hasher);
        }
        self.counters.saturating_add(&other.counters);
        self.len = self.len.saturating_add(other.len);
        Ok(())
    }
}

/// `Ok` where this filter's value of a parameter, `ours`, is `theirs`;
/// else the error `differ` makes of the two.
fn agree<V: PartialEq>(
    ours: V,
    theirs: V,
    differ: impl FnOnce(V, V) -> MergeError,
) -> Result<(), MergeError> {
    if ours == theirs {
        Ok(())
    } else {
        Err(differ(ours, theirs))
    }
}

/// Whether two hashers agree on a few fixed probes: always for equal keys,
/// with probability about 2^-256 for two different random keys.
fn same_hashing<S: BuildHasher>(a: &S, b: &S) -> bool {
    const PROBES: [u64; 4] = [0, 1, 0x9e37_79b9_7f4a_7c15, u64::MAX];
    PROBES.iter().all(|p| a.hash_one(p) == b.hash_one(p))
}

impl<T: ?Sized, S> fmt::Debug for CountingBloomFilter<T, S> {
    // The counters are too many to print, and the hash key is a secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CountingBloomFilter")
            .field("num_counters", &self.counters.len())
            .field("num_hashes", &self.num_hashes)
            .field("counter_width", &self.counters.width())
            .field("len", &self.len)
            .field("scheme", &self.scheme)
            .field("saturated_counters", &self.counters.saturated())
            .finish_non_exhaustive()
    }
}

impl<T: ?Sized, S: BuildHasher> CountingBloomFilter<T, S> {
    /// Cache lines a lookup reads (`HashMembership::lookup_lines`).
    pub(crate) fn lookup_cache_lines(&self) -> usize {
        self.num_hashes as usize
    }

    /// Starts loading the words of the item's `k` counters.
    #[inline]
    pub(crate) fn prefetch_hash(&self, hash: u64) {
        self.scheme
            .for_each(hash, self.counters.len(), self.num_hashes, |pos| {
                batch::prefetch(self.counters.word_of(pos));
            });
    }
}

bloomlab_core::impl_filter!(Filter, HashMembership, HashDeletable, Extend, Persist
    for CountingBloomFilter<T, S> where S: BuildHasher);

impl<T: ?Sized, S: BuildHasher + Clone> CountingBloomFilter<T, S> {
    /// An empty filter that can merge with `other`: the same counters,
    /// width, hash count, hasher and [`scheme`](Self::scheme) (so the
    /// empty companion of a filter read from a version-1 file keeps its
    /// positions). Filters made with
    /// [`new`](CountingBloomFilter::new) each draw a random key and cannot
    /// merge; make the second from the first.
    ///
    /// ```
    /// use bloomlab_counting::CountingBloomFilter;
    ///
    /// let mut mon = CountingBloomFilter::new(1_000, 0.01)?;
    /// let mut tue = CountingBloomFilter::compatible_with(&mon)?;
    /// mon.insert("ann");
    /// tue.insert("ann");
    /// let mut week = (&mon | &tue)?;
    /// assert_eq!(week.count("ann"), 2);
    /// week.remove("ann")?;
    /// assert!(week.contains("ann"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`BuildError::OutOfMemory`] if the allocator refuses the table.
    pub fn compatible_with(other: &Self) -> Result<Self, BuildError> {
        let counters = Counters::zeroed(
            other.counters.len(),
            other.counters.width(),
            other.counters.words().len(),
        )?;
        Ok(Self::from_parts(
            counters,
            other.num_hashes,
            0,
            other.hasher.clone(),
            other.scheme,
        ))
    }
}

bloomlab_core::impl_filter!(BitOr<MergeError> for CountingBloomFilter<T, S> where S: BuildHasher + Clone);

#[cfg(test)]
mod tests {
    use super::*;

    fn small(seed: u64) -> CountingBloomFilter<u64> {
        CountingBloomFilter::builder_with_counters(64, 3)
            .seed(seed)
            .build()
            .unwrap()
    }

    #[test]
    fn insert_answers_and_len() {
        let mut f = small(1);
        assert_eq!(f.insert(&1u64), Ok(true));
        assert_eq!(f.insert(&1u64), Ok(false), "a member is reported present");
        assert_eq!(f.len(), 2);
        assert_eq!(f.count(&1u64), 2);
        f.remove(&1u64).unwrap();
        assert!(f.contains(&1u64), "inserted twice, removed once");
        f.remove(&1u64).unwrap();
        assert!(!f.contains(&1u64));
        assert_eq!(f.len(), 0);
        assert_eq!(f.insert(&1u64), Ok(true), "absent again after its removes");
    }

    #[test]
    fn repeated_positions_are_counted_per_position() {
        // With 2 counters and k = 8 every item hits each counter several times;
        // removing must undo exactly what inserting did.
        let mut f = CountingBloomFilter::builder_with_counters(2, 8)
            .counter_width(16)
            .seed(3)
            .build()
            .unwrap();
        f.insert(&"x").unwrap();
        let after_insert = f.as_words().to_vec();
        f.insert(&"y").unwrap();
        f.remove(&"y").unwrap();
        assert_eq!(f.as_words(), &after_insert[..]);
        f.remove(&"x").unwrap();
        assert!(f.as_words().iter().all(|&w| w == 0));
        // An item that needs more decrements from a counter than it holds is
        // provably absent, though every counter is non-zero.
        let on_first = |h: u64| {
            Scheme::CURRENT
                .positions(h, 2)
                .take(8)
                .filter(|&p| p == 0)
                .count()
        };
        let base = (0..1_000u64)
            .filter(|&h| on_first(h) > 0)
            .min_by_key(|&h| on_first(h))
            .unwrap();
        f.insert_hash(base);
        let before = f.as_words().to_vec();
        let hash = (0..1_000u64)
            .find(|&h| on_first(h) > on_first(base))
            .expect("some hash puts more of its positions on counter 0");
        assert!(f.contains_hash(hash));
        assert_eq!(f.remove_hash(hash), Err(RemoveError::NotPresent));
        assert_eq!(
            f.as_words(),
            &before[..],
            "a refused remove changes nothing"
        );
        assert_eq!(f.len(), 1);
    }

    #[test]
    fn merge_mismatches_are_typed() {
        let mut a = small(1);
        a.insert(&5u64).unwrap();
        let before = a.as_words().to_vec();
        let other_key = small(2);
        assert_eq!(a.union(&other_key), Err(MergeError::Hasher));
        let bigger = CountingBloomFilter::builder_with_counters(128, 3)
            .seed(1)
            .build()
            .unwrap();
        assert!(matches!(
            a.union(&bigger),
            Err(MergeError::NumCounters { .. })
        ));
        let more = CountingBloomFilter::builder_with_counters(64, 4)
            .seed(1)
            .build()
            .unwrap();
        assert!(matches!(a.union(&more), Err(MergeError::NumHashes { .. })));
        let wider = CountingBloomFilter::builder_with_counters(64, 3)
            .counter_width(8)
            .seed(1)
            .build()
            .unwrap();
        assert_eq!(
            a.union(&wider),
            Err(MergeError::CounterWidth { ours: 4, theirs: 8 })
        );
        assert_eq!(a.as_words(), &before[..]);
        assert_eq!(a.len(), 1);
    }

    #[test]
    fn debug_hides_counters_and_key() {
        let f = small(1);
        let shown = format!("{f:?}");
        assert!(shown.contains("num_counters: 64"), "{shown}");
        assert!(!shown.contains("hasher"), "{shown}");
    }
}
