//! What the async Bloom and counting filters add to [`RedisFilter`].

use super::{AsyncConnection, RedisFilter};
use crate::error::Error;
use crate::variant::{Bits, Cells, Counters, Inner};

/// [`crate::RedisBloomFilter`] over an async connection.
pub type RedisBloomFilter<T, C> = RedisFilter<T, C, Bits>;

/// [`crate::RedisCountingBloomFilter`] over an async connection.
pub type RedisCountingBloomFilter<T, C> = RedisFilter<T, C, Counters>;

/// [`crate::RedisBlockedFilter`] over an async connection.
pub type RedisBlockedFilter<T, C, L> = RedisFilter<T, C, L>;

impl<T: ?Sized, C: AsyncConnection, L: Cells> RedisFilter<T, C, L> {
    /// See [`crate::RedisBlockedFilter::estimate_count`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn estimate_count(&mut self) -> Result<f64, Error> {
        self.0.run_async(|table| table.estimate_count()).await
    }

    /// See [`crate::RedisBlockedFilter::estimated_fpr`].
    ///
    /// # Errors
    ///
    /// As the blocking method.
    pub async fn estimated_fpr(&mut self) -> Result<f64, Error> {
        self.0.run_async(|table| table.expected_fpr()).await
    }

    /// The old name of [`estimated_fpr`](RedisFilter::estimated_fpr).
    ///
    /// # Errors
    ///
    /// As `estimated_fpr`.
    #[deprecated(
        since = "0.1.0",
        note = "use `estimated_fpr`: the rate from the table, as the in-memory filters name it"
    )]
    pub async fn expected_fpr(&mut self) -> Result<f64, Error> {
        self.estimated_fpr().await
    }
}
