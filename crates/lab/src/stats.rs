//! Binomial bounds for statistical assertions and reports.

use statrs::distribution::{Beta, Binomial, ContinuousCDF, DiscreteCDF};

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
    let alpha = 1.0 - confidence;
    let (x, n) = (successes as f64, trials as f64);
    let lo = if successes == 0 {
        0.0
    } else {
        Beta::new(x, n - x + 1.0)
            .expect("valid beta")
            .inverse_cdf(alpha / 2.0)
    };
    let hi = if successes == trials {
        1.0
    } else {
        Beta::new(x + 1.0, n - x)
            .expect("valid beta")
            .inverse_cdf(1.0 - alpha / 2.0)
    };
    (lo, hi)
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
}
