//! [`RedisScalableBloomFilter`]: the blocking API.

use std::borrow::Borrow;
use std::fmt;
use std::hash::Hash;

use bloomlab_core::DefaultHasher;

use super::{Layers, ScalableOptions};
use crate::admin::Info;
use crate::conn::Connection;
use crate::error::{BatchError, Error};
use crate::handle::Handle;
use crate::ops::Batches;
use crate::shared::{Shared, Source};
use crate::table::Options;

/// A scalable Bloom filter kept in Redis: RedisBloom's `BF.RESERVE …
/// EXPANSION` on stock Redis. Layer `i` is a blocked Bloom filter for
/// `n0 · s^i` items at rate `P (1 − r) r^i`, so the layers together keep
/// rate `P` however many items arrive; each layer's capacity is counted
/// exactly (one script per insert checks every layer, adds the item to the
/// active one and opens the next when it is full), so concurrent writers
/// never overfill a layer. All keys share the hash tag `{name}`.
pub struct RedisScalableBloomFilter<T: ?Sized, C>(Handle<T, C, Layers>);

/// A handle on the same filter over a clone of the connection.
impl<T: ?Sized, C: Clone> Clone for RedisScalableBloomFilter<T, C> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T: ?Sized, C> RedisScalableBloomFilter<T, C> {
    /// The same filter over `conn`, with no round trip (as
    /// [`RedisBloomFilter::on`](crate::RedisBlockedFilter::on)).
    pub fn on<C2>(&self, conn: C2) -> RedisScalableBloomFilter<T, C2> {
        RedisScalableBloomFilter(self.0.on(conn))
    }
}

/// Lookups and inserts of a filter shared among threads: each takes a
/// connection from the source (and starts from the layers this handle
/// last saw: one more round trip when others opened layers since).
impl<T: ?Sized, S: Source> RedisScalableBloomFilter<T, Shared<S>> {
    /// [`insert`](RedisScalableBloomFilter::insert) on a connection of the
    /// source.
    ///
    /// # Errors
    ///
    /// As `insert`, and [`Error::Connection`] when the source has no
    /// connection to give.
    pub fn insert(&self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        self.0
            .take::<Error>()?
            .run(|layers| layers.insert_one(item))
    }

    /// [`contains`](RedisScalableBloomFilter::contains) on a connection of
    /// the source.
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
            .run(|layers| layers.contains_one(item))
    }

    /// [`insert_batch`](RedisScalableBloomFilter::insert_batch) on a
    /// connection of the source.
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
            .run(|layers| layers.insert_all(items))
    }

    /// [`contains_batch`](RedisScalableBloomFilter::contains_batch) on a
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
            .run(|layers| layers.contains_all(items))
    }
}

impl<T: ?Sized, C> fmt::Debug for RedisScalableBloomFilter<T, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.inner.describe(f, "RedisScalableBloomFilter")
    }
}

impl<T: ?Sized, C: Connection> RedisScalableBloomFilter<T, C> {
    /// Creates the filter `name` whose first layer holds
    /// `initial_capacity` items and whose layers together keep rate `fpr`,
    /// or opens it if it exists with the same parameters.
    ///
    /// # Errors
    ///
    /// As [`RedisBloomFilter::create`](crate::RedisBloomFilter::create).
    pub fn create(conn: C, name: &str, initial_capacity: usize, fpr: f64) -> Result<Self, Error> {
        Self::create_with(conn, name, initial_capacity, fpr, ScalableOptions::new())
    }

    /// [`create`](Self::create) with a seed, shard size, growth factor or
    /// tightening ratio.
    ///
    /// # Errors
    ///
    /// As [`create`](Self::create), and [`Error::GrowthFactor`] or
    /// [`Error::TighteningRatio`].
    pub fn create_with(
        conn: C,
        name: &str,
        initial_capacity: usize,
        fpr: f64,
        options: ScalableOptions,
    ) -> Result<Self, Error> {
        let item = crate::meta::item_name::<T>();
        Handle::start(
            conn,
            Layers::create(name, item, initial_capacity, fpr, &options)?,
        )
        .map(Self)
    }

    /// Opens the existing filter `name`, if its layers take at most
    /// [`DEFAULT_MAX_BYTES`](crate::DEFAULT_MAX_BYTES) in Redis.
    ///
    /// # Errors
    ///
    /// As [`RedisBloomFilter::open`](crate::RedisBloomFilter::open).
    pub fn open(conn: C, name: &str) -> Result<Self, Error> {
        Self::open_with(conn, name, Options::new())
    }

    /// [`open`](Self::open), accepting layers of up to
    /// [`options.get_max_bytes()`](Options::max_bytes) bytes in all (the
    /// other options are the stored filter's). An insert that would open a
    /// layer past it is refused with [`Error::OverLimit`].
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open).
    pub fn open_with(conn: C, name: &str, options: Options) -> Result<Self, Error> {
        let item = crate::meta::item_name::<T>();
        Handle::start(conn, Layers::open(name, item, options.get_max_bytes())?).map(Self)
    }

    /// Adds `item` unless a layer holds it; `true` if it was added.
    ///
    /// # Errors
    ///
    /// Connection errors, [`Error::NotFound`] if the filter was deleted,
    /// [`Error::Full`] past the last layer `u64` can count.
    pub fn insert(&mut self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        self.0.run(|layers| layers.insert_one(item))
    }

    /// `false`: `item` was never inserted; `true`: it probably was. Sees the
    /// layers other processes opened.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert).
    pub fn contains<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<bool, Error>
    where
        T: Borrow<Q>,
    {
        self.0.run(|layers| layers.contains_one(item))
    }

    /// Inserts every item in one pipeline of scripts (and one more round
    /// trip for the items sent after another process opened a layer);
    /// returns how many were added.
    ///
    /// # Errors
    ///
    /// A [`BatchError`] naming the items stored and those whose fate is
    /// unknown.
    pub fn insert_batch(&mut self, items: &[T]) -> Result<usize, BatchError>
    where
        T: Hash + Sized,
    {
        self.0.run(|layers| layers.insert_all(items))
    }

    /// The path [`insert_batch`](Self::insert_batch) falls back to when
    /// other writers keep changing the blocks it writes: one script per
    /// item, which checks every layer and adds the item in the server.
    /// The same answers, about 10 µs of server time per item. Public for
    /// the tests that compare both paths.
    ///
    /// # Errors
    ///
    /// As [`insert_batch`](Self::insert_batch).
    #[doc(hidden)]
    pub fn insert_batch_one_by_one(&mut self, items: &[T]) -> Result<usize, BatchError>
    where
        T: Hash + Sized,
    {
        self.0.run(|layers| layers.insert_one_by_one(items))
    }

    /// Looks up every item in one pipeline of plain `GETRANGE` reads of
    /// their blocks (a shard where the batch is dense as one span), with
    /// each shard's guard (and one more round trip if a layer opened
    /// meanwhile).
    ///
    /// # Errors
    ///
    /// As [`contains`](Self::contains).
    pub fn contains_batch<Q: Hash>(&mut self, items: &[Q]) -> Result<Vec<bool>, Error>
    where
        T: Borrow<Q>,
    {
        self.0.run(|layers| layers.contains_all(items))
    }

    /// Items added to the layers (an insert of an item already reported
    /// present adds nothing), counted exactly by the scripts, as the
    /// in-memory filter's `added`.
    ///
    /// # Errors
    ///
    /// Connection errors, [`Error::NotFound`], [`Error::CorruptMetadata`].
    pub fn added(&mut self) -> Result<u64, Error> {
        self.0.run(|layers| layers.count())
    }

    /// Every insert so far, duplicates included, as the in-memory filter's
    /// `len`.
    ///
    /// # Errors
    ///
    /// As [`added`](Self::added).
    pub fn len(&mut self) -> Result<u64, Error> {
        self.0.run(|layers| layers.inserts())
    }

    /// Whether [`len`](Self::len) is zero.
    ///
    /// # Errors
    ///
    /// As [`added`](Self::added).
    pub fn is_empty(&mut self) -> Result<bool, Error> {
        self.len().map(|n| n == 0)
    }

    /// Layers open now.
    ///
    /// # Errors
    ///
    /// As [`added`](Self::added).
    pub fn num_layers(&mut self) -> Result<u32, Error> {
        self.0.run(|layers| layers.num_layers())
    }

    /// The items the layers hold, estimated from `BITCOUNT` of every shard
    /// (as [`RedisBloomFilter::estimate_count`](crate::RedisBloomFilter::estimate_count)).
    ///
    /// # Errors
    ///
    /// As [`added`](Self::added).
    pub fn estimate_count(&mut self) -> Result<f64, Error> {
        self.0.run(|layers| layers.estimate_count())
    }

    /// The rate the filter has now: `1 − Π (1 − ε_i)` over the layers, each
    /// layer's rate from
    /// [`blocked::fpr_exact`](bloomlab_core::theory::blocked::fpr_exact) at
    /// its exact count. Below the promised total while the layers are
    /// sized as designed.
    ///
    /// # Errors
    ///
    /// As [`added`](Self::added).
    pub fn expected_fpr(&mut self) -> Result<f64, Error> {
        self.0.run(|layers| layers.expected_fpr())
    }

    /// What the filter is and holds (RedisBloom's `BF.INFO`): capacity of
    /// the open layers, bytes, layers, growth factor, inserts, and the items
    /// the layers' cells say they hold. Two round trips.
    ///
    /// # Errors
    ///
    /// As [`added`](Self::added), and [`Error::ShardMissing`].
    pub fn info(&mut self) -> Result<Info, Error> {
        self.0.run(|layers| layers.info())
    }

    /// Gives every key of the filter `ttl` to live (Redisson's `expire`);
    /// a layer opened later takes the metadata's time to live. Rounded up
    /// to a millisecond.
    ///
    /// # Errors
    ///
    /// Connection errors; [`Error::NotFound`] or [`Error::ShardMissing`] if
    /// a key is gone.
    pub fn expire(&mut self, ttl: std::time::Duration) -> Result<(), Error> {
        self.0.run(|layers| layers.expire(Some(ttl)))
    }

    /// The least time to live of the filter's keys, `None` when they have
    /// none.
    ///
    /// # Errors
    ///
    /// As [`expire`](Self::expire).
    pub fn ttl(&mut self) -> Result<Option<std::time::Duration>, Error> {
        self.0.run(|layers| layers.ttl())
    }

    /// Removes every key's time to live.
    ///
    /// # Errors
    ///
    /// Connection errors, [`Error::NotFound`].
    pub fn persist(&mut self) -> Result<(), Error> {
        self.0.run(|layers| layers.expire(None))
    }

    /// Deletes every key of the filter, metadata first.
    ///
    /// # Errors
    ///
    /// Connection errors.
    pub fn delete(&mut self) -> Result<(), Error> {
        self.0.run(|layers| layers.delete())
    }

    /// The filter's name.
    pub fn name(&self) -> &str {
        self.0.inner.name()
    }

    /// The total rate the filter keeps.
    pub fn target_fpr(&self) -> f64 {
        self.0.inner.target_fpr()
    }

    /// Items the first layer holds.
    pub fn initial_capacity(&self) -> u64 {
        self.0.inner.initial_capacity()
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
