//! The cuckoo filter itself.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;

use bloomlab_core::by_hash;
use bloomlab_core::codec::invalid;
use bloomlab_core::hash::mix64;
use bloomlab_core::theory::cuckoo as theory;
use bloomlab_core::{DecodeError, DefaultHasher, InsertBatchError, InsertError, RemoveError};
use smallvec::SmallVec;

use crate::builder::{Builder, MAX_BUCKETS, MAX_RELOCATIONS};
use crate::error::BuildError;
use crate::table::{AltMap, BUCKET_SIZES, FINGERPRINT_BITS, Layout, PHI, Table};

/// Moves of a cuckoo walk whose undo log stays on the stack; a longer walk
/// moves it to the heap. (Filling tables from empty, 98% of the walks
/// ended within 16 moves in 2^18 buckets of four 8-bit slots filled to
/// 90%, and 92% in `CuckooFilter::new(1_000_000, 0.01)` filled to its
/// 94%.)
const WALK_ON_STACK: usize = 16;

/// A cuckoo filter (Fan, Andersen, Kaminsky and Mitzenmacher, CoNEXT 2014)
/// that never loses an item when it fills.
///
/// Each item is hashed once to 64 bits. The lower 32 give its fingerprint,
/// uniform over `1 ..= 2^f − 1` (0 marks an empty slot); the upper 32 give
/// its first bucket `i1`, reduced onto the `m` buckets by multiply-shift; its
/// second is `i2 = (h(fp) − i1) mod m`, computed from the fingerprint alone
/// (partial-key cuckoo hashing), so a stored fingerprint can move between
/// its two buckets without the item: the same map takes `i2` back to `i1`.
/// A lookup reads both buckets. Any bucket count works, so a table sized
/// for `n` items is sized for them, not for the next power of two.
///
/// An insert that finds both buckets full moves a stored fingerprint to its
/// other bucket, and so on, at most [`max_relocations`](Self::max_relocations)
/// times. If that does not free a slot, every move is undone in reverse and
/// the insert returns [`InsertError::Full`]: the table is exactly as before,
/// so every item stored is still found, and a later insert (or one after a
/// [`remove`](Self::remove)) may still succeed.
///
/// The filter is a multiset of fingerprints: inserting an item twice stores
/// it twice and it takes two removes to forget; [`insert_unique`](Self::insert_unique)
/// stores an item only if it is not reported present. An item can be stored
/// at most `2b` times (its two buckets are always distinct when the bucket
/// count is even, as every table [`new`](Self::new) sizes is), after which
/// its inserts fail.
///
/// # Layouts
///
/// A plain table stores `b` fingerprints of `f` bits per bucket; a
/// semi-sorted one ([`Builder::semi_sorted`], 4-slot buckets) sorts each
/// bucket and stores the same four fingerprints in `4f − 4` bits, one bit
/// per item less at the same false-positive rate, for some lookup speed.
/// See the crate docs for when [`new`](Self::new) chooses it.
///
/// # Typed items
///
/// A filter holds items of one type `T`, as a `HashSet<T>` does: the type is
/// inferred from the first insert, or named (`CuckooFilter::<u64>::new`).
/// Lookups and removes take any borrowed form of `T` (a
/// `CuckooFilter<String>` answers `contains("x")` without allocating), and an
/// item of another type does not compile, where an untyped filter would hash
/// the literal `42` as an `i32` and silently answer "absent":
///
/// ```
/// use bloomlab_cuckoo::CuckooFilter;
///
/// let mut ids = CuckooFilter::new(1_000, 0.01)?;
/// ids.insert(&42u64)?;
/// assert!(ids.contains(&42)); // the literal is a u64 here
/// ids.remove(&42)?;
///
/// let mut emails: CuckooFilter<String> = CuckooFilter::new(1_000, 0.01)?;
/// emails.insert(&"ann@example.com".to_owned())?;
/// assert!(emails.contains("ann@example.com"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// ```compile_fail
/// use bloomlab_cuckoo::CuckooFilter;
///
/// let mut ids = CuckooFilter::new(1_000, 0.01).unwrap();
/// ids.insert(&42u64).unwrap();
/// ids.contains(&42i32); // error: u64 does not borrow as i32
/// ```
///
/// # Removing what was never inserted
///
/// A remove deletes one fingerprint equal to the item's from one of its two
/// buckets. For an item that was never inserted but is reported present (a
/// false positive), that fingerprint belongs to another item, which then
/// may be reported absent. The filter cannot tell; remove only what you
/// inserted.
pub struct CuckooFilter<T: ?Sized, S = DefaultHasher> {
    table: Table,
    len: usize,
    max_relocations: u32,
    hasher: S,
    /// The item type: only what it hashes to is stored.
    item: PhantomData<fn(&T)>,
}

impl<T: ?Sized> CuckooFilter<T> {
    /// A filter for `expected_items` items at false-positive rate `fpr`,
    /// with 4-slot buckets and a random hash key; see [`Builder::build`] for
    /// how it is sized.
    ///
    /// # Errors
    ///
    /// As [`Builder::build`].
    pub fn new(expected_items: usize, fpr: f64) -> Result<Self, BuildError> {
        Self::builder(expected_items, fpr).build()
    }

    /// A builder for `expected_items` items at false-positive rate `fpr`.
    /// Its options ([`Builder`]): [`seed`](Builder::seed),
    /// [`hasher`](Builder::hasher), [`bucket_size`](Builder::bucket_size),
    /// [`fingerprint_bits`](Builder::fingerprint_bits),
    /// [`semi_sorted`](Builder::semi_sorted),
    /// [`max_relocations`](Builder::max_relocations) and
    /// [`max_bytes`](Builder::max_bytes); then [`build`](Builder::build).
    ///
    /// ```
    /// use bloomlab_cuckoo::CuckooFilter;
    ///
    /// let f = CuckooFilter::<u64>::builder(10_000, 0.01).seed(7).bucket_size(2).build()?;
    /// assert_eq!(f.bucket_size(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn builder(expected_items: usize, fpr: f64) -> Builder<T> {
        Builder::for_items(expected_items, fpr)
    }

    /// A builder for a table of exactly `num_buckets` buckets (any count
    /// from 1 to [`MAX_BUCKETS`](crate::MAX_BUCKETS); with an odd count an
    /// item's two buckets coincide for about one fingerprint in `m`) and
    /// `fingerprint_bits`-bit fingerprints.
    pub fn builder_with_buckets(num_buckets: u64, fingerprint_bits: u32) -> Builder<T> {
        Builder::for_buckets(num_buckets, fingerprint_bits)
    }
}

impl<T: ?Sized, S> CuckooFilter<T, S> {
    pub(crate) fn from_parts(table: Table, len: usize, max_relocations: u32, hasher: S) -> Self {
        Self {
            table,
            len,
            max_relocations,
            hasher,
            item: PhantomData,
        }
    }

    pub(crate) fn table(&self) -> &Table {
        &self.table
    }

    /// The packed table, as [`to_bytes`](Self::to_bytes) writes it: bucket
    /// `i` at bits `i · bits_per_bucket ..` of the little-endian bit stream
    /// (bit `k` is bit `k % 64` of word `k / 64`), and in a plain table
    /// slot `j` of a bucket at its bits `j · f .. (j + 1) · f`; 0 is an
    /// empty slot. Bits past the last bucket are zero. For stores that keep
    /// the table elsewhere (`bloomlab-redis` copies these bytes), with
    /// [`from_table_words`](Self::from_table_words) to read it back.
    pub fn table_words(&self) -> &[u64] {
        self.table.words()
    }

    /// Whether the alternate bucket is the first format's `i XOR
    /// offset(fp)` (a power-of-two table read from a file of that format)
    /// rather than the `(h(fp) − i) mod m` of every table built since.
    pub fn has_xor_map(&self) -> bool {
        self.table.alt_map() == AltMap::Xor
    }

    /// A plain table of `num_buckets` buckets of `bucket_size` slots of
    /// `fingerprint_bits` bits, the alternate-bucket map of new tables, from
    /// its [`table_words`](Self::table_words); `len` is the count of
    /// occupied slots. The words are copied into a table allocated
    /// fallibly.
    ///
    /// # Errors
    ///
    /// [`DecodeError::InvalidParameters`] for a shape
    /// [`Builder::build`] refuses (bucket size, fingerprint width, bucket
    /// count, relocation bound), a word count other than the shape's, or bits
    /// set past the last bucket; [`DecodeError::OutOfMemory`] if the
    /// allocator refuses the table.
    pub fn from_table_words(
        num_buckets: u64,
        bucket_size: u32,
        fingerprint_bits: u32,
        words: &[u64],
        max_relocations: u32,
        hasher: S,
    ) -> Result<Self, DecodeError> {
        if !BUCKET_SIZES.contains(&bucket_size) {
            return Err(invalid("unsupported bucket size"));
        }
        if !FINGERPRINT_BITS.contains(&fingerprint_bits) {
            return Err(invalid("unsupported fingerprint width"));
        }
        if num_buckets == 0 || num_buckets > MAX_BUCKETS {
            return Err(invalid("bucket count outside 1 to 2^32"));
        }
        if max_relocations > MAX_RELOCATIONS {
            return Err(invalid("relocation bound above the maximum"));
        }
        let bits = Table::bucket_bits(bucket_size, fingerprint_bits, Layout::Plain);
        if Table::words_for(num_buckets, bits) != Some(words.len()) {
            return Err(invalid("table size does not match the parameters"));
        }
        let buffer = bloomlab_core::alloc::buffer_from(words)?;
        let table = Table::from_words(
            buffer,
            num_buckets,
            bucket_size,
            fingerprint_bits,
            Layout::Plain,
            AltMap::Sub,
        );
        if !table.tail_is_clear() {
            return Err(invalid("bits set past the last bucket"));
        }
        let len: u64 = (0..num_buckets as usize)
            .map(|i| u64::from(table.occupied(i)))
            .sum();
        let len = usize::try_from(len).map_err(|_| invalid("item count too large"))?;
        Ok(Self::from_parts(table, len, max_relocations, hasher))
    }

    /// Slots per bucket (`b`).
    pub fn bucket_size(&self) -> u32 {
        self.table.bucket_size()
    }

    /// Bits per fingerprint (`f`).
    pub fn fingerprint_bits(&self) -> u32 {
        self.table.fingerprint_bits()
    }

    /// Buckets in the table.
    pub fn num_buckets(&self) -> u64 {
        self.table.num_buckets()
    }

    /// Whether buckets are semi-sorted (`4f − 4` bits per 4-slot bucket)
    /// rather than plain (`b·f` bits).
    pub fn is_semi_sorted(&self) -> bool {
        self.table.layout() == Layout::SemiSorted
    }

    /// Bits of table per bucket: `b·f`, or `4f − 4` semi-sorted.
    pub fn bits_per_bucket(&self) -> u32 {
        self.table.bits_per_bucket()
    }

    /// Slots in the table: buckets times slots per bucket.
    pub fn capacity(&self) -> u64 {
        self.num_buckets() * u64::from(self.bucket_size())
    }

    /// The most fingerprints one insert may move before giving up.
    pub fn max_relocations(&self) -> u32 {
        self.max_relocations
    }

    /// The hasher items are hashed with.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Fingerprints stored: successful inserts minus successful removes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no fingerprint is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The fraction of slots in use, `α = len / capacity`: the load
    /// factor of the cuckoo-filter papers.
    pub fn fill_ratio(&self) -> f64 {
        self.len as f64 / self.capacity() as f64
    }

    /// The old name of [`fill_ratio`](Self::fill_ratio).
    #[deprecated(
        since = "0.1.0",
        note = "use `fill_ratio`, the name every bloomlab filter gives it"
    )]
    pub fn load_factor(&self) -> f64 {
        self.fill_ratio()
    }

    /// Bytes of the table: `⌈buckets · bits_per_bucket / 64⌉` words.
    pub fn memory_bytes(&self) -> usize {
        self.table.words().len() * 8
    }

    /// Bits of table per stored item, `None` while empty: `f/α`
    /// ([`theory::bits_per_item`]), or `(f − 1)/α` semi-sorted
    /// ([`theory::bits_per_item_semi_sorted`]), plus the last word's padding.
    pub fn bits_per_item(&self) -> Option<f64> {
        (self.len > 0).then(|| self.memory_bytes() as f64 * 8.0 / self.len as f64)
    }

    /// The false-positive rate theory predicts at the present load:
    /// [`theory::fpr`]`(f, b, α)` = `1 − (1 − 1/(2^f − 1))^{2b·α}`, with
    /// `2^f − 1` fingerprint values because 0 marks an empty slot.
    ///
    /// This is the rate for a probe whose two buckets hold the average
    /// `2b·α` fingerprints. The rate averaged over the table's actual bucket
    /// occupancies, [`estimated_fpr`](Self::estimated_fpr), is never
    /// higher (Jensen's inequality) and differs only in the second order: at
    /// 95% load with 12-bit fingerprints, by under one part in a thousand. So
    /// this O(1) form is used, and it errs on the side of caution.
    pub fn expected_fpr(&self) -> f64 {
        theory::fpr(
            self.fingerprint_bits(),
            self.bucket_size(),
            self.fill_ratio(),
        )
    }

    /// How many buckets hold each number of fingerprints: entry `j` counts
    /// the buckets with `j` occupied slots (`b + 1` entries). Reads the
    /// whole table.
    pub fn occupancy(&self) -> Vec<u64> {
        let mut hist = vec![0u64; self.bucket_size() as usize + 1];
        for i in 0..self.num_buckets() as usize {
            hist[self.table.occupied(i) as usize] += 1;
        }
        hist
    }

    /// The false-positive rate of the table as it stands, from its bucket
    /// occupancies, [`theory::fpr_from_occupancy`]: a refinement of
    /// [`expected_fpr`](Self::expected_fpr) that reads the whole table.
    pub fn estimated_fpr(&self) -> f64 {
        theory::fpr_from_occupancy(self.fingerprint_bits(), &self.occupancy())
    }

    /// The old name of [`estimated_fpr`](Self::estimated_fpr).
    #[deprecated(
        since = "0.1.0",
        note = "use `estimated_fpr`, the name every bloomlab filter gives it"
    )]
    pub fn fpr_from_occupancy(&self) -> f64 {
        self.estimated_fpr()
    }

    /// Forgets every item; the table keeps its size and the hash key.
    pub fn clear(&mut self) {
        self.table.clear();
        self.len = 0;
    }

    #[inline]
    fn locate(&self, hash: u64) -> (u32, usize, usize) {
        let fp = self.table.fingerprint(hash);
        let i1 = self.table.first_bucket(hash);
        (fp, i1, self.table.other_bucket(i1, fp))
    }

    /// Whether an item with this 64-bit hash is reported present.
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        let (fp, i1, i2) = self.locate(hash);
        self.table.holds_either(i1, i2, fp)
    }

    /// Stores an item with this 64-bit hash; `Ok(true)` if it was not
    /// reported present before.
    ///
    /// # Errors
    ///
    /// [`InsertError::Full`] when no slot could be freed within
    /// [`max_relocations`](Self::max_relocations) moves; the table is then
    /// exactly as before the call.
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> Result<bool, InsertError> {
        let (fp, i1, i2) = self.locate(hash);
        let present = self.table.holds_either(i1, i2, fp);
        if !(self.table.put(i1, fp) || self.table.put(i2, fp)) {
            self.relocate(hash, fp, i1, i2)?;
        }
        self.len += 1;
        Ok(!present)
    }

    /// Stores an item with this 64-bit hash only if it is not reported
    /// present (RedisBloom's `CF.ADDNX`): `Ok(true)` if it was stored.
    ///
    /// # Errors
    ///
    /// As [`insert_hash`](Self::insert_hash).
    pub fn insert_unique_hash(&mut self, hash: u64) -> Result<bool, InsertError> {
        if self.contains_hash(hash) {
            Ok(false)
        } else {
            self.insert_hash(hash)
        }
    }

    /// Removes one fingerprint of an item with this 64-bit hash.
    ///
    /// # Errors
    ///
    /// [`RemoveError::NotPresent`] when neither bucket holds its fingerprint.
    #[inline]
    pub fn remove_hash(&mut self, hash: u64) -> Result<(), RemoveError> {
        let (fp, i1, i2) = self.locate(hash);
        if self.table.take(i1, fp) || self.table.take(i2, fp) {
            self.len -= 1;
            Ok(())
        } else {
            Err(RemoveError::NotPresent)
        }
    }

    /// How many stored fingerprints match an item with this 64-bit hash.
    pub fn count_hash(&self, hash: u64) -> usize {
        let (fp, i1, i2) = self.locate(hash);
        let first = self.table.count(i1, fp);
        let second = if i2 == i1 {
            0
        } else {
            self.table.count(i2, fp)
        };
        (first + second) as usize
    }

    /// The cuckoo walk: `fp` is placed in a full bucket, the fingerprint it
    /// evicts goes to its own other bucket, and so on. On failure the walk is
    /// replayed backwards, which restores every bucket it touched bit for bit.
    /// (Kept out of line: most inserts find a free slot without it.)
    #[inline(never)]
    fn relocate(&mut self, hash: u64, fp: u32, i1: usize, i2: usize) -> Result<(), InsertError> {
        let slots_mask = u64::from(self.bucket_size() - 1);
        // The walk's choices come from the item's own hash: a seeded filter
        // behaves the same in every run, and no state needs storing.
        let mut state = hash;
        let mut draw = || {
            state = state.wrapping_add(PHI);
            mix64(state)
        };
        let mut i = if draw() & 1 == 0 { i1 } else { i2 };
        let mut carried = fp;
        // (bucket, slot, fingerprint put there, fingerprint taken out); most
        // walks at a filter's design load end within a few moves.
        let mut path: SmallVec<[(usize, u32, u32, u32); WALK_ON_STACK]> = SmallVec::new();
        for _ in 0..self.max_relocations {
            let slot = (draw() & slots_mask) as u32;
            let evicted = self.table.swap(i, slot, carried);
            path.push((i, slot, carried, evicted));
            carried = evicted;
            i = self.table.other_bucket(i, carried);
            if self.table.put(i, carried) {
                return Ok(());
            }
        }
        for &(i, slot, put, evicted) in path.iter().rev() {
            self.table.unswap(i, slot, put, evicted);
            carried = put;
        }
        debug_assert_eq!(
            carried, fp,
            "the undone walk hands back the new fingerprint"
        );
        Err(InsertError::Full)
    }
}

impl<T: ?Sized + Hash, S: BuildHasher> CuckooFilter<T, S> {
    /// Stores `item`; `Ok(true)` if it was not reported present before.
    /// An item already present is stored again (see the type's docs): the
    /// same item inserted `2b` times fills both its buckets, and the next
    /// insert of it fails.
    ///
    /// [`new`](Self::new)`(n, ε)` sizes the table so that `n` items fill it
    /// to the design load (94% with 4-slot buckets); inserts past that
    /// start to fail with `Full` within a few percent more. Size for the
    /// most items the filter will ever hold, or use a filter that grows.
    ///
    /// ```
    /// use bloomlab_core::InsertError;
    /// use bloomlab_cuckoo::CuckooFilter;
    ///
    /// let mut f = CuckooFilter::<str>::builder(1_000, 0.01).seed(7).build()?;
    /// let copies = 2 * f.bucket_size() as usize;
    /// for _ in 0..copies {
    ///     f.insert("same")?;
    /// }
    /// assert_eq!(f.insert("same"), Err(InsertError::Full));
    /// assert_eq!(f.len(), copies);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`InsertError::Full`]: nothing was stored and nothing was lost.
    pub fn insert(&mut self, item: &T) -> Result<bool, InsertError> {
        by_hash::insert(self, item)
    }

    /// Stores `item` only if it is not reported present; `Ok(true)` if stored.
    ///
    /// Do not mix it with [`remove`](Self::remove). An item that is a false
    /// positive when it arrives is not stored, so its later `remove` takes
    /// away the fingerprint of another item, which is then reported absent.
    /// A filter that removes must store every insert ([`insert`](Self::insert))
    /// and remove each item as many times as it was inserted.
    ///
    /// # Errors
    ///
    /// [`InsertError::Full`]: nothing was stored and nothing was lost.
    pub fn insert_unique(&mut self, item: &T) -> Result<bool, InsertError> {
        self.insert_unique_hash(by_hash::hash(self, item))
    }

    /// `false`: `item` was never inserted (or was removed as often as
    /// inserted); `true`: probably present.
    pub fn contains<Q: ?Sized + Hash>(&self, item: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        by_hash::contains(self, item)
    }

    /// Looks up every item of `items`; the answers, in order, are those of
    /// [`contains`](Self::contains).
    ///
    /// Pipelined for tables larger than the cache
    /// ([`batch`](bloomlab_core::batch)): a chunk of items is hashed first,
    /// then each item's two buckets are prefetched a few items
    /// ([`ahead`](bloomlab_core::batch::ahead)) before it is probed, so that
    /// many memory loads are in flight at once. For a table of at most
    /// [`PREFETCH_MIN_BYTES`](bloomlab_core::batch::PREFETCH_MIN_BYTES),
    /// which sits in cache, the items are probed without prefetching.
    ///
    /// ```
    /// use bloomlab_cuckoo::CuckooFilter;
    ///
    /// let mut f = CuckooFilter::builder(1_000, 0.01).seed(1).build()?;
    /// assert_eq!(f.insert_batch(&["a", "b", "a"]), Ok(2));
    /// f.remove("b")?;
    /// assert_eq!(f.contains_batch(&["a", "b"]), [true, false]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contains_batch<Q: Hash>(&self, items: &[Q]) -> Vec<bool>
    where
        T: Borrow<Q>,
    {
        by_hash::contains_batch(self, items)
    }

    /// Stores every item of `items` in order, as [`insert`](Self::insert)
    /// would, and returns how many were new (not reported present before);
    /// pipelined like [`contains_batch`](Self::contains_batch).
    ///
    /// # Errors
    ///
    /// [`InsertBatchError`] at the first item that does not fit
    /// ([`InsertError::Full`]), with its index as
    /// [`stored`](InsertBatchError::stored): the items before it are stored,
    /// it and the ones after it are not, and nothing stored before is lost.
    pub fn insert_batch(&mut self, items: &[T]) -> Result<usize, InsertBatchError>
    where
        T: Sized,
    {
        by_hash::insert_batch(self, items)
    }

    /// Removes one copy of `item`.
    ///
    /// Remove only items you inserted with [`insert`](Self::insert). A
    /// fingerprint says nothing of which item stored it, so removing an item
    /// never inserted (a false positive), or one that
    /// [`insert_unique`](Self::insert_unique) skipped, takes away another
    /// item's copy, and that item is then reported absent.
    ///
    /// # Errors
    ///
    /// [`RemoveError::NotPresent`]: no fingerprint matches; nothing changed.
    pub fn remove<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<(), RemoveError>
    where
        T: Borrow<Q>,
    {
        by_hash::remove(self, item)
    }

    /// How many stored fingerprints match `item`: the times it was stored,
    /// plus any other items' matching fingerprints in its buckets.
    pub fn count<Q: ?Sized + Hash>(&self, item: &Q) -> usize
    where
        T: Borrow<Q>,
    {
        self.count_hash(by_hash::hash(self, item))
    }

    /// The two buckets `item` may be stored in: always two different ones
    /// when the bucket count is even (see [`builder_with_buckets`](CuckooFilter::builder_with_buckets)).
    pub fn candidate_buckets<Q: ?Sized + Hash>(&self, item: &Q) -> (u64, u64)
    where
        T: Borrow<Q>,
    {
        let (_, i1, i2) = self.locate(by_hash::hash(self, item));
        (i1 as u64, i2 as u64)
    }
}

impl<T: ?Sized, S> fmt::Debug for CuckooFilter<T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CuckooFilter")
            .field("num_buckets", &self.num_buckets())
            .field("bucket_size", &self.bucket_size())
            .field("fingerprint_bits", &self.fingerprint_bits())
            .field("semi_sorted", &self.is_semi_sorted())
            .field("len", &self.len)
            .field("max_relocations", &self.max_relocations)
            .finish_non_exhaustive()
    }
}

impl<T: ?Sized, S: Clone> Clone for CuckooFilter<T, S> {
    fn clone(&self) -> Self {
        Self::from_parts(
            self.table.clone(),
            self.len,
            self.max_relocations,
            self.hasher.clone(),
        )
    }
}

impl<T: ?Sized, S: PartialEq> PartialEq for CuckooFilter<T, S> {
    fn eq(&self, other: &Self) -> bool {
        self.table == other.table
            && self.len == other.len
            && self.max_relocations == other.max_relocations
            && self.hasher == other.hasher
    }
}

impl<T: ?Sized, S: BuildHasher> CuckooFilter<T, S> {
    /// Cache lines a lookup reads (`HashMembership::lookup_lines`).
    pub(crate) fn lookup_cache_lines(&self) -> usize {
        2
    }

    /// Starts loading both candidate buckets of the item.
    #[inline]
    pub(crate) fn prefetch_hash(&self, hash: u64) {
        let (_, i1, i2) = self.locate(hash);
        self.table.prefetch(i1);
        self.table.prefetch(i2);
    }
}

bloomlab_core::impl_filter!(Filter, HashMembership, HashDeletable, Persist
    for CuckooFilter<T, S> where S: BuildHasher);

#[cfg(test)]
mod tests {
    use super::*;
    use bloomlab_testkit::stats::binomial_interval;

    fn filter(buckets: u64, b: u32, f: u32) -> CuckooFilter<u64> {
        CuckooFilter::builder_with_buckets(buckets, f)
            .bucket_size(b)
            .seed(1)
            .build()
            .unwrap()
    }

    /// `count` hashes, each the [`mix64`] of the one before, from `start`'s.
    fn hashes(start: u64, count: u64) -> impl Iterator<Item = u64> {
        std::iter::successors(Some(mix64(start)), |&h| Some(mix64(h))).take(count as usize)
    }

    #[test]
    fn fingerprint_and_bucket_come_from_disjoint_bits() {
        let cf = filter(1 << 12, 4, 12);
        for h in hashes(0x0123_4567_89ab_cdef, 10_000) {
            let other = mix64(h ^ 1);
            let (fp, i1, _) = cf.locate(h);
            // New upper half: same fingerprint. New lower half: same first bucket.
            let upper_changed = (h & 0xffff_ffff) | (other & !0xffff_ffff);
            let lower_changed = (h & !0xffff_ffff) | (other & 0xffff_ffff);
            assert_eq!(cf.locate(upper_changed).0, fp);
            assert_eq!(cf.locate(lower_changed).1, i1);
        }
    }

    #[test]
    fn fingerprints_are_uniform_and_never_zero() {
        let cf = filter(1 << 4, 4, 4);
        let draws = 150_000u64;
        let mut counts = [0u64; 16];
        for h in hashes(7, draws) {
            counts[cf.table.fingerprint(h) as usize] += 1;
        }
        assert_eq!(counts[0], 0, "0 marks an empty slot");
        // 15 values, each Binomial(150,000, 1/15); a 99.99% interval for
        // each keeps the chance of a false alarm over all 15 below 0.15%.
        let (lo, hi) = binomial_interval(draws, 1.0 / 15.0, 0.9999);
        for (v, &c) in counts.iter().enumerate().skip(1) {
            assert!((lo..=hi).contains(&c), "value {v}: {c} not in {lo}..={hi}");
        }
        // The widest fingerprints reach both ends of their range.
        for f in [16, 32] {
            let wide = filter(1, 4, f);
            assert_eq!(wide.table.fingerprint(0), 1);
            assert_eq!(
                u64::from(wide.table.fingerprint(0xffff_ffff)),
                (1u64 << f) - 1
            );
        }
    }

    #[test]
    fn other_bucket_is_an_involution_and_never_the_same_bucket() {
        for buckets in [2u64, 4, 6, 264, 1 << 12, 1_000_002, 1 << 20] {
            let cf = filter(buckets, 2, 16);
            for fp in (1..65_536u32).step_by(97) {
                let i = (u64::from(fp) * 31 % buckets) as usize;
                let j = cf.table.other_bucket(i, fp);
                assert!((j as u64) < buckets);
                assert_ne!(i, j, "m {buckets} fp {fp}");
                assert_eq!(cf.table.other_bucket(j, fp), i);
            }
        }
        let one = filter(1, 4, 8);
        assert_eq!(one.table.other_bucket(0, 77), 0);
    }

    #[test]
    fn alternate_buckets_spread_over_the_whole_table() {
        // 2^20 + 2 buckets, 16-bit fingerprints: the other bucket of bucket
        // 0, h(fp), must fall in each sixteenth of the table about 1/16 of
        // the time, or some buckets could never reach each other.
        let m = (1u64 << 20) + 2;
        let cf = filter(m, 2, 16);
        let mut ranges = [0u64; 16];
        for fp in 1..65_536u32 {
            let h = cf.table.other_bucket(0, fp) as u64;
            ranges[(h * 16 / m) as usize] += 1;
        }
        let (lo, hi) = binomial_interval(65_535, 1.0 / 16.0, 0.9999);
        for (r, &c) in ranges.iter().enumerate() {
            assert!((lo..=hi).contains(&c), "range {r}: {c}");
        }
    }

    #[test]
    fn the_first_bucket_of_a_power_of_two_table_is_the_top_hash_bits() {
        // The first format's index, kept so that its files still read.
        let cf = filter(1 << 12, 4, 12);
        for h in hashes(3, 1_000) {
            assert_eq!(cf.table.first_bucket(h), (h >> 52) as usize);
        }
    }

    #[test]
    fn table_words_read_back_into_the_same_filter() {
        let mut cf: CuckooFilter<u64> =
            CuckooFilter::builder(5_000, 0.001).seed(4).build().unwrap();
        for k in 0..4_000u64 {
            cf.insert(&k).unwrap();
        }
        cf.remove(&7).unwrap();
        assert!(!cf.has_xor_map());
        let back = CuckooFilter::<u64>::from_table_words(
            cf.num_buckets(),
            cf.bucket_size(),
            cf.fingerprint_bits(),
            cf.table_words(),
            cf.max_relocations(),
            cf.hasher().clone(),
        )
        .unwrap();
        assert!(back == cf, "same table, len, bound and key");
        let words = cf.table_words();
        let args = |w: &[u64], b: u32, f: u32, m: u64, r: u32| {
            CuckooFilter::<u64>::from_table_words(m, b, f, w, r, DefaultHasher::from_seed(1))
        };
        let (m, f) = (cf.num_buckets(), cf.fingerprint_bits());
        let bad = [
            args(words, 3, f, m, 500),
            args(words, 4, 33, m, 500),
            args(words, 4, f, 0, 500),
            args(words, 4, f, m, crate::MAX_RELOCATIONS + 1),
            args(&words[1..], 4, f, m, 500),
        ];
        for e in bad {
            assert!(
                matches!(e, Err(DecodeError::InvalidParameters { .. })),
                "{e:?}"
            );
        }
        // 3 buckets of 4 × 4 bits: 48 bits of one word; bit 48 is past them.
        assert!(matches!(
            args(&[1 << 48], 4, 4, 3, 0),
            Err(DecodeError::InvalidParameters { .. })
        ));
        assert_eq!(args(&[0x0001_0000_0000], 4, 4, 3, 0).unwrap().len(), 1);
    }

    #[test]
    fn a_failed_walk_restores_the_table_exactly() {
        // A 2-bucket table of 4 slots each: 8 items fill it, the 9th
        // cannot fit whatever the walk does.
        for semi in [false, true] {
            let mut cf: CuckooFilter<u64> = CuckooFilter::builder_with_buckets(2, 16)
                .semi_sorted(semi)
                .seed(1)
                .build()
                .unwrap();
            let mut stored = 0u64;
            let mut key = 0u64;
            while stored < 8 {
                key += 1;
                if cf.insert(&key).is_ok() {
                    stored += 1;
                }
            }
            assert_eq!(cf.len(), 8);
            let before = cf.clone();
            for k in 1_000..1_100u64 {
                assert_eq!(cf.insert(&k), Err(InsertError::Full));
                assert!(cf == before, "a failed insert changed the table");
            }
        }
    }
}
