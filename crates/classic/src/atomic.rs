//! [`AtomicBloomFilter`]: the classic filter, shared between threads without a lock.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};

use bloomlab_core::alloc::Buffer;
use bloomlab_core::by_hash;
use bloomlab_core::hash::Scheme;
use bloomlab_core::{DecodeError, DefaultHasher, InsertBatchError, InsertError};

use crate::bits::BloomFilter;
use crate::builder::{AtomicBuilder, Builder};
use crate::codec::ATOMIC_TAG;
use crate::error::BuildError;
use crate::stripes::Striped;
use crate::table::{OnTable, Table, Word, locate};

// Every access uses `Ordering::Relaxed`, and that is enough:
// - a bit only ever goes from 0 to 1 (until `clear`, which takes `&mut self`),
//   and `fetch_or` is one atomic read-modify-write, so two threads setting
//   bits in the same word can never lose each other's bits, whatever the
//   ordering;
// - a filter promises nothing about an insert that is still running: a
//   lookup racing with it may see some of its bits and not others, and
//   either answer is right for an item not yet (fully) inserted;
// - once an insert has returned, whatever made the caller's later lookup
//   come after it (a join, a channel, a lock, an Acquire load) is itself a
//   happens-before edge, and that carries the Relaxed stores with it.
// No bit is ever used to publish other data, which is what would need
// Release/Acquire.
const ORDER: Ordering = Ordering::Relaxed;

impl Word for AtomicU64 {
    #[inline]
    fn bits(&self) -> u64 {
        self.load(ORDER)
    }
}

/// A [`BloomFilter`] whose inserts take `&self`: any number of threads can
/// insert and look up at once, without a lock (`Send + Sync`).
///
/// It has the same bit layout and positions as [`BloomFilter`], so
/// converting either way ([`From`], [`into_bloom`](Self::into_bloom),
/// [`to_bloom`](Self::to_bloom)) keeps every answer.
///
/// ```
/// use bloomlab_classic::AtomicBloomFilter;
///
/// let f = AtomicBloomFilter::builder(20_000, 0.01).seed(3).build().unwrap();
/// std::thread::scope(|s| {
///     for t in 0..2u64 {
///         let f = &f;
///         s.spawn(move || {
///             for i in 0..10_000 {
///                 f.insert(&(t, i));
///             }
///         });
///     }
/// });
/// assert_eq!(f.len(), 20_000);
/// assert!((0..2u64).all(|t| (0..10_000).all(|i| f.contains(&(t, i)))));
/// ```
pub struct AtomicBloomFilter<T: ?Sized, S = DefaultHasher> {
    pub(crate) table: Table<AtomicU64>,
    /// Inserts, counted per thread ([`Striped`]): no cache line is written
    /// by every insert of every thread.
    len: Striped,
    hasher: S,
    /// The item type: only what it hashes to is stored.
    item: PhantomData<fn(&T)>,
}

impl<T: ?Sized> AtomicBloomFilter<T, DefaultHasher> {
    /// A filter for `expected_items` at rate `fpr` with a random hash key,
    /// sized as [`BloomFilter::new`].
    ///
    /// # Errors
    ///
    /// As [`Builder::build`].
    pub fn new(expected_items: usize, fpr: f64) -> Result<Self, BuildError> {
        Self::builder(expected_items, fpr).build()
    }

    /// A filter of exactly `num_bits` bits and `num_hashes` hashes, with a
    /// random hash key.
    ///
    /// # Errors
    ///
    /// As [`Builder::build`].
    pub fn with_bits(num_bits: u64, num_hashes: u32) -> Result<Self, BuildError> {
        Self::builder_with_bits(num_bits, num_hashes).build()
    }

    /// A builder sized for `expected_items` at rate `fpr`. Its options
    /// ([`AtomicBuilder`]): [`seed`](AtomicBuilder::seed),
    /// [`hasher`](AtomicBuilder::hasher),
    /// [`smallest_table`](AtomicBuilder::smallest_table) and
    /// [`max_bytes`](AtomicBuilder::max_bytes); then
    /// [`build`](AtomicBuilder::build).
    pub fn builder(expected_items: usize, fpr: f64) -> AtomicBuilder<T, DefaultHasher> {
        AtomicBuilder::new(Builder::items(expected_items, fpr))
    }

    /// A builder of exactly `num_bits` bits and `num_hashes` hashes.
    pub fn builder_with_bits(num_bits: u64, num_hashes: u32) -> AtomicBuilder<T, DefaultHasher> {
        AtomicBuilder::new(Builder::bits(num_bits, num_hashes))
    }

    /// The filter in the binary format of [`bloomlab_core::codec`] (see
    /// [`crate::codec`]). Inserts that run while it is written may or may
    /// not be included, and `len` may disagree with them by as many.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.table.encode(ATOMIC_TAG, &self.hasher, self.len())
    }

    /// Reads a filter written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] for any bad input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let (table, len, hasher) = Table::decode(bytes, ATOMIC_TAG)?;
        let table = table.map(Buffer::into_atomic);
        Ok(Self::from_table(table, len, hasher))
    }
}

impl<T: ?Sized, S> From<BloomFilter<T, S>> for AtomicBloomFilter<T, S>
where
    S: BuildHasher,
{
    fn from(filter: BloomFilter<T, S>) -> Self {
        let (table, len, hasher) = filter.into_parts();
        Self::from_table(table.map(Buffer::into_atomic), len, hasher)
    }
}

impl<T: ?Sized, S> AtomicBloomFilter<T, S> {
    /// The filter of a table whose shape is checked.
    pub(crate) fn from_table(table: Table<AtomicU64>, len: usize, hasher: S) -> Self {
        Self {
            table,
            len: Striped::new(len),
            hasher,
            item: PhantomData,
        }
    }
}

impl<T: ?Sized, S: BuildHasher> AtomicBloomFilter<T, S> {
    /// `m`, the bits in the table.
    pub fn num_bits(&self) -> u64 {
        self.table.num_bits
    }

    /// `k`, the positions set per item.
    pub fn num_hashes(&self) -> u32 {
        self.table.num_hashes
    }

    /// How the filter turns an item's hash into its `k` bit positions:
    /// [`Scheme::CURRENT`] for every filter built, [`Scheme::Modular`] for
    /// one read from a format-version-1 file.
    pub fn scheme(&self) -> Scheme {
        self.table.scheme
    }

    /// The hasher items go through.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Adds `item`; `true` if one of its bits was unset. Two threads adding
    /// the same new item at once may both get `true`.
    pub fn insert(&self, item: &T) -> Result<bool, InsertError>
    where
        T: Hash,
    {
        Ok(self.insert_hash(by_hash::hash(self, item)))
    }

    /// `false`: `item` was never inserted (or its insert has not returned).
    pub fn contains<Q: ?Sized + Hash>(&self, item: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        by_hash::contains(self, item)
    }

    /// Looks up every item of `items`; the answers, in order, are those of
    /// [`contains`](Self::contains). Pipelined like
    /// [`BloomFilter::contains_batch`](crate::BloomFilter::contains_batch).
    pub fn contains_batch<Q: Hash>(&self, items: &[Q]) -> Vec<bool>
    where
        T: Borrow<Q>,
    {
        by_hash::contains_batch(self, items)
    }

    /// Adds every item of `items` in order, as [`insert`](Self::insert)
    /// would, and returns how many were new; pipelined like
    /// [`contains_batch`](Self::contains_batch). Through `&self`: the body
    /// of every filter's batch insert
    /// ([`by_hash::insert_batch_by`](bloomlab_core::by_hash::insert_batch_by)),
    /// handed this filter by shared reference.
    pub fn insert_batch(&self, items: &[T]) -> Result<usize, InsertBatchError>
    where
        T: Hash + Sized,
    {
        by_hash::insert_batch_by(self, items, |f, hash| Ok(f.insert_hash(hash)))
    }

    /// Adds the item whose hash is `hash`; `true` if one of its bits was unset.
    ///
    /// Every word is asked for first (prefetched), so that their cache
    /// misses overlap: an atomic read-modify-write waits for its line
    /// before any later access may start. A bit found set is then left
    /// alone: only a word that changes is written, so words that all
    /// threads' items share stay in every core's cache.
    #[inline]
    pub fn insert_hash(&self, hash: u64) -> bool {
        let words = &self.table.words[..];
        self.table.prefetch(hash);
        let mut new = false;
        self.table.for_each_position(hash, |bit| {
            let (i, mask) = locate(bit);
            let word = &words[i];
            if word.load(ORDER) & mask == 0 {
                new |= word.fetch_or(mask, ORDER) & mask == 0;
            }
        });
        self.len.add_one();
        new
    }

    /// Whether every bit of the item whose hash is `hash` is set.
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.table.contains_hash(hash)
    }

    /// Inserts made, repeats included. (It wraps after `usize::MAX`
    /// inserts, where [`BloomFilter`] saturates.)
    ///
    /// Exact once the inserting threads are done; while they run, a value
    /// the count passes through. Each thread counts its inserts apart
    /// (about 128 bytes a thread the machine runs at once, outside
    /// [`memory_bytes`](Self::memory_bytes)), and this sums them.
    pub fn len(&self) -> usize {
        self.len.get()
    }

    /// Whether nothing was inserted since the filter was built or cleared.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Unsets every bit. Takes `&mut self`: no insert can run meanwhile.
    pub fn clear(&mut self) {
        for w in &mut self.table.words {
            *w.get_mut() = 0;
        }
        self.len.set(0);
    }

    /// Bits set.
    pub fn count_ones(&self) -> u64 {
        self.table.count_ones()
    }

    /// The fraction of bits set.
    pub fn fill_ratio(&self) -> f64 {
        self.table.fill_ratio()
    }

    /// As [`BloomFilter::estimate_count`].
    pub fn estimate_count(&self) -> f64 {
        self.table.estimate_count()
    }

    /// [`classic::fpr`](bloomlab_core::theory::classic::fpr)`(m, len, k)`,
    /// as [`BloomFilter::expected_fpr`].
    pub fn expected_fpr(&self) -> f64 {
        self.table.expected_fpr(self.len())
    }

    /// As [`BloomFilter::estimated_fpr`].
    pub fn estimated_fpr(&self) -> f64 {
        self.table.estimated_fpr()
    }

    /// Bytes of the table.
    pub fn memory_bytes(&self) -> usize {
        self.table.memory_bytes()
    }

    /// The plain filter with the same bits, hasher and count.
    pub fn into_bloom(self) -> BloomFilter<T, S> {
        let table = self.table.map(Buffer::into_plain);
        BloomFilter::from_table(table, self.len.get(), self.hasher)
    }

    /// A plain copy of the filter as it stands (see
    /// [`to_bytes`](AtomicBloomFilter::to_bytes) on inserts running meanwhile).
    pub fn to_bloom(&self) -> BloomFilter<T, S>
    where
        S: Clone,
    {
        BloomFilter::from_table(self.table.snapshot(), self.len(), self.hasher.clone())
    }
}

impl<T: ?Sized, S: BuildHasher + Clone> Clone for AtomicBloomFilter<T, S> {
    fn clone(&self) -> Self {
        Self::from(self.to_bloom())
    }
}

impl<T: ?Sized, S> fmt::Debug for AtomicBloomFilter<T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.table.debug(f, "AtomicBloomFilter", self.len.get())
    }
}

impl<T: ?Sized, S> OnTable for AtomicBloomFilter<T, S> {
    type Word = AtomicU64;

    fn bit_table(&self) -> &Table<AtomicU64> {
        &self.table
    }
}

bloomlab_core::impl_filter!(Filter, HashMembership, Extend, Persist
    for AtomicBloomFilter<T, S> where S: BuildHasher);

impl<T: ?Sized, S: BuildHasher + Clone> AtomicBloomFilter<T, S> {
    /// An empty filter with the size, hash count and hasher of `other`,
    /// whose [`to_bloom`](Self::to_bloom) copies merge with `other`'s.
    ///
    /// # Errors
    ///
    /// [`BuildError::OutOfMemory`] if the allocator refuses the table.
    pub fn compatible_with(other: &Self) -> Result<Self, BuildError> {
        let table = other.table.zeroed_like()?;
        Ok(Self::from_table(table, 0, other.hasher.clone()))
    }
}

/// Equal when the tables, sizes, counts and hashers are; each table word is
/// read once, so under concurrent inserts the answer is that of some moment
/// during the comparison.
impl<T: ?Sized, S: PartialEq> PartialEq for AtomicBloomFilter<T, S> {
    fn eq(&self, other: &Self) -> bool {
        self.hasher == other.hasher
            && self.len.get() == other.len.get()
            && self.table == other.table
    }
}

/// The plain filter with the same bits: [`into_bloom`](AtomicBloomFilter::into_bloom).
impl<T: ?Sized, S: BuildHasher> From<AtomicBloomFilter<T, S>> for BloomFilter<T, S> {
    fn from(filter: AtomicBloomFilter<T, S>) -> Self {
        filter.into_bloom()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn is_send_and_sync() {
        assert_send_sync::<AtomicBloomFilter<u64>>();
        assert_send_sync::<AtomicBloomFilter<std::hash::RandomState>>();
    }

    #[test]
    fn same_bits_as_the_plain_filter() {
        let mut plain = BloomFilter::builder_with_bits(1_000, 5)
            .seed(2)
            .build()
            .unwrap();
        let atomic = AtomicBloomFilter::builder_with_bits(1_000, 5)
            .seed(2)
            .build()
            .unwrap();
        for i in 0..100u32 {
            assert_eq!(plain.insert(&i), atomic.insert(&i));
        }
        assert_eq!(atomic.into_bloom(), plain);
    }
}
