//! `probabilistic-collections` 0.7: a classic Bloom filter, a scalable one
//! and a cuckoo filter. Each takes a pair of `BuildHasher`s and hashes every
//! item with both (double hashing); given [`sip_pair`](super::sip_pair), the
//! first is bloomlab's own hash.

use std::hash::{BuildHasher, Hash};

use bloomlab_core::theory::cuckoo;
use bloomlab_core::{Deletable, Filter, InsertError, Membership, RemoveError};
use probabilistic_collections::bloom::{BloomFilter, ScalableBloomFilter};
use probabilistic_collections::cuckoo::CuckooFilter;

use super::SipKey;
use super::counted::{Bits, Counted, ItemBits, classic_rate};

/// `probabilistic_collections::bloom::BloomFilter` behind bloomlab's traits.
///
/// `insert` answers `Ok(true)` (the crate does not say whether the item was
/// reported present before); `len` counts insert calls.
pub type ProbabilisticBloom<T = u64, S = SipKey> = Counted<BloomFilter<T, S>>;

impl<T, S: BuildHasher> ProbabilisticBloom<T, S> {
    /// Sized by the crate's own rule for `items` at rate `fpr`
    /// (`with_hashers`).
    pub fn new(items: usize, fpr: f64, hashers: [S; 2]) -> Self {
        Self {
            inner: BloomFilter::with_hashers(items, fpr, hashers),
            len: 0,
        }
    }

    /// Bits of the table.
    pub fn num_bits(&self) -> usize {
        self.inner.len()
    }

    /// Hashes (bits set) per item.
    pub fn num_hashes(&self) -> usize {
        self.inner.hasher_count()
    }
}

impl<T, S: BuildHasher> Bits for BloomFilter<T, S> {
    fn table_bits(&self) -> u64 {
        self.len() as u64
    }

    fn rate_after(&self, inserts: usize) -> f64 {
        classic_rate(self.len() as u64, self.hasher_count() as u32, inserts)
    }

    fn unset_all(&mut self) {
        self.clear();
    }
}

impl<T: Hash, S: BuildHasher> ItemBits<T> for BloomFilter<T, S> {
    #[inline]
    fn set_item(&mut self, item: &T) -> bool {
        self.insert(item);
        true
    }

    #[inline]
    fn has_item(&self, item: &T) -> bool {
        self.contains(item)
    }
}

/// `probabilistic_collections::bloom::ScalableBloomFilter` behind bloomlab's
/// traits: it adds a layer when half the bits of the last one are set.
///
/// `insert` answers `Ok(true)` (the crate does not say whether the item was
/// reported present before); `len` counts insert calls; `expected_fpr` is
/// the crate's own estimate from the bits set.
pub type ProbabilisticScalable<T = u64, S = SipKey> = Counted<ScalableBloomFilter<T, S>>;

impl<T, S: BuildHasher + Copy> ProbabilisticScalable<T, S> {
    /// A first layer of `bits` bits at rate `fpr`; each next layer is
    /// `growth` times larger at `ratio` times the rate (`with_hashers`).
    pub fn new(bits: usize, fpr: f64, growth: f64, ratio: f64, hashers: [S; 2]) -> Self {
        Self {
            inner: ScalableBloomFilter::with_hashers(bits, fpr, growth, ratio, hashers),
            len: 0,
        }
    }

    /// The bits an optimal first layer of `items` at `fpr` has,
    /// `n·log2(1/p)/ln 2`: how to give this filter a capacity.
    pub fn bits_for(items: usize, fpr: f64) -> usize {
        (items as f64 * -fpr.log2() / std::f64::consts::LN_2).ceil() as usize
    }

    /// Its layers.
    pub fn num_layers(&self) -> usize {
        self.inner.filter_count()
    }
}

impl<T, S: BuildHasher + Copy> Bits for ScalableBloomFilter<T, S> {
    fn table_bits(&self) -> u64 {
        self.len() as u64
    }

    /// The crate's own estimate, from the bits set.
    fn rate_after(&self, _inserts: usize) -> f64 {
        self.estimated_fpp()
    }

    fn unset_all(&mut self) {
        self.clear();
    }
}

impl<T: Hash, S: BuildHasher + Copy> ItemBits<T> for ScalableBloomFilter<T, S> {
    #[inline]
    fn set_item(&mut self, item: &T) -> bool {
        self.insert(item);
        true
    }

    #[inline]
    fn has_item(&self, item: &T) -> bool {
        self.contains(item)
    }
}

/// `probabilistic_collections::cuckoo::CuckooFilter` behind bloomlab's
/// traits.
///
/// It never refuses an item: a fingerprint it cannot place goes to an
/// unbounded list that every insert and lookup scans, and an item already
/// reported present is not stored again. `insert` answers `Ok(true)` and
/// `remove` `Ok(())` (the crate says neither whether the item was there
/// nor whether it removed one); its remove deletes every matching
/// fingerprint in both buckets.
#[derive(Debug)]
pub struct ProbabilisticCuckoo<T = u64, S = SipKey> {
    inner: CuckooFilter<T, S>,
}

impl<T, S: BuildHasher> ProbabilisticCuckoo<T, S> {
    /// `slots` slots (rounded up to a power-of-two bucket count) of
    /// `fingerprint_bits`-bit fingerprints, `bucket_size` a bucket
    /// (`from_parameters_with_hashers`).
    pub fn new(slots: usize, fingerprint_bits: usize, bucket_size: usize, hashers: [S; 2]) -> Self {
        Self {
            inner: CuckooFilter::from_parameters_with_hashers(
                slots,
                fingerprint_bits,
                bucket_size,
                hashers,
            ),
        }
    }

    /// Slots of the table.
    pub fn slots(&self) -> usize {
        self.inner.capacity()
    }

    /// Bits of a fingerprint.
    pub fn fingerprint_bits(&self) -> usize {
        self.inner.fingerprint_bit_count()
    }
}

impl<T, S: BuildHasher> Filter for ProbabilisticCuckoo<T, S> {
    /// Occupied slots, plus the fingerprints kept outside the table.
    fn len(&self) -> usize {
        self.inner.len() + self.inner.extra_items_len()
    }

    fn memory_bytes(&self) -> usize {
        (self.inner.capacity() * self.inner.fingerprint_bit_count()).div_ceil(8)
    }

    fn expected_fpr(&self) -> f64 {
        let load = self.inner.len() as f64 / self.inner.capacity() as f64;
        cuckoo::fpr(
            self.inner.fingerprint_bit_count() as u32,
            self.inner.entries_per_index() as u32,
            load,
        )
    }

    fn clear(&mut self) {
        self.inner.clear();
    }
}

impl<T: Hash, S: BuildHasher> Membership<T> for ProbabilisticCuckoo<T, S> {
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool, InsertError> {
        self.inner.insert(item);
        Ok(true)
    }

    #[inline]
    fn contains(&self, item: &T) -> bool {
        self.inner.contains(item)
    }
}

impl<T: Hash, S: BuildHasher> Deletable<T> for ProbabilisticCuckoo<T, S> {
    #[inline]
    fn remove(&mut self, item: &T) -> Result<(), RemoveError> {
        self.inner.remove(item);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::sip_pair;
    use super::*;

    #[test]
    fn bloom_answers_as_the_crate_does() {
        let f: ProbabilisticBloom = ProbabilisticBloom::new(1000, 0.01, sip_pair(7));
        assert_eq!(f.num_hashes(), 7);
        crate::peers::tests::one_item_twice(f, true, 2);
    }

    #[test]
    fn scalable_grows() {
        let bits = ProbabilisticScalable::<u64>::bits_for(1000, 0.01);
        assert_eq!(bits, 9586, "a 1,000-item layer at 1%");
        let mut f: ProbabilisticScalable =
            ProbabilisticScalable::new(bits, 0.01, 2.0, 0.85, sip_pair(7));
        for k in 0..10_000u64 {
            f.insert(&k).unwrap();
        }
        assert!(f.num_layers() > 1);
        assert!((0..10_000u64).all(|k| f.contains(&k)));
        assert!(f.expected_fpr() > 0.0 && f.expected_fpr() < 0.1);
    }

    #[test]
    fn cuckoo_removes() {
        let mut f: ProbabilisticCuckoo = ProbabilisticCuckoo::new(1 << 10, 8, 4, sip_pair(7));
        assert_eq!((f.slots(), f.fingerprint_bits()), (1 << 10, 8));
        assert_eq!(f.memory_bytes(), 1 << 10);
        f.insert(&42).unwrap();
        assert!(f.contains(&42));
        assert_eq!(Filter::len(&f), 1);
        f.remove(&42).unwrap();
        assert!(!f.contains(&42) && f.is_empty());
    }
}
