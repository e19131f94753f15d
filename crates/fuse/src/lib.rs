//! Binary fuse filters (Graf and Lemire, "Binary Fuse Filters: Fast and
//! Smaller Than Xor Filters", 2022): static approximate sets, built at once
//! from their keys, in about 1.125 (3-wise) or 1.075 (4-wise) times the
//! `log2(1/ε)` bits per key that any such set needs.
//!
//! A filter is an array of `f`-bit fingerprints cut into segments; each key
//! has one slot in each of 3 (or 4) consecutive segments, and the
//! fingerprints are set so that a key's slots XOR to its fingerprint. A
//! lookup reads those 3 or 4 slots; an item not in the set passes with
//! probability `2^−f`. There are no inserts: a changed set is built anew
//! (the set of every id in a table, loaded at start-up and rebuilt now and
//! then, is the case it is made for).
//!
//! ```
//! use bloomlab_fuse::BinaryFuseFilter;
//!
//! let ids: Vec<u64> = (0..100_000).collect();
//! let filter = BinaryFuseFilter::<u64>::builder(0.01).seed(1).build(&ids)?;
//!
//! // No key is ever reported absent.
//! assert!(ids.iter().all(|id| filter.contains(id)));
//! // 8-bit fingerprints, 4-wise: 8 × 1.122 (the paper's size factor at
//! // 10^5 keys, 1.075 from 6 · 10^5 on), rounded up to whole segments.
//! let bits = filter.memory_bytes() as f64 * 8.0 / ids.len() as f64;
//! assert_eq!((filter.fingerprint_bits(), filter.arity()), (8, 4));
//! assert_eq!(bits, 9.0112);
//! // An absent item passes with probability 2^−8 = 0.39%: 781 expected in
//! // 200,000 probes, 690 to 873 in 99.9% of runs (binomial); 778 here.
//! let passed = (1_000_000..1_200_000u64).filter(|i| filter.contains(i)).count();
//! assert_eq!(passed, 778);
//! # Ok::<(), bloomlab_fuse::BuildError>(())
//! ```
//!
//! ## Contents
//!
//! - [`BinaryFuseFilter<T>`](BinaryFuseFilter): the filter of items of type
//!   `T`, hashed by the family's keyed [`DefaultHasher`] (seedable);
//!   [`Lookup<T>`](Lookup) (not [`Membership`](bloomlab_core::Membership):
//!   it takes no inserts), [`Persist`] through the core envelope under
//!   [`TAG`], and serde with the feature `serde`;
//! - [`Builder`]: fingerprint width (8, 16, 32) or a rate, 3- or 4-wise
//!   construction, size factor, segment length, attempt bound, memory
//!   limit, hash key or hasher;
//! - [`plan`] and [`fingerprint_bits_for`]: how a filter is sized, without
//!   building it;
//! - [`BuildError`]: why a filter could not be built (with [`Invalid`], the
//!   reasons of this crate alone);
//! - [`Shaped`]: a filter's lookups under its shape ([`Width`] of its
//!   fingerprints and arity) fixed at compile time, from
//!   [`BinaryFuseFilter::shaped`], for loops that know the shape;
//! - [`Fingerprints`]: the array a filter's lookups read, and
//!   [`BinaryFuseFilter::slots_of_hash`], the slots of it one lookup reads
//!   (for tools that look inside a filter);
//! - [`descriptor`]: the filter's entry in the catalog of variants.
//!
//! The formulas it is measured against are in
//! [`bloomlab_core::theory::fuse`].
//!
//! ## Construction
//!
//! Keys are hashed once by the filter's hasher. The first construction
//! attempt draws every key's slots from the bits of its hash; each later
//! one mixes the hashes with a seed of its own, so a failed attempt is
//! followed by one with new slots, up to [`Builder::max_attempts`]. Duplicate keys are allowed: a set with a
//! repeated key cannot be peeled, so after a failed first attempt the
//! hashes are sorted and deduplicated once. An array too small for its
//! keys ([`Builder::size_factor`] below the paper's) ends in
//! [`Invalid::NotConverged`], never in a loop. Construction needs about 30
//! bytes a key of scratch memory besides the array, every byte of it from a
//! fallible allocation.
//!
//! ## Differences from the reference code
//!
//! The sizing formulas are the paper's, so an array has exactly as many
//! slots as the reference code's (and `xorf`'s) for the same keys and
//! arity. The reference code mixes every key's hash again for each
//! attempt, lookups included; here the first attempt, which nearly always
//! succeeds, takes the slots from the hash as it is (the family's hash is
//! a keyed pseudo-random function already: a user's own hasher should be
//! one too) and the fingerprint from the top bits of the hash times an odd
//! constant, which depend on all of its bits; a later attempt draws the
//! slots from a mix of the hash with its seed, and the fingerprint from
//! the hash's two halves folded (as every array did before, so that those
//! files still read). A lookup of the first attempt's array saves the
//! mixing: about 18 instructions, from 107 to 89 a lookup when it was
//! measured; 79 since the lookup is inlined into its caller's loop, 71
//! for 3-wise arrays, where `xorf`'s `BinaryFuse8` takes 73
//! (`lookup-instructions`, 10^6 keys).
#![doc(html_root_url = "https://docs.rs/bloomlab-fuse/0.1.0")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod build;
mod builder;
mod codec;
pub mod descriptor;
mod error;
mod filter;
mod layout;
#[cfg(feature = "serde")]
mod serde_impls;
mod shaped;
mod table;

// The traits and errors this crate's API uses, so that a program depending
// on bloomlab-fuse alone can name them.
pub use bloomlab_core::{DecodeError, DefaultHasher, Filter, Lookup, ParamError, Persist, Tag};
pub use builder::{Builder, DEFAULT_MAX_ATTEMPTS, MAX_ATTEMPTS, Plan, fingerprint_bits_for, plan};
pub use codec::TAG;
pub use error::{BuildError, Invalid};
pub use filter::{BinaryFuseFilter, Fingerprints};
pub use layout::{ARITIES, MAX_KEYS, MAX_SEGMENT_LENGTH_LOG2};
pub use shaped::{Shaped, Width};
pub use table::FINGERPRINT_BITS;

/// The README's example, run as a doctest (the crate docs are their own).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
