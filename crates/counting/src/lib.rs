#![doc = include_str!("../README.md")]
//!
//! ## Contents
//!
//! - [`CountingBloomFilter`]: the filter, [`Membership`] and [`Deletable`]
//!   over its items; [`to_bloom`](CountingBloomFilter::to_bloom) hands out
//!   the classic filter of its non-zero counters;
//! - [`Builder`]: counter width (4, 8 or 16 bits), hash key or hasher,
//!   memory limit;
//! - [`BlockedCountingBloomFilter`] and [`BlockedCountingBuilder`]: the
//!   one-line form, each item's counters in one 64-byte block, laid out as
//!   a [`BlockLayout`];
//! - [`BuildError`] and [`MergeError`]: why a filter could not be built or
//!   merged.
//!
//! [`Deletable::remove`] refuses an item the counters prove absent and
//! changes nothing. The theory of saturation, and of how rarely a 4-bit
//! counter saturates, is in [`bloomlab_core::theory::counting`].
#![doc(html_root_url = "https://docs.rs/bloomlab-counting/0.1.0")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod blocked;
mod builder;
mod codec;
mod counters;
pub mod descriptor;
mod error;
mod filter;
#[cfg(feature = "serde")]
mod serde_impls;

// The traits and errors this crate's API uses, so that a program depending on
// bloomlab-counting alone can name them.
pub use blocked::{
    BLOCK_COUNTERS, BLOCKED_TAG, BlockedCountingBloomFilter, BlockedCountingBuilder,
};
/// The layouts of the one-line filter's block, shared with the blocked Bloom
/// filter.
pub use bloomlab_classic::BlockLayout;
pub use bloomlab_core::{
    DecodeError, DefaultHasher, Deletable, Filter, HashDeletable, HashMembership, InsertBatchError,
    InsertError, Membership, ParamError, Persist, RemoveError, Tag,
};
pub use builder::{Builder, DEFAULT_WIDTH};
pub use codec::TAG;
pub use error::{BuildError, Invalid, MergeError};
pub use filter::CountingBloomFilter;
