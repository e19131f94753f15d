//! The filters under test, built by name and driven through `dyn Membership`.

use bloomlab::prelude::*;

use super::Error;
use bloomlab::theory;

/// A filter variant the experiments measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `BloomFilter`.
    Classic,
    /// `BlockedBloomFilter` (512-bit blocks).
    Blocked,
    /// `AtomicBloomFilter`.
    Atomic,
    /// `CountingBloomFilter` with 4-bit counters.
    Counting,
    /// `ScalableBloomFilter` (s = 2, r = 0.85), built for a tenth of the capacity
    /// so that it grows through several layers.
    Scalable,
    /// `CuckooFilter` with 4-slot buckets, plain (one fingerprint a slot).
    Cuckoo,
    /// `CuckooFilter` with semi-sorted 4-slot buckets (one bit less a slot).
    CuckooSemi,
}

impl Kind {
    /// Every variant, in report order.
    pub const ALL: [Kind; 7] = [
        Kind::Classic,
        Kind::Blocked,
        Kind::Atomic,
        Kind::Counting,
        Kind::Scalable,
        Kind::Cuckoo,
        Kind::CuckooSemi,
    ];

    /// The name used in CSV files and plots.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Classic => "classic",
            Kind::Blocked => "blocked",
            Kind::Atomic => "atomic",
            Kind::Counting => "counting",
            Kind::Scalable => "scalable",
            Kind::Cuckoo => "cuckoo",
            Kind::CuckooSemi => "cuckoo-ss",
        }
    }

    /// The Rust type, for prose.
    pub fn type_name(self) -> &'static str {
        match self {
            Kind::Classic => "BloomFilter",
            Kind::Blocked => "BlockedBloomFilter",
            Kind::Atomic => "AtomicBloomFilter",
            Kind::Counting => "CountingBloomFilter",
            Kind::Scalable => "ScalableBloomFilter",
            Kind::Cuckoo => "CuckooFilter (plain)",
            Kind::CuckooSemi => "CuckooFilter (semi-sorted)",
        }
    }

    /// The operations beyond insert and look-up (no commas: it goes into CSV).
    pub fn operations(self) -> &'static str {
        match self {
            Kind::Classic | Kind::Blocked => "union and intersect",
            Kind::Atomic => "concurrent insert",
            Kind::Counting => "delete and union",
            Kind::Scalable => "grow",
            Kind::Cuckoo | Kind::CuckooSemi => "delete",
        }
    }
}

/// A filter under test with the theory it is measured against.
pub struct Subject {
    /// The filter.
    pub filter: Box<dyn Membership<u64>>,
    /// The theory function's rate after `items` distinct inserts, computed
    /// from the filter's parameters with `bloomlab_core::theory` (not from the
    /// filter's own `expected_fpr`, which the conformance tests check).
    pub theory: Box<dyn Fn(u64) -> f64>,
    /// The parameters, for the report (`m=… k=…`; no commas).
    pub params: String,
    /// "k" for Bloom filters, "f" (fingerprint bits) for the cuckoo filter, and its
    /// value; for the cuckoo filter also its bucket size and layout.
    pub k_or_f: String,
}

/// Builds `kind` for `items` at rate `fpr`, its hash key from `seed`.
pub fn build(kind: Kind, items: usize, fpr: f64, seed: u64) -> Result<Subject, Error> {
    let err = format!("{} for {items} items at {fpr}", kind.name());
    Ok(match kind {
        Kind::Classic => {
            let f = BloomFilter::builder(items, fpr)
                .seed(seed)
                .build()
                .map_err(Error::filter(&err))?;
            let (m, k) = (f.num_bits(), f.num_hashes());
            classic_subject(Box::new(f), m, k)
        }
        Kind::Atomic => {
            let f = AtomicBloomFilter::builder(items, fpr)
                .seed(seed)
                .build()
                .map_err(Error::filter(&err))?;
            let (m, k) = (f.num_bits(), f.num_hashes());
            classic_subject(Box::new(f), m, k)
        }
        Kind::Counting => {
            let f = CountingBloomFilter::builder(items, fpr)
                .seed(seed)
                .build()
                .map_err(Error::filter(&err))?;
            let (m, k, w) = (f.num_counters(), f.num_hashes(), f.counter_width());
            let mut s = classic_subject(Box::new(f), m, k);
            s.params = format!("counters={m} k={k} width={w}");
            s
        }
        Kind::Blocked => {
            let f = BlockedBloomFilter::builder(items, fpr)
                .seed(seed)
                .build()
                .map_err(Error::filter(&err))?;
            let (blocks, k) = (f.num_blocks(), f.num_hashes());
            Subject {
                filter: Box::new(f),
                theory: Box::new(move |n| theory::blocked::fpr_exact(512, blocks, n, k)),
                params: format!("blocks={blocks} k={k}"),
                k_or_f: format!("k={k}"),
            }
        }
        Kind::Scalable => {
            let n0 = (items / 10).max(1);
            let f = ScalableBloomFilter::builder(n0, fpr)
                .seed(seed)
                .build()
                .map_err(Error::filter(&err))?;
            let (s, r) = (f.growth_factor(), f.tightening_ratio());
            let n0 = n0 as u64;
            Subject {
                filter: Box::new(f),
                theory: Box::new(move |n| scalable_theory(n0, s, fpr, r, n)),
                params: format!("n0={n0} s={s} r={r}"),
                k_or_f: "k=varies".into(),
            }
        }
        Kind::Cuckoo | Kind::CuckooSemi => {
            // 4-slot buckets always, the layout named: no row changes either
            // silently (the fingerprint takes what the rate needs, 4 to 32 bits).
            let semi = kind == Kind::CuckooSemi;
            let f = CuckooFilter::builder(items, fpr)
                .semi_sorted(semi)
                .seed(seed)
                .build()
                .map_err(Error::filter(&err))?;
            let (fp, b, slots) = (f.fingerprint_bits(), f.bucket_size(), f.capacity());
            let layout = if semi { "semi-sorted" } else { "plain" };
            Subject {
                filter: Box::new(f),
                theory: Box::new(move |n| theory::cuckoo::fpr(fp, b, n as f64 / slots as f64)),
                params: format!("buckets={} b={b} f={fp} {layout}", slots / u64::from(b)),
                k_or_f: format!("f={fp} b={b} {layout}"),
            }
        }
    })
}

fn classic_subject(filter: Box<dyn Membership<u64>>, m: u64, k: u32) -> Subject {
    Subject {
        filter,
        theory: Box::new(move |n| theory::classic::fpr(m as f64, n as f64, f64::from(k))),
        params: format!("m={m} k={k}"),
        k_or_f: format!("k={k}"),
    }
}

/// The compound rate of a scalable filter after `n` distinct items: full
/// layers at their capacity, the newest at what is left, each sized as the
/// filter sizes it (`theory::scalable::layer_size`).
pub fn scalable_theory(n0: u64, s: u32, total: f64, r: f64, n: u64) -> f64 {
    let mut left = n;
    let mut rates = Vec::new();
    for i in 0.. {
        let (Some(cap), Ok((m, k))) = (
            theory::scalable::layer_capacity(n0, s, i),
            theory::scalable::layer_size(n0, s, total, r, i),
        ) else {
            return f64::NAN;
        };
        let here = left.min(cap);
        rates.push(theory::classic::fpr(m as f64, here as f64, f64::from(k)));
        left -= here;
        if left == 0 {
            break;
        }
    }
    theory::scalable::compound_fpr(rates)
}
