//! The async [`RedisBlockedFilter`]: the Bloom and counting filters.

use std::borrow::Borrow;
use std::fmt;
use std::hash::Hash;
use std::time::Duration;

use bloomlab_classic::BlockedBloomFilter;
use bloomlab_core::DefaultHasher;

use super::{AsyncConnection, AsyncSource};
use crate::admin::Info;
use crate::error::{BatchError, Error};
use crate::handle::Handle;
use crate::ops::Batches;
use crate::shared::Shared;
use crate::table::{Bits, Cells, Counters, Options, TableFilter};

/// [`crate::RedisBloomFilter`] over an async connection.
pub type RedisBloomFilter<T, C> = RedisBlockedFilter<T, C, Bits>;

/// [`crate::RedisCountingBloomFilter`] over an async connection.
pub type RedisCountingBloomFilter<T, C> = RedisBlockedFilter<T, C, Counters>;

/// [`crate::RedisBlockedFilter`] over an async connection: the same
/// methods, each a future.
pub struct RedisBlockedFilter<T: ?Sized, C, L>(Handle<T, C, TableFilter, L>);

/// A handle on the same filter over a clone of the connection: the way
/// to share one filter among tasks over a `MultiplexedConnection` or a
/// `ConnectionManager`, whose clones share one connection.
impl<T: ?Sized, C: Clone, L> Clone for RedisBlockedFilter<T, C, L> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T: ?Sized, C, L> RedisBlockedFilter<T, C, L> {
    /// The same filter over `conn`, with no round trip.
    pub fn on<C2>(&self, conn: C2) -> RedisBlockedFilter<T, C2, L> {
        RedisBlockedFilter(self.0.on(conn))
    }
}

impl<T: ?Sized, C, L> fmt::Debug for RedisBlockedFilter<T, C, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.inner.describe(f, "aio::RedisBlockedFilter")
    }
}

impl<T: ?Sized, C: AsyncConnection, L: Cells> RedisBlockedFilter<T, C, L> {
    /// See [`crate::RedisBlockedFilter::create`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn create(
        conn: C,
        name: &str,
        expected_items: usize,
        fpr: f64,
    ) -> Result<Self, Error> {
        Self::create_with(conn, name, expected_items, fpr, Options::new()).await
    }

    /// See [`crate::RedisBlockedFilter::create_with`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn create_with(
        conn: C,
        name: &str,
        expected_items: usize,
        fpr: f64,
        options: Options,
    ) -> Result<Self, Error> {
        let item = crate::meta::item_name::<T>();
        let op = TableFilter::create::<L>(name, item, expected_items, fpr, &options)?;
        Handle::start_async(conn, op).await.map(Self)
    }

    /// See [`crate::RedisBlockedFilter::open`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn open(conn: C, name: &str) -> Result<Self, Error> {
        Self::open_with(conn, name, Options::new()).await
    }

    /// See [`crate::RedisBlockedFilter::open_with`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn open_with(conn: C, name: &str, options: Options) -> Result<Self, Error> {
        let item = crate::meta::item_name::<T>();
        let op = TableFilter::open::<L>(name, item, options.get_max_bytes())?;
        Handle::start_async(conn, op).await.map(Self)
    }

    /// See [`crate::RedisBlockedFilter::insert`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn insert(&mut self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        self.0.run_async(|table| table.insert_one(item)).await
    }

    /// See [`crate::RedisBlockedFilter::contains`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn contains<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<bool, Error>
    where
        T: Borrow<Q>,
    {
        self.0.run_async(|table| table.contains_one(item)).await
    }

    /// See [`crate::RedisBlockedFilter::insert_batch`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn insert_batch(&mut self, items: &[T]) -> Result<usize, BatchError>
    where
        T: Hash + Sized,
    {
        self.0.run_async(|table| table.insert_all(items)).await
    }

    /// See [`crate::RedisBlockedFilter::contains_batch`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn contains_batch<Q: Hash>(&mut self, items: &[Q]) -> Result<Vec<bool>, Error>
    where
        T: Borrow<Q>,
    {
        self.0.run_async(|table| table.contains_all(items)).await
    }

    /// See [`crate::RedisBlockedFilter::estimate_count`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn estimate_count(&mut self) -> Result<f64, Error> {
        self.0.run_async(|table| table.estimate_count()).await
    }

    /// See [`crate::RedisBlockedFilter::expected_fpr`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn expected_fpr(&mut self) -> Result<f64, Error> {
        self.0.run_async(|table| table.expected_fpr()).await
    }

    /// See [`crate::RedisBlockedFilter::delete`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn delete(&mut self) -> Result<(), Error> {
        self.0.run_async(|table| table.delete()).await
    }

    /// See [`crate::RedisBlockedFilter::info`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn info(&mut self) -> Result<Info, Error> {
        self.0.run_async(|table| table.info()).await
    }

    /// See [`crate::RedisBlockedFilter::expire`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn expire(&mut self, ttl: Duration) -> Result<(), Error> {
        self.0.run_async(|table| table.expire(Some(ttl))).await
    }

    /// See [`crate::RedisBlockedFilter::ttl`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn ttl(&mut self) -> Result<Option<Duration>, Error> {
        self.0.run_async(|table| table.ttl()).await
    }

    /// See [`crate::RedisBlockedFilter::persist`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn persist(&mut self) -> Result<(), Error> {
        self.0.run_async(|table| table.expire(None)).await
    }

    /// The filter's name.
    pub fn name(&self) -> &str {
        self.0.inner.keys.name()
    }

    /// Blocks of 512 cells.
    pub fn num_blocks(&self) -> u64 {
        self.0.inner.table.blocks
    }

    /// `k`, the cells per item.
    pub fn num_hashes(&self) -> u32 {
        self.0.inner.table.hashes
    }

    /// The hasher items go through.
    pub fn hasher(&self) -> &DefaultHasher {
        &self.0.inner.hasher
    }

    /// Gives the connection back.
    pub fn into_connection(self) -> C {
        self.0.conn
    }
}

impl<T: ?Sized, C: AsyncConnection> RedisBlockedFilter<T, C, Bits> {
    /// See [`crate::RedisBloomFilter::import`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn import(
        conn: C,
        name: &str,
        filter: &BlockedBloomFilter<T>,
        max_shard_bytes: usize,
    ) -> Result<Self, Error> {
        let op = TableFilter::import(name, filter, max_shard_bytes)?;
        Handle::start_async(conn, op).await.map(Self)
    }

    /// See [`crate::RedisBloomFilter::export`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn export(&mut self) -> Result<BlockedBloomFilter<T>, Error> {
        self.0.run_async(|table| table.export()).await
    }
}

impl<T: ?Sized, C: AsyncConnection> RedisBlockedFilter<T, C, Counters> {
    /// See [`crate::RedisCountingBloomFilter::remove`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn remove<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<(), Error>
    where
        T: Borrow<Q>,
    {
        self.0.run_async(|table| table.remove(item)).await
    }
}

/// Lookups and inserts of a filter shared among tasks: each takes a
/// connection from the source for its round trips.
impl<T: ?Sized, S: AsyncSource, L: Cells> RedisBlockedFilter<T, Shared<S>, L> {
    /// `insert` on a connection of the source.
    ///
    /// # Errors
    ///
    /// As the exclusive method.
    pub async fn insert(&self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        let mut one = self.0.take_async::<Error>().await?;
        one.run_async(|table| table.insert_one(item)).await
    }

    /// `contains` on a connection of the source.
    ///
    /// # Errors
    ///
    /// As the exclusive method.
    pub async fn contains<Q: ?Sized + Hash>(&self, item: &Q) -> Result<bool, Error>
    where
        T: Borrow<Q>,
    {
        let mut one = self.0.take_async::<Error>().await?;
        one.run_async(|table| table.contains_one(item)).await
    }

    /// `insert_batch` on a connection of the source.
    ///
    /// # Errors
    ///
    /// As the exclusive method.
    pub async fn insert_batch(&self, items: &[T]) -> Result<usize, BatchError>
    where
        T: Hash + Sized,
    {
        let mut one = self.0.take_async::<BatchError>().await?;
        one.run_async(|table| table.insert_all(items)).await
    }

    /// `contains_batch` on a connection of the source.
    ///
    /// # Errors
    ///
    /// As the exclusive method.
    pub async fn contains_batch<Q: Hash>(&self, items: &[Q]) -> Result<Vec<bool>, Error>
    where
        T: Borrow<Q>,
    {
        let mut one = self.0.take_async::<Error>().await?;
        one.run_async(|table| table.contains_all(items)).await
    }
}
