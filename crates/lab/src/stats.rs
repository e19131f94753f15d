//! Binomial bounds for statistical assertions and reports.

use statrs::distribution::{Binomial, DiscreteCDF};
use statrs::function::beta::checked_beta_reg;

/// The central interval `[lo, hi]` of counts that Binomial(`trials`, `p`)
/// falls in with probability at least `confidence`: each tail outside it
/// holds at most `(1 − confidence)/2`.
///
/// A test that observes a count outside it fails, and does so by chance with
/// probability at most `1 − confidence`.
///
/// # Panics
///
/// If `p` is outside [0, 1] or `confidence` outside (0, 1): a test's own
/// constants are wrong.
pub fn binomial_interval(trials: u64, p: f64, confidence: f64) -> (u64, u64) {
    assert!((0.0..=1.0).contains(&p), "rate {p} outside [0, 1]");
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "confidence {confidence}"
    );
    let dist = Binomial::new(p, trials).expect("valid binomial parameters");
    let tail = (1.0 - confidence) / 2.0;
    // inverse_cdf(q) is the least x with cdf(x) ≥ q.
    let lo = if tail > 0.0 {
        dist.inverse_cdf(tail)
    } else {
        0
    };
    let hi = dist.inverse_cdf(1.0 - tail);
    // P(X < lo) < tail by definition of lo.
    (lo, hi)
}

/// The upper end of the one-sided interval: the least count `hi` with
/// `P(X > hi) ≤ 1 − confidence`.
///
/// # Panics
///
/// As [`binomial_interval`].
pub fn binomial_upper(trials: u64, p: f64, confidence: f64) -> u64 {
    assert!((0.0..=1.0).contains(&p), "rate {p} outside [0, 1]");
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "confidence {confidence}"
    );
    Binomial::new(p, trials)
        .expect("valid binomial parameters")
        .inverse_cdf(confidence)
}

/// The Clopper–Pearson ("exact") interval for a rate from `successes` out of
/// `trials`, at `confidence` (0.95 for a 95% interval).
///
/// # Panics
///
/// If `trials` is 0, `successes > trials`, or `confidence` is outside (0, 1).
pub fn clopper_pearson(successes: u64, trials: u64, confidence: f64) -> (f64, f64) {
    assert!(trials > 0 && successes <= trials, "{successes} of {trials}");
    beta_interval(successes as f64, trials as f64, confidence)
}

/// The 95%-style interval of the mean rate of replicated instances whose
/// own rates differ: instance `i` passed `hits` of `trials` probes, as
/// `(hits, trials)` pairs.
///
/// Pooling the counts into one binomial sample treats the instances as one
/// table and makes the interval too narrow when the tables' rates differ.
/// Here the pooled counts are divided by the dispersion factor
/// `φ = max(1, X²/(R − 1))`, `X²` Pearson's statistic of the `R` instances
/// against their pooled rate (the quasi-binomial or Williams correction of
/// a beta-binomial sample), and the Clopper–Pearson interval is taken of
/// `hits/φ` in `trials/φ`: as exact as Clopper–Pearson when the instances
/// agree (φ = 1, also when no instance passed a probe), and as wide as
/// their scatter when they do not. `None` without instances, or with an
/// instance without trials or with more hits than trials.
///
/// # Panics
///
/// If `confidence` is outside (0, 1).
pub fn overdispersed_interval(instances: &[(u64, u64)], confidence: f64) -> Option<(f64, f64)> {
    if instances.is_empty() || instances.iter().any(|&(x, n)| n == 0 || x > n) {
        return None;
    }
    let hits: u64 = instances.iter().map(|&(x, _)| x).sum();
    let trials: u64 = instances.iter().map(|&(_, n)| n).sum();
    let phi = dispersion(instances);
    Some(beta_interval(
        hits as f64 / phi,
        trials as f64 / phi,
        confidence,
    ))
}

/// The dispersion factor of [`overdispersed_interval`]: Pearson's `X²` over
/// its `R − 1` degrees of freedom, at least 1 (1 for one instance, or when
/// the pooled rate is 0 or 1 and every instance agrees with it).
pub fn dispersion(instances: &[(u64, u64)]) -> f64 {
    let r = instances.len();
    let hits: u64 = instances.iter().map(|&(x, _)| x).sum();
    let trials: u64 = instances.iter().map(|&(_, n)| n).sum();
    if r < 2 || hits == 0 || hits == trials {
        return 1.0;
    }
    let p = hits as f64 / trials as f64;
    let x2: f64 = instances
        .iter()
        .map(|&(x, n)| {
            let expected = n as f64 * p;
            (x as f64 - expected).powi(2) / (expected * (1.0 - p))
        })
        .sum();
    (x2 / (r - 1) as f64).max(1.0)
}

/// The Clopper–Pearson bounds of `x` successes in `n` trials, both real
/// (the scaled counts of [`overdispersed_interval`]).
fn beta_interval(x: f64, n: f64, confidence: f64) -> (f64, f64) {
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "confidence {confidence}"
    );
    let tail = (1.0 - confidence) / 2.0;
    // The bounds solve I_lo(x, n − x + 1) = α/2 and I_hi(x + 1, n − x) =
    // 1 − α/2, I the regularized incomplete beta function. statrs' own
    // inverse (`Beta::inverse_cdf`) does not return for some counts met in
    // practice (97 of 15,587,080), so they are found by bisection.
    let lo = if x <= 0.0 {
        0.0
    } else {
        solve(|p| checked_beta_reg(x, n - x + 1.0, p), tail)
    };
    let hi = if x >= n {
        1.0
    } else {
        solve(|p| checked_beta_reg(x + 1.0, n - x, p), 1.0 - tail)
    };
    (lo, hi)
}

/// Bisection steps of [`clopper_pearson`]: a bound to within `2^−120`.
const STEPS: u32 = 120;

/// The `p` in [0, 1] where the increasing `cdf` reaches `target`.
fn solve<E: std::fmt::Debug>(cdf: impl Fn(f64) -> Result<f64, E>, target: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..STEPS {
        let mid = 0.5 * (lo + hi);
        // Parameters are positive and mid inside (0, 1): the function is defined.
        if cdf(mid).expect("beta parameters are positive") < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_brackets_the_mean() {
        let (lo, hi) = binomial_interval(1_000_000, 0.01, 0.999);
        // mean 10,000, sd 99.5: the 99.9% interval is about ±3.29 sd.
        assert!((9_660..=9_680).contains(&lo), "{lo}");
        assert!((10_320..=10_340).contains(&hi), "{hi}");
    }

    #[test]
    fn agreeing_instances_give_the_pooled_interval() {
        // Ten instances of 50 in 1,000 each: X² = 0, φ = 1.
        let same = [(50, 1_000); 10];
        assert_eq!(dispersion(&same), 1.0);
        assert_eq!(
            overdispersed_interval(&same, 0.95),
            Some(clopper_pearson(500, 10_000, 0.95))
        );
        // No instance passed a probe: the pooled interval, from 0.
        let none = [(0, 1_000); 10];
        assert_eq!(
            overdispersed_interval(&none, 0.95),
            Some(clopper_pearson(0, 10_000, 0.95))
        );
    }

    #[test]
    fn scattered_instances_widen_the_interval() {
        // 20 and 80 in 1,000 each: pooled 5%, X² = 2·30²/(50·0.95) = 37.9
        // on one degree of freedom.
        let two = [(20, 1_000), (80, 1_000)];
        let phi = 2.0 * 900.0 / (50.0 * 0.95);
        assert!((dispersion(&two) - phi).abs() < 1e-12);
        let (lo, hi) = overdispersed_interval(&two, 0.95).unwrap();
        let (plo, phi_) = clopper_pearson(100, 2_000, 0.95);
        assert!(lo < plo && hi > phi_, "{lo} {hi} against {plo} {phi_}");
        assert_eq!(overdispersed_interval(&[], 0.95), None);
        assert_eq!(overdispersed_interval(&[(1, 0)], 0.95), None);
    }

    #[test]
    fn clopper_pearson_known_values() {
        // 0 of 10 at 95%: upper end 1 − 0.025^(1/10) = 0.3085.
        let (lo, hi) = clopper_pearson(0, 10, 0.95);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.3085).abs() < 1e-4, "{hi}");
        // 5 of 10 at 95%: (0.1871, 0.8129).
        let (lo, hi) = clopper_pearson(5, 10, 0.95);
        assert!(
            (lo - 0.1871).abs() < 1e-4 && (hi - 0.8129).abs() < 1e-4,
            "{lo} {hi}"
        );
    }

    #[test]
    fn clopper_pearson_returns_for_tiny_rates() {
        // statrs' inverse loops on Beta(97, 15,586,984); for a rate this
        // small the bounds are Garwood's Poisson ones over n (chi-square
        // quantiles halved), to a relative O(x/n).
        use statrs::distribution::{ChiSquared, ContinuousCDF};
        let n = 15_587_080u64;
        let (lo, hi) = clopper_pearson(97, n, 0.95);
        let garwood = |dof: f64, q: f64| ChiSquared::new(dof).unwrap().inverse_cdf(q) / 2.0;
        let (l, h) = (garwood(194.0, 0.025), garwood(196.0, 0.975));
        assert!((lo * n as f64 / l - 1.0).abs() < 1e-4, "{lo} vs {l}");
        assert!((hi * n as f64 / h - 1.0).abs() < 1e-4, "{hi} vs {h}");
    }
}
