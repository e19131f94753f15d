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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_bound_domain() {
        assert_eq!(lower_bound_bits_per_item(1.0), 0.0);
        assert!((lower_bound_bits_per_item(1e-3) - 9.966).abs() < 1e-3);
        assert!(lower_bound_bits_per_item(0.0).is_nan());
        assert!(lower_bound_bits_per_item(f64::NAN).is_nan());
    }
}
