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
