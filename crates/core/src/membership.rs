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

/// The lookups of a filter, whatever made it: what a filter built at once
/// from a set of keys offers (it has no insert), and what every
/// [`Membership`] filter offers too (a blanket impl).
///
/// ```
/// use bloomlab_core::{Filter, Lookup};
///
/// /// Members are the even numbers below `len`: an exact static set.
/// struct Evens { len: u64 }
///
/// impl Filter for Evens {
///     fn len(&self) -> usize { self.len as usize / 2 }
///     fn memory_bytes(&self) -> usize { 8 }
///     fn expected_fpr(&self) -> f64 { 0.0 }
///     fn clear(&mut self) { self.len = 0 }
/// }
///
/// impl Lookup<u64> for Evens {
///     fn contains(&self, item: &u64) -> bool { item % 2 == 0 && *item < self.len }
/// }
///
/// let evens = Evens { len: 10 };
/// assert_eq!(evens.contains_batch(&[2, 3, 12]), [true, false, false]);
/// ```
pub trait Lookup<T: ?Sized>: Filter {
    /// `false` means `item` is definitely absent; `true` means probably present.
    fn contains(&self, item: &T) -> bool;

    /// Looks up every item of `items`: the answers, in order, are those of
    /// [`contains`](Lookup::contains).
    fn contains_batch(&self, items: &[T]) -> Vec<bool>
    where
        T: Sized,
    {
        items.iter().map(|item| self.contains(item)).collect()
    }
}

impl<T: ?Sized, F: Membership<T> + ?Sized> Lookup<T> for F {
    // Inlined, so that a loop generic over `Lookup` pays no call per key on
    // top of the filter's own (`benches/FINDINGS.md`).
    #[inline]
    fn contains(&self, item: &T) -> bool {
        Membership::contains(self, item)
    }

    fn contains_batch(&self, items: &[T]) -> Vec<bool>
    where
        T: Sized,
    {
        Membership::contains_batch(self, items)
    }
}

/// An approximate set: it may answer "probably present" for an item it never
/// saw (a false positive), but never "absent" for an item it holds.
///
/// Every bloomlab filter carries its item type, as a `HashSet<T>` does
/// (`BloomFilter<u64>`, `CuckooFilter<str>`), and implements
/// `Membership<T>` for that type. Methods take `&T`, so `dyn Membership<u64>`
/// and `dyn Membership<str>` work and one loop can drive every variant.
///
/// # One signature per operation
///
/// A filter's inherent method and the trait method of the same name have
/// the same signature, in every crate: `insert` returns
/// `Result<bool, InsertError>` and `insert_batch`
/// `Result<usize, InsertBatchError>` even where the filter can never refuse
/// an item (the classic, blocked, atomic and counting filters, which also
/// implement `Extend` for that case), so generic code and concrete code
/// read alike and switching a type changes nothing around it. Lookups and
/// removes take any borrowed form of the item type (`contains("x")` on a
/// filter of `String`s); inserts take the item type itself, which is what
/// lets it be inferred from the first insert.
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

// A boxed or borrowed filter is a filter. Its `Membership` and `Deletable`
// impls are in `by_hash`, beside the blanket impls they must not overlap.
macro_rules! forward_filter {
    ($($wrapper:ty),*) => {$(
        impl<F: Filter + ?Sized> Filter for $wrapper {
            fn len(&self) -> usize { (**self).len() }
            fn is_empty(&self) -> bool { (**self).is_empty() }
            fn memory_bytes(&self) -> usize { (**self).memory_bytes() }
            fn expected_fpr(&self) -> f64 { (**self).expected_fpr() }
            fn clear(&mut self) { (**self).clear() }
            fn bits_per_item(&self) -> Option<f64> { (**self).bits_per_item() }
        }
    )*};
}

forward_filter!(Box<F>, &mut F);

#[cfg(test)]
mod tests {
    use super::*;

    /// A set that stores its items exactly: the smallest `Deletable`.
    #[derive(Default)]
    struct Exact(Vec<u64>);

    impl Filter for Exact {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn memory_bytes(&self) -> usize {
            self.0.len() * 8
        }
        fn expected_fpr(&self) -> f64 {
            0.0
        }
        fn clear(&mut self) {
            self.0.clear();
        }
    }

    impl Membership<u64> for Exact {
        fn insert(&mut self, item: &u64) -> Result<bool, InsertError> {
            let new = !self.0.contains(item);
            self.0.push(*item);
            Ok(new)
        }
        fn contains(&self, item: &u64) -> bool {
            self.0.contains(item)
        }
    }

    impl Deletable<u64> for Exact {
        fn remove(&mut self, item: &u64) -> Result<(), RemoveError> {
            let i = self.0.iter().position(|x| x == item);
            let i = i.ok_or(RemoveError::NotPresent)?;
            self.0.swap_remove(i);
            Ok(())
        }
    }

    fn fill(mut f: impl Deletable<u64>) -> usize {
        f.insert_all(&[1, 2, 3]).unwrap();
        f.remove(&2).unwrap();
        assert_eq!(f.remove(&2), Err(RemoveError::NotPresent));
        f.len()
    }

    #[test]
    fn boxed_and_borrowed_filters_are_filters() {
        let boxed: Box<dyn Deletable<u64>> = Box::new(Exact::default());
        assert_eq!(fill(boxed), 2);
        let mut exact = Exact::default();
        let borrowed: &mut dyn Deletable<u64> = &mut exact;
        assert_eq!(fill(borrowed), 2);
        assert_eq!(exact.0.len(), 2, "the borrowed filter was changed in place");
        let mut boxed: Box<dyn Membership<u64>> = Box::new(exact);
        assert_eq!(
            Membership::contains_batch(&boxed, &[1, 2, 3]),
            [true, false, true]
        );
        assert_eq!(boxed.insert_batch(&[4, 5]), Ok(2));
        let as_filter: &dyn Filter = &boxed;
        assert_eq!(as_filter.bits_per_item(), Some(64.0));
    }
}
