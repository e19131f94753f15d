#![doc = include_str!("../README.md")]
//!
//! ## Contents
//!
//! The fixtures are in `tests/fixtures/`, written by `GenerateFixtures.java`
//! against Debian's `libguava-java` (Guava 31.1).
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
//! The filter is also a [`bloomlab_core::Membership`] of its funnel's items,
//! so it runs wherever bloomlab's own filters do.
//!
//! ## Names
//!
//! The methods named after Guava's mirror them, in snake case, so that code
//! ported from Java reads the same: `put`, `might_contain`, `put_all`,
//! `expected_fpp`, `approximate_element_count`, `write_to`. The two numbers
//! also have the names every bloomlab filter gives them (see the glossary
//! of the `bloomlab` crate):
//! [`estimated_fpr`](GuavaBloomFilter::estimated_fpr) is `expected_fpp`,
//! and [`estimate_count`](GuavaBloomFilter::estimate_count) is
//! `approximate_element_count` before Guava rounds it.
#![doc(html_root_url = "https://docs.rs/bloomlab-guava/0.1.0")]
#![cfg_attr(docsrs, feature(doc_cfg))]
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
