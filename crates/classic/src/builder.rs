//! Builders: size a filter from (items, rate) or give its size, pick the
//! hasher, cap the memory.

use std::hash::BuildHasher;

use bloomlab_core::builder::Settings;
use bloomlab_core::theory::classic;
#[cfg(doc)]
use bloomlab_core::theory::classic::MAX_HASHES;
use bloomlab_core::{DefaultHasher, ParamError, check_fpr, check_hashes};

use crate::atomic::AtomicBloomFilter;
use crate::bits::BloomFilter;
use crate::blocked::{BlockLayout, BlockedBloomFilter};
use crate::error::BuildError;
use crate::sizing::{self, BLOCK_BITS, DEFAULT_MAX_BYTES};
use crate::table::{Table, Word};

/// How the table is sized.
#[derive(Debug, Clone, Copy)]
enum Size {
    /// From the items expected and the target rate.
    Items { items: usize, fpr: f64 },
    /// Given outright: bits (or blocks) and hashes.
    Exact { units: u64, hashes: u32 },
}

/// What every builder sets beside the hasher.
#[derive(Debug, Clone, Copy)]
struct Spec {
    size: Size,
    max_bytes: usize,
    /// Sizes a classic table by `smallest_size_for` instead of `size_for`.
    smallest: bool,
}

impl Spec {
    fn new(size: Size) -> Self {
        Self {
            size,
            max_bytes: DEFAULT_MAX_BYTES,
            smallest: false,
        }
    }

    /// The empty table of a classic filter, plain or atomic.
    fn classic_table<W: Word>(&self) -> Result<Table<W>, BuildError> {
        let (bits, hashes, words) = self.classic_shape()?;
        Ok(Table::zeroed(bits, hashes, words)?)
    }

    /// The units (bits or blocks) and hashes of the size: from items and a
    /// rate by `size_for`, once both are checked, or as given; either way
    /// at least one unit and a usable hash count.
    fn units_and_hashes(
        &self,
        size_for: impl FnOnce(u64, f64) -> Result<(u64, u32), ParamError>,
    ) -> Result<(u64, u32), BuildError> {
        let (units, hashes) = match self.size {
            Size::Items { items, fpr } => {
                check_fpr(fpr)?;
                if items == 0 {
                    return Err(ParamError::ZeroItems.into());
                }
                size_for(items as u64, fpr)?
            }
            Size::Exact { units, hashes } => (units, hashes),
        };
        check_hashes(hashes)?;
        if units == 0 {
            return Err(ParamError::ZeroBits.into());
        }
        Ok((units, hashes))
    }

    /// Bits and hashes of a classic filter, checked against the limit.
    fn classic_shape(&self) -> Result<(u64, u32, usize), BuildError> {
        let (bits, hashes) = self.units_and_hashes(if self.smallest {
            classic::smallest_size_for
        } else {
            classic::size_for
        })?;
        let words = sizing::check_words(u128::from(bits.div_ceil(64)), self.max_bytes)?;
        Ok((bits, hashes, words))
    }

    /// Blocks and hashes of a blocked filter in `layout`, checked against
    /// the limit and the layout.
    fn blocked_shape(&self, layout: BlockLayout) -> Result<(u32, usize), BuildError> {
        let (blocks, hashes) =
            self.units_and_hashes(|items, fpr| layout.size_for(BLOCK_BITS, items, fpr))?;
        layout.check_hashes(hashes)?;
        let words_per_block = u128::from(BLOCK_BITS / 64);
        sizing::check_words(u128::from(blocks) * words_per_block, self.max_bytes)?;
        let blocks = usize::try_from(blocks).map_err(|_| ParamError::TooLarge {
            needed: u128::MAX,
            limit: self.max_bytes as u128,
        })?;
        Ok((hashes, blocks))
    }
}

/// Builds a [`BloomFilter`]: from [`BloomFilter::builder`] (items and rate)
/// or [`BloomFilter::builder_with_bits`] (bits and hashes).
///
/// ```
/// use bloomlab_classic::BloomFilter;
///
/// let f = BloomFilter::<u64>::builder(1_000, 0.01).seed(7).max_bytes(4_096).build().unwrap();
/// assert_eq!((f.num_bits(), f.num_hashes()), (9_856, 5));
/// assert!(BloomFilter::<u64>::builder(1_000_000, 0.01).max_bytes(4_096).build().is_err());
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct Builder<T: ?Sized, S = DefaultHasher>(Settings<T, Spec, S>);

bloomlab_core::impl_builder!(Builder);

impl<T: ?Sized> Builder<T, DefaultHasher> {
    pub(crate) fn items(items: usize, fpr: f64) -> Self {
        Self(Settings::new(Spec::new(Size::Items { items, fpr })))
    }

    pub(crate) fn bits(bits: u64, hashes: u32) -> Self {
        Self(Settings::new(Spec::new(Size::Exact {
            units: bits,
            hashes,
        })))
    }

    /// Uses [`DefaultHasher::from_seed`]`(seed)`: reproducible, but never for
    /// a filter that guards a service against crafted input.
    pub fn seed(self, seed: u64) -> Self {
        Self(self.0.seed(seed))
    }
}

impl<T: ?Sized, S> Builder<T, S> {
    /// Uses `hasher` instead of the keyed default.
    pub fn hasher<S2: BuildHasher>(self, hasher: S2) -> Builder<T, S2> {
        Builder(self.0.hasher(hasher))
    }

    /// Refuses to build a table of more than `max_bytes` bytes (by default,
    /// the most the platform can address).
    pub fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.0.max_bytes = max_bytes;
        self
    }

    /// Sized from items and a rate, builds the smallest table that keeps the
    /// rate, with the `k` that needs least room
    /// ([`classic::smallest_size_for`]), instead of the default's fewer
    /// hashes in a table up to 1/32 larger ([`classic::size_for`]). No
    /// effect on a size given in bits.
    ///
    /// ```
    /// use bloomlab_classic::BloomFilter;
    ///
    /// let lean = BloomFilter::<u64>::builder(1_000_000, 0.01).build()?;
    /// let small = BloomFilter::<u64>::builder(1_000_000, 0.01).smallest_table().build()?;
    /// assert_eq!((lean.num_hashes(), small.num_hashes()), (5, 7));
    /// assert_eq!((lean.num_bits(), small.num_bits()), (9_848_832, 9_592_960));
    /// # Ok::<(), bloomlab_classic::BuildError>(())
    /// ```
    pub fn smallest_table(mut self) -> Self {
        self.0.smallest = true;
        self
    }
}

impl<T: ?Sized, S: BuildHasher> Builder<T, S> {
    /// The empty filter.
    ///
    /// # Errors
    ///
    /// [`BuildError::Param`] for a rate outside (0, 1), zero items, zero bits,
    /// zero hashes, more than [`MAX_HASHES`](bloomlab_core::theory::classic::MAX_HASHES), or a table beyond the byte
    /// limit; [`BuildError::OutOfMemory`] if the allocator refuses the table.
    pub fn build(self) -> Result<BloomFilter<T, S>, BuildError> {
        let (spec, hasher) = self.0.into_parts();
        Ok(BloomFilter::from_table(spec.classic_table()?, 0, hasher))
    }
}

/// Builds a [`BlockedBloomFilter`]: from [`BlockedBloomFilter::builder`]
/// (items and rate) or [`BlockedBloomFilter::builder_with_blocks`].
#[must_use = "a builder does nothing until `build` is called"]
pub struct BlockedBuilder<T: ?Sized, S = DefaultHasher>(Settings<T, Blocked, S>);

/// What a [`BlockedBuilder`] sets beside the hasher.
#[derive(Debug, Clone, Copy)]
struct Blocked {
    spec: Spec,
    layout: BlockLayout,
}

bloomlab_core::impl_builder!(BlockedBuilder);

impl<T: ?Sized> BlockedBuilder<T, DefaultHasher> {
    pub(crate) fn items(items: usize, fpr: f64) -> Self {
        Self::with_size(Size::Items { items, fpr })
    }

    pub(crate) fn blocks(blocks: u64, hashes: u32) -> Self {
        Self::with_size(Size::Exact {
            units: blocks,
            hashes,
        })
    }

    fn with_size(size: Size) -> Self {
        Self(Settings::new(Blocked {
            spec: Spec::new(size),
            layout: BlockLayout::default(),
        }))
    }

    /// Uses [`DefaultHasher::from_seed`]`(seed)`.
    pub fn seed(self, seed: u64) -> Self {
        Self(self.0.seed(seed))
    }
}

impl<T: ?Sized, S> BlockedBuilder<T, S> {
    /// Uses `hasher` instead of the keyed default.
    pub fn hasher<S2: BuildHasher>(self, hasher: S2) -> BlockedBuilder<T, S2> {
        BlockedBuilder(self.0.hasher(hasher))
    }

    /// Lays out each item's bits in its block by `layout` instead of the
    /// default [`BlockLayout::Sectors`]; sizing from items and a rate then
    /// uses that layout's theory.
    ///
    /// ```
    /// use bloomlab_classic::{BlockLayout, BlockedBloomFilter};
    ///
    /// let f = BlockedBloomFilter::<u64>::builder(10_000, 0.01)
    ///     .layout(BlockLayout::Positions)
    ///     .build()?;
    /// assert_eq!((f.num_blocks(), f.num_hashes()), (194, 6));
    /// // Sectors need a multiple of 8 hashes.
    /// assert!(BlockedBloomFilter::<u64>::with_blocks(10, 7).is_err());
    /// # Ok::<(), bloomlab_classic::BuildError>(())
    /// ```
    pub fn layout(mut self, layout: BlockLayout) -> Self {
        self.0.layout = layout;
        self
    }

    /// Refuses to build a table of more than `max_bytes` bytes.
    pub fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.0.spec.max_bytes = max_bytes;
        self
    }
}

impl<T: ?Sized, S: BuildHasher> BlockedBuilder<T, S> {
    /// The empty filter. Sizing from (items, rate) evaluates the exact
    /// blocked rate some twenty times: for a million items at 1%, about
    /// 18 ms in the positions layout (measured, release build) and less in
    /// the sectors one, where the classic filter's sizing takes microseconds.
    ///
    /// # Errors
    ///
    /// As [`Builder::build`]; zero blocks is [`ParamError::ZeroBits`]; in
    /// the sectors layout, a hash count that is not a multiple of 8 is
    /// [`ParamError::HashesPerSector`].
    pub fn build(self) -> Result<BlockedBloomFilter<T, S>, BuildError> {
        let (Blocked { spec, layout }, hasher) = self.0.into_parts();
        let (hashes, blocks) = spec.blocked_shape(layout)?;
        BlockedBloomFilter::zeroed(blocks, layout, hashes, hasher)
    }
}

/// Builds an [`AtomicBloomFilter`]: sized exactly as [`Builder`] sizes a
/// [`BloomFilter`].
#[must_use = "a builder does nothing until `build` is called"]
pub struct AtomicBuilder<T: ?Sized, S = DefaultHasher>(Builder<T, S>);

bloomlab_core::impl_builder!(AtomicBuilder);

impl<T: ?Sized> AtomicBuilder<T, DefaultHasher> {
    pub(crate) fn new(inner: Builder<T, DefaultHasher>) -> Self {
        Self(inner)
    }

    /// Uses [`DefaultHasher::from_seed`]`(seed)`.
    pub fn seed(self, seed: u64) -> Self {
        Self(self.0.seed(seed))
    }
}

impl<T: ?Sized, S> AtomicBuilder<T, S> {
    /// Uses `hasher` instead of the keyed default.
    pub fn hasher<S2: BuildHasher>(self, hasher: S2) -> AtomicBuilder<T, S2> {
        AtomicBuilder(self.0.hasher(hasher))
    }

    /// Refuses to build a table of more than `max_bytes` bytes.
    pub fn max_bytes(self, max_bytes: usize) -> Self {
        Self(self.0.max_bytes(max_bytes))
    }

    /// As [`Builder::smallest_table`].
    pub fn smallest_table(self) -> Self {
        Self(self.0.smallest_table())
    }
}

impl<T: ?Sized, S: BuildHasher> AtomicBuilder<T, S> {
    /// The empty filter.
    ///
    /// # Errors
    ///
    /// As [`Builder::build`].
    pub fn build(self) -> Result<AtomicBloomFilter<T, S>, BuildError> {
        let (spec, hasher) = self.0.0.into_parts();
        Ok(AtomicBloomFilter::from_table(
            spec.classic_table()?,
            0,
            hasher,
        ))
    }
}
