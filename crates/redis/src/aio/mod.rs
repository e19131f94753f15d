//! The async API (feature `tokio`): the same filters over
//! [`redis::aio::MultiplexedConnection`](https://docs.rs/redis/1/redis/aio/struct.MultiplexedConnection.html) or
//! [`redis::cluster_async::ClusterConnection`](https://docs.rs/redis/1/redis/cluster_async/struct.ClusterConnection.html), built from the same commands,
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

use std::future::Future;

use redis::{Cmd, RedisError};

use crate::conn::{Replies, Transport};

mod blocked;
mod connection;
mod cuckoo;
mod filter;
mod scalable;

pub use crate::variant::Async;
pub use blocked::{RedisBlockedFilter, RedisBloomFilter, RedisCountingBloomFilter};
pub use connection::{AsyncConnection, AsyncSource};
pub use cuckoo::RedisCuckooFilter;
pub use filter::RedisFilter;
pub use scalable::RedisScalableBloomFilter;

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
