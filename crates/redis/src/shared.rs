//! One filter handle that many threads use at once: [`Shared`] around a
//! pool (or any [`Source`] of connections) takes a connection for each
//! operation, so that lookups and inserts take `&self`.

use redis::RedisError;

use crate::conn::Connection;

/// A source of connections a [`Shared`] filter takes one from for each
/// operation, and gives back after it: a pool, or a client that connects
/// anew each time.
pub trait Source: Sync {
    /// The connection it hands out.
    type Conn: Connection;

    /// A connection for one operation.
    ///
    /// # Errors
    ///
    /// When none can be had: the pool timed out, the server is unreachable.
    fn connection(&self) -> Result<Self::Conn, RedisError>;
}

/// An r2d2 pool of connections (feature `r2d2`): a connection is taken for
/// each operation, waiting up to the pool's timeout.
#[cfg(feature = "r2d2")]
impl<M> Source for r2d2::Pool<M>
where
    M: r2d2::ManageConnection,
    M::Connection: redis::ConnectionLike + std::any::Any,
{
    type Conn = r2d2::PooledConnection<M>;

    fn connection(&self) -> Result<Self::Conn, RedisError> {
        // r2d2 reports only that no connection came in time.
        self.get().map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("connection pool: {e}"),
            )
            .into()
        })
    }
}

/// A client: a new connection for each operation (a TCP handshake each;
/// use a pool where operations are many).
impl Source for redis::Client {
    type Conn = redis::Connection;

    fn connection(&self) -> Result<Self::Conn, RedisError> {
        self.get_connection()
    }
}

/// A filter's connections taken from `S` one operation at a time, so that
/// one handle, shared by reference (`&`, `Arc`) among threads, serves them
/// all: lookups and inserts take `&self`. Open the filter on any
/// connection, then put it on the source with `on`:
///
/// ```
/// use std::sync::Arc;
/// use bloomlab_redis::{RedisBloomFilter, Shared};
///
/// # let server = bloomlab_testkit::redis_server::RedisServer::start()?;
/// # let url = server.url();
/// let pool = r2d2::Pool::builder().max_size(2).build(redis::Client::open(url)?)?;
/// // The pooled connection `create` ran on goes back to the pool when
/// // this statement ends: the shared handle holds none.
/// let seen = RedisBloomFilter::<u64, _>::create(pool.get()?, "seen", 100_000, 0.01)?
///     .on(Shared(pool));
/// let seen = Arc::new(seen);
/// let threads: Vec<_> = (0..4u64)
///     .map(|t| {
///         let seen = Arc::clone(&seen);
///         std::thread::spawn(move || {
///             seen.insert(&t)?;
///             seen.contains(&t)
///         })
///     })
///     .collect();
/// for t in threads {
///     assert!(t.join().expect("the thread ran")?);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Shared<S>(pub S);
