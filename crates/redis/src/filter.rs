//! [`RedisBlockedFilter`]: the blocking API of the Bloom and counting filters.

use std::borrow::Borrow;
use std::fmt;
use std::hash::Hash;
use std::time::Duration;

use bloomlab_classic::BlockedBloomFilter;
use bloomlab_core::DefaultHasher;

use crate::admin::Info;
use crate::conn::Connection;
use crate::error::{BatchError, Error};
use crate::handle::Handle;
use crate::ops::Batches;
use crate::shared::{Shared, Source};
use crate::table::{Bits, Cells, Counters, Options, TableFilter};

/// A Bloom filter kept in Redis: 512-bit blocks in shard keys of at most
/// 1 MiB, sized and hashed exactly as
/// [`BlockedBloomFilter`](bloomlab_classic::BlockedBloomFilter).
///
/// See the [crate docs](crate) for the layout, an example and what happens
/// on restart.
pub type RedisBloomFilter<T, C> = RedisBlockedFilter<T, C, Bits>;

/// A counting Bloom filter kept in Redis: the layout of [`RedisBloomFilter`]
/// with a 4-bit saturating counter (`BITFIELD … OVERFLOW SAT INCRBY u4`) per
/// bit, so items can be removed. It answers `contains` exactly as the Bloom
/// filter of the same seed and size, and removes as
/// [`CountingBloomFilter`](bloomlab_core::Deletable) does: a counter at 15
/// stays there, and a remove the counters prove wrong changes nothing.
pub type RedisCountingBloomFilter<T, C> = RedisBlockedFilter<T, C, Counters>;

/// A blocked filter kept in Redis, over a blocking connection `C`; use it
/// through [`RedisBloomFilter`] and [`RedisCountingBloomFilter`].
///
/// `T` is the item type, as in the in-memory filters: items are hashed with
/// the filter's hash function and key, kept in its metadata so that every process
/// hashes alike.
pub struct RedisBlockedFilter<T: ?Sized, C, L>(Handle<T, C, TableFilter, L>);

/// A handle on the same filter over a clone of the connection: for a
/// connection made to be shared (a pool's, or one that multiplexes).
impl<T: ?Sized, C: Clone, L> Clone for RedisBlockedFilter<T, C, L> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T: ?Sized, C, L> RedisBlockedFilter<T, C, L> {
    /// The same filter over `conn`, with no round trip: the parameters this
    /// handle read are reused. How a service shares one opened filter among
    /// threads: open it once, keep it without a connection (`on(())`, which
    /// gives the first one back to its pool), and put it on a pooled
    /// connection for each use, or on a [`Shared`] pool once. `self` keeps
    /// its own connection until it is dropped.
    ///
    /// ```
    /// use bloomlab_redis::RedisBloomFilter;
    ///
    /// # let server = bloomlab_testkit::redis_server::RedisServer::start()?;
    /// # let url = server.url();
    /// type Failure = Box<dyn std::error::Error + Send + Sync>;
    /// let pool = r2d2::Pool::builder().max_size(4).build(redis::Client::open(url)?)?;
    /// let seen = RedisBloomFilter::<u64, _>::create(pool.get()?, "seen", 100_000, 0.01)?.on(());
    /// std::thread::scope(|s| {
    ///     let threads: Vec<_> = (0..4u64)
    ///         .map(|t| {
    ///             let (pool, seen) = (&pool, &seen);
    ///             s.spawn(move || -> Result<bool, Failure> {
    ///                 let mut mine = seen.on(pool.get()?);
    ///                 mine.insert_batch(&[t, t + 100])?;
    ///                 Ok(mine.contains(&t)?)
    ///             })
    ///         })
    ///         .collect();
    ///     for t in threads {
    ///         assert!(t.join().expect("the thread ran").expect("Redis answered"));
    ///     }
    /// });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn on<C2>(&self, conn: C2) -> RedisBlockedFilter<T, C2, L> {
        RedisBlockedFilter(self.0.on(conn))
    }
}

/// Lookups and inserts of a filter shared among threads: each takes a
/// connection from the source for its one round trip.
impl<T: ?Sized, S: Source, L: Cells> RedisBlockedFilter<T, Shared<S>, L> {
    /// [`insert`](RedisBlockedFilter::insert) on a connection of the source.
    ///
    /// # Errors
    ///
    /// As `insert`, and [`Error::Connection`] when the source has no
    /// connection to give.
    pub fn insert(&self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        self.0.take::<Error>()?.run(|table| table.insert_one(item))
    }

    /// [`contains`](RedisBlockedFilter::contains) on a connection of the
    /// source.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert).
    pub fn contains<Q: ?Sized + Hash>(&self, item: &Q) -> Result<bool, Error>
    where
        T: Borrow<Q>,
    {
        self.0
            .take::<Error>()?
            .run(|table| table.contains_one(item))
    }

    /// [`insert_batch`](RedisBlockedFilter::insert_batch) on a connection
    /// of the source.
    ///
    /// # Errors
    ///
    /// As `insert_batch`; nothing is stored when the source has no
    /// connection to give.
    pub fn insert_batch(&self, items: &[T]) -> Result<usize, BatchError>
    where
        T: Hash + Sized,
    {
        self.0
            .take::<BatchError>()?
            .run(|table| table.insert_all(items))
    }

    /// [`contains_batch`](RedisBlockedFilter::contains_batch) on a
    /// connection of the source.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert).
    pub fn contains_batch<Q: Hash>(&self, items: &[Q]) -> Result<Vec<bool>, Error>
    where
        T: Borrow<Q>,
    {
        self.0
            .take::<Error>()?
            .run(|table| table.contains_all(items))
    }
}

impl<T: ?Sized, C, L> fmt::Debug for RedisBlockedFilter<T, C, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.inner.describe(f, "RedisBlockedFilter")
    }
}

impl<T: ?Sized, C: Connection, L: Cells> RedisBlockedFilter<T, C, L> {
    /// Creates the filter `name` for `expected_items` at rate `fpr`, with a
    /// random hash key and shards of at most 1 MiB, or opens it if it exists
    /// with the same parameters (the random key then yields to the stored
    /// one, so processes that race to create it end up sharing one filter).
    ///
    /// # Errors
    ///
    /// [`Error::Mismatch`] if `name` holds a filter with other parameters
    /// (checked atomically on the server); [`Error::Param`] for a rate or
    /// size no filter can have; [`Error::InvalidName`]; connection and type
    /// errors as they come.
    pub fn create(conn: C, name: &str, expected_items: usize, fpr: f64) -> Result<Self, Error> {
        Self::create_with(conn, name, expected_items, fpr, Options::new())
    }

    /// [`create`](Self::create) with a seed or a shard size.
    ///
    /// # Errors
    ///
    /// As [`create`](Self::create); a seed that gives another key than the
    /// existing filter's is a [`Error::Mismatch`].
    pub fn create_with(
        conn: C,
        name: &str,
        expected_items: usize,
        fpr: f64,
        options: Options,
    ) -> Result<Self, Error> {
        let item = crate::meta::item_name::<T>();
        Handle::start(
            conn,
            TableFilter::create::<L>(name, item, expected_items, fpr, &options)?,
        )
        .map(Self)
    }

    /// Opens the existing filter `name`, if it takes at most
    /// [`DEFAULT_MAX_BYTES`](crate::DEFAULT_MAX_BYTES) in Redis.
    ///
    /// # Errors
    ///
    /// [`Error::NotFound`], [`Error::Incomplete`] if its creation has not
    /// finished, [`Error::Mismatch`] if `name` is another kind of filter or
    /// holds another item type than `T`, [`Error::CorruptMetadata`] for a
    /// metadata field edited, lost or out of bounds, [`Error::OverLimit`].
    pub fn open(conn: C, name: &str) -> Result<Self, Error> {
        Self::open_with(conn, name, Options::new())
    }

    /// [`open`](Self::open), accepting a filter of up to
    /// [`options.get_max_bytes()`](Options::max_bytes) bytes (the other
    /// options are the stored filter's).
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open).
    pub fn open_with(conn: C, name: &str, options: Options) -> Result<Self, Error> {
        let item = crate::meta::item_name::<T>();
        Handle::start(
            conn,
            TableFilter::open::<L>(name, item, options.get_max_bytes())?,
        )
        .map(Self)
    }

    /// Adds `item`; `true` if it was not reported present before (for the
    /// counting filter: if one of its counters was zero). One command.
    ///
    /// # Errors
    ///
    /// Connection errors, [`Error::WrongType`], [`Error::ShardMissing`].
    pub fn insert(&mut self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        self.0.run(|table| table.insert_one(item))
    }

    /// `false`: `item` was never inserted. `true`: it probably was. One
    /// read-only command.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert).
    pub fn contains<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<bool, Error>
    where
        T: Borrow<Q>,
    {
        self.0.run(|table| table.contains_one(item))
    }

    /// Inserts every item of `items` in one pipeline (one round trip per
    /// server) and returns how many were new.
    ///
    /// # Errors
    ///
    /// A [`BatchError`] naming the items stored, those whose fate is unknown
    /// (replies lost with the connection) and the cause.
    pub fn insert_batch(&mut self, items: &[T]) -> Result<usize, BatchError>
    where
        T: Hash + Sized,
    {
        self.0.run(|table| table.insert_all(items))
    }

    /// Looks up every item of `items` in one pipeline; the answers, in order,
    /// are those of [`contains`](Self::contains).
    ///
    /// # Errors
    ///
    /// As [`contains`](Self::contains).
    pub fn contains_batch<Q: Hash>(&mut self, items: &[Q]) -> Result<Vec<bool>, Error>
    where
        T: Borrow<Q>,
    {
        self.0.run(|table| table.contains_all(items))
    }

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

    /// The false-positive rate the filter has now, from theory
    /// ([`blocked::fpr_exact`](bloomlab_core::theory::blocked::fpr_exact))
    /// at its [`estimate_count`](Self::estimate_count).
    ///
    /// # Errors
    ///
    /// As [`estimate_count`](Self::estimate_count).
    pub fn expected_fpr(&mut self) -> Result<f64, Error> {
        self.0.run(|table| table.expected_fpr())
    }

    /// What the filter is and holds: its kind, item type, design, bytes and
    /// shards, and the items its cells say it holds
    /// ([`estimate_count`](Self::estimate_count)) with the rate they give.
    /// One round trip.
    ///
    /// # Errors
    ///
    /// As [`estimate_count`](Self::estimate_count).
    pub fn info(&mut self) -> Result<Info, Error> {
        self.0.run(|table| table.info())
    }

    /// Gives every key of the filter `ttl` to live (Redisson's `expire`):
    /// all go together, so no shard outlives the metadata or the other
    /// way round. Rounded up to a millisecond.
    ///
    /// # Errors
    ///
    /// Connection errors; [`Error::NotFound`] or [`Error::ShardMissing`] if
    /// a key is gone (the others then have the time to live).
    pub fn expire(&mut self, ttl: Duration) -> Result<(), Error> {
        self.0.run(|table| table.expire(Some(ttl)))
    }

    /// The time the filter has left: the least of its keys' times to live,
    /// `None` when they have none.
    ///
    /// # Errors
    ///
    /// As [`expire`](Self::expire).
    pub fn ttl(&mut self) -> Result<Option<Duration>, Error> {
        self.0.run(|table| table.ttl())
    }

    /// Removes every key's time to live: the filter stays until deleted.
    ///
    /// # Errors
    ///
    /// Connection errors.
    pub fn persist(&mut self) -> Result<(), Error> {
        self.0.run(|table| table.expire(None))
    }

    /// Deletes every key of the filter (its metadata first, so no process
    /// opens it half-deleted). Other processes' handles then fail with
    /// [`Error::ShardMissing`].
    ///
    /// # Errors
    ///
    /// Connection errors; the keys not yet deleted stay.
    pub fn delete(&mut self) -> Result<(), Error> {
        self.0.run(|table| table.delete())
    }

    /// The filter's name.
    pub fn name(&self) -> &str {
        self.0.inner.keys.name()
    }

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

    /// The hasher items go through.
    pub fn hasher(&self) -> &DefaultHasher {
        &self.0.inner.hasher
    }

    /// The connection, to run other commands on it.
    pub fn connection_mut(&mut self) -> &mut C {
        &mut self.0.conn
    }

    /// Gives the connection back.
    pub fn into_connection(self) -> C {
        self.0.conn
    }
}

impl<T: ?Sized, C: Connection> RedisBlockedFilter<T, C, Bits> {
    /// Copies an in-memory filter into Redis as a new filter `name`, with
    /// its hash key, blocks and bits. The filter must be in the
    /// [`BlockLayout::Positions`](bloomlab_classic::BlockLayout::Positions)
    /// layout, the one Redis tables use (build it with
    /// `.layout(BlockLayout::Positions)`); [`export`](Self::export) gives one.
    ///
    /// # Errors
    ///
    /// [`Error::Layout`] for a filter in another layout (nothing is written);
    /// [`Error::Exists`] if `name` is taken (nothing is overwritten);
    /// connection errors (the filter is then left incomplete, and
    /// [`open`](Self::open) refuses it until it is deleted).
    pub fn import(
        conn: C,
        name: &str,
        filter: &BlockedBloomFilter<T>,
        max_shard_bytes: usize,
    ) -> Result<Self, Error> {
        Handle::start(conn, TableFilter::import(name, filter, max_shard_bytes)?).map(Self)
    }

    /// Copies the filter into memory: the same blocks, bits and hash key, so
    /// it answers exactly as this one does. Its `len` is the
    /// [`estimate_count`](Self::estimate_count), rounded.
    ///
    /// # Errors
    ///
    /// Connection errors; [`Error::ShardMissing`] for a shard of the wrong
    /// length or without its guard.
    pub fn export(&mut self) -> Result<BlockedBloomFilter<T>, Error> {
        self.0.run(|table| table.export())
    }
}

impl<T: ?Sized, C: Connection> RedisBlockedFilter<T, C, Counters> {
    /// Removes one occurrence of `item`: one script on its shard decrements
    /// each of its counters that is not saturated.
    ///
    /// # Errors
    ///
    /// [`Error::NotPresent`], with nothing changed, when the counters prove
    /// `item` absent; connection errors; [`Error::ShardMissing`].
    pub fn remove<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<(), Error>
    where
        T: Borrow<Q>,
    {
        self.0.run(|table| table.remove(item))
    }
}
