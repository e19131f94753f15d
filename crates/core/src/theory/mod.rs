//! The published formulas each filter is measured against.
//!
//! Pure functions, each with its source. Rate formulas take `f64` and return
//! NaN outside their domain (a rate is never silently clamped); the sizing
//! functions, whose results build tables, check their input and return a
//! [`ParamError`](crate::ParamError) instead.

pub mod blocked;
pub mod classic;
pub mod counting;
pub mod cuckoo;
pub mod fuse;
pub mod quotient;
pub mod scalable;
pub mod sectored;

/// The fewest bits per item any approximate-membership structure can use at
/// false-positive rate `eps`: `log2(1/eps)` (Carter, Floyd, Gill, Markowsky
/// and Wegman, "Exact and approximate membership testers", STOC 1978).
///
/// ```
/// use bloomlab_core::theory::lower_bound_bits_per_item;
///
/// assert!((lower_bound_bits_per_item(0.01) - 6.644).abs() < 0.001);
/// ```
pub fn lower_bound_bits_per_item(eps: f64) -> f64 {
    if eps > 0.0 && eps <= 1.0 {
        -eps.log2()
    } else {
        f64::NAN
    }
}

/// The least `x` in `(lo, hi]` with `passes(x)`, for a `passes` that stays
/// true once true, given `passes(hi)` and that `lo` is 0 or fails: a
/// bisection of `O(log(hi − lo))` calls. The sizing searches end with it.
pub(crate) fn least_passing(mut lo: u64, mut hi: u64, mut passes: impl FnMut(u64) -> bool) -> u64 {
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if passes(mid) { hi = mid } else { lo = mid }
    }
    hi
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_passing_bisects() {
        assert_eq!(least_passing(0, 100, |x| x >= 37), 37);
        assert_eq!(least_passing(36, 37, |x| x >= 37), 37);
        assert_eq!(least_passing(0, u64::MAX, |x| x > 1 << 40), (1 << 40) + 1);
    }

    #[test]
    fn lower_bound_domain() {
        assert_eq!(lower_bound_bits_per_item(1.0), 0.0);
        assert!((lower_bound_bits_per_item(1e-3) - 9.966).abs() < 1e-3);
        assert!(lower_bound_bits_per_item(0.0).is_nan());
        assert!(lower_bound_bits_per_item(f64::NAN).is_nan());
    }
}
