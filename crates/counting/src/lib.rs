//! bloomlab-counting: a counting Bloom filter that deletes safely.
//!
//! [`CountingBloomFilter`] keeps a small counter (4 bits by default, as Fan,
//! Cao, Almeida and Broder recommend in "Summary cache", 2000; 8 or 16 on
//! request) where a classic Bloom filter keeps a bit, so an item can be
//! removed by decrementing what its insert incremented. It answers exactly as
//! the classic filter of its non-zero counters, which
//! [`to_bloom`](CountingBloomFilter::to_bloom) hands out.
//!
//! Its counters saturate and stay saturated: a counter at its maximum is
//! never incremented or decremented again. Saturation can therefore only add
//! false positives, never a false negative, and no item that was inserted and
//! not removed is ever reported absent, however overloaded the filter, as
//! long as only inserted items are removed. [`Deletable::remove`] refuses an
//! item the counters prove absent and changes nothing. The theory of both,
//! and of how rarely a 4-bit counter saturates, is in
//! [`bloomlab_core::theory::counting`].
//!
//! # Example
//!
//! A filter for 10,000 items at 1%: four times the memory of the classic
//! filter, and half the items removed again.
//!
//! ```
//! use bloomlab_counting::CountingBloomFilter;
//!
//! // A fixed seed makes this example repeatable; a service uses `new`, whose
//! // hash key is secret and random.
//! let mut f = CountingBloomFilter::builder(10_000, 0.01).seed(7).build()?;
//! assert_eq!((f.num_counters(), f.num_hashes(), f.counter_width()), (95_936, 7, 4));
//! let bits_per_item = f.memory_bytes() as f64 * 8.0 / 10_000.0;
//! assert!((bits_per_item - 38.37).abs() < 0.01); // 4 × 9.59 bits
//!
//! for id in 0..10_000u64 {
//!     f.insert(&id)?;
//! }
//! let fp = (1_000_000..1_100_000u64).filter(|id| f.contains(id)).count();
//! assert_eq!(fp, 1_009); // 1.01% of 100,000 probes; theory says 1.00%
//! assert!((f.expected_fpr() - 0.0100).abs() < 0.0001);
//!
//! for id in 0..5_000u64 {
//!     f.remove(&id)?;
//! }
//! assert!((5_000..10_000u64).all(|id| f.contains(&id)), "no kept item is lost");
//! assert_eq!(f.len(), 5_000);
//! assert_eq!(f.saturated_counters(), 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`Deletable::remove`]: bloomlab_core::Deletable::remove
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod builder;
mod codec;
mod counters;
mod error;
mod filter;
#[cfg(feature = "serde")]
mod serde_impls;

// The traits and errors this crate's API uses, so that a program depending on
// bloomlab-counting alone can name them.
pub use bloomlab_core::{
    DecodeError, DefaultHasher, Deletable, Filter, InsertBatchError, InsertError, Membership,
    ParamError, Persist, RemoveError,
};
pub use builder::{Builder, DEFAULT_WIDTH};
pub use error::{BuildError, MergeError};
pub use filter::CountingBloomFilter;
