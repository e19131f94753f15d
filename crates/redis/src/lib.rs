#![doc = include_str!("../README.md")]
//!
//! ## Contents
//!
//! - [`RedisBloomFilter`]: the blocked Bloom filter of
//!   [`BlockedBloomFilter`](bloomlab_classic::BlockedBloomFilter), same
//!   sizing, hashing and answers; [`export`](RedisBloomFilter::export) and
//!   [`import`](RedisBloomFilter::import) move it between memory and Redis.
//! - [`RedisCountingBloomFilter`]: the same layout with 4-bit saturating
//!   counters, so items can be removed.
//! - [`RedisScalableBloomFilter`]: layers that open as it fills, keeping a
//!   total rate (RedisBloom's `BF.RESERVE … EXPANSION`); each layer's
//!   capacity is counted exactly, so concurrent writers never overfill one.
//! - [`RedisCuckooFilter`]: the cuckoo filter of
//!   [`CuckooFilter`](bloomlab_cuckoo::CuckooFilter), same sizing, hashing
//!   and answers, by scripts on keys that share the hash tag `{name}`
//!   (RedisBloom's `CF.*`; [module docs](cuckoo)).
//!
//! [`inspect()`] says what a filter is and holds knowing only its name, as
//! `bloomlab-cli inspect --redis` does.
//!
//! Each is a [`RedisFilter`] of its kind ([`Variant`]), which carries the
//! methods they all have (`create`, `open`, `insert`, `contains`, the
//! batches, `info`, `expire`, `delete` …); a kind's own methods (`remove`,
//! `count`, `export` …) are on the page of its type.
//!
//! ## Layout
//!
//! A filter `name` is a metadata hash `name:meta` (format version, kind,
//! item type, blocks, hashes, shard size, hash function and key, the items
//! and rate it was sized for, and a checksum of them all) and shard keys `name:0`, `name:1`, … of at most 1 MiB each
//! ([`Options::max_shard_bytes`]). An item's `k` bits all lie in one 512-bit
//! block of one shard, so every command touches one shard (and, for a
//! script, keys of that shard's slot only), and the shards spread over a
//! Cluster's slots:
//!
//! - a lookup is a `GETRANGE` of the item's 64-byte block, whose bits the
//!   client tests;
//! - an insert is a `BITFIELD … SET u1` of its `k` bits (`OVERFLOW SAT
//!   INCRBY u4` for counters); a batch with many items per block of a shard
//!   ORs them into it at once, by one script per shard (`BITOP OR` of a
//!   mask), which costs per block of shard instead of per item;
//! - a counting remove is one script.
//!
//! Each shard ends with a guard byte written at creation, which every batch
//! reads before it relies on the shard: a shard lost in a restart without
//! persistence is an [`Error::ShardMissing`], never a silent false negative.
//! A scalable filter's keys share the hash tag `{name}`, so one script sees
//! all its layers; it lives on one Cluster node. Each layer's shards are
//! written, with their guards, when the layer opens.
//!
//! Batches (`insert_batch`, `contains_batch`) are one pipeline: one round
//! trip on a single server, one per node on a Cluster.
//!
//! ## The example, run against a server
//!
//! The example above, against a `redis-server` this doctest starts:
//!
//! ```
//! use bloomlab_redis::{Error, Options, RedisBloomFilter, RedisCountingBloomFilter};
//!
//! # let server = bloomlab_testkit::redis_server::RedisServer::start()?;
//! # let url = server.url();
//! // let url = "redis://127.0.0.1/";
//! let client = redis::Client::open(url)?;
//! // Every process runs the same line: the first creates the filter, the
//! // others open it (a filter of that name with other parameters is an error).
//! let mut users =
//!     RedisBloomFilter::<&str, _>::create(client.get_connection()?, "users", 1_000_000, 0.01)?;
//! assert_eq!((users.num_blocks(), users.num_hashes(), users.num_shards()), (19_372, 6, 2));
//! users.insert(&"alice")?;
//! assert_eq!(users.contains_batch(&["alice", "bob"])?, [true, false]);
//!
//! // The same filter with a counter per bit can forget an item.
//! let options = Options::new().seed(1);
//! let mut sessions =
//!     RedisCountingBloomFilter::<u64, _>::create_with(client.get_connection()?, "sessions", 10_000, 0.01, options)?;
//! sessions.insert(&42)?;
//! sessions.remove(&42)?;
//! assert!(!sessions.contains(&42)?);
//! assert!(matches!(sessions.remove(&42), Err(Error::NotPresent)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! On a Cluster, pass a [`redis::cluster::ClusterConnection`](https://docs.rs/redis/1/redis/cluster/struct.ClusterConnection.html) instead. With
//! the `tokio` feature, `aio` has the same filters over async connections
//! (any `aio::ConnectionLike`: `MultiplexedConnection`, `ConnectionManager`,
//! the async `ClusterConnection`).
#![doc(html_root_url = "https://docs.rs/bloomlab-redis/0.1.0")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod admin;
#[cfg(feature = "tokio")]
pub mod aio;
mod blocked;
mod conn;
pub mod cuckoo;
mod error;
mod filter;
mod handle;
mod insert;
mod inspect;
mod layout;
mod meta;
mod ops;
mod scalable;
mod scripts;
mod shared;
mod table;
mod variant;

pub use admin::Info;
pub use blocked::{RedisBlockedFilter, RedisBloomFilter, RedisCountingBloomFilter};
pub use conn::Connection;
pub use cuckoo::RedisCuckooFilter;
pub use error::{BatchError, Error};
pub use filter::RedisFilter;
pub use inspect::inspect;
pub use layout::{DEFAULT_MAX_SHARD_BYTES, GUARD, MAX_NAME_BYTES, MAX_SHARDS};
pub use meta::{FORMAT, Kind, MAX_ITEM_NAME};
pub use scalable::{RedisScalableBloomFilter, ScalableOptions};
pub use shared::{Shared, Source};
pub use table::{DEFAULT_MAX_BYTES, Options};
pub use variant::{
    Bits, Blocking, Cells, Counted, Counters, Cuckoo, Mode, Portable, Removes, Scalable, Variant,
};
