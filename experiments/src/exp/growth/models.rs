//! Theory beside the measurements: the spread between instances, and the peer's own sizing.

use super::*;

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

/// One layer of `growable-bloom-filter` 2.1, as its `grow` and `Bloom::new` size it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct PeerLayer {
    /// Items the layer takes before the next is added: `n0 · 2^i`.
    pub(super) capacity: u64,
    /// Slices, one bit set in each per item: `⌈log2(1/p_i)⌉` with `p_i = P·r^i`.
    pub(super) slices: u64,
    /// Bits per slice, after the buffer is rounded to whole bytes.
    pub(super) slice_bits: u64,
    /// Bytes of the layer's buffer.
    pub(super) bytes: u64,
    /// Items in the layer.
    pub(super) items: u64,
}

impl PeerLayer {
    /// The rate of a partitioned Bloom filter of `slices` slices of
    /// `slice_bits` bits holding `items`: `(1 − (1 − 1/slice_bits)^items)^slices`
    /// (Almeida et al. 2007, §3, after Chang, Feng and Li 2004). Full, a
    /// slice is half set, so the rate is `2^−slices`, at or below `p_i`.
    pub(super) fn fpr(&self) -> f64 {
        let fill = -((self.items as f64) * (-1.0 / self.slice_bits as f64).ln_1p()).exp_m1();
        fill.powf(self.slices as f64)
    }
}

/// The layers `growable-bloom-filter` holds after `items` distinct inserts,
/// mirroring its sizing (checked against its serialized buffers in a test).
pub(super) fn peer_layers(n0: u64, items: u64) -> Vec<PeerLayer> {
    let mut layers = Vec::new();
    let mut left = items;
    let mut i = 0u32;
    while left > 0 || layers.is_empty() {
        let capacity = n0 << i;
        let p = TARGET * PEER_RATIO.powi(i as i32);
        let slices = (1.0 / p).log2().ceil() as u64;
        let slice_len = (capacity as f64 / LN_2).ceil() as u64;
        let bytes = (slices * slice_len).div_ceil(8);
        let here = left.min(capacity);
        layers.push(PeerLayer {
            capacity,
            slices,
            slice_bits: bytes * 8 / slices,
            bytes,
            items: here,
        });
        left -= here;
        i += 1;
    }
    layers
}

/// The peer's compound theory after `n` distinct inserts, for the plot's line.
pub(super) fn peer_theory(n0: u64, n: u64) -> f64 {
    theory::scalable::compound_fpr(peer_layers(n0, n).iter().map(PeerLayer::fpr))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mirrored sizing must match the buffers the peer really allocates:
    /// its serde form lists each layer's bytes ("b") and slice count ("k").
    #[test]
    fn peer_sizing_matches_its_buffers() {
        let n0 = 100;
        let mut peer = GrowableBloomBuilder::new()
            .estimated_insertions(n0 as usize)
            .desired_error_ratio(TARGET)
            .build();
        let n = 100 * 63; // six full layers
        for key in 0..n {
            peer.insert(key);
        }
        let json = serde_json::to_value(&peer).unwrap();
        let blooms = json["b"].as_array().unwrap();
        let plan = peer_layers(n0, peer.len() as u64);
        assert_eq!(blooms.len(), plan.len());
        for (bloom, layer) in blooms.iter().zip(&plan) {
            assert_eq!(bloom["b"].as_array().unwrap().len() as u64, layer.bytes);
            assert_eq!(bloom["k"].as_u64().unwrap(), layer.slices);
        }
        assert_eq!(
            peer.capacity() as u64,
            plan.iter().map(|l| l.capacity).sum::<u64>()
        );
    }

    /// Hand-computed: layer 0 at p = 0.01 has ⌈log2 100⌉ = 7 slices of
    /// ⌈1000/ln 2⌉ = 1443 bits (1443·7 = 10101 bits → 1263 bytes → 1443 bits
    /// a slice). Full with 1000 items, a slice is 1 − (1 − 1/1443)^1000 =
    /// 0.49997 set, so the layer passes 0.49997^7 = 0.0078: under 0.01. Layer 1
    /// at 0.0085 also gets 7 slices, so two full layers already compound to
    /// 1 − (1 − 0.0078)^2 = 0.0155, above the P the peer was built with.
    #[test]
    fn peer_theory_by_hand() {
        let one = peer_layers(1000, 1000);
        assert_eq!(one.len(), 1);
        assert_eq!(
            (one[0].slices, one[0].slice_bits, one[0].bytes),
            (7, 1443, 1263)
        );
        let fill: f64 = 1.0 - (1.0 - 1.0 / 1443.0f64).powi(1000);
        assert!((one[0].fpr() / fill.powi(7) - 1.0).abs() < 1e-12);
        assert!((one[0].fpr() - 0.0078).abs() < 0.0001);
        let two = peer_theory(1000, 3000);
        assert!((two - 0.0155).abs() < 0.0002, "{two}");
        assert!(two > TARGET);
        // Ten full layers get ⌈log2(1/(P·r^i))⌉ = 7, 7, 8, 8, 8, 8, 9, 9, 9, 9
        // slices, each passing about 2^−k: 1 − (127/128)²(255/256)⁴(511/512)⁴
        // = 0.0384, under the bound P/(1 − r) = 0.0674 but almost 4 × P.
        let end = peer_theory(1000, 1_023_000);
        assert!((end - 0.0384).abs() < 0.0002, "{end}");
        assert!(end < Which::Peer.bound());
        let slices: Vec<u64> = peer_layers(1000, 1_023_000)
            .iter()
            .map(|l| l.slices)
            .collect();
        assert_eq!(slices, vec![7, 7, 8, 8, 8, 8, 9, 9, 9, 9]);
    }
}
