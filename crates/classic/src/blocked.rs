//! [`BlockedBloomFilter`]: every item's bits in one 512-bit block, one cache
//! line, laid out by [`BlockLayout`].

use std::borrow::Borrow;
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;

use bloomlab_core::alloc::{self, Buffer};
use bloomlab_core::batch;
use bloomlab_core::by_hash;
use bloomlab_core::codec::{FORMAT_VERSION, NEWEST_VERSION, WordTable};
use bloomlab_core::hash::{
    SECTORS, SectorTest, for_each_block_position, reduce, sector_mask, sector_masks,
};
use bloomlab_core::theory::{blocked, sectored};
use bloomlab_core::{
    DecodeError, DefaultHasher, InsertBatchError, InsertError, ParamError, check_hashes,
};

use crate::builder::BlockedBuilder;
use crate::codec::BLOCKED_TAG;
use crate::error::{BuildError, Invalid, MergeError};
use crate::sizing::BLOCK_BITS;
use crate::table::invalid;

/// Words in one block.
const BLOCK_WORDS: usize = (BLOCK_BITS / 64) as usize;

/// `log2(BLOCK_BITS)`: the width of one in-block position.
const LOG2_BLOCK_BITS: u32 = BLOCK_BITS.trailing_zeros();

/// 512 bits on one 64-byte cache line: the table's [`Buffer`] starts on a
/// line, and a block is a line long.
type Block = [u64; BLOCK_WORDS];

/// Bits set in `block`.
fn ones(block: &Block) -> u32 {
    block.iter().map(|w| w.count_ones()).sum()
}

/// Where an item's `k` bits go inside its block.
///
/// A filter keeps its layout for life: it is chosen when the filter is
/// built, and a filter read from bytes has the layout of the format version
/// it was written in ([`of_version`](Self::of_version)). The one-line
/// counting filter of `bloomlab-counting` lays its 4-bit counters out the
/// same two ways, with a counter of 16 in each word where this filter has a
/// bit of 64.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BlockLayout {
    /// `k / 8` bits in each of the block's eight 64-bit words, by
    /// [`sector_masks`](bloomlab_core::hash::sector_masks): a lookup tests eight precomputed masks, with no
    /// position to extract. `k` is a multiple of 8. About 2% more memory
    /// than [`Positions`](Self::Positions) at 1%
    /// ([`theory::sectored`](bloomlab_core::theory::sectored)). The layout of
    /// every new filter; format version 3 on.
    #[default]
    Sectors,
    /// `k` positions anywhere in the block, by
    /// [`BlockPositions`](bloomlab_core::hash::BlockPositions): any `k`, and
    /// the rate of [`theory::blocked`](bloomlab_core::theory::blocked). The
    /// layout of format versions 1 and 2, and of the tables
    /// `bloomlab-redis` keeps.
    Positions,
}

impl BlockLayout {
    /// The layout of a filter stored in format `version`:
    /// [`Positions`](Self::Positions) up to version 2
    /// ([`FORMAT_VERSION`]), [`Sectors`](Self::Sectors) from version 3
    /// ([`NEWEST_VERSION`]) on.
    pub const fn of_version(version: u16) -> Self {
        if version <= FORMAT_VERSION {
            BlockLayout::Positions
        } else {
            BlockLayout::Sectors
        }
    }

    /// The format version a filter of this layout is written in: 2 for
    /// [`Positions`](Self::Positions), so that older builds still read it,
    /// and 3 for [`Sectors`](Self::Sectors).
    pub const fn version(self) -> u16 {
        match self {
            BlockLayout::Positions => FORMAT_VERSION,
            BlockLayout::Sectors => NEWEST_VERSION,
        }
    }

    /// Checks that `k` suits the layout: any `k` for
    /// [`Positions`](Self::Positions), a multiple of 8 for
    /// [`Sectors`](Self::Sectors) (the range is checked elsewhere).
    ///
    /// # Errors
    ///
    /// [`ParamError::HashesPerSector`] for a `k` the layout cannot spread
    /// evenly over its words.
    pub fn check_hashes(self, k: u32) -> Result<(), ParamError> {
        match self {
            BlockLayout::Sectors if !k.is_multiple_of(SECTORS as u32) => {
                Err(ParamError::HashesPerSector {
                    hashes: k,
                    sectors: SECTORS as u32,
                })
            }
            _ => Ok(()),
        }
    }

    /// The sectors a block is split into: its eight 64-bit words for
    /// [`Sectors`](Self::Sectors), the whole block (one) for
    /// [`Positions`](Self::Positions).
    pub const fn sectors(self) -> u32 {
        match self {
            BlockLayout::Sectors => SECTORS as u32,
            BlockLayout::Positions => 1,
        }
    }

    /// Blocks and `k` for `items` at rate `fpr` in blocks of `block_cells`
    /// cells (bits, or counters of a counting filter): the fewest blocks
    /// whose exact rate, in this layout, is at most `fpr`
    /// ([`sectored::size_for`] over the block's [`sectors`](Self::sectors),
    /// [`blocked::size_for`] over the whole block).
    ///
    /// # Errors
    ///
    /// As [`blocked::size_for`] and [`sectored::size_for`].
    pub fn size_for(
        self,
        block_cells: u32,
        items: u64,
        fpr: f64,
    ) -> Result<(u64, u32), ParamError> {
        match self {
            BlockLayout::Sectors => {
                let sectors = self.sectors();
                sectored::size_for(block_cells / sectors, sectors, items, fpr)
            }
            BlockLayout::Positions => blocked::size_for(block_cells, items, fpr),
        }
    }

    /// The rate theory predicts for `n` distinct items in `blocks` blocks of
    /// `block_cells` cells, `k` cells an item.
    pub fn fpr_exact(self, block_cells: u32, blocks: u64, n: u64, k: u32) -> f64 {
        match self {
            BlockLayout::Sectors => {
                let sectors = self.sectors();
                sectored::fpr_exact(block_cells / sectors, sectors, blocks, n, k)
            }
            BlockLayout::Positions => blocked::fpr_exact(block_cells, blocks, n, k),
        }
    }
}

/// A Bloom filter whose items each set `k` bits inside one block of 512 bits
/// (Putze, Sanders and Singler, "Cache-, hash- and space-efficient Bloom
/// filters", 2009).
///
/// A lookup reads one cache line instead of `k`, so it is faster than
/// [`BloomFilter`](crate::BloomFilter)'s; the price is a higher rate at the
/// same memory, because some blocks receive more than their share of items.
/// The block is `reduce(hash, blocks)`; where the bits go inside it is the
/// filter's [`BlockLayout`]: by default `k / 8` bits in each 64-bit word
/// ([`sector_masks`](bloomlab_core::hash::sector_masks)), whose rate [`sectored::fpr_exact`] predicts, or `k`
/// positions anywhere in the block, whose rate [`blocked::fpr_exact`]
/// predicts. Both model the positions as independent uniform draws.
///
/// ```
/// use bloomlab_classic::BlockedBloomFilter;
///
/// let mut f = BlockedBloomFilter::builder(10_000, 0.01).seed(1).build().unwrap();
/// for i in 0..10_000u64 {
///     f.insert(&i);
/// }
/// // 198 blocks: 10.14 bits per item where the classic filter takes 9.85,
/// // and one bit in each of the eight words of a block.
/// assert_eq!((f.num_blocks(), f.num_hashes()), (198, 8));
/// assert!(f.expected_fpr() <= 0.01);
/// assert!((0..10_000u64).all(|i| f.contains(&i)));
/// ```
pub struct BlockedBloomFilter<T: ?Sized, S = DefaultHasher> {
    blocks: Buffer<Block>,
    layout: BlockLayout,
    num_hashes: u32,
    len: usize,
    hasher: S,
    /// The code of the one-bit-a-word lookup on this processor, chosen once.
    test: SectorTest,
    /// The item type: only what it hashes to is stored.
    item: PhantomData<fn(&T)>,
}

impl<T: ?Sized, S: Clone> Clone for BlockedBloomFilter<T, S> {
    fn clone(&self) -> Self {
        Self {
            blocks: self.blocks.clone(),
            layout: self.layout,
            num_hashes: self.num_hashes,
            len: self.len,
            hasher: self.hasher.clone(),
            test: self.test,
            item: PhantomData,
        }
    }
}

impl<T: ?Sized, S: PartialEq> PartialEq for BlockedBloomFilter<T, S> {
    fn eq(&self, other: &Self) -> bool {
        self.blocks == other.blocks
            && self.layout == other.layout
            && self.num_hashes == other.num_hashes
            && self.len == other.len
            && self.hasher == other.hasher
    }
}

impl<T: ?Sized, S: Eq> Eq for BlockedBloomFilter<T, S> {}

impl<T: ?Sized> BlockedBloomFilter<T, DefaultHasher> {
    /// A filter for `expected_items` at rate `fpr`, with a random hash key,
    /// in the [`Sectors`](BlockLayout::Sectors) layout: the fewest blocks for
    /// which [`sectored::fpr_exact`] reaches `fpr`.
    ///
    /// # Errors
    ///
    /// As [`BlockedBuilder::build`].
    pub fn new(expected_items: usize, fpr: f64) -> Result<Self, BuildError> {
        Self::builder(expected_items, fpr).build()
    }

    /// A filter of exactly `blocks` blocks of 512 bits and `num_hashes`
    /// hashes, with a random hash key, in the
    /// [`Sectors`](BlockLayout::Sectors) layout (so `num_hashes` is a
    /// multiple of 8; [`builder_with_blocks`](Self::builder_with_blocks)
    /// takes another layout).
    ///
    /// # Errors
    ///
    /// As [`BlockedBuilder::build`].
    pub fn with_blocks(blocks: u64, num_hashes: u32) -> Result<Self, BuildError> {
        Self::builder_with_blocks(blocks, num_hashes).build()
    }

    /// A builder sized for `expected_items` at rate `fpr`. Its options
    /// ([`BlockedBuilder`]): [`seed`](BlockedBuilder::seed),
    /// [`hasher`](BlockedBuilder::hasher),
    /// [`layout`](BlockedBuilder::layout) (how an item's bits sit in its
    /// block) and [`max_bytes`](BlockedBuilder::max_bytes); then
    /// [`build`](BlockedBuilder::build).
    ///
    /// ```
    /// use bloomlab_classic::{BlockLayout, BlockedBloomFilter};
    ///
    /// let f = BlockedBloomFilter::<u64>::builder(10_000, 0.01)
    ///     .seed(7)
    ///     .layout(BlockLayout::Positions)
    ///     .build()?;
    /// assert_eq!(f.layout(), BlockLayout::Positions);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn builder(expected_items: usize, fpr: f64) -> BlockedBuilder<T, DefaultHasher> {
        BlockedBuilder::items(expected_items, fpr)
    }

    /// A builder of exactly `blocks` blocks and `num_hashes` hashes.
    pub fn builder_with_blocks(blocks: u64, num_hashes: u32) -> BlockedBuilder<T, DefaultHasher> {
        BlockedBuilder::blocks(blocks, num_hashes)
    }

    /// The filter in the binary format of [`bloomlab_core::codec`] (see
    /// [`crate::codec`] for the fields), in its layout's format version
    /// ([`BlockLayout::version`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        WordTable::encode(
            BLOCKED_TAG,
            self.layout.version(),
            &self.hasher,
            self.blocks.len() as u64,
            self.num_hashes,
            self.len,
            self.blocks.iter().flatten().copied(),
        )
    }

    /// Reads a filter written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] for any bad input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let s = WordTable::decode(bytes, BLOCKED_TAG, |blocks| {
            blocks.checked_mul(BLOCK_WORDS as u64)
        })?;
        if s.size == 0 {
            return Err(invalid(ParamError::ZeroBits.into()));
        }
        let hasher = s.hasher;
        let layout = BlockLayout::of_version(s.version);
        Self::from_slice(&s.words, layout, s.num_hashes, s.len, hasher).map_err(invalid)
    }
}

impl<T: ?Sized, S: BuildHasher> BlockedBloomFilter<T, S> {
    /// An empty filter of `blocks` blocks; the sizes are already checked,
    /// `num_hashes` against the layout too.
    pub(crate) fn zeroed(
        blocks: usize,
        layout: BlockLayout,
        num_hashes: u32,
        hasher: S,
    ) -> Result<Self, BuildError> {
        Ok(Self {
            blocks: alloc::buffer(blocks)?,
            layout,
            num_hashes,
            len: 0,
            hasher,
            test: SectorTest::detect(),
            item: PhantomData,
        })
    }

    /// Rebuilds a filter from raw parts: the words of its blocks (bit `p` of
    /// block `b` in `words[8 * b + p / 64]` at `1 << (p % 64)`, as
    /// [`words`](Self::words) yields them), the layout they were set in,
    /// `k`, the count of inserts and the hasher. This is how a table kept
    /// elsewhere (in Redis, say) comes back into memory.
    ///
    /// ```
    /// use bloomlab_classic::BlockedBloomFilter;
    ///
    /// let mut f = BlockedBloomFilter::builder(1_000, 0.01).seed(1).build()?;
    /// f.insert(&7u64)?;
    /// let words: Vec<u64> = f.words().collect();
    /// let (layout, k, len) = (f.layout(), f.num_hashes(), f.len());
    /// let g = BlockedBloomFilter::from_words(words, layout, k, len, f.hasher().clone())?;
    /// assert!(g == f && g.contains(&7u64));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`BuildError::Param`] for zero hashes or more than
    /// [`MAX_HASHES`](bloomlab_core::theory::classic::MAX_HASHES), a `k` the layout cannot split
    /// ([`ParamError::HashesPerSector`]), or no words;
    /// [`Invalid::WordCount`](crate::Invalid::WordCount) unless the words fill whole blocks of 8;
    /// [`BuildError::OutOfMemory`] if the allocator refuses the table.
    pub fn from_words(
        words: Vec<u64>,
        layout: BlockLayout,
        num_hashes: u32,
        len: usize,
        hasher: S,
    ) -> Result<Self, BuildError> {
        Self::from_slice(&words, layout, num_hashes, len, hasher)
    }

    /// [`from_words`](Self::from_words) over borrowed words.
    fn from_slice(
        words: &[u64],
        layout: BlockLayout,
        num_hashes: u32,
        len: usize,
        hasher: S,
    ) -> Result<Self, BuildError> {
        check_hashes(num_hashes)?;
        layout.check_hashes(num_hashes)?;
        if words.is_empty() {
            return Err(ParamError::ZeroBits.into());
        }
        if !words.len().is_multiple_of(BLOCK_WORDS) {
            return Err(BuildError::Variant(Invalid::WordCount {
                expected: words.len().next_multiple_of(BLOCK_WORDS) as u64,
                found: words.len() as u64,
            }));
        }
        let mut filter = Self::zeroed(words.len() / BLOCK_WORDS, layout, num_hashes, hasher)?;
        for (block, chunk) in filter
            .blocks
            .iter_mut()
            .zip(words.chunks_exact(BLOCK_WORDS))
        {
            block.copy_from_slice(chunk);
        }
        filter.len = len;
        Ok(filter)
    }

    /// The table as 64-bit words, block after block: bit `p` of block `b` is
    /// `words[8 * b + p / 64] >> (p % 64) & 1`.
    pub fn words(&self) -> impl Iterator<Item = u64> + '_ {
        self.blocks.iter().flatten().copied()
    }

    /// The table as its blocks, each one 64-byte cache line of eight words
    /// (the words of [`words`](Self::words), eight at a time): an item of
    /// hash `h` is in block `reduce(h, num_blocks)`
    /// ([`bloomlab_core::hash::reduce`]).
    ///
    /// ```
    /// use bloomlab_classic::BlockedBloomFilter;
    ///
    /// let f = BlockedBloomFilter::<u64>::new(1_000, 0.01)?;
    /// assert_eq!(f.as_blocks().len() as u64, f.num_blocks());
    /// assert!(f.as_blocks().iter().flatten().copied().eq(f.words()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn as_blocks(&self) -> &[[u64; 8]] {
        &self.blocks
    }

    /// Blocks of 512 bits.
    pub fn num_blocks(&self) -> u64 {
        self.blocks.len() as u64
    }

    /// Bits in the table: 512 per block.
    pub fn num_bits(&self) -> u64 {
        self.num_blocks() * u64::from(BLOCK_BITS)
    }

    /// `k`, the positions set per item (all in one block).
    pub fn num_hashes(&self) -> u32 {
        self.num_hashes
    }

    /// Where an item's bits go inside its block.
    pub fn layout(&self) -> BlockLayout {
        self.layout
    }

    /// The hasher items go through.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Adds `item`; `true` if it was not reported present before.
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

    #[inline]
    fn block_of(&self, hash: u64) -> usize {
        reduce(hash, self.blocks.len() as u64) as usize
    }

    /// Adds the item whose hash is `hash`; `true` if one of its bits was unset.
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        let i = self.block_of(hash);
        let one_per_word = self.num_hashes == SECTORS as u32;
        let block = &mut self.blocks[i];
        let mut missing = 0;
        match self.layout {
            BlockLayout::Sectors if one_per_word => {
                for (w, word) in block.iter_mut().enumerate() {
                    let mask = sector_mask(hash, w);
                    missing |= mask & !*word;
                    *word |= mask;
                }
            }
            BlockLayout::Sectors => {
                let masks = sector_masks(hash, self.num_hashes / SECTORS as u32);
                for (word, mask) in block.iter_mut().zip(masks) {
                    missing |= mask & !*word;
                    *word |= mask;
                }
            }
            BlockLayout::Positions => {
                for_each_block_position::<LOG2_BLOCK_BITS>(hash, self.num_hashes, |p| {
                    let (word, bit) = (&mut block[(p >> 6) as usize], 1 << (p & 63));
                    missing |= bit & !*word;
                    *word |= bit;
                })
            }
        }
        self.len = self.len.saturating_add(1);
        missing != 0
    }

    /// Whether every bit of the item whose hash is `hash` is set.
    ///
    /// Always inlined, and small: the usual one bit per word is tested
    /// here, every other layout out of line (`contains_in`). A call per
    /// lookup (saving and restoring the registers the masks need) adds
    /// instructions to every lookup, which past the cache cost as much as
    /// they keep the processor from overlapping the next lookups' loads;
    /// and with every layout's code in it, the lookup grew past what the
    /// compiler inlines into a caller's loop on its own, so that
    /// [`contains`](Self::contains) was such a call (`benches/FINDINGS.md`).
    #[inline(always)]
    pub fn contains_hash(&self, hash: u64) -> bool {
        let block = &self.blocks[self.block_of(hash)];
        if self.layout == BlockLayout::Sectors && self.num_hashes == SECTORS as u32 {
            // One bit per word, what every rate from about 0.1% up sizes:
            // the eight words tested at once with vector instructions
            // (AVX-512 or AVX2 where the processor has them), with no
            // early exit: a miss would stop at an unpredictable word, and
            // the mispredicted branch costs more than testing the rest of
            // a line already loaded.
            self.test.cells_set::<1>(block, hash)
        } else {
            self.contains_in(block, hash)
        }
    }

    /// [`contains_hash`](Self::contains_hash)'s test of `block` for every
    /// layout but one bit per word.
    #[inline(never)]
    fn contains_in(&self, block: &Block, hash: u64) -> bool {
        match self.layout {
            BlockLayout::Sectors => {
                let masks = sector_masks(hash, self.num_hashes / SECTORS as u32);
                let mut missing = 0;
                for (word, mask) in block.iter().zip(masks) {
                    missing |= mask & !word;
                }
                missing == 0
            }
            BlockLayout::Positions => {
                let mut all = 1;
                for_each_block_position::<LOG2_BLOCK_BITS>(hash, self.num_hashes, |p| {
                    all &= block[(p >> 6) as usize] >> (p & 63);
                });
                all & 1 == 1
            }
        }
    }

    /// Looks up every item of `items`; the answers, in order, are those of
    /// [`contains`](Self::contains).
    ///
    /// Pipelined for tables larger than the cache ([`batch`](bloomlab_core::batch)): a chunk of
    /// items is hashed first, then each item's block is prefetched a few
    /// items ([`ahead`](batch::ahead)) before it is probed, so that many
    /// memory loads are in flight at once.
    ///
    /// ```
    /// use bloomlab_classic::BlockedBloomFilter;
    ///
    /// let mut f = BlockedBloomFilter::builder(1_000, 0.01).seed(1).build().unwrap();
    /// assert_eq!(f.insert_batch(&["a", "b", "a"]), Ok(2));
    /// assert_eq!(f.contains_batch(&["a", "b"]), [true, true]);
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

    /// Inserts made, repeats included, as
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
        self.blocks.fill([0; BLOCK_WORDS]);
        self.len = 0;
    }

    /// Bits set.
    pub fn count_ones(&self) -> u64 {
        self.blocks.iter().map(|b| u64::from(ones(b))).sum()
    }

    /// The fraction of bits set.
    pub fn fill_ratio(&self) -> f64 {
        self.count_ones() as f64 / self.num_bits() as f64
    }

    /// The number of distinct items the set bits suggest, from the whole
    /// table's unset bits ([`blocked::estimate_count`]): each item makes
    /// `k / 8` draws among the 64 bits of each of its block's words in the
    /// [`Sectors`](BlockLayout::Sectors) layout, `k` among the block's 512
    /// in the [`Positions`](BlockLayout::Positions) one, and block loads
    /// are Poisson. Infinite only when every bit is set.
    ///
    /// ```
    /// use bloomlab_classic::BlockedBloomFilter;
    /// use bloomlab_core::theory::blocked::estimate_count_sd;
    ///
    /// let mut f = BlockedBloomFilter::builder(10_000, 0.01).seed(1).build()?;
    /// for i in 0..10_000u64 {
    ///     f.insert(&i)?;
    /// }
    /// // At 1%, one bit in each word an item: each bit stays unset on its
    /// // own (Poisson block loads), so the estimate's spread is the
    /// // binomial one of the unset bits, through the delta method.
    /// let (blocks, m) = (f.num_blocks() as f64, f.num_bits() as f64);
    /// let sd = estimate_count_sd(blocks, 64.0, 1.0, m, 1.0 - f.fill_ratio());
    /// let estimate = f.estimate_count();
    /// // 3.29 sd: the 99.9% normal interval.
    /// assert!((estimate - 10_000.0).abs() <= 3.2905 * sd, "{estimate}, sd {sd}");
    /// assert_eq!(f.num_hashes(), 8);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn estimate_count(&self) -> f64 {
        let (cells, draws) = match self.layout {
            BlockLayout::Sectors => (64.0, f64::from(self.num_hashes / SECTORS as u32)),
            BlockLayout::Positions => (f64::from(BLOCK_BITS), f64::from(self.num_hashes)),
        };
        let zero = 1.0 - self.fill_ratio();
        blocked::estimate_count(self.blocks.len() as f64, cells, draws, zero)
    }

    /// The rate theory predicts after [`len`](Self::len) distinct inserts:
    /// [`sectored::fpr_exact`]`(64, 8, blocks, len, k)` in the
    /// [`Sectors`](BlockLayout::Sectors) layout,
    /// [`blocked::fpr_exact`]`(512, blocks, len, k)` in the
    /// [`Positions`](BlockLayout::Positions) one.
    ///
    /// Computed afresh on every call by a dynamic program over block loads:
    /// 1 to 3 ms for the positions layout at 50 items per block and k = 6,
    /// far less for sectors (the cost grows with k and the items per block,
    /// not with the table). Cheap next to filling the filter, too dear for a
    /// hot loop. Not cached, so the filter stays plain data, `Sync` and
    /// comparable.
    pub fn expected_fpr(&self) -> f64 {
        self.layout.fpr_exact(
            BLOCK_BITS,
            self.num_blocks(),
            self.len as u64,
            self.num_hashes,
        )
    }

    /// The rate of a probe against the table as it stands: the mean over
    /// blocks of the chance that all of a probe's bits are set, exact for
    /// independent uniform positions (`(ones/512)^k` for a block in the
    /// positions layout, the product over its words of `(ones/64)^(k/8)` in
    /// the sectors layout). Where [`expected_fpr`](Self::expected_fpr)
    /// averages over every way the items could have fallen, this is the
    /// rate of these items' table.
    pub fn estimated_fpr(&self) -> f64 {
        let k = self.num_hashes as i32;
        let pass = |block: &Block| match self.layout {
            BlockLayout::Sectors => block
                .iter()
                .map(|w| (f64::from(w.count_ones()) / 64.0).powi(k / SECTORS as i32))
                .product(),
            BlockLayout::Positions => (f64::from(ones(block)) / f64::from(BLOCK_BITS)).powi(k),
        };
        let total: f64 = self.blocks.iter().map(pass).sum();
        total / self.blocks.len() as f64
    }

    /// Bytes of the table.
    pub fn memory_bytes(&self) -> usize {
        self.blocks.len() * size_of::<Block>()
    }

    /// Combines `other`'s words into these with `op`, if the two filters
    /// have the same blocks, layout, `k` and hasher.
    fn merge(&mut self, other: &Self, op: impl Fn(&mut u64, u64)) -> Result<(), MergeError>
    where
        S: PartialEq,
    {
        let shape = |f: &Self| (f.num_bits(), f.num_hashes);
        MergeError::check(shape(self), shape(other), self.hasher == other.hasher)?;
        if self.layout != other.layout {
            return Err(MergeError::Layout {
                ours: self.layout,
                theirs: other.layout,
            });
        }
        let theirs = other.blocks.iter().flatten();
        for (a, &b) in self.blocks.iter_mut().flatten().zip(theirs) {
            op(a, b);
        }
        Ok(())
    }

    /// The bitwise OR: holds every item of both. As
    /// [`BloomFilter::union`](crate::BloomFilter::union), including why
    /// `S: PartialEq` and what [`len`](Self::len) becomes.
    ///
    /// # Errors
    ///
    /// [`MergeError`] if the block counts, `k` or the hashers differ.
    pub fn union(&mut self, other: &Self) -> Result<(), MergeError>
    where
        S: PartialEq,
    {
        self.merge(other, |a, b| *a |= b)?;
        self.len = self.len.saturating_add(other.len);
        Ok(())
    }

    /// The bitwise AND: keeps every item inserted into both. As
    /// [`BloomFilter::intersect`](crate::BloomFilter::intersect).
    ///
    /// # Errors
    ///
    /// As [`union`](Self::union).
    pub fn intersect(&mut self, other: &Self) -> Result<(), MergeError>
    where
        S: PartialEq,
    {
        self.merge(other, |a, b| *a &= b)?;
        self.len = self.len.min(other.len);
        Ok(())
    }
}

impl<T: ?Sized, S> fmt::Debug for BlockedBloomFilter<T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockedBloomFilter")
            .field("num_blocks", &self.blocks.len())
            .field("layout", &self.layout)
            .field("num_hashes", &self.num_hashes)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl<T: ?Sized, S: BuildHasher> BlockedBloomFilter<T, S> {
    /// Cache lines a lookup reads (`HashMembership::lookup_lines`).
    pub(crate) fn lookup_cache_lines(&self) -> usize {
        1
    }

    /// Starts loading the item's block.
    #[inline]
    pub(crate) fn prefetch_hash(&self, hash: u64) {
        batch::prefetch(&self.blocks[self.block_of(hash)]);
    }
}

bloomlab_core::impl_filter!(Filter, HashMembership, Extend, Persist
    for BlockedBloomFilter<T, S> where S: BuildHasher);

impl<T: ?Sized, S: BuildHasher + Clone> BlockedBloomFilter<T, S> {
    /// An empty filter that can merge with `other`: the same blocks, layout,
    /// hash count and hasher. Filters made with [`new`](BlockedBloomFilter::new)
    /// each draw a random key and cannot merge; make the second from the
    /// first (see [`BloomFilter::compatible_with`](crate::BloomFilter::compatible_with)).
    ///
    /// # Errors
    ///
    /// [`BuildError::OutOfMemory`] if the allocator refuses the table.
    pub fn compatible_with(other: &Self) -> Result<Self, BuildError> {
        Self::zeroed(
            other.blocks.len(),
            other.layout,
            other.num_hashes,
            other.hasher.clone(),
        )
    }
}

bloomlab_core::impl_filter!(BitOr<MergeError> for BlockedBloomFilter<T, S> where S: BuildHasher + Clone + PartialEq);

#[cfg(test)]
mod tests {
    use super::*;
    use bloomlab_core::hash::BlockPositions;

    fn positions(blocks: u64, k: u32) -> BlockedBloomFilter<u64> {
        BlockedBloomFilter::builder_with_blocks(blocks, k)
            .layout(BlockLayout::Positions)
            .build()
            .unwrap()
    }

    #[test]
    fn a_block_is_one_cache_line() {
        assert_eq!(size_of::<Block>(), 64);
        assert_eq!(SECTORS, BLOCK_WORDS);
        let f: BlockedBloomFilter<u64> = BlockedBloomFilter::with_blocks(10, 8).unwrap();
        assert_eq!(f.blocks.as_ptr() as usize % 64, 0);
    }

    #[test]
    fn an_item_sets_its_masks_in_its_block() {
        for per_word in [1, 2, 8] {
            let mut f: BlockedBloomFilter<u64> =
                BlockedBloomFilter::with_blocks(10, 8 * per_word).unwrap();
            let hash = 0xfeed_face_dead_beef;
            assert!(f.insert_hash(hash));
            let block = reduce(hash, 10) as usize;
            let want = sector_masks(hash, per_word);
            for (i, b) in f.blocks.iter().enumerate() {
                assert_eq!(*b, if i == block { want } else { [0; 8] });
            }
            assert!(!f.insert_hash(hash));
            assert!(f.contains_hash(hash));
            // Any one bit of the item missing makes it absent.
            for (w, mask) in want.iter().enumerate() {
                let mut g = f.clone();
                g.blocks[block][w] &= !(1 << mask.trailing_zeros());
                assert!(!g.contains_hash(hash), "word {w}");
            }
        }
    }

    #[test]
    fn sectors_take_multiples_of_eight_hashes() {
        let err = BlockedBloomFilter::<u64>::with_blocks(10, 7).unwrap_err();
        let want = ParamError::HashesPerSector {
            hashes: 7,
            sectors: 8,
        };
        assert_eq!(err, BuildError::Param(want));
        let err = BlockedBloomFilter::<u64>::from_words(
            vec![0; 8],
            BlockLayout::Sectors,
            12,
            0,
            DefaultHasher::from_seed(1),
        );
        assert_eq!(
            err.unwrap_err(),
            BuildError::Param(ParamError::HashesPerSector {
                hashes: 12,
                sectors: 8
            })
        );
        assert!(positions(10, 7).num_hashes() == 7);
    }

    #[test]
    fn layouts_do_not_merge() {
        let mut a = BlockedBloomFilter::<u64>::builder_with_blocks(4, 8)
            .seed(3)
            .build()
            .unwrap();
        let b = BlockedBloomFilter::<u64>::builder_with_blocks(4, 8)
            .seed(3)
            .layout(BlockLayout::Positions)
            .build()
            .unwrap();
        let before = a.clone();
        assert_eq!(
            a.union(&b),
            Err(MergeError::Layout {
                ours: BlockLayout::Sectors,
                theirs: BlockLayout::Positions
            })
        );
        assert!(a == before);
    }

    #[test]
    fn an_item_sets_its_positions_in_its_block() {
        let mut f = positions(10, 7);
        let hash = 0xfeed_face_dead_beef;
        assert!(f.insert_hash(hash));
        let block = reduce(hash, 10) as usize;
        let mut want = [0u64; 8];
        for p in BlockPositions::new(hash, 9).take(7) {
            want[p as usize / 64] |= 1 << (p % 64);
        }
        for (i, b) in f.blocks.iter().enumerate() {
            assert_eq!(*b, if i == block { want } else { [0; 8] });
        }
        assert!(!f.insert_hash(hash));
        assert!(f.contains_hash(hash));
    }
}
