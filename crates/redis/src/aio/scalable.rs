//! The async [`RedisScalableBloomFilter`].

use std::borrow::Borrow;
use std::fmt;
use std::hash::Hash;
use std::marker::PhantomData;
use std::time::Duration;

use super::{AsyncConnection, AsyncSource, take, take_for_batch};
use crate::admin::Info;
use crate::conn::{Op, run as drive};
use crate::error::{BatchError, Error};
use crate::ops::Batches;
use crate::scalable::{Layers, ScalableOptions};
use crate::shared::Shared;
use crate::table::Options;

/// [`crate::RedisScalableBloomFilter`] over an async connection.
pub struct RedisScalableBloomFilter<T: ?Sized, C> {
    conn: C,
    layers: Layers,
    item: PhantomData<fn(&T)>,
}

/// A handle on the same filter over a clone of the connection: the way
/// to share one filter among tasks over a `MultiplexedConnection` or a
/// `ConnectionManager`, whose clones share one connection.
impl<T: ?Sized, C: Clone> Clone for RedisScalableBloomFilter<T, C> {
    fn clone(&self) -> Self {
        self.on(self.conn.clone())
    }
}

impl<T: ?Sized, C> RedisScalableBloomFilter<T, C> {
    /// The same filter over `conn`, with no round trip.
    pub fn on<C2>(&self, conn: C2) -> RedisScalableBloomFilter<T, C2> {
        RedisScalableBloomFilter {
            conn,
            layers: self.layers.clone(),
            item: PhantomData,
        }
    }
}

impl<T: ?Sized, C> fmt::Debug for RedisScalableBloomFilter<T, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.layers.describe(f, "aio::RedisScalableBloomFilter")
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
        Self::start(conn, op).await
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
        Self::start(conn, op).await
    }

    /// Runs the setup `op` on `conn` and keeps the filter it ends with.
    async fn start(
        mut conn: C,
        op: impl Op<Output = Layers, Error = Error>,
    ) -> Result<Self, Error> {
        let layers = drive(&mut conn, op).await?;
        Ok(Self {
            conn,
            layers,
            item: PhantomData,
        })
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
        drive(&mut self.conn, self.layers.insert_one(item)).await
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
        drive(&mut self.conn, self.layers.contains_one(item)).await
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
        drive(&mut self.conn, self.layers.insert_all(items)).await
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
        drive(&mut self.conn, self.layers.contains_all(items)).await
    }

    /// See [`crate::RedisScalableBloomFilter::added`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn added(&mut self) -> Result<u64, Error> {
        drive(&mut self.conn, self.layers.count()).await
    }

    /// See [`crate::RedisScalableBloomFilter::len`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn len(&mut self) -> Result<u64, Error> {
        drive(&mut self.conn, self.layers.inserts()).await
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
        drive(&mut self.conn, self.layers.num_layers()).await
    }

    /// See [`crate::RedisScalableBloomFilter::estimate_count`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn estimate_count(&mut self) -> Result<f64, Error> {
        drive(&mut self.conn, self.layers.estimate_count()).await
    }

    /// See [`crate::RedisScalableBloomFilter::expected_fpr`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn expected_fpr(&mut self) -> Result<f64, Error> {
        drive(&mut self.conn, self.layers.expected_fpr()).await
    }

    /// See [`crate::RedisScalableBloomFilter::delete`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn delete(&mut self) -> Result<(), Error> {
        drive(&mut self.conn, self.layers.delete()).await
    }

    /// See [`crate::RedisScalableBloomFilter::info`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn info(&mut self) -> Result<Info, Error> {
        drive(&mut self.conn, self.layers.info()).await
    }

    /// See [`crate::RedisScalableBloomFilter::expire`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn expire(&mut self, ttl: Duration) -> Result<(), Error> {
        drive(&mut self.conn, self.layers.expire(Some(ttl))).await
    }

    /// See [`crate::RedisScalableBloomFilter::ttl`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn ttl(&mut self) -> Result<Option<Duration>, Error> {
        drive(&mut self.conn, self.layers.ttl()).await
    }

    /// See [`crate::RedisScalableBloomFilter::persist`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn persist(&mut self) -> Result<(), Error> {
        drive(&mut self.conn, self.layers.expire(None)).await
    }

    /// The filter's name.
    pub fn name(&self) -> &str {
        self.layers.name()
    }

    /// Gives the connection back.
    pub fn into_connection(self) -> C {
        self.conn
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
        let mut layers = self.layers.clone();
        drive(&mut take(&self.conn).await?, layers.insert_one(item)).await
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
        let mut layers = self.layers.clone();
        drive(&mut take(&self.conn).await?, layers.contains_one(item)).await
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
        let mut layers = self.layers.clone();
        drive(
            &mut take_for_batch(&self.conn).await?,
            layers.insert_all(items),
        )
        .await
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
        let mut layers = self.layers.clone();
        drive(&mut take(&self.conn).await?, layers.contains_all(items)).await
    }
}
