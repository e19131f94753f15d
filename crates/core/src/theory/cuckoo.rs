//! The cuckoo filter (Fan, Andersen, Kaminsky and Mitzenmacher, "Cuckoo
//! filter: practically better than Bloom", CoNEXT 2014).
//!
//! A table of buckets with `b` slots each stores one `f`-bit fingerprint per
//! item in one of the item's two candidate buckets; a lookup compares the
//! probe's fingerprint with the up to `2b` fingerprints stored there. With
//! `α` the fraction of slots in use (the load), the paper bounds the rate by
//! `1 − (1 − 2^−f)^{2b·α}` (§4, eq. 6 at α = 1) and derives
//! `f ≥ log2(2b/ε)` bits and `f/α` bits per item.
//!
//! Fingerprint 0 marks an empty slot in bloomlab (as in the paper's reference
//! implementation), so a stored fingerprint takes one of `2^f − 1` values,
//! not `2^f`: [`fpr`] uses that exact count, [`fpr_paper`] the paper's
//! `2^f`. The two differ by a relative `2^−f`.

use crate::error::{ParamError, check_fpr};

/// The loads the paper measured for each bucket size before the first
/// insert failed with at most 500 relocations (§5.1, "Optimal bucket size"):
/// 84% with 2 slots, 95% with 4, 98% with 8.
///
/// `None` for other bucket sizes, which the paper did not measure.
///
/// ```
/// use bloomlab_core::theory::cuckoo::max_load;
///
/// assert_eq!(max_load(4), Some(0.95));
/// assert_eq!(max_load(3), None);
/// ```
pub fn max_load(bucket_size: u32) -> Option<f64> {
    match bucket_size {
        2 => Some(0.84),
        4 => Some(0.95),
        8 => Some(0.98),
        _ => None,
    }
}

/// The load bloomlab-cuckoo sizes a table for: the fraction of slots
/// `CuckooFilter::new(n, ε)` plans `n` items to fill. A margin below the
/// lowest load at which that implementation's first insert was measured to
/// fail (with at most 500 relocations, over some 6,000 tables of 256 to 2.6
/// million buckets per bucket size: 94.7% with 4 slots, 81.2% with 2, 98.1%
/// with 8), so that `n` inserts succeed: 94% with 4 slots, 80% with 2, 97%
/// with 8. Below the paper's [`max_load`] by design: a table sized at the
/// mean first-failure load would refuse an item about half the time.
///
/// `None` for other bucket sizes.
///
/// ```
/// use bloomlab_core::theory::cuckoo::{design_load, max_load};
///
/// assert_eq!(design_load(4), Some(0.94));
/// assert!(design_load(4) < max_load(4));
/// ```
pub fn design_load(bucket_size: u32) -> Option<f64> {
    match bucket_size {
        2 => Some(0.80),
        4 => Some(0.94),
        8 => Some(0.97),
        _ => None,
    }
}

/// `1 − (1 − x)^e` for `x` in `[0, 1]`, `e ≥ 0`, without cancellation for small `x`.
fn one_minus_pow(x: f64, e: f64) -> f64 {
    if e == 0.0 {
        0.0
    } else if x >= 1.0 {
        1.0
    } else {
        -(e * (-x).ln_1p()).exp_m1()
    }
}

/// The false-positive rate of a filter with `fingerprint_bits`-bit
/// fingerprints in buckets of `bucket_size` slots, a fraction `load` of them
/// in use: `1 − (1 − 1/(2^f − 1))^{2b·α}`.
///
/// A probe's two candidate buckets hold `2b·α` fingerprints on average, each
/// uniform over the `2^f − 1` non-zero values; the probe matches one with
/// probability `1/(2^f − 1)`. This is the paper's bound (§4) with the exact
/// number of fingerprint values. It is the rate for the *average* occupancy;
/// the expectation over a table's actual occupancies is
/// [`fpr_from_occupancy`], smaller by a second-order term (Jensen's
/// inequality: `(1 − q)^x` is convex in `x`), so this form errs on the side
/// of promising too high a rate, never too low.
///
/// NaN if `fingerprint_bits` or `bucket_size` is 0, or `load` is outside
/// `[0, 1]`. Widths past 1,074 bits give 0: the rate is below the smallest
/// `f64`.
///
/// ```
/// use bloomlab_core::theory::cuckoo::fpr;
///
/// // The paper's headline point: b = 4, f = 12, α = 95.5% → about 0.19%.
/// let rate = fpr(12, 4, 0.955);
/// assert!((rate - 0.001864).abs() < 1e-6, "{rate}");
/// ```
pub fn fpr(fingerprint_bits: u32, bucket_size: u32, load: f64) -> f64 {
    if fingerprint_bits == 0 || bucket_size == 0 || !(0.0..=1.0).contains(&load) {
        return f64::NAN;
    }
    one_minus_pow(
        match_probability(fingerprint_bits),
        2.0 * f64::from(bucket_size) * load,
    )
}

/// `1/(2^f − 1)`, the chance that a probe's fingerprint equals one stored
/// fingerprint; past 63 bits `2^−f`, which differs by a relative `2^−f`.
fn match_probability(fingerprint_bits: u32) -> f64 {
    if fingerprint_bits <= 63 {
        1.0 / ((1u64 << fingerprint_bits) as f64 - 1.0)
    } else {
        (-f64::from(fingerprint_bits)).exp2()
    }
}

/// The paper's form of [`fpr`], with `2^f` fingerprint values:
/// `1 − (1 − 2^−f)^{2b·α}` (Fan et al. 2014, §4; at α = 1 its upper bound
/// on the rate, `≈ 2b/2^f`).
///
/// NaN outside the domain of [`fpr`].
pub fn fpr_paper(fingerprint_bits: u32, bucket_size: u32, load: f64) -> f64 {
    if fingerprint_bits == 0 || bucket_size == 0 || !(0.0..=1.0).contains(&load) {
        return f64::NAN;
    }
    one_minus_pow(
        (-f64::from(fingerprint_bits)).exp2(),
        2.0 * f64::from(bucket_size) * load,
    )
}

/// The false-positive rate of a table given how many of its buckets hold
/// each number of fingerprints: `occupancy[j]` buckets hold `j`.
///
/// A probe's two candidate buckets are taken as two independent uniform
/// buckets, and the probe misses every fingerprint in them with probability
/// `(1 − q)^{j1 + j2}`, `q = 1/(2^f − 1)`; so the rate is `1 − E[(1 − q)^j]^2`
/// with the expectation over the histogram. Never above [`fpr`] at the
/// same load, by Jensen's inequality, and equal when every bucket holds the
/// same number.
///
/// NaN if `fingerprint_bits` is 0 or the histogram is empty or all zero
/// (or its bucket count overflows a `u64`).
///
/// ```
/// use bloomlab_core::theory::cuckoo::{fpr, fpr_from_occupancy};
///
/// // Every bucket of 4 holds 2 fingerprints: load one half, as `fpr` says.
/// let even = fpr_from_occupancy(8, &[0, 0, 100, 0, 0]);
/// assert!((even - fpr(8, 4, 0.5)).abs() < 1e-15);
/// // Half empty, half full: the same load, a slightly lower rate.
/// assert!(fpr_from_occupancy(8, &[50, 0, 0, 0, 50]) < even);
/// ```
pub fn fpr_from_occupancy(fingerprint_bits: u32, occupancy: &[u64]) -> f64 {
    let buckets = occupancy
        .iter()
        .try_fold(0u64, |total, &count| total.checked_add(count));
    let Some(buckets) = buckets.filter(|&b| b > 0 && fingerprint_bits > 0) else {
        return f64::NAN;
    };
    let q = match_probability(fingerprint_bits);
    let miss_one: f64 = occupancy
        .iter()
        .enumerate()
        .map(|(j, &count)| count as f64 * (1.0 - one_minus_pow(q, j as f64)))
        .sum::<f64>()
        / buckets as f64;
    1.0 - miss_one * miss_one
}

/// Bits of table per stored item: `b·f / (b·α) = f/α` (Fan et al. 2014, §5,
/// "C ≤ (log2(1/ε) + log2(2b)) / α").
///
/// NaN if `load` is not in `(0, 1]`.
///
/// ```
/// use bloomlab_core::theory::cuckoo::bits_per_item;
///
/// // 12-bit fingerprints at the paper's 95.5% load: 12.57 bits per item.
/// assert!((bits_per_item(12, 0.955) - 12.565).abs() < 1e-3);
/// ```
pub fn bits_per_item(fingerprint_bits: u32, load: f64) -> f64 {
    if !(load > 0.0 && load <= 1.0) {
        return f64::NAN;
    }
    f64::from(fingerprint_bits) / load
}

/// The fingerprint width the paper prescribes for rate `eps` with buckets of
/// `bucket_size` slots: `⌈log2(2b/ε)⌉` (Fan et al. 2014, §5.1, eq. 7).
///
/// A table at load `α ≤ 1` with this width has, by [`fpr_paper`], a rate of
/// at most `2b·α/2^f ≤ ε`; with the exact [`fpr`] the rate stays at most `ε`
/// for every load up to `1 − 2^−f`, which covers the loads a cuckoo table
/// reaches.
///
/// # Errors
///
/// [`ParamError::InvalidFpr`] for `eps` outside (0, 1);
/// [`ParamError::ZeroBits`] for a bucket of zero slots.
///
/// ```
/// use bloomlab_core::theory::cuckoo::fingerprint_bits;
///
/// // b = 4 at 0.19%: log2(8/0.0019) = 12.04, so 13 bits; at 0.2%, 12.
/// assert_eq!(fingerprint_bits(0.0019, 4), Ok(13));
/// assert_eq!(fingerprint_bits(0.002, 4), Ok(12));
/// ```
pub fn fingerprint_bits(eps: f64, bucket_size: u32) -> Result<u32, ParamError> {
    check_fpr(eps)?;
    if bucket_size == 0 {
        return Err(ParamError::ZeroBits);
    }
    // In logarithms, so that subnormal rates do not overflow the quotient:
    // at most 33 + 1,075 bits, for b = 2^32 − 1 and the least positive f64.
    let bits = ((2.0 * f64::from(bucket_size)).log2() - eps.log2()).ceil();
    Ok(bits as u32)
}

/// The fewest buckets that hold `items` fingerprints in buckets of
/// `bucket_size` slots at a load of at most `max_load`:
/// `⌈items / (bucket_size · max_load)⌉`, any integer (at least 1).
///
/// (Until bloomlab-cuckoo could address any number of buckets this rounded
/// up to a power of two, which left tables between half and 95% full.)
///
/// # Errors
///
/// [`ParamError::ZeroItems`] for no items, [`ParamError::ZeroBits`] for zero
/// slots per bucket, [`ParamError::InvalidFpr`] (carrying `max_load`) for a
/// load outside (0, 1], and [`ParamError::TooLarge`] when the count exceeds
/// 2^63 buckets.
///
/// ```
/// use bloomlab_core::theory::cuckoo::num_buckets;
///
/// // 1,000 items, 4 slots, 95%: 263.2 buckets needed, so 264.
/// assert_eq!(num_buckets(1_000, 4, 0.95), Ok(264));
/// ```
pub fn num_buckets(items: u64, bucket_size: u32, max_load: f64) -> Result<u64, ParamError> {
    if items == 0 {
        return Err(ParamError::ZeroItems);
    }
    if bucket_size == 0 {
        return Err(ParamError::ZeroBits);
    }
    if !(max_load > 0.0 && max_load <= 1.0) {
        return Err(ParamError::InvalidFpr(max_load));
    }
    let needed = (items as f64 / (f64::from(bucket_size) * max_load)).ceil();
    if needed > (1u64 << 63) as f64 {
        return Err(ParamError::TooLarge {
            needed: u128::MAX,
            limit: 1u128 << 63,
        });
    }
    Ok((needed as u64).max(1))
}

/// The narrowest fingerprint whose rate at load `load` is at most `eps`:
/// the least `f` with [`fpr`]`(f, b, α) ≤ ε`, the exact rate with the planned
/// load rather than the paper's α = 1 bound of [`fingerprint_bits`]. It is
/// never wider than [`fingerprint_bits`], and one bit narrower where the
/// bound's ceiling lands just above an integer (1% at 95%: 10 bits by both;
/// 3% at 95%: 8 bits here, 9 by the bound).
///
/// # Errors
///
/// [`ParamError::InvalidFpr`] for `eps` outside (0, 1) or (carrying `load`)
/// a load outside (0, 1]; [`ParamError::ZeroBits`] for a bucket of zero
/// slots.
///
/// ```
/// use bloomlab_core::theory::cuckoo::{fingerprint_bits, fingerprint_bits_at_load, fpr};
///
/// assert_eq!(fingerprint_bits_at_load(0.03, 4, 0.95), Ok(8));
/// assert_eq!(fingerprint_bits(0.03, 4), Ok(9));
/// assert!(fpr(8, 4, 0.95) <= 0.03 && fpr(7, 4, 0.95) > 0.03);
/// // 10^-6 with 4 slots: 23 bits.
/// assert_eq!(fingerprint_bits_at_load(1e-6, 4, 0.95), Ok(23));
/// // The smallest positive f64, 2^-1074: 2^f ≥ 7.6 · 2^1074 takes 1,077 bits.
/// assert_eq!(fingerprint_bits_at_load(5e-324, 4, 0.95), Ok(1_077));
/// ```
pub fn fingerprint_bits_at_load(eps: f64, bucket_size: u32, load: f64) -> Result<u32, ParamError> {
    check_fpr(eps)?;
    if bucket_size == 0 {
        return Err(ParamError::ZeroBits);
    }
    if !(load > 0.0 && load <= 1.0) {
        return Err(ParamError::InvalidFpr(load));
    }
    // The first-order estimate log2(2bα/ε), then the exact rate decides:
    // it is decreasing in f, and the estimate is within two bits of the answer.
    let lanes = 2.0 * f64::from(bucket_size) * load;
    let estimate = (lanes.log2() - eps.log2()).floor();
    let mut f = (estimate as u32).saturating_sub(2).max(1);
    // Past 60 bits the rate is 2bα·2^−f to within a relative 2^−57, and
    // compared in log2 it stays exact where the f64 rate itself would
    // underflow (subnormal ε: 5e-324 needs 1,077 bits with 4 slots at 95%).
    let too_high = |f: u32| {
        if f <= 60 {
            fpr(f, bucket_size, load) > eps
        } else {
            lanes.log2() - f64::from(f) > eps.log2()
        }
    };
    while too_high(f) {
        f += 1;
    }
    Ok(f)
}

/// Bits of table per stored item of a semi-sorted table (Fan et al. 2014,
/// §5.2): the four `f`-bit fingerprints of a 4-slot bucket take `4f − 4`
/// bits, so `(f − 1)/α`.
///
/// Sorting a bucket's fingerprints by their top 4 bits leaves one of the
/// `C(19, 4) = 3,876` sorted multisets of four 4-bit values, which one 12-bit
/// index names instead of 16 bits of prefixes.
///
/// NaN if `load` is not in `(0, 1]` or `fingerprint_bits` is below 4.
///
/// ```
/// use bloomlab_core::theory::cuckoo::{bits_per_item, bits_per_item_semi_sorted};
///
/// // 13-bit fingerprints at 95%: 12.63 bits per item, against 13.68 plain.
/// assert!((bits_per_item_semi_sorted(13, 0.95) - 12.632).abs() < 1e-3);
/// assert!((bits_per_item(13, 0.95) - bits_per_item_semi_sorted(13, 0.95) - 1.0 / 0.95).abs() < 1e-12);
/// ```
pub fn bits_per_item_semi_sorted(fingerprint_bits: u32, load: f64) -> f64 {
    if fingerprint_bits < 4 {
        return f64::NAN;
    }
    bits_per_item(fingerprint_bits - 1, load)
}

/// Sorted multisets of four 4-bit values, `C(16 + 4 − 1, 4)`: the index a
/// semi-sorted bucket stores in 12 bits ([`bits_per_item_semi_sorted`]).
pub const SEMI_SORTED_INDEXES: u32 = 3_876;

/// The expected fraction of `n` members of a cuckoo filter (`b`-slot
/// buckets, `values` possible fingerprints, load `alpha`) reported absent
/// after `j` false positives were removed (a caller who removes an item the
/// filter merely reports present).
///
/// A false positive's two buckets hold `Poisson(ν)` fingerprints equal to
/// its own, `ν = 2bα/values`, given at least one. Its removal deletes one;
/// the member that owned it (same fingerprint, hence the same bucket pair)
/// is lost if no other copy is left: `ν e^{−ν}/(1 − e^{−ν})` members per
/// removal, just under one, and `j` times that in all while `j ≪ n`.
///
/// ```
/// use bloomlab_core::theory::cuckoo::removal_loss;
///
/// // 8-bit fingerprints (255 values), 4 slots, half full: ν = 8·0.5/255,
/// // and ν/(e^ν − 1) = 0.9922 members lost per removal.
/// let per_removal = removal_loss(255, 4, 0.5, 1_000, 1.0) * 1_000.0;
/// assert!((per_removal - 0.9922).abs() < 1e-4);
/// ```
pub fn removal_loss(values: u64, bucket_size: u32, alpha: f64, n: u64, j: f64) -> f64 {
    let nu = 2.0 * f64::from(bucket_size) * alpha / values as f64;
    let per_removal = nu * (-nu).exp() / -(-nu).exp_m1();
    j * per_removal / n as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_matches_hand_computation() {
        // f = 8, b = 4, full: 1 − (254/255)^8 = 0.030945…
        let by_hand = 1.0 - (254.0f64 / 255.0).powi(8);
        assert!((fpr(8, 4, 1.0) - by_hand).abs() < 1e-15);
        assert!((by_hand - 0.030_945).abs() < 1e-6);
        // The paper's form: 1 − (255/256)^8 = 0.030826…, the "≈ 3%" of 8-bit filters.
        assert!((fpr_paper(8, 4, 1.0) - 0.030_826).abs() < 1e-6);
        // Small rates: f = 16, b = 4, α = 0.95 → 7.6/65535 to first order.
        let r = fpr(16, 4, 0.95);
        assert!((r - 7.6 / 65_535.0).abs() < 1e-8, "{r}");
        // The exact form is always a little above the paper's.
        for f in [4, 8, 12, 16] {
            assert!(fpr(f, 4, 0.9) > fpr_paper(f, 4, 0.9));
        }
    }

    #[test]
    fn rate_edges() {
        assert_eq!(fpr(12, 4, 0.0), 0.0);
        assert_eq!(fpr(1, 4, 0.5), 1.0); // one fingerprint value: everything matches
        assert!(fpr(0, 4, 0.5).is_nan());
        assert!(fpr(8, 0, 0.5).is_nan());
        // Widths past 63 bits: 2^−f, down to 0 where it leaves f64's range.
        assert!((fpr(64, 4, 0.5) / (4.0 * 2f64.powi(-64)) - 1.0).abs() < 1e-12);
        assert!(fpr(1_000, 4, 1.0) > 0.0);
        assert_eq!(fpr(2_000, 4, 1.0), 0.0);
        assert_eq!(fpr_paper(u32::MAX, 4, 1.0), 0.0);
        assert!(fpr(8, 4, 1.01).is_nan());
        assert!(fpr(8, 4, f64::NAN).is_nan());
        assert!(fpr_paper(8, 4, -0.1).is_nan());
    }

    #[test]
    fn occupancy_form_is_jensen_below_the_mean_form() {
        let f = 12;
        // 95% load spread over 0..=4 slots, mean 3.8 of 4.
        let hist = [0, 0, 5, 10, 85];
        let mean = (2 * 5 + 3 * 10 + 4 * 85) as f64 / 100.0;
        assert!((mean - 3.8).abs() < 1e-12);
        let exact = fpr_from_occupancy(f, &hist);
        let at_mean = fpr(f, 4, mean / 4.0);
        assert!(exact <= at_mean);
        // The gap is second order: below one part in a thousand here.
        assert!((at_mean - exact) / at_mean < 1e-3, "{exact} {at_mean}");
        assert_eq!(fpr_from_occupancy(f, &[7]), 0.0);
        assert!(fpr_from_occupancy(f, &[]).is_nan());
        assert!(fpr_from_occupancy(f, &[0, 0]).is_nan());
        assert!(fpr_from_occupancy(0, &[1]).is_nan());
        assert!(fpr_from_occupancy(f, &[u64::MAX, 1]).is_nan());
        assert!(fpr_from_occupancy(u32::MAX, &[0, 1]) == 0.0);
    }

    #[test]
    fn the_narrowest_rates_give_wide_but_finite_fingerprints() {
        // log2(8) + 1,074 for the least subnormal rate: 1,077 bits, not the
        // u32::MAX that an overflowing quotient 8/ε = ∞ gave.
        assert_eq!(fingerprint_bits(5e-324, 4), Ok(1_077));
        assert_eq!(fingerprint_bits(f64::MIN_POSITIVE, 4), Ok(1_025));
        assert_eq!(fingerprint_bits(5e-324, u32::MAX), Ok(1_107));
        let f = fingerprint_bits(1e-300, 8).unwrap();
        assert_eq!(f, 1_001);
        let r = fpr(f, 8, 0.98);
        assert!(r > 0.0 && r <= 1e-300, "{r}");
    }

    #[test]
    fn paper_space_numbers() {
        // §5: b = 4, f = 12 at 95.5% → 12.57 bits per item (the paper's 12.60
        // row rounds the measured load).
        assert!((bits_per_item(12, 0.955) - 12.565_445).abs() < 1e-6);
        assert_eq!(bits_per_item(8, 1.0), 8.0);
        assert!(bits_per_item(8, 0.0).is_nan());
        assert!(bits_per_item(8, 1.5).is_nan());
    }

    #[test]
    fn fingerprint_width_for_a_target() {
        // 3% with b = 4: log2(8/0.03) = 8.06 → 9 bits; log2(8/0.0313) = 7.998 → 8.
        assert_eq!(fingerprint_bits(0.03, 4), Ok(9));
        assert_eq!(fingerprint_bits(0.0313, 4), Ok(8));
        // 1% with b = 2: log2(400) = 8.64 → 9; with b = 8: log2(1600) = 10.64 → 11.
        assert_eq!(fingerprint_bits(0.01, 2), Ok(9));
        assert_eq!(fingerprint_bits(0.01, 8), Ok(11));
        // An exact power of two is not rounded up: 8/2^-10 = 2^13.
        assert_eq!(fingerprint_bits(1.0 / 1024.0, 4), Ok(13));
        // The width keeps the promise at the paper's loads.
        for eps in [0.1, 0.03, 0.01, 1e-3, 1e-4] {
            for b in [2, 4, 8] {
                let f = fingerprint_bits(eps, b).unwrap();
                let load = max_load(b).unwrap();
                assert!(fpr(f, b, load) <= eps, "eps {eps} b {b} f {f}");
            }
        }
    }

    #[test]
    fn sizing_input_is_typed() {
        for eps in [0.0, 1.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                fingerprint_bits(eps, 4),
                Err(ParamError::InvalidFpr(_))
            ));
        }
        assert_eq!(fingerprint_bits(0.01, 0), Err(ParamError::ZeroBits));
        assert_eq!(num_buckets(0, 4, 0.95), Err(ParamError::ZeroItems));
        assert_eq!(num_buckets(10, 0, 0.95), Err(ParamError::ZeroBits));
        assert!(matches!(
            num_buckets(10, 4, 0.0),
            Err(ParamError::InvalidFpr(_))
        ));
        assert!(matches!(
            num_buckets(u64::MAX, 2, 0.5),
            Err(ParamError::TooLarge { .. })
        ));
    }

    #[test]
    fn bucket_counts() {
        assert_eq!(num_buckets(1, 4, 0.95), Ok(1));
        assert_eq!(num_buckets(4, 4, 1.0), Ok(1));
        assert_eq!(num_buckets(5, 4, 1.0), Ok(2));
        // 10,000 at 95% in 4-slot buckets: 2,631.6 → 2,632 (no power of two).
        assert_eq!(num_buckets(10_000, 4, 0.95), Ok(2_632));
        // Exactly at the boundary: 3,891 ≤ 0.95 · 4 · 1,024 = 3,891.2.
        assert_eq!(num_buckets(3_891, 4, 0.95), Ok(1_024));
        assert_eq!(num_buckets(3_892, 4, 0.95), Ok(1_025));
    }

    #[test]
    fn the_exact_width_is_the_least_that_keeps_the_rate() {
        for eps in [0.3, 0.03, 0.01, 1e-3, 1e-4, 1e-5, 1e-6, 1e-9, 1e-300] {
            for b in [2, 4, 8] {
                for load in [0.5, 0.84, 0.95, 1.0] {
                    let f = fingerprint_bits_at_load(eps, b, load).unwrap();
                    assert!(fpr(f, b, load) <= eps, "eps {eps} b {b} load {load}");
                    assert!(
                        f == 1 || fpr(f - 1, b, load) > eps,
                        "eps {eps} b {b} load {load}"
                    );
                    assert!(f <= fingerprint_bits(eps, b).unwrap());
                }
            }
        }
        // The paper's 1% and 0.1% rows with 4 slots at 95%: 10 and 13 bits.
        assert_eq!(fingerprint_bits_at_load(0.01, 4, 0.95), Ok(10));
        assert_eq!(fingerprint_bits_at_load(0.001, 4, 0.95), Ok(13));
        assert_eq!(fingerprint_bits_at_load(1e-4, 4, 0.95), Ok(17));
        assert!(matches!(
            fingerprint_bits_at_load(0.01, 4, 0.0),
            Err(ParamError::InvalidFpr(_))
        ));
        assert_eq!(
            fingerprint_bits_at_load(0.01, 0, 0.9),
            Err(ParamError::ZeroBits)
        );
        assert!(fingerprint_bits_at_load(f64::NAN, 4, 0.9).is_err());
    }

    #[test]
    fn semi_sorting_saves_one_bit_per_slot() {
        // C(19, 4) sorted multisets of four 4-bit values fit 12 bits.
        let multisets = (16 * 17 * 18 * 19) / (4 * 3 * 2);
        assert_eq!(multisets, SEMI_SORTED_INDEXES);
        const { assert!(SEMI_SORTED_INDEXES <= 1 << 12) };
        assert_eq!(bits_per_item_semi_sorted(9, 1.0), 8.0);
        assert!(bits_per_item_semi_sorted(3, 0.9).is_nan());
        assert!(bits_per_item_semi_sorted(9, 0.0).is_nan());
    }
}
