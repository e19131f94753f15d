//! [`RedisFilter`]: the blocking API every kind of filter has, written once;
//! each kind adds its own methods in its module.

use std::borrow::Borrow;
use std::fmt;
use std::hash::Hash;
use std::time::Duration;

use bloomlab_core::DefaultHasher;

use crate::admin::Info;
use crate::conn::Connection;
use crate::error::{BatchError, Error};
use crate::handle::Handle;
use crate::ops::Batches;
use crate::shared::{Shared, Source};
use crate::table::Options;
use crate::variant::{Blocking, Counted, Inner, Mode, Portable, Removes, Variant};

/// A filter kept in Redis, over a blocking connection `C`, of the kind `K`:
/// use it through [`RedisBloomFilter`](crate::RedisBloomFilter),
/// [`RedisCountingBloomFilter`](crate::RedisCountingBloomFilter),
/// [`RedisCuckooFilter`](crate::RedisCuckooFilter) and
/// [`RedisScalableBloomFilter`](crate::RedisScalableBloomFilter), whose
/// pages say what each kind is and adds.
///
/// `T` is the item type, as in the in-memory filters: items are hashed with
/// the filter's hash function and key, kept in its metadata so that every
/// process hashes alike. `M` is how it talks to Redis: [`Blocking`] here,
/// `Async` for `aio::RedisFilter` (feature `tokio`), whose methods of the
/// same names are futures.
///
/// # Which item type
///
/// - A filter of `String` inserts `&String`. Single lookups take any
///   borrowed form, so `contains("a")` works, but a batch is a slice of
///   one type that `String` borrows as: `&[String]` works, and
///   `contains_batch(&["a", "b"])` does not compile, since a `String`
///   borrows as `str`, not as `&str`.
/// - A filter of `&str` hashes as a filter of `String` or `str` does, takes
///   `&"a"` in `insert`, and `&["a", "b"]` in both batches: the usual
///   choice for text.
/// - A filter of `str` has `insert` and `contains` but no batches: a slice
///   of `str` values cannot exist.
///
/// ```compile_fail
/// # fn f(users: &mut bloomlab_redis::RedisBloomFilter<String, redis::Connection>)
/// # -> Result<(), bloomlab_redis::Error> {
/// users.contains_batch(&["a", "b"])?; // `Borrow<&str>` is not implemented for `String`
/// # Ok(()) }
/// ```
///
/// ```compile_fail
/// # fn f(users: &mut bloomlab_redis::RedisBloomFilter<str, redis::Connection>)
/// # -> Result<(), bloomlab_redis::BatchError> {
/// users.insert_batch(&["a", "b"])?; // `str` has no size known at compile time
/// # Ok(()) }
/// ```
///
/// ```no_run
/// # fn f(
/// #     owned: &mut bloomlab_redis::RedisBloomFilter<String, redis::Connection>,
/// #     users: &mut bloomlab_redis::RedisBloomFilter<&str, redis::Connection>,
/// # ) -> Result<(), Box<dyn std::error::Error>> {
/// owned.insert(&"a".to_owned())?;
/// assert!(owned.contains("a")?);
/// owned.contains_batch(&["a".to_owned(), "b".to_owned()])?;
/// users.insert_batch(&["a", "b"])?;
/// users.contains_batch(&["a", "b"])?;
/// # Ok(()) }
/// ```
pub struct RedisFilter<T: ?Sized, C, K: Variant, M: Mode = Blocking>(
    pub(crate) Handle<T, C, K::Inner, (K, M)>,
);

/// A handle on the same filter over a clone of the connection: for a
/// connection made to be shared (a pool's, one that multiplexes, a
/// `ConnectionManager`, whose clones share one connection).
impl<T: ?Sized, C: Clone, K: Variant, M: Mode> Clone for RedisFilter<T, C, K, M> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T: ?Sized, C, K: Variant, M: Mode> fmt::Debug for RedisFilter<T, C, K, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0
            .inner
            .describe(f, &format!("{}{}", M::PREFIX, K::NAME))
    }
}

impl<T: ?Sized, C, K: Variant, M: Mode> RedisFilter<T, C, K, M> {
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
    pub fn on<C2>(&self, conn: C2) -> RedisFilter<T, C2, K, M> {
        RedisFilter(self.0.on(conn))
    }

    /// The filter's name.
    pub fn name(&self) -> &str {
        self.0.inner.name()
    }

    /// The hasher items go through.
    pub fn hasher(&self) -> &DefaultHasher {
        self.0.inner.hasher()
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

/// Lookups and inserts of a filter shared among threads: each takes a
/// connection from the source for its operation (a scalable filter starts
/// from the layers this handle last saw: one more round trip when others
/// opened layers since).
impl<T: ?Sized, S: Source, K: Variant> RedisFilter<T, Shared<S>, K> {
    /// [`insert`](RedisFilter::insert) on a connection of the source.
    ///
    /// # Errors
    ///
    /// As `insert`, and [`Error::Connection`] when the source has no
    /// connection to give.
    pub fn insert(&self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        self.0.take::<Error>()?.run(|inner| inner.insert_one(item))
    }

    /// [`contains`](RedisFilter::contains) on a connection of the source.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert), but never [`Error::Full`].
    pub fn contains<Q: ?Sized + Hash>(&self, item: &Q) -> Result<bool, Error>
    where
        T: Borrow<Q>,
    {
        self.0
            .take::<Error>()?
            .run(|inner| inner.contains_one(item))
    }

    /// [`insert_batch`](RedisFilter::insert_batch) on a connection of the
    /// source.
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
            .run(|inner| inner.insert_all(items))
    }

    /// [`contains_batch`](RedisFilter::contains_batch) on a connection of
    /// the source.
    ///
    /// # Errors
    ///
    /// As [`contains`](Self::contains).
    pub fn contains_batch<Q: Hash>(&self, items: &[Q]) -> Result<Vec<bool>, Error>
    where
        T: Borrow<Q>,
    {
        self.0
            .take::<Error>()?
            .run(|inner| inner.contains_all(items))
    }
}

impl<T: ?Sized, C: Connection, K: Variant> RedisFilter<T, C, K> {
    /// Creates the filter `name` for `expected_items` at rate `fpr`, sized
    /// as the in-memory filter of its kind is, with a random hash key and
    /// shards of at most 1 MiB, or opens it if it exists with the same
    /// parameters (one script writes the metadata, so processes that race
    /// to create it end up sharing one filter: the random key then yields
    /// to the stored one). A scalable filter's first layer holds
    /// `expected_items`, and its layers together keep `fpr`.
    ///
    /// # Errors
    ///
    /// [`Error::Mismatch`] if `name` holds another kind of filter or one
    /// with other parameters (checked atomically on the server);
    /// [`Error::Param`] for a rate or size no filter can have (for a cuckoo
    /// filter, also a rate no fingerprint of at most 32 bits reaches, or a
    /// table past 2^32 buckets); [`Error::InvalidName`]; connection and type
    /// errors as they come.
    pub fn create(conn: C, name: &str, expected_items: usize, fpr: f64) -> Result<Self, Error> {
        Self::create_with(conn, name, expected_items, fpr, K::Options::default())
    }

    /// [`create`](Self::create) with a seed (the in-memory filter's
    /// `.seed(seed)` key) or a shard size ([`Options`]), and for a scalable
    /// filter a growth factor or tightening ratio
    /// ([`ScalableOptions`](crate::ScalableOptions)).
    ///
    /// # Errors
    ///
    /// As [`create`](Self::create); a seed that gives another key than the
    /// existing filter's is a [`Error::Mismatch`]. For a cuckoo filter,
    /// [`Error::ShardTooSmall`] for shards that cannot hold 8 buckets and a
    /// guard; for a scalable one, [`Error::GrowthFactor`] or
    /// [`Error::TighteningRatio`].
    pub fn create_with(
        conn: C,
        name: &str,
        expected_items: usize,
        fpr: f64,
        options: K::Options,
    ) -> Result<Self, Error> {
        let op = K::create::<T>(name, expected_items, fpr, &options)?;
        Handle::start(conn, op).map(Self)
    }

    /// Opens the existing filter `name`, if it takes at most
    /// [`DEFAULT_MAX_BYTES`](crate::DEFAULT_MAX_BYTES) in Redis; every
    /// metadata field is checked against its checksum and the bounds
    /// `create` enforces.
    ///
    /// # Errors
    ///
    /// [`Error::NotFound`], [`Error::Incomplete`] if its creation has not
    /// finished, [`Error::Mismatch`] if `name` is another kind of filter or
    /// holds another item type than `T`, [`Error::CorruptMetadata`] for a
    /// metadata field edited, lost or out of bounds, [`Error::OverLimit`],
    /// [`Error::WrongType`], connection errors.
    pub fn open(conn: C, name: &str) -> Result<Self, Error> {
        Self::open_with(conn, name, Options::new())
    }

    /// [`open`](Self::open), accepting a filter of up to
    /// [`options.get_max_bytes()`](Options::max_bytes) bytes (the other
    /// options are the stored filter's). An insert that would open a
    /// scalable filter's layer past it is refused with [`Error::OverLimit`].
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open).
    pub fn open_with(conn: C, name: &str, options: Options) -> Result<Self, Error> {
        Handle::start(conn, K::open::<T>(name, options.get_max_bytes())?).map(Self)
    }

    /// Adds `item`; `true` if it was not reported present before. The Bloom
    /// filter sets its bits and the counting filter increments its counters
    /// (`true` if one of them was zero), in one command; a cuckoo filter
    /// stores another copy of an item already present (see
    /// [`insert_unique`](RedisFilter::insert_unique)); a scalable filter
    /// adds nothing for an item a layer holds.
    ///
    /// # Errors
    ///
    /// Connection errors, [`Error::WrongType`], [`Error::ShardMissing`];
    /// [`Error::NotFound`] if the filter was deleted and
    /// [`Error::CorruptMetadata`] (the cuckoo and scalable filters, which
    /// read their metadata's counts); [`Error::Full`] when a cuckoo filter
    /// could free no slot within its
    /// [`max_relocations`](RedisFilter::max_relocations) moves (nothing was
    /// stored and nothing was lost), or past the last layer `u64` can count.
    pub fn insert(&mut self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        self.0.run(|inner| inner.insert_one(item))
    }

    /// `false`: `item` was never inserted (or, for the filters that remove,
    /// removed as often). `true`: it probably was. A scalable filter sees
    /// the layers other processes opened.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert), but never [`Error::Full`].
    pub fn contains<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<bool, Error>
    where
        T: Borrow<Q>,
    {
        self.0.run(|inner| inner.contains_one(item))
    }

    /// Inserts every item of `items`, as [`insert`](Self::insert) would, in
    /// one pipeline (one round trip per server; for a scalable filter, one
    /// more for the items sent after another process opened a layer), and
    /// returns how many were new.
    ///
    /// # Errors
    ///
    /// A [`BatchError`] naming the items stored, those whose fate is unknown
    /// (replies lost with the connection) and the cause. Every item was
    /// tried, so an item a cuckoo filter refused with [`Error::Full`] (the
    /// `source` of the first failure) does not stop the ones after it.
    pub fn insert_batch(&mut self, items: &[T]) -> Result<usize, BatchError>
    where
        T: Hash + Sized,
    {
        self.0.run(|inner| inner.insert_all(items))
    }

    /// Looks up every item of `items` in one pipeline; the answers, in
    /// order, are those of [`contains`](Self::contains).
    ///
    /// # Errors
    ///
    /// As [`contains`](Self::contains).
    pub fn contains_batch<Q: Hash>(&mut self, items: &[Q]) -> Result<Vec<bool>, Error>
    where
        T: Borrow<Q>,
    {
        self.0.run(|inner| inner.contains_all(items))
    }

    /// What the filter is and holds (RedisBloom's `BF.INFO` and `CF.INFO`):
    /// its kind, item type, design, bytes and shards, its layers, the items
    /// it holds (counted by the scripts, or estimated from the cells set)
    /// and the rate they give.
    ///
    /// # Errors
    ///
    /// Connection errors, [`Error::ShardMissing`], [`Error::NotFound`],
    /// [`Error::CorruptMetadata`].
    pub fn info(&mut self) -> Result<Info, Error> {
        self.0.run(|inner| inner.info())
    }

    /// Gives every key of the filter `ttl` to live (Redisson's `expire`):
    /// all go together, so no shard outlives the metadata or the other way
    /// round; a layer a scalable filter opens later takes the metadata's.
    /// Rounded up to a millisecond.
    ///
    /// # Errors
    ///
    /// Connection errors; [`Error::NotFound`] or [`Error::ShardMissing`] if
    /// a key is gone (the others then have the time to live).
    pub fn expire(&mut self, ttl: Duration) -> Result<(), Error> {
        self.0.run(|inner| inner.expire(Some(ttl)))
    }

    /// The time the filter has left: the least of its keys' times to live,
    /// `None` when they have none.
    ///
    /// # Errors
    ///
    /// As [`expire`](Self::expire).
    pub fn ttl(&mut self) -> Result<Option<Duration>, Error> {
        self.0.run(|inner| inner.ttl())
    }

    /// Removes every key's time to live: the filter stays until deleted.
    ///
    /// # Errors
    ///
    /// Connection errors, [`Error::NotFound`].
    pub fn persist(&mut self) -> Result<(), Error> {
        self.0.run(|inner| inner.expire(None))
    }

    /// Deletes every key of the filter (its metadata first, so no process
    /// opens it half-deleted). Other processes' handles then fail with
    /// [`Error::ShardMissing`] or [`Error::NotFound`].
    ///
    /// # Errors
    ///
    /// Connection errors; the keys not yet deleted stay.
    pub fn delete(&mut self) -> Result<(), Error> {
        self.0.run(|inner| inner.delete())
    }
}

/// Copies between memory and Redis, for the kinds that have an in-memory
/// twin of the same layout: the Bloom filter and the cuckoo filter.
impl<T: ?Sized, C: Connection, K: Portable> RedisFilter<T, C, K> {
    /// Copies an in-memory filter into Redis as the new filter `name`, with
    /// its hash key and table, so it answers as `filter` does. A Bloom
    /// filter must be in the
    /// [`BlockLayout::Positions`](bloomlab_classic::BlockLayout::Positions)
    /// layout, the one Redis tables use (build it with
    /// `.layout(BlockLayout::Positions)`); a cuckoo filter's table must be
    /// plain (not semi-sorted), and its relocation bound comes along.
    /// [`export`](Self::export) gives either.
    ///
    /// # Errors
    ///
    /// [`Error::Layout`] or [`Error::CuckooLayout`] for a filter in another
    /// layout (nothing is written); [`Error::Exists`] if `name` is taken
    /// (nothing is overwritten); [`Error::ShardTooSmall`] for cuckoo shards
    /// that cannot hold 8 buckets and a guard; connection errors (the filter
    /// is then left incomplete, and [`open`](Self::open) refuses it until it
    /// is deleted).
    pub fn import(
        conn: C,
        name: &str,
        filter: &K::Memory<T>,
        max_shard_bytes: usize,
    ) -> Result<Self, Error> {
        Handle::start(conn, K::import(name, filter, max_shard_bytes)?).map(Self)
    }

    /// Copies the filter into memory: the same table and hash key (and a
    /// cuckoo filter's relocation bound), so it answers exactly as this one
    /// does. A Bloom filter's `len` is the
    /// [`estimate_count`](RedisFilter::estimate_count), rounded; a cuckoo
    /// filter's, the count of occupied slots.
    ///
    /// # Errors
    ///
    /// Connection errors; [`Error::ShardMissing`] for a shard of the wrong
    /// length or without its guard, [`Error::WrongType`]; [`Error::Param`]
    /// if the table cannot be allocated.
    pub fn export(&mut self) -> Result<K::Memory<T>, Error> {
        self.0.run(|inner| K::export(inner))
    }
}

/// Removal, for the kinds that can: the counting filter and the cuckoo
/// filter.
impl<T: ?Sized, C: Connection, K: Removes> RedisFilter<T, C, K> {
    /// Removes one occurrence of `item`, as the in-memory filter's
    /// `remove`: for the counting filter, one script on its shard
    /// decrements each of its counters that is not saturated; for a cuckoo
    /// filter, one script deletes one fingerprint equal to the item's
    /// (`CF.DEL`). Removing from a cuckoo filter an item that was never
    /// inserted but is reported present (a false positive) removes another
    /// item's fingerprint, which may then be reported absent: remove only
    /// what you inserted.
    ///
    /// # Errors
    ///
    /// [`Error::NotPresent`], with nothing changed, when the filter proves
    /// `item` absent (a counter of it at zero, or neither of its buckets
    /// holding its fingerprint); connection errors; [`Error::ShardMissing`],
    /// [`Error::WrongType`]; for a cuckoo filter, [`Error::NotFound`] and
    /// [`Error::CorruptMetadata`].
    pub fn remove<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<(), Error>
    where
        T: Borrow<Q>,
    {
        self.0.run(|inner| {
            let hash = inner.hash(item);
            K::remove(inner, hash)
        })
    }
}

/// Exact counts, for the kinds whose scripts keep them: the cuckoo filter
/// and the scalable filter.
impl<T: ?Sized, C: Connection, K: Counted> RedisFilter<T, C, K> {
    /// The in-memory filter's `len`, counted exactly by the scripts in the
    /// metadata: for a cuckoo filter the fingerprints stored (successful
    /// inserts minus successful removes), for a scalable filter every
    /// insert so far, duplicates included (its
    /// [`added`](RedisFilter::added) are the items the layers took).
    ///
    /// # Errors
    ///
    /// Connection errors, [`Error::NotFound`], [`Error::CorruptMetadata`]
    /// (for a cuckoo filter, also when the metadata changed since `open`).
    pub fn len(&mut self) -> Result<u64, Error> {
        self.0.run(|inner| K::len(inner))
    }

    /// Whether [`len`](Self::len) is zero.
    ///
    /// # Errors
    ///
    /// As [`len`](Self::len).
    pub fn is_empty(&mut self) -> Result<bool, Error> {
        self.len().map(|n| n == 0)
    }
}
