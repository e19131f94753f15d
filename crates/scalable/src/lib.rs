#![doc = include_str!("../README.md")]
//!
//! ## Contents
//!
//! - [`ScalableBloomFilter`]: the filter, a chain of classic
//!   [`BloomFilter`]s, with [`Membership`] over its items; the compound rate
//!   is [`theory::scalable`](bloomlab_core::theory::scalable)'s;
//! - [`Builder`]: growth factor, tightening ratio, hash key or hasher;
//!   [`Builder::redisbloom`] gives RedisBloom's schedule (`s = 2`, layer `i`
//!   at `P·0.5^(i+1)`) for comparison, and [`Builder::max_bytes`] caps the
//!   memory, after which an insert that needs a new layer fails with
//!   [`InsertError::Full`] and loses nothing;
//! - [`BuildError`]: why a filter could not be built (with [`Invalid`], the
//!   reasons of this crate alone).
#![doc(html_root_url = "https://docs.rs/bloomlab-scalable/0.1.0")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod builder;
pub mod codec;
pub mod descriptor;
mod error;
mod filter;
mod schedule;
#[cfg(feature = "serde")]
mod serde_impls;

// The traits, errors and layer type this crate's API uses, so that a program
// depending on bloomlab-scalable alone can name them.
pub use bloomlab_classic::BloomFilter;
pub use bloomlab_core::{
    DecodeError, DefaultHasher, Filter, HashMembership, InsertBatchError, InsertError, Membership,
    ParamError, Persist, Tag,
};
pub use builder::Builder;
pub use codec::TAG;
pub use error::{BuildError, Invalid};
pub use filter::{COLLECT_FPR, COLLECT_MIN_CAPACITY, ScalableBloomFilter};
pub use schedule::{DEFAULT_GROWTH_FACTOR, DEFAULT_TIGHTENING_RATIO, GROWTH_FACTORS};
