//! The blocking API of the Bloom and counting filters: what they add to
//! [`RedisFilter`].

use crate::conn::Connection;
use crate::error::Error;
use crate::filter::RedisFilter;
use crate::variant::{Bits, Cells, Counters, Inner, Mode};

/// A Bloom filter kept in Redis: 512-bit blocks in shard keys of at most
/// 1 MiB, sized and hashed exactly as
/// [`BlockedBloomFilter`](bloomlab_classic::BlockedBloomFilter).
///
/// See the [crate docs](crate) for the layout, an example and what happens
/// on restart.
pub type RedisBloomFilter<T, C> = RedisFilter<T, C, Bits>;

/// A counting Bloom filter kept in Redis: the layout of [`RedisBloomFilter`]
/// with a 4-bit saturating counter (`BITFIELD … OVERFLOW SAT INCRBY u4`) per
/// bit, so items can be removed. It answers `contains` exactly as the Bloom
/// filter of the same seed and size, and removes as
/// [`CountingBloomFilter`](bloomlab_core::Deletable) does: a counter at 15
/// stays there, and a remove the counters prove wrong changes nothing.
pub type RedisCountingBloomFilter<T, C> = RedisFilter<T, C, Counters>;

/// A blocked filter kept in Redis, over a blocking connection `C`, of
/// cells `L`: [`RedisBloomFilter`] or [`RedisCountingBloomFilter`], for code
/// generic over both.
pub type RedisBlockedFilter<T, C, L> = RedisFilter<T, C, L>;

impl<T: ?Sized, C: Connection, L: Cells> RedisFilter<T, C, L> {
    /// The items the filter holds, estimated from its non-zero cells
    /// (`BITCOUNT` of every shard for the Bloom filter, as Redisson's
    /// `count()`; the counters read back for the counting filter), for
    /// Poisson block loads. It counts distinct items; duplicates are not
    /// seen. Infinity for a full table.
    ///
    /// # Errors
    ///
    /// Connection errors, [`Error::ShardMissing`].
    pub fn estimate_count(&mut self) -> Result<f64, Error> {
        self.0.run(|table| table.estimate_count())
    }

    /// The false-positive rate of the table as it stands:
    /// [`blocked::fpr_exact`](bloomlab_core::theory::blocked::fpr_exact)
    /// at the [`estimate_count`](RedisFilter::estimate_count) of its cells
    /// set. (A blocked filter in Redis keeps no count of its inserts, so it
    /// has no rate from the load, the in-memory `expected_fpr`.)
    ///
    /// # Errors
    ///
    /// Connection errors, [`Error::ShardMissing`].
    pub fn estimated_fpr(&mut self) -> Result<f64, Error> {
        self.0.run(|table| table.expected_fpr())
    }

    /// The old name of [`estimated_fpr`](RedisFilter::estimated_fpr).
    ///
    /// # Errors
    ///
    /// As `estimated_fpr`.
    #[deprecated(
        since = "0.1.0",
        note = "use `estimated_fpr`: the rate from the table, as the in-memory filters name it"
    )]
    pub fn expected_fpr(&mut self) -> Result<f64, Error> {
        self.estimated_fpr()
    }
}

impl<T: ?Sized, C, L: Cells, M: Mode> RedisFilter<T, C, L, M> {
    /// Blocks of 512 cells.
    pub fn num_blocks(&self) -> u64 {
        self.0.inner.table.blocks
    }

    /// `k`, the cells per item (all in one block).
    pub fn num_hashes(&self) -> u32 {
        self.0.inner.table.hashes
    }

    /// Shard keys.
    pub fn num_shards(&self) -> u64 {
        self.0.inner.table.shards()
    }

    /// The keys of the shards, in order.
    pub fn shard_keys(&self) -> Vec<String> {
        (0..self.num_shards())
            .map(|s| self.0.inner.shards.key(s))
            .collect()
    }

    /// Bytes of the table in Redis (blocks and guard bytes, not Redis's own
    /// per-key overhead).
    pub fn memory_bytes(&self) -> u64 {
        self.0.inner.table.bytes()
    }

    /// The items and rate the filter was sized for (`None` when imported).
    pub fn design(&self) -> Option<(u64, f64)> {
        self.0.inner.meta.design
    }
}
