//! Binary fuse filters (Graf and Lemire, "Binary Fuse Filters: Fast and
//! Smaller Than Xor Filters", ACM Journal of Experimental Algorithmics 27,
//! 2022).
//!
//! A binary fuse filter is built at once from a set of `n` keys: an array of
//! `f`-bit fingerprints, cut into segments of a power-of-two length, in which
//! each key has one slot in each of `arity` (3 or 4) consecutive segments,
//! and the fingerprint of a key is the XOR of its slots. An absent key passes
//! when the XOR of its slots happens to equal its fingerprint: with
//! probability `2^−f` (§2). The array has `size_factor · n` slots, a little
//! more than `n`: what makes the key-to-slot hypergraph peelable (§3, §4).
//!
//! The segment length and the size factor are the paper's empirical
//! formulas (§4, "Binary fuse filters in practice"), which its reference
//! implementation uses: they set how far the structure is from the
//! information-theoretic bound `log2(1/ε)` (about 1.125× with 3-wise and
//! 1.075× with 4-wise construction for large `n`).

/// The false-positive rate of `f`-bit fingerprints, `2^−f` (§2: an absent
/// key's fingerprint equals the XOR of its `arity` slots with probability
/// `2^−f`, the slots being uniform and independent of it).
///
/// With 8-bit fingerprints, `2^−8`: the 0.39% the paper quotes for them.
///
/// ```
/// use bloomlab_core::theory::fuse::fpr;
///
/// assert_eq!(fpr(8), 1.0 / 256.0);
/// ```
pub fn fpr(fingerprint_bits: u32) -> f64 {
    (-f64::from(fingerprint_bits)).exp2()
}

/// The segment length of an array for `n` keys and `arity` slots per key,
/// before any cap: `2^⌊ln n / ln 3.33 + 2.25⌋` for 3-wise and
/// `2^⌊ln n / ln 2.91 − 0.5⌋` for 4-wise construction (§4, as the paper's
/// reference code computes it). An exponent below zero
/// (4-wise, `n < 2`) gives 1. `None` for another arity or `n = 0`.
///
/// Implementations cap it (the reference code at `2^18`), which this
/// function leaves to them.
///
/// ```
/// use bloomlab_core::theory::fuse::segment_length;
///
/// // A million keys: 2^13 slots a segment with 3-wise construction.
/// assert_eq!(segment_length(3, 1_000_000), Some(1 << 13));
/// ```
pub fn segment_length(arity: u32, n: u64) -> Option<u64> {
    let ln_n = (n as f64).ln();
    let exponent = match (arity, n) {
        (_, 0) => return None,
        (3, _) => ln_n / 3.33f64.ln() + 2.25,
        (4, _) => ln_n / 2.91f64.ln() - 0.5,
        _ => return None,
    };
    Some(1u64 << (exponent.floor().clamp(0.0, 62.0) as u32))
}

/// The size factor: slots per key the array needs to be peeled with high
/// probability, `max(1.125, 0.875 + 0.25 · ln(10^6) / ln n)` for 3-wise and
/// `max(1.075, 0.77 + 0.305 · ln(600,000) / ln n)` for 4-wise construction
/// (§4). Tends to 1.125 and 1.075 as `n` grows. `None` for another arity or
/// `n < 2` (where the formula divides by `ln n ≤ 0`).
///
/// ```
/// use bloomlab_core::theory::fuse::size_factor;
///
/// assert_eq!(size_factor(3, 10_000_000), Some(1.125));
/// assert_eq!(size_factor(4, 10_000_000), Some(1.075));
/// ```
pub fn size_factor(arity: u32, n: u64) -> Option<f64> {
    if n < 2 {
        return None;
    }
    let ln_n = (n as f64).ln();
    match arity {
        3 => Some(f64::max(1.125, 0.875 + 0.25 * 1e6f64.ln() / ln_n)),
        4 => Some(f64::max(1.075, 0.77 + 0.305 * 6e5f64.ln() / ln_n)),
        _ => None,
    }
}

/// Bits per key of a filter of `f`-bit fingerprints for `n` keys:
/// `f · size_factor(arity, n)`, before an implementation rounds the array
/// to whole segments (§4: for large `n`, 1.125 · 8 = 9.0 bits with 8-bit
/// fingerprints and 3-wise construction, 1.075 · 8 = 8.6 with 4-wise). `NaN` where
/// [`size_factor`] has no value.
///
/// ```
/// use bloomlab_core::theory::fuse::bits_per_item;
///
/// assert_eq!(bits_per_item(8, 3, 10_000_000), 9.0);
/// ```
pub fn bits_per_item(fingerprint_bits: u32, arity: u32, n: u64) -> f64 {
    size_factor(arity, n).map_or(f64::NAN, |factor| f64::from(fingerprint_bits) * factor)
}

/// How far `bits_per_item` bits per key are from the information-theoretic
/// bound at rate `eps`: `bits / log2(1/ε)` (Carter et al. 1978). The paper
/// reports this overhead as about 1.13 for 3-wise and 1.08 for 4-wise binary
/// fuse filters, against 1.23 for xor filters. `NaN` for a rate outside
/// `(0, 1)`.
///
/// ```
/// use bloomlab_core::theory::fuse::ratio_to_bound;
///
/// assert_eq!(ratio_to_bound(9.0, 1.0 / 256.0), 1.125);
/// ```
pub fn ratio_to_bound(bits_per_item: f64, eps: f64) -> f64 {
    if eps > 0.0 && eps < 1.0 {
        bits_per_item / super::lower_bound_bits_per_item(eps)
    } else {
        f64::NAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_of_a_fingerprint() {
        // The 0.39% the paper quotes for 8-bit fingerprints.
        assert!((fpr(8) * 100.0 - 0.39).abs() < 0.005);
        assert_eq!(fpr(16), 1.0 / 65_536.0);
        assert_eq!(fpr(32), 2f64.powi(-32));
    }

    #[test]
    fn segment_lengths_follow_the_formulas() {
        // ln(10^6)/ln 3.33 + 2.25 = 13.73; ln(10^6)/ln 2.91 − 0.5 = 12.45.
        assert_eq!(segment_length(3, 1_000_000), Some(8_192));
        assert_eq!(segment_length(4, 1_000_000), Some(4_096));
        // ln(10^7)/ln 3.33 + 2.25 = 15.64.
        assert_eq!(segment_length(3, 10_000_000), Some(32_768));
        assert_eq!(segment_length(4, 1), Some(1));
        assert_eq!(segment_length(3, 0), None);
        assert_eq!(segment_length(5, 100), None);
    }

    #[test]
    fn size_factors_reach_the_published_constants() {
        // The 3-wise formula meets its floor at 10^6, the 4-wise one at 600,000.
        assert_eq!(size_factor(3, 1_000_000), Some(1.125));
        assert_eq!(size_factor(4, 600_000), Some(1.075));
        // Smaller sets need more slots per key.
        let small = size_factor(3, 1_000).unwrap();
        assert!((small - 1.375).abs() < 1e-12, "{small}");
        assert_eq!(size_factor(3, 1), None);
        assert_eq!(size_factor(2, 1_000), None);
    }

    #[test]
    fn bits_per_item_and_overhead_match_the_paper() {
        // Large sets: 1.125 f (3-wise) and 1.075 f (4-wise) bits, which
        // the paper rounds to 1.13 and 1.08 times the bound.
        assert_eq!(bits_per_item(8, 3, 10_000_000), 9.0);
        assert!((bits_per_item(8, 4, 10_000_000) - 8.6).abs() < 1e-12);
        assert_eq!(bits_per_item(16, 3, 10_000_000), 18.0);
        assert!((ratio_to_bound(8.6, fpr(8)) - 1.075).abs() < 1e-12);
        let three = ratio_to_bound(bits_per_item(8, 3, 10_000_000), fpr(8));
        let four = ratio_to_bound(bits_per_item(8, 4, 10_000_000), fpr(8));
        assert_eq!(
            ((three * 100.0).round(), (four * 100.0).round()),
            (113.0, 108.0)
        );
        assert!((ratio_to_bound(18.0, fpr(16)) - 1.125).abs() < 1e-12);
        assert!(ratio_to_bound(9.0, 0.0).is_nan());
        assert!(bits_per_item(8, 3, 1).is_nan());
    }
}
