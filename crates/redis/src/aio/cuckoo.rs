//! What the async cuckoo filter adds to [`RedisFilter`].

use std::borrow::Borrow;
use std::hash::Hash;

use super::{AsyncConnection, RedisFilter};
use crate::error::Error;
use crate::variant::{Cuckoo, Inner};

/// [`crate::RedisCuckooFilter`] over an async connection: the same scripts
/// and replies.
pub type RedisCuckooFilter<T, C> = RedisFilter<T, C, Cuckoo>;

impl<T: ?Sized, C: AsyncConnection> RedisFilter<T, C, Cuckoo> {
    /// See [`crate::RedisCuckooFilter::expected_fpr`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn expected_fpr(&mut self) -> Result<f64, Error> {
        self.0.run_async(|inner| inner.expected_fpr()).await
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
}
