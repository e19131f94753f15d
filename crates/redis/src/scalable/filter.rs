//! [`RedisScalableBloomFilter`]: what the scalable filter adds to
//! [`RedisFilter`].

use std::hash::Hash;

use crate::conn::Connection;
use crate::error::{BatchError, Error};
use crate::filter::RedisFilter;
use crate::variant::{Inner, Mode, Scalable};

/// A scalable Bloom filter kept in Redis: RedisBloom's `BF.RESERVE …
/// EXPANSION` on stock Redis. Layer `i` is a blocked Bloom filter for
/// `n0 · s^i` items at rate `P (1 − r) r^i`, so the layers together keep
/// rate `P` however many items arrive; each layer's capacity is counted
/// exactly (one script per insert checks every layer, adds the item to the
/// active one and opens the next when it is full), so concurrent writers
/// never overfill a layer. All keys share the hash tag `{name}`.
///
/// Its `contains_batch` reads the items' blocks with plain `GETRANGE`s (a
/// shard where the batch is dense as one span), with each shard's guard;
/// its `info` takes two round trips.
pub type RedisScalableBloomFilter<T, C> = RedisFilter<T, C, Scalable>;

impl<T: ?Sized, C: Connection> RedisFilter<T, C, Scalable> {
    /// The false-positive rate theory predicts at the filter's load:
    /// `1 − Π (1 − ε_i)` over its layers, each at the count of items its
    /// scripts keep (below [`target_fpr`](RedisFilter::target_fpr) while
    /// the layers are sized as designed).
    ///
    /// # Errors
    ///
    /// Connection errors, [`Error::NotFound`], [`Error::CorruptMetadata`].
    pub fn expected_fpr(&mut self) -> Result<f64, Error> {
        self.0.run(|inner| inner.expected_fpr())
    }

    /// The path [`insert_batch`](Self::insert_batch) falls back to when
    /// other writers keep changing the blocks it writes: one script per
    /// item, which checks every layer and adds the item in the server.
    /// The same answers, about 10 µs of server time per item. Public for
    /// the tests that compare both paths.
    ///
    /// # Errors
    ///
    /// As [`insert_batch`](Self::insert_batch).
    #[doc(hidden)]
    pub fn insert_batch_one_by_one(&mut self, items: &[T]) -> Result<usize, BatchError>
    where
        T: Hash + Sized,
    {
        self.0.run(|layers| layers.insert_one_by_one(items))
    }

    /// Items added to the layers (an insert of an item already reported
    /// present adds nothing), counted exactly by the scripts, as the
    /// in-memory filter's `added`.
    ///
    /// # Errors
    ///
    /// Connection errors, [`Error::NotFound`], [`Error::CorruptMetadata`].
    pub fn added(&mut self) -> Result<u64, Error> {
        self.0.run(|layers| layers.count())
    }

    /// Layers open now.
    ///
    /// # Errors
    ///
    /// As [`added`](Self::added).
    pub fn num_layers(&mut self) -> Result<u32, Error> {
        self.0.run(|layers| layers.num_layers())
    }

    /// The items the layers hold, estimated from `BITCOUNT` of every shard
    /// (as the blocked filters'
    /// [`estimate_count`](RedisFilter::estimate_count)).
    ///
    /// # Errors
    ///
    /// As [`added`](Self::added).
    pub fn estimate_count(&mut self) -> Result<f64, Error> {
        self.0.run(|layers| layers.estimate_count())
    }
}

impl<T: ?Sized, C, M: Mode> RedisFilter<T, C, Scalable, M> {
    /// The total rate the filter keeps.
    pub fn target_fpr(&self) -> f64 {
        self.0.inner.target_fpr()
    }

    /// Items the first layer holds.
    pub fn initial_capacity(&self) -> u64 {
        self.0.inner.initial_capacity()
    }
}
