//! Theory beside the measurements: the spread between instances (the peer's
//! own sizing is its adapter's, `bloomlab_lab::peers::growable`).

/// The bit table of one layer, for [`instance_sd`].
pub(super) enum LayerTable {
    /// `bits` bits, `draws = k·n` positions set.
    Classic { bits: f64, draws: f64, k: f64 },
    /// `k` slices of `bits` bits, `draws = n` positions set in each.
    Partitioned { bits: f64, draws: f64, k: f64 },
}

/// The variance of the number of cells left empty when `draws` uniform
/// draws fall into `cells` cells: `c(c−1)(1 − 2/c)^d + c(1 − 1/c)^d − c²(1 − 1/c)^{2d}`
/// (the classic occupancy moments).
pub(super) fn empty_variance(cells: f64, draws: f64) -> f64 {
    let q1 = (draws * (-1.0 / cells).ln_1p()).exp();
    let q2 = (draws * (-2.0 / cells).ln_1p()).exp();
    (cells * (cells - 1.0) * q2 + cells * q1 - cells * cells * q1 * q1).max(0.0)
}

/// How much the rate of one filter differs from the next one's built the
/// same way with another hash key: the standard deviation, over filters, of
/// the compound rate of layers `tables`.
///
/// Theory gives the mean rate over filters; one filter passes a probe with
/// probability `fill^k` for its own fill, and the fill varies by the
/// occupancy variance of its table ([`empty_variance`]). To first order a
/// classic layer's rate varies by `k·fill^(k−1)·sd(empty)/m`, a partitioned
/// one's by `rate·√k·sd(empty)/(s·fill)` (its `k` slices vary independently),
/// and the compound by the root of the sum of the layers' variances. The
/// Clopper–Pearson interval covers only the probes; this covers the filter.
pub(super) fn instance_sd(tables: impl Iterator<Item = LayerTable>) -> f64 {
    tables
        .map(|t| match t {
            LayerTable::Classic { bits, draws, k } => {
                let fill = -((draws * (-1.0 / bits).ln_1p()).exp_m1());
                let sd = k * fill.powf(k - 1.0) * empty_variance(bits, draws).sqrt() / bits;
                sd * sd
            }
            LayerTable::Partitioned { bits, draws, k } => {
                let fill = -((draws * (-1.0 / bits).ln_1p()).exp_m1());
                if fill <= 0.0 {
                    return 0.0;
                }
                let sd =
                    fill.powf(k) * k.sqrt() * empty_variance(bits, draws).sqrt() / (bits * fill);
                sd * sd
            }
        })
        .sum::<f64>()
        .sqrt()
}
