//! `qfilter` 0.3: a quotient filter (rank-select layout) that takes a
//! `BuildHasher` and hashes once per item.

use std::hash::{BuildHasher, Hash};

use bloomlab_core::{DefaultHasher, Deletable, Filter, InsertError, Membership, RemoveError};

/// `qfilter::Filter` behind bloomlab's traits, at a fixed size.
///
/// `insert` stores a copy even when the fingerprint is there already
/// (`insert_duplicated`), as the cuckoo filters do, so that removing it later
/// cannot take another item's fingerprint away; it answers `Ok(true)` (the
/// crate does not say whether it was reported present before) and
/// `Err(InsertError::Full)` when the crate's table is full, which changed
/// nothing. `remove` passes on the crate's answer; `expected_fpr` is the
/// crate's own estimate at its present occupancy.
#[derive(Debug, Clone)]
pub struct Qfilter<S = DefaultHasher> {
    inner: ::qfilter::Filter<Box<[u8]>, S>,
}

/// Why `qfilter` refused a size.
pub type Error = ::qfilter::Error;

impl<S: BuildHasher + Clone> Qfilter<S> {
    /// Sized by the crate's own rule for `capacity` items at rate `fpr`
    /// (`new_with_hasher`); a rate of `2^-r` gives `r`-bit remainders.
    ///
    /// # Errors
    ///
    /// The crate's, for a size it cannot build.
    pub fn new(capacity: u64, fpr: f64, hasher: S) -> Result<Self, Error> {
        let inner = ::qfilter::Filter::new_with_hasher(capacity, fpr, hasher)?;
        Ok(Self { inner })
    }

    /// Items the table takes (95% of its slots).
    pub fn capacity(&self) -> u64 {
        self.inner.capacity()
    }
}

impl<S: BuildHasher + Clone> Filter for Qfilter<S> {
    fn len(&self) -> usize {
        self.inner.len() as usize
    }

    fn memory_bytes(&self) -> usize {
        self.inner.memory_usage()
    }

    fn expected_fpr(&self) -> f64 {
        self.inner.current_error_ratio()
    }

    fn clear(&mut self) {
        self.inner.clear();
    }
}

impl<T: Hash + ?Sized, S: BuildHasher + Clone> Membership<T> for Qfilter<S> {
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool, InsertError> {
        super::stored(self.inner.insert_duplicated(item))
    }

    #[inline]
    fn contains(&self, item: &T) -> bool {
        self.inner.contains(item)
    }
}

impl<T: Hash + ?Sized, S: BuildHasher + Clone> Deletable<T> for Qfilter<S> {
    #[inline]
    fn remove(&mut self, item: &T) -> Result<(), RemoveError> {
        super::found(self.inner.remove(item))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_copies_and_refuses_when_full() {
        let mut f = Qfilter::new(100, 1.0 / 256.0, DefaultHasher::from_seed(7)).unwrap();
        assert_eq!(f.insert(&42u64), Ok(true));
        assert_eq!(f.insert(&42u64), Ok(true));
        assert_eq!(Filter::len(&f), 2);
        assert_eq!(f.remove(&42u64), Ok(()));
        assert!(f.contains(&42u64), "one copy is left");
        assert_eq!(f.remove(&42u64), Ok(()));
        assert_eq!(f.remove(&42u64), Err(RemoveError::NotPresent));
        let capacity = f.capacity();
        let stored = (0..capacity + 10).filter(|k| f.insert(k).is_ok()).count() as u64;
        assert_eq!(stored, capacity);
        assert_eq!(f.insert(&u64::MAX), Err(InsertError::Full));
        assert!(
            (0..capacity).all(|k| f.contains(&k)),
            "a refusal lost nothing"
        );
    }
}
