//! The `bloomfilter` crate, 3.0: a classic Bloom filter that takes no hasher;
//! it always hashes twice with its own SipHash-1-3, keyed from a 32-byte
//! seed.

use std::hash::Hash;

use bloomlab_core::DefaultHasher;

use super::counted::{Bits, Counted, ItemBits, classic_rate};

/// `bloomfilter::Bloom<T>` behind bloomlab's traits.
///
/// `insert` answers `Ok(true)` (the crate's `set` does not say whether the
/// item was reported present before); `len` counts insert calls.
pub type Bloomfilter<T = u64> = Counted<bloomfilter::Bloom<T>>;

/// Why the crate refused a size.
pub type Error = &'static str;

/// The crate's 32-byte seed made of the keys of bloomlab's hashers for
/// `seed` and `seed + 1`, which makes its first SipHash-1-3 pass equal to
/// that of a bloomlab filter seeded `seed`.
pub fn seed_bytes(seed: u64) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    let words = [seed, seed.wrapping_add(1)]
        .into_iter()
        .flat_map(|s| DefaultHasher::from_seed(s).key());
    for (chunk, word) in bytes.chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    bytes
}

impl<T: ?Sized> Bloomfilter<T> {
    /// Sized by the crate's own rule for `items` at rate `fpr`, keyed by
    /// [`seed_bytes`]`(seed)` (`new_for_fp_rate_with_seed`).
    ///
    /// # Errors
    ///
    /// The crate's, for a size it cannot build.
    pub fn new(items: usize, fpr: f64, seed: u64) -> Result<Self, Error> {
        let inner = bloomfilter::Bloom::new_for_fp_rate_with_seed(items, fpr, &seed_bytes(seed))?;
        Ok(Self { inner, len: 0 })
    }

    /// Bits of the table.
    pub fn num_bits(&self) -> u64 {
        self.inner.len()
    }
}

impl<T: ?Sized> Bits for bloomfilter::Bloom<T> {
    fn table_bits(&self) -> u64 {
        self.len()
    }

    fn rate_after(&self, inserts: usize) -> f64 {
        classic_rate(self.len(), self.number_of_hash_functions(), inserts)
    }

    fn unset_all(&mut self) {
        self.clear();
    }
}

impl<T: Hash + ?Sized> ItemBits<T> for bloomfilter::Bloom<T> {
    #[inline]
    fn set_item(&mut self, item: &T) -> bool {
        self.set(item);
        true
    }

    #[inline]
    fn has_item(&self, item: &T) -> bool {
        self.check(item)
    }
}

#[cfg(test)]
mod tests {
    use bloomlab_core::Filter;

    use super::*;

    #[test]
    fn seed_bytes_are_our_keys() {
        let bytes = seed_bytes(7);
        let [k0, k1] = DefaultHasher::from_seed(7).key();
        assert_eq!(bytes[..8], k0.to_le_bytes());
        assert_eq!(bytes[8..16], k1.to_le_bytes());
    }

    #[test]
    fn answers_as_the_crate_does() {
        let f: Bloomfilter = Bloomfilter::new(1000, 0.01, 7).unwrap();
        assert!(f.memory_bytes() * 8 >= 9585);
        crate::peers::tests::one_item_twice(f, true, 2);
    }
}
