//! A scalable Bloom filter: it grows past its initial capacity and keeps the
//! total false-positive rate it was built for at every size.
//!
//! When the number of items is not known in advance, a classic Bloom filter
//! sized too small overshoots its rate, and one sized too large wastes
//! memory. [`ScalableBloomFilter`] (Almeida, Baquero, Preguiça and
//! Hutchison, "Scalable Bloom Filters", 2007) chains classic
//! [`BloomFilter`]s: layer `i` holds
//! `n0·s^i` items at rate `P·(1 − r)·r^i`, so the compound rate
//! `1 − Π(1 − p_i)` stays below the total `P` however far it grows
//! ([`theory::scalable`](bloomlab_core::theory::scalable)). The default
//! growth factor is `s = 2` and the tightening ratio `r = 0.85`;
//! [`Builder::redisbloom`] gives RedisBloom's schedule (`s = 2`, layer `i`
//! at `P·0.5^(i+1)`) for comparison, and [`Builder::max_bytes`] caps the
//! memory, after which an insert that needs a new layer fails with
//! [`InsertError::Full`] and loses nothing.
//!
//! Unlike peers that take the first layer's rate and end up near
//! `p/(1 − r)` (6.7× `p` at `r = 0.85`), the rate given here is the total.
//!
//! # Example
//!
//! A filter told to expect 1,000 items takes 127,000 at 1%: seven layers
//! (1k + 2k + … + 64k), 15.2 bits per item where a classic filter
//! right-sized for 127,000 would take 9.6, and 0.68% of absent items pass,
//! under the 1% promised (theory at this load: 0.67%).
//!
//! ```
//! use bloomlab_scalable::ScalableBloomFilter;
//!
//! let mut f = ScalableBloomFilter::builder(1_000, 0.01).seed(7).build()?;
//! for i in 0..127_000u64 {
//!     f.insert(&i)?;
//! }
//! assert_eq!(f.layers().len(), 7);
//! assert!((0..127_000u64).all(|i| f.contains(&i))); // no false negatives
//! // 693 inserts found their item already reported present and added nothing.
//! assert_eq!((f.len(), f.added()), (127_000, 126_307));
//!
//! let bits_per_item = f.memory_bytes() as f64 * 8.0 / 127_000.0;
//! assert!((bits_per_item - 15.25).abs() < 0.01, "{bits_per_item}");
//! let false_positives = (1u64 << 40..(1 << 40) + 100_000).filter(|i| f.contains(i)).count();
//! assert_eq!(false_positives, 680); // 0.68% of 100,000 probes
//! assert!((f.expected_fpr() - 0.0067).abs() < 0.0001);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod builder;
pub mod codec;
mod error;
mod filter;
mod schedule;
#[cfg(feature = "serde")]
mod serde_impls;

// The traits, errors and layer type this crate's API uses, so that a program
// depending on bloomlab-scalable alone can name them.
pub use bloomlab_classic::BloomFilter;
pub use bloomlab_core::{
    DecodeError, DefaultHasher, Filter, InsertBatchError, InsertError, Membership, ParamError,
    Persist,
};
pub use builder::Builder;
pub use error::BuildError;
pub use filter::{COLLECT_FPR, COLLECT_MIN_CAPACITY, ScalableBloomFilter};
pub use schedule::{DEFAULT_GROWTH_FACTOR, DEFAULT_TIGHTENING_RATIO, GROWTH_FACTORS};
