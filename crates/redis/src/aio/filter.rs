//! The async [`RedisFilter`]'s I/O: what every kind of filter does,
//! written once.

use std::borrow::Borrow;
use std::hash::Hash;
use std::time::Duration;

use super::{AsyncConnection, AsyncSource};
use crate::admin::Info;
use crate::error::{BatchError, Error};
use crate::handle::Handle;
use crate::ops::Batches;
use crate::shared::Shared;
use crate::table::Options;
use crate::variant::{Async, Counted, Inner, Portable, Removes, Variant};

/// [`crate::RedisFilter`] over an async connection: the same methods, each
/// a future, built from the same commands, scripts and replies.
pub type RedisFilter<T, C, K> = crate::RedisFilter<T, C, K, Async>;

impl<T: ?Sized, C: AsyncConnection, K: Variant> RedisFilter<T, C, K> {
    /// See [`crate::RedisFilter::create`].
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
        Self::create_with(conn, name, expected_items, fpr, K::Options::default()).await
    }

    /// See [`crate::RedisFilter::create_with`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn create_with(
        conn: C,
        name: &str,
        expected_items: usize,
        fpr: f64,
        options: K::Options,
    ) -> Result<Self, Error> {
        let op = K::create::<T>(name, expected_items, fpr, &options)?;
        Handle::start_async(conn, op).await.map(Self)
    }

    /// See [`crate::RedisFilter::open`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn open(conn: C, name: &str) -> Result<Self, Error> {
        Self::open_with(conn, name, Options::new()).await
    }

    /// See [`crate::RedisFilter::open_with`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn open_with(conn: C, name: &str, options: Options) -> Result<Self, Error> {
        let op = K::open::<T>(name, options.get_max_bytes())?;
        Handle::start_async(conn, op).await.map(Self)
    }

    /// See [`crate::RedisFilter::insert`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn insert(&mut self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        self.0.run_async(|inner| inner.insert_one(item)).await
    }

    /// See [`crate::RedisFilter::contains`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn contains<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<bool, Error>
    where
        T: Borrow<Q>,
    {
        self.0.run_async(|inner| inner.contains_one(item)).await
    }

    /// See [`crate::RedisFilter::insert_batch`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn insert_batch(&mut self, items: &[T]) -> Result<usize, BatchError>
    where
        T: Hash + Sized,
    {
        self.0.run_async(|inner| inner.insert_all(items)).await
    }

    /// See [`crate::RedisFilter::contains_batch`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn contains_batch<Q: Hash>(&mut self, items: &[Q]) -> Result<Vec<bool>, Error>
    where
        T: Borrow<Q>,
    {
        self.0.run_async(|inner| inner.contains_all(items)).await
    }

    /// See [`crate::RedisFilter::info`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn info(&mut self) -> Result<Info, Error> {
        self.0.run_async(|inner| inner.info()).await
    }

    /// See [`crate::RedisFilter::expire`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn expire(&mut self, ttl: Duration) -> Result<(), Error> {
        self.0.run_async(|inner| inner.expire(Some(ttl))).await
    }

    /// See [`crate::RedisFilter::ttl`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn ttl(&mut self) -> Result<Option<Duration>, Error> {
        self.0.run_async(|inner| inner.ttl()).await
    }

    /// See [`crate::RedisFilter::persist`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn persist(&mut self) -> Result<(), Error> {
        self.0.run_async(|inner| inner.expire(None)).await
    }

    /// See [`crate::RedisFilter::delete`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn delete(&mut self) -> Result<(), Error> {
        self.0.run_async(|inner| inner.delete()).await
    }
}

/// Lookups and inserts of a filter shared among tasks: each takes a
/// connection from the source for its round trips.
impl<T: ?Sized, S: AsyncSource, K: Variant> RedisFilter<T, Shared<S>, K> {
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
        one.run_async(|inner| inner.insert_one(item)).await
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
        one.run_async(|inner| inner.contains_one(item)).await
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
        one.run_async(|inner| inner.insert_all(items)).await
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
        one.run_async(|inner| inner.contains_all(items)).await
    }
}

impl<T: ?Sized, C: AsyncConnection, K: Portable> RedisFilter<T, C, K> {
    /// See [`crate::RedisFilter::import`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn import(
        conn: C,
        name: &str,
        filter: &K::Memory<T>,
        max_shard_bytes: usize,
    ) -> Result<Self, Error> {
        let op = K::import(name, filter, max_shard_bytes)?;
        Handle::start_async(conn, op).await.map(Self)
    }

    /// See [`crate::RedisFilter::export`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn export(&mut self) -> Result<K::Memory<T>, Error> {
        self.0.run_async(|inner| K::export(inner)).await
    }
}

impl<T: ?Sized, C: AsyncConnection, K: Removes> RedisFilter<T, C, K> {
    /// See [`crate::RedisFilter::remove`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn remove<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<(), Error>
    where
        T: Borrow<Q>,
    {
        self.0
            .run_async(|inner| {
                let hash = inner.hash(item);
                K::remove(inner, hash)
            })
            .await
    }
}

impl<T: ?Sized, C: AsyncConnection, K: Counted> RedisFilter<T, C, K> {
    /// See [`crate::RedisFilter::len`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn len(&mut self) -> Result<u64, Error> {
        self.0.run_async(|inner| K::len(inner)).await
    }

    /// See [`crate::RedisFilter::is_empty`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn is_empty(&mut self) -> Result<bool, Error> {
        self.len().await.map(|n| n == 0)
    }
}
