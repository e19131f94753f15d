//! The rank-and-select quotient filter (Pandey, Bender, Johnson and Patro,
//! "A General-Purpose Counting Filter: Making Every Bit Count", SIGMOD
//! 2017), and its expansion without the keys (Dayan, Bercea, Reviriego and
//! Pagh, "InfiniFilter: Expanding Filters to Infinity and Beyond", SIGMOD
//! 2023).
//!
//! A filter of `2^q` slots stores, per item, the `r`-bit remainder of its
//! hash in the run of its `q`-bit quotient. A probe matches a stored entry
//! when both quotient and remainder are equal, probability `2^−(q+r)` per
//! entry; with `n = α·2^q` entries the number of matches is close to
//! Poisson with mean `α·2^−r`, so the rate is `1 − e^{−α·2^−r} ≤ α·2^−r`
//! (the paper's §3 bound, Theorem 1's `2^−r` at α = 1). Each slot costs
//! `r` bits plus 2.125 of metadata: an `occupieds` and a `runends` bit, and
//! an 8-bit offset per 64-slot block.
//!
//! # Expansion
//!
//! Doubling the table takes one bit of every remainder into the quotient
//! (InfiniFilter's "fingerprint sacrifice"): an entry keeps matching the
//! same probes, with one bit less in its remainder but one more in its
//! quotient, so it still matches a probe with probability
//! `2^−(q+r)`. An entry stored at generation `i` (after `i` doublings) with
//! `F_i` bits contributes the same to the rate at every later generation:
//! the entries of generation `i` add `α_i·2^−F_i` to the mean number of
//! matches, where `α_i` is the load they added to the table of their own
//! generation. When the remainder runs out (a *void* entry, after `F_i`
//! more doublings) the entry matches every probe of its quotient, and a
//! doubling copies it to both children: the contribution is still
//! `α_i·2^−F_i`, and the copies fill a fraction `α_i·2^−F_i` of the slots.
//!
//! So a rate `ε` holds at every size if the generations' shares of the
//! budget `Λ = −ln(1 − ε)` sum to at most `Λ`: here generation 0 (the table
//! as first sized, filled to the maximum load `α`) gets `Λ/2`, and
//! generation `i ≥ 1` (which adds at most `α/2` to a table twice the size
//! of the one before) gets `Λ/2 · 6/(π² i²)` (the shares of `1/i²` sum to
//! `π²/6`). `F_i = ⌈log2(α_i/share_i)⌉`, about `log2(1/ε) + 2 log2 i + 1`:
//! the slots widen by about 2 bits every time the filter has grown 4-fold
//! — InfiniFilter's widening regime, the one of its schemes whose rate
//! stays bounded at every size.

use std::f64::consts::PI;

use crate::error::{ParamError, check_fpr};

/// Metadata bits per slot: the `occupieds` and `runends` bits, and one
/// 8-bit offset per 64-slot block (Pandey et al. 2017, §3:
/// `r + 2.125` bits per slot).
pub const METADATA_BITS_PER_SLOT: f64 = 2.125;

/// The false-positive rate of a filter of `remainder_bits`-bit remainders
/// at load `load`: `1 − e^{−α·2^−r}` (Pandey et al. 2017, §3: at most
/// `α·2^−r`).
///
/// NaN if `load` is not in `[0, 1]`.
///
/// ```
/// use bloomlab_core::theory::quotient::fpr;
///
/// // 7-bit remainders at 95% load: 1 − e^{−0.95/128} = 0.739%.
/// assert!((fpr(0.95, 7) - 0.007394).abs() < 1e-6);
/// ```
pub fn fpr(load: f64, remainder_bits: u32) -> f64 {
    if !(0.0..=1.0).contains(&load) {
        return f64::NAN;
    }
    -(-load * (-f64::from(remainder_bits)).exp2()).exp_m1()
}

/// The false-positive rate of a table of `2^log2_slots` canonical slots
/// whose entries have, `entries_by_length[L]` of them, `L`-bit remainders
/// (entries of several lengths, after expansions): `1 − e^{−λ}` with
/// `λ = Σ_L c_L · 2^−(q+L)`, the mean number of entries a probe matches.
///
/// ```
/// use bloomlab_core::theory::quotient::{fpr, fpr_of_entries};
///
/// // 95 entries of 7 bits in 128 slots: the load formula.
/// let mut lengths = [0u64; 8];
/// lengths[7] = 95;
/// assert!((fpr_of_entries(7, &lengths) - fpr(95.0 / 128.0, 7)).abs() < 1e-15);
/// // A void entry (no remainder left) matches every probe of its quotient.
/// assert_eq!(fpr_of_entries(1, &[2]), 1.0 - (-1.0f64).exp());
/// ```
pub fn fpr_of_entries(log2_slots: u32, entries_by_length: &[u64]) -> f64 {
    let lambda: f64 = entries_by_length
        .iter()
        .enumerate()
        .map(|(len, &count)| count as f64 * (-(f64::from(log2_slots) + len as f64)).exp2())
        .sum();
    -(-lambda).exp_m1()
}

/// The fewest remainder bits (at least 1) whose rate at load `load` is at
/// most `eps`: the least `r` with `α·2^−r ≤ −ln(1 − ε)`.
///
/// # Errors
///
/// [`ParamError::InvalidFpr`] for a rate outside (0, 1). A `load` outside
/// `(0, 1]` gives 1 bit, the least.
///
/// ```
/// use bloomlab_core::theory::quotient::remainder_bits;
///
/// // 0.95/2^7 = 0.0074 ≤ −ln(0.99) = 0.01005 < 0.95/2^6.
/// assert_eq!(remainder_bits(0.95, 0.01)?, 7);
/// assert_eq!(remainder_bits(0.5, 0.01)?, 6);
/// # Ok::<(), bloomlab_core::ParamError>(())
/// ```
/// A rate no 64-bit slot reaches gives 65 bits at once (a subnormal rate
/// included):
///
/// ```
/// use bloomlab_core::theory::quotient::remainder_bits;
///
/// assert_eq!(remainder_bits(0.5, 5e-324)?, 65);
/// assert_eq!(remainder_bits(0.95, 1e-300)?, 65);
/// # Ok::<(), bloomlab_core::ParamError>(())
/// ```
pub fn remainder_bits(load: f64, eps: f64) -> Result<u32, ParamError> {
    let budget = lambda_budget(check_fpr(eps)?);
    Ok(bits_for_share(load, budget))
}

/// The mean number of matches a rate `eps` allows: `Λ = −ln(1 − ε)`.
fn lambda_budget(eps: f64) -> f64 {
    -(-eps).ln_1p()
}

/// The least `F ≥ 1` with `load·2^−F ≤ share`, or 65 (more than any
/// slot holds) where that takes more than 64 bits: a subnormal share puts
/// `load/share` at infinity, and counting down from there would take
/// billions of steps.
fn bits_for_share(load: f64, share: f64) -> u32 {
    if !(load > 0.0 && load <= 1.0) {
        return 1;
    }
    let mut bits = (load / share).log2().ceil().clamp(1.0, 65.0) as u32;
    // The logarithm's rounding, either way.
    while bits > 1 && load * (-f64::from(bits - 1)).exp2() <= share {
        bits -= 1;
    }
    while bits < 65 && load * (-f64::from(bits)).exp2() > share {
        bits += 1;
    }
    bits
}

/// Bits of table per item at load `load`: `(r + 2.125)/α` (Pandey et al.
/// 2017, §3), without the slots past the canonical ones that absorb the
/// last runs (about `10·√(2^q)`).
///
/// NaN if `load` is not in `(0, 1]`.
///
/// ```
/// use bloomlab_core::theory::quotient::bits_per_item;
///
/// assert!((bits_per_item(7, 0.95) - 9.605).abs() < 1e-3);
/// ```
pub fn bits_per_item(slot_bits: u32, load: f64) -> f64 {
    if !(load > 0.0 && load <= 1.0) {
        return f64::NAN;
    }
    (f64::from(slot_bits) + METADATA_BITS_PER_SLOT) / load
}

/// The share of the budget `Λ = −ln(1 − ε)` of the entries stored at
/// `generation` of a growing filter: `Λ/2` for generation 0, `Λ/2 ·
/// 6/(π² i²)` for generation `i ≥ 1` (see the module's docs). The shares
/// of every generation sum to `Λ`.
///
/// NaN for a rate outside (0, 1).
///
/// ```
/// use bloomlab_core::theory::quotient::growth_share;
///
/// let budget = -(0.99f64).ln();
/// assert!((growth_share(0.01, 0) - budget / 2.0).abs() < 1e-15);
/// let sum: f64 = (0..100_000).map(|i| growth_share(0.01, i)).sum();
/// assert!(sum < budget && sum > budget * 0.99999);
/// ```
pub fn growth_share(eps: f64, generation: u32) -> f64 {
    if check_fpr(eps).is_err() {
        return f64::NAN;
    }
    let half = lambda_budget(eps) / 2.0;
    if generation == 0 {
        half
    } else {
        let i = f64::from(generation);
        half * 6.0 / (PI * PI * i * i)
    }
}

/// The load the entries of `generation` add to the table of their
/// generation, at most: `α` for generation 0 (filled to the maximum load),
/// `α/2` for each later one (from half full, after a doubling, to full).
pub fn growth_load(max_load: f64, generation: u32) -> f64 {
    if generation == 0 {
        max_load
    } else {
        max_load / 2.0
    }
}

/// The fingerprint bits an entry stored at `generation` of a growing filter
/// gets, for a rate `eps` at every size and maximum load `max_load`:
/// `F_i = ⌈log2(α_i / share_i)⌉` ([`growth_load`], [`growth_share`]).
///
/// # Errors
///
/// [`ParamError::InvalidFpr`] for a rate outside (0, 1). A `max_load`
/// outside `(0, 1]` gives 1 bit.
///
/// ```
/// use bloomlab_core::theory::quotient::growth_fingerprint_bits;
///
/// // ε = 1%, α = 95%: Λ/2 = 0.005025 → 0.95/0.005025 = 189.0 → 8 bits;
/// // generation 1: 0.475/(0.005025 · 0.6079) = 155.5 → 8; generation 2:
/// // four times that, 622 → 10; generation 10: 15,549 → 14.
/// let bits: Vec<u32> = [0, 1, 2, 3, 10]
///     .iter()
///     .map(|&i| growth_fingerprint_bits(0.01, 0.95, i))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(bits, [8, 8, 10, 11, 14]);
/// # Ok::<(), bloomlab_core::ParamError>(())
/// ```
pub fn growth_fingerprint_bits(
    eps: f64,
    max_load: f64,
    generation: u32,
) -> Result<u32, ParamError> {
    check_fpr(eps)?;
    Ok(bits_for_share(
        growth_load(max_load, generation),
        growth_share(eps, generation),
    ))
}

/// The mean number of entries a probe matches in a growing filter after
/// `expansions` doublings, with the last generation full: `Σ_{i ≤ e}
/// α_i·2^−F_i`, each generation at its [`growth_load`] with its
/// [`growth_fingerprint_bits`]. At most `Λ = −ln(1 − ε)` at every `e`.
///
/// NaN for a rate outside (0, 1).
pub fn growth_lambda(eps: f64, max_load: f64, expansions: u32) -> f64 {
    (0..=expansions)
        .map(|i| match growth_fingerprint_bits(eps, max_load, i) {
            Ok(bits) => growth_load(max_load, i) * (-f64::from(bits)).exp2(),
            Err(_) => f64::NAN,
        })
        .sum()
}

/// The false-positive rate of a growing filter after `expansions`
/// doublings, with the last generation full: `1 − e^{−λ}`
/// ([`growth_lambda`]); at most `eps` at every size.
///
/// ```
/// use bloomlab_core::theory::quotient::growth_fpr;
///
/// // 1% promised: 1 − e^{−0.95/256} = 0.370% at first; after 10
/// // doublings (1,024 times the size), with F = 8, 8, 10, 11, 12, 12, 13,
/// // 13, 14, 14, 14: λ = 0.95/256 + 0.475 · (1/256 + 1/1024 + …) =
/// // 0.006697, a rate of 0.667%.
/// assert!((growth_fpr(0.01, 0.95, 0) - 0.003704).abs() < 1e-6);
/// assert!((growth_fpr(0.01, 0.95, 10) - 0.006675).abs() < 1e-6);
/// assert!((0..64).all(|e| growth_fpr(0.01, 0.95, e) <= 0.01));
/// ```
pub fn growth_fpr(eps: f64, max_load: f64, expansions: u32) -> f64 {
    -(-growth_lambda(eps, max_load, expansions)).exp_m1()
}

/// Bits per slot of a growing filter after `expansions` doublings: the
/// fingerprint of generation 0 as it is, `F_0`; after a doubling, the
/// newest generation's fingerprint and the one-bit delimiter that tells
/// how long each entry's remainder is (`F_e + 1`).
///
/// # Errors
///
/// As [`growth_fingerprint_bits`].
///
/// ```
/// use bloomlab_core::theory::quotient::growth_slot_bits;
///
/// assert_eq!(growth_slot_bits(0.01, 0.95, 0)?, 8);
/// assert_eq!(growth_slot_bits(0.01, 0.95, 10)?, 15);
/// # Ok::<(), bloomlab_core::ParamError>(())
/// ```
pub fn growth_slot_bits(eps: f64, max_load: f64, expansions: u32) -> Result<u32, ParamError> {
    let bits = growth_fingerprint_bits(eps, max_load, expansions)?;
    Ok(if expansions == 0 { bits } else { bits + 1 })
}

/// Bits of table per item of a growing filter after `expansions`
/// doublings at load `load`: `(slot bits + 2.125)/α`
/// ([`growth_slot_bits`], [`bits_per_item`]); between `α/2` (just after a
/// doubling) and `α` (just before the next).
///
/// NaN for a rate outside (0, 1) or a load outside `(0, 1]`.
///
/// ```
/// use bloomlab_core::theory::quotient::growth_bits_per_item;
///
/// // After 10 doublings, 15-bit slots: 18.0 bits per item full, 36.1
/// // just after the doubling.
/// assert!((growth_bits_per_item(0.01, 0.95, 10, 0.95) - 18.026).abs() < 1e-3);
/// assert!((growth_bits_per_item(0.01, 0.95, 10, 0.475) - 36.053).abs() < 1e-3);
/// ```
pub fn growth_bits_per_item(eps: f64, max_load: f64, expansions: u32, load: f64) -> f64 {
    growth_slot_bits(eps, max_load, expansions).map_or(f64::NAN, |bits| bits_per_item(bits, load))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_at_load_against_hand_computed_numbers() {
        // 1 − e^{−0.5/64} = 0.0077820.
        assert!((fpr(0.5, 6) - 0.007782).abs() < 1e-6);
        assert_eq!(fpr(0.0, 6), 0.0);
        assert!(fpr(1.5, 6).is_nan());
        assert!(fpr(f64::NAN, 6).is_nan());
    }

    #[test]
    fn remainder_bits_are_the_least_that_reach_the_rate() {
        for (load, eps, bits) in [
            (0.95, 0.01, 7),
            (0.95, 0.001, 10),
            (0.95, 0.5, 1),
            (1.0, 1.0 / 128.0, 7),
            (0.1, 0.3, 1),
        ] {
            assert_eq!(remainder_bits(load, eps), Ok(bits), "{load} {eps}");
            assert!(fpr(load, bits) <= eps);
            assert!(bits == 1 || fpr(load, bits - 1) > eps);
        }
        assert_eq!(remainder_bits(0.95, 0.0), Err(ParamError::InvalidFpr(0.0)));
        assert_eq!(remainder_bits(0.0, 0.01), Ok(1));
    }

    #[test]
    fn growth_keeps_the_rate_at_every_size() {
        for eps in [0.5, 0.1, 0.01, 1e-4, 1e-9] {
            let mut previous = 0.0;
            for e in 0..200 {
                let rate = growth_fpr(eps, 0.95, e);
                assert!(rate <= eps && rate >= previous, "{eps} after {e}: {rate}");
                previous = rate;
            }
        }
        // Hand-computed at 1%, 95%: Λ = 0.0100503; generation 0 has 8 bits,
        // λ_0 = 0.95/256 = 0.0037109; generation 1, 8 bits, adds
        // 0.475/256 = 0.0018555.
        let l1 = growth_lambda(0.01, 0.95, 1);
        assert!((l1 - (0.95 + 0.475) / 256.0).abs() < 1e-12);
    }

    #[test]
    fn slots_widen_by_about_two_bits_per_fourfold_growth() {
        let bits = |e| growth_fingerprint_bits(0.01, 0.95, e).unwrap();
        for e in 1..30u32 {
            assert!(bits(e + 1) >= bits(e));
            assert!(bits(4 * e) <= bits(e) + 5, "{e}");
        }
        assert_eq!(growth_slot_bits(0.01, 0.95, 1), Ok(9));
        assert!(growth_bits_per_item(0.01, 0.95, 3, 0.0).is_nan());
        assert!(growth_share(1.0, 3).is_nan());
    }
}
