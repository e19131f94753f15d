//! The async [`RedisCuckooFilter`].

use std::borrow::Borrow;
use std::fmt;
use std::hash::Hash;
use std::marker::PhantomData;
use std::time::Duration;

use super::{AsyncConnection, AsyncSource, take, take_for_batch};
use crate::admin::{self, Info};
use crate::conn::{Op, run as drive};
use crate::error::{BatchError, Error};
use crate::shared::Shared;
use crate::table::Options;

/// [`crate::RedisCuckooFilter`] over an async connection: the same scripts
/// and replies.
pub struct RedisCuckooFilter<T: ?Sized, C> {
    conn: C,
    inner: crate::cuckoo::Cuckoo,
    item: PhantomData<fn(&T)>,
}

/// A handle on the same filter over a clone of the connection: the way
/// to share one filter among tasks over a `MultiplexedConnection` or a
/// `ConnectionManager`, whose clones share one connection.
impl<T: ?Sized, C: Clone> Clone for RedisCuckooFilter<T, C> {
    fn clone(&self) -> Self {
        self.on(self.conn.clone())
    }
}

impl<T: ?Sized, C> RedisCuckooFilter<T, C> {
    /// The same filter over `conn`, with no round trip.
    pub fn on<C2>(&self, conn: C2) -> RedisCuckooFilter<T, C2> {
        RedisCuckooFilter {
            conn,
            inner: self.inner.clone(),
            item: PhantomData,
        }
    }
}

impl<T: ?Sized, C> fmt::Debug for RedisCuckooFilter<T, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.describe(f, "aio::RedisCuckooFilter")
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
        Self::start(conn, op).await
    }

    /// See [`crate::RedisCuckooFilter::open`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn open(conn: C, name: &str) -> Result<Self, Error> {
        let item = crate::meta::item_name::<T>();
        let op = crate::cuckoo::Cuckoo::open(name, item, crate::DEFAULT_MAX_BYTES)?;
        Self::start(conn, op).await
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
        Self::start(conn, op).await
    }

    async fn start(
        mut conn: C,
        op: impl Op<Output = crate::cuckoo::Cuckoo, Error = Error>,
    ) -> Result<Self, Error> {
        let inner = drive(&mut conn, op).await?;
        Ok(Self {
            conn,
            inner,
            item: PhantomData,
        })
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
        let op = self.inner.inserts(&[self.inner.hash(item)], false);
        let v = drive(&mut self.conn, op).await.map_err(|e| *e.source)?;
        Ok(v.first().copied().unwrap_or(false))
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
        let op = self.inner.inserts(&[self.inner.hash(item)], true);
        let v = drive(&mut self.conn, op).await.map_err(|e| *e.source)?;
        Ok(v.first().copied().unwrap_or(false))
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
        Ok(self.count(item).await? > 0)
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
        let op = self.inner.counts(&[self.inner.hash(item)]);
        Ok(drive(&mut self.conn, op)
            .await?
            .first()
            .copied()
            .unwrap_or(0) as usize)
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
        let op = self.inner.remove(self.inner.hash(item));
        drive(&mut self.conn, op).await
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
        let op = self.inner.inserts(&self.inner.hashes(items), false);
        let v = drive(&mut self.conn, op).await?;
        Ok(v.iter().filter(|&&new| new).count())
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
        let op = self.inner.counts(&self.inner.hashes(items));
        Ok(drive(&mut self.conn, op)
            .await?
            .iter()
            .map(|&c| c > 0)
            .collect())
    }

    /// See [`crate::RedisCuckooFilter::len`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn len(&mut self) -> Result<u64, Error> {
        drive(&mut self.conn, self.inner.len()).await
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
        let words = drive(&mut self.conn, self.inner.export_words()).await?;
        self.inner.to_filter(&words)
    }

    /// See [`crate::RedisCuckooFilter::delete`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn delete(&mut self) -> Result<(), Error> {
        drive(&mut self.conn, self.inner.delete()).await
    }

    /// See [`crate::RedisCuckooFilter::info`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn info(&mut self) -> Result<Info, Error> {
        drive(&mut self.conn, self.inner.info()).await
    }

    /// See [`crate::RedisCuckooFilter::expire`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn expire(&mut self, ttl: Duration) -> Result<(), Error> {
        let (name, keys) = (self.inner.name().to_owned(), self.inner.all_keys());
        drive(&mut self.conn, admin::expire(name, keys, Some(ttl))).await
    }

    /// See [`crate::RedisCuckooFilter::ttl`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn ttl(&mut self) -> Result<Option<Duration>, Error> {
        let (name, keys) = (self.inner.name().to_owned(), self.inner.all_keys());
        drive(&mut self.conn, admin::ttl(name, keys)).await
    }

    /// See [`crate::RedisCuckooFilter::persist`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn persist(&mut self) -> Result<(), Error> {
        let (name, keys) = (self.inner.name().to_owned(), self.inner.all_keys());
        drive(&mut self.conn, admin::expire(name, keys, None)).await
    }

    /// The filter's name.
    pub fn name(&self) -> &str {
        self.inner.name()
    }

    /// Gives the connection back.
    pub fn into_connection(self) -> C {
        self.conn
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
        let op = self.inner.inserts(&[self.inner.hash(item)], false);
        drive(&mut take(&self.conn).await?, op)
            .await
            .map(|v| v.first().copied().unwrap_or(false))
            .map_err(|e| *e.source)
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
        let op = self.inner.counts(&[self.inner.hash(item)]);
        let counts = drive(&mut take(&self.conn).await?, op).await?;
        Ok(counts.first().is_some_and(|&c| c > 0))
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
        let op = self.inner.inserts(&self.inner.hashes(items), false);
        let answers = drive(&mut take_for_batch(&self.conn).await?, op).await?;
        Ok(answers.iter().filter(|&&n| n).count())
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
        let op = self.inner.counts(&self.inner.hashes(items));
        let counts = drive(&mut take(&self.conn).await?, op).await?;
        Ok(counts.iter().map(|&c| c > 0).collect())
    }
}
