//! The filters under test: the catalog's entries, built by the experiments'
//! rule and driven through `dyn AnyFilter`.

use std::sync::{Arc, LazyLock};

use bloomlab::catalog::{AnyFilter, Catalog, Descriptor, Table};
use bloomlab::scalable::descriptor::Layers;

use super::Error;

/// The standard catalog, which a run uses unless it is given another.
pub fn standard() -> &'static Catalog<u64> {
    static STANDARD: LazyLock<Catalog<u64>> = LazyLock::new(Catalog::standard);
    &STANDARD
}

/// A filter under test with the theory it is measured against.
pub struct Subject {
    /// The filter.
    pub filter: Box<dyn AnyFilter<u64>>,
    /// The table, whose theory (from `bloomlab_core::theory` and the
    /// parameters alone, not the filter's own `expected_fpr`) the
    /// measurements are held against.
    pub table: Arc<dyn Table>,
    /// The parameters, for the report (`m=… k=…`; no commas).
    pub params: String,
    /// The parameter that sets the rate: "k" for Bloom filters, "f"
    /// (fingerprint bits) with the bucket size and layout for the cuckoo
    /// filter.
    pub k_or_f: String,
}

impl Subject {
    /// The theory rate after `items` distinct inserts.
    pub fn theory(&self, items: u64) -> f64 {
        self.table.fpr(items)
    }
}

/// The capacity the experiments build `v` with for `items`: a filter that
/// grows is built for a tenth of the items, so that it grows through
/// several layers.
pub fn capacity(v: &Descriptor<u64>, items: usize) -> usize {
    if v.can.grow {
        (items / 10).max(1)
    } else {
        items
    }
}

/// Builds `v` for `items` at rate `fpr` by the rule of [`capacity`], its
/// hash key from `seed`.
pub fn build(v: &Descriptor<u64>, items: usize, fpr: f64, seed: u64) -> Result<Subject, Error> {
    let err = format!("{} for {items} items at {fpr}", v.id);
    let filter = (v.build)(capacity(v, items), fpr, seed).map_err(Error::filter(&err))?;
    let table = filter.table();
    Ok(Subject {
        params: table.label(),
        k_or_f: table.key_parameter(),
        filter,
        table,
    })
}

/// The compound rate of a scalable filter after `n` distinct items, from
/// its first layer's capacity `n0`, growth `s`, total rate and tightening
/// ratio `r` (the theory of its [`Layers`]).
pub fn scalable_theory(n0: u64, s: u32, total: f64, r: f64, n: u64) -> f64 {
    Layers {
        initial_capacity: n0,
        growth: s,
        tightening: r,
        fpr: total,
    }
    .fpr(n)
}
