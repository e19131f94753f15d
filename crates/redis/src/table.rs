//! What the Bloom and counting filters share: one blocked table in shard
//! keys, its metadata, and the operations on it.

use std::fmt;

use bloomlab_core::hash::HashFunction;
use bloomlab_core::theory::blocked;
use bloomlab_core::{DefaultHasher, check_fpr};

use bloomlab_classic::{BlockLayout, BlockedBloomFilter};

use crate::admin::Info;
use crate::conn::Op;
use crate::error::{BatchError, Error};
use crate::layout::{BLOCK_CELLS, Cell, DEFAULT_MAX_SHARD_BYTES, Keys, Located, Shards, Table};
use crate::meta::{Kind, Meta};
use crate::ops::{self, Batches, Guarded, Start};
use crate::variant::{Bits, Cells, Counters, Inner, Portable, Removes, Variant};

/// The default of [`Options::max_bytes`]: 4 GiB, a filter of about 3.4
/// billion items at 1%.
pub const DEFAULT_MAX_BYTES: u64 = bloomlab_core::shards::DEFAULT_MAX_BYTES;

/// How a filter is created, besides its items and rate, and what size of
/// filter a client accepts.
///
/// ```
/// use bloomlab_redis::Options;
///
/// let o = Options::new().seed(7).max_shard_bytes(64 << 10).max_bytes(1 << 30);
/// assert_eq!((o.get_seed(), o.get_max_shard_bytes()), (Some(7), 65_536));
/// assert_eq!(o.get_max_bytes(), 1 << 30);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    seed: Option<u64>,
    max_shard_bytes: usize,
    max_bytes: u64,
}

impl Default for Options {
    fn default() -> Self {
        Self::new()
    }
}

impl Options {
    /// A random hash key, shards of at most
    /// [`DEFAULT_MAX_SHARD_BYTES`](crate::DEFAULT_MAX_SHARD_BYTES).
    pub fn new() -> Self {
        Self {
            seed: None,
            max_shard_bytes: DEFAULT_MAX_SHARD_BYTES,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }

    /// The most bytes a filter may take in Redis (its tables, all layers of
    /// a scalable filter): `create` refuses a larger design with
    /// [`Error::Param`], and `open` a larger filter with
    /// [`Error::OverLimit`], so that no size stored in Redis makes the
    /// client allocate or loop past what its caller chose. Default
    /// [`DEFAULT_MAX_BYTES`].
    pub fn max_bytes(mut self, bytes: u64) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// The most bytes a filter may take in Redis.
    pub fn get_max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// Derives the hash key from `seed`, as the in-memory filters'
    /// `.seed(seed)` does, so both answer alike. A filter created with a
    /// seed refuses a `create` with another.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Caps each shard key at `bytes` (its blocks and one guard byte).
    pub fn max_shard_bytes(mut self, bytes: usize) -> Self {
        self.max_shard_bytes = bytes;
        self
    }

    /// The seed, if one was given.
    pub fn get_seed(&self) -> Option<u64> {
        self.seed
    }

    /// The cap on a shard's bytes.
    pub fn get_max_shard_bytes(&self) -> usize {
        self.max_shard_bytes
    }

    /// The hash key: from the seed, or random.
    pub(crate) fn hasher(&self) -> DefaultHasher {
        self.seed
            .map_or_else(DefaultHasher::random, DefaultHasher::from_seed)
    }

    /// The metadata of a new filter of `kind` designed for `items` at
    /// `fpr`, its (first) table sized for `items` at `rate`, with these
    /// options' key and shard size; `growth` for a scalable filter.
    pub(crate) fn meta(
        &self,
        kind: Kind,
        item: String,
        (items, fpr): (usize, f64),
        rate: f64,
        growth: Option<(u32, f64)>,
    ) -> Result<Meta, Error> {
        let (blocks, hashes) = blocked::size_for(BLOCK_CELLS, items as u64, rate)?;
        Ok(Meta {
            kind,
            item,
            design: Some((items as u64, fpr)),
            blocks,
            hashes,
            max_shard_bytes: self.max_shard_bytes as u64,
            hash: HashFunction::CURRENT,
            key: self.hasher().key(),
            growth,
        })
    }
}

/// Refuses a design no filter can have: a rate outside (0, 1) or no items.
pub(crate) fn check_design(items: usize, fpr: f64) -> Result<(), Error> {
    check_fpr(fpr)?;
    if items == 0 {
        return Err(bloomlab_core::ParamError::ZeroItems.into());
    }
    Ok(())
}

/// One blocked table kept in Redis.
#[derive(Debug, Clone)]
pub struct TableFilter {
    pub keys: Keys,
    pub meta: Meta,
    pub table: Table,
    pub hasher: DefaultHasher,
    /// The shard keys.
    pub shards: Shards,
}

/// The table a metadata hash describes, whose fields
/// [`Meta::parse`] or `create` checked.
pub fn table_of(meta: &Meta, cell: Cell) -> Result<Table, Error> {
    if meta.blocks == 0 || meta.hashes == 0 {
        return Err(bloomlab_core::ParamError::ZeroBits.into());
    }
    if meta.hashes > bloomlab_core::theory::classic::MAX_HASHES {
        return Err(bloomlab_core::ParamError::TooManyHashes(u64::from(meta.hashes)).into());
    }
    let shard = usize::try_from(meta.max_shard_bytes).unwrap_or(usize::MAX);
    Table::new(meta.blocks, meta.hashes, cell, shard)
}

/// Refuses, before anything is sent, a design whose tables would take more
/// than `limit` bytes in Redis.
pub(crate) fn within(bytes: u64, limit: u64) -> Result<(), Error> {
    if bytes > limit {
        return Err(bloomlab_core::ParamError::TooLarge {
            needed: u128::from(bytes),
            limit: u128::from(limit),
        }
        .into());
    }
    Ok(())
}

impl TableFilter {
    /// The items the table holds, estimated from its non-zero cells.
    pub fn estimate_count(&self) -> impl Op<Output = f64, Error = Error> + use<> {
        ops::estimate_count(vec![(self.table, self.shards.clone())])
    }
}

/// The Bloom and counting filters: one blocked table, its shards spread
/// over a Cluster's slots.
impl<L: Cells> Variant for L {
    type Inner = TableFilter;
    type Meta = Meta;
    type Options = Options;
    const NAME: &'static str = "RedisBlockedFilter";

    fn plan(item: String, items: usize, fpr: f64, options: &Options) -> Result<(Meta, u64), Error> {
        check_design(items, fpr)?;
        let wanted = options.meta(L::KIND, item, (items, fpr), fpr, None)?;
        let bytes = table_of(&wanted, L::CELL)?.bytes();
        Ok((wanted, bytes))
    }

    fn table_options(options: &Options) -> &Options {
        options
    }

    fn keys(name: &str) -> Result<Keys, Error> {
        Keys::spread(name)
    }

    fn from_meta(keys: Keys, meta: Meta, item: &str, max_bytes: u64) -> Result<TableFilter, Error> {
        meta.expect(keys.name(), L::KIND, item)?;
        let table = table_of(&meta, L::CELL).map_err(|e| Error::CorruptMetadata {
            key: keys.meta(),
            field: "blocks",
            value: Some(meta.blocks.to_string()),
            reason: format!("not a table: {e}"),
        })?;
        crate::meta::fits(keys.name(), table.bytes(), max_bytes)?;
        Ok(TableFilter {
            hasher: DefaultHasher::with_function(meta.hash, meta.key),
            shards: Shards::of(&keys),
            keys,
            meta,
            table,
        })
    }
}

/// The Bloom filter, to and from a [`BlockedBloomFilter`] in the
/// [`BlockLayout::Positions`] layout.
impl Portable for Bits {
    type Memory<T: ?Sized> = BlockedBloomFilter<T>;

    /// Its words, little-endian, go into shards with their guards.
    fn image<T: ?Sized>(
        filter: &BlockedBloomFilter<T>,
        max_shard_bytes: usize,
    ) -> Result<Start<Meta>, Error> {
        if filter.layout() != BlockLayout::Positions {
            return Err(Error::Layout(filter.layout()));
        }
        let meta = Meta {
            kind: Kind::Bloom,
            item: crate::meta::item_name::<T>(),
            design: None,
            blocks: filter.num_blocks(),
            hashes: filter.num_hashes(),
            max_shard_bytes: max_shard_bytes as u64,
            hash: filter.hasher().function(),
            key: filter.hasher().key(),
            growth: None,
        };
        let table = table_of(&meta, Cell::Bit)?;
        let words: Vec<u64> = filter.words().collect();
        let shards = ops::shard_images(&words, (0..table.shards()).map(|s| table.body_bytes(s)))?;
        Ok(Start::Import(meta, shards, 0))
    }

    /// Its `len` is the estimate of the items the words hold.
    fn to_memory<T: ?Sized>(
        filter: &TableFilter,
        words: Vec<u64>,
    ) -> Result<BlockedBloomFilter<T>, Error> {
        let nonzero: u64 = words.iter().map(|w| u64::from(w.count_ones())).sum();
        let len = ops::estimate_items(&filter.table, nonzero);
        let len = if len.is_finite() {
            len.round() as usize
        } else {
            usize::MAX
        };
        let layout = BlockLayout::Positions;
        BlockedBloomFilter::from_words(
            words,
            layout,
            filter.table.hashes,
            len,
            filter.hasher.clone(),
        )
        .map_err(|e| Error::CorruptMetadata {
            key: filter.keys.meta(),
            field: "blocks",
            value: Some(filter.table.blocks.to_string()),
            reason: format!("not a table the in-memory filter can hold: {e}"),
        })
    }
}

/// The counting filter: one script on the item's shard.
impl Removes for Counters {
    fn remove(table: &mut TableFilter, hash: u64) -> impl Op<Output = (), Error = Error> {
        ops::remove(table.table, &table.keys, hash)
    }
}

impl Inner for TableFilter {
    fn keys(&self) -> &Keys {
        &self.keys
    }

    fn parameters(&self, d: &mut fmt::DebugStruct<'_, '_>) {
        d.field("kind", &self.meta.kind)
            .field("blocks", &self.table.blocks)
            .field("hashes", &self.table.hashes)
            .field("shards", &self.table.shards());
    }

    /// The rate the table has at its [`estimate_count`](Self::estimate_count).
    fn expected_fpr(&mut self) -> impl Op<Output = f64, Error = Error> {
        let table = self.table;
        ops::then(self.estimate_count(), move |items| {
            Ok(fpr_at(&table, items))
        })
    }

    /// What the filter is and holds, from its cells set.
    fn info(&mut self) -> impl Op<Output = Info, Error = Error> {
        let (name, meta, table) = (self.keys.name().to_owned(), self.meta.clone(), self.table);
        ops::then(self.estimate_count(), move |items| {
            let expected_fpr = fpr_at(&table, items);
            Ok(Info {
                name,
                kind: meta.kind,
                item: meta.item,
                design: meta.design,
                capacity: meta.design.map(|(n, _)| n),
                bytes: table.bytes(),
                shards: table.shards(),
                layers: 1,
                growth_factor: None,
                len: None,
                estimate_count: items,
                expected_fpr,
            })
        })
    }
}

/// The rate theory gives `table` holding `items` (estimated): 1 for a full
/// table.
fn fpr_at(table: &Table, items: f64) -> f64 {
    if !items.is_finite() {
        return 1.0;
    }
    blocked::fpr_exact(
        BLOCK_CELLS,
        table.blocks,
        items.round() as u64,
        table.hashes,
    )
}

impl Batches for TableFilter {
    fn hasher(&self) -> &DefaultHasher {
        &self.hasher
    }

    fn insert(&mut self, hashes: Vec<u64>) -> impl Op<Output = Vec<bool>, Error = BatchError> {
        crate::insert::insert(Located::new(self.table, self.shards.clone(), &hashes))
    }

    fn lookup(&mut self, hashes: Vec<u64>) -> impl Op<Output = Vec<bool>, Error = Error> {
        ops::lookup(Located::new(self.table, self.shards.clone(), &hashes))
    }
}

impl Guarded for TableFilter {
    fn num_shards(&self) -> u64 {
        self.table.shards()
    }

    fn shard_key(&self, s: u64) -> String {
        self.shards.key(s)
    }

    fn body_bytes(&self, s: u64) -> u64 {
        self.table.body_bytes(s)
    }
}
