//! The async API (feature `tokio`): the same filters over
//! [`redis::aio::MultiplexedConnection`] or
//! [`redis::cluster_async::ClusterConnection`], built from the same commands,
//! scripts and replies as the blocking ones. Only the I/O differs.
//!
//! A batch is one request to the connection, so the connection's response
//! timeout must cover the whole batch: a `MultiplexedConnection` gives up
//! after 500 ms by default, which a batch of a few hundred thousand items
//! can exceed; raise it with `set_response_timeout` or send smaller batches.
//!
//! ```no_run
//! use bloomlab_redis::aio::RedisBloomFilter;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let client = redis::Client::open("redis://127.0.0.1/")?;
//! let mut conn = client.get_multiplexed_async_connection().await?;
//! conn.set_response_timeout(std::time::Duration::from_secs(10));
//! let mut seen = RedisBloomFilter::<str, _>::create(conn, "seen", 100_000, 0.01).await?;
//! seen.insert("page-1").await?;
//! assert!(seen.contains("page-1").await?);
//! # Ok(())
//! # }
//! ```

use std::any::Any;
use std::borrow::Borrow;
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::hash::Hash;
use std::marker::PhantomData;
use std::time::Duration;

use bloomlab_classic::BlockedBloomFilter;
use bloomlab_core::DefaultHasher;
use redis::cluster_routing::Slot;
use redis::{Cmd, RedisError, Value};

use crate::admin::{self, Info};
use crate::conn::{Failed, Op, Replies, Transport, run as drive};
use crate::error::{BatchError, Error};
use crate::ops::Batches;
use crate::scalable::{Layers, ScalableOptions};
use crate::shared::Shared;
use crate::table::{Bits, Cells, Counters, Options, TableFilter};

/// An async connection a filter runs on: anything that implements
/// redis-rs's [`aio::ConnectionLike`](redis::aio::ConnectionLike), is
/// `'static` and can be sent between threads: a
/// [`MultiplexedConnection`](redis::aio::MultiplexedConnection), a
/// `ConnectionManager` (redis-rs's feature `connection-manager`, which
/// reconnects by itself), a Cluster's
/// [`ClusterConnection`](redis::cluster_async::ClusterConnection), a pool's
/// connection that implements `ConnectionLike` (deadpool-redis's), or a type
/// of your own. A bb8 pool of redis-rs clients hands out
/// `MultiplexedConnection`s behind a guard that does not implement it: take
/// the connection out (`.clone()`), or share one multiplexed connection
/// through [`Shared`].
///
/// A batch is one pipeline; on a
/// [`ClusterConnection`](redis::cluster_async::ClusterConnection), one
/// pipeline per slot, all at once.
pub trait AsyncConnection: Send {
    /// Sends `cmds` in one pipeline (one per slot on a Cluster, all at once)
    /// and returns one reply per command; a command's error is its reply.
    #[doc(hidden)]
    fn round_trip(&mut self, cmds: &[Cmd]) -> impl Future<Output = Replies> + Send;

    /// Loads `script` on every server that serves keys.
    #[doc(hidden)]
    fn load(
        &mut self,
        script: &redis::Script,
    ) -> impl Future<Output = Result<(), RedisError>> + Send;
}

impl<C: redis::aio::ConnectionLike + Send + Any> AsyncConnection for C {
    async fn round_trip(&mut self, cmds: &[Cmd]) -> Replies {
        let any: &mut dyn Any = self;
        if let Some(cluster) = any.downcast_mut::<redis::cluster_async::ClusterConnection>() {
            return cluster_round_trip(cluster, cmds).await;
        }
        let mut pipe = redis::pipe();
        for c in cmds {
            pipe.add_command(c.clone());
        }
        Ok(pipe.ignore_errors().query_async(self).await?)
    }

    async fn load(&mut self, script: &redis::Script) -> Result<(), RedisError> {
        // SCRIPT LOAD is routed to every master of a Cluster.
        script.prepare_invoke().load_async(self).await.map(drop)
    }
}

/// A source of async connections a [`Shared`] filter takes one from for
/// each operation: any connection that can be cloned (a
/// `MultiplexedConnection`, a `ConnectionManager`, the async Cluster's
/// `ClusterConnection`, whose clones share one connection), or a pool of
/// your own.
pub trait AsyncSource: Sync {
    /// The connection it hands out.
    type Conn: AsyncConnection;

    /// A connection for one operation.
    ///
    /// # Errors
    ///
    /// When none can be had.
    fn connection(&self) -> impl Future<Output = Result<Self::Conn, RedisError>> + Send;
}

impl<C: AsyncConnection + Clone + Sync> AsyncSource for C {
    type Conn = C;

    async fn connection(&self) -> Result<C, RedisError> {
        Ok(self.clone())
    }
}

/// A connection from `source`, or the error it gave, sorted.
async fn take<S: AsyncSource>(source: &Shared<S>) -> Result<S::Conn, Error> {
    source.0.connection().await.map_err(Error::from_redis)
}

/// As [`take`], for a batch insert: nothing was sent, so nothing stored.
async fn take_for_batch<S: AsyncSource>(source: &Shared<S>) -> Result<S::Conn, BatchError> {
    take(source).await.map_err(|e| BatchError {
        stored: Vec::new(),
        unknown: Vec::new(),
        source: Box::new(e),
    })
}

/// The key a command routes by: `EVALSHA sha numkeys key …` or `CMD key …`.
fn routing_key(c: &Cmd) -> &[u8] {
    let arg = |i| match c.args_iter().nth(i) {
        Some(redis::Arg::Simple(a)) => a,
        _ => &[],
    };
    if arg(0).eq_ignore_ascii_case(b"EVALSHA") {
        arg(3)
    } else {
        arg(1)
    }
}

/// Sends `cmds` on an async Cluster connection: it sends a pipeline to one
/// slot, so the commands go out as one pipeline per slot, all at once.
async fn cluster_round_trip(
    conn: &mut redis::cluster_async::ClusterConnection,
    cmds: &[Cmd],
) -> Replies {
    let mut by_slot: HashMap<Slot, Vec<usize>> = HashMap::new();
    for (i, c) in cmds.iter().enumerate() {
        by_slot
            .entry(Slot::for_key(routing_key(c)))
            .or_default()
            .push(i);
    }
    let sends = by_slot.into_values().map(|idx| {
        let mut conn = conn.clone();
        let mut pipe = redis::pipe();
        for &i in &idx {
            pipe.add_command(cmds[i].clone());
        }
        async move {
            let values: Result<Vec<Value>, RedisError> =
                pipe.ignore_errors().query_async(&mut conn).await;
            (idx, values)
        }
    });
    let mut replies = vec![Value::Nil; cmds.len()];
    for (idx, values) in futures_util::future::join_all(sends).await {
        // The pipelines of other slots may have run: their replies are
        // lost with this error, so the whole round trip counts as broken.
        for (i, v) in idx.into_iter().zip(values.map_err(Failed::from)?) {
            replies[i] = v;
        }
    }
    Ok(replies)
}

impl<C: AsyncConnection + ?Sized> Transport for C {
    fn round_trip(&mut self, cmds: &[Cmd]) -> impl Future<Output = Replies> + Send {
        AsyncConnection::round_trip(self, cmds)
    }

    fn load(
        &mut self,
        script: &redis::Script,
    ) -> impl Future<Output = Result<(), RedisError>> + Send {
        AsyncConnection::load(self, script)
    }
}

/// [`crate::RedisBloomFilter`] over an async connection.
pub type RedisBloomFilter<T, C> = RedisBlockedFilter<T, C, Bits>;

/// [`crate::RedisCountingBloomFilter`] over an async connection.
pub type RedisCountingBloomFilter<T, C> = RedisBlockedFilter<T, C, Counters>;

/// [`crate::RedisBlockedFilter`] over an async connection: the same
/// methods, each a future.
pub struct RedisBlockedFilter<T: ?Sized, C, L> {
    conn: C,
    inner: TableFilter,
    item: PhantomData<fn(&T) -> L>,
}

/// A handle on the same filter over a clone of the connection: the way
/// to share one filter among tasks over a `MultiplexedConnection` or a
/// `ConnectionManager`, whose clones share one connection.
impl<T: ?Sized, C: Clone, L> Clone for RedisBlockedFilter<T, C, L> {
    fn clone(&self) -> Self {
        self.on(self.conn.clone())
    }
}

impl<T: ?Sized, C, L> RedisBlockedFilter<T, C, L> {
    /// The same filter over `conn`, with no round trip.
    pub fn on<C2>(&self, conn: C2) -> RedisBlockedFilter<T, C2, L> {
        RedisBlockedFilter {
            conn,
            inner: self.inner.clone(),
            item: PhantomData,
        }
    }
}

impl<T: ?Sized, C, L> fmt::Debug for RedisBlockedFilter<T, C, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.describe(f, "aio::RedisBlockedFilter")
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
        Self::start(conn, op).await
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
        Self::start(conn, op).await
    }

    /// Runs the setup `op` on `conn` and keeps the filter it ends with.
    async fn start(
        mut conn: C,
        op: impl Op<Output = TableFilter, Error = Error>,
    ) -> Result<Self, Error> {
        let inner = drive(&mut conn, op).await?;
        Ok(Self {
            conn,
            inner,
            item: PhantomData,
        })
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
        drive(&mut self.conn, self.inner.insert_one(item)).await
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
        drive(&mut self.conn, self.inner.contains_one(item)).await
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
        drive(&mut self.conn, self.inner.insert_all(items)).await
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
        drive(&mut self.conn, self.inner.contains_all(items)).await
    }

    /// See [`crate::RedisBlockedFilter::estimate_count`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn estimate_count(&mut self) -> Result<f64, Error> {
        drive(&mut self.conn, self.inner.estimate_count()).await
    }

    /// See [`crate::RedisBlockedFilter::expected_fpr`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn expected_fpr(&mut self) -> Result<f64, Error> {
        drive(&mut self.conn, self.inner.expected_fpr()).await
    }

    /// See [`crate::RedisBlockedFilter::delete`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn delete(&mut self) -> Result<(), Error> {
        drive(&mut self.conn, self.inner.delete()).await
    }

    /// See [`crate::RedisBlockedFilter::info`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn info(&mut self) -> Result<Info, Error> {
        drive(&mut self.conn, self.inner.info()).await
    }

    /// See [`crate::RedisBlockedFilter::expire`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn expire(&mut self, ttl: Duration) -> Result<(), Error> {
        let (name, keys) = (self.inner.keys.name().to_owned(), self.inner.all_keys());
        drive(&mut self.conn, admin::expire(name, keys, Some(ttl))).await
    }

    /// See [`crate::RedisBlockedFilter::ttl`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn ttl(&mut self) -> Result<Option<Duration>, Error> {
        let (name, keys) = (self.inner.keys.name().to_owned(), self.inner.all_keys());
        drive(&mut self.conn, admin::ttl(name, keys)).await
    }

    /// See [`crate::RedisBlockedFilter::persist`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn persist(&mut self) -> Result<(), Error> {
        let (name, keys) = (self.inner.keys.name().to_owned(), self.inner.all_keys());
        drive(&mut self.conn, admin::expire(name, keys, None)).await
    }

    /// The filter's name.
    pub fn name(&self) -> &str {
        self.inner.keys.name()
    }

    /// Blocks of 512 cells.
    pub fn num_blocks(&self) -> u64 {
        self.inner.table.blocks
    }

    /// `k`, the cells per item.
    pub fn num_hashes(&self) -> u32 {
        self.inner.table.hashes
    }

    /// The hasher items go through.
    pub fn hasher(&self) -> &DefaultHasher {
        &self.inner.hasher
    }

    /// Gives the connection back.
    pub fn into_connection(self) -> C {
        self.conn
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
        Self::start(conn, op).await
    }

    /// See [`crate::RedisBloomFilter::export`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn export(&mut self) -> Result<BlockedBloomFilter<T>, Error> {
        drive(&mut self.conn, self.inner.export()).await
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
        drive(&mut self.conn, self.inner.remove(item)).await
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
        let mut inner = self.inner.clone();
        drive(&mut take(&self.conn).await?, inner.insert_one(item)).await
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
        let mut inner = self.inner.clone();
        drive(&mut take(&self.conn).await?, inner.contains_one(item)).await
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
        let mut inner = self.inner.clone();
        drive(
            &mut take_for_batch(&self.conn).await?,
            inner.insert_all(items),
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
        let mut inner = self.inner.clone();
        drive(&mut take(&self.conn).await?, inner.contains_all(items)).await
    }
}

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
