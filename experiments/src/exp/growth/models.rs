//! Theory beside the measurements: the spread between instances (the peer's
//! own sizing is its adapter's, `bloomlab_lab::peers::growable`).

use bloomlab::theory::classic::{partitioned_rate_sd, rate_sd};

/// The bit table of one layer, for [`instance_sd`].
pub(super) enum LayerTable {
    /// `bits` bits, `draws = k·n` positions set.
    Classic { bits: f64, draws: f64, k: f64 },
    /// `k` slices of `bits` bits, `draws = n` positions set in each.
    Partitioned { bits: f64, draws: f64, k: f64 },
}

/// How much the rate of one filter differs from the next one's built the
/// same way with another hash key: the standard deviation, over filters, of
/// the compound rate of layers `tables`.
///
/// Each layer's spread is `theory::classic::rate_sd` (or
/// `partitioned_rate_sd`), and the compound rate's, to first order, the
/// root of the sum of the layers' variances. The Clopper–Pearson interval
/// covers only the probes; this covers the filter.
pub(super) fn instance_sd(tables: impl Iterator<Item = LayerTable>) -> f64 {
    tables
        .map(|t| match t {
            LayerTable::Classic { bits, draws, k } => rate_sd(bits, draws, k),
            LayerTable::Partitioned { bits, draws, k } => partitioned_rate_sd(bits, draws, k),
        })
        .map(|sd| sd * sd)
        .sum::<f64>()
        .sqrt()
}
