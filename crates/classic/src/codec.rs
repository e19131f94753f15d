//! The stored forms of the three filters, inside core's
//! [envelope](bloomlab_core::codec::Envelope).
//!
//! A classic or atomic filter is written in its
//! [scheme](bloomlab_core::hash::Scheme)'s format version:
//! 1 if it was read from a version-1 file (its bits sit where
//! [`Modular`](bloomlab_core::hash::Scheme::Modular) put them), the current one otherwise. A blocked filter
//! is written in its [`BlockLayout`](crate::BlockLayout)'s: 2 for
//! [`Positions`](crate::BlockLayout::Positions) (whose bits versions 1 and 2
//! place alike), 3 for [`Sectors`](crate::BlockLayout::Sectors).
//!
//! Each is a [`WordTable`](bloomlab_core::codec::WordTable):
//!
//! | tag | parameters (little-endian) | payload |
//! |---|---|---|
//! | [`CLASSIC_TAG`], [`ATOMIC_TAG`] | `num_bits: u64`, `num_hashes: u32`, `len: u64` | `ceil(num_bits / 64)` words, little-endian |
//! | [`BLOCKED_TAG`] | `num_blocks: u64`, `num_hashes: u32`, `len: u64` | `8 · num_blocks` words, little-endian |

use bloomlab_core::Tag;
#[cfg(doc)]
use bloomlab_core::{codec::Envelope, hash::Scheme};

/// The envelope tag of a [`BloomFilter`](crate::BloomFilter).
pub const CLASSIC_TAG: Tag = Tag::new(1, "BloomFilter");

/// The envelope tag of a [`BlockedBloomFilter`](crate::BlockedBloomFilter).
pub const BLOCKED_TAG: Tag = Tag::new(2, "BlockedBloomFilter");

/// The envelope tag of an [`AtomicBloomFilter`](crate::AtomicBloomFilter):
/// its fields are those of a [`BloomFilter`](crate::BloomFilter), and the
/// tag says which type wrote them.
pub const ATOMIC_TAG: Tag = Tag::new(3, "AtomicBloomFilter");
