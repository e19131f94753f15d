//! The async connections a filter runs on, and the sources a shared
//! filter takes them from.

use std::any::Any;
use std::collections::HashMap;
use std::future::Future;

use redis::cluster_routing::Slot;
use redis::{Cmd, RedisError, Value};

use crate::conn::{Failed, Replies};

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
/// through [`Shared`](crate::Shared).
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

/// A source of async connections a [`Shared`](crate::Shared) filter takes one from for
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
