//! The scalable Bloom filter (Almeida, Baquero, Preguiça and Hutchison,
//! "Scalable Bloom Filters", Information Processing Letters 101(6), 2007).
//!
//! A scalable filter is a chain of classic filters ("layers"). Layer `i`
//! holds `n0·s^i` items (growth factor `s`) at rate `p_i = P0·r^i`
//! (tightening ratio `r`); a probe is a false positive when any layer
//! reports it, so the compound rate is `1 − Π(1 − p_i)`, which stays below
//! `Σ p_i < P0/(1 − r)` however many layers there are. Choosing
//! `P0 = P·(1 − r)` therefore holds the compound rate under the total rate
//! `P` the user asked for, at every size.
//!
//! ```
//! use bloomlab_core::theory::scalable;
//!
//! // One percent in total, tightening 0.85: layer 0 is built for 0.15%.
//! let p0 = scalable::layer_fpr(0.01, 0.85, 0);
//! assert!((p0 - 0.0015).abs() < 1e-15);
//! let rates: Vec<f64> = (0..40).map(|i| scalable::layer_fpr(0.01, 0.85, i)).collect();
//! assert!(scalable::compound_fpr(rates) < scalable::compound_bound(p0, 0.85));
//! ```

use crate::error::ParamError;
use crate::theory::classic;

/// The most layers [`total_bits`] adds up. A chain that grows by `s ≥ 2`
/// overflows a `u64` of capacity within 64 layers; only `s = 1` comes near.
pub const MAX_LAYERS: u64 = 1 << 16;

/// The rate layer `i` is built for when the whole chain must stay under
/// `total`: `total·(1 − r)·r^i` (Almeida et al. 2007, §4, with
/// `P0 = total·(1 − r)`).
///
/// With `r = 0.5` this is `total·0.5^(i+1)`, RedisBloom's schedule (its
/// `ERROR_TIGHTENING_RATIO` of 0.5, applied to the first layer too).
///
/// NaN unless `total` and `r` are both in (0, 1).
pub fn layer_fpr(total: f64, r: f64, i: u32) -> f64 {
    if !(total > 0.0 && total < 1.0 && r > 0.0 && r < 1.0) {
        return f64::NAN;
    }
    total * (1.0 - r) * r.powf(f64::from(i))
}

/// The rate of a chain of independent layers with rates `rates`: a probe
/// passes when any layer passes it, so `1 − Π(1 − p_i)` (Almeida et al.
/// 2007, §4). Zero for no layers.
///
/// Computed as `−expm1(Σ ln(1 − p_i))`, which keeps full precision when every
/// `p_i` is tiny. NaN if any rate is outside [0, 1].
pub fn compound_fpr<I: IntoIterator<Item = f64>>(rates: I) -> f64 {
    let mut log_pass = 0.0;
    for p in rates {
        if !(0.0..=1.0).contains(&p) {
            return f64::NAN;
        }
        log_pass += (-p).ln_1p();
    }
    -log_pass.exp_m1()
}

/// The bound on the compound rate of infinitely many layers whose rates
/// start at `p0` and shrink by `r`: `p0/(1 − r)` (Almeida et al. 2007, §4:
/// `P ≤ Σ P0·r^i = P0/(1 − r)`).
///
/// This is the bound a filter that is given `p0` as its rate (as
/// `growable-bloom-filter` is) ends up with: 6.7× `p0` at `r = 0.85`.
/// NaN unless `p0` is in (0, 1] and `r` in (0, 1).
pub fn compound_bound(p0: f64, r: f64) -> f64 {
    if !(p0 > 0.0 && p0 <= 1.0 && r > 0.0 && r < 1.0) {
        return f64::NAN;
    }
    p0 / (1.0 - r)
}

/// Items layer `i` holds: `n0·s^i`, or `None` if that overflows a `u64`.
pub fn layer_capacity(n0: u64, s: u32, i: u32) -> Option<u64> {
    u64::from(s).checked_pow(i)?.checked_mul(n0)
}

/// Bits and hash count of layer `i` of a chain that starts at `n0` items,
/// grows by `s` and keeps `total` with tightening `r`: the classic sizing
/// [`classic::size_for`] of [`layer_capacity`] items at [`layer_fpr`].
///
/// # Errors
///
/// [`ParamError::ZeroItems`] if the layer would hold no items (`n0 = 0`, or
/// `s = 0` past the first layer); [`ParamError::InvalidFpr`] if `total` or
/// `r` is outside (0, 1) (the layer's rate is then not a rate), or the rate
/// underflows to zero; [`ParamError::TooLarge`] if the layer's capacity or
/// size overflows.
pub fn layer_size(n0: u64, s: u32, total: f64, r: f64, i: u32) -> Result<(u64, u32), ParamError> {
    let (n, p) = layer_items_and_rate(n0, s, total, r, i)?;
    classic::size_for(n, p)
}

/// Layer `i`'s [`layer_capacity`] and [`layer_fpr`], checked: the rate is a
/// rate ([`ParamError::InvalidFpr`]) and the capacity fits a `u64`
/// ([`ParamError::TooLarge`]).
fn layer_items_and_rate(
    n0: u64,
    s: u32,
    total: f64,
    r: f64,
    i: u32,
) -> Result<(u64, f64), ParamError> {
    let p = layer_fpr(total, r, i);
    crate::error::check_fpr(p)?;
    let n = layer_capacity(n0, s, i).ok_or(ParamError::TooLarge {
        needed: u128::MAX,
        limit: u128::from(u64::MAX) / 8,
    })?;
    Ok((n, p))
}

/// How many layers a chain starting at `n0` and growing by `s` needs to hold
/// `n` items: the least `l ≥ 1` with `Σ_{i<l} n0·s^i ≥ n` (the first layer
/// exists before any item arrives, so `n = 0` needs one).
///
/// For `s ≥ 2` that is `⌈log_s(n·(s − 1)/n0 + 1)⌉`; computed exactly in
/// integers. `s = 1` gives `⌈n/n0⌉`.
///
/// # Errors
///
/// [`ParamError::ZeroItems`] if no number of layers holds `n`: `n0 = 0`, or
/// `s = 0` (every layer after the first holds nothing) with `n > n0`.
pub fn layers_for(n0: u64, s: u32, n: u64) -> Result<u64, ParamError> {
    if n0 == 0 {
        return Err(ParamError::ZeroItems);
    }
    match s {
        0 if n > n0 => Err(ParamError::ZeroItems),
        0 => Ok(1),
        1 => Ok(n.div_ceil(n0).max(1)),
        _ => {
            let mut layers = 0u64;
            let mut held = 0u64;
            let mut capacity = Some(n0);
            // At most 64 rounds: capacity at least doubles each time.
            loop {
                layers += 1;
                match capacity {
                    Some(c) => held = held.saturating_add(c),
                    None => held = u64::MAX,
                }
                if held >= n {
                    return Ok(layers);
                }
                capacity = capacity.and_then(|c| c.checked_mul(u64::from(s)));
            }
        }
    }
}

/// Bits of the first `layers` layers together (each sized by [`layer_size`]).
///
/// # Errors
///
/// As [`layer_size`], for the first layer that fails; [`ParamError::TooLarge`]
/// if the sum overflows; [`ParamError::TooManyLayers`] for more than
/// [`MAX_LAYERS`] layers.
pub fn total_bits(n0: u64, s: u32, total: f64, r: f64, layers: u64) -> Result<u64, ParamError> {
    if layers > MAX_LAYERS {
        return Err(ParamError::TooManyLayers {
            layers,
            max: MAX_LAYERS,
        });
    }
    let mut bits = 0u64;
    for i in 0..layers {
        // Past 2^32 layers every rate has long underflowed: layer_size fails first.
        let i = u32::try_from(i).map_err(|_| ParamError::InvalidFpr(0.0))?;
        let (m, _) = layer_size(n0, s, total, r, i)?;
        bits = bits.checked_add(m).ok_or(ParamError::TooLarge {
            needed: u128::MAX,
            limit: u128::from(u64::MAX) / 8,
        })?;
    }
    Ok(bits)
}

/// Bits a scalable filter holds after `n` items: [`total_bits`] of
/// [`layers_for`]`(n0, s, n)` layers. A layer is allocated only when an item
/// needs it, so at `n = n0·(s^l − 1)/(s − 1)` (every layer full) this is the
/// memory of exactly `l` layers.
///
/// # Errors
///
/// As [`layers_for`] and [`total_bits`].
pub fn bits_after(n0: u64, s: u32, total: f64, r: f64, n: u64) -> Result<u64, ParamError> {
    total_bits(n0, s, total, r, layers_for(n0, s, n)?)
}

/// Bits per item of a scalable filter after `n` items, from its parameters
/// alone: the layers [`layers_for`] says exist, each ideally sized
/// (`n_i·ln(1/p_i)/ln² 2` bits, no rounding to words or whole hashes), over
/// `n`. What the built chain holds ([`bits_after`]) differs from it only by
/// that rounding.
///
/// ```
/// use bloomlab_core::theory::scalable;
/// // One full layer of 1,000 items at p0 = 1% · (1 − 0.85): the classic ideal.
/// let one = scalable::ideal_bits_per_item(1_000, 2, 0.01, 0.85, 1_000)?;
/// assert!((one - (1.0f64 / 0.0015).ln() / 2f64.ln().powi(2)).abs() < 1e-9);
/// // Growing tenfold adds layers of tighter rates: more bits per item.
/// assert!(scalable::ideal_bits_per_item(1_000, 2, 0.01, 0.85, 10_000)? > one);
/// # Ok::<(), bloomlab_core::ParamError>(())
/// ```
///
/// # Errors
///
/// As [`layers_for`] and [`layer_size`]; [`ParamError::ZeroItems`] for `n = 0`.
pub fn ideal_bits_per_item(n0: u64, s: u32, total: f64, r: f64, n: u64) -> Result<f64, ParamError> {
    if n == 0 {
        return Err(ParamError::ZeroItems);
    }
    let layers = layers_for(n0, s, n)?;
    if layers > MAX_LAYERS {
        return Err(ParamError::TooManyLayers {
            layers,
            max: MAX_LAYERS,
        });
    }
    let mut bits = 0.0;
    for i in 0..layers as u32 {
        let (items, p) = layer_items_and_rate(n0, s, total, r, i)?;
        bits += items as f64 * -p.ln() / std::f64::consts::LN_2.powi(2);
    }
    Ok(bits / n as f64)
}

/// How many times the memory of a right-sized classic filter for `n` items
/// at `total` ([`classic::size_for`]) a scalable filter holds after `n`
/// items: [`bits_after`] over the classic size.
///
/// # Errors
///
/// As [`bits_after`], and [`ParamError::ZeroItems`] for `n = 0`.
pub fn memory_ratio(n0: u64, s: u32, total: f64, r: f64, n: u64) -> Result<f64, ParamError> {
    let (classic_bits, _) = classic::size_for(n, total)?;
    Ok(bits_after(n0, s, total, r, n)? as f64 / classic_bits as f64)
}

/// The memory ratio of [`memory_ratio`] with every layer ideally sized
/// (`−n·ln p / ln² 2` bits, no rounding to words or whole hashes) at the
/// moment the first `layers` layers are exactly full:
///
/// `Σ_{i<l} s^i·ln(1/p_i)  /  (Σ_{i<l} s^i · ln(1/P))`.
///
/// With `p_i = P(1 − r)r^i` the numerator grows by `ln(1/r)` per layer, so
/// the ratio creeps up with the number of layers rather than settling
/// (Almeida et al. 2007, §5, who find it modest for `s = 2`, `r` in 0.8–0.9).
///
/// NaN for `s < 2` as `f64`, `layers = 0`, or `total`, `r` outside (0, 1),
/// and once `s^layers` leaves `f64`'s range (past 1,024 layers at `s = 2`),
/// which also bounds the time taken.
pub fn ideal_memory_ratio(s: f64, total: f64, r: f64, layers: u32) -> f64 {
    if !(s >= 2.0 && layers > 0 && total > 0.0 && total < 1.0 && r > 0.0 && r < 1.0) {
        return f64::NAN;
    }
    let (mut bits, mut items) = (0.0, 0.0);
    for i in 0..layers {
        let weight = s.powf(f64::from(i));
        if !weight.is_finite() {
            return f64::NAN;
        }
        bits += weight * -layer_fpr(total, r, i).ln();
        items += weight;
    }
    bits / (items * -total.ln())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_rates_by_hand() {
        // P = 1%, r = 0.85: 0.01 · 0.15 · 0.85^i.
        assert!((layer_fpr(0.01, 0.85, 0) - 0.0015).abs() < 1e-16);
        assert!((layer_fpr(0.01, 0.85, 3) - 0.000_921_187_5).abs() < 1e-15);
        // RedisBloom's schedule (r = 0.5): 0.5%, 0.25%, 0.125%, …
        assert!((layer_fpr(0.01, 0.5, 0) - 0.005).abs() < 1e-16);
        assert!((layer_fpr(0.01, 0.5, 2) - 0.00125).abs() < 1e-16);
        for (p, r) in [
            (0.0, 0.5),
            (1.0, 0.5),
            (0.01, 0.0),
            (0.01, 1.0),
            (f64::NAN, 0.5),
        ] {
            assert!(layer_fpr(p, r, 0).is_nan(), "{p} {r}");
        }
    }

    #[test]
    fn compound_rate_by_hand() {
        assert_eq!(compound_fpr([]), 0.0);
        // 1 − 0.99 · 0.98 = 0.0298.
        assert!((compound_fpr([0.01, 0.02]) - 0.0298).abs() < 1e-15);
        assert_eq!(compound_fpr([0.0, 1.0]), 1.0);
        // Rates far below f64's epsilon still add up.
        assert!((compound_fpr([1e-18, 1e-18]) - 2e-18).abs() < 1e-30);
        assert!(compound_fpr([0.5, 1.5]).is_nan());
        assert!(compound_fpr([f64::NAN]).is_nan());
    }

    #[test]
    fn the_bound_holds_at_every_length() {
        assert!((compound_bound(0.0015, 0.85) - 0.01).abs() < 1e-15);
        // growable-bloom-filter's rate p with r = 0.8515625 ends near 6.7·p.
        assert!((compound_bound(0.01, 0.851_562_5) - 0.067_368).abs() < 1e-6);
        for &(p, r) in &[(0.01, 0.85), (0.001, 0.9), (0.01, 0.5), (0.3, 0.8)] {
            let mut rates = Vec::new();
            for i in 0..2_000 {
                rates.push(layer_fpr(p, r, i));
                assert!(compound_fpr(rates.iter().copied()) < p, "{p} {r} {i}");
            }
            // The compound rate approaches P from below: 1 − Π(1 − p_i) falls
            // short of Σ p_i = P only by the pairwise terms, at most P²/2.
            let all = compound_fpr(rates);
            assert!(all > p - p * p / 2.0, "{p} {r}: {all}");
        }
        assert!(compound_bound(0.0, 0.5).is_nan());
        assert!(compound_bound(0.01, 1.0).is_nan());
    }

    #[test]
    fn capacities_and_layer_counts() {
        assert_eq!(layer_capacity(1_000, 2, 3), Some(8_000));
        assert_eq!(layer_capacity(1_000, 4, 2), Some(16_000));
        assert_eq!(layer_capacity(1, 2, 63), Some(1 << 63));
        assert_eq!(layer_capacity(1, 2, 64), None);
        assert_eq!(layer_capacity(3, 2, 63), None);

        // s = 2 from 1,000: the layers fill at 1k, 3k, 7k, …, 1,023,000.
        assert_eq!(layers_for(1_000, 2, 0), Ok(1));
        assert_eq!(layers_for(1_000, 2, 1_000), Ok(1));
        assert_eq!(layers_for(1_000, 2, 1_001), Ok(2));
        assert_eq!(layers_for(1_000, 2, 3_000), Ok(2));
        assert_eq!(layers_for(1_000, 2, 3_001), Ok(3));
        assert_eq!(layers_for(1_000, 2, 1_000_000), Ok(10));
        assert_eq!(layers_for(1_000, 2, 1_023_000), Ok(10));
        assert_eq!(layers_for(1_000, 2, 1_023_001), Ok(11));
        // s = 4: 1k, 5k, 21k, 85k.
        assert_eq!(layers_for(1_000, 4, 21_000), Ok(3));
        assert_eq!(layers_for(1_000, 4, 21_001), Ok(4));
        // Every u64 fits in 64 layers of one item doubling.
        assert_eq!(layers_for(1, 2, u64::MAX), Ok(64));
        assert_eq!(layers_for(10, 1, 25), Ok(3));
        assert_eq!(layers_for(10, 0, 10), Ok(1));
        assert_eq!(layers_for(10, 0, 11), Err(ParamError::ZeroItems));
        assert_eq!(layers_for(0, 2, 1), Err(ParamError::ZeroItems));
    }

    #[test]
    fn layer_sizes_by_hand() {
        // Layer 0 of (1,000 items, 1%, r = 0.85) is a classic filter for 1,000
        // items at 0.15%: −ln(0.0015)/ln²2 = 13.534 bits per item, 13,533 bits,
        // rounded up to 212 words = 13,568 bits, the smallest table; k = 9
        // gives (1 − e^{−9/13.568})^9 = 0.001480 ≤ 0.0015, while 211 words
        // give 0.001526 with k = 9 and 0.001534 with k = 10. Within 1/32
        // more (218 words, 13,952 bits), k = 7 gives 0.001487 and k = 6
        // 0.001823; 217 words give 0.001525 with k = 7.
        assert_eq!(classic::smallest_size_for(1_000, 0.001_5), Ok((13_568, 9)));
        assert_eq!(layer_size(1_000, 2, 0.01, 0.85, 0), Ok((13_952, 7)));
        // Layer 1: 2,000 items at 0.1275%.
        assert_eq!(
            layer_size(1_000, 2, 0.01, 0.85, 1),
            classic::size_for(2_000, 0.001_275)
        );
        assert_eq!(bits_after(1_000, 2, 0.01, 0.85, 1_000), Ok(13_952));
        let (m1, _) = layer_size(1_000, 2, 0.01, 0.85, 1).unwrap();
        assert_eq!(bits_after(1_000, 2, 0.01, 0.85, 3_000), Ok(13_952 + m1));
        assert_eq!(total_bits(1_000, 2, 0.01, 0.85, 0), Ok(0));
    }

    #[test]
    fn memory_ratio_follows_the_ideal() {
        // Hand-computed ideal ratio, s = 2, P = 1%, r = 0.85, 10 full layers:
        // Σ 2^i (6.502290 + 0.162519 i) / (1023 · 4.605170)
        //   = (1023 · 6.502290 + 0.162519 · 8194) / 4711.09 = 1.69467.
        let ideal = ideal_memory_ratio(2.0, 0.01, 0.85, 10);
        assert!((ideal - 1.69467).abs() < 1e-4, "{ideal}");
        // One layer: ln(1/0.0015)/ln(1/0.01) = 1.41196.
        assert!((ideal_memory_ratio(2.0, 0.01, 0.85, 1) - 1.41196).abs() < 1e-4);
        // The real sizes round each layer up to whole words and whole hashes,
        // which costs at most 1 + 64/m in bits and about 1% for integer k.
        for &p in &[0.01, 0.001] {
            for layers in 1..=10u32 {
                let n = 1_000 * ((1u64 << layers) - 1);
                let real = memory_ratio(1_000, 2, p, 0.85, n).unwrap();
                let ideal = ideal_memory_ratio(2.0, p, 0.85, layers);
                assert!(
                    (real / ideal - 1.0).abs() < 0.02,
                    "p={p} layers={layers}: {real} vs {ideal}"
                );
                assert!(real < 2.0, "p={p} layers={layers}: {real}");
            }
        }
        assert!(ideal_memory_ratio(1.0, 0.01, 0.85, 3).is_nan());
        assert!(ideal_memory_ratio(2.0, 0.01, 0.85, 0).is_nan());
        assert_eq!(
            memory_ratio(1_000, 2, 0.01, 0.85, 0),
            Err(ParamError::ZeroItems)
        );
    }

    #[test]
    fn bad_input_is_typed() {
        assert_eq!(layer_size(0, 2, 0.01, 0.85, 0), Err(ParamError::ZeroItems));
        assert_eq!(layer_size(10, 0, 0.01, 0.85, 1), Err(ParamError::ZeroItems));
        assert!(matches!(
            layer_size(10, 2, 0.01, 1.0, 0),
            Err(ParamError::InvalidFpr(_))
        ));
        assert!(matches!(
            layer_size(10, 2, 1.5, 0.85, 0),
            Err(ParamError::InvalidFpr(_))
        ));
        assert!(matches!(
            layer_size(10, 2, 0.01, 0.85, 64),
            Err(ParamError::TooLarge { .. })
        ));
        // r^i underflows to zero after about 150 layers: a typed error, fast.
        assert!(matches!(
            total_bits(1, 1, 0.01, 0.01, 1_000),
            Err(ParamError::InvalidFpr(_))
        ));
    }

    #[test]
    fn extreme_chains_end_quickly() {
        // s = 1 with r just below 1: rates never underflow within reach, so
        // only the layer limit stops the sum.
        let r = 1.0 - 1e-16;
        assert_eq!(
            total_bits(1, 1, 0.5, r, u64::MAX),
            Err(ParamError::TooManyLayers {
                layers: u64::MAX,
                max: MAX_LAYERS
            })
        );
        assert!(bits_after(1, 1, 0.5, r, u64::MAX).is_err());
        let bits = total_bits(1, 1, 0.5, r, MAX_LAYERS).unwrap();
        assert!(bits >= 64 * MAX_LAYERS, "{bits}");
        assert!(ideal_memory_ratio(2.0, 0.01, 0.85, u32::MAX).is_nan());
        assert!(ideal_memory_ratio(1e300, 0.01, 0.85, 3).is_nan());
        assert!(ideal_memory_ratio(2.0, 0.01, 0.85, 1_000).is_finite());
        assert!(memory_ratio(u64::MAX, 4, 1e-300, 1e-300, u64::MAX).is_err());
    }
}
