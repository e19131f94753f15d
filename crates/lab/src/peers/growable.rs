//! `growable-bloom-filter` 2.1's `GrowableBloom`: a scalable Bloom filter
//! of partitioned layers that hashes with its own unkeyed xxh3 (two
//! finishes per item) and takes no hasher.
//!
//! Layer `i` holds `n0 · s^i` items at rate `P · r^i`, so the total rate is
//! bounded only by `P/(1 − r)`: the crate is given the first layer's rate,
//! where bloomlab's scalable filter is given the total.

use std::f64::consts::LN_2;
use std::hash::Hash;

use bloomlab_core::theory::scalable;
use bloomlab_core::{Filter, InsertError, Membership};
use growable_bloom_filter::{GrowableBloom, GrowableBloomBuilder};

/// The crate's default growth factor, `DEFAULT_GROWTH_FACTOR` (private to it).
pub const DEFAULT_GROWTH_FACTOR: u32 = 2;

/// The crate's default tightening ratio, `DEFAULT_TIGHTENING_RATIO` (private
/// to it): 0.8515625, "about 0.85 with an exact binary representation".
pub const DEFAULT_TIGHTENING_RATIO: f64 = 0.851_562_5;

/// One layer of the crate's filter, as its `grow` and `Bloom::new` size it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layer {
    /// Items the layer takes before the next is added: `n0 · s^i`.
    pub capacity: u64,
    /// Slices, one bit set in each per item: `⌈log2(1/p_i)⌉` with `p_i = P·r^i`.
    pub slices: u64,
    /// Bits per slice, after the buffer is rounded to whole bytes.
    pub slice_bits: u64,
    /// Bytes of the layer's buffer.
    pub bytes: u64,
    /// Items in the layer.
    pub items: u64,
}

impl Layer {
    /// The rate of a partitioned Bloom filter of `slices` slices of
    /// `slice_bits` bits holding `items`: `(1 − (1 − 1/slice_bits)^items)^slices`
    /// (Almeida et al. 2007, §3, after Chang, Feng and Li 2004). Full, a
    /// slice is half set, so the rate is `2^−slices`, at or below `p_i`.
    pub fn fpr(&self) -> f64 {
        let fill = -((self.items as f64) * (-1.0 / self.slice_bits as f64).ln_1p()).exp_m1();
        fill.powf(self.slices as f64)
    }
}

/// How a filter is built: what the crate's builder is given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Items of the first layer (`estimated_insertions`).
    pub n0: u64,
    /// The first layer's rate (`desired_error_ratio`).
    pub fpr: f64,
    /// Growth factor `s`.
    pub growth: u32,
    /// Tightening ratio `r`.
    pub ratio: f64,
}

impl Params {
    /// The crate's defaults for the first layer's `n0` and `fpr`: what
    /// `GrowableBloom::new(fpr, n0)` builds.
    pub const fn defaults(n0: u64, fpr: f64) -> Self {
        Self {
            n0,
            fpr,
            growth: DEFAULT_GROWTH_FACTOR,
            ratio: DEFAULT_TIGHTENING_RATIO,
        }
    }

    /// The layers the crate holds after `items` distinct inserts, mirroring
    /// its sizing (checked against its serialized buffers in a test). Zero
    /// items still give the first layer, empty: the crate allocates it at
    /// the first insert.
    pub fn layers(&self, items: u64) -> Vec<Layer> {
        let mut layers = Vec::new();
        let mut left = items;
        let mut i = 0u32;
        while left > 0 || layers.is_empty() {
            let capacity = self.n0 * u64::from(self.growth).pow(i);
            let p = self.fpr * self.ratio.powi(i as i32);
            let slices = (1.0 / p).log2().ceil() as u64;
            let slice_len = (capacity as f64 / LN_2).ceil() as u64;
            let bytes = (slices * slice_len).div_ceil(8);
            let here = left.min(capacity);
            layers.push(Layer {
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

    /// The compound rate theory gives after `items` distinct inserts.
    pub fn fpr_after(&self, items: u64) -> f64 {
        scalable::compound_fpr(self.layers(items).iter().map(Layer::fpr))
    }
}

/// `growable_bloom_filter::GrowableBloom` behind bloomlab's traits.
///
/// `insert` passes on the crate's answer (it stores an item only when it is
/// not reported present) and `len` is the crate's count of those stores.
#[derive(Debug, Clone)]
pub struct Growable {
    inner: GrowableBloom,
    params: Params,
}

impl Growable {
    /// A filter whose first layer takes `params.n0` items at `params.fpr`.
    pub fn new(params: Params) -> Self {
        let inner = GrowableBloomBuilder::new()
            .estimated_insertions(params.n0 as usize)
            .desired_error_ratio(params.fpr)
            .growth_factor(params.growth as usize)
            .tightening_ratio(params.ratio)
            .build();
        Self { inner, params }
    }

    /// With the crate's default growth factor and tightening ratio, as
    /// `GrowableBloom::new(fpr, n0)` builds it.
    pub fn with_defaults(n0: u64, fpr: f64) -> Self {
        Self::new(Params::defaults(n0, fpr))
    }

    /// What it was built with.
    pub fn params(&self) -> Params {
        self.params
    }

    /// Its layers now.
    pub fn layers(&self) -> Vec<Layer> {
        self.params.layers(self.inner.len() as u64)
    }

    /// The crate's filter.
    pub fn inner(&self) -> &GrowableBloom {
        &self.inner
    }
}

impl Filter for Growable {
    fn len(&self) -> usize {
        self.inner.len()
    }

    fn memory_bytes(&self) -> usize {
        if self.inner.is_empty() {
            return 0;
        }
        self.layers().iter().map(|l| l.bytes as usize).sum()
    }

    fn expected_fpr(&self) -> f64 {
        self.params.fpr_after(self.inner.len() as u64)
    }

    fn clear(&mut self) {
        self.inner.clear();
    }
}

impl<T: Hash + ?Sized> Membership<T> for Growable {
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool, InsertError> {
        Ok(self.inner.insert(item))
    }

    #[inline]
    fn contains(&self, item: &T) -> bool {
        self.inner.contains(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mirrored sizing must match the buffers the crate really
    /// allocates: its serde form lists each layer's bytes ("b") and slice
    /// count ("k").
    #[test]
    fn layers_match_the_crates_buffers() {
        for params in [
            Params {
                n0: 100,
                fpr: 0.01,
                growth: DEFAULT_GROWTH_FACTOR,
                ratio: DEFAULT_TIGHTENING_RATIO,
            },
            Params {
                n0: 70,
                fpr: 0.001,
                growth: 3,
                ratio: 0.5,
            },
        ] {
            let mut f = Growable::new(params);
            let n = 100 * 63; // several full layers
            for key in 0..n {
                f.insert(&key).unwrap();
            }
            let json = serde_json::to_value(f.inner()).unwrap();
            let blooms = json["b"].as_array().unwrap();
            let plan = f.layers();
            assert_eq!(blooms.len(), plan.len());
            for (bloom, layer) in blooms.iter().zip(&plan) {
                assert_eq!(bloom["b"].as_array().unwrap().len() as u64, layer.bytes);
                assert_eq!(bloom["k"].as_u64().unwrap(), layer.slices);
            }
            assert_eq!(
                f.inner().capacity() as u64,
                plan.iter().map(|l| l.capacity).sum::<u64>()
            );
            assert_eq!(
                f.memory_bytes() as u64,
                plan.iter().map(|l| l.bytes).sum::<u64>()
            );
        }
    }

    /// Hand-computed: layer 0 at p = 0.01 has ⌈log2 100⌉ = 7 slices of
    /// ⌈1000/ln 2⌉ = 1443 bits (1443·7 = 10101 bits → 1263 bytes → 1443 bits
    /// a slice). Full with 1000 items, a slice is 1 − (1 − 1/1443)^1000 =
    /// 0.49997 set, so the layer passes 0.49997^7 = 0.0078: under 0.01. Layer 1
    /// at 0.0085 also gets 7 slices, so two full layers already compound to
    /// 1 − (1 − 0.0078)^2 = 0.0155, above the P the filter was built with.
    #[test]
    fn theory_by_hand() {
        let params = Params::defaults(1000, 0.01);
        let one = params.layers(1000);
        assert_eq!(one.len(), 1);
        assert_eq!(
            (one[0].slices, one[0].slice_bits, one[0].bytes),
            (7, 1443, 1263)
        );
        let fill: f64 = 1.0 - (1.0 - 1.0 / 1443.0f64).powi(1000);
        assert!((one[0].fpr() / fill.powi(7) - 1.0).abs() < 1e-12);
        assert!((one[0].fpr() - 0.0078).abs() < 0.0001);
        let two = params.fpr_after(3000);
        assert!((two - 0.0155).abs() < 0.0002, "{two}");
        // Ten full layers get ⌈log2(1/(P·r^i))⌉ = 7, 7, 8, 8, 8, 8, 9, 9, 9, 9
        // slices, each passing about 2^−k: 1 − (127/128)²(255/256)⁴(511/512)⁴
        // = 0.0384, under the bound P/(1 − r) = 0.0674 but almost 4 × P.
        let end = params.fpr_after(1_023_000);
        assert!((end - 0.0384).abs() < 0.0002, "{end}");
        assert!(end < 0.01 / (1.0 - DEFAULT_TIGHTENING_RATIO));
        let slices: Vec<u64> = params.layers(1_023_000).iter().map(|l| l.slices).collect();
        assert_eq!(slices, vec![7, 7, 8, 8, 8, 8, 9, 9, 9, 9]);
    }

    #[test]
    fn answers_as_the_crate_does() {
        let f = Growable::with_defaults(100, 0.01);
        assert_eq!(f.memory_bytes(), 0);
        crate::peers::tests::one_item_twice(f, false, 1);
    }
}
