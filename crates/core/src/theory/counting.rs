//! The counting Bloom filter: m small counters instead of m bits, so that an
//! item can be removed by decrementing what its insert incremented (Fan, Cao,
//! Almeida and Broder, "Summary cache: a scalable wide-area web cache sharing
//! protocol", IEEE/ACM Transactions on Networking, 2000, section V.C).
//!
//! A counting filter answers exactly as a classic filter whose bit i is set
//! when counter i is non-zero, so its false-positive rate is
//! [`classic::fpr`](super::classic::fpr) and it takes `width` times the
//! memory ([`memory_bits`], [`bits_per_item`]).
//!
//! What a counting filter adds is a failure mode: a counter of `width` bits
//! holds at most `2^width − 1`. bloomlab's counters *saturate* there and stay
//! saturated (they are never incremented or decremented again), which can only
//! keep a position set that should have been cleared. The functions below say
//! how likely that is: the number of increments a counter receives is
//! Binomial(n·k, 1/m) ([`counter_tail`]), close to Poisson(n·k/m)
//! ([`counter_tail_poisson`]), and Fan et al. bound the chance that any counter
//! reaches `j` at the optimal k by `m·(e·ln 2 / j)^j` ([`fan_bound`]), which is
//! `1.37e-15 · m` for `j = 16`.

use std::f64::consts::{E, LN_2};

/// The widest counter, in bits, the theory below is defined for (the widest
/// a bloomlab counting filter offers).
const MAX_WIDTH: u32 = 16;

/// The largest count [`counter_tail`] and [`counter_tail_poisson`] take the
/// tail from: they sum `at_least` terms, and the widest counter saturates at
/// 65,535. Past this they return NaN rather than run for an unbounded time.
pub const MAX_THRESHOLD: u64 = 1 << 16;

/// Bits of a table of `m` counters of `width` bits: `m · width`, that is
/// `width` times a classic filter of `m` bits.
///
/// NaN for a negative `m` or a width outside `1..=16`.
pub fn memory_bits(m: f64, width: u32) -> f64 {
    if !(m >= 0.0 && (1..=MAX_WIDTH).contains(&width)) {
        return f64::NAN;
    }
    m * f64::from(width)
}

/// Bits per item of an optimally sized counting filter at rate `p` with
/// counters of `width` bits: `width · (−ln p / (ln 2)^2)`; 38.3 at 1% with the
/// 4-bit counters Fan et al. recommend.
pub fn bits_per_item(p: f64, width: u32) -> f64 {
    if !(1..=MAX_WIDTH).contains(&width) {
        return f64::NAN;
    }
    f64::from(width) * super::classic::bits_per_item(p)
}

/// The largest value a counter of `width` bits holds, `2^width − 1`: where a
/// bloomlab counter saturates. `None` for a width outside `1..=16`.
pub fn saturation_value(width: u32) -> Option<u64> {
    (1..=MAX_WIDTH)
        .contains(&width)
        .then(|| (1u64 << width) - 1)
}

/// The probability that one given counter of `m` receives at least `at_least`
/// of the `n·k` increments of `n` inserts with `k` hashes each: the exact
/// upper tail of Binomial(n·k, 1/m), for positions that are independent and
/// uniform.
///
/// Summed term by term in log space, so tails far below `f64::EPSILON` keep
/// their relative precision; `O(at_least)` time, so thresholds are limited to
/// [`MAX_THRESHOLD`] (65,536: the counter widths a filter has need at most
/// 65,535). NaN when `m` or `k` is 0, `n·k` overflows, or `at_least` is over
/// [`MAX_THRESHOLD`].
pub fn counter_tail(m: u64, n: u64, k: u32, at_least: u64) -> f64 {
    if m == 0 || k == 0 || at_least > MAX_THRESHOLD {
        return f64::NAN;
    }
    let Some(trials) = n.checked_mul(u64::from(k)) else {
        return f64::NAN;
    };
    if at_least == 0 {
        return 1.0;
    }
    if at_least > trials {
        return 0.0;
    }
    if m == 1 {
        // Every increment lands on the one counter.
        return 1.0;
    }
    let p = 1.0 / m as f64;
    let log_odds = p.ln() - (-p).ln_1p();
    let nf = trials as f64;
    // ln P(X = i + 1) − ln P(X = i).
    let step = |i: u64| ((nf - i as f64) / (i as f64 + 1.0)).ln() + log_odds;
    let log_p0 = nf * (-p).ln_1p();
    tail_from_steps(log_p0, nf * p, at_least, trials, step)
}

/// The probability that a Poisson(`load`) count is at least `at_least`: the
/// limit of [`counter_tail`] for large `m` with `load = n·k/m` fixed.
///
/// NaN for a negative or non-finite load, or `at_least` over [`MAX_THRESHOLD`].
pub fn counter_tail_poisson(load: f64, at_least: u64) -> f64 {
    if !(load >= 0.0 && load.is_finite()) || at_least > MAX_THRESHOLD {
        return f64::NAN;
    }
    if at_least == 0 {
        return 1.0;
    }
    if load == 0.0 {
        return 0.0;
    }
    let ln_load = load.ln();
    let step = |i: u64| ln_load - (i as f64 + 1.0).ln();
    tail_from_steps(-load, load, at_least, u64::MAX, step)
}

/// `P(X ≥ j)` for a unimodal distribution on `0..=max`, given `ln P(X = 0)`,
/// its mean, and the log-ratio of successive terms. Streams the terms: no
/// allocation, `O(j)` time plus the few terms past `j` that still count.
fn tail_from_steps(log_p0: f64, mean: f64, j: u64, max: u64, step: impl Fn(u64) -> f64) -> f64 {
    let lower_is_small = (j as f64) <= mean;
    // Running log-sum-exp of the terms below j: `scaled · e^top`.
    let (mut top, mut scaled) = (f64::NEG_INFINITY, 0.0f64);
    let mut lp = log_p0;
    for i in 0..j {
        if lower_is_small && lp > f64::NEG_INFINITY {
            if lp > top {
                scaled = scaled * (top - lp).exp() + 1.0;
                top = lp;
            } else {
                scaled += (lp - top).exp();
            }
        }
        lp += step(i);
    }
    if lower_is_small {
        // The lower tail 0..j is the small side: 1 − its sum.
        return (1.0 - scaled * top.exp()).clamp(0.0, 1.0);
    }
    // Past the mean the terms fall faster than geometrically: sum until they
    // no longer change the total.
    let first = lp;
    if first == f64::NEG_INFINITY {
        return 0.0;
    }
    let mut sum = 1.0f64;
    let mut i = j;
    while i < max {
        lp += step(i);
        i += 1;
        let rel = (lp - first).exp();
        sum += rel;
        if rel < sum * 1e-18 {
            break;
        }
    }
    (first.exp() * sum).min(1.0)
}

/// The expected number of counters, of `m`, that have received at least
/// `2^width − 1` increments after `n` inserts with `k` hashes: exactly
/// `m ·` [`counter_tail`]`(m, n, k, 2^width − 1)` by linearity. Without
/// removes this is the expected `saturated_counters()` of a bloomlab
/// counting filter, and it is also the union bound on the probability that
/// any counter saturates.
///
/// NaN for a width outside `1..=16` and as [`counter_tail`].
pub fn expected_saturated(m: u64, n: u64, k: u32, width: u32) -> f64 {
    match saturation_value(width) {
        Some(max) => m as f64 * counter_tail(m, n, k, max),
        None => f64::NAN,
    }
}

/// The probability that at least one of `m` counters of `width` bits
/// saturates (receives `2^width − 1` increments or more) after `n` inserts
/// with `k` hashes: `1 − (1 − q)^m` with `q =` [`counter_tail`]`(m, n, k, 2^width − 1)`.
///
/// The counters' loads are negatively associated (Dubhashi and Ranjan,
/// "Balls and bins: a study in negative dependence", 1998), so this
/// independence formula is a lower bound, and [`expected_saturated`] (`m·q`)
/// an upper bound; the two agree to a relative `m·q/2` when the probability
/// is small, which is the only case a filter is built for.
///
/// NaN as [`expected_saturated`].
pub fn saturation_probability(m: u64, n: u64, k: u32, width: u32) -> f64 {
    let Some(max) = saturation_value(width) else {
        return f64::NAN;
    };
    let q = counter_tail(m, n, k, max);
    -(m as f64 * (-q).ln_1p()).exp_m1()
}

/// Fan et al.'s bound on the probability that any of `m` counters reaches
/// `at_least` when `k` is optimal (`k = (m/n) ln 2`):
/// `m · (e·ln 2 / at_least)^at_least` (Summary Cache, 2000, section V.C).
///
/// For `at_least = 16`, the value a 4-bit counter cannot hold, this is the
/// published `1.37e-15 · m`. A bloomlab 4-bit counter saturates one
/// increment earlier, at 15, where the bound is `3.06e-14 · m`.
///
/// NaN for a negative `m` or `at_least < 1`.
pub fn fan_bound(m: f64, at_least: f64) -> f64 {
    if !(m >= 0.0 && at_least >= 1.0) {
        return f64::NAN;
    }
    m * (E * LN_2 / at_least).powf(at_least)
}

/// An upper bound on the false-positive rate of a counting filter of `m`
/// counters and `k` hashes that holds `n` items and has `stuck` counters that
/// are non-zero only because they saturated:
/// `min(1, 1 − e^{−kn/m} + stuck/m)^k`.
///
/// A probe passes when all its positions are non-zero; saturation can add at
/// most `stuck` non-zero positions to the `m(1 − e^{−kn/m})` expected of `n`
/// items, so it can raise the rate above [`classic::fpr`](super::classic::fpr)
/// by at most about `k · (stuck/m) · fill^(k−1)`. With no removes no counter
/// is stuck, and the bound is the classic rate.
///
/// NaN outside `m > 0`, `n ≥ 0`, `k > 0`, `0 ≤ stuck ≤ m`.
pub fn fpr_with_stuck(m: f64, n: f64, k: f64, stuck: f64) -> f64 {
    if !(m > 0.0 && n >= 0.0 && k > 0.0 && (0.0..=m).contains(&stuck)) {
        return f64::NAN;
    }
    let fill = (1.0 - (-k * n / m).exp() + stuck / m).min(1.0);
    fill.powf(k)
}

/// Poisson probabilities `P(X = a)`, `a = 0..len`, for `X ~ Poisson(mean)`.
fn poisson_pmf(mean: f64, len: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(len);
    let mut p = (-mean).exp();
    for a in 0..len {
        out.push(p);
        p *= mean / (a as f64 + 1.0);
    }
    out
}

/// `P(X < a)` for `X ~ Poisson(mean)`, `a = 0..=len`.
fn poisson_below(mean: f64, len: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(len + 1);
    out.push(0.0);
    let mut sum = 0.0;
    for p in poisson_pmf(mean, len) {
        sum += p;
        out.push(sum.min(1.0));
    }
    out
}

/// Counter loads summed over: far past any Poisson mean used here.
const LOAD_TERMS: usize = 80;

/// The expected fraction of `n` members of a counting filter (`m` counters,
/// `k` hashes) reported absent after `j` false positives were removed (a
/// caller who removes an item the filter merely reports present): a fluid
/// Poisson model.
///
/// A counter holds `A ~ Poisson(λ)` increments, `λ = nk/m`; a member's own
/// counter holds `1 + Poisson(λ)` (it counts the member). A removed false
/// positive has all its counters non-zero and decrements `k` of them, spread
/// over the `Z` counters still non-zero; a counter that has received
/// `Poisson(μ)` decrements is zero once they reach its increments, so
/// `Z(μ) = m·Σ_a P(A = a)·P(Poisson(μ) < a)` and `dμ/dj = k / Z(μ)`, which
/// [`new`](Self::new) integrates. A member's counter is zero with
/// probability `q = Σ_{a≥1} P(1 + Poisson(λ) = a)·P(Poisson(μ) ≥ a)`, and the
/// member is lost when any of its `k` counters is: `1 − (1 − q)^k`. For the
/// first removals this is `k·λe^{−λ}/(1 − e^{−λ})` members per removal:
/// `k·ln 2 ≈ 0.69·k` at the optimal `k`.
#[derive(Debug, Clone)]
pub struct RemovalLoss {
    k: u32,
    /// `P(Poisson(λ) = a)`.
    load: Vec<f64>,
    /// `μ` after `i · step` removals.
    mu: Vec<f64>,
    step: f64,
}

impl RemovalLoss {
    /// The model for `m` counters, `k` hashes and `n` members, up to `max_j` removals.
    pub fn new(m: u64, k: u32, n: u64, max_j: u64) -> Self {
        let lambda = n as f64 * f64::from(k) / m as f64;
        let load = poisson_pmf(lambda, LOAD_TERMS);
        let steps = max_j.clamp(1, 4_000);
        let step = max_j.max(1) as f64 / steps as f64;
        let mut mu = vec![0.0];
        let mut now = 0.0;
        for _ in 0..steps {
            let below = poisson_below(now, LOAD_TERMS);
            let nonzero: f64 = load.iter().zip(&below).skip(1).map(|(p, b)| p * b).sum();
            now += step * f64::from(k) / (m as f64 * nonzero).max(1.0);
            mu.push(now);
        }
        Self { k, load, mu, step }
    }

    /// The fraction of members lost after `j` removals (`j` up to the
    /// model's `max_j`; beyond, the last `μ`).
    pub fn fraction(&self, j: f64) -> f64 {
        let x = (j / self.step).max(0.0);
        let i = (x.floor() as usize).min(self.mu.len() - 1);
        let next = (i + 1).min(self.mu.len() - 1);
        let mu = self.mu[i] + (self.mu[next] - self.mu[i]) * (x - i as f64).min(1.0);
        let below = poisson_below(mu, LOAD_TERMS + 1);
        // The member's counter holds 1 + e increments.
        let q: f64 = self
            .load
            .iter()
            .enumerate()
            .map(|(e, p)| p * (1.0 - below[e + 1]))
            .sum();
        1.0 - (1.0 - q).powi(self.k as i32)
    }
}

/// Expected fraction of a counting filter's counters that are zero after
/// inserting items that load each counter with `Poisson(λ_k)` kept and
/// `Poisson(λ_r)` later-removed increments, and removing the latter, with
/// `width`-bit counters that stop at `c = 2^width − 1` on the way up.
/// `sticky`: a counter that reached `c` is never decremented (bloomlab's
/// counters); otherwise it is (as in some other crates).
///
/// Sticky: zero iff no kept increment and the counter never reached `c`,
/// that is `e^{−λ_k}·P(Poisson(λ_r) < c)`. Not sticky: a counter holding
/// `min(A, c)` for `A = a_k + a_r` increments, decremented `a_r` times, is
/// zero iff `a_k = 0` (and `A ≤ c`) or `a_r ≥ c` (and `A ≥ c + 1`).
///
/// NaN for a width outside 1..=16.
///
/// ```
/// use bloomlab_core::theory::counting::zero_after_removal;
///
/// // Nothing removed: a counter is zero when no kept item hit it, e^−λ.
/// assert!((zero_after_removal(0.7, 0.0, 4, true) - (-0.7f64).exp()).abs() < 1e-12);
/// // A heavy removed load zeroes non-sticky counters, kept items or not.
/// assert!(zero_after_removal(0.7, 40.0, 4, false) > 0.99);
/// ```
pub fn zero_after_removal(lambda_kept: f64, lambda_removed: f64, width: u32, sticky: bool) -> f64 {
    let Some(max) = saturation_value(width) else {
        return f64::NAN;
    };
    let tail = |j| counter_tail_poisson(lambda_removed, j);
    let none_kept = (-lambda_kept).exp();
    if sticky {
        none_kept * (1.0 - tail(max))
    } else {
        let at_max = poisson_pmf(lambda_removed, max as usize + 1)[max as usize];
        none_kept * (1.0 - tail(max + 1)) + tail(max + 1) + at_max * (1.0 - none_kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theory::classic;

    #[test]
    fn tails_take_bounded_time_for_any_input() {
        assert!(counter_tail(10, u64::MAX / 64, 64, u64::MAX).is_nan());
        assert!(counter_tail(10, 1, 1, MAX_THRESHOLD + 1).is_nan());
        assert!(counter_tail_poisson(1.0, u64::MAX).is_nan());
        for &(m, n, k) in &[
            (1u64, u64::MAX / 64, 64u32),
            (u64::MAX, u64::MAX / 64, 64),
            (2, 1 << 40, 3),
        ] {
            for at_least in [1, 15, 255, 65_535, MAX_THRESHOLD] {
                let q = counter_tail(m, n, k, at_least);
                assert!((0.0..=1.0).contains(&q), "{m} {n} {k} {at_least}: {q}");
            }
        }
        for load in [0.0, 1e-300, 1.0, 65_536.0, 1e15, 1e300, f64::MAX] {
            let q = counter_tail_poisson(load, MAX_THRESHOLD);
            assert!((0.0..=1.0).contains(&q), "{load}: {q}");
        }
        assert_eq!(counter_tail_poisson(1e300, 15), 1.0);
        for width in [1, 4, 8, 16] {
            let p = saturation_probability(u64::MAX, u64::MAX / 64, 64, width);
            assert!((0.0..=1.0).contains(&p), "{width}: {p}");
        }
    }

    #[test]
    fn memory_is_width_times_classic() {
        assert_eq!(memory_bits(1_000.0, 4), 4_000.0);
        assert!((bits_per_item(0.01, 4) - 4.0 * classic::bits_per_item(0.01)).abs() < 1e-12);
        assert!((bits_per_item(0.01, 4) - 38.34).abs() < 0.01);
        assert!(memory_bits(10.0, 0).is_nan());
        assert!(memory_bits(10.0, 32).is_nan());
        assert!(bits_per_item(0.01, 0).is_nan());
        assert!(bits_per_item(1.5, 4).is_nan());
    }

    #[test]
    fn saturation_values() {
        assert_eq!(saturation_value(4), Some(15));
        assert_eq!(saturation_value(8), Some(255));
        assert_eq!(saturation_value(16), Some(65_535));
        assert_eq!(saturation_value(1), Some(1));
        assert_eq!(saturation_value(0), None);
        assert_eq!(saturation_value(17), None);
    }

    #[test]
    fn fan_published_bound() {
        // Fan et al. 2000: Pr(max counter ≥ 16) ≤ 1.37e-15 · m at optimal k.
        let per_counter = fan_bound(1.0, 16.0);
        assert!(
            (per_counter - 1.37e-15).abs() < 0.005e-15,
            "{per_counter:e}"
        );
        assert!((fan_bound(1e6, 16.0) - 1.37e-9).abs() < 0.005e-9);
        // Hand-computed: (e ln 2 / 15)^15 = 3.058e-14.
        assert!((fan_bound(1.0, 15.0) - 3.058e-14).abs() < 0.001e-14);
        assert!(fan_bound(1.0, 0.5).is_nan());
        assert!(fan_bound(-1.0, 16.0).is_nan());
    }

    #[test]
    fn binomial_tail_small_cases() {
        // Two inserts into two counters with k = 5: Binomial(10, 1/2);
        // P(X ≥ 8) = (45 + 10 + 1) / 1024.
        assert!((counter_tail(2, 2, 5, 8) - 56.0 / 1024.0).abs() < 1e-15);
        // P(X ≥ 1) = 1 − 2^-10 (the lower-tail branch).
        assert!((counter_tail(2, 2, 5, 1) - (1.0 - 1.0 / 1024.0)).abs() < 1e-15);
        assert_eq!(counter_tail(2, 2, 5, 0), 1.0);
        assert_eq!(counter_tail(2, 2, 5, 11), 0.0);
        assert!((counter_tail(2, 2, 5, 10) - 1.0 / 1024.0).abs() < 1e-15);
        assert!(counter_tail(0, 2, 5, 1).is_nan());
        assert!(counter_tail(2, 2, 0, 1).is_nan());
        assert!(counter_tail(2, u64::MAX, 2, 1).is_nan());
        // One counter takes every increment.
        assert_eq!(counter_tail(1, 3, 2, 6), 1.0);
        assert_eq!(counter_tail(1, 3, 2, 7), 0.0);
    }

    #[test]
    fn binomial_tail_far_below_epsilon() {
        // Exact rational sum (Python fractions): P(Binomial(700, 1/1000) ≥ 15)
        // = 1.6432448664941424e-15.
        let t = counter_tail(1_000, 100, 7, 15);
        assert!((t / 1.6432448664941424e-15 - 1.0).abs() < 1e-9, "{t:e}");
        // Fan et al.'s bound holds at the optimal k (m/n = 10, k = 7 ≈ 6.93).
        assert!(1_000.0 * t <= fan_bound(1_000.0, 15.0));
    }

    #[test]
    fn poisson_tail() {
        // P(Poisson(ln 2) ≥ 16) = 7.0728e-17 and ≥ 15: 1.6369e-15, summed by hand.
        let t16 = counter_tail_poisson(LN_2, 16);
        let t15 = counter_tail_poisson(LN_2, 15);
        assert!((t16 / 7.072832256729937e-17 - 1.0).abs() < 1e-9, "{t16:e}");
        assert!((t15 / 1.6369466761115191e-15 - 1.0).abs() < 1e-9, "{t15:e}");
        // P(Poisson(1) ≥ 1) = 1 − e^-1.
        assert!((counter_tail_poisson(1.0, 1) - (1.0 - (-1.0f64).exp())).abs() < 1e-15);
        assert_eq!(counter_tail_poisson(0.0, 1), 0.0);
        assert_eq!(counter_tail_poisson(3.0, 0), 1.0);
        assert!(counter_tail_poisson(-1.0, 1).is_nan());
        assert!(counter_tail_poisson(f64::NAN, 1).is_nan());
    }

    #[test]
    fn binomial_approaches_poisson() {
        // Load ln 2 in a large table: the binomial tail tends to the Poisson one.
        let m = 1u64 << 30;
        let n = (m as f64 * LN_2 / 8.0) as u64;
        let b = counter_tail(m, n, 8, 15);
        let p = counter_tail_poisson(n as f64 * 8.0 / m as f64, 15);
        assert!((b / p - 1.0).abs() < 1e-6, "{b:e} vs {p:e}");
    }

    #[test]
    fn overload_saturates_most_counters() {
        // 40,000 inserts, k = 4, into 8,192 counters: load 19.5 per counter;
        // P(Binomial(160000, 1/8192) ≥ 15) = 0.87568 (by hand, summing the lower tail).
        let q = counter_tail(8_192, 40_000, 4, 15);
        assert!((q - 0.875_680).abs() < 1e-5, "{q}");
        let expected = expected_saturated(8_192, 40_000, 4, 4);
        assert!((expected - 7_173.57).abs() < 0.1, "{expected}");
        assert!(saturation_probability(8_192, 40_000, 4, 4) > 1.0 - 1e-12);
        // 8-bit counters at the same load never get there.
        assert!(expected_saturated(8_192, 40_000, 4, 8) < 1e-100);
    }

    #[test]
    fn saturation_at_design_load_is_negligible() {
        // A 1% filter for a million items (m ≈ 9.85e6, k = 5) with 4-bit counters.
        let (m, k) = classic::size_for(1_000_000, 0.01).unwrap();
        let p = saturation_probability(m, 1_000_000, k, 4);
        let upper = expected_saturated(m, 1_000_000, k, 4);
        assert!(p > 0.0 && p <= upper, "{p:e} {upper:e}");
        assert!((p / upper - 1.0).abs() < 1e-6);
        // Below Fan et al.'s bound for reaching 15, and tiny.
        assert!(upper <= fan_bound(m as f64, 15.0), "{upper:e}");
        assert!(upper < 1e-6, "{upper:e}");
        assert!(saturation_probability(m, 1_000_000, k, 0).is_nan());
        assert!(expected_saturated(m, 1_000_000, k, 40).is_nan());
    }

    #[test]
    fn stuck_counters_only_raise_the_rate() {
        let classic_rate = classic::fpr(1_000.0, 100.0, 7.0);
        assert_eq!(fpr_with_stuck(1_000.0, 100.0, 7.0, 0.0), classic_rate);
        let with = fpr_with_stuck(1_000.0, 100.0, 7.0, 10.0);
        // Hand-computed: (1 − e^-0.7 + 0.01)^7.
        let by_hand = (1.0 - (-0.7f64).exp() + 0.01).powi(7);
        assert!((with - by_hand).abs() < 1e-15);
        assert!(with > classic_rate);
        assert_eq!(fpr_with_stuck(10.0, 1_000.0, 3.0, 10.0), 1.0);
        assert!(fpr_with_stuck(10.0, 1.0, 3.0, 11.0).is_nan());
        assert!(fpr_with_stuck(0.0, 1.0, 3.0, 0.0).is_nan());
    }

    /// At the optimal load λ = ln 2 each of the first removals costs k·ln 2
    /// members (k = 7: 4.85); the model must agree for small j.
    #[test]
    fn counting_loss_starts_at_k_ln2_per_removal() {
        let (n, k) = (100_000u64, 7u32);
        let m = (n as f64 * f64::from(k) / std::f64::consts::LN_2).round() as u64;
        let model = RemovalLoss::new(m, k, n, 5_000);
        let per_removal = model.fraction(1.0) * n as f64;
        assert!(
            (per_removal - 7.0 * std::f64::consts::LN_2).abs() < 0.01,
            "{per_removal}"
        );
        // Later removals cost less each as members are already lost, never more than k.
        let at_5000 = model.fraction(5_000.0) * n as f64 / 5_000.0;
        assert!(at_5000 < per_removal && at_5000 > 1.0, "{at_5000}");
        assert!(model.fraction(0.0).abs() < 1e-15);
    }

    /// Sticky counters are zero only without kept items and below 15; with
    /// no removed load both models reduce to e^{−λ_k}.
    #[test]
    fn zero_after_removal_limits() {
        let z = zero_after_removal(0.7, 0.0, 4, true);
        assert!((z - (-0.7f64).exp()).abs() < 1e-12);
        let z = zero_after_removal(0.7, 0.0, 4, false);
        assert!((z - (-0.7f64).exp()).abs() < 1e-12);
        // Heavy removed load: non-sticky counters are nearly all zeroed, sticky ones almost none.
        assert!(zero_after_removal(0.7, 40.0, 4, false) > 0.99);
        assert!(zero_after_removal(0.7, 40.0, 4, true) < 1e-6);
    }
}
