//! What the async scalable filter adds to [`RedisFilter`].

use super::{AsyncConnection, RedisFilter};
use crate::error::Error;
use crate::variant::{Inner, Scalable};

/// [`crate::RedisScalableBloomFilter`] over an async connection.
pub type RedisScalableBloomFilter<T, C> = RedisFilter<T, C, Scalable>;

impl<T: ?Sized, C: AsyncConnection> RedisFilter<T, C, Scalable> {
    /// See [`crate::RedisScalableBloomFilter::expected_fpr`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn expected_fpr(&mut self) -> Result<f64, Error> {
        self.0.run_async(|inner| inner.expected_fpr()).await
    }

    /// See [`crate::RedisScalableBloomFilter::added`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn added(&mut self) -> Result<u64, Error> {
        self.0.run_async(|layers| layers.count()).await
    }

    /// See [`crate::RedisScalableBloomFilter::num_layers`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn num_layers(&mut self) -> Result<u32, Error> {
        self.0.run_async(|layers| layers.num_layers()).await
    }

    /// See [`crate::RedisScalableBloomFilter::estimate_count`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn estimate_count(&mut self) -> Result<f64, Error> {
        self.0.run_async(|layers| layers.estimate_count()).await
    }
}
