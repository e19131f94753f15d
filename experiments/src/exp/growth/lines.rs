//! The charts' theory and memory lines, and the verdict helpers of the table.

use super::*;

/// The theory line of `subject` over n0..n_max (on [`grid`]), from its
/// parameters alone ([`Subject::fpr_after`]): n distinct items, where the
/// filters skip the few inserts already reported present (each row's
/// theory uses the items the filter recorded instead).
pub(super) fn theory_line(subject: &Subject, n0: u64, n_max: u64) -> Vec<(f64, f64)> {
    grid(n0, n_max)
        .into_iter()
        .map(|n| (n as f64, subject.fpr_after(n0, n)))
        .collect()
}

/// Bits per item the sizing rules predict over n0..n_max, on the grid of
/// [`grid`]: the sawtooth of tables allocated whole.
pub(super) fn memory_line(
    subject: &Subject,
    n0: u64,
    n_max: u64,
) -> Result<Vec<(f64, f64)>, Error> {
    grid(n0, n_max)
        .into_iter()
        .map(|n| Ok((n as f64, subject.bits_after(n0, n)? as f64 / n as f64)))
        .collect()
}

/// Item counts from n0 to n_max, 24 a doubling, and each layer boundary
/// and the item after it, so that lines show the jumps where they are.
pub(super) fn grid(n0: u64, n_max: u64) -> Vec<u64> {
    let steps = ((n_max as f64 / n0 as f64).log2() * 24.0).ceil() as u64;
    let mut out: Vec<u64> = (0..=steps)
        .map(|i| ((n0 as f64 * 2f64.powf(i as f64 / 24.0)).round() as u64).min(n_max))
        .collect();
    for l in 1..=LAYERS {
        let edge = n0 * ((1u64 << l) - 1);
        out.extend([edge, edge + 1].into_iter().filter(|&n| n <= n_max));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether a measured rate is above `target`: "yes" when the whole 95%
/// interval is, "no" when it is entirely at or below, else "within interval".
pub(super) fn above(lo: f64, hi: f64, target: f64) -> &'static str {
    if lo > target {
        "yes"
    } else if hi <= target {
        "no"
    } else {
        "within interval"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn above_target_needs_the_whole_interval() {
        assert_eq!(above(0.011, 0.012, 0.01), "yes");
        assert_eq!(above(0.009, 0.011, 0.01), "within interval");
        assert_eq!(above(0.008, 0.01, 0.01), "no");
    }
}
