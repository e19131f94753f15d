//! [`RedisCuckooFilter`]: the in-memory [`CuckooFilter`](bloomlab_cuckoo::CuckooFilter)'s table, hashing
//! and answers, kept in Redis and changed by scripts.
//!
//! # Layout
//!
//! A filter `name` is a metadata hash `{name}:meta` and shard keys
//! `{name}:0`, `{name}:1`, … that all share the hash tag `{name}`, so that
//! one script can reach both buckets of an item, and every bucket a
//! relocation walks through, whatever shards they fall in. The filter
//! therefore lives on one Cluster node (one slot), as a scalable filter
//! does.
//!
//! The shards hold the in-memory table's bytes: the little-endian bytes of
//! [`CuckooFilter::table_words`](bloomlab_cuckoo::CuckooFilter::table_words), cut after a multiple of 8 buckets (so every
//! shard starts on a byte), each followed by the guard byte
//! [`GUARD`](crate::GUARD). Bucket `i` is bits `i·b·f ..` of that stream,
//! slot `j` its bits `j·f .. (j+1)·f`, least significant bit first, so
//! [`export`](RedisCuckooFilter::export) and
//! [`import`](RedisCuckooFilter::import) are byte copies. Redis's `BITFIELD`
//! numbers bits from the most significant one, so the scripts read and write
//! slots with arithmetic on bytes instead.
//!
//! # Operations
//!
//! Every operation on items is one script (`EVALSHA`) per chunk of up to
//! [`CHUNK`] items, all chunks of a batch in one pipeline, so one round
//! trip. A script checks the metadata (it exists and still describes the
//! table this handle opened) and the guard of every shard before it reads
//! it, so a lost, truncated or retyped shard is an error, never an absent
//! answer. A lookup is a script too, not two plain reads: an insert by
//! another client may move a fingerprint from one of an item's buckets to
//! the other between two reads, and a script sees both buckets at one
//! instant.
//!
//! An insert that finds both buckets full walks as the in-memory filter
//! does (evict a random slot's fingerprint to its other bucket, at most
//! `max_relocations` times), but on a copy of the buckets it touches, held
//! in the script; only a walk that frees a slot is written back. So an
//! insert refused with [`Error::Full`](crate::Error::Full) changed nothing. The walk's random
//! choices come from the item's hash (a Park–Miller generator seeded from
//! it), so they are the same in every run, though not the in-memory
//! filter's: a fingerprint may end in the other of its two buckets, which
//! changes no answer.

mod filter;
mod lua;
mod shape;
mod table;
#[cfg(test)]
mod tests;

pub use filter::RedisCuckooFilter;
pub(crate) use lua::{INSERT, READ, REMOVE};
pub(crate) use shape::{CuckooMeta, Geometry};
use table::corrupt;

/// Items per script call: a batch is cut into scripts of at most this many
/// items (all sent in one pipeline), so that no script holds the server for
/// long.
pub const CHUNK: usize = 1_000;

/// Slots per bucket of a filter [`RedisCuckooFilter::create`] sizes, as
/// [`CuckooFilter::new`](bloomlab_cuckoo::CuckooFilter::new) does.
pub const BUCKET_SIZE: u32 = 4;

/// The most shard keys a cuckoo filter may have: 128 GiB of table in the
/// default 1 MiB shards, room for the largest table the in-memory filter
/// builds (2^32 buckets of four 32-bit slots, 64 GiB). Every operation that
/// lists the shards (create, export, delete) makes one command per shard,
/// so their count is capped, whether it comes from the caller or from
/// Redis.
pub const MAX_SHARDS: u64 = 1 << 17;

/// Fibonacci hashing's multiplier, as the in-memory table's alternate-bucket
/// map uses it.
const PHI: u64 = 0x9e37_79b9_7f4a_7c15;

/// The `kind` field of a cuckoo filter's metadata.
const KIND: &str = "cuckoo";

/// Markers of the scripts' errors, each followed by a shard index or a
/// reason.
const SHARD_MISSING: &str = "BLOOMLAB_SHARD_MISSING";
const SHARD_WRONGTYPE: &str = "BLOOMLAB_SHARD_WRONGTYPE";
const STALE_META: &str = "BLOOMLAB_CUCKOO_META";
