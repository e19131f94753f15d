//! The filters under test: the catalog's entries, built by the experiments'
//! rule and driven through `dyn AnyFilter`.

use std::hint::black_box;
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use bloomlab::catalog::{AnyFilter, Build, Catalog, Descriptor, Table};
use bloomlab::scalable::descriptor::Layers;
use bloomlab::{InsertError, Membership};

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

    /// The filter's inserts; an error for a filter built from its keys,
    /// which the experiments that insert never pick (they take
    /// [`build`]'s subjects).
    pub fn inserts(&mut self) -> Result<&mut dyn Membership<u64>, Error> {
        self.filter
            .as_membership()
            .ok_or_else(|| Error::Invariant("a filter built from its keys takes no inserts".into()))
    }

    fn of(filter: Box<dyn AnyFilter<u64>>) -> Self {
        let table = filter.table();
        Subject {
            params: table.label(),
            k_or_f: table.key_parameter(),
            filter,
            table,
        }
    }
}

/// The capacity the experiments build `v` with for `items`: a filter that
/// grows is built for a tenth of the items, so that it grows through
/// several layers.
pub fn capacity(v: &Descriptor<u64>, items: usize) -> usize {
    match v.can.grow {
        true => (items / 10).max(1),
        false => items,
    }
}

/// Builds `v` empty for `items` at rate `fpr` by the rule of
/// [`capacity`], its hash key from `seed`: for the experiments that insert,
/// which pick the variants that take inserts (an error for one built from
/// its keys).
pub fn build(v: &Descriptor<u64>, items: usize, fpr: f64, seed: u64) -> Result<Subject, Error> {
    let err = format!("{} for {items} items at {fpr}", v.id);
    let build = v
        .empty()
        .ok_or_else(|| Error::Invariant(format!("{err}: built from its keys only")))?;
    let filter = build(capacity(v, items), fpr, seed).map_err(Error::filter(&err))?;
    Ok(Subject::of(filter))
}

/// `v` holding `keys`, at rate `fpr`, its hash key from `seed`, and how
/// long filling it took: built empty by the rule of [`capacity`] (for
/// `keys.len()` items) and filled one insert at a time, the inserts timed,
/// or built from the keys, the construction timed. What every variant
/// offers, for the experiments that only look up.
pub fn holding(
    v: &Descriptor<u64>,
    keys: &[u64],
    fpr: f64,
    seed: u64,
) -> Result<(Subject, Duration), Error> {
    let err = format!("{} holding {} keys at {fpr}", v.id, keys.len());
    match v.build {
        Build::Empty(_) => {
            let mut s = build(v, keys.len(), fpr, seed)?;
            let m = s.inserts()?;
            let start = Instant::now();
            for k in keys {
                match m.insert(black_box(k)) {
                    Ok(_) => {}
                    Err(InsertError::Full) => {
                        return Err(Error::Invariant(format!(
                            "{err}: full before the {} items it was built for",
                            keys.len()
                        )));
                    }
                    Err(e) => return Err(Error::filter(&err)(e)),
                }
            }
            Ok((s, start.elapsed()))
        }
        Build::FromKeys(from_keys) => {
            let keys: Vec<&u64> = keys.iter().collect();
            let start = Instant::now();
            let filter = from_keys(black_box(&keys), fpr, seed).map_err(Error::filter(&err))?;
            Ok((Subject::of(filter), start.elapsed()))
        }
    }
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
