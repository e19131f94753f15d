//! The filters under test, built by name and driven through `dyn Membership`.

use bloomlab::prelude::*;
use bloomlab::theory;

/// A filter variant the experiments measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `BloomFilter`.
    Classic,
    /// `BlockedBloomFilter` (512-bit blocks).
    Blocked,
}

impl Kind {
    /// The name used in CSV files and plots.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Classic => "classic",
            Kind::Blocked => "blocked",
        }
    }
}

/// A filter under test with the theory it is measured against.
pub struct Subject {
    /// The filter.
    pub filter: Box<dyn Membership<u64>>,
    /// The theory function's rate after `items` distinct inserts, computed
    /// from the filter's parameters (not from the filter's own report).
    pub theory: Box<dyn Fn(u64) -> f64>,
    /// The parameters, for the report (`m = …, k = …`).
    pub params: String,
}

/// Builds `kind` for `items` at rate `fpr`, its hash key from `seed`.
pub fn build(kind: Kind, items: usize, fpr: f64, seed: u64) -> Result<Subject, String> {
    match kind {
        Kind::Classic => {
            let f = BloomFilter::builder(items, fpr)
                .seed(seed)
                .build()
                .map_err(|e| e.to_string())?;
            let (m, k) = (f.num_bits(), f.num_hashes());
            Ok(Subject {
                filter: Box::new(f),
                theory: Box::new(move |n| theory::classic::fpr(m as f64, n as f64, f64::from(k))),
                params: format!("m={m} k={k}"),
            })
        }
        Kind::Blocked => {
            let f = BlockedBloomFilter::builder(items, fpr)
                .seed(seed)
                .build()
                .map_err(|e| e.to_string())?;
            let (blocks, k) = (f.num_blocks(), f.num_hashes());
            Ok(Subject {
                filter: Box::new(f),
                theory: Box::new(move |n| theory::blocked::fpr_exact(512, blocks, n, k)),
                params: format!("blocks={blocks} k={k}"),
            })
        }
    }
}
