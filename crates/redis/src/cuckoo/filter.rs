//! [`RedisCuckooFilter`]: the blocking API.

use std::borrow::Borrow;
use std::fmt;
use std::hash::Hash;

use bloomlab_core::DefaultHasher;
use bloomlab_cuckoo::CuckooFilter;

use super::Cuckoo;
use crate::admin::Info;
use crate::conn::Connection;
use crate::error::{BatchError, Error};
use crate::handle::Handle;
use crate::meta::item_name;
use crate::ops::Batches;
use crate::shared::{Shared, Source};
use crate::table::Options;

/// A cuckoo filter kept in Redis: [`CuckooFilter`]'s sizing, hashing and
/// answers, shared by every process that opens it, and RedisBloom's
/// `CF.ADD`, `CF.ADDNX`, `CF.EXISTS`, `CF.DEL` and `CF.COUNT` on stock Redis
/// (no module).
///
/// - [`create`](Self::create)`(conn, name, n, ε)` sizes the table as
///   [`CuckooFilter::new`]`(n, ε)` does (4-slot buckets, the same bucket
///   count and fingerprint width, plain buckets), and a filter created and
///   an in-memory one built with the same seed give the same answer for
///   every item, as long as neither has refused an insert.
/// - [`insert`](Self::insert) stores a copy each time it is called, as the
///   in-memory `insert` does: an item inserted twice takes two removes to
///   forget, and an item can be stored at most `2b` = 8 times.
///   [`insert_unique`](Self::insert_unique) stores it only if it is not
///   reported present (`CF.ADDNX`).
/// - Inserts fail with [`Error::Full`] once the table is past the load it
///   was planned for (94% of the slots for the `n` items of `create`): an
///   insert that frees no slot within [`max_relocations`](Self::max_relocations)
///   moves is refused, and nothing already stored is lost or moved.
/// - [`remove`](Self::remove) deletes one fingerprint equal to the item's.
///   Removing an item that was never inserted but is reported present (a
///   false positive) removes another item's fingerprint, which may then be
///   reported absent: remove only what you inserted.
///
/// The keys share the hash tag `{name}`: on a Cluster the filter lives on
/// one node. See the [module docs](crate::cuckoo) for the layout and the
/// scripts.
///
/// ```
/// use bloomlab_cuckoo::CuckooFilter;
/// use bloomlab_redis::{Error, Options, RedisCuckooFilter};
///
/// # let server = bloomlab_testkit::redis_server::RedisServer::start()?;
/// # let url = server.url();
/// // let url = "redis://127.0.0.1/";
/// let client = redis::Client::open(url)?;
/// let options = Options::new().seed(7);
/// let mut seen =
///     RedisCuckooFilter::<u64, _>::create_with(client.get_connection()?, "seen", 10_000, 0.01, options)?;
/// // Sized as CuckooFilter::new(10_000, 0.01): 2,660 buckets of four 10-bit slots.
/// assert_eq!((seen.num_buckets(), seen.bucket_size(), seen.fingerprint_bits()), (2_660, 4, 10));
/// assert!(seen.insert(&42)?);
/// assert!(!seen.insert(&42)?, "stored again: a second copy");
/// assert_eq!(seen.count(&42)?, 2);
/// assert!(!seen.insert_unique(&42)?, "present: not stored");
/// assert_eq!(seen.insert_batch(&[1, 2, 3])?, 3);
/// assert_eq!(seen.contains_batch(&[1, 4, 42])?, [true, false, true]);
/// seen.remove(&42)?;
/// seen.remove(&42)?;
/// assert!(matches!(seen.remove(&42), Err(Error::NotPresent)));
/// assert_eq!(seen.len()?, 3);
///
/// // The same answers in memory, from a copy or from the same seed.
/// let copy: CuckooFilter<u64> = seen.export()?;
/// let mut same = CuckooFilter::<u64>::builder(10_000, 0.01).seed(7).build()?;
/// same.insert_batch(&[1, 2, 3])?;
/// for probe in 0..1_000u64 {
///     assert_eq!(copy.contains(&probe), same.contains(&probe));
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RedisCuckooFilter<T: ?Sized, C>(Handle<T, C, Cuckoo>);

/// A handle on the same filter over a clone of the connection.
impl<T: ?Sized, C: Clone> Clone for RedisCuckooFilter<T, C> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T: ?Sized, C> RedisCuckooFilter<T, C> {
    /// The same filter over `conn`, with no round trip (as
    /// [`RedisBloomFilter::on`](crate::RedisBlockedFilter::on)).
    pub fn on<C2>(&self, conn: C2) -> RedisCuckooFilter<T, C2> {
        RedisCuckooFilter(self.0.on(conn))
    }
}

/// Lookups and inserts of a filter shared among threads: each takes a
/// connection from the source for its one round trip.
impl<T: ?Sized, S: Source> RedisCuckooFilter<T, Shared<S>> {
    /// [`insert`](RedisCuckooFilter::insert) on a connection of the source.
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

    /// [`contains`](RedisCuckooFilter::contains) on a connection of the
    /// source.
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
            .run(|table| table.contains_one(item))
    }

    /// [`insert_batch`](RedisCuckooFilter::insert_batch) on a connection of
    /// the source.
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

    /// [`contains_batch`](RedisCuckooFilter::contains_batch) on a
    /// connection of the source.
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
            .run(|table| table.contains_all(items))
    }
}

impl<T: ?Sized, C> fmt::Debug for RedisCuckooFilter<T, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.inner.describe(f, "RedisCuckooFilter")
    }
}

impl<T: ?Sized, C: Connection> RedisCuckooFilter<T, C> {
    /// Creates the filter `name` for `expected_items` items at rate `fpr`,
    /// sized as [`CuckooFilter::new`] sizes it, with a random key and 1 MiB
    /// shards; or opens it if it exists with the same parameters (one
    /// script writes the metadata, so concurrent creators agree).
    ///
    /// # Errors
    ///
    /// [`Error::Param`] for a rate outside (0, 1) or one no fingerprint of
    /// at most 32 bits reaches, zero items, or a table past 2^32 buckets;
    /// [`Error::InvalidName`]; [`Error::Mismatch`] if `name` holds another
    /// filter or one with other parameters; connection errors.
    pub fn create(conn: C, name: &str, expected_items: usize, fpr: f64) -> Result<Self, Error> {
        Self::create_with(conn, name, expected_items, fpr, Options::new())
    }

    /// [`create`](Self::create) with a seed (the in-memory filter's
    /// `.seed(seed)` key) or a shard size.
    ///
    /// # Errors
    ///
    /// As [`create`](Self::create), and [`Error::ShardTooSmall`] for shards
    /// that cannot hold 8 buckets and a guard.
    pub fn create_with(
        conn: C,
        name: &str,
        expected_items: usize,
        fpr: f64,
        options: Options,
    ) -> Result<Self, Error> {
        let item = item_name::<T>();
        Handle::start(
            conn,
            Cuckoo::create(name, item, expected_items, fpr, &options)?,
        )
        .map(Self)
    }

    /// Opens the existing filter `name`, if it takes at most
    /// [`DEFAULT_MAX_BYTES`](crate::DEFAULT_MAX_BYTES); every metadata field
    /// is checked against its checksum and the bounds `create` enforces.
    ///
    /// # Errors
    ///
    /// [`Error::NotFound`], [`Error::Incomplete`], [`Error::Mismatch`] for
    /// another kind of filter or another item type than `T`,
    /// [`Error::CorruptMetadata`], [`Error::OverLimit`],
    /// [`Error::WrongType`], connection errors.
    pub fn open(conn: C, name: &str) -> Result<Self, Error> {
        Self::open_with(conn, name, Options::new())
    }

    /// [`open`](Self::open), accepting a filter of up to
    /// [`options.get_max_bytes()`](Options::max_bytes) bytes.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open).
    pub fn open_with(conn: C, name: &str, options: Options) -> Result<Self, Error> {
        let item = item_name::<T>();
        Handle::start(conn, Cuckoo::open(name, item, options.get_max_bytes())?).map(Self)
    }

    /// Copies an in-memory filter into Redis as the new filter `name`: its
    /// table's bytes, hash key and relocation bound, so it answers as
    /// `filter` does. The table must be plain (not semi-sorted).
    ///
    /// # Errors
    ///
    /// [`Error::CuckooLayout`] for a semi-sorted table or the first
    /// format's XOR map (nothing is written); [`Error::Exists`] if `name`
    /// is taken; [`Error::ShardTooSmall`]; connection errors (the filter is
    /// then left incomplete, and `open` refuses it until it is deleted).
    pub fn import(
        conn: C,
        name: &str,
        filter: &CuckooFilter<T>,
        max_shard_bytes: usize,
    ) -> Result<Self, Error> {
        Handle::start(conn, Cuckoo::import(name, filter, max_shard_bytes)?).map(Self)
    }

    /// Stores `item` (another copy if it is present); `true` if it was not
    /// reported present before.
    ///
    /// # Errors
    ///
    /// [`Error::Full`] when no slot could be freed within
    /// [`max_relocations`](Self::max_relocations) moves: nothing was stored
    /// and nothing was lost. [`Error::ShardMissing`], [`Error::WrongType`]
    /// for a damaged shard, [`Error::NotFound`] if the filter was deleted,
    /// [`Error::CorruptMetadata`], connection errors.
    pub fn insert(&mut self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        self.0.run(|table| table.insert_one(item))
    }

    /// Stores `item` only if it is not reported present (`CF.ADDNX`);
    /// `true` if it was stored.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert).
    pub fn insert_unique(&mut self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        self.0.run(|table| table.insert_unique(item))
    }

    /// `false`: `item` was never inserted (or removed as often); `true`:
    /// probably present.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert), but never [`Error::Full`].
    pub fn contains<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<bool, Error>
    where
        T: Borrow<Q>,
    {
        self.0.run(|table| table.contains_one(item))
    }

    /// How many stored fingerprints match `item` (`CF.COUNT`): the times it
    /// was stored, plus any other item's equal fingerprint in its buckets.
    ///
    /// # Errors
    ///
    /// As [`contains`](Self::contains).
    pub fn count<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<usize, Error>
    where
        T: Borrow<Q>,
    {
        self.0.run(|table| table.count(item))
    }

    /// Removes one copy of `item` (`CF.DEL`).
    ///
    /// # Errors
    ///
    /// [`Error::NotPresent`] when neither of its buckets holds its
    /// fingerprint (nothing changed); as [`contains`](Self::contains).
    pub fn remove<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<(), Error>
    where
        T: Borrow<Q>,
    {
        self.0.run(|table| table.remove(item))
    }

    /// Stores every item, as [`insert`](Self::insert) would, in one
    /// pipeline of scripts (one round trip); returns how many were not
    /// reported present before.
    ///
    /// # Errors
    ///
    /// A [`BatchError`] naming the items stored; every item was tried, so
    /// an item refused with [`Error::Full`] (the `source` of the first
    /// failure) does not stop the ones after it.
    pub fn insert_batch(&mut self, items: &[T]) -> Result<usize, BatchError>
    where
        T: Hash + Sized,
    {
        self.0.run(|table| table.insert_all(items))
    }

    /// Looks every item up in one pipeline of scripts (one round trip).
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

    /// Fingerprints stored: successful inserts minus successful removes,
    /// counted exactly by the scripts in the metadata.
    ///
    /// # Errors
    ///
    /// [`Error::NotFound`], [`Error::CorruptMetadata`] (the metadata changed
    /// since `open`), connection errors.
    pub fn len(&mut self) -> Result<u64, Error> {
        self.0.run(|table| table.len())
    }

    /// Whether no fingerprint is stored.
    ///
    /// # Errors
    ///
    /// As [`len`](Self::len).
    pub fn is_empty(&mut self) -> Result<bool, Error> {
        Ok(self.len()? == 0)
    }

    /// The rate theory predicts at the present load, as
    /// [`CuckooFilter::expected_fpr`].
    ///
    /// # Errors
    ///
    /// As [`len`](Self::len).
    pub fn expected_fpr(&mut self) -> Result<f64, Error> {
        let len = self.len()?;
        Ok(self.0.inner.expected_fpr(len))
    }

    /// Copies the filter into memory: the same table, key and relocation
    /// bound, so it answers exactly as this one does; its `len` is the
    /// count of occupied slots.
    ///
    /// # Errors
    ///
    /// [`Error::ShardMissing`] for a shard of the wrong length or without
    /// its guard, [`Error::WrongType`], [`Error::Param`] if the table cannot
    /// be allocated, connection errors.
    pub fn export(&mut self) -> Result<CuckooFilter<T>, Error> {
        self.0.run(|table| table.export())
    }

    /// Deletes every key of the filter, metadata first.
    ///
    /// # Errors
    ///
    /// Connection errors.
    pub fn delete(&mut self) -> Result<(), Error> {
        self.0.run(|table| table.delete())
    }

    /// What the filter is and holds (RedisBloom's `CF.INFO`): slots,
    /// bytes, shards, the fingerprints stored and the rate they give. One
    /// round trip.
    ///
    /// # Errors
    ///
    /// As [`len`](Self::len).
    pub fn info(&mut self) -> Result<Info, Error> {
        self.0.run(|table| table.info())
    }

    /// Gives every key of the filter `ttl` to live (Redisson's `expire`),
    /// rounded up to a millisecond.
    ///
    /// # Errors
    ///
    /// Connection errors; [`Error::NotFound`] or [`Error::ShardMissing`] if
    /// a key is gone.
    pub fn expire(&mut self, ttl: std::time::Duration) -> Result<(), Error> {
        self.0.run(|table| table.expire(Some(ttl)))
    }

    /// The least time to live of the filter's keys, `None` when they have
    /// none.
    ///
    /// # Errors
    ///
    /// As [`expire`](Self::expire).
    pub fn ttl(&mut self) -> Result<Option<std::time::Duration>, Error> {
        self.0.run(|table| table.ttl())
    }

    /// Removes every key's time to live.
    ///
    /// # Errors
    ///
    /// Connection errors.
    pub fn persist(&mut self) -> Result<(), Error> {
        self.0.run(|table| table.expire(None))
    }
}

impl<T: ?Sized, C> RedisCuckooFilter<T, C> {
    /// The filter's name.
    pub fn name(&self) -> &str {
        self.0.inner.name()
    }

    /// Buckets in the table.
    pub fn num_buckets(&self) -> u64 {
        self.0.inner.geometry.buckets
    }

    /// Slots per bucket (`b`).
    pub fn bucket_size(&self) -> u32 {
        self.0.inner.geometry.bucket_size
    }

    /// Bits per fingerprint (`f`).
    pub fn fingerprint_bits(&self) -> u32 {
        self.0.inner.geometry.fingerprint_bits
    }

    /// Slots in the table.
    pub fn capacity(&self) -> u64 {
        self.0.inner.capacity()
    }

    /// The most fingerprints one insert may move before it gives up.
    pub fn max_relocations(&self) -> u32 {
        self.0.inner.meta.max_relocations
    }

    /// Shard keys.
    pub fn num_shards(&self) -> u64 {
        self.0.inner.geometry.shards()
    }

    /// The key of shard `s`.
    pub fn shard_key(&self, s: u64) -> String {
        self.0.inner.keys.shard(s)
    }

    /// The metadata hash's key.
    pub fn meta_key(&self) -> String {
        self.0.inner.keys.meta()
    }

    /// Bytes of the table in Redis, guards included.
    pub fn memory_bytes(&self) -> u64 {
        self.0.inner.geometry.table_bytes() + self.num_shards()
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
