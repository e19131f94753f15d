#![doc = include_str!("../README.md")]
//!
//! ## Contents
//!
//! - [`BloomFilter`] keeps `m` bits and sets `k` of them per item, chosen
//!   from one keyed 64-bit hash by enhanced double hashing. It never reports
//!   an inserted item absent, and reports an item it never saw present at
//!   the rate `(1 − e^{−kn/m})^k` after `n` items
//!   ([`theory::classic::fpr`](bloomlab_core::theory::classic::fpr)).
//! - [`BlockedBloomFilter`] puts all `k` bits of an item in one 512-bit
//!   block, one cache line: one memory access per lookup, for about 5% more
//!   bits at 1%. By default an item sets `k / 8` bits in each of the block's
//!   eight 64-bit words ([`BlockLayout::Sectors`],
//!   [`theory::sectored`](bloomlab_core::theory::sectored)); the layout of
//!   format versions 1 and 2, `k` positions anywhere in the block, remains
//!   ([`BlockLayout::Positions`],
//!   [`theory::blocked`](bloomlab_core::theory::blocked)).
//! - [`AtomicBloomFilter`] is a `BloomFilter` whose inserts take `&self`,
//!   for threads that share one filter without a lock.
//!
//! All three implement [`Membership`] (from their [`HashMembership`]
//! operations) and [`Persist`] (under the envelope tags [`CLASSIC_TAG`],
//! [`BLOCKED_TAG`] and [`ATOMIC_TAG`]), are built by a builder that takes
//! a seed or a hasher and a memory cap, and fail with a [`BuildError`] on
//! any size they cannot honour.
//!
//! ## The blocked filter
//!
//! The blocked filter for the same 10,000 items at 1% needs 10.14 bits per
//! item and measures the rate its exact formula gives:
//!
//! ```
//! use bloomlab_classic::BlockedBloomFilter;
//!
//! let mut f = BlockedBloomFilter::builder(10_000, 0.01).seed(42).build().unwrap();
//! f.extend(0..10_000u64); // an insert into a classic filter cannot fail
//! assert_eq!((f.num_blocks(), f.num_hashes()), (198, 8)); // 10.14 bits per item
//! assert!((f.expected_fpr() - 0.0098).abs() < 0.0001);
//! // This table's own rate, from its bits: 0.997%.
//! assert!((f.estimated_fpr() - 0.00997).abs() < 0.00001);
//! let false_positives = (10_000..110_000u64).filter(|i| f.contains(i)).count();
//! assert_eq!(false_positives, 965); // 0.97% of 100,000 probes
//! ```
#![doc(html_root_url = "https://docs.rs/bloomlab-classic/0.1.0")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod atomic;
mod bits;
mod blocked;
mod builder;
pub mod codec;
pub mod descriptor;
mod error;
#[cfg(feature = "serde")]
mod serde_impls;
mod sizing;
mod stripes;
mod table;

pub use atomic::AtomicBloomFilter;
pub use bits::BloomFilter;
pub use blocked::{BlockLayout, BlockedBloomFilter};
// The traits and errors this crate's API uses, so that a program depending on
// bloomlab-classic alone can name them.
pub use bloomlab_core::{
    DecodeError, DefaultHasher, Filter, HashMembership, InsertBatchError, InsertError, Membership,
    ParamError, Persist, Tag,
};
pub use builder::{AtomicBuilder, BlockedBuilder, Builder};
pub use codec::{ATOMIC_TAG, BLOCKED_TAG, CLASSIC_TAG};
pub use error::{BuildError, Invalid, MergeError};
pub use sizing::BLOCK_BITS;
