//! Merging filters that do not match.

use std::fmt::Debug;

/// A merge of one filter into another: `union`, `intersect`, ….
pub type Merge<F, E> = fn(&mut F, &F) -> Result<(), E>;

/// Asserts that merging a copy of `a` with each filter of `cases`, by each
/// of `merges` in turn (`union`, `intersect`, …), fails with the error paired
/// with that filter and leaves the copy equal to `a`.
///
/// # Panics
///
/// If a merge succeeds, fails otherwise, or changes the copy.
pub fn assert_mismatches_refused<F, E, const N: usize>(
    a: &F,
    cases: impl IntoIterator<Item = (F, E)>,
    merges: [Merge<F, E>; N],
) where
    F: Clone + PartialEq + Debug,
    E: PartialEq + Debug + Clone,
{
    for (other, err) in cases {
        let mut x = a.clone();
        for merge in merges {
            assert_eq!(merge(&mut x, &other), Err(err.clone()));
            assert_eq!(x, *a, "a refused merge changed the filter");
        }
    }
}
