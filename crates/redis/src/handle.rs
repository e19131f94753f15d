//! What every filter type holds, blocking or async: the connection it runs
//! on and the parameters it read (`I`: a blocked table, a scalable filter's
//! layers or a cuckoo table), with the one way each kind of connection
//! starts a filter, runs an operation on it, or lends it to one operation of
//! a handle shared by reference.

use std::marker::PhantomData;

use crate::conn::{Connection, Op, drive};
use crate::error::{BatchError, Error};
use crate::shared::{Shared, Source};

/// A connection `C` and the parameters `I` of a filter of items `T` (and
/// cells `L`, for the blocked filters).
pub(crate) struct Handle<T: ?Sized, C, I, L = ()> {
    pub(crate) conn: C,
    pub(crate) inner: I,
    item: PhantomData<fn(&T) -> L>,
}

impl<T: ?Sized, C, I: Clone, L> Handle<T, C, I, L> {
    /// The same parameters over `conn`, with no round trip.
    pub(crate) fn on<C2>(&self, conn: C2) -> Handle<T, C2, I, L> {
        Handle {
            conn,
            inner: self.inner.clone(),
            item: PhantomData,
        }
    }
}

impl<T: ?Sized, C: Clone, I: Clone, L> Clone for Handle<T, C, I, L> {
    fn clone(&self) -> Self {
        self.on(self.conn.clone())
    }
}

impl<T: ?Sized, C: Connection, I, L> Handle<T, C, I, L> {
    /// Runs the setup `op` on `conn` and keeps the parameters it ends with.
    pub(crate) fn start(
        mut conn: C,
        op: impl Op<Output = I, Error = Error>,
    ) -> Result<Self, Error> {
        let inner = drive(&mut conn, op)?;
        Ok(Self {
            conn,
            inner,
            item: PhantomData,
        })
    }

    /// Runs the op `op` makes of the parameters on the connection.
    pub(crate) fn run<'s, O: Op + 's>(
        &'s mut self,
        op: impl FnOnce(&'s mut I) -> O,
    ) -> Result<O::Output, O::Error> {
        drive(&mut self.conn, op(&mut self.inner))
    }
}

#[cfg(feature = "tokio")]
impl<T: ?Sized, C: crate::aio::AsyncConnection, I, L> Handle<T, C, I, L> {
    /// [`start`](Self::start) on an async connection.
    pub(crate) async fn start_async(
        mut conn: C,
        op: impl Op<Output = I, Error = Error>,
    ) -> Result<Self, Error> {
        let inner = crate::conn::run(&mut conn, op).await?;
        Ok(Self {
            conn,
            inner,
            item: PhantomData,
        })
    }

    /// [`run`](Self::run) on an async connection.
    pub(crate) async fn run_async<'s, O: Op + 's>(
        &'s mut self,
        op: impl FnOnce(&'s mut I) -> O,
    ) -> Result<O::Output, O::Error> {
        crate::conn::run(&mut self.conn, op(&mut self.inner)).await
    }
}

impl<T: ?Sized, S: Source, I: Clone, L> Handle<T, Shared<S>, I, L> {
    /// A handle of its own for one operation: a connection from the
    /// source and a copy of the parameters (other threads use them too);
    /// `E` is how that operation fails when the source has no connection
    /// to give.
    pub(crate) fn take<E: Unsent>(&self) -> Result<Handle<T, S::Conn, I, L>, E> {
        let conn = self.conn.0.connection().map_err(E::unsent)?;
        Ok(self.on(conn))
    }
}

#[cfg(feature = "tokio")]
impl<T: ?Sized, S: crate::aio::AsyncSource, I: Clone, L> Handle<T, Shared<S>, I, L> {
    /// [`take`](Self::take) from a source of async connections.
    pub(crate) async fn take_async<E: Unsent>(&self) -> Result<Handle<T, S::Conn, I, L>, E> {
        let conn = self.conn.0.connection().await.map_err(E::unsent)?;
        Ok(self.on(conn))
    }
}

/// How an operation fails when the source had no connection to give:
/// nothing was sent.
pub(crate) trait Unsent {
    /// The failure, from the source's error.
    fn unsent(cause: redis::RedisError) -> Self;
}

impl Unsent for Error {
    fn unsent(cause: redis::RedisError) -> Self {
        Error::from_redis(cause)
    }
}

/// A batch insert that got no connection stored nothing.
impl Unsent for BatchError {
    fn unsent(cause: redis::RedisError) -> Self {
        BatchError {
            stored: Vec::new(),
            unknown: Vec::new(),
            source: Box::new(Error::from_redis(cause)),
        }
    }
}
