//! The traits every filter implements.

use crate::error::{InsertBatchError, InsertError, RemoveError};

/// What every filter answers without being given an item: its size, memory
/// and theory. The supertrait of [`Membership`], so that
/// `filter.bits_per_item()` needs no item type, and a `dyn Filter` can hold
/// filters of different item types.
///
/// ```
/// use bloomlab_core::Filter;
///
/// /// Memory per item of any filter, whatever it holds.
/// fn report(filter: &dyn Filter) -> String {
///     match filter.bits_per_item() {
///         Some(bits) => format!("{} items, {bits:.2} bits each", filter.len()),
///         None => "empty".to_owned(),
///     }
/// }
/// # let _ = report;
/// ```
pub trait Filter {
    /// Successful inserts minus successful removes.
    fn len(&self) -> usize;

    /// Whether [`len`](Filter::len) is zero.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the filter's tables: what "memory per item" is computed from.
    fn memory_bytes(&self) -> usize;

    /// The false-positive rate theory predicts for this filter at its present load.
    fn expected_fpr(&self) -> f64;

    /// Removes every item; the filter keeps its size and its hash key.
    fn clear(&mut self);

    /// Bits of table per item held, or `None` while the filter is empty.
    fn bits_per_item(&self) -> Option<f64> {
        match self.len() {
            0 => None,
            n => Some(self.memory_bytes() as f64 * 8.0 / n as f64),
        }
    }
}

/// An approximate set: it may answer "probably present" for an item it never
/// saw (a false positive), but never "absent" for an item it holds.
///
/// Every bloomlab filter implements `Membership<T>` for every
/// `T: Hash + ?Sized`. Methods take `&T`, so `dyn Membership<u64>` and
/// `dyn Membership<str>` work and one loop can drive every variant.
///
/// # Example
///
/// ```
/// use bloomlab_core::{InsertError, Membership};
///
/// /// Counts how many probes a filter reports present.
/// fn false_alarms(filter: &dyn Membership<u64>, probes: std::ops::Range<u64>) -> usize {
///     probes.filter(|p| filter.contains(p)).count()
/// }
/// # let _ = false_alarms;
/// # let _: Option<InsertError> = None;
/// ```
pub trait Membership<T: ?Sized>: Filter {
    /// Adds `item`.
    ///
    /// `Ok(true)` means the filter did not report `item` present before this
    /// call; `Ok(false)` means it already did (the item, or a false positive).
    ///
    /// # Errors
    ///
    /// [`InsertError::Full`]: nothing was added, and nothing already in the
    /// filter was lost.
    fn insert(&mut self, item: &T) -> Result<bool, InsertError>;

    /// `false` means `item` is definitely absent; `true` means probably present.
    fn contains(&self, item: &T) -> bool;

    /// Looks up every item of `items`: the answers, in order, are those of
    /// [`contains`](Membership::contains).
    ///
    /// Every variant overrides this with a pipelined version that hashes a
    /// group of items and prefetches their memory before probing
    /// ([`batch`](crate::batch)), which pays off for tables larger than the
    /// cache.
    fn contains_batch(&self, items: &[T]) -> Vec<bool>
    where
        T: Sized,
    {
        items.iter().map(|item| self.contains(item)).collect()
    }

    /// Inserts every item of `items` in order, as [`insert`](Membership::insert)
    /// would, and returns how many were new.
    ///
    /// # Errors
    ///
    /// [`InsertBatchError`] at the first item that cannot be inserted: the
    /// items before it stay inserted, it and the ones after it are not, and
    /// nothing stored before the call is lost.
    fn insert_batch(&mut self, items: &[T]) -> Result<usize, InsertBatchError>
    where
        T: Sized,
    {
        let mut new = 0;
        for (stored, item) in items.iter().enumerate() {
            match self.insert(item) {
                Ok(fresh) => new += usize::from(fresh),
                Err(error) => return Err(InsertBatchError::new(stored, new, error)),
            }
        }
        Ok(new)
    }

    /// Inserts every item in order and returns how many were new
    /// (the number of `Ok(true)` answers).
    ///
    /// # Errors
    ///
    /// Stops at the first [`InsertError`]; the items before it stay inserted,
    /// and the failed one changed nothing.
    fn insert_all<'a, I>(&mut self, items: I) -> Result<usize, InsertError>
    where
        I: IntoIterator<Item = &'a T>,
        T: 'a,
        Self: Sized,
    {
        let mut new = 0;
        for item in items {
            new += usize::from(self.insert(item)?);
        }
        Ok(new)
    }

    /// How many of `items` the filter reports present.
    fn count_contained<'a, I>(&self, items: I) -> usize
    where
        I: IntoIterator<Item = &'a T>,
        T: 'a,
        Self: Sized,
    {
        items.into_iter().filter(|item| self.contains(item)).count()
    }
}

/// A filter that can also forget an item.
pub trait Deletable<T: ?Sized>: Membership<T> {
    /// Removes one occurrence of `item`.
    ///
    /// Removing an item that was never inserted but that the filter reports
    /// present (a false positive) is the caller's error the filter cannot
    /// detect: it may make other items absent. Each variant documents what it
    /// does to limit the damage.
    ///
    /// # Errors
    ///
    /// [`RemoveError::NotPresent`]: the filter proves `item` absent; nothing changed.
    fn remove(&mut self, item: &T) -> Result<(), RemoveError>;
}
