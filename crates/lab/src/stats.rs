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
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "confidence {confidence}"
    );
    let tail = (1.0 - confidence) / 2.0;
    let (x, n) = (successes as f64, trials as f64);
    // The bounds solve I_lo(x, n − x + 1) = α/2 and I_hi(x + 1, n − x) =
    // 1 − α/2, I the regularized incomplete beta function. statrs' own
    // inverse (`Beta::inverse_cdf`) does not return for some counts met in
    // practice (97 of 15,587,080), so they are found by bisection.
    let lo = if successes == 0 {
        0.0
    } else {
        solve(|p| checked_beta_reg(x, n - x + 1.0, p), tail)
    };
    let hi = if successes == trials {
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
