//! The `cuckoofilter` crate, 0.5: 4-slot buckets of 8-bit fingerprints, a
//! power-of-two bucket count, relocation walks drawn from
//! `rand::thread_rng()` (so not seeded), and a hasher given as a type
//! (`H: Hasher + Default`), not a value.

use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

use bloomlab_core::theory::cuckoo;
use bloomlab_core::{DefaultHasher, Deletable, Filter, InsertError, Membership, RemoveError};

/// SipHash-1-3, the function of bloomlab's [`DefaultHasher`] before
/// AES-CMAC, built by `Default` with the all-zero key: a keyed function the
/// crate can take as a type when the key does not matter (the benchmarks).
pub type Sip13 = siphasher::sip::SipHasher13;

/// The seed of [`KeyedSip13`]'s key.
pub const KEY_SEED: u64 = 0x6375_636b_6f6f;

/// Keyed SipHash-1-3 as the `Hasher + Default` the crate asks for: the key
/// of `DefaultHasher::from_seed(KEY_SEED)`, fixed, since a type cannot
/// carry a run's seed.
pub struct KeyedSip13(Sip13);

impl Default for KeyedSip13 {
    fn default() -> Self {
        static KEY: OnceLock<[u64; 2]> = OnceLock::new();
        let key = KEY.get_or_init(|| DefaultHasher::from_seed(KEY_SEED).key());
        Self(Sip13::new_with_keys(key[0], key[1]))
    }
}

impl Hasher for KeyedSip13 {
    fn finish(&self) -> u64 {
        self.0.finish()
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
    }
}

/// Slots per bucket, and fingerprint bits, fixed by the crate.
const BUCKET_SIZE: u32 = 4;
const FINGERPRINT_BITS: u32 = 8;

/// `cuckoofilter::CuckooFilter<H>` behind bloomlab's traits.
///
/// `insert` answers `Ok(true)` for a stored item (the crate's `add` does not
/// say whether it was reported present before) and `Err(InsertError::Full)`
/// for the crate's `NotEnoughSpace`, which, unlike bloomlab's `Full`, comes
/// after the crate stored the new fingerprint and dropped another one.
/// `remove` passes on the crate's answer.
pub struct Cuckoofilter<H = KeyedSip13> {
    inner: ::cuckoofilter::CuckooFilter<H>,
    capacity: usize,
}

/// Buckets the crate allocates for `capacity`: its `with_capacity` takes
/// `max(1, capacity.next_power_of_two() / 4)`.
pub fn buckets_for(capacity: usize) -> usize {
    (capacity.next_power_of_two() / BUCKET_SIZE as usize).max(1)
}

impl<H: Hasher + Default> Cuckoofilter<H> {
    /// `with_capacity(capacity)`: [`buckets_for`]`(capacity)` buckets.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            inner: ::cuckoofilter::CuckooFilter::with_capacity(capacity),
            capacity,
        }
    }

    /// Buckets of the table, read from the crate's memory use.
    pub fn num_buckets(&self) -> usize {
        let table = self
            .inner
            .memory_usage()
            .saturating_sub(std::mem::size_of_val(&self.inner));
        table / BUCKET_SIZE as usize
    }

    /// Slots per bucket: 4.
    pub fn bucket_size(&self) -> u32 {
        BUCKET_SIZE
    }

    /// Fingerprint bits: 8.
    pub fn fingerprint_bits(&self) -> u32 {
        FINGERPRINT_BITS
    }

    /// Slots of the table.
    pub fn slots(&self) -> u64 {
        self.num_buckets() as u64 * u64::from(BUCKET_SIZE)
    }

    /// Stores `item` only if it is not reported present (the crate's
    /// `test_and_add`): `Ok(true)` if it was stored.
    ///
    /// # Errors
    ///
    /// As [`Membership::insert`]: the crate's `NotEnoughSpace`, after it
    /// dropped another fingerprint.
    pub fn insert_unique<T: Hash + ?Sized>(&mut self, item: &T) -> Result<bool, InsertError> {
        // `stored` would say `true` for an item already present.
        self.inner.test_and_add(item).map_err(|_| InsertError::Full)
    }
}

impl<H: Hasher + Default> Filter for Cuckoofilter<H> {
    fn len(&self) -> usize {
        self.inner.len()
    }

    fn memory_bytes(&self) -> usize {
        self.num_buckets() * BUCKET_SIZE as usize
    }

    fn expected_fpr(&self) -> f64 {
        let load = self.inner.len() as f64 / self.slots() as f64;
        cuckoo::fpr(FINGERPRINT_BITS, BUCKET_SIZE, load)
    }

    fn clear(&mut self) {
        self.inner = ::cuckoofilter::CuckooFilter::with_capacity(self.capacity);
    }
}

impl<T: Hash + ?Sized, H: Hasher + Default> Membership<T> for Cuckoofilter<H> {
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool, InsertError> {
        super::stored(self.inner.add(item))
    }

    #[inline]
    fn contains(&self, item: &T) -> bool {
        self.inner.contains(item)
    }
}

impl<T: Hash + ?Sized, H: Hasher + Default> Deletable<T> for Cuckoofilter<H> {
    #[inline]
    fn remove(&mut self, item: &T) -> Result<(), RemoveError> {
        super::found(self.inner.delete(item))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_follows_the_crate() {
        let f = Cuckoofilter::<KeyedSip13>::with_capacity(1 << 12);
        assert_eq!(f.num_buckets(), 1 << 10);
        assert_eq!(f.slots(), 1 << 12);
        assert_eq!(buckets_for(100_000), 32_768);
        assert_eq!(
            Cuckoofilter::<Sip13>::with_capacity(100_000).num_buckets(),
            32_768
        );
        assert_eq!(f.memory_bytes(), 1 << 12);
    }

    #[test]
    fn inserts_finds_and_removes() {
        let mut f = Cuckoofilter::<KeyedSip13>::with_capacity(1000);
        assert_eq!(f.insert(&42u64), Ok(true));
        assert!(f.contains(&42u64));
        assert_eq!(f.insert_unique(&42u64), Ok(false));
        assert_eq!(Filter::len(&f), 1);
        assert_eq!(f.remove(&42u64), Ok(()));
        assert_eq!(f.remove(&42u64), Err(RemoveError::NotPresent));
        f.insert(&1u64).unwrap();
        f.clear();
        assert!(f.is_empty() && !f.contains(&1u64));
        assert_eq!(f.num_buckets(), 256);
    }

    #[test]
    fn the_keyed_hasher_is_bloomlabs_keyed_sip() {
        use bloomlab_core::hash::HashFunction;
        use std::hash::BuildHasher;
        let mut a = KeyedSip13::default();
        a.write_u64(7);
        let ours = DefaultHasher::from_seed_with(HashFunction::SipHash13, KEY_SEED).hash_one(7u64);
        assert_eq!(a.finish(), ours);
    }
}
