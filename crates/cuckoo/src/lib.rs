//! bloomlab-cuckoo: a cuckoo filter that never loses an item when it fills.
//!
//! A [`CuckooFilter`] (Fan, Andersen, Kaminsky and Mitzenmacher, "Cuckoo
//! filter: practically better than Bloom", CoNEXT 2014) keeps one short
//! fingerprint per item in one of two candidate buckets of a bit-packed
//! table. It answers membership like a Bloom filter, and also removes items
//! and counts them, in about `(log2(1/ε) + 3) / 0.95` bits per item with
//! 4-slot buckets.
//!
//! Its catch is that it can fill: once an insert has moved
//! [`max_relocations`](CuckooFilter::max_relocations) fingerprints without
//! freeing a slot, it gives up. Some implementations then drop whichever
//! fingerprint was left in hand, a random stored item. This one undoes every
//! move and returns [`InsertError::Full`]:
//! a failed insert changes nothing, and every item stored is still found.
//!
//! - [`CuckooFilter<T>`](CuckooFilter): the filter of items of type `T`;
//!   [`Membership<T>`](Membership) and [`Deletable<T>`](Deletable),
//!   [`Persist`] through the core envelope;
//! - [`Builder`]: bucket size (2, 4, 8), fingerprint width (4 to 16 bits),
//!   hash key or hasher, relocation bound, memory limit;
//! - [`BuildError`]: why a filter could not be built.
//!
//! The formulas it is measured against are in
//! [`bloomlab_core::theory::cuckoo`].
//!
//! # Example
//!
//! Filling a table of 4,096 four-slot buckets with 12-bit fingerprints until
//! it refuses an item:
//!
//! ```
//! use bloomlab_cuckoo::CuckooFilter;
//!
//! let mut filter = CuckooFilter::builder_with_buckets(4_096, 12).seed(42).build()?;
//! let mut stored = Vec::new();
//! for key in 0u64.. {
//!     match filter.insert(&key) {
//!         Ok(_) => stored.push(key),
//!         Err(_) => break, // Full: nothing was inserted, nothing was lost
//!     }
//! }
//! // The paper reports 95%; this table took 15,795 of its 16,384 slots.
//! assert_eq!(filter.len(), 15_795);
//! assert!((filter.load_factor() - 0.964).abs() < 0.001);
//! assert!(stored.iter().all(|k| filter.contains(k)));
//!
//! // 48 bits a bucket: 12.45 bits per item at that load, 12 / 0.964.
//! let bits = filter.bits_per_item().unwrap();
//! assert!((bits - 12.45).abs() < 0.005, "{bits}");
//!
//! // Theory at that load: 1 − (1 − 1/4095)^(8 · 0.964) = 0.188%, so about
//! // 188 ± 14 of 100,000 keys never inserted; this key gives 202.
//! assert!((filter.expected_fpr() - 0.00188).abs() < 0.000005);
//! let false_alarms = (1u64 << 40..(1 << 40) + 100_000).filter(|k| filter.contains(k)).count();
//! assert_eq!(false_alarms, 202);
//!
//! // A remove frees a slot, and the refused item now fits.
//! filter.remove(&stored[0])?;
//! assert!(filter.insert(&u64::MAX).is_ok());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod builder;
mod codec;
mod error;
mod filter;
#[cfg(feature = "serde")]
mod serde_impls;
mod table;

// The traits and errors this crate's API uses, so that a program depending on
// bloomlab-cuckoo alone can name them.
pub use bloomlab_core::{
    DecodeError, DefaultHasher, Deletable, Filter, InsertBatchError, InsertError, Membership,
    ParamError, Persist, RemoveError,
};
pub use builder::{Builder, DEFAULT_MAX_RELOCATIONS, MAX_BUCKETS, MAX_RELOCATIONS, Plan, plan};
pub use error::BuildError;
pub use filter::CuckooFilter;
pub use table::{BUCKET_SIZES, FINGERPRINT_BITS};
