//! What the async cuckoo filter adds to [`RedisFilter`].

use std::borrow::Borrow;
use std::hash::Hash;

use bloomlab_cuckoo::CuckooFilter;

use super::{AsyncConnection, RedisFilter};
use crate::cuckoo::CuckooTable;
use crate::error::Error;
use crate::handle::Handle;
use crate::variant::Cuckoo;

/// [`crate::RedisCuckooFilter`] over an async connection: the same scripts
/// and replies.
pub type RedisCuckooFilter<T, C> = RedisFilter<T, C, Cuckoo>;

impl<T: ?Sized, C: AsyncConnection> RedisFilter<T, C, Cuckoo> {
    /// See [`crate::RedisCuckooFilter::import`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn import(
        conn: C,
        name: &str,
        filter: &CuckooFilter<T>,
        max_shard_bytes: usize,
    ) -> Result<Self, Error> {
        let op = CuckooTable::import(name, filter, max_shard_bytes)?;
        Handle::start_async(conn, op).await.map(Self)
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
        self.0.run_async(|table| table.insert_unique(item)).await
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
        self.0.run_async(|table| table.count(item)).await
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
        self.0.run_async(|table| table.remove(item)).await
    }

    /// See [`crate::RedisCuckooFilter::len`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn len(&mut self) -> Result<u64, Error> {
        self.0.run_async(|table| table.len()).await
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
    pub async fn export(&mut self) -> Result<CuckooFilter<T>, Error> {
        self.0.run_async(|table| table.export()).await
    }
}
