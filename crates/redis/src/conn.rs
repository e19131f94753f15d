//! Running commands: one pipelined round trip at a time, on a single server
//! or a Cluster, blocking or async, with the scripts reloaded when a server
//! has forgotten them.
//!
//! Every operation is an [`Op`]: it says which commands its next round trip
//! sends and reads their replies, without doing any I/O itself, so the
//! blocking and the async filters share all of it, and one driver ([`run`])
//! runs it on either.

use std::any::Any;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use redis::{Cmd, RedisError, Value};

use crate::scripts;

/// The replies of one round trip, or how it broke.
pub type Replies = Result<Vec<Value>, Failed>;

/// A round trip that broke: the replies that arrived before the error, in
/// order, then the error.
#[derive(Debug)]
pub struct Failed {
    /// Replies received before the connection failed.
    pub replies: Vec<Value>,
    /// What failed.
    pub error: RedisError,
}

impl From<RedisError> for Failed {
    fn from(error: RedisError) -> Self {
        Failed {
            replies: Vec::new(),
            error,
        }
    }
}

/// An operation as a sequence of round trips.
pub trait Op {
    /// What it returns.
    type Output;
    /// How it fails.
    type Error;
    /// The commands of the next round trip; empty when the operation is done.
    fn commands(&mut self) -> Vec<Cmd>;
    /// Reads the replies to the commands just sent.
    fn absorb(&mut self, replies: Replies) -> Result<(), Self::Error>;
    /// The result, once [`commands`](Self::commands) is empty.
    fn finish(self) -> Result<Self::Output, Self::Error>;
}

/// A blocking connection a filter runs on: anything that implements
/// redis-rs's [`ConnectionLike`](redis::ConnectionLike): a single server's
/// [`redis::Connection`](https://docs.rs/redis/1/redis/struct.Connection.html), a Cluster's
/// [`ClusterConnection`](redis::cluster::ClusterConnection), a connection
/// from a pool (`r2d2::PooledConnection<redis::Client>`, which derefs to
/// one), or a type of your own. The filter takes it by value;
/// `into_connection` gives it back, and `on` puts the same filter on
/// another connection without a round trip.
///
/// How a batch goes out depends on what the connection can do:
/// - a [`redis::Connection`](https://docs.rs/redis/1/redis/struct.Connection.html) sends it as one write and reads the replies one
///   by one, so a connection lost part-way still tells which commands were
///   answered ([`BatchError`](crate::BatchError) names them);
/// - a [`ClusterConnection`](redis::cluster::ClusterConnection) sends one
///   pipeline per node;
/// - any other connection that pipelines sends one pipeline, whose replies
///   arrive all or none;
/// - one that does not (a Cluster connection behind a wrapper) sends the
///   commands one at a time: correct, but a round trip each.
pub trait Connection {
    /// Sends `cmds` and returns one reply per command; a command's error is
    /// its reply.
    #[doc(hidden)]
    fn round_trip(&mut self, cmds: &[Cmd]) -> Replies;

    /// Loads `script` on every server that serves keys.
    #[doc(hidden)]
    fn load(&mut self, script: &redis::Script) -> Result<(), RedisError>;
}

impl<C: redis::ConnectionLike + Any> Connection for C {
    fn round_trip(&mut self, cmds: &[Cmd]) -> Replies {
        let any: &mut dyn Any = self;
        if let Some(conn) = any.downcast_mut::<redis::Connection>() {
            return read_one_by_one(conn, cmds);
        }
        if let Some(conn) = any.downcast_mut::<redis::cluster::ClusterConnection>() {
            return cluster_round_trip(conn, cmds);
        }
        if self.supports_pipelining() {
            let mut packed = Vec::new();
            for c in cmds {
                c.write_packed_command(&mut packed);
            }
            return Ok(self.req_packed_commands(&packed, 0, cmds.len())?);
        }
        let mut replies = Vec::with_capacity(cmds.len());
        for c in cmds {
            match self.req_command(c) {
                Ok(v) => replies.push(v),
                Err(e) => match redis::ServerError::try_from(e) {
                    Ok(server) => replies.push(Value::ServerError(server)),
                    Err(error) => return Err(Failed { replies, error }),
                },
            }
        }
        Ok(replies)
    }

    fn load(&mut self, script: &redis::Script) -> Result<(), RedisError> {
        // SCRIPT LOAD is routed to every master of a Cluster.
        script.prepare_invoke().load(self).map(drop)
    }
}

/// Sends `cmds` as one write and reads the replies one by one, so that a
/// connection lost part-way still tells which commands were answered.
fn read_one_by_one(conn: &mut redis::Connection, cmds: &[Cmd]) -> Replies {
    let mut packed = Vec::new();
    for c in cmds {
        c.write_packed_command(&mut packed);
    }
    conn.send_packed_command(&packed)?;
    let mut replies = Vec::with_capacity(cmds.len());
    for _ in cmds {
        match conn.recv_response() {
            Ok(v) => replies.push(v),
            Err(error) => return Err(Failed { replies, error }),
        }
    }
    Ok(replies)
}

/// Sends `cmds` as a Cluster pipeline: one per node.
fn cluster_round_trip(conn: &mut redis::cluster::ClusterConnection, cmds: &[Cmd]) -> Replies {
    let mut pipe = redis::cluster::cluster_pipe();
    for c in cmds {
        pipe.add_command(c.clone());
    }
    pipe.query(conn)
        .or_else(|error| cluster_errors(cmds.len(), error))
}

/// A Cluster pipeline reports server errors instead of its replies. When
/// every command failed, those errors are the replies; otherwise the other
/// replies are lost and the round trip counts as broken.
pub fn cluster_errors(cmds: usize, error: RedisError) -> Replies {
    let Some(errors) = error.clone().into_server_errors() else {
        return Err(error.into());
    };
    if errors.len() == cmds && errors.iter().enumerate().all(|(i, (j, _))| i == *j) {
        return Ok(errors
            .iter()
            .map(|(_, e)| Value::ServerError(e.clone()))
            .collect());
    }
    let error = errors.first().map_or(error, |(_, e)| e.clone().into());
    Err(error.into())
}

/// The round trips a driver makes, blocking or async: [`run`] is the one
/// driver, and the blocking [`drive`] runs it on a [`Connection`] whose
/// futures are ready when made.
pub(crate) trait Transport {
    /// [`Connection::round_trip`], as a future.
    fn round_trip(&mut self, cmds: &[Cmd]) -> impl Future<Output = Replies> + Send;
    /// [`Connection::load`], as a future.
    fn load(
        &mut self,
        script: &redis::Script,
    ) -> impl Future<Output = Result<(), RedisError>> + Send;
}

/// A blocking connection as a [`Transport`]: the I/O happens in the call,
/// and the future it returns is ready.
struct Blocking<'a, C: ?Sized>(&'a mut C);

impl<C: Connection + ?Sized> Transport for Blocking<'_, C> {
    fn round_trip(&mut self, cmds: &[Cmd]) -> impl Future<Output = Replies> + Send {
        std::future::ready(self.0.round_trip(cmds))
    }

    fn load(
        &mut self,
        script: &redis::Script,
    ) -> impl Future<Output = Result<(), RedisError>> + Send {
        std::future::ready(self.0.load(script))
    }
}

/// Runs `op` to the end on `conn`.
pub fn drive<C: Connection + ?Sized, O: Op>(conn: &mut C, op: O) -> Result<O::Output, O::Error> {
    let mut conn = Blocking(conn);
    let run = pin!(run(&mut conn, op));
    // Every future of a blocking connection is ready, so the driver never
    // waits and one poll runs it to the end.
    match run.poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(result) => result,
        Poll::Pending => unreachable!("a blocking connection's round trips are ready at once"),
    }
}

/// Runs `op` to the end on `conn`, blocking or async.
pub(crate) async fn run<C: Transport + ?Sized, O: Op>(
    conn: &mut C,
    mut op: O,
) -> Result<O::Output, O::Error> {
    loop {
        let cmds = op.commands();
        if cmds.is_empty() {
            return op.finish();
        }
        let mut replies = conn.round_trip(&cmds).await;
        if let Some(retry) = forgotten(&replies) {
            // A server restarted or flushed its scripts: those commands did
            // not run, so load the scripts and send just them again.
            let cmds: Vec<Cmd> = retry.iter().map(|&i| cmds[i].clone()).collect();
            let again = reload_and_send(conn, &cmds).await;
            replies = splice(replies, &retry, again);
        }
        op.absorb(replies)?;
    }
}

/// Loads every script, then sends `cmds`.
async fn reload_and_send<C: Transport + ?Sized>(conn: &mut C, cmds: &[Cmd]) -> Replies {
    for s in scripts::all() {
        conn.load(s).await?;
    }
    conn.round_trip(cmds).await
}

/// The indexes of the commands refused with `NOSCRIPT`, if any.
pub fn forgotten(replies: &Replies) -> Option<Vec<usize>> {
    let replies = replies.as_ref().ok()?;
    let idx: Vec<usize> = replies
        .iter()
        .enumerate()
        .filter(|(_, v)| matches!(v, Value::ServerError(e) if e.code() == "NOSCRIPT"))
        .map(|(i, _)| i)
        .collect();
    (!idx.is_empty()).then_some(idx)
}

/// `first` with the replies at `retry` replaced by `again`'s.
pub fn splice(first: Replies, retry: &[usize], again: Replies) -> Replies {
    let mut replies = first?;
    match again {
        Ok(values) => {
            for (&i, v) in retry.iter().zip(values) {
                replies[i] = v;
            }
            Ok(replies)
        }
        Err(failed) => {
            // What arrived before the failure stands; the retried commands
            // answered before it too.
            let answered = failed.replies.len();
            for (&i, v) in retry.iter().zip(failed.replies) {
                replies[i] = v;
            }
            let cut = retry.get(answered).copied().unwrap_or(replies.len());
            replies.truncate(cut);
            Err(Failed {
                replies,
                error: failed.error,
            })
        }
    }
}
