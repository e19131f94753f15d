//! The filters under test: the catalog's entries, built by the experiments'
//! rule and driven through `dyn AnyFilter`.

use bloomlab::catalog::{self, AnyFilter, Shape, Variant};

use super::Error;

/// Every catalog entry, in report order.
pub fn all() -> Vec<Variant<u64>> {
    catalog::variants()
}

/// A filter under test with the theory it is measured against.
pub struct Subject {
    /// The filter.
    pub filter: Box<dyn AnyFilter<u64>>,
    /// The table's shape, whose theory (`Shape::fpr`, from
    /// `bloomlab_core::theory` and the parameters alone, not the filter's own
    /// `expected_fpr`) the measurements are held against.
    pub shape: Shape,
    /// The parameters, for the report (`m=… k=…`; no commas).
    pub params: String,
    /// "k" for Bloom filters, "f" (fingerprint bits) for the cuckoo filter, and its
    /// value; for the cuckoo filter also its bucket size and layout.
    pub k_or_f: String,
}

impl Subject {
    /// The theory rate after `items` distinct inserts.
    pub fn theory(&self, items: u64) -> f64 {
        self.shape.fpr(items)
    }
}

/// Builds `v` for `items` at rate `fpr`, its hash key from `seed`. A filter
/// that grows is built for a tenth of the items, so that it grows through
/// several layers.
pub fn build(v: &Variant<u64>, items: usize, fpr: f64, seed: u64) -> Result<Subject, Error> {
    let err = format!("{} for {items} items at {fpr}", v.id);
    let capacity = if v.can.grow {
        (items / 10).max(1)
    } else {
        items
    };
    let filter = (v.build)(capacity, fpr, seed).map_err(Error::filter(&err))?;
    let shape = filter.shape();
    let (params, k_or_f) = describe(&shape);
    Ok(Subject {
        filter,
        shape,
        params,
        k_or_f,
    })
}

/// The parameters and the k-or-f column of a shape.
fn describe(shape: &Shape) -> (String, String) {
    match *shape {
        Shape::Bits { bits, hashes } => (format!("m={bits} k={hashes}"), format!("k={hashes}")),
        Shape::Blocks {
            blocks,
            hashes,
            width: 1,
            ..
        } => (format!("blocks={blocks} k={hashes}"), format!("k={hashes}")),
        Shape::Blocks {
            blocks,
            hashes,
            width,
            ..
        } => (
            format!("blocks={blocks} k={hashes} width={width}"),
            format!("k={hashes}"),
        ),
        Shape::Counters {
            counters,
            width,
            hashes,
        } => (
            format!("counters={counters} k={hashes} width={width}"),
            format!("k={hashes}"),
        ),
        Shape::Layers {
            initial_capacity,
            growth,
            tightening,
            ..
        } => (
            format!("n0={initial_capacity} s={growth} r={tightening}"),
            "k=varies".into(),
        ),
        Shape::Buckets {
            buckets,
            bucket_size,
            fingerprint_bits,
            semi_sorted,
        } => {
            let layout = if semi_sorted { "semi-sorted" } else { "plain" };
            let (b, f) = (bucket_size, fingerprint_bits);
            (
                format!("buckets={buckets} b={b} f={f} {layout}"),
                format!("f={f} b={b} {layout}"),
            )
        }
    }
}

/// The compound rate of a scalable filter after `n` distinct items, from
/// its first layer's capacity `n0`, growth `s`, total rate and tightening
/// ratio `r` (the catalog's `Shape::Layers` theory).
pub fn scalable_theory(n0: u64, s: u32, total: f64, r: f64, n: u64) -> f64 {
    Shape::Layers {
        initial_capacity: n0,
        growth: s,
        tightening: r,
        fpr: total,
    }
    .fpr(n)
}
