//! A rank-and-select quotient filter.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod bits;
mod builder;
mod codec;
mod error;
mod filter;
#[cfg(feature = "serde")]
mod serde_impls;
mod table;

// The traits and errors this crate's API uses, so that a program depending
// on bloomlab-quotient alone can name them.
pub use bloomlab_core::{
    DecodeError, DefaultHasher, Deletable, Filter, HashDeletable, HashMembership, InsertBatchError,
    InsertError, Membership, ParamError, Persist, RemoveError, Tag,
};
pub use builder::{Builder, Plan, plan};
pub use codec::TAG;
pub use error::{BuildError, Invalid, MergeError};
pub use filter::QuotientFilter;

/// The fraction of its canonical slots a table fills before it is full
/// (or grows): 95%, the highest load of the paper's measurements.
pub const MAX_LOAD: f64 = 0.95;

/// The most quotient bits: tables of up to `2^40` canonical slots.
pub const MAX_QUOTIENT_BITS: u32 = 40;
