//! The shared foundation of the bloomlab filters.
//!
//! `bloomlab-core` holds no filter. It holds what every filter shares:
//!
//! - [`Filter`], [`Membership`] and [`Deletable`], the traits every variant implements, so
//!   one loop can drive a classic, counting, scalable or cuckoo filter alike;
//! - [`DefaultHasher`], a keyed SipHash-1-3 whose key is random unless a seed
//!   is given, and the [`hash`] helpers that turn one 64-bit hash into the k
//!   probe positions of a filter;
//! - [`theory`], the published formulas each filter is measured against;
//! - [`codec`], the versioned, checksummed binary envelope every filter is
//!   stored in, with its typed [`DecodeError`];
//! - [`alloc`], the fallible, lazily zeroed allocation of every table a
//!   caller can size;
//! - the error types shared by all variants ([`InsertError`], [`RemoveError`],
//!   [`ParamError`]).
//!
//! # Example
//!
//! Sizing a filter from theory: one item in a hundred may be a false positive.
//!
//! ```
//! use bloomlab_core::theory::classic;
//!
//! let bits = classic::optimal_num_bits(1_000, 0.001).unwrap();
//! let k = classic::optimal_num_hashes(bits, 1_000).unwrap();
//! assert_eq!((bits, k), (14_377, 10)); // Guava sizes the same filter alike
//! let rate = classic::fpr(bits as f64, 1_000.0, k as f64);
//! assert!((rate - 0.001).abs() < 0.0001);
//! ```
#![deny(missing_docs)]
#![deny(unsafe_code)]

pub mod alloc;
pub mod batch;
pub mod codec;
mod error;
pub mod hash;
mod membership;
#[cfg(feature = "serde")]
pub mod serde_envelope;
pub mod theory;

pub use codec::{DecodeError, Persist};
pub use error::{InsertBatchError, InsertError, ParamError, RemoveError, ShortFloat, check_fpr};
pub use hash::DefaultHasher;
pub use membership::{Deletable, Filter, Membership};
