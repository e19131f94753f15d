//! [`BloomFilter`]: the classic Bloom filter over one bit array.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;

use bloomlab_core::by_hash;
use bloomlab_core::hash::Scheme;
use bloomlab_core::{DecodeError, DefaultHasher, InsertBatchError, InsertError};
#[cfg(doc)]
use bloomlab_core::{batch, theory::classic};

use crate::builder::Builder;
use crate::codec::CLASSIC_TAG;
use crate::error::{BuildError, MergeError};
use crate::table::{OnTable, Table};

/// The classic Bloom filter: `m` bits, `k` hash positions per item.
///
/// Positions come from one 64-bit hash per item by enhanced double hashing
/// ([`FixedPositions`](bloomlab_core::hash::FixedPositions), or for a filter
/// read from a format-version-1 file [`Positions`](bloomlab_core::hash::Positions):
/// see [`scheme`](Self::scheme)), so a table may hold far more than 2^32
/// bits. An item is reported present when all its `k` bits
/// are set, which never misses an inserted item and errs the other way at
/// the rate
/// [`classic::fpr`](bloomlab_core::theory::classic::fpr)`(m, n, k) = (1 − e^{−kn/m})^k`.
///
/// ```
/// use bloomlab_classic::BloomFilter;
///
/// // A filter of `str` items; `insert` returns the `Result` every filter's
/// // insert returns (a classic filter never refuses an item).
/// let mut f: BloomFilter<str> = BloomFilter::builder(100, 0.01).seed(1).build()?;
/// assert_eq!(f.insert("apple"), Ok(true));
/// assert_eq!(f.insert("apple"), Ok(false)); // already present
/// assert!(f.contains("apple"));
/// assert_eq!(f.len(), 2); // every insert counts, as for `Filter::len`
///
/// // The item type is part of the filter, as in a `HashSet<T>`: a `u64`
/// // filter infers `42` as a `u64`, and finds it.
/// let mut ids = BloomFilter::new(1_000, 0.01)?;
/// ids.insert(&42u64)?;
/// assert!(ids.contains(&42));
/// // A `String` filter answers a `&str` without allocating.
/// let mut emails: BloomFilter<String> = BloomFilter::new(1_000, 0.01)?;
/// emails.insert(&"ann@example.com".to_owned())?;
/// assert!(emails.contains("ann@example.com"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Another item type does not compile, where an untyped filter would hash
/// the literal as an `i32` and silently answer "absent":
///
/// ```compile_fail
/// use bloomlab_classic::BloomFilter;
///
/// let mut ids = BloomFilter::new(1_000, 0.01).unwrap();
/// ids.insert(&42u64).unwrap();
/// ids.contains(&42i32); // error: u64 does not borrow as i32
/// ```
///
/// Nor does using a filter before the `Result` of its constructor is
/// handled:
///
/// ```compile_fail
/// use bloomlab_classic::BloomFilter;
///
/// let mut ids = BloomFilter::new(1_000, 0.01);
/// ids.insert(&42u64); // error: no method `insert` on `Result<BloomFilter<_>, BuildError>`
/// ```
///
/// Nor ignoring the `Result` of an insert, in a crate that denies
/// warnings (`#[must_use]`):
///
/// ```compile_fail
/// #![deny(unused_must_use)]
/// use bloomlab_classic::BloomFilter;
///
/// let mut ids = BloomFilter::new(1_000, 0.01).unwrap();
/// ids.insert(&42u64);
/// ```
pub struct BloomFilter<T: ?Sized, S = DefaultHasher> {
    pub(crate) table: Table<u64>,
    len: usize,
    hasher: S,
    /// The item type: only what it hashes to is stored.
    item: PhantomData<fn(&T)>,
}

impl<T: ?Sized, S: Clone> Clone for BloomFilter<T, S> {
    fn clone(&self) -> Self {
        Self::from_table(self.table.clone(), self.len, self.hasher.clone())
    }
}

impl<T: ?Sized, S: PartialEq> PartialEq for BloomFilter<T, S> {
    fn eq(&self, other: &Self) -> bool {
        self.table == other.table && self.len == other.len && self.hasher == other.hasher
    }
}

impl<T: ?Sized, S: Eq> Eq for BloomFilter<T, S> {}

impl<T: ?Sized> BloomFilter<T, DefaultHasher> {
    /// A filter for `expected_items` items at false-positive rate `fpr`, with
    /// a random hash key: the fewest hashes whose table is at most 1/32
    /// larger than the smallest that reaches `fpr` ([`classic::size_for`](bloomlab_core::theory::classic::size_for);
    /// at 1%, 5 hashes and 9.85 bits an item). The builder's
    /// [`smallest_table`](crate::Builder::smallest_table) asks for the
    /// smallest table instead.
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

    /// A builder sized for `expected_items` items at rate `fpr`. Its
    /// options ([`Builder`]): [`seed`](Builder::seed) for a fixed hash key
    /// (reproducible tables), [`hasher`](Builder::hasher),
    /// [`smallest_table`](Builder::smallest_table) for the fewest bits at
    /// the cost of more hashes, and [`max_bytes`](Builder::max_bytes);
    /// then [`build`](Builder::build).
    ///
    /// ```
    /// use bloomlab_classic::BloomFilter;
    ///
    /// let f = BloomFilter::<u64>::builder(10_000, 0.01).seed(7).smallest_table().build()?;
    /// assert_eq!(f.num_hashes(), 7);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn builder(expected_items: usize, fpr: f64) -> Builder<T, DefaultHasher> {
        Builder::items(expected_items, fpr)
    }

    /// A builder of exactly `num_bits` bits and `num_hashes` hashes.
    pub fn builder_with_bits(num_bits: u64, num_hashes: u32) -> Builder<T, DefaultHasher> {
        Builder::bits(num_bits, num_hashes)
    }

    /// The filter in the binary format of [`bloomlab_core::codec`], hash key
    /// included (see [`crate::codec`] for the fields).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.table.encode(CLASSIC_TAG, &self.hasher, self.len)
    }

    /// Reads a filter written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] for any bad input; parameters that do not fit the
    /// payload are [`DecodeError::InvalidParameters`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let (table, len, hasher) = Table::decode(bytes, CLASSIC_TAG)?;
        Ok(Self::from_table(table, len, hasher))
    }
}

impl<T: ?Sized, S> BloomFilter<T, S> {
    /// The filter of a checked table.
    pub(crate) fn from_table(table: Table<u64>, len: usize, hasher: S) -> Self {
        Self {
            table,
            len,
            hasher,
            item: PhantomData,
        }
    }

    /// Takes the filter apart: table, len, hasher.
    pub(crate) fn into_parts(self) -> (Table<u64>, usize, S) {
        (self.table, self.len, self.hasher)
    }
}

impl<T: ?Sized, S: BuildHasher> BloomFilter<T, S> {
    /// Rebuilds a filter from raw parts: the words (bit i in `words[i / 64]`
    /// at `1 << (i % 64)`), the sizes, the count of inserts, and the hasher.
    ///
    /// # Errors
    ///
    /// [`BuildError::Param`] for zero bits, zero hashes or more than
    /// [`MAX_HASHES`](classic::MAX_HASHES); [`Invalid::WordCount`](crate::Invalid::WordCount) unless there are exactly
    /// `ceil(num_bits / 64)` words; [`Invalid::BitsBeyondEnd`](crate::Invalid::BitsBeyondEnd) if a bit
    /// at or past `num_bits` is set.
    pub fn from_words(
        words: Vec<u64>,
        num_bits: u64,
        num_hashes: u32,
        len: usize,
        hasher: S,
    ) -> Result<Self, BuildError> {
        let table = Table::new(
            bloomlab_core::alloc::buffer_from(&words)?,
            num_bits,
            num_hashes,
        )?;
        Ok(Self::from_table(table, len, hasher))
    }

    /// `m`, the bits in the table, exactly as sized.
    pub fn num_bits(&self) -> u64 {
        self.table.num_bits
    }

    /// `k`, the positions set per item.
    pub fn num_hashes(&self) -> u32 {
        self.table.num_hashes
    }

    /// The hasher items go through.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// How the filter turns an item's hash into its `k` bit positions:
    /// [`Scheme::CURRENT`] for every filter built, [`Scheme::Modular`] for
    /// one read from a format-version-1 file.
    pub fn scheme(&self) -> Scheme {
        self.table.scheme
    }

    /// The filter with its bits read as placed by `scheme`: for raw parts
    /// ([`from_words`](Self::from_words), which assumes
    /// [`Scheme::CURRENT`]) taken from a filter whose
    /// [`scheme`](Self::scheme) is another.
    ///
    /// ```
    /// use bloomlab_classic::BloomFilter;
    /// use bloomlab_core::hash::Scheme;
    ///
    /// let mut old = BloomFilter::<str>::new(100, 0.01).unwrap().with_scheme(Scheme::Modular);
    /// old.insert("kept");
    /// let (words, bits, k) = (old.as_words().to_vec(), old.num_bits(), old.num_hashes());
    /// let back = BloomFilter::<str>::from_words(words, bits, k, old.len(), old.hasher().clone())
    ///     .unwrap()
    ///     .with_scheme(old.scheme());
    /// assert!(back.contains("kept"));
    /// ```
    #[must_use]
    pub fn with_scheme(mut self, scheme: Scheme) -> Self {
        self.table.scheme = scheme;
        self
    }

    /// The words of the table: bit i in `words[i / 64]` at `1 << (i % 64)`.
    pub fn as_words(&self) -> &[u64] {
        &self.table.words
    }

    /// Adds `item`; `true` if it was not reported present before.
    ///
    /// `item` is a `&T`: a `BloomFilter<String>` takes a `&String`, so a
    /// string literal does not compile there. Insert `&"abc".to_owned()`, or
    /// build a `BloomFilter<str>`, which takes `"abc"` as it is. Lookups take
    /// any borrowed form of `T`, so `contains("abc")` works on both.
    ///
    /// ```compile_fail
    /// # use bloomlab_classic::BloomFilter;
    /// let mut names: BloomFilter<String> = BloomFilter::new(100, 0.01).unwrap();
    /// names.insert("abc"); // expected `&String`, found `&str`
    /// ```
    ///
    /// ```
    /// # use bloomlab_classic::BloomFilter;
    /// let mut names: BloomFilter<String> = BloomFilter::new(100, 0.01)?;
    /// names.insert(&"abc".to_owned())?;
    /// assert!(names.contains("abc"));
    ///
    /// let mut words: BloomFilter<str> = BloomFilter::new(100, 0.01)?;
    /// words.insert("abc")?;
    /// assert!(words.contains("abc"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn insert(&mut self, item: &T) -> Result<bool, InsertError>
    where
        T: Hash,
    {
        by_hash::insert(self, item)
    }

    /// `false`: `item` was never inserted. `true`: it probably was.
    pub fn contains<Q: ?Sized + Hash>(&self, item: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        by_hash::contains(self, item)
    }

    /// Adds the item whose hash (by [`hasher`](Self::hasher)) is `hash`;
    /// `true` if one of its bits was unset.
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        self.len = self.len.saturating_add(1);
        self.table.insert_hash(hash)
    }

    /// Whether every bit of the item whose hash is `hash` is set.
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.table.contains_hash(hash)
    }

    /// Looks up every item of `items`; the answers, in order, are those of
    /// [`contains`](Self::contains).
    ///
    /// Pipelined for tables larger than the cache ([`batch`](bloomlab_core::batch)): a chunk of
    /// items is hashed first, then each item's `k` words are prefetched a few
    /// items ([`ahead`](batch::ahead)) before it is probed, so that many
    /// memory loads are in flight at once. For a table of at most
    /// [`PREFETCH_MIN_BYTES`](batch::PREFETCH_MIN_BYTES), which sits in
    /// cache, the items are probed without prefetching.
    ///
    /// ```
    /// use bloomlab_classic::BloomFilter;
    ///
    /// let mut f = BloomFilter::builder(1_000, 0.01).seed(1).build().unwrap();
    /// assert_eq!(f.insert_batch(&[1, 2, 1]), Ok(2));
    /// assert_eq!(f.contains_batch(&[1, 2]), [true, true]);
    /// ```
    pub fn contains_batch<Q: Hash>(&self, items: &[Q]) -> Vec<bool>
    where
        T: Borrow<Q>,
    {
        by_hash::contains_batch(self, items)
    }

    /// Inserts every item of `items` in order, as [`insert`](Self::insert)
    /// would, and returns how many were new; pipelined like
    /// [`contains_batch`](Self::contains_batch).
    pub fn insert_batch(&mut self, items: &[T]) -> Result<usize, InsertBatchError>
    where
        T: Hash + Sized,
    {
        by_hash::insert_batch(self, items)
    }

    /// Inserts made (every call to `insert`, including repeats and items
    /// already reported present), as
    /// [`Filter::len`](bloomlab_core::Filter::len) counts them.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was inserted since the filter was built or cleared.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Unsets every bit; keeps the size and the hasher.
    pub fn clear(&mut self) {
        self.table.words.fill(0);
        self.len = 0;
    }

    /// Bits set.
    pub fn count_ones(&self) -> u64 {
        self.table.count_ones()
    }

    /// The fraction of bits set.
    pub fn fill_ratio(&self) -> f64 {
        self.table.fill_ratio()
    }

    /// The number of distinct items the set bits suggest,
    /// [`classic::estimate_count`](bloomlab_core::theory::classic::estimate_count): `−(m/k) ln(1 − X/m)` for `X` bits set
    /// (Swamidass and Baldi 2007). Infinite when every bit is set.
    pub fn estimate_count(&self) -> f64 {
        self.table.estimate_count()
    }

    /// [`classic::fpr`](bloomlab_core::theory::classic::fpr)`(m, len, k)`: the rate theory predicts after
    /// [`len`](Self::len) distinct inserts.
    pub fn expected_fpr(&self) -> f64 {
        self.table.expected_fpr(self.len)
    }

    /// The rate of a probe against the table as it stands,
    /// [`classic::fpr_from_fill`](bloomlab_core::theory::classic::fpr_from_fill)`(fill, k)`: exact for independent uniform
    /// positions. Where [`expected_fpr`](Self::expected_fpr) averages over
    /// every way the items could have fallen, this is the rate of these
    /// items' table.
    pub fn estimated_fpr(&self) -> f64 {
        self.table.estimated_fpr()
    }

    /// Bytes of the table.
    pub fn memory_bytes(&self) -> usize {
        self.table.memory_bytes()
    }

    /// Makes this filter hold every item of `other` too: the bitwise OR.
    /// [`len`](Self::len) becomes the sum of both (items in both count twice,
    /// so [`expected_fpr`](Self::expected_fpr) errs high).
    ///
    /// The hashers are compared with `==`, which is why `S: PartialEq`: for
    /// [`DefaultHasher`] that compares the keys. Comparing the hashes of a
    /// few probe values would prove nothing, and a hasher without
    /// `PartialEq` (such as std's `RandomState`) cannot be merged.
    ///
    /// # Errors
    ///
    /// [`MergeError`] if `m`, `k` or the hasher differ; nothing changes then.
    pub fn union(&mut self, other: &Self) -> Result<(), MergeError>
    where
        S: PartialEq,
    {
        self.table
            .merge(&other.table, self.hasher == other.hasher, |a, b| *a |= b)?;
        self.len = self.len.saturating_add(other.len);
        Ok(())
    }

    /// Keeps only the bits set in both filters: the bitwise AND. Every item
    /// inserted into both is still reported present, and the rate is at most
    /// that of either filter. [`len`](Self::len) becomes the smaller of the
    /// two, an upper bound on the items held in common.
    ///
    /// # Errors
    ///
    /// As [`union`](Self::union).
    pub fn intersect(&mut self, other: &Self) -> Result<(), MergeError>
    where
        S: PartialEq,
    {
        self.table
            .merge(&other.table, self.hasher == other.hasher, |a, b| *a &= b)?;
        self.len = self.len.min(other.len);
        Ok(())
    }
}

impl<T: ?Sized, S> fmt::Debug for BloomFilter<T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.table.debug(f, "BloomFilter", self.len)
    }
}

impl<T: ?Sized, S> OnTable for BloomFilter<T, S> {
    type Word = u64;

    fn bit_table(&self) -> &Table<u64> {
        &self.table
    }
}

bloomlab_core::impl_filter!(Filter, HashMembership, Extend, Persist
    for BloomFilter<T, S> where S: BuildHasher);

impl<T: ?Sized, S: BuildHasher + Clone> BloomFilter<T, S> {
    /// An empty filter that can merge with `other`: the same size, hash
    /// count and hasher (for [`DefaultHasher`], the same key). Two filters
    /// made with [`new`](BloomFilter::new) each draw a random key and cannot
    /// merge; make the second from the first.
    ///
    /// ```
    /// use bloomlab_classic::BloomFilter;
    ///
    /// let mut east = BloomFilter::new(1_000, 0.01)?;
    /// let mut west = BloomFilter::compatible_with(&east)?;
    /// east.insert("paris");
    /// west.insert("lima");
    /// let both = (&east | &west)?;
    /// assert!(both.contains("paris") && both.contains("lima"));
    /// // A filter with its own key does not merge: an error, not a panic.
    /// assert!((&east | &BloomFilter::new(1_000, 0.01)?).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`BuildError::OutOfMemory`] if the allocator refuses the table.
    pub fn compatible_with(other: &Self) -> Result<Self, BuildError> {
        let table = other.table.zeroed_like()?;
        Ok(Self::from_table(table, 0, other.hasher.clone()))
    }
}

bloomlab_core::impl_filter!(BitOr<MergeError> for BloomFilter<T, S> where S: BuildHasher + Clone + PartialEq);

#[cfg(test)]
mod tests {
    use super::*;
    use bloomlab_core::{DefaultHasher, ParamError};

    #[test]
    fn bit_layout_follows_positions() {
        for scheme in [Scheme::Modular, Scheme::FixedPoint] {
            let mut f: BloomFilter<u64> = BloomFilter::with_bits(1_000, 3)
                .unwrap()
                .with_scheme(scheme);
            let hash = 0x0123_4567_89ab_cdef;
            f.insert_hash(hash);
            let want: Vec<u64> = scheme.positions(hash, 1_000).take(3).collect();
            let mut set = Vec::new();
            for (i, w) in f.as_words().iter().enumerate() {
                for b in 0..64 {
                    if w >> b & 1 == 1 {
                        set.push(i as u64 * 64 + b);
                    }
                }
            }
            let mut want_sorted = want.clone();
            want_sorted.sort_unstable();
            want_sorted.dedup();
            assert_eq!(set, want_sorted, "{scheme:?}");
            assert_eq!(f.count_ones(), want_sorted.len() as u64);
            assert!(f.contains_hash(hash));
        }
    }

    #[test]
    fn from_words_checks_its_parts() {
        let h = DefaultHasher::from_seed(1);
        assert!(BloomFilter::<u64>::from_words(vec![0; 2], 100, 3, 0, h.clone()).is_ok());
        assert_eq!(
            BloomFilter::<u64>::from_words(vec![0; 3], 100, 3, 0, h.clone()),
            Err(BuildError::Variant(crate::Invalid::WordCount {
                expected: 2,
                found: 3
            }))
        );
        assert_eq!(
            BloomFilter::<u64>::from_words(vec![0, 1 << 36], 100, 3, 0, h.clone()),
            Err(BuildError::Variant(crate::Invalid::BitsBeyondEnd))
        );
        assert!(BloomFilter::<u64>::from_words(vec![0, 1 << 35], 100, 3, 0, h.clone()).is_ok());
        assert_eq!(
            BloomFilter::<u64>::from_words(vec![], 0, 3, 0, h.clone()),
            Err(BuildError::Param(ParamError::ZeroBits))
        );
        assert_eq!(
            BloomFilter::<u64>::from_words(vec![0], 64, 0, 0, h.clone()),
            Err(BuildError::Param(ParamError::ZeroHashes))
        );
        assert_eq!(
            BloomFilter::<u64>::from_words(vec![0], 64, 65, 0, h.clone()),
            Err(BuildError::Param(ParamError::TooManyHashes(65)))
        );
    }

    #[test]
    fn debug_shows_sizes_not_bits() {
        let f: BloomFilter<u64> = BloomFilter::builder_with_bits(128, 2)
            .seed(3)
            .build()
            .unwrap();
        assert_eq!(
            format!("{f:?}"),
            "BloomFilter { num_bits: 128, num_hashes: 2, len: 0, .. }"
        );
    }
}
