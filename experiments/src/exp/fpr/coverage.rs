//! How often a row's 95% interval covers the true mean rate, on rows
//! simulated from the classic filter's exact distribution.
//!
//! A classic table of `m` bits after `n` items of `k` positions holds `X`
//! set bits, where `X` is the occupancy of `kn` uniform throws into `m`
//! bins; a probe of `k` uniform positions passes with probability
//! `(X/m)^k`. [`Occupancy`] computes the law of `X` by recurrence, so each
//! simulated instance draws its table's `X` exactly, then its false
//! positives as a binomial count of the probes the experiment's [`Plan`]
//! gives that row. The true mean rate `E[(X/m)^k]` comes from the same law.

use bloomlab_core::theory::classic;
use bloomlab_lab::keys::rng;
use bloomlab_lab::stats::{clopper_pearson, overdispersed_interval};
use rand::Rng;
use rand_distr::{Binomial, Distribution};

use super::{LOADS, MIN_EXPECTED, Plan, TARGETS, spread};

/// Probabilities below this are dropped from the occupancy law's tails: at
/// most `kn` of them, so the mass lost is far below `f64`'s resolution.
const NEGLIGIBLE: f64 = 1e-40;

/// The law of the number of set bits after `balls` throws into `m` bits.
struct Occupancy {
    m: u64,
    /// The smallest count kept.
    low: u64,
    /// `P(X = low + i)`, cumulated: `cumulative[i] = P(X ≤ low + i)`.
    cumulative: Vec<f64>,
}

impl Occupancy {
    fn new(m: u64, balls: u64) -> Self {
        let mf = m as f64;
        let (mut low, mut p) = (0u64, vec![1.0f64]);
        for _ in 0..balls {
            let mut next = vec![0.0; p.len() + 1];
            for (i, &q) in p.iter().enumerate() {
                let set = (low + i as u64) as f64;
                // The throw lands on a set bit, or sets a new one.
                next[i] += q * set / mf;
                next[i + 1] += q * (mf - set) / mf;
            }
            let first = next.iter().position(|&q| q >= NEGLIGIBLE).unwrap_or(0);
            let last = next.iter().rposition(|&q| q >= NEGLIGIBLE).unwrap_or(first);
            low += first as u64;
            p = next[first..=last].to_vec();
        }
        let cumulative = p
            .iter()
            .scan(0.0, |sum, &q| {
                *sum += q;
                Some(*sum)
            })
            .collect();
        Self { m, low, cumulative }
    }

    /// `E[(X/m)^k]`: the mean rate over tables.
    fn mean_rate(&self, k: u32) -> f64 {
        let mut before = 0.0;
        let mut sum = 0.0;
        for (i, &c) in self.cumulative.iter().enumerate() {
            let fill = (self.low + i as u64) as f64 / self.m as f64;
            sum += (c - before) * fill.powi(k as i32);
            before = c;
        }
        sum / before
    }

    /// One table's set bits, drawn by inverting the law.
    fn draw(&self, r: &mut impl Rng) -> u64 {
        let total = self.cumulative.last().copied().unwrap_or(1.0);
        let u = r.random::<f64>() * total;
        let i = self.cumulative.partition_point(|&c| c <= u);
        self.low + i.min(self.cumulative.len() - 1) as u64
    }
}

/// Simulated rows and how many of them each interval missed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Coverage {
    /// Powered rows simulated.
    pub rows: u64,
    /// Rows whose Student-t interval over instances missed the true mean.
    pub instance_misses: u64,
    /// Rows whose pooled Clopper–Pearson interval missed it.
    pub pooled_misses: u64,
    /// Rows whose pooled interval widened by the instances' scatter
    /// ([`overdispersed_interval`], the trade-off, space and guard rows')
    /// missed it.
    pub dispersed_misses: u64,
}

impl Coverage {
    /// The share of rows an interval that missed `misses` of them covered.
    pub fn covered(&self, misses: u64) -> f64 {
        1.0 - misses as f64 / self.rows as f64
    }
}

/// The plan the simulation sizes probes by: the quick scale's rules
/// (20 instances, a floor of a fifth of the capacity, a budget of 400
/// probes an item) at a capacity of 1,000, so that probe noise stands to
/// the tables' spread about as it does in the experiment.
pub(super) const SIMULATED: Plan = Plan {
    instances: 20,
    capacity: 1_000,
    floor: 200,
    budget: 400_000,
};

/// `per_config` rows of every powered classic configuration (each target of
/// [`TARGETS`] at each load of [`LOADS`], sized for `plan.capacity`), from
/// `seed`.
pub(super) fn simulate(seed: u64, plan: &Plan, per_config: u64) -> Coverage {
    let mut r = rng(seed);
    let mut out = Coverage::default();
    for &target in &TARGETS {
        let Ok((m, k)) = classic::size_for(plan.capacity as u64, target) else {
            continue;
        };
        for &load in &LOADS {
            let n = (plan.capacity as f64 * load).round();
            let (mf, kf) = (m as f64, f64::from(k));
            let theory = classic::fpr(mf, n, kf);
            let probes = plan.probes(theory, Some(classic::rate_sd(mf, kf * n, kf)));
            if theory * ((probes * plan.instances as u64) as f64) < MIN_EXPECTED {
                continue;
            }
            let law = Occupancy::new(m, k as u64 * n as u64);
            let truth = law.mean_rate(k);
            for _ in 0..per_config {
                let row: Vec<(u64, u64)> = (0..plan.instances)
                    .map(|_| {
                        let rate = (law.draw(&mut r) as f64 / mf).powi(k as i32);
                        let hits = Binomial::new(probes, rate).map_or(0, |b| b.sample(&mut r));
                        (hits, probes)
                    })
                    .collect();
                let covers = |(lo, hi): (f64, f64)| (lo..=hi).contains(&truth);
                let hits: u64 = row.iter().map(|h| h.0).sum();
                let pooled = clopper_pearson(hits, probes * row.len() as u64, 0.95);
                let instance = spread::mean_interval(&row).unwrap_or(pooled);
                let dispersed = overdispersed_interval(&row, 0.95).unwrap_or(pooled);
                out.rows += 1;
                out.instance_misses += u64::from(!covers(instance));
                out.pooled_misses += u64::from(!covers(pooled));
                out.dispersed_misses += u64::from(!covers(dispersed));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use bloomlab_lab::stats::binomial_interval;

    #[test]
    fn the_occupancy_law_matches_its_moments() {
        // 3 throws into 4 bits: P(X = 1) = 1/16, P(X = 3) = 4·3·2/64.
        let law = Occupancy::new(4, 3);
        assert_eq!(law.low, 1);
        let p: Vec<f64> = std::iter::once(law.cumulative[0])
            .chain(law.cumulative.windows(2).map(|w| w[1] - w[0]))
            .collect();
        assert!((p[0] - 1.0 / 16.0).abs() < 1e-15, "{p:?}");
        assert!((p[2] - 24.0 / 64.0).abs() < 1e-15, "{p:?}");
        // Its mean and spread are `classic::occupancy`'s.
        let (m, balls) = (5_000u64, 3_500u64);
        let law = Occupancy::new(m, balls);
        let (mean, sd) = classic::occupancy(m as f64, balls as f64);
        let fill_mean = law.mean_rate(1) * m as f64;
        let second = law.mean_rate(2) * (m * m) as f64;
        assert!((fill_mean - mean).abs() < 1e-6 * mean, "{fill_mean} {mean}");
        let var = second - fill_mean * fill_mean;
        assert!((var.sqrt() - sd).abs() < 1e-4 * sd, "{} {sd}", var.sqrt());
    }

    /// If the instance interval, and the pooled interval widened by the
    /// instances' scatter, are 95% intervals, their misses over `rows`
    /// independent rows are Binomial(rows, 0.05): they must fall in that
    /// law's central 99.9%.
    #[test]
    fn the_instance_and_widened_intervals_cover_95_percent() {
        for (seed, widened) in [(53, false), (54, true)] {
            let c = simulate(seed, &SIMULATED, 150);
            let misses = |c: &Coverage| match widened {
                true => c.dispersed_misses,
                false => c.instance_misses,
            };
            let (lo, hi) = binomial_interval(c.rows, 0.05, 0.999);
            assert!(
                (lo..=hi).contains(&misses(&c)),
                "{c:?}: misses outside {lo}..={hi}"
            );
        }
    }
}
