#![doc = include_str!("../README.md")]
//!
//! ## Contents
//!
//! - [`prelude`]: the traits and filter types most programs need;
//! - the filter types at the top level ([`BloomFilter`],
//!   [`BlockedBloomFilter`], [`AtomicBloomFilter`], [`CountingBloomFilter`],
//!   [`BlockedCountingBloomFilter`], [`ScalableBloomFilter`], [`CuckooFilter`],
//!   [`BinaryFuseFilter`], [`QuotientFilter`]), with every error a program
//!   meets, the variant crates' own errors named after their variant
//!   ([`ClassicBuildError`], …);
//! - the variant crates whole, as [`classic`], [`counting`], [`scalable`],
//!   [`cuckoo`], [`fuse`] and [`quotient`], and the shared [`core`] with its [`theory`];
//! - [`catalog`]: every variant in one list, with what it can do, how its
//!   constructor sizes a table, and a constructor and a decoder behind
//!   `Box<dyn …>`.
//!
//! ## Glossary
//!
//! Each idea has one name in every crate: the filters in memory, those in
//! Redis (`bloomlab-redis`) and the Guava bridge (`bloomlab-guava`, which
//! also keeps Guava's own names).
//!
//! | Name | What it is |
//! |------|------------|
//! | `len` | Items recorded: successful inserts minus successful removes, counted exactly. An item inserted twice counts twice. |
//! | `added` | Scalable filters only: the inserts the layers took, those of an item not yet reported present. |
//! | `estimate_count` | Distinct items, estimated from the table alone (the bits or cells set). It does not see duplicates. |
//! | `count(item)` | How many times one item is held, at most: the filters that count copies (counting, cuckoo, quotient). |
//! | `expected_fpr` | The false-positive rate theory predicts at the load `len` gives. |
//! | `estimated_fpr` | The false-positive rate of the table as it stands, from its fill. |
//! | `target_fpr` | Filters that grow: the total false-positive rate kept at every size. |
//! | `fill_ratio` | The fraction of the table in use: bits set, counters not zero, or slots taken. |
//!
//! The two counts and the two rates part when items repeat:
//!
//! ```
//! use bloomlab::BloomFilter;
//!
//! let mut f = BloomFilter::<str>::builder(1_000, 0.01).seed(1).build()?;
//! for _ in 0..1_000 {
//!     f.insert("same")?;
//! }
//! assert_eq!(f.len(), 1_000);
//! assert!((f.estimate_count() - 1.0).abs() < 0.01); // one item's bits
//! // The rate of 1,000 distinct items, as the builder planned it …
//! assert!(f.expected_fpr() <= 0.01);
//! // … and of the table as it is: one item's bits.
//! assert!(f.estimated_fpr() < f.expected_fpr() * 1e-6);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Old names stay for one release as deprecated aliases: `load_factor`
//! (cuckoo, quotient) is `fill_ratio`; the scalable filter's `fpr` and the
//! quotient filter's `promised_fpr` are `target_fpr`; the cuckoo filter's
//! `fpr_from_occupancy` is `estimated_fpr`, and so is the Redis Bloom and
//! counting filters' `expected_fpr`, since they keep no count of inserts.
#![doc(html_root_url = "https://docs.rs/bloomlab/0.1.0")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod catalog;

use std::hash::Hash;

#[doc(inline)]
pub use bloomlab_classic as classic;
#[doc(inline)]
pub use bloomlab_core as core;
#[doc(inline)]
pub use bloomlab_counting as counting;
#[doc(inline)]
pub use bloomlab_cuckoo as cuckoo;
#[doc(inline)]
pub use bloomlab_fuse as fuse;
#[doc(inline)]
pub use bloomlab_quotient as quotient;
#[doc(inline)]
pub use bloomlab_scalable as scalable;

pub use bloomlab_classic::{AtomicBloomFilter, BlockedBloomFilter, BloomFilter};
pub use bloomlab_core::{
    DecodeError, DefaultHasher, Deletable, Filter, HashDeletable, HashMembership, InsertBatchError,
    InsertError, Lookup, Membership, ParamError, Persist, RemoveError, Tag, theory,
};
pub use bloomlab_counting::{BlockedCountingBloomFilter, CountingBloomFilter};
pub use bloomlab_cuckoo::CuckooFilter;
pub use bloomlab_fuse::BinaryFuseFilter;
pub use bloomlab_quotient::QuotientFilter;
pub use bloomlab_scalable::ScalableBloomFilter;

// Each variant crate has its own build and merge errors (its build error is
// core's `BuildError` of its own `Invalid` reasons); here they carry the
// variant in their names, so every error a program meets has a top-level path.
pub use bloomlab_classic::{
    BuildError as ClassicBuildError, Invalid as ClassicInvalid, MergeError as ClassicMergeError,
};
pub use bloomlab_counting::{
    BuildError as CountingBuildError, Invalid as CountingInvalid, MergeError as CountingMergeError,
};
pub use bloomlab_cuckoo::{BuildError as CuckooBuildError, Invalid as CuckooInvalid};
pub use bloomlab_fuse::{BuildError as FuseBuildError, Invalid as FuseInvalid};
pub use bloomlab_quotient::{
    BuildError as QuotientBuildError, Invalid as QuotientInvalid, MergeError as QuotientMergeError,
};
pub use bloomlab_scalable::{BuildError as ScalableBuildError, Invalid as ScalableInvalid};

/// Every family's descriptors, in report order: the catalog's list
/// ([`catalog::Catalog::standard`]). A new family adds its crate's
/// `descriptors` here.
fn families<T: Hash + ?Sized + 'static>() -> Vec<catalog::Descriptor<T>> {
    [
        bloomlab_classic::descriptor::descriptors(),
        bloomlab_counting::descriptor::descriptors(),
        bloomlab_scalable::descriptor::descriptors(),
        bloomlab_cuckoo::descriptor::descriptors(),
        bloomlab_fuse::descriptor::descriptors(),
        bloomlab_quotient::descriptor::descriptors(),
    ]
    .concat()
}

/// The traits and types most programs need: `use bloomlab::prelude::*;`.
pub mod prelude {
    pub use bloomlab_classic::{AtomicBloomFilter, BlockedBloomFilter, BloomFilter};
    pub use bloomlab_core::{
        DecodeError, DefaultHasher, Deletable, Filter, InsertBatchError, InsertError, Membership,
        ParamError, Persist, RemoveError,
    };
    pub use bloomlab_counting::{BlockedCountingBloomFilter, CountingBloomFilter};
    pub use bloomlab_cuckoo::CuckooFilter;
    pub use bloomlab_quotient::QuotientFilter;
    pub use bloomlab_scalable::ScalableBloomFilter;
}
