//! Guava's `BloomFilter` in Rust: read a filter a Java service saved with
//! `writeTo`, answer exactly as Guava would, and write filters Guava reads.
//!
//! Everything here was read from the bytecode of Debian's `libguava-java`
//! (Guava 31.1) and is tested against that jar: for every fixture in
//! `tests/fixtures/` (written by `GenerateFixtures.java`), this crate reads
//! Guava's bytes and gives Guava's `mightContain` on every probe, builds the
//! same filter from the same items byte for byte, and computes the same
//! `expectedFpp()` and `approximateElementCount()`.
//!
//! - [`GuavaBloomFilter::create`] sizes as Guava's `create(funnel, n, fpp)`
//!   ([`sizing`]) and hashes with its default strategy, MurmurHash3 x64-128
//!   ([`Strategy::Murmur128Mitz64`]); [`Strategy::Murmur128Mitz32`] reads,
//!   answers for and extends filters from Guava before 15.
//! - [`Funnel`]s turn items into the bytes Guava hashes:
//!   [`IntegerFunnel`], [`LongFunnel`], [`StringFunnel`] (UTF-8),
//!   [`UnencodedCharsFunnel`] (UTF-16) and [`ByteArrayFunnel`]; a
//!   [`PrimitiveSink`] writes your own.
//! - [`read_from`](GuavaBloomFilter::read_from) /
//!   [`from_bytes`](GuavaBloomFilter::from_bytes) and
//!   [`write_to`](GuavaBloomFilter::write_to) speak the `writeTo` format;
//!   bad input is a [`ReadError`], never a panic or an allocation larger
//!   than the input.
//!
//! A Guava filter hashes without a key, so anyone who knows the items'
//! format can compute items that collide; bloomlab's own filters use a keyed
//! hash for that reason. Use this crate to share filters with Java.
//!
//! # Example
//!
//! ```
//! use bloomlab_guava::{GuavaBloomFilter, StringFunnel};
//!
//! // Java: BloomFilter.create(Funnels.stringFunnel(UTF_8), 10_000, 0.01)
//! let mut filter = GuavaBloomFilter::create(StringFunnel, 10_000, 0.01)?;
//! assert_eq!((filter.bit_size(), filter.num_hash_functions()), (95_872, 7)); // 9.6 bits per item
//! for i in 0..10_000 {
//!     filter.put(&format!("user:{i}"));
//! }
//! assert!(filter.might_contain("user:42"));
//! let false_positives = (0..10_000).filter(|i| filter.might_contain(&format!("guest:{i}"))).count();
//! assert!(false_positives < 150, "{false_positives}"); // about 1%
//! assert!((filter.expected_fpp() - 0.01).abs() < 0.002);
//! assert!(filter.approximate_element_count().abs_diff(10_000) < 100);
//!
//! // The bytes Java's writeTo writes, and BloomFilter.readFrom(in, funnel) reads.
//! let bytes = filter.to_bytes();
//! assert_eq!(bytes.len(), 6 + 95_872 / 8);
//! let back = GuavaBloomFilter::from_bytes(&bytes, StringFunnel)?;
//! assert_eq!(back, filter);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The filter is also a [`bloomlab_core::Membership`] of its funnel's items,
//! so it runs wherever bloomlab's own filters do.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod codec;
mod error;
mod filter;
mod funnel;
pub mod sizing;
mod strategy;

pub use error::{CreateError, IncompatibleError, ReadError};
pub use filter::{DEFAULT_FPP, GuavaBloomFilter};
pub use funnel::{
    ByteArrayFunnel, Funnel, IntegerFunnel, LongFunnel, PrimitiveSink, StringFunnel,
    UnencodedCharsFunnel,
};
pub use strategy::{Strategy, murmur3_128};
