//! `xorf` 0.13's `BinaryFuse8`: a static filter, built once from all the
//! keys, with 8-bit fingerprints (a rate of about 2^-8, no rate setting).

use std::hash::{BuildHasher, Hash};

use bloomlab_core::{DefaultHasher, Filter, InsertError, Membership};
use xorf::Filter as _;

/// `xorf::BinaryFuse8` over the 64-bit hashes of the items.
///
/// xorf takes `u64` keys only, so the filter is built from the hashes of the
/// members under `hasher` (deduplicated, as it requires), and every lookup
/// hashes its item the same way: with bloomlab's `DefaultHasher`, the hash
/// is held fixed against bloomlab's filters. It cannot take an item after
/// it is built: `insert` always answers `Err(InsertError::Full)`, which
/// changes nothing.
#[derive(Debug, Clone)]
pub struct Fuse8<S = DefaultHasher> {
    inner: xorf::BinaryFuse8,
    hasher: S,
    len: usize,
}

/// Why xorf could not build the filter.
pub type Error = &'static str;

impl<S: BuildHasher> Fuse8<S> {
    /// The filter of `members`, hashed with `hasher`.
    ///
    /// # Errors
    ///
    /// xorf's, when its construction does not converge.
    pub fn new<'a, T: Hash + 'a>(
        members: impl IntoIterator<Item = &'a T>,
        hasher: S,
    ) -> Result<Self, Error> {
        let mut hashes: Vec<u64> = members.into_iter().map(|k| hasher.hash_one(k)).collect();
        hashes.sort_unstable();
        hashes.dedup();
        let inner = xorf::BinaryFuse8::try_from(&hashes)?;
        Ok(Self {
            inner,
            hasher,
            len: hashes.len(),
        })
    }
}

impl<S: BuildHasher> Filter for Fuse8<S> {
    /// The distinct hashes it was built from.
    fn len(&self) -> usize {
        self.len
    }

    fn memory_bytes(&self) -> usize {
        self.inner.len()
    }

    /// One fingerprint of 8 bits is compared per lookup: `2^-8`.
    fn expected_fpr(&self) -> f64 {
        if self.len == 0 { 0.0 } else { 1.0 / 256.0 }
    }

    /// Rebuilt from no keys.
    fn clear(&mut self) {
        if let Ok(empty) = xorf::BinaryFuse8::try_from(&[][..]) {
            self.inner = empty;
            self.len = 0;
        }
    }
}

impl<T: Hash + ?Sized, S: BuildHasher> Membership<T> for Fuse8<S> {
    fn insert(&mut self, _item: &T) -> Result<bool, InsertError> {
        Err(InsertError::Full)
    }

    #[inline]
    fn contains(&self, item: &T) -> bool {
        self.inner.contains(&self.hasher.hash_one(item))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_its_members_and_takes_no_more() {
        let members: Vec<u64> = (0..10_000).collect();
        let mut f = Fuse8::new(&members, DefaultHasher::from_seed(7)).unwrap();
        assert!(members.iter().all(|k| f.contains(k)));
        let false_positives = (1u64 << 40..(1 << 40) + 100_000)
            .filter(|k| f.contains(k))
            .count();
        assert!(
            false_positives < 600,
            "{false_positives} of 100,000 (2^-8 = 0.39%)"
        );
        assert_eq!(f.insert(&(1u64 << 50)), Err(InsertError::Full));
        assert_eq!(Filter::len(&f), 10_000);
        assert!(
            f.memory_bytes() >= 10_000,
            "a byte a fingerprint, and some slack: {}",
            f.memory_bytes()
        );
        f.clear();
        assert!(f.is_empty());
        assert!(!f.contains(&1u64));
    }
}
