//! The batch methods against the one-at-a-time ones: `insert_batch` counts
//! the new items sequential inserts count and leaves the filter they leave,
//! stops where they stop, and `contains_batch` answers as `contains` does,
//! over batch lengths around the pipeline's.
//!
//! The checks call the methods a [`Methods`] names: a type's own (inherent)
//! methods, picked by [`item_methods!`](crate::item_methods), which are what
//! a caller of the type calls, or the [`Membership`] trait's
//! ([`Methods::of_trait`]).
//!
//! ```ignore
//! #[test]
//! fn batches_match_single_calls() {
//!     let make = || BloomFilter::builder(batch::ITEMS, 0.01).seed(3).build().unwrap();
//!     batch::check(make, &item_methods!(BloomFilter<u64>));
//! }
//! ```

use std::fmt::Debug;

use bloomlab_core::{Filter, InsertBatchError, InsertError, Membership, Persist};

use crate::keys::{members, probes};

/// Batch lengths: the empty batch, one item, batches shorter than the
/// pipeline (16), as long, and longer but not a multiple of it.
pub const LENGTHS: [usize; 7] = [0, 1, 15, 16, 17, 33, 1_000];

/// Items [`check`] inserts (and the filters it is given are sized for).
pub const ITEMS: usize = 10_000;

/// The seed of the items and probes [`check`] uses.
const SEED: u64 = 5;

/// The item methods of a filter type `F` over `u64` items.
pub struct Methods<F> {
    /// `insert`.
    pub insert: fn(&mut F, &u64) -> Result<bool, InsertError>,
    /// `insert_batch`.
    pub insert_batch: fn(&mut F, &[u64]) -> Result<usize, InsertBatchError>,
    /// `contains`.
    pub contains: fn(&F, &u64) -> bool,
    /// `contains_batch`.
    pub contains_batch: fn(&F, &[u64]) -> Vec<bool>,
    /// `len`.
    pub len: fn(&F) -> usize,
    /// `memory_bytes`.
    pub memory_bytes: fn(&F) -> usize,
    /// `expected_fpr`.
    pub expected_fpr: fn(&F) -> f64,
    /// `clear`.
    pub clear: fn(&mut F),
}

/// The methods `insert`, `insert_batch`, `contains`, `contains_batch`,
/// `len`, `memory_bytes`, `expected_fpr` and `clear` of the filter type
/// given, as a [`Methods`]: the type's own (inherent) methods where it has
/// them, as a caller of the type would call them.
#[macro_export]
macro_rules! item_methods {
    ($filter:ty) => {
        $crate::batch::Methods::<$filter> {
            insert: |f, item| f.insert(item),
            insert_batch: |f, items| f.insert_batch(items),
            contains: |f, item| f.contains(item),
            contains_batch: |f, items| f.contains_batch(items),
            len: |f| f.len(),
            memory_bytes: |f| f.memory_bytes(),
            expected_fpr: |f| f.expected_fpr(),
            clear: |f| f.clear(),
        }
    };
}

impl<F: Membership<u64>> Methods<F> {
    /// The [`Membership`] trait's methods.
    pub fn of_trait() -> Self {
        Self {
            insert: |f, item| Membership::insert(f, item),
            insert_batch: |f, items| Membership::insert_batch(f, items),
            contains: |f, item| Membership::contains(f, item),
            contains_batch: |f, items| Membership::contains_batch(f, items),
            len: |f| Filter::len(f),
            memory_bytes: |f| Filter::memory_bytes(f),
            expected_fpr: |f| Filter::expected_fpr(f),
            clear: |f| Filter::clear(f),
        }
    }
}

impl<F> Methods<F> {
    /// What sequential inserts do with `items`: how many were new, or where
    /// and why they stopped, as `insert_batch` promises.
    ///
    /// # Errors
    ///
    /// At the first item `insert` refuses: its index, the new items before
    /// it, and why.
    pub fn one_by_one(&self, f: &mut F, items: &[u64]) -> Result<usize, InsertBatchError> {
        let mut new = 0;
        for (i, item) in items.iter().enumerate() {
            match (self.insert)(f, item) {
                Ok(fresh) => new += usize::from(fresh),
                Err(e) => return Err(InsertBatchError::new(i, new, e)),
            }
        }
        Ok(new)
    }
}

/// `n` members of `seed`, then the first 100 of them again: a repeat is not
/// new.
pub fn with_repeats(seed: u64, n: usize) -> Vec<u64> {
    let mut all = members(seed, n);
    all.extend_from_within(..100.min(n));
    all
}

/// `n` members of `seed`, then `n` probes of `seed` (never members).
pub fn members_then_probes(seed: u64, n: usize) -> Vec<u64> {
    let mut all = members(seed, n);
    all.extend(probes(seed, n));
    all
}

/// Inserts `items` into `make()` one at a time, and into a fresh `make()` in
/// batches of each non-zero length of [`LENGTHS`]: every way counts the same
/// new items and leaves an equal filter, of the same length and bytes. An
/// empty batch inserts nothing and changes nothing.
///
/// Returns the filter filled one at a time, and how many items were new.
///
/// # Panics
///
/// If one of those fails, or an insert fails.
pub fn assert_inserts_match<F>(make: impl Fn() -> F, m: &Methods<F>, items: &[u64]) -> (F, usize)
where
    F: Filter + Persist + PartialEq + Debug,
{
    let mut one = make();
    let new = m
        .one_by_one(&mut one, items)
        .expect("the filter holds the items");
    for len in LENGTHS.into_iter().filter(|&l| l > 0) {
        let mut batched = make();
        let new_batched: usize = items
            .chunks(len)
            .map(|c| (m.insert_batch)(&mut batched, c).expect("the filter holds the items"))
            .sum();
        assert_eq!(new_batched, new, "batches of {len}");
        assert_eq!(batched.len(), one.len(), "batches of {len}");
        assert!(batched == one, "batches of {len} left another filter");
        assert_eq!(batched.to_bytes(), one.to_bytes(), "batches of {len}");
    }
    let mut empty = make();
    assert_eq!((m.insert_batch)(&mut empty, &[]), Ok(0));
    assert_eq!(empty.to_bytes(), make().to_bytes(), "an empty batch");
    (one, new)
}

/// Asserts that `contains_batch` over batches of each length of [`LENGTHS`]
/// answers as `contains` does for every probe, and that the empty batch has
/// no answers. Returns the answers.
///
/// # Panics
///
/// If the answers differ.
pub fn assert_lookups_match<F>(f: &F, m: &Methods<F>, probes: &[u64]) -> Vec<bool> {
    let single: Vec<bool> = probes.iter().map(|p| (m.contains)(f, p)).collect();
    for len in LENGTHS.into_iter().filter(|&l| l > 0) {
        let got: Vec<bool> = probes
            .chunks(len)
            .flat_map(|c| (m.contains_batch)(f, c))
            .collect();
        assert_eq!(got, single, "batches of {len}");
    }
    assert!((m.contains_batch)(f, &[]).is_empty(), "the empty batch");
    single
}

/// Asserts that the answers for [`members_then_probes`]`(_, n)` report every
/// member present, and include among the non-members both misses and false
/// positives.
///
/// # Panics
///
/// If they do not.
pub fn assert_members_and_false_positives(answers: &[bool], n: usize) {
    assert!(
        answers[..n].iter().all(|&x| x),
        "a member is reported absent"
    );
    let false_positives = answers[n..].iter().filter(|&&x| x).count();
    assert!(
        false_positives > 0 && false_positives < n,
        "the non-members include misses and false positives: {false_positives}"
    );
}

/// The whole check for a filter `make()` sized for [`ITEMS`] items at about
/// 1%: [`assert_inserts_match`] with [`ITEMS`] members and 100 repeats (which
/// are not new), then [`assert_lookups_match`] over the members and as many
/// non-members, which include misses and false positives. Returns the filled
/// filter.
///
/// # Panics
///
/// If any of those fails.
pub fn check<F>(make: impl Fn() -> F, m: &Methods<F>) -> F
where
    F: Filter + Persist + PartialEq + Debug,
{
    let (one, new) = assert_inserts_match(make, m, &with_repeats(SEED, ITEMS));
    assert!(new <= ITEMS, "the repeats were not new: {new}");
    let answers = assert_lookups_match(&one, m, &members_then_probes(SEED, ITEMS));
    assert_members_and_false_positives(&answers, ITEMS);
    one
}

/// Checks `insert_batch(items)` on a copy of `start`, where the items do not
/// all fit, against sequential inserts: it fails with the same error
/// ([`InsertError::Full`]) at the same item, and leaves the filter sequential
/// inserts leave (`==`), which encodes exactly as the one built from the
/// items before it alone and holds them; a second try refuses the same item
/// and changes nothing.
///
/// (The filter built from the prefix alone is compared by its bytes and
/// length: `==` may also see what a refused insert remembers, such as a
/// scalable filter's refused next layer.)
///
/// Returns where it stopped, and the filter it left.
///
/// # Panics
///
/// If one of those fails, or the items all fit.
pub fn assert_stops_like_sequential<F>(start: &F, m: &Methods<F>, items: &[u64]) -> (usize, F)
where
    F: Filter + Persist + PartialEq + Debug + Clone,
{
    let mut sequential = start.clone();
    let Err(expected) = m.one_by_one(&mut sequential, items) else {
        panic!("the batch was meant to overfill the filter");
    };
    let mut f = start.clone();
    let err = (m.insert_batch)(&mut f, items).unwrap_err();
    assert_eq!(err, expected);
    assert_eq!(err.error, InsertError::Full);
    assert!(f == sequential, "the batch left another filter");
    let stored = err.stored;

    // The filter is exactly the one built from just the items before it.
    let mut prefix_only = start.clone();
    let new = m
        .one_by_one(&mut prefix_only, &items[..stored])
        .expect("the items before the failure fit");
    assert_eq!(err.new, new);
    assert_eq!(
        f.to_bytes(),
        prefix_only.to_bytes(),
        "the batch stored more or less than its prefix"
    );
    assert_eq!(f.len(), start.len() + stored);
    assert_eq!(f.len(), prefix_only.len());
    assert!(items[..stored].iter().all(|k| (m.contains)(&f, k)));

    // The failed item still does not fit, and trying again changes nothing.
    let again = (m.insert_batch)(&mut f, &items[stored..]).unwrap_err();
    assert_eq!((again.stored, again.new), (0, 0));
    assert!(f == sequential);
    assert_eq!(f.to_bytes(), prefix_only.to_bytes());
    assert_eq!(f.len(), prefix_only.len());
    (stored, f)
}

/// Asserts that the [`Membership`] trait's batch methods, called on the
/// type and through `dyn Membership<u64>`, answer as the type's own `m` do:
/// `insert_batch(items)` on copies of `start` returns the same and leaves
/// equal filters, and `contains_batch(probes)` gives the same answers.
///
/// Returns the filter `m.insert_batch` left, and what it returned.
///
/// # Panics
///
/// If they differ.
pub fn assert_trait_agrees<F>(
    start: &F,
    m: &Methods<F>,
    items: &[u64],
    probes: &[u64],
) -> (F, Result<usize, InsertBatchError>)
where
    F: Membership<u64> + Persist + PartialEq + Debug + Clone,
{
    let mut own = start.clone();
    let want = (m.insert_batch)(&mut own, items);
    let mut via_trait = start.clone();
    assert_eq!(Membership::insert_batch(&mut via_trait, items), want);
    let mut via_dyn = start.clone();
    let dynamic: &mut dyn Membership<u64> = &mut via_dyn;
    assert_eq!(dynamic.insert_batch(items), want);
    for other in [&via_trait, &via_dyn] {
        assert!(
            *other == own,
            "the trait's insert_batch left another filter"
        );
        assert_eq!(other.to_bytes(), own.to_bytes());
    }
    let answers = (m.contains_batch)(&own, probes);
    assert_eq!(Membership::contains_batch(&own, probes), answers);
    let dynamic: &dyn Membership<u64> = &own;
    assert_eq!(dynamic.contains_batch(probes), answers);
    (own, want)
}

/// Asserts that the [`Membership`] and [`Filter`] traits' methods answer as
/// the type's own `m` do: on copies of `start`, each insert of `keys`
/// returns the same and leaves equal filters, lookups of `probes` (and of
/// `keys`) answer alike, as do `len`, `memory_bytes` and `expected_fpr`, and
/// `clear` leaves equal, empty filters.
///
/// Returns the filter filled through `m`, before the clear.
///
/// # Panics
///
/// If they differ.
pub fn assert_trait_methods_agree<F>(start: &F, m: &Methods<F>, keys: &[u64], probes: &[u64]) -> F
where
    F: Membership<u64> + PartialEq + Debug + Clone,
{
    let (mut via_trait, mut own) = (start.clone(), start.clone());
    for k in keys {
        let one: Result<bool, InsertError> = Membership::insert(&mut via_trait, k);
        assert_eq!(one, (m.insert)(&mut own, k), "insert of {k}");
    }
    assert_eq!(via_trait, own);
    for p in keys.iter().chain(probes) {
        assert_eq!(Membership::contains(&via_trait, p), (m.contains)(&own, p));
    }
    assert_eq!(Filter::len(&via_trait), (m.len)(&own));
    assert_eq!(Filter::memory_bytes(&via_trait), (m.memory_bytes)(&own));
    let fpr = Filter::expected_fpr(&via_trait);
    assert_eq!(fpr.to_bits(), (m.expected_fpr)(&own).to_bits());
    let filled = own.clone();
    Filter::clear(&mut via_trait);
    (m.clear)(&mut own);
    assert_eq!(via_trait, own);
    assert!(via_trait.is_empty() && (m.len)(&own) == 0);
    filled
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_by_one_counts_new_items_and_stops_at_the_first_refusal() {
        let m = Methods::<Vec<u64>> {
            insert: |v, &k| {
                if v.len() == 3 {
                    return Err(InsertError::Full);
                }
                let new = !v.contains(&k);
                v.push(k);
                Ok(new)
            },
            insert_batch: |_, _| Ok(0),
            contains: |v, k| v.contains(k),
            contains_batch: |v, ks| ks.iter().map(|k| v.contains(k)).collect(),
            len: |v| v.len(),
            memory_bytes: |v| v.len() * 8,
            expected_fpr: |_| 0.0,
            clear: |v| v.clear(),
        };
        assert_eq!(m.one_by_one(&mut Vec::new(), &[1, 2, 1]), Ok(2));
        assert_eq!(
            m.one_by_one(&mut Vec::new(), &[1, 1, 2, 3, 4]),
            Err(InsertBatchError::new(3, 2, InsertError::Full))
        );
    }

    #[test]
    fn members_come_first_and_repeat() {
        let all = members_then_probes(1, 50);
        assert_eq!(all[..50], members(1, 50)[..]);
        assert!(all[50..].iter().all(|p| p >> 63 == 1));
        let items = with_repeats(1, 200);
        assert_eq!(items.len(), 300);
        assert_eq!(items[200..], items[..100]);
    }
}
