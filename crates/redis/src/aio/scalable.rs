//! The async [`RedisScalableBloomFilter`].

use std::borrow::Borrow;
use std::fmt;
use std::hash::Hash;
use std::time::Duration;

use super::{AsyncConnection, AsyncSource};
use crate::admin::Info;
use crate::error::{BatchError, Error};
use crate::handle::Handle;
use crate::ops::Batches;
use crate::scalable::{Layers, ScalableOptions};
use crate::shared::Shared;
use crate::table::Options;

/// [`crate::RedisScalableBloomFilter`] over an async connection.
pub struct RedisScalableBloomFilter<T: ?Sized, C>(Handle<T, C, Layers>);

/// A handle on the same filter over a clone of the connection: the way
/// to share one filter among tasks over a `MultiplexedConnection` or a
/// `ConnectionManager`, whose clones share one connection.
impl<T: ?Sized, C: Clone> Clone for RedisScalableBloomFilter<T, C> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T: ?Sized, C> RedisScalableBloomFilter<T, C> {
    /// The same filter over `conn`, with no round trip.
    pub fn on<C2>(&self, conn: C2) -> RedisScalableBloomFilter<T, C2> {
        RedisScalableBloomFilter(self.0.on(conn))
    }
}

impl<T: ?Sized, C> fmt::Debug for RedisScalableBloomFilter<T, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.inner.describe(f, "aio::RedisScalableBloomFilter")
    }
}

impl<T: ?Sized, C: AsyncConnection> RedisScalableBloomFilter<T, C> {
    /// See [`crate::RedisScalableBloomFilter::create`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn create(
        conn: C,
        name: &str,
        initial_capacity: usize,
        fpr: f64,
    ) -> Result<Self, Error> {
        Self::create_with(conn, name, initial_capacity, fpr, ScalableOptions::new()).await
    }

    /// See [`crate::RedisScalableBloomFilter::create_with`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn create_with(
        conn: C,
        name: &str,
        initial_capacity: usize,
        fpr: f64,
        options: ScalableOptions,
    ) -> Result<Self, Error> {
        let item = crate::meta::item_name::<T>();
        let op = Layers::create(name, item, initial_capacity, fpr, &options)?;
        Handle::start_async(conn, op).await.map(Self)
    }

    /// See [`crate::RedisScalableBloomFilter::open`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn open(conn: C, name: &str) -> Result<Self, Error> {
        Self::open_with(conn, name, Options::new()).await
    }

    /// See [`crate::RedisScalableBloomFilter::open_with`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn open_with(conn: C, name: &str, options: Options) -> Result<Self, Error> {
        let item = crate::meta::item_name::<T>();
        let op = Layers::open(name, item, options.get_max_bytes())?;
        Handle::start_async(conn, op).await.map(Self)
    }

    /// See [`crate::RedisScalableBloomFilter::insert`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn insert(&mut self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        self.0.run_async(|layers| layers.insert_one(item)).await
    }

    /// See [`crate::RedisScalableBloomFilter::contains`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn contains<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<bool, Error>
    where
        T: Borrow<Q>,
    {
        self.0.run_async(|layers| layers.contains_one(item)).await
    }

    /// See [`crate::RedisScalableBloomFilter::insert_batch`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn insert_batch(&mut self, items: &[T]) -> Result<usize, BatchError>
    where
        T: Hash + Sized,
    {
        self.0.run_async(|layers| layers.insert_all(items)).await
    }

    /// See [`crate::RedisScalableBloomFilter::contains_batch`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn contains_batch<Q: Hash>(&mut self, items: &[Q]) -> Result<Vec<bool>, Error>
    where
        T: Borrow<Q>,
    {
        self.0.run_async(|layers| layers.contains_all(items)).await
    }

    /// See [`crate::RedisScalableBloomFilter::added`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn added(&mut self) -> Result<u64, Error> {
        self.0.run_async(|layers| layers.count()).await
    }

    /// See [`crate::RedisScalableBloomFilter::len`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn len(&mut self) -> Result<u64, Error> {
        self.0.run_async(|layers| layers.inserts()).await
    }

    /// See [`crate::RedisScalableBloomFilter::is_empty`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn is_empty(&mut self) -> Result<bool, Error> {
        self.len().await.map(|n| n == 0)
    }

    /// See [`crate::RedisScalableBloomFilter::num_layers`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn num_layers(&mut self) -> Result<u32, Error> {
        self.0.run_async(|layers| layers.num_layers()).await
    }

    /// See [`crate::RedisScalableBloomFilter::estimate_count`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn estimate_count(&mut self) -> Result<f64, Error> {
        self.0.run_async(|layers| layers.estimate_count()).await
    }

    /// See [`crate::RedisScalableBloomFilter::expected_fpr`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn expected_fpr(&mut self) -> Result<f64, Error> {
        self.0.run_async(|layers| layers.expected_fpr()).await
    }

    /// See [`crate::RedisScalableBloomFilter::delete`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn delete(&mut self) -> Result<(), Error> {
        self.0.run_async(|layers| layers.delete()).await
    }

    /// See [`crate::RedisScalableBloomFilter::info`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn info(&mut self) -> Result<Info, Error> {
        self.0.run_async(|layers| layers.info()).await
    }

    /// See [`crate::RedisScalableBloomFilter::expire`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn expire(&mut self, ttl: Duration) -> Result<(), Error> {
        self.0.run_async(|layers| layers.expire(Some(ttl))).await
    }

    /// See [`crate::RedisScalableBloomFilter::ttl`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn ttl(&mut self) -> Result<Option<Duration>, Error> {
        self.0.run_async(|layers| layers.ttl()).await
    }

    /// See [`crate::RedisScalableBloomFilter::persist`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn persist(&mut self) -> Result<(), Error> {
        self.0.run_async(|layers| layers.expire(None)).await
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
impl<T: ?Sized, S: AsyncSource> RedisScalableBloomFilter<T, Shared<S>> {
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
        one.run_async(|layers| layers.insert_one(item)).await
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
        one.run_async(|layers| layers.contains_one(item)).await
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
        one.run_async(|layers| layers.insert_all(items)).await
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
        one.run_async(|layers| layers.contains_all(items)).await
    }
}
