//! Measured counts against the rate theory gives them.

use std::fmt::Display;

use crate::stats::binomial_interval;

/// Asserts that `hits` in `trials` lies in the 99.9% binomial interval of
/// rate `p` (so that a correct filter fails one seed in a thousand). The
/// message names what was counted, `what`.
///
/// # Panics
///
/// When it lies outside.
pub fn assert_in_interval(hits: u64, trials: u64, p: f64, what: impl Display) {
    let (lo, hi) = binomial_interval(trials, p, 0.999);
    assert!(
        (lo..=hi).contains(&hits),
        "{what}: {hits} in {trials}; the rate {p:.6e} allows {lo}..={hi}"
    );
}
