//! The quotient filter itself.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;

use bloomlab_core::bits::Routine;
use bloomlab_core::theory::quotient as theory;
use bloomlab_core::{DefaultHasher, InsertBatchError, InsertError, RemoveError, by_hash};

use crate::bits::{low_mask, top};
use crate::error::MergeError;
use crate::table::{Overflow, Table, table_bytes};
use crate::{MAX_LOAD, MAX_QUOTIENT_BITS};

/// Slots a table of `2^q` canonical slots may use: `⌊0.95 · 2^q⌋`.
pub(crate) fn max_used(q: u32) -> u64 {
    ((1u64 << q) as f64 * MAX_LOAD) as u64
}

/// How a growing filter grows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Growth {
    /// The rate promised at every size.
    pub(crate) promise: f64,
    /// Doublings made.
    pub(crate) generation: u32,
    /// The largest table it may grow to, in bytes.
    pub(crate) max_bytes: u64,
}

/// A rank-and-select quotient filter (Pandey, Bender, Johnson and Patro,
/// SIGMOD 2017) that deletes, counts, merges, and, if asked, grows without
/// its keys (Dayan et al., InfiniFilter, SIGMOD 2023).
///
/// Each item is hashed once to 64 bits: the top `q` bits are its quotient,
/// a slot of the `2^q` canonical ones; the next bits are its remainder,
/// stored in the run of its quotient. A lookup reads one run, usually in
/// one block of 64 slots. See the crate's docs for the layout, the growth
/// scheme and their theory.
///
/// # Copies and counts
///
/// The filter is a multiset of entries: inserting an item twice stores its
/// entry twice, [`count`](Self::count) reports 2, and it takes two removes
/// to forget it. Copies are stored as repeated remainders, one slot each
/// (not the paper's variable-length counters, which store a count of `c`
/// in about `log2 c` slots): a million copies of one item take a million
/// slots.
///
/// # Removing what was never inserted
///
/// A remove deletes one entry that matches the item: of its quotient, with
/// the remainder the item's hash gives (the longest such entry, after
/// expansions). An item that was inserted always has one, and removing it
/// never takes away the last entry that matches another inserted item. An
/// item never inserted but reported present (a false positive) matches
/// another item's entry, which it then removes: that item may then be
/// reported absent. The filter cannot tell; remove only what you inserted.
pub struct QuotientFilter<T: ?Sized, S = DefaultHasher> {
    pub(crate) table: Table,
    /// Remainders of any length, each followed by a set bit and zeros to
    /// the slot's width (after an expansion); otherwise every remainder
    /// fills its slot.
    pub(crate) variable: bool,
    /// Remainder bits of a new entry.
    pub(crate) insert_bits: u32,
    /// Entries by the length of their remainder.
    lengths: [u64; 65],
    pub(crate) len: usize,
    pub(crate) growth: Option<Growth>,
    pub(crate) hasher: S,
    item: PhantomData<fn(&T)>,
}

impl<T: ?Sized, S> QuotientFilter<T, S> {
    /// A filter of `table`, whose remainders are of fixed or `variable`
    /// length, with `len` items.
    pub(crate) fn from_parts(
        table: Table,
        variable: bool,
        insert_bits: u32,
        len: usize,
        growth: Option<Growth>,
        hasher: S,
    ) -> Self {
        let mut filter = Self {
            table,
            variable,
            insert_bits,
            lengths: [0; 65],
            len,
            growth,
            hasher,
            item: PhantomData,
        };
        for (_, v) in filter.table.entries() {
            filter.lengths[filter.length(v) as usize] += 1;
        }
        filter
    }

    /// The hasher items go through.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Items stored: successful inserts minus successful removes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no item is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `q`: the table has `2^q` canonical slots.
    pub fn quotient_bits(&self) -> u32 {
        self.table.q()
    }

    /// Remainder bits a new entry gets.
    pub fn remainder_bits(&self) -> u32 {
        self.insert_bits
    }

    /// Bits of each slot: the remainder's, and after an expansion one more
    /// that marks where a shortened remainder ends.
    pub fn slot_bits(&self) -> u32 {
        self.table.width()
    }

    /// Slots in use: one per entry (and per copy of an entry whose
    /// remainder ran out over expansions, see the crate's docs).
    pub fn used_slots(&self) -> u64 {
        self.table.used()
    }

    /// Slots this table may use before it is full (or grows):
    /// `⌊0.95 · 2^q⌋`.
    pub fn capacity(&self) -> u64 {
        max_used(self.table.q())
    }

    /// The fraction of canonical slots in use: the load factor of the
    /// quotient-filter papers.
    pub fn fill_ratio(&self) -> f64 {
        self.table.used() as f64 / self.table.canonical() as f64
    }

    /// The old name of [`fill_ratio`](Self::fill_ratio).
    #[deprecated(
        since = "0.1.0",
        note = "use `fill_ratio`, the name every bloomlab filter gives it"
    )]
    pub fn load_factor(&self) -> f64 {
        self.fill_ratio()
    }

    /// Whether the filter doubles when full.
    pub fn grows(&self) -> bool {
        self.growth.is_some()
    }

    /// Doublings made since the filter was built.
    pub fn expansions(&self) -> u32 {
        self.growth.map_or(0, |g| g.generation)
    }

    /// The rate a growing filter promises at every size; `None` for a
    /// filter that does not grow.
    pub fn target_fpr(&self) -> Option<f64> {
        self.growth.map(|g| g.promise)
    }

    /// The old name of [`target_fpr`](Self::target_fpr).
    #[deprecated(
        since = "0.1.0",
        note = "use `target_fpr`, the name every bloomlab filter that grows gives it"
    )]
    pub fn promised_fpr(&self) -> Option<f64> {
        self.target_fpr()
    }

    /// Entries by the length of their remainder: entry `L` counts those of
    /// `L` bits (65 entries).
    pub fn remainder_lengths(&self) -> &[u64; 65] {
        &self.lengths
    }

    /// Bytes of the table: the blocks (two metadata words and `64 ·
    /// slot_bits` bits each) and one offset byte per block.
    pub fn memory_bytes(&self) -> usize {
        self.table.memory_bytes()
    }

    /// Bits of table per stored item, `None` while empty.
    pub fn bits_per_item(&self) -> Option<f64> {
        (self.len > 0).then(|| self.memory_bytes() as f64 * 8.0 / self.len as f64)
    }

    /// The false-positive rate theory predicts for this table as it is:
    /// `1 − e^{−λ}`, with `λ = Σ 2^−(q + L)` over its entries of `L`-bit
    /// remainders ([`theory::fpr_of_entries`]); without expansions, the
    /// paper's `1 − e^{−α·2^−r}` at load α.
    pub fn expected_fpr(&self) -> f64 {
        theory::fpr_of_entries(self.table.q(), &self.lengths)
    }

    /// Forgets every item; the table keeps its size, and a growing filter
    /// the expansions it made.
    pub fn clear(&mut self) {
        self.table.clear();
        self.lengths = [0; 65];
        self.len = 0;
    }

    /// The length of the remainder in a stored value.
    #[inline]
    fn length(&self, value: u64) -> u32 {
        if self.variable {
            self.table.width() - 1 - value.trailing_zeros().min(self.table.width() - 1)
        } else {
            self.table.width()
        }
    }

    /// The remainder and its length in a stored value.
    fn decode(&self, value: u64) -> (u64, u32) {
        let len = self.length(value);
        if self.variable {
            (
                value.checked_shr(self.table.width() - len).unwrap_or(0),
                len,
            )
        } else {
            (value, len)
        }
    }

    /// The quotient of a hash, and the rest of its bits, from the top.
    #[inline]
    fn split(&self, hash: u64) -> (usize, u64) {
        let q = self.table.q();
        (top(hash, q) as usize, hash << q)
    }

    /// What a probe of this hash compares each entry of its run with: the
    /// remainder of a fixed-length slot, or the longest remainder followed
    /// by its delimiter.
    #[inline]
    fn probe(&self, rest: u64) -> u64 {
        let w = self.table.width();
        if self.variable {
            top(rest, w - 1) << 1 | 1
        } else {
            top(rest, w)
        }
    }

    /// Whether the stored `value` matches the `probe`.
    #[inline]
    fn matches(&self, probe: u64, value: u64) -> bool {
        if self.variable {
            (probe ^ value)
                .checked_shr(value.trailing_zeros() + 1)
                .unwrap_or(0)
                == 0
        } else {
            probe == value
        }
    }

    /// The value a new entry of this hash stores.
    fn new_value(&self, rest: u64) -> u64 {
        let w = self.table.width();
        if self.variable {
            let f = self.insert_bits;
            (top(rest, f) << 1 | 1) << (w - 1 - f)
        } else {
            top(rest, w)
        }
    }

    /// Whether an item with this 64-bit hash is reported present.
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.table.ops().run(Find(self, hash))
    }

    /// [`contains_hash`](Self::contains_hash), compiled into the copy
    /// [`BitOps::run`](bloomlab_core::bits::BitOps::run) makes.
    #[inline(always)]
    fn find(&self, hash: u64) -> bool {
        let (x, rest) = self.split(hash);
        let Some(end) = self.table.run_end(x) else {
            return false;
        };
        let probe = self.probe(rest);
        // From the run's end back to its start, found on the way (slot `x`,
        // or the slot after the previous run's end), so that finding the
        // start costs no search of its own. A run of fixed-length values is
        // in ascending order: past the probe's value, nothing can match.
        let mut i = end - 1;
        loop {
            let value = self.table.get(i);
            if self.matches(probe, value) {
                return true;
            }
            if (!self.variable && value < probe) || i == x || self.table.is_runend(i - 1) {
                return false;
            }
            i -= 1;
        }
    }

    /// How many entries match an item with this 64-bit hash.
    pub fn count_hash(&self, hash: u64) -> usize {
        self.table.ops().run(Count(self, hash))
    }

    /// [`count_hash`](Self::count_hash), compiled into the caller's copy.
    #[inline(always)]
    fn count_entries(&self, hash: u64) -> usize {
        let (x, rest) = self.split(hash);
        let Some((start, end)) = self.table.run(x) else {
            return 0;
        };
        let probe = self.probe(rest);
        (start..end)
            .filter(|&i| self.matches(probe, self.table.get(i)))
            .count()
    }

    /// Stores an item with this 64-bit hash; `Ok(true)` if it was not
    /// reported present before.
    ///
    /// # Errors
    ///
    /// [`InsertError::Full`] when the table is at its maximum load (or no
    /// slot is left past the run) and the filter does not grow, or cannot
    /// (past its byte limit, its largest table, or the memory the
    /// allocator gives); nothing was changed.
    pub fn insert_hash(&mut self, hash: u64) -> Result<bool, InsertError> {
        let ops = self.table.ops();
        ops.run(Store(self, hash))
    }

    /// [`insert_hash`](Self::insert_hash), compiled into the caller's copy.
    #[inline(always)]
    fn store(&mut self, hash: u64) -> Result<bool, InsertError> {
        let present = self.find(hash);
        loop {
            if self.table.used() < self.capacity() {
                let (x, rest) = self.split(hash);
                let value = self.new_value(rest);
                if self.table.insert(x, value) == Ok(()) {
                    self.lengths[self.insert_bits as usize] += 1;
                    self.len += 1;
                    return Ok(!present);
                }
            }
            self.expand()?;
        }
    }

    /// Removes one entry that matches an item with this 64-bit hash: the
    /// one with the longest remainder (see the type's docs).
    ///
    /// # Errors
    ///
    /// [`RemoveError::NotPresent`] when no entry matches; nothing changed.
    pub fn remove_hash(&mut self, hash: u64) -> Result<(), RemoveError> {
        let ops = self.table.ops();
        ops.run(Take(self, hash))
    }

    /// [`remove_hash`](Self::remove_hash), compiled into the caller's copy.
    #[inline(always)]
    fn take(&mut self, hash: u64) -> Result<(), RemoveError> {
        let (x, rest) = self.split(hash);
        let (start, end) = self.table.run(x).ok_or(RemoveError::NotPresent)?;
        let probe = self.probe(rest);
        let (pos, len) = (start..end)
            .filter(|&i| self.matches(probe, self.table.get(i)))
            .map(|i| (i, self.length(self.table.get(i))))
            .max_by_key(|&(_, len)| len)
            .ok_or(RemoveError::NotPresent)?;
        self.table.remove(x, (start, end), pos);
        self.lengths[len as usize] -= 1;
        self.len = self.len.saturating_sub(1);
        Ok(())
    }

    /// Doubles the table: every entry's remainder gives its top bit to the
    /// quotient; an entry with no remainder left is copied to both halves.
    /// New entries get the next generation's remainder.
    ///
    /// # Errors
    ///
    /// [`InsertError::Full`], with nothing changed, for a filter that does
    /// not grow, or cannot: past its byte limit, past
    /// [`MAX_QUOTIENT_BITS`], past 64 bits of quotient and remainder, or
    /// when the allocator refuses the table.
    fn expand(&mut self) -> Result<(), InsertError> {
        let growth = self.growth.ok_or(InsertError::Full)?;
        let generation = growth.generation + 1;
        let q = self.table.q() + 1;
        let bits = theory::growth_fingerprint_bits(growth.promise, MAX_LOAD, generation)
            .map_err(|_| InsertError::Full)?;
        let longest = if self.variable {
            self.table.width() - 1
        } else {
            self.table.width()
        };
        let width = bits.max(longest.saturating_sub(1)) + 1;
        if q > MAX_QUOTIENT_BITS
            || width > 64
            || q + width - 1 > 64
            || table_bytes(q, width) > u128::from(growth.max_bytes)
        {
            return Err(InsertError::Full);
        }
        let table = Table::new(q, width).map_err(|_| InsertError::Full)?;
        let encode = |f: u64, len: u32| (f << 1 | 1) << (width - 1 - len);
        let void = encode(0, 0);
        let mut writer = table.writer();
        let mut lengths = [0u64; 65];
        let (mut low, mut high) = (Vec::new(), Vec::new());
        let mut entries = self.table.entries().peekable();
        while let Some((x, value)) = entries.next() {
            let (f, len) = self.decode(value);
            if len == 0 {
                low.push(void);
                high.push(void);
                lengths[0] += 2;
            } else {
                let child = encode(f & low_mask(len - 1), len - 1);
                if f >> (len - 1) & 1 == 0 {
                    low.push(child);
                } else {
                    high.push(child);
                }
                lengths[len as usize - 1] += 1;
            }
            if entries.peek().map(|&(y, _)| y) != Some(x) {
                for (child, values) in [(2 * x, &mut low), (2 * x + 1, &mut high)] {
                    values.sort_unstable();
                    for &v in values.iter() {
                        writer
                            .push(child as usize, v)
                            .map_err(|Overflow| InsertError::Full)?;
                    }
                    values.clear();
                }
            }
        }
        self.table = writer.finish();
        self.variable = true;
        self.insert_bits = bits;
        self.lengths = lengths;
        self.growth = Some(Growth {
            generation,
            ..growth
        });
        Ok(())
    }

    /// Adds every entry of `other` to this filter: afterwards it reports
    /// present every item either reported, counts for each item the sum of
    /// both counts, and its [`len`](Self::len) is the sum of both.
    ///
    /// # Errors
    ///
    /// [`MergeError::Hasher`] when the filters hash items differently;
    /// [`MergeError::Shape`] when their tables differ (canonical slots,
    /// slot width, remainder encoding, growth schedule or expansions made);
    /// [`MergeError::Full`] when the entries of both exceed the table's
    /// maximum load (a growing filter does not grow to merge) or its spare
    /// slots. A refused merge changes nothing.
    pub fn merge(&mut self, other: &Self) -> Result<(), MergeError>
    where
        S: PartialEq,
    {
        if self.hasher != other.hasher {
            return Err(MergeError::Hasher);
        }
        let shape = |what| Err(MergeError::Shape { what });
        if self.table.q() != other.table.q() {
            return shape("canonical slots");
        }
        if self.table.width() != other.table.width() || self.insert_bits != other.insert_bits {
            return shape("remainder bits");
        }
        if self.variable != other.variable {
            return shape("remainder encoding");
        }
        let same_growth = match (self.growth, other.growth) {
            (None, None) => true,
            (Some(a), Some(b)) => a.promise == b.promise && a.generation == b.generation,
            _ => false,
        };
        if !same_growth {
            return shape("growth schedule or expansions");
        }
        let needed = self.table.used() + other.table.used();
        let full = MergeError::Full {
            needed,
            capacity: self.capacity(),
        };
        if needed > self.capacity() {
            return Err(full);
        }
        let table = Table::new(self.table.q(), self.table.width()).map_err(|_| full)?;
        let mut writer = table.writer();
        let mut ours = self.table.entries().peekable();
        let mut theirs = other.table.entries().peekable();
        loop {
            let next = match (ours.peek(), theirs.peek()) {
                (Some(a), Some(b)) if a <= b => ours.next(),
                (Some(_), Some(_)) => theirs.next(),
                (Some(_), None) => ours.next(),
                (None, _) => theirs.next(),
            };
            let Some((x, v)) = next else { break };
            writer.push(x as usize, v).map_err(|Overflow| full)?;
        }
        self.table = writer.finish();
        for (mine, theirs) in self.lengths.iter_mut().zip(other.lengths) {
            *mine += theirs;
        }
        self.len += other.len;
        Ok(())
    }

    /// Cache lines a lookup reads (`HashMembership::lookup_lines`): the
    /// block of its quotient, its two metadata words and 64 slots, which
    /// spans two lines once the slots are wider than 6 bits (a run that
    /// crosses into the next block reads more).
    pub(crate) fn lookup_cache_lines(&self) -> usize {
        crate::table::block_lines(self.table.width())
    }

    /// Starts loading the block of the item's quotient.
    #[inline]
    pub(crate) fn prefetch_hash(&self, hash: u64) {
        self.table.prefetch(self.split(hash).0);
    }
}

impl<T: ?Sized + Hash, S: BuildHasher> QuotientFilter<T, S> {
    /// Stores `item`; `Ok(true)` if it was not reported present before.
    /// An item already present is stored again (see the type's docs).
    ///
    /// # Errors
    ///
    /// [`InsertError::Full`]: nothing was stored and nothing was lost.
    pub fn insert(&mut self, item: &T) -> Result<bool, InsertError> {
        by_hash::insert(self, item)
    }

    /// `false`: `item` was never inserted (or was removed as often as
    /// inserted); `true`: probably present.
    pub fn contains<Q: ?Sized + Hash>(&self, item: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        by_hash::contains(self, item)
    }

    /// How many entries match `item`: the times it was stored (and not
    /// removed), plus any other item's entries that match it.
    pub fn count<Q: ?Sized + Hash>(&self, item: &Q) -> usize
    where
        T: Borrow<Q>,
    {
        self.count_hash(by_hash::hash(self, item))
    }

    /// Removes one copy of `item`.
    ///
    /// # Errors
    ///
    /// [`RemoveError::NotPresent`]: no entry matches; nothing changed.
    pub fn remove<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<(), RemoveError>
    where
        T: Borrow<Q>,
    {
        by_hash::remove(self, item)
    }

    /// Looks up every item of `items`; the answers, in order, are those of
    /// [`contains`](Self::contains). Pipelined
    /// ([`batch`](bloomlab_core::batch)): a chunk of items is hashed first,
    /// then each item's block is prefetched a few items before it is
    /// probed.
    ///
    /// ```
    /// use bloomlab_quotient::QuotientFilter;
    ///
    /// let mut f = QuotientFilter::builder(1_000, 0.01).seed(1).build()?;
    /// assert_eq!(f.insert_batch(&["a", "b", "a"]), Ok(2));
    /// f.remove("b")?;
    /// assert_eq!(f.contains_batch(&["a", "b"]), [true, false]);
    /// assert_eq!(f.count("a"), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contains_batch<Q: Hash>(&self, items: &[Q]) -> Vec<bool>
    where
        T: Borrow<Q>,
    {
        by_hash::contains_batch(self, items)
    }

    /// Stores every item of `items` in order, as [`insert`](Self::insert)
    /// would, and returns how many were new; pipelined like
    /// [`contains_batch`](Self::contains_batch).
    ///
    /// # Errors
    ///
    /// [`InsertBatchError`] at the first item that does not fit, with its
    /// index as [`stored`](InsertBatchError::stored): the items before it
    /// are stored, it and the ones after it are not, and nothing stored
    /// before is lost.
    pub fn insert_batch(&mut self, items: &[T]) -> Result<usize, InsertBatchError>
    where
        T: Sized,
    {
        by_hash::insert_batch(self, items)
    }
}

impl<T: ?Sized, S: fmt::Debug> fmt::Debug for QuotientFilter<T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QuotientFilter")
            .field("quotient_bits", &self.quotient_bits())
            .field("slot_bits", &self.slot_bits())
            .field("remainder_bits", &self.insert_bits)
            .field("len", &self.len)
            .field("used_slots", &self.used_slots())
            .field("expansions", &self.expansions())
            .field("hasher", &self.hasher)
            .finish_non_exhaustive()
    }
}

impl<T: ?Sized, S: Clone> Clone for QuotientFilter<T, S> {
    fn clone(&self) -> Self {
        Self {
            table: self.table.clone(),
            variable: self.variable,
            insert_bits: self.insert_bits,
            lengths: self.lengths,
            len: self.len,
            growth: self.growth,
            hasher: self.hasher.clone(),
            item: PhantomData,
        }
    }
}

impl<T: ?Sized, S: PartialEq> PartialEq for QuotientFilter<T, S> {
    fn eq(&self, other: &Self) -> bool {
        self.table == other.table
            && self.variable == other.variable
            && self.insert_bits == other.insert_bits
            && self.len == other.len
            && self.growth == other.growth
            && self.hasher == other.hasher
    }
}

bloomlab_core::impl_filter!(Filter, HashMembership, HashDeletable, Persist
    for QuotientFilter<T, S> where S: BuildHasher);

/// The filter's operations as [`Routine`]s, which
/// [`BitOps::run`](bloomlab_core::bits::BitOps::run) compiles with the
/// processor's bit instructions where it has them. One struct each, each
/// `call` marked `#[inline(always)]`: a closure, or a method passed as a
/// function value (through `FnOnce::call_once`), was left out of line, and
/// so compiled without the instructions (callgrind, 1M items: 233
/// instructions a hit that way, 192 this way).
struct Find<'a, T: ?Sized, S>(&'a QuotientFilter<T, S>, u64);
struct Count<'a, T: ?Sized, S>(&'a QuotientFilter<T, S>, u64);
struct Store<'a, T: ?Sized, S>(&'a mut QuotientFilter<T, S>, u64);
struct Take<'a, T: ?Sized, S>(&'a mut QuotientFilter<T, S>, u64);

impl<T: ?Sized, S> Routine for Find<'_, T, S> {
    type Output = bool;
    #[inline(always)]
    fn call(self) -> bool {
        self.0.find(self.1)
    }
}

impl<T: ?Sized, S> Routine for Count<'_, T, S> {
    type Output = usize;
    #[inline(always)]
    fn call(self) -> usize {
        self.0.count_entries(self.1)
    }
}

impl<T: ?Sized, S> Routine for Store<'_, T, S> {
    type Output = Result<bool, InsertError>;
    #[inline(always)]
    fn call(self) -> Result<bool, InsertError> {
        self.0.store(self.1)
    }
}

impl<T: ?Sized, S> Routine for Take<'_, T, S> {
    type Output = Result<(), RemoveError>;
    #[inline(always)]
    fn call(self) -> Result<(), RemoveError> {
        self.0.take(self.1)
    }
}
