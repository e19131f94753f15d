//! `fastbloom-rs` 0.5's `CountingBloomFilter`: 4-bit counters that stop at 15
//! on the way up but are still decremented on the way down. It hashes the
//! key's bytes with two seeded xxh3 calls and takes no hasher.

use bloomlab_core::{Deletable, Filter, InsertError, Membership, RemoveError};
use fastbloom_rs::{Deletable as _, FilterBuilder, Hashes as _, Membership as _};

use super::counted::classic_rate;

/// `fastbloom_rs::CountingBloomFilter` behind bloomlab's traits, for `u64`
/// keys (it hashes their little-endian bytes).
///
/// The crate's `add` and `remove` return nothing: `insert` answers
/// `Ok(true)` and `remove` `Ok(())` (the crate decrements only when the key
/// is reported present, and does not say which it did);
/// [`remove_reported`](Self::remove_reported) pays a lookup to say. `len`
/// counts insert calls minus remove calls.
#[derive(Debug, Clone)]
pub struct FastbloomRsCounting {
    inner: fastbloom_rs::CountingBloomFilter,
    len: usize,
}

impl FastbloomRsCounting {
    /// Sized by the crate's own rule for `items` at rate `fpr`
    /// (`FilterBuilder::new(items, fpr)`).
    pub fn new(items: u64, fpr: f64) -> Self {
        Self::wrap(FilterBuilder::new(items, fpr).build_counting_bloom_filter())
    }

    /// Exactly `counters` counters and `hashes` hashes
    /// (`FilterBuilder::from_size_and_hashes`).
    pub fn with_counters(counters: u64, hashes: u32) -> Self {
        Self::wrap(
            FilterBuilder::from_size_and_hashes(counters, hashes).build_counting_bloom_filter(),
        )
    }

    fn wrap(inner: fastbloom_rs::CountingBloomFilter) -> Self {
        Self { inner, len: 0 }
    }

    /// Counters of the table.
    pub fn num_counters(&self) -> u64 {
        self.inner.config().size
    }

    /// Hashes (counters incremented) per item.
    pub fn num_hashes(&self) -> u32 {
        self.inner.hashes()
    }

    /// Counters at the 4-bit maximum, 15 (read one by one: the crate has no
    /// count of them).
    pub fn saturated_counters(&self) -> u64 {
        (0..self.num_counters())
            .filter(|&i| self.inner.counter_at(i) == 15)
            .count() as u64
    }

    /// Removes `key` and says whether the crate accepted the remove: it
    /// decrements only when the key is reported present, so that is when it
    /// did. One more lookup than [`Deletable::remove`].
    pub fn remove_reported(&mut self, key: u64) -> bool {
        let present = Membership::contains(self, &key);
        // Cannot fail: the crate's remove returns nothing.
        let _ = Deletable::remove(self, &key);
        present
    }
}

impl Filter for FastbloomRsCounting {
    fn len(&self) -> usize {
        self.len
    }

    fn memory_bytes(&self) -> usize {
        self.inner.get_u8_array().len()
    }

    fn expected_fpr(&self) -> f64 {
        classic_rate(self.num_counters(), self.num_hashes(), self.len)
    }

    fn clear(&mut self) {
        self.inner.clear();
        self.len = 0;
    }
}

impl Membership<u64> for FastbloomRsCounting {
    #[inline]
    fn insert(&mut self, item: &u64) -> Result<bool, InsertError> {
        self.inner.add(&item.to_le_bytes());
        self.len = self.len.saturating_add(1);
        Ok(true)
    }

    #[inline]
    fn contains(&self, item: &u64) -> bool {
        self.inner.contains(&item.to_le_bytes())
    }
}

impl Deletable<u64> for FastbloomRsCounting {
    #[inline]
    fn remove(&mut self, item: &u64) -> Result<(), RemoveError> {
        self.inner.remove(&item.to_le_bytes());
        self.len = self.len.saturating_sub(1);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_follows_the_constructors() {
        let f = FastbloomRsCounting::with_counters(8192, 4);
        assert_eq!((f.num_counters(), f.num_hashes()), (8192, 4));
        assert_eq!(f.memory_bytes(), 4096, "4-bit counters");
        // −n·ln p/ln²2 = 958,506 counters, rounded up to a multiple of 64; k = 7.
        let f = FastbloomRsCounting::new(100_000, 0.01);
        assert_eq!(f.num_hashes(), 7);
        assert!((958_506..960_000).contains(&f.num_counters()));
    }

    #[test]
    fn remove_reported_says_what_remove_did() {
        let mut f = FastbloomRsCounting::with_counters(8192, 4);
        f.insert(&42).unwrap();
        assert!(f.contains(&42));
        assert!(f.remove_reported(42));
        assert!(!f.contains(&42));
        assert!(!f.remove_reported(42));
        assert_eq!(f.remove(&42), Ok(()), "the crate does not say");
        assert_eq!(f.saturated_counters(), 0);
    }

    #[test]
    fn sixteen_inserts_saturate_and_removes_still_decrement() {
        let mut f = FastbloomRsCounting::with_counters(8192, 4);
        for _ in 0..16 {
            f.insert(&7).unwrap();
        }
        assert_eq!(f.saturated_counters(), 4);
        for _ in 0..15 {
            f.remove(&7).unwrap();
        }
        assert!(
            !f.contains(&7),
            "15 decrements empty a counter that stopped at 15"
        );
    }
}
