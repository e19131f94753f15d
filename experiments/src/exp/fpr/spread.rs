//! The between-instance spread of a rate, measured from replicated filters.
//!
//! Each instance `i` of a configuration is probed `N_i` times and passes
//! `x_i` probes, so `p̂_i = x_i/N_i`. Its variance across instances is the
//! table-to-table spread `σ²` plus the probes' own binomial noise
//! `p_i(1 − p_i)/N_i`. The method of moments takes the sample variance of
//! the `p̂_i` and subtracts the mean estimated binomial variance
//! `p̂_i(1 − p̂_i)/N_i`, so that probe noise is not counted as spread.

use statrs::distribution::{Binomial, ChiSquared, ContinuousCDF, DiscreteCDF};

/// The measured spread of one configuration's rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// The method-of-moments estimate of `σ²`, not floored: negative when
    /// the rates scatter less than their probes alone would make them.
    pub var: f64,
    /// `√max(var, 0)`.
    pub sd: f64,
    /// A 95% interval for `σ`: the chi-square interval of the rates' total
    /// variance (normal approximation, `R − 1` degrees of freedom) less the
    /// binomial part, floored at 0.
    pub lo: f64,
    /// Its upper end.
    pub hi: f64,
    /// `√` of the mean binomial variance: the probe noise of one instance.
    pub probe_sd: f64,
}

/// The spread of instances that passed `hits[i]` of `probes[i]` probes each:
/// `None` for fewer than two instances or an instance with no probes.
pub fn measure(instances: &[(u64, u64)]) -> Option<Spread> {
    let r = instances.len();
    let rates = rates(instances).filter(|_| r >= 2)?;
    let mean = rates.iter().sum::<f64>() / r as f64;
    let sample = rates.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / (r - 1) as f64;
    let probe = instances
        .iter()
        .zip(&rates)
        .map(|(&(_, n), p)| p * (1.0 - p) / n as f64)
        .sum::<f64>()
        / r as f64;
    let var = sample - probe;
    let dof = (r - 1) as f64;
    let chi = ChiSquared::new(dof).ok()?;
    let table_sd = |total: f64| (total - probe).max(0.0).sqrt();
    Some(Spread {
        var,
        sd: var.max(0.0).sqrt(),
        lo: table_sd(dof * sample / chi.inverse_cdf(0.975)),
        hi: table_sd(dof * sample / chi.inverse_cdf(0.025)),
        probe_sd: probe.sqrt(),
    })
}

/// A 95% interval for the mean rate of instances that passed `hits[i]` of
/// `probes[i]` probes each: Student's t with `R − 1` degrees of freedom on
/// the rates `x_i/N_i`. Their scatter carries both the probes' noise and the
/// tables' spread, so the interval widens with either; a pooled binomial
/// interval sees only the first. `None` for fewer than two instances or an
/// instance with no probes.
pub fn mean_interval(instances: &[(u64, u64)]) -> Option<(f64, f64)> {
    crate::table::t_interval(&rates(instances)?)
}

/// The instances' rates `x_i/N_i`: `None` if one has no probes or more
/// hits than probes.
fn rates(instances: &[(u64, u64)]) -> Option<Vec<f64>> {
    (instances
        .iter()
        .map(|&(x, n)| (n > 0 && x <= n).then(|| x as f64 / n as f64)))
    .collect()
}

/// The chance that 95% intervals miss at least `misses` of `rows`
/// independent rows, each with probability 0.05: the binomial upper tail,
/// 1 when nothing missed.
pub fn misses_p_value(misses: u64, rows: u64) -> f64 {
    match (misses, Binomial::new(0.05, rows)) {
        (0, _) | (_, Err(_)) => 1.0,
        (x, Ok(b)) => b.sf(x - 1),
    }
}

/// Measured over theoretical spread, pooled over configurations, and its
/// standard error, from rows `(spread, σ_r, R_r, instances)` where
/// `instances` names the filters a row measured.
///
/// Each row's ratio `var_r/σ²_r` has variance `2(1 + v_r/σ²_r)²/(R_r − 1)`
/// (`v_r` its probe variance), so rows whose probe noise swamps the spread
/// count for little. The rows of one configuration at successive loads
/// measure the same filters, so their ratios move together: within a group
/// the ratios are averaged by those weights and the group's error is taken
/// as the same average of the rows' errors (as if perfectly correlated);
/// the groups, independent, are then pooled by inverse variance. `None`
/// without a row whose model spread is positive.
pub fn pooled_ratio(rows: &[(Spread, f64, usize, u64)]) -> Option<(f64, f64)> {
    // Per group: Σ w·ratio, Σ w, Σ w·error.
    let mut groups: Vec<(u64, f64, f64, f64)> = Vec::new();
    for &(s, model, instances, group) in rows {
        if !(model > 0.0 && model.is_finite()) || instances < 2 {
            continue;
        }
        let model_var = model * model;
        let noise = 1.0 + s.probe_sd * s.probe_sd / model_var;
        let w = (instances - 1) as f64 / (2.0 * noise * noise);
        let ratio = s.var / model_var;
        match groups.iter_mut().find(|g| g.0 == group) {
            Some(g) => {
                g.1 += w * ratio;
                g.2 += w;
                g.3 += w * w.recip().sqrt();
            }
            None => groups.push((group, w * ratio, w, w * w.recip().sqrt())),
        }
    }
    let (mut sum, mut weights) = (0.0, 0.0);
    for (_, weighted, w, error) in groups {
        let (ratio, se) = (weighted / w, error / w);
        sum += ratio / (se * se);
        weights += 1.0 / (se * se);
    }
    (weights > 0.0).then(|| (sum / weights, weights.recip().sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bloomlab_lab::keys::rng;
    use rand_distr::{Binomial, Distribution};

    /// `instances` instances whose true rates alternate `p ± delta`, each
    /// probed `n` times, from `seed`.
    fn simulate(seed: u64, instances: usize, p: f64, delta: f64, n: u64) -> Vec<(u64, u64)> {
        let mut r = rng(seed);
        (0..instances)
            .map(|i| {
                let rate = if i % 2 == 0 { p + delta } else { p - delta };
                let hits = Binomial::new(n, rate).map_or(0, |b| b.sample(&mut r));
                (hits, n)
            })
            .collect()
    }

    /// The estimate of `σ²` has standard deviation `(σ² + v)·√(2/(R − 1))`
    /// for near-normal rates (binomial counts of 1,000 are); 3.29 of them
    /// make a 99.9% bound.
    fn bound(sigma2: f64, probe: f64, instances: usize) -> f64 {
        3.29 * (sigma2 + probe) * (2.0 / (instances - 1) as f64).sqrt()
    }

    #[test]
    fn probe_noise_alone_is_not_spread() {
        let (instances, p, n) = (2_000, 0.01, 100_000);
        let s = measure(&simulate(7, instances, p, 0.0, n)).unwrap();
        let probe = p * (1.0 - p) / n as f64;
        assert!(s.var.abs() < bound(0.0, probe, instances), "{s:?}");
        assert!((s.probe_sd / probe.sqrt() - 1.0).abs() < 0.01, "{s:?}");
        assert_eq!(s.lo, 0.0, "{s:?}");
    }

    #[test]
    fn a_known_spread_is_recovered() {
        // Rates 1% ± 0.1%: population variance δ²·R/(R − 1) over an even
        // number of instances; probe noise a tenth of it.
        let (instances, p, delta, n) = (2_000, 0.01, 0.001, 100_000);
        let s = measure(&simulate(11, instances, p, delta, n)).unwrap();
        let sigma2 = delta * delta * instances as f64 / (instances - 1) as f64;
        let probe = p * (1.0 - p) / n as f64;
        assert!(
            (s.var - sigma2).abs() < bound(sigma2, probe, instances),
            "{s:?}"
        );
        assert!(s.lo < sigma2.sqrt() && sigma2.sqrt() < s.hi, "{s:?}");
        let (ratio, se) = pooled_ratio(&[(s, sigma2.sqrt(), instances, 0)]).unwrap();
        assert!((ratio - 1.0).abs() < 3.29 * se, "{ratio} ± {se}");
        // The same filters measured twice are one sample, not two: the
        // error does not shrink; two independent groups shrink it by √2.
        let twice = pooled_ratio(&[(s, sigma2.sqrt(), instances, 0); 2]).unwrap();
        assert!((twice.1 - se).abs() < 1e-12 * se, "{twice:?} {se}");
        let apart = pooled_ratio(&[
            (s, sigma2.sqrt(), instances, 0),
            (s, sigma2.sqrt(), instances, 1),
        ])
        .unwrap();
        assert!(
            (apart.1 * 2f64.sqrt() - se).abs() < 1e-12 * se,
            "{apart:?} {se}"
        );
    }

    #[test]
    fn the_miss_tail_is_binomial() {
        // 2 of 2 rows: 0.05²; at least 1 of 2: 1 − 0.95².
        assert!((misses_p_value(2, 2) - 0.0025).abs() < 1e-12);
        assert!((misses_p_value(1, 2) - 0.0975).abs() < 1e-12);
        assert_eq!(misses_p_value(0, 10), 1.0);
    }

    #[test]
    fn the_mean_interval_is_students() {
        // Rates 0.1 and 0.3: mean 0.2, s/√2 = 0.1, t(1) at 97.5% = 12.706.
        let (lo, hi) = mean_interval(&[(1, 10), (3, 10)]).unwrap();
        let half = 12.706_204_736 * 0.1;
        assert!((lo - (0.2 - half)).abs() < 1e-6 && (hi - (0.2 + half)).abs() < 1e-6);
        assert_eq!(mean_interval(&[(1, 10)]), None);
        assert_eq!(mean_interval(&[(1, 10), (1, 0)]), None);
    }

    #[test]
    fn degenerate_input_gives_none() {
        assert_eq!(measure(&[]), None);
        assert_eq!(measure(&[(1, 10)]), None);
        assert_eq!(measure(&[(1, 10), (1, 0)]), None);
        assert_eq!(measure(&[(11, 10), (1, 10)]), None);
        assert_eq!(pooled_ratio(&[]), None);
        // No false positive anywhere: no spread, no probe noise.
        let s = measure(&[(0, 10), (0, 10)]).unwrap();
        assert_eq!((s.sd, s.lo, s.hi, s.probe_sd), (0.0, 0.0, 0.0, 0.0));
    }
}
