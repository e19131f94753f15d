//! [`BlockedCountingBloomFilter`]: every item's counters in one 64-byte
//! cache line, so that a lookup, an insert and a remove each read one line.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;

use bloomlab_classic::BlockLayout;
use bloomlab_core::codec::{WordTable, invalid};
use bloomlab_core::hash::{
    BlockPositions, SECTORS, SectorTest, for_each_block_position, reduce, sector_cell_masks,
    sector_round, sector_slot,
};
use bloomlab_core::{
    DecodeError, DefaultHasher, InsertBatchError, InsertError, ParamError, RemoveError, Tag, batch,
    by_hash, check_hashes,
};

use crate::builder::byte_limit;
use crate::counters::Counters;
use crate::error::BuildError;

/// Counters in one block: 128 counters of 4 bits, 512 bits, one cache line.
pub const BLOCK_COUNTERS: u32 = 128;

/// The bits of one in-block position: `log2(BLOCK_COUNTERS)`.
const LOG2_BLOCK: u32 = BLOCK_COUNTERS.trailing_zeros();

/// The counter width, in bits.
const WIDTH: u32 = 4;

/// `log2(WIDTH)`, the parameter of the counters' const-generic accessors.
const L: u32 = WIDTH.trailing_zeros();

/// Bytes of one block.
const BLOCK_BYTES: u64 = (BLOCK_COUNTERS * WIDTH / 8) as u64;

/// Words of one block.
const BLOCK_WORDS: u64 = BLOCK_BYTES / 8;

/// Counters in one 64-bit word, a sector of the
/// [`Sectors`](BlockLayout::Sectors) layout.
const PER_SECTOR: u32 = 64 / WIDTH;

/// `log2(PER_SECTOR)`: the bits of a slot in a sector.
const SLOT_BITS: u32 = PER_SECTOR.trailing_zeros();

/// Bit `4i` set where counter `i` of `word` is non-zero (the other bits are
/// left as they fall): a nibble is non-zero when one of its four bits is.
#[inline(always)]
fn nonzero(word: u64) -> u64 {
    word | word >> 1 | word >> 2 | word >> 3
}

/// Non-zero counters in `word`.
#[inline]
fn nonzero_counters(word: u64) -> u32 {
    (nonzero(word) & 0x1111_1111_1111_1111).count_ones()
}

/// An item's counters in its block, as indices below 128 (counter `p` is
/// nibble `p % 16` of word `p / 16`), repeats included.
enum InBlock {
    /// `k` positions anywhere in the block.
    Anywhere(std::iter::Take<BlockPositions>),
    /// `rounds` counters in each word: round `round` draws from `x`, and
    /// `w` is the next word.
    Sectors {
        hash: u64,
        x: u32,
        round: u32,
        rounds: u32,
        w: usize,
    },
}

impl InBlock {
    fn new(layout: BlockLayout, hash: u64, k: u32) -> Self {
        match layout {
            BlockLayout::Positions => {
                InBlock::Anywhere(BlockPositions::new(hash, LOG2_BLOCK).take(k as usize))
            }
            BlockLayout::Sectors => InBlock::Sectors {
                hash,
                x: sector_round(hash, 0),
                round: 0,
                rounds: k / SECTORS as u32,
                w: 0,
            },
        }
    }
}

impl Iterator for InBlock {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        match self {
            InBlock::Anywhere(positions) => positions.next(),
            InBlock::Sectors {
                hash,
                x,
                round,
                rounds,
                w,
            } => {
                if *w == SECTORS {
                    *w = 0;
                    *round += 1;
                    if *round < *rounds {
                        *x = sector_round(*hash, *round);
                    }
                }
                if *round >= *rounds {
                    return None;
                }
                let p = PER_SECTOR * *w as u32 + sector_slot(*x, *w, SLOT_BITS);
                *w += 1;
                Some(p)
            }
        }
    }
}

/// The envelope tag of a [`BlockedCountingBloomFilter`].
pub const BLOCKED_TAG: Tag = Tag::new(7, "BlockedCountingBloomFilter");

/// A counting Bloom filter whose items each increment `k` counters inside one
/// block of 128 four-bit counters: one 64-byte cache line, so that a lookup
/// reads one line where [`CountingBloomFilter`](crate::CountingBloomFilter)
/// reads up to `k`.
///
/// It is to the counting filter what a blocked Bloom filter (Putze, Sanders
/// and Singler, 2009) is to the classic one. An item's block is
/// `reduce(hash, blocks)`; it is reported present while all of its counters
/// there are non-zero. Counter `c` non-zero is bit `c` set, so the filter
/// answers as a blocked Bloom filter of 128-bit blocks, in one of two
/// [`BlockLayout`]s:
///
/// - [`Sectors`](BlockLayout::Sectors), the default: `k / 8` counters in
///   each of the block's eight 64-bit words (sectors of 16 counters), the
///   counter of word `w` in round 0 being slot
///   [`sector_slot`]`(hash as u32, w, 4)`. A lookup tests the eight words at once,
///   with no position to extract: past the cache it costs little more than
///   hashing the key and reading the line (benches/FINDINGS.md). Its rate
///   is [`sectored::fpr_exact`](bloomlab_core::theory::sectored::fpr_exact)`(16, 8, blocks, len, k)`.
/// - [`Positions`](BlockLayout::Positions): the first `k` of
///   [`BlockPositions`]`::new(hash, 7)`, anywhere in the block, any `k`,
///   at the rate [`blocked::fpr_exact`](bloomlab_core::theory::blocked::fpr_exact)`(128, blocks, len, k)`.
///
/// Either rate is higher than a classic filter's at the same number of
/// counters, because some blocks receive more than their share of items.
/// [`new`](Self::new) sizes for that: at 1% the sectors take 11.43 counters
/// per item (45.7 bits, `k` = 8), the positions 10.85 (43.4 bits, `k` = 6),
/// where the counting filter takes 9.85 (39.4 bits, `k` = 5).
///
/// Deleting is as safe as in the counting filter: a counter that reaches 15
/// is saturated and never changes again (so it can only keep an item
/// present), [`remove`](Self::remove) refuses an item whose counters prove it
/// absent, with nothing changed, and only removing an item never inserted
/// can make another absent.
///
/// ```
/// use bloomlab_counting::BlockedCountingBloomFilter;
///
/// let mut f = BlockedCountingBloomFilter::builder(10_000, 0.01).seed(1).build()?;
/// for i in 0..10_000u64 {
///     f.insert(&i)?;
/// }
/// assert!((0..10_000u64).all(|i| f.contains(&i)));
/// f.remove(&7)?;
/// assert!(!f.contains(&7));
/// // 11.43 counters (45.7 bits) per item for 1%, one in each word:
/// assert_eq!(f.num_hashes(), 8);
/// assert!((f.memory_bytes() * 8) as f64 / 10_000.0 < 45.8);
/// // At most 1%: below 1,104, the 99.9% bound of Binomial(100,000, 1%).
/// assert!(f.expected_fpr() <= 0.01);
/// let fp = (1_000_000..1_100_000u64).filter(|i| f.contains(i)).count();
/// assert!(fp < 1_104, "{fp} false positives in 100,000");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// [`BlockPositions`]: bloomlab_core::hash::BlockPositions
/// [`sector_slot`]: bloomlab_core::hash::sector_slot
pub struct BlockedCountingBloomFilter<T: ?Sized, S = DefaultHasher> {
    /// `blocks · 128` counters of 4 bits: block `b` is counters
    /// `128·b .. 128·b + 128`, words `8·b .. 8·b + 8`, one cache line (the
    /// table starts on a line).
    counters: Counters,
    layout: BlockLayout,
    num_hashes: u32,
    len: usize,
    hasher: S,
    /// The code of the one-counter-a-word lookup on this processor, chosen
    /// once.
    test: SectorTest,
    item: PhantomData<fn(&T)>,
}

impl<T: ?Sized> BlockedCountingBloomFilter<T> {
    /// A filter for `expected_items` items at false-positive rate `fpr`, with
    /// a random hash key, in the [`Sectors`](BlockLayout::Sectors) layout:
    /// the fewest blocks for which [`sectored::fpr_exact`](bloomlab_core::theory::sectored::fpr_exact) reaches `fpr`
    /// ([`sectored::size_for`](bloomlab_core::theory::sectored::size_for) with eight sectors of 16).
    ///
    /// # Errors
    ///
    /// As [`BlockedCountingBuilder::build`].
    pub fn new(expected_items: usize, fpr: f64) -> Result<Self, BuildError> {
        Self::builder(expected_items, fpr).build()
    }

    /// A filter of exactly `blocks` blocks of 128 counters and `num_hashes`
    /// counters per item (a multiple of 8, for the default
    /// [`Sectors`](BlockLayout::Sectors) layout), with a random hash key.
    ///
    /// # Errors
    ///
    /// As [`BlockedCountingBuilder::build`].
    pub fn with_blocks(blocks: u64, num_hashes: u32) -> Result<Self, BuildError> {
        Self::builder_with_blocks(blocks, num_hashes).build()
    }

    /// A builder sized for `expected_items` items at rate `fpr`. Its
    /// options ([`BlockedCountingBuilder`]):
    /// [`seed`](BlockedCountingBuilder::seed),
    /// [`hasher`](BlockedCountingBuilder::hasher),
    /// [`layout`](BlockedCountingBuilder::layout) and
    /// [`max_bytes`](BlockedCountingBuilder::max_bytes); then
    /// [`build`](BlockedCountingBuilder::build).
    pub fn builder(expected_items: usize, fpr: f64) -> BlockedCountingBuilder<T> {
        BlockedCountingBuilder::with_size(Size::Target {
            items: expected_items,
            fpr,
        })
    }

    /// A builder of exactly `blocks` blocks and `num_hashes` counters per item.
    pub fn builder_with_blocks(blocks: u64, num_hashes: u32) -> BlockedCountingBuilder<T> {
        BlockedCountingBuilder::with_size(Size::Exact { blocks, num_hashes })
    }

    /// The filter as bytes: parameters (`blocks: u64`, `num_hashes: u32`,
    /// `len: u64`), hash key and counter words, checksummed, under
    /// [`BLOCKED_TAG`], in its layout's format version
    /// ([`BlockLayout::version`]: 2 for positions, 3 for sectors). The key
    /// is written in the clear.
    pub fn to_bytes(&self) -> Vec<u8> {
        WordTable::encode(
            BLOCKED_TAG,
            self.layout.version(),
            &self.hasher,
            self.num_blocks(),
            self.num_hashes,
            self.len,
            self.counters.words().iter().copied(),
        )
    }

    /// Reads a filter written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// Every fault of the envelope as its [`DecodeError`];
    /// [`DecodeError::InvalidParameters`] for zero blocks, zero or too many
    /// hashes (or, in a version-3 file, a number not a multiple of 8), a
    /// `len` this platform cannot hold, or a payload of the wrong size;
    /// [`DecodeError::OutOfMemory`] if the table cannot be allocated.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let s = WordTable::decode(bytes, BLOCKED_TAG, |blocks| blocks.checked_mul(BLOCK_WORDS))?;
        let (blocks, num_hashes) = (s.size, s.num_hashes);
        if blocks == 0 {
            return Err(invalid("zero blocks"));
        }
        check_hashes(num_hashes).map_err(|_| invalid("number of hashes outside 1..=64"))?;
        let layout = BlockLayout::of_version(s.version);
        layout
            .check_hashes(num_hashes)
            .map_err(|_| invalid("sectored layout with hashes not a multiple of 8"))?;
        let counters = Counters::from_words(s.words, blocks * u64::from(BLOCK_COUNTERS), WIDTH);
        Ok(Self::from_parts(
            counters, layout, num_hashes, s.len, s.hasher,
        ))
    }
}

impl<T: ?Sized, S> BlockedCountingBloomFilter<T, S> {
    fn from_parts(
        counters: Counters,
        layout: BlockLayout,
        num_hashes: u32,
        len: usize,
        hasher: S,
    ) -> Self {
        Self {
            counters,
            layout,
            num_hashes,
            len,
            hasher,
            test: SectorTest::detect(),
            item: PhantomData,
        }
    }

    /// Blocks of 128 counters.
    pub fn num_blocks(&self) -> u64 {
        self.counters.len() / u64::from(BLOCK_COUNTERS)
    }

    /// Counters in all: 128 per block.
    pub fn num_counters(&self) -> u64 {
        self.counters.len()
    }

    /// `k`, the counters each item increments.
    pub fn num_hashes(&self) -> u32 {
        self.num_hashes
    }

    /// Where an item's counters go inside its block.
    pub fn layout(&self) -> BlockLayout {
        self.layout
    }

    /// The hasher items go through.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Inserts minus successful removes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Counters stuck at their maximum, 15.
    pub fn saturated_counters(&self) -> u64 {
        self.counters.saturated()
    }

    /// Counter `index` (`< num_counters`), or `None` past the end.
    pub fn counter(&self, index: u64) -> Option<u32> {
        self.counters.checked_get(index)
    }

    /// The packed counter words: counter `i` in `words[i / 16]` at bits
    /// `4 · (i % 16)`, block `b` in words `8·b .. 8·b + 8`.
    pub fn as_words(&self) -> &[u64] {
        self.counters.words()
    }

    /// Bytes of the counters.
    pub fn memory_bytes(&self) -> usize {
        self.counters.memory_bytes()
    }

    /// The rate theory predicts at the current count, saturation left out:
    /// [`sectored::fpr_exact`](bloomlab_core::theory::sectored::fpr_exact)`(16, 8, blocks, len, k)` in the
    /// [`Sectors`](BlockLayout::Sectors) layout,
    /// [`blocked::fpr_exact`](bloomlab_core::theory::blocked::fpr_exact)`(128, blocks, len, k)` in the
    /// [`Positions`](BlockLayout::Positions) one.
    pub fn expected_fpr(&self) -> f64 {
        let (blocks, n, k) = (self.num_blocks(), self.len as u64, self.num_hashes);
        self.layout.fpr_exact(BLOCK_COUNTERS, blocks, n, k)
    }

    /// Non-zero counters in each word, word after word (block `b` is words
    /// `8·b .. 8·b + 8`).
    fn nonzero_per_word(&self) -> impl Iterator<Item = u32> + '_ {
        self.counters.words().iter().map(|&w| nonzero_counters(w))
    }

    /// The words of each block, block after block.
    fn blocks(&self) -> std::slice::ChunksExact<'_, u64> {
        self.counters.words().chunks_exact(BLOCK_WORDS as usize)
    }

    /// Non-zero counters in each block, block after block.
    fn nonzero_per_block(&self) -> impl Iterator<Item = u32> + '_ {
        self.blocks()
            .map(|block| block.iter().map(|&w| nonzero_counters(w)).sum())
    }

    /// The fraction of counters that are non-zero.
    pub fn fill_ratio(&self) -> f64 {
        let nonzero: u64 = self.nonzero_per_word().map(u64::from).sum();
        nonzero as f64 / self.counters.len() as f64
    }

    /// The number of distinct items the non-zero counters suggest, from the
    /// whole table's zero counters
    /// ([`blocked::estimate_count`](bloomlab_core::theory::blocked::estimate_count)):
    /// each item makes `k / 8` draws among the 16 counters of each of its
    /// block's words in the [`Sectors`](BlockLayout::Sectors) layout, `k`
    /// among the block's 128 in the [`Positions`](BlockLayout::Positions)
    /// one, and block loads are Poisson. Infinite only when no counter is
    /// zero.
    pub fn estimate_count(&self) -> f64 {
        let (cells, draws) = match self.layout {
            BlockLayout::Sectors => (f64::from(PER_SECTOR), f64::from(self.rounds())),
            BlockLayout::Positions => (f64::from(BLOCK_COUNTERS), f64::from(self.num_hashes)),
        };
        let zero = 1.0 - self.fill_ratio();
        bloomlab_core::theory::blocked::estimate_count(self.num_blocks() as f64, cells, draws, zero)
    }

    /// The rate of this table as it is: the mean over blocks of the chance
    /// that all of a probe's counters are non-zero, `(non-zero / 128)^k` for
    /// a block in the positions layout, the product over its words of
    /// `(non-zero / 16)^(k/8)` in the sectors layout. Where
    /// [`expected_fpr`](Self::expected_fpr) averages over every way the
    /// items could have fallen, this is the rate of these items' table.
    pub fn estimated_fpr(&self) -> f64 {
        let total: f64 = match self.layout {
            BlockLayout::Sectors => {
                let rounds = self.rounds() as i32;
                let pass = |&w: &u64| {
                    (f64::from(nonzero_counters(w)) / f64::from(PER_SECTOR)).powi(rounds)
                };
                self.blocks()
                    .map(|block| block.iter().map(pass).product::<f64>())
                    .sum()
            }
            BlockLayout::Positions => {
                let k = self.num_hashes as i32;
                self.nonzero_per_block()
                    .map(|ones| (f64::from(ones) / f64::from(BLOCK_COUNTERS)).powi(k))
                    .sum()
            }
        };
        total / self.num_blocks() as f64
    }

    /// Counters an item sets in each word, in the sectors layout.
    fn rounds(&self) -> u32 {
        self.num_hashes / SECTORS as u32
    }

    /// Zeroes every counter; keeps the size and the hasher.
    pub fn clear(&mut self) {
        self.counters.clear();
        self.len = 0;
    }

    /// The index of the first counter of the item's block.
    #[inline]
    fn base(&self, hash: u64) -> u64 {
        reduce(hash, self.num_blocks()) << LOG2_BLOCK
    }

    /// The item's `k` counters in its block, in the filter's layout.
    #[inline]
    fn in_block(&self, hash: u64) -> InBlock {
        InBlock::new(self.layout, hash, self.num_hashes)
    }

    /// The item's `k` counters, as indices into the table.
    #[inline]
    fn positions(&self, hash: u64) -> impl Iterator<Item = u64> + use<T, S> {
        let base = self.base(hash);
        self.in_block(hash).map(move |p| base + u64::from(p))
    }

    /// Increments the counters of the item whose hash is `hash`; `true` if
    /// one of them was zero.
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        let mut present = true;
        for i in self.positions(hash) {
            present &= self.counters.increment::<L>(i) != 0;
        }
        self.len = self.len.saturating_add(1);
        !present
    }

    /// Whether every counter of the item whose hash is `hash` is non-zero.
    ///
    /// Always inlined, and small, as the blocked Bloom filter's: the usual
    /// one counter per word is tested here, every other layout out of line
    /// (`contains_in`). A call per lookup adds instructions that, past the
    /// cache, keep the processor from overlapping the next lookups' loads.
    #[inline(always)]
    pub fn contains_hash(&self, hash: u64) -> bool {
        let words = BLOCK_WORDS as usize;
        let first = (reduce(hash, self.num_blocks()) as usize) * words;
        let line = self.counters.words().get(first..first + words);
        let Some(block) = line.and_then(|b| <&[u64; SECTORS]>::try_from(b).ok()) else {
            return false; // unreachable: the block index is below num_blocks
        };
        if self.layout == BlockLayout::Sectors && self.num_hashes == SECTORS as u32 {
            // One counter per word, what every rate from about 0.1% up
            // sizes: the eight words tested at once with vector
            // instructions, by the blocked Bloom filter's code, with no
            // early exit (the line is loaded once, and testing the rest of
            // it costs less than a mispredicted branch).
            self.test.cells_set::<WIDTH>(block, hash)
        } else {
            self.contains_in(block, hash)
        }
    }

    /// [`contains_hash`](Self::contains_hash)'s test of `block` for every
    /// layout but one counter per word.
    #[inline(never)]
    fn contains_in(&self, block: &[u64; SECTORS], hash: u64) -> bool {
        match self.layout {
            BlockLayout::Sectors => {
                let masks = sector_cell_masks(hash, self.rounds(), WIDTH);
                let mut missing = 0;
                for (mask, &word) in masks.iter().zip(block) {
                    missing |= mask & !nonzero(word);
                }
                missing == 0
            }
            BlockLayout::Positions => {
                let mut all = true;
                for_each_block_position::<LOG2_BLOCK>(hash, self.num_hashes, |p| {
                    let (word, shift) = ((p >> 4) as usize, (p & 15) << 2);
                    all &= block[word] >> shift & 0xf != 0;
                });
                all
            }
        }
    }

    /// Decrements each non-saturated counter of the item whose hash is
    /// `hash`.
    ///
    /// # Errors
    ///
    /// [`RemoveError::NotPresent`], with nothing changed, if the counters
    /// prove the item absent: one of them is zero, or lower than the number
    /// of the item's positions that fall on it.
    pub fn remove_hash(&mut self, hash: u64) -> Result<(), RemoveError> {
        for (done, i) in self.positions(hash).enumerate() {
            if !self.counters.decrement::<L>(i) {
                for j in self.positions(hash).take(done) {
                    self.counters.undo_decrement::<L>(j);
                }
                return Err(RemoveError::NotPresent);
            }
        }
        self.len = self.len.saturating_sub(1);
        Ok(())
    }

    /// The smallest counter of the item whose hash is `hash`: an upper
    /// bound on its inserts minus removes while below 15.
    pub fn count_hash(&self, hash: u64) -> u32 {
        self.positions(hash)
            .map(|i| self.counters.get(i))
            .min()
            .unwrap_or(0) as u32
    }

    /// Adds `item`; `true` if it was not reported present before. Never
    /// fails: the `Result` every filter's insert has.
    ///
    /// # Errors
    ///
    /// None.
    pub fn insert(&mut self, item: &T) -> Result<bool, InsertError>
    where
        T: Hash,
        S: BuildHasher,
    {
        by_hash::insert(self, item)
    }

    /// `false`: `item` is not held. `true`: it probably is.
    pub fn contains<Q: ?Sized + Hash>(&self, item: &Q) -> bool
    where
        T: Borrow<Q>,
        S: BuildHasher,
    {
        by_hash::contains(self, item)
    }

    /// Looks up every item of `items`, prefetching each one's line a few
    /// items ahead ([`batch`](bloomlab_core::batch)); the answers of [`contains`](Self::contains),
    /// in order.
    pub fn contains_batch<Q: Hash>(&self, items: &[Q]) -> Vec<bool>
    where
        T: Borrow<Q>,
        S: BuildHasher,
    {
        by_hash::contains_batch(self, items)
    }

    /// Inserts every item of `items`; how many were new.
    ///
    /// # Errors
    ///
    /// None in practice: the [`InsertBatchError`] every filter's batch has.
    pub fn insert_batch(&mut self, items: &[T]) -> Result<usize, InsertBatchError>
    where
        T: Hash + Sized,
        S: BuildHasher,
    {
        by_hash::insert_batch(self, items)
    }

    /// Removes one occurrence of `item`.
    ///
    /// # Errors
    ///
    /// [`RemoveError::NotPresent`], with nothing changed, if `item` is
    /// certainly not held.
    pub fn remove<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<(), RemoveError>
    where
        T: Borrow<Q>,
        S: BuildHasher,
    {
        by_hash::remove(self, item)
    }

    /// The smallest of `item`'s counters ([`count_hash`](Self::count_hash)).
    pub fn count<Q: ?Sized + Hash>(&self, item: &Q) -> u32
    where
        T: Borrow<Q>,
        S: BuildHasher,
    {
        self.count_hash(self.hasher.hash_one(item))
    }
}

impl<T: ?Sized, S: Clone> Clone for BlockedCountingBloomFilter<T, S> {
    fn clone(&self) -> Self {
        Self::from_parts(
            self.counters.clone(),
            self.layout,
            self.num_hashes,
            self.len,
            self.hasher.clone(),
        )
    }
}

impl<T: ?Sized, S: PartialEq> PartialEq for BlockedCountingBloomFilter<T, S> {
    fn eq(&self, other: &Self) -> bool {
        self.counters == other.counters
            && self.layout == other.layout
            && self.num_hashes == other.num_hashes
            && self.len == other.len
            && self.hasher == other.hasher
    }
}

impl<T: ?Sized, S> fmt::Debug for BlockedCountingBloomFilter<T, S> {
    // The counters are too many to print, and the hash key is a secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockedCountingBloomFilter")
            .field("num_blocks", &self.num_blocks())
            .field("layout", &self.layout)
            .field("num_hashes", &self.num_hashes)
            .field("len", &self.len)
            .field("saturated_counters", &self.counters.saturated())
            .finish_non_exhaustive()
    }
}

impl<T: ?Sized, S: BuildHasher> BlockedCountingBloomFilter<T, S> {
    /// Cache lines a lookup reads (`HashMembership::lookup_lines`).
    pub(crate) fn lookup_cache_lines(&self) -> usize {
        1
    }

    /// Starts loading the item's block.
    #[inline]
    pub(crate) fn prefetch_hash(&self, hash: u64) {
        batch::prefetch(self.counters.word_of(self.base(hash)));
    }
}

bloomlab_core::impl_filter!(Filter, HashMembership, HashDeletable, Extend, Persist
    for BlockedCountingBloomFilter<T, S> where S: BuildHasher);

/// The size a [`BlockedCountingBuilder`] was asked for.
#[derive(Debug, Clone, Copy)]
enum Size {
    Target { items: usize, fpr: f64 },
    Exact { blocks: u64, num_hashes: u32 },
}

/// Builds a [`BlockedCountingBloomFilter`]: its size, hash key and memory
/// limit.
#[must_use = "a builder does nothing until build() is called"]
#[derive(Debug, Clone)]
pub struct BlockedCountingBuilder<T: ?Sized, S = DefaultHasher> {
    size: Size,
    layout: BlockLayout,
    max_bytes: Option<usize>,
    hasher: S,
    item: PhantomData<fn(&T)>,
}

impl<T: ?Sized> BlockedCountingBuilder<T> {
    fn with_size(size: Size) -> Self {
        Self {
            size,
            layout: BlockLayout::default(),
            max_bytes: None,
            hasher: DefaultHasher::random(),
            item: PhantomData,
        }
    }

    /// Derives the hash key from `seed` instead of drawing it at random: for
    /// reproducible tests, never for a filter that faces crafted input.
    pub fn seed(mut self, seed: u64) -> Self {
        self.hasher = DefaultHasher::from_seed(seed);
        self
    }
}

impl<T: ?Sized, S> BlockedCountingBuilder<T, S> {
    /// Hashes items with `hasher` instead of the keyed default.
    pub fn hasher<S2: BuildHasher>(self, hasher: S2) -> BlockedCountingBuilder<T, S2> {
        BlockedCountingBuilder {
            size: self.size,
            layout: self.layout,
            max_bytes: self.max_bytes,
            hasher,
            item: PhantomData,
        }
    }

    /// Where each item's counters go inside its block: the default
    /// [`BlockLayout::Sectors`], one counter (or `k / 8`) in each 64-bit
    /// word, or [`BlockLayout::Positions`], `k` anywhere in the block.
    /// Sizing from items and a rate then follows that layout's theory.
    ///
    /// ```
    /// use bloomlab_counting::{BlockLayout, BlockedCountingBloomFilter};
    ///
    /// let f = BlockedCountingBloomFilter::<u64>::builder(10_000, 0.01)
    ///     .layout(BlockLayout::Positions)
    ///     .build()?;
    /// assert_eq!((f.layout(), f.num_hashes()), (BlockLayout::Positions, 6));
    /// // k = 5 cannot be spread over eight words:
    /// assert!(BlockedCountingBloomFilter::<u64>::with_blocks(10, 5).is_err());
    /// # Ok::<(), bloomlab_counting::BuildError>(())
    /// ```
    pub fn layout(mut self, layout: BlockLayout) -> Self {
        self.layout = layout;
        self
    }

    /// Fails the build with [`ParamError::TooLarge`] if the counters would
    /// take more than `bytes`.
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = Some(bytes);
        self
    }

    /// Builds the empty filter.
    ///
    /// # Errors
    ///
    /// [`BuildError::Param`] for a rate outside (0, 1), zero items, zero
    /// blocks, zero or more than 64 hashes (or, in the sectors layout, a
    /// number not a multiple of 8: [`ParamError::HashesPerSector`]), or a
    /// table larger than
    /// [`max_bytes`](Self::max_bytes) (or than the platform can hold);
    /// [`BuildError::OutOfMemory`] if the allocator refuses the table
    /// (zeroed lazily: pages are committed as counters are written).
    pub fn build(self) -> Result<BlockedCountingBloomFilter<T, S>, BuildError> {
        let (blocks, num_hashes) = match self.size {
            Size::Target { items, fpr } => {
                self.layout.size_for(BLOCK_COUNTERS, items as u64, fpr)?
            }
            Size::Exact { blocks, num_hashes } => {
                if blocks == 0 {
                    return Err(ParamError::ZeroBits.into());
                }
                check_hashes(num_hashes)?;
                self.layout.check_hashes(num_hashes)?;
                (blocks, num_hashes)
            }
        };
        let limit = byte_limit(self.max_bytes);
        let needed = u128::from(blocks) * u128::from(BLOCK_BYTES);
        if needed > limit {
            return Err(ParamError::TooLarge { needed, limit }.into());
        }
        let words = (needed / 8) as usize;
        let counters = Counters::zeroed(blocks * u64::from(BLOCK_COUNTERS), WIDTH, words)?;
        Ok(BlockedCountingBloomFilter::from_parts(
            counters,
            self.layout,
            num_hashes,
            0,
            self.hasher,
        ))
    }
}

#[cfg(test)]
mod tests;
