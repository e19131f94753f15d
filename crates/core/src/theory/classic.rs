//! The classic Bloom filter (Bloom, "Space/time trade-offs in hash coding
//! with allowable errors", CACM 1970).

use crate::error::{ParamError, check_fpr};

/// The most hash functions a filter accepts. The optimum for a rate of
/// 10^-18 is 60; more only slows a filter down.
pub const MAX_HASHES: u32 = 64;

/// The false-positive rate after `n` distinct items in `m` bits with `k`
/// hashes: `(1 − e^{−kn/m})^k`.
///
/// The standard approximation (Fan, Cao, Almeida and Broder, "Summary cache",
/// 2000, Table 1), accurate to a relative `O(k/m)` for the table sizes a
/// filter is built with.
pub fn fpr(m: f64, n: f64, k: f64) -> f64 {
    if !(m > 0.0 && n >= 0.0 && k > 0.0) {
        return f64::NAN;
    }
    (1.0 - (-k * n / m).exp()).powf(k)
}

/// The rate of a probe when a fraction `fill` of the bits is set: `fill^k`.
///
/// Exact for a probe whose k positions are independent and uniform, given
/// the filter's present state; the estimate a full filter reports of itself.
pub fn fpr_from_fill(fill: f64, k: f64) -> f64 {
    if !((0.0..=1.0).contains(&fill) && k > 0.0) {
        return f64::NAN;
    }
    fill.powf(k)
}

/// Bits per item of an optimally configured filter at rate `p`:
/// `−ln p / (ln 2)^2` (≈ 9.585 at 1%).
pub fn bits_per_item(p: f64) -> f64 {
    if !(p > 0.0 && p < 1.0) {
        return f64::NAN;
    }
    -p.ln() / (std::f64::consts::LN_2 * std::f64::consts::LN_2)
}

/// Bits for `n` items at rate `p`: `⌊−n ln p / (ln 2)^2⌋`, truncated as Guava's
/// `optimalNumOfBits` does (at least 1).
///
/// # Errors
///
/// [`ParamError::ZeroItems`] for `n = 0`, [`ParamError::InvalidFpr`] for `p`
/// outside (0, 1).
pub fn optimal_num_bits(n: u64, p: f64) -> Result<u64, ParamError> {
    check_fpr(p)?;
    if n == 0 {
        return Err(ParamError::ZeroItems);
    }
    let bits = n as f64 * bits_per_item(p);
    if bits >= u64::MAX as f64 {
        return Err(ParamError::TooLarge {
            needed: u128::MAX,
            limit: u128::from(u64::MAX) / 8,
        });
    }
    Ok((bits as u64).max(1))
}

/// Hashes for `n` items in `m` bits: `max(1, round(m/n · ln 2))`, as Guava's
/// `optimalNumOfHashFunctions`, at most [`MAX_HASHES`].
///
/// # Errors
///
/// [`ParamError::ZeroItems`] or [`ParamError::ZeroBits`].
pub fn optimal_num_hashes(m: u64, n: u64) -> Result<u32, ParamError> {
    if n == 0 {
        return Err(ParamError::ZeroItems);
    }
    if m == 0 {
        return Err(ParamError::ZeroBits);
    }
    let k = (m as f64 / n as f64 * std::f64::consts::LN_2).round();
    Ok((k as u32).clamp(1, MAX_HASHES))
}

/// The estimate of how many distinct items a filter holds, from the number
/// `set` of its `m` bits that are set: `−(m/k) ln(1 − set/m)` (Swamidass and
/// Baldi, "Mathematical correction for fingerprint similarity measures", 2007).
///
/// Infinite when every bit is set: the filter can then hold any number.
pub fn estimate_count(m: f64, k: f64, set: f64) -> f64 {
    if !(m > 0.0 && k > 0.0 && (0.0..=m).contains(&set)) {
        return f64::NAN;
    }
    -(m / k) * (-set / m).ln_1p()
}

/// The fraction of its `m` bits a filter with `k` hashes is expected to
/// have set after `n` distinct items: `1 − e^{−kn/m}`.
///
/// ```
/// use bloomlab_core::theory::classic::expected_fill;
/// // At the optimal k = (m/n) ln 2, half the bits are set.
/// assert!((expected_fill(1_440.0, 100.0, 10.0) - 0.5).abs() < 0.001);
/// ```
pub fn expected_fill(m: f64, n: f64, k: f64) -> f64 {
    1.0 - (-k * n / m).exp()
}

/// Mean and standard deviation of the number of set bits when `balls`
/// positions fall uniformly and independently into `m` bits (the classical
/// occupancy problem: Johnson and Kotz, *Urn Models and Their Application*,
/// 1977, ch. 6): with `a = (1 − 1/m)^balls` and `b = (1 − 2/m)^balls`, mean
/// `m(1 − a)` and variance `m(m−1)b + ma − m²a²`.
///
/// ```
/// use bloomlab_core::theory::classic::occupancy;
/// // One ball: exactly one bit set, no spread.
/// let (mean, sd) = occupancy(64.0, 1.0);
/// assert!((mean - 1.0).abs() < 1e-12 && sd < 1e-6);
/// // k·n = m ln 2 balls set half the bits, with a spread of about √m/2 or less.
/// let (mean, sd) = occupancy(1e6, 1e6 * std::f64::consts::LN_2);
/// assert!((mean / 1e6 - 0.5).abs() < 1e-6 && sd > 100.0 && sd < 500.0);
/// ```
pub fn occupancy(m: f64, balls: f64) -> (f64, f64) {
    let a = (balls * (-1.0 / m).ln_1p()).exp();
    let b = (balls * (-2.0 / m).ln_1p()).exp();
    let var = m * (m - 1.0) * b + m * a - m * m * a * a;
    (m * (1.0 - a), var.max(0.0).sqrt())
}

/// The standard deviation of [`estimate_count`] after `n` distinct items
/// in `m` bits with `k` hashes: the [`occupancy`] spread of the bits set,
/// carried through the estimator by the delta method
/// (`dn̂/dX = 1 / (k(1 − X/m))`, with `1 − X/m` at its mean).
///
/// ```
/// use bloomlab_core::theory::classic::estimate_count_sd;
/// // 10,000 items at 1% (m = 95,851, k = 7): the estimate is good to about ±1%.
/// let sd = estimate_count_sd(95_851.0, 10_000.0, 7.0);
/// assert!(sd > 10.0 && sd < 100.0, "{sd}");
/// ```
pub fn estimate_count_sd(m: f64, n: f64, k: f64) -> f64 {
    let (mean, sd) = occupancy(m, k * n);
    sd / (k * (1.0 - mean / m))
}

/// How much one filter's false-positive rate differs from the next one's
/// built alike under another hash key: the standard deviation, over
/// filters, of the rate of a table of `m` bits into which `balls = k·n`
/// positions fell.
///
/// A filter passes a probe with probability `fill^k` for its own fill, and
/// the fill varies by the [`occupancy`] spread; to first order the rate
/// varies by `k·fill^(k−1)·sd(set)/m`. A binomial interval on probes of one
/// filter covers the probes; this covers the filter.
///
/// ```
/// use bloomlab_core::theory::classic::{fpr, rate_sd};
/// // 1M bits, 100,000 items, k = 7: about 0.8% rate, spread under 1% of it.
/// let (m, n, k) = (1e6, 1e5, 7.0);
/// let sd = rate_sd(m, k * n, k);
/// assert!(sd > 0.0 && sd < 0.01 * fpr(m, n, k), "{sd}");
/// ```
pub fn rate_sd(m: f64, balls: f64, k: f64) -> f64 {
    let fill = -((balls * (-1.0 / m).ln_1p()).exp_m1());
    k * fill.powf(k - 1.0) * occupancy(m, balls).1 / m
}

/// [`rate_sd`] for a partitioned table: `k` slices of `m` bits, one
/// position in each per item, `n` items. Its slices vary independently, so
/// the rate varies by `rate·√k·sd(set)/(m·fill)`.
///
/// ```
/// use bloomlab_core::theory::classic::partitioned_rate_sd;
/// assert_eq!(partitioned_rate_sd(1_000.0, 0.0, 7.0), 0.0);
/// assert!(partitioned_rate_sd(143_000.0, 100_000.0, 7.0) > 0.0);
/// ```
pub fn partitioned_rate_sd(m: f64, n: f64, k: f64) -> f64 {
    let fill = -((n * (-1.0 / m).ln_1p()).exp_m1());
    if fill <= 0.0 {
        return 0.0;
    }
    fill.powf(k) * k.sqrt() * occupancy(m, n).1 / (m * fill)
}

/// The smallest table for `n` items at rate `p` that keeps the promise:
/// the fewest whole 64-bit words `m` for which some `k` gives
/// [`fpr`]`(m, n, k) ≤ p`, with that best `k`.
///
/// The least rate over `k` only falls as words are added, so a binary search
/// over words finds `m` in `O(log m)` steps, whatever `n` (10^15 items end
/// as quickly as 10).
///
/// # Errors
///
/// As [`optimal_num_bits`]; [`ParamError::TooLarge`] when no table of at
/// most `2^64` bits reaches `p`.
pub fn smallest_size_for(n: u64, p: f64) -> Result<(u64, u32), ParamError> {
    let approx = optimal_num_bits(n, p)?;
    let too_large = ParamError::TooLarge {
        needed: u128::MAX,
        limit: u128::from(u64::MAX) / 8,
    };
    let passes = |words: u64| {
        let m = words * 64;
        fpr(m as f64, n as f64, f64::from(best_hashes(m, n))) <= p
    };
    // `approx` is the continuous optimum rounded down, which no whole k beats:
    // a word below it fails, so the search starts there.
    let max_words = u64::MAX / 64;
    let mut lo = (approx / 64).saturating_sub(1);
    let mut hi = approx.div_ceil(64).clamp(1, max_words);
    while !passes(hi) {
        if hi == max_words {
            return Err(too_large);
        }
        lo = hi;
        hi = hi.saturating_mul(2).min(max_words);
    }
    // Invariant: passes(hi), and lo == 0 or !passes(lo).
    hi = super::least_passing(lo, hi, passes);
    if lo > 0 && passes(lo) {
        hi = lo;
    }
    let m = hi * 64;
    Ok((m, best_hashes(m, n)))
}

/// The default sizing ([`size_for`]) lets a table grow by up to
/// `1/SLACK_PARTS` of the smallest table ([`smallest_size_for`]), about 3%,
/// to need fewer hashes.
pub const SLACK_PARTS: u64 = 32;

/// Table size and hash count for `n` items at rate `p` that keeps the
/// promise, as every bloomlab filter sized from a rate is built: the fewest
/// hashes `k` whose own fewest whole words `m` with [`fpr`]`(m, n, k) ≤ p`
/// are at most `1/`[`SLACK_PARTS`] more than the smallest table's.
///
/// The rate falls slowly near its best `k`, so a few hashes less cost
/// little room, and every hash less is a read less for each lookup that
/// finds its item (and for most that do not). At 1% the smallest table has
/// 9.59 bits an item and `k = 7`; `k = 6` needs 9.62 and `k = 5` 9.85 (2.7%
/// more, taken), `k = 4` 10.5 (9.7% more). At 0.1% `k` goes from 10 to 8
/// for 1.6% more, at 10^-4 from 13 to 10 for 2.8%.
///
/// ```
/// use bloomlab_core::theory::classic::{fpr, size_for, smallest_size_for};
///
/// let (m, k) = size_for(1_000_000, 0.01)?;
/// let (smallest, best_k) = smallest_size_for(1_000_000, 0.01)?;
/// assert_eq!((k, best_k), (5, 7));
/// assert!(fpr(m as f64, 1e6, 5.0) <= 0.01);
/// assert!((m as f64) < smallest as f64 * 1.03);
/// # Ok::<(), bloomlab_core::ParamError>(())
/// ```
///
/// # Errors
///
/// As [`smallest_size_for`].
pub fn size_for(n: u64, p: f64) -> Result<(u64, u32), ParamError> {
    let (smallest, best) = smallest_size_for(n, p)?;
    let lo = smallest / 64;
    let hi = lo.saturating_add(lo / SLACK_PARTS).min(u64::MAX / 64);
    let passes = |words: u64, k: u32| fpr((words * 64) as f64, n as f64, f64::from(k)) <= p;
    for k in 1..best {
        if !passes(hi, k) {
            continue;
        }
        // No `k` reaches `p` in fewer words than the smallest table's.
        let words = super::least_passing(lo.saturating_sub(1), hi, |w| passes(w, k));
        return Ok((words * 64, k));
    }
    Ok((smallest, best))
}

/// The `k` in `1..=MAX_HASHES` with the lowest [`fpr`] for `m` bits and `n` items.
fn best_hashes(m: u64, n: u64) -> u32 {
    let guess = (m as f64 / n as f64 * std::f64::consts::LN_2) as u32;
    [guess, guess + 1]
        .into_iter()
        .map(|k| k.clamp(1, MAX_HASHES))
        .min_by(|&a, &b| {
            fpr(m as f64, n as f64, f64::from(a)).total_cmp(&fpr(m as f64, n as f64, f64::from(b)))
        })
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_cache_table() {
        // Fan et al. 2000, Table 1: m/n = 10, k = 7 → 0.00819.
        assert!((fpr(10.0, 1.0, 7.0) - 0.00819).abs() < 5e-6);
        // m/n = 8, k = 6 → 0.0216 (same table).
        assert!((fpr(8.0, 1.0, 6.0) - 0.0216).abs() < 5e-5);
    }

    #[test]
    fn guava_sizing() {
        // Guava's BloomFilter.create(funnel, 1000, 0.001): 14,377 bits, 10 hashes.
        assert_eq!(optimal_num_bits(1_000, 0.001), Ok(14_377));
        assert_eq!(optimal_num_hashes(14_377, 1_000), Ok(10));
    }

    #[test]
    fn one_percent_needs_9_585_bits() {
        assert!((bits_per_item(0.01) - 9.585).abs() < 5e-4);
    }

    #[test]
    fn count_estimate() {
        // With no collisions, k·n bits set in a huge table estimate n.
        let m = 1e9;
        assert!((estimate_count(m, 7.0, 7_000.0) - 1_000.0).abs() < 0.01);
        // Half the bits set in m = 1000 with k = 1: n = 1000 ln 2 ≈ 693.1.
        assert!((estimate_count(1000.0, 1.0, 500.0) - 693.147).abs() < 1e-3);
        assert_eq!(estimate_count(64.0, 3.0, 64.0), f64::INFINITY);
        assert!(estimate_count(64.0, 3.0, 65.0).is_nan());
    }

    #[test]
    fn smallest_sizing_keeps_the_promise() {
        for &(n, p) in &[(1u64, 0.5), (1_000, 0.001), (100_000, 0.1), (100_000, 1e-6)] {
            let (m, k) = smallest_size_for(n, p).unwrap();
            assert_eq!(m % 64, 0);
            assert!(fpr(m as f64, n as f64, f64::from(k)) <= p, "n={n} p={p}");
            // No more than one word above what the next smaller size needed.
            let smaller = m - 64;
            if smaller > 0 {
                assert!((1..=MAX_HASHES).all(|k| fpr(smaller as f64, n as f64, f64::from(k)) > p));
            }
        }
    }

    #[test]
    fn smallest_sizing_matches_a_word_by_word_search() {
        for &n in &[1u64, 2, 7, 100, 1_000, 12_345, 100_000] {
            for &p in &[0.5, 0.1, 0.01, 0.001, 1e-4, 1e-6, 1e-9] {
                let (m, k) = smallest_size_for(n, p).unwrap();
                let mut words = 1u64;
                while fpr(
                    (words * 64) as f64,
                    n as f64,
                    f64::from(best_hashes(words * 64, n)),
                ) > p
                {
                    words += 1;
                }
                assert_eq!(
                    (m, k),
                    (words * 64, best_hashes(words * 64, n)),
                    "n = {n}, p = {p}"
                );
            }
        }
    }

    #[test]
    fn sizing_trades_at_most_a_32nd_for_the_fewest_hashes() {
        for &n in &[1u64, 2, 7, 100, 1_000, 12_345, 100_000] {
            for &p in &[0.5, 0.1, 0.01, 0.001, 1e-4, 1e-6, 1e-9] {
                let (m, k) = size_for(n, p).unwrap();
                let (smallest, best) = smallest_size_for(n, p).unwrap();
                let limit = smallest / 64 + smallest / 64 / SLACK_PARTS;
                let rate = |words: u64, k: u32| fpr((words * 64) as f64, n as f64, f64::from(k));
                let at = format!("n = {n}, p = {p}: m = {m}, k = {k}");
                assert!(
                    m % 64 == 0 && m / 64 <= limit && rate(m / 64, k) <= p,
                    "{at}"
                );
                assert!(k <= best, "{at}");
                // The fewest words for this k, word by word.
                assert!(m == 64 || rate(m / 64 - 1, k) > p, "{at}");
                // No fewer hashes reaches p within the slack.
                assert!((1..k).all(|fewer| rate(limit, fewer) > p), "{at}");
            }
        }
    }

    #[test]
    fn sizing_takes_fewer_hashes_near_their_best() {
        for &(p, k, best) in &[(0.01, 5, 7), (0.001, 8, 10), (1e-4, 10, 13)] {
            assert_eq!(size_for(1_000_000, p).unwrap().1, k, "p = {p}");
            assert_eq!(smallest_size_for(1_000_000, p).unwrap().1, best, "p = {p}");
        }
        // 9.85 bits an item at 1%, against the smallest table's 9.59.
        let (m, _) = size_for(1_000_000, 0.01).unwrap();
        assert_eq!(m.div_ceil(10_000), 985);
    }

    #[test]
    fn huge_sizes_end_quickly() {
        let (m, k) = smallest_size_for(1_000_000_000_000_000, 0.01).unwrap();
        assert_eq!(k, 7);
        assert!(fpr(m as f64, 1e15, 7.0) <= 0.01);
        let (m, k) = size_for(1_000_000_000_000_000, 0.01).unwrap();
        assert_eq!(k, 5);
        assert!(fpr(m as f64, 1e15, 5.0) <= 0.01);
        for size in [size_for, smallest_size_for] {
            assert!(matches!(
                size(u64::MAX, 1e-9),
                Err(ParamError::TooLarge { .. })
            ));
        }
    }

    #[test]
    fn extreme_inputs_return_at_once() {
        // Closed forms, and a binary search of at most 64 steps: no input
        // makes any of them loop.
        for &(n, p) in &[
            (1u64, 5e-324),
            (u64::MAX, 0.5),
            (u64::MAX, 5e-324),
            (1, 1.0 - 1e-16),
        ] {
            let _ = size_for(n, p);
            let _ = smallest_size_for(n, p);
            let _ = optimal_num_bits(n, p);
        }
        assert!(size_for(1, 5e-324).is_ok());
        for &x in &[0.0, 1e-300, 1.0, 1e300, f64::MAX, f64::INFINITY] {
            let r = fpr(x.max(1.0), x, 64.0);
            assert!(r.is_nan() || (0.0..=1.0).contains(&r), "{x}: {r}");
            let _ = (
                fpr_from_fill(x, x),
                bits_per_item(x),
                estimate_count(x, x, x),
            );
        }
        assert_eq!(optimal_num_hashes(u64::MAX, 1), Ok(MAX_HASHES));
    }

    #[test]
    fn bad_input_is_typed() {
        for p in [0.0, 1.0, -0.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(matches!(
                optimal_num_bits(10, p),
                Err(ParamError::InvalidFpr(_))
            ));
        }
        assert_eq!(optimal_num_bits(0, 0.01), Err(ParamError::ZeroItems));
        assert_eq!(optimal_num_hashes(0, 1), Err(ParamError::ZeroBits));
        assert_eq!(optimal_num_hashes(1, 0), Err(ParamError::ZeroItems));
        assert!(matches!(
            optimal_num_bits(u64::MAX, 1e-9),
            Err(ParamError::TooLarge { .. })
        ));
    }
}
