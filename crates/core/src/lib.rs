#![doc = include_str!("../README.md")]
//!
//! ## Contents
//!
//! - [`Filter`], [`Membership`] and [`Deletable`], the traits every variant implements, so
//!   one loop can drive a classic, counting, scalable or cuckoo filter alike;
//! - [`HashMembership`] and [`HashDeletable`], what a variant does with the
//!   hash of an item, from which [`by_hash`] defines its operations on
//!   items once for every variant (blanket impls of [`Membership`] and
//!   [`Deletable`]);
//! - [`DefaultHasher`], a keyed hash (AES-128-CMAC, [`AesCmac`]; SipHash-1-3
//!   for filters stored before) whose key is random unless a seed is given,
//!   and the [`hash`] helpers that turn one 64-bit hash into the k probe
//!   positions of a filter;
//! - [`theory`], the published formulas each filter is measured against;
//! - [`codec`], the versioned, checksummed binary envelope every filter is
//!   stored in, with its typed [`DecodeError`];
//! - the error types shared by all variants ([`InsertError`], [`RemoveError`],
//!   [`ParamError`], and the [`BuildError`] every builder's is).
#![doc(html_root_url = "https://docs.rs/bloomlab-core/0.1.0")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![deny(unsafe_code)]

#[doc(hidden)]
pub mod alloc;
pub mod batch;
pub mod bits;
#[doc(hidden)]
pub mod builder;
pub mod by_hash;
mod cmac;
pub mod codec;
pub mod descriptor;
mod error;
pub mod hash;
mod membership;
mod raw;
#[cfg(feature = "serde")]
pub mod serde_envelope;
pub mod shards;
pub mod theory;

pub use alloc::OutOfMemory;
pub use by_hash::{HashDeletable, HashMembership};
pub use cmac::{AesCmac, AesCmacHasher};
pub use codec::{DecodeError, Persist, Tag};
pub use error::{
    BuildError, InsertBatchError, InsertError, ParamError, RemoveError, ShortFloat, check_fpr,
    check_hashes,
};
pub use hash::DefaultHasher;
pub use membership::{Deletable, Filter, Lookup, Membership};
