//! The async [`RedisCuckooFilter`].

use std::borrow::Borrow;
use std::fmt;
use std::hash::Hash;
use std::time::Duration;

use super::{AsyncConnection, AsyncSource};
use crate::admin::Info;
use crate::error::{BatchError, Error};
use crate::handle::Handle;
use crate::ops::Batches;
use crate::shared::Shared;
use crate::table::Options;

/// [`crate::RedisCuckooFilter`] over an async connection: the same scripts
/// and replies.
pub struct RedisCuckooFilter<T: ?Sized, C>(Handle<T, C, crate::cuckoo::Cuckoo>);

/// A handle on the same filter over a clone of the connection: the way
/// to share one filter among tasks over a `MultiplexedConnection` or a
/// `ConnectionManager`, whose clones share one connection.
impl<T: ?Sized, C: Clone> Clone for RedisCuckooFilter<T, C> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T: ?Sized, C> RedisCuckooFilter<T, C> {
    /// The same filter over `conn`, with no round trip.
    pub fn on<C2>(&self, conn: C2) -> RedisCuckooFilter<T, C2> {
        RedisCuckooFilter(self.0.on(conn))
    }
}

impl<T: ?Sized, C> fmt::Debug for RedisCuckooFilter<T, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.inner.describe(f, "aio::RedisCuckooFilter")
    }
}

impl<T: ?Sized, C: AsyncConnection> RedisCuckooFilter<T, C> {
    /// See [`crate::RedisCuckooFilter::create`].
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

    /// See [`crate::RedisCuckooFilter::create_with`].
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
        let op = crate::cuckoo::Cuckoo::create(name, item, expected_items, fpr, &options)?;
        Handle::start_async(conn, op).await.map(Self)
    }

    /// See [`crate::RedisCuckooFilter::open`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn open(conn: C, name: &str) -> Result<Self, Error> {
        let item = crate::meta::item_name::<T>();
        let op = crate::cuckoo::Cuckoo::open(name, item, crate::DEFAULT_MAX_BYTES)?;
        Handle::start_async(conn, op).await.map(Self)
    }

    /// See [`crate::RedisCuckooFilter::import`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn import(
        conn: C,
        name: &str,
        filter: &bloomlab_cuckoo::CuckooFilter<T>,
        max_shard_bytes: usize,
    ) -> Result<Self, Error> {
        let op = crate::cuckoo::Cuckoo::import(name, filter, max_shard_bytes)?;
        Handle::start_async(conn, op).await.map(Self)
    }

    /// See [`crate::RedisCuckooFilter::insert`].
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

    /// See [`crate::RedisCuckooFilter::insert_unique`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn insert_unique(&mut self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        self.0.run_async(|table| table.insert_unique(item)).await
    }

    /// See [`crate::RedisCuckooFilter::contains`].
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

    /// See [`crate::RedisCuckooFilter::count`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn count<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<usize, Error>
    where
        T: Borrow<Q>,
    {
        self.0.run_async(|table| table.count(item)).await
    }

    /// See [`crate::RedisCuckooFilter::remove`].
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

    /// See [`crate::RedisCuckooFilter::insert_batch`].
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

    /// See [`crate::RedisCuckooFilter::contains_batch`].
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

    /// See [`crate::RedisCuckooFilter::len`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn len(&mut self) -> Result<u64, Error> {
        self.0.run_async(|table| table.len()).await
    }

    /// See [`crate::RedisCuckooFilter::is_empty`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn is_empty(&mut self) -> Result<bool, Error> {
        Ok(self.len().await? == 0)
    }

    /// See [`crate::RedisCuckooFilter::export`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn export(&mut self) -> Result<bloomlab_cuckoo::CuckooFilter<T>, Error> {
        self.0.run_async(|table| table.export()).await
    }

    /// See [`crate::RedisCuckooFilter::delete`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn delete(&mut self) -> Result<(), Error> {
        self.0.run_async(|table| table.delete()).await
    }

    /// See [`crate::RedisCuckooFilter::info`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn info(&mut self) -> Result<Info, Error> {
        self.0.run_async(|table| table.info()).await
    }

    /// See [`crate::RedisCuckooFilter::expire`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn expire(&mut self, ttl: Duration) -> Result<(), Error> {
        self.0.run_async(|table| table.expire(Some(ttl))).await
    }

    /// See [`crate::RedisCuckooFilter::ttl`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn ttl(&mut self) -> Result<Option<Duration>, Error> {
        self.0.run_async(|table| table.ttl()).await
    }

    /// See [`crate::RedisCuckooFilter::persist`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn persist(&mut self) -> Result<(), Error> {
        self.0.run_async(|table| table.expire(None)).await
    }

    /// The filter's name.
    pub fn name(&self) -> &str {
        self.0.inner.name()
    }

    /// Gives the connection back.
    pub fn into_connection(self) -> C {
        self.0.conn
    }
}

/// Lookups and inserts of a filter shared among tasks: each takes a
/// connection from the source for its round trips.
impl<T: ?Sized, S: AsyncSource> RedisCuckooFilter<T, Shared<S>> {
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
